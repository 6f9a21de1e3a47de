/*
 * Dispatch: validate the frame that landed in the next slot and run it (or
 * reject it and say why), then give its slot back. The common frame - of
 * the shape of the last local or cached frame the validator passed, fixed
 * size - takes six word compares, inline (lib/core/dispatch.h, which the wait
 * loop calls too); everything else goes through the validator. Jams
 * (local, injected, cached) are dispatch's own; every other kind goes to
 * the handler its module registered in the context's table (tc_rx_register,
 * as UCX's ucp_am_handlers), and what a progress call leaves owed to the
 * peer to the steps they registered (tc_rx_register_owed).
 */
#include "dispatch.h"
#include "exec.h"
#include "log.h"
#include "send.h"

#include <stdio.h>
#include <string.h>

static int tc_peer_known(void *arg, uint32_t pkg_id, uint16_t element, uint8_t kind)
{
    tc_peer_t *peer = arg;
    const tc_ctx_pkg_t *entry;
    const tc_pkg_element_t *elem;

    if ((kind != TC_KIND_LOCAL) && (kind != TC_KIND_MCAST)) {
        /* injected, cached, sync: a jam of an accepted package with a blob
         * (a multicast envelope names a jam as a local frame does) */
        entry = tc_context_find_pkg(peer->ctx, pkg_id);
        peer->known_status = (entry == NULL) ? TC_ERR_NOT_FOUND :
                             (tc_pkg_blob(entry->pkg, element) == NULL) ? TC_ERR_UNSUPPORTED :
                                                                          TC_OK;
        return peer->known_status == TC_OK;
    }
    if ((pkg_id == peer->disp_pkg_id) && (element == peer->disp_element)) {
        return 1;
    }
    entry = tc_context_find_pkg(peer->ctx, pkg_id);
    if ((entry == NULL) || (element >= entry->pkg->desc->n_elements) ||
        (entry->pkg->desc->elements[element].kind != TC_ELEM_JAM)) {
        peer->known_status = TC_ERR_NOT_FOUND;
        return 0;
    }
    elem = &entry->pkg->desc->elements[element];
    peer->disp_elem    = elem;
    peer->disp_state   = entry->state;
    peer->disp_pkg_id  = pkg_id;
    peer->disp_element = element;
    return 1;
}

/* The end of the lines an injected frame's check reads (its GOTP and code:
 * [64, payload_off)) to ask for on arrival: 0 for a frame of two lines,
 * which the poll has read whole (the header's line, tc_peer_rx_sig, and the
 * signal's); a longer frame's all (the signal's among them where the code
 * reaches it: one request more, not a second bound). */
static uint16_t tc_rx_inj_prefetch_end(const tc_peer_t *peer, uint32_t payload_off)
{
    return (peer->rx_frame_size > 2 * TC_FRAME_ALIGN) ? (uint16_t)payload_off : 0;
}

/* Frames that carry or name code (injected, cached): check them against the
 * manifest and the namespace sync; return why not (and, in *status_p, what
 * the sender's NACK says), or NULL and what to run. */
