/*
 * Tests of the multicast envelope and ack codec (lib/codec/mcast_env.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <string.h>

#include "mcast_env.h"

static size_t env_build(const tc_mcast_env_t *env, const tc_mcast_set_t *set, uint8_t *buf,
                        size_t cap)
{
    size_t h = tc_mcast_env_put_hdr(env, buf), len = 0;

    assert_int_equal(tc_mcast_encode(set, buf + h, cap - h, &len), TC_OK);
    return h + len;
}

static void test_env_roundtrip(void **state)
{
    static const uint32_t sizes[] = {1, 2, 64, 1000, UINT32_MAX};
    uint8_t buf[256];

    (void)state;
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
        uint32_t n = sizes[i];
        tc_mcast_set_t *set, *got;
        tc_mcast_env_t env = {TC_MCAST_ENV_ACK, n - 1, 4, 3, UINT64_MAX}, back;
        size_t len;

        assert_int_equal(tc_mcast_set_create(n, &set), TC_OK);
        assert_int_equal(tc_mcast_set_create(n, &got), TC_OK);
        assert_int_equal(tc_mcast_set_add_range(set, n / 2, n), TC_OK);
        for (int ack = 1; ack >= 0; --ack) {
            env.flags = ack ? TC_MCAST_ENV_ACK : 0;
            env.id    = ack ? UINT64_MAX : 0;
            len       = env_build(&env, set, buf, sizeof(buf));
            assert_int_equal(tc_mcast_env_parse(buf, len, got, &back), TC_MCAST_DECODE_OK);
            assert_int_equal(back.flags, env.flags);
            assert_int_equal(back.origin, env.origin);
            assert_int_equal(back.radix, env.radix);
            assert_int_equal(back.hops, env.hops);
            assert_true(back.id == env.id);
            assert_true(tc_mcast_set_equal(set, got));
            /* every proper prefix is refused and leaves the set empty */
            for (size_t k = 0; k < len; ++k) {
                assert_int_not_equal(tc_mcast_env_parse(buf, k, got, &back),
                                     TC_MCAST_DECODE_OK);
                assert_int_equal(tc_mcast_set_count(got), 0);
            }
        }
        tc_mcast_set_destroy(got);
        tc_mcast_set_destroy(set);
    }
}

static void test_env_bad_header(void **state)
{
    tc_mcast_set_t *set;
    tc_mcast_env_t env = {0, 5, 4, 1, 0}, back;
    uint8_t buf[64];
    size_t len;

    (void)state;
    assert_int_equal(tc_mcast_set_create(10, &set), TC_OK);
    assert_int_equal(tc_mcast_set_add(set, 7), TC_OK);
    len = env_build(&env, set, buf, sizeof(buf));
    buf[0] = 0x02; /* unknown flag */
    assert_int_equal(tc_mcast_env_parse(buf, len, set, &back), TC_MCAST_DECODE_NOT_CANONICAL);
    assert_int_equal(tc_mcast_set_add(set, 7), TC_OK);
    env.origin = 10; /* outside the group */
    len = env_build(&env, set, buf, sizeof(buf));
    assert_int_equal(tc_mcast_env_parse(buf, len, set, &back),
                     TC_MCAST_DECODE_NODE_OUT_OF_RANGE);
    assert_int_equal(tc_mcast_set_add(set, 7), TC_OK);
    env.origin = 5;
    env.radix  = 0;
    len = env_build(&env, set, buf, sizeof(buf));
    assert_int_equal(tc_mcast_env_parse(buf, len, set, &back), TC_MCAST_DECODE_NOT_CANONICAL);
    assert_int_equal(tc_mcast_set_add(set, 7), TC_OK);
    env.radix = 4;
    env.hops  = 0;
    len = env_build(&env, set, buf, sizeof(buf));
    assert_int_equal(tc_mcast_env_parse(buf, len, set, &back), TC_MCAST_DECODE_NOT_CANONICAL);
    assert_int_equal(tc_mcast_set_add(set, 7), TC_OK);
    env.hops  = 1;
    env.flags = TC_MCAST_ENV_ACK; /* ack without an id */
    env.id    = 0;
    len = env_build(&env, set, buf, sizeof(buf));
    assert_int_equal(tc_mcast_env_parse(buf, len, set, &back), TC_MCAST_DECODE_NOT_CANONICAL);
    /* a slice with trailing bytes */
    assert_int_equal(tc_mcast_set_add(set, 7), TC_OK);
    env.flags = 0;
    len = env_build(&env, set, buf, sizeof(buf));
    buf[len++] = 0;
    assert_int_equal(tc_mcast_env_parse(buf, len, set, &back), TC_MCAST_DECODE_TRAILING_BYTES);
    assert_int_equal(tc_mcast_env_parse(NULL, 0, set, &back), TC_MCAST_DECODE_TRUNCATED);
    assert_int_equal(tc_mcast_env_parse(buf, len, NULL, &back), TC_MCAST_DECODE_INVALID_PARAM);
    tc_mcast_set_destroy(set);
}

