/*
 * Unit tests of the frame codec (lib/codec/frame.c): size computation, layout,
 * header writing and sealing, and the validator.
 *
 * Every frame under test lives in a buffer of exactly slot_size bytes
 * (malloc'd, so valgrind flags any read past it), and the frames whose header
 * lies about their size sit at the end of a page followed by a PROT_NONE
 * guard page, so an out-of-bounds read crashes even without valgrind.
 *
 * Each rejection asserts TC_ERR_BAD_FRAME and that the reason names the
 * specific problem. A randomized test (fixed seed) corrupts header fields of
 * valid frames and checks that whatever the validator accepts is sound.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "frame.h"
#include "frame_line.h"
#include "place.h"

#define TEST_SEED        UINT64_C(0x2c4a1b7e9d035eed)
#define TEST_FUZZ_ITERS  100000u
#define TEST_SLOT_SIZE   512u
#define TEST_PKG_ID      0x1234abcdu
#define TEST_ELEMENT     3u
#define TEST_SEQ         7u
#define TEST_ARRAY_SIZE(_a) (sizeof(_a) / sizeof((_a)[0]))

/* ------------------------------------------------------------------ helpers */

static uint32_t test_align_up(uint32_t x, uint32_t a)
{
    return (x + a - 1) / a * a;
}

/* xorshift64*: tiny, deterministic, the same sequence everywhere. */
static uint64_t test_rand(uint64_t *state)
{
    uint64_t x = *state;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * UINT64_C(0x2545f4914f6cdd1d);
}

/* A slot of exactly slot_size bytes: reading past it is a valgrind error. */
static uint8_t *test_slot_alloc(uint32_t slot_size)
{
    uint8_t *slot = malloc(slot_size);

    assert_non_null(slot);
    memset(slot, 0, slot_size);
    return slot;
}

/* A slot of slot_size bytes that ends exactly at a PROT_NONE page. */
typedef struct {
    uint8_t *map;
    size_t   map_len;
    uint8_t *slot;
} test_guarded_t;

static void test_guarded_alloc(test_guarded_t *g, uint32_t slot_size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t data = (slot_size + page - 1) / page * page;
    void *map;

    g->map_len = data + page;
    map = mmap(NULL, g->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
               -1, 0);
    assert_true(map != MAP_FAILED);
    g->map = map;
    assert_int_equal(mprotect(g->map + data, page, PROT_NONE), 0);
    g->slot = g->map + data - slot_size;
    memset(g->slot, 0, slot_size);
}

static void test_guarded_free(test_guarded_t *g)
{
    assert_int_equal(munmap(g->map, g->map_len), 0);
}

static tc_frame_hdr_t *test_hdr(void *frame)
{
    return (tc_frame_hdr_t *)frame;
}

static uint64_t test_sig_at(const void *frame, uint32_t frame_size)
{
    uint64_t sig;

    memcpy(&sig, (const char *)frame + frame_size - TC_FRAME_SIG_SIZE, sizeof(sig));
    return sig;
}

static void test_set_sig(void *frame, uint32_t frame_size, uint64_t sig)
{
    memcpy((char *)frame + frame_size - TC_FRAME_SIG_SIZE, &sig, sizeof(sig));
}

/* Lay out, write and seal a frame into slot; returns its size. */
static uint32_t test_build(void *slot, uint32_t slot_size, uint32_t args_len,
                           uint32_t got_count, uint32_t code_len, uint32_t payload_len,
                           uint8_t kind, uint8_t flags, uint32_t seq)
{
    tc_frame_layout_t layout = {args_len, got_count, code_len, payload_len};
    tc_frame_offsets_t off;
    char *f = slot;

    assert_int_equal(tc_frame_layout(&layout, slot_size, &off), TC_OK);
    memset(f + off.args_off, 0xA1, args_len);
    memset(f + off.got_off, 0xB2, (size_t)got_count * 8);
    memset(f + off.code_off, 0xC3, code_len);
    memset(f + off.payload_off, 0xD4, payload_len);
    tc_frame_write_hdr(slot, &off, &layout, kind, flags, TEST_PKG_ID,
                       TEST_ELEMENT, seq);
    tc_frame_seal(slot);
    return off.frame_size;
}

/* A frame of the given kind with sections that are legal for it. */
static uint32_t test_build_kind(void *slot, uint32_t slot_size, uint8_t kind,
                                uint8_t flags, uint32_t seq)
{
    if (kind == TC_KIND_INJECTED) {
        return test_build(slot, slot_size, 16, 2, 40, 24, kind, flags, seq);
    }
    if ((kind == TC_KIND_REPLY) || (kind == TC_KIND_NOP)) {
        return test_build(slot, slot_size, 0, 0, 0, 0, kind, flags, seq);
    }
    return test_build(slot, slot_size, 12, 0, 0, 40, kind, flags, seq);
}

static void test_expect_init(tc_frame_expect_t *e, uint32_t slot_size, uint32_t seq)
{
    memset(e, 0, sizeof(*e));
    e->slot_size  = slot_size;
    e->frame_size = 0;
    e->seq        = seq;
    e->known      = NULL;
    e->known_arg  = NULL;
}

/* Reject with a reason that contains word; also with a NULL reason and with
 * a zero-length reason buffer (which must stay untouched). */
static void test_rejects_at(const void *frame, const tc_frame_expect_t *e,
                            const char *word, const char *file, int line)
{
    char reason[256];
    char untouched[8];
    tc_status_t st;

    memset(reason, 'X', sizeof(reason));
    reason[sizeof(reason) - 1] = '\0';
    st = tc_frame_validate(frame, e, reason, sizeof(reason));
    if (st != TC_ERR_BAD_FRAME) {
        print_error("expected TC_ERR_BAD_FRAME (reason with '%s'), got %d (%s)\n",
                    word, (int)st, tc_status_str(st));
        _fail(file, line);
    }
    if (strstr(reason, word) == NULL) {
        print_error("reason '%s' does not mention '%s'\n", reason, word);
        _fail(file, line);
    }
    if (tc_frame_validate(frame, e, NULL, 0) != TC_ERR_BAD_FRAME) {
        print_error("NULL reason: not rejected ('%s')\n", word);
        _fail(file, line);
    }
    if (tc_frame_validate(frame, e, NULL, 100) != TC_ERR_BAD_FRAME) {
        print_error("NULL reason, nonzero length: not rejected ('%s')\n", word);
        _fail(file, line);
    }
    memset(untouched, 'U', sizeof(untouched));
    if (tc_frame_validate(frame, e, untouched, 0) != TC_ERR_BAD_FRAME) {
        print_error("zero-length reason buffer: not rejected ('%s')\n", word);
        _fail(file, line);
    }
    for (size_t i = 0; i < sizeof(untouched); i++) {
        if (untouched[i] != 'U') {
            print_error("zero-length reason buffer was written ('%s')\n", word);
            _fail(file, line);
        }
    }
    /* a short buffer is truncated, not overrun, and stays terminated */
    memset(reason, 'Y', sizeof(reason));
    if ((tc_frame_validate(frame, e, reason, 5) != TC_ERR_BAD_FRAME) ||
        (strlen(reason) != 4) || (reason[5] != 'Y')) {
        print_error("5-byte reason buffer mishandled ('%s')\n", word);
        _fail(file, line);
    }
}

#define assert_rejects(_frame, _expect, _word) \
    test_rejects_at((_frame), (_expect), (_word), __FILE__, __LINE__)

static void test_accepts_at(const void *frame, const tc_frame_expect_t *e,
                            const char *file, int line)
{
    char reason[256] = "";
    tc_status_t st = tc_frame_validate(frame, e, reason, sizeof(reason));

    if (st != TC_OK) {
        print_error("frame rejected: %d (%s): %s\n", (int)st, tc_status_str(st), reason);
        _fail(file, line);
    }
    if (tc_frame_validate(frame, e, NULL, 0) != TC_OK) {
        print_error("frame rejected with a NULL reason buffer\n");
        _fail(file, line);
    }
}

#define assert_accepts(_frame, _expect) \
    test_accepts_at((_frame), (_expect), __FILE__, __LINE__)

/* known() callback that records its calls and answers as told. */
typedef struct {
    int      answer;
    unsigned calls;
    uint32_t pkg_id;
    uint16_t element;
    uint8_t  kind;
} test_known_t;

static int test_known(void *arg, uint32_t pkg_id, uint16_t element, uint8_t kind)
{
    test_known_t *k = arg;

    k->calls++;
    k->pkg_id  = pkg_id;
    k->element = element;
    k->kind    = kind;
    return k->answer;
}

/* ------------------------------------------------------- size and layout */

static void test_size_for(void **state)
{
    uint32_t n;

    (void)state;
    assert_int_equal(tc_frame_size_for(0), 64);
    assert_int_equal(tc_frame_size_for(1), 64);
    assert_int_equal(tc_frame_size_for(8), 64);
    assert_int_equal(tc_frame_size_for(9), 128);
    assert_int_equal(tc_frame_size_for(72), 128);
    assert_int_equal(tc_frame_size_for(73), 192);
    assert_int_equal(tc_frame_size_for(4096), 4160);

    for (n = 0; n < 5000; n++) {
        uint32_t size = tc_frame_size_for(n);

        assert_int_equal(size % TC_FRAME_ALIGN, 0);
        assert_true(size >= TC_FRAME_HDR_SIZE + n + TC_FRAME_SIG_SIZE);
        assert_true(size < TC_FRAME_HDR_SIZE + n + TC_FRAME_SIG_SIZE + TC_FRAME_ALIGN);
        assert_int_equal(size, test_align_up(n + 56, 64));
    }
    /* the largest payload whose frame still fits 32 bits */
    assert_int_equal(tc_frame_size_for(UINT32_MAX - 119u), 0xFFFFFFC0u);
    assert_int_equal(tc_frame_size_for(UINT32_MAX - 126u), 0xFFFFFFC0u);
    assert_int_equal(tc_frame_size_for(UINT32_MAX), UINT32_MAX);
    assert_int_equal(tc_frame_size_for(UINT32_MAX - 118), UINT32_MAX);
}

static void test_size_for_matches_layout(void **state)
{
    uint32_t n;

    (void)state;
    for (n = 0; n < 3000; n += 7) {
        tc_frame_layout_t layout = {0, 0, 0, n};
        tc_frame_offsets_t off;

        assert_int_equal(tc_frame_layout(&layout, UINT32_MAX, &off), TC_OK);
        assert_int_equal(off.frame_size, tc_frame_size_for(n));
        assert_int_equal(off.payload_off, TC_FRAME_HDR_SIZE);
    }
}

