/*
 * Unit tests of the blob file parser (lib/codec/blob.c): valid blobs built in
 * memory parse into the right views; every corruption (magic, version,
 * arch, sizes and counts beyond the buffer, names, fixups, entries, hash)
 * is rejected with its status and a one-line reason naming the field or
 * check that failed (tc_blob_parse_err).
 *
 * Every blob under test lives in a malloc'd buffer of exactly its length,
 * so valgrind (make check VALGRIND=1) flags any read past it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blob.h"

#define TEST_IMAGE_SIZE 160u
#define TEST_BSS_SIZE   16u
#define TEST_ENTRY      16u
#define TEST_FIXUP_OFF  128u  /* in data, 8-aligned, before .bss */
#define TEST_FIXUP_ADD  80

/* The parts of a blob, before they are written out. */
typedef struct {
    tc_blob_file_hdr_t hdr;
    char               names[64];
    tc_blob_fixup_t    fixups[4];
    uint8_t            image[TEST_IMAGE_SIZE];
} test_parts_t;

/* Two slots (memcpy, strlen), one fixup, 16 bytes of .bss. */
static void test_parts_init(test_parts_t *p)
{
    uint32_t i;

    memset(p, 0, sizeof(*p));
    memcpy(p->hdr.magic, TC_BLOB_MAGIC, 8);
    p->hdr.version      = TC_BLOB_VERSION;
    p->hdr.arch         = TC_BLOB_ARCH_X86_64;
    p->hdr.image_size   = TEST_IMAGE_SIZE;
    p->hdr.code_offset  = 16;
    p->hdr.entry_offset = TEST_ENTRY;
    p->hdr.got_count    = 2;
    p->hdr.fixup_count  = 1;
    memcpy(p->names, "memcpy\0strlen", 14);
    p->hdr.names_size   = 14;
    p->hdr.bss_size     = TEST_BSS_SIZE;
    p->fixups[0].offset = TEST_FIXUP_OFF;
    p->fixups[0].addend = TEST_FIXUP_ADD;
    for (i = p->hdr.code_offset; i < TEST_IMAGE_SIZE - TEST_BSS_SIZE; ++i) {
        p->image[i] = (uint8_t)(i * 7 + 1); /* "code" and data */
    }
    memset(p->image + TEST_FIXUP_OFF, 0, 8);
}

/* Sizes are clamped to the parts: a lying header gets some hash, and the
 * parser must reject it before hashing anyway. */
static void test_parts_rehash(test_parts_t *p)
{
    uint32_t img   = p->hdr.image_size > TEST_IMAGE_SIZE ? TEST_IMAGE_SIZE
                                                         : p->hdr.image_size;
    uint32_t names = p->hdr.names_size > sizeof(p->names) ? sizeof(p->names)
                                                          : p->hdr.names_size;
    uint32_t nfix  = p->hdr.fixup_count > 4 ? 4 : p->hdr.fixup_count;

    p->hdr.content_hash = tc_blob_hash(p->image, img, p->names, names, p->fixups, nfix);
}

/* Write the parts as a file of exactly len bytes (caller frees). The
 * header's sizes decide how much of each part is copied, so lying sizes
 * make a file whose parts do not match its header. */
static uint8_t *test_write(const test_parts_t *p, size_t *len_p)
{
    size_t names = p->hdr.names_size > sizeof(p->names) ? sizeof(p->names)
                                                        : p->hdr.names_size;
    size_t nfix  = p->hdr.fixup_count > 4 ? 4 : p->hdr.fixup_count;
    size_t img   = p->hdr.image_size > TEST_IMAGE_SIZE ? TEST_IMAGE_SIZE
                                                       : p->hdr.image_size;
    size_t len   = sizeof(p->hdr) + names + nfix * sizeof(tc_blob_fixup_t) + img;
    uint8_t *buf = malloc(len), *q;

    assert_non_null(buf);
    q = buf;
    memcpy(q, &p->hdr, sizeof(p->hdr));
    q += sizeof(p->hdr);
    memcpy(q, p->names, names);
    q += names;
    memcpy(q, p->fixups, nfix * sizeof(tc_blob_fixup_t));
    q += nfix * sizeof(tc_blob_fixup_t);
    memcpy(q, p->image, img);
    *len_p = len;
    return buf;
}

