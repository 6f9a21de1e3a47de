/*
 * Signalling over a loopback pair: how the receiver sees a frame land.
 * Variable frames (wait on MAG, read the size, wait on SIG), every
 * signalling mode (exactly once, in order), store refused where nothing is
 * mapped, and a stale signal word written again late, which must not run a
 * consumed slot twice.
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
#include "raw_frame.h"

/* server_sum over a prefix of one fixed array: 0 .. 3596 bytes a frame. */
typedef struct var_fill {
    const int32_t *payload;
    int64_t        expect;
} var_fill_t;

static const void *var_payload(uint64_t i, size_t *len_p, void *arg)
{
    var_fill_t *f = arg;
    size_t len = ((i * 37) % 900) * sizeof(int32_t); /* 0 .. 3596 bytes */

    for (size_t k = 0; k < len / sizeof(int32_t); ++k) {
        f->expect += f->payload[k];
    }
    *len_p = len;
    return f->payload;
}

static void test_variable_frames(void **unused)
{
    static int32_t payload[900];
    tc_context_params_t params;
    var_fill_t fill = {payload, 0};
    tc_peer_stats_t rx;
    tc_jam_t jam;
    pair_t pair;
    uint64_t i, n = 2000;

    (void)unused;
    pair_params(&params, 8);
    params.frames = TC_FRAMES_VARIABLE;
    pair_open(&pair, &params);
    jam = jam_of(&pair.s[1], "server_sum");
    for (i = 0; i < 900; ++i) {
        payload[i] = (int32_t)i - 450;
    }

    send_and_drain(&pair, &jam, n, var_payload, &fill);

    tc_peer_stats(pair.s[0].peer, &rx);
    assert_int_equal(rx.rx_rejected, 0);
    assert_int_equal(state_of(&pair.s[0])->sum, fill.expect);
    pair_close(&pair);
}

static void test_single_put_signalling(void **unused)
{
    tc_context_params_t params;
    tc_jam_t jam;
    pair_t pair;
    uint64_t n = 20000;

    (void)unused;
    pair_params(&params, 8);
    params.signal = TC_SIGNAL_SINGLE_PUT;
    pair_open(&pair, &params);
    pair_set_frames(&pair, sizeof(uint64_t));
    jam = jam_of(&pair.s[1], "seq");

    send_and_drain(&pair, &jam, n, NULL, NULL);

    assert_int_equal(state_of(&pair.s[0])->seq_errors, 0);
    assert_int_equal(state_of(&pair.s[0])->seq_next, n);
    pair_close(&pair);
}

/* Every signalling mode, with fixed and variable frames, delivers each
 * frame exactly once and in order (the seq jam counts both), answers
 * included; auto resolves to store where the peer's mailbox is mapped. */
static void test_signal_modes(void **unused)
{
    static const tc_signal_mode_t modes[] = {TC_SIGNAL_FENCED, TC_SIGNAL_ORDERED,
                                             TC_SIGNAL_SINGLE_PUT, TC_SIGNAL_STORE,
                                             TC_SIGNAL_AUTO};
    const uint64_t n = test_quick() ? 2000 : 20000;
    tc_context_params_t params;
    tc_signal_mode_t expect;
    unsigned m, frames, i;
    tc_jam_t jam;
    pair_t pair;

    (void)unused;
    for (m = 0; m < sizeof(modes) / sizeof(modes[0]); ++m) {
        for (frames = TC_FRAMES_FIXED; frames <= TC_FRAMES_VARIABLE; ++frames) {
            pair_params(&params, 8);
            params.signal = modes[m];
            params.frames = (tc_frame_mode_t)frames;
            pair_open(&pair, &params);
            for (i = 0; i < 2; ++i) {
                const tc_peer_t *peer = pair.s[i].peer;
                expect = (modes[m] != TC_SIGNAL_AUTO) ? modes[m] :
                         (peer->remote_ring_ptr != NULL) ? TC_SIGNAL_STORE : TC_SIGNAL_FENCED;
                assert_int_equal(tc_peer_signal(peer), expect);
            }
            if (frames == TC_FRAMES_FIXED) {
                pair_set_frames(&pair, sizeof(uint64_t));
            }
            jam = jam_of(&pair.s[1], "seq");
            send_and_drain(&pair, &jam, n, NULL, NULL);
            assert_int_equal(state_of(&pair.s[0])->seq_errors, 0);
            assert_int_equal(state_of(&pair.s[0])->seq_next, n);
            /* and back: the answer of a call rides the same mode */
            jam = jam_of(&pair.s[1], "server_sum");
            {
                int32_t v[2] = {40, 2};
                assert_int_equal(call_served(&pair, 1, &jam, v, sizeof(v), TC_MODE_LOCAL), 42);
            }
            pair_close(&pair);
        }
    }
}

