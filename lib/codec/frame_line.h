/*
 * Line frames: the compact header of a jam frame that is one 64-byte line
 * (fixed 64-byte frames, sent by the CPU's stores), encode and expand (pure:
 * no UCX, no runtime state).
 *
 *   | w0 tag len flags kind seq | w1 pkg_id element ver mag | w2 ack ret_seq |
 *   | w3 ret | payload 24 B | SIG 8 B |
 *
 *   byte 0       TC_FRAME_LINE_TAG: not a multiple of 64, so bytes 0-3 are
 *                never a general frame's frame_size (the general validator
 *                refuses a line as it stands: its byte 47 is payload)
 *   byte 1       payload length, at most TC_FRAME_LINE_ROOM
 *   byte 2       flags (TC_FRAME_F_*)
 *   byte 3       kind: local or cached
 *   bytes 4-7    seq
 *   bytes 8-15   pkg_id, element, TC_PROTO_VERSION (byte 14), TC_FRAME_MAG
 *   bytes 16-23  ack, ret_seq
 *   bytes 24-31  ret (both only read with TC_FRAME_F_HAS_RET)
 *   bytes 32-55  payload
 *   bytes 56-63  SIG, tc_frame_sig(seq) as in every frame: arrival, laps and
 *                a slot's stale signal read the same for both formats
 *
 * A line stands for the general header tc_frame_line_expand makes of it
 * (frame size 64, no sections, payload at offset 32) and passes or fails
 * the general validator's checks on that (tc_frame_validate_line). The
 * receiver that recorded a line's shape accepts the next one of that shape
 * with two compares: word 0 against the expected seq and the recorded tag,
 * flags and kind; word 1 against the recorded name, version and magic.
 * Variable frames and other frame sizes do not take lines: there the
 * receiver polls the general header's first word or its magic.
 */
#ifndef TC_FRAME_LINE_H
#define TC_FRAME_LINE_H

#include "frame.h"

#define TC_FRAME_LINE_TAG      0x4Cu
#define TC_FRAME_LINE_HDR_SIZE 32u /* the payload's offset */
#define TC_FRAME_LINE_WORDS    (TC_FRAME_LINE_HDR_SIZE / 8)
#define TC_FRAME_LINE_ROOM     (TC_FRAME_ALIGN - TC_FRAME_LINE_HDR_SIZE - TC_FRAME_SIG_SIZE)

/* Word 0's bits that differ from frame to frame of one shape besides seq:
 * the payload's length and the HAS_RET flag. */
#define TC_FRAME_LINE_LEN_SHIFT 8u
#define TC_FRAME_LINE_HAS_RET   ((uint64_t)TC_FRAME_F_HAS_RET << 16)
#define TC_FRAME_LINE_VARYING   ((uint64_t)0xFFu << TC_FRAME_LINE_LEN_SHIFT | TC_FRAME_LINE_HAS_RET)

_Static_assert((TC_FRAME_LINE_TAG % TC_FRAME_ALIGN) != 0, "a line's tag is no frame size");

/* Word 0 of a line without seq, length and HAS_RET: tag, flags, kind. */
static inline uint32_t tc_frame_line_word(uint8_t kind, uint8_t flags)
{
    return TC_FRAME_LINE_TAG | ((uint32_t)flags << 16) | ((uint32_t)kind << 24);
}

/* Word 1 of a line: package, element, protocol version and magic. */
static inline uint64_t tc_frame_line_id(uint32_t pkg_id, uint16_t element)
{
    return (uint64_t)pkg_id | ((uint64_t)element << 32) |
           ((uint64_t)(uint8_t)TC_PROTO_VERSION << 48) | ((uint64_t)TC_FRAME_MAG << 56);
}

_Static_assert(TC_PROTO_VERSION <= 0xFF, "a line holds the version in a byte");

/* A line's header words: word (tc_frame_line_word) and id
 * (tc_frame_line_id) as the shape has them, stamped with this frame's seq,
 * payload length (at most TC_FRAME_LINE_ROOM), ack and result. */
static inline void tc_frame_line_hdr(uint64_t w[TC_FRAME_LINE_WORDS], uint32_t seq, uint32_t word,
                                     uint64_t id, uint32_t payload_len, uint32_t ack,
                                     uint8_t has_ret, int64_t ret, uint32_t ret_seq)
{
    w[0] = ((uint64_t)seq << 32) | word | ((uint64_t)payload_len << TC_FRAME_LINE_LEN_SHIFT) |
           ((uint64_t)has_ret << 17); /* TC_FRAME_F_HAS_RET: bit 1 of byte 2 */
    w[1] = id;
    w[2] = ack | ((uint64_t)ret_seq << 32);
    w[3] = (uint64_t)ret;
}

