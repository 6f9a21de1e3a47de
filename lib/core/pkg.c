/* Packages: the Local Function library of jams and rieds, loaded with dlopen. */
#define _GNU_SOURCE
#include "runtime.h"
#include "elfcheck.h"
#include "log.h"

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *tc_pkg_kind_name(uint16_t kind)
{
    return (kind == TC_ELEM_JAM) ? "jam" : (kind == TC_ELEM_RIED) ? "ried" : "unknown";
}

/* The descriptor the library exports, field by field: the first fault is
 * named (a descriptor tc-pkg did not write, or a corrupted one). */
static tc_status_t tc_pkg_check_desc(const char *path, const tc_pkg_desc_t *desc)
{
    const tc_pkg_element_t *elem;
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
    if (desc->name == NULL) {
        tc_error("%s: %s has no package name", path, TC_PKG_DESC_SYMBOL);
        return TC_ERR_PROTOCOL;
    }
    if (desc->n_elements > UINT16_MAX) {
        tc_error("%s: package '%s' has %u elements, more than %u", path, desc->name,
                 desc->n_elements, UINT16_MAX);
        return TC_ERR_PROTOCOL;
    }
    if ((desc->n_elements > 0) && (desc->elements == NULL)) {
        tc_error("%s: package '%s' has %u elements but no element table", path, desc->name,
                 desc->n_elements);
        return TC_ERR_PROTOCOL;
    }
    for (e = 0; e < desc->n_elements; ++e) {
        elem = &desc->elements[e];
        if (elem->id != e) {
            tc_error("%s: element %u of package '%s' has id %u", path, e, desc->name,
                     elem->id);
            return TC_ERR_PROTOCOL;
        }
        if (elem->name == NULL) {
            tc_error("%s: element %u of package '%s' has no name", path, e, desc->name);
            return TC_ERR_PROTOCOL;
        }
        if ((elem->kind != TC_ELEM_JAM) && (elem->kind != TC_ELEM_RIED)) {
            tc_error("%s: element %u ('%s') of package '%s' has kind %u, neither jam (%u) "
                     "nor ried (%u)", path, e, elem->name, desc->name, elem->kind,
                     TC_ELEM_JAM, TC_ELEM_RIED);
            return TC_ERR_PROTOCOL;
        }
        if ((elem->kind == TC_ELEM_JAM) && ((elem->run == NULL) || (elem->pack == NULL))) {
            tc_error("%s: jam %u ('%s') of package '%s' has no %s routine", path, e,
                     elem->name, desc->name, (elem->run == NULL) ? "run" : "pack");
            return TC_ERR_PROTOCOL;
        }
    }
    return TC_OK;
}

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

/* A library dlopen could not map whole is refused before dlopen: a
 * truncated file would be SIGBUS inside the loader, not an error. what:
 * "package library" or "ried library". */
static tc_status_t tc_pkg_check_elf(const char *what, const char *path, uint32_t *machine_p)
{
    char err[256];
    tc_status_t status;

    status = tc_elf_check_file(path, err, sizeof(err), machine_p);
    if (status != TC_OK) {
        tc_error("%s %s: %s", what, path, err);
    }
    return status;
}

/* The manifest (at mpath) describes this very library: its id, its arch,
 * element by element the descriptor's name and kind, and each jam's hash
 * the one the library was built with (so no element is mapped onto
 * another's blob, nor onto a blob of another build). */
