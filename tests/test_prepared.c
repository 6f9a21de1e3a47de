/*
 * Prepared jams (tc_jam_init, tc_jam_start, tc_jam_start_call) over a
 * loopback pair: the same results as tc_jam_send and tc_jam_call in every
 * mode, one-way and called, interleaved with them; what invalidates a
 * request (a frame-size change, a sync of another jam, the peer dropping
 * its cached code, the peer's close) re-prepares it or refuses the start,
 * and the receiver never rejects a frame of it.
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
#include "bench_state.h"
#include "log.h"
#include "runtime.h"

#include "loop_pair.h"

/* The receiver rejected nothing. */
static void assert_none_rejected(side_t *side)
{
    tc_peer_stats_t st;

    tc_peer_stats(side->peer, &st);
    assert_int_equal(st.rx_rejected, 0);
}

/* server_sum's running total on the receiver: each call, prepared or not,
 * returns the total after it, so a prepared call answers what tc_jam_call
 * would have (the frames are the same jam's, in one order). */
static void calls_match(tc_mode_t mode)
{
    tc_jam_req_t *req = NULL;
    int64_t total = 0, ret = 0;
    int32_t v[2];
    serve_t serve;
    pthread_t thread;
    tc_jam_t jam;
    pair_t pair;
    int i;

    /* local: 8-byte payloads go as one line; code in frames or syncs: room */
    pair_open_fixed(&pair, 8, (mode == TC_MODE_LOCAL) ? sizeof(v) : 2048);
    jam = jam_of(&pair.s[1], "server_sum");
    serve_start(&serve, &pair.s[0], &thread);
    assert_int_equal(tc_jam_init(pair.s[1].peer, &jam, TC_SEND_PARAMS(mode, 0), &req), TC_OK);
    for (i = 0; i < 40; ++i) {
        v[0] = 3 * i + 1;
        v[1] = -i;
        total += v[0] + v[1];
        if (i % 2) {
            assert_int_equal(tc_jam_call(pair.s[1].peer, &jam, v, sizeof(v),
                                         TC_SEND_PARAMS(mode, 0), &ret), TC_OK);
        } else {
            assert_int_equal(tc_jam_start_call(req, v, sizeof(v), &ret), TC_OK);
        }
        assert_int_equal(ret, total);
    }
    /* one-way starts, then a call that sees their sum */
    for (i = 0; i < 40; ++i) {
        v[0] = i;
        v[1] = 1;
        total += i + 1;
        assert_int_equal(tc_jam_start(req, v, sizeof(v)), TC_OK);
    }
    v[0] = 0;
    v[1] = 0;
    assert_int_equal(tc_jam_start_call(req, v, sizeof(v), &ret), TC_OK);
    assert_int_equal(ret, total);
    serve_stop(&serve, thread);
    assert_int_equal(serve.status, TC_OK);
    assert_none_rejected(&pair.s[0]);
    assert_int_equal(state_of(&pair.s[0])->calls, 81);
    tc_jam_req_free(req);
    pair_close(&pair);
}

static void test_calls_match_local(void **unused)
{
    (void)unused;
    calls_match(TC_MODE_LOCAL);
}

static void test_calls_match_injected(void **unused)
{
    (void)unused;
    calls_match(TC_MODE_INJECTED);
}

static void test_calls_match_cached(void **unused)
{
    (void)unused;
    calls_match(TC_MODE_CACHED);
}

/* Two prepared jams and tc_jam_send of a third interleaved (each takes the
 * peer's template from the other), over one-line and larger payloads: the
 * receiver's sum and array are what the sender computed. */
