/*
 * The wait loop: how a peer waits for the next frame, for credits and for
 * its puts to leave. Each loop iteration is a couple of loads on the next
 * slot (mailbox.h); between looks, one idle step of the peer's wait
 * strategy (wait.h: poll, pause, WFE, UMWAIT, MWAITX, event, adaptive).
 * Multicast waits on many rings through the same tc_wait_ops_t.
 */
#include "runtime.h"
#include "clock.h"
#include "credits.h"
#include "dispatch.h"
#include "log.h"
#include "mailbox.h"
#include "peer_wait.h"
#include "send.h"
#include "wait.h"

static const uint64_t *tc_peer_wait_watch(void *arg, uint64_t *old_p)
{
    return tc_peer_watch_word(arg, old_p);
}

static int tc_peer_wait_ready(void *arg)
{
    return tc_peer_rx_peek(arg);
}

static tc_status_t tc_peer_wait_arm(void *arg)
{
    const tc_peer_t *peer = arg;

    return (ucp_worker_arm(peer->ctx->worker) == UCS_OK) ? TC_OK : TC_ERR_NO_RESOURCE;
}

static void tc_peer_wait_progress(void *arg)
{
    const tc_peer_t *peer = arg;

    ucp_worker_progress(peer->ctx->worker);
}

void tc_peer_wait_ops_init(tc_peer_t *peer)
{
    peer->wait_ops = (tc_wait_ops_t){tc_peer_wait_watch, tc_peer_wait_ready, tc_peer_wait_arm,
                                     tc_peer_wait_progress, peer->ctx->efd, peer};
}

/* tc_peer_wait on path (a constant) once the first look found nothing to
 * run here (got: what it found, 0 or -1): the loop, with its deadline
 * bookkeeping. */
static inline __attribute__((always_inline)) tc_status_t
tc_peer_wait_loop_as(tc_peer_t *peer, int got, unsigned *n_p, const unsigned path)
{
    tc_peer_waiter_t w = TC_PEER_WAITER("a frame");
    tc_wait_state_t ws = {0, 0};
    tc_status_t status;
    unsigned n = 0;
    int blocked;

    for (;;) {
        if ((got < 0) || (peer->owed & (TC_OWED_REPLY | TC_OWED_NACK))) {
            /* the validated path for what landed; else only what is owed (a
             * reply or NACK that found no free slot: its caller sends no
             * frame until it comes) */
            status = (got < 0) ? tc_peer_rx_landed(peer, &n) : tc_peer_progress(peer, 1, &n);
            if ((status != TC_OK) || (n > 0)) {
                break;
            }
        }
        /* an idle receiver hands back what it consumed, so a sender
         * waiting for its last credits is not stuck behind the batch */
        if (TC_UNLIKELY((++peer->idle_polls == 256) &&
                        (peer->rx_seq != peer->rx_reported))) {
            status = tc_credits_return(peer);
            if (status != TC_OK) {
                break;
            }
        }
        blocked = (peer->wait != TC_WAIT_POLL) &&
                  tc_wait_idle(peer->wait, peer->ctx->params.spin_ns, &peer->wait_ops, &ws);
        /* a blocking wait may last long: check deadlines every time */
        status = blocked ? tc_peer_waiter_check(peer, &w) : tc_peer_waiter_spin(peer, &w);
        if (status != TC_OK) {
            break;
        }
        /* one frame: looking at the next slot first would put a cache miss
         * between this frame and whatever the caller sends next */
        got = tc_rx_poll_next(peer, path);
        if (TC_LIKELY(got > 0)) { /* ran here, without a call */
            n      = 1;
            status = tc_peer_owes(peer) ? tc_peer_send_owed(peer) : TC_OK;
            break;
        }
    }
    if (!(path & TC_RX_PATH_UNCOUNTED)) {
        peer->stats.polls += w.iter + 1; /* the first look, then one a spin */
    }
    peer->stats.wakeups += ws.wakeups;
    if ((status == TC_OK) && (n_p != NULL)) {
        *n_p = n;
    }
    return status;
}

/* tc_peer_wait on path (a constant): the frame is there already (a stream,
 * a reply that beat us here): run it (counted as a poll where the counters
 * are on) and go, with no waiter to set up; else loop, out of line (the
 * first look's entry stays small). */
static inline __attribute__((always_inline)) tc_status_t
tc_peer_wait_as(tc_peer_t *peer, unsigned *n_p, const unsigned path,
                tc_status_t (*loop)(tc_peer_t *, int, unsigned *))
{
    int got = tc_rx_poll_path(peer, path, 1);
    tc_status_t status;

    if (TC_UNLIKELY(got <= 0)) {
        return loop(peer, got, n_p);
    }
    status = tc_peer_owes(peer) ? tc_peer_send_owed(peer) : TC_OK;
    if ((status == TC_OK) && (n_p != NULL)) {
        *n_p = 1;
    }
    return status;
}

