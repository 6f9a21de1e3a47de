/*
 * Multicast tree model (pure: no UCX). Runs the real forwarding plan
 * (tc_mcast_forward_plan: remove self, partition, encode each slice) for
 * every relay of a multicast in one process, and times it with a simple
 * latency model:
 *
 *   - a node that starts forwarding at t sends child i (0-based) at
 *     t + (i + 1) * send_us; the envelope lands hop_us later;
 *   - it delivers locally after its last send (forward-before-deliver; the
 *     jam itself costs nothing in the model);
 *   - ack tree: a node acks its parent once its delivery is done and every
 *     child's ack has arrived; the ack costs one send_us and one hop_us;
 *   - the origin's completion is the arrival of its last child's ack.
 *
 * Naive: the origin sends one unicast to each target in node order, each
 * target acks directly: completion = (m + 1) * send_us + 2 * hop_us.
 *
 * A relay needs only its own slice, so the walk is depth-first and holds
 * one path of slices at a time: memory O(depth * radix * runs).
 */
#ifndef TC_MCAST_SIM_H
#define TC_MCAST_SIM_H

#include "mcast.h"

typedef struct tc_mcast_sim_params {
    uint32_t radix;    /* >= 1 (tree); ignored by the naive model */
    uint32_t origin;   /* < the set's node count; need not be a target */
    double   hop_us;   /* one envelope or ack in flight */
    double   send_us;  /* sender's cost per envelope or ack */
    int      verify;   /* also encode and decode every envelope and check
                        * the decoded slice equals the planned one */
} tc_mcast_sim_params_t;

typedef struct tc_mcast_sim_result {
    uint64_t targets;        /* nodes to reach (origin excluded) */
    uint64_t delivered;      /* nodes the walk delivered to (== targets) */
    uint64_t edges;          /* envelopes sent in all (== targets) */
    uint64_t acks;           /* acks sent in all (== targets) */
    uint32_t origin_sends;   /* min(radix, targets) for a tree */
    uint32_t depth;          /* hops from the origin to the farthest target */
    uint32_t max_fanout;     /* most envelopes any one node sent */
    uint64_t target_bytes;   /* encoded target-set bytes over all envelopes */
    uint64_t max_target_bytes; /* largest encoded slice */
    uint64_t origin_target_bytes; /* encoded bytes of the whole target set */
    double   deliver_us;     /* model: last delivery */
    double   complete_us;    /* model: the origin's completion (ack tree) */
} tc_mcast_sim_result_t;

/* Walk the forwarding tree of targets from params->origin. TC_ERR_PROTOCOL
 * if a relay finds itself outside its slice or a decoded slice differs. */
tc_status_t tc_mcast_sim_tree(const tc_mcast_set_t *targets,
                              const tc_mcast_sim_params_t *params,
                              tc_mcast_sim_result_t *result_p);

/* The naive baseline: one unicast per target, from the origin. */
tc_status_t tc_mcast_sim_naive(const tc_mcast_set_t *targets,
                               const tc_mcast_sim_params_t *params,
                               tc_mcast_sim_result_t *result_p);

/* ceil(log_radix(n)) for radix >= 2, n >= 1 (0 for n = 1). */
uint32_t    tc_mcast_sim_log_ceil(uint64_t n, uint32_t radix);

#endif