static void test_interleaved_with_send(void **unused)
{
    tc_jam_req_t *sum_req = NULL, *put_req = NULL;
    int32_t ints[100];
    int64_t expect = 0;
    tc_jam_t sum, put, noop;
    server_arg_t server;
    tc_peer_stats_t rx;
    pthread_t thread;
    tc_bench_state_t *st;
    pair_t pair;
    size_t n;
    int i;

    (void)unused;
    pair_open_fixed(&pair, 8, sizeof(ints));
    sum  = jam_of(&pair.s[1], "server_sum");
    put  = jam_of(&pair.s[1], "indirect_put");
    noop = jam_of(&pair.s[1], "noop");
    assert_int_equal(tc_jam_init(pair.s[1].peer, &sum, NULL, &sum_req), TC_OK);
    assert_int_equal(tc_jam_init(pair.s[1].peer, &put, NULL, &put_req), TC_OK);
    /* served until these 900 frames ran, then its credits flushed (a
     * receiver that only progresses keeps the last batch's) */
    tc_peer_stats(pair.s[0].peer, &rx);
    server = (server_arg_t){&pair.s[0], rx.rx_frames + rx.rx_rejected + 900, 0, TC_OK};
    assert_int_equal(pthread_create(&thread, NULL, server_thread, &server), 0);
    for (i = 0; i < 300; ++i) {
        n = (i % 3 == 0) ? 2 : (i % 3 == 1) ? 16 : 100; /* a line, and not */
        expect += pattern_fill(ints, n, (uint64_t)i);
        assert_int_equal(tc_jam_start(sum_req, ints, n * sizeof(int32_t)), TC_OK);
        assert_int_equal(tc_jam_start(put_req, ints, 2 * sizeof(int32_t)), TC_OK);
        assert_int_equal(tc_jam_send(pair.s[1].peer, &noop, ints, 8, NULL), TC_OK);
    }
    assert_int_equal(tc_peer_drain(pair.s[1].peer), TC_OK);
    pthread_join(thread, NULL);
    assert_int_equal(server.status, TC_OK);
    assert_none_rejected(&pair.s[0]);
    st = state_of(&pair.s[0]);
    assert_int_equal(st->sum, expect);
    assert_int_equal(st->cursor, 600); /* indirect_put: two ints each */
    tc_jam_req_free(put_req);
    tc_jam_req_free(sum_req);
    pair_close(&pair);
}

/* A frame-size change (both ways, through a size a line is not) moves the
 * peer's generation: the next start prepares the request again and its
 * frames are of the new size, none rejected, results right. */
static void test_frame_size_change(void **unused)
{
    tc_jam_req_t *req = NULL;
    int64_t total = 0, ret = 0;
    static const uint32_t sizes[] = {128, 64, 256, 64};
    uint32_t gen;
    int32_t v[2] = {5, 6};
    serve_t serve;
    pthread_t thread;
    tc_jam_t jam;
    pair_t pair;
    unsigned k;
    int i;

    (void)unused;
    pair_open_fixed(&pair, 8, sizeof(v));
    jam = jam_of(&pair.s[1], "server_sum");
    assert_int_equal(tc_jam_init(pair.s[1].peer, &jam, NULL, &req), TC_OK);
    serve_start(&serve, &pair.s[0], &thread);
    for (k = 0; k < TC_ARRAY_SIZE(sizes); ++k) {
        for (i = 0; i < 20; ++i) {
            total += v[0] + v[1];
            assert_int_equal(tc_jam_start_call(req, v, sizeof(v), &ret), TC_OK);
            assert_int_equal(ret, total);
        }
        gen = pair.s[1].peer->tx_gen;
        assert_int_equal(tc_peer_set_frame_size(pair.s[1].peer, sizes[k]), TC_OK);
        assert_true(pair.s[1].peer->tx_gen != gen); /* what the next start checks */
    }
    serve_stop(&serve, thread);
    assert_int_equal(serve.status, TC_OK);
    assert_none_rejected(&pair.s[0]);
    tc_jam_req_free(req);
    pair_close(&pair);
}

/* The receiver (policy any) drops the code it cached for us between calls: the next
 * prepared cached call hears so (a MISS, then its frame NACKed AGAIN),
 * prepares the request again, which pushes the code once more, and
 * returns the right total. Also a sync of another jam (which moves the
 * generation too) in between. */
static void test_cached_forget(void **unused)
{
    tc_jam_req_t *req = NULL;
    int64_t total = 0, ret = 0;
    int32_t v[2] = {2, 3};
    tc_jam_t jam, other;
    serve_t serve;
    pthread_t thread;
    pair_t pair;
    int i;

    (void)unused;
    pair_open_fixed(&pair, 8, 2048);
    /* policy any: the receiver has nothing to relink a dropped cached jam
     * from (allow-list relinks its own blob), so it says MISS */
    pair.s[0].ctx->params.exec = TC_EXEC_ANY;
    jam   = jam_of(&pair.s[1], "server_sum");
    other = jam_of(&pair.s[1], "noop");
    serve_start(&serve, &pair.s[0], &thread);
    assert_int_equal(tc_jam_init(pair.s[1].peer, &jam, TC_SEND_PARAMS(TC_MODE_CACHED, 0), &req),
                     TC_OK);
    for (i = 0; i < 12; ++i) {
        if (i % 4 == 1) {
            atomic_store(&serve.forget, 1);
            while (atomic_load(&serve.forget)) {
                sched_yield();
            }
        }
        if (i == 6) {
            assert_int_equal(tc_jam_prepare(pair.s[1].peer, &other, TC_MODE_INJECTED), TC_OK);
        }
        total += v[0] + v[1];
        assert_int_equal(tc_jam_start_call(req, v, sizeof(v), &ret), TC_OK);
        assert_int_equal(ret, total);
    }
    serve_stop(&serve, thread);
    assert_int_equal(serve.status, TC_OK);
    tc_jam_req_free(req);
    pair_close(&pair);
}

