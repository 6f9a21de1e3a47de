/*
 * tc-pkg build: sources -> package install directory.
 *
 *   <pkg>.h              element ids, package id, per jam code bytes/GOT slots
 *   libtc_<pkg>.so       the Local Function library (descriptor tc_package_desc)
 *   libried_<name>.so    each ried alone, for shipping to peers
 *   jam_<name>.blob      each jam as an injectable blob (lib/codec/blob.h)
 *   manifest.tcm         what belongs to which element (lib/codec/manifest.h), last
 *
 * Objects are built in a private temporary directory; every output is
 * written next to its final name and renamed over it.
 */
#define _GNU_SOURCE
#include "tc_pkg.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Flags every element gets: what injection needs (position-independent,
 * calls through the GOT, nothing exported by accident), and no fused
 * multiply-add contraction: aarch64 would fuse a * b + c where x86-64
 * (without -mfma) rounds twice, and a jam must compute the same bits on
 * every architecture and in both its forms (blob, Local Function). */
static const char *const tc_pkg_base_flags[] = {
    "-std=gnu11", "-O2", "-fPIC", "-fno-plt", "-fvisibility=hidden", "-ffp-contract=off"
};
/* Jams only: no unwind tables or stack-protector canaries in the image,
 * and a section per function and object, so that the blob keeps only what
 * the run entry reaches (tools/pkg_blob.c, tc_pkg_keep_reached). */
static const char *const tc_pkg_jam_flags[] = {
    "-fno-asynchronous-unwind-tables", "-fno-unwind-tables", "-fno-stack-protector",
    "-ffunction-sections", "-fdata-sections"
};
/* aarch64 jams: byte-position independent addressing (GOT_LD_PREL19, ADR,
 * branches) and no calls to libgcc's outline atomics, which no peer exports. */
static const char *const tc_pkg_a64_jam_flags[] = {
    "-mcmodel=tiny", "-mno-outline-atomics"
};

typedef struct tc_pkg_src {
    char    *path;
    char    *dir;                           /* its directory: -I */
    char     name[TC_MANIFEST_NAME_MAX];
    int      kind;                          /* tc_elem_kind_t */
    /* results, jams */
    void    *blob;
    size_t   blob_len;
    tc_blob_t parsed;
    uint32_t writable;                      /* the manifest's writable */
    uint32_t hints;                         /* TC_JAM_HINT_* */
    char    *doc[TC_MANIFEST_DOC_N];        /* TC_JAM_DESCRIBE's texts; NULL: none */
} tc_pkg_src_t;

typedef struct tc_pkg_builder {
    const tc_pkg_build_opts_t *opts;
    tc_pkg_src_t              *srcs;
    size_t                     n_srcs, cap_srcs;
    size_t                     n_jams;
    char                       tmp[TC_PKG_PATH_MAX];
    char                       upper[TC_MANIFEST_NAME_MAX];   /* package name, upper case */
    uint32_t                   id;
    uint64_t                   cc_hash;    /* the compiler's identity: --version, target */
    tc_manifest_t             *old;        /* the package --out held before, if any */
    tc_pkg_strv_t              libgcc;     /* what libgcc.a defines (read when needed) */
    char                      *libgcc_path;
} tc_pkg_builder_t;

static int tc_pkg_is_ident(const char *s, size_t len)
{
    size_t i;

    if ((len == 0) || (len >= TC_MANIFEST_NAME_MAX) || isdigit((unsigned char)s[0])) {
        return 0;
    }
    for (i = 0; i < len; ++i) {
        if (!(isalnum((unsigned char)s[i]) || (s[i] == '_')) || ((unsigned char)s[i] > 127)) {
            return 0;
        }
    }
    return 1;
}

static void tc_pkg_upper(char *dst, const char *src, size_t len)
{
    size_t i;

    for (i = 0; (i + 1 < len) && (src[i] != '\0'); ++i) {
        dst[i] = (char)toupper((unsigned char)src[i]);
    }
    dst[i] = '\0';
}

/* ---------------------------------------------------------------- sources */

/* name is "jam_<id>.amc" or "ried_<id>.rdc": add it; anything else: skip. */
static tc_status_t tc_pkg_add_source(tc_pkg_builder_t *b, const char *dir, const char *name)
{
    static const struct {
        const char *prefix, *suffix;
        int         kind;
    } forms[] = {{"jam_", ".amc", TC_ELEM_JAM}, {"ried_", ".rdc", TC_ELEM_RIED}};
    size_t f, len = strlen(name), pl, sl, id_len;
    tc_pkg_src_t *src, *grown;

    for (f = 0; f < TC_ARRAY_SIZE(forms); ++f) {
        pl = strlen(forms[f].prefix);
        sl = strlen(forms[f].suffix);
        if ((len > pl + sl) && (strncmp(name, forms[f].prefix, pl) == 0) &&
            (strcmp(name + len - sl, forms[f].suffix) == 0)) {
            break;
        }
    }
    if (f == TC_ARRAY_SIZE(forms)) {
        return TC_OK;
    }
    id_len = len - pl - sl;
    if (!tc_pkg_is_ident(name + pl, id_len)) {
        tc_pkg_err("%s/%s: '%.*s' is not a C identifier (of at most %d characters)", dir,
                   name, (int)id_len, name + pl, TC_MANIFEST_NAME_MAX - 1);
        return TC_ERR_INVALID_PARAM;
    }
    if (b->n_srcs == b->cap_srcs) {
        size_t cap = (b->cap_srcs == 0) ? 16 : 2 * b->cap_srcs;
        grown      = realloc(b->srcs, cap * sizeof(*grown));
        if (grown == NULL) {
            tc_pkg_err("out of memory");
            return TC_ERR_NO_MEMORY;
        }
        b->srcs     = grown;
        b->cap_srcs = cap;
    }
    src = &b->srcs[b->n_srcs];
    memset(src, 0, sizeof(*src));
    src->kind = forms[f].kind;
    memcpy(src->name, name + pl, id_len);
    src->name[id_len] = '\0';
    src->dir          = strdup(dir);
    if ((src->dir == NULL) || (asprintf(&src->path, "%s/%s", dir, name) < 0)) {
        free(src->dir);
        tc_pkg_err("out of memory");
        return TC_ERR_NO_MEMORY;
    }
    b->n_srcs++;
    return TC_OK;
}

/* Every jam and ried below dir (symlinked directories are not followed). */
static tc_status_t tc_pkg_scan(tc_pkg_builder_t *b, const char *dir, unsigned depth)
{
    char path[TC_PKG_PATH_MAX];
    tc_status_t status = TC_OK;
    struct dirent *de;
    struct stat st;
    DIR *d;
    int rc;

    if (depth > 32) {
        tc_pkg_err("%s: directories nested too deep", dir);
        return TC_ERR_OUT_OF_RANGE;
    }
    d = opendir(dir);
    if (d == NULL) {
        tc_pkg_err("cannot read directory %s: %s", dir, strerror(errno));
        return TC_ERR_IO;
    }
    while ((status == TC_OK) && ((de = readdir(d)) != NULL)) {
        if ((strcmp(de->d_name, ".") == 0) || (strcmp(de->d_name, "..") == 0)) {
            continue;
        }
        rc = snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        if ((rc < 0) || ((size_t)rc >= sizeof(path))) {
            tc_pkg_err("path too long: %s/%s", dir, de->d_name);
            status = TC_ERR_OUT_OF_RANGE;
            break;
        }
        if (lstat(path, &st) != 0) {
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            status = tc_pkg_scan(b, path, depth + 1);
        } else if ((stat(path, &st) == 0) && S_ISREG(st.st_mode)) {
            status = tc_pkg_add_source(b, dir, de->d_name);
        }
    }
    closedir(d);
    return status;
}

