/*
 * tc-mcast --simulate and --shapes: the real plan and codec in one process
 * (bench/harness/mcast_sim.c), tree against naive, and what the PR's test shapes
 * cost on the wire.
 */
#include "mcast.h"
#include "harness/mcast_sim.h"
#include "log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t mcast_rand(uint64_t *s)
{
    /* splitmix64: fixed seed, so every run models the same sets */
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* The target set of --shape over n nodes (the origin, node 0, is removed
 * by the plan where the shape holds it). */
static tc_status_t mcast_shape_set(const char *shape, uint32_t n, tc_mcast_set_t **set_p)
{
    tc_mcast_set_t *set;
    tc_status_t status;
    uint64_t rng = 0x5eed;
    uint32_t i;

    status = tc_mcast_set_create(n, &set);
    if (status != TC_OK) {
        return status;
    }
    if (!strcmp(shape, "all")) {
        status = tc_mcast_set_add_range(set, 0, n);
    } else if (!strcmp(shape, "every100")) {
        for (i = 0; (i < n) && (status == TC_OK); i += 100) {
            status = tc_mcast_set_add(set, i);
        }
    } else if (!strcmp(shape, "dense")) {
        for (i = 0; (i < n) && (status == TC_OK); ++i) {
            if (mcast_rand(&rng) % 10 != 0) {
                status = tc_mcast_set_add_range(set, i, i + 1);
            }
        }
    } else { /* block: a contiguous tenth in the middle */
        status = tc_mcast_set_add_range(set, n / 2, n / 2 + ((n / 10 > 0) ? n / 10 : 1));
    }
    if (status != TC_OK) {
        tc_mcast_set_destroy(set);
        return status;
    }
    *set_p = set;
    return TC_OK;
}

static void mcast_sim_row(FILE *csv, const mcast_opts_t *opts, const char *mode, int64_t radix,
                          const tc_mcast_sim_result_t *r)
{
    mcast_row_t row;

    row.mode                 = mode;
    row.n                    = opts->simulate;
    row.radix                = radix;
    row.ack                  = 1; /* the modelled completion is the ack tree's */
    row.jam                  = NULL;
    row.payload_bytes        = -1;
    row.iterations           = -1;
    row.p50_us = row.p99_us = row.p999_us = NAN;
    row.origin_sends         = r->origin_sends;
    row.depth                = r->depth;
    row.edges                = r->edges;
    row.max_fanout           = r->max_fanout;
    row.target_bytes_per_hop = (r->edges > 0) ? (double)r->target_bytes / (double)r->edges : 0.0;
    row.modelled_us          = r->complete_us;
    row.hop_us               = opts->hop_us;
    row.send_us              = opts->send_us;
    mcast_csv_row(csv, &row);
}

static void mcast_sim_print(const mcast_opts_t *opts, const char *what,
                            const tc_mcast_sim_result_t *r, double secs)
{
    if (opts->quiet) {
        return;
    }
    printf("%-7s %7u %6u %10llu %7u %9.2f %9llu %12.2f %12.2f %8.2f\n", what, r->origin_sends,
           r->depth, (unsigned long long)r->edges, r->max_fanout,
           (r->edges > 0) ? (double)r->target_bytes / (double)r->edges : 0.0,
           (unsigned long long)r->max_target_bytes, r->deliver_us, r->complete_us, secs);
}

static double mcast_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int mcast_simulate(const mcast_opts_t *opts, FILE *csv)
{
    static const uint32_t sweep[] = {2, 4, 8, 16, 64};
    const uint32_t *radices = opts->n_radices ? opts->radices : sweep;
    unsigned n_radices = opts->n_radices ? opts->n_radices : 5, i;
    tc_mcast_sim_params_t p;
    tc_mcast_sim_result_t r;
    tc_mcast_set_t *set;
    tc_status_t status;
    char what[16];
    double t0;

    status = mcast_shape_set(opts->shape, (uint32_t)opts->simulate, &set);
    if (status != TC_OK) {
        fprintf(stderr, "tc-mcast: cannot build the target set: %s\n", tc_status_str(status));
        return 1;
    }
    p.origin  = 0;
    p.hop_us  = opts->hop_us;
    p.send_us = opts->send_us;
    p.verify  = opts->verify;
    if (!opts->quiet) {
        printf("# model: %llu nodes, shape %s (%llu targets besides origin 0), hop %.3f us, "
               "send %.3f us; completion = last ack at the origin\n",
               (unsigned long long)opts->simulate, opts->shape,
               (unsigned long long)(tc_mcast_set_count(set) - tc_mcast_set_contains(set, 0)),
               opts->hop_us, opts->send_us);
        printf("%-7s %7s %6s %10s %7s %9s %9s %12s %12s %8s\n", "radix", "o.sends", "depth",
               "edges", "fanout", "B/hop", "max B", "deliver_us", "complete_us", "wall_s");
    }
    for (i = 0; i < n_radices; ++i) {
        p.radix = radices[i];
        t0      = mcast_now();
        status  = tc_mcast_sim_tree(set, &p, &r);
        if (status != TC_OK) {
            fprintf(stderr, "tc-mcast: model with radix %u failed: %s\n", p.radix,
                    tc_status_str(status));
            tc_mcast_set_destroy(set);
            return 1;
        }
        snprintf(what, sizeof(what), "R=%u", p.radix);
        mcast_sim_print(opts, what, &r, mcast_now() - t0);
        mcast_sim_row(csv, opts, "simulate-tree", p.radix, &r);
    }
    status = tc_mcast_sim_naive(set, &p, &r);
    if (status == TC_OK) {
        mcast_sim_print(opts, "naive", &r, 0.0);
        mcast_sim_row(csv, opts, "simulate-naive", -1, &r);
    }
    tc_mcast_set_destroy(set);
    return (status == TC_OK) ? 0 : 1;
}

/* The shapes the PR's tests used: what the encoder picks and its size. */
int mcast_shapes(const mcast_opts_t *opts)
{
    struct { const char *name; uint32_t n; } shapes[] = {
        {"all-but-one of 1024 (node 512 left out)", 1024},
        {"every 100th of 1200", 1200},
        {"dense random subset of 1024 (p = 0.9)", 1024},
        {"dense random subset of 1024 (p = 0.5)", 1024},
        {"contiguous block of 1000 (100..1099 of 4096)", 4096},
    };
    uint64_t rng = 0x5eed;
    tc_mcast_kind_t kind;
    tc_mcast_set_t *set;
    tc_status_t status = TC_OK;
    size_t size, raw;
    unsigned i, k;

    (void)opts;
    printf("%-46s %6s %7s %-12s %7s %10s\n", "shape", "N", "nodes", "form", "bytes",
           "u32 list");
    for (i = 0; i < TC_ARRAY_SIZE(shapes); ++i) {
        if (tc_mcast_set_create(shapes[i].n, &set) != TC_OK) {
            return 1;
        }
        switch (i) {
        case 0:
            status = tc_mcast_set_add_range(set, 0, 1024);
            status = (status == TC_OK) ? tc_mcast_set_remove(set, 512) : status;
            break;
        case 1:
            for (k = 0; (k < 1200) && (status == TC_OK); k += 100) {
                status = tc_mcast_set_add(set, k);
            }
            break;
        case 2:
        case 3:
            for (k = 0; (k < 1024) && (status == TC_OK); ++k) {
                if (mcast_rand(&rng) % 10 < ((i == 2) ? 9u : 5u)) {
                    status = tc_mcast_set_add(set, k);
                }
            }
            break;
        default:
            status = tc_mcast_set_add_range(set, 100, 1100);
            break;
        }
        if ((status == TC_OK) && (tc_mcast_encode_choose(set, &kind, &size) == TC_OK)) {
            raw = 4 * (size_t)tc_mcast_set_count(set);
            printf("%-46s %6u %7llu %-12s %7zu %10zu\n", shapes[i].name, shapes[i].n,
                   (unsigned long long)tc_mcast_set_count(set), tc_mcast_kind_str(kind), size,
                   raw);
        } else {
            status = TC_ERR_PROTOCOL;
        }
        tc_mcast_set_destroy(set);
        if (status != TC_OK) {
            return 1;
        }
    }
    return 0;
}
