/*
 * Unit tests of the log-linear histogram (lib/base/hist.c).
 *
 * Percentiles are checked against the exact nearest-rank percentiles of the
 * sorted samples, with the rank computed in integer arithmetic (parts per
 * million) so the reference does not share the library's floating point.
 *
 * TC_TEST_QUICK=1 shrinks the sample counts (for valgrind runs).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"

#define TEST_SEED         UINT64_C(0x5eed2c4a1b7e9d03)
#define TEST_MAX_VALUE    UINT64_C(1000000000000) /* 1000 s in ns */
#define TEST_ARRAY_SIZE(_a) (sizeof(_a) / sizeof((_a)[0]))

__extension__ typedef unsigned __int128 test_u128_t;

typedef struct {
    double   pct; /* what the library is asked */
    uint64_t ppm; /* the same in parts per million, for the exact reference */
} test_pct_t;

static const test_pct_t test_pcts[] = {
    {0.1, 1000},     {1.0, 10000},     {10.0, 100000},   {25.0, 250000},
    {50.0, 500000},  {75.0, 750000},   {90.0, 900000},   {99.0, 990000},
    {99.9, 999000},  {99.99, 999900},  {99.999, 999990}
};

/* ------------------------------------------------------------------ helpers */

static size_t test_sample_count(void)
{
    const char *quick = getenv("TC_TEST_QUICK");

    return ((quick != NULL) && (strcmp(quick, "0") != 0)) ? 20000 : 1000000;
}

/* splitmix64: tiny, good enough, and the same sequence everywhere. */
static uint64_t test_rand(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Uniform in (0, 1]: never 0, so log() and division stay finite. */
static double test_rand_unit(uint64_t *state)
{
    return (double)((test_rand(state) >> 11) + 1) * 0x1.0p-53;
}

static int test_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t*)a;
    uint64_t y = *(const uint64_t*)b;

    return (x > y) - (x < y);
}

/* Nearest rank: ceil(ppm / 10^6 * n), at least 1, in exact integers. */
static uint64_t test_exact_percentile(const uint64_t *sorted, size_t n,
                                      uint64_t ppm)
{
    test_u128_t rank = ((test_u128_t)n * ppm + 999999) / 1000000;

    if (rank < 1) {
        rank = 1;
    }
    return sorted[(size_t)rank - 1];
}

/* |got - exact| <= exact / 256 (a bucket's midpoint, hist.c), checked without rounding. */
static void test_assert_rel_err(const char *what, uint64_t got, uint64_t exact)
{
    uint64_t diff = (got > exact) ? (got - exact) : (exact - got);

    if ((test_u128_t)diff * 256 > exact) {
        fail_msg("%s: got %llu, exact %llu (relative error %.6g > 1/256)", what,
                 (unsigned long long)got, (unsigned long long)exact,
                 (double)diff / (double)exact);
    }
}

static void test_assert_mean(double mean, const uint64_t *samples, size_t n)
{
    long double sum = 0;
    long double exact;
    size_t i;

    for (i = 0; i < n; ++i) {
        sum += (long double)samples[i];
    }
    exact = sum / (long double)n;

    if (fabsl((long double)mean - exact) > exact * 1e-9L) {
        fail_msg("mean: got %.17g, exact %.17Lg", mean, exact);
    }
}

static void test_assert_summary_equal(const tc_hist_summary_t *a,
                                      const tc_hist_summary_t *b)
{
    assert_int_equal(a->count, b->count);
    assert_int_equal(a->min, b->min);
    assert_int_equal(a->p50, b->p50);
    assert_int_equal(a->p90, b->p90);
    assert_int_equal(a->p99, b->p99);
    assert_int_equal(a->p999, b->p999);
    assert_int_equal(a->p9999, b->p9999);
    assert_int_equal(a->max, b->max);
    assert_true(a->mean == b->mean);
}

/* Every percentile the two histograms can report, not just the summary. */
static void test_assert_hists_equal(const tc_hist_t *a, const tc_hist_t *b)
{
    tc_hist_summary_t sa, sb;
    int i;

    assert_int_equal(tc_hist_count(a), tc_hist_count(b));
    assert_int_equal(tc_hist_saturated(a), tc_hist_saturated(b));
    tc_hist_summarize(a, &sa);
    tc_hist_summarize(b, &sb);
    test_assert_summary_equal(&sa, &sb);

    for (i = 0; i <= 10000; ++i) {
        double pct = i / 100.0;

        assert_int_equal(tc_hist_percentile(a, pct), tc_hist_percentile(b, pct));
    }
}

