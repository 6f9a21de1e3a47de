/* Replays the committed frame fuzz corpus and crash reproducers through the
 * fuzz target: every input must keep the validator's invariant (the target
 * aborts otherwise). */
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

#include "fuzz/frame_target.c"
#include "corpus_replay.h"

static void test_replay_corpus(void **unused)
{
    (void)unused;
    corpus_replay_all("frame", 7); /* the seeds: one valid frame of every kind */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_corpus),
    };
    return cmocka_run_group_tests_name("fuzz_corpus", tests, NULL, NULL);
}
