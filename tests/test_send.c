/*
 * Local jams end to end over a loopback pair (two contexts in one process,
 * shared-memory transports): streams whose receiver state must match what
 * the sender computed, calls and their reply values, every jam of the bench
 * package, large payloads packed straight into the peer's slot.
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
#include "frame_line.h"
#include "place.h"
#include "runtime.h"

#include "loop_pair.h"

/* A pair of 4-slot rings whose fixed frames fit payload bytes. */
static void pair_open_frames(pair_t *pair, size_t payload)
{
    pair_open_fixed(pair, 4, payload);
}

/* server_sum: 64 ints per jam, their total kept by the sender. */
typedef struct sum_fill {
    int32_t payload[64];
    int64_t expect;
} sum_fill_t;

static const void *sum_payload(uint64_t i, size_t *len_p, void *arg)
{
    sum_fill_t *f = arg;
    int k;

    for (k = 0; k < 64; ++k) {
        f->payload[k] = (int32_t)((i * 131 + (uint64_t)k * 7) % 20011) - 10000;
        f->expect += f->payload[k];
    }
    *len_p = sizeof(f->payload);
    return f->payload;
}

static void test_server_sum_matches_local(void **unused)
{
    const uint64_t n = 5000;
    tc_context_params_t params;
    sum_fill_t fill = {{0}, 0};
    tc_jam_t jam;
    pair_t pair;

    (void)unused;
    pair_params(&params, 16);
    pair_open(&pair, &params);
    pair_set_frames(&pair, sizeof(fill.payload));
    jam = jam_of(&pair.s[1], "server_sum");

    send_and_drain(&pair, &jam, n, sum_payload, &fill);

    assert_int_equal(state_of(&pair.s[0])->sum, fill.expect);
    assert_int_equal(state_of(&pair.s[0])->calls, n);
    assert_int_equal(state_of(&pair.s[1])->calls, 0); /* the sender ran nothing */
    pair_close(&pair);
}

/* indirect_put: 100 ints per jam, where the receiver's array must hold them. */
typedef struct put_fill {
    int32_t  payload[100];
    int32_t *expect;
    uint64_t cursor;
} put_fill_t;

static const void *put_payload(uint64_t i, size_t *len_p, void *arg)
{
    put_fill_t *f = arg;
    uint64_t k;

    for (k = 0; k < TC_ARRAY_SIZE(f->payload); ++k) {
        f->payload[k] = (int32_t)(i * 1000003u + k);
        f->expect[tc_bench_index(f->cursor++)] = f->payload[k];
    }
    *len_p = sizeof(f->payload);
    return f->payload;
}

static void test_indirect_put_matches_local(void **unused)
{
    const uint64_t n = 3000, ints = 100;
    tc_context_params_t params;
    tc_bench_state_t *st;
    put_fill_t fill;
    tc_jam_t jam;
    pair_t pair;

    (void)unused;
    fill.expect = calloc(TC_BENCH_ARRAY_LEN, sizeof(int32_t));
    fill.cursor = 0;
    pair_params(&params, 8);
    pair_open(&pair, &params);
    pair_set_frames(&pair, sizeof(fill.payload));
    jam = jam_of(&pair.s[1], "indirect_put");

    send_and_drain(&pair, &jam, n, put_payload, &fill);

    st = state_of(&pair.s[0]);
    assert_int_equal(st->cursor, n * ints);
    assert_memory_equal(st->array, fill.expect, TC_BENCH_ARRAY_LEN * sizeof(int32_t));
    free(fill.expect);
    pair_close(&pair);
}

