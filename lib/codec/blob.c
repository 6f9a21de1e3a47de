/* Injectable jam blobs: hash, parser and accessors (lib/codec/blob.h). Pure: no UCX,
 * no allocation; a parsed blob is a set of views into the caller's buffer. */
#include "blob.h"
#include "log.h"

#include <string.h>

#if !defined(__BYTE_ORDER__) || (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__)
#error "blob files are little-endian and read in place: port tc_blob_parse first"
#endif

_Static_assert(sizeof(tc_blob_file_hdr_t) == 56, "blob header layout");
_Static_assert(sizeof(tc_blob_fixup_t) == 16, "blob fixup layout");

#define TC_BLOB_FNV_BASIS UINT64_C(0xcbf29ce484222325)
#define TC_BLOB_FNV_PRIME UINT64_C(0x100000001b3)

static uint64_t tc_blob_fnv(uint64_t h, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    size_t i;

    for (i = 0; i < len; ++i) {
        h ^= p[i];
        h *= TC_BLOB_FNV_PRIME;
    }
    return h;
}

uint64_t tc_blob_hash(const uint8_t *image, uint32_t image_size, const char *names,
                      uint32_t names_size, const tc_blob_fixup_t *fixups,
                      uint32_t fixup_count)
{
    uint64_t h = TC_BLOB_FNV_BASIS;

    h = tc_blob_fnv(h, image, image_size);
    h = tc_blob_fnv(h, names, names_size);
    return tc_blob_fnv(h, fixups, (size_t)fixup_count * sizeof(*fixups));
}

/* The offset of the first non-zero byte of p[0..len), or len. */
static size_t tc_blob_first_nonzero(const uint8_t *p, size_t len)
{
    size_t i;

    for (i = 0; (i < len) && (p[i] == 0); ++i) {
    }
    return i;
}

/* Names: exactly got_count non-empty strings of at most TC_BLOB_NAME_MAX
 * bytes, filling names_size exactly (so slot i's name is unambiguous). */
static tc_status_t tc_blob_check_names(const char *names, uint32_t names_size,
                                       uint32_t got_count, char *err, size_t err_len)
{
    uint32_t pos = 0, i;
    const char *nul;
    size_t n;

    for (i = 0; i < got_count; ++i) {
        if (pos >= names_size) {
            return tc_status_why(err, err_len, TC_ERR_BAD_FRAME,
                                 "the %u-byte names block holds %u names, the header has "
                                 "%u GOT slots", names_size, i, got_count);
        }
        nul = memchr(names + pos, '\0', names_size - pos);
        if (nul == NULL) {
            return tc_status_why(err, err_len, TC_ERR_BAD_FRAME,
                                 "the name of GOT slot %u runs past the %u-byte names block "
                                 "(no NUL)", i, names_size);
        }
        n = (size_t)(nul - (names + pos));
        if (n == 0) {
            return tc_status_why(err, err_len, TC_ERR_BAD_FRAME,
                                 "the name of GOT slot %u is empty", i);
        }
        if (n > TC_BLOB_NAME_MAX) {
            return tc_status_why(err, err_len, TC_ERR_BAD_FRAME,
                                 "the name of GOT slot %u is %zu bytes, more than %u", i, n,
                                 TC_BLOB_NAME_MAX);
        }
        pos += (uint32_t)n + 1;
    }
    if (pos != names_size) {
        return tc_status_why(err, err_len, TC_ERR_BAD_FRAME,
                             "the names block has %u bytes after the names of its %u GOT "
                             "slots", names_size - pos, got_count);
    }
    return TC_OK;
}

/* Fixups patch data words only. The header does not record where .text
 * ends, but .text comes first and holds the entry, so a word at or before
 * it is certainly code. code_end: where .bss starts. */
