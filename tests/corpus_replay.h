/* Shared by the corpus replay tests: feed every file of tests/fuzz/<sub>
 * (under $TC_SRC) to the fuzz target the including file pulled in
 * (LLVMFuzzerTestOneInput), counting them in *n_p. A missing folder (no
 * crash reproducers yet) replays nothing. Each input is named first, so a
 * target that aborts leaves the culprit's name in the log. */
#ifndef TC_TEST_CORPUS_REPLAY_H
#define TC_TEST_CORPUS_REPLAY_H

#include <dirent.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void corpus_replay(const char *sub, unsigned *n_p)
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
        if ((de->d_name[0] == '.') || (strcmp(de->d_name, "README") == 0)) {
            continue; /* a folder's notes are not an input */
        }
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        f = fopen(path, "rb");
        assert_non_null(f);
        len = fread(buf, 1, sizeof(buf), f);
        fclose(f);
        printf("replaying %s/%s\n", sub, de->d_name);
        fflush(stdout);
        LLVMFuzzerTestOneInput(buf, len);
        ++*n_p;
    }
    closedir(d);
}

/* tests/fuzz/<name>-corpus, which must hold at least its `seeds` committed
 * seeds, then <name>-crashes (its reproducers); the count printed. */
static __attribute__((unused)) void corpus_replay_all(const char *name, unsigned seeds)
{
    char sub[128];
    unsigned n = 0;

    snprintf(sub, sizeof(sub), "%s-corpus", name);
    corpus_replay(sub, &n);
    if (n < seeds) {
        fail_msg("tests/fuzz/%s: %u inputs, fewer than its %u seeds", sub, n, seeds);
    }
    snprintf(sub, sizeof(sub), "%s-crashes", name);
    corpus_replay(sub, &n);
    printf("replayed %u inputs\n", n);
}

/* Every single-byte change (to 0x00, 0x01, 0x7f, 0x80, 0xff) and every
 * prefix of each seed-* file of tests/fuzz/<sub> goes through the target: a
 * cheap sweep that needs no fuzzer installed. Returns the inputs run. */
static __attribute__((unused)) unsigned corpus_mutate_seeds(const char *sub)
{
    static const uint8_t flips[] = {0x00, 0x01, 0x7f, 0x80, 0xff};
    char dir[PATH_MAX], path[PATH_MAX * 2];
    const char *src = getenv("TC_SRC");
    static uint8_t buf[1 << 15];
    unsigned cases = 0;
    struct dirent *de;
    size_t len, i, k;
    DIR *d;
    FILE *f;

    snprintf(dir, sizeof(dir), "%s/tests/fuzz/%s", (src != NULL) ? src : ".", sub);
    d = opendir(dir);
    assert_non_null(d);
    while ((de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, "seed-", 5) != 0) {
            continue;
        }
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        f = fopen(path, "rb");
        assert_non_null(f);
        len = fread(buf, 1, sizeof(buf), f);
        fclose(f);
        for (i = 1; i < len; ++i) {
            uint8_t keep = buf[i];

            for (k = 0; k < sizeof(flips); ++k) {
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
    return cases;
}

#endif
