/*
 * Injected and cached jams over a loopback pair: the same jam source runs
 * identically as Local Function, Injected Function and from the receiver's
 * code cache (with and without W^X), a receiver that lost its cached code
 * recovers, and the fixed-frame fast path for injected frames runs what
 * the validator would and defers to it on any difference.
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
#include "log_keep.h"

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
        params.slot_size = 8192; /* 3600 B beside server_sum's code */
        params.frames    = TC_FRAMES_VARIABLE;
        params.wx        = wx;
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
    assert_int_equal(call_served(&pair, 1, &jam, &v, sizeof(v), TC_MODE_CACHED), 15);
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

/* A copy of the sender's last frame, size bytes, as it landed in the
 * receiver's slot (the hostile sender's starting point: a valid frame it
 * may then change; its staging copy is not that frame: with the
 * signalling store the header is stamped on the way out). */
static void last_sent(const pair_t *pair, char *frame, uint32_t size)
{
    const tc_peer_t *tx = pair->s[1].peer;
    const tc_peer_t *rx = pair->s[0].peer;

    memcpy(frame, rx->rx_ring + (size_t)((tx->tx_seq - 1) & (rx->rx_slots - 1)) * rx->rx_slot_size,
           size);
}

/* Put a forged frame of size bytes as the sender's next one (its seq,
 * credits and signal stamped), then run the receiver until it has handled
 * it: rejected, it must be the receiver's only rejection so far. */
static void put_forged_rejected(pair_t *pair, char *frame, uint32_t size)
{
    tc_frame_hdr_t *hdr = (tc_frame_hdr_t *)frame;
    tc_peer_stats_t rx;
    unsigned k = 0;

    hdr->seq = pair->s[1].peer->tx_seq;
    hdr->ack = pair->s[1].peer->rx_seq;
    *tc_frame_sig_ptr(frame, size) = tc_frame_sig(hdr->seq);
    assert_int_equal(tc_peer_send_raw_frame(pair->s[1].peer, frame, size), TC_OK);
    while (k == 0) {
        assert_int_equal(tc_peer_progress(pair->s[0].peer, 0, &k), TC_OK);
    }
    tc_peer_stats(pair->s[0].peer, &rx);
    assert_int_equal(rx.rx_rejected, 1);
}

/* Fixed frames, where injected frames of the last allow-listed jam take the
 * fast path and a sender writes a jam's code into a staging slot once:
 * injected frames of two jams interleaved with local and cached ones, in
 * every payload size, all run exactly once with the right results; then a
 * copy of a valid injected frame with one code byte changed is rejected
 * (the fast path defers to the validator) and the next frame still runs. */
