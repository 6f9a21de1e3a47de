/*
 * Dispatch's fast path, inline: run the next frame where it is of the shape
 * of the last local or cached frame the validator passed (fixed frames), so
 * that a wait loop that sees it arrive runs it without a call; and what is
 * owed to the peer once frames ran. Everything else is lib/dispatch.c's.
 */
#ifndef TC_DISPATCH_H
#define TC_DISPATCH_H

#include "runtime.h"
#include "credits.h"
#include "mailbox.h"

#include <string.h>

/* What every frame leaves once handled (run, refused or garbage): its slot
 * goes back to the sender with the next credit. */
static inline void tc_rx_consumed(tc_peer_t *peer, uint64_t seen)
{
    peer->rx_stale[peer->rx_seq & (peer->rx_slots - 1)] = seen;
    peer->rx_seq++;
    peer->idle_polls = 0;
}

/* A frame with a valid header: the result and the credits it carries. */
static inline void tc_rx_note(tc_peer_t *peer, const tc_frame_hdr_t *hdr)
{
    if (hdr->flags & TC_FRAME_F_HAS_RET) {
        peer->stats.last_ret     = hdr->ret;
        peer->stats.last_ret_seq = hdr->ret_seq;
    }
    tc_peer_note_ack(peer, hdr->ack);
}

static inline void tc_rx_run(tc_peer_t *peer, char *frame, const tc_frame_hdr_t *hdr,
                             tc_jam_run_fn run_fn, void *state)
{
    tc_jam_ctx_t jctx;

    jctx.state    = state;
    jctx.origin   = peer->peer_rank;
    jctx.seq      = hdr->seq;
    jctx.args     = frame + TC_FRAME_HDR_SIZE;
    jctx.args_len = hdr->args_len;
    peer->rx_last_run = run_fn;
    peer->ran_ret = run_fn(&jctx, frame + hdr->payload_off, hdr->payload_len);
    peer->ran_seq = hdr->seq;
    peer->ran_has = 1;
    peer->stats.rx_frames++;
    if (hdr->flags & TC_FRAME_F_WANT_REPLY) {
        peer->owed |= TC_OWED_REPLY;
    }
}

/* The next frame of the injected jam that ran last under the allow-list
 * (disp_injected): run it, 1, or 0 where anything differs (lib/dispatch.c). */
int tc_rx_injected_fast(tc_peer_t *peer, char *frame, const tc_frame_hdr_t *hdr, uint64_t seen);

/* The next frame, if it landed and takes a fast path: of the shape of the
 * last local or cached frame the validator passed, or of the injected jam
 * the allow-list ran last (out of line: it compares the frame's code and
 * GOTP). 1: ran it. 0: nothing new in the slot. -1: something landed that
 * the validated path must look at (another shape, variable frames, a
 * failed peer); tc_peer_rx_landed then takes it. tc_peer_progress and
 * tc_peer_wait both look here first. */
static inline __attribute__((always_inline)) int tc_rx_poll(tc_peer_t *peer)
{
    uint32_t idx = peer->rx_seq & (peer->rx_slots - 1);
    char *slot   = peer->rx_ring + (size_t)idx * peer->rx_slot_size;
    tc_frame_hdr_t hdr;
    uint64_t seen;
    uint8_t was;
    int ran;

    if (TC_UNLIKELY(peer->frames != TC_FRAMES_FIXED)) {
        return tc_peer_rx_peek(peer) ? -1 : 0;
    }
    seen = tc_peer_rx_sig(peer, slot);
    if (TC_UNLIKELY(seen != tc_frame_sig(peer->rx_seq))) {
        return tc_peer_sig_new(peer, idx, seen) ? -1 : 0;
    }
    if (TC_UNLIKELY(seen == peer->rx_stale[idx]) &&
        !(TC_UNLIKELY(peer->rx_held) && tc_peer_sig_held(peer, idx))) {
        return 0; /* what the last frame of this slot left, or a payload's bytes that
                   * hold the due signal (tc_mbox_resize) */
    }
    if (TC_UNLIKELY(peer->failed != TC_OK)) {
        return -1;
    }
    tc_load_acquire_fence();
    tc_peer_prefetch_arrival(peer, slot);
    /* one copy of the header: what is checked is what is used */
    memcpy(&hdr, slot, sizeof(hdr));
    /* a jam that sends and waits for credits must not handle frames (this
     * one is not consumed yet) */
    was               = peer->in_progress;
    peer->in_progress = 1;
    if (TC_LIKELY((peer->fast_run != NULL) &&
                  tc_frame_same_shape(&hdr, &peer->fast_shape, peer->rx_frame_size,
                                      peer->rx_seq, seen) &&
                  tc_peer_ack_sane(peer, hdr.ack))) {
        tc_rx_run(peer, slot, &hdr, peer->fast_run, peer->fast_state);
        ran = 1;
    } else if (hdr.kind == TC_KIND_INJECTED) {
        /* its code and GOT lines are checked next, on either path: ask for
         * them all at once, once */
        if (!peer->sw_prefetch) {
            tc_peer_prefetch_code(peer, slot, &hdr);
        }
        ran = (peer->disp_injected != NULL) && tc_peer_ack_sane(peer, hdr.ack) &&
              tc_rx_injected_fast(peer, slot, &hdr, seen);
    } else {
        ran = 0;
    }
    peer->in_progress = was;
    if (!ran) {
        return -1;
    }
    tc_rx_note(peer, &hdr);
    tc_rx_consumed(peer, seen);
    return 1;
}

/* The frame tc_rx_poll passed on (-1), through the validator; then what is
 * owed. *n_p: 1, or 0 for a config or goodbye (or nothing there). */
tc_status_t tc_peer_rx_landed(tc_peer_t *peer, unsigned *n_p);

/* What frames that ran leave owed to the peer (replies, sync answers, ried
 * answers, a nack, credits), sent. */
tc_status_t tc_peer_send_owed(tc_peer_t *peer);

static inline int tc_peer_owes(const tc_peer_t *peer)
{
    return (peer->owed != 0) | (peer->rx_seq - peer->rx_reported >= peer->credit_batch);
}

#endif