static void test_call_returns_result(void **unused)
{
    server_arg_t server;
    int32_t payload[4] = {1, 2, 3, 4};
    pthread_t thread;
    int64_t ret = 0;
    tc_jam_t jam;
    pair_t pair;
    int i;

    (void)unused;
    pair_open_frames(&pair, sizeof(payload));
    jam = jam_of(&pair.s[1], "server_sum");

    server = (server_arg_t){&pair.s[0], 100, 0, TC_OK};
    pthread_create(&thread, NULL, server_thread, &server);
    for (i = 1; i <= 100; ++i) {
        assert_int_equal(tc_jam_call(pair.s[1].peer, &jam, payload, sizeof(payload), NULL, &ret),
                         TC_OK);
        assert_int_equal(ret, 10 * i); /* the running total after this call */
    }
    pthread_join(thread, NULL);
    assert_int_equal(server.status, TC_OK);
    pair_close(&pair);
}

/* Every jam of the package runs end to end and returns what it computed. */
static void test_every_jam_returns(void **unused)
{
    int32_t ints[16];
    uint64_t counter = 0;
    tc_context_params_t params;
    server_arg_t server;
    pthread_t thread;
    int64_t ret;
    tc_jam_t jam;
    pair_t pair;
    int i;

    (void)unused;
    pair_params(&params, 4);
    params.frames = TC_FRAMES_VARIABLE; /* each jam its own frame size */
    pair_open(&pair, &params);
    for (i = 0; i < 16; ++i) {
        ints[i] = i + 1;
    }

    server = (server_arg_t){&pair.s[0], 4, 0, TC_OK};
    pthread_create(&thread, NULL, server_thread, &server);
    jam = jam_of(&pair.s[1], "indirect_put");
    assert_int_equal(tc_jam_call(pair.s[1].peer, &jam, ints, sizeof(ints), NULL, &ret), TC_OK);
    assert_int_equal(ret, 16);                 /* integers put */
    jam = jam_of(&pair.s[1], "server_sum");
    assert_int_equal(tc_jam_call(pair.s[1].peer, &jam, ints, sizeof(ints), NULL, &ret), TC_OK);
    assert_int_equal(ret, 136);                /* 1 + ... + 16 */
    jam = jam_of(&pair.s[1], "seq");
    assert_int_equal(tc_jam_call(pair.s[1].peer, &jam, &counter, sizeof(counter), NULL, &ret), TC_OK);
    assert_int_equal(ret, 0);
    jam = jam_of(&pair.s[1], "noop");
    assert_int_equal(tc_jam_call(pair.s[1].peer, &jam, ints, 40, NULL, &ret), TC_OK);
    assert_int_equal(ret, 40);                 /* bytes it was given */
    pthread_join(thread, NULL);
    assert_int_equal(server.status, TC_OK);
    assert_int_equal(state_of(&pair.s[0])->calls, 3); /* noop touches no state */
    assert_int_equal(state_of(&pair.s[0])->array[tc_bench_index(15)], 16);
    pair_close(&pair);
}

/* server_sum with payloads around and over TC_PACK_DIRECT_MIN_AMD (packed
 * straight into the peer's mapped slot with signalling store, staged below
 * it; the sender's threshold is set to it on every CPU, the lowest any
 * uses): every sum and call lands exactly once, in fixed frames sized for
 * the largest and in variable frames, over a ring wrapped many times. */
typedef struct big_fill {
    int32_t  payload[4096];
    int64_t  expect;
    uint32_t ints[6];
} big_fill_t;

static const void *big_payload(uint64_t i, size_t *len_p, void *arg)
{
    big_fill_t *f = arg;
    uint32_t n = f->ints[i % TC_ARRAY_SIZE(f->ints)];

    f->expect += pattern_fill(f->payload, n, i);
    *len_p = (size_t)n * sizeof(int32_t);
    return f->payload;
}

