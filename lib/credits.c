/*
 * Credits: a sender may have at most tx_slots frames the peer has not
 * consumed. The peer says how many it consumed in every frame's ack field
 * and, when it has nothing to send, with a put of its consumed count into
 * our ctrl line.
 */
#include "runtime.h"
#include "credits.h"
#include "peer_wait.h"
#include "send.h"

tc_status_t tc_credits_return(tc_peer_t *peer)
{
    tc_status_t status;

    *peer->credit_src = peer->rx_seq;
    status = tc_peer_put(peer, peer->credit_src, sizeof(uint64_t),
                         peer->remote_base + offsetof(tc_mbox_ctrl_t, consumed));
    if (status == TC_OK) {
        peer->rx_reported = peer->rx_seq;
        peer->stats.credit_puts++;
    }
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

/* ------------------------------------------------------------------ send */

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
        tc_peer_note_ack(peer, (uint32_t)peer->ctrl->consumed);
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
