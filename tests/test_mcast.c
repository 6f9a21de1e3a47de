/*
 * Unit tests of the multicast target set, codec and partition (lib/mcast_*.c).
 *
 * The set is checked against a plain bitmap oracle under random operations.
 * Encoded sizes are recomputed here from expanded node lists, independently
 * of the codec's closed forms, and the encoder must pick the smallest form
 * with ties to the lower kind. Inputs to the decoder sit at the very end of a
 * page followed by a PROT_NONE page, so reading one byte too far crashes even
 * without valgrind. Every random loop uses a fixed seed; TC_TEST_QUICK=1
 * shrinks them for valgrind.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mcast.h"

#define TEST_SEED           UINT64_C(0x6d2b79f5a1c3e9b7)
#define TEST_FUZZ_ITERS     200000u
#define TEST_FUZZ_MAX_LEN   40u
#define TEST_NAIVE_LIMIT    (1u << 16)  /* expand sets up to this many nodes */
#define TEST_ENCODE_LIMIT   (1u << 22)  /* encode forced forms up to this size */
#define TEST_PREFIX_LIMIT   256u        /* check every prefix up to this size */
#define TEST_MILLIONS       3000000u
#define TEST_MAX_SLICES     (1u << 14)
#define TEST_ARRAY_SIZE(_a) (sizeof(_a) / sizeof((_a)[0]))

/* ------------------------------------------------------------------ helpers */

static int test_quick(void)
{
    const char *q = getenv("TC_TEST_QUICK");

    return (q != NULL) && (q[0] != '\0') && (strcmp(q, "0") != 0);
}

