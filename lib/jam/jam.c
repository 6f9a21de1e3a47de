/*
 * Jams out: tc_jam_send, tc_jam_try_send and tc_jam_call in local,
 * injected and cached mode, and the namespace sync that goes ahead of the
 * first injected or cached frame of a jam (tc_jam_prepare). The frame
 * itself leaves through send.c; the receiver's side of the sync is
 * inject.c's.
 */
#include "runtime.h"
#include "credits.h"
#include "log.h"
#include "peer_wait.h"
#include "send.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ sync */

int tc_jam_is_prepared(tc_peer_t *peer, const tc_jam_t *jam, tc_mode_t mode)
{
    const tc_inj_t *inj;

    if (mode == TC_MODE_LOCAL) {
        return 1;
    }
    inj = tc_inj_find(peer, jam->pkg_id, jam->element);
    return (inj != NULL) && inj->tx_synced && ((mode != TC_MODE_CACHED) || inj->tx_cached);
}

/* Put the sync request for inj into the peer's next slot (with the code
 * when it is to be cached); *seq_p: the frame it went as. */
static tc_status_t tc_inj_send_request(tc_peer_t *peer, const tc_jam_t *jam, tc_inj_t *inj,
                                       tc_mode_t mode, int cache, uint32_t *seq_p)
{
    tc_frame_layout_t layout = {0, 0, 0, 0};
    const tc_blob_t *blob = inj->blob;
    tc_frame_offsets_t off;
    tc_status_t status;
    char *frame;

    if (tc_peer_tx_free(peer) == 0) {
        status = tc_credits_wait(peer);
        if (status != TC_OK) {
            return status;
        }
    }
    if (cache) {
        layout = tc_jam_layout(blob, TC_MODE_INJECTED, 0);
    }
    status         = tc_frame_layout(&layout, peer->tx_slot_size, &off);
    off.frame_size = (status == TC_OK) ? tc_peer_frame_size(peer, off.frame_size) : 0;
    if (off.frame_size == 0) {
        char advice[320];
        tc_error("%s: the %s sync of jam '%s' needs %u-byte frames; %s", peer->wireup->name,
                 tc_mode_str(mode), jam->elem->name, tc_jam_prepare_size(jam, mode),
                 tc_peer_frame_advice(peer, tc_jam_prepare_size(jam, mode), "the sync", advice,
                                      sizeof(advice)));
        return TC_ERR_OUT_OF_RANGE;
    }
    frame = tc_peer_tx_frame(peer);
    tc_frame_write_hdr(frame, &off, &layout, TC_KIND_SYNC_REQ, cache ? TC_FRAME_F_CACHE : 0,
                       jam->pkg_id, jam->element, peer->tx_seq);
    if (cache) {
        /* GOTP is the peer's to fill; the code is the image after it */
        memset(frame + off.got_off, 0, 8u * layout.got_count);
        memcpy(frame + off.code_off, blob->image + blob->hdr->code_offset, layout.code_len);
    }
    inj->tx_sync_wait   = 1;
    inj->tx_sync_status = 0;
    *seq_p = peer->tx_seq;
    return tc_peer_send_frame(peer, frame);
}

/* What the peer's answer means for the caller of tc_jam_prepare. */
static tc_status_t tc_inj_sync_outcome(tc_peer_t *peer, const tc_jam_t *jam,
                                       const tc_inj_t *inj, int cache)
{
    const tc_blob_t *blob = inj->blob;

    if (inj->tx_sync_status >= 0) {
        if (cache && !inj->tx_cached) {
            tc_error("%s did not cache the code of jam '%s'", peer->wireup->name, jam->elem->name);
            return TC_ERR_PROTOCOL;
        }
        return TC_OK;
    }
    if (inj->tx_sync_status == TC_SYNC_BAD_CODE) {
        tc_error("%s refused the code of jam '%s' (its manifest differs?)", peer->wireup->name,
                 jam->elem->name);
    } else if (inj->tx_sync_status == TC_SYNC_LOCAL_ONLY) {
        tc_error("%s runs no injected or cached code (its policy is local-only) and refuses "
                 "jam '%s': send it local", peer->wireup->name, jam->elem->name);
        return TC_ERR_REFUSED;
    } else if (inj->tx_sync_status == TC_SYNC_WRITABLE) {
        tc_error("%s runs code W^X and refuses jam '%s': it writes its own .data or .bss "
                 "(%u bytes), which W^X maps read-only; keep its state in a ried",
                 peer->wireup->name, jam->elem->name, inj->writable);
        return TC_ERR_UNSUPPORTED;
    } else if (-inj->tx_sync_status - 1 < blob->hdr->got_count) {
        /* tc-pkg checked the name at build time: what is missing is on the
         * receiver's side (a libtwochains linked statically, say) */
        tc_error("%s cannot resolve '%s' for jam '%s': nothing in that process exports it "
                 "(its package library and what that links, shipped rieds, its global "
                 "symbols; libtwochains' only where it links libtwochains.so)",
                 peer->wireup->name, tc_blob_slot_name(blob, (uint32_t)(-inj->tx_sync_status - 1)),
                 jam->elem->name);
    } else {
        tc_error("%s: namespace sync of jam '%s' failed", peer->wireup->name, jam->elem->name);
    }
    return TC_ERR_NOT_FOUND;
}

tc_status_t tc_jam_prepare(tc_peer_t *peer, const tc_jam_t *jam, tc_mode_t mode)
{
    const tc_blob_t *blob;
    tc_status_t status;
    tc_inj_t *inj;
    uint32_t seq = 0;
    int cache, began;

    if (mode == TC_MODE_LOCAL) {
        return TC_OK;
    }
    blob = tc_pkg_blob(jam->pkg, jam->element);
    if (blob == NULL) {
        tc_error("%s: jam '%s' cannot go %s: its package has no blob for it (build it "
                 "with tc-pkg)", peer->wireup->name, jam->elem->name, tc_mode_str(mode));
        return TC_ERR_UNSUPPORTED;
    }
    if (tc_context_find_pkg(peer->ctx, jam->pkg_id) == NULL) {
        tc_error("%s: jam '%s' cannot go %s: its package is not in this context "
                 "(tc_context_add_pkg it first)", peer->wireup->name, jam->elem->name, tc_mode_str(mode));
        return TC_ERR_NOT_FOUND;
    }
    inj = tc_inj_get(peer, jam);
    if (inj == NULL) {
        return TC_ERR_NO_RESOURCE; /* the table of injected jams is full: said */
    }
    cache = (mode == TC_MODE_CACHED) && !inj->tx_cached;
    if (inj->tx_synced && !cache) {
        return TC_OK;
    }
    began  = tc_peer_call_begin(peer, "tc_jam_prepare");
    status = tc_inj_send_request(peer, jam, inj, mode, cache, &seq);
    while ((status == TC_OK) && inj->tx_sync_wait) {
        status = tc_peer_call_wait(peer);
        if (status == TC_OK) {
            /* the peer rejected the request: no answer is coming */
            status = tc_ctrl_nack_for(peer, seq, seq, "the namespace sync");
        }
    }
    tc_peer_call_end(peer, began);
    if (status != TC_OK) {
        inj->tx_sync_wait = 0;
        if (status == TC_ERR_OUT_OF_RANGE) { /* the NACK's words may not fit: said here */
            char what[160];

            snprintf(what, sizeof(what), "the answer to the sync of jam '%s'", jam->elem->name);
            tc_peer_answer_refused(peer, what, tc_frame_size_for(8u + 8u * blob->hdr->got_count));
        }
        (void)tc_peer_check_pkg(peer, jam); /* names both sides' packages where they differ */
        return status;
    }
    return tc_inj_sync_outcome(peer, jam, inj, cache);
}