static int tc_pkg_src_cmp(const void *a, const void *b)
{
    const tc_pkg_src_t *x = a, *y = b;

    if (x->kind != y->kind) {
        return (x->kind == TC_ELEM_JAM) ? -1 : 1; /* jams first */
    }
    return strcmp(x->name, y->name);
}

static int tc_pkg_str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Element order, duplicates, and the header's macro names: two elements
 * that would define the same macro are as bad as two with one name. */
static tc_status_t tc_pkg_check_sources(tc_pkg_builder_t *b)
{
    static const char *const jam_suffix[] = {"_CODE_BYTES", "_GOT_SLOTS"};
    tc_pkg_strv_t macros = {0};
    char upper[TC_MANIFEST_NAME_MAX];
    tc_status_t status;
    size_t i, k;

    if (b->n_srcs == 0) {
        tc_pkg_err("no jam_<name>.amc or ried_<name>.rdc under %s", b->opts->src_dir);
        return TC_ERR_NOT_FOUND;
    }
    if (b->n_srcs > TC_MANIFEST_MAX_ELEM) {
        tc_pkg_err("more than %u elements", TC_MANIFEST_MAX_ELEM);
        return TC_ERR_OUT_OF_RANGE;
    }
    qsort(b->srcs, b->n_srcs, sizeof(*b->srcs), tc_pkg_src_cmp);
    for (i = 0; i < b->n_srcs; ++i) {
        b->n_jams += (b->srcs[i].kind == TC_ELEM_JAM);
        /* rieds sort after jams: i - 1 is the first ried when i is the second */
        if ((b->srcs[i].kind == TC_ELEM_RIED) && (i >= b->n_jams + 1)) {
            tc_pkg_err("rieds '%s' (%s) and '%s' (%s): a package has at most one ried: "
                       "its init makes the one state every jam of the package gets as "
                       "ctx->state (the runtime keeps one per package and context); merge "
                       "them into one ried, or build a second package",
                       b->srcs[i - 1].name, b->srcs[i - 1].path, b->srcs[i].name,
                       b->srcs[i].path);
            return TC_ERR_UNSUPPORTED;
        }
        for (k = 0; k < i; ++k) {
            if (strcmp(b->srcs[i].name, b->srcs[k].name) == 0) {
                tc_pkg_err("element name '%s' used twice: %s and %s", b->srcs[i].name,
                           b->srcs[k].path, b->srcs[i].path);
                return TC_ERR_INVALID_PARAM;
            }
        }
    }

    status = TC_OK;
    status = (status == TC_OK) ? tc_pkg_strv_add(&macros, "NAME") : status;
    status = (status == TC_OK) ? tc_pkg_strv_add(&macros, "ID") : status;
    status = (status == TC_OK) ? tc_pkg_strv_add(&macros, "N_ELEMENTS") : status;
    for (i = 0; (status == TC_OK) && (i < b->n_srcs); ++i) {
        tc_pkg_upper(upper, b->srcs[i].name, sizeof(upper));
        status = tc_pkg_strv_add(&macros, upper);
        for (k = 0; (status == TC_OK) && (b->srcs[i].kind == TC_ELEM_JAM) &&
                    (k < TC_ARRAY_SIZE(jam_suffix)); ++k) {
            status = tc_pkg_strv_addf(&macros, "%s%s", upper, jam_suffix[k]);
        }
    }
    if (status != TC_OK) {
        goto out;
    }
    qsort(macros.v, macros.len, sizeof(*macros.v), tc_pkg_str_cmp);
    for (i = 1; i < macros.len; ++i) {
        if (strcmp(macros.v[i - 1], macros.v[i]) == 0) {
            tc_pkg_err("two elements (or an element and a package macro) would both "
                       "define TC_PKG_%s_%s in %s.h: rename one", b->upper, macros.v[i],
                       b->opts->name);
            status = TC_ERR_INVALID_PARAM;
            goto out;
        }
    }
out:
    tc_pkg_strv_free(&macros);
    return status;
}

/* --------------------------------------------------------------- compiling */

static const char *tc_pkg_default_cc(uint32_t arch)
{
#if defined(__x86_64__)
    return (arch == TC_BLOB_ARCH_X86_64) ? "gcc" : "aarch64-linux-gnu-gcc";
#elif defined(__aarch64__)
    return (arch == TC_BLOB_ARCH_AARCH64) ? "gcc" : "x86_64-linux-gnu-gcc";
#else
    return (arch == TC_BLOB_ARCH_X86_64) ? "x86_64-linux-gnu-gcc" : "aarch64-linux-gnu-gcc";
#endif
}

static const char *tc_pkg_cc(const tc_pkg_builder_t *b)
{
    return (b->opts->cc != NULL) ? b->opts->cc : tc_pkg_default_cc(b->opts->arch);
}

/* What the compiler prints for args (its stdout, malloc'd). */
static tc_status_t tc_pkg_cc_query(const tc_pkg_builder_t *b, const char *const args[],
                                   size_t n_args, char **out_p)
{
    tc_pkg_strv_t argv = {0};
    tc_status_t status;
    size_t i;

    status = tc_pkg_strv_add_words(&argv, tc_pkg_cc(b));
    for (i = 0; (status == TC_OK) && (i < n_args); ++i) {
        status = tc_pkg_strv_add(&argv, args[i]);
    }
    if (status == TC_OK) {
        status = tc_pkg_run_capture(argv.v, out_p);
    }
    tc_pkg_strv_free(&argv);
    return status;
}

/* The compiler's identity for the package id: its version text and its
 * target, so two builds by different compilers never share an id. */
static tc_status_t tc_pkg_cc_identity(tc_pkg_builder_t *b)
{
    static const char *const queries[][1] = {{"--version"}, {"-dumpmachine"}};
    tc_status_t status = TC_OK;
    uint64_t h = TC_PKG_FNV_BASIS;
    char *text;
    size_t q;

    for (q = 0; (status == TC_OK) && (q < TC_ARRAY_SIZE(queries)); ++q) {
        status = tc_pkg_cc_query(b, queries[q], 1, &text);
        if (status == TC_OK) {
            h = tc_pkg_fnv(h, text, strlen(text) + 1);
            free(text);
        }
    }
    b->cc_hash = h;
    return status;
}

static tc_status_t tc_pkg_check_cc(tc_pkg_builder_t *b)
{
    tc_pkg_strv_t words = {0};
    tc_status_t status;

    status = tc_pkg_strv_add_words(&words, tc_pkg_cc(b));
    if ((status == TC_OK) && (words.len == 0)) {
        tc_pkg_err("--cc is empty");
        status = TC_ERR_INVALID_PARAM;
    }
    if ((status == TC_OK) && !tc_pkg_have_program(words.v[0])) {
        tc_pkg_err("compiler '%s' for %s not found: install it (%s), or name one with "
                   "--cc", words.v[0], tc_manifest_arch_name(b->opts->arch),
                   (b->opts->arch == TC_BLOB_ARCH_AARCH64) ? "apt-get install "
                   "gcc-aarch64-linux-gnu libc6-dev-arm64-cross" : "gcc");
        status = TC_ERR_NOT_FOUND;
    }
    tc_pkg_strv_free(&words);
    if (status == TC_OK) {
        status = tc_pkg_cc_identity(b);
    }
    return status;
}

typedef enum {
    TC_PKG_OBJ_BLOB,   /* a jam, for its blob */
    TC_PKG_OBJ_LIB     /* a jam or ried, for a shared library */
} tc_pkg_obj_use_t;

