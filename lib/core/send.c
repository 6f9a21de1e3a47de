/*
 * Send: a frame laid out in the staging slot gets credits and the latest
 * result stamped, is sealed, and is delivered with the operation the peer
 * chose at connect (signalling x placement). Jams are laid out by jam.c,
 * sync and ried frames by inject.c and ried.c, control frames by
 * control.c; replies and other plain frames here.
 */
#define _GNU_SOURCE
#include "runtime.h"
#include "credits.h"
#include "log.h"
#include "peer_wait.h"
#include "place.h"
#include "send.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *tc_peer_frame_advice(const tc_peer_t *peer, uint32_t needed, const char *answered,
                                 char *buf, size_t len)
{
    if ((needed == UINT32_MAX) || (needed > peer->tx_slot_size)) {
        snprintf(buf, len, "the peer's slots are %u bytes: give the receiving side a larger "
                 "slot size (tc_context_params_t.slot_size; tc-perf -z, the same on both "
                 "sides) or send less", peer->tx_slot_size);
    } else {
        snprintf(buf, len, "frames are fixed at %u bytes: use variable frames "
                 "(tc_context_params_t.frames = TC_FRAMES_VARIABLE, set on both sides; "
                 "tc-perf -F variable) or a fixed frame size of at least %u "
                 "(tc_peer_params_t.frame_size at connect, or tc_peer_set_frame_size) %s%s%s",
                 peer->tx_frame_size, needed, answered ? "on both sides: " : "on this side",
                 answered ? answered : "", answered ? " is answered in the other side's frames" : "");
    }
    return buf;
}

const char *tc_peer_answer_misfit(const tc_peer_t *peer, uint32_t needed, const char *answer,
                                  char *buf, size_t len)
{
    if ((needed <= peer->tx_slot_size) && (tc_peer_frame_size(peer, needed) != 0)) {
        return NULL;
    }
    if (needed > peer->tx_slot_size) {
        snprintf(buf, len, "%s needs %u-byte frames; the sender's slots are %u bytes", answer,
                 needed, peer->tx_slot_size);
    } else {
        snprintf(buf, len, "%s needs %u-byte frames; this side's are fixed at %u bytes", answer,
                 needed, peer->tx_frame_size);
    }
    return buf;
}

void tc_peer_answer_refused(const tc_peer_t *peer, const char *what, uint32_t needed)
{
    if ((needed > peer->rx_slot_size) || (peer->frames != TC_FRAMES_FIXED)) {
        tc_error("%s: %s needs %u-byte frames from it; this side's slots for its frames are "
                 "%u bytes: give this side a larger slot size (tc_context_params_t.slot_size; "
                 "tc-perf -z, the same on both sides)", peer->wireup->name, what, needed,
                 peer->rx_slot_size);
        return;
    }
    tc_error("%s: %s needs %u-byte frames from it; its frames are fixed at %u bytes: give it a "
             "fixed frame size of at least %u (tc_peer_params_t.frame_size at connect, or "
             "tc_peer_set_frame_size, on that side) or use variable frames on both sides "
             "(tc_context_params_t.frames = TC_FRAMES_VARIABLE; tc-perf -F variable)",
             peer->wireup->name, what, needed, peer->rx_frame_size, needed);
}

/* A peer that blocks in its worker's fd wakes on an active message: a
 * zero-byte doorbell after the frame's puts (which it cannot see land).
 * One at most in flight: while the last has not left (a peer that does not
 * progress takes none), the next is not sent - that one wakes the peer to
 * everything before it - so a peer cannot make this side queue a request
 * per frame. */
tc_status_t tc_peer_ring(tc_peer_t *peer)
{
    ucp_request_param_t param;
    ucs_status_ptr_t sp;

    if (peer->bell_req != NULL) {
        if (ucp_request_check_status(peer->bell_req) == UCS_INPROGRESS) {
            return TC_OK;
        }
        ucp_request_free(peer->bell_req);
        peer->bell_req = NULL;
    }
    param.op_attr_mask = 0;
    sp = ucp_am_send_nbx(peer->ep, TC_AM_DOORBELL, NULL, 0, NULL, 0, &param);
    if (UCS_PTR_IS_ERR(sp)) {
        tc_error("%s: doorbell: %s", peer->wireup->name, ucs_status_string(UCS_PTR_STATUS(sp)));
        (void)tc_peer_fail(peer, TC_ERR_PEER_FAILED);
        return TC_ERR_PEER_FAILED;
    }
    peer->bell_req = sp; /* NULL: it left in the call */
    peer->stats.bells++;
    return TC_OK;
}

void tc_peer_set_doorbell(tc_peer_t *peer, int on)
{
    peer->doorbell = (uint8_t)(on != 0);
    tc_peer_invalidate(peer, TC_PEER_CHANGED_BELL);
}

