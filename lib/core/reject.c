/*
 * Rejections: a frame of the peer's that this side refuses is counted, the
 * first few logged, and its NACK queued (TC_OWED_NACK: lib/core/control.c
 * sends the queue, oldest first, once the progress call's frames are done).
 * Nothing here sends, so the receive path records a rejection without
 * reaching up into control.
 */
#include "runtime.h"
#include "log.h"

#include <stdio.h>
#include <stdlib.h>

tc_status_t tc_peer_reject_alloc(tc_peer_t *peer, uint32_t slots)
{
    peer->reject = calloc(1, sizeof(*peer->reject));
    if (peer->reject == NULL) {
        return TC_ERR_NO_MEMORY;
    }
    peer->reject->nack_q = calloc(slots, sizeof(*peer->reject->nack_q));
    if (peer->reject->nack_q == NULL) {
        goto err_free_reject;
    }
    peer->reject->nack_max = slots; /* a power of two (tc_context_create) */
    return TC_OK;

err_free_reject:
    free(peer->reject);
    peer->reject = NULL;
    return TC_ERR_NO_MEMORY;
}

void tc_peer_reject_free(tc_peer_t *peer)
{
    free(peer->reject->nack_q);
    free(peer->reject);
}

void tc_peer_note_reject(tc_peer_t *peer, const char *reason)
{
    snprintf(peer->reject->last, sizeof(peer->reject->last), "%s", reason);
    if (peer->stats.rx_rejected++ < TC_REJECT_LOG_MAX) {
        tc_warn("%s: rejected frame in slot %u (expected seq %u): %s", peer->wireup->name,
                peer->rx_seq & (peer->rx_slots - 1), peer->rx_seq, reason);
    }
}

int tc_peer_nack_full(const tc_peer_t *peer)
{
    return peer->reject->nack_n == peer->reject->nack_max;
}

void tc_peer_nack(tc_peer_t *peer, uint32_t seq, tc_status_t status, const char *reason)
{
    tc_peer_reject_t *rj = peer->reject;
    tc_nack_owed_t *nack;

    /* a NACK always carries an error (the peer refuses one without, and
     * NACKs back): a caller with nothing to say calls tc_peer_note_reject */
    if ((status >= 0) || (status <= TC_ERR_LAST)) {
        status = TC_ERR_PROTOCOL;
    }
    if (peer->goodbye_seen) {
        return; /* the peer reads nothing more */
    }
    if (tc_peer_nack_full(peer)) {
        /* the oldest stay: they go out in order, and a sender hears of its
         * earliest refused frame first */
        if (peer->stats.nacks_dropped++ == 0) {
            tc_warn("%s: NACK of frame %u dropped: %u NACKs owed already (its ring has no "
                    "free slot for them); later ones only counted", peer->wireup->name, seq,
                    rj->nack_n);
        }
        return;
    }
    nack         = &rj->nack_q[(rj->nack_head + rj->nack_n++) & (rj->nack_max - 1)];
    nack->seq    = seq;
    nack->status = status;
    snprintf(nack->reason, sizeof(nack->reason), "%s", reason);
    peer->owed |= TC_OWED_NACK;
}

const tc_nack_owed_t *tc_peer_nack_head(const tc_peer_t *peer)
{
    return (peer->reject->nack_n > 0) ? &peer->reject->nack_q[peer->reject->nack_head] : NULL;
}

void tc_peer_nack_pop(tc_peer_t *peer)
{
    tc_peer_reject_t *rj = peer->reject;

    rj->nack_head = (rj->nack_head + 1) & (rj->nack_max - 1);
    if (--rj->nack_n == 0) {
        peer->owed &= ~TC_OWED_NACK;
    }
}

void tc_peer_nack_clear(tc_peer_t *peer)
{
    peer->reject->nack_n = 0;
    peer->owed &= ~TC_OWED_NACK;
}

void tc_peer_reject(tc_peer_t *peer, tc_status_t status, const char *reason)
{
    tc_peer_note_reject(peer, reason);
    tc_peer_nack(peer, peer->rx_seq, status, reason);
}
