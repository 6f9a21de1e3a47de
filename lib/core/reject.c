/*
 * Rejections: a frame of the peer's that this side refuses is counted, the
 * first few logged, and a NACK owed (TC_OWED_NACK: lib/core/control.c sends it
 * once the progress call's frames are done). Nothing here sends, so the
 * receive path records a rejection without reaching up into control.
 */
#include "runtime.h"
#include "log.h"

#include <stdio.h>

void tc_peer_note_reject(tc_peer_t *peer, const char *reason)
{
    snprintf(peer->reject->last, sizeof(peer->reject->last), "%s", reason);
    if (peer->stats.rx_rejected++ < TC_REJECT_LOG_MAX) {
        tc_warn("%s: rejected frame in slot %u (expected seq %u): %s", peer->wireup->name,
                peer->rx_seq & (peer->rx_slots - 1), peer->rx_seq, reason);
    }
}

void tc_peer_nack(tc_peer_t *peer, uint32_t seq, tc_status_t status, const char *reason)
{
    /* a NACK always carries an error (the peer refuses one without, and
     * NACKs back): a caller with nothing to say calls tc_peer_note_reject */
    if ((status >= 0) || (status <= TC_ERR_LAST)) {
        status = TC_ERR_PROTOCOL;
    }
    /* one answer pending at a time: the first rejection of a burst (dispatch
     * sends it before it looks at the next frame, so a burst is left only
     * where the peer's ring has no free slot); none once the peer said
     * goodbye (it reads nothing more) */
    if (!(peer->owed & TC_OWED_NACK) && !peer->goodbye_seen) {
        peer->owed |= TC_OWED_NACK;
        peer->reject->nack_tx.seq     = seq;
        peer->reject->nack_tx.status  = status;
        snprintf(peer->reject->nack_tx.reason, sizeof(peer->reject->nack_tx.reason), "%s", reason);
    }
}

void tc_peer_reject(tc_peer_t *peer, tc_status_t status, const char *reason)
{
    tc_peer_note_reject(peer, reason);
    tc_peer_nack(peer, peer->rx_seq, status, reason);
}
