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
#include <sched.h>
#include <stdlib.h>

#include "twochains.h"
#include "runtime.h"
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

typedef struct blocked_send {
    tc_peer_t  *peer;
    tc_jam_t   *jam;
    uint64_t    value;
    tc_status_t status;
} blocked_send_t;

static void *blocked_send_thread(void *arg)
{
    blocked_send_t *b = arg;

    b->status = tc_jam_send(b->peer, b->jam, &b->value, sizeof(b->value), NULL);
    return NULL;
}

/* A full ring blocks the sender until the receiver frees slots; nothing is
 * overwritten (the seq jam would count a skipped frame). */
static void test_full_ring_blocks_sender(void **unused)
{
    const unsigned slots = 4, n = 64;
    tc_context_params_t params;
    tc_peer_stats_t stats;
    tc_bench_state_t *st;
    blocked_send_t blocked;
    server_arg_t server;
    pthread_t thread, sender;
    tc_jam_t jam;
    pair_t pair;
    uint64_t i;

    (void)unused;
    pair_params(&params, slots);
    pair_open(&pair, &params);
    pair_set_frames(&pair, sizeof(uint64_t));
    jam = jam_of(&pair.s[1], "seq");

    /* nobody serves yet: the ring takes `slots` frames without a wait ... */
    for (i = 0; i < slots; ++i) {
        assert_int_equal(tc_jam_send(pair.s[1].peer, &jam, &i, sizeof(i), NULL), TC_OK);
    }
    tc_peer_stats(pair.s[1].peer, &stats);
    assert_int_equal(stats.credit_waits, 0);
    /* ... and then it is full */
    assert_int_equal(tc_jam_try_send(pair.s[1].peer, &jam, &i, sizeof(i), NULL),
                     TC_ERR_NO_RESOURCE);

    /* the next send waits for the receiver: it is made before anyone serves
     * (so it must find the ring full, however the threads are scheduled),
     * and returns once the receiver started and a slot came back */
    blocked = (blocked_send_t){pair.s[1].peer, &jam, i, TC_ERR_PROTOCOL};
    assert_int_equal(pthread_create(&sender, NULL, blocked_send_thread, &blocked), 0);
    do {
        sched_yield();
        tc_peer_stats(pair.s[1].peer, &stats);
    } while (stats.credit_waits == 0);
    server = (server_arg_t){&pair.s[0], n, 0, TC_OK};
    assert_int_equal(pthread_create(&thread, NULL, server_thread, &server), 0);
    pthread_join(sender, NULL);
    assert_int_equal(blocked.status, TC_OK);
    tc_peer_stats(pair.s[1].peer, &stats);
    assert_int_equal(stats.credit_waits, 1);
    assert_true(pair.s[1].peer->tx_acked >= 1); /* the receiver consumed one first */
    for (++i; i < n; ++i) {
        assert_int_equal(tc_jam_send(pair.s[1].peer, &jam, &i, sizeof(i), NULL), TC_OK);
    }
    assert_int_equal(tc_peer_drain(pair.s[1].peer), TC_OK);
    pthread_join(thread, NULL);
    assert_int_equal(server.status, TC_OK);

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
