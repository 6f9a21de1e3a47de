/*
 * Dispatch's fast path, inline: run the next frame where it is of the shape
 * of the last local or cached frame the validator passed (fixed frames), so
 * that a wait loop that sees it arrive runs it without a call; and what is
 * owed to the peer once frames ran. Everything else is lib/core/dispatch.c's.
 */
#ifndef TC_DISPATCH_H
#define TC_DISPATCH_H

#include "runtime.h"
#include "credits.h"
#include "mailbox.h"
#include "frame_line.h"

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

/* A jam frame ran (flags: its header's) and returned ret: its result
 * recorded for the replies and frames that piggyback it, unless the frame
 * asked for none (a one-way prepared start: TC_FRAME_F_NO_RET); a reply owed
 * where it wants one. Frames with neither flag - every tc_jam_send - pay
 * the one test they paid for the reply alone. */
static inline __attribute__((always_inline)) void
tc_rx_ran(tc_peer_t *peer, uint8_t flags, int64_t ret, uint32_t seq)
{
    if (TC_LIKELY(!(flags & (TC_FRAME_F_WANT_REPLY | TC_FRAME_F_NO_RET)))) {
        peer->ran_ret = ret;
        peer->ran_seq = seq;
        peer->ran_has = 1;
        return;
    }
    if (!(flags & TC_FRAME_F_NO_RET)) {
        peer->ran_ret = ret;
        peer->ran_seq = seq;
        peer->ran_has = 1;
    }
    if (flags & TC_FRAME_F_WANT_REPLY) {
        peer->owed |= TC_OWED_REPLY;
    }
}

static inline void tc_rx_run(tc_peer_t *peer, char *frame, const tc_frame_hdr_t *hdr,
                             tc_jam_run_fn run_fn, void *state)
{
    tc_jam_ctx_t jctx;
    int64_t ret;

    jctx.state    = state;
    jctx.origin   = peer->peer_rank;
    jctx.seq      = hdr->seq;
    jctx.args     = frame + TC_FRAME_HDR_SIZE;
    jctx.args_len = hdr->args_len;
    peer->rx_last_run = run_fn;
    ret = run_fn(&jctx, frame + hdr->payload_off, hdr->payload_len);
    peer->stats.rx_frames++;
    tc_rx_ran(peer, hdr->flags, ret, hdr->seq);
}

/* The next frame of the injected jam that ran last under the allow-list
 * (disp_injected), its header's words checked against that frame's shape:
 * the receiver's own linked copy if the frame's GOTP and code are the ones
 * it holds, else NULL (lib/core/dispatch.c; the validated path then says why). */
tc_jam_run_fn tc_rx_injected_check(tc_peer_t *peer, const char *frame);

/* tc_rx_poll for variable frames (tc_rx_poll_variable_inline), out of line
 * (lib/core/dispatch.c): the fixed frames' path keeps its registers. */
int tc_rx_poll_variable(tc_peer_t *peer, char *slot, uint32_t seq);

/* A frame of a recorded shape in slot idx, whose header words w are the
 * receiver's one copy, checked: a general header's (line 0) or a line's
 * (line 1, lib/codec/frame_line.h: no sections, the payload after its 32-byte
 * header; a constant, so each caller's code reads only its format). Its
 * result and credits noted first (what the jam sends while it runs
 * carries them), then run_fn runs on it, and its slot is consumed. */
