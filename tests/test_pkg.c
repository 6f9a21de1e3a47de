/*
 * Packages are checked whole when opened (lib/core/pkg.c, lib/codec/elfcheck.c): a
 * copy of the bench package (build/pkg/bench) is corrupted one way at a
 * time and tc_pkg_open must refuse it, returning nothing, with a message
 * naming the file and what is wrong: a blob whose entry moved, a blob
 * re-hashed after a change, a blob whose entry is past its code (the check
 * named), descriptor fields (element count, an element's kind and id), manifest sizes that differ from the blob, two
 * jams' manifest lines swapped (whole, or only their blob fields), a kind
 * changed, a truncated or non-ELF package library, a truncated ried
 * library. Then the ELF checks themselves on a library in memory, one
 * header field at a time.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <elf.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "twochains.h"
#include "blob.h"
#include "elfcheck.h"
#include "manifest.h"
#include "harness/pkg_path.h"

#if defined(__x86_64__)
#define TEST_HOST_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define TEST_HOST_MACHINE EM_AARCH64
#else
#define TEST_HOST_MACHINE EM_NONE
#endif

#define TEST_MSG_MAX 4096

typedef struct {
    char src[PATH_MAX];   /* build/pkg/bench */
    char dir[PATH_MAX];   /* this test's copy */
    char lib[PATH_MAX];   /* dir/libtc_bench.so */
} test_env_t;

/* ---------------------------------------------------------------- files */

static void *test_read(const char *path, size_t *len_p)
{
    struct stat st;
    FILE *f = fopen(path, "rb");
    void *buf;

    if ((f == NULL) || (fstat(fileno(f), &st) != 0)) {
        fail_msg("cannot read %s", path);
    }
    buf = malloc((size_t)st.st_size + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)st.st_size, f), (size_t)st.st_size);
    ((char *)buf)[st.st_size] = '\0';
    fclose(f);
    *len_p = (size_t)st.st_size;
    return buf;
}

