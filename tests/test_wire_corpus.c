/* Replays the committed multicast fuzz corpus and crash reproducers through
 * the fuzz target (tests/fuzz/wire_target.c): every input must keep the
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

#include "fuzz/wire_target.c"
#include "corpus_replay.h"

static void test_replay_wire_corpus(void **unused)
{
    unsigned n = 0;

    (void)unused;
    corpus_replay("wire-corpus", &n);
    assert_true(n >= 8); /* at least the seeds: blobs, verdicts, maps */
    corpus_replay("wire-crashes", &n);
    printf("replayed %u inputs\n", n);
}

/* Every single-byte change of every seed goes through the target too: a
 * cheap sweep that needs no fuzzer installed. */
static void test_mutate_seeds(void **unused)
{
    char dir[PATH_MAX], path[PATH_MAX * 2];
    const char *src = getenv("TC_SRC");
    static uint8_t buf[1 << 15];
    static const uint8_t flips[] = {0x00, 0x01, 0x7f, 0x80, 0xff};
    unsigned cases = 0;
    struct dirent *de;
    size_t len;
    DIR *d;
    FILE *f;

    (void)unused;
    snprintf(dir, sizeof(dir), "%s/tests/fuzz/wire-corpus", (src != NULL) ? src : ".");
    d = opendir(dir);
    assert_non_null(d);
    while ((de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, "seed-", 5)) {
            continue;
        }
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        f = fopen(path, "rb");
        assert_non_null(f);
        len = fread(buf, 1, sizeof(buf), f);
        fclose(f);
        for (size_t i = 1; i < len; ++i) {
            uint8_t keep = buf[i];

            for (size_t k = 0; k < sizeof(flips); ++k) {
                buf[i] = flips[k];
                LLVMFuzzerTestOneInput(buf, len);
                ++cases;
            }
            buf[i] = keep;
            LLVMFuzzerTestOneInput(buf, i); /* every prefix */
            ++cases;
        }
    }
    closedir(d);
    printf("%u mutated inputs\n", cases);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_wire_corpus),
        cmocka_unit_test(test_mutate_seeds),
    };
    return cmocka_run_group_tests_name("wire_corpus", tests, NULL, NULL);
}