static const char *tc_peer_rx_code(tc_peer_t *peer, char *frame, const tc_frame_hdr_t *hdr,
                                   tc_jam_run_fn *run_p, void **state_p, tc_status_t *status_p)
{
    tc_frame_layout_t layout = {hdr->args_len, hdr->got_count, hdr->code_len,
                                hdr->payload_len};
    tc_frame_offsets_t off;
    const char *why;
    tc_inj_t *inj;

    *run_p    = NULL;
    *status_p = TC_ERR_REFUSED;
    (void)tc_frame_layout(&layout, UINT32_MAX, &off); /* the validator checked it */
    inj = tc_inj_find(peer, hdr->pkg_id, hdr->element);
    if (inj == NULL) {
        tc_jam_t jam = {NULL, NULL, hdr->pkg_id, hdr->element};
        inj = tc_inj_get(peer, &jam);
        if (inj == NULL) {
            *status_p = TC_ERR_NO_RESOURCE;
            return "no room for another injected jam";
        }
    }
    *state_p = inj->state;

    switch (hdr->kind) {
    case TC_KIND_INJECTED:
        why = tc_exec_injected(peer, inj, hdr, (uint8_t *)frame + off.got_off, run_p);
        if ((why == NULL) && (peer->frames == TC_FRAMES_FIXED) && (*run_p == inj->own_run) &&
            (hdr->args_len == 0) && !(hdr->flags & TC_FRAME_F_CACHE)) {
            /* the allow-list ran the receiver's own copy: the next frame of
             * this jam's shape (flags included: one that asks to cache goes
             * through here) takes the fast path */
            peer->disp_injected       = inj;
            tc_frame_shape_of(hdr, peer->rx_frame_size, &peer->disp_inj_shape);
            peer->disp_inj_got_off    = (uint16_t)off.got_off;
            peer->disp_inj_prefetch_end = tc_rx_inj_prefetch_end(peer, off.payload_off);
            tc_rx_path_set(peer, tc_rx_path_of(peer)); /* the injected fast path's */
        }
        return why;
    default: /* TC_KIND_CACHED */
        /* package id and element name the code: the cache holds what the
         * sync checked (lib/core/exec.c) */
        why = tc_exec_cached(peer, inj, run_p);
        if (why != NULL) {
            return why;
        }
        if (*run_p == NULL) {
            /* the sender hears it twice: a sync answer MISS (its next cached
             * frame carries the code again) ahead of this frame's NACK, whose
             * status says that a call may send the frame again */
            inj->rx_sync_status      = TC_SYNC_MISS;
            inj->rx_sync_seq         = hdr->seq;
            inj->rx_sync_reply       = 1;
            peer->owed |= TC_OWED_SYNC;
            *status_p                = TC_ERR_AGAIN;
            return "cached frame for code this receiver does not hold (sender told)";
        }
        peer->disp_cached = inj;
        return NULL;
    }
}

/* A jam of hdr's package and element ran: the next frame is most likely
 * one of it, so whether to ask for its lines on arrival is this jam's
 * (TC_JAM_HINT_READS_PAYLOAD; the receiver's own package says, whoever sent
 * the code). */
static void tc_rx_note_hints(tc_peer_t *peer, const tc_frame_hdr_t *hdr)
{
    const tc_ctx_pkg_t *entry = tc_context_find_pkg(peer->ctx, hdr->pkg_id);

    peer->rx_prefetch = (entry != NULL) &&
                        (tc_pkg_hints(entry->pkg, hdr->element) & TC_JAM_HINT_READS_PAYLOAD);
}

/* A LOCAL or CACHED frame the validator passed and that ran run_fn: with
 * fixed frames, later frames of its shape take the fast path; with variable
 * frames, where it is one line (tc_rx_poll_as, TC_RX_PATH_VARIABLE). */
static void tc_rx_fast_record(tc_peer_t *peer, const tc_frame_hdr_t *hdr, tc_jam_run_fn run_fn,
                              void *state)
{
    uint32_t size = peer->rx_frame_size;

    if (peer->frames != TC_FRAMES_FIXED) {
        if (hdr->frame_size != TC_FRAME_ALIGN) {
            return;
        }
        size = TC_FRAME_ALIGN;
    }
    if (hdr->payload_off == TC_FRAME_LINE_HDR_SIZE) {
        /* a line's expansion (no general header puts its payload there) */
        tc_frame_line_shape(hdr, &peer->fast_shape);
        tc_rx_path_set(peer, (peer->rx_path & TC_RX_PATH_UNCOUNTED) | TC_RX_PATH_LINE);
    } else {
        tc_frame_shape_of(hdr, size, &peer->fast_shape);
    }
    peer->fast_run   = run_fn;
    peer->fast_state = state;
}

/* A frame of a kind a module registered: its handler decides. One that
 * nothing here took (multicast without its engine set up, say) is
 * refused. 0 or -1 as tc_rx_route. */
static int tc_rx_kind(tc_peer_t *peer, const char *frame, const tc_frame_hdr_t *hdr)
{
    const tc_rx_kind_t *entry = &peer->ctx->rx_kinds[hdr->kind]; /* validated: < TC_KIND_LAST */
    tc_status_t status = TC_ERR_BAD_FRAME;
    const char *why;

    if (TC_UNLIKELY(entry->cb == NULL)) {
        snprintf(peer->reject->why, sizeof(peer->reject->why), "%s frame, but nothing on this side "
                 "takes it (not set up here)", tc_frame_kind_str(hdr->kind));
        tc_peer_reject(peer, TC_ERR_UNSUPPORTED, peer->reject->why);
        return -1;
    }
    why = entry->cb(entry->arg, peer, frame, hdr, &status);
    if (why != NULL) {
        tc_peer_reject(peer, status, why);
        return -1;
    }
    return 0;
}