static void test_write(const char *path, const void *buf, size_t len)
{
    FILE *f = fopen(path, "wb");

    if (f == NULL) {
        fail_msg("cannot write %s", path);
    }
    assert_int_equal(fwrite(buf, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static void test_path(const test_env_t *env, const char *name, char *buf, size_t len)
{
    int rc = snprintf(buf, len, "%s/%s", env->dir, name);

    if ((rc < 0) || ((size_t)rc >= len)) {
        fail_msg("path too long: %s/%s", env->dir, name);
    }
}

/* A fresh copy of the bench package for every test. */
static int test_setup(void **state)
{
    const char *tmp = getenv("TMPDIR");
    char path[PATH_MAX], from[PATH_MAX * 2], to[PATH_MAX * 2];
    test_env_t *env = calloc(1, sizeof(*env));
    struct dirent *de;
    size_t len;
    void *buf;
    DIR *d;

    assert_non_null(env);
    assert_int_equal(tc_pkg_default_path(path, sizeof(path)), TC_OK);
    snprintf(env->src, sizeof(env->src), "%s", dirname(path));
    snprintf(env->dir, sizeof(env->dir), "%s/tc-test-pkg.XXXXXX",
             ((tmp != NULL) && (*tmp != '\0')) ? tmp : "/tmp");
    assert_non_null(mkdtemp(env->dir));
    d = opendir(env->src);
    assert_non_null(d);
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') {
            continue;
        }
        snprintf(from, sizeof(from), "%s/%s", env->src, de->d_name);
        snprintf(to, sizeof(to), "%s/%s", env->dir, de->d_name);
        buf = test_read(from, &len);
        test_write(to, buf, len);
        free(buf);
    }
    closedir(d);
    test_path(env, "libtc_bench.so", env->lib, sizeof(env->lib));
    *state = env;
    return 0;
}

static int test_teardown(void **state)
{
    test_env_t *env = *state;
    char path[PATH_MAX * 2];
    struct dirent *de;
    DIR *d = opendir(env->dir);

    while ((d != NULL) && ((de = readdir(d)) != NULL)) {
        if ((strcmp(de->d_name, ".") != 0) && (strcmp(de->d_name, "..") != 0)) {
            snprintf(path, sizeof(path), "%s/%s", env->dir, de->d_name);
            unlink(path);
        }
    }
    if (d != NULL) {
        closedir(d);
    }
    rmdir(env->dir);
    free(env);
    return 0;
}

/* ------------------------------------------------------- opening, logged */

/* tc_pkg_open(lib) with stderr caught into msg (and echoed to the log). */
static tc_status_t test_open(const char *lib, char *msg, tc_pkg_t **pkg_p)
{
    tc_status_t status;
    FILE *tmp = tmpfile();
    size_t n;
    int saved;

    assert_non_null(tmp);
    fflush(stderr);
    saved = dup(2);
    assert_true(saved >= 0);
    assert_true(dup2(fileno(tmp), 2) >= 0);
    status = tc_pkg_open(lib, pkg_p);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    n      = fread(msg, 1, TEST_MSG_MAX - 1, tmp);
    msg[n] = '\0';
    fclose(tmp);
    if (n > 0) {
        print_message("%s", msg);
    }
    return status;
}

/* The package at env->lib must be refused with want; the message names
 * file (a path under the copy) and contains what. */
static void test_refused(const test_env_t *env, tc_status_t want, const char *file,
                         const char *what)
{
    tc_pkg_t *pkg = (tc_pkg_t *)(uintptr_t)0x1;
    char msg[TEST_MSG_MAX], path[PATH_MAX];
    tc_status_t status;

    test_path(env, file, path, sizeof(path));
    status = test_open(env->lib, msg, &pkg);
    if (status != want) {
        fail_msg("tc_pkg_open: %s, expected %s (%s)", tc_status_str(status),
                 tc_status_str(want), msg);
    }
    assert_ptr_equal(pkg, (tc_pkg_t *)(uintptr_t)0x1); /* nothing handed out */
    if ((strchr(msg, '\n') != strrchr(msg, '\n')) || (strstr(msg, path) == NULL) ||
        (strstr(msg, what) == NULL)) {
        fail_msg("message '%s' is not one line naming %s with '%s'", msg, path, what);
    }
}

/* Replace the first old in file with new. */
static void test_edit(const test_env_t *env, const char *file, const char *old,
                      const char *new)
{
    char path[PATH_MAX], *text, *at, *out;
    size_t len;

    test_path(env, file, path, sizeof(path));
    text = test_read(path, &len);
    at   = strstr(text, old);
    if (at == NULL) {
        fail_msg("%s has no '%s'", path, old);
    }
    assert_true(asprintf(&out, "%.*s%s%s", (int)(at - text), text, new,
                         at + strlen(old)) > 0);
    test_write(path, out, strlen(out));
    free(out);
    free(text);
}

/* The manifest's lines that start with prefix dropped; at least one must. */
static void test_drop_lines(const test_env_t *env, const char *prefix)
{
    char path[PATH_MAX], key[64], *text, *at, *end;
    size_t len, n = 0;

    test_path(env, TC_MANIFEST_FILE, path, sizeof(path));
    text = test_read(path, &len);
    snprintf(key, sizeof(key), "\n%s", prefix);
    while ((at = strstr(text, key)) != NULL) {
        end = strchr(at + 1, '\n');
        assert_non_null(end);
        memmove(at, end, strlen(end) + 1);
        n++;
    }
    if (n == 0) {
        fail_msg("%s has no line starting '%s'", path, prefix);
    }
    test_write(path, text, strlen(text));
    free(text);
}

/* Element id's describe lines dropped (it is then not described). */
static void test_undescribe(const test_env_t *env, unsigned id)
{
    char prefix[32];

    snprintf(prefix, sizeof(prefix), "describe %u ", id);
    test_drop_lines(env, prefix);
}

/* The manifest line of element id, without "element <id> " and '\n'. */
static char *test_manifest_rest(const test_env_t *env, unsigned id)
{
    char path[PATH_MAX], key[32], *text, *at, *end, *rest;
    size_t len;

    test_path(env, TC_MANIFEST_FILE, path, sizeof(path));
    text = test_read(path, &len);
    snprintf(key, sizeof(key), "\nelement %u ", id);
    at = strstr(text, key);
    assert_non_null(at);
    at += strlen(key);
    end  = strchr(at, '\n');
    rest = strndup(at, (size_t)(end - at));
    assert_non_null(rest);
    free(text);
    return rest;
}

/* The bench package's manifest element called name. */
static tc_manifest_elem_t test_elem(const char *name)
{
    char path[PATH_MAX];
    const tc_manifest_elem_t *e;
    tc_manifest_elem_t copy;
    tc_manifest_t *m;

    assert_int_equal(tc_pkg_default_path(path, sizeof(path)), TC_OK);
    assert_int_equal(tc_manifest_load(dirname(path), &m), TC_OK);
    e = tc_manifest_find(m, name);
    assert_non_null(e);
    copy = *e;
    tc_manifest_free(m);
    return copy;
}

static unsigned test_elem_id(const char *name)
{
    return test_elem(name).id;
}

/* In element id's manifest line, the first old becomes new. */
static void test_edit_elem(const test_env_t *env, unsigned id, const char *old,
                           const char *new)
{
    char *rest = test_manifest_rest(env, id), *at = strstr(rest, old), *line;

    if (at == NULL) {
        fail_msg("element %u's line '%s' has no '%s'", id, rest, old);
    }
    assert_true(asprintf(&line, "%.*s%s%s", (int)(at - rest), rest, new,
                         at + strlen(old)) > 0);
    test_edit(env, TC_MANIFEST_FILE, rest, line);
    free(line);
    free(rest);
}

/* --------------------------------------------------------------- packages */

static void test_pristine(void **state)
{
    test_env_t *env = *state;
    char msg[TEST_MSG_MAX], cwd[PATH_MAX];
    uint32_t bytes, slots;
    tc_pkg_t *pkg;
    tc_jam_t jam;

    assert_int_equal(test_open(env->lib, msg, &pkg), TC_OK);
    assert_int_equal(tc_pkg_jam(pkg, "noop", &jam), TC_OK);
    assert_int_equal(tc_jam_code_info(&jam, &bytes, &slots), TC_OK);
    tc_pkg_close(pkg);

    /* a bare file name is the file in the current directory, next to its
     * manifest (dlopen alone would search the library path instead) */
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    assert_int_equal(chdir(env->dir), 0);
    assert_int_equal(test_open("libtc_bench.so", msg, &pkg), TC_OK);
    assert_int_equal(chdir(cwd), 0);
    assert_int_equal(tc_pkg_jam(pkg, "seq", &jam), TC_OK);
    assert_int_equal(tc_jam_code_info(&jam, &bytes, &slots), TC_OK);
    tc_pkg_close(pkg);
}

/* Jams are found by name among the package's jams only: an unknown name, a
 * ried's name or an empty one is TC_ERR_NOT_FOUND, the output untouched;
 * the descriptor numbers its elements by position; each jam's hints are
 * what its source says. */
static void test_jam_lookup(void **state)
{
    test_env_t *env = *state;
    char msg[TEST_MSG_MAX];
    const tc_pkg_desc_t *desc;
    const char *ried = NULL;
    tc_jam_t jam, untouched;
    tc_pkg_t *pkg;
    uint32_t e;

    assert_int_equal(test_open(env->lib, msg, &pkg), TC_OK);
    desc = tc_pkg_desc(pkg);
    assert_non_null(desc);
    assert_int_equal(desc->magic, TC_PKG_DESC_MAGIC);
    assert_int_equal(desc->abi_version, TC_PROTO_VERSION);
    assert_string_equal(desc->name, "bench");
    for (e = 0; e < desc->n_elements; ++e) {
        assert_int_equal(desc->elements[e].id, e);
        if (desc->elements[e].kind == TC_ELEM_RIED) {
            ried = desc->elements[e].name;
        } else {
            assert_int_equal(desc->elements[e].kind, TC_ELEM_JAM);
            assert_int_equal(tc_pkg_jam(pkg, desc->elements[e].name, &jam), TC_OK);
            assert_ptr_equal(jam.pkg, pkg);
            assert_ptr_equal(jam.elem, &desc->elements[e]);
            assert_int_equal(jam.pkg_id, desc->id);
            assert_int_equal(jam.element, e);
            /* the jams whose source defines TC_JAM_READS_PAYLOAD */
            assert_int_equal(tc_jam_hints(&jam),
                             (!strcmp(jam.elem->name, "server_sum") ||
                              !strcmp(jam.elem->name, "indirect_put") ||
                              !strcmp(jam.elem->name, "copy") ||
                              !strcmp(jam.elem->name, "append")) ? TC_JAM_HINT_READS_PAYLOAD : 0);
        }
    }
    assert_non_null(ried); /* the bench package has its ried */

    memset(&untouched, 0xa5, sizeof(untouched));
    jam = untouched;
    assert_int_equal(tc_pkg_jam(pkg, "no_such_jam", &jam), TC_ERR_NOT_FOUND);
    assert_int_equal(tc_pkg_jam(pkg, "", &jam), TC_ERR_NOT_FOUND);
    assert_int_equal(tc_pkg_jam(pkg, "noo", &jam), TC_ERR_NOT_FOUND);   /* a prefix */
    assert_int_equal(tc_pkg_jam(pkg, "noopx", &jam), TC_ERR_NOT_FOUND); /* longer */
    assert_int_equal(tc_pkg_jam(pkg, "NOOP", &jam), TC_ERR_NOT_FOUND);
    assert_int_equal(tc_pkg_jam(pkg, ried, &jam), TC_ERR_NOT_FOUND);    /* not a jam */
    assert_memory_equal(&jam, &untouched, sizeof(jam));
    tc_pkg_close(pkg);
}

/* TC_PKG names the package; a buffer too small for the path is refused. */
static void test_default_path(void **unused)
{
    char path[PATH_MAX], small[4], *saved = getenv("TC_PKG");

    (void)unused;
    saved = (saved != NULL) ? strdup(saved) : NULL;
    assert_int_equal(unsetenv("TC_PKG"), 0);
    assert_int_equal(tc_pkg_default_path(path, sizeof(path)), TC_OK);
    assert_non_null(strstr(path, "libtc_bench.so"));
    assert_int_equal(access(path, R_OK), 0);
    assert_int_equal(tc_pkg_default_path(small, sizeof(small)), TC_ERR_OUT_OF_RANGE);

    assert_int_equal(setenv("TC_PKG", "/somewhere/libtc_other.so", 1), 0);
    assert_int_equal(tc_pkg_default_path(path, sizeof(path)), TC_OK);
    assert_string_equal(path, "/somewhere/libtc_other.so");
    assert_int_equal(tc_pkg_default_path(small, sizeof(small)), TC_ERR_OUT_OF_RANGE);
    assert_int_equal(unsetenv("TC_PKG"), 0);
    if (saved != NULL) {
        assert_int_equal(setenv("TC_PKG", saved, 1), 0);
        free(saved);
    }
}

/* No manifest: Local Function only, as before. */
static void test_no_manifest(void **state)
{
    test_env_t *env = *state;
    char msg[TEST_MSG_MAX], path[PATH_MAX];
    uint32_t bytes, slots;
    tc_pkg_t *pkg;
    tc_jam_t jam;

    test_path(env, TC_MANIFEST_FILE, path, sizeof(path));
    assert_int_equal(unlink(path), 0);
    assert_int_equal(test_open(env->lib, msg, &pkg), TC_OK);
    assert_int_equal(tc_pkg_jam(pkg, "noop", &jam), TC_OK);
    assert_int_equal(tc_jam_code_info(&jam, &bytes, &slots), TC_ERR_UNSUPPORTED);
    tc_pkg_close(pkg);
}

/* The entry moved inside .text: still a valid blob with a valid hash (the
 * hash covers the image, not the header), so only the manifest's entry
 * catches it. */
static void test_blob_entry_moved(void **state)
{
    test_env_t *env = *state;
    tc_blob_file_hdr_t *h;
    char path[PATH_MAX], want[128];
    tc_blob_t blob;
    uint32_t was;
    size_t len;
    void *buf;

    test_path(env, "jam_noop.blob", path, sizeof(path));
    buf = test_read(path, &len);
    h   = buf;
    was = h->entry_offset;
    h->entry_offset += 1; /* noop's code is 4 bytes: still inside it */
    assert_int_equal(tc_blob_parse(buf, len, &blob), TC_OK);
    snprintf(want, sizeof(want), "entry offset %u, the manifest's jam 'noop' has %u",
             was + 1, was);
    test_write(path, buf, len);
    free(buf);
    test_refused(env, TC_ERR_PROTOCOL, "jam_noop.blob", want);
}

/* The code changed and the blob re-hashed: a valid blob, but not the one
 * the manifest names. */
static void test_blob_rehashed(void **state)
{
    test_env_t *env = *state;
    tc_blob_file_hdr_t *h;
    char path[PATH_MAX];
    uint8_t *image;
    tc_blob_t blob;
    size_t len;
    void *buf;

    test_path(env, "jam_seq.blob", path, sizeof(path));
    buf = test_read(path, &len);
    assert_int_equal(tc_blob_parse(buf, len, &blob), TC_OK);
    h     = buf;
    image = (uint8_t *)blob.image;
    image[h->entry_offset] ^= 0x01;
    h->content_hash = tc_blob_hash(image, h->image_size, blob.names, h->names_size,
                                   blob.fixups, h->fixup_count);
    assert_int_equal(tc_blob_parse(buf, len, &blob), TC_OK);
    test_write(path, buf, len);
    free(buf);
    test_refused(env, TC_ERR_PROTOCOL, "jam_seq.blob", "content hash");
}

/* The manifest's code bytes and GOT slots against the blob's. */
static void test_manifest_sizes(void **state)
{
    test_env_t *env = *state;
    tc_manifest_elem_t e = test_elem("noop");
    char old[32], new[32], want[128];

    snprintf(old, sizeof(old), " code %u ", e.code_bytes);
    snprintf(new, sizeof(new), " code %u ", e.code_bytes + 1);
    test_edit_elem(env, e.id, old, new);
    snprintf(want, sizeof(want), "code bytes %u, the manifest's jam 'noop' has %u",
             e.code_bytes, e.code_bytes + 1);
    test_refused(env, TC_ERR_PROTOCOL, "jam_noop.blob", want);
}

static void test_manifest_got(void **state)
{
    test_env_t *env = *state;
    tc_manifest_elem_t e = test_elem("append");
    char old[32], new[32], want[128];

    assert_true(e.got_slots > 0); /* its run calls memcpy */
    snprintf(old, sizeof(old), " got %u ", e.got_slots);
    snprintf(new, sizeof(new), " got %u ", e.got_slots - 1);
    test_edit_elem(env, e.id, old, new);
    snprintf(want, sizeof(want), "GOT slots %u, the manifest's jam 'append' has %u",
             e.got_slots, e.got_slots - 1);
    test_refused(env, TC_ERR_PROTOCOL, "jam_append.blob", want);
}

/* Two jams' lines swapped whole (ids kept in order): each element now
 * names the other jam, which the library's descriptor contradicts. */
static void test_manifest_swapped_lines(void **state)
{
    test_env_t *env = *state;
    unsigned a = test_elem_id("noop"), b = test_elem_id("seq");
    char *ra = test_manifest_rest(env, a), *rb = test_manifest_rest(env, b);
    char old[64], want[PATH_MAX + 128];

    /* "jam noop ..." <-> "jam seq ...": through a placeholder */
    test_edit(env, TC_MANIFEST_FILE, ra, "@A@");
    test_edit(env, TC_MANIFEST_FILE, rb, ra);
    test_edit(env, TC_MANIFEST_FILE, "@A@", rb);
    snprintf(old, sizeof(old), "element %u jam seq ", a);
    test_edit(env, TC_MANIFEST_FILE, old, old); /* the swap took */
    snprintf(want, sizeof(want), "element %u is jam 'seq', but in %s it is jam 'noop'", a,
             env->lib);
    free(ra);
    free(rb);
    test_refused(env, TC_ERR_PROTOCOL, TC_MANIFEST_FILE, want);
}

/* Only the blob fields swapped, names kept: element noop now maps onto
 * seq's blob (consistent with its fields). The library's own record of
 * each jam's hash refuses it. */
static void test_manifest_swapped_blobs(void **state)
{
    test_env_t *env = *state;
    char *ra = test_manifest_rest(env, test_elem_id("noop"));
    char *rb = test_manifest_rest(env, test_elem_id("seq"));
    char *fa = strstr(ra, " blob "), *fb = strstr(rb, " blob ");
    char *la, *lb;

    assert_non_null(fa);
    assert_non_null(fb);
    assert_true(asprintf(&la, "%.*s%s", (int)(fa - ra), ra, fb) > 0);
    assert_true(asprintf(&lb, "%.*s%s", (int)(fb - rb), rb, fa) > 0);
    test_edit(env, TC_MANIFEST_FILE, ra, la);
    test_edit(env, TC_MANIFEST_FILE, rb, lb);
    free(la);
    free(lb);
    free(ra);
    free(rb);
    test_refused(env, TC_ERR_PROTOCOL, TC_MANIFEST_FILE,
                 "jam 'noop' has hash 0x");
}

static void test_manifest_kind(void **state)
{
    test_env_t *env = *state;
    unsigned id = test_elem_id("noop");
    char *rest = test_manifest_rest(env, id), want[PATH_MAX + 128];

    test_edit(env, TC_MANIFEST_FILE, rest, "ried noop lib libried_bench.so");
    test_undescribe(env, id); /* a ried described would be refused first */
    free(rest);
    snprintf(want, sizeof(want), "element %u is ried 'noop', but in %s it is jam 'noop'",
             id, env->lib);
    test_refused(env, TC_ERR_PROTOCOL, TC_MANIFEST_FILE, want);
}

/* A jam's description is data the loader holds to its rules: a text that
 * is not one printable line is refused with the line and the reason; a
 * version 2 manifest (before describe lines) still loads, its jams not
 * described. */
static void test_manifest_describe(void **state)
{
    test_env_t *env = *state;
    unsigned id = test_elem_id("seq");
    char old[64], new[64], want[128], msg[TEST_MSG_MAX];
    tc_jam_doc_t doc;
    tc_pkg_t *pkg;
    tc_jam_t jam;

    assert_int_equal(test_open(env->lib, msg, &pkg), TC_OK);
    assert_int_equal(tc_pkg_jam(pkg, "seq", &jam), TC_OK);
    assert_int_equal(tc_jam_doc(&jam, &doc), TC_OK);
    assert_non_null(strstr(doc.payload, "8 bytes"));
    tc_pkg_close(pkg);

    snprintf(old, sizeof(old), "describe %u payload the", id);
    snprintf(new, sizeof(new), "describe %u payload \tthe", id);
    test_edit(env, TC_MANIFEST_FILE, old, new);
    snprintf(want, sizeof(want), "describe %u payload: byte 0x09 at 0 is not printable", id);
    test_refused(env, TC_ERR_PROTOCOL, TC_MANIFEST_FILE, want);
    test_edit(env, TC_MANIFEST_FILE, new, old);

    snprintf(old, sizeof(old), "describe %u result ", id);
    snprintf(new, sizeof(new), "describe %u payload ", id);
    test_edit(env, TC_MANIFEST_FILE, old, new);
    snprintf(want, sizeof(want), "describe %u payload given twice", id);
    test_refused(env, TC_ERR_PROTOCOL, TC_MANIFEST_FILE, want);
    test_edit(env, TC_MANIFEST_FILE, new, old);

    test_undescribe(env, id);
    test_edit(env, TC_MANIFEST_FILE, "twochains-package 3\n", "twochains-package 2\n");
    snprintf(want, sizeof(want), "'describe' in a version 2 manifest");
    test_refused(env, TC_ERR_PROTOCOL, TC_MANIFEST_FILE, want);
    test_drop_lines(env, "describe ");
    assert_int_equal(test_open(env->lib, msg, &pkg), TC_OK);
    assert_int_equal(tc_pkg_jam(pkg, "seq", &jam), TC_OK);
    assert_int_equal(tc_jam_doc(&jam, &doc), TC_ERR_NOT_FOUND);
    tc_pkg_close(pkg);
}

/* A blob that fails its own checks: the refusal names the check. */
static void test_blob_invalid(void **state)
{
    test_env_t *env = *state;
    tc_blob_file_hdr_t *h;
    char path[PATH_MAX], want[128];
    size_t len;
    void *buf;

    test_path(env, "jam_noop.blob", path, sizeof(path));
    buf = test_read(path, &len);
    h   = buf;
    h->entry_offset = h->image_size; /* just past the code */
    snprintf(want, sizeof(want), "not a valid blob: entry offset %u is outside the code "
             "(%u..%u)", h->image_size, h->code_offset, h->image_size);
    test_write(path, buf, len);
    free(buf);
    test_refused(env, TC_ERR_BAD_FRAME, "jam_noop.blob", want);
}

/* The file offset of symbol name (in .symtab: the element table is local)
 * of the library in buf, through its PT_LOAD segments. */
static size_t test_sym_offset(const uint8_t *buf, size_t len, const char *name)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)buf;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(buf + eh->e_shoff);
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(buf + eh->e_phoff);
    const Elf64_Sym *sym;
    const char *strtab;
    size_t i, n;
    unsigned k;

    for (k = 0; k < eh->e_shnum; ++k) {
        if (sh[k].sh_type != SHT_SYMTAB) {
            continue;
        }
        sym    = (const Elf64_Sym *)(buf + sh[k].sh_offset);
        n      = sh[k].sh_size / sizeof(*sym);
        strtab = (const char *)(buf + sh[sh[k].sh_link].sh_offset);
        for (i = 0; i < n; ++i) {
            if (strcmp(strtab + sym[i].st_name, name) != 0) {
                continue;
            }
            for (k = 0; k < eh->e_phnum; ++k) {
                if ((ph[k].p_type == PT_LOAD) && (sym[i].st_value >= ph[k].p_vaddr) &&
                    (sym[i].st_value < ph[k].p_vaddr + ph[k].p_filesz)) {
                    assert_true(sym[i].st_value - ph[k].p_vaddr + ph[k].p_offset < len);
                    return sym[i].st_value - ph[k].p_vaddr + ph[k].p_offset;
                }
            }
        }
    }
    fail_msg("no symbol %s with file contents (a stripped library?)", name);
    return 0;
}

