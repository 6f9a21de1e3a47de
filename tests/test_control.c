/*
 * Control frames (lib/core/control.c) and the API around them: a rejected frame
 * is answered by a NACK that the sender's call returns at once; the frame
 * size and wait strategy are announced, at connect and in the stream, so
 * one side alone may change its own; tc_peer_close says goodbye, which the
 * other side sees as TC_ERR_CLOSED with nothing logged; tc_jam_try_send
 * never waits.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "twochains.h"
#include "runtime.h"
#include "frame.h"
#include "bench_state.h"

#include "loop_pair.h"
#include "raw_frame.h"
#include "send.h"

/* Every message the library logs, counted by level. Under qemu-user
 * (TC_EMULATED, make check-aarch64) UCX's flush of a closing endpoint whose
 * peer is not progressing sometimes outlasts timeout_ms, which real hardware
 * never showed here: that one warning is counted apart and printed. */
static atomic_int log_count[TC_LOG_DEBUG + 1];
static atomic_int emulated_close_timeouts;

static void count_log(tc_log_level_t level, const char *msg, void *arg)
{
    (void)arg;
    if ((level == TC_LOG_WARN) && (getenv("TC_EMULATED") != NULL) &&
        (strstr(msg, "endpoint close timed out") != NULL)) {
        atomic_fetch_add(&emulated_close_timeouts, 1);
        print_message("emulated: not counted: %s\n", msg);
        return;
    }
    atomic_fetch_add(&log_count[level], 1);
}

static void log_capture(void)
{
    memset(log_count, 0, sizeof(log_count));
    assert_int_equal(tc_log_set_handler(count_log, NULL), TC_OK);
}

/* A jam of a package the receiver has not loaded: its pkg_id is not one. */
static tc_jam_t unknown_jam(side_t *side)
{
    tc_jam_t jam = jam_of(side, "server_sum");

    jam.pkg_id ^= 0x5a5a5a5au;
    return jam;
}

static void test_nack_returns_at_once(void **state)
{
    tc_context_params_t params;
    tc_jam_t jam, bogus;
    pthread_t thread;
    tc_nack_t nack;
    int64_t ret = 0;
    int32_t one = 1;
    pair_t pair;
    serve_t s;

    (void)state;
    pair_params(&params, 8);
    params.timeout_ms = 60000; /* a sender left waiting would fail the test by timing out */
    pair_open(&pair, &params);
    pair_set_frames(&pair, 256);
    assert_int_equal(tc_peer_last_nack(pair.s[1].peer, &nack), TC_ERR_NOT_FOUND);
    jam   = jam_of(&pair.s[1], "server_sum");
    bogus = unknown_jam(&pair.s[1]);

    serve_start(&s, &pair.s[0], &thread);
    /* the receiver did not announce that package at connect: the sender
     * refuses the call itself, before anything is sent */
    {
        uint32_t seq = pair.s[1].peer->tx_seq;

        assert_int_equal(tc_jam_call(pair.s[1].peer, &bogus, &one, sizeof(one), NULL, &ret),
                         TC_ERR_NOT_FOUND);
        assert_int_equal(pair.s[1].peer->tx_seq, seq);
    }
    /* a sender that believes the peer has it (as one whose peer dropped a
     * package would): the receiver's NACK returns at once */
    pair.s[1].peer->wireup->peer_pkgs[pair.s[1].peer->wireup->n_peer_pkgs].id = bogus.pkg_id;
    snprintf(pair.s[1].peer->wireup->peer_pkgs[pair.s[1].peer->wireup->n_peer_pkgs].name, TC_WIRE_PKG_NAME_MAX,
             "bogus");
    pair.s[1].peer->wireup->n_peer_pkgs++;
    assert_int_equal(tc_jam_call(pair.s[1].peer, &bogus, &one, sizeof(one), NULL, &ret),
                     TC_ERR_NOT_FOUND);
    assert_int_equal(tc_peer_last_nack(pair.s[1].peer, &nack), TC_OK);
    assert_int_equal(nack.seq, pair.s[1].peer->tx_seq - 1);
    assert_int_equal(nack.status, TC_ERR_NOT_FOUND);
    assert_non_null(strstr(nack.reason, "unknown element"));
    /* and the connection goes on: the next call runs */
    assert_int_equal(tc_jam_call(pair.s[1].peer, &jam, &one, sizeof(one), NULL, &ret), TC_OK);
    serve_stop(&s, thread);
    assert_int_equal(s.status, TC_OK);
    assert_int_equal(pair.s[0].peer->stats.rx_rejected, 1);
    pair_close(&pair);
}

