/*
 * The mailbox's receive fast path, inline: where the slot of a sequence
 * number is, and whether the next frame has landed there. A consumed slot is
 * never cleared (a transport may store a signal word more than once); the
 * receiver remembers what each slot held (rx_stale) and waits for something
 * different, and anything of an earlier lap of the slot counts as not yet.
 */
#ifndef TC_MAILBOX_H
#define TC_MAILBOX_H

#include "runtime.h"
#include "log.h"

#include "barrier.h"

#include <stddef.h>

#define TC_STALE_HDR (1ull << 63) /* variable frames: stale[] holds a header seq */

/* Registered memory of len bytes, zeroed (the mailbox, the staging ring). */
tc_status_t tc_mbox_mem_alloc(tc_peer_t *peer, size_t len, ucp_mem_h *memh_p, void **addr_p);
/* This side's mailbox for the peer: ctrl line, ring, raw ring of the same
 * shape; executable only in place (lib/core/exec.c). */
tc_status_t tc_mbox_create(tc_peer_t *peer);
void        tc_mbox_destroy(tc_peer_t *peer);
/* The peer's fixed frames change size from rx_seq on (its config frame was
 * consumed): the signal word of every slot moves. */
void        tc_mbox_resize(tc_peer_t *peer, uint32_t frame_size);

static inline char *tc_mbox_rx_slot(const tc_peer_t *peer, uint32_t seq)
{
    return peer->rx_ring + (size_t)(seq & (peer->rx_slots - 1)) * peer->rx_slot_size;
}

/* Lines [64, end) of slot, asked for at once (end within the slot). */
static inline void tc_prefetch_lines(const char *slot, uint32_t end)
{
    uint32_t off;

    for (off = TC_FRAME_ALIGN; off < end; off += TC_FRAME_ALIGN) {
        __builtin_prefetch(slot + off, 0, 3);
    }
}

/* The same, end cut to the slot (end comes from a header not yet checked). */
static inline void tc_peer_prefetch_lines(const tc_peer_t *peer, const char *slot, uint32_t end)
{
    if (end > peer->rx_slot_size) {
        end = peer->rx_slot_size; /* garbage: the validator will say */
    }
    tc_prefetch_lines(slot, end);
}

/* Where the jam run last reads its payload, a frame's lines up to this many
 * bytes are asked for on arrival; the jam asks for the rest as it goes
 * (all 32 KiB of server_sum's frame at once was slower than its own
 * prefetch 4 KiB ahead). */
#define TC_RX_PREFETCH_MAX 4096u

/* What the receiver asks for the moment a frame has arrived, beside its
 * header's line, before the validator and the jam walk it: every line with
 * --sw-prefetch; up to TC_RX_PREFETCH_MAX bytes where the jam run last
 * reads its payload (rx_prefetch, TC_JAM_HINT_READS_PAYLOAD), else nothing:
 * asked for only once the jam is known, its lines would come a transfer
 * later. */
static inline void tc_peer_prefetch_arrival(const tc_peer_t *peer, const char *slot)
{
    uint32_t end;

    if (TC_LIKELY(!peer->sw_prefetch && !peer->rx_prefetch)) {
        return;
    }
    end = (peer->frames == TC_FRAMES_FIXED) ? peer->rx_frame_size :
                                              ((const tc_frame_hdr_t *)slot)->frame_size;
    if (!peer->sw_prefetch && (end > TC_RX_PREFETCH_MAX)) {
        end = TC_RX_PREFETCH_MAX;
    }
    tc_peer_prefetch_lines(peer, slot, end);
}

/* An injected frame's sections before its payload (GOTP and code: what
 * the receiver compares or copies next), asked for at once; not the
 * payload, which the jam may never read: asking for all of a 16 KiB
 * frame's lines made an injected noop as slow as the floor's full read.
 * hdr is the receiver's copy of the header, not yet checked. */
static inline void tc_peer_prefetch_code(const tc_peer_t *peer, const char *slot,
                                         const tc_frame_hdr_t *hdr)
{
    tc_peer_prefetch_lines(peer, slot, hdr->payload_off);
}

/* Laps: slot i holds seq i, i + slots, i + 2 slots, ... A header or SIG of
 * an earlier lap of the slot the receiver waits on is what it left behind,
 * whatever else changed since (frame size, mode, a reset of rx_stale): not
 * a new frame, and not garbage either. */
static inline int tc_peer_seq_stale(const tc_peer_t *peer, uint32_t seq)
{
    uint32_t behind = peer->rx_seq - seq;

    return (behind != 0) && !(behind & (peer->rx_slots - 1)) && ((int32_t)behind > 0);
}

static inline int tc_peer_sig_stale(const tc_peer_t *peer, uint64_t sig)
{
    return ((uint32_t)sig == (uint32_t)tc_frame_sig(0)) &&
           tc_peer_seq_stale(peer, (uint32_t)(sig >> 32));
}

/* Fixed frames: has frame seq of frame_size bytes landed in slot, by its
 * header and its signal together? The header first (its seq and size), the
 * signal read after it: a sender whose frame differs in size from what the
 * slot held clears the signal word before it writes the header
 * (tc_peer_clear_sig), so a signal read after this frame's header is the
 * frame's own, not an earlier payload's bytes that hold the same value. */
static inline int tc_mbox_landed(const char *slot, uint32_t seq, uint32_t frame_size)
{
    uint64_t w0 = tc_read_once((const uint64_t *)(const void *)slot); /* frame_size, seq */

    tc_smp_rmb();
    return (w0 == (((uint64_t)seq << 32) | frame_size)) &&
           (tc_frame_sig_read(slot, frame_size) == tc_frame_sig(seq));
}

