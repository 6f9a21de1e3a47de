/* Replays the committed receive-path fuzz corpus and crash reproducers
 * through the fuzz target over a real loopback pair: the target aborts if
 * anything but the receiver's own accepted code with its own GOT runs, or if
 * the ring hangs. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "fuzz/rx_target.c"
#include "corpus_replay.h"

static void test_replay_rx_corpus(void **unused)
{
    unsigned n = 0;

    (void)unused;
    corpus_replay("rx-corpus", &n);
    assert_true(n >= 8); /* at least the seeds */
    corpus_replay("rx-crashes", &n);
    printf("replayed %u inputs; receiver ran %llu frames, rejected %llu\n", n,
           (unsigned long long)rx_sides[0].peer->stats.rx_frames,
           (unsigned long long)rx_sides[0].peer->stats.rx_rejected);
    rx_teardown();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_rx_corpus),
    };
    return cmocka_run_group_tests_name("rx_corpus", tests, NULL, NULL);
}
