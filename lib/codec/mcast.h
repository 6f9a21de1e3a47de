/*
 * Scalable multicast, the pure part (no UCX, no runtime state): the target
 * set, its wire codec, and the partition a relay uses to forward.
 *
 * ------------------------------------------------------------- target set
 * A set of node ids below a node count N (1 <= N <= 2^32 - 1, fixed at
 * creation), kept as sorted, disjoint, non-adjacent half-open runs
 * [start, end): 0 <= start < end <= N, and run[i].end < run[i+1].start. A
 * range of millions of nodes is one run, so nothing here costs per node
 * unless the chosen wire form itself is per node.
 *
 * ------------------------------------------------------------------ codec
 * Every encoding is one kind byte followed by a body of unsigned LEB128
 * varints ("v" below): 7 bits a byte, least significant group first, high bit
 * set on every byte but the last. A varint is at most 10 bytes and canonical:
 * no overlong form (a multi-byte varint never ends in 0x00) and no value above
 * 2^64 - 1 (a 10th byte is 0x01). N is not on the wire: both ends know it.
 *
 *   EMPTY        = 0  | 0 |                                        (the empty set)
 *   SINGLE       = 1  | 1 | v id |
 *   SMALL_INLINE = 2  | 2 | n | v id_1 | ... | v id_n |            1 <= n <= 8;
 *                       n is one byte (the same byte as v n); absolute ids,
 *                       strictly increasing
 *   RANGES       = 3  | 3 | v n | v gap_1 | v len_1 | ... | v gap_n | v len_n |
 *                       n >= 1 runs in increasing order; gap_1 is the first
 *                       run's absolute start, gap_i (i > 1) is start_i minus
 *                       end_(i-1) (>= 1: runs never touch); len_i >= 1; every
 *                       run ends at or below N
 *   DELTA_LIST   = 4  | 4 | v n | v id_1 | v d_2 | ... | v d_n |
 *                       n >= 1; id_i = id_(i-1) + d_i, every d_i >= 1
 *   BITMAP       = 5  | 5 | v base | v bits | ceil(bits / 8) bytes |
 *                       node base + i is in the set iff bit i is, bit i being
 *                       byte[i / 8] >> (i % 8) & 1 (LSB first); bits >= 1,
 *                       bit 0 and bit bits-1 set, base + bits <= N, the
 *                       unused high bits of the last byte zero
 *   ALL_NODES    = 6  | 6 |                                        (all N nodes)
 *   ALL_EXCEPT   = 7  | 7 | v n | v id_1 | v d_2 | ... | v d_n |
 *                       all nodes but the n excluded ones, listed as in
 *                       DELTA_LIST; 1 <= n <= N - 1
 *
 * The encoder computes each form's exact size and takes the smallest; ties
 * go to the lower kind. An empty set always encodes as EMPTY.
 *
 * What the decoder accepts: any form whose body is canonical, whether or not
 * the encoder would have picked that form (a one-node RANGES or a full
 * BITMAP decode fine). Canonical means: canonical varints; lists strictly
 * increasing; runs sorted, disjoint, non-adjacent, lengths >= 1; bitmaps
 * trimmed (first and last bit set) with zero padding; nothing after the body.
 * Hence each set has exactly one encoding per form, and re-encoding a decoded
 * set in the form it arrived in gives back the same bytes. Every count field
 * must be >= 1, so the empty set has exactly one encoding (EMPTY).
 *
 * Order of checks, so each status means one thing: a count field is checked
 * against N (BAD_CARDINALITY) and then against the bytes left, at the smallest
 * size its elements can take (TRUNCATED: a short copy of a valid message
 * always reads as TRUNCATED), before anything is allocated or looped over.
 */
#ifndef TC_MCAST_H
#define TC_MCAST_H

/* An installed header: what it declares is the library's API, exported
 * from libtwochains.so (built -fvisibility=hidden; lib/twochains.map). */
#pragma GCC visibility push(default)

#include "twochains.h"

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------- target set */

typedef struct tc_mcast_set tc_mcast_set_t;

/* One run of consecutive nodes, [start, end). */
typedef struct tc_mcast_run {
    uint32_t start;
    uint32_t end;
} tc_mcast_run_t;

