/*
 * Frame layout: encode and validate (pure: no UCX, no runtime state).
 *
 *   | HDR 48 B (MAG is its last byte) | ARGS | GOTP (8 B x n) | CODE | USR payload | pad | SIG 8 B |
 *
 * GOTP starts 8-aligned, or 64-aligned when the frame carries code (GOTP +
 * CODE are then a blob image, CODE at align16(8 n) from GOTP as in the blob);
 * CODE 16-aligned; the payload 8-aligned.
 *
 * Every field little-endian (the hosts we target are); a frame is a multiple
 * of 64 B. SIG is the frame's last 8 bytes: nonzero once the frame has landed,
 * and equal to tc_frame_sig(seq) for a genuine frame.
 *
 * With fixed 64-byte frames a local or cached jam's frames after its first
 * go as line frames, a 32-byte header of their own (lib/codec/frame_line.h): a
 * tag in byte 0 that no frame size has, the payload at byte 32, SIG as here.
 */
#ifndef TC_FRAME_H
#define TC_FRAME_H

#include "barrier.h"
#include "twochains.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define TC_FRAME_ALIGN     64u
#define TC_FRAME_HDR_SIZE  48u
#define TC_FRAME_SIG_SIZE  8u
#define TC_FRAME_MIN_SIZE  TC_FRAME_ALIGN
#define TC_FRAME_MAG       0xC7u
#define TC_FRAME_SIG_TAG   0x5A17u

typedef enum {
    TC_KIND_LOCAL    = 1, /* run vector[element] of a loaded package */
    TC_KIND_INJECTED = 2, /* run the CODE carried in the frame (next issue) */
    TC_KIND_CACHED   = 3, /* run the receiver's cached copy, named by package and element */
    TC_KIND_REPLY    = 4, /* carries a jam's result back; nothing runs */
    TC_KIND_NOP      = 5, /* carries only piggybacked credits/result */
    TC_KIND_SYNC_REQ = 6, /* namespace sync: resolve element's GOT slot names */
    TC_KIND_SYNC_REP = 7, /* the resolved addresses (payload: 8 B each); ret < 0: failed */
    TC_KIND_RIED     = 8, /* a ried shipped to the receiver, in chunks (ARGS: tc_ried_args_t) */
    TC_KIND_RIED_REP = 9, /* its load result: ARGS as asked, payload the export table or error */
    TC_KIND_MCAST    = 10, /* multicast envelope: ARGS lib/codec/mcast_env.h, payload the jam's;
                            * pkg_id/element name the jam; run by lib/group/mcast_run.c */
    TC_KIND_MCAST_ACK = 11, /* multicast ack tree: ARGS a tc_mcast_ack_t, no payload */
    TC_KIND_CONFIG   = 12, /* the sender's frame size or wait strategy changes from the next
                            * frame on (see TC_CONFIG_F_*) */
    TC_KIND_NACK     = 13, /* a frame of the receiver's was rejected: which, why */
    TC_KIND_GOODBYE  = 14, /* the sender closes: no frame follows */
    TC_KIND_LAST
} tc_frame_kind_t;

#define TC_FRAME_F_WANT_REPLY 0x01u /* sender waits for the jam's result */
#define TC_FRAME_F_HAS_RET    0x02u /* ret/ret_seq hold a result */
#define TC_FRAME_F_CACHE      0x04u /* injected: keep the code, later frames come CACHED */
#define TC_FRAME_F_NO_RET     0x08u /* one-way: the receiver records no result of it (none
                                     * comes back piggybacked); never with WANT_REPLY */
#define TC_FRAME_F_KNOWN      0x0Fu

typedef struct __attribute__((packed, aligned(8))) tc_frame_hdr {
    uint32_t frame_size;   /* whole frame, SIG included */
    uint32_t seq;          /* per-direction sequence number, from 0 */
    uint32_t pkg_id;
    uint16_t element;
    uint8_t  kind;
    uint8_t  flags;
    uint32_t ack;          /* frames the sender has consumed from us (credits) */
    uint32_t payload_len;
    uint16_t payload_off;
    uint16_t args_len;     /* ARGS start right after the header */
    uint16_t got_count;    /* GOTP entries, 8 B each, 8 B aligned after ARGS */
    uint16_t code_len;     /* CODE starts 16 B aligned after GOTP */
    int64_t  ret;          /* result of jam ret_seq (TC_FRAME_F_HAS_RET) */
    uint32_t ret_seq;
    uint16_t version;      /* TC_PROTO_VERSION */
    uint8_t  reserved;
    uint8_t  mag;          /* TC_FRAME_MAG, written last in the header */
} tc_frame_hdr_t;

