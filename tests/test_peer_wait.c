/*
 * The peer's wait strategies over a loopback pair (lib/arch/wait has its own
 * test_wait): every strategy this host has delivers every frame, in order;
 * one it lacks is refused at context creation with the reason, and its test
 * is a cmocka skip that prints the platform's reason. A blocking call ends
 * by its deadline however often a peer that never answers speaks.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "twochains.h"
#include "bench_state.h"
#include "harness/platform.h"
#include "runtime.h"
#include "log.h"

#include "clock.h"
#include "loop_pair.h"
#include "log_keep.h"

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

/* A peer that never answers and sends a NOP every 0.7 x the timeout, at
 * most CHATTY_MAX of them, until told to stop. */
#define CHATTY_MAX 40

typedef struct chatty {
    tc_peer_t  *peer;
    unsigned    interval_us;
    atomic_uint sent;
    atomic_int  stop;
} chatty_t;

static void *chatty_thread(void *arg)
{
    chatty_t *c = arg;
    tc_status_t status;

    while (!atomic_load(&c->stop) && (atomic_load(&c->sent) < CHATTY_MAX)) {
        usleep(c->interval_us);
        do {
            status = tc_peer_send_kind(c->peer, TC_KIND_NOP, 0, 0, NULL, 0, NULL, 0, 1);
        } while ((status == TC_ERR_NO_RESOURCE) && !atomic_load(&c->stop));
        if (status == TC_OK) {
            atomic_fetch_add(&c->sent, 1);
        }
    }
    return NULL;
}

/* tc_jam_call, tc_jam_prepare and tc_ried_unload to a peer that runs
 * nothing but says a NOP every 0.7 x timeout_ms: each returns
 * TC_ERR_TIMEOUT by its deadline (timeout_ms from its start), named in the
 * log, while the peer still speaks (fewer than CHATTY_MAX NOPs sent). On
 * the tree before, each NOP restarted the wait's timeout: the call
 * returned only once the peer went quiet, after all CHATTY_MAX. */
static void test_call_deadline_chatty_peer(void **unused)
{
    static const char *const calls[] = {"tc_jam_call", "tc_jam_prepare", "tc_ried_unload"};
    tc_context_params_t params;
    tc_status_t status = TC_OK;
    pthread_t thread;
    uint64_t t0, ms;
    int64_t ret = 0;
    unsigned i, sent;
    chatty_t chatty;
    int32_t v = 1;
    tc_jam_t jam;
    pair_t pair;

    (void)unused;
    pair_params(&params, 16);
    params.frames     = TC_FRAMES_VARIABLE; /* a ried frame's ARGS fit */
    params.timeout_ms = 1000;
    pair_open(&pair, &params);
    jam = jam_of(&pair.s[1], "server_sum");
    for (i = 0; i < TC_ARRAY_SIZE(calls); ++i) {
        memset(&chatty, 0, sizeof(chatty));
        chatty.peer        = pair.s[0].peer;
        chatty.interval_us = 700u * (unsigned)params.timeout_ms;
        assert_int_equal(pthread_create(&thread, NULL, chatty_thread, &chatty), 0);
        log_keep_start();
        t0 = tc_clock_mono_ns();
        switch (i) {
        case 0:
            status = tc_jam_call(pair.s[1].peer, &jam, &v, sizeof(v), NULL, &ret);
            break;
        case 1:
            status = tc_jam_prepare(pair.s[1].peer, &jam, TC_MODE_INJECTED);
            break;
        default:
            status = tc_ried_unload(pair.s[1].peer, 1);
            break;
        }
        ms   = (tc_clock_mono_ns() - t0) / 1000000u;
        sent = atomic_load(&chatty.sent);
        atomic_store(&chatty.stop, 1);
        pthread_join(thread, NULL);
        log_keep_stop();
        print_message("%s to a peer that says a NOP every %u ms: %s after %llu ms, %u NOPs "
                      "heard\n", calls[i], chatty.interval_us / 1000, tc_status_str(status),
                      (unsigned long long)ms, sent);
        assert_int_equal(status, TC_ERR_TIMEOUT);
        assert_true(sent < CHATTY_MAX);
        assert_true(log_kept_has(calls[i]));
        assert_true(log_kept_has("not done within"));
        assert_int_equal(tc_peer_check_alive(pair.s[1].peer), TC_OK); /* not failed */
    }
    pair_close(&pair);
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
        cmocka_unit_test(test_call_deadline_chatty_peer),
    };
    test_filter_from_env(); /* test_wait_strategies_ran counts the others that ran */
    return cmocka_run_group_tests_name("peer_wait", tests, NULL, NULL);
}
