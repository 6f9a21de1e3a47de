/*
 * The tc-perf tests: jams over the mailbox, and the raw UCX references
 * (put into a ring shaped like the mailbox, active messages) measured on the
 * same connection.
 */
#include "perf.h"
#include "perf_waiter.h"
#include "harness/peer_raw.h"
#include "wait_arch.h"
#include "log.h"
#include "tool.h"

#include <stdlib.h>
#include <string.h>
#include <ucp/api/ucp.h>

#define PERF_AM_ID 7

void perf_finish(perf_run_t *run, perf_result_t *r, uint32_t payload,
                        uint32_t frame_bytes, uint64_t total_ticks, int one_way)
{
    tc_peer_stats_t stats;

    r->payload     = payload;
    r->frame_bytes = frame_bytes;
    r->iters       = run->iters;
    r->elapsed_s   = tc_clock_ticks_to_ns(&run->clock, total_ticks) * 1e-9;
    tc_hist_summarize(run->hist, &r->lat);
    tc_peer_stats(run->peer, &stats);
    r->rejected = stats.rx_rejected;
    /* a ping-pong iteration is two messages, one each way */
    r->rate_mps = (double)run->iters * (one_way ? 2.0 : 1.0) / r->elapsed_s;
    r->bw_mbs   = r->rate_mps * payload / 1e6;
}

/* ------------------------------------------------------------------ jams */

/* Both sides' outcome of a step, agreed through the bootstrap (a barrier
 * too): this side's error, else the peer's. A sync the peer refused is then
 * what both sides report, not this side's lost bootstrap. */
static tc_status_t perf_agree(perf_run_t *run, tc_status_t mine)
{
    int32_t word = (int32_t)mine, *theirs = NULL;
    tc_status_t status;
    size_t len = 0;

    status = tc_boot_exchange(run->boot, &word, sizeof(word), (void **)&theirs, &len);
    if ((status == TC_OK) && (len != sizeof(word))) {
        status = TC_ERR_PROTOCOL;
    }
    if (status == TC_OK) {
        status = (mine != TC_OK) ? mine : (tc_status_t)*theirs;
    }
    free(theirs);
    return status;
}

/* Injected and cached modes sync once per mode: with frames big enough for
 * the sync (and the code, for cached), each side prepares while the other
 * serves, between barriers. */
static tc_status_t perf_prepare(perf_run_t *run)
{
    tc_status_t status = TC_OK;
    uint8_t need, *peer_need;
    size_t len;
    int turn;

    if ((run->mode == TC_MODE_LOCAL) || run->prepared[run->mode]) {
        return TC_OK;
    }
    status = tc_peer_set_frame_size(run->peer, tc_jam_prepare_size(&run->jam, run->mode));
    if (status == TC_OK) {
        status = tc_boot_barrier(run->boot);
    }
    for (turn = 0; (turn < 2) && (status == TC_OK); ++turn) {
        int active = (run->initiator == (turn == 0));
        /* the active side says first whether it has a sync to send (an
         * earlier mode may have done it), so the other knows to serve */
        need      = active && !tc_jam_is_prepared(run->peer, &run->jam, run->mode);
        peer_need = NULL;
        status    = tc_boot_exchange(run->boot, &need, 1, (void **)&peer_need, &len);
        if ((status == TC_OK) && (len != 1)) {
            status = TC_ERR_PROTOCOL;
        }
        if ((status == TC_OK) && active && need) {
            status = tc_jam_prepare(run->peer, &run->jam, run->mode);
        } else if ((status == TC_OK) && !active && *peer_need) {
            status = tc_peer_wait(run->peer, NULL); /* answers the sync */
            if (status == TC_OK) {
                status = tc_peer_flush(run->peer);
            }
        }
        free(peer_need);
        status = perf_agree(run, status);
    }
    run->prepared[run->mode] = (status == TC_OK);
    return status;
}

static tc_status_t perf_jam_size_frames(perf_run_t *run, uint32_t payload, uint32_t *frame_p)
{
    tc_status_t status = perf_prepare(run);
    uint32_t frame     = tc_jam_frame_size(&run->jam, run->mode, payload);

    if (status == TC_OK) {
        status = tc_peer_set_frame_size(run->peer, frame);
    }
    if (status == TC_OK) {
        status = tc_boot_barrier(run->boot); /* both sides sized before any send */
    }
    /* --api prepared: after the sizing and the sync, so that the timed
     * loop's first start has nothing left to check */
    if ((status == TC_OK) && (run->opts->api == TC_TOOL_API_PREPARED)) {
        status = tc_jam_init(run->peer, &run->jam, TC_SEND_PARAMS(run->mode, 0), &run->req);
    }
    *frame_p = frame;
    return status;
}