_Static_assert(sizeof(tc_frame_hdr_t) == TC_FRAME_HDR_SIZE, "header is 48 bytes");

/* ARGS of a ried frame. */
#define TC_RIED_NAME_MAX 48
#define TC_RIED_OP_CHUNK  0 /* payload: bytes [offset, offset + len) of the library */
#define TC_RIED_OP_UNLOAD 1

typedef struct __attribute__((packed)) tc_ried_args {
    uint32_t id;        /* the sender's number for this ried */
    uint32_t op;
    uint32_t total;     /* library size */
    uint32_t offset;
    int32_t  status;    /* replies: 0 loaded/unloaded, < 0 failed (payload says why;
                         * an unload's TC_ERR_BUSY: pinned, TC_ERR_NOT_FOUND: no such id) */
    uint32_t reserved;
    char     name[TC_RIED_NAME_MAX]; /* NUL-terminated: ried_<name> */
} tc_ried_args_t;

/* Control frames carry their few words in header fields that only jam
 * frames use otherwise (no ARGS: they fit the smallest frame).
 *   config:  pkg_id = new frame size (0: unchanged), element = TC_CONFIG_F_*
 *            | wait << 8
 *   nack:    pkg_id = the rejected frame's seq, element = -status; payload:
 *            the reason, cut to fit */
#define TC_CONFIG_F_FRAME_SIZE 0x1u
#define TC_CONFIG_F_WAIT       0x2u

/* What the encoder needs to lay a frame out. */
typedef struct tc_frame_layout {
    uint32_t args_len;
    uint32_t got_count;
    uint32_t code_len;
    uint32_t payload_len;
} tc_frame_layout_t;

/* Offsets that follow from a layout. */
typedef struct tc_frame_offsets {
    uint32_t args_off;
    uint32_t got_off;
    uint32_t code_off;
    uint32_t payload_off;
    uint32_t frame_size; /* rounded up to TC_FRAME_ALIGN */
} tc_frame_offsets_t;

/* What the validator checks a frame against. */
typedef struct tc_frame_expect {
    uint32_t slot_size;     /* a frame must fit in its slot */
    uint32_t frame_size;    /* 0: variable frames; else every frame has this size */
    uint32_t seq;           /* the only sequence number acceptable now */
    /* Element lookup: returns nonzero iff pkg_id/element/kind name something
     * the receiver can run. NULL accepts any. */
    int    (*known)(void *arg, uint32_t pkg_id, uint16_t element, uint8_t kind);
    void    *known_arg;
} tc_frame_expect_t;

static inline uint64_t tc_frame_sig(uint32_t seq)
{
    /* never zero, and differs lap to lap, so a stale signal cannot pass */
    return ((uint64_t)seq << 32) | ((uint64_t)TC_FRAME_SIG_TAG << 16) | 0x1u;
}

static inline uint64_t *tc_frame_sig_ptr(void *frame, uint32_t frame_size)
{
    return (uint64_t *)(void *)((char *)frame + frame_size - TC_FRAME_SIG_SIZE);
}

/* The signal word of a frame of frame_size bytes, read once (the sender
 * may be writing it). */
static inline uint64_t tc_frame_sig_read(const void *frame, uint32_t frame_size)
{
    return tc_read_once(tc_frame_sig_ptr((void *)frame, frame_size));
}

/* The offsets of layout in a frame of at most max_size bytes; *offsets_p
 * is written only on success. */
tc_status_t tc_frame_layout(const tc_frame_layout_t *layout, uint32_t max_size,
                            tc_frame_offsets_t *offsets_p);

/* Write a header for offsets into frame (no SIG: see tc_frame_seal). */
void tc_frame_write_hdr(void *frame, const tc_frame_offsets_t *offsets,
                        const tc_frame_layout_t *layout, uint8_t kind,
                        uint8_t flags, uint32_t pkg_id, uint16_t element,
                        uint32_t seq);

/* Write SIG for the header's seq at the frame's end. */
static inline void tc_frame_seal(void *frame)
{
    const tc_frame_hdr_t *hdr = (const tc_frame_hdr_t *)frame;
    tc_write_once(tc_frame_sig_ptr(frame, hdr->frame_size), tc_frame_sig(hdr->seq));
}