static void test_layout_example(void **state)
{
    tc_frame_layout_t layout = {5, 3, 7, 10};
    tc_frame_offsets_t off;

    (void)state;
    assert_int_equal(tc_frame_layout(&layout, 4096, &off), TC_OK);
    assert_int_equal(off.args_off, 48);
    assert_int_equal(off.got_off, 64);      /* 48 + 5 -> 64-aligned: it carries code */
    assert_int_equal(off.code_off, 96);     /* 64 + 24 -> 16-aligned */
    assert_int_equal(off.payload_off, 104); /* 96 + 7 -> 8-aligned */
    assert_int_equal(off.frame_size, 128);  /* 104 + 10 + 8 = 122 -> 128 */

    /* GOTP end not 16-aligned: CODE moves up */
    layout = (tc_frame_layout_t){8, 1, 1, 0};
    assert_int_equal(tc_frame_layout(&layout, 4096, &off), TC_OK);
    assert_int_equal(off.got_off, 64);
    assert_int_equal(off.code_off, 80);
    assert_int_equal(off.payload_off, 88);
    assert_int_equal(off.frame_size, 128);

    /* no code: GOTP need only be 8-aligned */
    layout = (tc_frame_layout_t){5, 0, 0, 10};
    assert_int_equal(tc_frame_layout(&layout, 4096, &off), TC_OK);
    assert_int_equal(off.got_off, 56);
    assert_int_equal(off.code_off, 64);
    assert_int_equal(off.payload_off, 64);

    /* empty: header and signal only */
    layout = (tc_frame_layout_t){0, 0, 0, 0};
    assert_int_equal(tc_frame_layout(&layout, 64, &off), TC_OK);
    assert_int_equal(off.args_off, 48);
    assert_int_equal(off.got_off, 48);
    assert_int_equal(off.code_off, 48);
    assert_int_equal(off.payload_off, 48);
    assert_int_equal(off.frame_size, 64);
}

static void test_layout_properties(void **state)
{
    static const uint32_t args[]  = {0, 1, 7, 8, 9, 15, 16, 17, 63, 100, 65535};
    static const uint32_t gots[]  = {0, 1, 2, 3, 100, 65535};
    static const uint32_t codes[] = {0, 1, 15, 16, 17, 333, 65535};
    static const uint32_t pays[]  = {0, 1, 7, 8, 55, 56, 57, 1000, 65536, 1u << 20};
    size_t a, g, c, p;

    (void)state;
    for (a = 0; a < TEST_ARRAY_SIZE(args); a++) {
        for (g = 0; g < TEST_ARRAY_SIZE(gots); g++) {
            for (c = 0; c < TEST_ARRAY_SIZE(codes); c++) {
                for (p = 0; p < TEST_ARRAY_SIZE(pays); p++) {
                    tc_frame_layout_t layout = {args[a], gots[g], codes[c], pays[p]};
                    uint32_t got_off  = test_align_up(48 + args[a],
                                                      (gots[g] || codes[c]) ? 64 : 8);
                    uint32_t code_off = test_align_up(got_off + gots[g] * 8, 16);
                    uint32_t pay_off  = test_align_up(code_off + codes[c], 8);
                    uint32_t size     = test_align_up(pay_off + pays[p] + 8, 64);
                    tc_frame_offsets_t off;
                    tc_status_t st = tc_frame_layout(&layout, UINT32_MAX, &off);

                    if (pay_off > UINT16_MAX) {
                        assert_int_equal(st, TC_ERR_OUT_OF_RANGE);
                        continue;
                    }
                    assert_int_equal(st, TC_OK);
                    assert_int_equal(off.args_off, TC_FRAME_HDR_SIZE);
                    assert_int_equal(off.got_off, got_off);
                    assert_int_equal(off.code_off, code_off);
                    assert_int_equal(off.payload_off, pay_off);
                    assert_int_equal(off.frame_size, size);
                    assert_int_equal(off.got_off % 8, 0);
                    assert_int_equal(off.code_off % 16, 0);
                    assert_int_equal(off.payload_off % 8, 0);
                    assert_int_equal(off.frame_size % 64, 0);
                    assert_true(off.got_off >= off.args_off + args[a]);
                    assert_true(off.code_off >= off.got_off + gots[g] * 8);
                    assert_true(off.payload_off >= off.code_off + codes[c]);
                    assert_true(off.frame_size >= off.payload_off + pays[p] + 8);

                    /* max_size is inclusive */
                    assert_int_equal(tc_frame_layout(&layout, size, &off), TC_OK);
                    assert_int_equal(tc_frame_layout(&layout, size - 1, &off),
                                     TC_ERR_OUT_OF_RANGE);
                }
            }
        }
    }
}

static void test_layout_out_of_range(void **state)
{
    tc_frame_offsets_t off, sentinel;
    tc_frame_layout_t layout;

    (void)state;
    memset(&sentinel, 0x5a, sizeof(sentinel));

#define CHECK_OOR(_args, _got, _code, _pay, _max)                              \
    do {                                                                       \
        layout = (tc_frame_layout_t){(_args), (_got), (_code), (_pay)};        \
        off    = sentinel;                                                     \
        assert_int_equal(tc_frame_layout(&layout, (_max), &off),               \
                         TC_ERR_OUT_OF_RANGE);                                 \
        assert_memory_equal(&off, &sentinel, sizeof(off)); /* untouched */     \
    } while (0)

    /* over max_size */
    CHECK_OOR(0, 0, 0, 9, 64);
    CHECK_OOR(0, 0, 0, 4096, 4096);
    CHECK_OOR(0, 0, 0, 0, 63);
    CHECK_OOR(0, 0, 0, 0, 0);
    CHECK_OOR(100, 0, 0, 0, 128);
    /* payload too large for 32 bits: no wrap to a small frame */
    CHECK_OOR(0, 0, 0, UINT32_MAX, UINT32_MAX);
    CHECK_OOR(0, 0, 0, UINT32_MAX - 56, UINT32_MAX);
    CHECK_OOR(0, 0, 0, UINT32_MAX - 118, UINT32_MAX);
    /* 16-bit header fields */
    CHECK_OOR(65536, 0, 0, 0, UINT32_MAX);
    CHECK_OOR(0, 65536, 0, 0, UINT32_MAX);
    CHECK_OOR(0, 0, 65536, 0, UINT32_MAX);
    CHECK_OOR(UINT32_MAX, 0, 0, 0, UINT32_MAX);
    CHECK_OOR(0, UINT32_MAX, 0, 0, UINT32_MAX);
    CHECK_OOR(0, 0, UINT32_MAX, 0, UINT32_MAX);
    /* each field fits 16 bits, but payload_off does not */
    CHECK_OOR(65535, 0, 0, 0, UINT32_MAX);
    CHECK_OOR(0, 65535, 0, 0, UINT32_MAX);
    CHECK_OOR(0, 0, 65535, 0, UINT32_MAX);
    CHECK_OOR(0, 8192, 0, 0, UINT32_MAX);   /* 48 + 65536 */
    CHECK_OOR(65473, 0, 0, 0, UINT32_MAX);  /* CODE aligns up to 65536 */
#undef CHECK_OOR

    /* the largest payload_off that fits */
    layout = (tc_frame_layout_t){65472, 0, 0, 0};
    assert_int_equal(tc_frame_layout(&layout, UINT32_MAX, &off), TC_OK);
    assert_int_equal(off.payload_off, 65520);
    layout = (tc_frame_layout_t){0, 0, 65535 - 64 - 7, 0}; /* CODE at 64: 65464 -> 65528 */
    assert_int_equal(tc_frame_layout(&layout, UINT32_MAX, &off), TC_OK);
    assert_int_equal(off.payload_off, 65528);
    /* largest frame that fits 32 bits */
    layout = (tc_frame_layout_t){0, 0, 0, UINT32_MAX - 119};
    assert_int_equal(tc_frame_layout(&layout, UINT32_MAX, &off), TC_OK);
    assert_int_equal(off.frame_size, 0xFFFFFFC0u);
}

/* ---------------------------------------------------- write_hdr and seal */

static void test_write_hdr_fields(void **state)
{
    tc_frame_layout_t layout = {5, 3, 7, 10};
    tc_frame_offsets_t off;
    uint8_t *slot = test_slot_alloc(256);
    tc_frame_hdr_t *h = test_hdr(slot);
    uint32_t i;

    (void)state;
    assert_int_equal(tc_frame_layout(&layout, 256, &off), TC_OK);
    memset(slot, 0xEE, 256);
    tc_frame_write_hdr(slot, &off, &layout, TC_KIND_INJECTED, TC_FRAME_F_WANT_REPLY,
                       0xdeadbeefu, 0x4321, 0x89abcdefu);
    assert_int_equal(h->frame_size, 128);
    assert_int_equal(h->seq, 0x89abcdefu);
    assert_int_equal(h->pkg_id, 0xdeadbeefu);
    assert_int_equal(h->element, 0x4321);
    assert_int_equal(h->kind, TC_KIND_INJECTED);
    assert_int_equal(h->flags, TC_FRAME_F_WANT_REPLY);
    assert_int_equal(h->ack, 0);
    assert_int_equal(h->payload_len, 10);
    assert_int_equal(h->payload_off, 104);
    assert_int_equal(h->args_len, 5);
    assert_int_equal(h->got_count, 3);
    assert_int_equal(h->code_len, 7);
    assert_int_equal(h->ret, 0);
    assert_int_equal(h->ret_seq, 0);
    assert_int_equal(h->version, TC_PROTO_VERSION);
    assert_int_equal(h->reserved, 0);
    assert_int_equal(h->mag, TC_FRAME_MAG);
    assert_int_equal(slot[TC_FRAME_HDR_SIZE - 1], TC_FRAME_MAG); /* MAG is last */
    assert_int_equal(offsetof(tc_frame_hdr_t, mag), TC_FRAME_HDR_SIZE - 1);
    /* nothing past the header, and no SIG yet */
    for (i = TC_FRAME_HDR_SIZE; i < 256; i++) {
        assert_int_equal(slot[i], 0xEE);
    }

    /* seal writes exactly the last 8 bytes of the frame */
    tc_frame_seal(slot);
    assert_true(test_sig_at(slot, 128) == tc_frame_sig(0x89abcdefu));
    assert_true(*tc_frame_sig_ptr(slot, 128) == tc_frame_sig(0x89abcdefu));
    for (i = TC_FRAME_HDR_SIZE; i < 256; i++) {
        if ((i >= 120) && (i < 128)) {
            continue;
        }
        assert_int_equal(slot[i], 0xEE);
    }
    free(slot);
}

/* The sender's stamps in registers (tc_frame_stamp_words) are the field
 * stores they replace: seq and ack always, flags/ret/ret_seq only with a
 * result; nothing else in the header moves. */
static void test_stamp_words(void **state)
{
    static const int has_rets[] = {0, 1};
    tc_frame_layout_t layout = {5, 3, 7, 10};
    tc_frame_offsets_t off;
    tc_frame_hdr_t tmpl, want, got;
    uint64_t w[TC_FRAME_HDR_SIZE / 8];
    unsigned k;

    (void)state;
    assert_int_equal(tc_frame_layout(&layout, 256, &off), TC_OK);
    memset(&tmpl, 0xEE, sizeof(tmpl));
    tc_frame_write_hdr(&tmpl, &off, &layout, TC_KIND_LOCAL, TC_FRAME_F_WANT_REPLY, 0xdeadbeefu,
                       0x4321, 7);
    for (k = 0; k < 2; ++k) {
        want         = tmpl;
        want.seq     = 0x89abcdefu;
        want.ack     = 0xfedcba98u;
        if (has_rets[k]) {
            want.flags  |= TC_FRAME_F_HAS_RET;
            want.ret     = -0x123456789abcdefll;
            want.ret_seq = 0x76543210u;
        }
        tc_frame_load_words(&tmpl, w);
        tc_frame_stamp_words(w, 0x89abcdefu, 0xfedcba98u, has_rets[k], -0x123456789abcdefll,
                             0x76543210u);
        memcpy(&got, w, sizeof(got));
        assert_memory_equal(&got, &want, sizeof(want));
    }
}