/* The point's request, if any, freed (perf_jam_size_frames made it). */
static void perf_jam_done(perf_run_t *run)
{
    tc_jam_req_free(run->req);
    run->req = NULL;
}

/* One jam frame of the point: the prepared request's start (one-way, no
 * result asked: tc_jam_init's default), or tc_jam_send. `prepared` is a
 * constant where the loops below are inlined: each api gets loops of its
 * own, chosen once before timing (on run->req, which perf_jam_size_frames
 * made or not) and without a branch on the api per frame, so that --api
 * prepared times tc_jam_start alone. */
static inline __attribute__((always_inline)) tc_status_t
perf_jam_send(perf_run_t *run, uint32_t payload, int prepared)
{
    if (prepared) {
        return tc_jam_start(run->req, run->src, payload);
    }
    return tc_jam_send(run->peer, &run->jam, run->src, payload, TC_SEND_PARAMS(run->mode, 0));
}

/* --gap-us: the client spins (for an exact gap; its own CPU time then means
 * nothing) while the server waits for the next frame in its strategy:
 * sparse traffic, where how a receiver waits decides what it costs. */
static void perf_idle_gap(const perf_run_t *run)
{
    uint64_t t0 = tc_clock_ticks();

    while (perf_elapsed_ns(run, t0, tc_clock_ticks()) < run->opts->gap_ns) {
        tc_arch_pause();
    }
}

/* jam_lat's ping-pong for one api, then a flush; *ticks_p: from the end of
 * the warm-up to the last answer. */
static inline __attribute__((always_inline)) tc_status_t
perf_jam_pingpong(perf_run_t *run, uint32_t payload, int prepared, uint64_t *ticks_p)
{
    uint64_t total = run->warmup + run->iters, i, t0, t1, start;
    tc_status_t status = TC_OK;

    start = tc_clock_ticks();
    for (i = 0; i < total; ++i) {
        if (run->initiator) {
            if (i == run->warmup) {
                start = tc_clock_ticks();
            }
            if (run->opts->gap_ns != 0) {
                perf_idle_gap(run);
            }
            t0     = tc_clock_ticks();
            status = perf_jam_send(run, payload, prepared);
            if (status == TC_OK) {
                status = tc_peer_wait(run->peer, NULL); /* the answer ran here */
            }
            t1 = tc_clock_ticks();
            if (i >= run->warmup) {
                tc_hist_record(run->hist, perf_elapsed_ns(run, t0, t1) / 2);
            }
            perf_progress(run, i + 1, total, run->warmup, t1);
        } else {
            status = tc_peer_wait(run->peer, NULL);
            if (status == TC_OK) {
                status = perf_jam_send(run, payload, prepared);
            }
        }
        if (status != TC_OK) {
            break;
        }
    }
    t1 = tc_clock_ticks();
    if (status == TC_OK) {
        status = tc_peer_flush(run->peer);
    }
    if (status == TC_OK) {
        *ticks_p = t1 - start;
    }
    return status;
}

static inline __attribute__((always_inline)) tc_status_t
perf_jam_stream(perf_run_t *run, uint32_t payload, uint64_t count, int measure, int prepared)
{
    uint64_t window = run->opts->window, i, tw = 0, now, got;
    tc_status_t status;
    unsigned n;

    if (run->initiator) {
        tw = tc_clock_ticks();
        for (i = 0; i < count; ++i) {
            status = perf_jam_send(run, payload, prepared);
            if (status != TC_OK) {
                return status;
            }
            if (measure && (((i + 1) % window) == 0)) {
                now = tc_clock_ticks();
                tc_hist_record(run->hist, perf_elapsed_ns(run, tw, now) / window);
                tw = now;
                perf_progress(run, i + 1, count, 0, now);
            }
        }
        return tc_peer_drain(run->peer); /* until the last credit returns */
    }

    /* frames run or rejected, as tc_peer_wait counts them (no stats copy
     * per wakeup on the measured path) */
    for (got = 0; got < count; got += n) {
        status = tc_peer_wait(run->peer, &n);
        if (status != TC_OK) {
            return status;
        }
    }
    return tc_peer_flush(run->peer);
}