/* A frame whose header the validator passed, by kind: 1 for a jam that
 * ran (tc_rx_exec noted what it carries and consumed its slot), 0 once a
 * module's handler took it (its result and credits then count), or -1 when
 * refused (only its credits count: else both sides would wait for each
 * other). */
static int tc_rx_route(tc_peer_t *peer, char *frame, const tc_frame_hdr_t *hdr, uint64_t seen)
{
    tc_jam_run_fn run_fn = NULL;
    tc_status_t status;
    void *state = NULL;
    const char *why;

    switch (hdr->kind) {
    case TC_KIND_LOCAL:
        tc_rx_run(peer, frame, hdr, peer->disp_elem->run, peer->disp_state, seen);
        tc_rx_fast_record(peer, hdr, peer->disp_elem->run, peer->disp_state);
        tc_rx_note_hints(peer, hdr);
        return 1;
    case TC_KIND_INJECTED:
    case TC_KIND_CACHED:
        why = tc_peer_rx_code(peer, frame, hdr, &run_fn, &state, &status);
        if (why != NULL) {
            tc_peer_reject(peer, status, why);
            return -1;
        }
        tc_rx_run(peer, frame, hdr, run_fn, state, seen);
        if (hdr->kind == TC_KIND_CACHED) {
            tc_rx_fast_record(peer, hdr, run_fn, state);
        }
        tc_rx_note_hints(peer, hdr);
        return 1;
    default:
        return tc_rx_kind(peer, frame, hdr);
    }
}

/* Everything the fast path does not take: validate the header (nothing in
 * the frame is trusted before), then route it. Returns 0 for a kind
 * registered quiet (config, goodbye: what a caller waits for is never one),
 * else 1; a nack counts, so that the caller's wait ends and its call sees
 * it. */
static __attribute__((noinline)) int tc_rx_validated(tc_peer_t *peer, char *frame,
                                                    const tc_frame_hdr_t *hdr,
                           uint64_t seen)
{
    uint64_t line_w[TC_FRAME_LINE_WORDS];
    tc_frame_expect_t expect;
    tc_frame_hdr_t line_hdr;
    tc_status_t status;
    char reason[160];
    int routed;

    /* whatever this frame is, the next one of the old shape is looked at
     * again: a sync may have replaced the cached code, a config the size */
    peer->fast_run     = NULL;
    tc_rx_path_set(peer, tc_rx_path_of(peer));
    expect.slot_size   = peer->rx_slot_size;
    expect.frame_size  = (peer->frames == TC_FRAMES_FIXED) ? peer->rx_frame_size : 0;
    expect.seq         = peer->rx_seq;
    expect.known       = tc_peer_known;
    expect.known_arg   = peer;
    peer->known_status = TC_OK;
    memcpy(line_w, hdr, sizeof(line_w));
    if (tc_frame_is_line(line_w[0])) {
        /* a line frame (lib/codec/frame_line.h): checked as the general header it
         * stands for, which is what runs */
        status = tc_frame_validate_line(line_w, frame, &expect, &line_hdr, reason,
                                        sizeof(reason));
        hdr    = (status == TC_OK) ? &line_hdr : hdr;
    } else {
        status = tc_frame_validate_hdr(hdr, frame, &expect, reason, sizeof(reason));
    }
    if (TC_UNLIKELY(status != TC_OK)) {
        tc_peer_reject(peer, (peer->known_status != TC_OK) ? peer->known_status :
                                                             TC_ERR_BAD_FRAME, reason);
        /* the credits of a frame the peer sent as this seq count (seq and
         * ack lie alike in both formats): its sender took them as told, and
         * a ring's worth of refusals would leave no slot for the next NACK */
        if ((hdr->seq == peer->rx_seq) && tc_peer_ack_sane(peer, hdr->ack)) {
            tc_peer_note_ack(peer, hdr->ack);
        }
        tc_rx_consumed(peer, seen);
        return 1;
    }
    if (TC_UNLIKELY(!tc_peer_ack_sane(peer, hdr->ack))) {
        /* its credits would hand out slots of frames never sent */
        snprintf(reason, sizeof(reason), "ack %u acknowledges more frames than the %u this "
                 "side sent", hdr->ack, peer->tx_seq);
        peer->stats.rx_bad_acks++;
        tc_peer_reject(peer, TC_ERR_PROTOCOL, reason);
        tc_rx_consumed(peer, seen);
        return 1;
    }
    routed = tc_rx_route(peer, frame, hdr, seen);
    if (routed <= 0) {
        if (routed == 0) {
            tc_rx_note(peer, hdr);
        } else {
            tc_peer_note_ack(peer, hdr->ack);
        }
        tc_rx_consumed(peer, seen);
    }
    if (TC_UNLIKELY(peer->rx_resize != 0)) {
        /* a config frame: the peer's next frames are of the new size, its
         * slots' signal words move */
        tc_mbox_resize(peer, peer->rx_resize);
        peer->rx_frame_size = peer->rx_resize;
        peer->rx_resize     = 0;
        /* the injected shape recorded is of the old size: no frame matches
         * it again, so the fast path for it goes (and with it INJECTED) */
        peer->disp_injected = NULL;
        tc_rx_path_set(peer, tc_rx_path_of(peer));
    }
    return !(peer->ctx->rx_kinds[hdr->kind].flags & TC_RX_KIND_F_QUIET);
}