/* tc_place_store_hdr leaves the slot as tc_place_store of the frame with
 * that header would, at one line, two, 1 KiB of lines and one past
 * TC_PLACE_LINEWISE_INTEL, each with either CPU's linewise_max (line by
 * line or one memcpy); nothing past the frame is written. */
static void test_place_store_hdr(void **state)
{
    static const uint32_t sizes[]    = {64, 128, 1088, TC_PLACE_LINEWISE_INTEL + 192};
    static const uint32_t linewise[] = {TC_PLACE_LINEWISE_INTEL, TC_PLACE_LINEWISE_AMD};
    uint32_t max = TC_PLACE_LINEWISE_INTEL + 256, i, k, l;
    char *frame = malloc(max), *want = malloc(max), *got = malloc(max);
    uint64_t w[TC_FRAME_HDR_SIZE / 8];

    (void)state;
    assert_non_null(frame);
    assert_non_null(want);
    assert_non_null(got);
    for (l = 0; l < TEST_ARRAY_SIZE(linewise); ++l) {
        for (k = 0; k < TEST_ARRAY_SIZE(sizes); ++k) {
            for (i = 0; i < max; ++i) {
                frame[i] = (char)(i * 7 + k);
            }
            for (i = 0; i < TC_FRAME_HDR_SIZE / 8; ++i) {
                w[i] = 0x0101010101010101ull * (i + 1);
            }
            memset(want, 0x5A, max);
            memset(got, 0x5A, max);
            memcpy(want, frame, sizes[k]);
            memcpy(want, w, sizeof(w));
            memcpy(want + sizes[k] - 8, &(uint64_t){tc_frame_sig(9)}, 8);
            tc_place_store_hdr(got, w, frame, sizes[k], tc_frame_sig(9), linewise[l]);
            assert_memory_equal(got, want, max);
        }
    }
    free(got);
    free(want);
    free(frame);
}

/* tc_place_seal (a frame packed in place) writes the header's words, the
 * staged sections up to where the payload starts (none for a plain frame;
 * an injected frame's GOTP and code, ending mid-line) and the signal, and
 * nothing else: the payload the pack left, the pad stay as they were,
 * nothing past the frame is touched. */
static void test_place_seal(void **state)
{
    static const uint32_t sizes[] = {64, 128, 1088};
    static const uint32_t ends[]  = {TC_FRAME_HDR_SIZE, 64 + 8 + 200};
    uint32_t max = 1088 + 64, i, k, e;
    char *want = malloc(max), *got = malloc(max), *frame = malloc(max);
    uint64_t w[TC_FRAME_HDR_SIZE / 8];

    (void)state;
    assert_non_null(want);
    assert_non_null(got);
    assert_non_null(frame);
    for (i = 0; i < TC_FRAME_HDR_SIZE / 8; ++i) {
        w[i] = 0x1111111111111111ull * (i + 1);
    }
    for (i = 0; i < max; ++i) {
        frame[i] = (char)(i * 5 + 1);
    }
    for (e = 0; e < TEST_ARRAY_SIZE(ends); ++e) {
        for (k = 0; k < TEST_ARRAY_SIZE(sizes); ++k) {
            if (ends[e] + 8 > sizes[k]) {
                continue;
            }
            for (i = 0; i < max; ++i) {
                got[i] = (char)(i * 13 + k);
            }
            memcpy(want, got, max);
            memcpy(want, w, sizeof(w));
            memcpy(want + TC_FRAME_HDR_SIZE, frame + TC_FRAME_HDR_SIZE,
                   ends[e] - TC_FRAME_HDR_SIZE);
            memcpy(want + sizes[k] - 8, &(uint64_t){tc_frame_sig(77)}, 8);
            tc_place_seal(got, w, frame, ends[e], sizes[k], tc_frame_sig(77));
            assert_memory_equal(got, want, max);
        }
    }
    free(frame);
    free(got);
    free(want);
}

/* Each CPU's choices, from its vendor: the copy (tc_place_linewise_max:
 * AMD's memcpy from 1 KiB of lines, Intel's lines up to 8 KiB) and the
 * payload size packed in place from (tc_place_direct_min: AMD's 256 B,
 * Intel's 16 KiB; tc_place_direct_min_unread, for a jam that leaves its
 * payload unread: AMD's 256 B, 1 KiB elsewhere); Intel's where nothing was
 * measured (no vendor: aarch64). */
static void test_place_cpu_choices(void **state)
{
    static const struct {
        const char *vendor;
        uint32_t    linewise_max, direct_min, direct_min_unread;
    } cpus[] = {
        {"", TC_PLACE_LINEWISE_INTEL, TC_PACK_DIRECT_MIN_INTEL, TC_PACK_DIRECT_MIN_UNREAD},
        {"AuthenticAMD", TC_PLACE_LINEWISE_AMD, TC_PACK_DIRECT_MIN_AMD, TC_PACK_DIRECT_MIN_AMD},
        {"GenuineIntel", TC_PLACE_LINEWISE_INTEL, TC_PACK_DIRECT_MIN_INTEL,
         TC_PACK_DIRECT_MIN_UNREAD},
    };
    tc_cpu_ident_t id;
    unsigned c;

    (void)state;
    for (c = 0; c < TEST_ARRAY_SIZE(cpus); ++c) {
        memset(&id, 0, sizeof(id));
        snprintf(id.vendor, sizeof(id.vendor), "%s", cpus[c].vendor);
        assert_int_equal(tc_place_linewise_max(&id), cpus[c].linewise_max);
        assert_int_equal(tc_place_direct_min(&id), cpus[c].direct_min);
        assert_int_equal(tc_place_direct_min_unread(&id), cpus[c].direct_min_unread);
    }
    assert_true(TC_PLACE_LINEWISE_AMD < 1024u);
    assert_int_equal(TC_PLACE_LINEWISE_AMD % 64u, 0);
    assert_true(TC_PACK_DIRECT_MIN_AMD < TC_PACK_DIRECT_MIN_INTEL);
    /* in place only where the frame has lines besides the header's and the
     * signal's (a payload of 256 B: five) */
    assert_true(TC_PACK_DIRECT_MIN_AMD + TC_FRAME_HDR_SIZE + TC_FRAME_SIG_SIZE > 3 * 64u);
}

/* TC_CPU_TUNE picks the CPU those choices are made for (tc_cpu_tune_ident,
 * what a connect uses): generic (no vendor: the defaults), intel or amd
 * whatever this CPU is; auto, unset or anything else: this CPU. */
static void test_cpu_tune(void **state)
{
    static const struct {
        const char *tune, *vendor;
        uint32_t    linewise_max;
    } tunes[] = {
        {"generic", "", TC_PLACE_LINEWISE_INTEL},
        {"amd", "AuthenticAMD", TC_PLACE_LINEWISE_AMD},
        {"intel", "GenuineIntel", TC_PLACE_LINEWISE_INTEL},
    };
    tc_cpu_ident_t id, host;
    unsigned t;

    (void)state;
    tc_cpu_ident(&host);
    for (t = 0; t < TEST_ARRAY_SIZE(tunes); ++t) {
        setenv(TC_CPU_TUNE_ENV, tunes[t].tune, 1);
        tc_cpu_tune_ident(&id);
        assert_string_equal(id.vendor, tunes[t].vendor);
        assert_int_equal(tc_place_linewise_max(&id), tunes[t].linewise_max);
        /* only the vendor is overridden */
        assert_int_equal(id.family, host.family);
        assert_int_equal(id.l7_ebx, host.l7_ebx);
    }
    setenv(TC_CPU_TUNE_ENV, "auto", 1);
    tc_cpu_tune_ident(&id);
    assert_string_equal(id.vendor, host.vendor);
    setenv(TC_CPU_TUNE_ENV, "zen\n5", 1);
    tc_cpu_tune_ident(&id);
    assert_string_equal(id.vendor, host.vendor);
    unsetenv(TC_CPU_TUNE_ENV);
    tc_cpu_tune_ident(&id);
    assert_string_equal(id.vendor, host.vendor);
}

/* The fast path's shape (tc_frame_same_shape): a later frame of the
 * shape of one the validator passed matches with any seq, ack, result and
 * payload length the frame holds; a change to anything else does not; and
 * whatever matches, the validator passes too. */
static int test_same_shape_at(const uint8_t *frame, const tc_frame_shape_t *shape,
                              uint32_t size, uint32_t seq)
{
    tc_frame_hdr_t hdr;

    memcpy(&hdr, frame, sizeof(hdr));
    return tc_frame_same_shape(&hdr, shape, size, seq, test_sig_at(frame, size));
}

static void test_same_shape(void **state)
{
    const uint32_t slot_size = 256;
    uint8_t *slot = test_slot_alloc(slot_size), *copy = test_slot_alloc(slot_size);
    tc_frame_shape_t shape;
    tc_frame_expect_t e;
    uint32_t size, i, bit, seq;
    tc_frame_hdr_t *h = test_hdr(copy);
    uint64_t rng = 0x9e3779b97f4a7c15ull;

    (void)state;
    size = test_build(slot, slot_size, 0, 0, 0, 40, TC_KIND_LOCAL, TC_FRAME_F_HAS_RET, 7);
    test_expect_init(&e, slot_size, 7);
    e.frame_size = size;
    assert_accepts(slot, &e);
    tc_frame_shape_of(test_hdr(slot), size, &shape);
    assert_int_equal(shape.len_max, size - TC_FRAME_HDR_SIZE - TC_FRAME_SIG_SIZE);
    assert_true(test_same_shape_at(slot, &shape, size, 7));

    /* the per-frame fields may change */
    memcpy(copy, slot, slot_size);
    h->seq         = 8;
    h->ack         = 12345;
    h->ret         = -77;
    h->ret_seq     = 99;
    h->payload_len = shape.len_max;
    h->reserved    = 0x5a; /* the validator does not look at it either */
    test_set_sig(copy, size, tc_frame_sig(8));
    assert_true(test_same_shape_at(copy, &shape, size, 8));
    h->payload_len = shape.len_max + 1; /* past the SIG: no */
    assert_false(test_same_shape_at(copy, &shape, size, 8));
    h->payload_len = 0;
    assert_true(test_same_shape_at(copy, &shape, size, 8));
    /* the expected seq, size and signal only */
    assert_false(test_same_shape_at(copy, &shape, size, 9));
    assert_false(test_same_shape_at(copy, &shape, size - 64, 8));
    test_set_sig(copy, size, tc_frame_sig(7));
    assert_false(test_same_shape_at(copy, &shape, size, 8));

    /* every bit of the name and layout words, of frame_size, seq, version
     * and mag */
    for (i = 0; i < TC_FRAME_HDR_SIZE; ++i) {
        int fixed = ((i >= 8) && (i < 16)) || ((i >= 24) && (i < 32)) || (i < 8) ||
                    (i == 44) || (i == 45) || (i == 47);
        if (!fixed) {
            continue;
        }
        for (bit = 0; bit < 8; ++bit) {
            memcpy(copy, slot, slot_size);
            copy[i] ^= (uint8_t)(1u << bit);
            assert_false(test_same_shape_at(copy, &shape, size, 7));
        }
    }

    /* whatever matches, the validator passes: random per-frame fields and
     * random bytes anywhere in the header, over many frames */
    for (i = 0; i < 20000; ++i) {
        memcpy(copy, slot, slot_size);
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        seq = (uint32_t)(rng >> 33);
        h->seq = seq;
        h->ack = (uint32_t)rng;
        h->payload_len = (uint32_t)(rng >> 20) % (shape.len_max + 8);
        if (i & 1) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            copy[(rng >> 40) % TC_FRAME_HDR_SIZE] ^= (uint8_t)(rng >> 16);
        }
        test_set_sig(copy, size, tc_frame_sig(seq));
        if (test_same_shape_at(copy, &shape, size, seq)) {
            test_expect_init(&e, slot_size, seq);
            e.frame_size = size;
            assert_int_equal(tc_frame_validate(copy, &e, NULL, 0), TC_OK);
        }
    }
    free(copy);
    free(slot);
}

