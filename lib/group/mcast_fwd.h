/*
 * Multicast of jams over a process group (lib/group/group.h): envelopes (frame
 * kind MCAST) forwarded along a bounded-radix tree, and an optional ack
 * tree for aggregate completion.
 *
 * Origin: removes itself from the targets, partitions the rest into at most
 * R slices and sends one envelope per slice to its first node; a single
 * remote target without completion goes as a plain LOCAL jam frame.
 * Relay: checks it belongs to its slice, removes itself, forwards to its
 * children, then runs the jam (forward-before-deliver) with the origin, not
 * the relay, as ctx->origin.
 * Ack tree (TC_MCAST_F_ACK): every relay keeps {parent, outstanding}
 * until its own delivery and every child's ack are in, acks its parent once
 * and frees the record; the origin's completion fires exactly once.
 * Fire-and-forget envelopes carry no id and leave no state anywhere.
 * The records are bounded (tc_mcast_set_limits): one whose acks never come
 * is freed after the record timeout, at most a maximum are held, one origin
 * holds at most its share of a relay's records (tc_mcast_set_origin_limit),
 * and an envelope whose hop count its slice cannot allow, or whose slice
 * holds its origin, is refused before it goes any further.
 *
 * How envelopes travel is an ops table (tc_mcast_ops_t): the tree, or flat
 * unicasts from the origin (the naive baseline); a transport with native
 * multicast would bring its own.
 *
 * Frames are only queued where they land (inside tc_peer_progress) and run
 * from tc_mcast_progress; a send that finds a ring full keeps every mailbox
 * of this rank moving, so ranks that wait on each other in a cycle drain.
 * One thread per engine.
 */
#ifndef TC_MCAST_FWD_H
#define TC_MCAST_FWD_H

/* An installed header: what it declares is the library's API, exported
 * from libtwochains.so (built -fvisibility=hidden; lib/twochains.map). */
#pragma GCC visibility push(default)

#include "group.h"
#include "mcast.h"
#include "mcast_env.h"

typedef struct tc_mcast tc_mcast_t;

/* What one delivery saw (the delivery hook gets it after the jam ran). */
typedef struct tc_mcast_info {
    uint32_t origin;    /* who multicast it (what the jam saw as ctx->origin) */
    uint32_t from;      /* the rank whose envelope brought it */
    uint32_t hops;      /* envelopes from the origin to here */
    uint32_t children;  /* envelopes this rank forwarded before the jam ran */
    uint32_t planned;   /* children its slice called for (== children) */
    uint64_t id;        /* 0: fire-and-forget */
    int64_t  ret;       /* the jam's result */
} tc_mcast_info_t;

/* The origin's completion: the ack tree's sums. */
typedef struct tc_mcast_done {
    uint64_t id;
    uint64_t delivered;  /* targets that ran the jam */
    uint64_t depth;      /* deepest hop count */
    uint64_t edges;      /* envelopes sent in all */
    uint64_t bytes;      /* encoded target bytes over all envelopes */
    uint32_t origin_sends;
} tc_mcast_done_t;

typedef void (*tc_mcast_deliver_fn)(void *arg, const tc_mcast_info_t *info);
typedef void (*tc_mcast_complete_fn)(void *arg, const tc_mcast_done_t *done);

/* The message as it travels: a jam and its packed payload. */
typedef struct tc_mcast_msg {
    uint32_t    pkg_id;
    uint16_t    element;
    const void *payload;
    uint32_t    len;
} tc_mcast_msg_t;

typedef struct tc_mcast_ops {
    const char *name;
    /* Origin (relay = 0) or relay (relay = 1): get msg to every node of set
     * other than this rank; *n_children_p envelopes sent, *bytes_p encoded
     * target bytes in them. env is the envelope this rank received (or the
     * origin's own, hops 0), children get hops + 1. */
    tc_status_t (*forward)(tc_mcast_t *mc, const tc_mcast_env_t *env, const tc_mcast_set_t *set,
                           const tc_mcast_msg_t *msg, int relay, uint32_t *n_children_p,
                           uint64_t *bytes_p);
} tc_mcast_ops_t;

extern const tc_mcast_ops_t tc_mcast_ops_tree; /* bounded radix (default 4) */
extern const tc_mcast_ops_t tc_mcast_ops_flat; /* one envelope per target */

#define TC_MCAST_F_ACK 0x1u

