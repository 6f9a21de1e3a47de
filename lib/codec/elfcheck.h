/*
 * Is a file a whole ELF shared object for this host? (pure: no UCX, no
 * libelf). dlopen maps a library's segments straight from the file; a
 * segment that runs past the end of a truncated file is only noticed when
 * the loader touches it, as SIGBUS inside dlopen. Checking the headers
 * first turns that into an error naming the file.
 *
 * Checked: the ELF magic, class 64, this host's byte order and machine,
 * version, e_type ET_DYN, the program header table inside the file with at
 * least one PT_LOAD, every segment's p_offset + p_filesz inside the file,
 * and the section header table inside the file. A file that changes after
 * the check is not this module's concern.
 */
#ifndef TC_ELFCHECK_H
#define TC_ELFCHECK_H

#include "twochains.h"

#include <stddef.h>
#include <stdint.h>

/* len bytes of a library in memory. On failure err (err_len bytes) says
 * what is wrong, without the file's name, and the status is
 * TC_ERR_PROTOCOL. machine_p (may be NULL): the ELF e_machine. */
tc_status_t tc_elf_check_mem(const void *buf, size_t len, char *err, size_t err_len,
                             uint32_t *machine_p);
/* The same for the file at path, reading only its headers. Also
 * TC_ERR_NOT_FOUND (no such file) and TC_ERR_IO (unreadable, not a regular
 * file). */
tc_status_t tc_elf_check_file(const char *path, char *err, size_t err_len,
                              uint32_t *machine_p);

#endif