/*
 * Record samples into a fresh histogram and compare everything it reports
 * with values computed from the sorted samples.
 */
static void test_check_samples(const char *name, const uint64_t *samples,
                               size_t n)
{
    tc_hist_t *hist = NULL;
    uint64_t *sorted;
    tc_hist_summary_t summary;
    uint64_t prev = 0;
    char what[64];
    size_t i;

    sorted = malloc(n * sizeof(*sorted));
    assert_non_null(sorted);
    memcpy(sorted, samples, n * sizeof(*sorted));
    qsort(sorted, n, sizeof(*sorted), test_cmp_u64);

    assert_int_equal(tc_hist_create(TEST_MAX_VALUE, &hist), TC_OK);
    for (i = 0; i < n; ++i) {
        tc_hist_record(hist, samples[i]);
    }

    assert_int_equal(tc_hist_count(hist), n);
    assert_int_equal(tc_hist_saturated(hist), 0);
    assert_int_equal(tc_hist_percentile(hist, 0.0), sorted[0]);
    assert_int_equal(tc_hist_percentile(hist, 100.0), sorted[n - 1]);

    for (i = 0; i < TEST_ARRAY_SIZE(test_pcts); ++i) {
        uint64_t got = tc_hist_percentile(hist, test_pcts[i].pct);

        snprintf(what, sizeof(what), "%s p%g", name, test_pcts[i].pct);
        test_assert_rel_err(what, got,
                            test_exact_percentile(sorted, n, test_pcts[i].ppm));
        /* Reported values are clamped into [min, max] (this makes the
         * constant distribution exact), and never go down as pct goes up. */
        assert_in_range(got, sorted[0], sorted[n - 1]);
        assert_true(got >= prev);
        prev = got;
    }

    tc_hist_summarize(hist, &summary);
    assert_int_equal(summary.count, n);
    assert_int_equal(summary.min, sorted[0]);
    assert_int_equal(summary.max, sorted[n - 1]);
    snprintf(what, sizeof(what), "%s summary p50", name);
    test_assert_rel_err(what, summary.p50, test_exact_percentile(sorted, n, 500000));
    snprintf(what, sizeof(what), "%s summary p90", name);
    test_assert_rel_err(what, summary.p90, test_exact_percentile(sorted, n, 900000));
    snprintf(what, sizeof(what), "%s summary p99", name);
    test_assert_rel_err(what, summary.p99, test_exact_percentile(sorted, n, 990000));
    snprintf(what, sizeof(what), "%s summary p99.9", name);
    test_assert_rel_err(what, summary.p999, test_exact_percentile(sorted, n, 999000));
    snprintf(what, sizeof(what), "%s summary p99.99", name);
    test_assert_rel_err(what, summary.p9999,
                        test_exact_percentile(sorted, n, 999900));
    /* The summary and the single lookups must agree exactly. */
    assert_int_equal(summary.p50, tc_hist_percentile(hist, 50.0));
    assert_int_equal(summary.p90, tc_hist_percentile(hist, 90.0));
    assert_int_equal(summary.p99, tc_hist_percentile(hist, 99.0));
    assert_int_equal(summary.p999, tc_hist_percentile(hist, 99.9));
    assert_int_equal(summary.p9999, tc_hist_percentile(hist, 99.99));
    test_assert_mean(summary.mean, samples, n);

    tc_hist_destroy(hist);
    free(sorted);
}

/* --------------------------------------------------------- the distributions */

typedef enum {
    DIST_UNIFORM,
    DIST_LONG_TAIL,
    DIST_BIMODAL,
    DIST_CONSTANT,
    DIST_LOG_UNIFORM,
    DIST_SMALL
} test_dist_t;

