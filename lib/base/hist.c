/*
 * Log-linear latency histogram (HdrHistogram-like, no UCX).
 *
 * Bucket layout, with S = TC_HIST_SUB_BITS = 7 (128 sub-buckets):
 *   - values below 2^(S+1) = 256 each have their own counter (index = value);
 *   - every range [2^k, 2^(k+1)), k >= 8, is split into 2^S equal buckets of
 *     width 2^(k-S).
 * Both cases collapse into one branch-free formula. Let
 *   shift = (bit length of (value | 255)) - (S + 1),
 * i.e. 0 below 256 and k - S above; then value >> shift lies in [128, 256)
 * (or [0, 256) when shift is 0) and
 *   index = (shift << S) + (value >> shift)
 * is contiguous over all uint64 values: the top of range k (index
 * (shift << S) + 255) is followed by the bottom of range k + 1
 * ((shift + 1) << S) + 128). UINT64_MAX maps to 56 * 128 + 255 = 7423.
 *
 * A bucket of width w = 2^shift starts at (128 + sub) * w >= 128 * w, so its
 * midpoint is within w / 2 of any value in it: relative error <= 1/256
 * (tests/test_hist.c checks that bound).
 */
#include "hist.h"
#include "log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TC_HIST_SUB_BITS    7
#define TC_HIST_SUB_COUNT   (1u << TC_HIST_SUB_BITS)
/* Values below this are counted exactly: index == value. */
#define TC_HIST_EXACT_LIMIT (2u * TC_HIST_SUB_COUNT)

/* 128-bit so that the sum of any realistic number of uint64 values is exact;
 * __extension__ keeps -pedantic builds quiet. */
__extension__ typedef unsigned __int128 tc_hist_u128_t;

struct tc_hist {
    uint64_t       max_value;   /* larger values are clamped to this */
    uint64_t       count;       /* all recorded values, saturated included */
    uint64_t       saturated;   /* values that were above max_value */
    uint64_t       min;         /* UINT64_MAX while empty */
    uint64_t       max;         /* 0 while empty */
    tc_hist_u128_t sum;         /* of recorded (clamped) values, for mean */
    double         quantum;     /* the values' measuring step (0: none); tc_hist_set_quantum */
    size_t         num_buckets; /* bucket_index(max_value) + 1 */
    uint64_t       counts[];    /* one allocation: fewer cache misses */
};

static inline unsigned tc_hist_bucket_shift(uint64_t value)
{
    /* OR-ing in 255 keeps clzll's argument non-zero and pins shift at 0 for
     * the exact region, so no branch is needed. */
    return (unsigned)(64 - TC_HIST_SUB_BITS - 1) -
           (unsigned)__builtin_clzll(value | (TC_HIST_EXACT_LIMIT - 1));
}

static inline size_t tc_hist_bucket_index(uint64_t value)
{
    unsigned shift = tc_hist_bucket_shift(value);

    return ((size_t)shift << TC_HIST_SUB_BITS) + (size_t)(value >> shift);
}

/* The value reported for a bucket: its midpoint (the value itself for the
 * exact buckets). Never overflows: the last bucket ends at UINT64_MAX. */
static uint64_t tc_hist_bucket_value(size_t index)
{
    unsigned shift;
    uint64_t lowest;

    if (index < TC_HIST_EXACT_LIMIT) {
        return index;
    }

    shift  = (unsigned)(index >> TC_HIST_SUB_BITS) - 1;
    lowest = (uint64_t)(index - ((size_t)shift << TC_HIST_SUB_BITS)) << shift;
    return lowest + ((UINT64_C(1) << shift) >> 1);
}

/* The width of a bucket: 1 in the exact region, else 2^shift. */
static uint64_t tc_hist_bucket_width(size_t index)
{
    if (index < TC_HIST_EXACT_LIMIT) {
        return 1;
    }
    return UINT64_C(1) << ((unsigned)(index >> TC_HIST_SUB_BITS) - 1);
}

static void tc_hist_clear(tc_hist_t *hist)
{
    memset(hist->counts, 0, hist->num_buckets * sizeof(hist->counts[0]));
    hist->count     = 0;
    hist->saturated = 0;
    hist->min       = UINT64_MAX;
    hist->max       = 0;
    hist->sum       = 0;
}

