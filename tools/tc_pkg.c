/*
 * tc-pkg: builds a Two-Chains package (Local Function library, ried
 * libraries, injectable jam blobs, header, manifest) and shows what is in
 * one.
 *
 *   tc-pkg build SRC_DIR --name PKG --out INSTALL_DIR [options]
 *   tc-pkg inspect INSTALL_DIR
 *
 * Exit status: 0 done, 1 the build failed or the package is bad (inspect:
 * anything tc_pkg_open would refuse, named on stderr), 2 bad usage (one
 * line and "try 'tc-pkg --help'", as the other tools).
 */
#define _GNU_SOURCE
#include "tc_pkg.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build_rev.h"

static void tc_pkg_synopsis(FILE *f)
{
    fprintf(f,
            "usage: tc-pkg build SRC_DIR --name PKG --out INSTALL_DIR [--arch x86_64|aarch64]\n"
            "                    [--cc CC] [--cflags FLAGS] [--lib-cflags FLAGS]\n"
            "                    [--ldflags FLAGS] [--include DIR]... [--keep-tmp]\n"
            "       tc-pkg inspect INSTALL_DIR\n"
            "       tc-pkg --help | --version\n");
}

static void tc_pkg_usage(FILE *f)
{
    tc_pkg_synopsis(f);
    fprintf(f,
            "\n"
            "build   compiles every jam_<name>.amc and ried_<name>.rdc under SRC_DIR into\n"
            "        INSTALL_DIR: PKG.h, libtc_PKG.so (Local Function library),\n"
            "        libried_<name>.so, jam_<name>.blob (injectable), manifest.tcm\n"
            "  --arch        target (default: this machine's); aarch64 uses\n"
            "                aarch64-linux-gnu-gcc unless --cc names a compiler\n"
            "  --cflags      extra compiler flags for every element\n"
            "  --lib-cflags  extra flags for the shared libraries only (e.g. sanitizers);\n"
            "                jams are then compiled a second time for their blobs\n"
            "  --ldflags     extra flags for linking the shared libraries\n"
            "  --include     header directory (repeatable); default: the source tree's\n"
            "                lib/, jams/ and build/include/, or the installed include\n"
            "                directory: <twochains/tc_jam.h> and \"tc_jam.h\" in either\n"
            "  --keep-tmp    keep the object files and say where\n"
            "inspect prints each element: kind, code bytes, GOT slots with names,\n"
            "        fixups, entry offset, hash, what a jam's source says it does, takes\n"
            "        and returns (TC_JAM_DESCRIBE); runs every check loading the package\n"
            "        runs (blobs against the manifest, the library against both: on a\n"
            "        host of the package's arch) and exits 1 naming the first it fails\n"
            "--version prints the revision and the UCX version of the libtwochains.so\n"
            "        installed beside tc-pkg (tc-pkg itself links no UCX)\n"
            "exit status: 0 done, 1 the build failed or the package is bad, 2 bad usage\n");
}

/* One line saying what is wrong and where the usage is: exit status 2. */
static int tc_pkg_bad_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int tc_pkg_bad_usage(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "tc-pkg: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\ntry 'tc-pkg --help'\n");
    return 2;
}

/* --version: tc-pkg links no UCX; the version is that of the library
 * beside it, which the packages it builds are loaded with. */
static int tc_pkg_version(void)
{
    char bin[TC_PKG_PATH_MAX], lib[TC_PKG_PATH_MAX + 32];
    const char *(*ucx_version)(void) = NULL;
    const char *ucx = "unknown (no libtwochains.so beside tc-pkg)";
    void *api = NULL;

    if ((tc_pkg_exe_dir(bin, sizeof(bin)) == TC_OK) &&
        ((size_t)snprintf(lib, sizeof(lib), "%s/../lib/libtwochains.so", bin) < sizeof(lib))) {
        api = dlopen(lib, RTLD_LAZY | RTLD_LOCAL);
    }
    if (api != NULL) {
        *(void **)&ucx_version = dlsym(api, "tc_ucx_version");
        ucx = (ucx_version != NULL) ? ucx_version() : ucx;
    }
    printf("tc-pkg (Two-Chains) rev %s, UCX %s\n", tc_build_rev, ucx);
    /* api stays loaded until exit: UCX's constructors keep what they
     * allocate, which a sanitizer build reports as leaked once unloaded */
    return 0;
}