/* The compiler and every flag an element's compile gets, up to its inputs. */
static tc_status_t tc_pkg_cc_argv(const tc_pkg_builder_t *b, const char *dir,
                                  const char *define, int is_jam, tc_pkg_obj_use_t use,
                                  tc_pkg_strv_t *argv)
{
    const tc_pkg_build_opts_t *o = b->opts;
    tc_status_t status;
    size_t i;

    status = tc_pkg_strv_add_words(argv, tc_pkg_cc(b));
    for (i = 0; (status == TC_OK) && (i < TC_ARRAY_SIZE(tc_pkg_base_flags)); ++i) {
        status = tc_pkg_strv_add(argv, tc_pkg_base_flags[i]);
    }
    for (i = 0; (status == TC_OK) && is_jam && (i < TC_ARRAY_SIZE(tc_pkg_jam_flags)); ++i) {
        status = tc_pkg_strv_add(argv, tc_pkg_jam_flags[i]);
    }
    for (i = 0; (status == TC_OK) && is_jam && (o->arch == TC_BLOB_ARCH_AARCH64) &&
                (i < TC_ARRAY_SIZE(tc_pkg_a64_jam_flags)); ++i) {
        status = tc_pkg_strv_add(argv, tc_pkg_a64_jam_flags[i]);
    }
    if (status == TC_OK) {
        status = tc_pkg_strv_add_words(argv, o->cflags);
    }
    if ((status == TC_OK) && (use == TC_PKG_OBJ_LIB)) {
        status = tc_pkg_strv_add_words(argv, o->lib_cflags);
    }
    if ((status == TC_OK) && (define != NULL)) {
        status = tc_pkg_strv_add(argv, define);
    }
    if ((status == TC_OK) && (dir != NULL)) {
        status = tc_pkg_strv_addf(argv, "-I%s", dir);
    }
    for (i = 0; (status == TC_OK) && (i < o->includes.len); ++i) {
        status = tc_pkg_strv_addf(argv, "-I%s", o->includes.v[i]);
    }
    return status;
}

/* Compiles src to out; the headers it read are listed in out.d (-MD), which
 * the package id hashes. */
static tc_status_t tc_pkg_compile(const tc_pkg_builder_t *b, const char *src,
                                  const char *dir, const char *define, int is_jam,
                                  tc_pkg_obj_use_t use, const char *out)
{
    static const char *const tail[] = {"-x", "c", "-c", "-o"};
    tc_pkg_strv_t argv = {0};
    tc_status_t status;
    size_t i;

    status = tc_pkg_cc_argv(b, dir, define, is_jam, use, &argv);
    if (status == TC_OK) {
        status = tc_pkg_strv_add(&argv, "-MD");
    }
    if (status == TC_OK) {
        status = tc_pkg_strv_add(&argv, "-MF");
    }
    if (status == TC_OK) {
        status = tc_pkg_strv_addf(&argv, "%s.d", out);
    }
    for (i = 0; (status == TC_OK) && (i < TC_ARRAY_SIZE(tail)); ++i) {
        status = tc_pkg_strv_add(&argv, tail[i]);
    }
    if (status == TC_OK) {
        status = tc_pkg_strv_add(&argv, out);
    }
    if (status == TC_OK) {
        status = tc_pkg_strv_add(&argv, src);
    }
    if (status == TC_OK) {
        status = tc_pkg_run(argv.v);
    }
    tc_pkg_strv_free(&argv);
    return status;
}

/* What a jam's source says about it, as the preprocessor sees it (so #if
 * holds): TC_JAM_READS_PAYLOAD defined -> TC_JAM_HINT_READS_PAYLOAD. */
static tc_status_t tc_pkg_read_hints(const tc_pkg_builder_t *b, tc_pkg_src_t *src,
                                     const char *define)
{
    static const char *const tail[] = {"-dM", "-E", "-xc"};
    tc_pkg_strv_t argv = {0};
    tc_status_t status;
    char *text = NULL;
    size_t i;

    status = tc_pkg_cc_argv(b, src->dir, define, 1, TC_PKG_OBJ_LIB, &argv);
    for (i = 0; (status == TC_OK) && (i < TC_ARRAY_SIZE(tail)); ++i) {
        status = tc_pkg_strv_add(&argv, tail[i]);
    }
    if (status == TC_OK) {
        status = tc_pkg_strv_add(&argv, src->path);
    }
    if (status == TC_OK) {
        status = tc_pkg_run_capture(argv.v, &text);
    }
    if (status == TC_OK) {
        src->hints = ((strncmp(text, "#define TC_JAM_READS_PAYLOAD ", 29) == 0) ||
                      (strstr(text, "\n#define TC_JAM_READS_PAYLOAD ") != NULL))
                         ? TC_JAM_HINT_READS_PAYLOAD : 0;
    }
    free(text);
    tc_pkg_strv_free(&argv);
    return status;
}

/* What the jam's source says about itself (TC_JAM_DESCRIBE, tc_jam.h): the
 * section the macro fills in its object, TC_JAM_DOC_MAGIC and the three
 * texts, each NUL-terminated and checked by the rules the manifest's
 * parser holds them to. A jam without the section is not described. */
static tc_status_t tc_pkg_read_doc(tc_pkg_src_t *src, const char *obj)
{
    char err[128];
    const char *text[1 + TC_MANIFEST_DOC_N];
    tc_status_t status;
    size_t len, at, n = 0;
    char *buf;
    void *raw;
    unsigned k;

    status = tc_pkg_obj_section(obj, TC_JAM_DOC_SECTION, &raw, &len);
    if (status == TC_ERR_NOT_FOUND) {
        return TC_OK;
    }
    if (status != TC_OK) {
        return status;
    }
    buf = raw;
    for (at = 0; (at < len) && (n <= TC_MANIFEST_DOC_N); at += strlen(buf + at) + 1) {
        if (memchr(buf + at, '\0', len - at) == NULL) {
            break; /* not terminated: counted as one too many below */
        }
        text[n++] = buf + at;
    }
    if ((n != 1 + TC_MANIFEST_DOC_N) || (at != len) || (strcmp(text[0], TC_JAM_DOC_MAGIC) != 0)) {
        tc_pkg_err("%s: section %s is not one TC_JAM_DESCRIBE(what, payload, result) of "
                   "this tc_jam.h (three string literals, none with a \\0 inside)", src->path,
                   TC_JAM_DOC_SECTION);
        free(raw);
        return TC_ERR_INVALID_PARAM;
    }
    for (k = 0; (status == TC_OK) && (k < TC_MANIFEST_DOC_N); ++k) {
        if (tc_manifest_doc_check(text[1 + k], strlen(text[1 + k]), err, sizeof(err)) != TC_OK) {
            tc_pkg_err("%s: TC_JAM_DESCRIBE's %s text: %s", src->path,
                       tc_manifest_doc_key((tc_manifest_doc_t)k), err);
            status = TC_ERR_INVALID_PARAM;
        } else if ((src->doc[k] = strdup(text[1 + k])) == NULL) {
            tc_pkg_err("out of memory");
            status = TC_ERR_NO_MEMORY;
        }
    }
    free(raw);
    return status;
}

/* Libraries come after the objects that use them (with --as-needed, the
 * default on Debian and Ubuntu, a library named before them is dropped);
 * libm is linked where the code calls it, so a package whose jams call exp
 * loads in a process that does not link libm itself. */
static tc_status_t tc_pkg_link(const tc_pkg_builder_t *b, const tc_pkg_strv_t *objs,
                               const char *out)
{
    static const char *const libm[] = {"-Wl,--push-state,--as-needed", "-lm",
                                       "-Wl,--pop-state"};
    tc_pkg_strv_t argv = {0};
    tc_status_t status;
    size_t i;

    status = tc_pkg_strv_add_words(&argv, tc_pkg_cc(b));
    if (status == TC_OK) {
        status = tc_pkg_strv_add(&argv, "-shared");
    }
    if (status == TC_OK) {
        status = tc_pkg_strv_add(&argv, "-o");
    }
    if (status == TC_OK) {
        status = tc_pkg_strv_add(&argv, out);
    }
    for (i = 0; (status == TC_OK) && (i < objs->len); ++i) {
        status = tc_pkg_strv_add(&argv, objs->v[i]);
    }
    if (status == TC_OK) {
        status = tc_pkg_strv_add_words(&argv, b->opts->ldflags);
    }
    for (i = 0; (status == TC_OK) && (i < TC_ARRAY_SIZE(libm)); ++i) {
        status = tc_pkg_strv_add(&argv, libm[i]);
    }
    if (status == TC_OK) {
        status = tc_pkg_run(argv.v);
    }
    tc_pkg_strv_free(&argv);
    return status;
}