static void large_payloads(tc_frame_mode_t frames)
{
    const uint64_t n = test_quick() ? 300 : 3000;
    big_fill_t *fill = calloc(1, sizeof(*fill));
    /* 252, 256 and 260 bytes: below, at and over TC_PACK_DIRECT_MIN_AMD */
    static const uint32_t ints[6] = {63, 64, 65, 1000, 4096, 16};
    tc_context_params_t params;
    tc_peer_stats_t rx;
    tc_jam_t jam;
    pair_t pair;

    assert_non_null(fill);
    memcpy(fill->ints, ints, sizeof(ints));
    pair_params(&params, 4);
    params.slot_size = 4096 * sizeof(int32_t) + 64;
    params.frames    = frames;
    pair_open(&pair, &params);
    if (tc_peer_signal(pair.s[1].peer) != TC_SIGNAL_STORE) {
        pair_close(&pair);
        free(fill);
        skip(); /* the transport maps nothing: every frame is staged */
    }
    if (frames == TC_FRAMES_FIXED) {
        pair_set_frames(&pair, sizeof(fill->payload));
    }
    pair.s[1].peer->tx_direct_min = TC_PACK_DIRECT_MIN_AMD;
    jam = jam_of(&pair.s[1], "server_sum");

    send_and_drain(&pair, &jam, n, big_payload, fill);

    tc_peer_stats(pair.s[0].peer, &rx);
    assert_int_equal(rx.rx_rejected, 0);
    assert_int_equal(state_of(&pair.s[0])->sum, fill->expect);
    assert_int_equal(state_of(&pair.s[0])->calls, n);
    pair_close(&pair);
    free(fill);
}

static void test_large_payloads_fixed(void **unused)
{
    (void)unused;
    large_payloads(TC_FRAMES_FIXED);
}

static void test_large_payloads_variable(void **unused)
{
    (void)unused;
    large_payloads(TC_FRAMES_VARIABLE);
}

/* server_sum injected and cached with payloads around and over
 * TC_PACK_DIRECT_CODE_MIN: an injected frame's payload packs into the peer's slot
 * and its code and GOTP follow from the staging frame, the code line they
 * share with the payload included; each call returns the exact running
 * total, in fixed and variable frames. */
static void large_payloads_code(tc_frame_mode_t frames)
{
    static const tc_mode_t modes[] = {TC_MODE_INJECTED, TC_MODE_CACHED};
    big_fill_t *fill = calloc(1, sizeof(*fill));
    static const uint32_t ints[6] = {255, 256, 257, 1000, 4096, 16};
    tc_context_params_t params;
    tc_peer_stats_t rx;
    const void *payload;
    uint64_t i, n = test_quick() ? 12 : 60;
    tc_jam_t jam;
    pair_t pair;
    unsigned m;
    size_t len;

    assert_non_null(fill);
    memcpy(fill->ints, ints, sizeof(ints));
    pair_params(&params, 4);
    params.slot_size = 4096 * sizeof(int32_t) + 2048; /* and server_sum's code */
    params.frames    = frames;
    pair_open(&pair, &params);
    jam = jam_of(&pair.s[1], "server_sum");
    if (frames == TC_FRAMES_FIXED) {
        assert_int_equal(tc_peer_set_frame_size(pair.s[0].peer, params.slot_size), TC_OK);
        assert_int_equal(tc_peer_set_frame_size(pair.s[1].peer, params.slot_size), TC_OK);
        assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, NULL), TC_OK);
        assert_int_equal(tc_peer_progress(pair.s[1].peer, 0, NULL), TC_OK);
    }
    for (m = 0; m < TC_ARRAY_SIZE(modes); ++m) {
        for (i = 0; i < n; ++i) {
            payload = big_payload(i, &len, fill);
            assert_int_equal(call_served(&pair, 1, &jam, payload, len, modes[m]), fill->expect);
        }
    }
    tc_peer_stats(pair.s[0].peer, &rx);
    assert_int_equal(rx.rx_rejected, 0);
    assert_int_equal(state_of(&pair.s[0])->calls, 2 * n);
    pair_close(&pair);
    free(fill);
}

static void test_large_payloads_injected_fixed(void **unused)
{
    (void)unused;
    large_payloads_code(TC_FRAMES_FIXED);
}

