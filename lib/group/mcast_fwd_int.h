/*
 * Private to multicast's pieces (mcast_queue, mcast_ackrec, mcast_wait,
 * mcast_ack, mcast_fwd, mcast_run, mcast_setup): the engine's state and the
 * steps one piece takes for another. Not installed. The pieces form layers,
 * each calling only those above it in this list: queue and ackrec, wait,
 * ack, fwd, run, setup.
 */
#ifndef TC_MCAST_FWD_INT_H
#define TC_MCAST_FWD_INT_H

#include "mcast_fwd.h"
#include "mcast_rec.h"
#include "clock.h"
#include "log.h"
#include "runtime.h"
#include "wait.h"

#include <stddef.h>
#include <stdint.h>

#define TC_MCAST_LOG_MAX    8        /* refusals logged, the rest only counted */
#define TC_MCAST_CHECK_NS   20000000 /* liveness checks while waiting: every 20 ms */

/* A frame that landed, waiting to run outside tc_peer_progress. */
typedef struct tc_mcast_item {
    struct tc_mcast_item *next;
    uint8_t               kind;
    uint32_t              from;
    uint32_t              pkg_id;
    uint16_t              element;
    uint32_t              args_len;
    uint32_t              payload_len;
    uint8_t               data[]; /* args, then payload (8-aligned) */
} tc_mcast_item_t;

/* One wait of a loop (tc_mcast_wait_until, or a send blocked on credits). */
typedef struct tc_mcast_waiter {
    const char     *what;
    uint64_t        next_check;
    tc_wait_state_t ws;
    uint32_t        only;         /* the ring a blocked send may poll past the queue's cap */
    tc_peer_t      *credits_from; /* a blocked send: these credits coming back end the wait */
    uint64_t        consumed;     /* ... counted from this value */
} tc_mcast_waiter_t;

struct tc_mcast {
    tc_group_t           *group;
    tc_context_t         *ctx;
    const tc_mcast_ops_t *ops;
    uint32_t              radix;
    uint32_t              rank, size;
    tc_wait_t             wait;
    tc_wait_ops_t         wait_ops;   /* every ring of this rank, as lib/arch/wait sees them */
    tc_mcast_waiter_t    *waiter;     /* the wait whose idle step runs now */
    uint32_t              watch_rank; /* monitor strategies: the ring that last had frames */
    uint64_t              no_watch;   /* ... or this word, which never changes */
    tc_mcast_deliver_fn   deliver;
    tc_mcast_complete_fn  complete;
    void                 *hook_arg;

    tc_mcast_item_t      *head, *tail;
    size_t                queued_bytes;
    size_t                queued_bytes_max; /* the most it held */
    size_t                queue_hold; /* past it, only the ring a send waits on is taken */
    size_t                queue_cap;  /* past it, nothing: a frame is refused and NACKed */
    size_t                slice_max;  /* longest encoding of any subset of the group */
    uint32_t             *sent_to;    /* the envelopes of the forward running now */
    uint32_t              n_sent;
    tc_mcast_recs_t      *recs;       /* the ack tree's records, by (origin, id) */
    uint64_t              rec_timeout_ns;
    uint32_t              origin_max; /* relay records per origin; 0: the default share */
    uint64_t              next_id;
    tc_mcast_set_t       *rx_set;    /* the slice of the envelope being run */
    tc_mcast_set_t       *one;       /* flat: a one-node slice */
    uint8_t              *pack_buf;  /* the origin's packed payload */
    size_t                pack_cap;
    uint64_t              last_rx_ns; /* when something last arrived (timeouts) */
    tc_mcast_stats_t      stats;
};

/* mcast_queue.c: the receive queue */
/* Bytes of landed frames waiting to run (tc_mcast_t.queue_hold and
 * queue_cap, which tests may lower). Past the hold a rank blocked in a send
 * polls only the ring of the rank it waits on, and a rank that is not
 * blocked runs its queue before it polls again: the rings' credits then
 * hold senders back. The rank waited on must still be read (it may be
 * blocked on us: leaving its frames would deadlock both), so its frames
 * are taken up to the cap and refused past it: the queue never passes it. */
#define TC_MCAST_QUEUE_HOLD (16u << 20)
#define TC_MCAST_QUEUE_CAP  (32u << 20)

/* The handler of MCAST and MCAST_ACK frames in dispatch's table (arg: the
 * engine): queues them; refuses (NACKed) what the queue has no room for. */
const char *tc_mcast_rx(void *arg, tc_peer_t *peer, const char *frame, const tc_frame_hdr_t *hdr,
                        tc_status_t *status_p);
size_t      tc_mcast_item_bytes(const tc_mcast_item_t *item);
tc_status_t tc_mcast_poll_peers(tc_mcast_t *mc, uint32_t only, unsigned *n_p);

/* mcast_ackrec.c: the ack tree's records */
void        tc_mcast_expire(tc_mcast_t *mc, uint64_t now);
/* from: the rank the envelope came from (an origin record: this rank) */
tc_status_t tc_mcast_rec_new(tc_mcast_t *mc, uint32_t origin, uint64_t id, int is_origin,
                             uint32_t from, tc_mcast_rec_t **rec_p);
tc_status_t tc_mcast_rec_children(tc_mcast_t *mc, tc_mcast_rec_t *rec, uint32_t n);
uint32_t    tc_mcast_rec_origin_limit(const tc_mcast_t *mc);
int         tc_mcast_rec_take_ack(tc_mcast_rec_t *rec, uint32_t from);

/* mcast_wait.c: checks, the idle step, the put that waits on credits */
tc_wait_ops_t tc_mcast_wait_ops(tc_mcast_t *mc);
tc_status_t tc_mcast_check(tc_mcast_t *mc, tc_mcast_waiter_t *w, uint64_t moved_ns);
tc_status_t tc_mcast_idle(tc_mcast_t *mc, tc_mcast_waiter_t *w, uint64_t moved_ns);
void        tc_mcast_waiter_done(tc_mcast_t *mc, const tc_mcast_waiter_t *w);
tc_status_t tc_mcast_put(tc_mcast_t *mc, uint32_t dest, uint8_t kind, uint32_t pkg_id,
                         uint16_t element, const void *args, uint32_t args_len,
                         const void *payload, uint32_t payload_len);

/* mcast_ack.c: acks and refusals */
tc_status_t tc_mcast_rec_finish(tc_mcast_t *mc, tc_mcast_rec_t *rec);
void        tc_mcast_refuse(tc_mcast_t *mc, const tc_mcast_item_t *item, const char *what);
tc_status_t tc_mcast_refuse_env(tc_mcast_t *mc, const tc_mcast_item_t *item,
                                const tc_mcast_env_t *env, const char *what);
tc_status_t tc_mcast_run_ack(tc_mcast_t *mc, const tc_mcast_item_t *item);

#endif