/* A malformed frame: the sender hears BAD_FRAME, even in the smallest
 * frames, where the reason's words do not fit. */
static void test_nack_malformed(void **state)
{
    tc_context_params_t params;
    char frame[64];
    tc_nack_t nack;
    pair_t pair;

    (void)state;
    pair_params(&params, 8);
    pair_open(&pair, &params);
    memset(frame, 0, sizeof(frame));
    tc_frame_write_hdr(frame, &(tc_frame_offsets_t){48, 48, 48, 48, 64},
                       &(tc_frame_layout_t){0, 0, 0, 0}, TC_KIND_LOCAL, 0, 0, 0,
                       pair.s[1].peer->tx_seq);
    ((tc_frame_hdr_t *)frame)->mag = 0x11; /* not a frame */
    tc_frame_seal(frame);
    assert_int_equal(tc_peer_send_raw_frame(pair.s[1].peer, frame, sizeof(frame)), TC_OK);
    while (pair.s[0].peer->stats.rx_rejected == 0) {
        assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, NULL), TC_OK);
    }
    while (tc_peer_last_nack(pair.s[1].peer, &nack) != TC_OK) {
        assert_int_equal(tc_peer_progress(pair.s[1].peer, 0, NULL), TC_OK);
    }
    assert_int_equal(nack.status, TC_ERR_BAD_FRAME);
    assert_int_equal(nack.seq, pair.s[1].peer->tx_seq - 1);
    pair_close(&pair);
}

static void test_try_send(void **state)
{
    tc_context_params_t params;
    tc_peer_stats_t st;
    uint64_t i = 0;
    tc_jam_t jam;
    pair_t pair;
    unsigned sent;

    (void)state;
    pair_params(&params, 4);
    pair_open(&pair, &params);
    jam = jam_of(&pair.s[1], "seq");
    state_of(&pair.s[0])->seq_next = 0;
    /* nobody serves: four slots, then no resource, never a wait */
    for (sent = 0; sent < 4; ++sent, ++i) {
        assert_int_equal(tc_jam_try_send(pair.s[1].peer, &jam, &i, sizeof(i), NULL), TC_OK);
    }
    assert_int_equal(tc_jam_try_send(pair.s[1].peer, &jam, &i, sizeof(i), NULL),
                     TC_ERR_NO_RESOURCE);
    tc_peer_stats(pair.s[1].peer, &st);
    assert_int_equal(st.credit_waits, 0);
    assert_int_equal(st.tx_jams, 4);
    /* the receiver runs them and hands the slots back: room again */
    assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, NULL), TC_OK);
    assert_int_equal(tc_jam_try_send(pair.s[1].peer, &jam, &i, sizeof(i), NULL), TC_OK);
    assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, NULL), TC_OK);
    tc_peer_stats(pair.s[0].peer, &st);
    assert_int_equal(st.rx_frames, 5);
    assert_int_equal(st.rx_rejected, 0);
    /* an injected jam not yet prepared is not synced behind the caller's back */
    assert_int_equal(tc_jam_try_send(pair.s[1].peer, &jam, &i, sizeof(i),
                                     TC_SEND_PARAMS(TC_MODE_INJECTED, 0)),
                     TC_ERR_INVALID_PARAM);
    pair_close(&pair);
}

/* One side changes its frame size; the other never hears of it but from
 * the stream, and runs every frame of both sizes. */