static void test_large_payloads_injected_variable(void **unused)
{
    (void)unused;
    large_payloads_code(TC_FRAMES_VARIABLE);
}

/* One-line frames pack into a word with the line's room as the cap: a pack
 * that wants more room there (its own rule: -1 under 16 bytes) is asked
 * again on the staging frame, with the slot's room, and its frames run as
 * they would have; a pack that takes the line's room is asked once. */
static const tc_pkg_element_t *line_pack_real;
static int line_pack_min_cap, line_pack_calls;

static int64_t line_pack(void *dst, size_t cap, const void *src, size_t len)
{
    line_pack_calls++;
    if (cap < (size_t)line_pack_min_cap) {
        return -1;
    }
    return line_pack_real->pack(dst, cap, src, len);
}

static int line_pack_run(int min_cap)
{
    tc_pkg_element_t elem;
    tc_peer_stats_t rx;
    int32_t ints[2];
    int64_t expect = 0;
    tc_jam_t jam;
    pair_t pair;
    int i;

    pair_open_frames(&pair, sizeof(ints));
    jam            = jam_of(&pair.s[1], "server_sum");
    line_pack_real = jam.elem;
    elem           = *jam.elem;
    elem.pack      = line_pack;
    jam.elem       = &elem; /* the sender's pack; the receiver runs its own server_sum */
    line_pack_min_cap = min_cap;
    line_pack_calls   = 0;
    for (i = 0; i < 12; ++i) { /* past a lap of the ring: every slot held a line's size */
        ints[0] = 10 * i + 1;
        ints[1] = 10 * i + 2;
        expect += ints[0] + ints[1];
        assert_int_equal(tc_jam_send(pair.s[1].peer, &jam, ints, sizeof(ints),
                                     TC_SEND_PARAMS(TC_MODE_LOCAL, 0)), TC_OK);
        assert_int_equal(tc_peer_wait(pair.s[0].peer, NULL), TC_OK);
    }
    assert_int_equal(state_of(&pair.s[0])->sum, expect);
    assert_int_equal(state_of(&pair.s[0])->calls, 12);
    tc_peer_stats(pair.s[0].peer, &rx);
    assert_int_equal(rx.rx_rejected, 0);
    pair_close(&pair);
    return line_pack_calls;
}

static void test_line_pack_wants_room(void **unused)
{
    (void)unused;
    /* staged until the line's name is made and every slot held its size,
     * then lines: asked once each */
    assert_int_equal(line_pack_run(0), 12);
    /* the same frames, those past that point asked in the line, then staged */
    assert_in_range(line_pack_run(16), 13, 23);
}

/* A reply is owed once its jam has run, not before: a jam that makes
 * progress on its origin peer while it runs (here a wrapper around the
 * receiver's own run, put where the fast path calls it) must not send the
 * reply of its own frame with the previous frame's result. Every reply
 * carries the result of the frame it answers, on the general fast path and
 * on line frames alike. */
static tc_jam_run_fn reply_real_run;
static tc_peer_t *reply_peer;
static int reply_wrapped_runs;

static int64_t reply_progress_run(tc_jam_ctx_t *ctx, void *payload, size_t len)
{
    reply_wrapped_runs++;
    assert_int_equal(tc_peer_progress(reply_peer, 0, NULL), TC_OK);
    /* the nested progress leaves the outer one's flag set: a send from
     * here that waits for credits must not handle frames (this one is not
     * consumed yet) */
    assert_int_equal(reply_peer->in_progress, 1);
    return reply_real_run(ctx, payload, len);
}

