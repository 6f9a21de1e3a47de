/* Injectable jam blobs: hash, parser and accessors (lib/blob.h). Pure: no UCX,
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

static int tc_blob_all_zero(const uint8_t *p, size_t len)
{
    size_t i;

    for (i = 0; i < len; ++i) {
        if (p[i] != 0) {
            return 0;
        }
    }
    return 1;
}

/* Names: exactly got_count non-empty strings of at most TC_BLOB_NAME_MAX
 * bytes, filling names_size exactly (so slot i's name is unambiguous). */
static tc_status_t tc_blob_check_names(const char *names, uint32_t names_size,
                                       uint32_t got_count)
{
    uint32_t pos = 0, i;
    const char *nul;
    size_t n;

    for (i = 0; i < got_count; ++i) {
        if (pos >= names_size) {
            return TC_ERR_BAD_FRAME; /* fewer names than slots */
        }
        nul = memchr(names + pos, '\0', names_size - pos);
        if (nul == NULL) {
            return TC_ERR_BAD_FRAME; /* last name not terminated */
        }
        n = (size_t)(nul - (names + pos));
        if ((n == 0) || (n > TC_BLOB_NAME_MAX)) {
            return TC_ERR_BAD_FRAME;
        }
        pos += (uint32_t)n + 1;
    }
    return (pos == names_size) ? TC_OK : TC_ERR_BAD_FRAME; /* more names than slots */
}

tc_status_t tc_blob_parse(const void *buf, size_t len, tc_blob_t *blob_p)
{
    const uint8_t *p = buf;
    const tc_blob_file_hdr_t *hdr;
    const tc_blob_fixup_t *fixups;
    const uint8_t *image;
    const char *names;
    uint32_t code_end, text_min, f;
    uint64_t need;
    tc_status_t status;

    if ((buf == NULL) || (blob_p == NULL)) {
        return TC_ERR_INVALID_PARAM;
    }
    if (len < sizeof(*hdr)) {
        return TC_ERR_BAD_FRAME;
    }
    hdr = buf;
    if (memcmp(hdr->magic, TC_BLOB_MAGIC, sizeof(hdr->magic)) != 0) {
        return TC_ERR_PROTOCOL;
    }
    if (hdr->version != TC_BLOB_VERSION) {
        return TC_ERR_VERSION_MISMATCH;
    }
    if ((hdr->arch != TC_BLOB_ARCH_X86_64) && (hdr->arch != TC_BLOB_ARCH_AARCH64)) {
        return TC_ERR_UNSUPPORTED;
    }

    /* Counts first, against fixed limits, so no sum below can overflow. */
    if ((hdr->image_size > TC_BLOB_MAX_IMAGE) || (hdr->got_count > TC_BLOB_MAX_SLOTS) ||
        (hdr->names_size > TC_BLOB_MAX_SLOTS * (TC_BLOB_NAME_MAX + 1)) ||
        (hdr->fixup_count > TC_BLOB_MAX_IMAGE / 8)) {
        return TC_ERR_BAD_FRAME;
    }
    need = sizeof(*hdr) + (uint64_t)hdr->names_size +
           (uint64_t)hdr->fixup_count * sizeof(tc_blob_fixup_t) + hdr->image_size;
    if (need != len) {
        return TC_ERR_BAD_FRAME; /* truncated, or trailing bytes */
    }
    names  = (const char *)(p + sizeof(*hdr));
    fixups = (const tc_blob_fixup_t *)(p + sizeof(*hdr) + hdr->names_size);
    image  = (const uint8_t *)(fixups + hdr->fixup_count);

    /* Layout: [GOT][pad16][text ... data][bss]; code_end is where .bss starts. */
    if (hdr->code_offset != TC_ALIGN_UP(8u * hdr->got_count, 16u)) {
        return TC_ERR_BAD_FRAME;
    }
    if ((hdr->code_offset > hdr->image_size) ||
        (hdr->bss_size > hdr->image_size - hdr->code_offset)) {
        return TC_ERR_BAD_FRAME;
    }
    code_end = hdr->image_size - hdr->bss_size;
    if ((hdr->entry_offset < hdr->code_offset) || (hdr->entry_offset >= code_end) ||
        (hdr->reserved != 0)) {
        return TC_ERR_BAD_FRAME;
    }
    /* The slots (and their pad) are the receiver's to fill and .bss is
     * zero: a blob that says otherwise was not written by tc-pkg. */
    if (!tc_blob_all_zero(image, hdr->code_offset) ||
        !tc_blob_all_zero(image + code_end, hdr->bss_size)) {
        return TC_ERR_BAD_FRAME;
    }

    status = tc_blob_check_names(names, hdr->names_size, hdr->got_count);
    if (status != TC_OK) {
        return status;
    }

    /* Fixups patch data words only. The header does not record where .text
     * ends, but .text comes first and holds the entry, so a word at or
     * before it is certainly code. */
    text_min = hdr->entry_offset;
    for (f = 0; f < hdr->fixup_count; ++f) {
        uint32_t off = fixups[f].offset;

        if (((off % 8) != 0) || (off <= text_min) || (off > code_end) ||
            (code_end - off < 8) || (fixups[f].reserved != 0) ||
            (fixups[f].addend < 0) || (fixups[f].addend > hdr->image_size)) {
            return TC_ERR_BAD_FRAME;
        }
    }

    if (tc_blob_hash(image, hdr->image_size, names, hdr->names_size, fixups,
                     hdr->fixup_count) != hdr->content_hash) {
        return TC_ERR_BAD_FRAME;
    }

    blob_p->hdr    = hdr;
    blob_p->names  = names;
    blob_p->fixups = fixups;
    blob_p->image  = image;
    return TC_OK;
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