static void *close_peer(void *arg)
{
    side_t *side = arg;

    tc_peer_close(side->peer);
    side->peer = NULL;
    return NULL;
}

/* The peer closes under a prepared jam: its starts refuse (TC_ERR_CLOSED),
 * nothing touches the freed peer (ASan), and it is freed after. */
static void test_peer_closed(void **unused)
{
    tc_jam_req_t *req = NULL, *other = NULL;
    int32_t v[2] = {1, 2};
    pthread_t thread;
    int64_t ret = 0;
    tc_jam_t jam;
    pair_t pair;
    int i;

    (void)unused;
    pair_open_fixed(&pair, 8, sizeof(v));
    jam = jam_of(&pair.s[1], "server_sum");
    assert_int_equal(tc_jam_init(pair.s[1].peer, &jam, NULL, &req), TC_OK);
    assert_int_equal(tc_jam_init(pair.s[1].peer, &jam, NULL, &other), TC_OK);
    tc_jam_req_free(other); /* unlinked from the middle of the list: the rest stays */
    assert_int_equal(pthread_create(&thread, NULL, close_peer, &pair.s[0]), 0);
    close_peer(&pair.s[1]);
    pthread_join(thread, NULL);
    assert_int_equal(tc_jam_start(req, v, sizeof(v)), TC_ERR_CLOSED);
    assert_int_equal(tc_jam_start_call(req, v, sizeof(v), &ret), TC_ERR_CLOSED);
    tc_jam_req_free(req);
    tc_jam_req_free(NULL);
    for (i = 0; i < 2; ++i) {
        tc_context_destroy(pair.s[i].ctx);
        tc_pkg_close(pair.s[i].pkg);
        tc_boot_close(pair.s[i].boot);
    }
}

/* Bad requests are refused at init, with nothing allocated. */
/* The receiver's latest result (what its frames piggyback) as it stands. */
typedef struct {
    uint8_t  has;
    int64_t  ret;
    uint32_t seq;
} ran_t;

static ran_t ran_of(const tc_peer_t *peer)
{
    return (ran_t){peer->ran_has, peer->ran_ret, peer->ran_seq};
}

/* A start, then the receiver runs it (one thread: the frame is there). */
static void start_run(tc_jam_req_t *req, side_t *rx, const int32_t *v)
{
    unsigned n = 0;

    assert_int_equal(tc_jam_start(req, v, 2 * sizeof(int32_t)), TC_OK);
    assert_int_equal(tc_peer_wait(rx->peer, &n), TC_OK);
    assert_int_equal(n, 1);
}

/* A one-way start records no result at the receiver unless its request
 * asked for one (TC_SEND_RESULT); tc_jam_send's frames always do. The first
 * frame takes the validated path, the next ones the fast path: both. */