static void test_reply_owed_after_run(void **unused)
{
    tc_peer_stats_t tx;
    tc_peer_t *rx_peer;
    int64_t total = 0;
    int32_t ints[2];
    tc_jam_t jam;
    pair_t pair;
    int i;

    (void)unused;
    pair_open_frames(&pair, sizeof(ints));
    jam                = jam_of(&pair.s[1], "server_sum");
    rx_peer            = pair.s[0].peer;
    reply_peer         = rx_peer;
    reply_wrapped_runs = 0;
    for (i = 0; i < 24; ++i) {
        ints[0] = i + 1;
        ints[1] = 100 * (i + 1);
        total  += ints[0] + ints[1];
        /* the frame the validator passed last runs through the wrapper */
        if ((rx_peer->fast_run != NULL) && (rx_peer->fast_run != reply_progress_run)) {
            reply_real_run    = rx_peer->fast_run;
            rx_peer->fast_run = reply_progress_run;
        }
        assert_int_equal(tc_jam_send(pair.s[1].peer, &jam, ints, sizeof(ints),
                                     TC_SEND_PARAMS(TC_MODE_LOCAL, TC_SEND_WANT_REPLY)), TC_OK);
        assert_int_equal(tc_peer_wait(rx_peer, NULL), TC_OK);
        assert_int_equal(tc_peer_wait(pair.s[1].peer, NULL), TC_OK); /* the reply */
        tc_peer_stats(pair.s[1].peer, &tx);
        assert_int_equal(tx.last_ret_seq, (uint32_t)i);
        assert_int_equal(tx.last_ret, total); /* server_sum's running total */
    }
    assert_true(reply_wrapped_runs >= 12); /* the fast paths ran it, lines among them */
    pair_close(&pair);
}

/* Each side's frames carry the result of the last jam it ran for the
 * other (the piggyback: ret, ret_seq), on line frames too: a ping-pong of
 * 8-byte server_sum frames, where each side's view of the other's result
 * (tc_peer_stats' last_ret, last_ret_seq) is the other's running total
 * after the frame it answered. */
static void test_line_result_piggyback(void **unused)
{
    tc_peer_stats_t st;
    int32_t ints[2];
    tc_jam_t jam[2];
    pair_t pair;
    int i, k;

    (void)unused;
    pair_open_frames(&pair, sizeof(ints));
    for (k = 0; k < 2; ++k) {
        jam[k] = jam_of(&pair.s[k], "server_sum");
    }
    for (i = 0; i < 24; ++i) {
        for (k = 0; k < 2; ++k) { /* k sends, 1 - k runs it and answers with its own */
            ints[0] = 7 * i + k;
            ints[1] = -3 * i;
            assert_int_equal(tc_jam_send(pair.s[k].peer, &jam[k], ints, sizeof(ints),
                                         TC_SEND_PARAMS(TC_MODE_LOCAL, 0)), TC_OK);
            assert_int_equal(tc_peer_wait(pair.s[1 - k].peer, NULL), TC_OK);
        }
        /* side 0 ran side 1's frame i last; side 1 answered frame i of side 0
         * with the result of running it */
        tc_peer_stats(pair.s[0].peer, &st);
        assert_int_equal(st.last_ret_seq, (uint32_t)i);
        assert_int_equal(st.last_ret, state_of(&pair.s[1])->sum);
    }
    assert_int_equal(state_of(&pair.s[0])->calls, 24);
    pair_close(&pair);
}

/* Jam's one-line frames from pair.s[1] until pair.s[0]'s receiver takes
 * them on its line path (rx_path LINE: the validator recorded one). */
static void line_path_reached(pair_t *pair, const tc_jam_t *jam, const void *src, size_t len)
{
    tc_peer_t *peer = pair->s[0].peer;
    int i;

    for (i = 0; (i < 16) && (peer->rx_path != TC_RX_PATH_LINE); ++i) {
        assert_int_equal(tc_jam_send(pair->s[1].peer, jam, src, len,
                                     TC_SEND_PARAMS(TC_MODE_LOCAL, 0)), TC_OK);
        assert_int_equal(tc_peer_wait(peer, NULL), TC_OK);
    }
    assert_int_equal(peer->rx_path, TC_RX_PATH_LINE);
}