/* Parse the parts; the reason of a refusal in err (err_len bytes). */
static tc_status_t test_parse_parts_err(const test_parts_t *p, char *err, size_t err_len)
{
    tc_blob_t blob;
    tc_status_t status;
    size_t len;
    uint8_t *buf = test_write(p, &len);

    status = tc_blob_parse_err(buf, len, err, err_len, &blob);
    free(buf);
    return status;
}

static tc_status_t test_parse_parts(const test_parts_t *p)
{
    char err[256];

    return test_parse_parts_err(p, err, sizeof(err));
}

/* A refusal with want, whose reason is one line that contains why (the
 * field or check that failed) and is what tc_blob_parse refuses too. */
static void test_expect_refused(const test_parts_t *p, tc_status_t want, const char *why,
                                int line)
{
    char err[256];
    tc_status_t status = test_parse_parts_err(p, err, sizeof(err));

    if ((status != want) || (strstr(err, why) == NULL) || (strchr(err, '\n') != NULL)) {
        fail_msg("line %d: status %d, reason '%s'; expected %d with '%s'", line, status, err,
                 want, why);
    }
}

/* Apply a change to a valid blob, rehash (so only the change is wrong)
 * and expect the status and a reason naming what is wrong. */
#define TEST_REJECT(_status, _why, _change) \
    do { \
        test_parts_t _p; \
        test_parts_init(&_p); \
        _change; \
        test_parts_rehash(&_p); \
        test_expect_refused(&_p, (_status), (_why), __LINE__); \
    } while (0)

/* ------------------------------------------------------------------ tests */

static void test_hash_is_fnv1a(void **state)
{
    (void)state;
    assert_true(tc_blob_hash(NULL, 0, NULL, 0, NULL, 0) == UINT64_C(0xcbf29ce484222325));
    assert_true(tc_blob_hash((const uint8_t *)"a", 1, NULL, 0, NULL, 0) ==
                UINT64_C(0xaf63dc4c8601ec8c));
    /* image, then names, then fixups: one stream */
    assert_true(tc_blob_hash((const uint8_t *)"ab", 2, NULL, 0, NULL, 0) ==
                tc_blob_hash((const uint8_t *)"a", 1, "b", 1, NULL, 0));
}

static void test_valid(void **state)
{
    test_parts_t p;
    tc_blob_t blob;
    uint8_t *buf;
    size_t len;

    (void)state;
    test_parts_init(&p);
    test_parts_rehash(&p);
    buf = test_write(&p, &len);
    assert_int_equal(tc_blob_parse(buf, len, &blob), TC_OK);
    assert_ptr_equal(blob.hdr, buf);
    assert_ptr_equal(blob.names, buf + sizeof(tc_blob_file_hdr_t));
    assert_ptr_equal(blob.fixups, buf + sizeof(tc_blob_file_hdr_t) + 14);
    assert_ptr_equal(blob.image, buf + len - TEST_IMAGE_SIZE);
    assert_int_equal(blob.hdr->got_count, 2);
    assert_string_equal(tc_blob_slot_name(&blob, 0), "memcpy");
    assert_string_equal(tc_blob_slot_name(&blob, 1), "strlen");
    assert_null(tc_blob_slot_name(&blob, 2));
    assert_int_equal(blob.fixups[0].offset, TEST_FIXUP_OFF);
    assert_int_equal(blob.fixups[0].addend, TEST_FIXUP_ADD);
    free(buf);
}

static void test_valid_minimal(void **state)
{
    test_parts_t p;

    (void)state;
    /* no slots, no fixups, no bss, entry at 0, aarch64 */
    test_parts_init(&p);
    p.hdr.arch         = TC_BLOB_ARCH_AARCH64;
    p.hdr.got_count    = 0;
    p.hdr.names_size   = 0;
    p.hdr.fixup_count  = 0;
    p.hdr.code_offset  = 0;
    p.hdr.entry_offset = 0;
    p.hdr.bss_size     = 0;
    p.hdr.image_size   = 4;
    memset(p.image, 0xc3, 4);
    test_parts_rehash(&p);
    assert_int_equal(test_parse_parts(&p), TC_OK);

    /* three slots: code starts at 32 (24 rounded up to 16) */
    test_parts_init(&p);
    memcpy(p.names, "a\0bb\0ccc", 9);
    p.hdr.names_size  = 9;
    p.hdr.got_count   = 3;
    p.hdr.code_offset = 32;
    p.hdr.entry_offset = 32;
    memset(p.image, 0, 32);
    test_parts_rehash(&p);
    assert_int_equal(test_parse_parts(&p), TC_OK);
}