/* Restrict UCX to the transports `tls` names; returns what UCX_TLS was
 * (NULL: unset), for tls_restore. */
static char *tls_set(const char *tls)
{
    const char *saved = getenv("UCX_TLS");
    char *keep = (saved != NULL) ? strdup(saved) : NULL;

    setenv("UCX_TLS", tls, 1);
    return keep;
}

static void tls_restore(char *keep)
{
    if (keep != NULL) {
        setenv("UCX_TLS", keep, 1);
        free(keep);
    } else {
        unsetenv("UCX_TLS");
    }
}

/* Over tcp nothing is mapped: store is refused at connect, by name, on
 * both sides, and auto picks single-put (one tcp lane carries the puts). */
static void test_store_refused_unmapped(void **unused)
{
    char *keep = tls_set("tcp");
    tc_context_params_t params;
    pair_t pair;
    int i;

    (void)unused;
    pair_params(&params, 8);
    params.signal = TC_SIGNAL_STORE;
    pair_start(&pair, &params, NULL, NULL);
    for (i = 0; i < 2; ++i) {
        assert_int_equal(pair.s[i].status, TC_ERR_UNSUPPORTED);
        assert_null(pair.s[i].peer);
    }
    pair_close(&pair);

    params.signal = TC_SIGNAL_AUTO;
    pair_open(&pair, &params);
    for (i = 0; i < 2; ++i) {
        assert_null(pair.s[i].peer->remote_ring_ptr);
        assert_int_equal(tc_peer_signal(pair.s[i].peer), TC_SIGNAL_SINGLE_PUT);
    }
    pair_close(&pair);
    tls_restore(keep);
}

/* Frames whose every integer depends on the frame's number: one torn by a
 * signal seen before the bytes ahead of it sums stale integers of the
 * slot's last lap. Lengths cross tcp's segments and UCX's 64 KiB receive
 * buffer, so puts land in pieces. */
typedef struct torn_fill {
    int32_t *payload;
    size_t   fixed_len; /* bytes every frame; 0: lengths from 8 B to 244 KiB */
    int64_t  expect;
} torn_fill_t;

static const void *torn_payload(uint64_t i, size_t *len_p, void *arg)
{
    static const size_t lens[] = {8, 64, 1000, 16384, 65000, 66000, 140000, 250000};
    torn_fill_t *f = arg;
    size_t len = (f->fixed_len != 0) ? f->fixed_len :
                 lens[i % TC_ARRAY_SIZE(lens)] + (i % 5) * 4;

    f->expect += pattern_fill(f->payload, len / sizeof(int32_t), i);
    *len_p = len;
    return f->payload;
}

/* Over tcp, auto picks single-put: one put a frame, and the receiver takes
 * a frame when its last word (the signal) lands. That is correct only
 * because UCX lands a put over tcp inside the receiver's own
 * ucp_worker_progress (1.13 emulates it as active messages on one lane,
 * copied into place by the handler), in stream order, before the same
 * thread reads the slot: what the test pins is that structure (one tcp
 * lane for the puts, the receiver progresses) and its outcome, frames of
 * 8 B to 244 KiB over a 4-slot ring, fixed and variable, every one run
 * once, in order, whole. */
