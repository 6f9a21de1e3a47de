/* Whole-file checks of a shared library before dlopen (lib/codec/elfcheck.h). */
#define _GNU_SOURCE
#include "elfcheck.h"
#include "log.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__x86_64__)
#define TC_ELF_HOST_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define TC_ELF_HOST_MACHINE EM_AARCH64
#else
#define TC_ELF_HOST_MACHINE EM_NONE /* a host tc-pkg does not build for: not checked */
#endif

#if defined(__BYTE_ORDER__) && (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
#define TC_ELF_HOST_DATA ELFDATA2MSB
#else
#define TC_ELF_HOST_DATA ELFDATA2LSB
#endif

/* every refusal of a library is TC_ERR_PROTOCOL, with its reason */
#define tc_elf_fail(_err, _err_len, ...) \
    tc_status_why((_err), (_err_len), TC_ERR_PROTOCOL, __VA_ARGS__)

static const char *tc_elf_machine_name(unsigned machine)
{
    switch (machine) {
    case EM_X86_64:  return "x86_64";
    case EM_AARCH64: return "aarch64";
    case EM_386:     return "i386";
    case EM_ARM:     return "arm";
    case EM_RISCV:   return "riscv";
    case EM_PPC64:   return "ppc64";
    case EM_S390:    return "s390";
    default:         return "unknown";
    }
}

static const char *tc_elf_type_name(unsigned type)
{
    switch (type) {
    case ET_REL:  return "a relocatable object";
    case ET_EXEC: return "an executable";
    case ET_CORE: return "a core file";
    default:      return "unknown";
    }
}

/* The ELF header and where the program headers are, given the file's
 * size; have is how many of the header's bytes the file holds (a file
 * shorter than a header still gets the magic check). */
static tc_status_t tc_elf_check_ehdr(const Elf64_Ehdr *eh, size_t have, uint64_t size,
                                     char *err, size_t err_len)
{
    uint64_t end;

    if ((have < SELFMAG) || (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)) {
        return tc_elf_fail(err, err_len, "not an ELF file (%s)",
                           (size == 0) ? "empty" : "no \\177ELF magic");
    }
    if (have < sizeof(*eh)) {
        return tc_elf_fail(err, err_len, "truncated: %llu bytes, less than an ELF header",
                           (unsigned long long)size);
    }
    if (eh->e_ident[EI_CLASS] != ELFCLASS64) {
        return tc_elf_fail(err, err_len, "ELF class %u, not 64-bit",
                           (unsigned)eh->e_ident[EI_CLASS]);
    }
    if (eh->e_ident[EI_DATA] != TC_ELF_HOST_DATA) {
        return tc_elf_fail(err, err_len, "ELF byte order %u, not this host's",
                           (unsigned)eh->e_ident[EI_DATA]);
    }
    if ((eh->e_ident[EI_VERSION] != EV_CURRENT) || (eh->e_version != EV_CURRENT)) {
        return tc_elf_fail(err, err_len, "ELF version %u", (unsigned)eh->e_version);
    }
    if (eh->e_type != ET_DYN) {
        return tc_elf_fail(err, err_len, "ELF type %u (%s), not a shared object (ET_DYN)",
                           (unsigned)eh->e_type, tc_elf_type_name(eh->e_type));
    }
    if ((TC_ELF_HOST_MACHINE != EM_NONE) && (eh->e_machine != TC_ELF_HOST_MACHINE)) {
        return tc_elf_fail(err, err_len, "ELF machine %u (%s), this host is %s",
                           (unsigned)eh->e_machine, tc_elf_machine_name(eh->e_machine),
                           tc_elf_machine_name(TC_ELF_HOST_MACHINE));
    }

    if ((eh->e_phnum == 0) || (eh->e_phnum == PN_XNUM)) {
        return tc_elf_fail(err, err_len, "%s program headers",
                           (eh->e_phnum == 0) ? "no" : "too many (PN_XNUM)");
    }
    if (eh->e_phentsize != sizeof(Elf64_Phdr)) {
        return tc_elf_fail(err, err_len, "program header entries of %u bytes, expected %zu",
                           (unsigned)eh->e_phentsize, sizeof(Elf64_Phdr));
    }
    end = (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr);
    if ((eh->e_phoff > size) || (end > size - eh->e_phoff)) {
        return tc_elf_fail(err, err_len,
                           "truncated: the program header table ends at byte %llu, the "
                           "file has %llu", (unsigned long long)eh->e_phoff + end,
                           (unsigned long long)size);
    }

    return TC_OK;
}

