/*
 * tc-pkg: the package toolchain (build, inspect). Internal to tools/.
 *
 * Every function that fails prints one line saying why (the function that
 * decides it is an error prints it) and returns a tc_status_t.
 */
#ifndef TC_PKG_TOOL_H
#define TC_PKG_TOOL_H

#include "twochains.h"
#include "blob.h"
#include "manifest.h"
#include "log.h"

#include <stddef.h>
#include <stdint.h>

#define tc_pkg_err(_fmt, ...) fprintf(stderr, "tc-pkg: " _fmt "\n", ##__VA_ARGS__)

#define TC_PKG_PATH_MAX 4096

/* ------------------------------------------------------------------- util */

/* A growable array of strings (argv lists, file lists). */
typedef struct tc_pkg_strv {
    char   **v;       /* NULL-terminated while len < cap */
    size_t   len, cap;
} tc_pkg_strv_t;

tc_status_t tc_pkg_strv_add(tc_pkg_strv_t *sv, const char *s);
/* Adds every whitespace-separated word of s. */
tc_status_t tc_pkg_strv_add_words(tc_pkg_strv_t *sv, const char *s);
tc_status_t tc_pkg_strv_addf(tc_pkg_strv_t *sv, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void        tc_pkg_strv_free(tc_pkg_strv_t *sv);

/* FNV-1a 64, chainable: start with TC_PKG_FNV_BASIS. */
#define TC_PKG_FNV_BASIS UINT64_C(0xcbf29ce484222325)
uint64_t    tc_pkg_fnv(uint64_t h, const void *buf, size_t len);

tc_status_t tc_pkg_read_file(const char *path, void **buf_p, size_t *len_p);
/* Writes path.tmp and renames it over path: readers never see half a file. */
tc_status_t tc_pkg_write_file(const char *path, const void *buf, size_t len,
                              int executable);
tc_status_t tc_pkg_copy_file(const char *src, const char *dst, int executable);
tc_status_t tc_pkg_mkdirs(const char *path);
/* Runs argv (no shell) and waits; a non-zero exit prints the command. */
tc_status_t tc_pkg_run(char *const argv[]);
/* The same, with what the command writes to stdout returned in *out_p
 * (malloc'd, NUL-terminated). */
tc_status_t tc_pkg_run_capture(char *const argv[], char **out_p);
/* The directory the tc-pkg binary is in. */
tc_status_t tc_pkg_exe_dir(char *buf, size_t len);
/* The libtwochains.so next to this tc-pkg (build tree or install): what jams
 * and packages may call besides libc and libm. */
tc_status_t tc_pkg_lib_path(char *buf, size_t len);
/* Is cmd (a path, or a name looked up in PATH) an executable? */
int         tc_pkg_have_program(const char *cmd);

/* ---------------------------------------------------------- symbol sets */

/* Sorts sv and drops duplicates; then tc_pkg_strv_has is a binary search. */
void        tc_pkg_strv_sort(tc_pkg_strv_t *sv);
int         tc_pkg_strv_has(const tc_pkg_strv_t *sv, const char *s);
/* What a shared library offers to dlsym (defined dynamic symbols of default
 * or protected visibility, not of a hidden version) into defined, and its
 * DT_NEEDED names into needed (when not NULL). */
tc_status_t tc_pkg_so_symbols(const char *path, tc_pkg_strv_t *defined,
                              tc_pkg_strv_t *needed);
/* The symbols the members of an archive define (its index). */
tc_status_t tc_pkg_ar_symbols(const char *path, tc_pkg_strv_t *names);
/* The global symbols a relocatable object references and does not define. */
tc_status_t tc_pkg_obj_undefined(const char *path, tc_pkg_strv_t *names);
/* The bytes of an object's one section called name (malloc'd): TC_ERR_NOT_FOUND
 * (said nothing) where it has none; more than one, or one without data, is
 * refused. */
tc_status_t tc_pkg_obj_section(const char *path, const char *name, void **buf_p,
                               size_t *len_p);

/* ------------------------------------------------------------------- blob */

/* Lay out the jam's relocatable object (obj_path, ELF for arch) as an
 * injectable image and return the blob file's bytes (malloc'd) and the
 * image's bytes in writable sections (the manifest's writable). Errors name
 * the jam, the section, the symbol, the relocation and the fix. */
tc_status_t tc_pkg_blob_build(const char *jam, const char *obj_path, uint32_t arch,
                              void **file_p, size_t *len_p, uint32_t *writable_p);

/* ---------------------------------------------------------------- commands */

typedef struct tc_pkg_build_opts {
    const char   *src_dir;
    const char   *name;
    const char   *out_dir;
    uint32_t      arch;        /* TC_BLOB_ARCH_* */
    const char   *cc;          /* words; NULL: the arch's default */
    const char   *cflags;      /* extra flags for every compile */
    const char   *lib_cflags;  /* extra flags for the shared libraries only */
    const char   *ldflags;     /* extra flags for the shared library links */
    tc_pkg_strv_t includes;    /* header directories (-I) */
    int           keep_tmp;    /* keep the object files, print where */
} tc_pkg_build_opts_t;

tc_status_t tc_pkg_build(const tc_pkg_build_opts_t *opts);
tc_status_t tc_pkg_inspect(const char *dir, FILE *out);

#endif