static void test_injected_fast_path(void **unused)
{
    static const tc_mode_t modes[] = {TC_MODE_INJECTED, TC_MODE_INJECTED, TC_MODE_LOCAL,
                                      TC_MODE_INJECTED, TC_MODE_CACHED};
    const uint64_t n = test_quick() ? 600 : 6000;
    tc_context_params_t params;
    int32_t payload[64];
    int64_t expect = 0, ret = 0;
    tc_jam_t sum, noop;
    tc_peer_stats_t rx;
    pair_t pair;
    uint64_t i;
    uint32_t frame_size, len, fsize;
    char frame[4096];
    tc_frame_hdr_t *hdr;
    unsigned k;

    (void)unused;
    for (k = 0; k < 64; ++k) {
        payload[k] = (int32_t)(k * 31) - 900;
    }
    pair_params(&params, 8);
    pair_open(&pair, &params);
    sum  = jam_of(&pair.s[1], "server_sum");
    noop = jam_of(&pair.s[1], "noop");
    frame_size = tc_jam_frame_size(&sum, TC_MODE_INJECTED, sizeof(payload));
    assert_true(frame_size >= tc_jam_prepare_size(&sum, TC_MODE_CACHED));
    assert_true(frame_size >= tc_jam_frame_size(&noop, TC_MODE_INJECTED, 8));
    assert_int_equal(tc_peer_set_frame_size(pair.s[0].peer, frame_size), TC_OK);
    assert_int_equal(tc_peer_set_frame_size(pair.s[1].peer, frame_size), TC_OK);
    assert_int_equal(call_served(&pair, 1, &sum, payload, 4, TC_MODE_CACHED), payload[0]);
    expect = payload[0];
    (void)call_served(&pair, 1, &noop, payload, 4, TC_MODE_INJECTED); /* noop: its length */

    {
        server_arg_t server = {&pair.s[0], 0, 0, TC_OK};
        pthread_t thread;
        tc_peer_stats(pair.s[0].peer, &rx);
        server.frames = rx.rx_frames + rx.rx_rejected + n;
        assert_int_equal(pthread_create(&thread, NULL, server_thread, &server), 0);
        for (i = 0; i < n; ++i) {
            tc_mode_t mode = modes[i % TC_ARRAY_SIZE(modes)];
            len = (uint32_t)(((i * 7) % 64) + 1) * sizeof(int32_t);
            if ((i % 11) == 5) {
                assert_int_equal(tc_jam_send(pair.s[1].peer, &noop, payload, 8,
                                             TC_SEND_PARAMS(TC_MODE_INJECTED, 0)), TC_OK);
                continue;
            }
            for (k = 0; k < len / sizeof(int32_t); ++k) {
                expect += payload[k];
            }
            assert_int_equal(tc_jam_send(pair.s[1].peer, &sum, payload, len,
                                         TC_SEND_PARAMS(mode, 0)), TC_OK);
        }
        assert_int_equal(tc_peer_drain(pair.s[1].peer), TC_OK);
        pthread_join(thread, NULL);
        assert_int_equal(server.status, TC_OK);
    }
    tc_peer_stats(pair.s[0].peer, &rx);
    assert_int_equal(rx.rx_rejected, 0);
    assert_int_equal(state_of(&pair.s[0])->sum, expect);

    /* one more injected server_sum frame: the receiver takes it fast */
    assert_int_equal(call_served(&pair, 1, &sum, payload, 8, TC_MODE_INJECTED),
                     expect + payload[0] + payload[1]);
    expect += payload[0] + payload[1];
    assert_non_null(pair.s[0].peer->disp_injected);

    /* the same frame again from the sender's staging, one code byte changed */
    fsize = frame_size;
    last_sent(&pair, frame, fsize);
    hdr = (tc_frame_hdr_t *)frame;
    assert_int_equal(hdr->kind, TC_KIND_INJECTED);
    {
        tc_frame_layout_t l = {0, hdr->got_count, hdr->code_len, hdr->payload_len};
        tc_frame_offsets_t o;
        assert_int_equal(tc_frame_layout(&l, fsize, &o), TC_OK);
        frame[o.code_off + 4] ^= 0x40;
    }
    /* the flags as they were: the header is of the fast path's shape, so
     * the fast path itself finds the code changed */
    {
        const tc_frame_shape_t *fast = &pair.s[0].peer->disp_inj_shape;
        tc_frame_shape_t shape;
        tc_frame_shape_of(hdr, fsize, &shape);
        assert_true((shape.w_name == fast->w_name) && (shape.w_layout == fast->w_layout) &&
                    (shape.len_max == fast->len_max));
    }
    put_forged_rejected(&pair, frame, fsize);
    assert_non_null(strstr(tc_peer_last_reject(pair.s[0].peer), "code differs"));
    assert_int_equal(state_of(&pair.s[0])->sum, expect);
    /* and the stream goes on */
    assert_int_equal(call_served(&pair, 1, &sum, payload, 4, TC_MODE_INJECTED),
                     expect + payload[0]);
    (void)ret;
    pair_close(&pair);
}

/* The injected fast path's shape holds for the frame size it was taken at:
 * after the sender's frames shrink, a copy of its last frame cut to the new
 * size but claiming the old payload length (room only the old size had) is
 * rejected, not run; then the stream goes on in the new size. */
