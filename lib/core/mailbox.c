/*
 * The mailbox: registered memory the peer writes with one-sided puts (the
 * ctrl line with credits, the frame ring, the raw reference ring), and this
 * side's memory of what each slot last held. Slot addressing and the
 * arrival test are inline in mailbox.h (the receive fast path).
 */
#define _GNU_SOURCE
#include "runtime.h"
#include "log.h"
#include "mailbox.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Registered memory UCX allocates (so a transport can map it for the peer). */

tc_status_t tc_mbox_mem_alloc(tc_peer_t *peer, size_t len, ucp_mem_h *memh_p,
                                     void **addr_p)
{
    ucp_mem_map_params_t params;
    ucp_mem_attr_t attr;
    ucs_status_t ucs;
    ucp_mem_h memh;

    memset(&params, 0, sizeof(params));
    params.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                        UCP_MEM_MAP_PARAM_FIELD_FLAGS;
    params.address    = NULL;
    params.length     = len;
    params.flags      = UCP_MEM_MAP_ALLOCATE;

    ucs = ucp_mem_map(peer->ctx->ucp, &params, &memh);
    if (ucs != UCS_OK) {
        tc_error("%s: ucp_mem_map(%zu bytes): %s", peer->wireup->name, len, ucs_status_string(ucs));
        return TC_ERR_UCX;
    }

    attr.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS | UCP_MEM_ATTR_FIELD_LENGTH;
    ucs = ucp_mem_query(memh, &attr);
    if (ucs != UCS_OK) {
        tc_error("%s: ucp_mem_query: %s", peer->wireup->name, ucs_status_string(ucs));
        ucp_mem_unmap(peer->ctx->ucp, memh);
        return TC_ERR_UCX;
    }

    memset(attr.address, 0, len);
    *memh_p = memh;
    *addr_p = attr.address;
    return TC_OK;
}

tc_status_t tc_mbox_create(tc_peer_t *peer)
{
    const tc_context_params_t *params = &peer->ctx->params;
    size_t ring_len = (size_t)params->slots * params->slot_size;
    tc_status_t status;

    peer->rx_slots     = params->slots;
    peer->rx_slot_size = params->slot_size;
    peer->mbox_len     = TC_ALIGN_UP(sizeof(tc_mbox_ctrl_t) + 2 * ring_len,
                                     (size_t)sysconf(_SC_PAGESIZE));
    status = tc_mbox_mem_alloc(peer, peer->mbox_len, &peer->mbox_memh, (void **)&peer->mbox);
    if (status != TC_OK) {
        return status;
    }
    /* Only in place does code run in the slot (the paper's RWX mailbox);
     * otherwise the mailbox is data (lib/core/exec.c). */
    peer->mbox_exec = params->in_place && (mprotect(peer->mbox, peer->mbox_len,
                                                    PROT_READ | PROT_WRITE | PROT_EXEC) == 0);
    if (!peer->mbox_exec && params->in_place) {
        tc_warn("%s: mailbox cannot be made executable (%m); injected frames will be "
                "rejected", peer->wireup->name);
    }
    /* A consumed slot is never cleared: a transport may store a signal word
     * more than once (memcpy writes overlapping tails), so a clear can be
     * undone by a late duplicate. The receiver instead remembers what each
     * slot held and waits for something different. */
    peer->rx_stale = calloc(params->slots, sizeof(*peer->rx_stale));
    if (peer->rx_stale == NULL) {
        ucp_mem_unmap(peer->ctx->ucp, peer->mbox_memh);
        return TC_ERR_NO_MEMORY;
    }
    peer->ctrl    = (tc_mbox_ctrl_t *)peer->mbox;
    peer->rx_ring = peer->mbox + sizeof(tc_mbox_ctrl_t);
    peer->raw     = peer->rx_ring + ring_len;
    return TC_OK;
}

void tc_mbox_destroy(tc_peer_t *peer)
{
    ucp_mem_unmap(peer->ctx->ucp, peer->mbox_memh);
    free(peer->rx_stale);
}

void tc_mbox_resize(tc_peer_t *peer, uint32_t frame_size)
{
    uint32_t i, next;
    uint64_t word;

    if (peer->frames != TC_FRAMES_FIXED) {
        return; /* variable frames: the header says each frame's size */
    }
    /* Not cleared (the sender may be writing its next frames already):
     * each slot's word at the new position is remembered as what it held,
     * unless the frame due there has landed, by its header and its signal
     * together. The word alone cannot say: where it lies in an earlier
     * frame's payload, those bytes may hold the due signal. Then the value
     * stays remembered, and the frame counts as landed only once its header
     * is there too (tc_peer_sig_held). */
    peer->rx_held = 0;
    for (i = 0; i < peer->rx_slots; ++i) {
        char *slot = tc_mbox_rx_slot(peer, i);

        next = peer->rx_seq + ((i - peer->rx_seq) & (peer->rx_slots - 1));
        word = tc_frame_sig_read(slot, frame_size);
        peer->rx_stale[i] = tc_mbox_landed(slot, next, frame_size) ? 0 : word;
        peer->rx_held |= (peer->rx_stale[i] == tc_frame_sig(next));
    }
}
