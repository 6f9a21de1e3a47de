/* A peer's raw UCX handles for the reference tests (see peer_raw.h). */
#include "peer_raw.h"
#include "runtime.h"

#include <stddef.h>

void tc_harness_peer_raw(const tc_peer_t *peer, tc_harness_peer_raw_t *raw_p)
{
    void *ring, *consumed;

    raw_p->ucp_worker       = peer->ctx->worker;
    raw_p->ucp_ep           = peer->ep;
    raw_p->ucp_rkey         = peer->rkey;
    raw_p->remote_ring      = peer->wireup->remote_raw;
    raw_p->remote_consumed  = peer->remote_base + offsetof(tc_mbox_ctrl_t, raw_consumed);
    raw_p->remote_slots     = peer->tx_slots;
    raw_p->remote_slot_size = peer->tx_slot_size;
    raw_p->local_ring       = peer->raw;
    raw_p->local_consumed   = &peer->ctrl->raw_consumed;
    raw_p->local_slots      = peer->rx_slots;
    raw_p->local_slot_size  = peer->rx_slot_size;
    raw_p->wait             = peer->wait;
    raw_p->linewise_max     = peer->tx_linewise_max;
    if (ucp_rkey_ptr(peer->rkey, raw_p->remote_ring, &ring) != UCS_OK) {
        ring = NULL;
    }
    if (ucp_rkey_ptr(peer->rkey, raw_p->remote_consumed, &consumed) != UCS_OK) {
        consumed = NULL;
    }
    raw_p->remote_ring_ptr     = ((ring != NULL) && (consumed != NULL)) ? ring : NULL;
    raw_p->remote_consumed_ptr = (raw_p->remote_ring_ptr != NULL) ? consumed : NULL;
}