static void test_injected_fast_path_resize(void **unused)
{
    int32_t payload[64];
    tc_context_params_t params;
    uint32_t big, small, k;
    char frame[4096];
    tc_frame_hdr_t *hdr;
    int64_t expect;
    tc_jam_t sum;
    pair_t pair;

    (void)unused;
    for (k = 0; k < 64; ++k) {
        payload[k] = (int32_t)k + 1;
    }
    pair_params(&params, 8);
    pair_open(&pair, &params);
    sum   = jam_of(&pair.s[1], "server_sum");
    big   = tc_jam_frame_size(&sum, TC_MODE_INJECTED, sizeof(payload));
    small = tc_jam_frame_size(&sum, TC_MODE_INJECTED, 16);
    assert_true((small < big) && (big <= sizeof(frame)));
    assert_int_equal(tc_peer_set_frame_size(pair.s[0].peer, big), TC_OK);
    assert_int_equal(tc_peer_set_frame_size(pair.s[1].peer, big), TC_OK);
    expect = 0;
    for (k = 0; k < 3; ++k) { /* the validator's frame, then two fast ones */
        expect += payload[0] + payload[1];
        assert_int_equal(call_served(&pair, 1, &sum, payload, 8, TC_MODE_INJECTED), expect);
    }
    assert_non_null(pair.s[0].peer->disp_injected);
    assert_int_equal(pair.s[0].peer->rx_path, TC_RX_PATH_INJECTED);

    last_sent(&pair, frame, big);
    /* the config frame goes out first: the receiver's frames are small
     * from the next one on */
    assert_int_equal(tc_peer_set_frame_size(pair.s[1].peer, small), TC_OK);
    hdr              = (tc_frame_hdr_t *)frame;
    hdr->frame_size  = small;
    hdr->payload_len = big - hdr->payload_off - TC_FRAME_SIG_SIZE;
    put_forged_rejected(&pair, frame, small);
    assert_int_equal(state_of(&pair.s[0])->sum, expect);
    /* the size changed: the injected shape recorded at the old one went,
     * and with it the injected fast path */
    assert_null(pair.s[0].peer->disp_injected);
    assert_int_equal(pair.s[0].peer->rx_path, TC_RX_PATH_GENERAL);
    /* and the stream goes on, small */
    expect += payload[0];
    assert_int_equal(call_served(&pair, 1, &sum, payload, 4, TC_MODE_INJECTED), expect);
    expect += payload[0];
    assert_int_equal(call_served(&pair, 1, &sum, payload, 4, TC_MODE_INJECTED), expect);
    assert_non_null(pair.s[0].peer->disp_injected);
    assert_int_equal(pair.s[0].peer->rx_path, TC_RX_PATH_INJECTED);
    pair_close(&pair);
}

/* Fixed frames that hold what the sender sends of jam in mode: the sync
 * request and the jam's frame with len payload bytes. */
static uint32_t sender_size(const tc_jam_t *jam, tc_mode_t mode, uint32_t len)
{
    uint32_t frame = tc_jam_frame_size(jam, mode, len), sync = tc_jam_prepare_size(jam, mode);

    return (frame > sync) ? frame : sync;
}

/* The answer to a namespace sync holds one address per GOT slot; under
 * fixed frames too small for it the receiver refuses the request with a
 * NACK (OUT_OF_RANGE), owes nothing, keeps serving, and the requester's
 * tc_jam_prepare returns at once, naming the frame size the answer needs.
 * Every receiver frame size from 64 B to the first that fits, both modes
 * that sync. */
static void test_sync_answer_too_big(void **unused)
{
    static const tc_mode_t modes[] = {TC_MODE_INJECTED, TC_MODE_CACHED};
    tc_context_params_t params;
    char need_text[64];
    tc_peer_stats_t rx, tx;
    uint32_t need, size, code, got;
    pthread_t thread;
    tc_nack_t nack;
    unsigned m;
    tc_jam_t copy;
    pair_t pair;
    serve_t s;
    int64_t ret;
    uint8_t v[8] = {1, 2, 3, 4, 5, 6, 7, 8};

    (void)unused;
    for (m = 0; m < TC_ARRAY_SIZE(modes); ++m) {
        for (size = TC_FRAME_MIN_SIZE;; size += TC_FRAME_ALIGN) {
            pair_params(&params, 4);
            params.timeout_ms = 60000; /* a requester left waiting would time out: failed */
            pair_open(&pair, &params);
            copy = jam_of(&pair.s[1], "copy"); /* one GOT slot (memcpy) */
            assert_int_equal(tc_jam_code_info(&copy, &code, &got), TC_OK);
            need = tc_frame_size_for(8u + 8u * got); /* status, then an address a slot */
            assert_true(need > TC_FRAME_MIN_SIZE);
            /* the sender's frames hold its request (with the code, cached) */
            pair_set_sizes(&pair, size, sender_size(&copy, modes[m], sizeof(v)));
            log_keep_start();
            serve_start(&s, &pair.s[0], &thread);
            if (size < need) {
                assert_int_equal(tc_jam_prepare(pair.s[1].peer, &copy, modes[m]),
                                 TC_ERR_OUT_OF_RANGE);
                assert_int_equal(tc_peer_last_nack(pair.s[1].peer, &nack), TC_OK);
                assert_int_equal(nack.status, TC_ERR_OUT_OF_RANGE);
                snprintf(need_text, sizeof(need_text), "needs %u-byte frames", need);
                assert_true(log_kept_has_at(TC_LOG_ERROR, need_text)); /* the requester's */
                assert_false(tc_jam_is_prepared(pair.s[1].peer, &copy, modes[m]));
            } else {
                assert_int_equal(tc_jam_call(pair.s[1].peer, &copy, v, sizeof(v),
                                             TC_SEND_PARAMS(modes[m], 0), &ret), TC_OK);
                assert_int_equal(ret, sizeof(v));
            }
            still_serving(&pair);
            serve_stop(&s, thread);
            log_keep_stop();
            assert_int_equal(s.status, TC_OK);
            assert_int_equal(pair.s[1].peer->failed, TC_OK);
            tc_peer_stats(pair.s[0].peer, &rx);
            tc_peer_stats(pair.s[1].peer, &tx);
            assert_int_equal(rx.rx_rejected, (size < need) ? 1 : 0);
            assert_int_equal(tx.rx_rejected, 0);
            pair_close(&pair);
            if (size >= need) {
                break;
            }
        }
    }
}

