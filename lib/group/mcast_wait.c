/*
 * Multicast's wait: the liveness checks and the idle step over every ring
 * of this rank (lib/arch/wait's loop, through tc_wait_ops_t), and the put that
 * waits on a full ring's credits while every mailbox keeps moving.
 */
#define _GNU_SOURCE
#include "mcast_fwd_int.h"

#include <stdio.h>

/* --------------------------------------------------------------- waiting */

/* What every ring saw: printed when a wait gives up. */
static void tc_mcast_dump(const tc_mcast_t *mc)
{
    tc_peer_stats_t ps;
    uint32_t r;

    for (r = 0; r < mc->size; ++r) {
        tc_peer_t *peer = tc_group_peer(mc->group, r);

        if (peer != NULL) {
            tc_peer_stats(peer, &ps);
            tc_error("mcast: rank %u, ring with rank %u: %llu frames out, %llu jams in, %llu "
                     "refused%s%s; %llu queued here", mc->rank, r,
                     (unsigned long long)ps.tx_frames, (unsigned long long)ps.rx_frames,
                     (unsigned long long)ps.rx_rejected, ps.rx_rejected ? ": " : "",
                     ps.rx_rejected ? tc_peer_last_reject(peer) : "",
                     (unsigned long long)mc->stats.queued);
        }
    }
}


/* Every TC_MCAST_CHECK_NS, whatever else is going on: every rank lives,
 * what the waiter waits on moved (moved_ns) within the timeout, and relay
 * records past the record timeout go. */
tc_status_t tc_mcast_check(tc_mcast_t *mc, tc_mcast_waiter_t *w, uint64_t moved_ns)
{
    uint64_t now = tc_clock_mono_ns();

    if (w->next_check == 0) {
        w->next_check = now + TC_MCAST_CHECK_NS;
    }
    if (now < w->next_check) {
        return TC_OK;
    }
    w->next_check = now + TC_MCAST_CHECK_NS;
    ucp_worker_progress(mc->ctx->worker); /* delivers endpoint errors */
    if (tc_group_check(mc->group) != TC_OK) {
        tc_error("mcast: rank %u gives up waiting for %s", mc->rank, w->what);
        tc_mcast_dump(mc);
        return TC_ERR_PEER_FAILED;
    }
    if (now - moved_ns > 1000000ull * (uint64_t)mc->ctx->params.timeout_ms) {
        tc_error("mcast: rank %u: nothing moved for %d ms while waiting for %s "
                 "(a rank hung or stopped?)", mc->rank, mc->ctx->params.timeout_ms, w->what);
        tc_mcast_dump(mc);
        return TC_ERR_TIMEOUT;
    }
    tc_mcast_expire(mc, now);
    return TC_OK;
}

/* Every ring of this rank and the worker, as lib/arch/wait's idle step sees
 * them (mc->waiter is the wait that takes the step). */
static const uint64_t *tc_mcast_wait_watch(void *arg, uint64_t *old_p)
{
    tc_mcast_t *mc = arg;
    const tc_mcast_waiter_t *w = mc->waiter;
    tc_peer_t *peer;

    if ((w != NULL) && (w->credits_from != NULL)) {
        *old_p = w->consumed; /* a blocked send: its credits */
        return &w->credits_from->ctrl->consumed;
    }
    /* one word only: the ring that had frames last; the strategies'
     * deadlines bound what the others wait */
    peer = tc_group_peer(mc->group, mc->watch_rank);
    if (peer == NULL) {
        *old_p = mc->no_watch;
        return &mc->no_watch;
    }
    return peer->wait_ops.watch(peer->wait_ops.arg, old_p);
}

/* After arming, before blocking: a frame that landed, or credits a
 * blocked send waits for that came back, before the arm would otherwise
 * sleep until the next doorbell. */
static int tc_mcast_wait_ready(void *arg)
{
    tc_mcast_t *mc = arg;
    const tc_mcast_waiter_t *w = mc->waiter;
    unsigned n = 0;

    if ((w != NULL) && (w->credits_from != NULL) &&
        (tc_read_once(&w->credits_from->ctrl->consumed) != w->consumed)) {
        return 1;
    }
    if (tc_mcast_poll_peers(mc, (w != NULL) ? w->only : UINT32_MAX, &n) != TC_OK) {
        return 1; /* the caller's next poll reports it */
    }
    return n > 0;
}

static tc_status_t tc_mcast_wait_arm(void *arg)
{
    const tc_mcast_t *mc = arg;

    return (ucp_worker_arm(mc->ctx->worker) == UCS_OK) ? TC_OK : TC_ERR_NO_RESOURCE;
}