static uint64_t test_draw(test_dist_t dist, uint64_t *state)
{
    double x;

    switch (dist) {
    case DIST_UNIFORM:
        return 1000 + test_rand(state) % 1000000;
    case DIST_LONG_TAIL:
        /* 99% exponential around 2 us, 1% Pareto (alpha 1.5) from 10 us:
         * a latency-like body with a heavy tail. */
        if (test_rand(state) % 100 != 0) {
            x = 800.0 - 2000.0 * log(test_rand_unit(state));
        } else {
            x = 10000.0 / pow(test_rand_unit(state), 1.0 / 1.5);
        }
        return (x > 1e11) ? UINT64_C(100000000000) : (uint64_t)x;
    case DIST_BIMODAL:
        /* Two triangular humps, one 75x further out than the other. */
        x = (test_rand_unit(state) + test_rand_unit(state)) * 500.0;
        return (test_rand(state) & 1) ? (uint64_t)(1500.0 + x) :
                                        (uint64_t)(150000.0 + 100.0 * x);
    case DIST_CONSTANT:
        return 12345;
    case DIST_LOG_UNIFORM:
        /* Every power of two from 1 to 1e9 gets its share. */
        x = exp((1.0 - test_rand_unit(state)) * log(1e9));
        return (x < 1.0) ? 1 : (uint64_t)x;
    case DIST_SMALL:
        /* Straddles the end of the exact region (256). */
        return test_rand(state) % 300;
    }
    return 0;
}

static void test_check_dist(const char *name, test_dist_t dist)
{
    size_t n       = test_sample_count();
    uint64_t state = TEST_SEED ^ (uint64_t)dist;
    uint64_t *samples;
    size_t i;

    samples = malloc(n * sizeof(*samples));
    assert_non_null(samples);
    for (i = 0; i < n; ++i) {
        samples[i] = test_draw(dist, &state);
    }
    test_check_samples(name, samples, n);
    free(samples);
}

/* -------------------------------------------------------------------- tests */

static void test_create_invalid(void **state)
{
    tc_hist_t *hist = (tc_hist_t*)(uintptr_t)0x1; /* must stay untouched */

    (void)state;
    assert_int_equal(tc_hist_create(0, &hist), TC_ERR_INVALID_PARAM);
    assert_int_equal(tc_hist_create(1, &hist), TC_ERR_INVALID_PARAM);
    assert_true(hist == (tc_hist_t*)(uintptr_t)0x1);
    assert_int_equal(tc_hist_create(1000, NULL), TC_ERR_INVALID_PARAM);

    hist = NULL;
    assert_int_equal(tc_hist_create(2, &hist), TC_OK);
    assert_non_null(hist);
    tc_hist_destroy(hist);

    hist = NULL;
    assert_int_equal(tc_hist_create(UINT64_MAX, &hist), TC_OK);
    assert_non_null(hist);
    tc_hist_destroy(hist);

    tc_hist_destroy(NULL);
}

static void test_empty(void **state)
{
    tc_hist_t *hist = NULL;
    tc_hist_summary_t summary;

    (void)state;
    assert_int_equal(tc_hist_create(TEST_MAX_VALUE, &hist), TC_OK);
    assert_int_equal(tc_hist_count(hist), 0);
    assert_int_equal(tc_hist_saturated(hist), 0);
    assert_int_equal(tc_hist_percentile(hist, 0.0), 0);
    assert_int_equal(tc_hist_percentile(hist, 50.0), 0);
    assert_int_equal(tc_hist_percentile(hist, 100.0), 0);

    memset(&summary, 0xa5, sizeof(summary));
    tc_hist_summarize(hist, &summary);
    assert_int_equal(summary.count, 0);
    assert_int_equal(summary.min, 0);
    assert_int_equal(summary.p50, 0);
    assert_int_equal(summary.p9999, 0);
    assert_int_equal(summary.max, 0);
    assert_true(summary.mean == 0.0);

    /* Recording nothing keeps it empty (and min/max unset). */
    tc_hist_record_n(hist, 777, 0);
    assert_int_equal(tc_hist_count(hist), 0);
    tc_hist_record(hist, 5);
    assert_int_equal(tc_hist_percentile(hist, 0.0), 5);
    assert_int_equal(tc_hist_percentile(hist, 100.0), 5);
    tc_hist_destroy(hist);
}

