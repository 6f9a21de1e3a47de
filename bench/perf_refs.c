/*
 * The raw references (tc-perf put_*, put_read_*, floor_*), one ping-pong and
 * one stream loop for all three:
 *
 *   put       ucp_put_nbx of the frame; the receiver polls its last word and
 *             reads nothing else (what raw UCX costs);
 *   put_read  the same put; the receiver polls its last word,
 *             then reads every line before it answers or returns credits;
 *   floor     no UCX call on the data path: the sender stores the frame into
 *             the peer's raw ring mapped with ucp_rkey_ptr (data, release,
 *             last word), the receiver polls and reads every line, credits
 *             go back the same way. What the hardware needs to move a frame
 *             between two cores; refused where nothing is mapped (tcp, a NIC).
 *
 * A real receiver pulls every line of a frame from the sender's cache,
 * which put's receiver never does. All run on the connection and frame
 * sizes of the jam rows they stand beside, and round the same ring of slots
 * as the jam's frames (one slot's lines are not the ring's: a floor on one
 * slot moved more between invocations than the ring's, docs/THRESHOLDS.md);
 * the floor copies with the library's
 * own store (tc_place_store, line by line or memcpy as the library chose
 * for this CPU).
 */
#include "perf.h"
#include "perf_waiter.h"
#include "harness/peer_raw.h"
#include "place.h"
#include "barrier.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PERF_WORD 8u
#define PERF_LINE 64u

typedef enum {
    PERF_VIA_PUT,  /* ucp_put_nbx */
    PERF_VIA_STORE /* the CPU's stores through the mapped segment */
} perf_via_t;

/* One reference: how the frame moves, and whether the receiver reads it. */
typedef struct perf_ref {
    perf_via_t via;
    int        read_all;
} perf_ref_t;

static const perf_ref_t perf_ref_put      = {PERF_VIA_PUT, 0};
static const perf_ref_t perf_ref_put_read = {PERF_VIA_PUT, 1};
static const perf_ref_t perf_ref_floor    = {PERF_VIA_STORE, 1};

/* What the receiver reads keeps the loads from being optimised away
 * (perf_sink: a load and a store the compiler keeps, as a volatile's). */
static uint64_t perf_floor_sink;

static inline void perf_sink(uint64_t v)
{
    tc_write_once(&perf_floor_sink, tc_read_once(&perf_floor_sink) + v);
}

/* Both sides must agree whether the floor can run (each maps the other's
 * ring); NULL when it can, else why not (in run->refused). */
static const char *perf_floor_refusal(perf_run_t *run, const tc_harness_peer_raw_t *raw,
                                      const char *test)
{
    uint8_t mine = (raw->remote_ring_ptr != NULL), *theirs = NULL;
    size_t len = 0;
    int both;

    if (tc_boot_exchange(run->boot, &mine, 1, (void **)&theirs, &len) != TC_OK) {
        snprintf(run->refused, sizeof(run->refused), "%s: the bootstrap failed", test);
        return run->refused;
    }
    both = mine && (len == 1) && *theirs;
    free(theirs);
    if (both) {
        return NULL;
    }
    snprintf(run->refused, sizeof(run->refused),
             "%s: unsupported: the transport (%s) does not map the peer's memory "
             "(ucp_rkey_ptr), so nothing can store into it without a UCX call", test,
             tc_peer_transports(run->peer));
    return run->refused;
}

/* One frame of frame bytes from src into the peer's raw ring at off, its
 * last word the mark. */
static inline tc_status_t perf_ref_deliver(const tc_harness_peer_raw_t *raw, perf_via_t via,
                                           char *src, uint32_t frame, uint64_t off,
                                           uint64_t mark)
{
    char *dst;

    memcpy(src + frame - PERF_WORD, &mark, sizeof(mark)); /* the put's copy carries it */
    if (via == PERF_VIA_PUT) {
        return perf_put(raw->ucp_ep, src, frame, raw->remote_ring + off, raw->ucp_rkey);
    }
    dst = raw->remote_ring_ptr + off;
    tc_place_store(dst, src, frame, mark, raw->linewise_max);
    return TC_OK;
}

/* Wait until the slot's last word is the mark, then (read_all) read every
 * line. */
static inline tc_status_t perf_ref_arrive(perf_waiter_t *w, const tc_harness_peer_raw_t *raw,
                                          const char *slot, uint32_t frame, uint64_t mark,
                                          int read_all, const char *what)
{
    const uint64_t *last = (const uint64_t *)(const void *)(slot + frame - PERF_WORD);
    tc_status_t status;
    uint64_t sum = 0;
    uint32_t off;

    perf_waiter_reset(w);
    while (tc_load_acquire(last) != mark) {
        perf_waiter_idle(w, last);
        status = perf_waiter_spin(w, raw->ucp_worker, what);
        if (status != TC_OK) {
            return status;
        }
    }
    /* independent loads: the core asks for all the lines at once */
    for (off = 0; read_all && (off + PERF_LINE < frame); off += PERF_LINE) {
        sum += tc_read_once((const uint64_t *)(const void *)(slot + off));
    }
    perf_sink(sum);
    return TC_OK;
}