tc_status_t tc_hist_create(uint64_t max_value, tc_hist_t **hist_p)
{
    tc_hist_t *hist;
    size_t num_buckets;

    if (hist_p == NULL) {
        tc_error("%s: hist_p is NULL", __func__);
        return TC_ERR_INVALID_PARAM;
    }

    /* Below 2 there is nothing to distribute: a caller bug, not a choice. */
    if (max_value < 2) {
        tc_error("tc_hist_create: max_value %llu is below 2",
                 (unsigned long long)max_value);
        return TC_ERR_INVALID_PARAM;
    }

    /* At most 7424 buckets (58 KiB), so no overflow in the size. */
    num_buckets = tc_hist_bucket_index(max_value) + 1;
    hist        = malloc(sizeof(*hist) + num_buckets * sizeof(hist->counts[0]));
    if (hist == NULL) {
        tc_error("tc_hist_create: cannot allocate %zu buckets", num_buckets);
        return TC_ERR_NO_MEMORY;
    }

    hist->max_value   = max_value;
    hist->num_buckets = num_buckets;
    hist->quantum     = 0.0;
    tc_hist_clear(hist);

    *hist_p = hist;
    return TC_OK;
}

void tc_hist_destroy(tc_hist_t *hist)
{
    free(hist);
}

void tc_hist_reset(tc_hist_t *hist)
{
    tc_hist_clear(hist);
}

void tc_hist_set_quantum(tc_hist_t *hist, double quantum)
{
    hist->quantum = (quantum > 0.0) ? quantum : 0.0;
}

void tc_hist_record(tc_hist_t *hist, uint64_t value)
{
    if (TC_UNLIKELY(value > hist->max_value)) {
        value = hist->max_value;
        ++hist->saturated;
    }

    ++hist->counts[tc_hist_bucket_index(value)];
    ++hist->count;
    hist->sum += value;
    /* Written as selects so the compiler can use cmov instead of branches
     * that mispredict on noisy latencies. */
    hist->min = (value < hist->min) ? value : hist->min;
    hist->max = (value > hist->max) ? value : hist->max;
}

void tc_hist_record_n(tc_hist_t *hist, uint64_t value, uint64_t n)
{
    /* Recording nothing must not move min/max. */
    if (n == 0) {
        return;
    }

    if (value > hist->max_value) {
        value            = hist->max_value;
        hist->saturated += n;
    }

    hist->counts[tc_hist_bucket_index(value)] += n;
    hist->count += n;
    hist->sum   += (tc_hist_u128_t)value * n;
    hist->min    = (value < hist->min) ? value : hist->min;
    hist->max    = (value > hist->max) ? value : hist->max;
}

tc_status_t tc_hist_merge(tc_hist_t *dst, const tc_hist_t *src)
{
    size_t i;

    if ((dst == NULL) || (src == NULL)) {
        tc_error("%s: NULL histogram", __func__);
        return TC_ERR_INVALID_PARAM;
    }

    /* Same max_value means the same bucket layout and the same clamping, so
     * the merge is exactly what recording everything into one would give. */
    if (dst->max_value != src->max_value) {
        tc_error("tc_hist_merge: max_value differs (%llu vs %llu)",
                 (unsigned long long)dst->max_value,
                 (unsigned long long)src->max_value);
        return TC_ERR_INVALID_PARAM;
    }

    for (i = 0; i < dst->num_buckets; ++i) {
        dst->counts[i] += src->counts[i];
    }

    dst->count     += src->count;
    dst->saturated += src->saturated;
    dst->sum       += src->sum;
    /* An empty src has min = UINT64_MAX, max = 0: neutral here. */
    dst->min = (src->min < dst->min) ? src->min : dst->min;
    dst->max = (src->max > dst->max) ? src->max : dst->max;
    return TC_OK;
}

uint64_t tc_hist_count(const tc_hist_t *hist)
{
    return hist->count;
}

uint64_t tc_hist_saturated(const tc_hist_t *hist)
{
    return hist->saturated;
}

/* Nearest rank of pct (0 < pct < 100) among count values, in [1, count]. */
static uint64_t tc_hist_rank(uint64_t count, double pct)
{
    long double exact = (long double)pct * (long double)count / 100.0L;
    long double rank;

    /* pct is usually a decimal such as 99.9 that binary cannot hold exactly
     * (99.9 is stored as 99.900000000000006): taken literally, 99.9% of 1000
     * would be 999.0000000000001 and ceil would give 1000. Forgive a relative
     * excess of 1e-15: about 9x a double's representation error, and under
     * one rank for any count below 10^15. */
    rank = ceill(exact - exact * 1e-15L);
    if (rank < 1.0L) {
        return 1;
    }
    if (rank >= (long double)count) {
        return count;
    }
    return (uint64_t)rank;
}