static tc_status_t tc_pkg_check_manifest(const tc_pkg_t *pkg, const char *mpath,
                                         uint32_t machine)
{
    const tc_manifest_t *m    = pkg->manifest;
    const tc_pkg_desc_t *desc = pkg->desc;
    const tc_manifest_elem_t *me;
    const tc_pkg_element_t *de;
    const uint64_t *hashes;
    uint32_t e;

    if ((m->id != desc->id) || (m->n_elements != desc->n_elements)) {
        tc_error("%s (id 0x%08x, %u elements) does not describe %s (id 0x%08x, %u "
                 "elements)", mpath, m->id, m->n_elements, pkg->path, desc->id,
                 desc->n_elements);
        return TC_ERR_PROTOCOL;
    }
    if (m->arch != machine) {
        tc_error("%s: arch %s, but %s is for ELF machine %u", mpath,
                 tc_manifest_arch_name(m->arch), pkg->path, machine);
        return TC_ERR_PROTOCOL;
    }
    for (e = 0; e < desc->n_elements; ++e) {
        me = &m->elements[e];
        de = &desc->elements[e];
        if ((me->kind != de->kind) || (strcmp(me->name, de->name) != 0)) {
            tc_error("%s: element %u is %s '%s', but in %s it is %s '%s'", mpath, e,
                     tc_pkg_kind_name(me->kind), me->name, pkg->path,
                     tc_pkg_kind_name(de->kind), de->name);
            return TC_ERR_PROTOCOL;
        }
    }
    hashes = dlsym(pkg->handle, TC_MANIFEST_HASHES_SYMBOL);
    if (hashes == NULL) {
        tc_error("%s has no %s, so %s cannot be checked against it (built by an older "
                 "tc-pkg?): rebuild the package", pkg->path, TC_MANIFEST_HASHES_SYMBOL,
                 mpath);
        return TC_ERR_PROTOCOL;
    }
    for (e = 0; e < desc->n_elements; ++e) {
        me = &m->elements[e];
        if ((me->kind == TC_ELEM_JAM) && (hashes[e] != me->hash)) {
            tc_error("%s: jam '%s' has hash 0x%016llx, but %s was built with 0x%016llx "
                     "(another element's blob, or another build's)", mpath, me->name,
                     (unsigned long long)me->hash, pkg->path,
                     (unsigned long long)hashes[e]);
            return TC_ERR_PROTOCOL;
        }
    }
    return TC_OK;
}

/* A package built by tc-pkg has a manifest and one blob per jam next to its
 * library: load them, and check they describe this very library. Without a
 * manifest the package serves Local Function only. machine: the library's
 * ELF e_machine. */
static tc_status_t tc_pkg_load_blobs(tc_pkg_t *pkg, uint32_t machine)
{
    char path[PATH_MAX], dir[PATH_MAX], file[PATH_MAX + TC_MANIFEST_FILE_MAX],
        mpath[PATH_MAX + TC_MANIFEST_FILE_MAX], err[256];
    const tc_manifest_elem_t *me;
    tc_status_t status;
    size_t len = 0;
    uint32_t e;

    snprintf(path, sizeof(path), "%s", pkg->path);
    snprintf(dir, sizeof(dir), "%s", dirname(path)); /* dirname writes into path */
    snprintf(mpath, sizeof(mpath), "%s/%s", dir, TC_MANIFEST_FILE);
    if (access(mpath, R_OK) != 0) {
        return TC_OK;
    }
    status = tc_manifest_load(dir, &pkg->manifest);
    if (status != TC_OK) {
        return status;
    }
    status = tc_pkg_check_manifest(pkg, mpath, machine);
    if (status != TC_OK) {
        goto err;
    }
    if (pkg->manifest->arch != TC_BLOB_ARCH_HOST) {
        /* a host tc-pkg builds no blobs for: local mode only */
        return TC_OK;
    }
    pkg->blobs = calloc(pkg->desc->n_elements, sizeof(*pkg->blobs));
    if (pkg->blobs == NULL) {
        status = TC_ERR_NO_MEMORY;
        goto err;
    }
    for (e = 0; e < pkg->desc->n_elements; ++e) {
        me = &pkg->manifest->elements[e];
        snprintf(file, sizeof(file), "%s/%s", dir, me->file);
        if (me->kind != TC_ELEM_JAM) {
            /* shipped to peers, which dlopen it: as whole as the package's */
            status = tc_pkg_check_elf("ried library", file, NULL);
            if (status != TC_OK) {
                goto err;
            }
            continue;
        }
        pkg->blobs[e].file = tc_read_file(file, &len);
        if (pkg->blobs[e].file == NULL) {
            tc_error("cannot read %s: %m", file);
            status = TC_ERR_IO;
            goto err;
        }
        status = tc_blob_parse_err(pkg->blobs[e].file, len, err, sizeof(err),
                                   &pkg->blobs[e].blob);
        if (status != TC_OK) {
            tc_error("%s: not a valid blob: %s", file, err);
            goto err;
        }
        status = tc_manifest_check_blob(pkg->manifest, me, &pkg->blobs[e].blob, err,
                                        sizeof(err));
        if (status != TC_OK) {
            tc_error("%s: %s", file, err);
            goto err;
        }
    }
    return TC_OK;

err:
    tc_pkg_free_blobs(pkg);
    return status;
}

/* The package library path names: path itself, or for a directory the
 * library its manifest names (a directory tc-pkg installed). A bare name
 * gets "./": dlopen would search the library path for it, but the file
 * checked and the manifest next to it are in the current directory. */