int tc_rx_poll_any(tc_peer_t *peer)
{
    switch (peer->rx_path) {
#define TC_RX_POLL_CASE(_name, _path) \
    case (_path):                     \
        return tc_rx_poll_path(peer, (_path), 0);
        TC_RX_PATH_INSTANCES(TC_RX_POLL_CASE)
#undef TC_RX_POLL_CASE
    default:
        return -1; /* FAILED */
    }
}

/* The next frame of the injected jam that ran last under the allow-list,
 * its header already checked against that frame's shape (at the frame size
 * it had; tc_rx_poll_as): its GOTP and code against what the receiver holds,
 * then the receiver's own copy is what runs. NULL when anything differs:
 * the validated path then decides, and says why. */
tc_jam_run_fn tc_rx_injected_check(tc_peer_t *peer, const char *frame)
{
    return tc_exec_injected_again(peer, peer->disp_injected,
                                  (const uint8_t *)frame + peer->disp_inj_got_off);
}

/* Run (or reject) the frame that landed and that tc_rx_poll_as passed on
 * (another shape, variable frames), then give its slot back: the
 * validator decides. 0 for a config or goodbye, else 1. */
static int tc_rx_handle(tc_peer_t *peer, char *frame, uint64_t seen)
{
    tc_frame_hdr_t hdr;

    if (TC_UNLIKELY(peer->goodbye_seen)) {
        /* the peer said no frame follows its goodbye: nothing more of it
         * runs (the fast path leaves a failed peer's frames to this one) */
        tc_peer_reject(peer, TC_ERR_CLOSED, "frame after the peer's goodbye");
        tc_rx_consumed(peer, seen);
        return 1;
    }
    /* one copy of the header: what is checked is what is used */
    memcpy(&hdr, frame, sizeof(hdr));
    if ((hdr.kind == TC_KIND_INJECTED) && (peer->frames != TC_FRAMES_FIXED)) {
        /* its code and GOT lines are checked next: ask for them all at
         * once (fixed frames: tc_rx_poll_as asked) */
        tc_peer_prefetch_code(peer, frame, &hdr);
    }
    return tc_rx_validated(peer, frame, &hdr, seen);
}

/* The next frame past tc_rx_poll_as: -1 when none has landed, else what
 * tc_rx_handle counts. Inside in_progress. */
static int tc_rx_slow(tc_peer_t *peer)
{
    uint64_t seen;
    char *frame;

    if (!tc_peer_rx_ready(peer, &frame, &seen)) {
        return -1;
    }
    return tc_rx_handle(peer, frame, seen);
}

/* What frames left owed (a reply, sync answers, a ried's answer, the
 * refused frames' NACKs, queued: lib/core/reject.c), each by the step its
 * module registered (the reply's is send.c's: through the table, so that
 * dispatch uses nothing of the send path and no import loop is left), in
 * the order of the bits. None of them waits: what finds no free slot stays
 * owed. */