/* Every segment's file bytes lie inside the file; at least one PT_LOAD. */
static tc_status_t tc_elf_check_phdrs(const Elf64_Phdr *ph, unsigned n, uint64_t size,
                                      char *err, size_t err_len)
{
    unsigned i, loads = 0;
    char type[32];

    for (i = 0; i < n; ++i) {
        if (ph[i].p_type == PT_LOAD) {
            snprintf(type, sizeof(type), "PT_LOAD");
            loads++;
        } else {
            snprintf(type, sizeof(type), "type 0x%x", (unsigned)ph[i].p_type);
        }
        if ((ph[i].p_offset > size) || (ph[i].p_filesz > size - ph[i].p_offset)) {
            return tc_elf_fail(err, err_len,
                               "truncated: segment %u (%s) ends at byte %llu, the file "
                               "has %llu", i, type,
                               (unsigned long long)(ph[i].p_offset + ph[i].p_filesz),
                               (unsigned long long)size);
        }
        if ((ph[i].p_type == PT_LOAD) && (ph[i].p_filesz > ph[i].p_memsz)) {
            return tc_elf_fail(err, err_len,
                               "segment %u (PT_LOAD) has %llu bytes in the file but %llu "
                               "in memory", i, (unsigned long long)ph[i].p_filesz,
                               (unsigned long long)ph[i].p_memsz);
        }
    }
    if (loads == 0) {
        return tc_elf_fail(err, err_len, "no PT_LOAD segment");
    }
    return TC_OK;
}

/* The section header table inside the file. None (e_shoff 0) is valid
 * for a loader; extended numbering (e_shnum 0 with e_shoff set) keeps the
 * count in entry 0. */
static tc_status_t tc_elf_check_shdrs(const Elf64_Ehdr *eh, uint64_t size, char *err,
                                      size_t err_len)
{
    uint64_t end, n;

    if (eh->e_shoff == 0) {
        return TC_OK;
    }
    if (eh->e_shentsize != sizeof(Elf64_Shdr)) {
        return tc_elf_fail(err, err_len, "section header entries of %u bytes, expected %zu",
                           (unsigned)eh->e_shentsize, sizeof(Elf64_Shdr));
    }
    n   = (eh->e_shnum == 0) ? 1 : eh->e_shnum;
    end = n * sizeof(Elf64_Shdr);
    if ((eh->e_shoff > size) || (end > size - eh->e_shoff)) {
        return tc_elf_fail(err, err_len,
                           "truncated: the section header table ends at byte %llu, the "
                           "file has %llu", (unsigned long long)eh->e_shoff + end,
                           (unsigned long long)size);
    }
    return TC_OK;
}

