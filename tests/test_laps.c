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
#include "runtime.h"
#include "frame.h"
#include "send.h"

#include "loop_pair.h"
#include "raw_frame.h"

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

/* ------------------------------------------------------------------------
 * Frame-size changes over payloads that hold the due signal. Where a frame
 * is smaller (or larger) than what its slot held, its signal word lies in
 * bytes an earlier frame wrote; a payload there may hold exactly the signal
 * this frame will write. The plan below makes every payload do so wherever
 * it can: a frame that runs before it landed (or is rejected as stale, or
 * never seen) shows as a wrong sum, a sequence error or a rejection. */

enum { LAP_CONFIG, LAP_SUM, LAP_SEQ };

typedef struct lap_frame {
    uint32_t seq;
    uint32_t size;      /* the bytes of its slot it writes */
    int      kind;
    uint32_t config;    /* LAP_CONFIG: the frame size it announces */
    int      drain;     /* LAP_CONFIG: let the receiver take it before the next frame */
    uint32_t len;       /* LAP_SUM: payload bytes */
    uint8_t *payload;
    int      crafted;   /* its slot held its signal at its signal word beforehand */
} lap_frame_t;

#define LAP_SLOTS   4u
#define LAP_MAX     4096u

/* Frame sizes phase after phase: shrinks, grows, both over earlier payloads. */
static const uint32_t lap_phase_sizes[] = {4096, 128, 2048, 256, 1024, 64, 3072, 192, 512};

static uint32_t lap_plan(tc_frame_mode_t frames, uint32_t seq, uint32_t cur, unsigned rounds,
                         uint32_t scale, lap_frame_t *plan, uint32_t max)
{
    uint32_t n = 0, size, k;
    unsigned r, p;

    for (r = 0; r < rounds; ++r) {
        for (p = 0; p < sizeof(lap_phase_sizes) / sizeof(lap_phase_sizes[0]); ++p) {
            size = lap_phase_sizes[p] * scale;
            if (size != cur) {
                assert_true(n < max);
                plan[n] = (lap_frame_t){seq++, (frames == TC_FRAMES_FIXED) ? cur : 64,
                                        LAP_CONFIG, size, (int)((r + p) & 1), 0, NULL, 0};
                n++;
                cur = size;
            }
            /* a count that moves the phases across the slots */
            for (k = 0; k < 3 + (r + p) % 4; ++k) {
                assert_true(n < max);
                if (k & 1) {
                    plan[n] = (lap_frame_t){seq++, (frames == TC_FRAMES_FIXED) ? size : 64,
                                            LAP_SEQ, 0, 0, 0, NULL, 0};
                } else {
                    plan[n] = (lap_frame_t){seq++, size, LAP_SUM, 0, 0,
                                            size - TC_FRAME_HDR_SIZE - TC_FRAME_SIG_SIZE,
                                            NULL, 0};
                }
                n++;
            }
        }
    }
    return n;
}

/* Fill every sum payload (a pattern), then for each frame of the plan find
 * what wrote its signal word's bytes last in its slot; where that is a sum
 * payload, make those bytes the frame's own signal. Returns how many. */
static unsigned lap_craft(lap_frame_t *plan, uint32_t n)
{
    uint32_t k, j, sig_off;
    unsigned crafted = 0;
    uint64_t sig;

    for (k = 0; k < n; ++k) {
        if (plan[k].kind == LAP_SUM) {
            plan[k].payload = malloc(plan[k].len);
            assert_non_null(plan[k].payload);
            (void)pattern_fill((int32_t *)(void *)plan[k].payload, plan[k].len / 4, k);
        }
    }
    for (k = 0; k < n; ++k) {
        sig_off = plan[k].size - TC_FRAME_SIG_SIZE;
        for (j = k; j-- > 0;) {
            if (((plan[j].seq ^ plan[k].seq) & (LAP_SLOTS - 1)) || (plan[j].size <= sig_off)) {
                continue; /* another slot, or it did not reach the word */
            }
            if ((plan[j].kind == LAP_SUM) && (sig_off >= TC_FRAME_HDR_SIZE) &&
                (sig_off + sizeof(sig) <= TC_FRAME_HDR_SIZE + plan[j].len)) {
                sig = tc_frame_sig(plan[k].seq);
                memcpy(plan[j].payload + (sig_off - TC_FRAME_HDR_SIZE), &sig, sizeof(sig));
                plan[k].crafted = 1;
                crafted++;
            }
            break;
        }
    }
    return crafted;
}

static int64_t lap_payload_sum(const lap_frame_t *f)
{
    int64_t sum = 0;
    int32_t v;
    uint32_t i;

    for (i = 0; i + 4 <= f->len; i += 4) {
        memcpy(&v, f->payload + i, sizeof(v));
        sum += v;
    }
    return sum;
}