/* Header directories when none are given: next to a build tree binary
 * (build/bin/../../lib, ../../jams, and build/include, the installed layout
 * as links: <twochains/tc_jam.h> as installed) or an installed one
 * (bin/../include, bin/../include/twochains). */
static tc_status_t tc_pkg_default_includes(tc_pkg_strv_t *inc)
{
    char bin[TC_PKG_PATH_MAX], probe[TC_PKG_PATH_MAX + 64];
    tc_status_t status;

    if (tc_pkg_exe_dir(bin, sizeof(bin)) != TC_OK) {
        tc_pkg_err("pass --include");
        return TC_ERR_NOT_FOUND;
    }

    snprintf(probe, sizeof(probe), "%s/../../lib/twochains.h", bin);
    if (access(probe, R_OK) == 0) {
        status = tc_pkg_strv_addf(inc, "%s/../../lib", bin);
        if (status == TC_OK) {
            status = tc_pkg_strv_addf(inc, "%s/../../jams", bin);
        }
        snprintf(probe, sizeof(probe), "%s/../include/twochains/tc_jam.h", bin);
        if ((status == TC_OK) && (access(probe, R_OK) == 0)) {
            status = tc_pkg_strv_addf(inc, "%s/../include", bin);
        }
        return status;
    }
    snprintf(probe, sizeof(probe), "%s/../include/twochains.h", bin);
    if (access(probe, R_OK) == 0) {
        status = tc_pkg_strv_addf(inc, "%s/../include", bin);
        if (status == TC_OK) {
            status = tc_pkg_strv_addf(inc, "%s/../include/twochains", bin);
        }
        return status;
    }
    tc_pkg_err("cannot find twochains.h next to %s; pass --include", bin);
    return TC_ERR_NOT_FOUND;
}

static int tc_pkg_cmd_build(int argc, char **argv)
{
    static const char *const valued[] = {"--name", "--out", "--arch", "--cc", "--cflags",
                                         "--lib-cflags", "--ldflags", "--include"};
    tc_pkg_build_opts_t o;
    const char *key, *val;
    tc_status_t status;
    size_t klen, k;
    int i, rc = 2;

    memset(&o, 0, sizeof(o));
#if defined(__aarch64__)
    o.arch = TC_BLOB_ARCH_AARCH64;
#else
    o.arch = TC_BLOB_ARCH_X86_64;
#endif
    for (i = 0; i < argc; ++i) {
        key = argv[i];
        if (strcmp(key, "--keep-tmp") == 0) {
            o.keep_tmp = 1;
            continue;
        }
        if ((key[0] != '-') || (key[1] != '-')) {
            if (o.src_dir != NULL) {
                rc = tc_pkg_bad_usage("build takes one SRC_DIR (extra argument '%s')", key);
                goto out;
            }
            o.src_dir = key;
            continue;
        }
        /* --key VALUE or --key=VALUE */
        klen = strcspn(key, "=");
        for (k = 0; k < TC_ARRAY_SIZE(valued); ++k) {
            if ((strlen(valued[k]) == klen) && (strncmp(key, valued[k], klen) == 0)) {
                break;
            }
        }
        if (k == TC_ARRAY_SIZE(valued)) {
            rc = tc_pkg_bad_usage("unknown option '%s'", key);
            goto out;
        }
        if (key[klen] == '=') {
            val = key + klen + 1;
        } else if (i + 1 < argc) {
            val = argv[++i];
            if ((val[0] == '-') && (val[1] != '\0') && ((k < 4) || (k == 7))) {
                /* "--out --name": the next option taken as the value (the
                 * flags options take flags: "--cflags -O2") */
                rc = tc_pkg_bad_usage("%.*s takes a value, and '%s' is an option (%.*s=%s if "
                                      "that is meant)", (int)klen, key, val, (int)klen, key, val);
                goto out;
            }
        } else {
            rc = tc_pkg_bad_usage("option '%s' needs a value", key);
            goto out;
        }
        switch (k) {
        case 0: o.name = val; break;
        case 1: o.out_dir = val; break;
        case 2:
            o.arch = tc_manifest_arch_parse(val);
            if (o.arch == 0) {
                rc = tc_pkg_bad_usage("unknown --arch '%s' (x86_64 or aarch64)", val);
                goto out;
            }
            break;
        case 3: o.cc = val; break;
        case 4: o.cflags = val; break;
        case 5: o.lib_cflags = val; break;
        case 6: o.ldflags = val; break;
        default:
            if (*val == '\0') {
                rc = tc_pkg_bad_usage("--include needs a directory");
                goto out;
            }
            if (tc_pkg_strv_add(&o.includes, val) != TC_OK) {
                rc = 1;
                goto out;
            }
            break;
        }
    }
    if (o.src_dir == NULL) {
        rc = tc_pkg_bad_usage("build needs SRC_DIR");
        goto out;
    }
    if ((o.name == NULL) || (*o.name == '\0')) {
        rc = tc_pkg_bad_usage("build needs --name PKG");
        goto out;
    }
    if ((o.out_dir == NULL) || (*o.out_dir == '\0')) {
        rc = tc_pkg_bad_usage("build needs --out INSTALL_DIR");
        goto out;
    }
    if ((o.includes.len == 0) && (tc_pkg_default_includes(&o.includes) != TC_OK)) {
        rc = 1;
        goto out;
    }
    status = tc_pkg_build(&o);
    rc     = (status == TC_OK) ? 0 : 1;
out:
    tc_pkg_strv_free(&o.includes);
    return rc;
}