_Static_assert(TC_FRAME_LINE_HAS_RET == (UINT64_C(1) << 17), "HAS_RET is bit 17 of word 0");

static inline uint32_t tc_frame_line_len(uint64_t w0)
{
    return (uint8_t)(w0 >> TC_FRAME_LINE_LEN_SHIFT);
}

static inline uint8_t tc_frame_line_flags(uint64_t w0)
{
    return (uint8_t)(w0 >> 16);
}

/* The general header a line stands for (what the validator checks and the
 * slow path runs): frame size 64, no sections, the payload at
 * TC_FRAME_LINE_HDR_SIZE. w are the line's words as copied once. */
static inline void tc_frame_line_expand(const uint64_t w[TC_FRAME_LINE_WORDS],
                                        tc_frame_hdr_t *hdr_p)
{
    tc_frame_hdr_t hdr;

    memset(&hdr, 0, sizeof(hdr));
    hdr.frame_size  = TC_FRAME_ALIGN;
    hdr.seq         = (uint32_t)(w[0] >> 32);
    hdr.pkg_id      = (uint32_t)w[1];
    hdr.element     = (uint16_t)(w[1] >> 32);
    hdr.kind        = (uint8_t)(w[0] >> 24);
    hdr.flags       = tc_frame_line_flags(w[0]);
    hdr.ack         = (uint32_t)w[2];
    hdr.payload_len = tc_frame_line_len(w[0]);
    hdr.payload_off = TC_FRAME_LINE_HDR_SIZE;
    hdr.ret         = (int64_t)w[3];
    hdr.ret_seq     = (uint32_t)(w[2] >> 32);
    hdr.version     = (uint8_t)(w[1] >> 48);
    hdr.mag         = (uint8_t)(w[1] >> 56);
    *hdr_p          = hdr;
}

/* A line's words as four eight-byte loads. */
static inline void tc_frame_line_load(const void *frame, uint64_t w[TC_FRAME_LINE_WORDS])
{
    const char *p = (const char *)frame;

    memcpy(&w[0], p, 8);
    memcpy(&w[1], p + 8, 8);
    memcpy(&w[2], p + 16, 8);
    memcpy(&w[3], p + 24, 8);
}

/* Is frame (its bytes as landed) a line? Byte 0 decides: a general frame's
 * is its size's low byte, a multiple of 64. */
static inline int tc_frame_is_line(uint64_t w0)
{
    return (uint8_t)w0 == TC_FRAME_LINE_TAG;
}

/* The shape of a line the validator passed (hdr: its expansion): what the
 * next line of the same jam repeats. */
static inline void tc_frame_line_shape(const tc_frame_hdr_t *hdr, tc_frame_shape_t *shape_p)
{
    shape_p->w_name   = tc_frame_line_id(hdr->pkg_id, hdr->element);
    shape_p->w_layout = 0;
    shape_p->len_max  = TC_FRAME_LINE_ROOM;
    shape_p->w_line   = tc_frame_line_word(hdr->kind, hdr->flags & ~TC_FRAME_F_HAS_RET);
}

/* A line's first two words (copied once) against a line shape: the
 * expected seq with the recorded tag, flags and kind; the recorded name,
 * version and magic; a length the line holds. What the validator passed
 * apart from the per-frame words (seq, length, ack, result); the caller
 * compared the signal already and checks the ack. A general shape (w_line
 * 0) never matches: a line's tag is not 0. */
static inline int tc_frame_line_same_shape(uint64_t w0, uint64_t w1,
                                           const tc_frame_shape_t *shape, uint32_t seq)
{
    return ((w0 & ~TC_FRAME_LINE_VARYING) == (((uint64_t)seq << 32) | shape->w_line)) &&
           (w1 == shape->w_name) && (tc_frame_line_len(w0) <= TC_FRAME_LINE_ROOM);
}

/* Check a line's words (copied once from frame; SIG is read from frame) as
 * the general header they stand for, and write that header to *hdr_p (on
 * success only). Lines are taken only where expect says fixed frames of
 * 64 bytes, and only of local and cached jams; anything else is rejected
 * with its reason (TC_ERR_BAD_FRAME), as tc_frame_validate_hdr does. */
tc_status_t tc_frame_validate_line(const uint64_t w[TC_FRAME_LINE_WORDS], const void *frame,
                                   const tc_frame_expect_t *expect, tc_frame_hdr_t *hdr_p,
                                   char *reason, size_t reason_len);

#endif