/* Below 256 every value has its own bucket: percentiles are exact. */
static void test_exact_small(void **state)
{
    tc_hist_t *hist = NULL;
    tc_hist_summary_t summary;
    uint64_t *sorted;
    size_t n = 0;
    uint64_t v, k;
    size_t i;

    (void)state;
    /* Value v recorded v + 1 times, in a scrambled order. */
    sorted = malloc(256 * 257 / 2 * sizeof(*sorted));
    assert_non_null(sorted);
    assert_int_equal(tc_hist_create(TEST_MAX_VALUE, &hist), TC_OK);
    for (v = 0; v < 256; ++v) {
        uint64_t value = (v * 97) % 256;

        for (k = 0; k <= value; ++k) {
            tc_hist_record(hist, value);
            sorted[n++] = value;
        }
    }
    qsort(sorted, n, sizeof(*sorted), test_cmp_u64);

    for (i = 0; i < TEST_ARRAY_SIZE(test_pcts); ++i) {
        assert_int_equal(tc_hist_percentile(hist, test_pcts[i].pct),
                         test_exact_percentile(sorted, n, test_pcts[i].ppm));
    }
    /* Every rank, through pct = 100 * r / n (no float slack issues here:
     * the library must still land on rank r). */
    for (i = 1; i <= n; ++i) {
        double pct = 100.0 * (double)i / (double)n;

        assert_int_equal(tc_hist_percentile(hist, pct), sorted[i - 1]);
    }
    assert_int_equal(tc_hist_percentile(hist, 0.0), 0);
    assert_int_equal(tc_hist_percentile(hist, 100.0), 255);
    tc_hist_summarize(hist, &summary);
    assert_int_equal(summary.count, n);
    test_assert_mean(summary.mean, sorted, n);
    tc_hist_destroy(hist);
    free(sorted);
}

/* One value between two far-away ones: the reported p50 is that value's
 * bucket with no help from min/max clamping. Sweeps the bucket edges. */
static void test_bucket_edges(void **state)
{
    uint64_t rng = TEST_SEED;
    tc_hist_t *hist = NULL;
    char what[64];
    uint64_t values[8192];
    size_t n = 0;
    uint64_t v;
    unsigned k, j;
    size_t i;

    (void)state;
    for (v = 0; v <= 4096; ++v) {
        values[n++] = v;
    }
    for (k = 8; k < 64; ++k) {
        uint64_t base = UINT64_C(1) << k;
        uint64_t step = base >> 7;

        for (j = 0; j < 128; j += 31) {
            values[n++] = base + j * step - 1;
            values[n++] = base + j * step;
            values[n++] = base + j * step + step / 2;
        }
        values[n++] = base + 127 * step + (step - 1);
    }
    values[n++] = UINT64_MAX;
    while (n < TEST_ARRAY_SIZE(values)) {
        /* Random magnitude, then random bits below it. */
        values[n++] = test_rand(&rng) >> (test_rand(&rng) % 64);
    }

    assert_int_equal(tc_hist_create(UINT64_MAX, &hist), TC_OK);
    for (i = 0; i < n; ++i) {
        tc_hist_reset(hist);
        tc_hist_record(hist, 0);
        tc_hist_record(hist, values[i]);
        tc_hist_record(hist, UINT64_MAX);

        snprintf(what, sizeof(what), "bucket of %llu",
                 (unsigned long long)values[i]);
        if (values[i] < 256) {
            assert_int_equal(tc_hist_percentile(hist, 50.0), values[i]);
        } else {
            test_assert_rel_err(what, tc_hist_percentile(hist, 50.0), values[i]);
        }
    }
    tc_hist_destroy(hist);
}

/* 99.9% of 1000 is rank 999 exactly, although 99.9 is not a binary number. */
static void test_rank_rounding(void **state)
{
    tc_hist_t *hist = NULL;

    (void)state;
    assert_int_equal(tc_hist_create(TEST_MAX_VALUE, &hist), TC_OK);
    tc_hist_record_n(hist, 1, 999);
    tc_hist_record(hist, 200);
    assert_int_equal(tc_hist_percentile(hist, 99.9), 1);   /* rank 999 */
    assert_int_equal(tc_hist_percentile(hist, 99.91), 200); /* rank 1000 */
    assert_int_equal(tc_hist_percentile(hist, 0.1), 1);     /* rank 1 */

    tc_hist_reset(hist);
    tc_hist_record_n(hist, 1, 9999);
    tc_hist_record(hist, 200);
    assert_int_equal(tc_hist_percentile(hist, 99.99), 1);
    assert_int_equal(tc_hist_percentile(hist, 99.991), 200);

    tc_hist_reset(hist);
    tc_hist_record(hist, 10);
    tc_hist_record(hist, 20);
    assert_int_equal(tc_hist_percentile(hist, 50.0), 10); /* rank 1, not 2 */
    assert_int_equal(tc_hist_percentile(hist, 50.1), 20);
    assert_int_equal(tc_hist_percentile(hist, 1e-9), 10);  /* rank >= 1 */

    /* Out-of-range pct clamps to min and max. */
    assert_int_equal(tc_hist_percentile(hist, -5.0), 10);
    assert_int_equal(tc_hist_percentile(hist, 0.0), 10);
    assert_int_equal(tc_hist_percentile(hist, 100.0), 20);
    assert_int_equal(tc_hist_percentile(hist, 1000.0), 20);
    assert_int_equal(tc_hist_percentile(hist, NAN), 10);
    tc_hist_destroy(hist);
}

