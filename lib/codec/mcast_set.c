/*
 * Multicast target set and partition. Pure: no UCX, no runtime state.
 *
 * The set is an array of sorted, disjoint, non-adjacent runs plus a cached
 * node count. Every mutator first makes sure it has the memory it needs, so
 * a failed call leaves the set as it was.
 */
#include "mcast.h"

#include <stdlib.h>
#include <string.h>

#define TC_MCAST_SET_MIN_CAP 4u

struct tc_mcast_set {
    uint32_t        num_nodes;
    uint64_t        count;   /* nodes in all runs, kept so count is O(1) */
    size_t          n_runs;
    size_t          cap;
    tc_mcast_run_t *runs;
};

/* -------------------------------------------------------------- internals */

static tc_status_t tc_mcast_set_reserve(tc_mcast_set_t *set, size_t n_runs)
{
    tc_mcast_run_t *runs;
    size_t cap;

    if (n_runs <= set->cap) {
        return TC_OK;
    }

    cap = (set->cap < TC_MCAST_SET_MIN_CAP) ? TC_MCAST_SET_MIN_CAP : set->cap;
    while (cap < n_runs) {
        if (cap > (SIZE_MAX / sizeof(*runs)) / 2) {
            return TC_ERR_NO_MEMORY;
        }
        cap *= 2;
    }

    runs = realloc(set->runs, cap * sizeof(*runs));
    if (runs == NULL) {
        return TC_ERR_NO_MEMORY;
    }

    set->runs = runs;
    set->cap  = cap;
    return TC_OK;
}

/* Index of the first run whose end is >= node: the run that holds node,
 * touches it from the left, or lies after it. */