/* The receiver's entries follow its path (tc_rx_path_set): a peer's
 * rx_wait is the context's instance for rx_path, and rx_progress moves with
 * it, on connect, once the validator records a line and once a config
 * frame (a frame-size change) sends it back to the general path; frames
 * run on each. */
static void test_rx_entries_follow_path(void **unused)
{
    int32_t ints[2] = {1, 2};
    tc_rx_progress_fn general_progress;
    char big[200] = {0};
    tc_peer_t *peer;
    tc_jam_t jam;
    pair_t pair;
    int i;

    (void)unused;
    pair_open_frames(&pair, sizeof(ints));
    jam  = jam_of(&pair.s[1], "server_sum");
    peer = pair.s[0].peer;
    assert_int_equal(peer->rx_path, TC_RX_PATH_GENERAL);
    assert_ptr_equal(peer->rx_wait, peer->ctx->rx_wait_paths[TC_RX_PATH_GENERAL]);
    general_progress = peer->rx_progress;
    line_path_reached(&pair, &jam, ints, sizeof(ints));
    assert_ptr_equal(peer->rx_wait, peer->ctx->rx_wait_paths[TC_RX_PATH_LINE]);
    assert_ptr_not_equal(peer->rx_wait, peer->ctx->rx_wait_paths[TC_RX_PATH_GENERAL]);
    assert_ptr_not_equal(peer->rx_progress, general_progress);
    /* frames too long for a line: the sender's config frame goes first,
     * the validator takes it and the path goes back to the general one */
    assert_int_equal(tc_peer_set_frame_size(pair.s[1].peer, tc_frame_size_for(sizeof(big))),
                     TC_OK);
    assert_int_equal(tc_jam_send(pair.s[1].peer, &jam, big, sizeof(big),
                                 TC_SEND_PARAMS(TC_MODE_LOCAL, 0)), TC_OK);
    for (i = 0; (i < 4) && (peer->rx_path != TC_RX_PATH_GENERAL); ++i) {
        assert_int_equal(tc_peer_progress(peer, 0, NULL), TC_OK);
    }
    assert_int_equal(peer->rx_path, TC_RX_PATH_GENERAL);
    assert_ptr_equal(peer->rx_wait, peer->ctx->rx_wait_paths[TC_RX_PATH_GENERAL]);
    assert_ptr_equal(peer->rx_progress, general_progress);
    assert_int_equal(tc_jam_send(pair.s[1].peer, &jam, big, sizeof(big),
                                 TC_SEND_PARAMS(TC_MODE_LOCAL, 0)), TC_OK);
    assert_int_equal(tc_peer_wait(peer, NULL), TC_OK);
    assert_int_equal(peer->rx_path, TC_RX_PATH_GENERAL);
    pair_close(&pair);
}

/* A failed peer's receiver is on the FAILED path (tc_peer_fail): its wait
 * returns the failure at once and a frame that landed before does not run;
 * a path the validator would choose afterwards stays FAILED. */
static void test_rx_failed_path(void **unused)
{
    int32_t ints[2] = {1, 2};
    uint64_t calls;
    tc_peer_t *peer;
    tc_jam_t jam;
    pair_t pair;

    (void)unused;
    pair_open_frames(&pair, sizeof(ints));
    jam  = jam_of(&pair.s[1], "server_sum");
    peer = pair.s[0].peer;
    assert_int_equal(tc_jam_send(pair.s[1].peer, &jam, ints, sizeof(ints),
                                 TC_SEND_PARAMS(TC_MODE_LOCAL, 0)), TC_OK);
    assert_int_equal(tc_peer_wait(peer, NULL), TC_OK); /* the fast path recorded */
    calls = state_of(&pair.s[0])->calls;
    assert_int_equal(tc_jam_send(pair.s[1].peer, &jam, ints, sizeof(ints),
                                 TC_SEND_PARAMS(TC_MODE_LOCAL, 0)), TC_OK);
    (void)tc_peer_fail(peer, TC_ERR_PEER_FAILED);
    assert_int_equal(peer->rx_path, TC_RX_PATH_FAILED);
    assert_ptr_equal(peer->rx_wait, peer->ctx->rx_wait_paths[TC_RX_PATH_FAILED]);
    assert_int_equal(tc_peer_wait(peer, NULL), TC_ERR_PEER_FAILED);
    assert_int_equal(tc_peer_progress(peer, 0, NULL), TC_ERR_PEER_FAILED);
    assert_int_equal(state_of(&pair.s[0])->calls, calls); /* the landed frame did not run */
    tc_rx_path_set(peer, TC_RX_PATH_GENERAL);
    assert_int_equal(peer->rx_path, TC_RX_PATH_FAILED);
    pair_close(&pair);
}

