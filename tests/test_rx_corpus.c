/* Replays the committed receive-path fuzz corpus and crash reproducers
 * through the fuzz target over real loopback pairs (variable and fixed
 * frames): the target aborts if anything but the receiver's own accepted
 * code with its own GOT runs, if the receiver's progress fails or stalls on
 * what the peer sent, if anything runs after a goodbye, if the genuine
 * sender rejects a frame of the receiver's, if a genuine call after the
 * program gets no reply, or if the ring hangs. tests/fuzz/rx-findings/ (an
 * open defect's reproducers, when there is one) is replayed only when
 * TC_RX_REPLAY=rx-findings names it. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "fuzz/rx_target.c"
#include "corpus_replay.h"

static void test_replay_rx_corpus(void **unused)
{
    unsigned long long ran = 0, rejected = 0;
    unsigned n = 0, p;

    (void)unused;
    if (getenv("TC_RX_REPLAY") != NULL) {
        /* one folder of tests/fuzz instead (rx-findings: do the fixes hold?) */
        corpus_replay(getenv("TC_RX_REPLAY"), &n);
    } else {
        corpus_replay("rx-corpus", &n);
        assert_true(n >= 8); /* at least the seeds */
        corpus_replay("rx-crashes", &n);
    }
    for (p = 0; p < 2; ++p) {
        ran      += rx_pairs[p].side[0].peer->stats.rx_frames;
        rejected += rx_pairs[p].side[0].peer->stats.rx_rejected;
    }
    printf("replayed %u inputs; the receivers ran %llu frames, rejected %llu\n", n, ran,
           rejected);
    rx_teardown();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_rx_corpus),
    };
    return cmocka_run_group_tests_name("rx_corpus", tests, NULL, NULL);
}