static void test_single_put_tcp_whole_frames(void **unused)
{
    const uint32_t slot_size = 256 * 1024;
    const uint64_t n = test_quick() ? 400 : 3000;
    char *keep = tls_set("tcp");
    tc_context_params_t params;
    torn_fill_t fill = {NULL, 0, 0};
    tc_peer_stats_t rx;
    unsigned frames, i;
    tc_jam_t jam;
    pair_t pair;

    (void)unused;
    fill.payload = malloc(slot_size);
    assert_non_null(fill.payload);
    for (frames = TC_FRAMES_FIXED; frames <= TC_FRAMES_VARIABLE; ++frames) {
        pair_params(&params, 4);
        params.slot_size = slot_size;
        params.frames    = (tc_frame_mode_t)frames;
        pair_open(&pair, &params);
        for (i = 0; i < 2; ++i) {
            const tc_peer_t *peer = pair.s[i].peer;
            assert_int_equal(tc_peer_signal(peer), TC_SIGNAL_SINGLE_PUT);
            assert_int_equal(peer->wireup->put_landed_by_peer, 1);
            assert_int_equal(peer->progress, 1);
            assert_non_null(strstr(peer->wireup->transports, "tcp"));
            assert_null(strchr(peer->wireup->transports, ',')); /* one lane for the puts */
        }
        fill.expect = 0;
        fill.fixed_len = (frames == TC_FRAMES_FIXED) ? 140000 : 0;
        if (frames == TC_FRAMES_FIXED) {
            pair_set_frames(&pair, (uint32_t)fill.fixed_len);
        }
        jam = jam_of(&pair.s[1], "server_sum");
        send_and_drain(&pair, &jam, n, torn_payload, &fill);
        tc_peer_stats(pair.s[0].peer, &rx);
        assert_int_equal(rx.rx_rejected, 0);
        assert_int_equal(state_of(&pair.s[0])->calls, n);
        assert_int_equal(state_of(&pair.s[0])->sum, fill.expect);
        pair_close(&pair);
    }
    free(fill.payload);
    tls_restore(keep);
}

/* A slot left behind by a consumed frame is never taken for a new one, even
 * if its signal word is written again late (a transport may store a tail
 * twice): the receiver waits for a different signal. */
static void test_stale_signal_not_rerun(void **unused)
{
    const uint32_t fsize = tc_frame_size_for(sizeof(int32_t));
    tc_context_params_t params;
    tc_frame_hdr_t *hdr;
    char frame[256];
    unsigned n, i;
    pair_t pair;
    char *slot;

    (void)unused;
    pair_params(&params, 2);
    pair_open(&pair, &params);
    pair_set_frames(&pair, sizeof(int32_t));
    build_frame(&pair.s[1], frame, fsize, 5);
    assert_int_equal(tc_peer_send_raw_frame(pair.s[1].peer, frame, fsize), TC_OK);
    assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, &n), TC_OK);
    assert_int_equal(n, 1);

    /* replay the very same bytes into slot 0 again after one lap */
    build_frame(&pair.s[1], frame, fsize, 6);
    assert_int_equal(tc_peer_send_raw_frame(pair.s[1].peer, frame, fsize), TC_OK);
    assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, &n), TC_OK);
    assert_int_equal(n, 1);
    slot = pair.s[0].peer->rx_ring;
    hdr  = (tc_frame_hdr_t *)slot;
    for (i = 0; i < 1000; ++i) {
        *tc_frame_sig_ptr(slot, fsize) = tc_frame_sig(hdr->seq); /* the late duplicate */
        assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, &n), TC_OK);
        assert_int_equal(n, 0);
    }
    assert_int_equal(state_of(&pair.s[0])->calls, 2);
    assert_int_equal(state_of(&pair.s[0])->sum, 11);
    pair_close(&pair);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variable_frames),
        cmocka_unit_test(test_single_put_signalling),
        cmocka_unit_test(test_signal_modes),
        cmocka_unit_test(test_store_refused_unmapped),
        cmocka_unit_test(test_single_put_tcp_whole_frames),
        cmocka_unit_test(test_stale_signal_not_rerun),
    };
    test_filter_from_env();
    return cmocka_run_group_tests_name("signal", tests, NULL, NULL);
}
