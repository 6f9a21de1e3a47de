/*
 * Package manifests (pure: no UCX). tc-pkg writes INSTALL_DIR/manifest.tcm
 * next to the package's libraries and jam blobs; the runtime reads it to
 * learn which blob and which ried library belong to which element.
 *
 * Line-based text, one record a line, fields separated by spaces or tabs;
 * blank lines and lines starting with '#' are ignored:
 *
 *   twochains-package 1
 *   name <pkg>
 *   id 0x<8 hex>
 *   arch x86_64|aarch64
 *   library libtc_<pkg>.so
 *   element <id> jam <name> blob <file> hash 0x<16 hex> code <n> got <n> entry <n> writable <n>
 *   element <id> ried <name> lib <file>
 *   describe <id> what|payload|result <text>
 *
 * The header line comes first; name, id, arch and library once each, before
 * the elements; element ids count up from 0 in file order. Numbers are
 * decimal without sign or leading zeros. Names are C identifiers; file names
 * are plain names in the install directory (no '/', no leading '.').
 *
 * writable is the bytes of the jam's image in writable sections (.data*,
 * .bss*, anything SHF_WRITE but .data.rel.ro*, whose words only the
 * receiver's base fixups write): 0 for a jam that never writes its own
 * image, which is what a W^X receiver can run. Version 1 had no writable
 * field and no way to tell, so it is not read (rebuild the package).
 *
 * describe (version 3; version 2 manifests, without it, still load): what
 * the jam's source says with TC_JAM_DESCRIBE (jams/tc_jam.h), after the
 * jam's element line, all three keys or none, each once. Its fields are
 * separated by one space, and the text is the rest of the line: printable
 * ASCII (space to '~'), 1 to TC_JAM_DOC_MAX - 1 bytes, no space first or
 * last (tc_manifest_doc_check). It is data, shown to people and never
 * interpreted; nothing binds it to the library.
 *
 * A Local Function library built with a manifest also exports
 * TC_MANIFEST_HASHES_SYMBOL, const uint64_t[n_elements]: each jam's blob
 * content_hash (0 for rieds). It binds the manifest to the library it was
 * built with: tc_pkg_open refuses a manifest whose hashes differ.
 */
#ifndef TC_MANIFEST_H
#define TC_MANIFEST_H

#include "twochains.h"
#include "blob.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TC_MANIFEST_FILE     "manifest.tcm"
#define TC_MANIFEST_VERSION  3  /* 2: jams have writable; 3: describe lines */
#define TC_MANIFEST_VERSION_MIN 2 /* the oldest read */
#define TC_MANIFEST_NAME_MAX 64   /* names, NUL included */
#define TC_MANIFEST_FILE_MAX 128  /* file names, NUL included */
#define TC_MANIFEST_MAX_ELEM 65536
#define TC_MANIFEST_HASHES_SYMBOL "tc_package_blob_hashes"

/* The texts of a describe line, in tc_jam_doc_t's order. */
typedef enum {
    TC_MANIFEST_DOC_WHAT,
    TC_MANIFEST_DOC_PAYLOAD,
    TC_MANIFEST_DOC_RESULT,
    TC_MANIFEST_DOC_N
} tc_manifest_doc_t;

typedef struct tc_manifest_elem {
    uint16_t id;
    uint16_t kind;                        /* tc_elem_kind_t */
    char     name[TC_MANIFEST_NAME_MAX];
    char     file[TC_MANIFEST_FILE_MAX];  /* jam: its blob; ried: its library */
    uint64_t hash;                        /* jams: the blob's content_hash */
    uint32_t code_bytes;                  /* jams: image bytes, GOT slots included */
    uint32_t got_slots;                   /* jams */
    uint32_t entry_offset;                /* jams: image offset of the run entry */
    uint32_t writable_bytes;              /* jams: bytes in writable sections; 0: none */
    char    *doc[TC_MANIFEST_DOC_N];      /* jams: the describe texts (the manifest's,
                                           * freed with it); all NULL: not described */
} tc_manifest_elem_t;

typedef struct tc_manifest {
    char                name[TC_MANIFEST_NAME_MAX];
    uint32_t            id;               /* the package id (tc_pkg_desc_t.id) */
    uint32_t            arch;             /* TC_BLOB_ARCH_* (ELF e_machine) */
    char                library[TC_MANIFEST_FILE_MAX];
    uint32_t            n_elements;
    tc_manifest_elem_t *elements;         /* elements[i].id == i */
} tc_manifest_t;

/* Parse len bytes of manifest text. On failure logs one line naming the line
 * number and returns TC_ERR_PROTOCOL (malformed), TC_ERR_VERSION_MISMATCH
 * (another manifest version) or TC_ERR_NO_MEMORY. */
tc_status_t tc_manifest_parse(const char *text, size_t len, tc_manifest_t **m_p);
/* The same, but the reason goes to err (err_len bytes) instead of stderr. */
tc_status_t tc_manifest_parse_err(const char *text, size_t len, char *err,
                                  size_t err_len, tc_manifest_t **m_p);
/* Read and parse dir/manifest.tcm; errors name the file. */
tc_status_t tc_manifest_load(const char *dir, tc_manifest_t **m_p);
void        tc_manifest_free(tc_manifest_t *m);

/* Write m in the format above (what tc_manifest_parse reads back). */
tc_status_t tc_manifest_write(const tc_manifest_t *m, FILE *f);

/* A jam's parsed blob against its manifest element e of m: arch, content
 * hash, code bytes, GOT slots, entry offset, and a non-zero writable for a
 * blob with .bss. The first difference goes to err (err_len bytes, one line
 * without the file's name: "entry offset 17, the manifest's jam 'noop' has
 * 16") and TC_ERR_PROTOCOL is returned. What tc_pkg_open and tc-pkg inspect
 * both check. */
tc_status_t tc_manifest_check_blob(const tc_manifest_t *m, const tc_manifest_elem_t *e,
                                   const tc_blob_t *blob, char *err, size_t err_len);

/* A describe text's rules (above), len bytes of it: TC_OK, or
 * TC_ERR_PROTOCOL with what is wrong in err ("byte 0x09 at 12 is not
 * printable ASCII ..."). What tc-pkg checks a jam's TC_JAM_DESCRIBE by and
 * the parser checks the manifest's lines by. */
tc_status_t tc_manifest_doc_check(const char *text, size_t len, char *err, size_t err_len);
/* "what", "payload", "result" */
const char *tc_manifest_doc_key(tc_manifest_doc_t doc);

/* The element called name, or NULL. */
const tc_manifest_elem_t *tc_manifest_find(const tc_manifest_t *m, const char *name);
/* "x86_64", "aarch64", or NULL for an unknown arch; and back (0: unknown). */
const char *tc_manifest_arch_name(uint32_t arch);
uint32_t    tc_manifest_arch_parse(const char *name);

#endif
