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
#include "shm_guard.h"

#include <stdio.h>
#include <string.h>

/* ----------------------------------------------------------------- checks */

/* The peer's mapped mailbox: a store that faulted there (the guard took it
 * into anonymous memory) or an object resized since connect fails the peer. */
static tc_status_t tc_peer_check_mapped(tc_peer_t *peer)
{
    char buf[160];
    const char *why = tc_shm_object_changed(&peer->wireup->remote_obj, buf, sizeof(buf));

    if (tc_shm_guard_hit(peer->wireup->remote_guard)) {
        /* the mailbox's first byte here: the ring's, less the ring's offset */
        uintptr_t mbox = (uintptr_t)peer->remote_ring_ptr - (peer->remote_ring - peer->remote_base);

        tc_error("%s: its mailbox's shared memory went away under this side's access at "
                 "byte %lld of the mailbox (the peer shrank or removed the object); the "
                 "access went to anonymous memory", peer->wireup->name,
                 (long long)(tc_shm_guard_fault_addr(peer->wireup->remote_guard) - mbox));
        (void)tc_peer_fail(peer, TC_ERR_PEER_FAILED);
    } else if (why != NULL) {
        tc_error("%s: %s", peer->wireup->name, why);
        (void)tc_peer_fail(peer, TC_ERR_PEER_FAILED);
    }
    return peer->failed;
}

tc_status_t tc_peer_check_alive(tc_peer_t *peer)
{
    tc_status_t status;

    if ((peer->failed != TC_OK) || (tc_peer_check_mapped(peer) != TC_OK)) {
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
    if ((peer->ep_error != UCS_OK) && (tc_boot_peer_bye(peer->wireup->boot) != NULL)) {
        (void)tc_peer_fail(peer, TC_ERR_CLOSED);
        return peer->failed;
    }
    if (peer->ep_error != UCS_OK) {
        tc_error("%s: endpoint failed: %s", peer->wireup->name, ucs_status_string(peer->ep_error));
        (void)tc_peer_fail(peer, TC_ERR_PEER_FAILED);
        return peer->failed;
    }
    status = peer->wireup->boot->ops->check_peer(peer->wireup->boot);
    if (status == TC_ERR_CLOSED) {
        (void)tc_peer_fail(peer, TC_ERR_CLOSED);
        return peer->failed;
    }
    if (status != TC_OK) {
        tc_error("%s: the peer closed its bootstrap connection (process gone?)",
                 peer->wireup->name);
        (void)tc_peer_fail(peer, TC_ERR_PEER_FAILED);
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
    return peer->reject->last;
}

const char *tc_peer_name(const tc_peer_t *peer)
{
    return peer->wireup->name;
}

int tc_peer_progress_needed(const tc_peer_t *peer, const char **why_p)
{
    if (why_p != NULL) {
        *why_p = peer->wireup->progress_why;
    }
    return peer->progress;
}

tc_signal_mode_t tc_peer_signal(const tc_peer_t *peer)
{
    return peer->signal;
}

const char *tc_peer_transports(const tc_peer_t *peer)
{
    return peer->wireup->transports;
}

int tc_peer_call_begin(tc_peer_t *peer, const char *what)
{
    const tc_context_params_t *params = &peer->ctx->params;
    int ms = (params->call_timeout_ms > 0) ? params->call_timeout_ms : params->timeout_ms;

    if (peer->call_deadline_ns != 0) {
        return 0; /* part of a call under way: its deadline holds */
    }
    peer->call_deadline_ns = tc_clock_mono_ns() + 1000000ull * (uint64_t)ms;
    peer->call_what        = what;
    return 1;
}

void tc_peer_call_end(tc_peer_t *peer, int began)
{
    if (began) {
        peer->call_deadline_ns = 0;
    }
}

tc_status_t tc_peer_call_check(tc_peer_t *peer, uint64_t now)
{
    const tc_context_params_t *params = &peer->ctx->params;

    if ((peer->call_deadline_ns == 0) || (now <= peer->call_deadline_ns)) {
        return TC_OK;
    }
    /* frames kept coming (each restarts the silence's timeout), but not
     * the one the call waits for */
    tc_error("%s: %s: not done within %d ms of its start (the call's deadline; the peer "
             "sent other frames meanwhile)", peer->wireup->name, peer->call_what,
             (params->call_timeout_ms > 0) ? params->call_timeout_ms : params->timeout_ms);
    return TC_ERR_TIMEOUT;
}

tc_status_t tc_peer_waiter_check(tc_peer_t *peer, tc_peer_waiter_t *w)
{
    tc_status_t status;
    uint64_t now;

    ucp_worker_progress(peer->ctx->worker); /* delivers endpoint errors */
    if (peer->failed != TC_OK) {
        return peer->failed;
    }
    now = tc_clock_mono_ns();
    status = tc_peer_call_check(peer, now);
    if (status != TC_OK) {
        return status;
    }
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
                 peer->wireup->name, peer->ctx->params.timeout_ms, w->what);
        /* the ring's state is unknown now: the peer is done for */
        (void)tc_peer_fail(peer, TC_ERR_TIMEOUT);
        return TC_ERR_TIMEOUT;
    }
    return TC_OK;
}