/* The descriptor, the same shape as the interim generator's. */
static tc_status_t tc_pkg_write_desc(const tc_pkg_builder_t *b, const char *path)
{
    const char *name = b->opts->name;
    tc_status_t status;
    char *text = NULL;
    size_t len = 0, i;
    FILE *f;

    f = open_memstream(&text, &len);
    if (f == NULL) {
        tc_pkg_err("out of memory");
        return TC_ERR_NO_MEMORY;
    }
    fprintf(f, "/* Generated by tc-pkg: package '%s'. Do not edit. */\n", name);
    fprintf(f, "#include \"twochains.h\"\n");
    for (i = 0; i < b->n_srcs; ++i) {
        const char *n = b->srcs[i].name;
        if (b->srcs[i].kind == TC_ELEM_JAM) {
            fprintf(f, "int64_t tc_jam_run_%s(tc_jam_ctx_t *, void *, size_t);\n", n);
            fprintf(f, "int64_t tc_jam_pack_%s(void *, size_t, const void *, size_t);\n", n);
        } else {
            fprintf(f, "int tc_ried_init_%s(void **);\n", n);
            fprintf(f, "void tc_ried_fini_%s(void *);\n", n);
        }
    }
    fprintf(f, "static const tc_pkg_element_t tc_pkg_elements[] = {\n");
    for (i = 0; i < b->n_srcs; ++i) {
        const char *n = b->srcs[i].name;
        if (b->srcs[i].kind == TC_ELEM_JAM) {
            fprintf(f, "    {\"%s\", %zu, TC_ELEM_JAM, tc_jam_run_%s, tc_jam_pack_%s, "
                       "NULL, NULL},\n", n, i, n, n);
        } else {
            fprintf(f, "    {\"%s\", %zu, TC_ELEM_RIED, NULL, NULL, tc_ried_init_%s, "
                       "tc_ried_fini_%s},\n", n, i, n, n);
        }
    }
    fprintf(f, "};\n");
    /* What binds the manifest to this library (lib/codec/manifest.h). */
    fprintf(f, "__attribute__((visibility(\"default\")))\n");
    fprintf(f, "const uint64_t %s[] = {\n", TC_MANIFEST_HASHES_SYMBOL);
    for (i = 0; i < b->n_srcs; ++i) {
        fprintf(f, "    0x%016llxull, /* %s */\n",
                (b->srcs[i].kind == TC_ELEM_JAM)
                    ? (unsigned long long)b->srcs[i].parsed.hdr->content_hash : 0ull,
                b->srcs[i].name);
    }
    fprintf(f, "};\n");
    /* What each element says about itself (lib/twochains.h). */
    fprintf(f, "__attribute__((visibility(\"default\")))\n");
    fprintf(f, "const uint32_t %s[] = {\n", TC_PKG_HINTS_SYMBOL);
    for (i = 0; i < b->n_srcs; ++i) {
        fprintf(f, "    %uu, /* %s */\n", b->srcs[i].hints, b->srcs[i].name);
    }
    fprintf(f, "};\n");
    fprintf(f, "__attribute__((visibility(\"default\")))\n");
    fprintf(f, "const tc_pkg_desc_t tc_package_desc = {\n");
    fprintf(f, "    TC_PKG_DESC_MAGIC, TC_PROTO_VERSION, \"%s\", 0x%08x,\n", name, b->id);
    fprintf(f, "    sizeof(tc_pkg_elements) / sizeof(tc_pkg_elements[0]), tc_pkg_elements\n");
    fprintf(f, "};\n");
    if (fclose(f) != 0) {
        free(text);
        tc_pkg_err("out of memory");
        return TC_ERR_NO_MEMORY;
    }
    status = tc_pkg_write_file(path, text, len, 0);
    free(text);
    return status;
}

/* dir/<fmt with arg>, or TC_ERR_OUT_OF_RANGE (reported) when it does not fit. */
static tc_status_t tc_pkg_dir_path(const char *dir, char *buf, size_t len, const char *fmt,
                                   const char *arg)
{
    char name[TC_PKG_PATH_MAX];
    int rc;

    snprintf(name, sizeof(name), fmt, arg);
    rc = snprintf(buf, len, "%s/%s", dir, name);
    if ((rc < 0) || ((size_t)rc >= len)) {
        tc_pkg_err("path too long: %s/%s", dir, name);
        return TC_ERR_OUT_OF_RANGE;
    }
    return TC_OK;
}

static tc_status_t tc_pkg_tmp_path(const tc_pkg_builder_t *b, char *buf, size_t len,
                                   const char *fmt, const char *arg)
{
    return tc_pkg_dir_path(b->tmp, buf, len, fmt, arg);
}


/* ------------------------------------------------------------ the checks */

/* Element names that are object-like macros where the source is compiled
 * (the compiler's own: linux, unix on GNU C; libc's: errno, stdin, ...):
 * TC_JAM_NAME would expand to the macro's body, and the errors would be
 * about code nobody wrote. Asked of the compiler itself, with the jams'
 * flags and the headers a jam includes. */
static tc_status_t tc_pkg_check_names(const tc_pkg_builder_t *b)
{
    static const char *const headers[] = {
        "errno.h", "stdio.h", "stdlib.h", "string.h", "math.h", "stdint.h", "stddef.h",
        "stdbool.h", "stdarg.h", "assert.h", "limits.h", "inttypes.h", "float.h",
        "ctype.h", "time.h", "signal.h", "setjmp.h", "tc_jam.h"};
    char path[TC_PKG_PATH_MAX], name[TC_MANIFEST_NAME_MAX + 2];
    tc_pkg_strv_t argv = {0}, macros = {0};
    char *text = NULL, *line, *end;
    FILE *f;
    tc_status_t status;
    size_t i, n;

    status = tc_pkg_tmp_path(b, path, sizeof(path), "%s", "tc_pkg_names.c");
    if (status != TC_OK) {
        return status;
    }
    f = fopen(path, "w");
    if (f == NULL) {
        tc_pkg_err("cannot create %s", path);
        return TC_ERR_IO;
    }
    for (i = 0; i < TC_ARRAY_SIZE(headers); ++i) {
        fprintf(f, "#if __has_include(<%s>) || __has_include(\"%s\")\n#include \"%s\"\n#endif\n",
                headers[i], headers[i], headers[i]);
    }
    if (fclose(f) != 0) {
        tc_pkg_err("cannot write %s", path);
        return TC_ERR_IO;
    }
    status = tc_pkg_cc_argv(b, NULL, "-DTC_JAM_NAME=tc_pkg_probe", 1, TC_PKG_OBJ_BLOB, &argv);
    for (i = 0; (status == TC_OK) && (i < 3); ++i) {
        static const char *const tail[] = {"-dM", "-E", "-xc"};
        status = tc_pkg_strv_add(&argv, tail[i]);
    }
    if (status == TC_OK) {
        status = tc_pkg_strv_add(&argv, path);
    }
    if (status == TC_OK) {
        status = tc_pkg_run_capture(argv.v, &text);
    }
    /* "#define NAME body": object-like; "#define NAME(" is function-like and
     * leaves a name without parentheses alone */
    for (line = text; (status == TC_OK) && (line != NULL) && (*line != '\0'); line = end) {
        end = strchr(line, '\n');
        end = (end != NULL) ? end + 1 : line + strlen(line);
        if (strncmp(line, "#define ", 8) != 0) {
            continue;
        }
        n = strcspn(line + 8, " (\n");
        if ((line[8 + n] != '(') && (n < sizeof(name))) {
            memcpy(name, line + 8, n);
            name[n] = '\0';
            status  = tc_pkg_strv_add(&macros, name);
        }
    }
    tc_pkg_strv_sort(&macros);
    for (i = 0; (status == TC_OK) && (i < b->n_srcs); ++i) {
        if (tc_pkg_strv_has(&macros, b->srcs[i].name)) {
            tc_pkg_err("%s: the %s name '%s' is a macro where elements are compiled "
                       "(predefined by %s, or defined by a C library header): every use "
                       "of the name, TC_%s_NAME among them, would turn into the macro's "
                       "body; rename the file", b->srcs[i].path,
                       (b->srcs[i].kind == TC_ELEM_JAM) ? "jam" : "ried", b->srcs[i].name,
                       tc_pkg_cc(b), (b->srcs[i].kind == TC_ELEM_JAM) ? "JAM" : "RIED");
            status = TC_ERR_INVALID_PARAM;
        }
    }
    free(text);
    tc_pkg_strv_free(&macros);
    tc_pkg_strv_free(&argv);
    return status;
}

