/*
 * Send, inline: the put, the staging slot of the next frame, and the frame
 * size a frame of needed bytes goes out in.
 */
#ifndef TC_SEND_H
#define TC_SEND_H

#include "runtime.h"
#include "log.h"
#include "place.h"

/* Start a put of len bytes from buf to raddr in the peer's mailbox: TC_OK
 * and in *sp_p NULL (done in the call) or the request still under way, or
 * the failure (logged, the peer marked failed). */
static inline tc_status_t tc_peer_put_start(tc_peer_t *peer, const void *buf, size_t len,
                                            uint64_t raddr, ucs_status_ptr_t *sp_p)
{
    ucp_request_param_t param;
    ucs_status_ptr_t sp;

    param.op_attr_mask = 0;
    sp = ucp_put_nbx(peer->ep, buf, len, raddr, peer->rkey, &param);
    if (TC_UNLIKELY(UCS_PTR_IS_ERR(sp))) {
        tc_error("%s: put of %zu bytes failed: %s", peer->wireup->name, len,
                 ucs_status_string(UCS_PTR_STATUS(sp)));
        (void)tc_peer_fail(peer, TC_ERR_PEER_FAILED);
        return TC_ERR_PEER_FAILED;
    }
    *sp_p = sp;
    return TC_OK;
}

static inline tc_status_t tc_peer_put(tc_peer_t *peer, const void *buf, size_t len,
                                      uint64_t raddr)
{
    ucs_status_ptr_t sp;
    tc_status_t status = tc_peer_put_start(peer, buf, len, raddr, &sp);

    /* The source stays untouched until its credit returns, which proves
     * the put landed; UCX frees the request when it completes. */
    if ((status == TC_OK) && (sp != NULL)) {
        ucp_request_free(sp);
    }
    return status;
}

/* The staging slot of the next frame: one per slot of the peer's ring
 * where frames leave by put, the only one where the CPU copies them
 * (tx_stage_mask). */
static inline uint32_t tc_peer_tx_stage(const tc_peer_t *peer)
{
    return peer->tx_seq & peer->tx_stage_mask;
}

/* The staging frame, to be written: it no longer holds any jam's code
 * (tx_code_in; the injected send keeps what is there, lib/jam/jam.c). */
static inline char *tc_peer_tx_frame(tc_peer_t *peer)
{
    uint32_t stage = tc_peer_tx_stage(peer);

    peer->tx_code_in[stage] = NULL;
    return peer->tx_ring + (size_t)stage * peer->tx_slot_size;
}

/* The size a frame of needed bytes goes out in; 0 when it does not fit. */
static inline uint32_t tc_peer_frame_size(const tc_peer_t *peer, uint32_t needed)
{
    if (peer->frames == TC_FRAMES_FIXED) {
        return (needed <= peer->tx_frame_size) ? peer->tx_frame_size : 0;
    }
    return needed;
}

/* An error about a frame of needed bytes that our frames to the peer cannot
 * hold ends with this: what to set, where (into buf, which it returns).
 * answered: what the frame asks that the peer answers in its own frames
 * ("the sync", "the ried"), so both sides need the size; NULL: this side. */
const char *tc_peer_frame_advice(const tc_peer_t *peer, uint32_t needed, const char *answered,
                                 char *buf, size_t len);

/* Payload bytes a frame of ours holds behind sections ending at payload_off:
 * the fixed frame size, or with variable frames the peer's slot; 0 where
 * the sections alone do not fit. */
static inline uint32_t tc_peer_frame_room(const tc_peer_t *peer, uint32_t payload_off)
{
    uint32_t size = (peer->frames == TC_FRAMES_FIXED) ? peer->tx_frame_size : peer->tx_slot_size;

    return (size > payload_off + TC_FRAME_SIG_SIZE) ? size - payload_off - TC_FRAME_SIG_SIZE : 0;
}

/* An answer of needed bytes to a request of the peer's (a sync, a ried):
 * NULL when our frames to the peer hold it, else why not, naming the size
 * it needs (into buf, which it returns): the request is then refused with
 * a NACK (TC_ERR_OUT_OF_RANGE) rather than answered. */
const char *tc_peer_answer_misfit(const tc_peer_t *peer, uint32_t needed, const char *answer,
                                  char *buf, size_t len);
