/*
 * tc-perf's sweep: the run's waits x placements x tests x modes x sizes as
 * points, each run in blocks (--blocks), in the order asked (--order), with
 * every block's frames counted exactly-once and each point's row filled
 * from all its blocks.
 */
#include "perf.h"
#include "boot.h"
#include "log.h"
#include "harness/cycles.h"
#include "tool.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* After each test both sides compare counts: every frame one side put must
 * have run exactly once on the other, and none may have been rejected. */
typedef struct perf_counts {
    uint64_t tx, rx, rejected;
    /* this side's cost over the test (tc_cycles: PMU counts or UINT64_MAX) */
    uint64_t cpu_ns, polls, cycles, instructions, ref_cycles;
} perf_counts_t;

static void perf_counts_now(const perf_run_t *run, perf_counts_t *c)
{
    tc_peer_stats_t st;

    tc_peer_stats(run->peer, &st);
    c->tx       = st.tx_jams;
    c->rx       = st.rx_frames;
    c->rejected = st.rx_rejected;
    c->polls    = st.polls;
}

/* Reference tests move the frame of the jam rows beside them: the size of
 * the payload's jam frame in mode m. True (skip) when an earlier mode gave
 * the same size; else run->ref_frame is set. */
static int perf_ref_frame_seen(perf_run_t *run, const perf_opts_t *opts, unsigned m, unsigned s)
{
    uint32_t size = tc_jam_frame_size(&run->jam, (tc_mode_t)opts->modes[m], opts->sizes[s]);
    unsigned k;

    for (k = 0; k < m; ++k) {
        if (tc_jam_frame_size(&run->jam, (tc_mode_t)opts->modes[k], opts->sizes[s]) == size) {
            return 1;
        }
    }
    run->ref_frame = size;
    return 0;
}

/* The latencies are tick differences at the calibrated rate: say so where
 * the ticks over a point disagree with CLOCK_MONOTONIC (a counter that
 * jumped, a rate that moved), rather than print figures off by as much. */
static void perf_check_clock(const perf_run_t *run, const char *test, uint32_t size,
                             const tc_cycles_sample_t *cs)
{
    double tick_ns;

    if (!run->initiator || (strcmp(run->clock.source, "clock_gettime") == 0) ||
        (cs->elapsed_ns < 10000000ull)) {
        return; /* the initiator's ticks make the latencies; no counter; or too
                 * short a point to tell a jump from rounding */
    }
    tick_ns = tc_clock_ticks_to_ns(&run->clock, cs->tsc_ticks);
    if (fabs(tick_ns / (double)cs->elapsed_ns - 1.0) > 0.05) {
        tc_warn("test %s, payload %u bytes: the %s counter says %.3f ms where CLOCK_MONOTONIC "
                "says %.3f ms: it jumped or its rate moved, and this point's latencies are off",
                test, size, run->clock.source, tick_ns * 1e-6, (double)cs->elapsed_ns * 1e-6);
    }
}

static tc_status_t perf_check_delivery(perf_run_t *run, const char *test, uint32_t size,
                                       const perf_counts_t *before, perf_counts_t *mine_p,
                                       perf_counts_t *theirs_p)
{
    perf_counts_t now, mine, theirs;
    tc_cycles_sample_t cs;
    size_t len = 0;
    void *buf = NULL;
    tc_status_t status;

    perf_counts_now(run, &now);
    mine.tx       = now.tx - before->tx;
    mine.rx       = now.rx - before->rx;
    mine.rejected = now.rejected - before->rejected;
    (void)tc_cycles_read(run->cycles, &cs);
    perf_check_clock(run, test, size, &cs);
    mine.cpu_ns       = cs.cpu_ns;
    mine.polls        = now.polls - before->polls;
    mine.cycles       = cs.cycles;
    mine.instructions = cs.instructions;
    mine.ref_cycles   = cs.ref_cycles;
    status = tc_boot_exchange(run->boot, &mine, sizeof(mine), &buf, &len);
    if (status != TC_OK) {
        return status;
    }
    if (len != sizeof(theirs)) {
        free(buf);
        tc_error("%s: bad delivery report from the peer", test);
        return TC_ERR_PROTOCOL;
    }
    memcpy(&theirs, buf, sizeof(theirs));
    free(buf);
    if ((theirs.rx != mine.tx) || (mine.rx != theirs.tx) || mine.rejected || theirs.rejected) {
        tc_error("test %s, payload %u bytes: delivery mismatch: this side put %llu frames, "
                 "the peer ran %llu and rejected %llu; the peer put %llu, this side ran %llu "
                 "and rejected %llu", test, size, (unsigned long long)mine.tx,
                 (unsigned long long)theirs.rx, (unsigned long long)theirs.rejected,
                 (unsigned long long)theirs.tx, (unsigned long long)mine.rx,
                 (unsigned long long)mine.rejected);
        return TC_ERR_BAD_FRAME;
    }
    *mine_p   = mine;
    *theirs_p = theirs;
    return TC_OK;
}