static void laps_over_signals(tc_frame_mode_t frames, tc_signal_mode_t signal, uint32_t scale)
{
    const unsigned rounds = (getenv("TC_TEST_QUICK") != NULL) ? 3 : 12;
    tc_context_params_t params;
    lap_frame_t *plan;
    uint64_t counter = 0, jams = 0, calls0;
    int64_t sum = 0, sum0;
    tc_peer_stats_t st;
    server_arg_t server;
    pthread_t thread;
    tc_jam_t sum_jam, seq;
    unsigned crafted, configs = 0;
    uint32_t n, k;
    pair_t pair;

    tc_context_params_init(&params);
    params.slots      = LAP_SLOTS;
    params.slot_size  = LAP_MAX * scale;
    params.timeout_ms = 30000;
    params.frames     = frames;
    params.signal     = signal;
    pair_open(&pair, &params);
    sum_jam = jam_of(&pair.s[1], "server_sum");
    seq     = jam_of(&pair.s[1], "seq");
    calls0  = state_of(&pair.s[0])->calls;
    sum0    = state_of(&pair.s[0])->sum;
    counter = state_of(&pair.s[0])->seq_next;

    plan = calloc(1024, sizeof(*plan));
    assert_non_null(plan);
    n = lap_plan(frames, pair.s[1].peer->tx_seq, pair.s[1].peer->tx_frame_size, rounds, scale,
                 plan, 1024);
    crafted = lap_craft(plan, n);
    for (k = 0; k < n; ++k) {
        jams += (plan[k].kind != LAP_CONFIG);
        configs += (plan[k].kind == LAP_CONFIG);
    }

    tc_peer_stats(pair.s[0].peer, &st);
    server = (server_arg_t){&pair.s[0], st.rx_frames + st.rx_rejected + jams, 0, TC_OK};
    assert_int_equal(pthread_create(&thread, NULL, server_thread, &server), 0);
    for (k = 0; k < n; ++k) {
        assert_int_equal(pair.s[1].peer->tx_seq, plan[k].seq);
        switch (plan[k].kind) {
        case LAP_CONFIG:
            assert_int_equal(tc_peer_set_frame_size(pair.s[1].peer, plan[k].config), TC_OK);
            if (plan[k].drain) {
                /* the receiver moves its signal words before anything of
                 * the new size is written */
                assert_int_equal(tc_peer_drain(pair.s[1].peer), TC_OK);
            }
            break;
        case LAP_SUM:
            assert_int_equal(tc_jam_send(pair.s[1].peer, &sum_jam, plan[k].payload, plan[k].len,
                                         TC_SEND_PARAMS(TC_MODE_LOCAL, 0)), TC_OK);
            sum += lap_payload_sum(&plan[k]);
            break;
        default:
            assert_int_equal(tc_jam_send(pair.s[1].peer, &seq, &counter, sizeof(counter),
                                         TC_SEND_PARAMS(TC_MODE_LOCAL, 0)), TC_OK);
            counter++;
            break;
        }
    }
    assert_int_equal(tc_peer_drain(pair.s[1].peer), TC_OK);
    pthread_join(thread, NULL);
    assert_int_equal(server.status, TC_OK);

    tc_peer_stats(pair.s[0].peer, &st);
    print_message("%s frames, signalling %s, up to %u bytes, over earlier payloads holding "
                  "their signal: %u frames (%llu jams), %u crafted, %llu run, %llu rejected, "
                  "%llu out of order, sum %s\n",
                  tc_frames_str(frames), tc_signal_str(signal), LAP_MAX * scale, n, (unsigned long long)jams, crafted,
                  (unsigned long long)(state_of(&pair.s[0])->calls - calls0),
                  (unsigned long long)st.rx_rejected,
                  (unsigned long long)state_of(&pair.s[0])->seq_errors,
                  (state_of(&pair.s[0])->sum - sum0 == sum) ? "right" : "WRONG");
    assert_true(crafted >= configs); /* the plan does aim at the laps */
    assert_int_equal(st.rx_rejected, 0);
    assert_int_equal(state_of(&pair.s[0])->calls - calls0, jams);
    assert_int_equal(state_of(&pair.s[0])->seq_errors, 0);
    assert_int_equal(state_of(&pair.s[0])->seq_next, counter);
    assert_true(state_of(&pair.s[0])->sum - sum0 == sum);
    for (k = 0; k < n; ++k) {
        free(plan[k].payload);
    }
    free(plan);
    pair_close(&pair);
}

static void test_laps_signal_in_payload_fixed(void **unused)
{
    (void)unused;
    laps_over_signals(TC_FRAMES_FIXED, TC_SIGNAL_AUTO, 1);
}

static void test_laps_signal_in_payload_variable(void **unused)
{
    (void)unused;
    laps_over_signals(TC_FRAMES_VARIABLE, TC_SIGNAL_AUTO, 1);
}

/* Large frames by puts: the header lands long before the signal */
static void test_laps_signal_in_payload_fenced(void **unused)
{
    (void)unused;
    laps_over_signals(TC_FRAMES_FIXED, TC_SIGNAL_FENCED, 16);
    laps_over_signals(TC_FRAMES_VARIABLE, TC_SIGNAL_FENCED, 16);
}

