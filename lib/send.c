/*
 * Send: lay a frame out in the staging slot, stamp credits and the latest
 * result, seal it, and deliver it with the operation the peer chose at
 * connect (signalling x placement). Sync and ried frames are laid out by
 * their own modules (inject.c, ried.c) and leave through tc_peer_send_frame.
 */
#define _GNU_SOURCE
#include "runtime.h"
#include "credits.h"
#include "log.h"
#include "peer_wait.h"
#include "place.h"
#include "send.h"

#include <stdlib.h>
#include <string.h>

/* A peer that blocks in its worker's fd wakes on an active message: a
 * zero-byte doorbell after the frame's puts (which it cannot see land). */
tc_status_t tc_peer_ring(tc_peer_t *peer)
{
    ucp_request_param_t param;
    ucs_status_ptr_t sp;

    param.op_attr_mask = 0;
    sp = ucp_am_send_nbx(peer->ep, TC_AM_DOORBELL, NULL, 0, NULL, 0, &param);
    if (UCS_PTR_IS_ERR(sp)) {
        tc_error("%s: doorbell: %s", peer->name, ucs_status_string(UCS_PTR_STATUS(sp)));
        peer->failed = TC_ERR_PEER_FAILED;
        return TC_ERR_PEER_FAILED;
    }
    if (sp != NULL) {
        ucp_request_free(sp);
    }
    return TC_OK;
}

/* -------------------------------------------------- delivery, chosen at connect
 * How a sealed frame of size bytes reaches the peer's slot at raddr: one
 * variant per signalling mode and one for direct placement, picked once by
 * tc_send_select (not re-decided per frame). */

/* One put: only where a put's bytes land front to back. */
static tc_status_t tc_deliver_single(tc_peer_t *peer, const char *frame, uint32_t size,
                                     uint64_t raddr)
{
    return tc_peer_put(peer, frame, size, raddr);
}

/* Data, then SIG: only where two puts land in issue order. */
static tc_status_t tc_deliver_ordered(tc_peer_t *peer, const char *frame, uint32_t size,
                                      uint64_t raddr)
{
    tc_status_t status = tc_peer_put(peer, frame, size - TC_FRAME_SIG_SIZE, raddr);

    if (TC_LIKELY(status == TC_OK)) {
        status = tc_peer_put(peer, frame + size - TC_FRAME_SIG_SIZE, TC_FRAME_SIG_SIZE,
                             raddr + size - TC_FRAME_SIG_SIZE);
    }
    return status;
}

/* Data, fence, SIG: any transport. */
static tc_status_t tc_deliver_fenced(tc_peer_t *peer, const char *frame, uint32_t size,
                                     uint64_t raddr)
{
    tc_status_t status = tc_peer_put(peer, frame, size - TC_FRAME_SIG_SIZE, raddr);
    ucs_status_t ucs;

    if (TC_UNLIKELY(status != TC_OK)) {
        return status;
    }
    ucs = ucp_worker_fence(peer->ctx->worker);
    if (TC_UNLIKELY(ucs != UCS_OK)) {
        tc_error("%s: ucp_worker_fence: %s", peer->name, ucs_status_string(ucs));
        return TC_ERR_UCX;
    }
    return tc_peer_put(peer, frame + size - TC_FRAME_SIG_SIZE, TC_FRAME_SIG_SIZE,
                       raddr + size - TC_FRAME_SIG_SIZE);
}

/* Placement llc or dram: the sending CPU writes the peer's mapped slot. */
static tc_status_t tc_deliver_place(tc_peer_t *peer, const char *frame, uint32_t size,
                                    uint64_t raddr)
{
    tc_place_frame(peer->place, peer->remote_ring_ptr + (raddr - peer->remote_ring), frame,
                   size);
    return TC_OK;
}

void tc_send_select(tc_peer_t *peer)
{
    if (peer->place != TC_PLACE_DEFAULT) {
        peer->deliver = tc_deliver_place;
        return;
    }
    switch (peer->ctx->params.signal) {
    case TC_SIGNAL_SINGLE_PUT:
        peer->deliver = tc_deliver_single;
        break;
    case TC_SIGNAL_ORDERED:
        peer->deliver = tc_deliver_ordered;
        break;
    default:
        peer->deliver = tc_deliver_fenced;
        break;
    }
}