static __attribute__((noinline)) tc_status_t tc_rx_owed_steps(tc_peer_t *peer)
{
    tc_status_t status = TC_OK;
    unsigned bit;

    for (bit = 0; (bit < TC_OWED_STEPS) && (status == TC_OK); ++bit) {
        if (!(peer->owed & (1u << bit))) {
            continue;
        }
        if (peer->ctx->owed_steps[bit] == NULL) {
            peer->owed &= ~(1u << bit); /* nothing here could ever send it */
            continue;
        }
        status = peer->ctx->owed_steps[bit](peer);
    }
    return status;
}

tc_status_t tc_peer_send_owed(tc_peer_t *peer)
{
    uint8_t was = peer->in_progress; /* a jam's nested call leaves it set */
    tc_status_t status = TC_OK;

    /* as inside tc_peer_progress: a send that waits for credits does not
     * handle frames meanwhile */
    peer->in_progress = 1;
    if (peer->owed != 0) {
        status = tc_rx_owed_steps(peer);
    }
    if ((status == TC_OK) && (peer->rx_seq - peer->rx_reported >= peer->credit_batch)) {
        status = tc_credits_return(peer);
    }
    peer->in_progress = was;
    return status;
}

/* Up to max frames (0: all there are) read the way path (a constant) says
 * while rx_path names it, then what is owed. */
static inline __attribute__((always_inline)) tc_status_t
tc_rx_steps_as(tc_peer_t *peer, unsigned max, unsigned *n_p, const unsigned path)
{
    tc_status_t status = TC_OK;
    unsigned n = 0;
    uint8_t was;
    int got;

    /* a jam that runs tc_peer_progress on its origin nests in this: the
     * outer call's flag stays set when the nested one returns */
    was               = peer->in_progress;
    peer->in_progress = 1;
    while ((max == 0) || (n < max)) {
        got = tc_rx_poll_next(peer, path);
        if (got == 0) {
            break; /* nothing new */
        }
        if (got < 0) {
            got = tc_rx_slow(peer); /* -1: nothing after all; 0: a config or goodbye */
            if (got < 0) {
                break;
            }
        }
        n += (unsigned)got;
    }
    peer->in_progress = was;
    if (tc_peer_owes(peer)) {
        status = tc_peer_send_owed(peer);
    }
    if (n_p != NULL) {
        *n_p = n;
    }
    return status;
}

#define TC_RX_STEPS_INST(_name, _path)                                                        \
    static tc_status_t tc_rx_steps_##_name(tc_peer_t *peer, unsigned max, unsigned *n_p)      \
    {                                                                                         \
        return tc_rx_steps_as(peer, max, n_p, (_path));                                       \
    }
TC_RX_PATH_INSTANCES(TC_RX_STEPS_INST)
#undef TC_RX_STEPS_INST

/* A failed peer's: what failed says (no frame of it is looked at). */
static tc_status_t tc_rx_steps_failed(tc_peer_t *peer, unsigned max, unsigned *n_p)
{
    (void)max;
    (void)n_p;
    return peer->failed;
}

static const tc_rx_progress_fn tc_rx_steps_paths[TC_RX_PATHS] = TC_RX_PATH_TABLE(tc_rx_steps_);

void tc_rx_progress_register(tc_context_t *ctx)
{
    memcpy(ctx->rx_progress_paths, tc_rx_steps_paths, sizeof(ctx->rx_progress_paths));
}

tc_status_t tc_peer_progress(tc_peer_t *peer, unsigned max, unsigned *n_p)
{
    return peer->rx_progress(peer, max, n_p);
}

tc_status_t tc_peer_rx_landed(tc_peer_t *peer, unsigned *n_p)
{
    tc_status_t status = TC_OK;
    uint8_t was;
    int got;

    if (TC_UNLIKELY(peer->failed != TC_OK)) {
        return peer->failed;
    }
    was               = peer->in_progress; /* as tc_rx_steps_as */
    peer->in_progress = 1;
    got               = tc_rx_slow(peer);
    peer->in_progress = was;
    if (tc_peer_owes(peer)) {
        status = tc_peer_send_owed(peer);
    }
    if (n_p != NULL) {
        *n_p = (got > 0) ? (unsigned)got : 0u;
    }
    return status;
}