static void test_dist_uniform(void **state)
{
    (void)state;
    test_check_dist("uniform", DIST_UNIFORM);
}

static void test_dist_long_tail(void **state)
{
    (void)state;
    test_check_dist("long-tail", DIST_LONG_TAIL);
}

static void test_dist_bimodal(void **state)
{
    (void)state;
    test_check_dist("bimodal", DIST_BIMODAL);
}

static void test_dist_constant(void **state)
{
    (void)state;
    test_check_dist("constant", DIST_CONSTANT);
}

static void test_dist_log_uniform(void **state)
{
    (void)state;
    test_check_dist("1..1e9", DIST_LOG_UNIFORM);
}

static void test_dist_small(void **state)
{
    (void)state;
    test_check_dist("small", DIST_SMALL);
}

static void test_record_n(void **state)
{
    static const uint64_t values[] = {0, 1, 255, 256, 257, 1000, 123456789,
                                      TEST_MAX_VALUE, TEST_MAX_VALUE + 1};
    tc_hist_t *a = NULL, *b = NULL;
    uint64_t k;
    size_t i;

    (void)state;
    assert_int_equal(tc_hist_create(TEST_MAX_VALUE, &a), TC_OK);
    assert_int_equal(tc_hist_create(TEST_MAX_VALUE, &b), TC_OK);
    for (i = 0; i < TEST_ARRAY_SIZE(values); ++i) {
        tc_hist_record_n(a, values[i], i + 1);
        for (k = 0; k <= i; ++k) {
            tc_hist_record(b, values[i]);
        }
    }
    test_assert_hists_equal(a, b);
    assert_int_equal(tc_hist_saturated(a), TEST_ARRAY_SIZE(values));
    tc_hist_destroy(a);
    tc_hist_destroy(b);
}

/* The mean must not overflow: the sum here is far beyond 2^64. */
static void test_mean_no_overflow(void **state)
{
    tc_hist_t *hist = NULL;
    tc_hist_summary_t summary;

    (void)state;
    assert_int_equal(tc_hist_create(UINT64_MAX, &hist), TC_OK);
    tc_hist_record_n(hist, UINT64_MAX, 1000);
    tc_hist_record_n(hist, UINT64_MAX - 1000, 1000);
    tc_hist_summarize(hist, &summary);
    assert_int_equal(summary.min, UINT64_MAX - 1000);
    assert_int_equal(summary.max, UINT64_MAX);
    assert_true(fabs(summary.mean - 0x1.0p64) <= 0x1.0p64 * 1e-12);
    tc_hist_destroy(hist);
}