/* Policy any, the receiver's cached code dropped (tc_peer_forget_code), then
 * a cached tc_jam_call: the receiver refuses the frame and tells the sender
 * (its cached code is gone: a sync answer with status MISS, and the frame's
 * NACK with a status that says to try again, never a NACK without an error
 * status), the call sends the code again and returns the jam's result; the
 * receiver keeps serving. Variable frames and fixed ones. And copy (a GOT
 * slot: a successful sync's answer needs 128 bytes) cached, then the
 * receiver's frames down to 64 bytes: its MISS answer still fits, the call
 * returns at once that the code cannot be synced again in such frames, and
 * with the frames grown back it goes through. */
static void test_cached_call_after_forget(void **unused)
{
    static const char *const jams[] = {"server_sum", "copy"};
    tc_context_params_t params;
    tc_peer_stats_t rx, tx;
    uint32_t code, got, sync_answer, small;
    pthread_t thread;
    unsigned f, j, k;
    int32_t v[2] = {3, 4};
    tc_jam_t jam;
    pair_t pair;
    serve_t s;
    int64_t ret;

    (void)unused;
    for (f = 0; f < 2; ++f) {
        for (j = 0; j < TC_ARRAY_SIZE(jams); ++j) {
            pair_params(&params, 4);
            params.timeout_ms = 60000; /* a call left waiting would time out: failed */
            params.frames     = f ? TC_FRAMES_FIXED : TC_FRAMES_VARIABLE;
            pair_open(&pair, &params);
            pair.s[0].ctx->params.exec = TC_EXEC_ANY;
            jam = jam_of(&pair.s[1], jams[j]);
            assert_int_equal(tc_jam_code_info(&jam, &code, &got), TC_OK);
            sync_answer = tc_frame_size_for(8u + 8u * got);
            small       = TC_FRAME_MIN_SIZE;
            if (f) { /* the receiver's frames hold the sync's answer while it caches */
                pair_set_sizes(&pair, sync_answer, sender_size(&jam, TC_MODE_CACHED, sizeof(v)));
            }
            log_keep_start();
            serve_start(&s, &pair.s[0], &thread);
            assert_int_equal(tc_jam_call(pair.s[1].peer, &jam, v, sizeof(v),
                                         TC_SEND_PARAMS(TC_MODE_CACHED, 0), &ret), TC_OK);
            serve_stop(&s, thread);
            if (f && (small < sync_answer)) { /* a MISS answer fits the smallest frames */
                pair_set_sizes(&pair, small, sender_size(&jam, TC_MODE_CACHED, sizeof(v)));
            }
            tc_peer_forget_code(pair.s[0].peer);
            serve_start(&s, &pair.s[0], &thread);
            if (f && (small < sync_answer)) {
                assert_int_equal(tc_jam_call(pair.s[1].peer, &jam, v, sizeof(v),
                                             TC_SEND_PARAMS(TC_MODE_CACHED, 0), &ret),
                                 TC_ERR_OUT_OF_RANGE);
                still_serving(&pair);
                serve_stop(&s, thread);
                assert_int_equal(s.status, TC_OK);
                pair_set_sizes(&pair, sync_answer, sender_size(&jam, TC_MODE_CACHED, sizeof(v)));
                serve_start(&s, &pair.s[0], &thread);
            }
            for (k = 0; k < 2; ++k) { /* the code again, then cached once more */
                assert_int_equal(tc_jam_call(pair.s[1].peer, &jam, v, sizeof(v),
                                             TC_SEND_PARAMS(TC_MODE_CACHED, 0), &ret), TC_OK);
                assert_int_equal(ret, (j == 0) ? (int64_t)(v[0] + v[1]) * (k + 2) :
                                                 (int64_t)sizeof(v));
            }
            still_serving(&pair);
            serve_stop(&s, thread);
            log_keep_stop();
            assert_int_equal(s.status, TC_OK);
            assert_int_equal(pair.s[1].peer->failed, TC_OK);
            assert_false(log_kept_has("without an error status"));
            tc_peer_stats(pair.s[0].peer, &rx);
            tc_peer_stats(pair.s[1].peer, &tx);
            /* the cached frame it no longer held (and the sync it could not
             * answer in 64-byte frames) */
            assert_int_equal(rx.rx_rejected, (f && (small < sync_answer)) ? 2 : 1);
            assert_int_equal(tx.rx_rejected, 0); /* nothing the receiver said was refused */
            pair_close(&pair);
        }
    }
}