static void test_frame_size_one_side(void **state)
{
    static uint8_t payload[1000];
    tc_context_params_t params;
    tc_peer_stats_t st;
    tc_jam_t jam;
    pair_t pair;
    unsigned i;

    (void)state;
    pair_params(&params, 4);
    pair_open(&pair, &params);
    jam = jam_of(&pair.s[1], "noop");
    for (i = 0; i < 40; ++i) {
        uint32_t len = (i & 1) ? 8 : sizeof(payload);

        assert_int_equal(tc_peer_set_frame_size(pair.s[1].peer, tc_frame_size_for(len)), TC_OK);
        assert_int_equal(tc_jam_send(pair.s[1].peer, &jam, payload, len, NULL), TC_OK);
        assert_int_equal(tc_jam_send(pair.s[1].peer, &jam, payload, len, NULL), TC_OK);
        while (pair.s[0].peer->stats.rx_frames < 2u * (i + 1)) {
            assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, NULL), TC_OK);
        }
        assert_int_equal(tc_peer_flush(pair.s[0].peer), TC_OK); /* the credits back */
        assert_int_equal(tc_peer_drain(pair.s[1].peer), TC_OK);
    }
    tc_peer_stats(pair.s[0].peer, &st);
    assert_int_equal(st.rx_frames, 80);
    assert_int_equal(st.rx_rejected, 0);
    assert_int_equal(pair.s[0].peer->rx_frame_size, tc_frame_size_for(8));
    assert_int_equal(pair.s[0].peer->tx_frame_size, TC_FRAME_MIN_SIZE); /* untouched */
    pair_close(&pair);
}

/* The same jam and payload, sent in each mode before and after each change
 * of the fixed frame size: every frame goes out in the size of its time
 * (the send keeps header templates, which must not outlive the size they
 * were laid out for), and each one runs. */
static void test_frame_size_same_jam(void **state)
{
    static const tc_mode_t modes[] = {TC_MODE_LOCAL, TC_MODE_INJECTED, TC_MODE_CACHED};
    static const uint32_t grow[]   = {0, 192, 960, 192, 0, 448};
    tc_context_params_t params;
    uint64_t payload = 7;
    uint32_t base, frame;
    tc_peer_stats_t st;
    unsigned m, i, k;
    tc_jam_t jam;
    pair_t pair;

    (void)state;
    pair_params(&params, 4);
    pair_open(&pair, &params);
    jam = jam_of(&pair.s[1], "noop");
    for (m = 0; m < sizeof(modes) / sizeof(modes[0]); ++m) {
        base = tc_jam_frame_size(&jam, modes[m], sizeof(payload));
        if (base < tc_jam_prepare_size(&jam, modes[m])) {
            base = tc_jam_prepare_size(&jam, modes[m]);
        }
        /* the sync's answer comes back in the receiver's frames */
        assert_int_equal(tc_peer_set_frame_size(pair.s[0].peer, base), TC_OK);
        for (i = 0; i < sizeof(grow) / sizeof(grow[0]); ++i) {
            frame = base + grow[i];
            assert_int_equal(tc_peer_set_frame_size(pair.s[1].peer, frame), TC_OK);
            for (k = 0; k < 2; ++k) {
                assert_int_equal(call_served(&pair, 1, &jam, &payload, sizeof(payload), modes[m]),
                                 sizeof(payload));
            }
            assert_int_equal(pair.s[0].peer->rx_frame_size, frame);
        }
    }
    tc_peer_stats(pair.s[0].peer, &st);
    assert_int_equal(st.rx_rejected, 0);
    pair_close(&pair);
}