static void test_merge(void **state)
{
    size_t n       = test_sample_count();
    uint64_t rng   = TEST_SEED;
    tc_hist_t *all = NULL, *a = NULL, *b = NULL, *empty = NULL, *other = NULL;
    tc_hist_summary_t before, after;
    uint64_t v;
    size_t i;

    (void)state;
    assert_int_equal(tc_hist_create(TEST_MAX_VALUE, &all), TC_OK);
    assert_int_equal(tc_hist_create(TEST_MAX_VALUE, &a), TC_OK);
    assert_int_equal(tc_hist_create(TEST_MAX_VALUE, &b), TC_OK);
    assert_int_equal(tc_hist_create(TEST_MAX_VALUE, &empty), TC_OK);
    assert_int_equal(tc_hist_create(TEST_MAX_VALUE / 2, &other), TC_OK);

    /* Different shapes on each side, saturation on both. */
    for (i = 0; i < n; ++i) {
        if (i % 3 == 0) {
            v = test_draw(DIST_LONG_TAIL, &rng);
            tc_hist_record(a, v);
        } else {
            v = test_draw(DIST_LOG_UNIFORM, &rng);
            tc_hist_record(b, v);
        }
        tc_hist_record(all, v);
    }
    tc_hist_record(a, TEST_MAX_VALUE * 3);
    tc_hist_record(b, TEST_MAX_VALUE + 1);
    tc_hist_record(all, TEST_MAX_VALUE * 3);
    tc_hist_record(all, TEST_MAX_VALUE + 1);

    /* Merging an empty histogram changes nothing (min stays put). */
    tc_hist_summarize(a, &before);
    assert_int_equal(tc_hist_merge(a, empty), TC_OK);
    tc_hist_summarize(a, &after);
    test_assert_summary_equal(&before, &after);

    /* A layout mismatch is refused and leaves dst alone. */
    assert_int_equal(tc_hist_merge(a, other), TC_ERR_INVALID_PARAM);
    assert_int_equal(tc_hist_merge(other, a), TC_ERR_INVALID_PARAM);
    assert_int_equal(tc_hist_count(other), 0);
    tc_hist_summarize(a, &after);
    test_assert_summary_equal(&before, &after);
    assert_int_equal(tc_hist_merge(NULL, a), TC_ERR_INVALID_PARAM);
    assert_int_equal(tc_hist_merge(a, NULL), TC_ERR_INVALID_PARAM);

    assert_int_equal(tc_hist_merge(a, b), TC_OK);
    test_assert_hists_equal(a, all);
    assert_int_equal(tc_hist_saturated(a), 2);

    /* Into an empty one: a copy. */
    assert_int_equal(tc_hist_merge(empty, all), TC_OK);
    test_assert_hists_equal(empty, all);

    tc_hist_destroy(all);
    tc_hist_destroy(a);
    tc_hist_destroy(b);
    tc_hist_destroy(empty);
    tc_hist_destroy(other);
}

static void test_saturation(void **state)
{
    tc_hist_t *hist = NULL;
    tc_hist_summary_t summary;

    (void)state;
    assert_int_equal(tc_hist_create(1000, &hist), TC_OK);
    tc_hist_record(hist, 500);
    tc_hist_record(hist, 1000);              /* == max_value: not saturated */
    assert_int_equal(tc_hist_saturated(hist), 0);
    tc_hist_record(hist, 1001);
    tc_hist_record(hist, UINT64_C(1000000000000000000));
    tc_hist_record(hist, UINT64_MAX);
    tc_hist_record_n(hist, 5000, 10);
    assert_int_equal(tc_hist_saturated(hist), 13);
    assert_int_equal(tc_hist_count(hist), 15);

    tc_hist_summarize(hist, &summary);
    assert_int_equal(summary.min, 500);
    assert_int_equal(summary.max, 1000);
    assert_int_equal(summary.p50, 1000);
    assert_int_equal(summary.p9999, 1000);
    assert_int_equal(tc_hist_percentile(hist, 100.0), 1000);
    /* 500 shares a 2-wide bucket with 501: only the 1/128 bound holds. */
    test_assert_rel_err("saturation p1", tc_hist_percentile(hist, 1.0), 500);
    /* Clamped values count as max_value in the mean. */
    assert_true(fabs(summary.mean - (500.0 + 14 * 1000.0) / 15.0) < 1e-9);
    tc_hist_destroy(hist);

    /* The smallest histogram allowed. */
    assert_int_equal(tc_hist_create(2, &hist), TC_OK);
    tc_hist_record(hist, 0);
    tc_hist_record(hist, 1);
    tc_hist_record(hist, 2);
    tc_hist_record(hist, 3);
    assert_int_equal(tc_hist_saturated(hist), 1);
    assert_int_equal(tc_hist_percentile(hist, 25.0), 0);
    assert_int_equal(tc_hist_percentile(hist, 50.0), 1);
    assert_int_equal(tc_hist_percentile(hist, 75.0), 2);
    assert_int_equal(tc_hist_percentile(hist, 100.0), 2);
    tc_hist_destroy(hist);
}