/* A receiver whose policy is local-only refuses the namespace sync itself:
 * tc_jam_prepare (and the first injected or cached call) returns
 * TC_ERR_REFUSED at once, with a message naming the policy, in the
 * smallest frames; local calls still run. */
static void test_local_only_refuses_sync(void **unused)
{
    static const tc_mode_t modes[] = {TC_MODE_INJECTED, TC_MODE_CACHED};
    tc_context_params_t params;
    tc_peer_stats_t tx;
    pthread_t thread;
    int32_t v = 9;
    tc_jam_t jam;
    unsigned m;
    pair_t pair;
    serve_t s;
    int64_t ret;

    (void)unused;
    for (m = 0; m < TC_ARRAY_SIZE(modes); ++m) {
        pair_params(&params, 4);
        params.timeout_ms = 60000;
        pair_open(&pair, &params);
        pair.s[0].ctx->params.exec = TC_EXEC_LOCAL_ONLY;
        jam = jam_of(&pair.s[1], "server_sum");
        pair_set_sizes(&pair, TC_FRAME_MIN_SIZE, sender_size(&jam, modes[m], sizeof(v)));
        log_keep_start();
        serve_start(&s, &pair.s[0], &thread);
        assert_int_equal(tc_jam_call(pair.s[1].peer, &jam, &v, sizeof(v),
                                     TC_SEND_PARAMS(modes[m], 0), &ret), TC_ERR_REFUSED);
        assert_true(log_kept_has_at(TC_LOG_ERROR, "local-only")); /* the requester's line */
        assert_false(tc_jam_is_prepared(pair.s[1].peer, &jam, modes[m]));
        still_serving(&pair);
        serve_stop(&s, thread);
        log_keep_stop();
        assert_int_equal(s.status, TC_OK);
        tc_peer_stats(pair.s[1].peer, &tx);
        assert_int_equal(tx.rx_rejected, 0);
        pair_close(&pair);
    }
}

/* Put a frame of kind naming pkg_id/element (ARGS args, no payload) as the
 * sender's next, in the sender's fixed frame size. */
static void put_request(pair_t *pair, uint8_t kind, uint32_t pkg_id, uint16_t element,
                        const void *args, uint32_t args_len)
{
    tc_frame_layout_t layout = {args_len, 0, 0, 0};
    tc_peer_t *tx = pair->s[1].peer;
    tc_frame_offsets_t off;
    char frame[4096];

    assert_int_equal(tc_frame_layout(&layout, tx->tx_frame_size, &off), TC_OK);
    off.frame_size = tx->tx_frame_size;
    memset(frame, 0, sizeof(frame));
    tc_frame_write_hdr(frame, &off, &layout, kind, 0, pkg_id, element, tx->tx_seq);
    ((tc_frame_hdr_t *)frame)->ack = tx->rx_seq;
    if (args_len > 0) {
        memcpy(frame + off.args_off, args, args_len);
    }
    tc_frame_seal(frame);
    assert_int_equal(tc_peer_send_raw_frame(tx, frame, off.frame_size), TC_OK);
}