static size_t tc_mcast_set_lower(const tc_mcast_set_t *set, uint64_t node)
{
    size_t lo = 0, hi = set->n_runs, mid;

    while (lo < hi) {
        mid = lo + (hi - lo) / 2;
        if (set->runs[mid].end < node) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* Index of the first run whose start is > node. */
static size_t tc_mcast_set_upper(const tc_mcast_set_t *set, uint64_t node)
{
    size_t lo = 0, hi = set->n_runs, mid;

    while (lo < hi) {
        mid = lo + (hi - lo) / 2;
        if (set->runs[mid].start <= node) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* ------------------------------------------------------------- public API */

tc_status_t tc_mcast_set_create(uint32_t num_nodes, tc_mcast_set_t **set_p)
{
    tc_mcast_set_t *set;

    if ((num_nodes == 0) || (set_p == NULL)) {
        return TC_ERR_INVALID_PARAM;
    }

    set = calloc(1, sizeof(*set));
    if (set == NULL) {
        return TC_ERR_NO_MEMORY;
    }

    set->num_nodes = num_nodes;
    *set_p         = set;
    return TC_OK;
}

void tc_mcast_set_destroy(tc_mcast_set_t *set)
{
    if (set == NULL) {
        return;
    }
    free(set->runs);
    free(set);
}

tc_status_t tc_mcast_set_dup(const tc_mcast_set_t *set, tc_mcast_set_t **copy_p)
{
    tc_mcast_set_t *copy;
    tc_status_t status;

    status = tc_mcast_set_create(set->num_nodes, &copy);
    if (status != TC_OK) {
        return status;
    }

    status = tc_mcast_set_reserve(copy, set->n_runs);
    if (status != TC_OK) {
        goto err_destroy;
    }

    if (set->n_runs > 0) {
        memcpy(copy->runs, set->runs, set->n_runs * sizeof(*set->runs));
    }
    copy->n_runs = set->n_runs;
    copy->count  = set->count;
    *copy_p      = copy;
    return TC_OK;

err_destroy:
    tc_mcast_set_destroy(copy);
    return status;
}

uint32_t tc_mcast_set_num_nodes(const tc_mcast_set_t *set)
{
    return set->num_nodes;
}

tc_status_t tc_mcast_set_add_range(tc_mcast_set_t *set, uint32_t start,
                                   uint32_t end)
{
    tc_mcast_run_t *last, merged;
    size_t lo, hi;
    uint64_t removed;
    tc_status_t status;

    if ((start > end) || (end > set->num_nodes)) {
        return (start > end) ? TC_ERR_INVALID_PARAM : TC_ERR_OUT_OF_RANGE;
    }
    if (start == end) {
        return TC_OK;
    }

    /* Fast path: at or after the last run (decoder, partition, in-order
     * builders) */
    last = (set->n_runs > 0) ? &set->runs[set->n_runs - 1] : NULL;
    if ((last == NULL) || (start > last->end)) {
        status = tc_mcast_set_reserve(set, set->n_runs + 1);
        if (status != TC_OK) {
            return status;
        }
        set->runs[set->n_runs].start = start;
        set->runs[set->n_runs].end   = end;
        set->n_runs++;
        set->count += end - start;
        return TC_OK;
    }
    if ((start >= last->start) && (end >= last->end)) {
        set->count += end - last->end;
        last->end   = end;
        return TC_OK;
    }

    /* General case: runs [lo, hi) overlap or touch [start, end) */
    lo = tc_mcast_set_lower(set, start);
    hi = tc_mcast_set_upper(set, end);
    if (lo == hi) {
        status = tc_mcast_set_reserve(set, set->n_runs + 1);
        if (status != TC_OK) {
            return status;
        }
        memmove(&set->runs[lo + 1], &set->runs[lo],
                (set->n_runs - lo) * sizeof(*set->runs));
        set->runs[lo].start = start;
        set->runs[lo].end   = end;
        set->n_runs++;
        set->count += end - start;
        return TC_OK;
    }

    merged.start = (start < set->runs[lo].start) ? start : set->runs[lo].start;
    merged.end   = (end > set->runs[hi - 1].end) ? end : set->runs[hi - 1].end;
    removed      = 0;
    for (size_t i = lo; i < hi; ++i) {
        removed += set->runs[i].end - set->runs[i].start;
    }

    set->runs[lo] = merged;
    memmove(&set->runs[lo + 1], &set->runs[hi],
            (set->n_runs - hi) * sizeof(*set->runs));
    set->n_runs -= hi - lo - 1;
    set->count   = set->count - removed + (merged.end - merged.start);
    return TC_OK;
}

tc_status_t tc_mcast_set_add(tc_mcast_set_t *set, uint32_t node)
{
    if (node >= set->num_nodes) {
        return TC_ERR_OUT_OF_RANGE;
    }
    return tc_mcast_set_add_range(set, node, node + 1);
}

tc_status_t tc_mcast_set_remove(tc_mcast_set_t *set, uint32_t node)
{
    tc_mcast_run_t *run;
    size_t i;
    tc_status_t status;

    if (node >= set->num_nodes) {
        return TC_ERR_OUT_OF_RANGE;
    }

    /* first run with end > node */
    i = tc_mcast_set_lower(set, (uint64_t)node + 1);
    if ((i == set->n_runs) || (set->runs[i].start > node)) {
        return TC_OK;
    }

    run = &set->runs[i];
    if ((run->start == node) && (run->end == node + 1)) {
        memmove(run, run + 1, (set->n_runs - i - 1) * sizeof(*run));
        set->n_runs--;
    } else if (run->start == node) {
        run->start++;
    } else if (run->end == node + 1) {
        run->end--;
    } else {
        status = tc_mcast_set_reserve(set, set->n_runs + 1);
        if (status != TC_OK) {
            return status;
        }
        run = &set->runs[i]; /* reserve may have moved the array */
        memmove(run + 1, run, (set->n_runs - i) * sizeof(*run));
        run[0].end   = node;
        run[1].start = node + 1;
        set->n_runs++;
    }

    set->count--;
    return TC_OK;
}

void tc_mcast_set_clear(tc_mcast_set_t *set)
{
    /* keep the array: a cleared set is usually refilled (decoder) */
    set->n_runs = 0;
    set->count  = 0;
}

int tc_mcast_set_contains(const tc_mcast_set_t *set, uint32_t node)
{
    size_t i = tc_mcast_set_lower(set, (uint64_t)node + 1);

    return (i < set->n_runs) && (set->runs[i].start <= node);
}

uint64_t tc_mcast_set_count(const tc_mcast_set_t *set)
{
    return set->count;
}

size_t tc_mcast_set_run_count(const tc_mcast_set_t *set)
{
    return set->n_runs;
}

const tc_mcast_run_t *tc_mcast_set_runs(const tc_mcast_set_t *set,
                                        size_t *n_runs_p)
{
    *n_runs_p = set->n_runs;
    return set->runs;
}

tc_status_t tc_mcast_set_first(const tc_mcast_set_t *set, uint32_t *node_p)
{
    if (set->n_runs == 0) {
        return TC_ERR_NOT_FOUND;
    }
    *node_p = set->runs[0].start;
    return TC_OK;
}

int tc_mcast_set_equal(const tc_mcast_set_t *a, const tc_mcast_set_t *b)
{
    /* runs are canonical, so equal sets have identical arrays */
    return (a->num_nodes == b->num_nodes) && (a->count == b->count) &&
           (a->n_runs == b->n_runs) &&
           ((a->n_runs == 0) ||
            (memcmp(a->runs, b->runs, a->n_runs * sizeof(*a->runs)) == 0));
}

/* -------------------------------------------------------------- partition */

void tc_mcast_slices_free(tc_mcast_slice_t *slices, uint32_t n_slices)
{
    if (slices == NULL) {
        return;
    }
    for (uint32_t i = 0; i < n_slices; ++i) {
        tc_mcast_set_destroy(slices[i].set);
    }
    free(slices);
}

tc_status_t tc_mcast_partition(const tc_mcast_set_t *set, uint32_t radix,
                               tc_mcast_slice_t **slices_p,
                               uint32_t *n_slices_p)
{
    tc_mcast_slice_t *slices;
    uint64_t base, extra, need, take, pos;
    uint32_t k, i;
    size_t ri;
    tc_status_t status;

    if (radix == 0) {
        return TC_ERR_INVALID_PARAM;
    }

    k = (set->count < radix) ? (uint32_t)set->count : radix;
    if (k == 0) {
        *slices_p   = NULL;
        *n_slices_p = 0;
        return TC_OK;
    }

    slices = calloc(k, sizeof(*slices));
    if (slices == NULL) {
        return TC_ERR_NO_MEMORY;
    }

    base  = set->count / k;
    extra = set->count % k;
    ri    = 0;
    pos   = set->runs[0].start;
    for (i = 0; i < k; ++i) {
        status = tc_mcast_set_create(set->num_nodes, &slices[i].set);
        if (status != TC_OK) {
            goto err_free;
        }

        need            = base + ((i < extra) ? 1 : 0);
        slices[i].relay = (uint32_t)pos;
        slices[i].count = need;
        /* take whole runs or cut one: each step appends one run */
        while (need > 0) {
            take = set->runs[ri].end - pos;
            if (take > need) {
                take = need;
            }
            status = tc_mcast_set_add_range(slices[i].set, (uint32_t)pos,
                                            (uint32_t)(pos + take));
            if (status != TC_OK) {
                goto err_free;
            }
            pos  += take;
            need -= take;
            if ((pos == set->runs[ri].end) && (++ri < set->n_runs)) {
                pos = set->runs[ri].start;
            }
        }
    }

    *slices_p   = slices;
    *n_slices_p = k;
    return TC_OK;

err_free:
    tc_mcast_slices_free(slices, k); /* calloc'd: unmade sets are NULL */
    return status;
}

tc_status_t tc_mcast_forward_plan(const tc_mcast_set_t *set, uint32_t self,
                                  uint32_t radix, unsigned flags,
                                  tc_mcast_slice_t **slices_p,
                                  uint32_t *n_slices_p)
{
    tc_mcast_set_t *rest;
    tc_status_t status;

    if (radix == 0) {
        return TC_ERR_INVALID_PARAM;
    }
    if ((flags & TC_MCAST_SELF_REQUIRED) && !tc_mcast_set_contains(set, self)) {
        return TC_ERR_PROTOCOL;
    }

    /* a copy keeps set const; it costs O(runs), as the partition does */
    status = tc_mcast_set_dup(set, &rest);
    if (status != TC_OK) {
        return status;
    }

    if (self < rest->num_nodes) {
        status = tc_mcast_set_remove(rest, self);
        if (status != TC_OK) {
            goto out;
        }
    }

    status = tc_mcast_partition(rest, radix, slices_p, n_slices_p);

out:
    tc_mcast_set_destroy(rest);
    return status;
}
