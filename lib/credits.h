/*
 * Credits, inline: what the peer has consumed of ours, and how many slots of
 * its ring are free. The slow parts (returning credits, waiting for them,
 * draining) are in credits.c.
 */
#ifndef TC_CREDITS_H
#define TC_CREDITS_H

#include "runtime.h"

static inline void tc_peer_note_ack(tc_peer_t *peer, uint32_t ack)
{
    if ((int32_t)(ack - peer->tx_acked) > 0) {
        peer->tx_acked = ack;
    }
}

static inline uint32_t tc_peer_tx_free(tc_peer_t *peer)
{
    if (peer->tx_seq - peer->tx_acked >= peer->tx_slots) {
        tc_peer_note_ack(peer, (uint32_t)peer->ctrl->consumed);
    }
    return peer->tx_slots - (peer->tx_seq - peer->tx_acked);
}

/* Put our consumed count into the peer's ctrl line (an explicit credit). */
tc_status_t tc_credits_return(tc_peer_t *peer);
/* Wait for a free slot in the peer's ring, running what arrives meanwhile
 * so two peers that stream at each other cannot deadlock. */
tc_status_t tc_credits_wait(tc_peer_t *peer);

#endif