/* A request taken while the receiver's frames held its answer, which could
 * not go yet (no free slot), and then the receiver's frames shrank: the
 * answer is never left owed; the request is refused after all with a NACK
 * for its frame (OUT_OF_RANGE), and the receiver goes on serving. A sync
 * (copy: a 128-byte answer; 128 then 64) and a ried unload (a 192-byte
 * answer; 192 then 128). */
static void test_answer_refused_late(void **unused)
{
    tc_context_params_t params;
    tc_ried_args_t unload;
    uint32_t code, got, fits, small, seq, k;
    tc_peer_stats_t rx;
    pthread_t thread;
    uint64_t i = 0;
    tc_nack_t nack;
    tc_jam_t copy, noop;
    unsigned r;
    pair_t pair;
    serve_t s;

    (void)unused;
    for (r = 0; r < 2; ++r) {
        pair_params(&params, 4);
        pair_open(&pair, &params);
        copy = jam_of(&pair.s[1], "copy");
        noop = jam_of(&pair.s[0], "noop");
        assert_int_equal(tc_jam_code_info(&copy, &code, &got), TC_OK);
        fits  = r ? 192 : tc_frame_size_for(8u + 8u * got);
        small = fits - TC_FRAME_ALIGN;
        pair_set_sizes(&pair, fits, 1024);
        log_keep_start();
        /* the receiver's slots at the sender all taken: its answer waits */
        for (k = 0; k < pair.s[0].peer->tx_slots; ++k) {
            assert_int_equal(tc_jam_send(pair.s[0].peer, &noop, &i, sizeof(i), NULL), TC_OK);
        }
        seq = pair.s[1].peer->tx_seq;
        if (r == 0) {
            put_request(&pair, TC_KIND_SYNC_REQ, copy.pkg_id, copy.element, NULL, 0);
        } else {
            memset(&unload, 0, sizeof(unload));
            unload.id = 999;
            unload.op = TC_RIED_OP_UNLOAD;
            put_request(&pair, TC_KIND_RIED, 0, 0, &unload, sizeof(unload));
        }
        assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, &k), TC_OK);
        assert_int_equal(k, 1);
        assert_true(pair.s[0].peer->owed & (r ? TC_OWED_RIED : TC_OWED_SYNC));
        /* the sender runs the receiver's frames and hands its slots back;
         * then the receiver's frames shrink */
        while (pair.s[1].peer->stats.rx_frames < pair.s[0].peer->tx_slots) {
            assert_int_equal(tc_peer_progress(pair.s[1].peer, 0, NULL), TC_OK);
        }
        assert_int_equal(tc_peer_flush(pair.s[1].peer), TC_OK);
        assert_int_equal(tc_peer_set_frame_size(pair.s[0].peer, small), TC_OK);
        assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, NULL), TC_OK);
        assert_false(pair.s[0].peer->owed & (r ? TC_OWED_RIED : TC_OWED_SYNC));
        while (tc_peer_last_nack(pair.s[1].peer, &nack) != TC_OK) {
            assert_int_equal(tc_peer_progress(pair.s[1].peer, 0, NULL), TC_OK);
        }
        assert_int_equal(nack.seq, seq);
        assert_int_equal(nack.status, TC_ERR_OUT_OF_RANGE);
        assert_true(log_kept_has_at(TC_LOG_WARN, "after all"));
        serve_start(&s, &pair.s[0], &thread);
        still_serving(&pair);
        serve_stop(&s, thread);
        log_keep_stop();
        assert_int_equal(s.status, TC_OK);
        tc_peer_stats(pair.s[0].peer, &rx);
        assert_int_equal(rx.rx_rejected, 0); /* taken, then refused: not a bad frame */
        pair_close(&pair);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_modes_agree),
        cmocka_unit_test(test_modes_agree_wx),
        cmocka_unit_test(test_cache_loss),
        cmocka_unit_test(test_injected_fast_path),
        cmocka_unit_test(test_injected_fast_path_resize),
        cmocka_unit_test(test_sync_answer_too_big),
        cmocka_unit_test(test_cached_call_after_forget),
        cmocka_unit_test(test_local_only_refuses_sync),
        cmocka_unit_test(test_answer_refused_late),
    };
    test_filter_from_env();
    return cmocka_run_group_tests_name("inject", tests, NULL, NULL);
}
