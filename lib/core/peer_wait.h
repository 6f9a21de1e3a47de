/*
 * The bookkeeping every wait loop of a peer shares (frames, credits, puts).
 */
#ifndef TC_PEER_WAIT_H
#define TC_PEER_WAIT_H

#include "runtime.h"
#include "log.h"

/* One call per iteration progresses the worker where puts need the target,
 * and every TC_CHECK_EVERY calls delivers endpoint errors, checks the peer is alive (once a millisecond)
 * and gives up after timeout_ms of waiting. The clock is read only once a
 * wait drags on. */
typedef struct tc_peer_waiter {
    const char *what;
    uint64_t    iter;
    uint64_t    start_ns;
    uint64_t    next_alive_ns;
} tc_peer_waiter_t;

#define TC_PEER_WAITER(_what) {(_what), 0, 0, 0}

/* Deliver endpoint errors, check the peer is alive (once a millisecond),
 * give up after timeout_ms of waiting. */
tc_status_t tc_peer_waiter_check(tc_peer_t *peer, tc_peer_waiter_t *w);

/* A blocking call (tc_jam_call, tc_jam_prepare, tc_ried_ship, ...) ends by
 * its deadline, call_timeout_ms from its start, however often the peer
 * speaks: begin sets it (TRUE) unless a call this one is part of did (its
 * own holds); end, given what begin said, clears it. */
int         tc_peer_call_begin(tc_peer_t *peer, const char *what);
void        tc_peer_call_end(tc_peer_t *peer, int began);
/* TC_ERR_TIMEOUT, logged, once the deadline of the call under way passed
 * (now: the monotonic clock); waiters check it with the silence's timeout,
 * the call's loop after every frame. */
tc_status_t tc_peer_call_check(tc_peer_t *peer, uint64_t now);
/* One wait of a call (tc_peer_wait), then its deadline's check. */
tc_status_t tc_peer_call_wait(tc_peer_t *peer);

static inline tc_status_t tc_peer_waiter_spin(tc_peer_t *peer, tc_peer_waiter_t *w)
{
    if (peer->progress) {
        ucp_worker_progress(peer->ctx->worker);
    }
    if (TC_UNLIKELY((++w->iter % TC_CHECK_EVERY) == 0)) {
        return tc_peer_waiter_check(peer, w);
    }
    return TC_OK;
}

/* A raw frame's put (lib/core/send.c): where frames are otherwise copied from
 * one staging frame, it returns once the put has left its source (local
 * completion); elsewhere a plain tc_peer_put. */
tc_status_t tc_peer_put_raw(tc_peer_t *peer, const void *buf, size_t len, uint64_t raddr);

/* tc_peer_wait's instances per receive path, into the context's table
 * (ctx->rx_wait_paths) that tc_rx_path_set chooses a peer's rx_wait from:
 * the wait loop calls into dispatch, never the other way. */
void tc_peer_wait_register(tc_context_t *ctx);

/* The peer's mailbox and worker as lib/arch/wait's idle step sees them. */
void tc_peer_wait_ops_init(tc_peer_t *peer);

#endif