static void test_ack(void **state)
{
    tc_mcast_ack_t ack = {3, 99, 7, 2, 6, 40}, back;
    uint8_t buf[TC_MCAST_ACK_MAX + 1];
    size_t len;

    (void)state;
    len = tc_mcast_ack_put(&ack, buf);
    assert_int_equal(tc_mcast_ack_parse(buf, len, 8, &back), TC_MCAST_DECODE_OK);
    assert_int_equal(back.origin, 3);
    assert_int_equal(back.id, 99);
    assert_int_equal(back.delivered, 7);
    assert_int_equal(back.depth, 2);
    assert_int_equal(back.edges, 6);
    assert_int_equal(back.bytes, 40);
    assert_int_equal(tc_mcast_ack_parse(buf, len, 3, &back), TC_MCAST_DECODE_NODE_OUT_OF_RANGE);
    assert_int_equal(tc_mcast_ack_parse(buf, len, 4, &back), TC_MCAST_DECODE_BAD_CARDINALITY);
    assert_int_equal(tc_mcast_ack_parse(buf, len - 1, 8, &back), TC_MCAST_DECODE_TRUNCATED);
    buf[len] = 0;
    assert_int_equal(tc_mcast_ack_parse(buf, len + 1, 8, &back), TC_MCAST_DECODE_TRAILING_BYTES);
    ack.id = 0;
    len    = tc_mcast_ack_put(&ack, buf);
    assert_int_equal(tc_mcast_ack_parse(buf, len, 8, &back), TC_MCAST_DECODE_BAD_CARDINALITY);
}

/* Walk the whole tree a multicast makes (the real plan) and check every
 * envelope in it passes the hop check; returns how many envelopes had
 * hops + slice == N exactly. */
static uint64_t hops_walk(const tc_mcast_set_t *set, uint32_t self, uint32_t hops, uint32_t radix,
                          uint32_t n)
{
    tc_mcast_slice_t *slices = NULL;
    uint32_t n_slices = 0;
    uint64_t tight = 0;

    assert_int_equal(tc_mcast_forward_plan(set, self, radix,
                                           hops ? TC_MCAST_SELF_REQUIRED : 0, &slices,
                                           &n_slices), TC_OK);
    for (uint32_t i = 0; i < n_slices; ++i) {
        assert_true(tc_mcast_env_hops_fit(hops + 1, slices[i].count, n));
        tight += ((uint64_t)hops + 1 + slices[i].count == n);
        tight += hops_walk(slices[i].set, slices[i].relay, hops + 1, radix, n);
    }
    tc_mcast_slices_free(slices, n_slices);
    return tight;
}

/* hops + slice <= N: what every real tree satisfies (the origin and each
 * relay on the way are distinct ranks outside the slice), and no looser:
 * a chain from rank 0 over all others meets it with equality at every hop. */
static void test_env_hops_fit(void **state)
{
    static const uint32_t radices[] = {1, 2, 3, 4, 8};
    uint64_t rng = 12345;

    (void)state;
    assert_true(tc_mcast_env_hops_fit(3, 1, 4));  /* the last leaf of a chain of 4 */
    assert_false(tc_mcast_env_hops_fit(3, 2, 4)); /* N - 1 hops and a child: refused */
    assert_true(tc_mcast_env_hops_fit(2, 2, 4));
    assert_true(tc_mcast_env_hops_fit(1, 3, 4));
    assert_false(tc_mcast_env_hops_fit(1, 4, 4)); /* the origin is never in a slice */
    assert_false(tc_mcast_env_hops_fit(0, 1, 4)); /* the origin's own count */
    assert_false(tc_mcast_env_hops_fit(1, 0, 4)); /* a slice holds its receiver */
    assert_true(tc_mcast_env_hops_fit(UINT32_MAX - 1, 1, UINT32_MAX));
    assert_false(tc_mcast_env_hops_fit(UINT32_MAX, 1, UINT32_MAX));
    assert_false(tc_mcast_env_hops_fit(UINT32_MAX, UINT32_MAX, UINT32_MAX)); /* no wrap */

    for (uint32_t n = 2; n <= 24; ++n) {
        for (size_t k = 0; k < sizeof(radices) / sizeof(radices[0]); ++k) {
            tc_mcast_set_t *set;
            uint64_t tight;

            assert_int_equal(tc_mcast_set_create(n, &set), TC_OK);
            assert_int_equal(tc_mcast_set_add_range(set, 1, n), TC_OK);
            tight = hops_walk(set, 0, 0, radices[k], n);
            if (radices[k] == 1) {
                assert_int_equal(tight, n - 1); /* every envelope of the chain */
            }
            /* random subsets from random origins */
            for (int t = 0; t < 8; ++t) {
                uint32_t origin;

                tc_mcast_set_clear(set);
                for (uint32_t i = 0; i < n; ++i) {
                    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
                    if ((rng >> 61) & 1) {
                        assert_int_equal(tc_mcast_set_add(set, i), TC_OK);
                    }
                }
                rng    = rng * 6364136223846793005ull + 1442695040888963407ull;
                origin = (uint32_t)((rng >> 33) % n);
                (void)hops_walk(set, origin, 0, radices[k], n);
            }
            tc_mcast_set_destroy(set);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_env_roundtrip),
        cmocka_unit_test(test_env_bad_header),
        cmocka_unit_test(test_ack),
        cmocka_unit_test(test_env_hops_fit),
    };
    return cmocka_run_group_tests_name("mcast_env", tests, NULL, NULL);
}