/* The library's descriptor, changed in the file one field at a time: the
 * refusal names the field and its value (not "malformed"). */
static void test_desc_fields(void **state)
{
    test_env_t *env = *state;
    tc_pkg_element_t *elem;
    tc_pkg_desc_t *desc;
    size_t len, at_desc, at_elems;
    unsigned kv = test_elem_id("kv_get");
    uint8_t *orig, *buf;
    char want[128];
    int round;

    orig     = test_read(env->lib, &len);
    at_desc  = test_sym_offset(orig, len, TC_PKG_DESC_SYMBOL);
    at_elems = test_sym_offset(orig, len, "tc_pkg_elements");
    buf      = malloc(len);
    assert_non_null(buf);
    for (round = 0; round < 3; ++round) {
        memcpy(buf, orig, len);
        desc = (tc_pkg_desc_t *)(buf + at_desc);
        elem = (tc_pkg_element_t *)(buf + at_elems);
        if (round == 0) {
            desc->n_elements = 70000;
            snprintf(want, sizeof(want), "package 'bench' has 70000 elements, more than 65535");
        } else if (round == 1) {
            elem[kv].kind = 7;
            snprintf(want, sizeof(want), "element %u ('kv_get') of package 'bench' has kind 7, "
                     "neither jam (1) nor ried (2)", kv);
        } else {
            elem[kv].id = (uint16_t)(kv + 1);
            snprintf(want, sizeof(want), "element %u of package 'bench' has id %u", kv, kv + 1);
        }
        test_write(env->lib, buf, len);
        test_refused(env, TC_ERR_PROTOCOL, "libtc_bench.so", want);
    }
    free(buf);
    free(orig);
}