/* Stamp credits and the latest result, seal, and deliver the frame into the
 * peer's slot for tx_seq. */
tc_status_t tc_peer_send_frame(tc_peer_t *peer, char *frame)
{
    tc_frame_hdr_t *hdr = (tc_frame_hdr_t *)frame;
    uint64_t raddr = peer->remote_ring +
                     (uint64_t)(peer->tx_seq & (peer->tx_slots - 1)) * peer->tx_slot_size;
    tc_status_t status;

    hdr->ack          = peer->rx_seq;
    peer->rx_reported = peer->rx_seq;
    if (peer->ran_has) {
        hdr->flags  |= TC_FRAME_F_HAS_RET;
        hdr->ret     = peer->ran_ret;
        hdr->ret_seq = peer->ran_seq;
    }
    tc_frame_seal(frame);
    status = peer->deliver(peer, frame, hdr->frame_size, raddr);
    if (TC_UNLIKELY(peer->doorbell) && (status == TC_OK)) {
        status = tc_peer_ring(peer);
    }
    if (TC_UNLIKELY(status != TC_OK)) {
        return status;
    }
    peer->tx_seq++;
    peer->stats.tx_frames++;
    peer->stats.tx_jams += (hdr->kind == TC_KIND_LOCAL) || (hdr->kind == TC_KIND_INJECTED) ||
                           (hdr->kind == TC_KIND_CACHED);
    return TC_OK;
}

tc_status_t tc_peer_send_raw_frame(tc_peer_t *peer, const void *frame, uint32_t len)
{
    uint64_t raddr = peer->remote_ring +
                     (uint64_t)(peer->tx_seq & (peer->tx_slots - 1)) * peer->tx_slot_size;
    char *staging;
    tc_status_t status;

    if ((len < TC_FRAME_SIG_SIZE) || (len > peer->tx_slot_size)) {
        return TC_ERR_INVALID_PARAM;
    }
    if (tc_peer_tx_free(peer) == 0) {
        status = tc_credits_wait(peer);
        if (status != TC_OK) {
            return status;
        }
    }
    staging = tc_peer_tx_frame(peer);
    memcpy(staging, frame, len);
    status = tc_peer_put(peer, staging, len - TC_FRAME_SIG_SIZE, raddr);
    if (status == TC_OK) {
        ucp_worker_fence(peer->ctx->worker);
        status = tc_peer_put(peer, staging + len - TC_FRAME_SIG_SIZE, TC_FRAME_SIG_SIZE,
                             raddr + len - TC_FRAME_SIG_SIZE);
    }
    if (status == TC_OK) {
        peer->tx_seq++;
        peer->stats.tx_frames++;
    }
    return status;
}

/* A free slot for the next frame: wait for its credit, or (nowait) say
 * there is none. */
static inline tc_status_t tc_send_slot(tc_peer_t *peer, int nowait)
{
    if (TC_UNLIKELY(peer->failed != TC_OK)) {
        return peer->failed;
    }
    if (TC_LIKELY(tc_peer_tx_free(peer) > 0)) {
        return TC_OK;
    }
    return nowait ? TC_ERR_NO_RESOURCE : tc_credits_wait(peer);
}