typedef struct tc_mcast_stats {
    uint64_t delivered;      /* jams run here from envelopes */
    uint64_t envelopes;      /* envelopes sent */
    uint64_t unicasts;       /* plain frames sent (single target, no ack) */
    uint64_t acks;           /* acks sent */
    uint64_t completions;    /* origin completions fired */
    uint64_t rejected;       /* envelopes or acks refused */
    uint64_t live;           /* ack-tree records held now */
    uint64_t queued;         /* frames waiting to run */
    uint64_t blocked;        /* sends that found a ring full */
    uint64_t held;           /* polls that left rings alone: the queue was full */
    uint64_t expired;        /* records freed after the record timeout, acks missing */
    uint64_t evicted;        /* relay records freed early to make room at the maximum */
    uint64_t too_deep;       /* envelopes refused (or not sent): hops + slice > group */
    uint64_t wakeups;        /* blocking waits done (event, adaptive) */
    uint64_t origin_full;    /* ack envelopes refused: their sender held its share here */
} tc_mcast_stats_t;

/* Ack-tree records held at most, unless tc_mcast_set_limits says otherwise. */
#define TC_MCAST_REC_MAX_DEFAULT 65536u
/* A relay holds at most 1/TC_MCAST_REC_ORIGIN_SHARE of its maximum in
 * records of envelopes one rank sent it (the ring they landed in says which,
 * whatever origin they name), unless tc_mcast_set_origin_limit says otherwise. */
#define TC_MCAST_REC_ORIGIN_SHARE 4u

/* wait: how idle loops wait (tc_wait_t, one idle step of lib/arch/wait; EVENT
 * and ADAPTIVE need a context with events, and every rank of the group
 * must wait the same way); every peer is set to match. */
tc_status_t tc_mcast_create(tc_group_t *group, const tc_mcast_ops_t *ops, uint32_t radix,
                            tc_wait_t wait, tc_mcast_t **mc_p);
void        tc_mcast_destroy(tc_mcast_t *mc);
void        tc_mcast_set_hooks(tc_mcast_t *mc, tc_mcast_deliver_fn deliver,
                               tc_mcast_complete_fn complete, void *arg);
void        tc_mcast_set_ops(tc_mcast_t *mc, const tc_mcast_ops_t *ops, uint32_t radix);
/* A relay's record whose acks have not all come within rec_timeout_ms is
 * freed (stats.expired; 0: twice the context's timeout_ms, the default),
 * and at most max_recs records are held (0: TC_MCAST_REC_MAX_DEFAULT): at
 * the maximum the oldest relay record is freed to make room
 * (stats.evicted), and a multicast that finds only origin records there is
 * refused (tc_mcast_send: TC_ERR_NO_RESOURCE). */
tc_status_t tc_mcast_set_limits(tc_mcast_t *mc, uint32_t rec_timeout_ms, uint32_t max_recs);
/* Relay records of the envelopes one rank sent here at most (0: the maximum
 * divided by TC_MCAST_REC_ORIGIN_SHARE, at least 1, the default; UINT32_MAX:
 * only the maximum): past it an ack envelope from that rank is refused where
 * it lands and acked with nothing delivered (stats.origin_full), so one rank
 * cannot take the room, and by eviction the records, of the others, nor
 * spend another origin's share by naming it. */
void        tc_mcast_set_origin_limit(tc_mcast_t *mc, uint32_t max_per_origin);

/* Multicast jam (payload packed from src/len) to targets (node count = group
 * size; this rank, if in it, is skipped). flags TC_MCAST_F_ACK: *id_p
 * (if not NULL) names it for tc_mcast_wait and the completion hook. */
tc_status_t tc_mcast_send(tc_mcast_t *mc, const tc_jam_t *jam, const void *src, size_t len,
                          const tc_mcast_set_t *targets, unsigned flags, uint64_t *id_p);
/* Poll every peer and run what has arrived; never blocks. */
tc_status_t tc_mcast_progress(tc_mcast_t *mc, unsigned *n_p);
/* Progress (waiting as configured) until multicast id completed;
 * TC_ERR_TIMEOUT (its record freed, stats.expired) once its acks are
 * later than the record timeout. */
tc_status_t tc_mcast_wait(tc_mcast_t *mc, uint64_t id);
/* Progress until done(arg) is nonzero; TC_ERR_TIMEOUT after timeout_ms of
 * nothing arriving, TC_ERR_PEER_FAILED (naming the rank) if one dies. */
tc_status_t tc_mcast_wait_until(tc_mcast_t *mc, int (*done)(void *arg), void *arg,
                                const char *what);
/* Hand back credits and push out what waits in the worker. */
tc_status_t tc_mcast_flush(tc_mcast_t *mc);
void        tc_mcast_stats(const tc_mcast_t *mc, tc_mcast_stats_t *stats_p);

#pragma GCC visibility pop
#endif
