/*
 * Multicast's receive queue: frames copied out of the rings where they land
 * (inside tc_peer_progress), polling every ring of this rank into it, and
 * the credits that go back as the rings drain (see mcast_fwd.h).
 */
#define _GNU_SOURCE
#include "mcast_fwd_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- receiving */

/* Inside tc_peer_progress (dispatch's handler of both kinds, registered by
 * tc_mcast_create): copy the frame out (its slot goes back at once) and
 * queue it. Nothing here sends; past the queue's cap it refuses the frame
 * (dispatch counts and NACKs it), and what it cannot allocate it counts and
 * drops (the ack tree's timeouts see both). */
const char *tc_mcast_rx(void *arg, tc_peer_t *peer, const char *frame, const tc_frame_hdr_t *hdr,
                        tc_status_t *status_p)
{
    tc_mcast_t *mc = arg;
    size_t args_room = TC_ALIGN_UP((size_t)hdr->args_len, 8);
    size_t bytes = sizeof(tc_mcast_item_t) + args_room + hdr->payload_len;
    tc_mcast_item_t *item;

    if (mc->queued_bytes + bytes > mc->queue_cap) {
        /* a peer that floods while a send of ours waits on it */
        mc->stats.rejected++;
        snprintf(peer->reject->why, sizeof(peer->reject->why), "multicast queue full: %zu of %zu bytes "
                 "wait to run here, a %zu-byte frame would pass the cap", mc->queued_bytes,
                 mc->queue_cap, bytes);
        *status_p = TC_ERR_NO_RESOURCE;
        return peer->reject->why;
    }
    item = malloc(bytes);
    if (item == NULL) {
        if (mc->stats.rejected++ < TC_MCAST_LOG_MAX) {
            tc_error("mcast: no memory to queue a %u-byte frame from rank %u; dropped",
                     hdr->frame_size, peer->peer_rank);
        }
        return NULL;
    }
    item->next        = NULL;
    item->kind        = hdr->kind;
    item->from        = peer->peer_rank;
    item->pkg_id      = hdr->pkg_id;
    item->element     = hdr->element;
    item->args_len    = hdr->args_len;
    item->payload_len = hdr->payload_len;
    memcpy(item->data, frame + TC_FRAME_HDR_SIZE, hdr->args_len); /* offsets validated */
    memcpy(item->data + args_room, frame + hdr->payload_off, hdr->payload_len);
    if (mc->tail != NULL) {
        mc->tail->next = item;
    } else {
        mc->head = item;
    }
    mc->tail = item;
    mc->stats.queued++;
    mc->queued_bytes += bytes;
    if (mc->queued_bytes > mc->queued_bytes_max) {
        mc->queued_bytes_max = mc->queued_bytes;
    }
    return NULL;
}

size_t tc_mcast_item_bytes(const tc_mcast_item_t *item)
{
    return sizeof(*item) + TC_ALIGN_UP((size_t)item->args_len, 8) + item->payload_len;
}

/* Credits go back to a sender as a bare put, which a sender blocked in
 * its worker's fd cannot see land: when it waits on events, ring it, as
 * for a frame. Unicast senders never block on the fd for credits (they
 * spin), multicast ones do (tc_mcast_put), so this is multicast's own. */
static tc_status_t tc_mcast_credits_rung(tc_peer_t *peer, uint32_t reported_before)
{
    if ((peer->rx_reported == reported_before) || !peer->doorbell) {
        return TC_OK;
    }
    return tc_peer_ring(peer);
}

/* Take what landed in every ring (only: one rank's, or UINT32_MAX for all).
 * With the queue past its hold, only the named ring is taken (see
 * TC_MCAST_QUEUE_HOLD); with no ring named, none. */
tc_status_t tc_mcast_poll_peers(tc_mcast_t *mc, uint32_t only, unsigned *n_p)
{
    int full = (mc->queued_bytes >= mc->queue_hold);
    unsigned total = 0, n;
    tc_status_t status;
    uint32_t r, reported;

    if (full) {
        mc->stats.held++;
    }
    for (r = 0; r < mc->size; ++r) {
        tc_peer_t *peer = tc_group_peer(mc->group, r);

        if ((peer == NULL) || (full && (r != only))) {
            continue;
        }
        n        = 0;
        reported = peer->rx_reported;
        status   = tc_peer_progress(peer, 0, &n);
        if (status == TC_OK) {
            status = tc_mcast_credits_rung(peer, reported);
        }
        if (status != TC_OK) {
            tc_error("mcast: rank %u: rank %u failed (%s)", mc->rank, r, tc_status_str(status));
            return status;
        }
        if (n > 0) {
            mc->watch_rank = r;
        }
        total += n;
    }
    if (total > 0) {
        mc->last_rx_ns = tc_clock_mono_ns();
    }
    *n_p = total;
    return TC_OK;
}

tc_status_t tc_mcast_flush(tc_mcast_t *mc)
{
    tc_status_t status = TC_OK;
    uint32_t r;

    for (r = 0; (r < mc->size) && (status == TC_OK); ++r) {
        tc_peer_t *peer = tc_group_peer(mc->group, r);

        if (peer != NULL) {
            uint32_t reported = peer->rx_reported;

            status = tc_peer_flush(peer);
            if (status == TC_OK) {
                status = tc_mcast_credits_rung(peer, reported);
            }
        }
    }
    return status;
}