/* Check a landed frame. On failure returns TC_ERR_BAD_FRAME and writes a
 * human-readable reason (reason may be NULL). Nothing in the frame is trusted
 * before this returns TC_OK. */
tc_status_t tc_frame_validate(const void *frame, const tc_frame_expect_t *expect,
                              char *reason, size_t reason_len);

/* The same checks on a header the caller already copied out of the frame
 * (so what is checked is what is used); SIG is read from frame. */
tc_status_t tc_frame_validate_hdr(const tc_frame_hdr_t *hdr, const void *frame,
                                  const tc_frame_expect_t *expect, char *reason,
                                  size_t reason_len);

/* The shape of a header the validator passed: the words that stay the same
 * from frame to frame of one stream (package, element, kind, flags; the
 * sections' offsets and lengths) and how long a payload the frame size
 * holds behind them. A later header of the same shape, with the expected
 * seq, size and signal, is what the validator passed apart from the
 * per-frame fields (seq, ack, payload_len within the bound, the result
 * stamp), so the receiver runs it as that one ran (lib/core/dispatch.c: local
 * and cached frames; injected ones also have their code and GOTP compared). Words
 * as little-endian loads, as every field is. */
typedef struct tc_frame_shape {
    uint64_t w_name;    /* bytes 8-15: pkg_id, element, kind, flags */
    uint64_t w_layout;  /* bytes 24-31: payload_off, args_len, got_count, code_len */
    uint32_t len_max;   /* the largest payload_len the frame size holds */
    uint32_t w_line;    /* a line frame's shape (lib/codec/frame_line.h): its word 0 without
                         * seq, length and HAS_RET (w_name: its word 1); 0: a general
                         * frame's */
} tc_frame_shape_t;

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "frame words are little-endian");
_Static_assert((offsetof(tc_frame_hdr_t, pkg_id) == 8) && (offsetof(tc_frame_hdr_t, ack) == 16) &&
                   (offsetof(tc_frame_hdr_t, payload_off) == 24) &&
                   (offsetof(tc_frame_hdr_t, ret) == 32) &&
                   (offsetof(tc_frame_hdr_t, ret_seq) == 40) &&
                   (offsetof(tc_frame_hdr_t, flags) == 15),
               "the shape's words");

#define TC_FRAME_W_TAIL_MASK 0xFF00FFFFu /* version and mag: bytes 44-45, 47 */
#define TC_FRAME_W_TAIL      (((uint32_t)TC_FRAME_MAG << 24) | TC_PROTO_VERSION)

static inline void tc_frame_shape_of(const tc_frame_hdr_t *hdr, uint32_t frame_size,
                                     tc_frame_shape_t *shape_p)
{
    uint64_t w[TC_FRAME_HDR_SIZE / 8];

    memcpy(w, hdr, sizeof(w));
    shape_p->w_name   = w[1];
    shape_p->w_layout = w[3];
    shape_p->len_max  = frame_size - hdr->payload_off - TC_FRAME_SIG_SIZE;
    shape_p->w_line   = 0;
}

/* tc_frame_same_shape on a header's words (tc_frame_load_words) whose
 * signal the caller compared with tc_frame_sig(seq) already. */
static inline int tc_frame_words_same_shape(const uint64_t w[TC_FRAME_HDR_SIZE / 8],
                                            const tc_frame_shape_t *shape, uint32_t frame_size,
                                            uint32_t seq)
{
    return (w[0] == (((uint64_t)seq << 32) | frame_size)) && (w[1] == shape->w_name) &&
           (w[3] == shape->w_layout) && ((w[2] >> 32) <= shape->len_max) &&
           (((uint32_t)(w[5] >> 32) & TC_FRAME_W_TAIL_MASK) == TC_FRAME_W_TAIL);
}

static inline int tc_frame_same_shape(const tc_frame_hdr_t *hdr, const tc_frame_shape_t *shape,
                                      uint32_t frame_size, uint32_t seq, uint64_t sig)
{
    uint64_t w[TC_FRAME_HDR_SIZE / 8];

    memcpy(w, hdr, sizeof(w));
    return (sig == tc_frame_sig(seq)) && tc_frame_words_same_shape(w, shape, frame_size, seq);
}

/* A header's words as eight-byte loads (each one word: a 16-byte load
 * into a vector and back is what memcpy of the header compiles to). */