static void test_bad_args(void **state)
{
    test_parts_t p;
    tc_blob_t blob;
    uint8_t *buf;
    size_t len;

    (void)state;
    test_parts_init(&p);
    test_parts_rehash(&p);
    buf = test_write(&p, &len);
    assert_int_equal(tc_blob_parse(NULL, len, &blob), TC_ERR_INVALID_PARAM);
    assert_int_equal(tc_blob_parse(buf, len, NULL), TC_ERR_INVALID_PARAM);
    free(buf);
}

static void test_bad_magic_version_arch(void **state)
{
    (void)state;
    TEST_REJECT(TC_ERR_PROTOCOL, "no blob magic", _p.hdr.magic[0] = 'X');
    TEST_REJECT(TC_ERR_PROTOCOL, "no blob magic", _p.hdr.magic[7] = '1');
    TEST_REJECT(TC_ERR_VERSION_MISMATCH, "blob version 3, this library reads 2",
                _p.hdr.version = TC_BLOB_VERSION + 1);
    TEST_REJECT(TC_ERR_VERSION_MISMATCH, "blob version 1,", _p.hdr.version = 1); /* with the pack */
    TEST_REJECT(TC_ERR_VERSION_MISMATCH, "blob version 0,", _p.hdr.version = 0);
    TEST_REJECT(TC_ERR_UNSUPPORTED, "arch 3 (ELF machine) is neither", _p.hdr.arch = 3);
    TEST_REJECT(TC_ERR_UNSUPPORTED, "arch 0 (ELF machine)", _p.hdr.arch = 0);
}

/* Every strict prefix and one byte more: rejected, never read past. */
static void test_truncated_and_trailing(void **state)
{
    char err[256], want[256];
    test_parts_t p;
    tc_blob_t blob;
    uint8_t *buf, *cut;
    size_t len, n;

    (void)state;
    test_parts_init(&p);
    test_parts_rehash(&p);
    buf = test_write(&p, &len);
    for (n = 0; n < len; ++n) {
        cut = malloc(n + 1);
        assert_non_null(cut);
        memcpy(cut, buf, n);
        assert_int_equal(tc_blob_parse_err(cut, n, err, sizeof(err), &blob), TC_ERR_BAD_FRAME);
        snprintf(want, sizeof(want), (n < sizeof(tc_blob_file_hdr_t)) ?
                 "%zu bytes, less than the 56-byte blob header" : "%zu bytes, but the "
                 "header's sizes (14 of names, 1 fixups, 160 of image) make 246: truncated", n);
        if (strcmp(err, want) != 0) {
            fail_msg("%zu bytes: '%s', expected '%s'", n, err, want);
        }
        free(cut);
    }
    cut = malloc(len + 1);
    assert_non_null(cut);
    memcpy(cut, buf, len);
    cut[len] = 0;
    assert_int_equal(tc_blob_parse_err(cut, len + 1, err, sizeof(err), &blob), TC_ERR_BAD_FRAME);
    assert_non_null(strstr(err, "247 bytes, but the header's sizes"));
    assert_non_null(strstr(err, "make 246: trailing bytes"));
    free(cut);
    free(buf);
}

static void test_sizes_beyond_buffer(void **state)
{
    (void)state;
    TEST_REJECT(TC_ERR_BAD_FRAME, "image size 65536 exceeds 65535",
                _p.hdr.image_size = TC_BLOB_MAX_IMAGE + 1);
    TEST_REJECT(TC_ERR_BAD_FRAME, "image size 4294967295 exceeds", _p.hdr.image_size = UINT32_MAX);
    TEST_REJECT(TC_ERR_BAD_FRAME, "4097 GOT slots exceed 4096",
                _p.hdr.got_count = TC_BLOB_MAX_SLOTS + 1);
    TEST_REJECT(TC_ERR_BAD_FRAME, "4294967295 GOT slots exceed", _p.hdr.got_count = UINT32_MAX);
    TEST_REJECT(TC_ERR_BAD_FRAME, "names block of 4294967295 bytes exceeds",
                _p.hdr.names_size = UINT32_MAX);
    TEST_REJECT(TC_ERR_BAD_FRAME, "4294967295 fixups exceed 8191", _p.hdr.fixup_count = UINT32_MAX);
    TEST_REJECT(TC_ERR_BAD_FRAME, "268435457 fixups exceed",
                _p.hdr.fixup_count = 0x10000001u); /* x16 wraps 32 bits */
    /* a second fixup the file holds, all zero: offset 0 is in the GOT */
    TEST_REJECT(TC_ERR_BAD_FRAME, "fixup 1: offset 0 is in the GOT or .text",
                _p.hdr.fixup_count = 2);
    /* the header says more than the file holds */
    TEST_REJECT(TC_ERR_BAD_FRAME,
                "246 bytes, but the header's sizes (14 of names, 1 fixups, 168 of image) "
                "make 254: truncated", _p.hdr.image_size = TEST_IMAGE_SIZE + 8);
}