/*
 * Resolve n ascending ranks in one walk over the buckets (summaries ask for
 * five at once). Each result is its bucket's value clamped into [min, max]:
 * clamping only moves it closer to the truth, and it makes single-valued and
 * saturated histograms exact.
 *
 * Where the values were measured in steps (quantum) wider than the bucket,
 * every value in a step stands for the whole step: a bucket's c samples are
 * spread evenly over [value - quantum/2, value + quantum/2] and rank k of
 * them (1-based) sits at the middle of its share, (k - 1/2) / c of the way
 * (the median of grouped data). A constant latency between two steps then
 * reads between them, as the split of its samples over the two says,
 * where the plain value jumps a whole step (a counter that moves many ticks
 * at a time makes a small latency jump by a large fraction).
 */
static void tc_hist_values_at_ranks(const tc_hist_t *hist, const uint64_t *ranks,
                                    uint64_t *values, double *spread, size_t n)
{
    uint64_t seen = 0, value;
    size_t bucket = 0;
    double q      = hist->quantum;
    size_t i;

    for (i = 0; i < n; ++i) {
        while ((seen + hist->counts[bucket]) < ranks[i]) {
            seen += hist->counts[bucket];
            ++bucket;
        }

        value     = tc_hist_bucket_value(bucket);
        value     = (value < hist->min) ? hist->min : value;
        values[i] = (value > hist->max) ? hist->max : value;
        spread[i] = 0.0;
        if (q > (double)tc_hist_bucket_width(bucket)) {
            spread[i] = q * (((double)(ranks[i] - seen) - 0.5) / (double)hist->counts[bucket] -
                             0.5);
            /* kept within [min, max] as the plain value is: percentiles stay
             * ordered with them (a step's value never spreads below the
             * smallest one measured); the small values this applies to are
             * exact in a double */
            if ((double)values[i] + spread[i] < (double)hist->min) {
                spread[i] = (double)hist->min - (double)values[i];
            }
            if ((double)values[i] + spread[i] > (double)hist->max) {
                spread[i] = (double)hist->max - (double)values[i];
            }
        }
    }
}

uint64_t tc_hist_percentile(const tc_hist_t *hist, double pct)
{
    uint64_t rank, value;
    double spread;

    if (hist->count == 0) {
        return 0;
    }

    /* !(pct > 0) also catches NaN, which would otherwise reach a float to
     * integer conversion with undefined behaviour. */
    if (!(pct > 0.0)) {
        return hist->min;
    }

    if (pct >= 100.0) {
        return hist->max;
    }

    rank = tc_hist_rank(hist->count, pct);
    tc_hist_values_at_ranks(hist, &rank, &value, &spread, 1);
    /* spread only where a quantum is wider than the bucket: a small value,
     * exact in a double, and kept within [min, max] */
    return (spread == 0.0) ? value : (uint64_t)llround((double)value + spread);
}

void tc_hist_summarize(const tc_hist_t *hist, tc_hist_summary_t *summary_p)
{
    static const double pcts[] = {50.0, 90.0, 99.0, 99.9, 99.99};
    uint64_t ranks[TC_ARRAY_SIZE(pcts)];
    uint64_t values[TC_ARRAY_SIZE(pcts)];
    double   spread[TC_ARRAY_SIZE(pcts)];
    size_t i;

    memset(summary_p, 0, sizeof(*summary_p));
    if (hist->count == 0) {
        return;
    }

    for (i = 0; i < TC_ARRAY_SIZE(pcts); ++i) {
        ranks[i] = tc_hist_rank(hist->count, pcts[i]);
    }
    tc_hist_values_at_ranks(hist, ranks, values, spread, TC_ARRAY_SIZE(pcts));

    summary_p->count = hist->count;
    summary_p->min   = hist->min;
    summary_p->p50   = (double)values[0] + spread[0];
    summary_p->p90   = (double)values[1] + spread[1];
    summary_p->p99   = (double)values[2] + spread[2];
    summary_p->p999  = (double)values[3] + spread[3];
    summary_p->p9999 = (double)values[4] + spread[4];
    summary_p->max   = hist->max;
    /* long double keeps the 128-bit sum's precision through the division. */
    summary_p->mean  = (double)((long double)hist->sum / (long double)hist->count);
}