/* One-line frames (tc_frame_line_words, tc_place_store_line): the line
 * the sender stores from registers is byte for byte the frame the general
 * path writes (tc_frame_write_hdr, then tc_frame_stamp_words, the payload
 * word and the seal) for every seq, ack, payload length up to the line's,
 * flag and result; the validator accepts it as the frame it expects, and a
 * later one matches the shape of the first (the receiver's fast path). */
static void test_line_words(void **state)
{
    uint8_t *line = test_slot_alloc(TC_FRAME_ALIGN), *ref = test_slot_alloc(TC_FRAME_ALIGN);
    const tc_frame_layout_t none = {0, 0, 0, 0};
    uint64_t rng = TEST_SEED, w[TC_FRAME_HDR_SIZE / 8], payload, name;
    tc_frame_layout_t layout;
    tc_frame_offsets_t off;
    tc_frame_shape_t shape;
    tc_frame_expect_t e;
    uint32_t i, seq, ack, len, ret_seq;
    uint8_t kind, flags, has;
    int64_t ret;

    (void)state;
    assert_int_equal(TC_FRAME_LINE_PAYLOAD, 8);
    assert_int_equal(tc_frame_layout(&none, TC_FRAME_ALIGN, &off), TC_OK);
    assert_int_equal(off.payload_off, TC_FRAME_HDR_SIZE);
    for (i = 0; i < 20000; ++i) {
        seq     = (uint32_t)test_rand(&rng);
        ack     = (uint32_t)test_rand(&rng);
        len     = (uint32_t)test_rand(&rng) % (TC_FRAME_LINE_PAYLOAD + 1);
        kind    = (test_rand(&rng) & 1) ? TC_KIND_LOCAL : TC_KIND_CACHED;
        flags   = (uint8_t)(test_rand(&rng) & TC_FRAME_F_WANT_REPLY);
        has     = (uint8_t)(test_rand(&rng) & 1);
        ret     = has ? (int64_t)test_rand(&rng) : 0;
        ret_seq = has ? (uint32_t)test_rand(&rng) : 0;
        payload = test_rand(&rng);
        name    = tc_frame_line_name(0x1234abcdu + (i & 3), (uint16_t)(i % 5), kind, flags);

        tc_frame_line_words(w, seq, name, ack, len, has, ret, ret_seq);
        memset(line, 0xa5, TC_FRAME_ALIGN);
        tc_place_store_line((char *)line, w, payload, tc_frame_sig(seq));

        layout = none;
        layout.payload_len = len;
        assert_int_equal(tc_frame_layout(&layout, TC_FRAME_ALIGN, &off), TC_OK);
        assert_int_equal(off.frame_size, TC_FRAME_ALIGN);
        memset(ref, 0x5a, TC_FRAME_ALIGN);
        tc_frame_write_hdr(ref, &off, &layout, kind, flags, 0x1234abcdu + (i & 3),
                           (uint16_t)(i % 5), 0);
        tc_frame_load_words(test_hdr(ref), w);
        tc_frame_stamp_words(w, seq, ack, has, ret, ret_seq);
        tc_frame_store_words(ref, w);
        memcpy(ref + TC_FRAME_HDR_SIZE, &payload, sizeof(payload));
        tc_frame_seal(ref);
        assert_memory_equal(line, ref, TC_FRAME_ALIGN);

        test_expect_init(&e, TC_FRAME_ALIGN, seq);
        e.frame_size = TC_FRAME_ALIGN;
        assert_accepts(line, &e);
        if (i == 0) {
            tc_frame_shape_of(test_hdr(line), TC_FRAME_ALIGN, &shape);
        } else if ((shape.w_name == (name | ((uint64_t)has << 57)))) {
            assert_true(test_same_shape_at(line, &shape, TC_FRAME_ALIGN, seq));
        }
    }
    free(ref);
    free(line);
}

/* Line frames (lib/codec/frame_line.h): what the sender stores expands into the
 * general header it stands for, field by field, for every seq, ack,
 * length up to the line's room, kind, flag and result; the line validator
 * accepts it where fixed 64-byte frames are expected and hands back that
 * header; the general validator never takes a line for a general frame; a
 * later line of the first one's shape matches it (the receiver's two
 * compares) and one that differs in any checked field does not. */
static void test_line_compact(void **state)
{
    uint8_t *line = test_slot_alloc(TC_FRAME_ALIGN);
    uint64_t rng = TEST_SEED, w[TC_FRAME_LINE_WORDS], got[TC_FRAME_LINE_WORDS], payload[3];
    tc_frame_hdr_t hdr, first;
    tc_frame_shape_t shape, own, general;
    tc_frame_expect_t e;
    uint32_t i, seq, ack, len, ret_seq, pkg;
    uint16_t element;
    uint8_t kind, flags, has;
    int64_t ret;
    int same;

    (void)state;
    assert_int_equal(TC_FRAME_LINE_ROOM, 24);
    /* the shape every line of local element 0 of package 0x1234abcd,
     * without a reply asked, repeats */
    tc_frame_line_hdr(w, 0, tc_frame_line_word(TC_KIND_LOCAL, 0),
                      tc_frame_line_id(0x1234abcdu, 0), 0, 0, 0, 0, 0);
    tc_frame_line_expand(w, &first);
    tc_frame_line_shape(&first, &shape);
    for (i = 0; i < 20000; ++i) {
        seq     = (uint32_t)test_rand(&rng);
        ack     = (uint32_t)test_rand(&rng);
        len     = (uint32_t)test_rand(&rng) % (TC_FRAME_LINE_ROOM + 1);
        kind    = (test_rand(&rng) & 1) ? TC_KIND_LOCAL : TC_KIND_CACHED;
        flags   = (uint8_t)(test_rand(&rng) & TC_FRAME_F_WANT_REPLY);
        has     = (uint8_t)(test_rand(&rng) & 1);
        ret     = (int64_t)test_rand(&rng);
        ret_seq = (uint32_t)test_rand(&rng);
        pkg     = 0x1234abcdu + (i & 1);
        element = (uint16_t)(i % 3);
        payload[0] = test_rand(&rng);
        payload[1] = test_rand(&rng);
        payload[2] = test_rand(&rng);

        tc_frame_line_hdr(w, seq, tc_frame_line_word(kind, flags), tc_frame_line_id(pkg, element),
                          len, ack, has, ret, ret_seq);
        memset(line, 0xa5, TC_FRAME_ALIGN);
        tc_place_store_line_compact((char *)line, w, payload[0], tc_frame_sig(seq));
        memcpy(line + TC_FRAME_LINE_HDR_SIZE + 8, &payload[1], 16);
        assert_true(test_sig_at(line, TC_FRAME_ALIGN) == tc_frame_sig(seq));
        assert_memory_equal(line + TC_FRAME_LINE_HDR_SIZE, payload, sizeof(payload));

        tc_frame_line_load(line, got);
        assert_memory_equal(got, w, sizeof(w));
        assert_true(tc_frame_is_line(got[0]));
        tc_frame_line_expand(got, &hdr);
        assert_int_equal(hdr.frame_size, TC_FRAME_ALIGN);
        assert_int_equal(hdr.seq, seq);
        assert_int_equal(hdr.pkg_id, pkg);
        assert_int_equal(hdr.element, element);
        assert_int_equal(hdr.kind, kind);
        assert_int_equal(hdr.flags, flags | (has ? TC_FRAME_F_HAS_RET : 0));
        assert_int_equal(hdr.ack, ack);
        assert_int_equal(hdr.payload_len, len);
        assert_int_equal(hdr.payload_off, TC_FRAME_LINE_HDR_SIZE);
        assert_int_equal(hdr.args_len + hdr.got_count + hdr.code_len, 0);
        assert_true(hdr.ret == ret);
        assert_int_equal(hdr.ret_seq, ret_seq);
        assert_int_equal(hdr.version, TC_PROTO_VERSION);
        assert_int_equal(hdr.mag, TC_FRAME_MAG);

        test_expect_init(&e, TC_FRAME_ALIGN, seq);
        e.frame_size = TC_FRAME_ALIGN;
        memset(&first, 0x77, sizeof(first));
        assert_int_equal(tc_frame_validate_line(got, line, &e, &first, NULL, 0), TC_OK);
        assert_memory_equal(&first, &hdr, sizeof(hdr));
        /* never a general frame: bytes 0-3 are no frame size */
        assert_int_equal(tc_frame_validate(line, &e, NULL, 0), TC_ERR_BAD_FRAME);

        same = (pkg == 0x1234abcdu) && (element == 0) && (kind == TC_KIND_LOCAL) &&
               (flags == 0);
        assert_int_equal(tc_frame_line_same_shape(got[0], got[1], &shape, seq), same);
        tc_frame_line_shape(&hdr, &own);
        assert_true(own.w_line != 0);
        assert_true(tc_frame_line_same_shape(got[0], got[1], &own, seq));
        assert_false(tc_frame_line_same_shape(got[0], got[1], &own, seq + 1));
        tc_frame_shape_of(&hdr, TC_FRAME_ALIGN, &general); /* a general frame's shape */
        assert_int_equal(general.w_line, 0);
        assert_false(tc_frame_line_same_shape(got[0], got[1], &general, seq));
        /* a longer length than the line holds, another version or magic */
        got[0] = (got[0] & ~((uint64_t)0xFF << 8)) | ((uint64_t)(TC_FRAME_LINE_ROOM + 1) << 8);
        assert_false(tc_frame_line_same_shape(got[0], got[1], &own, seq));
        tc_frame_line_load(line, got);
        got[1] ^= (uint64_t)1 << 48;
        assert_false(tc_frame_line_same_shape(got[0], got[1], &own, seq));
        got[1] ^= ((uint64_t)1 << 48) | ((uint64_t)1 << 56);
        assert_false(tc_frame_line_same_shape(got[0], got[1], &own, seq));
    }
    free(line);
}

