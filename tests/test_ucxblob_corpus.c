/* Replays the committed UCX-blob fuzz corpus and crash reproducers through
 * the fuzz target (tests/fuzz/ucxblob_target.c): every input must keep the
 * validators' invariants (the target aborts otherwise). */
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

#include "fuzz/ucxblob_target.c"
#include "corpus_replay.h"

static void test_replay_ucxblob_corpus(void **unused)
{
    (void)unused;
    corpus_replay_all("ucxblob", 36); /* the seeds: addresses, rkeys, pairs */
}

/* Every single-byte change of every seed goes through the target too. */
static void test_mutate_seeds(void **unused)
{
    (void)unused;
    printf("%u mutated inputs\n", corpus_mutate_seeds("ucxblob-corpus"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_ucxblob_corpus),
        cmocka_unit_test(test_mutate_seeds),
    };
    return cmocka_run_group_tests_name("ucxblob_corpus", tests, NULL, NULL);
}