static double perf_per_msg(uint64_t v, uint64_t n)
{
    return (v == TC_CYCLES_NONE) ? -1.0 : (double)v / (double)n;
}

/* Cost per message over the whole test on both sides. */
static void perf_fill_cost(perf_result_t *r, const perf_counts_t *mine,
                           const perf_counts_t *theirs, uint64_t n)
{
    r->cpu_ns_per_msg      = (double)mine->cpu_ns / (double)n;
    r->polls_per_msg       = (double)mine->polls / (double)n;
    r->cycles_per_msg      = perf_per_msg(mine->cycles, n);
    r->instr_per_msg       = perf_per_msg(mine->instructions, n);
    r->ref_cycles_per_msg  = perf_per_msg(mine->ref_cycles, n);
    r->peer_cpu_ns_per_msg = (double)theirs->cpu_ns / (double)n;
    r->peer_polls_per_msg  = (double)theirs->polls / (double)n;
    r->peer_cycles_per_msg = perf_per_msg(theirs->cycles, n);
}

static void perf_fill_dist(perf_result_t *r, const tc_hist_t *hist)
{
    unsigned k;

    for (k = 0; k < PERF_DIST_POINTS; ++k) {
        r->dist_ns[k] = tc_hist_percentile(hist, perf_dist_percentile(k));
    }
    r->has_dist = 1;
}

/* Where a point of the sweep is: indices into the run's waits, placements,
 * tests, modes and sizes. */
typedef struct perf_coord {
    unsigned w, p, t, m, s;
} perf_coord_t;

/* The sweep, waits x placements x tests x modes x sizes, runs in groups,
 * each group's points taking turns block by block (--blocks): test by test
 * (--order test), a group is one wait and placement, its tests each over
 * its modes, each over the sizes; size by size (--order size), a group is
 * one payload, its waits, placements, tests and modes side by side, so
 * that every variant a figure compares at a payload (a jam in two modes,
 * two placements, two waits, and the references of their frame sizes)
 * runs in the same seconds on a host whose speed switches. */
static unsigned perf_group_points(const perf_opts_t *opts)
{
    unsigned variants = opts->n_waits * opts->n_places * opts->n_tests * opts->n_modes;

    return opts->size_major ? variants : opts->n_tests * opts->n_modes * opts->n_sizes;
}

/* Point k of the sweep (groups in turn, then within the group): k in mixed
 * radix, the fastest-varying dimension first. */
static void perf_point_at(const perf_opts_t *opts, unsigned k, perf_coord_t *c)
{
    unsigned *size_major[5] = {&c->m, &c->t, &c->p, &c->w, &c->s};
    unsigned *test_major[5] = {&c->s, &c->m, &c->t, &c->p, &c->w};
    const uint32_t n_size[5] = {opts->n_modes, opts->n_tests, opts->n_places, opts->n_waits,
                                opts->n_sizes};
    const uint32_t n_test[5] = {opts->n_sizes, opts->n_modes, opts->n_tests, opts->n_places,
                                opts->n_waits};
    unsigned *const *dim = opts->size_major ? size_major : test_major;
    const uint32_t *n    = opts->size_major ? n_size : n_test;
    unsigned i;

    for (i = 0; i < 5; ++i) {
        *dim[i] = k % n[i];
        k /= n[i];
    }
}

