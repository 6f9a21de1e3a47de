/*
 * tc-pkg: symbol sets read from ELF files (libelf): what a shared library
 * offers to dlsym, what an archive's members define, what an object leaves
 * undefined, and one section's bytes. The build checks a jam's GOT slot
 * names against them, finds the libgcc helpers a jam calls, and reads a
 * jam's TC_JAM_DESCRIBE.
 */
#include "tc_pkg.h"

#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int tc_pkg_str_ptr_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void tc_pkg_strv_sort(tc_pkg_strv_t *sv)
{
    size_t i, kept = 0;

    if (sv->len == 0) {
        return;
    }
    qsort(sv->v, sv->len, sizeof(*sv->v), tc_pkg_str_ptr_cmp);
    for (i = 0; i < sv->len; ++i) {
        if ((kept > 0) && (strcmp(sv->v[kept - 1], sv->v[i]) == 0)) {
            free(sv->v[i]);
            continue;
        }
        sv->v[kept++] = sv->v[i];
    }
    sv->len      = kept;
    sv->v[kept]  = NULL;
}

int tc_pkg_strv_has(const tc_pkg_strv_t *sv, const char *s)
{
    return (sv->len > 0) &&
           (bsearch(&s, sv->v, sv->len, sizeof(*sv->v), tc_pkg_str_ptr_cmp) != NULL);
}

/* libelf handle on path (ELF or archive). */
static tc_status_t tc_pkg_elf_open(const char *path, int *fd_p, Elf **elf_p)
{
    Elf *elf;
    int fd;

    if (elf_version(EV_CURRENT) == EV_NONE) {
        tc_pkg_err("libelf: %s", elf_errmsg(-1));
        return TC_ERR_UNSUPPORTED;
    }
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        tc_pkg_err("cannot open %s", path);
        return TC_ERR_IO;
    }
    elf = elf_begin(fd, ELF_C_READ, NULL);
    if (elf == NULL) {
        tc_pkg_err("%s: %s", path, elf_errmsg(-1));
        close(fd);
        return TC_ERR_PROTOCOL;
    }
    *fd_p  = fd;
    *elf_p = elf;
    return TC_OK;
}

static void tc_pkg_elf_close(int fd, Elf *elf)
{
    elf_end(elf);
    close(fd);
}

/* The section of type type (the first), or NULL. */
static Elf_Scn *tc_pkg_find_scn(Elf *elf, uint32_t type, GElf_Shdr *shdr_p)
{
    Elf_Scn *scn = NULL;

    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        if ((gelf_getshdr(scn, shdr_p) != NULL) && (shdr_p->sh_type == type)) {
            return scn;
        }
    }
    return NULL;
}

tc_status_t tc_pkg_so_symbols(const char *path, tc_pkg_strv_t *defined, tc_pkg_strv_t *needed)
{
    Elf_Data *data, *versym = NULL;
    tc_status_t status = TC_OK;
    GElf_Shdr shdr, vshdr;
    GElf_Versym ver;
    const char *name;
    Elf_Scn *scn;
    GElf_Sym sym;
    GElf_Dyn dyn;
    size_t i, n;
    Elf *elf;
    int fd;

    status = tc_pkg_elf_open(path, &fd, &elf);
    if (status != TC_OK) {
        return status;
    }
    if (elf_kind(elf) != ELF_K_ELF) {
        tc_pkg_err("%s is not an ELF shared object", path);
        status = TC_ERR_PROTOCOL;
        goto out;
    }
    scn = tc_pkg_find_scn(elf, SHT_GNU_versym, &vshdr);
    if (scn != NULL) {
        versym = elf_getdata(scn, NULL);
    }
    scn = tc_pkg_find_scn(elf, SHT_DYNSYM, &shdr);
    data = (scn != NULL) ? elf_getdata(scn, NULL) : NULL;
    n    = ((data == NULL) || (shdr.sh_entsize == 0)) ? 0 : shdr.sh_size / shdr.sh_entsize;
    for (i = 1; (status == TC_OK) && (i < n); ++i) {
        if ((gelf_getsym(data, (int)i, &sym) == NULL) || (sym.st_shndx == SHN_UNDEF) ||
            (GELF_ST_BIND(sym.st_info) == STB_LOCAL) ||
            ((GELF_ST_VISIBILITY(sym.st_other) != STV_DEFAULT) &&
             (GELF_ST_VISIBILITY(sym.st_other) != STV_PROTECTED))) {
            continue;
        }
        /* a hidden version (only an old one) is not what dlsym finds */
        if ((versym != NULL) && (gelf_getversym(versym, (int)i, &ver) != NULL) &&
            (ver & 0x8000)) {
            continue;
        }
        name = elf_strptr(elf, shdr.sh_link, sym.st_name);
        if ((name != NULL) && (name[0] != '\0')) {
            status = tc_pkg_strv_add(defined, name);
        }
    }
    scn = (needed != NULL) ? tc_pkg_find_scn(elf, SHT_DYNAMIC, &shdr) : NULL;
    data = (scn != NULL) ? elf_getdata(scn, NULL) : NULL;
    n    = ((data == NULL) || (shdr.sh_entsize == 0)) ? 0 : shdr.sh_size / shdr.sh_entsize;
    for (i = 0; (status == TC_OK) && (i < n); ++i) {
        if ((gelf_getdyn(data, (int)i, &dyn) == NULL) || (dyn.d_tag != DT_NEEDED)) {
            continue;
        }
        name = elf_strptr(elf, shdr.sh_link, dyn.d_un.d_val);
        if (name != NULL) {
            status = tc_pkg_strv_add(needed, name);
        }
    }
out:
    tc_pkg_elf_close(fd, elf);
    return status;
}