/* Announced at connect: each side's frame size and wait strategy. */
static void test_connect_params(void **state)
{
    const tc_peer_params_t big = {TC_PEER_PARAM_FIELD_FRAME_SIZE | TC_PEER_PARAM_FIELD_WAIT,
                                  1088, TC_WAIT_PAUSE};
    const tc_peer_params_t bad = {TC_PEER_PARAM_FIELD_FRAME_SIZE, 100, TC_WAIT_POLL};
    static uint8_t payload[1000];
    tc_context_params_t params;
    tc_peer_stats_t st;
    tc_jam_t jam;
    tc_peer_t *peer = NULL;
    tc_context_t *ctx;
    tc_boot_t *b0, *b1;
    pair_t pair;

    (void)state;
    pair_params(&params, 4);
    pair_open_with(&pair, &params, NULL, &big);
    assert_int_equal(pair.s[1].peer->tx_frame_size, 1088);
    assert_int_equal(pair.s[0].peer->rx_frame_size, 1088);
    assert_int_equal(pair.s[1].peer->wait, TC_WAIT_PAUSE);
    assert_int_equal(pair.s[0].peer->wait, TC_WAIT_POLL);
    jam = jam_of(&pair.s[1], "noop");
    assert_int_equal(tc_jam_send(pair.s[1].peer, &jam, payload, sizeof(payload), NULL), TC_OK);
    while (pair.s[0].peer->stats.rx_frames == 0) {
        assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, NULL), TC_OK);
    }
    tc_peer_stats(pair.s[0].peer, &st);
    assert_int_equal(st.rx_rejected, 0);
    pair_close(&pair);

    /* a size that is no frame size: refused before anything is exchanged */
    assert_int_equal(tc_boot_loopback_pair(1000, &b0, &b1), TC_OK);
    assert_int_equal(tc_context_create(&params, &ctx), TC_OK);
    assert_int_equal(tc_peer_connect(ctx, b1, &bad, &peer), TC_ERR_INVALID_PARAM);
    assert_null(peer);
    tc_context_destroy(ctx);
    tc_boot_close(b0);
    tc_boot_close(b1);
}

/* Injected or cached needs the jam's package in the sender's context (it
 * sends that context's resolved GOT): said as such, not as a missing blob. */
static void test_prepare_pkg_not_in_context(void **state)
{
    tc_context_params_t params;
    tc_jam_t jam;
    pair_t pair;

    (void)state;
    pair_params(&params, 4);
    pair_open(&pair, &params);
    jam = jam_of(&pair.s[1], "seq");
    jam.pkg_id ^= 1; /* a package this context never added */
    assert_int_equal(tc_jam_prepare(pair.s[1].peer, &jam, TC_MODE_INJECTED), TC_ERR_NOT_FOUND);
    assert_int_equal(tc_jam_prepare(pair.s[1].peer, &jam, TC_MODE_CACHED), TC_ERR_NOT_FOUND);
    pair_close(&pair);
}

/* Frame modes must agree: each side refuses, at connect, a peer whose frames
 * are of the other kind (its frames would never look complete), naming both. */
static void test_frames_mismatch(void **state)
{
    tc_context_params_t fixed, variable;
    pair_t pair;

    (void)state;
    pair_params(&fixed, 4);
    fixed.frames    = TC_FRAMES_FIXED;
    variable        = fixed;
    variable.frames = TC_FRAMES_VARIABLE;
    log_capture();
    pair_start_sides(&pair, &fixed, &variable, NULL, NULL);
    assert_int_equal(pair.s[0].status, TC_ERR_INVALID_PARAM);
    assert_int_equal(pair.s[1].status, TC_ERR_INVALID_PARAM);
    assert_null(pair.s[0].peer);
    assert_null(pair.s[1].peer);
    assert_true(atomic_load(&log_count[TC_LOG_ERROR]) >= 2);
    assert_int_equal(tc_log_set_handler(NULL, NULL), TC_OK);
    pair_close(&pair);
}

/* A peer that acknowledges more frames than this side sent, in a frame's
 * ack or in the credit word it puts into our ctrl line: the ack is refused
 * (counted, logged; a frame that carries it is rejected and NACKed), so the
 * ring stays at its slots. Before, either let 20 frames go into a 4-slot
 * ring. */