/* An empty set over nodes [0, num_nodes); num_nodes >= 1. */
tc_status_t tc_mcast_set_create(uint32_t num_nodes, tc_mcast_set_t **set_p);
void        tc_mcast_set_destroy(tc_mcast_set_t *set);
tc_status_t tc_mcast_set_dup(const tc_mcast_set_t *set, tc_mcast_set_t **copy_p);
uint32_t    tc_mcast_set_num_nodes(const tc_mcast_set_t *set);

/* Mutators leave the set unchanged when they fail. TC_ERR_OUT_OF_RANGE for
 * a node >= N; adding a member or removing a non-member is a no-op. */
tc_status_t tc_mcast_set_add(tc_mcast_set_t *set, uint32_t node);
/* Add [start, end): start <= end <= N (start == end adds nothing).
 * Amortized O(1) when the range lies at or after the last run, which is how
 * the decoder and the partition build sets. */
tc_status_t tc_mcast_set_add_range(tc_mcast_set_t *set, uint32_t start,
                                   uint32_t end);
/* Removing an inner node splits its run (may need memory). */
tc_status_t tc_mcast_set_remove(tc_mcast_set_t *set, uint32_t node);
void        tc_mcast_set_clear(tc_mcast_set_t *set);

int         tc_mcast_set_contains(const tc_mcast_set_t *set, uint32_t node);
uint64_t    tc_mcast_set_count(const tc_mcast_set_t *set);
size_t      tc_mcast_set_run_count(const tc_mcast_set_t *set);
/* The runs, in increasing order; valid until the set changes. */
const tc_mcast_run_t *tc_mcast_set_runs(const tc_mcast_set_t *set,
                                        size_t *n_runs_p);
/* Smallest member; TC_ERR_NOT_FOUND when empty. */
tc_status_t tc_mcast_set_first(const tc_mcast_set_t *set, uint32_t *node_p);
/* Same node count and same members (the node count matters: it decides what
 * ALL_NODES and ALL_EXCEPT mean). */
int         tc_mcast_set_equal(const tc_mcast_set_t *a, const tc_mcast_set_t *b);

/* ------------------------------------------------------------------ codec */

typedef enum {
    TC_MCAST_EMPTY        = 0,
    TC_MCAST_SINGLE       = 1,
    TC_MCAST_SMALL_INLINE = 2,
    TC_MCAST_RANGES       = 3,
    TC_MCAST_DELTA_LIST   = 4,
    TC_MCAST_BITMAP       = 5,
    TC_MCAST_ALL_NODES    = 6,
    TC_MCAST_ALL_EXCEPT   = 7,
    TC_MCAST_KIND_LAST    = 8
} tc_mcast_kind_t;

#define TC_MCAST_SMALL_INLINE_MAX 8u
#define TC_MCAST_VARINT_MAX       10u

typedef enum {
    TC_MCAST_DECODE_OK                = 0,
    TC_MCAST_DECODE_UNKNOWN_KIND      = 1, /* kind byte >= TC_MCAST_KIND_LAST */
    TC_MCAST_DECODE_TRUNCATED         = 2, /* input ends inside the encoding */
    TC_MCAST_DECODE_TRAILING_BYTES    = 3, /* bytes after a complete encoding */
    TC_MCAST_DECODE_BAD_CARDINALITY   = 4, /* count 0, above the form's limit or
                                            * more than N nodes could give */
    TC_MCAST_DECODE_NODE_OUT_OF_RANGE = 5, /* an id (or a run's start) >= N */
    TC_MCAST_DECODE_RANGE_OVERFLOW    = 6, /* a run or bitmap that starts in
                                            * range but ends past N */
    TC_MCAST_DECODE_NOT_CANONICAL     = 7, /* see "canonical" above */
    /* not about the bytes: */
    TC_MCAST_DECODE_NO_MEMORY         = 8,
    TC_MCAST_DECODE_INVALID_PARAM     = 9,
    TC_MCAST_DECODE_LAST              = 10
} tc_mcast_decode_status_t;