/* One point of the sweep over its blocks (--blocks): its row, its own
 * latency histogram, and the sums of its blocks' time, messages and cost. */
#define PERF_POINT_NEW  (-1) /* not run yet */
#define PERF_POINT_SKIP (-2) /* a reference whose frame an earlier mode moved, or refused */

typedef struct perf_point {
    int           row;
    tc_hist_t    *hist;             /* until the row is complete */
    perf_counts_t mine, theirs;
    double        elapsed_s, msgs;
} perf_point_t;

/* Block b of B: iterations of a total of n, the blocks summing to n exactly. */
static uint64_t perf_block_share(uint64_t n, uint32_t b, uint32_t blocks)
{
    return n * (b + 1) / blocks - n * b / blocks;
}

static uint64_t perf_sum_counted(uint64_t a, uint64_t v)
{
    return ((a == TC_CYCLES_NONE) || (v == TC_CYCLES_NONE)) ? TC_CYCLES_NONE : a + v;
}

static void perf_counts_add(perf_counts_t *sum, const perf_counts_t *c)
{
    sum->cpu_ns      += c->cpu_ns;
    sum->polls       += c->polls;
    sum->cycles       = perf_sum_counted(sum->cycles, c->cycles);
    sum->instructions = perf_sum_counted(sum->instructions, c->instructions);
    sum->ref_cycles   = perf_sum_counted(sum->ref_cycles, c->ref_cycles);
}

/* Whether the jam takes a payload of len bytes: its pack routine, run on
 * zeroes into scratch memory on each side alike (a pack is a pure function
 * of its input), so both skip a size the jam refuses, before the barrier,
 * and say why, where the sender alone would have found out mid-point. */
static tc_status_t perf_jam_takes(perf_run_t *run, uint32_t len)
{
    size_t cap = (size_t)len + 4096;
    void *src = calloc(1, len + 1), *dst = malloc(cap);
    tc_jam_doc_t doc;
    int64_t packed;

    if ((src == NULL) || (dst == NULL)) {
        free(src);
        free(dst);
        return TC_ERR_NO_MEMORY;
    }
    packed = run->jam.elem->pack(dst, cap, src, len);
    free(src);
    free(dst);
    if ((packed >= 0) && ((uint64_t)packed <= cap)) {
        return TC_OK;
    }
    /* what it takes, in its own words where its source says (TC_JAM_DESCRIBE) */
    if (tc_jam_doc(&run->jam, &doc) == TC_OK) {
        snprintf(run->refused, sizeof(run->refused),
                 "jam '%s' does not take a %u-byte payload; it takes: %s (its pack routine "
                 "returned %lld): size skipped", run->jam.elem->name, len, doc.payload,
                 (long long)packed);
    } else {
        snprintf(run->refused, sizeof(run->refused),
                 "jam '%s' does not take a %u-byte payload (its pack routine returned %lld): "
                 "size skipped", run->jam.elem->name, len, (long long)packed);
    }
    return TC_ERR_UNSUPPORTED;
}

/* Runs block b of point k; its row is complete (printed, published for
 * Ctrl-C) after the last block. */