static void test_ack_beyond_sent(void **state)
{
    static uint64_t lie; /* a put's source */
    tc_context_params_t params;
    tc_peer_stats_t st;
    tc_nack_t nack;
    char frame[64];
    unsigned sent, variant;
    uint64_t i;
    tc_jam_t jam;
    pair_t pair;

    (void)state;
    for (variant = 0; variant < 2; ++variant) {
        pair_params(&params, 4);
        pair_open(&pair, &params);
        jam = jam_of(&pair.s[1], "seq");
        state_of(&pair.s[0])->seq_next = 0;
        if (variant == 0) {
            /* s[0] claims, in a frame, 16 frames more than s[1] sent */
            build_bare_frame(&pair.s[0], frame, TC_KIND_NOP);
            ((tc_frame_hdr_t *)frame)->ack = pair.s[1].peer->tx_seq + 16;
            tc_frame_seal(frame);
            assert_int_equal(tc_peer_send_raw_frame(pair.s[0].peer, frame, sizeof(frame)),
                             TC_OK);
        } else {
            /* ... or in the credit word it puts into s[1]'s ctrl line */
            lie = pair.s[1].peer->tx_seq + 16;
            assert_int_equal(tc_peer_put(pair.s[0].peer, &lie, sizeof(lie),
                                         pair.s[0].peer->remote_base +
                                             offsetof(tc_mbox_ctrl_t, consumed)),
                             TC_OK);
            assert_int_equal(tc_peer_flush(pair.s[0].peer), TC_OK);
        }
        assert_int_equal(tc_peer_progress(pair.s[1].peer, 0, NULL), TC_OK);

        /* nobody serves s[1]'s frames: as many as its ring holds (the NACK
         * of the refused frame takes one slot) */
        for (sent = 0, i = 0; sent < 64; ++sent, ++i) {
            if (tc_jam_try_send(pair.s[1].peer, &jam, &i, sizeof(i), NULL) != TC_OK) {
                break;
            }
        }
        tc_peer_stats(pair.s[1].peer, &st);
        print_message("ack beyond the frames sent, in %s: %llu frames went into a 4-slot ring "
                      "(%u jams), %llu acks refused\n", variant ? "the credit word" : "a frame",
                      (unsigned long long)st.tx_frames, sent,
                      (unsigned long long)st.rx_bad_acks);
        assert_int_equal(st.tx_frames, 4);
        assert_int_equal(sent, (variant == 0) ? 3 : 4);
        assert_true(st.rx_bad_acks >= 1);
        if (variant == 0) {
            assert_int_equal(st.rx_rejected, 1);
            assert_non_null(strstr(tc_peer_last_reject(pair.s[1].peer), "acknowledges"));
            while (tc_peer_last_nack(pair.s[0].peer, &nack) != TC_OK) {
                assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, NULL), TC_OK);
            }
            assert_int_equal(nack.status, TC_ERR_PROTOCOL);
        }
        /* the four run, in order, and the ring goes on */
        assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, NULL), TC_OK);
        assert_int_equal(state_of(&pair.s[0])->seq_next, sent);
        assert_int_equal(state_of(&pair.s[0])->seq_errors, 0);
        assert_int_equal(tc_peer_flush(pair.s[0].peer), TC_OK);
        assert_int_equal(tc_peer_progress(pair.s[1].peer, 0, NULL), TC_OK);
        assert_int_equal(tc_jam_try_send(pair.s[1].peer, &jam, &i, sizeof(i), NULL), TC_OK);
        assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, NULL), TC_OK);
        assert_int_equal(state_of(&pair.s[0])->seq_next, sent + 1);
        pair_close(&pair);
    }
}

/* Frames behind a goodbye in the ring, taken in the same call: the peer
 * said none follows, so none runs; each is rejected and counted. */