/* A line frame anywhere but where fixed 64-byte frames are expected, of a
 * kind lines do not carry, or whose expansion fails the general checks, is
 * rejected with its reason. */
static void test_line_compact_rejects(void **state)
{
    uint8_t *line = test_slot_alloc(TC_FRAME_ALIGN * 2);
    uint64_t w[TC_FRAME_LINE_WORDS];
    tc_frame_expect_t e;
    tc_frame_hdr_t hdr;
    char reason[256];

    (void)state;
#define LINE_REJECTS(_word)                                                                  \
    do {                                                                                     \
        tc_frame_line_load(line, w);                                                         \
        reason[0] = '\0';                                                                    \
        assert_int_equal(tc_frame_validate_line(w, line, &e, &hdr, reason, sizeof(reason)),  \
                         TC_ERR_BAD_FRAME);                                                  \
        if (strstr(reason, (_word)) == NULL) {                                               \
            fail_msg("reason '%s' does not mention '%s'", reason, (_word));                  \
        }                                                                                    \
    } while (0)
#define LINE_MAKE(_kind, _flags, _len)                                                       \
    do {                                                                                     \
        tc_frame_line_hdr(w, 7, tc_frame_line_word((_kind), (_flags)),                       \
                          tc_frame_line_id(0x42u, 1), (_len), 0, 0, 0, 0);                   \
        memset(line, 0, TC_FRAME_ALIGN * 2);                                                 \
        tc_place_store_line_compact((char *)line, w, 0, tc_frame_sig(7));                    \
        test_expect_init(&e, TC_FRAME_ALIGN, 7);                                             \
        e.frame_size = TC_FRAME_ALIGN;                                                       \
    } while (0)

    LINE_MAKE(TC_KIND_LOCAL, 0, 8);
    tc_frame_line_load(line, w);
    assert_int_equal(tc_frame_validate_line(w, line, &e, &hdr, reason, sizeof(reason)), TC_OK);
    e.frame_size = 0; /* variable frames */
    LINE_REJECTS("line frame (seq 7), but this side takes lines only with fixed 64-byte "
                 "frames (its frames: variable");
    e.frame_size = 128;
    e.slot_size  = 128;
    LINE_REJECTS("its frames: fixed 128 bytes");
    LINE_MAKE(TC_KIND_INJECTED, 0, 8);
    LINE_REJECTS("lines carry only local and cached jams");
    LINE_MAKE(TC_KIND_NOP, 0, 0);
    LINE_REJECTS("lines carry only local and cached jams");
    LINE_MAKE(TC_KIND_LOCAL, 0, TC_FRAME_LINE_ROOM + 1);
    LINE_REJECTS("truncated");
    LINE_MAKE(TC_KIND_LOCAL, TC_FRAME_F_CACHE, 8);
    LINE_REJECTS("asks to cache code");
    LINE_MAKE(TC_KIND_LOCAL, 0x80, 8);
    LINE_REJECTS("unknown flags");
    LINE_MAKE(TC_KIND_LOCAL, TC_FRAME_F_NO_RET | TC_FRAME_F_WANT_REPLY, 8);
    LINE_REJECTS("ask for a reply and for no result");
    LINE_MAKE(TC_KIND_LOCAL, 0, 8);
    line[14] = TC_PROTO_VERSION - 1;
    LINE_REJECTS("protocol version 3 (this side speaks 4)");
    LINE_MAKE(TC_KIND_LOCAL, 0, 8);
    line[15] ^= 1;
    LINE_REJECTS("bad magic");
    LINE_MAKE(TC_KIND_LOCAL, 0, 8);
    e.seq = 8;
    LINE_REJECTS("wrong sequence number 7");
    LINE_MAKE(TC_KIND_LOCAL, 0, 8);
    line[60] ^= 1;
    LINE_REJECTS("signal");
#undef LINE_MAKE
#undef LINE_REJECTS
    free(line);
}

static void test_sig_values(void **state)
{
    uint64_t rng = TEST_SEED;
    uint32_t i;

    (void)state;
    assert_true(tc_frame_sig(0) != 0);
    assert_true(tc_frame_sig(UINT32_MAX) != 0);
    assert_true(tc_frame_sig(0) != tc_frame_sig(1));
    assert_true(tc_frame_sig(0) != tc_frame_sig(UINT32_MAX));
    for (i = 0; i < 100000; i++) {
        uint32_t a = (uint32_t)test_rand(&rng);
        uint32_t b = (uint32_t)test_rand(&rng);

        assert_true(tc_frame_sig(a) != 0);
        assert_true(tc_frame_sig(i) != 0);
        assert_true(tc_frame_sig(i) != tc_frame_sig(i + 1)); /* lap to lap */
        if (a != b) {
            assert_true(tc_frame_sig(a) != tc_frame_sig(b));
        }
    }
}

static void test_valid_frames(void **state)
{
    static const uint8_t kinds[] = {TC_KIND_LOCAL, TC_KIND_INJECTED, TC_KIND_CACHED,
                                    TC_KIND_REPLY, TC_KIND_NOP};
    static const uint32_t seqs[] = {0, 1, TEST_SEQ, 0x7fffffffu, UINT32_MAX};
    size_t k, s;

    (void)state;
    for (k = 0; k < TEST_ARRAY_SIZE(kinds); k++) {
        for (s = 0; s < TEST_ARRAY_SIZE(seqs); s++) {
            uint8_t flags = TC_FRAME_F_HAS_RET;
            uint32_t size, slot_size;
            tc_frame_expect_t e;
            uint8_t *slot;

            if ((kinds[k] != TC_KIND_REPLY) && (kinds[k] != TC_KIND_NOP)) {
                flags |= TC_FRAME_F_WANT_REPLY;
            }
            /* the slot is exactly the frame: nothing past it may be read */
            slot = test_slot_alloc(TEST_SLOT_SIZE);
            size = test_build_kind(slot, TEST_SLOT_SIZE, kinds[k], flags, seqs[s]);
            free(slot);
            slot_size = size;
            slot = test_slot_alloc(slot_size);
            assert_int_equal(test_build_kind(slot, slot_size, kinds[k], flags, seqs[s]),
                             size);

            assert_int_equal(size % 64, 0);
            assert_true(test_sig_at(slot, size) == tc_frame_sig(seqs[s]));
            assert_true(test_sig_at(slot, size) != 0);

            test_expect_init(&e, slot_size, seqs[s]);
            assert_accepts(slot, &e);
            e.frame_size = size; /* fixed-size mode */
            assert_accepts(slot, &e);
            /* also without optional flags */
            test_hdr(slot)->flags = 0;
            assert_accepts(slot, &e);
            free(slot);
        }
    }
}

static void test_valid_frame_guarded(void **state)
{
    static const uint8_t kinds[] = {TC_KIND_LOCAL, TC_KIND_INJECTED, TC_KIND_CACHED,
                                    TC_KIND_REPLY, TC_KIND_NOP};
    size_t k;

    (void)state;
    for (k = 0; k < TEST_ARRAY_SIZE(kinds); k++) {
        test_guarded_t g;
        tc_frame_expect_t e;
        uint32_t size;
        uint8_t *slot = test_slot_alloc(TEST_SLOT_SIZE);

        size = test_build_kind(slot, TEST_SLOT_SIZE, kinds[k], 0, 3);
        free(slot);
        test_guarded_alloc(&g, size);
        assert_int_equal(test_build_kind(g.slot, size, kinds[k], 0, 3), size);
        test_expect_init(&e, size, 3);
        assert_accepts(g.slot, &e);
        test_guarded_free(&g);
    }
}

static void test_valid_injected_with_got_code(void **state)
{
    uint8_t *slot = test_slot_alloc(256);
    tc_frame_expect_t e;
    tc_frame_hdr_t *h = test_hdr(slot);
    uint32_t size;

    (void)state;
    size = test_build(slot, 256, 5, 3, 7, 10, TC_KIND_INJECTED, TC_FRAME_F_WANT_REPLY, 9);
    assert_int_equal(size, 128);
    assert_int_equal(h->got_count, 3);
    assert_int_equal(h->code_len, 7);
    test_expect_init(&e, 256, 9);
    assert_accepts(slot, &e);
    /* code only, no GOTP */
    memset(slot, 0, 256);
    test_build(slot, 256, 0, 0, 1, 0, TC_KIND_INJECTED, 0, 9);
    assert_accepts(slot, &e);
    free(slot);
}

/* A frame padded up to a fixed size larger than its sections need. */
static void test_valid_fixed_padded(void **state)
{
    tc_frame_layout_t layout = {0, 0, 0, 8};
    tc_frame_offsets_t off;
    uint8_t *slot = test_slot_alloc(256);
    tc_frame_expect_t e;

    (void)state;
    assert_int_equal(tc_frame_layout(&layout, 256, &off), TC_OK);
    assert_int_equal(off.frame_size, 64);
    off.frame_size = 256;
    tc_frame_write_hdr(slot, &off, &layout, TC_KIND_LOCAL, 0, 1, 2, 0);
    tc_frame_seal(slot);
    assert_true(test_sig_at(slot, 256) == tc_frame_sig(0));
    test_expect_init(&e, 256, 0);
    e.frame_size = 256;
    assert_accepts(slot, &e);
    free(slot);
}

static void test_payload_boundary(void **state)
{
    uint8_t *slot = test_slot_alloc(128);
    tc_frame_hdr_t *h = test_hdr(slot);
    tc_frame_expect_t e;

    (void)state;
    test_build(slot, 128, 0, 0, 0, 72, TC_KIND_LOCAL, 0, 0); /* 48 + 72 + 8 = 128 */
    test_expect_init(&e, 128, 0);
    assert_accepts(slot, &e);
    h->payload_len = 73;
    assert_rejects(slot, &e, "truncated");
    free(slot);
}

static void test_kind_str(void **state)
{
    (void)state;
    assert_string_equal(tc_frame_kind_str(TC_KIND_LOCAL), "local");
    assert_string_equal(tc_frame_kind_str(TC_KIND_INJECTED), "injected");
    assert_string_equal(tc_frame_kind_str(TC_KIND_CACHED), "cached");
    assert_string_equal(tc_frame_kind_str(TC_KIND_REPLY), "reply");
    assert_string_equal(tc_frame_kind_str(TC_KIND_NOP), "nop");
    assert_string_equal(tc_frame_kind_str(TC_KIND_LAST), "unknown");
    assert_string_equal(tc_frame_kind_str(255), "unknown");
    assert_non_null(tc_frame_kind_str(0));
}

/* -------------------------------------------------------------- rejections */

/* A valid LOCAL frame of 128 B in a slot of exactly 128 B, expecting seq. */
typedef struct {
    uint8_t          *slot;
    tc_frame_hdr_t   *h;
    tc_frame_expect_t e;
    uint32_t          size;
} test_fx_t;

