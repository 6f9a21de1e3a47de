/*
 * Credits: a sender may have at most tx_slots frames the peer has not
 * consumed. The peer says how many it consumed in every frame's ack field
 * and, when it has nothing to send, with a put of its consumed count into
 * our ctrl line.
 */
#include "runtime.h"
#include "credits.h"
#include "log.h"
#include "peer_wait.h"
#include "send.h"

void tc_peer_ack_refused(tc_peer_t *peer, uint32_t ack)
{
    if (peer->stats.rx_bad_acks && (ack == peer->bad_ack)) {
        return; /* the same credit word, read again while the ring is full */
    }
    peer->bad_ack = ack;
    if (peer->stats.rx_bad_acks++ < TC_REJECT_LOG_MAX) {
        tc_warn("%s: refused the peer's credit (protocol error): it acknowledges %u frames, "
                "this side sent %u", peer->wireup->name, ack, peer->tx_seq);
    }
}

tc_status_t tc_credits_return(tc_peer_t *peer)
{
    tc_status_t status;

    if (peer->signal == TC_SIGNAL_STORE) {
        /* the frames go by stores: so does the credit word (one aligned store) */
        __atomic_store_n(peer->remote_consumed_ptr, (uint64_t)peer->rx_seq, __ATOMIC_RELEASE);
        status = TC_OK;
    } else {
        *peer->credit_src = peer->rx_seq;
        status = tc_peer_put(peer, peer->credit_src, sizeof(uint64_t),
                             peer->remote_base + offsetof(tc_mbox_ctrl_t, consumed));
    }
    if (status == TC_OK) {
        peer->rx_reported = peer->rx_seq;
        peer->stats.credit_puts++;
    }
    return status;
}

/* ------------------------------------------------------------------ send */