/* Where the last PT_LOAD segment of dir/libtc_bench.so ends in the file. */
static uint64_t test_load_end(const char *dir)
{
    char path[PATH_MAX + 32];
    const Elf64_Ehdr *eh;
    const Elf64_Phdr *ph;
    uint64_t end = 0;
    size_t len;
    unsigned i;
    void *buf;

    snprintf(path, sizeof(path), "%s/libtc_bench.so", dir);
    buf = test_read(path, &len);
    eh  = buf;
    ph  = (const Elf64_Phdr *)((const uint8_t *)buf + eh->e_phoff);
    for (i = 0; i < eh->e_phnum; ++i) {
        if ((ph[i].p_type == PT_LOAD) && (ph[i].p_offset + ph[i].p_filesz > end)) {
            end = ph[i].p_offset + ph[i].p_filesz;
        }
    }
    free(buf);
    assert_true((end > 0) && (end <= len));
    return end;
}

/* Before dlopen: a truncated library would be SIGBUS inside the loader. */
static void test_library_truncated(void **state)
{
    test_env_t *env = *state;
    struct stat st;

    assert_int_equal(stat(env->lib, &st), 0);
    assert_int_equal(truncate(env->lib, st.st_size / 2), 0);
    test_refused(env, TC_ERR_PROTOCOL, "libtc_bench.so", "truncated: ");
    /* one byte short of the last loaded byte: SIGBUS inside dlopen, once */
    assert_int_equal(truncate(env->lib, (off_t)test_load_end(env->src) - 1), 0);
    test_refused(env, TC_ERR_PROTOCOL, "libtc_bench.so", "(PT_LOAD) ends at byte");
    assert_int_equal(truncate(env->lib, 20), 0);
    test_refused(env, TC_ERR_PROTOCOL, "libtc_bench.so", "less than an ELF header");
    assert_int_equal(truncate(env->lib, 0), 0);
    test_refused(env, TC_ERR_PROTOCOL, "libtc_bench.so", "not an ELF file (empty)");
}