/* ------------------------------------------------------------- the sends */

/* How a send takes its slot (the sends' nowait argument, a constant on the
 * inline paths): wait for its credit, or say there is none; PREPARED: a
 * prepared jam's start, which waits, and whose tx_gen check stood for the
 * peer's failure (tc_peer_fail moves it), so failed is not read again. */
enum {
    TC_SLOT_WAIT     = 0,
    TC_SLOT_NOWAIT   = 1,
    TC_SLOT_PREPARED = 2
};

/* A free slot for the next frame: wait for its credit, or (nowait:
 * TC_SLOT_*) say there is none. */
static inline tc_status_t tc_send_slot(tc_peer_t *peer, int nowait)
{
    if (!(nowait & TC_SLOT_PREPARED) && TC_UNLIKELY(peer->failed != TC_OK)) {
        return peer->failed;
    }
    /* a slot free by the credits known (one compare), else by the credit
     * word the peer put since */
    if (TC_LIKELY(peer->tx_seq - peer->tx_acked < peer->tx_slots) ||
        (tc_peer_tx_free(peer) > 0)) {
        return TC_OK;
    }
    return (nowait & TC_SLOT_NOWAIT) ? TC_ERR_NO_RESOURCE : tc_credits_wait(peer);
}

/* A prepared one-way start whose request did not ask for the result
 * (TC_SEND_RESULT): its frame asks the peer to record none (a flag of the
 * library's own, the frame's bit; tc_jam_init makes it). */
#define TC_SEND_NO_RET TC_FRAME_F_NO_RET

_Static_assert(!(TC_SEND_NO_RET & (TC_SEND_WANT_REPLY | TC_SEND_RESULT)),
               "the library's send flag is none of the API's");

/* The frame flags a jam's send flags make. */
static inline uint8_t tc_jam_frame_flags(unsigned flags)
{
    _Static_assert(TC_SEND_WANT_REPLY == TC_FRAME_F_WANT_REPLY, "the flag's bit as it goes");
    return (uint8_t)(flags & (TC_SEND_WANT_REPLY | TC_SEND_NO_RET));
}

/* The name word of a frame of jam (lib/codec/frame.h): what a one-line frame's
 * header differs in from the last one's besides its per-frame words. */
static inline uint64_t tc_jam_line_name(const tc_jam_t *jam, unsigned flags, uint8_t kind)
{
    return tc_frame_line_name(jam->pkg_id, jam->element, kind, tc_jam_frame_flags(flags));
}

/* A pack routine returned more than the cap it was given: it wrote past the
 * payload, or says it did. Refused with the real numbers (the frame must
 * not go out, nor its length be cut to 32 bits). */
static tc_status_t tc_jam_pack_overran(const tc_peer_t *peer, const tc_jam_t *jam,
                                       int64_t packed, uint64_t cap)
{
    tc_error("%s: jam '%s': its pack routine returned %lld bytes, more than the %llu it "
             "was given (cap; slots are %u bytes): a pack returns at most cap", peer->wireup->name,
             jam->elem->name, (long long)packed, (unsigned long long)cap, peer->tx_slot_size);
    return TC_ERR_OUT_OF_RANGE;
}

/* What a frame's header depends on besides the jam's package id and element
 * (and, for injected frames, its sections): payload length, whether a reply
 * is wanted, kind. Never 0 (no kind is): 0 means no template. */
static inline uint64_t tc_jam_tmpl_key(uint32_t packed, unsigned flags, uint8_t kind)
{
    return (uint64_t)packed | ((uint64_t)tc_jam_frame_flags(flags) << 32) |
           ((uint64_t)kind << 40);
}

/* Frames of size go out as one line: 64 bytes, stored by the CPU. A put
 * (single-put over tcp, which UCX lands in fragments; fenced or ordered to
 * a NIC) may not land a line whole, so there they go the general way,
 * whose signal lands last. */
static inline int tc_jam_lines_land_whole(const tc_peer_t *peer, uint32_t size)
{
    return (size == TC_FRAME_ALIGN) && (peer->deliver == NULL);
}

/* A plain frame whose header the template does not hold: lay it out and
 * make it the template (its size checked against the peer's frames). */
static __attribute__((noinline)) tc_status_t
tc_jam_plain_tmpl(tc_peer_t *peer, const tc_jam_t *jam, uint32_t packed, unsigned flags,
                  uint8_t kind)
{
    tc_frame_layout_t layout = {0, 0, 0, packed};
    tc_frame_offsets_t offsets;
    tc_status_t status;
    uint64_t name;
    uint32_t size;

    /* a local jam runs from the peer's own copy of its package */
    if (kind == TC_KIND_LOCAL) {
        status = tc_peer_check_pkg(peer, jam);
        if (status != TC_OK) {
            return status;
        }
    }
    status = tc_frame_layout(&layout, peer->tx_slot_size, &offsets);
    size   = (status == TC_OK) ? tc_peer_frame_size(peer, offsets.frame_size) : 0;
    if (TC_UNLIKELY(size == 0)) {
        char advice[320];
        uint32_t needed = tc_frame_size_for(packed);
        tc_error("%s: jam '%s' %s with %u payload bytes needs a %u-byte frame; %s",
                 peer->wireup->name, jam->elem->name, (kind == TC_KIND_CACHED) ? "cached" : "local",
                 packed, needed, tc_peer_frame_advice(peer, needed, NULL, advice, sizeof(advice)));
        return TC_ERR_OUT_OF_RANGE;
    }
    offsets.frame_size = size;

    /* the header is the template's from this frame on, sent as the
     * repeated ones are */
    tc_frame_write_hdr(&peer->tx_tmpl, &offsets, &layout, kind,
                       tc_jam_frame_flags(flags), jam->pkg_id, jam->element, peer->tx_seq);
    peer->tx_tmpl_key  = tc_jam_tmpl_key(packed, flags, kind);
    peer->tx_tmpl_size = size;
    /* later frames of this jam that fit the line go out as one line
     * (tc_jam_send_line) */
    name = tc_jam_lines_land_whole(peer, size) ? tc_jam_line_name(jam, flags, kind) : 0;
    /* fixed 64-byte frames: the line format (lib/codec/frame_line.h), which the
     * receiver reads with two compares; variable frames keep the general
     * header, whose first word or magic is what their receiver polls */
    peer->tx_line_name  = (peer->frames == TC_FRAMES_FIXED) ? name : 0;
    peer->tx_vline_name = (peer->frames == TC_FRAMES_FIXED) ? 0 : name;
    peer->tx_line_word  = tc_frame_line_word(kind, tc_jam_frame_flags(flags));
    peer->tx_line_id    = tc_frame_line_id(jam->pkg_id, jam->element);
    return TC_OK;
}

