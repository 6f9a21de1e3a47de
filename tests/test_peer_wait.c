/*
 * The peer's wait strategies over a loopback pair (lib/arch/wait has its own
 * test_wait): every strategy this host has delivers every frame, in order;
 * one it lacks is refused at context creation with the reason, and its test
 * is a cmocka skip that prints the platform's reason.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdlib.h>

#include "twochains.h"
#include "bench_state.h"
#include "harness/platform.h"

#include "loop_pair.h"

static unsigned waits_ran; /* strategies that ran; test_wait_strategies_ran checks */

static void wait_strategy(tc_wait_t wait)
{
    const uint64_t n = test_quick() ? 20000 : 1000000;
    tc_context_params_t params;
    tc_bench_state_t *st;
    tc_peer_stats_t rx;
    tc_context_t *ctx;
    tc_status_t status;
    tc_jam_t jam;
    pair_t pair;

    pair_params(&params, 16);
    params.events = 1;
    params.wait   = wait;
    status        = tc_context_create(&params, &ctx);
    if (status != TC_OK) {
        tc_platform_t platform;

        assert_int_equal(status, TC_ERR_UNSUPPORTED); /* and the log says why */
        assert_int_equal(tc_platform_probe(&platform), TC_OK);
        assert_false(platform.wait[wait].supported); /* the report agrees */
        print_message("wait %s: %s\n", tc_wait_str(wait), platform.wait[wait].status);
        skip();
    }
    tc_context_destroy(ctx);

    pair_open(&pair, &params); /* both sides wait so; each rings the other */
    pair_set_frames(&pair, sizeof(uint64_t));
    jam = jam_of(&pair.s[1], "seq");
    send_and_drain(&pair, &jam, n, NULL, NULL);
    st = state_of(&pair.s[0]);
    tc_peer_stats(pair.s[0].peer, &rx);
    assert_int_equal(st->seq_errors, 0);
    assert_int_equal(st->seq_next, n);
    assert_int_equal(rx.rx_rejected, 0);
    print_message("wait %s: %llu frames in order, %llu blocking waits\n",
                  tc_wait_str(wait), (unsigned long long)n,
                  (unsigned long long)rx.wakeups);
    pair_close(&pair);
    ++waits_ran;
}

static void test_wait_poll(void **unused)     { (void)unused; wait_strategy(TC_WAIT_POLL); }
static void test_wait_pause(void **unused)    { (void)unused; wait_strategy(TC_WAIT_PAUSE); }
static void test_wait_wfe(void **unused)      { (void)unused; wait_strategy(TC_WAIT_WFE); }
static void test_wait_umwait(void **unused)   { (void)unused; wait_strategy(TC_WAIT_UMWAIT); }
static void test_wait_mwaitx(void **unused)   { (void)unused; wait_strategy(TC_WAIT_MWAITX); }
static void test_wait_event(void **unused)    { (void)unused; wait_strategy(TC_WAIT_EVENT); }
static void test_wait_adaptive(void **unused) { (void)unused; wait_strategy(TC_WAIT_ADAPTIVE); }

/* Runs after the seven above (cmocka keeps the table's order). */
static void test_wait_strategies_ran(void **unused)
{
    (void)unused;
    assert_true(waits_ran >= 4); /* poll, pause, event, adaptive run everywhere */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wait_poll),
        cmocka_unit_test(test_wait_pause),
        cmocka_unit_test(test_wait_wfe),
        cmocka_unit_test(test_wait_umwait),
        cmocka_unit_test(test_wait_mwaitx),
        cmocka_unit_test(test_wait_event),
        cmocka_unit_test(test_wait_adaptive),
        cmocka_unit_test(test_wait_strategies_ran),
    };
    test_filter_from_env(); /* test_wait_strategies_ran counts the others that ran */
    return cmocka_run_group_tests_name("peer_wait", tests, NULL, NULL);
}