static void test_library_not_elf(void **state)
{
    static const char text[] = "#!/bin/sh\necho this is not a library\n";
    test_env_t *env = *state;

    test_write(env->lib, text, sizeof(text) - 1);
    test_refused(env, TC_ERR_PROTOCOL, "libtc_bench.so", "not an ELF file");
}

static void test_library_missing(void **state)
{
    test_env_t *env = *state;

    assert_int_equal(unlink(env->lib), 0);
    test_refused(env, TC_ERR_NOT_FOUND, "libtc_bench.so", "cannot open");
}

static void test_ried_truncated(void **state)
{
    test_env_t *env = *state;
    char path[PATH_MAX];
    struct stat st;

    test_path(env, "libried_bench.so", path, sizeof(path));
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(truncate(path, st.st_size / 2), 0);
    test_refused(env, TC_ERR_PROTOCOL, "libried_bench.so", "ried library");
}

/* ------------------------------------------------------- the ELF checks */

typedef struct {
    uint8_t *buf;
    size_t   len;
} test_lib_t;

static void test_lib_load(test_lib_t *lib)
{
    char path[PATH_MAX];

    assert_int_equal(tc_pkg_default_path(path, sizeof(path)), TC_OK);
    lib->buf = test_read(path, &lib->len);
}

static Elf64_Ehdr *test_ehdr(test_lib_t *lib)
{
    return (Elf64_Ehdr *)lib->buf;
}