static void test_fx_init(test_fx_t *fx, uint32_t slot_size, uint8_t kind, uint8_t flags)
{
    fx->slot = test_slot_alloc(slot_size);
    fx->h    = test_hdr(fx->slot);
    fx->size = test_build_kind(fx->slot, slot_size, kind, flags, TEST_SEQ);
    test_expect_init(&fx->e, slot_size, TEST_SEQ);
    assert_accepts(fx->slot, &fx->e);
}

static void test_fx_fini(test_fx_t *fx)
{
    free(fx->slot);
}

static void test_reject_magic(void **state)
{
    static const uint8_t mags[] = {0, 0xC6, 0xC8, 0x47, 0xFF};
    size_t i;

    (void)state;
    for (i = 0; i < TEST_ARRAY_SIZE(mags); i++) {
        test_fx_t fx;

        test_fx_init(&fx, 128, TC_KIND_LOCAL, 0);
        fx.h->mag = mags[i];
        assert_rejects(fx.slot, &fx.e, "magic");
        test_fx_fini(&fx);
    }
}

static void test_reject_version(void **state)
{
    static const uint16_t versions[] = {0, TC_PROTO_VERSION + 1, 0x100 | TC_PROTO_VERSION,
                                        0xFFFF};
    size_t i;

    (void)state;
    for (i = 0; i < TEST_ARRAY_SIZE(versions); i++) {
        test_fx_t fx;

        test_fx_init(&fx, 128, TC_KIND_LOCAL, 0);
        fx.h->version = versions[i];
        assert_rejects(fx.slot, &fx.e, "version");
        test_fx_fini(&fx);
    }
}

static void test_reject_size_not_multiple(void **state)
{
    static const uint32_t sizes[] = {100, 65, 127, 96, 32, 8, 1, 63, 120};
    size_t i;

    (void)state;
    for (i = 0; i < TEST_ARRAY_SIZE(sizes); i++) {
        test_fx_t fx;

        test_fx_init(&fx, 128, TC_KIND_LOCAL, 0);
        fx.h->frame_size = sizes[i];
        if (sizes[i] >= 8) {
            test_set_sig(fx.slot, sizes[i], tc_frame_sig(TEST_SEQ)); /* would pass */
        }
        assert_rejects(fx.slot, &fx.e, "multiple");
        test_fx_fini(&fx);
    }
}

static void test_reject_size_zero(void **state)
{
    test_fx_t fx;

    (void)state;
    test_fx_init(&fx, 128, TC_KIND_LOCAL, 0);
    fx.h->frame_size = 0;
    assert_rejects(fx.slot, &fx.e, "positive");
    assert_rejects(fx.slot, &fx.e, "frame size 0");
    fx.e.frame_size = 0; /* variable mode too */
    assert_rejects(fx.slot, &fx.e, "positive");
    test_fx_fini(&fx);
}

static void test_reject_size_beyond_slot(void **state)
{
    static const uint32_t sizes[] = {192, 256, 4096, 1u << 20, 0xFFFFFFC0u};
    size_t i;

    (void)state;
    for (i = 0; i < TEST_ARRAY_SIZE(sizes); i++) {
        test_guarded_t g;
        tc_frame_expect_t e;

        /* the slot ends at a PROT_NONE page: reading the claimed SIG crashes */
        test_guarded_alloc(&g, 128);
        assert_int_equal(test_build_kind(g.slot, 128, TC_KIND_LOCAL, 0, TEST_SEQ), 128);
        test_expect_init(&e, 128, TEST_SEQ);
        assert_accepts(g.slot, &e);
        test_hdr(g.slot)->frame_size = sizes[i];
        assert_rejects(g.slot, &e, "slot");
        e.frame_size = sizes[i]; /* even if it equals the fixed size */
        assert_rejects(g.slot, &e, "slot");
        test_guarded_free(&g);
    }
}

static void test_reject_size_not_fixed(void **state)
{
    test_fx_t fx;

    (void)state;
    /* a 128 B frame when every frame must be 256 B */
    test_fx_init(&fx, 256, TC_KIND_LOCAL, 0);
    assert_int_equal(fx.size, 128);
    fx.e.frame_size = 256;
    assert_rejects(fx.slot, &fx.e, "fixed");
    /* a 128 B frame when every frame must be 64 B */
    fx.e.frame_size = 64;
    assert_rejects(fx.slot, &fx.e, "fixed");
    fx.e.frame_size = 128;
    assert_accepts(fx.slot, &fx.e);
    test_fx_fini(&fx);
}

static void test_reject_seq(void **state)
{
    static const uint32_t seqs[] = {TEST_SEQ - 1, TEST_SEQ + 1, 0, UINT32_MAX,
                                    TEST_SEQ + 0x10000};
    size_t i;

    (void)state;
    for (i = 0; i < TEST_ARRAY_SIZE(seqs); i++) {
        test_fx_t fx;

        test_fx_init(&fx, 128, TC_KIND_LOCAL, 0);
        /* a genuine frame of another sequence number (sealed for it) */
        fx.h->seq = seqs[i];
        tc_frame_seal(fx.slot);
        assert_rejects(fx.slot, &fx.e, "wrong sequence");
        test_fx_fini(&fx);
    }
}

static void test_reject_signal(void **state)
{
    static const uint64_t sigs_from[] = {TEST_SEQ - 1, TEST_SEQ + 1, 0, UINT32_MAX};
    test_fx_t fx;
    size_t i;

    (void)state;
    for (i = 0; i < TEST_ARRAY_SIZE(sigs_from); i++) {
        test_fx_init(&fx, 128, TC_KIND_LOCAL, 0);
        test_set_sig(fx.slot, fx.size, tc_frame_sig((uint32_t)sigs_from[i]));
        assert_rejects(fx.slot, &fx.e, "signal");
        test_fx_fini(&fx);
    }
    /* not landed yet */
    test_fx_init(&fx, 128, TC_KIND_LOCAL, 0);
    test_set_sig(fx.slot, fx.size, 0);
    assert_rejects(fx.slot, &fx.e, "signal");
    /* one bit off */
    test_set_sig(fx.slot, fx.size, tc_frame_sig(TEST_SEQ) ^ 0x100);
    assert_rejects(fx.slot, &fx.e, "signal");
    test_fx_fini(&fx);

    /* right signal in the wrong place: at the slot's end, frame says 64 B */
    test_fx_init(&fx, 128, TC_KIND_NOP, 0);
    assert_int_equal(fx.size, 64);
    test_set_sig(fx.slot, 128, tc_frame_sig(TEST_SEQ));
    test_set_sig(fx.slot, 64, 0);
    assert_rejects(fx.slot, &fx.e, "signal");
    test_fx_fini(&fx);
}

static void test_reject_kind(void **state)
{
    static const uint8_t kinds[] = {0, TC_KIND_LAST, TC_KIND_LAST + 1, 0x80, 0xFF};
    size_t i;

    (void)state;
    for (i = 0; i < TEST_ARRAY_SIZE(kinds); i++) {
        test_fx_t fx;

        test_fx_init(&fx, 128, TC_KIND_LOCAL, 0);
        fx.h->kind = kinds[i];
        assert_rejects(fx.slot, &fx.e, "kind");
        test_fx_fini(&fx);
    }
}

static void test_reject_flags(void **state)
{
    static const uint8_t flags[] = {0x10, 0x18, 0x80, 0xFF, 0x0F};
    size_t i;

    (void)state;
    for (i = 0; i < TEST_ARRAY_SIZE(flags); i++) {
        test_fx_t fx;

        test_fx_init(&fx, 128, TC_KIND_LOCAL, 0);
        fx.h->flags = flags[i];
        assert_rejects(fx.slot, &fx.e, "flags");
        test_fx_fini(&fx);
    }
}

static void test_reject_payload_off(void **state)
{
    static const int deltas[] = {8, -8, 1, -1, 16, 4};
    size_t i;

    (void)state;
    for (i = 0; i < TEST_ARRAY_SIZE(deltas); i++) {
        test_fx_t fx;

        test_fx_init(&fx, 256, TC_KIND_INJECTED, 0);
        fx.h->payload_off = (uint16_t)(fx.h->payload_off + deltas[i]);
        assert_rejects(fx.slot, &fx.e, "offset");
        assert_rejects(fx.slot, &fx.e, "inconsistent");
        test_fx_fini(&fx);
    }
    {
        /* sections grew but payload_off did not follow */
        test_fx_t fx;

        test_fx_init(&fx, 256, TC_KIND_LOCAL, 0);
        fx.h->args_len = (uint16_t)(fx.h->args_len + 8);
        assert_rejects(fx.slot, &fx.e, "offset");
        test_fx_fini(&fx);
    }
}

static void test_reject_truncated(void **state)
{
    static const uint32_t lens[] = {57, 64, 128, 1000, 0x10000, 0x7fffffff};
    size_t i;

    (void)state;
    for (i = 0; i < TEST_ARRAY_SIZE(lens); i++) {
        test_fx_t fx;

        /* 64 B frame in a 64 B slot: room for 8 payload bytes */
        test_fx_init(&fx, 64, TC_KIND_NOP, 0);
        assert_int_equal(fx.size, 64);
        fx.h->payload_len = 8;
        assert_accepts(fx.slot, &fx.e);
        fx.h->payload_len = lens[i];
        assert_rejects(fx.slot, &fx.e, "truncated");
        test_fx_fini(&fx);
    }
    {
        /* sections themselves overflow the frame (payload_off consistent) */
        uint8_t *slot = test_slot_alloc(128);
        tc_frame_layout_t layout = {0, 0, 200, 0};
        tc_frame_offsets_t off;
        tc_frame_expect_t e;

        assert_int_equal(tc_frame_layout(&layout, 4096, &off), TC_OK);
        off.frame_size = 128; /* lie: the sections need 256 */
        tc_frame_write_hdr(slot, &off, &layout, TC_KIND_INJECTED, 0, 1, 1, TEST_SEQ);
        tc_frame_seal(slot);
        test_expect_init(&e, 128, TEST_SEQ);
        assert_rejects(slot, &e, "truncated");
        free(slot);
    }
}

static void test_reject_code_in_non_injected(void **state)
{
    static const uint8_t kinds[] = {TC_KIND_LOCAL, TC_KIND_CACHED, TC_KIND_REPLY,
                                    TC_KIND_NOP};
    size_t i;

    (void)state;
    for (i = 0; i < TEST_ARRAY_SIZE(kinds); i++) {
        uint8_t *slot = test_slot_alloc(256);
        tc_frame_expect_t e;
        test_known_t k = {1, 0, 0, 0, 0};

        test_expect_init(&e, 256, TEST_SEQ);
        e.known     = test_known;
        e.known_arg = &k;

        /* code */
        test_build(slot, 256, 8, 0, 32, 16, kinds[i], 0, TEST_SEQ);
        assert_rejects(slot, &e, "carries code");
        assert_rejects(slot, &e, tc_frame_kind_str(kinds[i]));
        /* GOTP only */
        memset(slot, 0, 256);
        test_build(slot, 256, 8, 2, 0, 16, kinds[i], 0, TEST_SEQ);
        assert_rejects(slot, &e, "carries code");
        /* both */
        memset(slot, 0, 256);
        test_build(slot, 256, 0, 1, 1, 0, kinds[i], 0, TEST_SEQ);
        assert_rejects(slot, &e, "carries code");
        free(slot);
    }
}

