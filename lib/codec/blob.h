/*
 * Injectable jam blobs: the file format tc-pkg writes and the runtime reads
 * (pure: no UCX). A blob is one position-independent image
 *
 *   image:  [GOT slots: got_count x 8 B][pad to 16][.text][.rodata][.data][.bss]
 *
 * with every relocation resolved at build time, except
 *   - GOT slots: filled per receiver with the addresses of the slot names
 *     (namespace sync), and carried in front of the code as GOTP;
 *   - base fixups: 64-bit data words (R_X86_64_64 / R_AARCH64_ABS64) that must
 *     hold image base + addend once the image sits where it runs. They are in
 *     data sections only; no instruction is rewritten at run time.
 *
 * The image's internal offsets keep every section's alignment relative to
 * image offset 0, and an image is placed at a 64-byte aligned address (at
 * most 64-byte section alignment is accepted by tc-pkg).
 *
 * File layout, all integers little-endian:
 *
 *   tc_blob_file_hdr_t
 *   names:   got_count NUL-terminated symbol names, in slot order
 *   fixups:  fixup_count x tc_blob_fixup_t
 *   image:   image_size bytes (GOT slots zero, .bss zero)
 *
 * content_hash = FNV-1a 64 over the image bytes, then the names (with their
 * NULs), then the fixups: two blobs with the same hash behave the same.
 */
#ifndef TC_BLOB_H
#define TC_BLOB_H

#include "twochains.h"

#include <stddef.h>
#include <stdint.h>

#define TC_BLOB_MAGIC        "TCBLOB1" /* + NUL: 8 bytes */
/* 2: the image holds only what the run entry reaches (no pack routine,
 * which the sender calls from the Local Function library) */
#define TC_BLOB_VERSION      2
#define TC_BLOB_ARCH_X86_64  62        /* the ELF e_machine values */
#define TC_BLOB_ARCH_AARCH64 183
#if defined(__x86_64__)
#define TC_BLOB_ARCH_HOST    TC_BLOB_ARCH_X86_64
#elif defined(__aarch64__)
#define TC_BLOB_ARCH_HOST    TC_BLOB_ARCH_AARCH64
#else
#define TC_BLOB_ARCH_HOST    0         /* a host tc-pkg builds no blobs for */
#endif
#define TC_BLOB_IMAGE_ALIGN  64
#define TC_BLOB_MAX_IMAGE    65535     /* a frame's code_len is 16 bits */
#define TC_BLOB_MAX_SLOTS    4096
#define TC_BLOB_NAME_MAX     255

typedef struct __attribute__((packed)) tc_blob_file_hdr {
    char     magic[8];
    uint32_t version;       /* TC_BLOB_VERSION */
    uint32_t arch;          /* TC_BLOB_ARCH_* */
    uint32_t image_size;    /* GOT slots included */
    uint32_t code_offset;   /* = align16(8 * got_count): where .text starts */
    uint32_t entry_offset;  /* image offset of the jam's run entry */
    uint32_t reserved;      /* 0 */
    uint32_t got_count;
    uint32_t fixup_count;
    uint32_t names_size;    /* bytes of the names block */
    uint32_t bss_size;      /* the image's last bss_size bytes are .bss */
    uint64_t content_hash;
} tc_blob_file_hdr_t;

typedef struct __attribute__((packed)) tc_blob_fixup {
    uint32_t offset;        /* image offset of a 64-bit word, 8-byte aligned, in data */
    uint32_t reserved;
    int64_t  addend;        /* the word becomes image base + addend */
} tc_blob_fixup_t;

/* A parsed blob: views into one buffer the caller owns. */
typedef struct tc_blob {
    const tc_blob_file_hdr_t *hdr;
    const char               *names;   /* got_count NUL-terminated strings */
    const tc_blob_fixup_t    *fixups;
    const uint8_t            *image;
} tc_blob_t;

uint64_t    tc_blob_hash(const uint8_t *image, uint32_t image_size, const char *names,
                         uint32_t names_size, const tc_blob_fixup_t *fixups,
                         uint32_t fixup_count);
/* Check a blob file's bytes (bounds, counts, names, fixups inside data,
 * entry inside .text, hash) and make views into them. Refused:
 * TC_ERR_PROTOCOL (no blob magic), TC_ERR_VERSION_MISMATCH,
 * TC_ERR_UNSUPPORTED (arch) or TC_ERR_BAD_FRAME (everything else). */
tc_status_t tc_blob_parse(const void *buf, size_t len, tc_blob_t *blob_p);
/* The same, with the field or check that failed in err (err_len bytes, one
 * line without the file's name: "fixup 3: the word at offset 4096 points
 * past the image's data, which ends at 1024"); "" on success. */
tc_status_t tc_blob_parse_err(const void *buf, size_t len, char *err, size_t err_len,
                              tc_blob_t *blob_p);
/* The i-th slot name (i < got_count). */
const char *tc_blob_slot_name(const tc_blob_t *blob, uint32_t i);

#endif