static Elf64_Phdr *test_phdr(test_lib_t *lib, unsigned i)
{
    return (Elf64_Phdr *)(lib->buf + test_ehdr(lib)->e_phoff) + i;
}

/* A fresh copy, changed by fn, must be refused with what. */
static void test_elf_case(void (*fn)(test_lib_t *lib), const char *what)
{
    char err[256];
    test_lib_t lib;
    uint32_t machine = 12345;

    test_lib_load(&lib);
    fn(&lib);
    if ((tc_elf_check_mem(lib.buf, lib.len, err, sizeof(err), &machine) !=
         TC_ERR_PROTOCOL) || (strstr(err, what) == NULL)) {
        fail_msg("expected a refusal with '%s', got '%s'", what, err);
    }
    assert_int_equal(machine, 12345); /* untouched on failure */
    free(lib.buf);
}

static void test_elf_empty(test_lib_t *lib) { lib->len = 0; }
static void test_elf_short(test_lib_t *lib) { lib->len = 40; }
static void test_elf_magic(test_lib_t *lib) { lib->buf[1] = 'X'; }
static void test_elf_class(test_lib_t *lib) { lib->buf[EI_CLASS] = ELFCLASS32; }
static void test_elf_data(test_lib_t *lib) { lib->buf[EI_DATA] = ELFDATA2MSB; }
static void test_elf_rel(test_lib_t *lib) { test_ehdr(lib)->e_type = ET_REL; }
static void test_elf_exec(test_lib_t *lib) { test_ehdr(lib)->e_type = ET_EXEC; }
static void test_elf_machine(test_lib_t *lib)
{
    test_ehdr(lib)->e_machine = (TEST_HOST_MACHINE == EM_AARCH64) ? EM_X86_64 : EM_AARCH64;
}
static void test_elf_phnum0(test_lib_t *lib) { test_ehdr(lib)->e_phnum = 0; }
static void test_elf_phentsize(test_lib_t *lib) { test_ehdr(lib)->e_phentsize = 32; }
static void test_elf_phoff(test_lib_t *lib) { test_ehdr(lib)->e_phoff = lib->len - 8; }
static void test_elf_phoff_huge(test_lib_t *lib) { test_ehdr(lib)->e_phoff = UINT64_MAX - 8; }
static void test_elf_shoff(test_lib_t *lib) { test_ehdr(lib)->e_shoff = lib->len - 8; }
static void test_elf_shoff_huge(test_lib_t *lib) { test_ehdr(lib)->e_shoff = UINT64_MAX; }
static void test_elf_shentsize(test_lib_t *lib) { test_ehdr(lib)->e_shentsize = 40; }

