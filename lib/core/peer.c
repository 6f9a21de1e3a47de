/*
 * A peer: the connection to one other process once wireup made it - its
 * liveness, the checks of a wait that drags on, what can be set on it
 * locally (prefetch) and what can be asked of it. Nothing here sends: the
 * wait loops call it. The data path is in mailbox, credits, send (which
 * also sets the placement its delivery depends on), dispatch and
 * peer_wait; connect and teardown in wireup; what changes on both sides
 * (frame size, wait strategy) and the goodbye in control.
 */
#include "runtime.h"
#include "boot.h"
#include "clock.h"
#include "log.h"
#include "mailbox.h"
#include "peer_wait.h"

#include <stdio.h>
#include <string.h>

/* ----------------------------------------------------------------- checks */

tc_status_t tc_peer_check_alive(tc_peer_t *peer)
{
    tc_status_t status;

    if (peer->failed != TC_OK) {
        return peer->failed;
    }
    /* what the peer put before it went is read first: its goodbye, if it
     * said one, makes this a clean close */
    if (tc_peer_rx_peek(peer)) {
        return TC_OK;
    }
    /* a peer that left saying why on the bootstrap (tc_boot_say_bye: its
     * process ends without a goodbye) closed, as after a goodbye: its
     * endpoint's failure is that exit, and nothing is logged */
    if ((peer->ep_error != UCS_OK) && (tc_boot_peer_bye(peer->boot) != NULL)) {
        peer->failed = TC_ERR_CLOSED;
        return peer->failed;
    }
    if (peer->ep_error != UCS_OK) {
        tc_error("%s: endpoint failed: %s", peer->name, ucs_status_string(peer->ep_error));
        peer->failed = TC_ERR_PEER_FAILED;
        return peer->failed;
    }
    status = peer->boot->ops->check_peer(peer->boot);
    if (status == TC_ERR_CLOSED) {
        peer->failed = TC_ERR_CLOSED;
        return peer->failed;
    }
    if (status != TC_OK) {
        tc_error("%s: the peer closed its bootstrap connection (process gone?)",
                 peer->name);
        peer->failed = TC_ERR_PEER_FAILED;
    }
    return peer->failed;
}

void tc_peer_set_sw_prefetch(tc_peer_t *peer, int on)
{
    peer->sw_prefetch = !!on;
}

void tc_peer_stats(const tc_peer_t *peer, tc_peer_stats_t *stats_p)
{
    *stats_p          = peer->stats;
    stats_p->counters = peer->ctx->params.counters;
}

const char *tc_peer_last_reject(const tc_peer_t *peer)
{
    return peer->last_reject;
}

const char *tc_peer_name(const tc_peer_t *peer)
{
    return peer->name;
}

int tc_peer_progress_needed(const tc_peer_t *peer, const char **why_p)
{
    if (why_p != NULL) {
        *why_p = peer->progress_why;
    }
    return peer->progress;
}

tc_signal_mode_t tc_peer_signal(const tc_peer_t *peer)
{
    return peer->signal;
}

const char *tc_peer_transports(const tc_peer_t *peer)
{
    return peer->transports;
}

tc_status_t tc_peer_waiter_check(tc_peer_t *peer, tc_peer_waiter_t *w)
{
    uint64_t now;

    ucp_worker_progress(peer->ctx->worker); /* delivers endpoint errors */
    if (peer->failed != TC_OK) {
        return peer->failed;
    }
    now = tc_clock_mono_ns();
    if (w->start_ns == 0) {
        w->start_ns = w->next_alive_ns = now;
    }
    if (now >= w->next_alive_ns) {
        w->next_alive_ns = now + 1000000ull;
        if (tc_peer_check_alive(peer) != TC_OK) {
            return peer->failed;
        }
    }
    if (now - w->start_ns > 1000000ull * (uint64_t)peer->ctx->params.timeout_ms) {
        tc_error("%s: nothing for %d ms while waiting for %s (peer hung or stopped?)",
                 peer->name, peer->ctx->params.timeout_ms, w->what);
        /* the ring's state is unknown now: the peer is done for */
        peer->failed = TC_ERR_TIMEOUT;
        return TC_ERR_TIMEOUT;
    }
    return TC_OK;
}