tc_status_t tc_elf_check_mem(const void *buf, size_t len, char *err, size_t err_len,
                             uint32_t *machine_p)
{
    Elf64_Phdr *ph;
    Elf64_Ehdr eh;
    tc_status_t status;

    if ((err != NULL) && (err_len > 0)) {
        err[0] = '\0';
    }
    if ((buf == NULL) && (len > 0)) {
        return TC_ERR_INVALID_PARAM;
    }
    /* Copies: buf need not be aligned for the headers' fields. */
    memset(&eh, 0, sizeof(eh));
    memcpy(&eh, buf, (len < sizeof(eh)) ? len : sizeof(eh));
    status = tc_elf_check_ehdr(&eh, (len < sizeof(eh)) ? len : sizeof(eh), len, err,
                               err_len);
    if (status != TC_OK) {
        return status;
    }
    ph = malloc((size_t)eh.e_phnum * sizeof(*ph));
    if (ph == NULL) {
        return TC_ERR_NO_MEMORY;
    }
    memcpy(ph, (const uint8_t *)buf + eh.e_phoff, (size_t)eh.e_phnum * sizeof(*ph));
    status = tc_elf_check_phdrs(ph, eh.e_phnum, len, err, err_len);
    free(ph);
    if (status == TC_OK) {
        status = tc_elf_check_shdrs(&eh, len, err, err_len);
    }
    if ((status == TC_OK) && (machine_p != NULL)) {
        *machine_p = eh.e_machine;
    }
    return status;
}

/* count bytes at off, all of them, or -1 (errno 0: the file ended early,
 * i.e. it changed since fstat). */
static int tc_elf_pread_all(int fd, void *buf, size_t count, uint64_t off)
{
    size_t done = 0;
    ssize_t n;

    while (done < count) {
        n = pread(fd, (uint8_t *)buf + done, count - done, (off_t)(off + done));
        if ((n < 0) && (errno == EINTR)) {
            continue;
        }
        if (n <= 0) {
            if (n == 0) {
                errno = 0;
            }
            return -1;
        }
        done += (size_t)n;
    }
    return 0;
}

tc_status_t tc_elf_check_file(const char *path, char *err, size_t err_len,
                              uint32_t *machine_p)
{
    Elf64_Phdr *ph = NULL;
    tc_status_t status;
    struct stat st;
    Elf64_Ehdr eh;
    size_t have;
    int fd;

    if ((err != NULL) && (err_len > 0)) {
        err[0] = '\0';
    }
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        status = (errno == ENOENT) ? TC_ERR_NOT_FOUND : TC_ERR_IO;
        tc_elf_fail(err, err_len, "cannot open: %s", strerror(errno));
        return status;
    }
    if (fstat(fd, &st) != 0) {
        tc_elf_fail(err, err_len, "cannot stat: %s", strerror(errno));
        status = TC_ERR_IO;
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        tc_elf_fail(err, err_len, "not a regular file");
        status = TC_ERR_IO;
        goto out;
    }

    memset(&eh, 0, sizeof(eh));
    have = ((uint64_t)st.st_size < sizeof(eh)) ? (size_t)st.st_size : sizeof(eh);
    if (tc_elf_pread_all(fd, &eh, have, 0) != 0) {
        tc_elf_fail(err, err_len, "cannot read the ELF header: %s",
                    (errno != 0) ? strerror(errno) : "the file shrank");
        status = TC_ERR_IO;
        goto out;
    }
    status = tc_elf_check_ehdr(&eh, have, (uint64_t)st.st_size, err, err_len);
    if (status != TC_OK) {
        goto out;
    }
    ph = malloc((size_t)eh.e_phnum * sizeof(*ph));
    if (ph == NULL) {
        status = TC_ERR_NO_MEMORY;
        goto out;
    }
    if (tc_elf_pread_all(fd, ph, (size_t)eh.e_phnum * sizeof(*ph), eh.e_phoff) != 0) {
        tc_elf_fail(err, err_len, "cannot read the program headers: %s",
                    (errno != 0) ? strerror(errno) : "the file shrank");
        status = TC_ERR_IO;
        goto out;
    }
    status = tc_elf_check_phdrs(ph, eh.e_phnum, (uint64_t)st.st_size, err, err_len);
    if (status == TC_OK) {
        status = tc_elf_check_shdrs(&eh, (uint64_t)st.st_size, err, err_len);
    }
    if ((status == TC_OK) && (machine_p != NULL)) {
        *machine_p = eh.e_machine;
    }
out:
    free(ph);
    close(fd);
    return status;
}