static void test_reset(void **state)
{
    tc_hist_t *hist = NULL;
    tc_hist_summary_t summary;

    (void)state;
    assert_int_equal(tc_hist_create(1000000, &hist), TC_OK);
    tc_hist_record(hist, 3);
    tc_hist_record(hist, 50000);
    tc_hist_record(hist, 5000000); /* saturated */
    tc_hist_reset(hist);

    assert_int_equal(tc_hist_count(hist), 0);
    assert_int_equal(tc_hist_saturated(hist), 0);
    assert_int_equal(tc_hist_percentile(hist, 50.0), 0);
    tc_hist_summarize(hist, &summary);
    assert_int_equal(summary.count, 0);
    assert_int_equal(summary.max, 0);
    assert_true(summary.mean == 0.0);

    /* Nothing from before the reset may leak into min, max, mean or buckets. */
    tc_hist_record(hist, 700);
    tc_hist_record(hist, 900);
    tc_hist_summarize(hist, &summary);
    assert_int_equal(summary.count, 2);
    assert_int_equal(summary.min, 700);
    assert_int_equal(summary.max, 900);
    test_assert_rel_err("reset p50", summary.p50, 700);
    assert_true(summary.mean == 800.0);
    assert_int_equal(tc_hist_percentile(hist, 99.0), 900);
    tc_hist_destroy(hist);
}

/* Values measured in steps of a quantum (a clock's resolution): a latency
 * of 53 between the steps 50 and 60 reads 50 seven times in ten and 60
 * three times in ten; percentiles spread each step's samples over it. */
static void test_quantum(void **state)
{
    tc_hist_summary_t summary;
    tc_hist_t *hist;

    (void)state;
    assert_int_equal(tc_hist_create(1000000, &hist), TC_OK);
    tc_hist_record_n(hist, 50, 700);
    tc_hist_record_n(hist, 60, 300);
    tc_hist_summarize(hist, &summary);
    assert_true(summary.p50 == 50.0); /* no quantum: the step's value */
    assert_true(summary.p90 == 60.0);

    tc_hist_set_quantum(hist, 10.0);
    tc_hist_summarize(hist, &summary);
    /* rank 500 of the 700 at 50: (500 - 1/2) / 700 of [45, 55) */
    assert_true(fabs(summary.p50 - (45.0 + 10.0 * 499.5 / 700.0)) < 1e-9);
    /* rank 900: the 200th of the 300 at 60 would spread to 61.65, past
     * the largest value measured: kept at max */
    assert_true(summary.p90 == 60.0);
    assert_int_equal(tc_hist_percentile(hist, 50.0), 52); /* rounded */
    assert_int_equal(summary.min, 50); /* min, max and mean stay exact */
    assert_int_equal(summary.max, 60);
    assert_true(summary.mean == 53.0);

    /* a middle step: rank 500 is the 200th of the 400 at 60 */
    tc_hist_reset(hist);
    tc_hist_record_n(hist, 50, 300);
    tc_hist_record_n(hist, 60, 400);
    tc_hist_record_n(hist, 70, 300);
    tc_hist_summarize(hist, &summary);
    assert_true(fabs(summary.p50 - (55.0 + 10.0 * 199.5 / 400.0)) < 1e-9);

    /* one constant step stays itself: never below min nor above max */
    tc_hist_reset(hist);
    tc_hist_record_n(hist, 50, 1000);
    tc_hist_summarize(hist, &summary);
    assert_true(summary.p50 == 50.0 && summary.p9999 == 50.0);

    /* a quantum narrower than the bucket (512 wide at 100000) changes nothing */
    tc_hist_reset(hist);
    tc_hist_record_n(hist, 100000, 10);
    tc_hist_record_n(hist, 100700, 10);
    tc_hist_summarize(hist, &summary);
    assert_true(summary.p50 == (double)tc_hist_percentile(hist, 50.0));
    tc_hist_set_quantum(hist, 0.0);
    assert_true(summary.p50 == (double)tc_hist_percentile(hist, 50.0));
    tc_hist_destroy(hist);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_invalid),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_exact_small),
        cmocka_unit_test(test_bucket_edges),
        cmocka_unit_test(test_rank_rounding),
        cmocka_unit_test(test_dist_uniform),
        cmocka_unit_test(test_dist_long_tail),
        cmocka_unit_test(test_dist_bimodal),
        cmocka_unit_test(test_dist_constant),
        cmocka_unit_test(test_dist_log_uniform),
        cmocka_unit_test(test_dist_small),
        cmocka_unit_test(test_record_n),
        cmocka_unit_test(test_mean_no_overflow),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_saturation),
        cmocka_unit_test(test_reset),
        cmocka_unit_test(test_quantum),
    };

    return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
