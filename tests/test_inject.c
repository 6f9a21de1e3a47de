/*
 * Injected and cached jams over a loopback pair: the same jam source runs
 * identically as Local Function, Injected Function and from the receiver's
 * code cache (with and without W^X), and a receiver that lost its cached
 * code recovers.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "twochains.h"
#include "runtime.h"
#include "bench_state.h"
#include "log.h"

#include "loop_pair.h"

/* The same jam source runs identically as Local Function, Injected Function
 * and from the receiver's code cache: same results, same receiver state. */
static void modes_agree(int wx)
{
    static const char *const jams[] = {"indirect_put", "server_sum", "noop"};
    static const uint32_t sizes[]   = {4, 64, 1024, 3600};
    static const tc_mode_t modes[]  = {TC_MODE_LOCAL, TC_MODE_INJECTED, TC_MODE_CACHED};
    int32_t payload[1000];
    tc_context_params_t params;
    int64_t ret[3];
    server_arg_t server;
    pthread_t thread;
    tc_peer_stats_t rx;
    tc_bench_state_t *st;
    int64_t sum[3];
    uint64_t cursor[3];
    unsigned j, z, m, i;
    tc_jam_t jam;
    pair_t pair[3];

    for (i = 0; i < 1000; ++i) {
        payload[i] = (int32_t)(i * 7919) - 5000;
    }
    /* one connection per mode, so each receiver state sees one mode only */
    for (m = 0; m < 3; ++m) {
        pair_params(&params, 8);
        params.frames = TC_FRAMES_VARIABLE;
        params.wx     = wx;
        pair_open(&pair[m], &params);
        assert_int_equal(pair[m].s[0].peer->mbox_exec, 0); /* code never runs in the slot */
        /* sync traffic runs nothing: only the jams count */
        server = (server_arg_t){&pair[m].s[0], TC_ARRAY_SIZE(jams) * TC_ARRAY_SIZE(sizes), 0,
                                TC_OK};
        pthread_create(&thread, NULL, server_thread, &server);
        for (j = 0; j < TC_ARRAY_SIZE(jams); ++j) {
            jam = jam_of(&pair[m].s[1], jams[j]);
            for (z = 0; z < TC_ARRAY_SIZE(sizes); ++z) {
                assert_int_equal(tc_jam_call(pair[m].s[1].peer, &jam, payload, sizes[z], TC_SEND_PARAMS(modes[m], 0), &ret[m]), TC_OK);
            }
        }
        pthread_join(thread, NULL);
        assert_int_equal(server.status, TC_OK);
        tc_peer_stats(pair[m].s[0].peer, &rx);
        assert_int_equal(rx.rx_rejected, 0);
        st        = state_of(&pair[m].s[0]);
        sum[m]    = st->sum;
        cursor[m] = st->cursor;
        if (m > 0) {
            assert_int_equal(sum[m], sum[0]);
            assert_int_equal(cursor[m], cursor[0]);
            assert_int_equal(ret[m], ret[0]);
            assert_memory_equal(st->array, state_of(&pair[0].s[0])->array,
                                TC_BENCH_ARRAY_LEN * sizeof(int32_t));
        }
    }
    for (m = 0; m < 3; ++m) {
        pair_close(&pair[m]);
    }
}

static void test_modes_agree(void **unused)
{
    (void)unused;
    modes_agree(0);
}

/* W^X: the mailbox stays RW; injected code runs from the RX view of the
 * code cache. Results must not change. */
static void test_modes_agree_wx(void **unused)
{
    (void)unused;
    modes_agree(1);
}


/* A receiver that lost its cached code: under the allow-list it relinks its
 * own blob and nothing is lost; under policy `any` it rejects the frame,
 * tells the sender, and the sender's next cached jam carries the code. */
static void test_cache_loss(void **unused)
{
    tc_context_params_t params;
    tc_peer_stats_t rx;
    int32_t v = 5;
    unsigned n, k;
    tc_jam_t jam;
    pair_t pair;

    (void)unused;
    pair_params(&params, 4);
    params.frames = TC_FRAMES_VARIABLE;
    pair_open(&pair, &params);
    jam = jam_of(&pair.s[1], "server_sum");

    /* the sync needs the receiver to answer: one served call */
    assert_int_equal(call_served(&pair, 1, &jam, &v, sizeof(v), TC_MODE_CACHED), 5);

    /* allow-list: relinked from the receiver's own blob */
    tc_peer_forget_code(pair.s[0].peer);
    assert_int_equal(tc_jam_send(pair.s[1].peer, &jam, &v, sizeof(v), TC_SEND_PARAMS(TC_MODE_CACHED, 0)),
                     TC_OK);
    assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, &n), TC_OK);
    assert_int_equal(n, 1);
    assert_int_equal(state_of(&pair.s[0])->sum, 10);
    tc_peer_stats(pair.s[0].peer, &rx);
    assert_int_equal(rx.rx_rejected, 0);

    /* policy any: rejected, the sender told, the code goes again */
    pair.s[0].ctx->params.exec = TC_EXEC_ANY;
    tc_peer_forget_code(pair.s[0].peer);
    assert_int_equal(tc_jam_send(pair.s[1].peer, &jam, &v, sizeof(v), TC_SEND_PARAMS(TC_MODE_CACHED, 0)),
                     TC_OK);
    assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, &n), TC_OK); /* rejects, tells */
    tc_peer_stats(pair.s[0].peer, &rx);
    assert_int_equal(rx.rx_rejected, 1);
    assert_non_null(strstr(tc_peer_last_reject(pair.s[0].peer), "does not hold"));
    assert_int_equal(state_of(&pair.s[0])->sum, 10);
    assert_int_equal(tc_peer_progress(pair.s[1].peer, 0, &n), TC_OK); /* hears it */
    assert_false(tc_jam_is_prepared(pair.s[1].peer, &jam, TC_MODE_CACHED));
    /* so far 2 ran and 1 was rejected: serve until one more */
    assert_int_equal(call_served(&pair, 4, &jam, &v, sizeof(v), TC_MODE_CACHED), 15);
    for (k = 0; k < 3; ++k) { /* and it stays cached */
        assert_int_equal(tc_jam_send(pair.s[1].peer, &jam, &v, sizeof(v), TC_SEND_PARAMS(TC_MODE_CACHED, 0)), TC_OK);
        assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, &n), TC_OK);
        assert_int_equal(tc_peer_flush(pair.s[0].peer), TC_OK);
    }
    assert_int_equal(state_of(&pair.s[0])->sum, 30);
    tc_peer_stats(pair.s[0].peer, &rx);
    assert_int_equal(rx.rx_rejected, 1);
    pair_close(&pair);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_modes_agree),
        cmocka_unit_test(test_modes_agree_wx),
        cmocka_unit_test(test_cache_loss),
    };
    test_filter_from_env();
    return cmocka_run_group_tests_name("inject", tests, NULL, NULL);
}