/* One frame landing in steps, in a slot whose signal word an earlier
 * payload set to that frame's signal before a shrink: nothing runs (nor is
 * rejected) until the frame is whole. The library's sender clears the word
 * first (tc_peer_clear_sig), then the header lands, then the rest and the
 * signal; the test writes those steps with puts of its own. */
static void test_laps_header_before_signal(void **unused)
{
    const uint32_t big = 4096, small = 128;
    tc_context_params_t params;
    tc_peer_stats_t rx;
    tc_jam_t sum_jam;
    uint8_t payload[4096 - TC_FRAME_HDR_SIZE - TC_FRAME_SIG_SIZE];
    char frame[128];
    uint64_t sig, raddr;
    uint32_t t, first;
    int64_t sum = 0;
    unsigned n;
    pair_t pair;

    (void)unused;
    pair_params(&params, LAP_SLOTS);
    pair_open(&pair, &params);
    sum_jam = jam_of(&pair.s[1], "server_sum");
    pair_set_frames(&pair, big - TC_FRAME_HDR_SIZE - TC_FRAME_SIG_SIZE);

    /* three frames of the big size, each holding, where a small frame's
     * signal goes, the signal of the small frame due in its slot after the
     * config below (seq + LAP_SLOTS) */
    first = pair.s[1].peer->tx_seq;
    for (t = first; t < first + LAP_SLOTS - 1; ++t) {
        memset(payload, 0, sizeof(payload));
        sig = tc_frame_sig(t + LAP_SLOTS);
        memcpy(payload + small - TC_FRAME_SIG_SIZE - TC_FRAME_HDR_SIZE, &sig, sizeof(sig));
        sum += lap_payload_sum(&(lap_frame_t){.len = sizeof(payload), .payload = payload});
        assert_int_equal(tc_jam_send(pair.s[1].peer, &sum_jam, payload, sizeof(payload),
                                     TC_SEND_PARAMS(TC_MODE_LOCAL, 0)), TC_OK);
    }
    assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, &n), TC_OK);
    assert_int_equal(n, LAP_SLOTS - 1);
    assert_int_equal(tc_peer_flush(pair.s[0].peer), TC_OK);
    assert_int_equal(tc_peer_set_frame_size(pair.s[1].peer, small), TC_OK);

    /* the receiver moves its signal words: the next slot's holds the due
     * signal, its header an earlier lap's; not a frame yet */
    assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, &n), TC_OK);
    assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, &n), TC_OK);
    tc_peer_stats(pair.s[0].peer, &rx);
    print_message("after the shrink: %u run, %llu rejected (the slot holds the due signal in "
                  "an earlier payload)\n", n, (unsigned long long)rx.rx_rejected);
    assert_int_equal(n, 0);
    assert_int_equal(rx.rx_rejected, 0);
    assert_int_equal(tc_peer_flush(pair.s[0].peer), TC_OK);
    assert_int_equal(tc_peer_progress(pair.s[1].peer, 0, NULL), TC_OK);

    /* the next small frame lands in steps: the cleared signal word and the
     * header first */
    build_frame(&pair.s[1], frame, small, 77);
    raddr = pair.s[1].peer->remote_ring + (uint64_t)(pair.s[1].peer->tx_seq & (LAP_SLOTS - 1)) *
                                              pair.s[1].peer->tx_slot_size;
    assert_int_equal(tc_peer_clear_sig(pair.s[1].peer, small), TC_OK);
    assert_int_equal(tc_peer_put(pair.s[1].peer, frame, TC_FRAME_HDR_SIZE, raddr), TC_OK);
    assert_int_equal(tc_peer_flush(pair.s[1].peer), TC_OK);
    assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, &n), TC_OK);
    tc_peer_stats(pair.s[0].peer, &rx);
    assert_int_equal(n, 0);
    assert_int_equal(rx.rx_rejected, 0);
    assert_int_equal(state_of(&pair.s[0])->sum, sum);

    /* then the rest and the signal: it runs once, whole */
    assert_int_equal(tc_peer_send_raw_frame(pair.s[1].peer, frame, small), TC_OK);
    sum += 77;
    assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, &n), TC_OK);
    assert_int_equal(n, 1);
    assert_int_equal(state_of(&pair.s[0])->sum, sum);

    /* the other two slots that hold their due signal take the library's
     * frames */
    for (t = 0; t < 2; ++t) {
        int32_t v = 1000 + (int32_t)t;

        assert_int_equal(tc_jam_send(pair.s[1].peer, &sum_jam, &v, sizeof(v),
                                     TC_SEND_PARAMS(TC_MODE_LOCAL, 0)), TC_OK);
        sum += v;
        assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, &n), TC_OK);
        assert_int_equal(n, 1);
    }
    tc_peer_stats(pair.s[0].peer, &rx);
    assert_int_equal(rx.rx_rejected, 0);
    assert_int_equal(state_of(&pair.s[0])->sum, sum);
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
        cmocka_unit_test(test_laps_signal_in_payload_fixed),
        cmocka_unit_test(test_laps_signal_in_payload_variable),
        cmocka_unit_test(test_laps_signal_in_payload_fenced),
        cmocka_unit_test(test_laps_header_before_signal),
    };
    test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