/* -------------------------------------------------- delivery, chosen at connect
 * How a frame of size bytes laid out in tx_ring gets its signal and reaches
 * the peer's slot at raddr: one
 * variant per signalling mode and one for direct placement, picked once by
 * tc_send_select (not re-decided per frame). */

/* The signal of frame tx_seq into the last word of a staged frame. */
static inline void tc_send_seal(const tc_peer_t *peer, char *frame, uint32_t size)
{
    *(uint64_t *)(void *)(frame + size - TC_FRAME_SIG_SIZE) = tc_frame_sig(peer->tx_seq);
}

/* One put: only where a put's bytes land front to back. */
static tc_status_t tc_deliver_single(tc_peer_t *peer, char *frame, uint32_t size,
                                     uint64_t raddr)
{
    tc_send_seal(peer, frame, size);
    return tc_peer_put(peer, frame, size, raddr);
}

/* Data, then SIG: only where two puts land in issue order. */
static tc_status_t tc_deliver_ordered(tc_peer_t *peer, char *frame, uint32_t size,
                                      uint64_t raddr)
{
    tc_status_t status;

    tc_send_seal(peer, frame, size);
    status = tc_peer_put(peer, frame, size - TC_FRAME_SIG_SIZE, raddr);

    if (TC_LIKELY(status == TC_OK)) {
        status = tc_peer_put(peer, frame + size - TC_FRAME_SIG_SIZE, TC_FRAME_SIG_SIZE,
                             raddr + size - TC_FRAME_SIG_SIZE);
    }
    return status;
}

/* Data, fence, SIG: any transport. */
static tc_status_t tc_deliver_fenced(tc_peer_t *peer, char *frame, uint32_t size,
                                     uint64_t raddr)
{
    tc_status_t status;
    ucs_status_t ucs;

    tc_send_seal(peer, frame, size);
    status = tc_peer_put(peer, frame, size - TC_FRAME_SIG_SIZE, raddr);

    if (TC_UNLIKELY(status != TC_OK)) {
        return status;
    }
    ucs = ucp_worker_fence(peer->ctx->worker);
    if (TC_UNLIKELY(ucs != UCS_OK)) {
        tc_error("%s: ucp_worker_fence: %s", peer->wireup->name, ucs_status_string(ucs));
        return TC_ERR_UCX;
    }
    return tc_peer_put(peer, frame + size - TC_FRAME_SIG_SIZE, TC_FRAME_SIG_SIZE,
                       raddr + size - TC_FRAME_SIG_SIZE);
}

/* Placement llc or dram: the sending CPU writes the peer's mapped slot. */
static tc_status_t tc_deliver_place(tc_peer_t *peer, char *frame, uint32_t size,
                                    uint64_t raddr)
{
    tc_send_seal(peer, frame, size);
    tc_place_frame(peer->place, peer->remote_ring_ptr + (raddr - peer->remote_ring), frame,
                   size);
    return TC_OK;
}

/* Signalling store has no deliverer: tc_peer_send_sized copies the frame
 * inline (deliver NULL). */