/* The section headers dropped (a loader does not need them) and the file
 * cut one byte before the last PT_LOAD's end: the segment check alone. */
static void test_elf_segment_cut(test_lib_t *lib)
{
    Elf64_Ehdr *eh = test_ehdr(lib);
    uint64_t end = 0;
    unsigned i;

    for (i = 0; i < eh->e_phnum; ++i) {
        if ((test_phdr(lib, i)->p_type == PT_LOAD) &&
            (test_phdr(lib, i)->p_offset + test_phdr(lib, i)->p_filesz > end)) {
            end = test_phdr(lib, i)->p_offset + test_phdr(lib, i)->p_filesz;
        }
    }
    assert_true((end > 0) && (end <= lib->len));
    eh->e_shoff  = 0;
    eh->e_shnum  = 0;
    lib->len     = end - 1;
}

static void test_elf_segment_huge(test_lib_t *lib)
{
    unsigned i;

    for (i = 0; test_phdr(lib, i)->p_type != PT_LOAD; ++i) {
    }
    test_phdr(lib, i)->p_filesz = UINT64_MAX;
}

static void test_elf_filesz_memsz(test_lib_t *lib)
{
    unsigned i;

    for (i = 0; test_phdr(lib, i)->p_type != PT_LOAD; ++i) {
    }
    test_phdr(lib, i)->p_memsz = test_phdr(lib, i)->p_filesz - 1;
}