static tc_status_t tc_jam_send_local(tc_peer_t *peer, const tc_jam_t *jam, const void *src,
                                     size_t len, unsigned flags, int nowait)
{
    tc_frame_layout_t layout = {0, 0, 0, 0};
    tc_frame_offsets_t offsets;
    tc_status_t status;
    uint32_t size;
    int64_t packed;
    char *frame;

    status = tc_send_slot(peer, nowait);
    if (TC_UNLIKELY(status != TC_OK)) {
        return status;
    }

    frame  = tc_peer_tx_frame(peer);
    packed = jam->elem->pack(frame + TC_FRAME_HDR_SIZE,
                             peer->tx_slot_size - TC_FRAME_HDR_SIZE - TC_FRAME_SIG_SIZE,
                             src, len);
    if (TC_UNLIKELY(packed < 0)) {
        tc_error("%s: jam '%s' refused to pack %zu bytes (its pack routine returned -1; "
                 "slots are %u bytes)", peer->name, jam->elem->name, len, peer->tx_slot_size);
        return TC_ERR_OUT_OF_RANGE;
    }

    /* the header names the jam by package id and element: both must match */
    if (TC_LIKELY((jam->elem == peer->tx_tmpl_elem) && ((uint32_t)packed == peer->tx_tmpl_len) &&
                  (flags == peer->tx_tmpl_flags) && (jam->pkg_id == peer->tx_tmpl.pkg_id) &&
                  (jam->element == peer->tx_tmpl.element) &&
                  ((peer->frames != TC_FRAMES_FIXED) ||
                   (peer->tx_frame_size == peer->tx_tmpl_size)))) {
        memcpy(frame, &peer->tx_tmpl, sizeof(peer->tx_tmpl));
        ((tc_frame_hdr_t *)frame)->seq = peer->tx_seq;
        return tc_peer_send_frame(peer, frame);
    }

    layout.payload_len = (uint32_t)packed;
    status = tc_frame_layout(&layout, peer->tx_slot_size, &offsets);
    size   = (status == TC_OK) ? tc_peer_frame_size(peer, offsets.frame_size) : 0;
    if (TC_UNLIKELY(size == 0)) {
        tc_error("%s: jam '%s' with %lld payload bytes needs a %u-byte frame; "
                 "frames are %u bytes, slots %u", peer->name, jam->elem->name,
                 (long long)packed, offsets.frame_size, peer->tx_frame_size,
                 peer->tx_slot_size);
        return TC_ERR_OUT_OF_RANGE;
    }
    offsets.frame_size = size;

    tc_frame_write_hdr(frame, &offsets, &layout, TC_KIND_LOCAL,
                       (flags & TC_SEND_WANT_REPLY) ? TC_FRAME_F_WANT_REPLY : 0,
                       jam->pkg_id, jam->element, peer->tx_seq);
    memcpy(&peer->tx_tmpl, frame, sizeof(peer->tx_tmpl));
    peer->tx_tmpl_elem  = jam->elem;
    peer->tx_tmpl_len   = (uint32_t)packed;
    peer->tx_tmpl_flags = flags;
    peer->tx_tmpl_size  = size;
    return tc_peer_send_frame(peer, frame);
}

/* ------------------------------------------------------- injected, cached */

/* The synced entry of the jam with this peer, syncing first unless nowait. */
static tc_status_t tc_jam_send_sync(tc_peer_t *peer, const tc_jam_t *jam, tc_mode_t mode,
                                    int nowait, tc_inj_t **inj_p)
{
    tc_inj_t *inj = tc_inj_find(peer, jam->pkg_id, jam->element);
    tc_status_t status;

    if (TC_LIKELY((inj != NULL) && inj->tx_synced &&
                  ((mode != TC_MODE_CACHED) || inj->tx_cached))) {
        *inj_p = inj; /* the steady state: one lookup */
        return TC_OK;
    }
    if (nowait) {
        tc_error("%s: jam '%s' is not prepared %s for this peer: tc_jam_try_send does not "
                 "wait for the sync (call tc_jam_prepare first)", peer->name, jam->elem->name,
                 tc_mode_str(mode));
        return TC_ERR_INVALID_PARAM;
    }
    status = tc_jam_prepare(peer, jam, mode);
    if (status == TC_OK) {
        *inj_p = tc_inj_find(peer, jam->pkg_id, jam->element);
    }
    return status;
}

/* Pack the payload behind the sections of mode into the staging slot and
 * lay the frame out: TC_OK and its offsets, or why not (logged). */