tc_status_t tc_peer_clear_sig(tc_peer_t *peer, uint32_t size)
{
    uint32_t idx = peer->tx_seq & (peer->tx_slots - 1);
    uint64_t off = (uint64_t)idx * peer->tx_slot_size + size - TC_FRAME_SIG_SIZE;
    tc_status_t status;
    ucs_status_t ucs;

    if (peer->deliver == NULL) {
        /* signalling store: stores reach the peer in order with a release
         * fence between (x86-64 TSO: a compiler barrier; aarch64 a dmb) */
        __atomic_store_n((uint64_t *)(void *)(peer->remote_ring_ptr + off), 0, __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_RELEASE);
        return TC_OK;
    }
    if (peer->deliver == tc_deliver_place) {
        /* placement dram's non-temporal stores pass older stores: a full fence */
        __atomic_store_n((uint64_t *)(void *)(peer->remote_ring_ptr + off), 0, __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        return TC_OK;
    }
    /* a put: the slot's credit proves nothing of ours is in flight to it.
     * Ordered and single-put rely on puts landing in issue order (as for
     * their signal); fenced on the fence */
    status = tc_peer_put(peer, peer->zero_src, sizeof(uint64_t), peer->remote_ring + off);
    if ((status != TC_OK) || (peer->signal != TC_SIGNAL_FENCED)) {
        return status;
    }
    ucs = ucp_worker_fence(peer->ctx->worker);
    if (ucs != UCS_OK) {
        tc_error("%s: ucp_worker_fence: %s", peer->wireup->name, ucs_status_string(ucs));
        return TC_ERR_UCX;
    }
    return TC_OK;
}

tc_status_t tc_peer_send_resized(tc_peer_t *peer, const tc_frame_hdr_t *hdr, char *frame,
                                 uint32_t size, int jam)
{
    tc_status_t status = tc_peer_tx_slot_sized(peer, frame, size);

    return (status == TC_OK) ? tc_peer_send_sized_now(peer, hdr, frame, size, jam) : status;
}

tc_status_t tc_peer_tx_slot_sized(tc_peer_t *peer, const char *frame, uint32_t size)
{
    uint32_t idx = peer->tx_seq & (peer->tx_slots - 1);
    uint64_t held;
    tc_status_t status;
    int clear;

    peer->tx_slots_frame = 0; /* this slot takes another size, or did */
    if (peer->tx_slot_frame[idx] != size) {
        clear = 1;
        if ((peer->tx_stage_mask != 0) && (frame != NULL)) {
            /* one staging slot per slot of the peer's ring, every byte of
             * which (raw frames' too) we put from it, and the frame's own
             * bytes stop short of its signal word: what the peer's slot
             * holds there */
            memcpy(&held, frame + size - TC_FRAME_SIG_SIZE, sizeof(held));
            clear = (held == tc_frame_sig(peer->tx_seq));
        }
        status = clear ? tc_peer_clear_sig(peer, size) : TC_OK;
        if (status != TC_OK) {
            return status;
        }
        peer->tx_slot_frame[idx] = size;
    }
    /* a run of frames of one size over every slot: a stream, checked inline */
    if (size != peer->tx_run_frame) {
        peer->tx_run_frame = size;
        peer->tx_run_start = peer->tx_seq;
    }
    if (peer->tx_seq - peer->tx_run_start + 1 >= peer->tx_slots) {
        peer->tx_slots_frame = size;
    }
    return TC_OK;
}

tc_status_t tc_send_resolve_signal(tc_peer_t *peer, tc_signal_mode_t asked)
{
    int mapped = (peer->remote_ring_ptr != NULL) && (peer->remote_consumed_ptr != NULL);

    if ((unsigned)asked > TC_SIGNAL_AUTO) {
        tc_error("%s: unknown signalling mode %d", peer->wireup->name, (int)asked);
        return TC_ERR_INVALID_PARAM;
    }
    if ((asked == TC_SIGNAL_STORE) && !mapped) {
        tc_error("%s: signalling store: unsupported: the transport (%s) does not map the "
                 "peer's mailbox into this process (ucp_rkey_ptr); use fenced or ordered",
                 peer->wireup->name, peer->wireup->transports);
        return TC_ERR_UNSUPPORTED;
    }
    peer->signal = (asked != TC_SIGNAL_AUTO)  ? asked :
                   mapped                     ? TC_SIGNAL_STORE :
                   peer->wireup->put_landed_by_peer   ? TC_SIGNAL_SINGLE_PUT :
                                                TC_SIGNAL_FENCED;
    return TC_OK;
}

void tc_send_select(tc_peer_t *peer)
{
    tc_cpu_ident_t cpu;

    tc_cpu_tune_ident(&cpu);
    peer->tx_linewise_max = tc_place_linewise_max(&cpu);
    /* A frame the CPU copies is out of its staging slot when the send
     * returns: with signalling store (fixed at connect, so no put of ours
     * is ever in flight from the ring) one staging frame serves them all.
     * Placement llc/dram may be set mid-stream after puts and keeps the
     * ring of the signalling it has. Only the inline store packs in place. */
    peer->tx_stage_mask      = (peer->signal == TC_SIGNAL_STORE) ? 0 : peer->tx_slots - 1;
    peer->tx_direct_min        = UINT32_MAX;
    peer->tx_direct_min_unread = UINT32_MAX;
    peer->tx_direct_code_min   = UINT32_MAX;
    tc_peer_invalidate(peer, TC_PEER_CHANGED_FRAMES); /* a one-line frame is stored only where deliver is NULL */
    if (peer->place != TC_PLACE_DEFAULT) {
        peer->deliver = tc_deliver_place;
        return;
    }
    switch (peer->signal) {
    case TC_SIGNAL_STORE:
        peer->deliver            = NULL; /* inline in tc_peer_send_sized */
        peer->tx_direct_min        = tc_place_direct_min(&cpu);
        peer->tx_direct_min_unread = tc_place_direct_min_unread(&cpu);
        peer->tx_direct_code_min   = TC_PACK_DIRECT_CODE_MIN;
        break;
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

tc_status_t tc_peer_set_placement(tc_peer_t *peer, tc_place_t place)
{
    char why[TC_CPU_STATUS_LEN];
    tc_status_t status = tc_place_check(place, why, sizeof(why));

    if (status != TC_OK) {
        tc_error("%s: placement %s: %s", peer->wireup->name, tc_place_str(place), why);
        return status;
    }
    if ((place != TC_PLACE_DEFAULT) && (peer->remote_ring_ptr == NULL)) {
        tc_error("%s: placement %s: unsupported: ucp_rkey_ptr cannot map the peer's mailbox "
                 "over %s (needs same-host shared memory: posix or sysv)",
                 peer->wireup->name, tc_place_str(place), tc_peer_transports(peer));
        return TC_ERR_UNSUPPORTED;
    }
    peer->place = place;
    tc_send_select(peer);
    return TC_OK;
}

/* Check a laid-out frame's size, then stamp and deliver it. */
tc_status_t tc_peer_send_frame(tc_peer_t *peer, char *frame)
{
    const tc_frame_hdr_t *hdr = (const tc_frame_hdr_t *)frame;
    /* read once (the deliverers and the stats use these, not the frame) */
    uint32_t size = hdr->frame_size;
    uint8_t kind  = hdr->kind;

    if (TC_UNLIKELY((size < TC_FRAME_MIN_SIZE) || (size > peer->tx_slot_size) ||
                    (size % TC_FRAME_ALIGN))) {
        tc_error("%s: a %u-byte frame does not fit the peer's %u-byte slots", peer->wireup->name,
                 size, peer->tx_slot_size);
        return TC_ERR_PROTOCOL;
    }
    return tc_peer_send_sized(peer, hdr, frame, size,
                              (kind == TC_KIND_LOCAL) || (kind == TC_KIND_INJECTED) ||
                                  (kind == TC_KIND_CACHED));
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
    /* the caller's bytes as they are (no seal): staged, put, fenced, signal
     * put */
    staging = tc_peer_tx_frame(peer);
    memcpy(staging, frame, len);
    /* where frames are otherwise copied (one staging frame, the next
     * frame's too) each put's source is free again before this returns */
    status = tc_peer_put_raw(peer, staging, len - TC_FRAME_SIG_SIZE, raddr);
    if (status == TC_OK) {
        ucp_worker_fence(peer->ctx->worker);
        status = tc_peer_put_raw(peer, staging + len - TC_FRAME_SIG_SIZE, TC_FRAME_SIG_SIZE,
                                 raddr + len - TC_FRAME_SIG_SIZE);
    }
    /* the caller's bytes: the next frame of ours there clears its signal
     * word whatever its size */
    peer->tx_slot_frame[peer->tx_seq & (peer->tx_slots - 1)] = 0;
    peer->tx_slots_frame = 0;
    peer->tx_run_frame   = 0;
    if (status == TC_OK) {
        peer->tx_seq++;
        peer->stats.tx_frames++;
    }
    return status;
}

/* A frame that only carries the latest result (and credits). Never waits:
 * without a free slot the reply stays pending and goes later. */
tc_status_t tc_peer_send_reply(tc_peer_t *peer)
{
    tc_frame_layout_t layout = {0, 0, 0, 0};
    tc_frame_offsets_t offsets;
    char *frame;

    if (tc_peer_tx_free(peer) == 0) {
        peer->owed |= TC_OWED_REPLY;
        return TC_OK;
    }
    peer->owed &= ~TC_OWED_REPLY;

    frame = tc_peer_tx_frame(peer);
    (void)tc_frame_layout(&layout, peer->tx_slot_size, &offsets);
    offsets.frame_size = tc_peer_frame_size(peer, offsets.frame_size);
    tc_frame_write_hdr(frame, &offsets, &layout, TC_KIND_REPLY, 0, 0, 0, peer->tx_seq);
    return tc_peer_send_frame(peer, frame);
}

/* A reply or a nop: nothing runs; the result and credits it carries count
 * (dispatch notes them for every frame it takes). */
static const char *tc_send_rx_carrier(void *arg, tc_peer_t *peer, const char *frame,
                                      const tc_frame_hdr_t *hdr, tc_status_t *status_p)
{
    (void)arg;
    (void)peer;
    (void)frame;
    (void)hdr;
    (void)status_p;
    return NULL;
}

static const tc_rx_kind_def_t tc_send_rx_kinds[] = {
    {TC_KIND_REPLY, tc_send_rx_carrier, 0},
    {TC_KIND_NOP, tc_send_rx_carrier, 0},
};

/* (the reply owed is the send path's own: no step) */
tc_status_t tc_send_rx_register(tc_context_t *ctx)
{
    return tc_rx_register_kinds(ctx, tc_send_rx_kinds, TC_ARRAY_SIZE(tc_send_rx_kinds), NULL,
                                TC_OWED_REPLY, tc_peer_send_reply);
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

    if (TC_UNLIKELY(peer->failed != TC_OK) &&
        !((kind == TC_KIND_GOODBYE) && (peer->failed == TC_ERR_CLOSED))) {
        return peer->failed; /* a goodbye may still answer the peer's */
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
                 "slots", peer->wireup->name, tc_frame_kind_str(kind), args_len, payload_len,
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

