/* Package manifests: the strict parser and the writer (lib/codec/manifest.h). */
#include "manifest.h"
#include "blob.h"
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define TC_MANIFEST_MAX_TOKENS 16
#define TC_MANIFEST_MAX_TEXT   (64u << 20) /* far beyond 65536 elements */

/* Header keys seen so far: each may appear once, before the elements. */
enum {
    TC_MANIFEST_SEEN_NAME    = 1u << 0,
    TC_MANIFEST_SEEN_ID      = 1u << 1,
    TC_MANIFEST_SEEN_ARCH    = 1u << 2,
    TC_MANIFEST_SEEN_LIBRARY = 1u << 3,
    TC_MANIFEST_SEEN_ALL     = 0xfu
};

typedef struct tc_manifest_parser {
    tc_manifest_t *m;
    uint32_t       cap;          /* elements allocated */
    unsigned       seen;         /* TC_MANIFEST_SEEN_* */
    int            have_header;  /* the "twochains-package" line */
    unsigned       version;      /* its version */
    size_t         line;         /* 1-based, for messages */
    char          *err;
    size_t         err_len;
} tc_manifest_parser_t;

static tc_status_t tc_manifest_fail(tc_manifest_parser_t *p, tc_status_t status,
                                    const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static tc_status_t tc_manifest_fail(tc_manifest_parser_t *p, tc_status_t status,
                                    const char *fmt, ...)
{
    va_list ap;
    int n;

    if ((p->err != NULL) && (p->err_len > 0)) {
        n = snprintf(p->err, p->err_len, "line %zu: ", p->line);
        if ((n >= 0) && ((size_t)n < p->err_len)) {
            va_start(ap, fmt);
            vsnprintf(p->err + n, p->err_len - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return status;
}

/* ------------------------------------------------------------ field checks */

static int tc_manifest_is_ident(const char *s)
{
    size_t i;

    if (!(((s[0] >= 'a') && (s[0] <= 'z')) || ((s[0] >= 'A') && (s[0] <= 'Z')) ||
          (s[0] == '_'))) {
        return 0;
    }
    for (i = 1; s[i] != '\0'; ++i) {
        if (!(((s[i] >= 'a') && (s[i] <= 'z')) || ((s[i] >= 'A') && (s[i] <= 'Z')) ||
              ((s[i] >= '0') && (s[i] <= '9')) || (s[i] == '_'))) {
            return 0;
        }
    }
    return i < TC_MANIFEST_NAME_MAX;
}

/* A plain file name in the install directory: nothing that leaves it. */
static int tc_manifest_is_file(const char *s)
{
    size_t i;

    if ((s[0] == '\0') || (s[0] == '.')) {
        return 0;
    }
    for (i = 0; s[i] != '\0'; ++i) {
        if (!(((s[i] >= 'a') && (s[i] <= 'z')) || ((s[i] >= 'A') && (s[i] <= 'Z')) ||
              ((s[i] >= '0') && (s[i] <= '9')) || (s[i] == '_') || (s[i] == '.') ||
              (s[i] == '-') || (s[i] == '+'))) {
            return 0;
        }
    }
    return i < TC_MANIFEST_FILE_MAX;
}

/* Decimal, no sign, no leading zeros, at most max. */
static int tc_manifest_dec(const char *s, uint64_t max, uint64_t *v_p)
{
    uint64_t v = 0;
    size_t i;

    if ((s[0] == '\0') || ((s[0] == '0') && (s[1] != '\0'))) {
        return 0;
    }
    for (i = 0; s[i] != '\0'; ++i) {
        if ((s[i] < '0') || (s[i] > '9') || (v > (max - (uint64_t)(s[i] - '0')) / 10)) {
            return 0;
        }
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *v_p = v;
    return 1;
}

/* "0x" and exactly digits hex digits. */
static int tc_manifest_hex(const char *s, size_t digits, uint64_t *v_p)
{
    uint64_t v = 0;
    size_t i;
    int d;

    if ((s[0] != '0') || (s[1] != 'x') || (strlen(s + 2) != digits)) {
        return 0;
    }
    for (i = 2; s[i] != '\0'; ++i) {
        if ((s[i] >= '0') && (s[i] <= '9')) {
            d = s[i] - '0';
        } else if ((s[i] >= 'a') && (s[i] <= 'f')) {
            d = s[i] - 'a' + 10;
        } else if ((s[i] >= 'A') && (s[i] <= 'F')) {
            d = s[i] - 'A' + 10;
        } else {
            return 0;
        }
        v = (v << 4) | (uint64_t)d;
    }
    *v_p = v;
    return 1;
}

const char *tc_manifest_arch_name(uint32_t arch)
{
    switch (arch) {
    case TC_BLOB_ARCH_X86_64:  return "x86_64";
    case TC_BLOB_ARCH_AARCH64: return "aarch64";
    default:                   return NULL;
    }
}

uint32_t tc_manifest_arch_parse(const char *name)
{
    if (strcmp(name, "x86_64") == 0) {
        return TC_BLOB_ARCH_X86_64;
    }
    if (strcmp(name, "aarch64") == 0) {
        return TC_BLOB_ARCH_AARCH64;
    }
    return 0;
}

static const char *const tc_manifest_doc_keys[TC_MANIFEST_DOC_N] = {"what", "payload",
                                                                     "result"};

const char *tc_manifest_doc_key(tc_manifest_doc_t doc)
{
    return ((unsigned)doc < TC_MANIFEST_DOC_N) ? tc_manifest_doc_keys[doc] : "unknown";
}

tc_status_t tc_manifest_doc_check(const char *text, size_t len, char *err, size_t err_len)
{
    size_t i;

    if (len == 0) {
        snprintf(err, err_len, "empty");
        return TC_ERR_PROTOCOL;
    }
    if (len >= TC_JAM_DOC_MAX) {
        snprintf(err, err_len, "%zu bytes, more than %d", len, TC_JAM_DOC_MAX - 1);
        return TC_ERR_PROTOCOL;
    }
    for (i = 0; i < len; ++i) {
        if (((unsigned char)text[i] < 0x20) || ((unsigned char)text[i] > 0x7e)) {
            snprintf(err, err_len, "byte 0x%02x at %zu is not printable ASCII (one line, "
                     "space to '~')", (unsigned char)text[i], i);
            return TC_ERR_PROTOCOL;
        }
    }
    if ((text[0] == ' ') || (text[len - 1] == ' ')) {
        snprintf(err, err_len, "a space %s", (text[0] == ' ') ? "first" : "last");
        return TC_ERR_PROTOCOL;
    }
    return TC_OK;
}

/* ----------------------------------------------------------------- records */

static tc_status_t tc_manifest_header_key(tc_manifest_parser_t *p, char **tok,
                                          unsigned ntok)
{
    tc_manifest_t *m = p->m;
    unsigned bit;
    uint64_t v;

    if (strcmp(tok[0], "name") == 0) {
        bit = TC_MANIFEST_SEEN_NAME;
    } else if (strcmp(tok[0], "id") == 0) {
        bit = TC_MANIFEST_SEEN_ID;
    } else if (strcmp(tok[0], "arch") == 0) {
        bit = TC_MANIFEST_SEEN_ARCH;
    } else {
        bit = TC_MANIFEST_SEEN_LIBRARY;
    }
    if (p->seen & bit) {
        return tc_manifest_fail(p, TC_ERR_PROTOCOL, "'%s' given twice", tok[0]);
    }
    if (m->n_elements > 0) {
        return tc_manifest_fail(p, TC_ERR_PROTOCOL, "'%s' after the elements", tok[0]);
    }
    if (ntok != 2) {
        return tc_manifest_fail(p, TC_ERR_PROTOCOL, "'%s' takes one value, got %u",
                                tok[0], ntok - 1);
    }

    switch (bit) {
    case TC_MANIFEST_SEEN_NAME:
        if (!tc_manifest_is_ident(tok[1])) {
            return tc_manifest_fail(p, TC_ERR_PROTOCOL,
                                    "package name '%s' is not a C identifier", tok[1]);
        }
        strcpy(m->name, tok[1]);
        break;
    case TC_MANIFEST_SEEN_ID:
        if (!tc_manifest_hex(tok[1], 8, &v)) {
            return tc_manifest_fail(p, TC_ERR_PROTOCOL,
                                    "package id '%s' is not 0x and 8 hex digits", tok[1]);
        }
        m->id = (uint32_t)v;
        break;
    case TC_MANIFEST_SEEN_ARCH:
        m->arch = tc_manifest_arch_parse(tok[1]);
        if (m->arch == 0) {
            return tc_manifest_fail(p, TC_ERR_PROTOCOL,
                                    "unknown arch '%s' (x86_64 or aarch64)", tok[1]);
        }
        break;
    default:
        if (!tc_manifest_is_file(tok[1])) {
            return tc_manifest_fail(p, TC_ERR_PROTOCOL, "bad library file name '%s'",
                                    tok[1]);
        }
        strcpy(m->library, tok[1]);
        break;
    }
    p->seen |= bit;
    return TC_OK;
}

/* tok[at] must be key; its value is tok[at + 1]. */
static tc_status_t tc_manifest_expect(tc_manifest_parser_t *p, char **tok, unsigned at,
                                      const char *key)
{
    if (strcmp(tok[at], key) != 0) {
        return tc_manifest_fail(p, TC_ERR_PROTOCOL, "field %u is '%s', expected '%s'",
                                at + 1, tok[at], key);
    }
    return TC_OK;
}

static tc_status_t tc_manifest_jam_fields(tc_manifest_parser_t *p, char **tok,
                                          unsigned ntok, tc_manifest_elem_t *e)
{
    static const char *const keys[] = {"blob", "hash", "code", "got", "entry", "writable"};
    tc_status_t status;
    uint64_t v;
    unsigned k;

    if (ntok != 16) {
        return tc_manifest_fail(p, TC_ERR_PROTOCOL,
                                "jam element has %u fields, expected 16", ntok);
    }
    for (k = 0; k < TC_ARRAY_SIZE(keys); ++k) {
        status = tc_manifest_expect(p, tok, 4 + 2 * k, keys[k]);
        if (status != TC_OK) {
            return status;
        }
    }
    if (!tc_manifest_is_file(tok[5])) {
        return tc_manifest_fail(p, TC_ERR_PROTOCOL, "bad blob file name '%s'", tok[5]);
    }
    strcpy(e->file, tok[5]);
    if (!tc_manifest_hex(tok[7], 16, &e->hash)) {
        return tc_manifest_fail(p, TC_ERR_PROTOCOL,
                                "hash '%s' is not 0x and 16 hex digits", tok[7]);
    }
    if (!tc_manifest_dec(tok[9], TC_BLOB_MAX_IMAGE, &v) || (v == 0)) {
        return tc_manifest_fail(p, TC_ERR_PROTOCOL, "bad code size '%s' (1..%u)", tok[9],
                                TC_BLOB_MAX_IMAGE);
    }
    e->code_bytes = (uint32_t)v;
    if (!tc_manifest_dec(tok[11], TC_BLOB_MAX_SLOTS, &v)) {
        return tc_manifest_fail(p, TC_ERR_PROTOCOL, "bad GOT slot count '%s' (0..%u)",
                                tok[11], TC_BLOB_MAX_SLOTS);
    }
    e->got_slots = (uint32_t)v;
    if (!tc_manifest_dec(tok[13], UINT32_MAX, &v) || (v >= e->code_bytes) ||
        (v < 8u * e->got_slots)) {
        return tc_manifest_fail(p, TC_ERR_PROTOCOL,
                                "bad entry offset '%s' (past the GOT, inside the code)",
                                tok[13]);
    }
    e->entry_offset = (uint32_t)v;
    /* writable data comes after .text, which holds the entry */
    if (!tc_manifest_dec(tok[15], UINT32_MAX, &v) || (v >= e->code_bytes - e->entry_offset)) {
        return tc_manifest_fail(p, TC_ERR_PROTOCOL,
                                "bad writable size '%s' (0..%u: after the entry)", tok[15],
                                e->code_bytes - e->entry_offset - 1);
    }
    e->writable_bytes = (uint32_t)v;
    return TC_OK;
}

static tc_status_t tc_manifest_element(tc_manifest_parser_t *p, char **tok,
                                       unsigned ntok)
{
    tc_manifest_t *m = p->m;
    tc_manifest_elem_t *e, *grown;
    tc_status_t status;
    uint32_t i, cap;
    uint64_t id;

    if (!((p->seen & TC_MANIFEST_SEEN_ALL) == TC_MANIFEST_SEEN_ALL)) {
        return tc_manifest_fail(p, TC_ERR_PROTOCOL,
                                "element before the name, id, arch and library lines");
    }
    if (ntok < 4) {
        return tc_manifest_fail(p, TC_ERR_PROTOCOL, "element has %u fields, expected "
                                "'element <id> jam|ried <name> ...'", ntok);
    }
    if (!tc_manifest_dec(tok[1], UINT32_MAX, &id)) {
        return tc_manifest_fail(p, TC_ERR_PROTOCOL, "bad element id '%s'", tok[1]);
    }
    if (id != m->n_elements) {
        return tc_manifest_fail(p, TC_ERR_PROTOCOL,
                                "element id %s out of order (expected %u)", tok[1],
                                m->n_elements);
    }
    if (id >= TC_MANIFEST_MAX_ELEM) {
        return tc_manifest_fail(p, TC_ERR_PROTOCOL, "more than %u elements",
                                TC_MANIFEST_MAX_ELEM);
    }
    if (!tc_manifest_is_ident(tok[3])) {
        return tc_manifest_fail(p, TC_ERR_PROTOCOL,
                                "element name '%s' is not a C identifier", tok[3]);
    }
    for (i = 0; i < m->n_elements; ++i) {
        if (strcmp(m->elements[i].name, tok[3]) == 0) {
            return tc_manifest_fail(p, TC_ERR_PROTOCOL,
                                    "element name '%s' already used by element %u",
                                    tok[3], i);
        }
    }

    if (m->n_elements == p->cap) {
        cap   = (p->cap == 0) ? 8 : 2 * p->cap;
        grown = realloc(m->elements, (size_t)cap * sizeof(*grown));
        if (grown == NULL) {
            return tc_manifest_fail(p, TC_ERR_NO_MEMORY, "out of memory");
        }
        m->elements = grown;
        p->cap      = cap;
    }
    e = &m->elements[m->n_elements];
    memset(e, 0, sizeof(*e));
    e->id = (uint16_t)id;
    strcpy(e->name, tok[3]);

    if (strcmp(tok[2], "jam") == 0) {
        e->kind = TC_ELEM_JAM;
        status  = tc_manifest_jam_fields(p, tok, ntok, e);
    } else if (strcmp(tok[2], "ried") == 0) {
        e->kind = TC_ELEM_RIED;
        if (ntok != 6) {
            status = tc_manifest_fail(p, TC_ERR_PROTOCOL,
                                      "ried element has %u fields, expected 6", ntok);
        } else {
            status = tc_manifest_expect(p, tok, 4, "lib");
            if ((status == TC_OK) && !tc_manifest_is_file(tok[5])) {
                status = tc_manifest_fail(p, TC_ERR_PROTOCOL,
                                          "bad ried library file name '%s'", tok[5]);
            }
            if (status == TC_OK) {
                strcpy(e->file, tok[5]);
            }
        }
    } else {
        status = tc_manifest_fail(p, TC_ERR_PROTOCOL,
                                  "unknown element kind '%s' (jam or ried)", tok[2]);
    }
    if (status != TC_OK) {
        return status;
    }
    m->n_elements++;
    return TC_OK;
}

/* "describe <id> <key> <text>": one space between the fields, the text the
 * rest of the line (it has spaces of its own). */
static tc_status_t tc_manifest_describe(tc_manifest_parser_t *p, char *line)
{
    char *id_s = line + strlen("describe "), *key, *text, *sp, err[128];
    tc_manifest_elem_t *e;
    uint64_t id;
    unsigned k;

    if (p->version < 3) {
        return tc_manifest_fail(p, TC_ERR_PROTOCOL, "'describe' in a version %u manifest "
                                "(it came with version 3)", p->version);
    }
    sp = strchr(id_s, ' ');
    key = (sp != NULL) ? sp + 1 : NULL;
    text = (key != NULL) ? strchr(key, ' ') : NULL;
    if (text == NULL) {
        return tc_manifest_fail(p, TC_ERR_PROTOCOL, "expected 'describe <id> "
                                "what|payload|result <text>', one space apart");
    }
    *sp = '\0';
    *text++ = '\0';
    if (!tc_manifest_dec(id_s, UINT32_MAX, &id)) {
        return tc_manifest_fail(p, TC_ERR_PROTOCOL, "describe: bad element id '%.16s'", id_s);
    }
    if (id >= p->m->n_elements) {
        return tc_manifest_fail(p, TC_ERR_PROTOCOL, "describe %s: no element %s before it",
                                id_s, id_s);
    }
    e = &p->m->elements[id];
    if (e->kind != TC_ELEM_JAM) {
        return tc_manifest_fail(p, TC_ERR_PROTOCOL, "describe %s: element %s is ried '%s'; "
                                "only jams are described", id_s, id_s, e->name);
    }
    for (k = 0; (k < TC_MANIFEST_DOC_N) && (strcmp(key, tc_manifest_doc_keys[k]) != 0); ++k) {
    }
    if (k == TC_MANIFEST_DOC_N) {
        return tc_manifest_fail(p, TC_ERR_PROTOCOL, "describe %s: unknown key '%.16s' (what, "
                                "payload or result)", id_s, key);
    }
    if (e->doc[k] != NULL) {
        return tc_manifest_fail(p, TC_ERR_PROTOCOL, "describe %s %s given twice", id_s, key);
    }
    if (tc_manifest_doc_check(text, strlen(text), err, sizeof(err)) != TC_OK) {
        return tc_manifest_fail(p, TC_ERR_PROTOCOL, "describe %s %s: %s", id_s, key, err);
    }
    e->doc[k] = strdup(text);
    if (e->doc[k] == NULL) {
        return tc_manifest_fail(p, TC_ERR_NO_MEMORY, "out of memory");
    }
    return TC_OK;
}

/* Every jam has all of its describe texts or none. */
static tc_status_t tc_manifest_docs_whole(tc_manifest_parser_t *p)
{
    const tc_manifest_elem_t *e;
    unsigned k, have;
    uint32_t i;

    for (i = 0; i < p->m->n_elements; ++i) {
        e = &p->m->elements[i];
        for (k = 0, have = 0; k < TC_MANIFEST_DOC_N; ++k) {
            have += (e->doc[k] != NULL);
        }
        for (k = 0; (have != 0) && (k < TC_MANIFEST_DOC_N); ++k) {
            if (e->doc[k] == NULL) {
                return tc_manifest_fail(p, TC_ERR_PROTOCOL, "end of text: jam '%s' (element "
                                        "%u) is described without 'describe %u %s'", e->name,
                                        i, i, tc_manifest_doc_keys[k]);
            }
        }
    }
    return TC_OK;
}

/* One line (NUL-terminated, modified in place). */
static tc_status_t tc_manifest_line(tc_manifest_parser_t *p, char *line)
{
    char *tok[TC_MANIFEST_MAX_TOKENS];
    unsigned ntok = 0;
    uint64_t v;
    char *s   = line;

    if (p->have_header && (strncmp(line, "describe ", 9) == 0)) {
        return tc_manifest_describe(p, line);
    }
    for (;;) {
        while ((*s == ' ') || (*s == '\t')) {
            *s++ = '\0';
        }
        if (*s == '\0') {
            break;
        }
        if (ntok == TC_MANIFEST_MAX_TOKENS) {
            return tc_manifest_fail(p, TC_ERR_PROTOCOL, "more than %u fields",
                                    TC_MANIFEST_MAX_TOKENS);
        }
        tok[ntok++] = s;
        while ((*s != ' ') && (*s != '\t') && (*s != '\0')) {
            ++s;
        }
    }
    if ((ntok == 0) || (tok[0][0] == '#')) {
        return TC_OK;
    }

    if (!p->have_header) {
        if ((strcmp(tok[0], "twochains-package") != 0) || (ntok != 2)) {
            return tc_manifest_fail(p, TC_ERR_PROTOCOL,
                                    "expected 'twochains-package %d' first",
                                    TC_MANIFEST_VERSION);
        }
        if (!tc_manifest_dec(tok[1], UINT32_MAX, &v)) {
            return tc_manifest_fail(p, TC_ERR_PROTOCOL, "bad manifest version '%s'",
                                    tok[1]);
        }
        if ((v < TC_MANIFEST_VERSION_MIN) || (v > TC_MANIFEST_VERSION)) {
            return tc_manifest_fail(p, TC_ERR_VERSION_MISMATCH,
                                    "manifest version %s, this library reads %d to %d "
                                    "(rebuild the package with this tc-pkg)", tok[1],
                                    TC_MANIFEST_VERSION_MIN, TC_MANIFEST_VERSION);
        }
        p->have_header = 1;
        p->version     = (unsigned)v;
        return TC_OK;
    }

    if ((strcmp(tok[0], "name") == 0) || (strcmp(tok[0], "id") == 0) ||
        (strcmp(tok[0], "arch") == 0) || (strcmp(tok[0], "library") == 0)) {
        return tc_manifest_header_key(p, tok, ntok);
    }
    if (strcmp(tok[0], "element") == 0) {
        return tc_manifest_element(p, tok, ntok);
    }
    if (strcmp(tok[0], "twochains-package") == 0) {
        return tc_manifest_fail(p, TC_ERR_PROTOCOL, "'twochains-package' given twice");
    }
    if (strcmp(tok[0], "describe") == 0) {
        return tc_manifest_fail(p, TC_ERR_PROTOCOL, "expected 'describe <id> "
                                "what|payload|result <text>' from the line's start, one "
                                "space apart");
    }
    return tc_manifest_fail(p, TC_ERR_PROTOCOL, "unknown keyword '%.32s'", tok[0]);
}

tc_status_t tc_manifest_parse_err(const char *text, size_t len, char *err,
                                  size_t err_len, tc_manifest_t **m_p)
{
    static const char *const keys[] = {"name", "id", "arch", "library"};
    tc_manifest_parser_t p = {.err = err, .err_len = err_len};
    size_t pos = 0, end, k;
    tc_status_t status;
    char *copy;

    if ((err != NULL) && (err_len > 0)) {
        err[0] = '\0';
    }
    if (((text == NULL) && (len > 0)) || (m_p == NULL)) {
        return TC_ERR_INVALID_PARAM;
    }
    if (len > TC_MANIFEST_MAX_TEXT) {
        return tc_manifest_fail(&p, TC_ERR_PROTOCOL, "manifest larger than %u bytes",
                                TC_MANIFEST_MAX_TEXT);
    }
    if ((len > 0) && (memchr(text, '\0', len) != NULL)) {
        p.line = 1;
        for (k = 0; text[k] != '\0'; ++k) {
            p.line += (text[k] == '\n');
        }
        return tc_manifest_fail(&p, TC_ERR_PROTOCOL, "NUL byte in the text");
    }

    /* A private, NUL-terminated copy: lines are split in place. */
    copy = malloc(len + 1);
    if (copy == NULL) {
        return TC_ERR_NO_MEMORY;
    }
    if (len > 0) {
        memcpy(copy, text, len);
    }
    copy[len] = '\0';

    p.m = calloc(1, sizeof(*p.m));
    if (p.m == NULL) {
        status = TC_ERR_NO_MEMORY;
        goto out_free_copy;
    }

    while (pos < len) {
        p.line++;
        for (end = pos; (end < len) && (copy[end] != '\n'); ++end) {
        }
        copy[end] = '\0';
        status = tc_manifest_line(&p, copy + pos);
        if (status != TC_OK) {
            goto err_free_m;
        }
        pos = end + 1;
    }

    if (!p.have_header) {
        status = tc_manifest_fail(&p, TC_ERR_PROTOCOL,
                                  "end of text: no 'twochains-package' line");
        goto err_free_m;
    }
    for (k = 0; k < TC_ARRAY_SIZE(keys); ++k) {
        if (!(p.seen & (1u << k))) {
            status = tc_manifest_fail(&p, TC_ERR_PROTOCOL, "end of text: no '%s' line",
                                      keys[k]);
            goto err_free_m;
        }
    }
    status = tc_manifest_docs_whole(&p);
    if (status != TC_OK) {
        goto err_free_m;
    }

    *m_p   = p.m;
    status = TC_OK;
    goto out_free_copy;

err_free_m:
    tc_manifest_free(p.m);
out_free_copy:
    free(copy);
    return status;
}

tc_status_t tc_manifest_parse(const char *text, size_t len, tc_manifest_t **m_p)
{
    char err[256];
    tc_status_t status;

    status = tc_manifest_parse_err(text, len, err, sizeof(err), m_p);
    if ((status != TC_OK) && (err[0] != '\0')) {
        tc_error("manifest: %s", err);
    }
    return status;
}

tc_status_t tc_manifest_load(const char *dir, tc_manifest_t **m_p)
{
    char path[4096], err[256];
    tc_status_t status;
    size_t len = 0, cap = 0, n;
    char *text = NULL, *grown;
    FILE *f;
    int rc;

    rc = snprintf(path, sizeof(path), "%s/%s", dir, TC_MANIFEST_FILE);
    if ((rc < 0) || ((size_t)rc >= sizeof(path))) {
        return TC_ERR_OUT_OF_RANGE;
    }
    f = fopen(path, "r");
    if (f == NULL) {
        tc_error("cannot open %s: %s", path, strerror(errno));
        return (errno == ENOENT) ? TC_ERR_NOT_FOUND : TC_ERR_IO;
    }
    for (;;) {
        if (len == cap) {
            cap   = (cap == 0) ? 4096 : 2 * cap;
            if (cap > TC_MANIFEST_MAX_TEXT + 1) {
                tc_error("%s: larger than %u bytes", path, TC_MANIFEST_MAX_TEXT);
                status = TC_ERR_PROTOCOL;
                goto out;
            }
            grown = realloc(text, cap);
            if (grown == NULL) {
                tc_error("%s: out of memory reading it (%zu bytes)", path, cap);
                status = TC_ERR_NO_MEMORY;
                goto out;
            }
            text = grown;
        }
        n = fread(text + len, 1, cap - len, f);
        len += n;
        if (n == 0) {
            break;
        }
    }
    if (ferror(f)) {
        tc_error("cannot read %s", path);
        status = TC_ERR_IO;
        goto out;
    }
    status = tc_manifest_parse_err(text, len, err, sizeof(err), m_p);
    if (status != TC_OK) {
        tc_error("%s: %s", path, err);
    }
out:
    free(text);
    fclose(f);
    return status;
}

void tc_manifest_free(tc_manifest_t *m)
{
    uint32_t i;
    unsigned k;

    if (m != NULL) {
        for (i = 0; i < m->n_elements; ++i) {
            for (k = 0; k < TC_MANIFEST_DOC_N; ++k) {
                free(m->elements[i].doc[k]);
            }
        }
        free(m->elements);
        free(m);
    }
}

tc_status_t tc_manifest_write(const tc_manifest_t *m, FILE *f)
{
    const char *arch = tc_manifest_arch_name(m->arch);
    const tc_manifest_elem_t *e;
    char err[128];
    uint32_t i;
    unsigned k, have;

    if (arch == NULL) {
        return TC_ERR_INVALID_PARAM;
    }
    /* what the parser would refuse is not written */
    for (i = 0; i < m->n_elements; ++i) {
        e = &m->elements[i];
        for (k = 0, have = 0; k < TC_MANIFEST_DOC_N; ++k) {
            have += (e->doc[k] != NULL);
            if ((e->doc[k] != NULL) &&
                (tc_manifest_doc_check(e->doc[k], strlen(e->doc[k]), err, sizeof(err)) != TC_OK)) {
                return TC_ERR_INVALID_PARAM;
            }
        }
        if ((have != 0) && ((have != TC_MANIFEST_DOC_N) || (e->kind != TC_ELEM_JAM))) {
            return TC_ERR_INVALID_PARAM;
        }
    }
    fprintf(f, "twochains-package %d\n", TC_MANIFEST_VERSION);
    fprintf(f, "# written by tc-pkg; element ids are the package header's\n");
    fprintf(f, "name %s\nid 0x%08x\narch %s\nlibrary %s\n", m->name, m->id, arch,
            m->library);
    for (i = 0; i < m->n_elements; ++i) {
        e = &m->elements[i];
        if (e->kind == TC_ELEM_JAM) {
            fprintf(f,
                    "element %u jam %s blob %s hash 0x%016llx code %u got %u entry %u "
                    "writable %u\n",
                    i, e->name, e->file, (unsigned long long)e->hash, e->code_bytes,
                    e->got_slots, e->entry_offset, e->writable_bytes);
            for (k = 0; (e->doc[0] != NULL) && (k < TC_MANIFEST_DOC_N); ++k) {
                fprintf(f, "describe %u %s %s\n", i, tc_manifest_doc_keys[k], e->doc[k]);
            }
        } else {
            fprintf(f, "element %u ried %s lib %s\n", i, e->name, e->file);
        }
    }
    return ferror(f) ? TC_ERR_IO : TC_OK;
}

tc_status_t tc_manifest_check_blob(const tc_manifest_t *m, const tc_manifest_elem_t *e,
                                   const tc_blob_t *blob, char *err, size_t err_len)
{
    const tc_blob_file_hdr_t *h = blob->hdr;
    const char *what;
    uint32_t have, want;

    if (h->arch != m->arch) {
        snprintf(err, err_len, "arch %s, the manifest's package is for %s",
                 tc_manifest_arch_name(h->arch), tc_manifest_arch_name(m->arch));
        return TC_ERR_PROTOCOL;
    }
    if (h->content_hash != e->hash) {
        snprintf(err, err_len, "content hash 0x%016llx, the manifest's jam '%s' has 0x%016llx",
                 (unsigned long long)h->content_hash, e->name, (unsigned long long)e->hash);
        return TC_ERR_PROTOCOL;
    }
    if (h->image_size != e->code_bytes) {
        what = "code bytes";
        have = h->image_size;
        want = e->code_bytes;
    } else if (h->got_count != e->got_slots) {
        what = "GOT slots";
        have = h->got_count;
        want = e->got_slots;
    } else if (h->entry_offset != e->entry_offset) {
        what = "entry offset";
        have = h->entry_offset;
        want = e->entry_offset;
    } else if ((h->bss_size > 0) && (e->writable_bytes == 0)) {
        /* the blob cannot tell .data from code, but .bss it can */
        snprintf(err, err_len, "%u bytes of .bss, but the manifest's jam '%s' has writable 0",
                 h->bss_size, e->name);
        return TC_ERR_PROTOCOL;
    } else {
        if (err_len > 0) {
            err[0] = '\0';
        }
        return TC_OK;
    }
    snprintf(err, err_len, "%s %u, the manifest's jam '%s' has %u", what, have, e->name, want);
    return TC_ERR_PROTOCOL;
}

const tc_manifest_elem_t *tc_manifest_find(const tc_manifest_t *m, const char *name)
{
    uint32_t i;

    for (i = 0; i < m->n_elements; ++i) {
        if (strcmp(m->elements[i].name, name) == 0) {
            return &m->elements[i];
        }
    }
    return NULL;
}