/* Does the template hold the header of this plain frame? It names the jam
 * by package id and element: both must match. (A change of the fixed frame
 * size drops the template: tc_peer_set_frame_size.) */
static inline int tc_jam_plain_tmpl_holds(const tc_peer_t *peer, const tc_jam_t *jam,
                                          uint32_t packed, unsigned flags, uint8_t kind)
{
    return (tc_jam_tmpl_key(packed, flags, kind) == peer->tx_tmpl_key) &&
           (jam->pkg_id == peer->tx_tmpl.pkg_id) && (jam->element == peer->tx_tmpl.element);
}

/* A pack routine returned -1, or more than cap. */
static __attribute__((noinline)) tc_status_t
tc_jam_pack_refused(const tc_peer_t *peer, const tc_jam_t *jam, int64_t packed, uint64_t cap,
                    size_t len)
{
    tc_jam_doc_t doc;

    if (packed < 0) {
        if (len > cap) { /* the room, not the jam, said no */
            tc_error("%s: jam '%s' refused to pack %zu bytes: a frame to this peer holds at "
                     "most %llu payload bytes (its slots are %u bytes)", peer->wireup->name,
                     jam->elem->name, len, (unsigned long long)cap, peer->tx_slot_size);
        } else if (tc_jam_doc(jam, &doc) == TC_OK) {
            /* the jam's own rule, in its own words (TC_JAM_DESCRIBE) */
            tc_error("%s: jam '%s' does not take a %zu-byte payload; it takes: %s (its pack "
                     "routine returned -1)", peer->wireup->name, jam->elem->name, len, doc.payload);
        } else { /* the jam's own rule: a pack returns -1 for a payload it does not take */
            tc_error("%s: jam '%s' does not take a %zu-byte payload (its pack routine "
                     "returned -1; its source does not describe its payload: "
                     "TC_JAM_DESCRIBE)", peer->wireup->name, jam->elem->name, len);
        }
        return TC_ERR_OUT_OF_RANGE;
    }
    return tc_jam_pack_overran(peer, jam, packed, cap);
}

static inline __attribute__((always_inline)) tc_status_t
tc_jam_send_staged(tc_peer_t *peer, const tc_jam_t *jam, const void *src, size_t len,
                   unsigned flags, uint8_t kind, const uint64_t *name_p, int count);

/* A large plain frame with signalling store: packed straight into the
 * peer's mapped slot, whose credit we hold (the receiver is done with it
 * and never writes it), then sealed with the header and the signal: no
 * staging copy, which for a large payload is a second copy of it on the
 * send path (what it gained: docs/THRESHOLDS.md). Smaller frames stay
 * staged: the receiver polls their only lines, which a pack writing piecemeal
 * lets it take back between stores (lib/core/send.h). The pack gets the room of
 * the frame size, so it cannot reach the signal word; a payload over that
 * room, or what the pack refuses there, goes the staged way, which says why
 * (what a refused pack left in our slot is no frame: the signal did not
 * move). A pack writes its dst and never reads it back: here that is the
 * peer's memory (tc_jam_pack_fn). */
static inline __attribute__((always_inline)) tc_status_t
tc_jam_send_direct_as(tc_peer_t *peer, const tc_jam_t *jam, const void *src, size_t len,
                      unsigned flags, uint8_t kind, int count)
{
    uint32_t room = tc_peer_frame_room(peer, TC_FRAME_HDR_SIZE);
    int64_t packed;
    tc_status_t status;

    if (len > room) { /* the staged way says what frame it needs */
        return tc_jam_send_staged(peer, jam, src, len, flags, kind, NULL, count);
    }
    packed = jam->elem->pack(tc_peer_tx_slot(peer) + TC_FRAME_HDR_SIZE, room, src, len);
    if (TC_UNLIKELY((uint64_t)packed > room)) { /* packed again there, to say why */
        return tc_jam_send_staged(peer, jam, src, len, flags, kind, NULL, count);
    }
    if (!tc_jam_plain_tmpl_holds(peer, jam, (uint32_t)packed, flags, kind)) {
        status = tc_jam_plain_tmpl(peer, jam, (uint32_t)packed, flags, kind);
        if (status != TC_OK) {
            return status;
        }
    }
    return tc_peer_send_packed(peer, &peer->tx_tmpl, NULL, TC_FRAME_HDR_SIZE,
                               peer->tx_tmpl_size, count);
}

/* tc_jam_send_direct_as out of line, one for each count (TC_SENT_*: a
 * constant inside each, as on the inline paths). */
static __attribute__((noinline)) tc_status_t
tc_jam_send_direct(tc_peer_t *peer, const tc_jam_t *jam, const void *src, size_t len,
                   unsigned flags, uint8_t kind)
{
    return tc_jam_send_direct_as(peer, jam, src, len, flags, kind, TC_SENT_JAM);
}

static __attribute__((noinline)) tc_status_t
tc_jam_send_direct_uncounted(tc_peer_t *peer, const tc_jam_t *jam, const void *src, size_t len,
                             unsigned flags, uint8_t kind)
{
    return tc_jam_send_direct_as(peer, jam, src, len, flags, kind,
                                 TC_SENT_JAM | TC_SENT_UNCOUNTED);
}

/* A one-line frame: header, payload and signal share the line, so the
 * header's words are made in registers and the frame goes into the peer's
 * mapped slot as a few stores, the signal last with release order; no
 * staged frame is written or read. line (a constant) is the format: 1,
 * fixed 64-byte frames' line format (lib/codec/frame_line.h), its four words
 * made from its constant ones (word, id: the template's, or a prepared
 * jam's), six stores
 * (tc_place_store_line_compact); 0, the general header of the jam's name
 * word (name; variable frames), eight stores (tc_place_store_line). The
 * caller checked that the frame is one: its payload (packed bytes, in the
 * word payload) fits the line, the jam's name word is the one the template
 * made a line of (tx_line_name or tx_vline_name), and every slot of the
 * peer's ring last held a frame of this size (tx_slots_frame: its signal
 * word holds no earlier bytes). */
static inline __attribute__((always_inline)) tc_status_t
tc_jam_send_line_as(tc_peer_t *peer, uint64_t payload, uint32_t packed, uint64_t name,
                    uint32_t word, uint64_t id, const int line, int count)
{
    uint64_t w[TC_FRAME_HDR_SIZE / 8];
    uint32_t seq = peer->tx_seq;

    if (line) {
        tc_frame_line_hdr(w, seq, word, id, packed, peer->rx_seq, peer->ran_has, peer->ran_ret,
                          peer->ran_seq);
    } else {
        tc_frame_line_words(w, seq, name, peer->rx_seq, packed, peer->ran_has, peer->ran_ret,
                            peer->ran_seq);
    }
    peer->rx_reported = peer->rx_seq;
    if (line) {
        tc_place_store_line_compact(tc_peer_tx_slot(peer), w, payload, tc_frame_sig(seq));
    } else {
        tc_place_store_line(tc_peer_tx_slot(peer), w, payload, tc_frame_sig(seq));
    }
    return tc_peer_sent(peer, TC_OK, count);
}

