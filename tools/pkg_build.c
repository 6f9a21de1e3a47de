/*
 * tc-pkg build: sources -> package install directory.
 *
 *   <pkg>.h              element ids, package id, per jam code bytes/GOT slots
 *   libtc_<pkg>.so       the Local Function library (descriptor tc_package_desc)
 *   libried_<name>.so    each ried alone, for shipping to peers
 *   jam_<name>.blob      each jam as an injectable blob (lib/blob.h)
 *   manifest.tcm         what belongs to which element (lib/manifest.h), last
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
 * calls through the GOT, nothing exported by accident). */
static const char *const tc_pkg_base_flags[] = {
    "-std=gnu11", "-O2", "-fPIC", "-fno-plt", "-fvisibility=hidden"
};
/* Jams only: no unwind tables or stack-protector canaries in the image. */
static const char *const tc_pkg_jam_flags[] = {
    "-fno-asynchronous-unwind-tables", "-fno-unwind-tables", "-fno-stack-protector"
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
} tc_pkg_src_t;

typedef struct tc_pkg_builder {
    const tc_pkg_build_opts_t *opts;
    tc_pkg_src_t              *srcs;
    size_t                     n_srcs, cap_srcs;
    size_t                     n_jams;
    char                       tmp[TC_PKG_PATH_MAX];
    char                       upper[TC_MANIFEST_NAME_MAX];   /* package name, upper case */
    uint32_t                   id;
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

/* Package id: FNV-1a 64 over the name and every source, in element order,
 * so peers with different builds of a package do not run each other's ids. */
static tc_status_t tc_pkg_compute_id(tc_pkg_builder_t *b)
{
    uint64_t h = TC_PKG_FNV_BASIS;
    tc_status_t status;
    size_t i, len;
    void *buf;

    h = tc_pkg_fnv(h, b->opts->name, strlen(b->opts->name));
    for (i = 0; i < b->n_srcs; ++i) {
        status = tc_pkg_read_file(b->srcs[i].path, &buf, &len);
        if (status != TC_OK) {
            return status;
        }
        h = tc_pkg_fnv(h, buf, len);
        free(buf);
    }
    b->id = (uint32_t)h;
    return TC_OK;
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

static tc_status_t tc_pkg_check_cc(const tc_pkg_builder_t *b)
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
    return status;
}

typedef enum {
    TC_PKG_OBJ_BLOB,   /* a jam, for its blob */
    TC_PKG_OBJ_LIB     /* a jam or ried, for a shared library */
} tc_pkg_obj_use_t;

static tc_status_t tc_pkg_compile(const tc_pkg_builder_t *b, const char *src,
                                  const char *dir, const char *define, int is_jam,
                                  tc_pkg_obj_use_t use, const char *out)
{
    const tc_pkg_build_opts_t *o = b->opts;
    tc_pkg_strv_t argv = {0};
    tc_status_t status;
    size_t i;

    status = tc_pkg_strv_add_words(&argv, tc_pkg_cc(b));
    for (i = 0; (status == TC_OK) && (i < TC_ARRAY_SIZE(tc_pkg_base_flags)); ++i) {
        status = tc_pkg_strv_add(&argv, tc_pkg_base_flags[i]);
    }
    for (i = 0; (status == TC_OK) && is_jam && (i < TC_ARRAY_SIZE(tc_pkg_jam_flags)); ++i) {
        status = tc_pkg_strv_add(&argv, tc_pkg_jam_flags[i]);
    }
    for (i = 0; (status == TC_OK) && is_jam && (o->arch == TC_BLOB_ARCH_AARCH64) &&
                (i < TC_ARRAY_SIZE(tc_pkg_a64_jam_flags)); ++i) {
        status = tc_pkg_strv_add(&argv, tc_pkg_a64_jam_flags[i]);
    }
    if (status == TC_OK) {
        status = tc_pkg_strv_add_words(&argv, o->cflags);
    }
    if ((status == TC_OK) && (use == TC_PKG_OBJ_LIB)) {
        status = tc_pkg_strv_add_words(&argv, o->lib_cflags);
    }
    if ((status == TC_OK) && (define != NULL)) {
        status = tc_pkg_strv_add(&argv, define);
    }
    if ((status == TC_OK) && (dir != NULL)) {
        status = tc_pkg_strv_addf(&argv, "-I%s", dir);
    }
    for (i = 0; (status == TC_OK) && (i < o->includes.len); ++i) {
        status = tc_pkg_strv_addf(&argv, "-I%s", o->includes.v[i]);
    }
    for (i = 0; (status == TC_OK) && (i < 4); ++i) {
        static const char *const tail[] = {"-x", "c", "-c", "-o"};
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

static tc_status_t tc_pkg_link(const tc_pkg_builder_t *b, const tc_pkg_strv_t *objs,
                               const char *out)
{
    tc_pkg_strv_t argv = {0};
    tc_status_t status;
    size_t i;

    status = tc_pkg_strv_add_words(&argv, tc_pkg_cc(b));
    if (status == TC_OK) {
        status = tc_pkg_strv_add(&argv, "-shared");
    }
    if (status == TC_OK) {
        status = tc_pkg_strv_add_words(&argv, b->opts->ldflags);
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
    /* What binds the manifest to this library (lib/manifest.h). */
    fprintf(f, "__attribute__((visibility(\"default\")))\n");
    fprintf(f, "const uint64_t %s[] = {\n", TC_MANIFEST_HASHES_SYMBOL);
    for (i = 0; i < b->n_srcs; ++i) {
        fprintf(f, "    0x%016llxull, /* %s */\n",
                (b->srcs[i].kind == TC_ELEM_JAM)
                    ? (unsigned long long)b->srcs[i].parsed.hdr->content_hash : 0ull,
                b->srcs[i].name);
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

/* Compile everything, build the blobs, link the libraries (in b->tmp). */
static tc_status_t tc_pkg_make(tc_pkg_builder_t *b)
{
    const tc_pkg_build_opts_t *o = b->opts;
    char obj[TC_PKG_PATH_MAX], path[TC_PKG_PATH_MAX], define[TC_MANIFEST_NAME_MAX + 32];
    tc_pkg_strv_t lib_objs = {0}, one = {0};
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
            if (status != TC_OK) {
                break;
            }
            /* A jam that cannot be injected fails the build, but the others
             * still get checked, so one run lists every problem. */
            if (tc_pkg_blob_build(src->name, obj, o->arch, &src->blob, &src->blob_len,
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
            printf("  jam  %-20s %5u code bytes, %u GOT slots, %u fixups, %u writable\n",
                   b->srcs[i].name, h->image_size, h->got_count, h->fixup_count,
                   b->srcs[i].writable);
        }
    }
}

tc_status_t tc_pkg_build(const tc_pkg_build_opts_t *opts)
{
    tc_pkg_builder_t b = {.opts = opts};
    const char *tmpdir = getenv("TMPDIR");
    tc_status_t status;
    size_t i;
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
        status = tc_pkg_compute_id(&b);
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
    status = tc_pkg_make(&b);
    if (status == TC_OK) {
        status = tc_pkg_install(&b);
    }
    if (status == TC_OK) {
        tc_pkg_summary(&b);
    }
    if (opts->keep_tmp) {
        fprintf(stderr, "tc-pkg: objects kept in %s\n", b.tmp);
    } else {
        tc_pkg_rm_tmp(b.tmp);
    }

out_free:
    for (i = 0; i < b.n_srcs; ++i) {
        free(b.srcs[i].blob);
        free(b.srcs[i].path);
        free(b.srcs[i].dir);
    }
    free(b.srcs);
    return status;
}