static inline __attribute__((always_inline)) void
tc_rx_fast_run_as(tc_peer_t *peer, char *slot, uint32_t idx, const uint64_t *w, int line,
                  tc_jam_run_fn run_fn, void *state, uint64_t seen)
{
    uint32_t seq  = (uint32_t)(w[0] >> 32);
    uint8_t flags = line ? tc_frame_line_flags(w[0]) : (uint8_t)(w[1] >> 56);
    tc_jam_ctx_t jctx;
    uint8_t was;
    int64_t ret;

    if (flags & TC_FRAME_F_HAS_RET) {
        peer->stats.last_ret     = (int64_t)(line ? w[3] : w[4]);
        peer->stats.last_ret_seq = line ? (uint32_t)(w[2] >> 32) : (uint32_t)w[5];
    }
    tc_peer_note_ack(peer, (uint32_t)w[2]);
    /* what the slot held is noted before the run (the slot itself is
     * consumed after it: the jam reads its payload there) */
    peer->rx_stale[idx] = seen;
    /* a jam that sends and waits for credits must not handle frames (this
     * one is not consumed yet) */
    was               = peer->in_progress;
    peer->in_progress = 1;
    jctx.state        = state;
    jctx.origin       = peer->peer_rank;
    jctx.seq          = seq;
    jctx.args         = slot + TC_FRAME_HDR_SIZE;
    jctx.args_len     = line ? 0 : (uint16_t)(w[3] >> 16);
    peer->rx_last_run = run_fn;
    ret = line ? run_fn(&jctx, slot + TC_FRAME_LINE_HDR_SIZE, tc_frame_line_len(w[0])) :
                 run_fn(&jctx, slot + (uint16_t)w[3], (uint32_t)(w[2] >> 32));
    peer->in_progress = was;
    peer->stats.rx_frames++;
    /* the reply is owed only now that its result is: owed before the run,
     * a jam that waits on this peer would send it with the last result
     * (seq: the frame's, rx_seq moves only below) */
    tc_rx_ran(peer, flags, ret, peer->rx_seq);
    peer->rx_seq++;
    peer->idle_polls = 0;
}

/* tc_rx_fast_run_as on a general header's words. */
static inline __attribute__((always_inline)) void
tc_rx_fast_run(tc_peer_t *peer, char *slot, uint32_t idx, const uint64_t w[TC_FRAME_HDR_SIZE / 8],
               tc_jam_run_fn run_fn, void *state, uint64_t seen)
{
    tc_rx_fast_run_as(peer, slot, idx, w, 0, run_fn, state, seen);
}

/* tc_rx_poll with variable frames: where the last local or cached frame
 * the validator passed was one line (64 bytes, fast_shape), the next one of
 * its shape landed whole is run from its line: its header's first word
 * names the expected seq and a 64-byte frame (the sender writes the header
 * before the rest and clears a signal word it does not know first), then
 * the signal of that seq at the line's end, written last, then the header's
 * other words once. Anything else goes the validated way. */
static inline __attribute__((always_inline)) int tc_rx_poll_variable_inline(tc_peer_t *peer,
                                                                             char *slot,
                                                                             uint32_t seq)
{
    uint64_t w[TC_FRAME_HDR_SIZE / 8];

    if (peer->fast_run != NULL) {
        if (tc_read_once((const uint64_t *)(const void *)slot) ==
            (((uint64_t)seq << 32) | TC_FRAME_ALIGN)) {
            tc_smp_rmb();
            if ((tc_frame_sig_read(slot, TC_FRAME_ALIGN) == tc_frame_sig(seq)) &&
                TC_LIKELY(peer->failed == TC_OK)) {
                tc_smp_rmb();
                tc_frame_load_words((const tc_frame_hdr_t *)slot, w);
                if (tc_frame_words_same_shape(w, &peer->fast_shape, TC_FRAME_ALIGN, seq) &&
                    tc_peer_ack_sane(peer, (uint32_t)w[2])) {
                    tc_rx_fast_run(peer, slot, seq & (peer->rx_slots - 1), w, peer->fast_run,
                                   peer->fast_state,
                                   TC_STALE_HDR | seq);
                    return 1;
                }
            }
        }
    }
    return tc_peer_rx_peek(peer) ? -1 : 0;
}

/* tc_rx_poll where the last local or cached frame the validator passed
 * was a line (rx_path TC_RX_PATH_LINE: fixed 64-byte frames): the signal
 * as on the general path, then the line's words once, two compares with
 * what the receiver expects next (lib/codec/frame_line.h) and the ack; anything
 * else goes the validated way (which sets the general path again). */