/* --ref-work: n dependent multiply-adds (a chain the compiler can neither
 * fold nor overlap), a receiver's stand-in for the work a jam does between a
 * frame's arrival and its answer. */
static inline void perf_ref_work(uint32_t n)
{
    uint64_t x = n;
    uint32_t i;

    for (i = 0; i < n; ++i) {
        __asm__ __volatile__("" : "+r"(x));
        x = x * 3u + 1u;
    }
    perf_sink(x);
}

double perf_ref_work_ns(const perf_run_t *run)
{
    uint32_t n = run->opts->ref_work;
    uint32_t calls, i;
    uint64_t t0, t1;

    if (n == 0) {
        return 0.0;
    }
    /* about 2^24 steps in all (a few ms): 167-4096 calls (n <= 100000) */
    calls = (1u << 24) / n;
    if (calls > 4096) {
        calls = 4096;
    }
    t0 = tc_clock_ticks();
    for (i = 0; i < calls; ++i) {
        perf_ref_work(n);
    }
    t1 = tc_clock_ticks();
    return tc_clock_ticks_to_ns(&run->clock, t1 - t0) / calls;
}

/* Give the peer our consumed count: a put of a word, or a store. */
static inline tc_status_t perf_ref_credit(perf_run_t *run, const tc_harness_peer_raw_t *raw,
                                          perf_via_t via, uint64_t credit)
{
    if (via == PERF_VIA_STORE) {
        tc_store_release(raw->remote_consumed_ptr, credit);
        return TC_OK;
    }
    /* a static source would be rewritten before a slow put reads it;
     * credits are monotonic, so reading a newer value is harmless */
    *(uint64_t *)(void *)run->src = credit;
    return perf_put(raw->ucp_ep, run->src, sizeof(uint64_t), raw->remote_consumed, raw->ucp_rkey);
}

/* Each side starts from an empty raw ring and credit word (what earlier
 * tests left there is not a mark of this one). */
static tc_status_t perf_ref_begin(perf_run_t *run, tc_harness_peer_raw_t *raw)
{
    tc_harness_peer_raw(run->peer, raw);
    memset(raw->local_ring, 0, (size_t)raw->local_slots * raw->local_slot_size);
    tc_write_once(raw->local_consumed, 0);
    return tc_boot_barrier(run->boot);
}

static tc_status_t perf_ref_lat(perf_run_t *run, uint32_t payload, perf_result_t *r,
                                const perf_ref_t *ref, const char *test)
{
    uint64_t total = run->warmup + run->iters, i, t0, t1, start;
    uint32_t frame = run->ref_frame;
    tc_harness_peer_raw_t raw;
    perf_waiter_t waiter;
    tc_status_t status;

    status = perf_ref_begin(run, &raw);
    if ((status == TC_OK) && (ref->via == PERF_VIA_STORE) &&
        (perf_floor_refusal(run, &raw, test) != NULL)) {
        return TC_ERR_UNSUPPORTED;
    }
    perf_waiter_init(&waiter, run, raw.wait);
    start = tc_clock_ticks();
    for (i = 0; (i < total) && (status == TC_OK); ++i) {
        if (run->initiator && (i == run->warmup)) {
            start = tc_clock_ticks();
        }
        /* round the ring as the jam's frames do */
        uint64_t roff = (i & (raw.remote_slots - 1)) * (uint64_t)raw.remote_slot_size;
        const char *lslot = raw.local_ring +
                            (size_t)(i & (raw.local_slots - 1)) * raw.local_slot_size;
        t0 = tc_clock_ticks();
        if (run->initiator) {
            status = perf_ref_deliver(&raw, ref->via, run->src, frame, roff, i + 1);
        }
        if (status == TC_OK) {
            status = perf_ref_arrive(&waiter, &raw, lslot, frame, i + 1, ref->read_all, test);
        }
        if ((status == TC_OK) && (run->opts->ref_work != 0)) { /* both sides, before each answer */
            perf_ref_work(run->opts->ref_work);
        }
        if ((status == TC_OK) && !run->initiator) {
            status = perf_ref_deliver(&raw, ref->via, run->src, frame, roff, i + 1);
        }
        t1 = tc_clock_ticks();
        if (run->initiator && (i >= run->warmup)) {
            tc_hist_record(run->hist, perf_elapsed_ns(run, t0, t1) / 2);
        }
        perf_progress(run, i + 1, total, run->warmup, t1);
    }
    t1 = tc_clock_ticks();
    if ((status != TC_OK) || !run->initiator) {
        return status;
    }
    perf_finish(run, r, payload, frame, t1 - start, 1);
    return TC_OK;
}