/* The peer refused a request of ours with TC_ERR_OUT_OF_RANGE: its frames
 * cannot hold the answer (what), of needed bytes. Logs what to change. */
void        tc_peer_answer_refused(const tc_peer_t *peer, const char *what, uint32_t needed);

/* The signalling our frames use with this peer: asked, or for AUTO store
 * where the peer's mailbox is mapped here, single-put where one tcp lane
 * carries our puts (put_landed_by_peer), else fenced; store where nothing
 * is mapped is refused (TC_ERR_UNSUPPORTED, logged). */
tc_status_t tc_send_resolve_signal(tc_peer_t *peer, tc_signal_mode_t asked);
/* Choose how frames reach the peer (signalling x placement): at connect and
 * when the placement changes. */
void        tc_send_select(tc_peer_t *peer);

/* The peer's mapped slot for tx_seq (signalling store only). */
static inline char *tc_peer_tx_slot(const tc_peer_t *peer)
{
    return peer->remote_ring_ptr +
           (size_t)(peer->tx_seq & (peer->tx_slots - 1)) * peer->tx_slot_size;
}

/* Clear the signal word of a frame of size bytes in the peer's slot for
 * tx_seq, ordered before what is written next there (the frame's header). */
tc_status_t tc_peer_clear_sig(tc_peer_t *peer, uint32_t size);

/* A frame of size bytes for tx_seq (staged at frame, or NULL) whose slot
 * last held a frame of ours of another size, or bytes we do not know: its
 * signal word lies where an earlier frame's bytes are, which may hold the
 * very signal it is to write. That word is cleared first (where the
 * staging slot, which mirrors the peer's slot when frames leave by put,
 * shows it holds that signal; always where the CPU writes the slot, a
 * store): the receiver, which takes such a slot as landed by its header and
 * signal together (lib/core/mailbox.h), reads the signal after the header and
 * so never the earlier bytes once the header is this frame's. */
tc_status_t tc_peer_tx_slot_sized(tc_peer_t *peer, const char *frame, uint32_t size);

/* The header hdr holds, as words stamped with seq, our consumed count and
 * the latest result (which the peer is now told). */
static inline __attribute__((always_inline)) void
tc_peer_stamp_hdr(tc_peer_t *peer, const tc_frame_hdr_t *hdr, uint64_t w[TC_FRAME_HDR_SIZE / 8])
{
    tc_frame_load_words(hdr, w);
    tc_frame_stamp_words(w, peer->tx_seq, peer->rx_seq, peer->ran_has, peer->ran_ret,
                         peer->ran_seq);
    peer->rx_reported = peer->rx_seq;
}

/* What tc_peer_sent counts of a frame (the send paths' jam argument): a jam
 * frame or another one; TC_SENT_UNCOUNTED: neither (a prepared start where
 * the context's counters are off); TC_SENT_NO_BELL: the peer wants no
 * doorbell, as checked with a prepared request (its line starts: tx_gen
 * moves where that changes, TC_PEER_CHANGED_BELL). A constant on the
 * inline paths, so an uncounted send has no counting instruction at all,
 * and a prepared line start no doorbell test. */
enum {
    TC_SENT_OTHER     = 0,
    TC_SENT_JAM       = 1,
    TC_SENT_UNCOUNTED = 2,
    TC_SENT_NO_BELL   = 4
};

/* After a frame's delivery (status): ring a blocking peer, count it (jam:
 * TC_SENT_*). */
static inline __attribute__((always_inline)) tc_status_t
tc_peer_sent(tc_peer_t *peer, tc_status_t status, int jam)
{
    if (!(jam & TC_SENT_NO_BELL) && TC_UNLIKELY(peer->doorbell) && (status == TC_OK)) {
        status = tc_peer_ring(peer);
    }
    if (TC_UNLIKELY(status != TC_OK)) {
        return status;
    }
    peer->tx_seq++;
    if (!(jam & TC_SENT_UNCOUNTED)) {
        peer->stats.tx_frames++;
        peer->stats.tx_jams += (uint64_t)(jam & TC_SENT_JAM);
    }
    return TC_OK;
}

/* tc_peer_send_sized once the slot's signal word is known not to hold the
 * frame's signal (tc_peer_tx_slot_sized). */
