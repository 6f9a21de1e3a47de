/*
 * Arrival placement over a loopback pair: llc and dram write the frame
 * itself into the peer's slot instead of the transport's put; the
 * receiver's ring must end up byte for byte as the put leaves it, every
 * frame runs once, in order. A placement this host lacks is refused by the
 * sender and its test is a cmocka skip that prints the reason.
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
#include "place.h"
#include "harness/platform.h"

#include "loop_pair.h"

enum { PLACE_SLOTS = 16, PLACE_PAYLOAD = 300 };
static unsigned places_ran; /* placements that ran; test_placements_ran checks */

/* append: PLACE_PAYLOAD bytes a frame, each also kept in sent. */
typedef struct place_fill {
    uint8_t  payload[PLACE_PAYLOAD];
    uint8_t *sent;
} place_fill_t;

static const void *place_payload(uint64_t i, size_t *len_p, void *arg)
{
    place_fill_t *f = arg;
    uint64_t k;

    for (k = 0; k < PLACE_PAYLOAD; ++k) {
        f->payload[k] = (uint8_t)((i * 131 + k * 7) ^ (k >> 3));
    }
    memcpy(f->sent + i * PLACE_PAYLOAD, f->payload, PLACE_PAYLOAD);
    *len_p = PLACE_PAYLOAD;
    return f->payload;
}

/* A fresh pair whose sender places frames by `place`: one ring's worth of
 * append frames (each slot written once, their payloads into sent), all run
 * by the receiver. The pair is left open. */
static void placement_fill(pair_t *pair, tc_place_t place, uint8_t *sent)
{
    tc_context_params_t params;
    place_fill_t fill;
    tc_bench_state_t *st;
    tc_jam_t jam;

    pair_params(&params, PLACE_SLOTS);
    pair_open(pair, &params);
    pair_set_frames(pair, PLACE_PAYLOAD);
    assert_int_equal(tc_peer_set_placement(pair->s[1].peer, place), TC_OK);
    tc_peer_set_sw_prefetch(pair->s[0].peer, place == TC_PLACE_DRAM);

    jam       = jam_of(&pair->s[1], "append");
    fill.sent = sent;
    send_and_drain(pair, &jam, PLACE_SLOTS, place_payload, &fill);
    st = state_of(&pair->s[0]);
    assert_int_equal(st->log_len, (uint64_t)PLACE_SLOTS * PLACE_PAYLOAD);
    assert_memory_equal(st->log, sent, (size_t)PLACE_SLOTS * PLACE_PAYLOAD);
}

static void placement(tc_place_t place)
{
    const uint64_t stream = test_quick() ? 20000 : 200000;
    uint8_t *reference = NULL, *sent;
    tc_context_params_t params;
    tc_bench_state_t *st;
    size_t ring_bytes;
    char why[TC_PLATFORM_STATUS_LEN];
    tc_jam_t jam;
    pair_t pair;

    pair_params(&params, PLACE_SLOTS);
    ring_bytes = (size_t)PLACE_SLOTS * params.slot_size;
    if (tc_place_check(place, why, sizeof(why)) != TC_OK) {
        tc_status_t status;

        pair_open(&pair, &params);
        pair_set_frames(&pair, PLACE_PAYLOAD);
        status = tc_peer_set_placement(pair.s[1].peer, place);
        pair_close(&pair);
        assert_int_equal(status, TC_ERR_UNSUPPORTED); /* and the log says why */
        print_message("placement %s: %s\n", tc_place_str(place), why);
        skip();
    }
    sent = malloc((size_t)PLACE_SLOTS * PLACE_PAYLOAD);
    assert_non_null(sent);
    if (place != TC_PLACE_DEFAULT) {
        /* the reference: the same frames through the transport's put */
        placement_fill(&pair, TC_PLACE_DEFAULT, sent);
        reference = malloc(ring_bytes);
        assert_non_null(reference);
        memcpy(reference, pair.s[0].peer->rx_ring, ring_bytes);
        pair_close(&pair);
    }
    placement_fill(&pair, place, sent);
    if (reference != NULL) {
        assert_memory_equal(pair.s[0].peer->rx_ring, reference, ring_bytes);
    }

    /* and a stream through the ring, in order, nothing rejected */
    st           = state_of(&pair.s[0]);
    jam          = jam_of(&pair.s[1], "seq");
    st->seq_next = 0;
    send_and_drain(&pair, &jam, stream, NULL, NULL);
    assert_int_equal(st->seq_errors, 0);
    assert_int_equal(st->seq_next, stream);
    assert_int_equal(pair.s[0].peer->stats.rx_rejected, 0);
    print_message("placement %s: ring byte-identical, %llu frames in order\n",
                  tc_place_str(place), (unsigned long long)stream);
    pair_close(&pair);
    free(reference);
    free(sent);
    ++places_ran;
}

static void test_placement_default(void **unused) { (void)unused; placement(TC_PLACE_DEFAULT); }
static void test_placement_llc(void **unused)     { (void)unused; placement(TC_PLACE_LLC); }
static void test_placement_dram(void **unused)    { (void)unused; placement(TC_PLACE_DRAM); }

/* Runs after the three above. */
static void test_placements_ran(void **unused)
{
    (void)unused;
    assert_true(places_ran >= 2); /* default and dram run on every x86-64 and aarch64 host */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_placement_default),
        cmocka_unit_test(test_placement_llc),
        cmocka_unit_test(test_placement_dram),
        cmocka_unit_test(test_placements_ran),
    };
    test_filter_from_env(); /* test_placements_ran counts the others that ran */
    return cmocka_run_group_tests_name("placement", tests, NULL, NULL);
}