static void test_reject_injected_without_code(void **state)
{
    uint8_t *slot = test_slot_alloc(256);
    tc_frame_expect_t e;

    (void)state;
    test_expect_init(&e, 256, TEST_SEQ);
    test_build(slot, 256, 8, 0, 0, 16, TC_KIND_INJECTED, 0, TEST_SEQ);
    assert_rejects(slot, &e, "without code");
    /* a GOTP without code is still no code */
    memset(slot, 0, 256);
    test_build(slot, 256, 8, 3, 0, 16, TC_KIND_INJECTED, 0, TEST_SEQ);
    assert_rejects(slot, &e, "without code");
    free(slot);
}

static void test_reject_unknown_element(void **state)
{
    static const uint8_t kinds[] = {TC_KIND_LOCAL, TC_KIND_INJECTED, TC_KIND_CACHED};
    size_t i;

    (void)state;
    for (i = 0; i < TEST_ARRAY_SIZE(kinds); i++) {
        test_known_t k = {0, 0, 0, 0, 0};
        test_fx_t fx;

        test_fx_init(&fx, 256, kinds[i], TC_FRAME_F_WANT_REPLY);
        fx.e.known     = test_known;
        fx.e.known_arg = &k;
        assert_rejects(fx.slot, &fx.e, "unknown element");
        assert_true(k.calls >= 1);
        assert_int_equal(k.pkg_id, TEST_PKG_ID);
        assert_int_equal(k.element, TEST_ELEMENT);
        assert_int_equal(k.kind, kinds[i]);

        /* the same frame is fine once the element is known */
        k.answer = 1;
        k.calls  = 0;
        assert_accepts(fx.slot, &fx.e);
        assert_int_equal(k.calls, 2);
        test_fx_fini(&fx);
    }
}

static void test_known_not_consulted(void **state)
{
    static const uint8_t kinds[] = {TC_KIND_REPLY, TC_KIND_NOP};
    size_t i;

    (void)state;
    for (i = 0; i < TEST_ARRAY_SIZE(kinds); i++) {
        test_known_t k = {0, 0, 0, 0, 0};
        test_fx_t fx;

        test_fx_init(&fx, 128, kinds[i], TC_FRAME_F_HAS_RET);
        fx.e.known     = test_known;
        fx.e.known_arg = &k;
        assert_accepts(fx.slot, &fx.e);
        assert_int_equal(k.calls, 0);
        test_fx_fini(&fx);
    }
    {
        /* nor for a frame rejected before the element lookup */
        test_known_t k = {1, 0, 0, 0, 0};
        test_fx_t fx;

        test_fx_init(&fx, 128, TC_KIND_LOCAL, 0);
        fx.e.known     = test_known;
        fx.e.known_arg = &k;
        fx.h->mag      = 0;
        assert_rejects(fx.slot, &fx.e, "magic");
        assert_int_equal(k.calls, 0);
        test_fx_fini(&fx);
    }
}

static void test_reject_reply_wants_reply(void **state)
{
    static const uint8_t kinds[] = {TC_KIND_REPLY, TC_KIND_NOP};
    size_t i;

    (void)state;
    for (i = 0; i < TEST_ARRAY_SIZE(kinds); i++) {
        test_fx_t fx;

        test_fx_init(&fx, 128, kinds[i], 0);
        fx.h->flags = TC_FRAME_F_WANT_REPLY;
        assert_rejects(fx.slot, &fx.e, "asks for a reply");
        assert_rejects(fx.slot, &fx.e, tc_frame_kind_str(kinds[i]));
        fx.h->flags = TC_FRAME_F_WANT_REPLY | TC_FRAME_F_HAS_RET;
        assert_rejects(fx.slot, &fx.e, "asks for a reply");
        test_fx_fini(&fx);
    }
}

/* A one-way frame may ask for no result (TC_FRAME_F_NO_RET, prepared
 * starts); a frame that also asks for a reply contradicts itself. */
static void test_no_ret_flag(void **state)
{
    test_fx_t fx;

    (void)state;
    test_fx_init(&fx, 128, TC_KIND_LOCAL, 0);
    fx.h->flags = TC_FRAME_F_NO_RET;
    assert_accepts(fx.slot, &fx.e);
    fx.h->flags = TC_FRAME_F_NO_RET | TC_FRAME_F_HAS_RET;
    assert_accepts(fx.slot, &fx.e);
    fx.h->flags = TC_FRAME_F_NO_RET | TC_FRAME_F_WANT_REPLY;
    assert_rejects(fx.slot, &fx.e, "ask for a reply and for no result");
    test_fx_fini(&fx);
}

/* Each check on its own: the first failing one is reported. */
static void test_reject_order(void **state)
{
    test_fx_t fx;

    (void)state;
    test_fx_init(&fx, 128, TC_KIND_LOCAL, 0);
    fx.h->mag     = 0;
    fx.h->version = 99;
    fx.h->kind    = 0;
    assert_rejects(fx.slot, &fx.e, "magic");
    fx.h->mag = TC_FRAME_MAG;
    assert_rejects(fx.slot, &fx.e, "version");
    fx.h->version = TC_PROTO_VERSION;
    assert_rejects(fx.slot, &fx.e, "kind");
    test_fx_fini(&fx);
}

/* ----------------------------------------------------------- hostile input */

static void test_hostile_values(void **state)
{
    test_fx_t fx;
    test_guarded_t g;
    tc_frame_expect_t e;
    tc_frame_hdr_t *h;
    uint32_t lens[] = {0xFFFFFFFFu, 0xFFFFFFFFu - 47, 0xFFFFFFFFu - 55,
                       0xFFFFFFC8u, 0xFFFFFF80u, 0x80000000u};
    size_t i;

    (void)state;

    /* frame_size 0xFFFFFFC0: multiple of 64, far beyond the slot (guarded) */
    test_guarded_alloc(&g, 128);
    test_build_kind(g.slot, 128, TC_KIND_LOCAL, 0, TEST_SEQ);
    test_expect_init(&e, 128, TEST_SEQ);
    h = test_hdr(g.slot);
    h->frame_size = 0xFFFFFFC0u;
    assert_rejects(g.slot, &e, "slot");
    h->frame_size = 0xFFFFFFFFu;
    assert_rejects(g.slot, &e, "multiple");
    h->frame_size = 0x80000000u;
    assert_rejects(g.slot, &e, "slot");
    h->frame_size = 128;
    assert_accepts(g.slot, &e);

    /* payload_len near 2^32: 32-bit arithmetic would wrap to a small size */
    for (i = 0; i < TEST_ARRAY_SIZE(lens); i++) {
        h->payload_len = lens[i];
        assert_rejects(g.slot, &e, "truncated");
    }
    test_guarded_free(&g);

    /* 16-bit fields at 0xFFFF, with payload_off set to the value a 16-bit
     * computation would wrap to (48 for each of them) */
    {
        static const int fields[] = {0, 1, 2};
        for (i = 0; i < TEST_ARRAY_SIZE(fields); i++) {
            uint16_t offs[] = {48, 0, 0xFFFF, 0xFFF8};
            size_t j;

            for (j = 0; j < TEST_ARRAY_SIZE(offs); j++) {
                test_fx_init(&fx, 256, TC_KIND_INJECTED, 0);
                if (fields[i] == 0) {
                    fx.h->args_len = 0xFFFF;
                } else if (fields[i] == 1) {
                    fx.h->got_count = 0xFFFF;
                } else {
                    fx.h->code_len = 0xFFFF;
                }
                fx.h->payload_off = offs[j];
                assert_rejects(fx.slot, &fx.e, "offset");
                test_fx_fini(&fx);
            }
        }
    }

    /* everything hostile at once */
    test_guarded_alloc(&g, 256);
    assert_int_equal(test_build_kind(g.slot, 256, TC_KIND_INJECTED, 0, TEST_SEQ), 192);
    test_expect_init(&e, 256, TEST_SEQ);
    h = test_hdr(g.slot);
    h->payload_len = 0xFFFFFFFFu;
    h->args_len    = 0xFFFF;
    h->got_count   = 0xFFFF;
    h->code_len    = 0xFFFF;
    h->payload_off = 0xFFFF;
    assert_rejects(g.slot, &e, "offset");
    h->frame_size = 0xFFFFFFC0u;
    assert_rejects(g.slot, &e, "slot");
    /* with a huge slot claimed but fixed size mismatching: never reaches SIG */
    e.frame_size = 64;
    assert_rejects(g.slot, &e, "slot");
    test_guarded_free(&g);
}

/* ------------------------------------------------------------- randomized */

typedef struct {
    uint32_t accepted, rejected;
    uint32_t by_reason[17];
} test_fuzz_stats_t;

static const char *const test_fuzz_words[] = {
    /* "signal" first: its reason also mentions the sequence */
    "magic", "version", "multiple", "slot", "fixed", "signal", "wrong sequence",
    "kind", "flags", "offset", "truncated", "carries code", "without code",
    "unknown element", "asks for a reply", "asks to cache", "without its arguments"
};

static int test_fuzz_known(void *arg, uint32_t pkg_id, uint16_t element, uint8_t kind)
{
    (void)arg;
    (void)kind;
    return (pkg_id == TEST_PKG_ID) && (element <= TEST_ELEMENT);
}

/* A value for a field of width bytes: mostly interesting, sometimes random. */
static uint64_t test_fuzz_value(uint64_t *rng, unsigned width, uint64_t cur)
{
    uint64_t r = test_rand(rng);
    uint64_t mask = (width >= 8) ? UINT64_MAX : ((UINT64_C(1) << (width * 8)) - 1);

    switch ((r >> 56) % 10) {
    case 0:  return 0;
    case 1:  return mask;
    case 2:  return (cur + 1) & mask;
    case 3:  return (cur - 1) & mask;
    case 4:  return (r & 0x1f) & mask;
    case 5:  return ((r & 0xf) * 64) & mask;         /* frame-size-like */
    case 6:  return (cur + ((r & 0xf) * 8)) & mask;  /* aligned nudge */
    case 7:  return (mask - (r & 0x7f)) & mask;      /* near the top */
    default: return r & mask;
    }
}

