/*
 * Control frames: what one side tells the other in the stream, ahead of the
 * frames it concerns - its frame size and wait strategy changed (config), a
 * frame of the peer's was rejected and why (nack), it is closing (goodbye).
 * In the stream, so nothing has to be set by hand on both sides and a
 * sender is told at once instead of waiting for a reply that cannot come.
 * The three kinds and the NACK owed are registered with dispatch
 * (tc_ctrl_rx_register); recording a rejection is lib/core/reject.c's.
 */
#include "runtime.h"
#include "credits.h"
#include "log.h"
#include "mailbox.h"
#include "peer_wait.h"
#include "send.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ config */

static tc_status_t tc_ctrl_send_config(tc_peer_t *peer, uint8_t flags, uint32_t frame_size,
                                       tc_wait_t wait)
{
    return tc_peer_send_kind(peer, TC_KIND_CONFIG, frame_size,
                             (uint16_t)(flags | ((unsigned)wait << 8)), NULL, 0, NULL, 0, 0);
}

tc_status_t tc_peer_set_frame_size(tc_peer_t *peer, uint32_t frame_size)
{
    tc_status_t status;

    if ((frame_size < TC_FRAME_MIN_SIZE) || (frame_size % TC_FRAME_ALIGN) ||
        (frame_size > peer->tx_slot_size)) {
        tc_error("%s: frame size %u must be a multiple of %u in [%u, %u] (the peer's slots)",
                 peer->wireup->name, frame_size, TC_FRAME_ALIGN, TC_FRAME_MIN_SIZE,
                 peer->tx_slot_size);
        return TC_ERR_INVALID_PARAM;
    }
    if (frame_size == peer->tx_frame_size) {
        return TC_OK;
    }
    /* the config goes in the old size; every later frame in the new one */
    status = tc_ctrl_send_config(peer, TC_CONFIG_F_FRAME_SIZE, frame_size, peer->wait);
    if (status == TC_OK) {
        peer->tx_frame_size = frame_size;
        /* the templates' headers carry the old size: laid out anew at the
         * next send, so that the sends need not compare sizes */
        tc_peer_invalidate(peer, TC_PEER_CHANGED_FRAMES);
    }
    return status;
}

tc_status_t tc_peer_set_wait(tc_peer_t *peer, tc_wait_t mine)
{
    tc_status_t status = tc_context_check_wait(peer->ctx, mine);

    if ((status != TC_OK) || (mine == peer->wait)) {
        return status;
    }
    /* The peer rings (or stops ringing) once it reads this; a frame it put
     * before wakes a blocked wait at its next bounded timeout at worst. */
    status = tc_ctrl_send_config(peer, TC_CONFIG_F_WAIT, 0, mine);
    if (status == TC_OK) {
        peer->wait = mine;
    }
    return status;
}

/* A config frame: why not, or NULL and the new frame size noted
 * (peer->rx_resize), which the mailbox takes once the frame is consumed. */
static const char *tc_ctrl_rx_config(void *arg, tc_peer_t *peer, const char *frame,
                                     const tc_frame_hdr_t *hdr, tc_status_t *status_p)
{
    unsigned flags = hdr->element & 0xffu, wait = hdr->element >> 8;

    (void)arg;
    (void)frame;
    *status_p = TC_ERR_BAD_FRAME;

    if (flags & ~(TC_CONFIG_F_FRAME_SIZE | TC_CONFIG_F_WAIT)) {
        return "config frame with unknown flags";
    }
    if ((flags & TC_CONFIG_F_FRAME_SIZE) &&
        ((hdr->pkg_id < TC_FRAME_MIN_SIZE) || (hdr->pkg_id % TC_FRAME_ALIGN) ||
         (hdr->pkg_id > peer->rx_slot_size))) {
        return "config frame with a frame size that does not fit the slots";
    }
    if ((flags & TC_CONFIG_F_WAIT) && (wait > TC_WAIT_ADAPTIVE)) {
        return "config frame with an unknown wait strategy";
    }
    if (flags & TC_CONFIG_F_WAIT) {
        tc_peer_set_doorbell(peer, (wait == TC_WAIT_EVENT) || (wait == TC_WAIT_ADAPTIVE));
    }
    peer->rx_resize = (flags & TC_CONFIG_F_FRAME_SIZE) ? hdr->pkg_id : 0;
    return NULL;
}

/* -------------------------------------------------------------------- nack */

tc_status_t tc_peer_ctrl_alloc(tc_peer_t *peer)
{
    peer->control = calloc(1, sizeof(*peer->control));
    return (peer->control != NULL) ? TC_OK : TC_ERR_NO_MEMORY;
}

void tc_peer_ctrl_free(tc_peer_t *peer)
{
    free(peer->control);
}

