/*
 * Signalling over a loopback pair: how the receiver sees a frame land.
 * Variable frames (wait on MAG, read the size, wait on SIG), single-put
 * signalling, and a stale signal word written again late, which must not
 * run a consumed slot twice.
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
        cmocka_unit_test(test_stale_signal_not_rerun),
    };
    test_filter_from_env();
    return cmocka_run_group_tests_name("signal", tests, NULL, NULL);
}