static unsigned test_iters(unsigned full)
{
    return test_quick() ? (full / 10 > 0 ? full / 10 : 1) : full;
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

static uint64_t test_rand_below(uint64_t *state, uint64_t bound)
{
    return (bound == 0) ? 0 : test_rand(state) % bound;
}

static tc_mcast_set_t *test_set_new(uint32_t num_nodes)
{
    tc_mcast_set_t *set = NULL;

    assert_int_equal(tc_mcast_set_create(num_nodes, &set), TC_OK);
    assert_non_null(set);
    return set;
}

static void test_add_range(tc_mcast_set_t *set, uint32_t start, uint32_t end)
{
    assert_int_equal(tc_mcast_set_add_range(set, start, end), TC_OK);
}

static void test_add(tc_mcast_set_t *set, uint32_t node)
{
    assert_int_equal(tc_mcast_set_add(set, node), TC_OK);
}

/* Sorted, disjoint, non-adjacent, inside [0, N), count consistent. */
static void test_check_invariants(const tc_mcast_set_t *set)
{
    uint32_t n = tc_mcast_set_num_nodes(set);
    const tc_mcast_run_t *runs;
    uint64_t count = 0;
    size_t n_runs;

    runs = tc_mcast_set_runs(set, &n_runs);
    assert_int_equal(n_runs, tc_mcast_set_run_count(set));
    for (size_t i = 0; i < n_runs; ++i) {
        assert_true(runs[i].start < runs[i].end);
        assert_true(runs[i].end <= n);
        if (i > 0) {
            assert_true(runs[i - 1].end < runs[i].start);
        }
        count += runs[i].end - runs[i].start;
    }
    assert_int_equal(count, tc_mcast_set_count(set));
}

/* Exact comparison with a byte-per-node oracle (small N only). */
static void test_check_oracle(const tc_mcast_set_t *set, const uint8_t *oracle,
                              uint32_t n)
{
    const tc_mcast_run_t *runs;
    size_t n_runs, r = 0;
    uint64_t count = 0;
    uint32_t i = 0, start;

    runs = tc_mcast_set_runs(set, &n_runs);
    while (i < n) {
        if (!oracle[i]) {
            assert_false(tc_mcast_set_contains(set, i));
            ++i;
            continue;
        }
        start = i;
        while ((i < n) && oracle[i]) {
            assert_true(tc_mcast_set_contains(set, i));
            ++i;
        }
        /* the oracle's maximal stretches are exactly the runs */
        assert_true(r < n_runs);
        assert_int_equal(runs[r].start, start);
        assert_int_equal(runs[r].end, i);
        count += i - start;
        ++r;
    }
    assert_int_equal(r, n_runs);
    assert_int_equal(count, tc_mcast_set_count(set));
}

/* A buffer whose last byte is the last byte before a PROT_NONE page. */
typedef struct {
    uint8_t *map;
    size_t   map_len;
    size_t   data_len;
} test_guard_t;

static void test_guard_init(test_guard_t *g, size_t max_len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void *map;

    g->data_len = (max_len + page - 1) / page * page;
    if (g->data_len == 0) {
        g->data_len = page;
    }
    g->map_len = g->data_len + page;
    map = mmap(NULL, g->map_len, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(map != MAP_FAILED);
    g->map = map;
    assert_int_equal(mprotect(g->map + g->data_len, page, PROT_NONE), 0);
}

static void test_guard_fini(test_guard_t *g)
{
    munmap(g->map, g->map_len);
}

static const uint8_t *test_guard_place(test_guard_t *g, const void *bytes,
                                       size_t len)
{
    uint8_t *p;

    assert_true(len <= g->data_len);
    p = g->map + g->data_len - len;
    if (len > 0) {
        memcpy(p, bytes, len);
    }
    return p;
}

/* Decode from a guarded copy and from an exact-size heap copy (valgrind sees
 * any overread of the latter); both must agree. */
static tc_mcast_decode_status_t test_decode(const void *bytes, size_t len,
                                            tc_mcast_set_t *set,
                                            tc_mcast_kind_t *kind_p)
{
    tc_mcast_decode_status_t ds, ds2;
    tc_mcast_set_t *copy;
    test_guard_t g;
    uint8_t *heap;

    test_guard_init(&g, len);
    ds = tc_mcast_decode(test_guard_place(&g, bytes, len), len, set, kind_p);
    test_guard_fini(&g);

    heap = malloc(len > 0 ? len : 1);
    assert_non_null(heap);
    if (len > 0) {
        memcpy(heap, bytes, len);
    }
    copy = test_set_new(tc_mcast_set_num_nodes(set));
    ds2  = tc_mcast_decode(heap, len, copy, NULL);
    free(heap);

    assert_int_equal(ds, ds2);
    assert_true(tc_mcast_set_equal(set, copy));
    tc_mcast_set_destroy(copy);

    if (ds != TC_MCAST_DECODE_OK) {
        assert_int_equal(tc_mcast_set_count(set), 0);
        assert_int_equal(tc_mcast_set_run_count(set), 0);
    } else {
        test_check_invariants(set);
    }
    return ds;
}

/* Varint size computed another way than the library's. */
static uint64_t test_vsize(uint64_t v)
{
    uint64_t n = 1;

    while (n < 10 && v >= (UINT64_C(1) << (7 * n))) {
        ++n;
    }
    return n;
}

/* Nodes of set as a list (NULL when above TEST_NAIVE_LIMIT). */
static uint32_t *test_nodes(const tc_mcast_set_t *set, int complement,
                            uint64_t *n_p)
{
    uint32_t n = tc_mcast_set_num_nodes(set);
    uint64_t count = complement ? n - tc_mcast_set_count(set) :
                                  tc_mcast_set_count(set);
    const tc_mcast_run_t *runs;
    size_t n_runs, k = 0;
    uint64_t prev = 0;
    uint32_t *list;

    *n_p = count;
    if (count > TEST_NAIVE_LIMIT) {
        return NULL;
    }
    list = malloc((count + 1) * sizeof(*list));
    assert_non_null(list);
    runs = tc_mcast_set_runs(set, &n_runs);
    for (size_t i = 0; i <= n_runs; ++i) {
        uint64_t s = (i < n_runs) ? runs[i].start : n;
        uint64_t e = (i < n_runs) ? runs[i].end : n;

        if (complement) {
            for (uint64_t x = prev; x < s; ++x) {
                list[k++] = (uint32_t)x;
            }
        } else {
            for (uint64_t x = s; x < e; ++x) {
                list[k++] = (uint32_t)x;
            }
        }
        prev = e;
    }
    assert_int_equal(k, count);
    return list;
}

static uint64_t test_delta_list_size(const uint32_t *list, uint64_t count)
{
    uint64_t size = test_vsize(count) + test_vsize(list[0]);

    for (uint64_t i = 1; i < count; ++i) {
        size += test_vsize(list[i] - list[i - 1]);
    }
    return size;
}

#define TEST_NA      UINT64_C(0)          /* the form cannot hold the set */
#define TEST_UNKNOWN UINT64_MAX           /* too big to recompute naively */

/* Expected encoded size from an expanded node list. */
static uint64_t test_naive_size(const tc_mcast_set_t *set, unsigned kind)
{
    uint32_t n = tc_mcast_set_num_nodes(set);
    uint64_t count = tc_mcast_set_count(set), m, size = TEST_UNKNOWN, prev_end;
    uint32_t *list = NULL;
    const tc_mcast_run_t *runs;
    size_t n_runs;

    runs = tc_mcast_set_runs(set, &n_runs);
    switch (kind) {
    case TC_MCAST_EMPTY:
        return (count == 0) ? 1 : TEST_NA;
    case TC_MCAST_ALL_NODES:
        return (count == n) ? 1 : TEST_NA;
    case TC_MCAST_BITMAP:
        if (count == 0) {
            return TEST_NA;
        }
        m = runs[n_runs - 1].end - (uint64_t)runs[0].start; /* max - min + 1 */
        return 1 + test_vsize(runs[0].start) + test_vsize(m) + (m + 7) / 8;
    case TC_MCAST_ALL_EXCEPT:
        if ((count == 0) || (count == n)) {
            return TEST_NA;
        }
        list = test_nodes(set, 1, &m);
        if (list != NULL) {
            size = 1 + test_delta_list_size(list, m);
        }
        break;
    default:
        if (count == 0) {
            return TEST_NA;
        }
        if ((kind == TC_MCAST_SINGLE) && (count != 1)) {
            return TEST_NA;
        }
        if ((kind == TC_MCAST_SMALL_INLINE) && (count > 8)) {
            return TEST_NA;
        }
        list = test_nodes(set, 0, &m);
        if (list == NULL) {
            if (kind != TC_MCAST_RANGES) {
                break;
            }
            /* many nodes: recompute RANGES from the run array */
            size     = 1 + test_vsize(n_runs);
            prev_end = 0;
            for (size_t i = 0; i < n_runs; ++i) {
                size    += test_vsize(runs[i].start - prev_end) +
                           test_vsize(runs[i].end - runs[i].start);
                prev_end = runs[i].end;
            }
            break;
        }
        if (kind == TC_MCAST_SINGLE) {
            size = 1 + test_vsize(list[0]);
        } else if (kind == TC_MCAST_SMALL_INLINE) {
            size = 2;
            for (uint64_t i = 0; i < m; ++i) {
                size += test_vsize(list[i]);
            }
        } else if (kind == TC_MCAST_DELTA_LIST) {
            size = 1 + test_delta_list_size(list, m);
        } else { /* RANGES: find the maximal stretches in the list */
            uint64_t nr = 0, body = 0, i = 0, j;

            prev_end = 0;
            while (i < m) {
                for (j = i + 1; (j < m) && (list[j] == list[j - 1] + 1); ++j) {
                }
                body    += test_vsize(list[i] - prev_end) + test_vsize(j - i);
                prev_end = (uint64_t)list[j - 1] + 1;
                ++nr;
                i = j;
            }
            size = 1 + test_vsize(nr) + body;
        }
        break;
    }
    free(list);
    return size;
}

static void test_check_prefixes(const uint8_t *buf, size_t len, uint32_t n)
{
    tc_mcast_set_t *set = test_set_new(n);

    for (size_t cut = 0; cut < len; ++cut) {
        assert_int_equal(test_decode(buf, cut, set, NULL),
                         TC_MCAST_DECODE_TRUNCATED);
    }
    tc_mcast_set_destroy(set);
}

/*
 * The whole codec contract for one set: every form's size agrees with the
 * naive recomputation and with what encode_kind writes; the encoder picks
 * the smallest, ties to the lower kind; everything round-trips; one byte less
 * of buffer is refused; every prefix of a short encoding is TRUNCATED.
 * Returns the chosen kind.
 */
static tc_mcast_kind_t test_check_codec(const tc_mcast_set_t *set)
{
    uint32_t n = tc_mcast_set_num_nodes(set);
    uint64_t sizes[TC_MCAST_KIND_LAST], naive, best = 0;
    tc_mcast_kind_t best_kind = TC_MCAST_EMPTY, chosen, kind;
    tc_mcast_set_t *out = test_set_new(n);
    size_t size, len;
    tc_status_t status;
    uint8_t *buf;

    test_check_invariants(set);
    for (unsigned k = 0; k < TC_MCAST_KIND_LAST; ++k) {
        status   = tc_mcast_encoded_size(set, k, &size);
        naive    = test_naive_size(set, k);
        sizes[k] = (status == TC_OK) ? size : TEST_NA;
        if (status != TC_OK) {
            assert_int_equal(status, TC_ERR_UNSUPPORTED);
        }
        if (naive != TEST_UNKNOWN) {
            assert_int_equal(sizes[k], naive);
        }
        if ((sizes[k] != TEST_NA) && ((best == 0) || (sizes[k] < best))) {
            best      = sizes[k];
            best_kind = (tc_mcast_kind_t)k;
        }
    }
    assert_true(best != 0);
    assert_int_equal(tc_mcast_encoded_size(set, TC_MCAST_KIND_LAST, &size),
                     TC_ERR_INVALID_PARAM);

    assert_int_equal(tc_mcast_encode_choose(set, &chosen, &size), TC_OK);
    assert_int_equal(chosen, best_kind);
    assert_int_equal(size, best);

    /* the chosen form through tc_mcast_encode */
    buf = malloc(size);
    assert_non_null(buf);
    assert_int_equal(tc_mcast_encode(set, buf, size - 1, &len), TC_ERR_OUT_OF_RANGE);
    assert_int_equal(tc_mcast_encode(set, buf, size, &len), TC_OK);
    assert_int_equal(len, size);
    assert_int_equal(buf[0], chosen);
    assert_int_equal(test_decode(buf, len, out, &kind), TC_MCAST_DECODE_OK);
    assert_int_equal(kind, chosen);
    assert_true(tc_mcast_set_equal(set, out));
    free(buf);

    /* every form that can hold the set, where it is not absurdly large */
    for (unsigned k = 0; k < TC_MCAST_KIND_LAST; ++k) {
        if ((sizes[k] == TEST_NA) || (sizes[k] > TEST_ENCODE_LIMIT)) {
            continue;
        }
        buf = malloc(sizes[k]);
        assert_non_null(buf);
        assert_int_equal(tc_mcast_encode_kind(set, k, buf, sizes[k] - 1, &len),
                         TC_ERR_OUT_OF_RANGE);
        assert_int_equal(tc_mcast_encode_kind(set, k, buf, sizes[k], &len), TC_OK);
        assert_int_equal(len, sizes[k]);
        assert_int_equal(test_decode(buf, len, out, &kind), TC_MCAST_DECODE_OK);
        assert_int_equal(kind, k);
        assert_true(tc_mcast_set_equal(set, out));
        if (len <= TEST_PREFIX_LIMIT) {
            test_check_prefixes(buf, len, n);
        }
        free(buf);
    }

    tc_mcast_set_destroy(out);
    return chosen;
}

/* ------------------------------------------------------------ set: basics */

static void test_set_basics(void **state)
{
    tc_mcast_set_t *set, *copy, *other;
    const tc_mcast_run_t *runs;
    size_t n_runs;
    uint32_t first = 99;

    (void)state;
    assert_int_equal(tc_mcast_set_create(0, &set), TC_ERR_INVALID_PARAM);

    set = test_set_new(100);
    assert_int_equal(tc_mcast_set_num_nodes(set), 100);
    assert_int_equal(tc_mcast_set_count(set), 0);
    assert_int_equal(tc_mcast_set_first(set, &first), TC_ERR_NOT_FOUND);
    assert_int_equal(first, 99); /* untouched on failure */

    assert_int_equal(tc_mcast_set_add(set, 100), TC_ERR_OUT_OF_RANGE);
    assert_int_equal(tc_mcast_set_remove(set, 100), TC_ERR_OUT_OF_RANGE);
    assert_int_equal(tc_mcast_set_add_range(set, 5, 101), TC_ERR_OUT_OF_RANGE);
    assert_int_equal(tc_mcast_set_add_range(set, 6, 5), TC_ERR_INVALID_PARAM);
    test_add_range(set, 7, 7); /* empty range: nothing */
    assert_int_equal(tc_mcast_set_run_count(set), 0);

    /* adjacent additions merge into one run, from either side */
    test_add(set, 10);
    test_add(set, 11);
    test_add(set, 9);
    test_add(set, 10); /* already there */
    runs = tc_mcast_set_runs(set, &n_runs);
    assert_int_equal(n_runs, 1);
    assert_int_equal(runs[0].start, 9);
    assert_int_equal(runs[0].end, 12);
    assert_int_equal(tc_mcast_set_count(set), 3);

    /* a range bridging several runs and touching one more */
    test_add(set, 20);
    test_add(set, 30);
    test_add(set, 41);
    assert_int_equal(tc_mcast_set_run_count(set), 4);
    test_add_range(set, 12, 41);
    runs = tc_mcast_set_runs(set, &n_runs);
    assert_int_equal(n_runs, 1);
    assert_int_equal(runs[0].start, 9);
    assert_int_equal(runs[0].end, 42);
    assert_int_equal(tc_mcast_set_count(set), 33);

    /* removal: split, shrink both ends, remove a one-node run */
    assert_int_equal(tc_mcast_set_remove(set, 20), TC_OK);
    assert_int_equal(tc_mcast_set_run_count(set), 2);
    assert_false(tc_mcast_set_contains(set, 20));
    assert_true(tc_mcast_set_contains(set, 19));
    assert_true(tc_mcast_set_contains(set, 21));
    assert_int_equal(tc_mcast_set_remove(set, 9), TC_OK);
    assert_int_equal(tc_mcast_set_remove(set, 41), TC_OK);
    assert_int_equal(tc_mcast_set_remove(set, 50), TC_OK); /* not a member */
    assert_int_equal(tc_mcast_set_count(set), 30);
    assert_int_equal(tc_mcast_set_first(set, &first), TC_OK);
    assert_int_equal(first, 10);
    test_add(set, 99);
    assert_int_equal(tc_mcast_set_remove(set, 99), TC_OK);
    test_check_invariants(set);

    /* dup / equal / clear */
    assert_int_equal(tc_mcast_set_dup(set, &copy), TC_OK);
    assert_true(tc_mcast_set_equal(set, copy));
    test_add(copy, 0);
    assert_false(tc_mcast_set_equal(set, copy));
    other = test_set_new(101); /* same members, other node count */
    test_add_range(other, 10, 20);
    test_add_range(other, 21, 41);
    assert_false(tc_mcast_set_equal(set, other));
    tc_mcast_set_clear(set);
    assert_int_equal(tc_mcast_set_count(set), 0);
    assert_int_equal(tc_mcast_set_run_count(set), 0);
    assert_false(tc_mcast_set_contains(set, 10));
    test_add(set, 3); /* usable after clear */
    assert_true(tc_mcast_set_contains(set, 3));

    tc_mcast_set_destroy(other);
    tc_mcast_set_destroy(copy);
    tc_mcast_set_destroy(set);
    tc_mcast_set_destroy(NULL);
}

static void test_set_extremes(void **state)
{
    tc_mcast_set_t *set;
    const tc_mcast_run_t *runs;
    size_t n_runs;

    (void)state;
    /* N = 1: node 0 only */
    set = test_set_new(1);
    assert_int_equal(tc_mcast_set_add(set, 1), TC_ERR_OUT_OF_RANGE);
    test_add(set, 0);
    assert_int_equal(tc_mcast_set_count(set), 1);
    assert_int_equal(tc_mcast_set_remove(set, 0), TC_OK);
    assert_int_equal(tc_mcast_set_count(set), 0);
    tc_mcast_set_destroy(set);

    /* N = 2^32 - 1: the whole id space is one run */
    set = test_set_new(UINT32_MAX);
    test_add_range(set, 0, UINT32_MAX);
    assert_int_equal(tc_mcast_set_count(set), UINT32_MAX);
    assert_int_equal(tc_mcast_set_run_count(set), 1);
    assert_true(tc_mcast_set_contains(set, UINT32_MAX - 1));
    assert_false(tc_mcast_set_contains(set, UINT32_MAX));
    assert_int_equal(tc_mcast_set_add(set, UINT32_MAX), TC_ERR_OUT_OF_RANGE);
    assert_int_equal(tc_mcast_set_remove(set, UINT32_MAX - 1), TC_OK);
    assert_int_equal(tc_mcast_set_remove(set, 0), TC_OK);
    assert_int_equal(tc_mcast_set_remove(set, 1u << 31), TC_OK);
    runs = tc_mcast_set_runs(set, &n_runs);
    assert_int_equal(n_runs, 2);
    assert_int_equal(runs[0].start, 1);
    assert_int_equal(runs[0].end, 1u << 31);
    assert_int_equal(runs[1].start, (1u << 31) + 1);
    assert_int_equal(runs[1].end, UINT32_MAX - 1);
    assert_int_equal(tc_mcast_set_count(set), (uint64_t)UINT32_MAX - 3);
    test_check_invariants(set);
    tc_mcast_set_destroy(set);
}

/* Random add / add_range / remove / clear against a bitmap oracle. */
static void test_set_random_oracle(void **state)
{
    static const uint32_t sizes[] = {1, 2, 3, 5, 17, 64, 100, 1000, 4099};
    uint64_t rng = TEST_SEED;
    unsigned iters = test_iters(20000);

    (void)state;
    for (size_t si = 0; si < TEST_ARRAY_SIZE(sizes); ++si) {
        uint32_t n = sizes[si];
        uint8_t *oracle = calloc(n, 1);
        tc_mcast_set_t *set = test_set_new(n), *copy;

        assert_non_null(oracle);
        for (unsigned it = 0; it < iters; ++it) {
            uint64_t op = test_rand_below(&rng, 1000);
            uint32_t a = (uint32_t)test_rand_below(&rng, n);
            uint32_t b;

            if (op < 400) {
                test_add(set, a);
                oracle[a] = 1;
            } else if (op < 550) {
                /* short and long ranges, including up to N */
                b = a + (uint32_t)test_rand_below(&rng,
                        (op & 1) ? 8 : (uint64_t)n - a + 1);
                if (b > n) {
                    b = n;
                }
                test_add_range(set, a, b);
                memset(oracle + a, 1, b - a);
            } else if (op < 995) {
                assert_int_equal(tc_mcast_set_remove(set, a), TC_OK);
                oracle[a] = 0;
            } else {
                tc_mcast_set_clear(set);
                memset(oracle, 0, n);
            }

            test_check_invariants(set);
            if ((n <= 100) || (it % 16 == 0)) {
                test_check_oracle(set, oracle, n);
            }
            if (it % 512 == 0) {
                assert_int_equal(tc_mcast_set_dup(set, &copy), TC_OK);
                assert_true(tc_mcast_set_equal(set, copy));
                tc_mcast_set_destroy(copy);
            }
        }
        test_check_oracle(set, oracle, n);
        tc_mcast_set_destroy(set);
        free(oracle);
    }
}

/* ----------------------------------------------------------------- varints */

static void test_varint(void **state)
{
    uint8_t buf[16];
    uint64_t value, values[] = {0, 1, 127, 128, 255, 16383, 16384,
                                (UINT64_C(1) << 21) - 1, UINT64_C(1) << 21,
                                UINT32_MAX, UINT64_C(1) << 35,
                                (UINT64_C(1) << 63) - 1, UINT64_C(1) << 63,
                                UINT64_MAX};
    size_t pos;
    unsigned len;

    (void)state;
    for (size_t i = 0; i < TEST_ARRAY_SIZE(values); ++i) {
        len = tc_mcast_varint_put(buf, values[i]);
        assert_int_equal(len, test_vsize(values[i]));
        assert_int_equal(len, tc_mcast_varint_size(values[i]));
        pos = 0;
        assert_int_equal(tc_mcast_varint_get(buf, len, &pos, &value),
                         TC_MCAST_DECODE_OK);
        assert_int_equal(pos, len);
        assert_int_equal(value, values[i]);
        for (unsigned cut = 0; cut < len; ++cut) {
            pos = 0;
            assert_int_equal(tc_mcast_varint_get(buf, cut, &pos, &value),
                             TC_MCAST_DECODE_TRUNCATED);
            assert_int_equal(pos, 0);
        }
    }
    assert_int_equal(tc_mcast_varint_size(UINT64_MAX), 10);

    /* overlong: a trailing zero group */
    {
        const uint8_t overlong1[] = {0x80, 0x00};          /* 0 in 2 bytes */
        const uint8_t overlong2[] = {0xff, 0x80, 0x00};    /* 127 in 3 bytes */
        const uint8_t overlong10[] = {0x80, 0x80, 0x80, 0x80, 0x80,
                                      0x80, 0x80, 0x80, 0x80, 0x00};
        const uint8_t eleven[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                  0x80, 0x80, 0x80, 0x80, 0x01};
        const uint8_t too_big[] = {0xff, 0xff, 0xff, 0xff, 0xff,
                                   0xff, 0xff, 0xff, 0xff, 0x02}; /* 2^64 */
        const uint8_t max[] = {0xff, 0xff, 0xff, 0xff, 0xff,
                               0xff, 0xff, 0xff, 0xff, 0x01};

        pos = 0;
        assert_int_equal(tc_mcast_varint_get(overlong1, 2, &pos, &value),
                         TC_MCAST_DECODE_NOT_CANONICAL);
        assert_int_equal(tc_mcast_varint_get(overlong2, 3, &pos, &value),
                         TC_MCAST_DECODE_NOT_CANONICAL);
        assert_int_equal(tc_mcast_varint_get(overlong10, 10, &pos, &value),
                         TC_MCAST_DECODE_NOT_CANONICAL);
        assert_int_equal(tc_mcast_varint_get(eleven, 11, &pos, &value),
                         TC_MCAST_DECODE_NOT_CANONICAL);
        /* an 11-byte varint is refused at its 10th byte, input or no */
        assert_int_equal(tc_mcast_varint_get(eleven, 10, &pos, &value),
                         TC_MCAST_DECODE_NOT_CANONICAL);
        assert_int_equal(tc_mcast_varint_get(too_big, 10, &pos, &value),
                         TC_MCAST_DECODE_NOT_CANONICAL);
        assert_int_equal(pos, 0);
        assert_int_equal(tc_mcast_varint_get(max, 10, &pos, &value),
                         TC_MCAST_DECODE_OK);
        assert_int_equal(value, UINT64_MAX);
        assert_int_equal(pos, 10);
    }
}

/* ------------------------------------------------------- codec: each form */

typedef struct {
    const char *name;
    uint32_t    num_nodes;
    unsigned    kind;      /* expected choice */
    unsigned    tie_with;  /* a higher kind of the same size, or KIND_LAST */
} test_form_case_t;

static void test_form_build(tc_mcast_set_t *set, size_t which)
{
    switch (which) {
    case 0: /* EMPTY */
        break;
    case 1: /* SINGLE: 2 bytes beat everything else */
        test_add(set, 5);
        break;
    case 2: /* ALL_NODES beats SINGLE when N = 1 */
        test_add(set, 0);
        break;
    case 3: /* SMALL_INLINE ties DELTA_LIST (5 bytes) and wins as lower */
        test_add(set, 1);
        test_add(set, 50);
        test_add(set, 99);
        break;
    case 4: /* RANGES: two long runs */
        test_add_range(set, 10, 1000);
        test_add_range(set, 5000, 90000);
        break;
    case 5: /* RANGES ties DELTA_LIST (12 bytes) and wins as lower */
        for (uint32_t i = 0; i < 5; ++i) {
            test_add_range(set, 100 * i, 100 * i + 2);
        }
        break;
    case 6: /* DELTA_LIST: 20 nodes 100 apart */
        for (uint32_t i = 0; i < 20; ++i) {
            test_add(set, 1000 + 100 * i);
        }
        break;
    case 7: /* BITMAP: every other node of [0, 200) */
        for (uint32_t i = 0; i < 200; i += 2) {
            test_add(set, i);
        }
        break;
    case 8: /* ALL_NODES */
        test_add_range(set, 0, 1000);
        break;
    case 9: /* ALL_EXCEPT: all but three */
        test_add_range(set, 0, 1000);
        assert_int_equal(tc_mcast_set_remove(set, 3), TC_OK);
        assert_int_equal(tc_mcast_set_remove(set, 500), TC_OK);
        assert_int_equal(tc_mcast_set_remove(set, 998), TC_OK);
        break;
    case 10: /* four-way tie at 4 bytes: SMALL_INLINE, RANGES, DELTA, BITMAP */
        test_add_range(set, 0, 2);
        break;
    case 11: /* ALL_EXCEPT over 2^32 - 1 nodes: all but one */
        test_add_range(set, 0, UINT32_MAX);
        assert_int_equal(tc_mcast_set_remove(set, 123456789), TC_OK);
        break;
    }
}

static void test_each_form_chosen(void **state)
{
    static const test_form_case_t cases[] = {
        {"empty",              100,        TC_MCAST_EMPTY,        TC_MCAST_KIND_LAST},
        {"single",             100,        TC_MCAST_SINGLE,       TC_MCAST_KIND_LAST},
        {"one of one",         1,          TC_MCAST_ALL_NODES,    TC_MCAST_KIND_LAST},
        {"small inline (tie)", 100,        TC_MCAST_SMALL_INLINE, TC_MCAST_DELTA_LIST},
        {"ranges",             100000,     TC_MCAST_RANGES,       TC_MCAST_KIND_LAST},
        {"ranges (tie)",       1000000,    TC_MCAST_RANGES,       TC_MCAST_DELTA_LIST},
        {"delta list",         1000000,    TC_MCAST_DELTA_LIST,   TC_MCAST_KIND_LAST},
        {"bitmap",             1000,       TC_MCAST_BITMAP,       TC_MCAST_KIND_LAST},
        {"all nodes",          1000,       TC_MCAST_ALL_NODES,    TC_MCAST_KIND_LAST},
        {"all except",         1000,       TC_MCAST_ALL_EXCEPT,   TC_MCAST_KIND_LAST},
        {"four-way tie",       1000000,    TC_MCAST_SMALL_INLINE, TC_MCAST_BITMAP},
        {"all but one of 2^32-1", UINT32_MAX, TC_MCAST_ALL_EXCEPT, TC_MCAST_KIND_LAST},
    };
    unsigned seen[TC_MCAST_KIND_LAST] = {0};

    (void)state;
    for (size_t i = 0; i < TEST_ARRAY_SIZE(cases); ++i) {
        tc_mcast_set_t *set = test_set_new(cases[i].num_nodes);
        size_t size, tie_size;
        tc_mcast_kind_t kind;

        test_form_build(set, i);
        kind = test_check_codec(set);
        if (kind != cases[i].kind) {
            fail_msg("%s: chose %s, expected %s", cases[i].name,
                     tc_mcast_kind_str(kind), tc_mcast_kind_str(cases[i].kind));
        }
        assert_int_equal(tc_mcast_encoded_size(set, kind, &size), TC_OK);
        if (cases[i].tie_with != TC_MCAST_KIND_LAST) {
            assert_int_equal(tc_mcast_encoded_size(set, cases[i].tie_with,
                                                   &tie_size), TC_OK);
            assert_int_equal(size, tie_size);
        }
        seen[kind]++;
        tc_mcast_set_destroy(set);
    }
    for (unsigned k = 0; k < TC_MCAST_KIND_LAST; ++k) {
        assert_true(seen[k] > 0);
    }
}

/* ------------------------------------------------------ codec: round trip */

enum {
    TEST_SHAPE_EMPTY, TEST_SHAPE_SINGLE, TEST_SHAPE_SMALL, TEST_SHAPE_SPARSE,
    TEST_SHAPE_DENSE, TEST_SHAPE_RANGES, TEST_SHAPE_NEAR_FULL, TEST_SHAPE_FULL,
    TEST_SHAPE_LAST
};

static void test_make_set(tc_mcast_set_t *set, unsigned shape, uint64_t *rng)
{
    uint32_t n = tc_mcast_set_num_nodes(set), window, base, k;
    uint64_t p;

    tc_mcast_set_clear(set);
    switch (shape) {
    case TEST_SHAPE_EMPTY:
        break;
    case TEST_SHAPE_SINGLE:
        /* the extremes too: node 0 and node N - 1 */
        p = test_rand_below(rng, 4);
        test_add(set, (p == 0) ? 0 : (p == 1) ? n - 1 :
                      (uint32_t)test_rand_below(rng, n));
        break;
    case TEST_SHAPE_SMALL:
        k = 1 + (uint32_t)test_rand_below(rng, 8);
        base = (uint32_t)test_rand_below(rng, n);
        for (uint32_t i = 0; i < k; ++i) {
            test_add(set, base + (uint32_t)test_rand_below(rng, n - base));
        }
        break;
    case TEST_SHAPE_SPARSE:
        k = 1 + (uint32_t)test_rand_below(rng, 200);
        for (uint32_t i = 0; i < k; ++i) {
            test_add(set, (uint32_t)test_rand_below(rng, n));
        }
        break;
    case TEST_SHAPE_DENSE:
        /* a window of at most 4096 nodes, 50% to 97% full */
        window = (n < 4096) ? n : 4096;
        base   = (uint32_t)test_rand_below(rng, (uint64_t)n - window + 1);
        p      = 50 + test_rand_below(rng, 48);
        for (uint32_t i = 0; i < window; ++i) {
            if (test_rand_below(rng, 100) < p) {
                test_add(set, base + i);
            }
        }
        break;
    case TEST_SHAPE_RANGES:
        k = 1 + (uint32_t)test_rand_below(rng, 12);
        for (uint32_t i = 0; i < k; ++i) {
            uint32_t start = (uint32_t)test_rand_below(rng, n);
            uint64_t len   = 1 + test_rand_below(rng, (n > 16 ? n / 16 : n));

            if (len > (uint64_t)n - start) {
                len = (uint64_t)n - start;
            }
            test_add_range(set, start, start + (uint32_t)len);
        }
        break;
    case TEST_SHAPE_NEAR_FULL:
        test_add_range(set, 0, n);
        k = 1 + (uint32_t)test_rand_below(rng, 6);
        for (uint32_t i = 0; i < k; ++i) {
            assert_int_equal(tc_mcast_set_remove(set, (uint32_t)test_rand_below(rng, n)),
                             TC_OK);
        }
        break;
    case TEST_SHAPE_FULL:
        test_add_range(set, 0, n);
        break;
    }
}

static void test_roundtrip_random(void **state)
{
    static const uint32_t sizes[] = {1, 2, 3, 7, 8, 9, 63, 64, 100, 1000, 4096,
                                     65537, 1u << 20, 1u << 31, UINT32_MAX - 1,
                                     UINT32_MAX};
    unsigned reps = test_iters(30), hist[TC_MCAST_KIND_LAST] = {0};
    uint64_t rng = TEST_SEED ^ 0x1111;

    (void)state;
    for (size_t si = 0; si < TEST_ARRAY_SIZE(sizes); ++si) {
        tc_mcast_set_t *set = test_set_new(sizes[si]);

        for (unsigned shape = 0; shape < TEST_SHAPE_LAST; ++shape) {
            for (unsigned r = 0; r < reps; ++r) {
                test_make_set(set, shape, &rng);
                hist[test_check_codec(set)]++;
                if ((shape == TEST_SHAPE_EMPTY) || (shape == TEST_SHAPE_FULL)) {
                    break; /* nothing random about them */
                }
            }
        }
        tc_mcast_set_destroy(set);
    }
    for (unsigned k = 0; k < TC_MCAST_KIND_LAST; ++k) {
        print_message("    chosen %-12s %u\n", tc_mcast_kind_str(k), hist[k]);
        assert_true(hist[k] > 0);
    }
}

/* A range of millions of nodes is one run: a few bytes on the wire, and the
 * partition cuts it instead of listing nodes. */
static void test_million_range(void **state)
{
    tc_mcast_set_t *set = test_set_new(UINT32_MAX), *out = test_set_new(UINT32_MAX);
    tc_mcast_slice_t *slices;
    tc_mcast_kind_t kind;
    uint32_t n_slices;
    uint8_t buf[32];
    size_t len;

    (void)state;
    test_add_range(set, 5, 5 + TEST_MILLIONS);
    assert_int_equal(tc_mcast_set_run_count(set), 1);
    assert_int_equal(tc_mcast_encode(set, buf, sizeof(buf), &len), TC_OK);
    assert_int_equal(buf[0], TC_MCAST_RANGES);
    assert_true(len <= 8);
    assert_int_equal(test_decode(buf, len, out, &kind), TC_MCAST_DECODE_OK);
    assert_int_equal(kind, TC_MCAST_RANGES);
    assert_true(tc_mcast_set_equal(set, out));
    assert_int_equal(tc_mcast_set_run_count(out), 1);
    test_check_prefixes(buf, len, UINT32_MAX);

    assert_int_equal(tc_mcast_partition(set, 4, &slices, &n_slices), TC_OK);
    assert_int_equal(n_slices, 4);
    for (uint32_t i = 0; i < n_slices; ++i) {
        assert_int_equal(slices[i].count, TEST_MILLIONS / 4);
        assert_int_equal(tc_mcast_set_run_count(slices[i].set), 1);
        assert_int_equal(slices[i].relay, 5 + i * (TEST_MILLIONS / 4));
        /* each slice still encodes in a few bytes */
        assert_int_equal(tc_mcast_encode(slices[i].set, buf, sizeof(buf), &len),
                         TC_OK);
        assert_true(len <= 10);
    }
    tc_mcast_slices_free(slices, n_slices);

    /* the full id space and all but one: one byte and a handful */
    tc_mcast_set_clear(set);
    test_add_range(set, 0, UINT32_MAX);
    assert_int_equal(tc_mcast_encode(set, buf, sizeof(buf), &len), TC_OK);
    assert_int_equal(len, 1);
    assert_int_equal(buf[0], TC_MCAST_ALL_NODES);
    assert_int_equal(tc_mcast_set_remove(set, UINT32_MAX - 1), TC_OK);
    assert_int_equal(tc_mcast_encode(set, buf, sizeof(buf), &len), TC_OK);
    assert_int_equal(buf[0], TC_MCAST_ALL_EXCEPT);
    assert_true(len <= 7);
    assert_int_equal(test_decode(buf, len, out, NULL), TC_MCAST_DECODE_OK);
    assert_true(tc_mcast_set_equal(set, out));

    tc_mcast_set_destroy(out);
    tc_mcast_set_destroy(set);
}

/* ------------------------------------------------------ codec: bad inputs */

typedef struct {
    const char              *name;
    uint32_t                 num_nodes;
    tc_mcast_decode_status_t expect;
    size_t                   len;
    uint8_t                  bytes[24];
} test_bad_t;

#define TEST_BAD(_name, _n, _expect, ...) \
    {_name, _n, _expect, sizeof((uint8_t[]){__VA_ARGS__}), {__VA_ARGS__}}

static const test_bad_t test_bad_inputs[] = {
    /* UNKNOWN_KIND */
    TEST_BAD("kind 8", 100, TC_MCAST_DECODE_UNKNOWN_KIND, 8),
    TEST_BAD("kind 255", 100, TC_MCAST_DECODE_UNKNOWN_KIND, 0xff, 0x00),
    /* TRUNCATED */
    TEST_BAD("single, no id", 100, TC_MCAST_DECODE_TRUNCATED, 1),
    TEST_BAD("single, id cut", 1000, TC_MCAST_DECODE_TRUNCATED, 1, 0x85),
    TEST_BAD("ranges, half a pair", 100, TC_MCAST_DECODE_TRUNCATED, 3, 1, 5),
    TEST_BAD("ranges, count beyond bytes", 100, TC_MCAST_DECODE_TRUNCATED,
             3, 3, 1, 1, 1, 1),
    TEST_BAD("delta, count beyond bytes", 100, TC_MCAST_DECODE_TRUNCATED,
             4, 5, 1, 1, 1),
    TEST_BAD("small inline, ids missing", 100, TC_MCAST_DECODE_TRUNCATED, 2, 8, 1),
    TEST_BAD("bitmap, bytes missing", 100, TC_MCAST_DECODE_TRUNCATED,
             5, 0, 17, 0x01, 0x00),
    TEST_BAD("all except, list cut", 100, TC_MCAST_DECODE_TRUNCATED, 7, 2, 4),
    /* TRAILING_BYTES */
    TEST_BAD("empty + 1", 100, TC_MCAST_DECODE_TRAILING_BYTES, 0, 0),
    TEST_BAD("all nodes + 1", 100, TC_MCAST_DECODE_TRAILING_BYTES, 6, 1),
    TEST_BAD("single + 1", 100, TC_MCAST_DECODE_TRAILING_BYTES, 1, 5, 0),
    TEST_BAD("ranges + 1", 100, TC_MCAST_DECODE_TRAILING_BYTES, 3, 1, 5, 2, 9),
    TEST_BAD("bitmap + 1", 100, TC_MCAST_DECODE_TRAILING_BYTES, 5, 3, 1, 0x01, 0),
    /* BAD_CARDINALITY */
    TEST_BAD("small inline, 0", 100, TC_MCAST_DECODE_BAD_CARDINALITY, 2, 0),
    TEST_BAD("small inline, 9", 100, TC_MCAST_DECODE_BAD_CARDINALITY,
             2, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9),
    TEST_BAD("small inline, 3 of N=2", 2, TC_MCAST_DECODE_BAD_CARDINALITY,
             2, 3, 0, 1, 1),
    TEST_BAD("ranges, 0", 100, TC_MCAST_DECODE_BAD_CARDINALITY, 3, 0),
    TEST_BAD("ranges, 3 runs in N=4", 4, TC_MCAST_DECODE_BAD_CARDINALITY,
             3, 3, 0, 1, 1, 1, 1, 1),
    TEST_BAD("delta, 0", 100, TC_MCAST_DECODE_BAD_CARDINALITY, 4, 0),
    TEST_BAD("delta, 5 of N=4", 4, TC_MCAST_DECODE_BAD_CARDINALITY,
             4, 5, 0, 1, 1, 1, 1),
    TEST_BAD("bitmap, 0 bits", 100, TC_MCAST_DECODE_BAD_CARDINALITY, 5, 0, 0),
    TEST_BAD("all except, 0", 100, TC_MCAST_DECODE_BAD_CARDINALITY, 7, 0),
    TEST_BAD("all except, all N", 3, TC_MCAST_DECODE_BAD_CARDINALITY, 7, 3, 0, 1, 1),
    TEST_BAD("all except, N=1", 1, TC_MCAST_DECODE_BAD_CARDINALITY, 7, 1, 0),
    TEST_BAD("ranges, 2^60", UINT32_MAX, TC_MCAST_DECODE_BAD_CARDINALITY,
             3, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10),
    TEST_BAD("delta, 2^64-1", UINT32_MAX, TC_MCAST_DECODE_BAD_CARDINALITY,
             4, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0),
    TEST_BAD("all except, 2^32", UINT32_MAX, TC_MCAST_DECODE_BAD_CARDINALITY,
             7, 0x80, 0x80, 0x80, 0x80, 0x10, 0),
    /* NODE_OUT_OF_RANGE */
    TEST_BAD("single = N", 100, TC_MCAST_DECODE_NODE_OUT_OF_RANGE, 1, 100),
    TEST_BAD("single = 2^64-1", UINT32_MAX, TC_MCAST_DECODE_NODE_OUT_OF_RANGE,
             1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01),
    TEST_BAD("single = N = 2^32-1", UINT32_MAX, TC_MCAST_DECODE_NODE_OUT_OF_RANGE,
             1, 0xff, 0xff, 0xff, 0xff, 0x0f),
    TEST_BAD("small inline id", 100, TC_MCAST_DECODE_NODE_OUT_OF_RANGE,
             2, 2, 5, 100),
    TEST_BAD("ranges start", 100, TC_MCAST_DECODE_NODE_OUT_OF_RANGE,
             3, 1, 100, 1),
    TEST_BAD("ranges second start", 100, TC_MCAST_DECODE_NODE_OUT_OF_RANGE,
             3, 2, 0, 50, 50, 1),
    TEST_BAD("delta first", 100, TC_MCAST_DECODE_NODE_OUT_OF_RANGE, 4, 1, 100),
    TEST_BAD("delta sum", 100, TC_MCAST_DECODE_NODE_OUT_OF_RANGE, 4, 2, 60, 40),
    TEST_BAD("delta wraps 64 bits", UINT32_MAX, TC_MCAST_DECODE_NODE_OUT_OF_RANGE,
             4, 2, 5, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01),
    TEST_BAD("bitmap base", 100, TC_MCAST_DECODE_NODE_OUT_OF_RANGE, 5, 100, 1, 1),
    TEST_BAD("all except id", 100, TC_MCAST_DECODE_NODE_OUT_OF_RANGE,
             7, 2, 10, 90),
    /* RANGE_OVERFLOW */
    TEST_BAD("run past N", 100, TC_MCAST_DECODE_RANGE_OVERFLOW, 3, 1, 90, 11),
    TEST_BAD("run of 2^64-1", UINT32_MAX, TC_MCAST_DECODE_RANGE_OVERFLOW,
             3, 1, 5, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01),
    TEST_BAD("bitmap past N", 100, TC_MCAST_DECODE_RANGE_OVERFLOW,
             5, 95, 10, 0x01, 0x02),
    /* NOT_CANONICAL */
    TEST_BAD("overlong id", 1000, TC_MCAST_DECODE_NOT_CANONICAL, 1, 0x85, 0x00),
    TEST_BAD("overlong zero", 1000, TC_MCAST_DECODE_NOT_CANONICAL, 1, 0x80, 0x00),
    TEST_BAD("11-byte varint", UINT32_MAX, TC_MCAST_DECODE_NOT_CANONICAL,
             1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01),
    TEST_BAD("overlong count", 100, TC_MCAST_DECODE_NOT_CANONICAL,
             4, 0x81, 0x00, 5),
    TEST_BAD("small inline not increasing", 100, TC_MCAST_DECODE_NOT_CANONICAL,
             2, 2, 7, 7),
    TEST_BAD("small inline decreasing", 100, TC_MCAST_DECODE_NOT_CANONICAL,
             2, 2, 7, 3),
    TEST_BAD("ranges adjacent", 100, TC_MCAST_DECODE_NOT_CANONICAL,
             3, 2, 0, 5, 0, 5),
    TEST_BAD("ranges empty run", 100, TC_MCAST_DECODE_NOT_CANONICAL,
             3, 1, 5, 0),
    TEST_BAD("delta zero", 100, TC_MCAST_DECODE_NOT_CANONICAL, 4, 2, 5, 0),
    TEST_BAD("all except delta zero", 100, TC_MCAST_DECODE_NOT_CANONICAL,
             7, 2, 5, 0),
    TEST_BAD("bitmap first bit clear", 100, TC_MCAST_DECODE_NOT_CANONICAL,
             5, 0, 3, 0x06),
    TEST_BAD("bitmap last bit clear", 100, TC_MCAST_DECODE_NOT_CANONICAL,
             5, 0, 10, 0x01, 0x01),
    TEST_BAD("bitmap padding set", 100, TC_MCAST_DECODE_NOT_CANONICAL,
             5, 0, 3, 0x0d),
    TEST_BAD("bitmap padding in a full byte", 100, TC_MCAST_DECODE_NOT_CANONICAL,
             5, 0, 9, 0xff, 0x81),
};

static void test_decode_errors(void **state)
{
    unsigned seen[TC_MCAST_DECODE_LAST] = {0};
    tc_mcast_kind_t kind = TC_MCAST_KIND_LAST;

    (void)state;
    for (size_t i = 0; i < TEST_ARRAY_SIZE(test_bad_inputs); ++i) {
        const test_bad_t *bad = &test_bad_inputs[i];
        tc_mcast_set_t *set = test_set_new(bad->num_nodes);
        tc_mcast_decode_status_t ds;

        /* output must come back empty, whatever it held */
        test_add(set, 0);
        ds = test_decode(bad->bytes, bad->len, set, &kind);
        if (ds != bad->expect) {
            fail_msg("%s: got \"%s\", expected \"%s\"", bad->name,
                     tc_mcast_decode_status_str(ds),
                     tc_mcast_decode_status_str(bad->expect));
        }
        assert_int_equal(kind, TC_MCAST_KIND_LAST); /* untouched */
        seen[ds]++;
        tc_mcast_set_destroy(set);
    }

    /* empty input */
    {
        tc_mcast_set_t *set = test_set_new(10);

        assert_int_equal(test_decode(NULL, 0, set, NULL), TC_MCAST_DECODE_TRUNCATED);
        assert_int_equal(tc_mcast_decode(NULL, 0, set, NULL),
                         TC_MCAST_DECODE_TRUNCATED);
        assert_int_equal(tc_mcast_decode(NULL, 1, set, NULL),
                         TC_MCAST_DECODE_INVALID_PARAM);
        assert_int_equal(tc_mcast_decode("", 1, NULL, NULL),
                         TC_MCAST_DECODE_INVALID_PARAM);
        tc_mcast_set_destroy(set);
    }

    /* every wire status is produced, and every status has its own name */
    for (unsigned s = TC_MCAST_DECODE_UNKNOWN_KIND;
         s <= TC_MCAST_DECODE_NOT_CANONICAL; ++s) {
        if (seen[s] == 0) {
            fail_msg("no input gave \"%s\"", tc_mcast_decode_status_str(s));
        }
        assert_int_equal(tc_mcast_decode_status_to_status(s), TC_ERR_PROTOCOL);
    }
    for (unsigned s = 0; s < TC_MCAST_DECODE_LAST; ++s) {
        for (unsigned t = s + 1; t < TC_MCAST_DECODE_LAST; ++t) {
            assert_string_not_equal(tc_mcast_decode_status_str(s),
                                    tc_mcast_decode_status_str(t));
        }
    }
    assert_string_equal(tc_mcast_decode_status_str(TC_MCAST_DECODE_LAST),
                        "unknown decode status");
    assert_int_equal(tc_mcast_decode_status_to_status(TC_MCAST_DECODE_OK), TC_OK);
    assert_int_equal(tc_mcast_decode_status_to_status(TC_MCAST_DECODE_NO_MEMORY),
                     TC_ERR_NO_MEMORY);
    assert_string_equal(tc_mcast_kind_str(TC_MCAST_BITMAP), "bitmap");
    assert_string_equal(tc_mcast_kind_str(99), "unknown");
}

/* A valid message's every field and prefix, and the accepted non-preferred
 * forms. */
static void test_decode_valid_crafted(void **state)
{
    static const struct {
        uint32_t n;
        size_t   len;
        uint8_t  bytes[16];
        uint32_t count;
        uint32_t first;
    } ok[] = {
        {100, 1, {0}, 0, 0},
        {100, 1, {6}, 100, 0},
        {100, 2, {1, 99}, 1, 99},
        {UINT32_MAX, 6, {1, 0xfe, 0xff, 0xff, 0xff, 0x0f}, 1, UINT32_MAX - 1},
        /* a one-node RANGES and a one-node SMALL_INLINE: not what the encoder
         * picks, still canonical */
        {100, 4, {3, 1, 7, 1}, 1, 7},
        {100, 3, {2, 1, 7}, 1, 7},
        /* a full BITMAP of N = 9 */
        {9, 5, {5, 0, 9, 0xff, 0x01}, 9, 0},
        /* ALL_EXCEPT of N - 1 nodes: one left */
        {4, 5, {7, 3, 0, 1, 1}, 1, 3},
        {4, 5, {7, 3, 1, 1, 1}, 1, 0},
    };

    (void)state;
    for (size_t i = 0; i < TEST_ARRAY_SIZE(ok); ++i) {
        tc_mcast_set_t *set = test_set_new(ok[i].n);
        uint32_t first;

        assert_int_equal(test_decode(ok[i].bytes, ok[i].len, set, NULL),
                         TC_MCAST_DECODE_OK);
        assert_int_equal(tc_mcast_set_count(set), ok[i].count);
        if (ok[i].count > 0) {
            assert_int_equal(tc_mcast_set_first(set, &first), TC_OK);
            assert_int_equal(first, ok[i].first);
        }
        test_check_prefixes(ok[i].bytes, ok[i].len, ok[i].n);
        tc_mcast_set_destroy(set);
    }
}

/* Counts far above the bytes left fail before the decoder allocates. */
static void test_decode_huge_counts(void **state)
{
    static const uint8_t inputs[][12] = {
        {3, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10}, /* 2^60 */
        {4, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10},
        {7, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10},
        {3, 0xff, 0xff, 0xff, 0xff, 0x07, 0},                      /* 2^31 - 1 */
        {4, 0xfe, 0xff, 0xff, 0xff, 0x0f, 0},                      /* 2^32 - 2 */
        {7, 0xfe, 0xff, 0xff, 0xff, 0x0f, 0},
        {5, 0, 0xfe, 0xff, 0xff, 0xff, 0x0f, 0xff},                /* bits */
    };
    static const tc_mcast_decode_status_t expect[] = {
        TC_MCAST_DECODE_BAD_CARDINALITY, TC_MCAST_DECODE_BAD_CARDINALITY,
        TC_MCAST_DECODE_BAD_CARDINALITY, TC_MCAST_DECODE_TRUNCATED,
        TC_MCAST_DECODE_TRUNCATED,       TC_MCAST_DECODE_TRUNCATED,
        TC_MCAST_DECODE_TRUNCATED,
    };
    tc_mcast_set_t *set = test_set_new(UINT32_MAX);

    (void)state;
    for (size_t i = 0; i < TEST_ARRAY_SIZE(inputs); ++i) {
        struct mallinfo2 before, after;
        tc_mcast_decode_status_t ds;

        /* glibc's count of bytes in use: no change means no allocation
         * (under valgrind both read 0, and valgrind checks the rest) */
        before = mallinfo2();
        ds     = tc_mcast_decode(inputs[i], sizeof(inputs[i]), set, NULL);
        after  = mallinfo2();
        assert_int_equal(ds, expect[i]);
        assert_int_equal(before.uordblks, after.uordblks);
        assert_int_equal(tc_mcast_set_count(set), 0);
    }
    tc_mcast_set_destroy(set);
}

/* ------------------------------------------------------------ codec: fuzz */

static const uint32_t test_fuzz_sizes[] = {1, 2, 3, 5, 8, 13, 64, 100, 200,
                                           1000, 65536, 1u << 28, UINT32_MAX};

/* Bytes that hit the interesting paths more often than uniform ones. */
static uint8_t test_fuzz_byte(uint64_t *rng)
{
    switch (test_rand_below(rng, 6)) {
    case 0:  return (uint8_t)test_rand_below(rng, 4);
    case 1:  return (uint8_t)(0x80 | test_rand_below(rng, 128));
    case 2:  return 0xff;
    case 3:  return (uint8_t)test_rand_below(rng, 16);
    default: return (uint8_t)test_rand(rng);
    }
}

/* Accepted input must be a canonical set whose encoding in the same form is
 * exactly the input, and whose preferred encoding decodes to it again. */
static void test_fuzz_check_ok(const uint8_t *in, size_t len,
                               const tc_mcast_set_t *set, tc_mcast_kind_t kind,
                               uint8_t *scratch, size_t scratch_len)
{
    tc_mcast_set_t *again = test_set_new(tc_mcast_set_num_nodes(set));
    size_t out_len;

    assert_int_equal(tc_mcast_encode_kind(set, kind, scratch, scratch_len,
                                          &out_len), TC_OK);
    assert_int_equal(out_len, len);
    assert_memory_equal(scratch, in, len);

    assert_int_equal(tc_mcast_encode(set, scratch, scratch_len, &out_len), TC_OK);
    assert_true(out_len <= len);
    assert_int_equal(tc_mcast_decode(scratch, out_len, again, NULL),
                     TC_MCAST_DECODE_OK);
    assert_true(tc_mcast_set_equal(set, again));
    tc_mcast_set_destroy(again);
}

static void test_decode_fuzz(void **state)
{
    unsigned iters = test_iters(TEST_FUZZ_ITERS), ok = 0;
    unsigned hist[TC_MCAST_DECODE_LAST] = {0};
    uint64_t rng = TEST_SEED ^ 0xf022;
    uint8_t in[TEST_FUZZ_MAX_LEN], scratch[TEST_FUZZ_MAX_LEN];
    tc_mcast_set_t *sets[TEST_ARRAY_SIZE(test_fuzz_sizes)];
    tc_mcast_decode_status_t ds;
    tc_mcast_kind_t kind;
    test_guard_t g;

    (void)state;
    test_guard_init(&g, TEST_FUZZ_MAX_LEN);
    for (size_t i = 0; i < TEST_ARRAY_SIZE(sets); ++i) {
        sets[i] = test_set_new(test_fuzz_sizes[i]);
    }

    for (unsigned it = 0; it < iters; ++it) {
        size_t si = test_rand_below(&rng, TEST_ARRAY_SIZE(sets));
        size_t len = test_rand_below(&rng, TEST_FUZZ_MAX_LEN + 1);
        tc_mcast_set_t *set = sets[si];
        const uint8_t *p;

        for (size_t b = 0; b < len; ++b) {
            in[b] = test_fuzz_byte(&rng);
        }
        if ((len > 0) && (test_rand_below(&rng, 8) != 0)) {
            in[0] = (uint8_t)test_rand_below(&rng, TC_MCAST_KIND_LAST + 1);
        }
        /* short inputs decode more often: shrink half of them */
        if ((len > 4) && (test_rand_below(&rng, 2) == 0)) {
            len = 1 + test_rand_below(&rng, 6);
        }

        test_add(set, 0); /* something to be cleared on failure */
        p  = test_guard_place(&g, in, len);
        ds = tc_mcast_decode(p, len, set, &kind);
        assert_true((unsigned)ds < TC_MCAST_DECODE_NO_MEMORY);
        hist[ds]++;
        if (ds != TC_MCAST_DECODE_OK) {
            assert_int_equal(tc_mcast_set_count(set), 0);
            continue;
        }
        ++ok;
        test_check_invariants(set);
        test_fuzz_check_ok(in, len, set, kind, scratch, sizeof(scratch));
    }

    /* mutations of valid encodings: closer to the accept boundary */
    for (unsigned it = 0; it < iters / 4; ++it) {
        size_t si = test_rand_below(&rng, TEST_ARRAY_SIZE(sets));
        tc_mcast_set_t *set = sets[si];
        size_t len, pos;
        unsigned kind_forced;
        const uint8_t *p;

        test_make_set(set, (unsigned)test_rand_below(&rng, TEST_SHAPE_LAST), &rng);
        kind_forced = (unsigned)test_rand_below(&rng, TC_MCAST_KIND_LAST);
        if (tc_mcast_encode_kind(set, kind_forced, in, sizeof(in), &len) != TC_OK) {
            continue; /* the form cannot hold it, or too big for the fuzzer */
        }
        switch (test_rand_below(&rng, 4)) {
        case 0: /* flip a bit */
            pos       = test_rand_below(&rng, len);
            in[pos]  ^= (uint8_t)(1u << test_rand_below(&rng, 8));
            break;
        case 1: /* replace a byte */
            in[test_rand_below(&rng, len)] = test_fuzz_byte(&rng);
            break;
        case 2: /* append a byte */
            if (len < sizeof(in)) {
                in[len++] = test_fuzz_byte(&rng);
            }
            break;
        default: /* drop a byte in the middle */
            pos = test_rand_below(&rng, len);
            memmove(&in[pos], &in[pos + 1], len - pos - 1);
            --len;
            break;
        }

        p  = test_guard_place(&g, in, len);
        ds = tc_mcast_decode(p, len, set, &kind);
        assert_true((unsigned)ds < TC_MCAST_DECODE_NO_MEMORY);
        hist[ds]++;
        if (ds != TC_MCAST_DECODE_OK) {
            assert_int_equal(tc_mcast_set_count(set), 0);
            continue;
        }
        ++ok;
        test_check_invariants(set);
        test_fuzz_check_ok(in, len, set, kind, scratch, sizeof(scratch));
    }

    for (unsigned s = 0; s < TC_MCAST_DECODE_NO_MEMORY; ++s) {
        print_message("    %-18s %u\n", tc_mcast_decode_status_str(s), hist[s]);
        assert_true(hist[s] > 0);
    }
    assert_true(ok > 0);

    for (size_t i = 0; i < TEST_ARRAY_SIZE(sets); ++i) {
        tc_mcast_set_destroy(sets[i]);
    }
    test_guard_fini(&g);
}

/* --------------------------------------------------------------- partition */

/* The partition contract: k = min(R, size); sizes base or base + 1, larger
 * ones first; slices in node order, their union the set; relay = first node;
 * at most run_count + k - 1 runs in all. */
static void test_check_partition(const tc_mcast_set_t *set, uint32_t radix)
{
    uint64_t count = tc_mcast_set_count(set), base, total_runs = 0;
    tc_mcast_set_t *uni = test_set_new(tc_mcast_set_num_nodes(set));
    tc_mcast_slice_t *slices = NULL;
    const tc_mcast_run_t *runs;
    uint32_t n_slices = 12345, k, first;
    size_t n_runs;

    assert_int_equal(tc_mcast_partition(set, radix, &slices, &n_slices), TC_OK);
    k = (count < radix) ? (uint32_t)count : radix;
    assert_int_equal(n_slices, k);
    if (k == 0) {
        assert_null(slices);
        tc_mcast_set_destroy(uni);
        return;
    }

    base = count / k;
    for (uint32_t i = 0; i < k; ++i) {
        const tc_mcast_set_t *s = slices[i].set;

        test_check_invariants(s);
        assert_int_equal(tc_mcast_set_count(s), slices[i].count);
        assert_int_equal(slices[i].count, base + ((i < count % k) ? 1 : 0));
        assert_int_equal(tc_mcast_set_first(s, &first), TC_OK);
        assert_int_equal(first, slices[i].relay);
        assert_true(tc_mcast_set_contains(set, first));
        runs = tc_mcast_set_runs(s, &n_runs);
        total_runs += n_runs;
        /* order: this slice lies after everything so far */
        if (i > 0) {
            size_t prev_runs;
            const tc_mcast_run_t *prev = tc_mcast_set_runs(slices[i - 1].set,
                                                           &prev_runs);
            assert_true(prev[prev_runs - 1].end <= runs[0].start);
        }
        for (size_t r = 0; r < n_runs; ++r) {
            test_add_range(uni, runs[r].start, runs[r].end);
        }
    }
    assert_true(tc_mcast_set_equal(uni, set));
    assert_true(total_runs <= tc_mcast_set_run_count(set) + k - 1);

    tc_mcast_slices_free(slices, n_slices);
    tc_mcast_set_destroy(uni);
}

static void test_partition_random(void **state)
{
    static const uint32_t radices[] = {1, 2, 3, 4, 5, 8, 16, 64, 1000, UINT32_MAX};
    static const uint32_t sizes[] = {1, 2, 7, 100, 4096, 1u << 20, UINT32_MAX};
    unsigned reps = test_iters(10);
    uint64_t rng = TEST_SEED ^ 0x9a27;
    tc_mcast_slice_t *slices;
    uint32_t n_slices;

    (void)state;
    for (size_t si = 0; si < TEST_ARRAY_SIZE(sizes); ++si) {
        tc_mcast_set_t *set = test_set_new(sizes[si]);

        assert_int_equal(tc_mcast_partition(set, 0, &slices, &n_slices),
                         TC_ERR_INVALID_PARAM);
        for (unsigned shape = 0; shape < TEST_SHAPE_LAST; ++shape) {
            for (unsigned r = 0; r < reps; ++r) {
                test_make_set(set, shape, &rng);
                for (size_t ri = 0; ri < TEST_ARRAY_SIZE(radices); ++ri) {
                    /* k slices are k sets: keep k to what a test can hold */
                    if ((radices[ri] > TEST_MAX_SLICES) &&
                        (tc_mcast_set_count(set) > TEST_MAX_SLICES)) {
                        continue;
                    }
                    test_check_partition(set, radices[ri]);
                }
            }
        }
        tc_mcast_set_destroy(set);
    }
}

static void test_partition_millions(void **state)
{
    tc_mcast_set_t *set = test_set_new(UINT32_MAX);
    tc_mcast_slice_t *slices;
    uint32_t n_slices;

    (void)state;
    test_add_range(set, 0, TEST_MILLIONS);
    test_add_range(set, 1000000000u, 1000000000u + 2000000u);
    test_add(set, 4000000000u);

    /* 5000001 nodes into 4: 1250001, 1250000 x 3; runs cut, not expanded */
    assert_int_equal(tc_mcast_partition(set, 4, &slices, &n_slices), TC_OK);
    assert_int_equal(n_slices, 4);
    assert_int_equal(slices[0].count, 1250001);
    for (uint32_t i = 0; i < n_slices; ++i) {
        assert_true(tc_mcast_set_run_count(slices[i].set) <= 3);
    }
    assert_int_equal(slices[0].relay, 0);
    assert_int_equal(slices[1].relay, 1250001);
    assert_int_equal(slices[3].relay, 1000000000u + 2000000u - 1250000u + 1u);
    tc_mcast_slices_free(slices, n_slices);

    for (uint32_t radix = 1; radix <= 64; radix *= 2) {
        test_check_partition(set, radix);
    }

    /* R = 1: one slice, the whole set (a chain) */
    assert_int_equal(tc_mcast_partition(set, 1, &slices, &n_slices), TC_OK);
    assert_int_equal(n_slices, 1);
    assert_true(tc_mcast_set_equal(slices[0].set, set));
    assert_int_equal(slices[0].relay, 0);
    tc_mcast_slices_free(slices, n_slices);

    /* the whole id space, 2^32 - 1 nodes, into 64 runs */
    tc_mcast_set_clear(set);
    test_add_range(set, 0, UINT32_MAX);
    test_check_partition(set, 64);
    tc_mcast_set_destroy(set);
}

/* R = 1: every hop forwards to the next node; the set shrinks by one. */
static void test_partition_chain(void **state)
{
    tc_mcast_set_t *set = test_set_new(50), *cur;
    tc_mcast_slice_t *slices;
    uint32_t n_slices, self = 0, hops = 0;

    (void)state;
    test_add_range(set, 3, 10);
    test_add_range(set, 20, 25);
    assert_int_equal(tc_mcast_forward_plan(set, 40, 1, 0, &slices, &n_slices),
                     TC_OK);
    assert_int_equal(n_slices, 1);
    assert_true(tc_mcast_set_equal(slices[0].set, set)); /* origin not a target */
    assert_int_equal(tc_mcast_set_dup(slices[0].set, &cur), TC_OK);
    self = slices[0].relay;
    tc_mcast_slices_free(slices, n_slices);

    for (;;) {
        ++hops;
        assert_int_equal(tc_mcast_forward_plan(cur, self, 1, TC_MCAST_SELF_REQUIRED,
                                               &slices, &n_slices), TC_OK);
        assert_true(tc_mcast_set_contains(cur, self)); /* cur is not changed */
        tc_mcast_set_destroy(cur);
        if (n_slices == 0) {
            break;
        }
        assert_int_equal(n_slices, 1);
        assert_true(slices[0].relay > self);
        self = slices[0].relay;
        assert_int_equal(tc_mcast_set_dup(slices[0].set, &cur), TC_OK);
        tc_mcast_slices_free(slices, n_slices);
    }
    assert_int_equal(hops, 12);
    assert_int_equal(self, 24);
    tc_mcast_set_destroy(set);
}

/* The forwarding tree as the runtime will run it: every envelope's set goes
 * through the codec, each relay checks and removes itself, and every target
 * is delivered exactly once within the balanced depth. */
static void test_forward_tree(void **state)
{
    static const uint32_t radices[] = {1, 2, 3, 4, 8};
    const uint32_t n = 1000, origin = 17;
    tc_mcast_set_t *targets = test_set_new(n);
    uint64_t rng = TEST_SEED ^ 0x7733;

    (void)state;
    for (uint32_t i = 0; i < n; ++i) {
        if ((i != origin) && (test_rand_below(&rng, 3) != 0)) {
            test_add(targets, i);
        }
    }

    for (size_t ri = 0; ri < TEST_ARRAY_SIZE(radices); ++ri) {
        uint32_t radix = radices[ri], head = 0, tail = 0, max_depth = 0, bound = 0;
        uint32_t parent_depth = 0; /* of the envelope whose slices are queued */
        uint64_t m = tc_mcast_set_count(targets);
        uint8_t *delivered = calloc(n, 1);
        /* a queue of encoded envelopes: (relay, depth, bytes) */
        struct { uint32_t relay, depth; size_t len; uint8_t *bytes; } *q;
        tc_mcast_slice_t *slices;
        uint32_t n_slices;

        q = calloc(m + 1, sizeof(*q));
        assert_non_null(q);
        assert_non_null(delivered);

        /* worst-case depth of a balanced tree: d(M) = 1 + d(ceil(M/R) - 1) */
        for (uint64_t left = m; left > 0; left = (left + radix - 1) / radix - 1) {
            ++bound;
        }

        assert_int_equal(tc_mcast_forward_plan(targets, origin, radix, 0, &slices,
                                               &n_slices), TC_OK);
        for (;;) {
            for (uint32_t i = 0; i < n_slices; ++i) {
                size_t size;
                tc_mcast_kind_t kind;

                assert_int_equal(tc_mcast_encode_choose(slices[i].set, &kind, &size),
                                 TC_OK);
                q[tail].bytes = malloc(size);
                assert_non_null(q[tail].bytes);
                assert_int_equal(tc_mcast_encode(slices[i].set, q[tail].bytes, size,
                                                 &q[tail].len), TC_OK);
                q[tail].relay = slices[i].relay;
                q[tail].depth = parent_depth + 1;
                ++tail;
            }
            tc_mcast_slices_free(slices, n_slices);
            if (head == tail) {
                break;
            }

            /* the next relay receives its envelope */
            {
                tc_mcast_set_t *got = test_set_new(n);
                uint32_t self = q[head].relay;

                parent_depth = q[head].depth;

                assert_int_equal(tc_mcast_decode(q[head].bytes, q[head].len, got,
                                                 NULL), TC_MCAST_DECODE_OK);
                /* a node that is not in the slice refuses it */
                assert_int_equal(tc_mcast_forward_plan(got, origin, radix,
                                                       TC_MCAST_SELF_REQUIRED,
                                                       &slices, &n_slices),
                                 TC_ERR_PROTOCOL);
                assert_int_equal(tc_mcast_forward_plan(got, self, radix,
                                                       TC_MCAST_SELF_REQUIRED,
                                                       &slices, &n_slices), TC_OK);
                assert_false(delivered[self]);
                delivered[self] = 1; /* forward first, then deliver */
                if (q[head].depth > max_depth) {
                    max_depth = q[head].depth;
                }
                free(q[head].bytes);
                tc_mcast_set_destroy(got);
                ++head;
            }
        }

        for (uint32_t i = 0; i < n; ++i) {
            assert_int_equal(delivered[i], tc_mcast_set_contains(targets, i));
        }
        assert_int_equal(tail, m);
        assert_true(max_depth <= bound);
        print_message("    radix %-2u: %llu targets, depth %u (bound %u)\n", radix,
                      (unsigned long long)m, max_depth, bound);
        free(q);
        free(delivered);
    }

    {
        tc_mcast_slice_t *slices;
        uint32_t n_slices;

        assert_int_equal(tc_mcast_forward_plan(targets, 0, 0, 0, &slices, &n_slices),
                         TC_ERR_INVALID_PARAM);
    }
    tc_mcast_set_destroy(targets);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_basics),
        cmocka_unit_test(test_set_extremes),
        cmocka_unit_test(test_set_random_oracle),
        cmocka_unit_test(test_varint),
        cmocka_unit_test(test_each_form_chosen),
        cmocka_unit_test(test_roundtrip_random),
        cmocka_unit_test(test_million_range),
        cmocka_unit_test(test_decode_errors),
        cmocka_unit_test(test_decode_valid_crafted),
        cmocka_unit_test(test_decode_huge_counts),
        cmocka_unit_test(test_decode_fuzz),
        cmocka_unit_test(test_partition_random),
        cmocka_unit_test(test_partition_millions),
        cmocka_unit_test(test_partition_chain),
        cmocka_unit_test(test_forward_tree),
    };

    return cmocka_run_group_tests_name("mcast", tests, NULL, NULL);
}