/* jam_rate's warm-up and measured streams for one api; *ticks_p: the
 * measured one's. */
static inline __attribute__((always_inline)) tc_status_t
perf_jam_streams(perf_run_t *run, uint32_t payload, int prepared, uint64_t *ticks_p)
{
    uint64_t t0 = 0, t1 = 0;
    tc_status_t status;

    status = perf_jam_stream(run, payload, run->warmup, 0, prepared);
    if (status == TC_OK) {
        status = tc_boot_barrier(run->boot);
    }
    if (status == TC_OK) {
        t0     = tc_clock_ticks();
        status = perf_jam_stream(run, payload, run->iters, 1, prepared);
        t1     = tc_clock_ticks();
    }
    if (status == TC_OK) {
        *ticks_p = t1 - t0;
    }
    return status;
}

/* One point of jam_lat (pingpong) or jam_rate: the frames sized (and the
 * request made, for --api prepared), then the test's loops for that api. */
static tc_status_t perf_jam_point(perf_run_t *run, uint32_t payload, int pingpong,
                                  perf_result_t *r)
{
    tc_status_t status;
    uint64_t ticks = 0;
    uint32_t frame;

    status = perf_jam_size_frames(run, payload, &frame);
    if ((status == TC_OK) && pingpong) {
        status = (run->req != NULL) ? perf_jam_pingpong(run, payload, 1, &ticks)
                                    : perf_jam_pingpong(run, payload, 0, &ticks);
    } else if (status == TC_OK) {
        status = (run->req != NULL) ? perf_jam_streams(run, payload, 1, &ticks)
                                    : perf_jam_streams(run, payload, 0, &ticks);
    }
    perf_jam_done(run);
    if ((status != TC_OK) || !run->initiator) {
        return status;
    }
    perf_finish(run, r, payload, frame, ticks, pingpong);
    return TC_OK;
}

static tc_status_t perf_jam_lat(perf_run_t *run, uint32_t payload, perf_result_t *r)
{
    return perf_jam_point(run, payload, 1, r);
}

static tc_status_t perf_jam_rate(perf_run_t *run, uint32_t payload, perf_result_t *r)
{
    return perf_jam_point(run, payload, 0, r);
}

/* ------------------------------------------------------- active messages */

static void perf_am_data_cb(void *request, ucs_status_t status, size_t length,
                            void *user_data)
{
    perf_run_t *run = user_data;

    (void)status;
    (void)length;
    ++*run->am_count;
    ucp_request_free(request);
}