/* The compiler calls libgcc for what the target has no instruction for
 * (__popcountdi2, __udivti3, __udivmodti4, ...). No receiver exports those
 * (libgcc_s is not in most processes), so the helpers go into the blob:
 * jam.o and libgcc.a are linked into one relocatable object, which pulls in
 * just the members jam.o needs; their GOT calls are then relaxed like any
 * call to the jam's own code. *obj_p: the object to make the blob of. */
static tc_status_t tc_pkg_with_libgcc(tc_pkg_builder_t *b, const tc_pkg_src_t *src,
                                      const char *obj, char *out, size_t out_len,
                                      const char **obj_p)
{
    static const char *const query[] = {"-print-libgcc-file-name"};
    tc_pkg_strv_t undef = {0}, argv = {0};
    tc_status_t status;
    size_t i, need = 0;

    *obj_p = obj;
    status = tc_pkg_obj_undefined(obj, &undef);
    if ((status == TC_OK) && (undef.len > 0) && (b->libgcc_path == NULL)) {
        status = tc_pkg_cc_query(b, query, 1, &b->libgcc_path);
        if (status == TC_OK) {
            b->libgcc_path[strcspn(b->libgcc_path, "\n")] = '\0';
            /* no libgcc.a (another runtime library): nothing to embed */
            if ((b->libgcc_path[0] == '/') && (access(b->libgcc_path, R_OK) == 0)) {
                status = tc_pkg_ar_symbols(b->libgcc_path, &b->libgcc);
            }
            tc_pkg_strv_sort(&b->libgcc);
        }
    }
    for (i = 0; (status == TC_OK) && (i < undef.len); ++i) {
        need += tc_pkg_strv_has(&b->libgcc, undef.v[i]);
    }
    if ((status == TC_OK) && (need > 0)) {
        status = tc_pkg_tmp_path(b, out, out_len, "jam_%s.libgcc.o", src->name);
        if (status == TC_OK) {
            status = tc_pkg_strv_add_words(&argv, tc_pkg_cc(b));
        }
        for (i = 0; (status == TC_OK) && (i < 3); ++i) {
            const char *const args[] = {"-r", "-nostdlib", "-o"};
            status = tc_pkg_strv_add(&argv, args[i]);
        }
        if (status == TC_OK) {
            status = tc_pkg_strv_add(&argv, out);
        }
        if (status == TC_OK) {
            status = tc_pkg_strv_add(&argv, obj);
        }
        if (status == TC_OK) {
            status = tc_pkg_strv_add(&argv, b->libgcc_path);
        }
        if (status == TC_OK) {
            status = tc_pkg_run(argv.v);
        }
        if (status == TC_OK) {
            *obj_p = out;
        }
    }
    tc_pkg_strv_free(&argv);
    tc_pkg_strv_free(&undef);
    return status;
}

/* The files a compile read (its -MD list, obj.d) hashed into h, contents
 * only: the same sources and headers elsewhere give the same id. */
static tc_status_t tc_pkg_hash_deps(const char *obj, uint64_t *h)
{
    char dpath[TC_PKG_PATH_MAX], file[TC_PKG_PATH_MAX];
    tc_status_t status;
    size_t len, n = 0;
    void *dbuf, *buf;
    char *p, *end;

    if ((size_t)snprintf(dpath, sizeof(dpath), "%s.d", obj) >= sizeof(dpath)) {
        tc_pkg_err("path too long: %s.d", obj);
        return TC_ERR_OUT_OF_RANGE;
    }
    status = tc_pkg_read_file(dpath, &dbuf, &len);
    if (status != TC_OK) {
        return status;
    }
    p   = dbuf;
    end = p + len;
    /* "target: dep dep \<newline> dep", spaces in names as "\ " */
    while ((p < end) && (*p != ':')) {
        p++;
    }
    for (p += (p < end); (status == TC_OK) && (p <= end); ++p) {
        if ((p < end) && (*p == '\\') && (p + 1 < end) && (p[1] == '\n')) {
            p++;
            continue;
        }
        if ((p < end) && (*p == '\\') && (p + 1 < end) && (p[1] == ' ')) {
            p++;
        } else if ((p == end) || (*p == ' ') || (*p == '\t') || (*p == '\n')) {
            if (n > 0) {
                file[n] = '\0';
                n       = 0;
                status  = tc_pkg_read_file(file, &buf, &len);
                if (status == TC_OK) {
                    *h = tc_pkg_fnv(*h, buf, len);
                    free(buf);
                }
            }
            continue;
        }
        if (n + 1 >= sizeof(file)) {
            tc_pkg_err("%s: a path too long", dpath);
            status = TC_ERR_OUT_OF_RANGE;
            break;
        }
        file[n++] = *p;
    }
    free(dbuf);
    return status;
}

/* Package id: FNV-1a 64 over everything that shapes the code: the name,
 * the target, the compiler, the fixed and the given flags, and per element
 * (in element order) its name, kind, source and every header it included.
 * Peers with different builds of a package do not run each other's ids. */
static tc_status_t tc_pkg_compute_id(tc_pkg_builder_t *b)
{
    const tc_pkg_build_opts_t *o = b->opts;
    const char *const *lists[] = {tc_pkg_base_flags, tc_pkg_jam_flags, tc_pkg_a64_jam_flags};
    const size_t lens[] = {TC_ARRAY_SIZE(tc_pkg_base_flags), TC_ARRAY_SIZE(tc_pkg_jam_flags),
                           TC_ARRAY_SIZE(tc_pkg_a64_jam_flags)};
    const char *given[] = {o->cflags, o->lib_cflags, o->ldflags};
    char obj[TC_PKG_PATH_MAX];
    uint64_t h = TC_PKG_FNV_BASIS;
    tc_status_t status = TC_OK;
    size_t i, k;

    h = tc_pkg_fnv(h, o->name, strlen(o->name) + 1);
    h = tc_pkg_fnv(h, &o->arch, sizeof(o->arch));
    h = tc_pkg_fnv(h, &b->cc_hash, sizeof(b->cc_hash));
    for (i = 0; i < TC_ARRAY_SIZE(lists); ++i) {
        for (k = 0; k < lens[i]; ++k) {
            h = tc_pkg_fnv(h, lists[i][k], strlen(lists[i][k]) + 1);
        }
    }
    for (i = 0; i < TC_ARRAY_SIZE(given); ++i) {
        h = tc_pkg_fnv(h, (given[i] != NULL) ? given[i] : "", (given[i] != NULL) ? strlen(given[i]) + 1 : 1);
    }
    for (i = 0; (status == TC_OK) && (i < b->n_srcs); ++i) {
        const tc_pkg_src_t *src = &b->srcs[i];
        h      = tc_pkg_fnv(h, src->name, strlen(src->name) + 1);
        h      = tc_pkg_fnv(h, &src->kind, sizeof(src->kind));
        status = tc_pkg_tmp_path(b, obj, sizeof(obj),
                                 (src->kind == TC_ELEM_JAM) ? "jam_%s.o" : "ried_%s.o",
                                 src->name);
        if (status == TC_OK) {
            status = tc_pkg_hash_deps(obj, &h);
        }
    }
    b->id = (uint32_t)h;
    return status;
}