/* A landed line whose length byte says more than a line holds is refused,
 * counted and not run, where the receiver takes lines of that jam on its
 * fast path (rx_path LINE): the fast path's length bound, and the
 * validator's behind it, decide, not the timing of a racing writer
 * (test_exec_race's test_line_len_race). */
static void test_line_forged_length(void **unused)
{
    tc_peer_stats_t rx;
    tc_peer_t *peer;
    int32_t ints[2] = {1, 2};
    uint64_t calls;
    tc_jam_t jam;
    pair_t pair;
    char *slot;

    (void)unused;
    pair_open_frames(&pair, sizeof(ints));
    jam  = jam_of(&pair.s[1], "server_sum");
    peer = pair.s[0].peer;
    line_path_reached(&pair, &jam, ints, sizeof(ints));
    calls = state_of(&pair.s[0])->calls;
    assert_int_equal(tc_jam_send(pair.s[1].peer, &jam, ints, sizeof(ints),
                                 TC_SEND_PARAMS(TC_MODE_LOCAL, 0)), TC_OK);
    slot = peer->rx_ring + (size_t)(peer->rx_seq & (peer->rx_slots - 1)) * peer->rx_slot_size;
    assert_int_equal((uint8_t)slot[0], TC_FRAME_LINE_TAG); /* it went as a line */
    slot[1] = (char)0xFF;                                   /* its length byte */
    assert_int_equal(tc_peer_progress(peer, 1, NULL), TC_OK);
    tc_peer_stats(peer, &rx);
    assert_int_equal(rx.rx_rejected, 1);
    assert_int_equal(state_of(&pair.s[0])->calls, calls); /* nothing ran */
    pair_close(&pair);
}

/* A pack that refuses a large payload in the peer's slot: the send says so
 * and sends nothing (the receiver sees no frame, rejects none); a payload
 * over the frame's room is refused with the frame it needs; the next jam
 * runs once. */
static void test_large_pack_refused(void **unused)
{
    static int32_t ints[1024];
    tc_context_params_t params;
    server_arg_t server;
    tc_peer_stats_t rx, tx0, tx1;
    pthread_t thread;
    tc_jam_t kv, sum;
    int64_t ret = 0;
    pair_t pair;
    int i;

    (void)unused;
    for (i = 0; i < 1024; ++i) {
        ints[i] = i;
    }
    pair_params(&params, 4);
    params.slot_size = 8192;
    pair_open(&pair, &params);
    pair_set_frames(&pair, 2048);
    pair.s[1].peer->tx_direct_min = TC_PACK_DIRECT_MIN_AMD; /* tried in the slot first */
    kv  = jam_of(&pair.s[1], "kv_get");
    sum = jam_of(&pair.s[1], "server_sum");

    tc_peer_stats(pair.s[1].peer, &tx0);
    /* kv_get packs only a 4-byte key: refused, in the slot and staged */
    assert_int_equal(tc_jam_send(pair.s[1].peer, &kv, ints, 2000, TC_SEND_PARAMS(TC_MODE_LOCAL, 0)),
                     TC_ERR_OUT_OF_RANGE);
    /* 4 KiB does not fit a frame made for 2 KiB */
    assert_int_equal(tc_jam_send(pair.s[1].peer, &sum, ints, sizeof(ints),
                                 TC_SEND_PARAMS(TC_MODE_LOCAL, 0)), TC_ERR_OUT_OF_RANGE);
    tc_peer_stats(pair.s[1].peer, &tx1);
    assert_int_equal(tx1.tx_frames, tx0.tx_frames);

    server = (server_arg_t){&pair.s[0], 1, 0, TC_OK};
    pthread_create(&thread, NULL, server_thread, &server);
    assert_int_equal(tc_jam_call(pair.s[1].peer, &sum, ints, 2048, NULL, &ret), TC_OK);
    assert_int_equal(ret, 511 * 512 / 2); /* 0 + ... + 511 */
    pthread_join(thread, NULL);
    assert_int_equal(server.status, TC_OK);
    tc_peer_stats(pair.s[0].peer, &rx);
    assert_int_equal(rx.rx_rejected, 0);
    assert_int_equal(state_of(&pair.s[0])->calls, 1);
    pair_close(&pair);
}

