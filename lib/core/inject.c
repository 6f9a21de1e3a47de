/*
 * Injected Function: the namespace sync, both sides - tc_jam_prepare asks,
 * the receiver resolves the GOT slot names of the jam (tc_inj_resolve) and
 * answers (tc_inj_send_replies) - and the frame sizes of a jam. The sync's
 * frame kinds and its owed answers are registered with dispatch
 * (tc_inj_rx_register). The table of jams per peer is lib/core/inj_table.c's;
 * what runs, and from where, is lib/core/exec.c's.
 */
#define _GNU_SOURCE
#include "runtime.h"
#include "credits.h"
#include "log.h"
#include "peer_wait.h"
#include "send.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

int64_t tc_inj_resolve(tc_peer_t *peer, tc_inj_t *inj)
{
    uint32_t n = inj->blob->hdr->got_count, i;
    uint32_t pins = 0;
    const char *name;
    unsigned ried;
    void *addr;

    if (inj->rx_resolved) {
        return TC_SYNC_OK;
    }
    free(inj->rx_gotp);
    inj->rx_gotp = calloc(n ? n : 1, sizeof(uint64_t));
    if (inj->rx_gotp == NULL) {
        return -1;
    }
    for (i = 0; i < n; ++i) {
        /* the package's library first (its rieds, then what it links:
         * libc), then rieds shipped here, then everything loaded globally
         * (libtwochains) */
        name = tc_blob_slot_name(inj->blob, i);
        addr = dlsym(inj->lib, name);
        if (addr == NULL) {
            /* rieds peers shipped here: pinned while this sync stands */
            addr = tc_ried_lookup(peer->ctx, name, &ried);
            pins |= (addr != NULL) ? (1u << ried) : 0;
        }
        if (addr == NULL) {
            addr = dlsym(RTLD_DEFAULT, name);
        }
        if (addr == NULL) {
            tc_warn("%s: cannot resolve '%s' (GOT slot %u of element %u)", peer->wireup->name, name,
                    i, inj->element);
            return -(int64_t)i - 1;
        }
        inj->rx_gotp[i] = (uint64_t)(uintptr_t)addr;
    }
    for (ried = 0; ried < TC_MAX_RIEDS; ++ried) {
        peer->ctx->rieds[ried].pins += !!(pins & (1u << ried));
    }
    inj->ried_pins   = pins;
    inj->rx_resolved = 1;
    return TC_SYNC_OK;
}

/* ------------------------------------------------------ frame sizes of a jam */

void tc_jam_layout_into(const tc_blob_t *blob, tc_mode_t mode, tc_frame_layout_t *layout)
{
    layout->args_len    = 0;
    layout->got_count   = (mode == TC_MODE_INJECTED) ? blob->hdr->got_count : 0;
    layout->code_len    = (mode == TC_MODE_INJECTED) ?
                              blob->hdr->image_size - blob->hdr->code_offset : 0;
    layout->payload_len = 0;
}

tc_frame_layout_t tc_jam_layout(const tc_blob_t *blob, tc_mode_t mode,
                                       uint32_t payload_len)
{
    tc_frame_layout_t layout = {0, 0, 0, payload_len};

    if (mode == TC_MODE_INJECTED) {
        layout.got_count = blob->hdr->got_count;
        layout.code_len  = blob->hdr->image_size - blob->hdr->code_offset;
    }
    return layout;
}

uint32_t tc_jam_frame_size(const tc_jam_t *jam, tc_mode_t mode, uint32_t len)
{
    const tc_blob_t *blob = tc_pkg_blob(jam->pkg, jam->element);
    tc_frame_layout_t layout;
    tc_frame_offsets_t off;

    if (mode == TC_MODE_LOCAL) {
        return tc_frame_size_for(len);
    }
    if (blob == NULL) {
        return UINT32_MAX;
    }
    layout = tc_jam_layout(blob, mode, len);
    return (tc_frame_layout(&layout, UINT32_MAX, &off) == TC_OK) ? off.frame_size : UINT32_MAX;
}

uint32_t tc_jam_prepare_size(const tc_jam_t *jam, tc_mode_t mode)
{
    const tc_blob_t *blob = tc_pkg_blob(jam->pkg, jam->element);
    tc_frame_layout_t layout;
    tc_frame_offsets_t off;
    uint32_t req, rep;

    if ((mode == TC_MODE_LOCAL) || (blob == NULL)) {
        return TC_FRAME_MIN_SIZE;
    }
    /* the request carries the code when it is to be cached */
    layout = tc_jam_layout(blob, (mode == TC_MODE_CACHED) ? TC_MODE_INJECTED : TC_MODE_LOCAL, 0);
    req    = (tc_frame_layout(&layout, UINT32_MAX, &off) == TC_OK) ? off.frame_size : UINT32_MAX;
    rep    = tc_frame_size_for(8u + 8u * blob->hdr->got_count);
    return (req > rep) ? req : rep;
}

