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

/* The one way a jam frame runs, fast or validated: frame in slot idx,
 * whose header words w are the receiver's one copy, checked (a general
 * header's; or, line 1, a line's - lib/codec/frame_line.h: no sections, the
 * payload after its 32-byte header; a constant, so each caller's code reads
 * only its format). The result and credits it carries noted first (what
 * the jam sends while it runs carries them), what its slot held noted (the
 * slot itself is consumed after the run: the jam reads its payload there),
 * the jam run with in_progress set (a jam that sends and waits for credits
 * must not handle frames: this one is not consumed yet; a nested progress
 * restores it), then its own result and a reply owed - only now that the
 * result is: owed before the run, a jam that waits on this peer would send
 * it with the last result - and the slot consumed. counters (a constant,
 * the context's): rx_frames counted. */
static inline __attribute__((always_inline)) void
tc_rx_exec(tc_peer_t *peer, char *slot, uint32_t idx, const uint64_t *w, const int line,
           tc_jam_run_fn run_fn, void *state, uint64_t seen, const unsigned counters)
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
    peer->rx_stale[idx] = seen;
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
    if (counters & TC_RX_COUNT_FRAMES) {
        peer->stats.rx_frames++;
    }
    if (counters & TC_RX_COUNT_POLLS) {
        peer->stats.polls++;
    }
    /* seq: the frame's (rx_seq moves only below) */
    tc_rx_ran(peer, flags, ret, peer->rx_seq);
    peer->rx_seq++;
    peer->idle_polls = 0;
}

/* A validated jam frame in the slot due (hdr: the validator's copy, a line
 * expanded to the general header it stands for): tc_rx_exec on its words. */
static inline void tc_rx_run(tc_peer_t *peer, char *frame, const tc_frame_hdr_t *hdr,
                             tc_jam_run_fn run_fn, void *state, uint64_t seen)
{
    uint64_t w[TC_FRAME_HDR_SIZE / 8];

    tc_frame_load_words(hdr, w);
    tc_rx_exec(peer, frame, peer->rx_seq & (peer->rx_slots - 1), w, 0, run_fn, state, seen,
               peer->ctx->params.counters ? TC_RX_COUNT_FRAMES : 0u);
}

/* The next frame of the injected jam that ran last under the allow-list
 * (disp_injected), its header's words checked against that frame's shape:
 * the receiver's own linked copy if the frame's GOTP and code are the ones
 * it holds, else NULL (lib/core/dispatch.c; the validated path then says why). */
tc_jam_run_fn tc_rx_injected_check(tc_peer_t *peer, const char *frame);

/* The next frame, if it landed and takes a fast path, read the way path
 * (TC_RX_PATH_*, a constant: one body, specialised per path by the
 * compiler) says:
 * - GENERAL (fixed frames): the signal at the frame's end, then the
 *   header's words once, compared with the shape of the last local or
 *   cached frame the validator passed;
 * - INJECTED (fixed frames, the allow-list recorded an injected jam): as
 *   GENERAL, or the shape of that injected jam's frames (then out of line:
 *   the frame's code and GOTP compared) - its own instance, so that a
 *   receiver of local frames alone keeps no register for this path;
 * - LINE (fixed 64-byte frames, the last such frame a line,
 *   lib/codec/frame_line.h): the signal the line's last word, its four
 *   words compared the same way;
 * - VARIABLE (variable frames, the last such frame one line of the
 *   general header): its first word names the expected seq and a 64-byte
 *   frame (the sender writes the header before the rest and clears a
 *   signal word it does not know first), then the signal of that seq at
 *   the line's end, written last, then the header's words once.
 * 1: ran it. 0: nothing new in the slot. -1: something landed that the
 * validated path must look at (another shape); tc_peer_rx_landed then
 * takes it. A failed peer is on none of these paths (TC_RX_PATH_FAILED).
 * counters: tc_rx_exec's. */