static inline __attribute__((always_inline)) tc_status_t
tc_peer_send_sized_now(tc_peer_t *peer, const tc_frame_hdr_t *hdr, char *frame, uint32_t size,
                       int jam)
{
    uint64_t off = (uint64_t)(peer->tx_seq & (peer->tx_slots - 1)) * peer->tx_slot_size;
    tc_status_t status = TC_OK;
    uint64_t w[TC_FRAME_HDR_SIZE / 8];

    tc_peer_stamp_hdr(peer, hdr, w);
    if (TC_LIKELY(peer->deliver == NULL)) {
        /* signalling store: no UCX call. The staged frame is copied into
         * the peer's mapped slot and the signal word stored last with
         * release order (x86-64 TSO keeps stores in order anyway; aarch64
         * makes it an stlr), so a receiver that sees the signal sees the
         * frame. Packing a small frame straight into the mapped slot was
         * measured and lost: the receiver polls that very line, and a frame
         * written piecemeal (payload, header, stamps) gives its loads time
         * to take the line back between the stores (docs/THRESHOLDS.md).
         * From tc_place_direct_min payload bytes it wins
         * (tc_peer_send_packed). */
        tc_place_store_hdr(peer->remote_ring_ptr + off, w, frame, size,
                           tc_frame_sig(peer->tx_seq), peer->tx_linewise_max);
    } else {
        tc_frame_store_words(frame, w); /* a put's source is the staged frame */
        status = peer->deliver(peer, frame, size, peer->remote_ring + off);
    }
    return tc_peer_sent(peer, status, jam);
}

/* Out of line: tc_peer_tx_slot_sized, then tc_peer_send_sized_now. */
tc_status_t tc_peer_send_resized(tc_peer_t *peer, const tc_frame_hdr_t *hdr, char *frame,
                                 uint32_t size, int jam);

/* The send path's tail, for a frame of size bytes that fits the peer's
 * slots (the caller checked) whose header is hdr (frame itself, or a
 * template the staged frame's header is to be): stamp seq, credits and the
 * latest result into the header, deliver the frame into the peer's slot
 * for tx_seq (the store copy inline, else what tc_send_select chose), ring
 * a blocking peer, count it (jam: it is a jam frame). With the signalling
 * store the header goes from hdr to the peer's slot in stamped words and
 * the staged frame's own header bytes are not read (nor written). A frame
 * of another size than every slot last held goes out of line first
 * (tc_peer_tx_slot_sized): one compare for a stream of one size. */
static inline __attribute__((always_inline)) tc_status_t
tc_peer_send_sized(tc_peer_t *peer, const tc_frame_hdr_t *hdr, char *frame, uint32_t size, int jam)
{
    if (TC_UNLIKELY(peer->tx_slots_frame != size)) {
        return tc_peer_send_resized(peer, hdr, frame, size, jam);
    }
    return tc_peer_send_sized_now(peer, hdr, frame, size, jam);
}

/* tc_peer_send_sized for a frame whose payload (and pad) the pack routine
 * wrote straight into the peer's mapped slot for tx_seq (signalling store,
 * tx_direct_min): the header's words from hdr, stamped, the staged frame's
 * sections up to sections_end (TC_FRAME_HDR_SIZE: none), then the signal. */
static inline __attribute__((always_inline)) tc_status_t
tc_peer_send_packed(tc_peer_t *peer, const tc_frame_hdr_t *hdr, const char *frame,
                    uint32_t sections_end, uint32_t size, int jam)
{
    uint64_t w[TC_FRAME_HDR_SIZE / 8];

    if (TC_UNLIKELY(peer->tx_slots_frame != size)) {
        /* its slot's signal word cleared first where needed (a store: the
         * pack wrote this frame's payload, short of that word, already) */
        tc_status_t status = tc_peer_tx_slot_sized(peer, frame, size);

        if (status != TC_OK) {
            return status;
        }
    }
    tc_peer_stamp_hdr(peer, hdr, w);
    tc_place_seal(tc_peer_tx_slot(peer), w, frame, sections_end, size,
                  tc_frame_sig(peer->tx_seq));
    return tc_peer_sent(peer, TC_OK, jam);
}

/* Check a laid-out frame's size (its header's), then tc_peer_send_sized. */
tc_status_t tc_peer_send_frame(tc_peer_t *peer, char *frame);
/* A frame that only carries the latest result (and credits); never waits. */
tc_status_t tc_peer_send_reply(tc_peer_t *peer);

#endif
