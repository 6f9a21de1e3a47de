/*
 * Tests of the multicast tree model (bench/harness/mcast_sim.c): the shape bounds the
 * issue promises (origin sends = min(R, N - 1), depth <= ceil(log_R N) + 1,
 * N - 1 edges and acks, every target delivered once), the codec surviving
 * every envelope, and the clock of the naive baseline.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>

#include "harness/mcast_sim.h"

static tc_mcast_set_t *sim_all_but(uint32_t n, uint32_t origin)
{
    tc_mcast_set_t *set = NULL;

    assert_int_equal(tc_mcast_set_create(n, &set), TC_OK);
    assert_int_equal(tc_mcast_set_add_range(set, 0, n), TC_OK);
    assert_int_equal(tc_mcast_set_remove(set, origin), TC_OK);
    return set;
}

static void sim_check_shape(uint32_t n, uint32_t radix, uint32_t origin, int verify)
{
    tc_mcast_sim_params_t p = {radix, origin, 1.0, 0.25, verify};
    tc_mcast_set_t *set = sim_all_but(n, origin);
    tc_mcast_sim_result_t r;
    uint32_t bound;

    assert_int_equal(tc_mcast_sim_tree(set, &p, &r), TC_OK);
    assert_int_equal(r.targets, n - 1);
    assert_int_equal(r.delivered, n - 1);
    assert_int_equal(r.edges, n - 1);
    assert_int_equal(r.acks, n - 1);
    assert_int_equal(r.origin_sends, (radix < n - 1) ? radix : n - 1);
    assert_true(r.max_fanout <= radix);
    bound = (radix >= 2) ? tc_mcast_sim_log_ceil(n, radix) + 1 : n - 1;
    assert_true(r.depth <= bound);
    if (n > 1) {
        assert_true(r.complete_us >= r.deliver_us);
        assert_true(r.deliver_us >= p.hop_us + p.send_us);
    }
    tc_mcast_set_destroy(set);
}

static void test_sim_bounds(void **state)
{
    static const uint32_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 63, 64, 65, 100, 1000,
                                     4097};
    (void)state;
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
        for (uint32_t radix = 1; radix <= 64; ++radix) {
            if ((radix == 1) && (sizes[i] > 100)) {
                continue; /* a chain that long only costs time */
            }
            sim_check_shape(sizes[i], radix, 0, 0);
            sim_check_shape(sizes[i], radix, sizes[i] / 2, radix <= 8);
            sim_check_shape(sizes[i], radix, sizes[i] - 1, 0);
        }
    }
}

static void test_sim_million(void **state)
{
    static const uint32_t radices[] = {2, 4, 8, 16, 64};
    (void)state;
    if (getenv("TC_TEST_QUICK") != NULL) {
        print_message("TC_TEST_QUICK (valgrind or sanitizer pass): a million relays take minutes there\n");
        skip();
    }
    for (size_t i = 0; i < sizeof(radices) / sizeof(radices[0]); ++i) {
        sim_check_shape(1000000, radices[i], 0, 0);
    }
}

/* A sparse target set: every 3rd node; the tree reaches exactly those. */
static void test_sim_sparse(void **state)
{
    tc_mcast_sim_params_t p = {4, 1, 1.0, 0.5, 1};
    tc_mcast_set_t *set = NULL;
    tc_mcast_sim_result_t r;

    (void)state;
    assert_int_equal(tc_mcast_set_create(3000, &set), TC_OK);
    for (uint32_t i = 0; i < 3000; i += 3) {
        assert_int_equal(tc_mcast_set_add(set, i), TC_OK);
    }
    assert_int_equal(tc_mcast_sim_tree(set, &p, &r), TC_OK);
    assert_int_equal(r.targets, 1000);
    assert_int_equal(r.edges, 1000);
    assert_int_equal(r.origin_sends, 4);
    assert_true(r.target_bytes > 0);
    assert_true(r.max_target_bytes <= r.origin_target_bytes);
    tc_mcast_set_destroy(set);
}

static void test_sim_naive(void **state)
{
    tc_mcast_sim_params_t p = {4, 0, 2.0, 0.5, 0};
    tc_mcast_set_t *set = sim_all_but(101, 0);
    tc_mcast_sim_result_t r, t;

    (void)state;
    assert_int_equal(tc_mcast_sim_naive(set, &p, &r), TC_OK);
    assert_int_equal(r.origin_sends, 100);
    assert_int_equal(r.edges, 100);
    assert_int_equal(r.depth, 1);
    assert_true(r.complete_us == 101 * 0.5 + 4.0);
    /* with sends dearer than hops a tree finishes first */
    assert_int_equal(tc_mcast_sim_tree(set, &p, &t), TC_OK);
    assert_true(t.complete_us < r.complete_us);
    /* invalid */
    p.origin = 101;
    assert_int_equal(tc_mcast_sim_naive(set, &p, &r), TC_ERR_INVALID_PARAM);
    p.origin = 0;
    p.radix  = 0;
    assert_int_equal(tc_mcast_sim_tree(set, &p, &r), TC_ERR_INVALID_PARAM);
    tc_mcast_set_destroy(set);
}

static void test_sim_log_ceil(void **state)
{
    (void)state;
    assert_int_equal(tc_mcast_sim_log_ceil(1, 2), 0);
    assert_int_equal(tc_mcast_sim_log_ceil(2, 2), 1);
    assert_int_equal(tc_mcast_sim_log_ceil(1000000, 2), 20);
    assert_int_equal(tc_mcast_sim_log_ceil(1000000, 4), 10);
    assert_int_equal(tc_mcast_sim_log_ceil(1000000, 64), 4);
    assert_int_equal(tc_mcast_sim_log_ceil(64, 64), 1);
    assert_int_equal(tc_mcast_sim_log_ceil(65, 64), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sim_bounds),
        cmocka_unit_test(test_sim_million),
        cmocka_unit_test(test_sim_sparse),
        cmocka_unit_test(test_sim_naive),
        cmocka_unit_test(test_sim_log_ceil),
    };
    return cmocka_run_group_tests_name("mcast_sim", tests, NULL, NULL);
}
