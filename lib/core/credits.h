/*
 * Credits, inline: what the peer has consumed of ours, and how many slots of
 * its ring are free. The slow parts (returning credits, waiting for them,
 * draining) are in credits.c.
 */
#ifndef TC_CREDITS_H
#define TC_CREDITS_H

#include "runtime.h"
#include "log.h"

/* Does ack acknowledge no more frames than this side sent? An ack beyond
 * tx_seq would hand out slots of frames never sent: the ring's bound gone. */
static inline int tc_peer_ack_sane(const tc_peer_t *peer, uint32_t ack)
{
    return (int32_t)(peer->tx_seq - ack) >= 0;
}

/* The peer's credit word acknowledged more than was sent: refused, counted
 * (rx_bad_acks, once per value read) and logged. A frame whose ack does is
 * rejected by dispatch instead. */
void tc_peer_ack_refused(tc_peer_t *peer, uint32_t ack);

/* A frame's ack, which dispatch checked (tc_peer_ack_sane) before the frame
 * ran or was refused. */
static inline void tc_peer_note_ack(tc_peer_t *peer, uint32_t ack)
{
    if ((int32_t)(ack - peer->tx_acked) > 0) {
        peer->tx_acked = ack;
    }
}

/* The credit word the peer puts into our ctrl line: checked here. */
static inline void tc_peer_note_credit(tc_peer_t *peer)
{
    uint32_t ack = (uint32_t)tc_read_once(&peer->ctrl->consumed);

    if ((int32_t)(ack - peer->tx_acked) > 0) {
        if (TC_UNLIKELY(!tc_peer_ack_sane(peer, ack))) {
            tc_peer_ack_refused(peer, ack);
            return;
        }
        peer->tx_acked = ack;
    }
}

static inline uint32_t tc_peer_tx_free(tc_peer_t *peer)
{
    if (peer->tx_seq - peer->tx_acked >= peer->tx_slots) {
        tc_peer_note_credit(peer);
    }
    return peer->tx_slots - (peer->tx_seq - peer->tx_acked);
}

/* Put our consumed count into the peer's ctrl line (an explicit credit). */
tc_status_t tc_credits_return(tc_peer_t *peer);
/* Wait for a free slot in the peer's ring, running what arrives meanwhile
 * so two peers that stream at each other cannot deadlock. */
tc_status_t tc_credits_wait(tc_peer_t *peer);

#endif