/* ----------------------------------------------------------------- inspect */

static tc_status_t tc_pkg_inspect_jam(const char *dir, const tc_manifest_t *m,
                                      const tc_manifest_elem_t *e, FILE *out)
{
    char path[TC_PKG_PATH_MAX], err[256];
    const tc_blob_file_hdr_t *h;
    tc_status_t status;
    tc_blob_t blob;
    size_t len;
    void *buf;
    uint32_t i;

    snprintf(path, sizeof(path), "%s/%s", dir, e->file);
    status = tc_pkg_read_file(path, &buf, &len);
    if (status != TC_OK) {
        return status;
    }
    status = tc_blob_parse_err(buf, len, err, sizeof(err), &blob);
    if (status != TC_OK) {
        tc_pkg_err("%s: not a valid blob: %s", path, err);
        goto out;
    }
    h = blob.hdr;
    fprintf(out, "element %u jam %s: blob %s, code %u bytes, %u GOT slots, %u fixups, "
                 "bss %u, entry %u, hash 0x%016llx, writable %u\n",
            e->id, e->name, e->file, h->image_size, h->got_count, h->fixup_count,
            h->bss_size, h->entry_offset,
            (unsigned long long)h->content_hash, e->writable_bytes);
    for (i = 0; i < h->got_count; ++i) {
        fprintf(out, "    got[%u] %s\n", i, tc_blob_slot_name(&blob, i));
    }
    for (i = 0; i < h->fixup_count; ++i) {
        fprintf(out, "    fixup[%u] offset %u = base + %lld\n", i, blob.fixups[i].offset,
                (long long)blob.fixups[i].addend);
    }
    /* the texts are checked printable and bounded (tc_manifest_doc_check) */
    if (e->doc[TC_MANIFEST_DOC_WHAT] != NULL) {
        fprintf(out, "    what:    %s\n    payload: %s\n    result:  %s\n",
                e->doc[TC_MANIFEST_DOC_WHAT], e->doc[TC_MANIFEST_DOC_PAYLOAD],
                e->doc[TC_MANIFEST_DOC_RESULT]);
    } else {
        fprintf(out, "    not described (its source has no TC_JAM_DESCRIBE)\n");
    }
    status = tc_manifest_check_blob(m, e, &blob, err, sizeof(err));
    if (status != TC_OK) {
        tc_pkg_err("%s: %s: rebuild the package", path, err);
    }
out:
    free(buf);
    return status;
}

/* The library and what it must agree with (its descriptor, its record of
 * the blobs' hashes, the rieds' libraries): tc_pkg_open's own checks, on a
 * host of the package's arch, which can load it. It is loaded as in a
 * program linked with libtwochains.so, so calls into its API bind. */