#define TC_PEER_WAIT_INST(_name, _path)                                                       \
    static __attribute__((noinline)) tc_status_t                                              \
    tc_peer_wait_loop_##_name(tc_peer_t *peer, int got, unsigned *n_p)                        \
    {                                                                                         \
        return tc_peer_wait_loop_as(peer, got, n_p, (_path));                                 \
    }                                                                                         \
    static tc_status_t tc_peer_wait_##_name(tc_peer_t *peer, unsigned *n_p)                   \
    {                                                                                         \
        return tc_peer_wait_as(peer, n_p, (_path), tc_peer_wait_loop_##_name);                \
    }
TC_RX_PATH_INSTANCES(TC_PEER_WAIT_INST)
#undef TC_PEER_WAIT_INST

/* A failed peer's: what failed says, at once (nothing of it runs). */
static tc_status_t tc_peer_wait_failed(tc_peer_t *peer, unsigned *n_p)
{
    (void)n_p;
    return peer->failed;
}

static const tc_rx_wait_fn tc_peer_wait_paths[TC_RX_PATHS] = TC_RX_PATH_TABLE(tc_peer_wait_);

void tc_peer_wait_register(tc_context_t *ctx)
{
    memcpy(ctx->rx_wait_paths, tc_peer_wait_paths, sizeof(ctx->rx_wait_paths));
}

tc_status_t tc_peer_wait(tc_peer_t *peer, unsigned *n_p)
{
    return peer->rx_wait(peer, n_p);
}

tc_status_t tc_peer_call_wait(tc_peer_t *peer)
{
    tc_status_t status = tc_peer_wait(peer, NULL);

    return (status == TC_OK) ? tc_peer_call_check(peer, tc_clock_mono_ns()) : status;
}

tc_status_t tc_peer_flush(tc_peer_t *peer)
{
    tc_peer_waiter_t w = TC_PEER_WAITER("outgoing puts");
    tc_status_t status;

    status = tc_peer_progress(peer, 0, NULL);
    if ((status == TC_OK) && (peer->rx_seq != peer->rx_reported)) {
        status = tc_credits_return(peer);
    }
    if ((status != TC_OK) || !peer->progress) {
        return status;
    }

    /* Where puts are emulated, a put leaves only when the worker runs: keep
     * it running until nothing of ours waits to go out. A worker flush would
     * also wait for the peer's acknowledgement, which a peer that has moved
     * on (to a barrier, say) does not send. */
    while ((status == TC_OK) && (ucp_worker_progress(peer->ctx->worker) != 0)) {
        status = tc_peer_waiter_spin(peer, &w);
    }
    return status;
}

tc_status_t tc_peer_put_raw(tc_peer_t *peer, const void *buf, size_t len, uint64_t raddr)
{
    tc_peer_waiter_t w = TC_PEER_WAITER("a raw frame's put to leave its source");
    ucs_status_ptr_t sp;
    tc_status_t status;

    if (peer->tx_stage_mask != 0) {
        return tc_peer_put(peer, buf, len, raddr); /* the slot's credit guards it */
    }
    status = tc_peer_put_start(peer, buf, len, raddr, &sp);
    if ((status != TC_OK) || (sp == NULL)) {
        return status; /* failed, or done in the call: the source is free */
    }
    /* local completion only (the source may be reused), not the peer's */
    while ((status == TC_OK) && (ucp_request_check_status(sp) == UCS_INPROGRESS)) {
        ucp_worker_progress(peer->ctx->worker);
        status = tc_peer_waiter_spin(peer, &w);
    }
    ucp_request_free(sp);
    return status;
}

tc_status_t tc_credits_wait(tc_peer_t *peer)
{
    tc_peer_waiter_t w = TC_PEER_WAITER("credits");
    tc_status_t status = TC_OK;

    peer->stats.credit_waits++;
    while ((tc_peer_tx_free(peer) == 0) && (status == TC_OK)) {
        if (!peer->in_progress) {
            status = tc_peer_progress(peer, 0, NULL);
        }
        if (status == TC_OK) {
            status = tc_peer_waiter_spin(peer, &w);
        }
    }
    return status;
}

tc_status_t tc_peer_drain(tc_peer_t *peer)
{
    tc_peer_waiter_t w = TC_PEER_WAITER("the last credits");
    tc_status_t status = TC_OK;

    /* the peer may be draining towards us at the same time: what we owe it
     * goes back first, or both wait for each other */
    if (peer->rx_seq != peer->rx_reported) {
        status = tc_credits_return(peer);
    }
    for (;;) {
        tc_peer_note_credit(peer);
        if ((peer->tx_acked == peer->tx_seq) || (status != TC_OK)) {
            return status;
        }
        status = tc_peer_progress(peer, 0, NULL);
        if ((status == TC_OK) && (peer->rx_seq != peer->rx_reported)) {
            status = tc_credits_return(peer);
        }
        if (status == TC_OK) {
            status = tc_peer_waiter_spin(peer, &w);
        }
    }
}