static tc_status_t tc_jam_pack_code(tc_peer_t *peer, const tc_jam_t *jam, const tc_blob_t *blob,
                                    tc_mode_t mode, const void *src, size_t len, char *frame,
                                    tc_frame_layout_t *layout_p, tc_frame_offsets_t *off_p)
{
    tc_frame_layout_t layout = tc_jam_layout(blob, mode, 0);
    tc_frame_offsets_t off;
    int64_t packed = -1;

    if (tc_frame_layout(&layout, peer->tx_slot_size, &off) == TC_OK) {
        packed = jam->elem->pack(frame + off.payload_off,
                                 peer->tx_slot_size - off.payload_off - TC_FRAME_SIG_SIZE, src,
                                 len);
    }
    if (TC_UNLIKELY(packed < 0)) {
        tc_error("%s: jam '%s' refused to pack %zu bytes (its pack routine returned -1)",
                 peer->name, jam->elem->name, len);
        return TC_ERR_OUT_OF_RANGE;
    }
    layout.payload_len = (uint32_t)packed;
    off.frame_size     = (tc_frame_layout(&layout, peer->tx_slot_size, &off) == TC_OK) ?
                             tc_peer_frame_size(peer, off.frame_size) : 0;
    if (TC_UNLIKELY(off.frame_size == 0)) {
        tc_error("%s: jam '%s' %s with %zu payload bytes needs a %u-byte frame; slots are "
                 "%u bytes, fixed frames %u", peer->name, jam->elem->name, tc_mode_str(mode),
                 len, tc_jam_frame_size(jam, mode, (uint32_t)len), peer->tx_slot_size,
                 (peer->frames == TC_FRAMES_FIXED) ? peer->tx_frame_size : 0);
        return TC_ERR_OUT_OF_RANGE;
    }
    *layout_p = layout;
    *off_p    = off;
    return TC_OK;
}

static tc_status_t tc_jam_send_code(tc_peer_t *peer, const tc_jam_t *jam, const void *src,
                                    size_t len, tc_mode_t mode, unsigned flags, int nowait)
{
    tc_frame_layout_t layout;
    tc_frame_offsets_t off;
    tc_status_t status;
    tc_inj_t *inj;
    char *frame;

    status = tc_send_slot(peer, nowait);
    if (status == TC_OK) {
        status = tc_jam_send_sync(peer, jam, mode, nowait, &inj);
    }
    if (status == TC_OK) {
        status = tc_send_slot(peer, nowait); /* the sync may have used the last */
    }
    if (status != TC_OK) {
        return status;
    }
    frame  = tc_peer_tx_frame(peer);
    status = tc_jam_pack_code(peer, jam, inj->blob, mode, src, len, frame, &layout, &off);
    if (status != TC_OK) {
        return status;
    }
    tc_frame_write_hdr(frame, &off, &layout,
                       (mode == TC_MODE_CACHED) ? TC_KIND_CACHED : TC_KIND_INJECTED,
                       (flags & TC_SEND_WANT_REPLY) ? TC_FRAME_F_WANT_REPLY : 0, jam->pkg_id,
                       jam->element, peer->tx_seq);
    if (mode == TC_MODE_INJECTED) {
        memcpy(frame + off.got_off, inj->tx_gotp, 8u * layout.got_count);
        memcpy(frame + off.code_off, inj->blob->image + inj->blob->hdr->code_offset,
               layout.code_len);
    }
    return tc_peer_send_frame(peer, frame);
}

/* ----------------------------------------------------------- the public send */

static inline tc_status_t tc_jam_send_params(tc_peer_t *peer, const tc_jam_t *jam,
                                             const void *src, size_t len,
                                             const tc_send_params_t *params, unsigned more_flags,
                                             int nowait)
{
    uint64_t mask   = (params != NULL) ? params->field_mask : 0;
    tc_mode_t mode  = (mask & TC_SEND_PARAM_FIELD_MODE) ? params->mode : TC_MODE_LOCAL;
    unsigned flags  = ((mask & TC_SEND_PARAM_FIELD_FLAGS) ? params->flags : 0) | more_flags;

    if (TC_LIKELY(mode == TC_MODE_LOCAL)) {
        return tc_jam_send_local(peer, jam, src, len, flags, nowait);
    }
    if (TC_UNLIKELY((mode != TC_MODE_INJECTED) && (mode != TC_MODE_CACHED))) {
        tc_error("%s: jam '%s': unknown mode %d", peer->name, jam->elem->name, (int)mode);
        return TC_ERR_INVALID_PARAM;
    }
    return tc_jam_send_code(peer, jam, src, len, mode, flags, nowait);
}