static void test_nothing_after_goodbye(void **state)
{
    tc_context_params_t params;
    tc_peer_stats_t st;
    tc_status_t status;
    char frame[64];
    unsigned n;
    pair_t pair;

    (void)state;
    pair_params(&params, 8);
    pair_open(&pair, &params);
    build_frame(&pair.s[1], frame, sizeof(frame), 1);
    assert_int_equal(tc_peer_send_raw_frame(pair.s[1].peer, frame, sizeof(frame)), TC_OK);
    build_bare_frame(&pair.s[1], frame, TC_KIND_GOODBYE);
    tc_frame_seal(frame);
    assert_int_equal(tc_peer_send_raw_frame(pair.s[1].peer, frame, sizeof(frame)), TC_OK);
    build_frame(&pair.s[1], frame, sizeof(frame), 2);
    assert_int_equal(tc_peer_send_raw_frame(pair.s[1].peer, frame, sizeof(frame)), TC_OK);
    build_frame(&pair.s[1], frame, sizeof(frame), 4);
    assert_int_equal(tc_peer_send_raw_frame(pair.s[1].peer, frame, sizeof(frame)), TC_OK);

    status = tc_peer_progress(pair.s[0].peer, 0, &n);
    tc_peer_stats(pair.s[0].peer, &st);
    print_message("frames after a goodbye in the same call: %llu ran (sum %lld), %llu "
                  "rejected\n", (unsigned long long)st.rx_frames,
                  (long long)state_of(&pair.s[0])->sum, (unsigned long long)st.rx_rejected);
    assert_true((status == TC_OK) || (status == TC_ERR_CLOSED));
    assert_int_equal(state_of(&pair.s[0])->sum, 1);
    assert_int_equal(st.rx_frames, 1);
    assert_int_equal(st.rx_rejected, 2);
    assert_non_null(strstr(tc_peer_last_reject(pair.s[0].peer), "goodbye"));
    assert_int_equal(tc_peer_wait(pair.s[0].peer, NULL), TC_ERR_CLOSED);
    pair_close(&pair);
}

/* tc_peer_close: the other side's calls return TC_ERR_CLOSED, and neither
 * side logs an error or a warning. */
static void test_goodbye(void **state)
{
    tc_context_params_t params;
    tc_jam_t jam;
    uint64_t i = 0;
    pair_t pair;

    (void)state;
    log_capture();
    pair_params(&params, 8);
    pair_open(&pair, &params);
    jam = jam_of(&pair.s[1], "seq");
    state_of(&pair.s[0])->seq_next = 0;
    assert_int_equal(tc_jam_send(pair.s[1].peer, &jam, &i, sizeof(i), NULL), TC_OK);
    tc_peer_close(pair.s[1].peer);
    pair.s[1].peer = NULL;
    /* what was sent before the goodbye runs first */
    assert_int_equal(tc_peer_wait(pair.s[0].peer, NULL), TC_OK);
    assert_int_equal(state_of(&pair.s[0])->seq_next, 1);
    assert_int_equal(tc_peer_wait(pair.s[0].peer, NULL), TC_ERR_CLOSED);
    assert_int_equal(tc_peer_check_alive(pair.s[0].peer), TC_ERR_CLOSED);
    assert_int_equal(tc_jam_send(pair.s[0].peer, &jam, &i, sizeof(i), NULL), TC_ERR_CLOSED);
    pair_close(&pair);
    assert_int_equal(atomic_load(&log_count[TC_LOG_ERROR]), 0);
    assert_int_equal(atomic_load(&log_count[TC_LOG_WARN]), 0);
    assert_int_equal(tc_log_set_handler(NULL, NULL), TC_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nack_returns_at_once),
        cmocka_unit_test(test_nack_malformed),
        cmocka_unit_test(test_try_send),
        cmocka_unit_test(test_frame_size_one_side),
        cmocka_unit_test(test_frame_size_same_jam),
        cmocka_unit_test(test_connect_params),
        cmocka_unit_test(test_frames_mismatch),
        cmocka_unit_test(test_prepare_pkg_not_in_context),
        cmocka_unit_test(test_goodbye),
        cmocka_unit_test(test_ack_beyond_sent),
        cmocka_unit_test(test_nothing_after_goodbye),
    };

    test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