static void result_only_when_asked(tc_mode_t mode)
{
    tc_send_params_t asked_params = {TC_SEND_PARAM_FIELD_MODE | TC_SEND_PARAM_FIELD_FLAGS, mode,
                                     TC_SEND_RESULT};
    tc_jam_req_t *quiet = NULL, *asked = NULL;
    int32_t v[2] = {5, 2};
    pthread_t thread;
    serve_t serve;
    tc_jam_t jam;
    pair_t pair;
    ran_t ran;
    int i;

    pair_open_fixed(&pair, 8, (mode == TC_MODE_LOCAL) ? sizeof(v) : 2048);
    jam = jam_of(&pair.s[1], "server_sum");
    serve_start(&serve, &pair.s[0], &thread); /* the syncs at init */
    assert_int_equal(tc_jam_init(pair.s[1].peer, &jam, TC_SEND_PARAMS(mode, 0), &quiet), TC_OK);
    assert_int_equal(tc_jam_init(pair.s[1].peer, &jam, &asked_params, &asked), TC_OK);
    serve_stop(&serve, thread);
    assert_int_equal(serve.status, TC_OK);
    ran = ran_of(pair.s[0].peer);
    for (i = 0; i < 3; ++i) {
        start_run(quiet, &pair.s[0], v);
    }
    assert_int_equal(state_of(&pair.s[0])->sum, 21);
    assert_int_equal(pair.s[0].peer->ran_has, ran.has);
    assert_int_equal(pair.s[0].peer->ran_seq, ran.seq);
    for (i = 0; i < 2; ++i) {
        start_run(asked, &pair.s[0], v);
        assert_int_equal(pair.s[0].peer->ran_has, 1);
        assert_int_equal(pair.s[0].peer->ran_ret, 28 + 7 * i);
        assert_int_equal(pair.s[0].peer->ran_seq, pair.s[0].peer->rx_seq - 1);
    }
    ran = ran_of(pair.s[0].peer);
    start_run(quiet, &pair.s[0], v); /* the earlier result stays, named by its seq */
    assert_int_equal(pair.s[0].peer->ran_ret, ran.ret);
    assert_int_equal(pair.s[0].peer->ran_seq, ran.seq);
    assert_int_equal(tc_jam_send(pair.s[1].peer, &jam, v, sizeof(v), TC_SEND_PARAMS(mode, 0)),
                     TC_OK);
    assert_int_equal(tc_peer_wait(pair.s[0].peer, NULL), TC_OK);
    assert_int_equal(pair.s[0].peer->ran_ret, 49);
    assert_int_equal(pair.s[0].peer->ran_seq, pair.s[0].peer->rx_seq - 1);
    assert_none_rejected(&pair.s[0]);
    tc_jam_req_free(asked);
    tc_jam_req_free(quiet);
    pair_close(&pair);
}

static void test_result_only_when_asked_local(void **unused)
{
    (void)unused;
    result_only_when_asked(TC_MODE_LOCAL);
}

static void test_result_only_when_asked_injected(void **unused)
{
    (void)unused;
    result_only_when_asked(TC_MODE_INJECTED);
}

/* One-way starts that go as lines (fixed 64-byte frames the CPU stores: the
 * path chosen when the request is checked) through frame-size changes away
 * from 64 and back: each change moves tx_gen, the next start checks the
 * request again and takes the general way while frames are larger (a line
 * there would be rejected), the line path again at 64. Every sum right,
 * none rejected. */
static void test_lines_frame_size_change(void **unused)
{
    static const uint32_t sizes[] = {128, 64, 192, 64};
    tc_jam_req_t *req = NULL;
    int32_t v[2] = {3, 4};
    int64_t total = 0;
    uint32_t gen;
    tc_jam_t jam;
    pair_t pair;
    unsigned k;
    int i;

    (void)unused;
    pair_open_fixed(&pair, 8, sizeof(v));
    assert_int_equal(pair.s[1].peer->tx_frame_size, 64);
    jam = jam_of(&pair.s[1], "server_sum");
    assert_int_equal(tc_jam_init(pair.s[1].peer, &jam, NULL, &req), TC_OK);
    for (k = 0; k <= TC_ARRAY_SIZE(sizes); ++k) {
        for (i = 0; i < 12; ++i) { /* more than the ring's 8 slots: every slot resized */
            start_run(req, &pair.s[0], v);
            total += v[0] + v[1];
            assert_int_equal(state_of(&pair.s[0])->sum, total);
        }
        if (k == TC_ARRAY_SIZE(sizes)) {
            break;
        }
        gen = pair.s[1].peer->tx_gen;
        pair_set_sizes(&pair, sizes[k], sizes[k]);
        assert_true(pair.s[1].peer->tx_gen != gen);
    }
    assert_none_rejected(&pair.s[0]);
    tc_jam_req_free(req);
    pair_close(&pair);
}

/* The peer says goodbye under a prepared jam whose starts go as lines (no
 * test of failed on that path): reading the goodbye moves tx_gen
 * (tc_peer_fail), so the next start and start_call refuse with
 * TC_ERR_CLOSED and put nothing into the peer's ring. */