/* A windowed stream into the raw ring with the mailbox's credit scheme
 * (the consumed count back every slots/4); marks are message numbers, so
 * no lap of a slot looks like another. */
static tc_status_t perf_ref_stream(perf_run_t *run, const tc_harness_peer_raw_t *raw,
                                   const perf_ref_t *ref, uint32_t frame, uint64_t first,
                                   uint64_t count, int measure, const char *test)
{
    uint64_t window = run->opts->window, i, tw, now, reported = first, batch;
    tc_status_t status = TC_OK;
    perf_waiter_t waiter;

    perf_waiter_init(&waiter, run, raw->wait);
    if (run->initiator) {
        tw = tc_clock_ticks();
        for (i = first; (i < first + count) && (status == TC_OK); ++i) {
            uint32_t slot = (uint32_t)(i & (raw->remote_slots - 1));
            perf_waiter_reset(&waiter);
            while ((status == TC_OK) && (i - tc_read_once(raw->local_consumed) >= raw->remote_slots)) {
                status = perf_waiter_spin(&waiter, raw->ucp_worker, "credits");
            }
            if (status == TC_OK) {
                status = perf_ref_deliver(raw, ref->via, run->src + (size_t)slot * frame, frame,
                                          (uint64_t)slot * raw->remote_slot_size, i + 1);
            }
            if (measure && (((i - first + 1) % window) == 0)) {
                now = tc_clock_ticks();
                tc_hist_record(run->hist, perf_elapsed_ns(run, tw, now) / window);
                tw = now;
                perf_progress(run, i - first + 1, count, 0, now);
            }
        }
        perf_waiter_reset(&waiter);
        while ((status == TC_OK) && (tc_read_once(raw->local_consumed) != first + count)) {
            status = perf_waiter_spin(&waiter, raw->ucp_worker, "the last credits");
        }
        return status;
    }

    batch = (raw->local_slots >= 4) ? raw->local_slots / 4 : 1;
    for (i = first; (i < first + count) && (status == TC_OK); ++i) {
        const char *slot = raw->local_ring +
                           (size_t)(i & (raw->local_slots - 1)) * raw->local_slot_size;
        status = perf_ref_arrive(&waiter, raw, slot, frame, i + 1, ref->read_all, test);
        if ((status == TC_OK) && ((i + 1 - reported >= batch) || (i + 1 == first + count))) {
            reported = i + 1;
            status   = perf_ref_credit(run, raw, ref->via, reported);
        }
    }
    return status;
}

static tc_status_t perf_ref_rate(perf_run_t *run, uint32_t payload, perf_result_t *r,
                                 const perf_ref_t *ref, const char *test)
{
    uint32_t frame = run->ref_frame;
    tc_harness_peer_raw_t raw;
    tc_status_t status;
    uint64_t t0, t1;

    status = perf_ref_begin(run, &raw);
    if ((status == TC_OK) && (ref->via == PERF_VIA_STORE) &&
        (perf_floor_refusal(run, &raw, test) != NULL)) {
        return TC_ERR_UNSUPPORTED;
    }
    if (status == TC_OK) {
        status = perf_ref_stream(run, &raw, ref, frame, 0, run->warmup, 0, test);
    }
    if (status == TC_OK) {
        status = tc_boot_barrier(run->boot);
    }
    if (status != TC_OK) {
        return status;
    }
    t0     = tc_clock_ticks();
    status = perf_ref_stream(run, &raw, ref, frame, run->warmup, run->iters, 1,
                             test);
    t1     = tc_clock_ticks();
    if ((status != TC_OK) || !run->initiator) {
        return status;
    }
    perf_finish(run, r, payload, frame, t1 - t0, 0);
    return TC_OK;
}

tc_status_t perf_put_lat(perf_run_t *run, uint32_t payload, perf_result_t *r)
{
    return perf_ref_lat(run, payload, r, &perf_ref_put, "put_lat");
}

tc_status_t perf_put_rate(perf_run_t *run, uint32_t payload, perf_result_t *r)
{
    return perf_ref_rate(run, payload, r, &perf_ref_put, "put_rate");
}

tc_status_t perf_put_read_lat(perf_run_t *run, uint32_t payload, perf_result_t *r)
{
    return perf_ref_lat(run, payload, r, &perf_ref_put_read, "put_read_lat");
}

tc_status_t perf_put_read_rate(perf_run_t *run, uint32_t payload, perf_result_t *r)
{
    return perf_ref_rate(run, payload, r, &perf_ref_put_read, "put_read_rate");
}

tc_status_t perf_floor_lat(perf_run_t *run, uint32_t payload, perf_result_t *r)
{
    return perf_ref_lat(run, payload, r, &perf_ref_floor, "floor_lat");
}

tc_status_t perf_floor_rate(perf_run_t *run, uint32_t payload, perf_result_t *r)
{
    return perf_ref_rate(run, payload, r, &perf_ref_floor, "floor_rate");
}