static tc_status_t perf_run_block(perf_side_t *side, perf_run_t *run, perf_point_t *p,
                                  const perf_coord_t *c, unsigned b, perf_result_t *results,
                                  unsigned *n_results_p)
{
    const perf_opts_t *opts = &side->opts;
    int last                = (b + 1 == opts->blocks);
    tc_wait_t wait          = (tc_wait_t)opts->waits[c->w];
    tc_place_t place        = (tc_place_t)opts->places[c->p];
    unsigned t = c->t, m = c->m, s = c->s;
    perf_counts_t before, mine, theirs;
    const perf_test_t *test;
    perf_result_t *r;
    tc_status_t status;

    if (p->row == PERF_POINT_SKIP) {
        return TC_OK;
    }
    test      = &perf_tests[opts->tests[t]];
    run->mode = (tc_mode_t)opts->modes[m];
    if (!test->uses_jam && perf_ref_frame_seen(run, opts, m, s)) {
        p->row = PERF_POINT_SKIP;
        return TC_OK;
    }
    if (p->row == PERF_POINT_NEW) {
        status = tc_hist_create(1000000000000ull, &p->hist); /* up to 1000 s */
        if (status != TC_OK) {
            return status;
        }
        /* a sample is half a round trip, or a window's time over its messages:
         * measured in steps of the clock's resolution over that */
        tc_hist_set_quantum(p->hist, run->clock.resolution_ns /
                                         ((test->shape == PERF_SHAPE_PINGPONG) ? 2.0 :
                                                                                (double)opts->window));
        p->row = (int)(*n_results_p)++;
        r      = &results[p->row];
        memset(r, 0, sizeof(*r));
        r->test     = test->name;
        r->api      = test->uses_jam ? tc_names_str(&tc_tool_names_api, opts->api) : "";
        r->mode     = test->uses_jam ? tc_mode_str(run->mode) : "raw";
        r->frame_of = test->uses_jam ? "" : tc_mode_str(run->mode);
        r->wait     = tc_wait_str(wait);
        r->place    = tc_place_str(place);
        if (test->uses_jam && (run->mode != TC_MODE_LOCAL)) {
            (void)tc_jam_code_info(&run->jam, &r->code_bytes, &r->got_slots);
        }
    }
    r = &results[p->row];
    if (test->uses_jam && (b == 0) && (perf_jam_takes(run, opts->sizes[s]) != TC_OK)) {
        if (run->initiator) {
            tc_warn("%s", run->refused);
        }
        tc_hist_destroy(p->hist);
        p->hist = NULL;
        *n_results_p -= 1; /* its row was the last one taken */
        p->row = PERF_POINT_SKIP;
        return TC_OK;
    }
    run->hist   = p->hist;
    run->iters  = perf_block_share(opts->iters, b, opts->blocks);
    run->warmup = perf_block_share(opts->warmup, b, opts->blocks);
    status = tc_boot_barrier(side->boot);
    perf_counts_now(run, &before);
    run->point_test    = test->name;
    run->point_payload = opts->sizes[s];
    run->point_block   = b;
    run->point_start   = tc_clock_ticks();
    run->report_next   = run->point_start + run->report_every;
    /* whole test, warm-up included, as in the paper */
    (void)tc_cycles_start(run->cycles);
    if (status == TC_OK) {
        status = test->fn(run, opts->sizes[s], r);
    }
    (void)tc_cycles_stop(run->cycles);
    if (status == TC_ERR_UNSUPPORTED) {
        /* refused where this transport cannot do it: said, not run */
        if (run->initiator) {
            tc_error("%s", run->refused);
        }
        *n_results_p -= 1; /* refused in its first block: its row was the last one taken */
        p->row = PERF_POINT_SKIP;
        return TC_OK;
    }
    if (status == TC_OK) {
        status = perf_check_delivery(run, test->name, opts->sizes[s], &before, &mine, &theirs);
    }
    if ((status == TC_ERR_CLOSED) && (tc_boot_peer_bye(run->boot) != NULL)) {
        return status; /* the peer left and said why: main says it, once */
    }
    if (status != TC_OK) {
        tc_error("test %s (%s), payload %u bytes: %s", test->name, r->mode, opts->sizes[s],
                 tc_status_str(status));
        return status;
    }
    perf_counts_add(&p->mine, &mine);
    perf_counts_add(&p->theirs, &theirs);
    p->elapsed_s += r->elapsed_s;
    p->msgs      += r->rate_mps * r->elapsed_s;
    if (!last) {
        return TC_OK;
    }
    /* the row over all its blocks (whose shares sum to -n and -w); r->lat
     * already summarizes the point's histogram */
    r->iters     = opts->iters;
    r->elapsed_s = p->elapsed_s;
    r->rate_mps  = p->msgs / p->elapsed_s;
    r->bw_mbs    = r->rate_mps * r->payload / 1e6;
    perf_fill_cost(r, &p->mine, &p->theirs, opts->iters + opts->warmup);
    if (test->shape == PERF_SHAPE_PINGPONG) {
        perf_fill_dist(r, p->hist);
    }
    tc_hist_destroy(p->hist); /* with one block, one histogram at a time */
    p->hist = NULL;
    r->when = time(NULL);
    if (run->initiator) {
        if (!side->local->quiet) {
            perf_print_row(side->local->table, r, side->local->wide);
        }
        perf_live_publish((unsigned)p->row + 1);
    }
    return TC_OK;
}