static inline __attribute__((always_inline)) int tc_rx_poll_line(tc_peer_t *peer, char *slot,
                                                                 uint32_t seq)
{
    uint32_t idx  = seq & (peer->rx_slots - 1);
    /* rx_path LINE only with fixed 64-byte frames: the signal is the line's
     * last word */
    uint64_t seen = tc_frame_sig_read(slot, TC_FRAME_ALIGN);
    uint64_t w[TC_FRAME_LINE_WORDS];

    if (TC_UNLIKELY(seen != tc_frame_sig(seq))) {
        return tc_peer_sig_new(peer, idx, seen) ? -1 : 0;
    }
    if (TC_UNLIKELY(seen == peer->rx_stale[idx]) &&
        !(TC_UNLIKELY(peer->rx_held) && tc_peer_sig_held(peer, idx))) {
        return 0; /* as tc_rx_poll */
    }
    if (TC_UNLIKELY(peer->failed != TC_OK)) {
        return -1;
    }
    tc_smp_rmb();
    /* nothing to prefetch: the frame is the line its signal was read from;
     * one copy of the line's header, word by word: what is checked is what
     * is used */
    tc_frame_line_load(slot, w);
    if (TC_LIKELY((peer->fast_run != NULL) &&
                  tc_frame_line_same_shape(w[0], w[1], &peer->fast_shape, seq) &&
                  tc_peer_ack_sane(peer, (uint32_t)w[2]))) {
        tc_rx_fast_run_as(peer, slot, idx, w, 1, peer->fast_run, peer->fast_state, seen);
        return 1;
    }
    return -1;
}

/* The next frame, if it landed and takes a fast path: of the shape of the
 * last local or cached frame the validator passed (a one-line frame - a
 * 64-byte frame whose header, payload and signal share the line - is read
 * from that line alone: its signal, then its header's words once, compared
 * with what the receiver expects next), or of the injected jam the
 * allow-list ran last (out of line: it compares the frame's code and
 * GOTP). 1: ran it. 0: nothing new in the slot. -1: something landed that
 * the validated path must look at (another shape, variable frames, a
 * failed peer); tc_peer_rx_landed then takes it. tc_peer_progress and
 * tc_peer_wait both look here first. */
static inline __attribute__((always_inline)) int tc_rx_poll(tc_peer_t *peer)
{
    uint32_t seq, idx;
    uint64_t w[TC_FRAME_HDR_SIZE / 8];
    tc_jam_run_fn run_fn;
    uint64_t seen;
    char *slot;

    if (TC_UNLIKELY(peer->rx_path != TC_RX_PATH_GENERAL)) {
        /* the slot and rx_path read apart from the general path's reads
         * (else the compiler shares them, and the general path pays for
         * it) */
        seq  = tc_read_once(&peer->rx_seq);
        slot = tc_read_once(&peer->rx_ring) +
               (size_t)(seq & (peer->rx_slots - 1)) * peer->rx_slot_size;
        if (tc_read_once(&peer->rx_path) == TC_RX_PATH_LINE) {
            return tc_rx_poll_line(peer, slot, seq);
        }
        return tc_rx_poll_variable(peer, slot, seq);
    }
    seq  = peer->rx_seq;
    idx  = seq & (peer->rx_slots - 1);
    slot = peer->rx_ring + (size_t)idx * peer->rx_slot_size;
    seen = tc_peer_rx_sig(peer, slot);
    if (TC_UNLIKELY(seen != tc_frame_sig(seq))) {
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
    tc_smp_rmb();
    tc_peer_prefetch_arrival(peer, slot);
    /* one copy of the header, word by word: what is checked is what is used */
    tc_frame_load_words((const tc_frame_hdr_t *)slot, w);
    if (TC_LIKELY((peer->fast_run != NULL) &&
                  tc_frame_words_same_shape(w, &peer->fast_shape, peer->rx_frame_size, seq) &&
                  tc_peer_ack_sane(peer, (uint32_t)w[2]))) {
        tc_rx_fast_run(peer, slot, idx, w, peer->fast_run, peer->fast_state, seen);
        return 1;
    }
    if ((uint8_t)(w[1] >> 48) != TC_KIND_INJECTED) {
        return -1;
    }
    /* its code and GOT lines are checked next, on either path: ask for
     * them all at once, once */
    if (!peer->sw_prefetch) {
        tc_peer_prefetch_lines(peer, slot, (uint16_t)w[3]);
    }
    if ((peer->disp_injected == NULL) || (peer->rx_frame_size != peer->disp_inj_frame_size) ||
        !tc_frame_words_same_shape(w, &peer->disp_inj_shape, peer->rx_frame_size, seq) ||
        !tc_peer_ack_sane(peer, (uint32_t)w[2])) {
        return -1;
    }
    run_fn = tc_rx_injected_check(peer, slot);
    if (run_fn == NULL) {
        return -1;
    }
    tc_rx_fast_run(peer, slot, idx, w, run_fn, peer->disp_injected->state, seen);
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