static tc_status_t tc_pkg_library_path(const char *path, char **lib_p)
{
    char dir[PATH_MAX], mpath[PATH_MAX + sizeof(TC_MANIFEST_FILE)];
    tc_manifest_t *m;
    tc_status_t status;
    struct stat st;
    size_t len;
    int rc;

    if ((stat(path, &st) != 0) || !S_ISDIR(st.st_mode)) {
        /* not a directory: the library's own checks say what is wrong */
        rc = (strchr(path, '/') == NULL) ? asprintf(lib_p, "./%s", path)
                                         : ((*lib_p = strdup(path)) == NULL) ? -1 : 0;
        return (rc < 0) ? TC_ERR_NO_MEMORY : TC_OK;
    }
    len = strlen(path);
    while ((len > 1) && (path[len - 1] == '/')) {
        --len; /* "dir/" names the files in it as "dir/x" */
    }
    if (len >= sizeof(dir)) {
        tc_error("package directory %s: path too long", path);
        return TC_ERR_OUT_OF_RANGE;
    }
    memcpy(dir, path, len);
    dir[len] = '\0';
    snprintf(mpath, sizeof(mpath), "%s/%s", dir, TC_MANIFEST_FILE);
    if (access(mpath, F_OK) != 0) {
        tc_error("%s is a directory but holds no package: no %s in it (give a directory "
                 "tc-pkg installed a package into, or the package library's .so)", dir,
                 TC_MANIFEST_FILE);
        return TC_ERR_NOT_FOUND;
    }
    status = tc_manifest_load(dir, &m);
    if (status != TC_OK) {
        return status; /* logged, naming the file */
    }
    rc = asprintf(lib_p, "%s/%s", dir, m->library);
    tc_manifest_free(m);
    return (rc < 0) ? TC_ERR_NO_MEMORY : TC_OK;
}

tc_status_t tc_pkg_open(const char *path, tc_pkg_t **pkg_p)
{
    const tc_pkg_desc_t *desc;
    tc_status_t status;
    uint32_t machine;
    tc_pkg_t *pkg;

    pkg = calloc(1, sizeof(*pkg));
    if (pkg == NULL) {
        return TC_ERR_NO_MEMORY;
    }
    status = tc_pkg_library_path(path, &pkg->path);
    if (status != TC_OK) {
        goto err_free_pkg;
    }

    status = tc_pkg_check_elf("package library", pkg->path, &machine);
    if (status != TC_OK) {
        goto err_free_path;
    }
    pkg->handle = dlopen(pkg->path, RTLD_NOW | RTLD_LOCAL);
    if (pkg->handle == NULL) {
        tc_error("cannot load package %s: %s", pkg->path, dlerror());
        status = TC_ERR_NOT_FOUND;
        goto err_free_path;
    }

    desc = dlsym(pkg->handle, TC_PKG_DESC_SYMBOL);
    if (desc == NULL) {
        tc_error("%s is not a twochains package (no %s)", pkg->path, TC_PKG_DESC_SYMBOL);
        status = TC_ERR_NOT_FOUND;
        goto err_close;
    }
    status = tc_pkg_check_desc(pkg->path, desc);
    if (status != TC_OK) {
        goto err_close;
    }
    pkg->desc  = desc;
    pkg->hints = dlsym(pkg->handle, TC_PKG_HINTS_SYMBOL); /* optional */
    status     = tc_pkg_load_blobs(pkg, machine);
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

uint32_t tc_jam_hints(const tc_jam_t *jam)
{
    return tc_pkg_hints(jam->pkg, jam->element);
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

tc_status_t tc_jam_doc(const tc_jam_t *jam, tc_jam_doc_t *doc_p)
{
    const tc_manifest_t *m = jam->pkg->manifest;
    const tc_manifest_elem_t *e;

    if ((m == NULL) || (jam->element >= m->n_elements)) {
        return TC_ERR_NOT_FOUND;
    }
    e = &m->elements[jam->element];
    if (e->doc[TC_MANIFEST_DOC_WHAT] == NULL) {
        return TC_ERR_NOT_FOUND;
    }
    doc_p->what    = e->doc[TC_MANIFEST_DOC_WHAT];
    doc_p->payload = e->doc[TC_MANIFEST_DOC_PAYLOAD];
    doc_p->result  = e->doc[TC_MANIFEST_DOC_RESULT];
    return TC_OK;
}