static void test_peer_failed_lines(void **unused)
{
    tc_jam_req_t *req = NULL;
    int32_t v[2] = {1, 2};
    int64_t ret = 0;
    uint32_t gen, seq;
    tc_jam_t jam;
    pair_t pair;

    (void)unused;
    pair_open_fixed(&pair, 8, sizeof(v));
    jam = jam_of(&pair.s[1], "server_sum");
    assert_int_equal(tc_jam_init(pair.s[1].peer, &jam, NULL, &req), TC_OK);
    start_run(req, &pair.s[0], v);
    start_run(req, &pair.s[0], v);
    gen = pair.s[1].peer->tx_gen;
    assert_int_equal(tc_peer_goodbye(pair.s[0].peer, 0), TC_OK);
    while (pair.s[1].peer->failed == TC_OK) {
        (void)tc_peer_progress(pair.s[1].peer, 0, NULL);
    }
    assert_int_equal(pair.s[1].peer->failed, TC_ERR_CLOSED);
    assert_true(pair.s[1].peer->tx_gen != gen);
    seq = pair.s[1].peer->tx_seq;
    assert_int_equal(tc_jam_start(req, v, sizeof(v)), TC_ERR_CLOSED);
    assert_int_equal(tc_jam_start_call(req, v, sizeof(v), &ret), TC_ERR_CLOSED);
    assert_int_equal(pair.s[1].peer->tx_seq, seq);
    assert_int_equal(state_of(&pair.s[0])->sum, 6);
    tc_jam_req_free(req);
    pair_close(&pair);
}

/* The sender's peer reads the receiver's config frame (a wait strategy
 * set, tc_peer_set_wait): what the request depends on moved. */
static void read_config(tc_peer_t *tx, uint8_t doorbell)
{
    unsigned k;

    for (k = 0; (tx->doorbell != doorbell) && (k < 1000000); ++k) {
        assert_int_equal(tc_peer_progress(tx, 0, NULL), TC_OK);
    }
    assert_int_equal(tx->doorbell, doorbell);
}

/* A receiver that asks for doorbells (TC_WAIT_EVENT) after a request chose
 * its line start, which rings none: reading the config frame moves tx_gen,
 * the request is checked again, and its starts ring (the general way); once
 * the receiver polls again the line start comes back and rings none. */
static void test_lines_doorbell(void **unused)
{
    tc_context_params_t params;
    tc_jam_req_t *req = NULL;
    int32_t v[2] = {1, 2};
    tc_peer_stats_t st;
    tc_peer_t *tx, *rx;
    uint64_t bells;
    uint32_t gen;
    tc_jam_t jam;
    pair_t pair;
    int i;

    (void)unused;
    pair_params(&params, 8);
    params.events = 1; /* the receiver may wait on its worker's fd */
    pair_open(&pair, &params);
    pair_set_frames(&pair, sizeof(v));
    rx  = pair.s[0].peer;
    tx  = pair.s[1].peer;
    jam = jam_of(&pair.s[1], "server_sum");
    assert_int_equal(tc_jam_init(tx, &jam, NULL, &req), TC_OK);
    for (i = 0; i < 12; ++i) { /* more than the ring's 8 slots: the line path's from here */
        start_run(req, &pair.s[0], v);
    }
    tc_peer_stats(tx, &st);
    assert_int_equal(st.bells, 0);

    gen = tx->tx_gen;
    assert_int_equal(tc_peer_set_wait(rx, TC_WAIT_EVENT), TC_OK);
    read_config(tx, 1);
    assert_true(tx->tx_gen != gen);
    for (i = 0; i < 3; ++i) {
        tc_peer_stats(tx, &st);
        bells = st.bells;
        start_run(req, &pair.s[0], v);
        tc_peer_stats(tx, &st);
        /* rung, or the last one still going (one at most in flight) */
        assert_true((st.bells == bells + 1) || (tx->bell_req != NULL));
    }
    bells = st.bells;

    gen = tx->tx_gen;
    assert_int_equal(tc_peer_set_wait(rx, TC_WAIT_POLL), TC_OK);
    read_config(tx, 0);
    assert_true(tx->tx_gen != gen);
    for (i = 0; i < 3; ++i) {
        start_run(req, &pair.s[0], v);
    }
    tc_peer_stats(tx, &st);
    assert_int_equal(st.bells, bells);
    assert_int_equal(state_of(&pair.s[0])->sum, 3 * (12 + 3 + 3));
    assert_none_rejected(&pair.s[0]);
    tc_jam_req_free(req);
    pair_close(&pair);
}

/* counters 0 on the context: prepared starts are not counted (and stats
 * say so), tc_jam_send's frames still are; the receiver counts neither its
 * frames nor its polls (the receive path's uncounted specialisation, chosen
 * at connect); counters 1 (the default) counts them all. Anything but 0 or
 * 1 is refused. */