static inline __attribute__((always_inline)) int tc_rx_poll_as(tc_peer_t *peer,
                                                               const unsigned path,
                                                               const unsigned counters)
{
    uint32_t seq = peer->rx_seq;
    uint32_t idx = seq & (peer->rx_slots - 1);
    char *slot   = peer->rx_ring + (size_t)idx * peer->rx_slot_size;
    /* the general header's paths: GENERAL, and INJECTED, which holds the
     * injected fast path too */
    const int general = (path == TC_RX_PATH_GENERAL) || (path == TC_RX_PATH_INJECTED);
    uint64_t w[TC_FRAME_HDR_SIZE / 8];
    tc_jam_run_fn run_fn;
    uint64_t seen;

    if (path == TC_RX_PATH_VARIABLE) {
        if ((peer->fast_run == NULL) ||
            (tc_read_once((const uint64_t *)(const void *)slot) !=
             (((uint64_t)seq << 32) | TC_FRAME_ALIGN))) {
            return tc_peer_rx_peek(peer) ? -1 : 0;
        }
        tc_smp_rmb();
        if (tc_frame_sig_read(slot, TC_FRAME_ALIGN) != tc_frame_sig(seq)) {
            return tc_peer_rx_peek(peer) ? -1 : 0;
        }
        seen = TC_STALE_HDR | seq; /* what the validated path notes of a variable frame */
    } else {
        seen = (path == TC_RX_PATH_LINE) ? tc_frame_sig_read(slot, TC_FRAME_ALIGN) :
                                           tc_peer_rx_sig(peer, slot);
        if (TC_UNLIKELY(seen != tc_frame_sig(seq))) {
            return tc_peer_sig_new(peer, idx, seen) ? -1 : 0;
        }
        if (TC_UNLIKELY(seen == peer->rx_stale[idx]) &&
            !(TC_UNLIKELY(peer->rx_held) && tc_peer_sig_held(peer, idx))) {
            return 0; /* what the last frame of this slot left, or a payload's bytes that
                       * hold the due signal (tc_mbox_resize) */
        }
    }
    tc_smp_rmb();
    if (general) {
        tc_peer_prefetch_arrival(peer, slot);
    }
    /* one copy of the header, word by word: what is checked is what is used
     * (a line: nothing to prefetch, the frame is the line its signal was
     * read from) */
    if (path == TC_RX_PATH_LINE) {
        tc_frame_line_load(slot, w);
    } else {
        tc_frame_load_words((const tc_frame_hdr_t *)slot, w);
    }
    if (TC_LIKELY(((path == TC_RX_PATH_VARIABLE) || (peer->fast_run != NULL)) &&
                  ((path == TC_RX_PATH_LINE) ?
                       tc_frame_line_same_shape(w[0], w[1], &peer->fast_shape, seq) :
                       tc_frame_words_same_shape(w, &peer->fast_shape,
                                                 (path == TC_RX_PATH_VARIABLE) ?
                                                     TC_FRAME_ALIGN : peer->rx_frame_size,
                                                 seq)) &&
                  tc_peer_ack_sane(peer, (uint32_t)w[2]))) {
        tc_rx_exec(peer, slot, idx, w, path == TC_RX_PATH_LINE, peer->fast_run,
                   peer->fast_state, (path == TC_RX_PATH_VARIABLE) ? seen : tc_frame_sig(seq),
                   counters);
        return 1;
    }
    if (path == TC_RX_PATH_VARIABLE) {
        return tc_peer_rx_peek(peer) ? -1 : 0;
    }
    if ((path != TC_RX_PATH_INJECTED) || ((uint8_t)(w[1] >> 48) != TC_KIND_INJECTED)) {
        return -1; /* a line is never injected; GENERAL holds no injected jam */
    }
    /* its code and GOT lines are checked next, on either path: ask for
     * those the poll did not read at once, once (the recorded jam's: a frame
     * of another shape goes to the validator) */
    if (!peer->sw_prefetch) {
        tc_prefetch_lines(slot, peer->disp_inj_prefetch_end);
    }
    if ((peer->disp_injected == NULL) ||
        !tc_frame_words_same_shape(w, &peer->disp_inj_shape, peer->rx_frame_size, seq) ||
        !tc_peer_ack_sane(peer, (uint32_t)w[2])) {
        return -1;
    }
    run_fn = tc_rx_injected_check(peer, slot);
    if (run_fn == NULL) {
        return -1;
    }
    /* the slot's index read again after the call (rx_seq moves only in
     * tc_rx_exec) rather than held in a register across it */
    tc_rx_exec(peer, slot, peer->rx_seq & (peer->rx_slots - 1), w, 0, run_fn,
               peer->disp_injected->state, seen, counters);
    return 1;
}