/* The payload of the answer to a sync of inj: the status, then on success
 * an address a GOT slot (a refusal is the status alone: it fits any frame). */
static uint32_t tc_inj_reply_len(const tc_inj_t *inj, int64_t status)
{
    return (status >= 0) ? 8u + 8u * inj->blob->hdr->got_count : 8u;
}

/* NULL when our frames to the peer hold the answer to a sync of inj with
 * status, else why not (into peer->rx_why). */
static const char *tc_inj_reply_misfit(tc_peer_t *peer, const tc_inj_t *inj, int64_t status)
{
    return tc_peer_answer_misfit(peer, tc_frame_size_for(tc_inj_reply_len(inj, status)),
                                 "the sync's answer", peer->reject->why, sizeof(peer->reject->why));
}

/* Answer the peer's namespace syncs: status, then the addresses resolved
 * for it. Never waits: without a free slot the answer goes later. An answer
 * our frames no longer hold (they shrank since the request was taken) is
 * never left owed: the request is refused with a NACK instead. */
tc_status_t tc_inj_send_replies(tc_peer_t *peer)
{
    tc_frame_layout_t layout = {0, 0, 0, 0};
    tc_frame_offsets_t off;
    tc_status_t status;
    const char *why;
    unsigned i;
    char *frame;

    for (i = 0; i < peer->injs->n; ++i) {
        tc_inj_t *inj = &peer->injs->inj[i];

        if (!inj->rx_sync_reply) {
            continue;
        }
        if (tc_peer_tx_free(peer) == 0) {
            return TC_OK; /* still pending */
        }
        why = tc_inj_reply_misfit(peer, inj, inj->rx_sync_status);
        if (why != NULL) {
            status = tc_ctrl_nack_late(peer, inj->rx_sync_seq, "sync", why);
            if (status != TC_OK) {
                return (status == TC_ERR_AGAIN) ? TC_OK : status; /* AGAIN: later */
            }
            inj->rx_sync_reply = 0;
            continue;
        }
        layout.payload_len = tc_inj_reply_len(inj, inj->rx_sync_status);
        (void)tc_frame_layout(&layout, peer->tx_slot_size, &off); /* checked: it fits */
        off.frame_size = tc_peer_frame_size(peer, off.frame_size);
        frame = tc_peer_tx_frame(peer);
        tc_frame_write_hdr(frame, &off, &layout, TC_KIND_SYNC_REP, 0, inj->pkg_id,
                           inj->element, peer->tx_seq);
        memcpy(frame + off.payload_off, &inj->rx_sync_status, 8);
        if (layout.payload_len > 8) {
            memcpy(frame + off.payload_off + 8, inj->rx_gotp, layout.payload_len - 8);
        }
        status = tc_peer_send_frame(peer, frame);
        if (status != TC_OK) {
            return status;
        }
        inj->rx_sync_reply = 0;
    }
    peer->owed &= ~TC_OWED_SYNC;
    return TC_OK;
}

/* ------------------------------------------------------ the receiver's side */

/* A sync request of the peer's: resolve its slot names for it, check and
 * keep its code when asked to cache it; the answer goes at the end of the
 * progress call (tc_inj_send_replies). One our frames cannot hold is
 * refused now, before anything is resolved or kept. */
static const char *tc_inj_rx_request(tc_peer_t *peer, tc_inj_t *inj,
                                     const tc_frame_hdr_t *hdr, const uint8_t *code)
{
    const char *why;

    inj->rx_sync_status = tc_exec_sync_allowed(peer, inj);
    if (inj->rx_sync_status == TC_SYNC_OK) {
        why = tc_inj_reply_misfit(peer, inj, TC_SYNC_OK);
        if (why != NULL) {
            return why;
        }
        inj->rx_sync_status = tc_inj_resolve(peer, inj);
    }
    if ((inj->rx_sync_status == TC_SYNC_OK) && (hdr->flags & TC_FRAME_F_CACHE)) {
        why = tc_exec_cache(peer, inj, hdr, code);
        if (why != NULL) {
            tc_peer_note_reject(peer, why); /* the answer says BAD_CODE */
            inj->rx_sync_status = TC_SYNC_BAD_CODE;
        } else {
            inj->rx_sync_status = TC_SYNC_CACHED;
        }
    }
    inj->rx_sync_seq   = hdr->seq;
    inj->rx_sync_reply = 1;
    peer->owed |= TC_OWED_SYNC;
    return NULL;
}