static tc_status_t tc_blob_check_fixups(const tc_blob_file_hdr_t *hdr,
                                        const tc_blob_fixup_t *fixups, uint32_t code_end,
                                        char *err, size_t err_len)
{
    uint32_t f, off;

    for (f = 0; f < hdr->fixup_count; ++f) {
        off = fixups[f].offset;
        if ((off % 8) != 0) {
            return tc_status_why(err, err_len, TC_ERR_BAD_FRAME,
                                 "fixup %u: offset %u is not 8-byte aligned", f, off);
        }
        if (off <= hdr->entry_offset) {
            return tc_status_why(err, err_len, TC_ERR_BAD_FRAME,
                                 "fixup %u: offset %u is in the GOT or .text (at or before "
                                 "the entry, %u): fixups patch data only", f, off,
                                 hdr->entry_offset);
        }
        if ((off > code_end) || (code_end - off < 8)) {
            return tc_status_why(err, err_len, TC_ERR_BAD_FRAME,
                                 "fixup %u: the word at offset %u points past the image's "
                                 "data, which ends at %u", f, off, code_end);
        }
        if (fixups[f].reserved != 0) {
            return tc_status_why(err, err_len, TC_ERR_BAD_FRAME,
                                 "fixup %u: reserved field is %u, not 0", f,
                                 fixups[f].reserved);
        }
        if ((fixups[f].addend < 0) || (fixups[f].addend > hdr->image_size)) {
            return tc_status_why(err, err_len, TC_ERR_BAD_FRAME,
                                 "fixup %u: target base + %lld is outside the %u-byte image",
                                 f, (long long)fixups[f].addend, hdr->image_size);
        }
    }
    return TC_OK;
}