tc_status_t tc_pkg_ar_symbols(const char *path, tc_pkg_strv_t *names)
{
    tc_status_t status;
    Elf_Arsym *arsym;
    size_t n, i;
    Elf *elf;
    int fd;

    status = tc_pkg_elf_open(path, &fd, &elf);
    if (status != TC_OK) {
        return status;
    }
    arsym = (elf_kind(elf) == ELF_K_AR) ? elf_getarsym(elf, &n) : NULL;
    if (arsym == NULL) {
        tc_pkg_err("%s is not an archive with a symbol index", path);
        status = TC_ERR_PROTOCOL;
    }
    for (i = 0; (status == TC_OK) && (arsym != NULL) && (i < n); ++i) {
        if (arsym[i].as_name != NULL) {
            status = tc_pkg_strv_add(names, arsym[i].as_name);
        }
    }
    tc_pkg_elf_close(fd, elf);
    return status;
}

tc_status_t tc_pkg_obj_undefined(const char *path, tc_pkg_strv_t *names)
{
    tc_status_t status = TC_OK;
    const char *name;
    GElf_Shdr shdr;
    Elf_Data *data;
    Elf_Scn *scn;
    GElf_Sym sym;
    size_t i, n;
    Elf *elf;
    int fd;

    status = tc_pkg_elf_open(path, &fd, &elf);
    if (status != TC_OK) {
        return status;
    }
    scn  = (elf_kind(elf) == ELF_K_ELF) ? tc_pkg_find_scn(elf, SHT_SYMTAB, &shdr) : NULL;
    data = (scn != NULL) ? elf_getdata(scn, NULL) : NULL;
    n    = ((data == NULL) || (shdr.sh_entsize == 0)) ? 0 : shdr.sh_size / shdr.sh_entsize;
    for (i = 1; (status == TC_OK) && (i < n); ++i) {
        if ((gelf_getsym(data, (int)i, &sym) == NULL) || (sym.st_shndx != SHN_UNDEF) ||
            (GELF_ST_BIND(sym.st_info) == STB_LOCAL)) {
            continue;
        }
        name = elf_strptr(elf, shdr.sh_link, sym.st_name);
        if ((name != NULL) && (name[0] != '\0')) {
            status = tc_pkg_strv_add(names, name);
        }
    }
    tc_pkg_elf_close(fd, elf);
    return status;
}

tc_status_t tc_pkg_obj_section(const char *path, const char *name, void **buf_p, size_t *len_p)
{
    tc_status_t status = TC_OK;
    const char *sname;
    GElf_Shdr shdr;
    Elf_Data *data;
    Elf_Scn *scn = NULL;
    size_t shstrndx, found = 0;
    Elf *elf;
    int fd;

    *buf_p = NULL;
    *len_p = 0;
    status = tc_pkg_elf_open(path, &fd, &elf);
    if (status != TC_OK) {
        return status;
    }
    if ((elf_kind(elf) != ELF_K_ELF) || (elf_getshdrstrndx(elf, &shstrndx) != 0)) {
        tc_pkg_err("%s is not an ELF object", path);
        status = TC_ERR_PROTOCOL;
        goto out;
    }
    while ((status == TC_OK) && ((scn = elf_nextscn(elf, scn)) != NULL)) {
        if ((gelf_getshdr(scn, &shdr) == NULL) ||
            ((sname = elf_strptr(elf, shstrndx, shdr.sh_name)) == NULL) ||
            (strcmp(sname, name) != 0)) {
            continue;
        }
        if ((++found > 1) || (shdr.sh_type != SHT_PROGBITS)) {
            tc_pkg_err("%s: %s section %s", path, (found > 1) ? "more than one" : "a non-data",
                       name);
            status = TC_ERR_PROTOCOL;
            break;
        }
        data = elf_getdata(scn, NULL);
        if ((data == NULL) || (data->d_size != shdr.sh_size) ||
            ((shdr.sh_size > 0) && (data->d_buf == NULL))) {
            tc_pkg_err("%s: cannot read section %s", path, name);
            status = TC_ERR_PROTOCOL;
            break;
        }
        *buf_p = malloc(shdr.sh_size + 1);
        if (*buf_p == NULL) {
            tc_pkg_err("out of memory");
            status = TC_ERR_NO_MEMORY;
            break;
        }
        memcpy(*buf_p, data->d_buf, shdr.sh_size);
        *len_p = shdr.sh_size;
    }
    if ((status == TC_OK) && (found == 0)) {
        status = TC_ERR_NOT_FOUND;
    }
    if (status != TC_OK) {
        free(*buf_p);
        *buf_p = NULL;
        *len_p = 0;
    }
out:
    tc_pkg_elf_close(fd, elf);
    return status;
}