/* The answer to our sync request: status, then the peer's addresses for the
 * slots. Why not, or NULL. */
static const char *tc_inj_rx_reply(tc_peer_t *peer, const tc_frame_hdr_t *hdr,
                                   const char *payload)
{
    tc_inj_t *inj = tc_inj_find(peer, hdr->pkg_id, hdr->element);
    int64_t status;

    if (hdr->payload_len < 8) {
        return "sync reply without a status";
    }
    memcpy(&status, payload, sizeof(status));
    if ((inj != NULL) && (status == TC_SYNC_MISS)) {
        inj->tx_cached = 0; /* the peer lost our code: the next cached send pushes it */
        tc_peer_invalidate(peer, TC_PEER_CHANGED_SYNC);
        return NULL;
    }
    if ((inj == NULL) || !inj->tx_sync_wait) {
        return "sync reply nobody asked for";
    }
    inj->tx_sync_wait = 0;
    if ((hdr->payload_len != 8u + 8u * inj->blob->hdr->got_count) || (status < 0)) {
        inj->tx_sync_status = (status < 0) ? status : -1;
        return NULL;
    }
    free(inj->tx_gotp);
    inj->tx_gotp = malloc(8u * inj->blob->hdr->got_count + 8u);
    if (inj->tx_gotp == NULL) {
        inj->tx_sync_status = -1;
        return NULL;
    }
    memcpy(inj->tx_gotp, payload + 8, 8u * inj->blob->hdr->got_count);
    inj->tx_sync_status = status;
    inj->tx_synced      = 1;
    inj->tx_cached      = (status == TC_SYNC_CACHED) || inj->tx_cached;
    tc_peer_invalidate(peer, TC_PEER_CHANGED_SYNC); /* new GOT addresses, or the code now cached */
    return NULL;
}

/* ------------------------------------------------------ the sync's frames */

/* Where a sync frame's sections are (the validator checked its layout). */
static void tc_inj_rx_offsets(const tc_frame_hdr_t *hdr, tc_frame_offsets_t *off)
{
    tc_frame_layout_t layout = {hdr->args_len, hdr->got_count, hdr->code_len,
                                hdr->payload_len};

    (void)tc_frame_layout(&layout, UINT32_MAX, off);
}

/* A sync request (its CODE section: the code to keep, when asked to cache). */
static const char *tc_inj_rx_sync_req(void *arg, tc_peer_t *peer, const char *frame,
                                      const tc_frame_hdr_t *hdr, tc_status_t *status_p)
{
    tc_jam_t jam = {NULL, NULL, hdr->pkg_id, hdr->element};
    tc_frame_offsets_t off;
    tc_inj_t *inj;

    (void)arg;
    /* the validator checked the package and the jam's blob: NULL is a full table */
    inj = tc_inj_get(peer, &jam);
    if (inj == NULL) {
        *status_p = TC_ERR_NO_RESOURCE;
        return "no room for another injected jam";
    }
    tc_inj_rx_offsets(hdr, &off);
    *status_p = TC_ERR_OUT_OF_RANGE; /* the only refusal: no frame of ours holds the answer */
    return tc_inj_rx_request(peer, inj, hdr, (const uint8_t *)frame + off.code_off);
}

static const char *tc_inj_rx_sync_rep(void *arg, tc_peer_t *peer, const char *frame,
                                      const tc_frame_hdr_t *hdr, tc_status_t *status_p)
{
    tc_frame_offsets_t off;

    (void)arg;
    tc_inj_rx_offsets(hdr, &off);
    *status_p = TC_ERR_PROTOCOL;
    return tc_inj_rx_reply(peer, hdr, frame + off.payload_off);
}

static const tc_rx_kind_def_t tc_inj_rx_kinds[] = {
    {TC_KIND_SYNC_REQ, tc_inj_rx_sync_req, 0},
    {TC_KIND_SYNC_REP, tc_inj_rx_sync_rep, 0},
};

tc_status_t tc_inj_rx_register(tc_context_t *ctx)
{
    return tc_rx_register_kinds(ctx, tc_inj_rx_kinds, TC_ARRAY_SIZE(tc_inj_rx_kinds), NULL,
                                TC_OWED_SYNC, tc_inj_send_replies);
}