/* Fixed frames: the due frame's signal in a slot whose word held that
 * value already (an earlier payload, under a frame-size change:
 * tc_mbox_resize): landed only by the header and signal together. */
static inline int tc_peer_sig_held(const tc_peer_t *peer, uint32_t idx)
{
    return tc_mbox_landed(peer->rx_ring + (size_t)idx * peer->rx_slot_size, peer->rx_seq,
                          peer->rx_frame_size);
}

/* Fixed frames: has the SIG word of slot idx changed since the receiver
 * last looked (what a frame left, an earlier lap's)? The expected frame's
 * signal is the common case and skips the lap arithmetic; the same value
 * as before is new only after a frame-size change left the due signal
 * remembered (rx_held), where the header says that frame landed
 * (tc_peer_sig_held). */
static inline int tc_peer_sig_new(const tc_peer_t *peer, uint32_t idx, uint64_t seen)
{
    if (seen == peer->rx_stale[idx]) {
        return TC_UNLIKELY(peer->rx_held) && (seen == tc_frame_sig(peer->rx_seq)) &&
               tc_peer_sig_held(peer, idx);
    }
    return (seen != 0) &&
           TC_LIKELY((seen == tc_frame_sig(peer->rx_seq)) || !tc_peer_sig_stale(peer, seen));
}

/* Variable frames: the same for the header's seq (MAG nonzero: written). */
static inline int tc_peer_hdr_new(const tc_peer_t *peer, uint32_t idx, uint32_t seq)
{
    return ((TC_STALE_HDR | seq) != peer->rx_stale[idx]) && !tc_peer_seq_stale(peer, seq);
}

static inline int tc_peer_rx_ready(tc_peer_t *peer, char **frame_p, uint64_t *seen_p)
{
    uint32_t idx = peer->rx_seq & (peer->rx_slots - 1);
    char *slot   = peer->rx_ring + (size_t)idx * peer->rx_slot_size;
    const uint32_t *hdr32 = (const uint32_t *)(const void *)slot;
    uint64_t seen;
    uint32_t size, seq;

    if (TC_LIKELY(peer->frames == TC_FRAMES_FIXED)) {
        seen = tc_frame_sig_read(slot, peer->rx_frame_size);
        if (!tc_peer_sig_new(peer, idx, seen)) {
            return 0;
        }
    } else {
        /* variable frames: a new header first, then SIG where its size says */
        if (tc_read_once((const uint8_t *)slot + offsetof(tc_frame_hdr_t, mag)) == 0) {
            return 0;
        }
        tc_smp_rmb();
        seq  = tc_read_once(&hdr32[offsetof(tc_frame_hdr_t, seq) / 4]);
        seen = TC_STALE_HDR | seq;
        if (!tc_peer_hdr_new(peer, idx, seq)) {
            return 0;
        }
        size = tc_read_once(&hdr32[offsetof(tc_frame_hdr_t, frame_size) / 4]);
        /* the signal after the header (a sender clears it first where the
         * slot held a frame of another size: tc_peer_clear_sig) */
        tc_smp_rmb();
        if ((seq == peer->rx_seq) && (size >= TC_FRAME_MIN_SIZE) &&
            (size <= peer->rx_slot_size) && !(size % TC_FRAME_ALIGN) &&
            (tc_frame_sig_read(slot, size) != tc_frame_sig(seq))) {
            return 0; /* header landed, the rest not yet */
        }
        /* otherwise complete, or garbage the validator will name */
    }
    tc_smp_rmb();
    tc_peer_prefetch_arrival(peer, slot);
    *frame_p = slot;
    *seen_p  = seen;
    return 1;
}

/* The word whose change announces the next frame: SIG of the next slot for
 * fixed frames, the header's last word (MAG) for variable ones. */
static inline const uint64_t *tc_peer_watch_word(const tc_peer_t *peer, uint64_t *old_p)
{
    uint32_t idx = peer->rx_seq & (peer->rx_slots - 1);
    char *slot   = peer->rx_ring + (size_t)idx * peer->rx_slot_size;
    const uint64_t *word;

    word = (peer->frames == TC_FRAMES_FIXED) ?
               tc_frame_sig_ptr(slot, peer->rx_frame_size) :
               (uint64_t *)(void *)(slot + TC_FRAME_HDR_SIZE - sizeof(uint64_t));
    *old_p = tc_read_once(word);
    return word;
}


/* Fixed frames: the signal word of slot, with the header's line asked for
 * beside it where the frame is over one line (its miss overlaps the
 * signal's, so such a frame costs one transfer in series, not two). */
static inline uint64_t tc_peer_rx_sig(const tc_peer_t *peer, const char *slot)
{
    if (peer->rx_frame_size > TC_FRAME_ALIGN) {
        (void)tc_read_once((const uint64_t *)(const void *)slot);
    }
    return tc_frame_sig_read(slot, peer->rx_frame_size);
}

/* Has the next frame (or something to reject) landed? The wait loop's only
 * work per iteration, so it stays a couple of loads: the signal word and,
 * for frames over one line, the header's line (tc_peer_rx_sig). */
static inline int tc_peer_rx_peek(const tc_peer_t *peer)
{
    uint32_t idx     = peer->rx_seq & (peer->rx_slots - 1);
    const char *slot = peer->rx_ring + (size_t)idx * peer->rx_slot_size;

    if (TC_LIKELY(peer->frames == TC_FRAMES_FIXED)) {
        return tc_peer_sig_new(peer, idx, tc_peer_rx_sig(peer, slot));
    }
    return (tc_read_once((const uint8_t *)slot + offsetof(tc_frame_hdr_t, mag)) != 0) &&
           tc_peer_hdr_new(peer, idx, tc_read_once((const uint32_t *)(const void *)(
                                              slot + offsetof(tc_frame_hdr_t, seq))));
}

#endif
