/*
 * Log-linear histogram (pure: no UCX; HdrHistogram_c's shape: a small module
 * with its own header). Values are unsigned integers (the harness records
 * nanoseconds). A reported percentile is its bucket's midpoint: relative
 * error at most 1/256 (< 0.4%), none below 256; min and max are exact.
 * Layout and error bound: hist.c.
 */
#ifndef TC_HIST_H
#define TC_HIST_H

#include "twochains.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tc_hist tc_hist_t;

typedef struct tc_hist_summary {
    uint64_t count;
    uint64_t min, max;                /* exact */
    double   p50, p90, p99, p999, p9999; /* see tc_hist_set_quantum */
    double   mean;
} tc_hist_summary_t;

tc_status_t tc_hist_create(uint64_t max_value, tc_hist_t **hist_p);
void        tc_hist_destroy(tc_hist_t *hist);
void        tc_hist_reset(tc_hist_t *hist);
/* The values were measured in steps of quantum (a clock's resolution, in
 * the values' unit): percentiles spread each step's samples evenly over it
 * where it is wider than the histogram's bucket (the median of grouped
 * data), so that they move by less than a step. 0 (the default): none. */
void        tc_hist_set_quantum(tc_hist_t *hist, double quantum);
/* Values above max_value are clamped to it and counted as saturated. */
void        tc_hist_record(tc_hist_t *hist, uint64_t value);
void        tc_hist_record_n(tc_hist_t *hist, uint64_t value, uint64_t n);
tc_status_t tc_hist_merge(tc_hist_t *dst, const tc_hist_t *src);
uint64_t    tc_hist_count(const tc_hist_t *hist);
uint64_t    tc_hist_saturated(const tc_hist_t *hist);
/* Nearest-rank percentile, pct in [0, 100], rounded; 0 when empty. */
uint64_t    tc_hist_percentile(const tc_hist_t *hist, double pct);
void        tc_hist_summarize(const tc_hist_t *hist, tc_hist_summary_t *summary_p);

#ifdef __cplusplus
}
#endif
#endif