static void test_layout(void **state)
{
    (void)state;
    TEST_REJECT(TC_ERR_BAD_FRAME, "code offset 32, but 2 GOT slots put the code at 16",
                _p.hdr.code_offset = 32);
    TEST_REJECT(TC_ERR_BAD_FRAME, "code offset 8, but 2 GOT slots", _p.hdr.code_offset = 8);
    TEST_REJECT(TC_ERR_BAD_FRAME, ".bss of 160 bytes exceeds the 144 bytes after the GOT",
                _p.hdr.bss_size = TEST_IMAGE_SIZE);
    TEST_REJECT(TC_ERR_BAD_FRAME, ".bss of 4294967295 bytes", _p.hdr.bss_size = UINT32_MAX);
    /* .bss must be zero, and so must the GOT slots */
    TEST_REJECT(TC_ERR_BAD_FRAME, "image byte 159, in .bss, is not 0",
                _p.image[TEST_IMAGE_SIZE - 1] = 1);
    TEST_REJECT(TC_ERR_BAD_FRAME, "image byte 3, in the GOT slots", _p.image[3] = 1);
    TEST_REJECT(TC_ERR_BAD_FRAME, "image byte 15, in the GOT slots", _p.image[15] = 1);
    /* the pad after three slots (24..31) */
    TEST_REJECT(TC_ERR_BAD_FRAME, "image byte 30, in the GOT slots",
                (memcpy(_p.names, "a\0bb\0ccc", 9), _p.hdr.names_size = 9,
                                   _p.hdr.got_count = 3, _p.hdr.code_offset = 32,
                                   _p.hdr.entry_offset = 32, memset(_p.image, 0, 32),
                                   _p.image[30] = 1));
}

static void test_names(void **state)
{
    (void)state;
    /* last name not terminated */
    TEST_REJECT(TC_ERR_BAD_FRAME, "the name of GOT slot 1 runs past the 13-byte names block",
                _p.hdr.names_size = 13);
    /* fewer names than slots (the third slot's 8 bytes and the pad zero),
     * more names than slots */
    TEST_REJECT(TC_ERR_BAD_FRAME, "the 14-byte names block holds 2 names, the header has 3",
                (_p.hdr.got_count = 3, _p.hdr.code_offset = 32, _p.hdr.entry_offset = 32,
                 memset(_p.image, 0, 32)));
    TEST_REJECT(TC_ERR_BAD_FRAME, "the names block has 7 bytes after the names of its 1",
                (_p.hdr.got_count = 1, _p.hdr.code_offset = 16));
    /* an empty name */
    TEST_REJECT(TC_ERR_BAD_FRAME, "the name of GOT slot 1 is empty",
                (memcpy(_p.names, "memcpy\0\0", 8), _p.hdr.names_size = 8));
}