const char *tc_mcast_kind_str(unsigned kind);
const char *tc_mcast_decode_status_str(tc_mcast_decode_status_t status);
/* For callers that speak tc_status_t: NO_MEMORY and INVALID_PARAM map to
 * theirs, every complaint about the bytes to TC_ERR_PROTOCOL. */
tc_status_t tc_mcast_decode_status_to_status(tc_mcast_decode_status_t status);

/* Exact size of set in the given form; TC_ERR_UNSUPPORTED when the form
 * cannot hold the set (e.g. SINGLE for two nodes), TC_ERR_INVALID_PARAM for
 * an unknown kind. O(runs). */
tc_status_t tc_mcast_encoded_size(const tc_mcast_set_t *set, unsigned kind,
                                  size_t *size_p);
/* The form the encoder picks (smallest, ties to the lower kind) and its size:
 * the size query before tc_mcast_encode. */
tc_status_t tc_mcast_encode_choose(const tc_mcast_set_t *set,
                                   tc_mcast_kind_t *kind_p, size_t *size_p);
/* Encode in the chosen form into buf (cap bytes); TC_ERR_OUT_OF_RANGE when
 * cap is too small (buf untouched). */
tc_status_t tc_mcast_encode(const tc_mcast_set_t *set, void *buf, size_t cap,
                            size_t *len_p);
/* Encode in a given form (tests, and callers with a reason to force one). */
tc_status_t tc_mcast_encode_kind(const tc_mcast_set_t *set, unsigned kind,
                                 void *buf, size_t cap, size_t *len_p);

/* Decode len bytes into set, whose node count is the N the bytes are checked
 * against. Never aborts and never reads outside [buf, buf + len). On success
 * set holds exactly the encoded nodes (kind_p, if not NULL, gets the form);
 * on failure set is left empty. */
tc_mcast_decode_status_t tc_mcast_decode(const void *buf, size_t len,
                                         tc_mcast_set_t *set,
                                         tc_mcast_kind_t *kind_p);

/* Varint helpers, shared with whoever frames an envelope around a set. */
unsigned tc_mcast_varint_size(uint64_t value);
/* Writes tc_mcast_varint_size(value) bytes at p; returns that count. */
unsigned tc_mcast_varint_put(uint8_t *p, uint64_t value);
/* Read a canonical varint from buf[*pos_p, len): TRUNCATED, NOT_CANONICAL
 * (overlong, over 10 bytes, above 2^64 - 1) or OK (then *pos_p advances). */
tc_mcast_decode_status_t tc_mcast_varint_get(const uint8_t *buf, size_t len,
                                             size_t *pos_p, uint64_t *value_p);

/* -------------------------------------------------------------- partition */

/* One child of a forwarding step: the relay gets the envelope and forwards
 * within set (which includes the relay itself). */
typedef struct tc_mcast_slice {
    uint32_t        relay;  /* first node of set */
    uint64_t        count;  /* nodes in set */
    tc_mcast_set_t *set;
} tc_mcast_slice_t;

/* Split set into k = min(radix, size) slices in node order: base = size / k
 * nodes each, the first size % k slices one more. Runs are cut, never
 * expanded: the slices hold at most run_count + k - 1 runs in all. radix 1
 * gives one slice equal to set (a chain); an empty set gives no slices
 * (*slices_p = NULL). radix 0 is TC_ERR_INVALID_PARAM. Free the slices with
 * tc_mcast_slices_free. */
tc_status_t tc_mcast_partition(const tc_mcast_set_t *set, uint32_t radix,
                               tc_mcast_slice_t **slices_p,
                               uint32_t *n_slices_p);
void        tc_mcast_slices_free(tc_mcast_slice_t *slices, uint32_t n_slices);

/* Forwarding step: partition set minus self. A relay passes
 * TC_MCAST_SELF_REQUIRED, since a slice without its relay means the envelope
 * reached the wrong node (TC_ERR_PROTOCOL); the origin need not be a target.
 * set itself is not changed. */
#define TC_MCAST_SELF_REQUIRED 0x1u
tc_status_t tc_mcast_forward_plan(const tc_mcast_set_t *set, uint32_t self,
                                  uint32_t radix, unsigned flags,
                                  tc_mcast_slice_t **slices_p,
                                  uint32_t *n_slices_p);

#pragma GCC visibility pop
#endif
