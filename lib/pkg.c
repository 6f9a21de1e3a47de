/* Packages: the Local Function library of jams and rieds, loaded with dlopen. */
#define _GNU_SOURCE
#include "runtime.h"
#include "log.h"

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static tc_status_t tc_pkg_check_desc(const char *path, const tc_pkg_desc_t *desc)
{
    uint32_t e;

    if (desc->magic != TC_PKG_DESC_MAGIC) {
        tc_error("%s: %s has bad magic 0x%08x", path, TC_PKG_DESC_SYMBOL, desc->magic);
        return TC_ERR_PROTOCOL;
    }
    if (desc->abi_version != TC_PROTO_VERSION) {
        tc_error("%s: package ABI %u, this library speaks %u (rebuild the package)",
                 path, desc->abi_version, TC_PROTO_VERSION);
        return TC_ERR_VERSION_MISMATCH;
    }
    if ((desc->name == NULL) || (desc->n_elements > UINT16_MAX) ||
        ((desc->n_elements > 0) && (desc->elements == NULL))) {
        tc_error("%s: malformed package descriptor", path);
        return TC_ERR_PROTOCOL;
    }
    for (e = 0; e < desc->n_elements; ++e) {
        const tc_pkg_element_t *elem = &desc->elements[e];
        if ((elem->id != e) || (elem->name == NULL) ||
            ((elem->kind == TC_ELEM_JAM) && ((elem->run == NULL) || (elem->pack == NULL))) ||
            ((elem->kind != TC_ELEM_JAM) && (elem->kind != TC_ELEM_RIED))) {
            tc_error("%s: element %u of package '%s' is malformed", path, e, desc->name);
            return TC_ERR_PROTOCOL;
        }
    }
    return TC_OK;
}

tc_status_t tc_pkg_open(const char *path, tc_pkg_t **pkg_p)
{
    const tc_pkg_desc_t *desc;
    tc_status_t status;
    tc_pkg_t *pkg;

    pkg = calloc(1, sizeof(*pkg));
    if (pkg == NULL) {
        return TC_ERR_NO_MEMORY;
    }
    pkg->path = strdup(path);
    if (pkg->path == NULL) {
        status = TC_ERR_NO_MEMORY;
        goto err_free_pkg;
    }

    pkg->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (pkg->handle == NULL) {
        tc_error("cannot load package %s: %s", path, dlerror());
        status = TC_ERR_NOT_FOUND;
        goto err_free_path;
    }

    desc = dlsym(pkg->handle, TC_PKG_DESC_SYMBOL);
    if (desc == NULL) {
        tc_error("%s is not a twochains package (no %s)", path, TC_PKG_DESC_SYMBOL);
        status = TC_ERR_NOT_FOUND;
        goto err_close;
    }
    status = tc_pkg_check_desc(path, desc);
    if (status != TC_OK) {
        goto err_close;
    }

    pkg->desc = desc;
    *pkg_p    = pkg;
    return TC_OK;

err_close:
    dlclose(pkg->handle);
err_free_path:
    free(pkg->path);
err_free_pkg:
    free(pkg);
    return status;
}

void tc_pkg_close(tc_pkg_t *pkg)
{
    if (pkg == NULL) {
        return;
    }
    dlclose(pkg->handle);
    free(pkg->path);
    free(pkg);
}

const tc_pkg_desc_t *tc_pkg_desc(const tc_pkg_t *pkg)
{
    return pkg->desc;
}

tc_status_t tc_pkg_jam(const tc_pkg_t *pkg, const char *name, tc_jam_t *jam_p)
{
    const tc_pkg_desc_t *desc = pkg->desc;
    uint32_t e;

    for (e = 0; e < desc->n_elements; ++e) {
        if ((desc->elements[e].kind == TC_ELEM_JAM) &&
            (strcmp(desc->elements[e].name, name) == 0)) {
            jam_p->pkg     = pkg;
            jam_p->elem    = &desc->elements[e];
            jam_p->pkg_id  = desc->id;
            jam_p->element = (uint16_t)e;
            return TC_OK;
        }
    }
    return TC_ERR_NOT_FOUND;
}

tc_status_t tc_pkg_default_path(char *buf, size_t len)
{
    static const char *const rel[] = {"../pkg/bench", "../share/twochains/pkg/bench"};
    char exe[PATH_MAX];
    const char *dir;
    unsigned i;
    const char *env = getenv("TC_PKG");
    ssize_t n;
    int rc;

    if ((env != NULL) && (*env != '\0')) {
        rc = snprintf(buf, len, "%s", env);
        return ((rc < 0) || ((size_t)rc >= len)) ? TC_ERR_OUT_OF_RANGE : TC_OK;
    }

    /* build/bin/tc-perf and build/tests/x find build/pkg/bench; an
     * installed PREFIX/bin/tc-perf finds PREFIX/share/twochains/pkg/bench */
    n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n < 0) {
        return TC_ERR_IO;
    }
    exe[n] = '\0';
    dir = dirname(exe);
    for (i = 0; i < TC_ARRAY_SIZE(rel); ++i) {
        rc = snprintf(buf, len, "%s/%s/libtc_bench.so", dir, rel[i]);
        if ((rc < 0) || ((size_t)rc >= len)) {
            return TC_ERR_OUT_OF_RANGE;
        }
        if (access(buf, R_OK) == 0) {
            return TC_OK;
        }
    }
    return TC_ERR_NOT_FOUND;
}