/* A name of TC_BLOB_NAME_MAX bytes passes, one more is rejected. */
static void test_name_length(void **state)
{
    size_t n, len, names;
    tc_blob_file_hdr_t hdr;
    tc_blob_t blob;
    uint8_t image[32] = {0}, *buf;
    char err[256];

    (void)state;
    for (n = TC_BLOB_NAME_MAX; n <= TC_BLOB_NAME_MAX + 1; ++n) {
        names = n + 1;
        memset(&hdr, 0, sizeof(hdr));
        memcpy(hdr.magic, TC_BLOB_MAGIC, 8);
        hdr.version      = TC_BLOB_VERSION;
        hdr.arch         = TC_BLOB_ARCH_X86_64;
        hdr.image_size   = sizeof(image);
        hdr.code_offset  = 16;
        hdr.entry_offset = 16;
        hdr.got_count    = 1;
        hdr.names_size   = (uint32_t)names;
        len              = sizeof(hdr) + names + sizeof(image);
        buf              = malloc(len);
        assert_non_null(buf);
        memset(buf + sizeof(hdr), 'x', n);
        buf[sizeof(hdr) + n] = '\0';
        image[20]            = 0x90;
        memcpy(buf + sizeof(hdr) + names, image, sizeof(image));
        hdr.content_hash = tc_blob_hash(image, sizeof(image),
                                        (const char *)buf + sizeof(hdr), (uint32_t)names,
                                        NULL, 0);
        memcpy(buf, &hdr, sizeof(hdr));
        assert_int_equal(tc_blob_parse_err(buf, len, err, sizeof(err), &blob),
                         (n <= TC_BLOB_NAME_MAX) ? TC_OK : TC_ERR_BAD_FRAME);
        assert_string_equal(err, (n <= TC_BLOB_NAME_MAX) ? "" :
                            "the name of GOT slot 0 is 256 bytes, more than 255");
        free(buf);
    }
}

static void test_fixups(void **state)
{
    (void)state;
    /* outside the image, straddling its end, in .bss */
    TEST_REJECT(TC_ERR_BAD_FRAME,
                "fixup 0: the word at offset 160 points past the image's data, which ends at 144",
                _p.fixups[0].offset = TEST_IMAGE_SIZE);
    TEST_REJECT(TC_ERR_BAD_FRAME, "fixup 0: the word at offset 4294967288 points past",
                _p.fixups[0].offset = UINT32_MAX & ~7u);
    TEST_REJECT(TC_ERR_BAD_FRAME, "fixup 0: the word at offset 144 points past",
                _p.fixups[0].offset = TEST_IMAGE_SIZE - TEST_BSS_SIZE);
    /* not 8-aligned */
    TEST_REJECT(TC_ERR_BAD_FRAME, "fixup 0: offset 132 is not 8-byte aligned",
                _p.fixups[0].offset = TEST_FIXUP_OFF + 4);
    TEST_REJECT(TC_ERR_BAD_FRAME, "fixup 0: offset 129 is not 8-byte aligned",
                _p.fixups[0].offset = TEST_FIXUP_OFF + 1);
    /* in .text (at or before the entry), in the GOT */
    TEST_REJECT(TC_ERR_BAD_FRAME, "fixup 0: offset 16 is in the GOT or .text (at or before the "
                "entry, 16)", _p.fixups[0].offset = TEST_ENTRY);
    TEST_REJECT(TC_ERR_BAD_FRAME, "fixup 0: offset 0 is in the GOT", _p.fixups[0].offset = 0);
    TEST_REJECT(TC_ERR_BAD_FRAME, "fixup 0: offset 8 is in the GOT", _p.fixups[0].offset = 8);
    /* a target outside the image, a reserved field in use */
    TEST_REJECT(TC_ERR_BAD_FRAME, "fixup 0: target base + -8 is outside the 160-byte image",
                _p.fixups[0].addend = -8);
    TEST_REJECT(TC_ERR_BAD_FRAME, "fixup 0: target base + 161 is outside",
                _p.fixups[0].addend = TEST_IMAGE_SIZE + 1);
    TEST_REJECT(TC_ERR_BAD_FRAME, "fixup 0: target base + -9223372036854775808",
                _p.fixups[0].addend = INT64_MIN);
    TEST_REJECT(TC_ERR_BAD_FRAME, "fixup 0: reserved field is 1, not 0", _p.fixups[0].reserved = 1);
    /* the last data word and a pointer one past the end are fine */
    {
        test_parts_t p;
        test_parts_init(&p);
        p.fixups[0].offset = TEST_IMAGE_SIZE - TEST_BSS_SIZE - 8;
        p.fixups[0].addend = TEST_IMAGE_SIZE;
        memset(p.image + p.fixups[0].offset, 0, 8);
        test_parts_rehash(&p);
        assert_int_equal(test_parse_parts(&p), TC_OK);
    }
}

