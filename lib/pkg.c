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

#if defined(__x86_64__)
#define TC_PKG_HOST_ARCH TC_BLOB_ARCH_X86_64
#elif defined(__aarch64__)
#define TC_PKG_HOST_ARCH TC_BLOB_ARCH_AARCH64
#else
#define TC_PKG_HOST_ARCH 0
#endif

void *tc_read_file(const char *path, size_t *len_p)
{
    FILE *f = fopen(path, "rb");
    long len;
    void *buf;

    if (f == NULL) {
        return NULL;
    }
    if ((fseek(f, 0, SEEK_END) != 0) || ((len = ftell(f)) < 0) || (fseek(f, 0, SEEK_SET) != 0) ||
        ((buf = malloc((size_t)len + 1)) == NULL)) {
        fclose(f);
        return NULL;
    }
    if (fread(buf, 1, (size_t)len, f) != (size_t)len) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len_p = (size_t)len;
    return buf;
}

static void tc_pkg_free_blobs(tc_pkg_t *pkg)
{
    uint32_t e;

    if (pkg->blobs != NULL) {
        for (e = 0; e < pkg->desc->n_elements; ++e) {
            free(pkg->blobs[e].file);
        }
        free(pkg->blobs);
        pkg->blobs = NULL;
    }
    tc_manifest_free(pkg->manifest);
    pkg->manifest = NULL;
}

/* A package built by tc-pkg has a manifest and one blob per jam next to its
 * library: load them, and check they describe this very library. Without a
 * manifest the package serves Local Function only. */
static tc_status_t tc_pkg_load_blobs(tc_pkg_t *pkg)
{
    char path[PATH_MAX], dir[PATH_MAX], file[PATH_MAX + TC_MANIFEST_FILE_MAX];
    const tc_manifest_elem_t *me;
    tc_status_t status;
    size_t len = 0;
    uint32_t e;

    snprintf(path, sizeof(path), "%s", pkg->path);
    snprintf(dir, sizeof(dir), "%s", dirname(path)); /* dirname writes into path */
    snprintf(file, sizeof(file), "%s/manifest.tcm", dir);
    if (access(file, R_OK) != 0) {
        return TC_OK;
    }
    status = tc_manifest_load(dir, &pkg->manifest);
    if (status != TC_OK) {
        return status;
    }
    if ((pkg->manifest->id != pkg->desc->id) ||
        (pkg->manifest->n_elements != pkg->desc->n_elements)) {
        tc_error("%s: manifest (id 0x%08x, %u elements) does not describe %s "
                 "(id 0x%08x, %u elements)", dir, pkg->manifest->id,
                 pkg->manifest->n_elements, pkg->path, pkg->desc->id, pkg->desc->n_elements);
        status = TC_ERR_PROTOCOL;
        goto err;
    }
    if (pkg->manifest->arch != TC_PKG_HOST_ARCH) {
        /* a foreign-arch package: its blobs cannot run here */
        return TC_OK;
    }
    pkg->blobs = calloc(pkg->desc->n_elements, sizeof(*pkg->blobs));
    if (pkg->blobs == NULL) {
        status = TC_ERR_NO_MEMORY;
        goto err;
    }
    for (e = 0; e < pkg->desc->n_elements; ++e) {
        me = &pkg->manifest->elements[e];
        if (me->kind != TC_ELEM_JAM) {
            continue;
        }
        snprintf(file, sizeof(file), "%s/%s", dir, me->file);
        pkg->blobs[e].file = tc_read_file(file, &len);
        if (pkg->blobs[e].file == NULL) {
            tc_error("cannot read %s: %m", file);
            status = TC_ERR_IO;
            goto err;
        }
        status = tc_blob_parse(pkg->blobs[e].file, len, &pkg->blobs[e].blob);
        if (status != TC_OK) {
            tc_error("%s: not a valid blob (%s)", file, tc_status_str(status));
            goto err;
        }
        if ((pkg->blobs[e].blob.hdr->content_hash != me->hash) ||
            (pkg->blobs[e].blob.hdr->got_count != me->got_slots) ||
            (pkg->blobs[e].blob.hdr->image_size != me->code_bytes)) {
            tc_error("%s does not match the manifest's jam '%s'", file, me->name);
            status = TC_ERR_PROTOCOL;
            goto err;
        }
    }
    return TC_OK;

err:
    tc_pkg_free_blobs(pkg);
    return status;
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
    status    = tc_pkg_load_blobs(pkg);
    if (status != TC_OK) {
        goto err_close;
    }

    *pkg_p = pkg;
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
    tc_pkg_free_blobs(pkg);
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

tc_status_t tc_jam_code_info(const tc_jam_t *jam, uint32_t *code_bytes_p,
                             uint32_t *got_slots_p)
{
    const tc_blob_t *blob = tc_pkg_blob(jam->pkg, jam->element);

    if (blob == NULL) {
        return TC_ERR_UNSUPPORTED;
    }
    *code_bytes_p = blob->hdr->image_size;
    *got_slots_p  = blob->hdr->got_count;
    return TC_OK;
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