static void test_fuzz_one(uint8_t *slot, const uint8_t *tmpl, uint32_t tmpl_size,
                          uint64_t *rng, const tc_frame_expect_t *e,
                          test_fuzz_stats_t *st)
{
    static const struct { size_t off; unsigned width; } fields[] = {
        {offsetof(tc_frame_hdr_t, frame_size), 4},
        {offsetof(tc_frame_hdr_t, seq), 4},
        {offsetof(tc_frame_hdr_t, pkg_id), 4},
        {offsetof(tc_frame_hdr_t, element), 2},
        {offsetof(tc_frame_hdr_t, kind), 1},
        {offsetof(tc_frame_hdr_t, flags), 1},
        {offsetof(tc_frame_hdr_t, ack), 4},
        {offsetof(tc_frame_hdr_t, payload_len), 4},
        {offsetof(tc_frame_hdr_t, payload_off), 2},
        {offsetof(tc_frame_hdr_t, args_len), 2},
        {offsetof(tc_frame_hdr_t, got_count), 2},
        {offsetof(tc_frame_hdr_t, code_len), 2},
        {offsetof(tc_frame_hdr_t, ret), 8},
        {offsetof(tc_frame_hdr_t, ret_seq), 4},
        {offsetof(tc_frame_hdr_t, version), 2},
        {offsetof(tc_frame_hdr_t, reserved), 1},
        {offsetof(tc_frame_hdr_t, mag), 1},
    };
    const tc_frame_hdr_t *h = (const tc_frame_hdr_t *)slot;
    unsigned n = 1 + (unsigned)(test_rand(rng) % 3), i;
    uint64_t r, end, got_off, code_off, pay_off;
    char reason[256];
    tc_status_t status;

    memcpy(slot, tmpl, TEST_SLOT_SIZE);
    (void)tmpl_size;

    for (i = 0; i < n; i++) {
        r = test_rand(rng);
        if ((r & 0xff) < 16) {
            /* a random byte anywhere in the header */
            slot[(r >> 8) % TC_FRAME_HDR_SIZE] = (uint8_t)(r >> 16);
        } else {
            size_t f = (size_t)((r >> 8) % TEST_ARRAY_SIZE(fields));
            uint64_t cur = 0, v;

            memcpy(&cur, slot + fields[f].off, fields[f].width);
            v = test_fuzz_value(rng, fields[f].width, cur);
            memcpy(slot + fields[f].off, &v, fields[f].width); /* little-endian */
        }
    }
    /* Sometimes play a consistent but malicious encoder: payload_off that
     * matches the (corrupted) section lengths, so the later checks run. */
    r = test_rand(rng);
    if ((r & 1) != 0) {
        got_off  = (h->got_count || h->code_len) ?
                       ((TC_FRAME_HDR_SIZE + (uint64_t)h->args_len + 63) & ~UINT64_C(63)) :
                       ((TC_FRAME_HDR_SIZE + (uint64_t)h->args_len + 7) & ~UINT64_C(7));
        code_off = (got_off + (uint64_t)h->got_count * 8 + 15) & ~UINT64_C(15);
        pay_off  = (code_off + h->code_len + 7) & ~UINT64_C(7);
        if (pay_off <= UINT16_MAX) {
            uint16_t v = (uint16_t)pay_off;

            memcpy(slot + offsetof(tc_frame_hdr_t, payload_off), &v, sizeof(v));
        }
    }
    /* Often re-seal where the new header says, so the later checks run. */
    r = test_rand(rng);
    if (((r & 3) != 0) && (h->frame_size >= TC_FRAME_SIG_SIZE) &&
        (h->frame_size <= e->slot_size) && ((h->frame_size % 8) == 0)) {
        test_set_sig(slot, h->frame_size, tc_frame_sig(h->seq));
    } else if ((r & 0xf0) == 0) {
        test_set_sig(slot, tmpl_size, test_rand(rng));
    }

    reason[0] = '\0';
    status = tc_frame_validate(slot, e, reason, sizeof(reason));
    if (status != TC_OK) {
        assert_int_equal(status, TC_ERR_BAD_FRAME);
        assert_true(reason[0] != '\0');
        st->rejected++;
        for (i = 0; i < TEST_ARRAY_SIZE(test_fuzz_words); i++) {
            if (strstr(reason, test_fuzz_words[i]) != NULL) {
                st->by_reason[i]++;
                break;
            }
        }
        assert_true(i < TEST_ARRAY_SIZE(test_fuzz_words)); /* a known reason */
        return;
    }

    /* Accepted: the frame must be safe to use. */
    st->accepted++;
    assert_int_equal(h->mag, TC_FRAME_MAG);
    assert_int_equal(h->version, TC_PROTO_VERSION);
    assert_true(h->frame_size >= TC_FRAME_MIN_SIZE);
    assert_true(h->frame_size <= e->slot_size);
    assert_int_equal(h->frame_size % TC_FRAME_ALIGN, 0);
    if (e->frame_size != 0) {
        assert_int_equal(h->frame_size, e->frame_size);
    }
    assert_int_equal(h->seq, e->seq);
    assert_true(test_sig_at(slot, h->frame_size) == tc_frame_sig(e->seq));
    assert_true((h->kind >= 1) && (h->kind < TC_KIND_LAST));
    assert_int_equal(h->flags & ~TC_FRAME_F_KNOWN, 0);
    /* sections in order, inside the frame, SIG untouched by the payload */
    got_off  = TC_FRAME_HDR_SIZE + (uint64_t)h->args_len;
    got_off  = (h->got_count || h->code_len) ? ((got_off + 63) & ~UINT64_C(63)) :
                                               ((got_off + 7) & ~UINT64_C(7));
    code_off = (got_off + (uint64_t)h->got_count * 8 + 15) & ~UINT64_C(15);
    pay_off  = (code_off + h->code_len + 7) & ~UINT64_C(7);
    assert_int_equal(h->payload_off, pay_off);
    end = (uint64_t)h->payload_off + h->payload_len + TC_FRAME_SIG_SIZE;
    assert_true(end <= h->frame_size);
    if (h->kind == TC_KIND_INJECTED) {
        assert_true(h->code_len != 0);
    } else {
        assert_int_equal(h->got_count, 0);
        assert_int_equal(h->code_len, 0);
    }
    if ((h->kind == TC_KIND_REPLY) || (h->kind == TC_KIND_NOP) ||
        (h->kind == TC_KIND_SYNC_REP) || (h->kind == TC_KIND_RIED) ||
        (h->kind == TC_KIND_RIED_REP) || (h->kind == TC_KIND_MCAST_ACK) ||
        (h->kind == TC_KIND_CONFIG) || (h->kind == TC_KIND_NACK) ||
        (h->kind == TC_KIND_GOODBYE)) {
        assert_int_equal(h->flags & TC_FRAME_F_WANT_REPLY, 0);
    } else if (e->known != NULL) {
        assert_true(e->known(e->known_arg, h->pkg_id, h->element, h->kind));
    }
}

static void test_fuzz_header(void **state)
{
    static const uint8_t kinds[] = {TC_KIND_LOCAL, TC_KIND_INJECTED, TC_KIND_CACHED,
                                    TC_KIND_REPLY, TC_KIND_NOP};
    uint8_t tmpl[TEST_SLOT_SIZE];
    uint8_t *slot = test_slot_alloc(TEST_SLOT_SIZE);
    uint32_t sizes[TEST_ARRAY_SIZE(kinds)];
    test_fuzz_stats_t st;
    uint64_t rng = TEST_SEED;
    uint32_t it;
    size_t i;

    (void)state;
    memset(&st, 0, sizeof(st));
    for (it = 0; it < TEST_FUZZ_ITERS; it++) {
        size_t k = it % TEST_ARRAY_SIZE(kinds);
        tc_frame_expect_t e;

        memset(tmpl, 0, sizeof(tmpl));
        sizes[k] = test_build_kind(tmpl, TEST_SLOT_SIZE, kinds[k],
                                   (kinds[k] <= TC_KIND_CACHED) ? TC_FRAME_F_WANT_REPLY : 0,
                                   TEST_SEQ);
        test_expect_init(&e, TEST_SLOT_SIZE, TEST_SEQ);
        if ((it / TEST_ARRAY_SIZE(kinds)) % 2) {
            e.known = test_fuzz_known;
        }
        if ((it / TEST_ARRAY_SIZE(kinds)) % 3 == 0) {
            e.frame_size = sizes[k];
        }
        test_fuzz_one(slot, tmpl, sizes[k], &rng, &e, &st);
    }
    free(slot);

    print_message("fuzz: %u accepted, %u rejected;", st.accepted, st.rejected);
    for (i = 0; i < TEST_ARRAY_SIZE(test_fuzz_words); i++) {
        print_message(" %s=%u", test_fuzz_words[i], st.by_reason[i]);
    }
    print_message("\n");
    assert_int_equal(st.accepted + st.rejected, TEST_FUZZ_ITERS);
    /* the corruption must reach every check, and leave some frames valid */
    assert_true(st.accepted >= TEST_FUZZ_ITERS / 50);
    assert_true(st.rejected >= TEST_FUZZ_ITERS / 2);
    for (i = 0; i < TEST_ARRAY_SIZE(test_fuzz_words); i++) {
        assert_true(st.by_reason[i] > 0);
    }
}

/* -------------------------------------------------------------------- main */

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_size_for),
        cmocka_unit_test(test_size_for_matches_layout),
        cmocka_unit_test(test_layout_example),
        cmocka_unit_test(test_layout_properties),
        cmocka_unit_test(test_layout_out_of_range),
        cmocka_unit_test(test_write_hdr_fields),
        cmocka_unit_test(test_same_shape),
        cmocka_unit_test(test_stamp_words),
        cmocka_unit_test(test_place_store_hdr),
        cmocka_unit_test(test_place_seal),
        cmocka_unit_test(test_place_cpu_choices),
        cmocka_unit_test(test_cpu_tune),
        cmocka_unit_test(test_sig_values),
        cmocka_unit_test(test_valid_frames),
        cmocka_unit_test(test_valid_frame_guarded),
        cmocka_unit_test(test_valid_injected_with_got_code),
        cmocka_unit_test(test_valid_fixed_padded),
        cmocka_unit_test(test_payload_boundary),
        cmocka_unit_test(test_kind_str),
        cmocka_unit_test(test_reject_magic),
        cmocka_unit_test(test_reject_version),
        cmocka_unit_test(test_reject_size_not_multiple),
        cmocka_unit_test(test_reject_size_zero),
        cmocka_unit_test(test_reject_size_beyond_slot),
        cmocka_unit_test(test_reject_size_not_fixed),
        cmocka_unit_test(test_reject_seq),
        cmocka_unit_test(test_reject_signal),
        cmocka_unit_test(test_reject_kind),
        cmocka_unit_test(test_reject_flags),
        cmocka_unit_test(test_reject_payload_off),
        cmocka_unit_test(test_reject_truncated),
        cmocka_unit_test(test_reject_code_in_non_injected),
        cmocka_unit_test(test_reject_injected_without_code),
        cmocka_unit_test(test_reject_unknown_element),
        cmocka_unit_test(test_known_not_consulted),
        cmocka_unit_test(test_reject_reply_wants_reply),
        cmocka_unit_test(test_no_ret_flag),
        cmocka_unit_test(test_reject_order),
        cmocka_unit_test(test_hostile_values),
        cmocka_unit_test(test_fuzz_header),
        cmocka_unit_test(test_line_words),
        cmocka_unit_test(test_line_compact),
        cmocka_unit_test(test_line_compact_rejects),
    };

    return cmocka_run_group_tests_name("frame", tests, NULL, NULL);
}