/* The wait strategy and placement of point c, where they differ from the
 * last point's (*w_p, *p_p): both sides switch at the same point, and each
 * takes in the other's new wait (a config frame) before anything is
 * measured, so that a side now blocking is rung from the first frame on. */
static tc_status_t perf_switch(perf_run_t *run, const perf_opts_t *opts, const perf_coord_t *c,
                               unsigned *w_p, unsigned *p_p)
{
    tc_status_t status = TC_OK;
    int waits          = (c->w != *w_p);

    if (!waits && (c->p == *p_p)) {
        return TC_OK;
    }
    if (waits) {
        status = tc_peer_set_wait(run->peer, (tc_wait_t)opts->waits[c->w]);
    }
    if ((status == TC_OK) && (c->p != *p_p)) {
        status = tc_peer_set_placement(run->peer, (tc_place_t)opts->places[c->p]);
    }
    if (waits && (status == TC_OK)) {
        status = tc_peer_flush(run->peer); /* our config frame leaves */
        if (status == TC_OK) {
            status = tc_boot_barrier(run->boot);
        }
        if (status == TC_OK) {
            status = tc_peer_progress(run->peer, 0, NULL); /* and theirs is read */
        }
    }
    if (status == TC_OK) {
        status = tc_boot_barrier(run->boot);
    }
    *w_p = c->w;
    *p_p = c->p;
    return status;
}

/* Every --placement the run takes, set once before any point: one this
 * transport cannot do (llc, dram over tcp: the peer's mailbox is not
 * mapped) is refused before anything is measured (TC_ERR_UNSUPPORTED, said
 * by the library), not after the points before it. The first point sets
 * its own. */
static tc_status_t perf_check_places(perf_run_t *run, const perf_opts_t *opts)
{
    tc_status_t status = TC_OK;
    unsigned i;

    for (i = 0; (i < opts->n_places) && (status == TC_OK); ++i) {
        status = tc_peer_set_placement(run->peer, (tc_place_t)opts->places[i]);
    }
    return status;
}

/* The run's points, group by group (perf_group_points), each group's
 * points taking turns block by block; the rows into results. */
tc_status_t perf_sweep(perf_side_t *side, perf_run_t *run, perf_result_t *results,
                       unsigned *n_results_p)
{
    unsigned b, g, j, group, n_points, cur_w = UINT_MAX, cur_p = UINT_MAX;
    tc_status_t status   = TC_OK;
    perf_point_t *points;
    perf_coord_t c;

    group    = perf_group_points(&side->opts);
    n_points = side->opts.n_waits * side->opts.n_places * side->opts.n_tests *
               side->opts.n_modes * side->opts.n_sizes;
    points   = calloc(group, sizeof(*points)); /* one group's points at a time */
    if (points == NULL) {
        status = TC_ERR_NO_MEMORY;
    }
    if (status == TC_OK) {
        status = perf_check_places(run, &side->opts);
    }
    for (g = 0; (g < n_points / group) && (status == TC_OK); ++g) {
        for (j = 0; j < group; ++j) {
            memset(&points[j], 0, sizeof(points[j]));
            points[j].row = PERF_POINT_NEW;
        }
        for (b = 0; (b < side->opts.blocks) && (status == TC_OK); ++b) {
            for (j = 0; (j < group) && (status == TC_OK); ++j) {
                perf_point_at(&side->opts, g * group + j, &c);
                status = perf_switch(run, &side->opts, &c, &cur_w, &cur_p);
                if (status == TC_OK) {
                    status = perf_run_block(side, run, &points[j], &c, b, results, n_results_p);
                }
            }
        }
        for (j = 0; j < group; ++j) {
            tc_hist_destroy(points[j].hist);
        }
    }
    free(points);
    return status;
}
