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

static void fuzz_dir(const char *sub, unsigned *n_p)
{
    char dir[PATH_MAX], path[PATH_MAX * 2];
    const char *src = getenv("TC_SRC");
    static uint8_t buf[1 << 16];
    struct dirent *de;
    size_t len;
    DIR *d;
    FILE *f;

    snprintf(dir, sizeof(dir), "%s/tests/fuzz/%s", (src != NULL) ? src : ".", sub);
    d = opendir(dir);
    if (d == NULL) {
        return;
    }
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') {
            continue;
        }
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        f = fopen(path, "rb");
        assert_non_null(f);
        len = fread(buf, 1, sizeof(buf), f);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, len);
        ++*n_p;
    }
    closedir(d);
}

static void test_replay_corpus(void **unused)
{
    unsigned n = 0;

    (void)unused;
    fuzz_dir("frame-corpus", &n);
    assert_true(n >= 7); /* at least the seeds: one valid frame of every kind */
    fuzz_dir("frame-crashes", &n);
    printf("replayed %u inputs\n", n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_corpus),
    };
    return cmocka_run_group_tests_name("fuzz_corpus", tests, NULL, NULL);
}