/* The absolute path the compiler finds name at (-print-file-name), or
 * NULL when it knows no such file. */
static char *tc_pkg_cc_file(const tc_pkg_builder_t *b, const char *name)
{
    char arg[TC_PKG_PATH_MAX];
    const char *args[] = {arg};
    char *path = NULL;

    snprintf(arg, sizeof(arg), "-print-file-name=%s", name);
    if (tc_pkg_cc_query(b, args, 1, &path) != TC_OK) {
        return NULL;
    }
    path[strcspn(path, "\n")] = '\0';
    if ((path[0] != '/') || (access(path, R_OK) != 0)) {
        free(path);
        return NULL;
    }
    return path;
}

/* Every GOT slot of every jam names what a receiver offers: the package
 * library (its rieds, what jams export) and the libraries it links (libc,
 * libm where used, --ldflags ones), libc and libm of the target, and
 * libtwochains. An unknown name would fail every namespace sync; it fails
 * the build instead, naming the jam and the symbol. */
static tc_status_t tc_pkg_check_slots(const tc_pkg_builder_t *b)
{
    static const char *const target_libs[] = {"libc.so.6", "libm.so.6"};
    tc_pkg_strv_t offer = {0}, needed = {0};
    char path[TC_PKG_PATH_MAX];
    tc_status_t status, worst = TC_OK;
    const tc_pkg_src_t *src;
    char *found;
    size_t i;
    uint32_t k;

    status = tc_pkg_tmp_path(b, path, sizeof(path), "libtc_%s.so", b->opts->name);
    if (status == TC_OK) {
        status = tc_pkg_so_symbols(path, &offer, &needed);
    }
    for (i = 0; i < TC_ARRAY_SIZE(target_libs); ++i) {
        if (status == TC_OK) {
            status = tc_pkg_strv_add(&needed, target_libs[i]);
        }
    }
    tc_pkg_strv_sort(&needed);
    for (i = 0; (status == TC_OK) && (i < needed.len); ++i) {
        found = tc_pkg_cc_file(b, needed.v[i]);
        if (found != NULL) {
            status = tc_pkg_so_symbols(found, &offer, NULL);
            free(found);
        }
    }
    /* libtwochains: the one next to this tc-pkg (build tree or install) */
    if (status == TC_OK) {
        status = tc_pkg_lib_path(path, sizeof(path));
    }
    if (status == TC_OK) {
        status = tc_pkg_so_symbols(path, &offer, NULL);
    }
    tc_pkg_strv_sort(&offer);
    for (i = 0; (status == TC_OK) && (i < b->n_srcs); ++i) {
        src = &b->srcs[i];
        for (k = 0; (src->kind == TC_ELEM_JAM) && (k < src->parsed.hdr->got_count); ++k) {
            const char *name = tc_blob_slot_name(&src->parsed, k);
            if (!tc_pkg_strv_has(&offer, name)) {
                tc_pkg_err("jam '%s': GOT slot '%s': no receiver offers it (it is not in "
                           "libc, libm, libtwochains, this package's ried or a library "
                           "the package links): define it in the package's ried with "
                           "TC_RIED_EXPORT, or link its library with --ldflags",
                           src->name, name);
                worst = TC_ERR_NOT_FOUND;
            }
        }
    }
    tc_pkg_strv_free(&offer);
    tc_pkg_strv_free(&needed);
    return (status != TC_OK) ? status : worst;
}

/* --out before the build: missing or empty, or a package tc-pkg built
 * (its manifest says which files are its own: b->old). Anything else is
 * refused, since a rebuild removes the outputs the new build does not
 * write again and tc-pkg removes only what it made. */
static tc_status_t tc_pkg_check_out(tc_pkg_builder_t *b)
{
    const char *out = b->opts->out_dir;
    char path[TC_PKG_PATH_MAX];
    struct dirent *de;
    size_t n = 0;
    DIR *d;

    d = opendir(out);
    if (d == NULL) {
        if (errno == ENOENT) {
            return TC_OK;
        }
        tc_pkg_err("--out %s: %s", out, strerror(errno));
        return TC_ERR_IO;
    }
    while ((de = readdir(d)) != NULL) {
        n += (strcmp(de->d_name, ".") != 0) && (strcmp(de->d_name, "..") != 0);
    }
    closedir(d);
    if (n == 0) {
        return TC_OK;
    }
    snprintf(path, sizeof(path), "%s/%s", out, TC_MANIFEST_FILE);
    if (access(path, F_OK) != 0) {
        tc_pkg_err("--out %s is not empty and holds no package (no %s): tc-pkg replaces "
                   "only a package it built; name a new or empty directory", out,
                   TC_MANIFEST_FILE);
        return TC_ERR_INVALID_PARAM;
    }
    if (tc_manifest_load(out, &b->old) != TC_OK) {
        tc_pkg_err("--out %s: its %s cannot be read (see above), so which files are "
                   "tc-pkg's is unknown: remove the directory or name another", out,
                   TC_MANIFEST_FILE);
        return TC_ERR_INVALID_PARAM;
    }
    return TC_OK;
}

/* Is file (a name in --out) one this build writes? */
static int tc_pkg_writes(const tc_pkg_builder_t *b, const char *file)
{
    char mine[TC_PKG_PATH_MAX];
    size_t i;

    snprintf(mine, sizeof(mine), "libtc_%s.so", b->opts->name);
    if (strcmp(file, mine) == 0) {
        return 1;
    }
    snprintf(mine, sizeof(mine), "%s.h", b->opts->name);
    if (strcmp(file, mine) == 0) {
        return 1;
    }
    for (i = 0; i < b->n_srcs; ++i) {
        snprintf(mine, sizeof(mine), (b->srcs[i].kind == TC_ELEM_JAM) ? "jam_%s.blob"
                                                                      : "libried_%s.so",
                 b->srcs[i].name);
        if (strcmp(file, mine) == 0) {
            return 1;
        }
    }
    return 0;
}

static void tc_pkg_remove_one(const tc_pkg_builder_t *b, const char *file)
{
    char path[TC_PKG_PATH_MAX];

    /* a name of the forms tc-pkg writes, in --out itself, never a path */
    if ((strchr(file, '/') != NULL) || (file[0] == '.') || tc_pkg_writes(b, file)) {
        return;
    }
    snprintf(path, sizeof(path), "%s/%s", b->opts->out_dir, file);
    if (unlink(path) == 0) {
        printf("tc-pkg: removed %s (not part of this build)\n", path);
    }
}

/* After the new manifest is in place: what the previous one listed and
 * this build did not write. */
static void tc_pkg_remove_stale(const tc_pkg_builder_t *b)
{
    char file[TC_PKG_PATH_MAX];
    const tc_manifest_elem_t *e;
    uint32_t i;

    if (b->old == NULL) {
        return;
    }
    tc_pkg_remove_one(b, b->old->library);
    snprintf(file, sizeof(file), "%s.h", b->old->name);
    tc_pkg_remove_one(b, file);
    for (i = 0; i < b->old->n_elements; ++i) {
        e = &b->old->elements[i];
        tc_pkg_remove_one(b, e->file);
    }
}

