/* Replays the committed multicast fuzz corpus and crash reproducers through
 * the fuzz target (tests/fuzz/mcast_target.c): every input must keep the
 * decoders' invariant (the target aborts otherwise). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz/mcast_target.c"
#include "corpus_replay.h"

static void test_replay_mcast_corpus(void **unused)
{
    (void)unused;
    corpus_replay_all("mcast", 40); /* the seeds: every form, envelopes, acks */
}

/* Every single-byte change of every seed goes through the target too. */
static void test_mutate_seeds(void **unused)
{
    (void)unused;
    printf("%u mutated inputs\n", corpus_mutate_seeds("mcast-corpus"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_mcast_corpus),
        cmocka_unit_test(test_mutate_seeds),
    };
    return cmocka_run_group_tests_name("mcast_corpus", tests, NULL, NULL);
}
