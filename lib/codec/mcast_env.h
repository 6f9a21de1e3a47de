/*
 * Multicast envelope and ack, as they travel in a frame's ARGS (pure: no
 * UCX). Everything is a canonical LEB128 varint (lib/codec/mcast.h), so the
 * usual envelope is a dozen bytes plus its encoded slice.
 *
 *   envelope: | flags (1 B) | v origin | v radix | v hops | [v id] | slice |
 *             flags: TC_MCAST_ENV_ACK (then v id follows: the origin's
 *             number for this multicast, which the acks carry back);
 *             radix >= 1: every relay forwards with the origin's radix;
 *             hops >= 1: how many envelopes led here (the origin's are 1);
 *             slice: the target-set encoding of the receiver's slice, to
 *             the end of ARGS, checked against the group size N.
 *   ack:      | v origin | v id | v delivered | v depth | v edges | v bytes |
 *             a relay's subtree: targets it reached (itself included),
 *             deepest hop count, envelopes sent and encoded slice bytes.
 *
 * A fire-and-forget envelope carries no id: nothing to ack, no state kept.
 */
#ifndef TC_MCAST_ENV_H
#define TC_MCAST_ENV_H

/* An installed header: what it declares is the library's API, exported
 * from libtwochains.so (built -fvisibility=hidden; lib/twochains.map). */
#pragma GCC visibility push(default)

#include "mcast.h"

#define TC_MCAST_ENV_ACK   0x01u
#define TC_MCAST_ENV_FLAGS 0x01u /* known flags */
/* flags + 3 varints + id: the most an envelope header takes */
#define TC_MCAST_ENV_HDR_MAX (1u + 4u * TC_MCAST_VARINT_MAX)
#define TC_MCAST_ACK_MAX     (6u * TC_MCAST_VARINT_MAX)

typedef struct tc_mcast_env {
    uint8_t  flags;
    uint32_t origin;
    uint32_t radix;
    uint32_t hops;
    uint64_t id;       /* 0 unless TC_MCAST_ENV_ACK */
} tc_mcast_env_t;

typedef struct tc_mcast_ack {
    uint32_t origin;
    uint64_t id;
    uint64_t delivered;
    uint64_t depth;
    uint64_t edges;
    uint64_t bytes;
} tc_mcast_ack_t;

/* Write env's header (not the slice) to buf (at least TC_MCAST_ENV_HDR_MAX
 * bytes); returns its length. */
size_t tc_mcast_env_put_hdr(const tc_mcast_env_t *env, uint8_t *buf);
/* Parse an envelope of len bytes: header into env_p, slice into set (whose
 * node count is N). Same statuses as tc_mcast_decode; a bad header field is
 * NOT_CANONICAL (unknown flag, radix or hops 0, id 0 with ACK),
 * NODE_OUT_OF_RANGE (origin >= N) or TRUNCATED. Never reads outside
 * [buf, buf + len); set left empty on failure. */
tc_mcast_decode_status_t tc_mcast_env_parse(const void *buf, size_t len,
                                            tc_mcast_set_t *set,
                                            tc_mcast_env_t *env_p);

/* Can an envelope that led here in hops envelopes carry a slice of
 * slice_count nodes in a group of num_nodes? The origin and every relay on
 * the way are distinct ranks, none of them in the slice (each removed
 * itself), so hops + slice_count <= num_nodes; a relay whose envelope
 * passes gives every child hops + 1 and a smaller slice, which passes too.
 * hops 0 (the origin's own) and an empty slice (it holds its receiver)
 * never pass. */
int    tc_mcast_env_hops_fit(uint32_t hops, uint64_t slice_count, uint32_t num_nodes);

size_t tc_mcast_ack_put(const tc_mcast_ack_t *ack, uint8_t *buf);
/* An ack must be exactly len bytes; origin checked against num_nodes. */
tc_mcast_decode_status_t tc_mcast_ack_parse(const void *buf, size_t len, uint32_t num_nodes,
                                            tc_mcast_ack_t *ack_p);

#pragma GCC visibility pop
#endif