static void counted(int counters)
{
    tc_context_params_t params;
    tc_jam_req_t *req = NULL;
    tc_peer_stats_t before, after, rx;
    int32_t v[2] = {1, 1};
    tc_jam_t jam;
    pair_t pair;
    int i;

    pair_params(&params, 8);
    params.counters = counters;
    pair_open(&pair, &params);
    pair_set_frames(&pair, sizeof(v));
    jam = jam_of(&pair.s[1], "server_sum");
    assert_int_equal(tc_jam_init(pair.s[1].peer, &jam, NULL, &req), TC_OK);
    tc_peer_stats(pair.s[1].peer, &before);
    assert_int_equal(before.counters, counters);
    for (i = 0; i < 5; ++i) {
        start_run(req, &pair.s[0], v);
    }
    assert_int_equal(tc_jam_send(pair.s[1].peer, &jam, v, sizeof(v), NULL), TC_OK);
    assert_int_equal(tc_peer_wait(pair.s[0].peer, NULL), TC_OK);
    tc_peer_stats(pair.s[1].peer, &after);
    assert_int_equal(after.counters, counters);
    assert_int_equal(after.tx_frames - before.tx_frames, counters ? 6 : 1);
    assert_int_equal(after.tx_jams - before.tx_jams, counters ? 6 : 1);
    tc_peer_stats(pair.s[0].peer, &rx);
    assert_int_equal(rx.counters, counters);
    if (counters) {
        assert_true(rx.rx_frames >= 6);
        assert_true(rx.polls >= 1);
    } else {
        assert_int_equal(rx.rx_frames, 0);
        assert_int_equal(rx.polls, 0);
    }
    assert_int_equal(state_of(&pair.s[0])->sum, 12);
    tc_jam_req_free(req);
    pair_close(&pair);
}

static void test_counters_on(void **unused)
{
    (void)unused;
    counted(1);
}

static void test_counters_off(void **unused)
{
    tc_context_params_t params;
    tc_context_t *ctx = NULL;

    (void)unused;
    counted(0);
    tc_context_params_init(&params);
    params.counters = 2;
    assert_int_equal(tc_context_create(&params, &ctx), TC_ERR_INVALID_PARAM);
    assert_null(ctx);
}

static void test_init_refuses(void **unused)
{
    tc_send_params_t params = {TC_SEND_PARAM_FIELD_MODE, (tc_mode_t)42, 0};
    tc_jam_req_t *req = NULL;
    tc_jam_t jam;
    pair_t pair;

    (void)unused;
    pair_open_fixed(&pair, 8, 8);
    jam = jam_of(&pair.s[1], "server_sum");
    assert_int_equal(tc_jam_init(pair.s[1].peer, &jam, &params, &req), TC_ERR_INVALID_PARAM);
    assert_int_equal(tc_jam_init(pair.s[1].peer, &jam, TC_SEND_PARAMS(TC_MODE_LOCAL, 0x80),
                                 &req), TC_ERR_INVALID_PARAM);
    assert_int_equal(tc_jam_init(pair.s[1].peer, &jam, TC_SEND_PARAMS(TC_MODE_LOCAL, 0x8),
                                 &req), TC_ERR_INVALID_PARAM); /* the library's own flag */
    assert_int_equal(tc_jam_init(NULL, &jam, NULL, &req), TC_ERR_INVALID_PARAM);
    assert_int_equal(tc_jam_init(pair.s[1].peer, &jam, NULL, NULL), TC_ERR_INVALID_PARAM);
    assert_null(req);
    assert_null(pair.s[1].peer->tx_reqs);
    pair_close(&pair);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_calls_match_local),
        cmocka_unit_test(test_calls_match_injected),
        cmocka_unit_test(test_calls_match_cached),
        cmocka_unit_test(test_interleaved_with_send),
        cmocka_unit_test(test_frame_size_change),
        cmocka_unit_test(test_cached_forget),
        cmocka_unit_test(test_peer_closed),
        cmocka_unit_test(test_lines_frame_size_change),
        cmocka_unit_test(test_peer_failed_lines),
        cmocka_unit_test(test_lines_doorbell),
        cmocka_unit_test(test_result_only_when_asked_local),
        cmocka_unit_test(test_result_only_when_asked_injected),
        cmocka_unit_test(test_counters_on),
        cmocka_unit_test(test_counters_off),
        cmocka_unit_test(test_init_refuses),
    };

    test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