/* tc_rx_poll_as on path, a constant: rx_path's value (its
 * TC_RX_PATH_UNCOUNTED bit: no counters); wait (a constant): tc_peer_wait's
 * first look, which counts a frame that ran as a poll. Each of the
 * receiver's entries (tc_peer_wait, tc_peer_progress) is instantiated once
 * per path and chosen through rx_path (lib/core/peer_wait.c, dispatch.c), so
 * each instance holds one body. */
static inline __attribute__((always_inline)) int tc_rx_poll_path(tc_peer_t *peer,
                                                                 const unsigned path,
                                                                 const int wait)
{
    return tc_rx_poll_as(peer, path & ~TC_RX_PATH_UNCOUNTED,
                         (path & TC_RX_PATH_UNCOUNTED) ? 0u :
                         wait ? (TC_RX_COUNT_FRAMES | TC_RX_COUNT_POLLS) : TC_RX_COUNT_FRAMES);
}

/* The next frame on the path rx_path holds now, out of line: for a loop
 * instantiated for one path whose frames changed it (a config frame, a line
 * recorded or dropped by the validator, a failure). tc_rx_poll_as's 1, 0
 * or -1; -1 on a failed peer (tc_peer_rx_landed says so). */
int tc_rx_poll_any(tc_peer_t *peer);

/* The next frame of a loop instantiated for path (a constant): its body
 * while rx_path still names it. */
static inline __attribute__((always_inline)) int tc_rx_poll_next(tc_peer_t *peer,
                                                                 const unsigned path)
{
    return TC_LIKELY(peer->rx_path == path) ? tc_rx_poll_path(peer, path, 0) :
                                              tc_rx_poll_any(peer);
}

/* Instantiates _inst(name, path) for each path rx_path may hold but
 * FAILED; and a table of such instances, indexed by rx_path (TC_RX_PATHS
 * entries, from FAILED on the file's own _prefix##failed). */
#define TC_RX_PATH_INSTANCES(_inst)                                                             \
    _inst(general, TC_RX_PATH_GENERAL)                                                          \
    _inst(line, TC_RX_PATH_LINE)                                                                \
    _inst(variable, TC_RX_PATH_VARIABLE)                                                        \
    _inst(injected, TC_RX_PATH_INJECTED)                                                        \
    _inst(general_uncounted, TC_RX_PATH_GENERAL | TC_RX_PATH_UNCOUNTED)                         \
    _inst(line_uncounted, TC_RX_PATH_LINE | TC_RX_PATH_UNCOUNTED)                               \
    _inst(variable_uncounted, TC_RX_PATH_VARIABLE | TC_RX_PATH_UNCOUNTED)                       \
    _inst(injected_uncounted, TC_RX_PATH_INJECTED | TC_RX_PATH_UNCOUNTED)
#define TC_RX_PATH_TABLE(_prefix)                                                               \
    {                                                                                           \
        [TC_RX_PATH_FAILED ... TC_RX_PATHS - 1]         = _prefix##failed,                      \
        [TC_RX_PATH_GENERAL]                            = _prefix##general,                     \
        [TC_RX_PATH_LINE]                               = _prefix##line,                        \
        [TC_RX_PATH_VARIABLE]                           = _prefix##variable,                    \
        [TC_RX_PATH_INJECTED]                           = _prefix##injected,                    \
        [TC_RX_PATH_GENERAL | TC_RX_PATH_UNCOUNTED]     = _prefix##general_uncounted,           \
        [TC_RX_PATH_LINE | TC_RX_PATH_UNCOUNTED]        = _prefix##line_uncounted,              \
        [TC_RX_PATH_VARIABLE | TC_RX_PATH_UNCOUNTED]    = _prefix##variable_uncounted,          \
        [TC_RX_PATH_INJECTED | TC_RX_PATH_UNCOUNTED]    = _prefix##injected_uncounted,          \
    }

/* The frame tc_rx_poll_as passed on (-1), through the validator; then what is
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