static void test_elf_no_load(test_lib_t *lib)
{
    unsigned i;

    for (i = 0; i < test_ehdr(lib)->e_phnum; ++i) {
        if (test_phdr(lib, i)->p_type == PT_LOAD) {
            test_phdr(lib, i)->p_type = PT_NULL;
        }
    }
}

static void test_elf_checks(void **state)
{
    char err[256], path[PATH_MAX];
    test_lib_t lib;
    uint32_t machine = 0;

    (void)state;
    test_lib_load(&lib);
    assert_int_equal(tc_elf_check_mem(lib.buf, lib.len, err, sizeof(err), &machine), TC_OK);
    assert_int_equal(machine, TEST_HOST_MACHINE);
    /* headers only, for an unaligned copy too */
    {
        uint8_t *odd = malloc(lib.len + 1);

        assert_non_null(odd);
        memcpy(odd + 1, lib.buf, lib.len);
        assert_int_equal(tc_elf_check_mem(odd + 1, lib.len, err, sizeof(err), NULL), TC_OK);
        free(odd);
    }
    free(lib.buf);

    test_elf_case(test_elf_empty, "not an ELF file (empty)");
    test_elf_case(test_elf_short, "truncated: 40 bytes, less than an ELF header");
    test_elf_case(test_elf_magic, "not an ELF file (no \\177ELF magic)");
    test_elf_case(test_elf_class, "ELF class 1, not 64-bit");
    test_elf_case(test_elf_data, "byte order");
    test_elf_case(test_elf_rel, "ELF type 1 (a relocatable object), not a shared object");
    test_elf_case(test_elf_exec, "ELF type 2 (an executable)");
    if (TEST_HOST_MACHINE != EM_NONE) {
        test_elf_case(test_elf_machine, "ELF machine");
    }
    test_elf_case(test_elf_phnum0, "no program headers");
    test_elf_case(test_elf_phentsize, "program header entries of 32 bytes");
    test_elf_case(test_elf_phoff, "truncated: the program header table ends at byte");
    test_elf_case(test_elf_phoff_huge, "truncated: the program header table");
    test_elf_case(test_elf_shoff, "truncated: the section header table ends at byte");
    test_elf_case(test_elf_shoff_huge, "truncated: the section header table");
    test_elf_case(test_elf_shentsize, "section header entries of 40 bytes");
    test_elf_case(test_elf_segment_cut, "(PT_LOAD) ends at byte");
    test_elf_case(test_elf_segment_huge, "(PT_LOAD) ends at byte");
    test_elf_case(test_elf_filesz_memsz, "in memory");
    test_elf_case(test_elf_no_load, "no PT_LOAD segment");

    /* files: what cannot be opened or is not a file */
    assert_int_equal(tc_elf_check_file("/nonexistent/libx.so", err, sizeof(err), NULL),
                     TC_ERR_NOT_FOUND);
    assert_non_null(strstr(err, "cannot open"));
    assert_int_equal(tc_elf_check_file("/", err, sizeof(err), NULL), TC_ERR_IO);
    assert_non_null(strstr(err, "not a regular file"));
    assert_int_equal(tc_pkg_default_path(path, sizeof(path)), TC_OK);
    assert_int_equal(tc_elf_check_file(path, err, sizeof(err), &machine), TC_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pristine, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_jam_lookup, test_setup, test_teardown),
        cmocka_unit_test(test_default_path),
        cmocka_unit_test_setup_teardown(test_no_manifest, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_blob_entry_moved, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_blob_rehashed, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_blob_invalid, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_desc_fields, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_manifest_sizes, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_manifest_got, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_manifest_swapped_lines, test_setup,
                                        test_teardown),
        cmocka_unit_test_setup_teardown(test_manifest_swapped_blobs, test_setup,
                                        test_teardown),
        cmocka_unit_test_setup_teardown(test_manifest_kind, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_manifest_describe, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_library_truncated, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_library_not_elf, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_library_missing, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_ried_truncated, test_setup, test_teardown),
        cmocka_unit_test(test_elf_checks),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