tc_status_t tc_ctrl_send_nack(tc_peer_t *peer)
{
    tc_frame_layout_t layout = {0, 0, 0, 0};
    const tc_nack_owed_t *nack;
    tc_frame_offsets_t off;
    uint32_t room, len;
    tc_status_t status;

    (void)tc_frame_layout(&layout, peer->tx_slot_size, &off);
    room = tc_peer_frame_room(peer, off.payload_off);
    /* oldest first, as the frames came; what finds no free slot goes later */
    while (((nack = tc_peer_nack_head(peer)) != NULL) && (tc_peer_tx_free(peer) > 0)) {
        len    = (uint32_t)strlen(nack->reason);
        len    = (len < room) ? len : room; /* the status always goes; the words if they fit */
        status = tc_peer_send_kind(peer, TC_KIND_NACK, nack->seq, (uint16_t)-nack->status, NULL,
                                   0, nack->reason, len, 1);
        if (status == TC_ERR_NO_RESOURCE) {
            break;
        }
        tc_peer_nack_pop(peer);
        if (status != TC_OK) {
            tc_peer_nack_clear(peer); /* the peer failed or closed: none of the rest would go */
            return status;
        }
    }
    return TC_OK;
}

static const char *tc_ctrl_rx_nack(void *arg, tc_peer_t *peer, const char *frame,
                                   const tc_frame_hdr_t *hdr, tc_status_t *status_p)
{
    int status = -(int)hdr->element;

    (void)arg;
    *status_p = TC_ERR_BAD_FRAME;
    if ((status >= 0) || (status <= TC_ERR_LAST)) {
        return "nack frame without an error status";
    }
    /* the peer's words are data: kept escaped, for the log and the caller */
    tc_log_text(frame + hdr->payload_off, hdr->payload_len, peer->control->nack_rx.reason,
                sizeof(peer->control->nack_rx.reason));
    peer->control->nack_rx.seq    = hdr->pkg_id;
    peer->control->nack_rx.status = (tc_status_t)status;
    peer->control->nack_unseen    = 1;
    return NULL;
}

tc_status_t tc_ctrl_nack_for(tc_peer_t *peer, uint32_t first, uint32_t last, const char *what)
{
    if (!peer->control->nack_unseen || (peer->control->nack_rx.seq - first > last - first)) {
        return TC_OK;
    }
    peer->control->nack_unseen = 0;
    tc_error("%s rejected %s (frame %u): %s%s%s", peer->wireup->name, what, peer->control->nack_rx.seq,
             tc_status_str(peer->control->nack_rx.status), peer->control->nack_rx.reason[0] ? ": " : "",
             peer->control->nack_rx.reason);
    return peer->control->nack_rx.status;
}

int tc_ctrl_nack_again(tc_peer_t *peer, uint32_t seq)
{
    if (!peer->control->nack_unseen || (peer->control->nack_rx.seq != seq) ||
        (peer->control->nack_rx.status != TC_ERR_AGAIN)) {
        return 0;
    }
    peer->control->nack_unseen = 0;
    return 1;
}

tc_status_t tc_ctrl_nack_late(tc_peer_t *peer, uint32_t seq, const char *what, const char *why)
{
    tc_status_t status;

    /* never dropped (it stands for an answer owed): with the queue full,
     * what it holds goes first and this one waits for room */
    if (tc_peer_nack_full(peer)) {
        status = tc_ctrl_send_nack(peer);
        if (status != TC_OK) {
            return status;
        }
        if (tc_peer_nack_full(peer)) {
            return TC_ERR_AGAIN;
        }
    }
    tc_warn("%s: refused its %s (frame %u) after all: %s", peer->wireup->name, what, seq, why);
    tc_peer_nack(peer, seq, TC_ERR_OUT_OF_RANGE, why);
    return TC_OK;
}

tc_status_t tc_peer_last_nack(const tc_peer_t *peer, tc_nack_t *nack_p)
{
    if (peer->control->nack_rx.status == TC_OK) { /* no NACK came (it always carries an error) */
        return TC_ERR_NOT_FOUND;
    }
    *nack_p = peer->control->nack_rx;
    return TC_OK;
}

/* ----------------------------------------------------------------- goodbye */

static const char *tc_ctrl_rx_goodbye(void *arg, tc_peer_t *peer, const char *frame,
                                      const tc_frame_hdr_t *hdr, tc_status_t *status_p)
{
    (void)arg;
    (void)frame;
    (void)hdr;
    (void)status_p;
    peer->goodbye_seen = 1;
    if (peer->failed == TC_OK) {
        (void)tc_peer_fail(peer, TC_ERR_CLOSED); /* its calls return this, and nothing is logged */
    }
    return NULL;
}

/* ---------------------------------------------------------- registration */

/* config and goodbye are nothing a call waits for: a wait goes on */
static const tc_rx_kind_def_t tc_ctrl_rx_kinds[] = {
    {TC_KIND_CONFIG, tc_ctrl_rx_config, TC_RX_KIND_F_QUIET},
    {TC_KIND_NACK, tc_ctrl_rx_nack, 0},
    {TC_KIND_GOODBYE, tc_ctrl_rx_goodbye, TC_RX_KIND_F_QUIET},
};

tc_status_t tc_ctrl_rx_register(tc_context_t *ctx)
{
    return tc_rx_register_kinds(ctx, tc_ctrl_rx_kinds, TC_ARRAY_SIZE(tc_ctrl_rx_kinds), NULL,
                                TC_OWED_NACK, tc_ctrl_send_nack);
}