static ucs_status_t perf_am_cb(void *arg, const void *header, size_t header_length,
                               void *data, size_t length, const ucp_am_recv_param_t *param)
{
    perf_run_t *run = arg;
    ucp_request_param_t rp;
    tc_harness_peer_raw_t raw;
    ucs_status_ptr_t sp;

    (void)header;
    (void)header_length;
    if (!(param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) {
        ++*run->am_count; /* eager data is in UCX's buffer: nothing to keep */
        return UCS_OK;
    }
    /* rendezvous: fetch the data as a real receiver would */
    tc_harness_peer_raw(run->peer, &raw);
    memset(&rp, 0, sizeof(rp));
    rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    rp.cb.recv_am   = perf_am_data_cb;
    rp.user_data    = run;
    sp = ucp_am_recv_data_nbx(raw.ucp_worker, data, run->am_buf, length, &rp);
    if (sp == NULL) {
        ++*run->am_count;
    } else if (UCS_PTR_IS_ERR(sp)) {
        tc_error("ucp_am_recv_data_nbx: %s", ucs_status_string(UCS_PTR_STATUS(sp)));
        return UCS_PTR_STATUS(sp);
    }
    return UCS_OK;
}

tc_status_t perf_am_setup(perf_run_t *run)
{
    ucp_am_handler_param_t param;
    tc_harness_peer_raw_t raw;
    ucs_status_t ucs;

    tc_harness_peer_raw(run->peer, &raw);
    memset(&param, 0, sizeof(param));
    param.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                       UCP_AM_HANDLER_PARAM_FIELD_ARG;
    param.id  = PERF_AM_ID;
    param.cb  = perf_am_cb;
    param.arg = run;
    ucs = ucp_worker_set_am_recv_handler(raw.ucp_worker, &param);
    if (ucs != UCS_OK) {
        tc_error("ucp_worker_set_am_recv_handler: %s", ucs_status_string(ucs));
        return TC_ERR_UCX;
    }
    return TC_OK;
}

static void perf_am_send_cb(void *request, ucs_status_t status, void *user_data)
{
    int *inflight = user_data;

    (void)status;
    --*inflight;
    ucp_request_free(request);
}

/* Send one AM; at most `window` may be in flight. */
static tc_status_t perf_am_send(perf_run_t *run, const tc_harness_peer_raw_t *raw, uint32_t len,
                                int *inflight, perf_waiter_t *waiter)
{
    ucp_request_param_t param;
    ucs_status_ptr_t sp;
    tc_status_t status = TC_OK;

    memset(&param, 0, sizeof(param));
    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    param.cb.send      = perf_am_send_cb;
    param.user_data    = (void *)inflight;
    sp = ucp_am_send_nbx(raw->ucp_ep, PERF_AM_ID, NULL, 0, run->src, len, &param);
    if (UCS_PTR_IS_ERR(sp)) {
        tc_error("ucp_am_send_nbx: %s", ucs_status_string(UCS_PTR_STATUS(sp)));
        return TC_ERR_PEER_FAILED;
    }
    if (sp != NULL) {
        ++*inflight; /* the callback frees the request */
    }
    perf_waiter_reset(waiter);
    while ((status == TC_OK) && (*inflight > (int)run->opts->slots)) {
        ucp_worker_progress(raw->ucp_worker);
        status = perf_waiter_spin(waiter, raw->ucp_worker, "AM send completion");
    }
    return status;
}

static tc_status_t perf_am_wait(perf_run_t *run, const tc_harness_peer_raw_t *raw, int target,
                                perf_waiter_t *waiter)
{
    tc_status_t status = TC_OK;

    perf_waiter_reset(waiter);
    while ((status == TC_OK) && (*run->am_count < target)) {
        ucp_worker_progress(raw->ucp_worker); /* AMs always need progress */
        status = perf_waiter_spin(waiter, raw->ucp_worker, "an active message");
    }
    return status;
}

static tc_status_t perf_am_lat(perf_run_t *run, uint32_t payload, perf_result_t *r)
{
    uint64_t total = run->warmup + run->iters, i, t0, t1, start;
    uint32_t frame = run->ref_frame;
    int inflight = 0; /* completions come in ucp_worker_progress, on this thread */
    tc_status_t status;
    perf_waiter_t waiter;
    tc_harness_peer_raw_t raw;

    tc_harness_peer_raw(run->peer, &raw);
    perf_waiter_init(&waiter, run, TC_WAIT_POLL); /* the worker delivers AMs */
    *run->am_count = 0;
    status = tc_boot_barrier(run->boot);

    start = tc_clock_ticks();
    for (i = 0; (i < total) && (status == TC_OK); ++i) {
        if (run->initiator && (i == run->warmup)) {
            start = tc_clock_ticks();
        }
        t0 = tc_clock_ticks();
        if (run->initiator) {
            status = perf_am_send(run, &raw, frame, &inflight, &waiter);
        }
        if (status == TC_OK) {
            status = perf_am_wait(run, &raw, (int)(i + 1), &waiter);
        }
        if ((status == TC_OK) && !run->initiator) {
            status = perf_am_send(run, &raw, frame, &inflight, &waiter);
        }
        t1 = tc_clock_ticks();
        if (run->initiator && (i >= run->warmup)) {
            tc_hist_record(run->hist, perf_elapsed_ns(run, t0, t1) / 2);
        }
        perf_progress(run, i + 1, total, run->warmup, t1);
    }
    t1 = tc_clock_ticks();
    while ((status == TC_OK) && (inflight > 0)) {
        ucp_worker_progress(raw.ucp_worker);
        status = perf_waiter_spin(&waiter, raw.ucp_worker, "AM send completion");
    }
    if ((status != TC_OK) || !run->initiator) {
        return status;
    }
    perf_finish(run, r, payload, frame, t1 - start, 1);
    return TC_OK;
}

static tc_status_t perf_am_stream(perf_run_t *run, const tc_harness_peer_raw_t *raw, uint32_t frame,
                                  uint64_t count, int measure, perf_waiter_t *waiter)
{
    uint64_t window = run->opts->window, i, tw, now;
    int inflight = 0; /* completions come in ucp_worker_progress, on this thread */
    tc_status_t status = TC_OK;

    *run->am_count = 0;
    if (!run->initiator) {
        /* every message counted, then one AM back as the final credit */
        status = perf_am_wait(run, raw, (int)count, waiter);
        if (status == TC_OK) {
            status = perf_am_send(run, raw, 8, &inflight, waiter);
        }
    } else {
        tw = tc_clock_ticks();
        for (i = 0; (i < count) && (status == TC_OK); ++i) {
            status = perf_am_send(run, raw, frame, &inflight, waiter);
            if (measure && (((i + 1) % window) == 0)) {
                now = tc_clock_ticks();
                tc_hist_record(run->hist, perf_elapsed_ns(run, tw, now) / window);
                tw = now;
                perf_progress(run, i + 1, count, 0, now);
            }
        }
        if (status == TC_OK) {
            status = perf_am_wait(run, raw, 1, waiter);
        }
    }
    perf_waiter_reset(waiter);
    while ((status == TC_OK) && (inflight > 0)) {
        ucp_worker_progress(raw->ucp_worker);
        status = perf_waiter_spin(waiter, raw->ucp_worker, "AM send completion");
    }
    return status;
}

static tc_status_t perf_am_rate(perf_run_t *run, uint32_t payload, perf_result_t *r)
{
    uint32_t frame = run->ref_frame;
    perf_waiter_t waiter;
    tc_harness_peer_raw_t raw;
    tc_status_t status;
    uint64_t t0, t1;

    tc_harness_peer_raw(run->peer, &raw);
    perf_waiter_init(&waiter, run, TC_WAIT_POLL); /* the worker delivers AMs */
    status = tc_boot_barrier(run->boot);
    if (status == TC_OK) {
        status = perf_am_stream(run, &raw, frame, run->warmup, 0, &waiter);
    }
    if (status == TC_OK) {
        status = tc_boot_barrier(run->boot);
    }
    if (status != TC_OK) {
        return status;
    }
    t0     = tc_clock_ticks();
    status = perf_am_stream(run, &raw, frame, run->iters, 1, &waiter);
    t1     = tc_clock_ticks();
    if ((status != TC_OK) || !run->initiator) {
        return status;
    }
    perf_finish(run, r, payload, frame, t1 - t0, 0);
    return TC_OK;
}

/* ----------------------------------------------------------------- table */

const perf_test_t perf_tests[] = {
    {"jam_lat",  PERF_SHAPE_PINGPONG, 1, "jam one-way latency (RTT/2), Local Function",  perf_jam_lat},
    {"jam_rate", PERF_SHAPE_STREAM,   1, "jam message rate, until the last credit returns", perf_jam_rate},
    {"put_lat",  PERF_SHAPE_PINGPONG, 0, "raw ucp_put of the frame size, polling its last word", perf_put_lat},
    {"put_rate", PERF_SHAPE_STREAM,   0, "raw ucp_put stream into a ring, same credit scheme", perf_put_rate},
    {"put_read_lat",  PERF_SHAPE_PINGPONG, 0, "ucp_put of the frame; the receiver reads every line, then answers", perf_put_read_lat},
    {"put_read_rate", PERF_SHAPE_STREAM,   0, "ucp_put stream; the receiver reads every line of each frame", perf_put_read_rate},
    {"floor_lat",  PERF_SHAPE_PINGPONG, 0, "no UCX call: stores into the peer's mapped ring, receiver reads every line", perf_floor_lat},
    {"floor_rate", PERF_SHAPE_STREAM,   0, "floor_lat's stores as a stream, credits stored back", perf_floor_rate},
    {"am_lat",   PERF_SHAPE_PINGPONG, 0, "ucp_am_send_nbx ping-pong of the frame size", perf_am_lat},
    {"am_rate",  PERF_SHAPE_STREAM,   0, "ucp_am_send_nbx stream, final AM as the last credit", perf_am_rate},
};

const unsigned perf_n_tests = sizeof(perf_tests) / sizeof(perf_tests[0]);