/* tc_jam_send_line with the line words the template made (tx_line_word,
 * tx_line_id). */
static inline __attribute__((always_inline)) tc_status_t
tc_jam_send_line(tc_peer_t *peer, uint64_t payload, uint32_t packed, uint64_t name,
                 const int line, int count)
{
    return tc_jam_send_line_as(peer, payload, packed, name, peer->tx_line_word, peer->tx_line_id,
                               line, count);
}

_Static_assert(TC_FRAME_LINE_PAYLOAD == sizeof(uint64_t), "a one-line frame's payload: a word");
_Static_assert(TC_FRAME_LINE_PAYLOAD <= TC_FRAME_LINE_ROOM, "a line holds what the sender packs");

/* A line's payload packed into buf's first word, with the word as the cap:
 * its length, or -1 where the pack wants more room than the word, or
 * refused (the staged way asks it again with the slot's room, as
 * tc_jam_pack_fn says). buf is a whole line: a pack that writes past its
 * cap before it says so (more than cap) writes into buf, not into the
 * sender's stack. */
typedef uint64_t tc_jam_line_buf_t[TC_FRAME_ALIGN / sizeof(uint64_t)];

static inline __attribute__((always_inline)) int64_t
tc_jam_pack_line(const tc_jam_t *jam, const void *src, size_t len, tc_jam_line_buf_t buf)
{
    int64_t packed = jam->elem->pack(buf, TC_FRAME_LINE_PAYLOAD, src, len);

    return TC_UNLIKELY((uint64_t)packed > TC_FRAME_LINE_PAYLOAD) ? -1 : packed;
}

/* A payload that may make a one-line frame of a jam whose name word (*name_p,
 * or with name_p NULL tc_jam_line_name of its flags and kind, made here:
 * only a payload this small needs it) is the line's: packed into a word in registers, with the line's room as the
 * cap. 1: sent (or failed sending: *status_p). 0: not a line after all
 * (the pack wants more room, or refused): the staged way packs it again
 * there, with the slot's room, and says why where it refuses (a pack has
 * no other effect: tc_jam_pack_fn). */
static inline __attribute__((always_inline)) int
tc_jam_try_line(tc_peer_t *peer, const tc_jam_t *jam, const void *src, size_t len,
                unsigned flags, uint8_t kind, const uint64_t *name_p, int count,
                tc_status_t *status_p)
{
    uint64_t name = (name_p != NULL) ? *name_p : tc_jam_line_name(jam, flags, kind);
    tc_jam_line_buf_t buf;
    int64_t packed;

    buf[0] = 0; /* the word's bytes past the payload go out as zeros */
    if (TC_LIKELY((name == peer->tx_line_name) && (peer->tx_slots_frame == TC_FRAME_ALIGN))) {
        packed = tc_jam_pack_line(jam, src, len, buf);
        if (TC_UNLIKELY(packed < 0)) {
            return 0;
        }
        *status_p = tc_jam_send_line(peer, buf[0], (uint32_t)packed, name, 1, count);
        return 1;
    }
    if ((name != peer->tx_vline_name) || (peer->tx_slots_frame != TC_FRAME_ALIGN)) {
        return 0;
    }
    packed = tc_jam_pack_line(jam, src, len, buf);
    if (TC_UNLIKELY(packed < 0)) {
        return 0;
    }
    *status_p = tc_jam_send_line(peer, buf[0], (uint32_t)packed, name, 0, count);
    return 1;
}

/* A frame that carries no code, packed into the staging frame and copied
 * or put from there; a payload that fits the line may go as one
 * (tc_jam_try_line; name_p: a prepared jam's name word, or NULL). */
static inline __attribute__((always_inline)) tc_status_t
tc_jam_send_staged(tc_peer_t *peer, const tc_jam_t *jam, const void *src, size_t len,
                   unsigned flags, uint8_t kind, const uint64_t *name_p, int count)
{
    tc_status_t status;
    int64_t packed;
    uint32_t cap;
    char *frame;

    if ((len <= TC_FRAME_LINE_PAYLOAD) &&
        tc_jam_try_line(peer, jam, src, len, flags, kind, name_p, count, &status)) {
        return status;
    }
    frame  = tc_peer_tx_frame(peer);
    cap    = peer->tx_slot_size - TC_FRAME_HDR_SIZE - TC_FRAME_SIG_SIZE;
    packed = jam->elem->pack(frame + TC_FRAME_HDR_SIZE, cap, src, len);
    if (TC_UNLIKELY((uint64_t)packed > cap)) { /* one test: a negative result is huge unsigned */
        return tc_jam_pack_refused(peer, jam, packed, cap, len);
    }
    if (TC_UNLIKELY(!tc_jam_plain_tmpl_holds(peer, jam, (uint32_t)packed, flags, kind))) {
        status = tc_jam_plain_tmpl(peer, jam, (uint32_t)packed, flags, kind);
        if (status != TC_OK) {
            return status;
        }
    }
    return tc_peer_send_sized(peer, &peer->tx_tmpl, frame, peer->tx_tmpl_size, count);
}

/* A frame that carries no code: local, or cached (whose layout is the same:
 * the receiver's cache holds the code, named by package id and element).
 * kind is TC_KIND_LOCAL or TC_KIND_CACHED; name_p the jam's name word for
 * flags and kind where made once (a prepared jam's), else NULL. The jam
 * was checked for kind (its package, the sync) by the caller. */
static inline __attribute__((always_inline)) tc_status_t
tc_jam_send_plain(tc_peer_t *peer, const tc_jam_t *jam, const void *src, size_t len,
                  unsigned flags, int nowait, uint8_t kind, const uint64_t *name_p, int count)
{
    tc_status_t status = tc_send_slot(peer, nowait);

    if (TC_UNLIKELY(status != TC_OK)) {
        return status;
    }
    if (TC_UNLIKELY(len >= peer->tx_direct_min_unread) &&
        ((len >= peer->tx_direct_min) ||
         !(tc_pkg_hints(jam->pkg, jam->element) & TC_JAM_HINT_READS_PAYLOAD))) {
        return (count & TC_SENT_UNCOUNTED) ?
                   tc_jam_send_direct_uncounted(peer, jam, src, len, flags, kind) :
                   tc_jam_send_direct(peer, jam, src, len, flags, kind);
    }
    return tc_jam_send_staged(peer, jam, src, len, flags, kind, name_p, count);
}

/* Is inj the jam's entry, synced for mode? */
static inline int tc_jam_synced(const tc_inj_t *inj, const tc_jam_t *jam, tc_mode_t mode)
{
    return (inj != NULL) && (inj->pkg_id == jam->pkg_id) && (inj->element == jam->element) &&
           inj->tx_synced && ((mode != TC_MODE_CACHED) || inj->tx_cached);
}