/* The receiver asks for a frame's lines on arrival after a jam that reads
 * its payload (server_sum: TC_JAM_HINT_READS_PAYLOAD), not after one that
 * does not (noop), in every mode: the hint is the receiver's own package's,
 * looked up by the frame's jam. The frames still run once each. */
static void test_arrival_prefetch_follows_jam(void **unused)
{
    static const tc_mode_t modes[] = {TC_MODE_LOCAL, TC_MODE_INJECTED, TC_MODE_CACHED};
    int32_t ints[300] = {0};
    tc_context_params_t params;
    tc_jam_t sum, noop;
    pair_t pair;
    unsigned m;

    (void)unused;
    pair_params(&params, 4);
    pair_open(&pair, &params);
    pair_set_frames(&pair, 2048);
    sum  = jam_of(&pair.s[1], "server_sum");
    noop = jam_of(&pair.s[1], "noop");
    assert_int_equal(tc_jam_hints(&sum), TC_JAM_HINT_READS_PAYLOAD);
    assert_int_equal(tc_jam_hints(&noop), 0);
    assert_int_equal(pair.s[0].peer->rx_prefetch, 0);
    ints[7] = 5;
    for (m = 0; m < TC_ARRAY_SIZE(modes); ++m) {
        /* the running total: each mode's sum ran once */
        assert_int_equal(call_served(&pair, 1, &sum, ints, sizeof(ints), modes[m]),
                         5 * (int64_t)(m + 1));
        assert_int_equal(pair.s[0].peer->rx_prefetch, 1);
        assert_int_equal(call_served(&pair, 1, &noop, ints, sizeof(ints), modes[m]),
                         (int64_t)sizeof(ints));
        assert_int_equal(pair.s[0].peer->rx_prefetch, 0);
    }
    assert_int_equal(state_of(&pair.s[0])->calls, 3);
    pair_close(&pair);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_server_sum_matches_local),
        cmocka_unit_test(test_indirect_put_matches_local),
        cmocka_unit_test(test_call_returns_result),
        cmocka_unit_test(test_every_jam_returns),
        cmocka_unit_test(test_large_payloads_fixed),
        cmocka_unit_test(test_large_payloads_variable),
        cmocka_unit_test(test_large_payloads_injected_fixed),
        cmocka_unit_test(test_large_payloads_injected_variable),
        cmocka_unit_test(test_large_pack_refused),
        cmocka_unit_test(test_line_pack_wants_room),
        cmocka_unit_test(test_reply_owed_after_run),
        cmocka_unit_test(test_line_result_piggyback),
        cmocka_unit_test(test_rx_entries_follow_path),
        cmocka_unit_test(test_rx_failed_path),
        cmocka_unit_test(test_line_forged_length),
        cmocka_unit_test(test_arrival_prefetch_follows_jam),
    };
    test_filter_from_env();
    return cmocka_run_group_tests_name("send", tests, NULL, NULL);
}