/* Compile everything, build the blobs, link the libraries (in b->tmp). */
static tc_status_t tc_pkg_make(tc_pkg_builder_t *b)
{
    const tc_pkg_build_opts_t *o = b->opts;
    char obj[TC_PKG_PATH_MAX], path[TC_PKG_PATH_MAX], define[TC_MANIFEST_NAME_MAX + 32];
    char linked[TC_PKG_PATH_MAX];
    tc_pkg_strv_t lib_objs = {0}, one = {0};
    const char *blob_obj;
    tc_status_t status = TC_OK, jam_status = TC_OK;
    int separate = (o->lib_cflags != NULL) && (strspn(o->lib_cflags, " \t\n") <
                                               strlen(o->lib_cflags));
    tc_pkg_src_t *src;
    size_t i;

    for (i = 0; (status == TC_OK) && (i < b->n_srcs); ++i) {
        src = &b->srcs[i];
        if (src->kind == TC_ELEM_JAM) {
            snprintf(define, sizeof(define), "-DTC_JAM_NAME=%s", src->name);
            status = tc_pkg_tmp_path(b, obj, sizeof(obj), "jam_%s.o", src->name);
            if (status == TC_OK) {
                status = tc_pkg_compile(b, src->path, src->dir, define, 1,
                                        separate ? TC_PKG_OBJ_BLOB : TC_PKG_OBJ_LIB, obj);
            }
            if (status == TC_OK) {
                status = tc_pkg_read_hints(b, src, define);
            }
            if (status == TC_OK) {
                status = tc_pkg_read_doc(src, obj);
            }
            if (status == TC_OK) {
                status = tc_pkg_with_libgcc(b, src, obj, linked, sizeof(linked), &blob_obj);
            }
            if (status != TC_OK) {
                break;
            }
            /* A jam that cannot be injected fails the build, but the others
             * still get checked, so one run lists every problem. */
            if (tc_pkg_blob_build(src->name, blob_obj, o->arch, &src->blob, &src->blob_len,
                                  &src->writable) != TC_OK) {
                jam_status = TC_ERR_UNSUPPORTED;
                continue;
            }
            tc_blob_parse(src->blob, src->blob_len, &src->parsed);
            if (separate) {
                status = tc_pkg_tmp_path(b, obj, sizeof(obj), "jam_%s.lib.o", src->name);
                if (status == TC_OK) {
                    status = tc_pkg_compile(b, src->path, src->dir, define, 1,
                                            TC_PKG_OBJ_LIB, obj);
                }
            }
        } else {
            snprintf(define, sizeof(define), "-DTC_RIED_NAME=%s", src->name);
            status = tc_pkg_tmp_path(b, obj, sizeof(obj), "ried_%s.o", src->name);
            if (status == TC_OK) {
                status = tc_pkg_compile(b, src->path, src->dir, define, 0, TC_PKG_OBJ_LIB,
                                        obj);
            }
            if (status == TC_OK) {
                status = tc_pkg_strv_add(&one, obj);
            }
            if (status == TC_OK) {
                status = tc_pkg_tmp_path(b, path, sizeof(path), "libried_%s.so", src->name);
            }
            if (status == TC_OK) {
                status = tc_pkg_link(b, &one, path);
            }
            tc_pkg_strv_free(&one);
        }
        if (status == TC_OK) {
            status = tc_pkg_strv_add(&lib_objs, obj);
        }
    }
    if ((status == TC_OK) && (jam_status != TC_OK)) {
        status = jam_status;
    }
    /* every element compiled: the id can hash what they read */
    if (status == TC_OK) {
        status = tc_pkg_compute_id(b);
    }

    /* The Local Function library: every element plus the descriptor. */
    if (status == TC_OK) {
        status = tc_pkg_tmp_path(b, path, sizeof(path), "%s", "tc_pkg_desc.c");
    }
    if (status == TC_OK) {
        status = tc_pkg_write_desc(b, path);
    }
    if (status == TC_OK) {
        status = tc_pkg_tmp_path(b, obj, sizeof(obj), "%s", "tc_pkg_desc.o");
    }
    if (status == TC_OK) {
        status = tc_pkg_compile(b, path, NULL, NULL, 0, TC_PKG_OBJ_LIB, obj);
    }
    if (status == TC_OK) {
        status = tc_pkg_strv_add(&lib_objs, obj);
    }
    if (status == TC_OK) {
        status = tc_pkg_tmp_path(b, path, sizeof(path), "libtc_%s.so", o->name);
    }
    if (status == TC_OK) {
        status = tc_pkg_link(b, &lib_objs, path);
    }
    if (status == TC_OK) {
        status = tc_pkg_check_slots(b);
    }
    tc_pkg_strv_free(&lib_objs);
    return status;
}

/* ------------------------------------------------------------------ output */

static tc_status_t tc_pkg_write_header(const tc_pkg_builder_t *b, const char *path)
{
    char upper[TC_MANIFEST_NAME_MAX];
    const char *name = b->opts->name, *N = b->upper;
    const tc_blob_file_hdr_t *h;
    tc_status_t status;
    char *text = NULL;
    size_t len = 0, i;
    FILE *f;

    f = open_memstream(&text, &len);
    if (f == NULL) {
        tc_pkg_err("out of memory");
        return TC_ERR_NO_MEMORY;
    }
    fprintf(f, "/* Generated by tc-pkg: package '%s' (%s). Do not edit. */\n", name,
            tc_manifest_arch_name(b->opts->arch));
    fprintf(f, "#ifndef TC_PKG_%s_H\n#define TC_PKG_%s_H\n", N, N);
    fprintf(f, "#define TC_PKG_%s_NAME \"%s\"\n", N, name);
    fprintf(f, "#define TC_PKG_%s_ID 0x%08x\n", N, b->id);
    for (i = 0; i < b->n_srcs; ++i) {
        tc_pkg_upper(upper, b->srcs[i].name, sizeof(upper));
        fprintf(f, "#define TC_PKG_%s_%s %zu\n", N, upper, i);
    }
    fprintf(f, "#define TC_PKG_%s_N_ELEMENTS %zu\n", N, b->n_srcs);
    for (i = 0; i < b->n_srcs; ++i) {
        if (b->srcs[i].kind != TC_ELEM_JAM) {
            continue;
        }
        h = b->srcs[i].parsed.hdr;
        tc_pkg_upper(upper, b->srcs[i].name, sizeof(upper));
        fprintf(f, "#define TC_PKG_%s_%s_CODE_BYTES %u\n", N, upper, h->image_size);
        fprintf(f, "#define TC_PKG_%s_%s_GOT_SLOTS %u\n", N, upper, h->got_count);
    }
    fprintf(f, "#endif\n");
    if (fclose(f) != 0) {
        free(text);
        tc_pkg_err("out of memory");
        return TC_ERR_NO_MEMORY;
    }
    status = tc_pkg_write_file(path, text, len, 0);
    free(text);
    return status;
}