/* tc_jam_send_sync past the last entry looked up. */
static __attribute__((noinline)) tc_status_t
tc_jam_send_sync_find(tc_peer_t *peer, const tc_jam_t *jam, tc_mode_t mode, int nowait,
                      tc_inj_t **inj_p)
{
    tc_inj_t *inj = tc_inj_find(peer, jam->pkg_id, jam->element);
    tc_status_t status;

    if (tc_jam_synced(inj, jam, mode)) {
        *inj_p = inj;
        return TC_OK;
    }
    if (nowait) {
        tc_error("%s: jam '%s' is not prepared %s for this peer: tc_jam_try_send does not "
                 "wait for the sync (call tc_jam_prepare first)", peer->wireup->name, jam->elem->name,
                 tc_mode_str(mode));
        return TC_ERR_INVALID_PARAM;
    }
    status = tc_jam_prepare(peer, jam, mode);
    if (status == TC_OK) {
        *inj_p = tc_inj_find(peer, jam->pkg_id, jam->element);
    }
    return status;
}

/* The synced entry of the jam with this peer, syncing first unless nowait.
 * The steady state - a stream of one jam - is the entry looked up last,
 * checked inline. */
static inline tc_status_t tc_jam_send_sync(tc_peer_t *peer, const tc_jam_t *jam, tc_mode_t mode,
                                           int nowait, tc_inj_t **inj_p)
{
    if (TC_LIKELY(tc_jam_synced(peer->inj_last, jam, mode))) {
        *inj_p = peer->inj_last;
        return TC_OK;
    }
    return tc_jam_send_sync_find(peer, jam, mode, nowait, inj_p);
}

/* Injected frames of one jam have the same sections whatever the payload:
 * laid out once per jam (tx_itmpl_layout/off, no payload), the header once
 * per payload size and flags (tx_itmpl), copied for every frame. TC_OK, or
 * the layout does not fit the peer's slots (logged). Out of line, as
 * tc_jam_plain_tmpl: once per jam, not a part of every send's body. */
static __attribute__((noinline)) tc_status_t
tc_jam_itmpl_sections(tc_peer_t *peer, const tc_jam_t *jam, tc_inj_t *inj)
{
    tc_jam_layout_into(inj->blob, TC_MODE_INJECTED, &peer->tx_itmpl_layout);
    if (tc_frame_layout(&peer->tx_itmpl_layout, peer->tx_slot_size, &peer->tx_itmpl_off) !=
        TC_OK) {
        char advice[320];
        uint32_t needed = tc_jam_frame_size(jam, TC_MODE_INJECTED, 0);
        peer->tx_itmpl_inj = NULL;
        tc_error("%s: jam '%s' injected needs a %u-byte frame; %s", peer->wireup->name,
                 jam->elem->name, needed,
                 tc_peer_frame_advice(peer, needed, NULL, advice, sizeof(advice)));
        return TC_ERR_OUT_OF_RANGE;
    }
    peer->tx_itmpl_inj = inj;
    peer->tx_itmpl_key = 0; /* no header for these sections yet */
    return TC_OK;
}

/* The header for packed payload bytes and flags (the template, written in
 * place field by field: a struct copied whole through the stack after a
 * narrower store of one field fails store forwarding, and the load then
 * waits for every older store to drain - the previous frame's stores into
 * the peer's slot among them, 45% of the injected sender's time in one
 * profile). */
static tc_status_t tc_jam_itmpl_header(tc_peer_t *peer, const tc_jam_t *jam, uint32_t packed,
                                       unsigned flags)
{
    tc_frame_offsets_t *off = &peer->tx_itmpl_off;
    uint32_t size = tc_peer_frame_size(peer, TC_ALIGN_UP(off->payload_off + packed +
                                                             TC_FRAME_SIG_SIZE,
                                                         TC_FRAME_ALIGN));

    if (TC_UNLIKELY(size == 0)) {
        char advice[320];
        uint32_t needed = tc_jam_frame_size(jam, TC_MODE_INJECTED, packed);
        tc_error("%s: jam '%s' injected with %u payload bytes needs a %u-byte frame; %s",
                 peer->wireup->name, jam->elem->name, packed, needed,
                 tc_peer_frame_advice(peer, needed, NULL, advice, sizeof(advice)));
        return TC_ERR_OUT_OF_RANGE;
    }
    peer->tx_itmpl_layout.payload_len = packed;
    off->frame_size                   = size;
    tc_frame_write_hdr(&peer->tx_itmpl, off, &peer->tx_itmpl_layout, TC_KIND_INJECTED,
                       tc_jam_frame_flags(flags), jam->pkg_id, jam->element, peer->tx_seq);
    peer->tx_itmpl_key  = tc_jam_tmpl_key(packed, flags, TC_KIND_INJECTED);
    peer->tx_itmpl_size = size;
    return TC_OK;
}

/* An injected frame of jam, whose entry inj is synced with the peer (the
 * caller's sync, or a prepared jam's). */
static inline __attribute__((always_inline)) tc_status_t
tc_jam_send_injected_synced(tc_peer_t *peer, const tc_jam_t *jam, tc_inj_t *inj,
                            const void *src, size_t len, unsigned flags, int nowait, int count)
{
    const tc_frame_offsets_t *off = &peer->tx_itmpl_off;
    const tc_inj_t *held;
    tc_status_t status;
    uint32_t cap, got, room;
    int direct;
    int64_t packed;
    char *frame;

    status = tc_send_slot(peer, nowait); /* after the sync, which may use a slot */
    if ((status == TC_OK) && (inj != peer->tx_itmpl_inj)) {
        status = tc_jam_itmpl_sections(peer, jam, inj);
    }
    if (status != TC_OK) {
        return status;
    }
    held  = peer->tx_code_in[tc_peer_tx_stage(peer)];
    frame = tc_peer_tx_frame(peer); /* held no longer, unless written again below */
    /* a large payload packs straight into the peer's slot, as a local one
     * does (tc_jam_send_direct); the sections go from the staging frame */
    direct = 0;
    if (TC_UNLIKELY(len >= peer->tx_direct_code_min)) { /* the room only where it may be */
        room = tc_peer_frame_room(peer, off->payload_off);
        if (len <= room) {
            packed = jam->elem->pack(tc_peer_tx_slot(peer) + off->payload_off, room, src, len);
            direct = ((uint64_t)packed <= room); /* else packed again below, to say why */
        }
    }
    if (!direct) {
        cap    = peer->tx_slot_size - off->payload_off - TC_FRAME_SIG_SIZE;
        packed = jam->elem->pack(frame + off->payload_off, cap, src, len);
        if (TC_UNLIKELY((uint64_t)packed > cap)) { /* one test: a negative result is huge unsigned */
            return tc_jam_pack_refused(peer, jam, packed, cap, len);
        }
    }
    /* (a change of the fixed frame size drops the template too) */
    if (TC_UNLIKELY(tc_jam_tmpl_key((uint32_t)packed, flags, TC_KIND_INJECTED) !=
                    peer->tx_itmpl_key)) {
        status = tc_jam_itmpl_header(peer, jam, (uint32_t)packed, flags);
        if (status != TC_OK) {
            return status;
        }
    }
    for (got = 0; got < peer->tx_itmpl_layout.got_count; ++got) {
        memcpy(frame + off->got_off + 8u * got, &inj->tx_gotp[got], 8u);
    }
    /* the blob's code never changes: a staging slot that last sent this jam
     * injected holds it already, where this layout puts it (the payload and
     * header behind and before it leave it alone) */
    if (held != inj) {
        memcpy(frame + off->code_off, inj->blob->image + inj->blob->hdr->code_offset,
               peer->tx_itmpl_layout.code_len);
    }
    peer->tx_code_in[tc_peer_tx_stage(peer)] = inj;
    /* sized with the header */
    if (direct) {
        return tc_peer_send_packed(peer, &peer->tx_itmpl, frame, off->payload_off,
                                   peer->tx_itmpl_size, count);
    }
    return tc_peer_send_sized(peer, &peer->tx_itmpl, frame, peer->tx_itmpl_size, count);
}