static void test_entries(void **state)
{
    (void)state;
    TEST_REJECT(TC_ERR_BAD_FRAME, "entry offset 8 is outside the code (16..144)",
                _p.hdr.entry_offset = 8); /* in the GOT */
    TEST_REJECT(TC_ERR_BAD_FRAME, "entry offset 0 is outside", _p.hdr.entry_offset = 0);
    TEST_REJECT(TC_ERR_BAD_FRAME, "entry offset 144 is outside",
                _p.hdr.entry_offset = TEST_IMAGE_SIZE - TEST_BSS_SIZE);
    TEST_REJECT(TC_ERR_BAD_FRAME, "entry offset 160 is outside",
                _p.hdr.entry_offset = TEST_IMAGE_SIZE);
    TEST_REJECT(TC_ERR_BAD_FRAME, "entry offset 4294967295 is outside",
                _p.hdr.entry_offset = UINT32_MAX);
    /* version 2 carries no pack routine: the word it had is 0 */
    TEST_REJECT(TC_ERR_BAD_FRAME, "reserved header field is 16, not 0",
                _p.hdr.reserved = TEST_ENTRY);
    /* an entry at or after a fixup is not in .text */
    TEST_REJECT(TC_ERR_BAD_FRAME, "fixup 0: offset 128 is in the GOT or .text",
                _p.hdr.entry_offset = TEST_FIXUP_OFF);
}

static void test_hash_mismatch(void **state)
{
    char err[256], want[256];
    test_parts_t p;
    tc_blob_t blob;
    uint8_t *buf;
    size_t len, i;
    const size_t hdr = sizeof(tc_blob_file_hdr_t);

    (void)state;
    test_parts_init(&p);
    test_parts_rehash(&p);
    buf = test_write(&p, &len);
    /* every byte after the header is covered by the hash */
    for (i = hdr; i < len; ++i) {
        buf[i] ^= 0x01;
        assert_int_not_equal(tc_blob_parse(buf, len, &blob), TC_OK);
        buf[i] ^= 0x01;
    }
    /* and so is the hash field itself */
    for (i = offsetof(tc_blob_file_hdr_t, content_hash); i < hdr; ++i) {
        buf[i] ^= 0x80;
        assert_int_equal(tc_blob_parse(buf, len, &blob), TC_ERR_BAD_FRAME);
        buf[i] ^= 0x80;
    }
    /* a changed code byte, the file otherwise intact: both hashes said */
    buf[len - TEST_IMAGE_SIZE + TEST_ENTRY] ^= 0xff;
    assert_int_equal(tc_blob_parse_err(buf, len, err, sizeof(err), &blob), TC_ERR_BAD_FRAME);
    snprintf(want, sizeof(want), "content hash 0x%016llx in the header, but the bytes hash to "
             "0x", (unsigned long long)p.hdr.content_hash);
    if (strncmp(err, want, strlen(want)) != 0) {
        fail_msg("'%s', expected '%s...'", err, want);
    }
    free(buf);
}

/* Header bytes flipped one at a time: whatever parses is still sound. */
static void test_header_flips_sound(void **state)
{
    test_parts_t p;
    tc_blob_t blob;
    uint8_t *buf;
    size_t len, i;
    unsigned bit;

    (void)state;
    test_parts_init(&p);
    test_parts_rehash(&p);
    buf = test_write(&p, &len);
    for (i = 0; i < sizeof(tc_blob_file_hdr_t); ++i) {
        for (bit = 0; bit < 8; ++bit) {
            buf[i] ^= (uint8_t)(1u << bit);
            if (tc_blob_parse(buf, len, &blob) == TC_OK) {
                const tc_blob_file_hdr_t *h = blob.hdr;
                assert_true(h->entry_offset >= h->code_offset);
                assert_true(h->entry_offset < h->image_size - h->bss_size);
                assert_int_equal(h->reserved, 0);
                assert_true(h->image_size <= TC_BLOB_MAX_IMAGE);
                assert_ptr_equal(blob.image + h->image_size, buf + len);
            }
            buf[i] ^= (uint8_t)(1u << bit);
        }
    }
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hash_is_fnv1a),
        cmocka_unit_test(test_valid),
        cmocka_unit_test(test_valid_minimal),
        cmocka_unit_test(test_bad_args),
        cmocka_unit_test(test_bad_magic_version_arch),
        cmocka_unit_test(test_truncated_and_trailing),
        cmocka_unit_test(test_sizes_beyond_buffer),
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_name_length),
        cmocka_unit_test(test_fixups),
        cmocka_unit_test(test_entries),
        cmocka_unit_test(test_hash_mismatch),
        cmocka_unit_test(test_header_flips_sound),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