tc_status_t tc_jam_send(tc_peer_t *peer, const tc_jam_t *jam, const void *src, size_t len,
                        const tc_send_params_t *params)
{
    return tc_jam_send_params(peer, jam, src, len, params, 0, 0);
}

tc_status_t tc_jam_try_send(tc_peer_t *peer, const tc_jam_t *jam, const void *src, size_t len,
                            const tc_send_params_t *params)
{
    return tc_jam_send_params(peer, jam, src, len, params, 0, 1);
}

/* A frame that only carries the latest result (and credits). Never waits:
 * without a free slot the reply stays pending and goes later. */
tc_status_t tc_peer_send_reply(tc_peer_t *peer)
{
    tc_frame_layout_t layout = {0, 0, 0, 0};
    tc_frame_offsets_t offsets;
    char *frame;

    if (tc_peer_tx_free(peer) == 0) {
        peer->reply_pending = 1;
        return TC_OK;
    }
    peer->reply_pending = 0;

    frame = tc_peer_tx_frame(peer);
    (void)tc_frame_layout(&layout, peer->tx_slot_size, &offsets);
    offsets.frame_size = tc_peer_frame_size(peer, offsets.frame_size);
    tc_frame_write_hdr(frame, &offsets, &layout, TC_KIND_REPLY, 0, 0, 0, peer->tx_seq);
    return tc_peer_send_frame(peer, frame);
}

tc_status_t tc_jam_call(tc_peer_t *peer, const tc_jam_t *jam, const void *src, size_t len,
                        const tc_send_params_t *params, int64_t *ret_p)
{
    tc_status_t status;
    uint32_t seq;

    status = tc_jam_send_params(peer, jam, src, len, params, TC_SEND_WANT_REPLY, 0);
    if (status != TC_OK) {
        return status;
    }
    /* the send may have waited for credits; the jam went out as seq */
    seq = peer->tx_seq - 1;
    while (peer->stats.last_ret_seq != seq) {
        status = tc_peer_wait(peer, NULL);
        if (status == TC_OK) {
            /* rejected: no result is coming */
            status = tc_ctrl_nack_for(peer, seq, seq, jam->elem->name);
        }
        if (status != TC_OK) {
            return status;
        }
    }
    *ret_p = peer->stats.last_ret;
    return TC_OK;
}

tc_status_t tc_peer_send_kind(tc_peer_t *peer, uint8_t kind, uint32_t pkg_id, uint16_t element,
                              const void *args, uint32_t args_len, const void *payload,
                              uint32_t payload_len, int nowait)
{
    tc_frame_layout_t layout = {args_len, 0, 0, payload_len};
    tc_frame_offsets_t off;
    tc_status_t status;
    uint32_t size;
    char *frame;

    if (TC_UNLIKELY(peer->failed != TC_OK)) {
        return peer->failed;
    }
    if (tc_peer_tx_free(peer) == 0) {
        if (nowait) {
            return TC_ERR_NO_RESOURCE;
        }
        status = tc_credits_wait(peer);
        if (status != TC_OK) {
            return status;
        }
    }
    status = tc_frame_layout(&layout, peer->tx_slot_size, &off);
    size   = (status == TC_OK) ? tc_peer_frame_size(peer, off.frame_size) : 0;
    if (size == 0) {
        tc_error("%s: a %s frame with %u ARGS and %u payload bytes does not fit the %u-byte "
                 "slots", peer->name, tc_frame_kind_str(kind), args_len, payload_len,
                 peer->tx_slot_size);
        return TC_ERR_OUT_OF_RANGE;
    }
    off.frame_size = size;
    frame = tc_peer_tx_frame(peer);
    tc_frame_write_hdr(frame, &off, &layout, kind, 0, pkg_id, element, peer->tx_seq);
    if (args_len > 0) {
        memcpy(frame + off.args_off, args, args_len);
    }
    if (payload_len > 0) {
        memcpy(frame + off.payload_off, payload, payload_len);
    }
    return tc_peer_send_frame(peer, frame);
}