/* Injected or cached (mode, a constant): the sync first (once per peer and
 * jam: for injected the GOT resolved, for cached the code put in the
 * receiver's cache), then the frame: with its code, or laid out as a local
 * one (the receiver's cache holds the code, named by package and element). */
static inline __attribute__((always_inline)) tc_status_t
tc_jam_send_coded(tc_peer_t *peer, const tc_jam_t *jam, const void *src, size_t len,
                  unsigned flags, int nowait, tc_mode_t mode)
{
    tc_status_t status;
    tc_inj_t *inj;

    if (TC_UNLIKELY(peer->failed != TC_OK)) {
        return peer->failed;
    }
    status = tc_jam_send_sync(peer, jam, mode, nowait, &inj);
    if (TC_UNLIKELY(status != TC_OK)) {
        return status;
    }
    if (mode == TC_MODE_INJECTED) {
        return tc_jam_send_injected_synced(peer, jam, inj, src, len, flags, nowait, TC_SENT_JAM);
    }
    return tc_jam_send_plain(peer, jam, src, len, flags, nowait, TC_KIND_CACHED, NULL,
                             TC_SENT_JAM);
}

static inline __attribute__((always_inline)) tc_status_t tc_jam_send_params(tc_peer_t *peer, const tc_jam_t *jam,
                                             const void *src, size_t len,
                                             const tc_send_params_t *params, unsigned more_flags,
                                             int nowait)
{
    const uint64_t both = TC_SEND_PARAM_FIELD_MODE | TC_SEND_PARAM_FIELD_FLAGS;
    uint64_t mask       = (params != NULL) ? params->field_mask : 0;
    tc_mode_t mode;
    unsigned flags;

    if (TC_LIKELY(mask == both)) { /* TC_SEND_PARAMS: one test for both fields */
        mode  = params->mode;
        flags = params->flags | more_flags;
    } else {
        mode  = (mask & TC_SEND_PARAM_FIELD_MODE) ? params->mode : TC_MODE_LOCAL;
        flags = ((mask & TC_SEND_PARAM_FIELD_FLAGS) ? params->flags : 0) | more_flags;
    }

    if (TC_LIKELY(mode == TC_MODE_LOCAL)) {
        return tc_jam_send_plain(peer, jam, src, len, flags, nowait, TC_KIND_LOCAL, NULL,
                                 TC_SENT_JAM);
    }
    if (mode == TC_MODE_CACHED) {
        return tc_jam_send_coded(peer, jam, src, len, flags, nowait, TC_MODE_CACHED);
    }
    if (mode == TC_MODE_INJECTED) {
        return tc_jam_send_coded(peer, jam, src, len, flags, nowait, TC_MODE_INJECTED);
    }
    tc_error("%s: jam '%s': unknown mode %d", peer->wireup->name, jam->elem->name, (int)mode);
    return TC_ERR_INVALID_PARAM;
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

/* Wait for the result of our frame seq, a jam of jam's: TC_OK and *ret_p,
 * or why none is coming (TC_ERR_AGAIN unlogged where may_again: the peer
 * ran nothing and the caller sends again). */
static tc_status_t tc_jam_wait_result(tc_peer_t *peer, const tc_jam_t *jam, uint32_t seq,
                                      int may_again, int64_t *ret_p)
{
    tc_status_t status;

    while (peer->stats.last_ret_seq != seq) {
        status = tc_peer_call_wait(peer);
        if ((status == TC_OK) && may_again && tc_ctrl_nack_again(peer, seq)) {
            return TC_ERR_AGAIN;
        }
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

tc_status_t tc_jam_call(tc_peer_t *peer, const tc_jam_t *jam, const void *src, size_t len,
                        const tc_send_params_t *params, int64_t *ret_p)
{
    int cached = (params != NULL) && (params->field_mask & TC_SEND_PARAM_FIELD_MODE) &&
                 (params->mode == TC_MODE_CACHED);
    int began  = tc_peer_call_begin(peer, "tc_jam_call"); /* the sends' waits too */
    tc_status_t status;

    status = tc_jam_send_params(peer, jam, src, len, params, TC_SEND_WANT_REPLY, 0);
    if (status == TC_OK) {
        /* the send may have waited for credits; the jam went out as seq */
        status = tc_jam_wait_result(peer, jam, peer->tx_seq - 1, cached, ret_p);
    }
    if (status == TC_ERR_AGAIN) {
        /* a cached frame for code the peer dropped: it said so (a sync
         * answer MISS) ahead of this NACK, so this send carries the code */
        status = tc_jam_send_params(peer, jam, src, len, params, TC_SEND_WANT_REPLY, 0);
        if (status == TC_OK) {
            status = tc_jam_wait_result(peer, jam, peer->tx_seq - 1, 0, ret_p);
        }
    }
    tc_peer_call_end(peer, began);
    return status;
}

/* ------------------------------------------------------- prepared jams */

/* A jam checked once for one peer, mode and flags (as MPI_Send_init): what
 * every tc_jam_send checks again - the mode and flags, the package the
 * peer announced at connect (local), the namespace sync and the peer's
 * cache of the code (injected, cached), the line's name word - holds while
 * the peer's tx_gen does; each start then sends the frame the same way
 * tc_jam_send does, through the same functions. */
typedef tc_status_t (*tc_jam_start_fn)(tc_jam_req_t *req, const void *src, size_t len);

struct tc_jam_req {
    tc_jam_req_link_t link;   /* link.peer NULL: the peer went */
    tc_jam_start_fn   start;  /* tc_jam_start's path, chosen at init: injected or not,
                               * counted or not (the context's counters) */
    int               count;  /* TC_SENT_JAM, with TC_SENT_UNCOUNTED where counters are off */
    tc_jam_t          jam;    /* a copy: the caller's may go */
    tc_inj_t         *inj;    /* injected: the synced entry */
    uint64_t          line_name[2]; /* tc_jam_line_name of flags[0], flags[1] */
    uint64_t          line_id;  /* tc_frame_line_id of the jam */
    uint32_t          line_word[2]; /* tc_frame_line_word of kind and flags[0], flags[1] */
    uint32_t          gen;    /* the peer's tx_gen when checked */
    int               lines;  /* its frames go as lines (tc_jam_req_lines) when checked */
    tc_mode_t         mode;
    unsigned          flags[2]; /* a start's send flags (TC_SEND_NO_RET unless the request
                                 * asked for TC_SEND_RESULT), a start_call's */
    uint8_t           kind;
};

static int             tc_jam_req_lines(const tc_jam_req_t *req, const tc_peer_t *peer);
static tc_jam_start_fn tc_jam_start_fn_of(const tc_jam_req_t *req);

/* Check the request against its peer as it is now (at init, and at the
 * first start after anything it depends on changed): re-prepared (its
 * start's path chosen anew), or refused with the reason logged. */
static __attribute__((noinline)) tc_status_t tc_jam_req_check(tc_jam_req_t *req)
{
    tc_peer_t *peer = req->link.peer;
    const tc_jam_t *jam = &req->jam;
    tc_status_t status;

    if (peer == NULL) {
        tc_error("prepared jam '%s': its peer was closed (tc_jam_req_free the request)",
                 jam->elem->name);
        return TC_ERR_CLOSED;
    }
    if (peer->failed != TC_OK) {
        return peer->failed; /* said when it failed */
    }
    req->inj = NULL;
    if (req->mode == TC_MODE_LOCAL) {
        status = tc_peer_check_pkg(peer, jam); /* a local jam runs the peer's copy */
    } else {
        status = tc_jam_prepare(peer, jam, req->mode);
        req->inj = tc_inj_find(peer, jam->pkg_id, jam->element);
        if ((status == TC_OK) && !tc_jam_synced(req->inj, jam, req->mode)) {
            tc_error("%s: jam '%s' is not synced %s after its sync", peer->wireup->name,
                     jam->elem->name, tc_mode_str(req->mode));
            status = TC_ERR_PROTOCOL;
        }
    }
    if (status != TC_OK) {
        return status;
    }
    /* after the sync, which moved tx_gen */
    req->gen   = peer->tx_gen;
    req->lines = tc_jam_req_lines(req, peer);
    req->start = tc_jam_start_fn_of(req);
    return TC_OK;
}

static void tc_jam_req_unlink(tc_jam_req_t *req)
{
    tc_jam_req_link_t *link = &req->link;

    if (link->peer == NULL) {
        return;
    }
    if (link->prev != NULL) {
        link->prev->next = link->next;
    } else {
        link->peer->tx_reqs = link->next;
    }
    if (link->next != NULL) {
        link->next->prev = link->prev;
    }
    link->peer = NULL;
}

tc_status_t tc_jam_init(tc_peer_t *peer, const tc_jam_t *jam, const tc_send_params_t *params,
                        tc_jam_req_t **req_p)
{
    uint64_t mask = (params != NULL) ? params->field_mask : 0;
    tc_mode_t mode = (mask & TC_SEND_PARAM_FIELD_MODE) ? params->mode : TC_MODE_LOCAL;
    unsigned flags = (mask & TC_SEND_PARAM_FIELD_FLAGS) ? params->flags : 0;
    tc_jam_req_t *req;
    tc_status_t status;

    if ((peer == NULL) || (jam == NULL) || (jam->elem == NULL) || (req_p == NULL)) {
        tc_error("tc_jam_init: %s is NULL", (peer == NULL) ? "the peer" :
                 (req_p == NULL) ? "req_p" : "the jam");
        return TC_ERR_INVALID_PARAM;
    }
    if ((mode != TC_MODE_LOCAL) && (mode != TC_MODE_INJECTED) && (mode != TC_MODE_CACHED)) {
        tc_error("%s: jam '%s': unknown mode %d", peer->wireup->name, jam->elem->name, (int)mode);
        return TC_ERR_INVALID_PARAM;
    }
    if (flags & ~(TC_SEND_WANT_REPLY | TC_SEND_RESULT)) {
        tc_error("%s: jam '%s': unknown send flags 0x%x (known: TC_SEND_WANT_REPLY, "
                 "TC_SEND_RESULT)", peer->wireup->name, jam->elem->name,
                 flags & ~(TC_SEND_WANT_REPLY | TC_SEND_RESULT));
        return TC_ERR_INVALID_PARAM;
    }
    req = calloc(1, sizeof(*req));
    if (req == NULL) {
        tc_error("%s: jam '%s': no memory for a prepared request", peer->wireup->name, jam->elem->name);
        return TC_ERR_NO_MEMORY;
    }
    req->link.peer = peer;
    req->jam       = *jam;
    req->mode      = mode;
    /* a one-way frame asks for no result unless the request does (a call
     * always does) */
    req->flags[0]  = (flags & TC_SEND_WANT_REPLY) ? TC_SEND_WANT_REPLY :
                     (flags & TC_SEND_RESULT)     ? 0 : TC_SEND_NO_RET;
    req->flags[1]  = TC_SEND_WANT_REPLY;
    req->kind      = (mode == TC_MODE_LOCAL)    ? TC_KIND_LOCAL :
                     (mode == TC_MODE_INJECTED) ? TC_KIND_INJECTED : TC_KIND_CACHED;
    req->line_name[0] = tc_jam_line_name(jam, req->flags[0], req->kind);
    req->line_name[1] = tc_jam_line_name(jam, req->flags[1], req->kind);
    req->line_word[0] = tc_frame_line_word(req->kind, tc_jam_frame_flags(req->flags[0]));
    req->line_word[1] = tc_frame_line_word(req->kind, tc_jam_frame_flags(req->flags[1]));
    req->line_id      = tc_frame_line_id(jam->pkg_id, jam->element);
    req->count        = peer->ctx->params.counters ? TC_SENT_JAM :
                                                     (TC_SENT_JAM | TC_SENT_UNCOUNTED);
    status = tc_jam_req_check(req);
    if (status != TC_OK) {
        free(req);
        return status;
    }
    req->link.next = peer->tx_reqs;
    if (peer->tx_reqs != NULL) {
        peer->tx_reqs->prev = &req->link;
    }
    peer->tx_reqs = &req->link;
    *req_p        = req;
    return TC_OK;
}

void tc_jam_req_free(tc_jam_req_t *req)
{
    if (req == NULL) {
        return;
    }
    tc_jam_req_unlink(req);
    free(req);
}

/* A prepared jam's frame (want: 0, or TC_SEND_WANT_REPLY for a call), the
 * request checked again first where its peer changed since; injected and
 * count (TC_SENT_*) constants where the start's path is chosen at init. */
static inline __attribute__((always_inline)) tc_status_t
tc_jam_req_send(tc_jam_req_t *req, const void *src, size_t len, unsigned want, int injected,
                int count)
{
    tc_peer_t *peer = req->link.peer;
    tc_status_t status;

    if (TC_UNLIKELY((peer == NULL) || (req->gen != peer->tx_gen))) {
        status = tc_jam_req_check(req);
        if (status != TC_OK) {
            return status;
        }
    }
    if (injected) {
        return tc_jam_send_injected_synced(peer, &req->jam, req->inj, src, len,
                                           req->flags[want != 0], TC_SLOT_PREPARED, count);
    }
    return tc_jam_send_plain(peer, &req->jam, src, len, req->flags[want != 0], TC_SLOT_PREPARED,
                             req->kind, &req->line_name[want != 0], count);
}

/* tc_jam_start's paths: the choice is made when the request is checked
 * (tc_jam_req_check: at init, and again after anything it depends on
 * changed), rather than tested at every start (what it saves with counters
 * off is only worth it so). */
static tc_status_t tc_jam_start_plain(tc_jam_req_t *req, const void *src, size_t len)
{
    return tc_jam_req_send(req, src, len, 0, 0, TC_SENT_JAM);
}

static tc_status_t tc_jam_start_plain_uncounted(tc_jam_req_t *req, const void *src, size_t len)
{
    return tc_jam_req_send(req, src, len, 0, 0, TC_SENT_JAM | TC_SENT_UNCOUNTED);
}

static tc_status_t tc_jam_start_injected(tc_jam_req_t *req, const void *src, size_t len)
{
    return tc_jam_req_send(req, src, len, 0, 1, TC_SENT_JAM);
}

static tc_status_t tc_jam_start_injected_uncounted(tc_jam_req_t *req, const void *src,
                                                   size_t len)
{
    return tc_jam_req_send(req, src, len, 0, 1, TC_SENT_JAM | TC_SENT_UNCOUNTED);
}

/* A frame the line path does not take (the request to check again, no
 * credit at hand, a payload that is no line; want: a call's): the general
 * way, out of the line path's body. */
static __attribute__((noinline)) tc_status_t
tc_jam_start_unlined(tc_jam_req_t *req, const void *src, size_t len, unsigned want)
{
    if (want) {
        return tc_jam_req_send(req, src, len, TC_SEND_WANT_REPLY, 0, req->count);
    }
    return (req->count & TC_SENT_UNCOUNTED) ? tc_jam_start_plain_uncounted(req, src, len) :
                                              tc_jam_start_plain(req, src, len);
}

/* A prepared jam's frame as one line (want: 0, or TC_SEND_WANT_REPLY for a
 * call; the check chose it: fixed 64-byte frames the CPU stores, local or
 * cached). What makes the frame a line - the frame size, the delivery, the
 * package or sync, the peer not failed - was checked with the request and
 * holds while tx_gen does; the line's constant words were made then (line_word, line_id), so
 * a start tests only what moves from frame to frame: tx_gen, the payload's
 * size, the ring's last frame size (tx_slots_frame) and a credit. Anything
 * else goes the general way, which checks the request again, waits for
 * credit, and packs a payload the line refused again with the slot's room
 * to say why (a pack has no other effect: tc_jam_pack_fn). */
static inline __attribute__((always_inline)) tc_status_t
tc_jam_req_line(tc_jam_req_t *req, const void *src, size_t len, unsigned want, int count)
{
    tc_peer_t *peer = req->link.peer;
    tc_jam_line_buf_t buf;
    int64_t packed;

    if (TC_UNLIKELY((peer == NULL) || (req->gen != peer->tx_gen) ||
                    (len > TC_FRAME_LINE_PAYLOAD) || (peer->tx_slots_frame != TC_FRAME_ALIGN) ||
                    (peer->tx_seq - peer->tx_acked >= peer->tx_slots))) {
        return tc_jam_start_unlined(req, src, len, want);
    }
    buf[0] = 0; /* the word's bytes past the payload go out as zeros */
    packed = tc_jam_pack_line(&req->jam, src, len, buf);
    if (TC_UNLIKELY(packed < 0)) {
        return tc_jam_start_unlined(req, src, len, want);
    }
    return tc_jam_send_line_as(peer, buf[0], (uint32_t)packed, 0, req->line_word[want != 0],
                               req->line_id, 1, count | TC_SENT_NO_BELL);
}

static tc_status_t tc_jam_start_line(tc_jam_req_t *req, const void *src, size_t len)
{
    return tc_jam_req_line(req, src, len, 0, TC_SENT_JAM);
}

static tc_status_t tc_jam_start_line_uncounted(tc_jam_req_t *req, const void *src, size_t len)
{
    return tc_jam_req_line(req, src, len, 0, TC_SENT_JAM | TC_SENT_UNCOUNTED);
}

/* Do the request's frames go as lines to peer as it is now
 * (tc_jam_try_line's first case: what tc_jam_plain_tmpl makes a line of),
 * to a peer that wants no doorbell (the line start rings none)? Each of
 * these moves tx_gen where it changes (tc_peer_invalidate). */
static int tc_jam_req_lines(const tc_jam_req_t *req, const tc_peer_t *peer)
{
    return (req->kind != TC_KIND_INJECTED) && (peer->frames == TC_FRAMES_FIXED) &&
           tc_jam_lines_land_whole(peer, peer->tx_frame_size) &&
           (peer->tx_direct_min_unread > TC_FRAME_LINE_PAYLOAD) && !peer->doorbell;
}

static tc_jam_start_fn tc_jam_start_fn_of(const tc_jam_req_t *req)
{
    int uncounted = (req->count & TC_SENT_UNCOUNTED) != 0;

    if (req->kind == TC_KIND_INJECTED) {
        return uncounted ? tc_jam_start_injected_uncounted : tc_jam_start_injected;
    }
    if (req->lines) {
        return uncounted ? tc_jam_start_line_uncounted : tc_jam_start_line;
    }
    return uncounted ? tc_jam_start_plain_uncounted : tc_jam_start_plain;
}

tc_status_t tc_jam_start(tc_jam_req_t *req, const void *src, size_t len)
{
    return req->start(req, src, len);
}

/* A call's frame, on the path tc_jam_start's choice stands for (a line's
 * where the check said lines: the line path checks tx_gen first, and goes
 * the general way, which checks the request again, where it moved). */
static tc_status_t tc_jam_req_call_send(tc_jam_req_t *req, const void *src, size_t len)
{
    if (req->lines) {
        return tc_jam_req_line(req, src, len, TC_SEND_WANT_REPLY, req->count);
    }
    return tc_jam_req_send(req, src, len, TC_SEND_WANT_REPLY, req->kind == TC_KIND_INJECTED,
                           req->count);
}

tc_status_t tc_jam_start_call(tc_jam_req_t *req, const void *src, size_t len, int64_t *ret_p)
{
    tc_status_t status = tc_jam_req_call_send(req, src, len);

    if (status == TC_OK) {
        status = tc_jam_wait_result(req->link.peer, &req->jam, req->link.peer->tx_seq - 1,
                                    req->mode == TC_MODE_CACHED, ret_p);
    }
    if (status == TC_ERR_AGAIN) {
        /* as tc_jam_call: the peer dropped the code and said so (which
         * moved tx_gen: this send syncs it again first) */
        status = tc_jam_req_call_send(req, src, len);
        if (status == TC_OK) {
            status = tc_jam_wait_result(req->link.peer, &req->jam, req->link.peer->tx_seq - 1, 0,
                                        ret_p);
        }
    }
    return status;
}