static tc_status_t tc_pkg_inspect_library(const char *dir, const tc_manifest_t *m, FILE *out)
{
    char api_path[TC_PKG_PATH_MAX];
    tc_status_t status;
    tc_pkg_t *pkg;
    void *api;

    if (m->arch != TC_BLOB_ARCH_HOST) {
        fprintf(out, "library %s not loaded: an %s package is checked against its library "
                     "on an %s host\n", m->library, tc_manifest_arch_name(m->arch),
                tc_manifest_arch_name(m->arch));
        return TC_OK;
    }
    status = tc_pkg_lib_path(api_path, sizeof(api_path));
    if (status != TC_OK) {
        return status;
    }
    api = dlopen(api_path, RTLD_LAZY | RTLD_GLOBAL);
    if (api == NULL) {
        tc_pkg_err("cannot load %s: %s", api_path, dlerror());
        return TC_ERR_NOT_FOUND;
    }
    status = tc_pkg_open(dir, &pkg); /* logged through tc_pkg_log */
    if (status == TC_OK) {
        tc_pkg_close(pkg);
    }
    /* api stays loaded until exit (tc-pkg exits next): UCX's constructors
     * keep what they allocate, which a sanitizer build reports as leaked
     * once the library is unloaded */
    return status;
}

tc_status_t tc_pkg_inspect(const char *dir, FILE *out)
{
    tc_status_t status, worst = TC_OK;
    char path[TC_PKG_PATH_MAX];
    const tc_manifest_elem_t *e;
    tc_manifest_t *m;
    struct stat st;
    uint32_t i;

    status = tc_manifest_load(dir, &m);
    if (status != TC_OK) {
        return status;
    }
    fprintf(out, "package %s: id 0x%08x, arch %s, library %s, %u elements\n", m->name,
            m->id, tc_manifest_arch_name(m->arch), m->library, m->n_elements);
    snprintf(path, sizeof(path), "%s/%s", dir, m->library);
    if (stat(path, &st) != 0) {
        tc_pkg_err("%s is missing", path);
        worst = TC_ERR_NOT_FOUND;
    }
    for (i = 0; i < m->n_elements; ++i) {
        e = &m->elements[i];
        if (e->kind == TC_ELEM_JAM) {
            status = tc_pkg_inspect_jam(dir, m, e, out);
        } else {
            snprintf(path, sizeof(path), "%s/%s", dir, e->file);
            if (stat(path, &st) == 0) {
                fprintf(out, "element %u ried %s: lib %s, %lld bytes\n", e->id, e->name,
                        e->file, (long long)st.st_size);
                status = TC_OK;
            } else {
                tc_pkg_err("%s is missing", path);
                status = TC_ERR_NOT_FOUND;
            }
        }
        if (status != TC_OK) {
            worst = status;
        }
    }
    /* what was refused above the runtime would refuse first: said once */
    if (worst == TC_OK) {
        worst = tc_pkg_inspect_library(dir, m, out);
    }
    tc_manifest_free(m);
    return worst;
}

/* The library's messages (the manifest's, tc_pkg_open's) as tc-pkg's own. */
static void tc_pkg_log(tc_log_level_t level, const char *msg, void *arg)
{
    (void)arg;
    fprintf(stderr, "tc-pkg: %s%s\n", (level == TC_LOG_ERROR) ? "" : "warning: ", msg);
}

int main(int argc, char **argv)
{
    tc_log_set_handler(tc_pkg_log, NULL);
    if (argc < 2) {
        return tc_pkg_bad_usage("a command is needed");
    }
    if ((strcmp(argv[1], "-h") == 0) || (strcmp(argv[1], "--help") == 0) ||
        (strcmp(argv[1], "help") == 0)) {
        tc_pkg_usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        return tc_pkg_version();
    }
    if (strcmp(argv[1], "build") == 0) {
        return tc_pkg_cmd_build(argc - 2, argv + 2);
    }
    if (strcmp(argv[1], "inspect") == 0) {
        if (argc != 3) {
            return tc_pkg_bad_usage("inspect takes one INSTALL_DIR");
        }
        return (tc_pkg_inspect(argv[2], stdout) == TC_OK) ? 0 : 1;
    }
    return tc_pkg_bad_usage("unknown command '%s'", argv[1]);
}