tc_status_t tc_blob_parse_err(const void *buf, size_t len, char *err, size_t err_len,
                              tc_blob_t *blob_p)
{
    const uint8_t *p = buf;
    const tc_blob_file_hdr_t *hdr;
    const tc_blob_fixup_t *fixups;
    const uint8_t *image;
    const char *names;
    uint32_t code_end;
    uint64_t need, hash;
    size_t at;
    tc_status_t status;

    if ((err != NULL) && (err_len > 0)) {
        err[0] = '\0';
    }
    if ((buf == NULL) || (blob_p == NULL)) {
        return TC_ERR_INVALID_PARAM;
    }
    if (len < sizeof(*hdr)) {
        return tc_status_why(err, err_len, TC_ERR_BAD_FRAME,
                             "%zu bytes, less than the %zu-byte blob header", len,
                             sizeof(*hdr));
    }
    hdr = buf;
    if (memcmp(hdr->magic, TC_BLOB_MAGIC, sizeof(hdr->magic)) != 0) {
        return tc_status_why(err, err_len, TC_ERR_PROTOCOL,
                             "no blob magic (the file does not start with \"%s\")",
                             TC_BLOB_MAGIC);
    }
    if (hdr->version != TC_BLOB_VERSION) {
        return tc_status_why(err, err_len, TC_ERR_VERSION_MISMATCH,
                             "blob version %u, this library reads %u (rebuild the package "
                             "with this tc-pkg)", hdr->version, TC_BLOB_VERSION);
    }
    if ((hdr->arch != TC_BLOB_ARCH_X86_64) && (hdr->arch != TC_BLOB_ARCH_AARCH64)) {
        return tc_status_why(err, err_len, TC_ERR_UNSUPPORTED,
                             "arch %u (ELF machine) is neither x86_64 (%u) nor aarch64 (%u)",
                             hdr->arch, TC_BLOB_ARCH_X86_64, TC_BLOB_ARCH_AARCH64);
    }

    /* Counts first, against fixed limits, so no sum below can overflow. */
    if (hdr->image_size > TC_BLOB_MAX_IMAGE) {
        return tc_status_why(err, err_len, TC_ERR_BAD_FRAME,
                             "image size %u exceeds %u (a frame's code length is 16 bits)",
                             hdr->image_size, TC_BLOB_MAX_IMAGE);
    }
    if (hdr->got_count > TC_BLOB_MAX_SLOTS) {
        return tc_status_why(err, err_len, TC_ERR_BAD_FRAME, "%u GOT slots exceed %u",
                             hdr->got_count, TC_BLOB_MAX_SLOTS);
    }
    if (hdr->names_size > TC_BLOB_MAX_SLOTS * (TC_BLOB_NAME_MAX + 1)) {
        return tc_status_why(err, err_len, TC_ERR_BAD_FRAME,
                             "names block of %u bytes exceeds %u", hdr->names_size,
                             TC_BLOB_MAX_SLOTS * (TC_BLOB_NAME_MAX + 1));
    }
    if (hdr->fixup_count > TC_BLOB_MAX_IMAGE / 8) {
        return tc_status_why(err, err_len, TC_ERR_BAD_FRAME, "%u fixups exceed %u",
                             hdr->fixup_count, TC_BLOB_MAX_IMAGE / 8);
    }
    need = sizeof(*hdr) + (uint64_t)hdr->names_size +
           (uint64_t)hdr->fixup_count * sizeof(tc_blob_fixup_t) + hdr->image_size;
    if (need != len) {
        return tc_status_why(err, err_len, TC_ERR_BAD_FRAME,
                             "%zu bytes, but the header's sizes (%u of names, %u fixups, "
                             "%u of image) make %llu: %s", len, hdr->names_size,
                             hdr->fixup_count, hdr->image_size, (unsigned long long)need,
                             (len < need) ? "truncated" : "trailing bytes");
    }
    names  = (const char *)(p + sizeof(*hdr));
    fixups = (const tc_blob_fixup_t *)(p + sizeof(*hdr) + hdr->names_size);
    image  = (const uint8_t *)(fixups + hdr->fixup_count);

    /* Layout: [GOT][pad16][text ... data][bss]; code_end is where .bss starts. */
    if (hdr->code_offset != TC_ALIGN_UP(8u * hdr->got_count, 16u)) {
        return tc_status_why(err, err_len, TC_ERR_BAD_FRAME,
                             "code offset %u, but %u GOT slots put the code at %u",
                             hdr->code_offset, hdr->got_count,
                             TC_ALIGN_UP(8u * hdr->got_count, 16u));
    }
    if (hdr->code_offset > hdr->image_size) {
        return tc_status_why(err, err_len, TC_ERR_BAD_FRAME,
                             "code offset %u is past the %u-byte image", hdr->code_offset,
                             hdr->image_size);
    }
    if (hdr->bss_size > hdr->image_size - hdr->code_offset) {
        return tc_status_why(err, err_len, TC_ERR_BAD_FRAME,
                             ".bss of %u bytes exceeds the %u bytes after the GOT",
                             hdr->bss_size, hdr->image_size - hdr->code_offset);
    }
    code_end = hdr->image_size - hdr->bss_size;
    if ((hdr->entry_offset < hdr->code_offset) || (hdr->entry_offset >= code_end)) {
        return tc_status_why(err, err_len, TC_ERR_BAD_FRAME,
                             "entry offset %u is outside the code (%u..%u)",
                             hdr->entry_offset, hdr->code_offset, code_end);
    }
    if (hdr->reserved != 0) {
        return tc_status_why(err, err_len, TC_ERR_BAD_FRAME,
                             "reserved header field is %u, not 0", hdr->reserved);
    }
    /* The slots (and their pad) are the receiver's to fill and .bss is
     * zero: a blob that says otherwise was not written by tc-pkg. */
    at = tc_blob_first_nonzero(image, hdr->code_offset);
    if (at < hdr->code_offset) {
        return tc_status_why(err, err_len, TC_ERR_BAD_FRAME,
                             "image byte %zu, in the GOT slots or their pad, is not 0", at);
    }
    at = tc_blob_first_nonzero(image + code_end, hdr->bss_size);
    if (at < hdr->bss_size) {
        return tc_status_why(err, err_len, TC_ERR_BAD_FRAME,
                             "image byte %zu, in .bss, is not 0", code_end + at);
    }

    status = tc_blob_check_names(names, hdr->names_size, hdr->got_count, err, err_len);
    if (status != TC_OK) {
        return status;
    }
    status = tc_blob_check_fixups(hdr, fixups, code_end, err, err_len);
    if (status != TC_OK) {
        return status;
    }

    hash = tc_blob_hash(image, hdr->image_size, names, hdr->names_size, fixups,
                        hdr->fixup_count);
    if (hash != hdr->content_hash) {
        return tc_status_why(err, err_len, TC_ERR_BAD_FRAME,
                             "content hash 0x%016llx in the header, but the bytes hash to "
                             "0x%016llx", (unsigned long long)hdr->content_hash,
                             (unsigned long long)hash);
    }

    blob_p->hdr    = hdr;
    blob_p->names  = names;
    blob_p->fixups = fixups;
    blob_p->image  = image;
    return TC_OK;
}

tc_status_t tc_blob_parse(const void *buf, size_t len, tc_blob_t *blob_p)
{
    return tc_blob_parse_err(buf, len, NULL, 0, blob_p);
}

const char *tc_blob_slot_name(const tc_blob_t *blob, uint32_t i)
{
    const char *name = blob->names;

    if (i >= blob->hdr->got_count) {
        return NULL;
    }
    while (i-- > 0) {
        name += strlen(name) + 1;
    }
    return name;
}