static tc_status_t tc_pkg_write_manifest(const tc_pkg_builder_t *b, const char *path)
{
    tc_manifest_t m;
    const tc_blob_file_hdr_t *h;
    tc_manifest_elem_t *e;
    tc_status_t status;
    char *text = NULL;
    size_t len = 0, i;
    FILE *f;

    memset(&m, 0, sizeof(m));
    m.elements = calloc(b->n_srcs, sizeof(*m.elements));
    if (m.elements == NULL) {
        tc_pkg_err("out of memory");
        return TC_ERR_NO_MEMORY;
    }
    snprintf(m.name, sizeof(m.name), "%s", b->opts->name);
    snprintf(m.library, sizeof(m.library), "libtc_%s.so", b->opts->name);
    m.id         = b->id;
    m.arch       = b->opts->arch;
    m.n_elements = (uint32_t)b->n_srcs;
    for (i = 0; i < b->n_srcs; ++i) {
        e       = &m.elements[i];
        e->id   = (uint16_t)i;
        e->kind = (uint16_t)b->srcs[i].kind;
        snprintf(e->name, sizeof(e->name), "%s", b->srcs[i].name);
        if (e->kind == TC_ELEM_JAM) {
            h = b->srcs[i].parsed.hdr;
            snprintf(e->file, sizeof(e->file), "jam_%s.blob", e->name);
            e->hash           = h->content_hash;
            e->code_bytes     = h->image_size;
            e->got_slots      = h->got_count;
            e->entry_offset   = h->entry_offset;
            e->writable_bytes = b->srcs[i].writable;
            memcpy(e->doc, b->srcs[i].doc, sizeof(e->doc)); /* the builder's, not freed here */
        } else {
            snprintf(e->file, sizeof(e->file), "libried_%s.so", e->name);
        }
    }

    f = open_memstream(&text, &len);
    if (f == NULL) {
        free(m.elements);
        tc_pkg_err("out of memory");
        return TC_ERR_NO_MEMORY;
    }
    status = tc_manifest_write(&m, f);
    if ((fclose(f) != 0) && (status == TC_OK)) {
        status = TC_ERR_NO_MEMORY;
    }
    if (status == TC_OK) {
        status = tc_pkg_write_file(path, text, len, 0);
    } else {
        tc_pkg_err("cannot format the manifest: %s", tc_status_str(status));
    }
    free(text);
    free(m.elements);
    return status;
}

static tc_status_t tc_pkg_out_path(const tc_pkg_builder_t *b, char *buf, size_t len,
                                   const char *fmt, const char *arg)
{
    return tc_pkg_dir_path(b->opts->out_dir, buf, len, fmt, arg);
}

/* Libraries and blobs first, the header, the manifest last: a manifest
 * names only files that are already in place. */
static tc_status_t tc_pkg_install(tc_pkg_builder_t *b)
{
    char src[TC_PKG_PATH_MAX], dst[TC_PKG_PATH_MAX];
    const char *name = b->opts->name;
    tc_status_t status;
    size_t i;

    status = tc_pkg_mkdirs(b->opts->out_dir);
    if (status == TC_OK) {
        status = tc_pkg_tmp_path(b, src, sizeof(src), "libtc_%s.so", name);
    }
    if (status == TC_OK) {
        status = tc_pkg_out_path(b, dst, sizeof(dst), "libtc_%s.so", name);
    }
    if (status == TC_OK) {
        status = tc_pkg_copy_file(src, dst, 1);
    }
    for (i = 0; (status == TC_OK) && (i < b->n_srcs); ++i) {
        tc_pkg_src_t *s = &b->srcs[i];
        if (s->kind == TC_ELEM_JAM) {
            status = tc_pkg_out_path(b, dst, sizeof(dst), "jam_%s.blob", s->name);
            if (status == TC_OK) {
                status = tc_pkg_write_file(dst, s->blob, s->blob_len, 0);
            }
        } else {
            status = tc_pkg_tmp_path(b, src, sizeof(src), "libried_%s.so", s->name);
            if (status == TC_OK) {
                status = tc_pkg_out_path(b, dst, sizeof(dst), "libried_%s.so", s->name);
            }
            if (status == TC_OK) {
                status = tc_pkg_copy_file(src, dst, 1);
            }
        }
    }
    if (status == TC_OK) {
        status = tc_pkg_out_path(b, dst, sizeof(dst), "%s.h", name);
    }
    if (status == TC_OK) {
        status = tc_pkg_write_header(b, dst);
    }
    if (status == TC_OK) {
        status = tc_pkg_out_path(b, dst, sizeof(dst), "%s", TC_MANIFEST_FILE);
    }
    if (status == TC_OK) {
        status = tc_pkg_write_manifest(b, dst);
    }
    return status;
}

static void tc_pkg_rm_tmp(const char *dir)
{
    char path[TC_PKG_PATH_MAX];
    struct dirent *de;
    DIR *d;

    d = opendir(dir);
    if (d != NULL) {
        while ((de = readdir(d)) != NULL) {
            if ((strcmp(de->d_name, ".") != 0) && (strcmp(de->d_name, "..") != 0) &&
                (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) <
                 (int)sizeof(path))) {
                unlink(path);
            }
        }
        closedir(d);
    }
    rmdir(dir);
}

static void tc_pkg_summary(const tc_pkg_builder_t *b)
{
    const tc_blob_file_hdr_t *h;
    size_t i;

    printf("tc-pkg: package %s (id 0x%08x, %s): %zu jams, %zu rieds -> %s\n",
           b->opts->name, b->id, tc_manifest_arch_name(b->opts->arch), b->n_jams,
           b->n_srcs - b->n_jams, b->opts->out_dir);
    for (i = 0; i < b->n_srcs; ++i) {
        if (b->srcs[i].kind == TC_ELEM_JAM) {
            h = b->srcs[i].parsed.hdr;
            printf("  jam  %-20s %5u code bytes, %u GOT slots, %u fixups, %u writable%s\n",
                   b->srcs[i].name, h->image_size, h->got_count, h->fixup_count,
                   b->srcs[i].writable,
                   (b->srcs[i].hints & TC_JAM_HINT_READS_PAYLOAD) ? ", reads its payload" : "");
        }
    }
}

tc_status_t tc_pkg_build(const tc_pkg_build_opts_t *opts)
{
    tc_pkg_builder_t b = {.opts = opts};
    const char *tmpdir = getenv("TMPDIR");
    tc_status_t status;
    size_t i;
    unsigned k;
    int rc;

    if (!tc_pkg_is_ident(opts->name, strlen(opts->name))) {
        tc_pkg_err("package name '%s' is not a C identifier", opts->name);
        return TC_ERR_INVALID_PARAM;
    }
    tc_pkg_upper(b.upper, opts->name, sizeof(b.upper));

    status = tc_pkg_scan(&b, opts->src_dir, 0);
    if (status == TC_OK) {
        status = tc_pkg_check_sources(&b);
    }
    if (status == TC_OK) {
        status = tc_pkg_check_out(&b);
    }
    if (status == TC_OK) {
        status = tc_pkg_check_cc(&b);
    }
    if (status != TC_OK) {
        goto out_free;
    }

    rc = snprintf(b.tmp, sizeof(b.tmp), "%s/tc-pkg.XXXXXX",
                  ((tmpdir != NULL) && (*tmpdir != '\0')) ? tmpdir : "/tmp");
    if ((rc < 0) || ((size_t)rc >= sizeof(b.tmp)) || (mkdtemp(b.tmp) == NULL)) {
        tc_pkg_err("cannot create a temporary directory: %s", strerror(errno));
        status = TC_ERR_IO;
        goto out_free;
    }
    status = tc_pkg_check_names(&b);
    if (status == TC_OK) {
        status = tc_pkg_make(&b);
    }
    if (status == TC_OK) {
        status = tc_pkg_install(&b);
    }
    if (status == TC_OK) {
        tc_pkg_remove_stale(&b);
        tc_pkg_summary(&b);
    }
    if (opts->keep_tmp) {
        fprintf(stderr, "tc-pkg: objects kept in %s\n", b.tmp);
    } else {
        tc_pkg_rm_tmp(b.tmp);
    }

out_free:
    for (i = 0; i < b.n_srcs; ++i) {
        for (k = 0; k < TC_MANIFEST_DOC_N; ++k) {
            free(b.srcs[i].doc[k]);
        }
        free(b.srcs[i].blob);
        free(b.srcs[i].path);
        free(b.srcs[i].dir);
    }
    free(b.srcs);
    if (b.old != NULL) {
        tc_manifest_free(b.old);
    }
    tc_pkg_strv_free(&b.libgcc);
    free(b.libgcc_path);
    return status;
}
