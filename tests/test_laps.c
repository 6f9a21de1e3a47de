/*
 * Frames that cannot confuse laps: one connection over a small ring that
 * changes payload size, mode (local, injected, cached), jam and, for fixed
 * frames, the frame size hundreds of times, phase after phase, wrapping the
 * ring again and again. A stale lap's header or SIG must never pass as a new
 * frame: every frame runs exactly once, in order, and none is rejected.
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

static unsigned phases(void)
{
    return (getenv("TC_TEST_QUICK") != NULL) ? 60 : 400;
}

/* xorshift: the same phase plan on every run */
static uint32_t next_rand(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static void laps(tc_frame_mode_t frames)
{
    static const tc_mode_t modes[] = {TC_MODE_LOCAL, TC_MODE_INJECTED, TC_MODE_CACHED};
    static const uint32_t sizes[]  = {8, 64, 200, 1000, 1500, 3000};
    tc_context_params_t params;
    uint64_t counter = 0, sent = 0, calls0;
    tc_peer_stats_t st;
    uint32_t rnd = 0x2545f491u, size, frame;
    uint8_t buf[4096];
    tc_jam_t seq, copy;
    unsigned p, k, n;
    tc_mode_t mode;
    pair_t pair;
    int s;

    tc_context_params_init(&params);
    params.slots      = 4;
    params.slot_size  = 4096;
    params.timeout_ms = 30000;
    params.frames     = frames;
    pair_open(&pair, &params);
    seq    = jam_of(&pair.s[1], "seq");
    copy   = jam_of(&pair.s[1], "copy");
    calls0 = state_of(&pair.s[0])->calls;
    memset(buf, 0x5a, sizeof(buf));

    for (p = 0; p < phases(); ++p) {
        server_arg_t server;
        pthread_t thread;

        mode = modes[next_rand(&rnd) % 3];
        size = sizes[next_rand(&rnd) % 6];
        n    = 1 + next_rand(&rnd) % 23;
        {
            /* the frame of this phase's largest jam, its sync included
             * (variable frames ignore it, but tc-perf sets it at every
             * point whatever the frame mode, and so does this test) */
            frame = tc_jam_frame_size(&copy, mode, size);
            if (frame < tc_jam_prepare_size(&copy, mode)) {
                frame = tc_jam_prepare_size(&copy, mode);
            }
            if (frame < tc_jam_prepare_size(&seq, mode)) {
                frame = tc_jam_prepare_size(&seq, mode);
            }
            for (s = 0; s < 2; ++s) {
                assert_int_equal(tc_peer_set_frame_size(pair.s[s].peer, frame), TC_OK);
            }
        }
        tc_peer_stats(pair.s[0].peer, &st);
        server = (server_arg_t){&pair.s[0], st.rx_frames + st.rx_rejected + n, 0, TC_OK};
        assert_int_equal(pthread_create(&thread, NULL, server_thread, &server), 0);
        for (k = 0; k < n; ++k, ++sent) {
            if (next_rand(&rnd) & 1) {
                assert_int_equal(tc_jam_send(pair.s[1].peer, &seq, &counter, sizeof(counter), TC_SEND_PARAMS(mode, 0)), TC_OK);
                counter++;
            } else {
                assert_int_equal(tc_jam_send(pair.s[1].peer, &copy, buf, size, TC_SEND_PARAMS(mode, 0)),
                                 TC_OK);
            }
        }
        pthread_join(thread, NULL);
        assert_int_equal(server.status, TC_OK);
        assert_int_equal(tc_peer_flush(pair.s[1].peer), TC_OK);
        assert_int_equal(tc_peer_progress(pair.s[1].peer, 0, NULL), TC_OK);
    }

    tc_peer_stats(pair.s[0].peer, &st);
    print_message("%s frames: %u phases, %llu frames, %llu run, %llu rejected, %llu out of "
                  "order\n", tc_frames_str(frames), phases(),
                  (unsigned long long)sent,
                  (unsigned long long)(state_of(&pair.s[0])->calls - calls0),
                  (unsigned long long)st.rx_rejected,
                  (unsigned long long)state_of(&pair.s[0])->seq_errors);
    assert_int_equal(st.rx_rejected, 0);
    assert_int_equal(state_of(&pair.s[0])->calls - calls0, sent);
    assert_int_equal(state_of(&pair.s[0])->seq_errors, 0);
    assert_int_equal(state_of(&pair.s[0])->seq_next, counter);
    pair_close(&pair);
}

static void test_laps_variable(void **unused)
{
    (void)unused;
    laps(TC_FRAMES_VARIABLE);
}

static void test_laps_fixed(void **unused)
{
    (void)unused;
    laps(TC_FRAMES_FIXED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_laps_variable),
        cmocka_unit_test(test_laps_fixed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
