/*
 * Credits over a loopback pair: a small ring fills and the sender waits for
 * the receiver's credits; nothing is overwritten, every frame runs once and
 * in order.
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
#include "clock.h"

#include "loop_pair.h"

/* Every sequence number runs exactly once, in order, through a 4-slot ring. */
static void test_million_in_order_small_ring(void **unused)
{
    const uint64_t n = test_quick() ? 100000 : 1000000;
    tc_context_params_t params;
    tc_peer_stats_t tx, rx;
    tc_bench_state_t *st;
    tc_jam_t jam;
    pair_t pair;

    (void)unused;
    pair_params(&params, 4);
    pair_open(&pair, &params);
    pair_set_frames(&pair, sizeof(uint64_t));
    jam = jam_of(&pair.s[1], "seq");

    send_and_drain(&pair, &jam, n, NULL, NULL);

    st = state_of(&pair.s[0]);
    tc_peer_stats(pair.s[1].peer, &tx);
    tc_peer_stats(pair.s[0].peer, &rx);
    assert_int_equal(st->seq_errors, 0);
    assert_int_equal(st->seq_next, n);
    assert_int_equal(st->calls, n);
    assert_int_equal(tx.tx_frames, n);
    assert_int_equal(rx.rx_frames, n);
    assert_int_equal(rx.rx_rejected, 0);
    assert_true(tx.credit_waits > 0); /* a 4-slot ring must have filled */
    pair_close(&pair);
}

/* A full ring blocks the sender until the receiver frees slots; nothing is
 * overwritten (the seq jam would count a skipped frame). */
static void test_full_ring_blocks_sender(void **unused)
{
    const unsigned slots = 4, n = 64;
    tc_context_params_t params;
    tc_bench_state_t *st;
    server_arg_t server;
    pthread_t thread;
    uint64_t i, t0, blocked_ns = 0;
    tc_jam_t jam;
    pair_t pair;

    (void)unused;
    pair_params(&params, slots);
    pair_open(&pair, &params);
    pair_set_frames(&pair, sizeof(uint64_t));
    jam = jam_of(&pair.s[1], "seq");

    server = (server_arg_t){&pair.s[0], n, 300, TC_OK}; /* starts 300 ms late */
    pthread_create(&thread, NULL, server_thread, &server);
    t0 = tc_clock_mono_ns();
    for (i = 0; i < n; ++i) {
        uint64_t before = tc_clock_mono_ns();
        assert_int_equal(tc_jam_send(pair.s[1].peer, &jam, &i, sizeof(i), TC_SEND_PARAMS(TC_MODE_LOCAL, 0)), TC_OK);
        if (i < slots) {
            /* no wait: a send that waited for the receiver, 300 ms late,
             * would take about 300 ms */
            assert_true(tc_clock_mono_ns() - before < 200000000ull);
        } else if (i == slots) {
            blocked_ns = tc_clock_mono_ns() - t0;
        }
    }
    assert_int_equal(tc_peer_drain(pair.s[1].peer), TC_OK);
    pthread_join(thread, NULL);
    assert_int_equal(server.status, TC_OK);

    assert_true(blocked_ns >= 200000000ull); /* the 5th send waited for the receiver */
    st = state_of(&pair.s[0]);
    assert_int_equal(st->seq_errors, 0);
    assert_int_equal(st->seq_next, n);
    pair_close(&pair);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_million_in_order_small_ring),
        cmocka_unit_test(test_full_ring_blocks_sender),
    };
    test_filter_from_env();
    return cmocka_run_group_tests_name("credits", tests, NULL, NULL);
}