static inline void tc_frame_load_words(const tc_frame_hdr_t *hdr, uint64_t w[TC_FRAME_HDR_SIZE / 8])
{
    const char *p = (const char *)hdr;

    memcpy(&w[0], p, 8);
    memcpy(&w[1], p + 8, 8);
    memcpy(&w[2], p + 16, 8);
    memcpy(&w[3], p + 24, 8);
    memcpy(&w[4], p + 32, 8);
    memcpy(&w[5], p + 40, 8);
}

/* The words stored back as six eight-byte stores (written out: a loop or
 * one memcpy of the array keeps the words on the stack). */
static inline void tc_frame_store_words(void *dst, const uint64_t w[TC_FRAME_HDR_SIZE / 8])
{
    char *p = (char *)dst;

    memcpy(p, &w[0], 8);
    memcpy(p + 8, &w[1], 8);
    memcpy(p + 16, &w[2], 8);
    memcpy(p + 24, &w[3], 8);
    memcpy(p + 32, &w[4], 8);
    memcpy(p + 40, &w[5], 8);
}

/* The sender's per-frame stamps (seq, ack, the latest result) over a
 * header's words, in registers: the frame's header is then stored once, in
 * eight-byte words. Stamping the staged header in memory and copying it
 * with 16-byte loads made every load span smaller stores still in the
 * store buffer, a failed store-to-load forward each (lib/core/send.h). w holds
 * the header's words as loaded and is stamped in place. */
static inline void tc_frame_stamp_words(uint64_t w[TC_FRAME_HDR_SIZE / 8], uint32_t seq,
                                        uint32_t ack, int has_ret, int64_t ret, uint32_t ret_seq)
{
    w[0] = (w[0] & 0xFFFFFFFFu) | ((uint64_t)seq << 32);
    w[2] = (w[2] & ~(uint64_t)0xFFFFFFFFu) | ack;
    if (has_ret) {
        w[1] |= (uint64_t)TC_FRAME_F_HAS_RET << 56; /* flags: byte 15 */
        w[4]  = (uint64_t)ret;
        w[5]  = (w[5] & ~(uint64_t)0xFFFFFFFFu) | ret_seq;
    }
}

/* One-line frames: a 64-byte frame whose header, payload and signal share
 * the line (a payload of up to TC_FRAME_LINE_PAYLOAD bytes, no sections).
 * Its header is the general one; the sender writes it from registers
 * (the words below), the receiver reads the line once. */
#define TC_FRAME_LINE_PAYLOAD (TC_FRAME_ALIGN - TC_FRAME_HDR_SIZE - TC_FRAME_SIG_SIZE)

/* The name word (bytes 8-15) of a jam frame: package, element, kind, flags. */
static inline uint64_t tc_frame_line_name(uint32_t pkg_id, uint16_t element, uint8_t kind,
                                          uint8_t flags)
{
    return (uint64_t)pkg_id | ((uint64_t)element << 32) | ((uint64_t)kind << 48) |
           ((uint64_t)flags << 56);
}

/* The header words of a one-line frame: seq, the name word (flags with
 * HAS_RET where has_ret is 1), our consumed count (ack), the payload's
 * length, no sections, the latest result (ret and ret_seq 0 where has_ret
 * is 0); what tc_frame_write_hdr and tc_frame_stamp_words make of the same
 * frame, byte for byte. */
static inline void tc_frame_line_words(uint64_t w[TC_FRAME_HDR_SIZE / 8], uint32_t seq,
                                       uint64_t name, uint32_t ack, uint32_t payload_len,
                                       uint8_t has_ret, int64_t ret, uint32_t ret_seq)
{
    w[0] = ((uint64_t)seq << 32) | TC_FRAME_ALIGN;
    w[1] = name | ((uint64_t)has_ret << 57); /* TC_FRAME_F_HAS_RET: bit 1 of byte 15 */
    w[2] = ack | ((uint64_t)payload_len << 32);
    w[3] = TC_FRAME_HDR_SIZE; /* payload_off; no ARGS, GOTP or code */
    w[4] = (uint64_t)ret;
    w[5] = ret_seq | ((uint64_t)TC_FRAME_W_TAIL << 32);
}

_Static_assert(TC_FRAME_F_HAS_RET == 0x02u, "HAS_RET is bit 57 of the name word");

const char *tc_frame_kind_str(uint8_t kind);

#endif