static void tc_mcast_wait_progress(void *arg)
{
    const tc_mcast_t *mc = arg;

    ucp_worker_progress(mc->ctx->worker);
}

/* Every ring of this rank, for lib/arch/wait (set once, at create). */
tc_wait_ops_t tc_mcast_wait_ops(tc_mcast_t *mc)
{
    return (tc_wait_ops_t){tc_mcast_wait_watch, tc_mcast_wait_ready, tc_mcast_wait_arm,
                           tc_mcast_wait_progress, mc->ctx->efd, mc};
}

/* Nothing to do: check (above; moved_ns is what the caller counts as
 * progress), then one idle step of the configured strategy (lib/arch/wait). */
tc_status_t tc_mcast_idle(tc_mcast_t *mc, tc_mcast_waiter_t *w, uint64_t moved_ns)
{
    tc_status_t status;

    status = tc_mcast_check(mc, w, moved_ns);
    if (status != TC_OK) {
        return status;
    }
    if (mc->wait == TC_WAIT_POLL) {
        ucp_worker_progress(mc->ctx->worker);
        return TC_OK;
    }
    mc->waiter = w;
    (void)tc_wait_idle(mc->wait, mc->ctx->params.spin_ns, &mc->wait_ops, &w->ws);
    mc->waiter = NULL;
    return TC_OK;
}

/* A wait ends: its blocking waits into the stats. */
void tc_mcast_waiter_done(tc_mcast_t *mc, const tc_mcast_waiter_t *w)
{
    mc->stats.wakeups += w->ws.wakeups;
}

/* One turn of a send blocked on dest's credits. Only dest's credits
 * coming back count as moving (moved_ns): other ranks' traffic must not
 * hide a dest that hung or stopped. Else every ring is polled, the checks
 * run and, with nothing landed, one idle step. */
static tc_status_t tc_mcast_put_wait(tc_mcast_t *mc, tc_mcast_waiter_t *w, uint32_t dest,
                                     uint64_t *moved_ns)
{
    const tc_peer_t *peer = w->credits_from;
    tc_status_t status;
    unsigned n;

    uint64_t consumed = tc_read_once(&peer->ctrl->consumed);

    if (consumed != w->consumed) {
        w->consumed         = consumed;
        *moved_ns           = tc_clock_mono_ns();
        w->ws.spin_start_ns = 0;
        return TC_OK;
    }
    status = tc_mcast_poll_peers(mc, dest, &n);
    if (status == TC_OK) {
        status = tc_mcast_check(mc, w, *moved_ns);
    }
    if ((status == TC_OK) && (n == 0)) {
        status = tc_mcast_idle(mc, w, *moved_ns);
    } else {
        w->ws.spin_start_ns = 0;
    }
    return status;
}

/* Put one frame to rank dest. A full ring does not block this rank: every
 * mailbox keeps being polled (what lands is queued), so credits flow in
 * every direction while we wait for ours. */
tc_status_t tc_mcast_put(tc_mcast_t *mc, uint32_t dest, uint8_t kind, uint32_t pkg_id,
                         uint16_t element, const void *args, uint32_t args_len,
                         const void *payload, uint32_t payload_len)
{
    tc_peer_t *peer = tc_group_peer(mc->group, dest);
    tc_mcast_waiter_t w = {"send credits", 0, {0, 0}, dest, NULL, 0};
    uint64_t moved_ns = 0;
    tc_status_t status;
    char what[64];

    if (peer == NULL) {
        tc_error("mcast: rank %u has no peer for rank %u", mc->rank, dest);
        return TC_ERR_INVALID_PARAM;
    }
    for (;;) {
        status = tc_peer_send_kind(peer, kind, pkg_id, element, args, args_len, payload,
                                   payload_len, 1);
        if (status != TC_ERR_NO_RESOURCE) {
            if ((status == TC_OK) && (w.credits_from != NULL)) {
                mc->last_rx_ns = tc_clock_mono_ns(); /* we were blocked: it moved */
            }
            if (status != TC_OK) {
                tc_error("mcast: rank %u: sending to rank %u failed (%s)", mc->rank, dest,
                         tc_status_str(status));
            }
            tc_mcast_waiter_done(mc, &w);
            return status;
        }
        if (w.credits_from == NULL) {
            moved_ns = tc_clock_mono_ns(); /* the timeout runs from here */
            mc->stats.blocked++;
            snprintf(what, sizeof(what), "rank %u to take a frame", dest);
            w.what         = what;
            w.credits_from = peer;
            w.consumed     = tc_read_once(&peer->ctrl->consumed);
        }
        status = tc_mcast_put_wait(mc, &w, dest, &moved_ns);
        if (status != TC_OK) {
            tc_mcast_waiter_done(mc, &w);
            return status;
        }
    }
}
