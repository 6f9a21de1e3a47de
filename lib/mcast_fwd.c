/*
 * Multicast forwarding and ack tree over the group's mailboxes (see
 * mcast_fwd.h).
 */
#define _GNU_SOURCE
#include "mcast_fwd.h"
#include "mcast_rec.h"
#include "clock.h"
#include "log.h"
#include "runtime.h"
#include "wait.h"

#include <stdlib.h>
#include <string.h>

#define TC_MCAST_LOG_MAX    8        /* refusals logged, the rest only counted */
#define TC_MCAST_CHECK_NS   20000000 /* liveness checks while waiting: every 20 ms */
/* Bytes of landed frames waiting to run. Past it a rank blocked in a send
 * polls only the ring of the rank it waits on, and a rank that is not
 * blocked runs its queue before it polls again: the rings' credits then
 * hold senders back instead of this queue growing without bound. */
#define TC_MCAST_QUEUE_CAP  (16u << 20)

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
    tc_wait_ops_t         wait_ops;   /* every ring of this rank, as lib/wait sees them */
    tc_mcast_waiter_t    *waiter;     /* the wait whose idle step runs now */
    uint32_t              watch_rank; /* monitor strategies: the ring that last had frames */
    uint64_t              no_watch;   /* ... or this word, which never changes */
    tc_mcast_deliver_fn   deliver;
    tc_mcast_complete_fn  complete;
    void                 *hook_arg;

    tc_mcast_item_t      *head, *tail;
    size_t                queued_bytes;
    size_t                slice_max;  /* longest encoding of any subset of the group */
    uint32_t             *sent_to;    /* the envelopes of the forward running now */
    uint32_t              n_sent;
    tc_mcast_recs_t      *recs;       /* the ack tree's records, by (origin, id) */
    uint64_t              rec_timeout_ns;
    uint64_t              next_id;
    tc_mcast_set_t       *rx_set;    /* the slice of the envelope being run */
    tc_mcast_set_t       *one;       /* flat: a one-node slice */
    uint8_t              *pack_buf;  /* the origin's packed payload */
    size_t                pack_cap;
    uint64_t              last_rx_ns; /* when something last arrived (timeouts) */
    tc_mcast_stats_t      stats;
};

/* ------------------------------------------------------------- receiving */

/* Inside tc_peer_progress: copy the frame out (its slot goes back at once)
 * and queue it. Nothing here sends. */
static void tc_mcast_rx(void *arg, tc_peer_t *peer, const tc_frame_hdr_t *hdr, const char *frame)
{
    tc_mcast_t *mc = arg;
    size_t args_room = TC_ALIGN_UP((size_t)hdr->args_len, 8);
    tc_mcast_item_t *item;

    item = malloc(sizeof(*item) + args_room + hdr->payload_len);
    if (item == NULL) {
        if (mc->stats.rejected++ < TC_MCAST_LOG_MAX) {
            tc_error("mcast: no memory to queue a %u-byte frame from rank %u; dropped",
                     hdr->frame_size, peer->peer_rank);
        }
        return;
    }
    item->next        = NULL;
    item->kind        = hdr->kind;
    item->from        = peer->peer_rank;
    item->pkg_id      = hdr->pkg_id;
    item->element     = hdr->element;
    item->args_len    = hdr->args_len;
    item->payload_len = hdr->payload_len;
    memcpy(item->data, frame + TC_FRAME_HDR_SIZE, hdr->args_len); /* offsets validated */
    memcpy(item->data + args_room, frame + hdr->payload_off, hdr->payload_len);
    if (mc->tail != NULL) {
        mc->tail->next = item;
    } else {
        mc->head = item;
    }
    mc->tail = item;
    mc->stats.queued++;
    mc->queued_bytes += sizeof(*item) + args_room + hdr->payload_len;
}

static size_t tc_mcast_item_bytes(const tc_mcast_item_t *item)
{
    return sizeof(*item) + TC_ALIGN_UP((size_t)item->args_len, 8) + item->payload_len;
}

/* Credits go back to a sender as a bare put, which a sender blocked in
 * its worker's fd cannot see land: when it waits on events, ring it, as
 * for a frame. Unicast senders never block on the fd for credits (they
 * spin), multicast ones do (tc_mcast_put), so this is multicast's own. */
static tc_status_t tc_mcast_credits_rung(tc_peer_t *peer, uint32_t reported_before)
{
    if ((peer->rx_reported == reported_before) || !peer->doorbell) {
        return TC_OK;
    }
    return tc_peer_ring(peer);
}

/* Take what landed in every ring (only: one rank's, or UINT32_MAX for all).
 * With the queue past its cap, only the named ring is taken (see
 * TC_MCAST_QUEUE_CAP); with no ring named, none. */
static tc_status_t tc_mcast_poll_peers(tc_mcast_t *mc, uint32_t only, unsigned *n_p)
{
    int full = (mc->queued_bytes >= TC_MCAST_QUEUE_CAP);
    unsigned total = 0, n;
    tc_status_t status;
    uint32_t r, reported;

    if (full) {
        mc->stats.held++;
    }
    for (r = 0; r < mc->size; ++r) {
        tc_peer_t *peer = tc_group_peer(mc->group, r);

        if ((peer == NULL) || (full && (r != only))) {
            continue;
        }
        n        = 0;
        reported = peer->rx_reported;
        status   = tc_peer_progress(peer, 0, &n);
        if (status == TC_OK) {
            status = tc_mcast_credits_rung(peer, reported);
        }
        if (status != TC_OK) {
            tc_error("mcast: rank %u: rank %u failed (%s)", mc->rank, r, tc_status_str(status));
            return status;
        }
        if (n > 0) {
            mc->watch_rank = r;
        }
        total += n;
    }
    if (total > 0) {
        mc->last_rx_ns = tc_clock_mono_ns();
    }
    *n_p = total;
    return TC_OK;
}

/* --------------------------------------------------------------- waiting */

/* What every ring saw: printed when a wait gives up. */
static void tc_mcast_dump(const tc_mcast_t *mc)
{
    tc_peer_stats_t ps;
    uint32_t r;

    for (r = 0; r < mc->size; ++r) {
        tc_peer_t *peer = tc_group_peer(mc->group, r);

        if (peer != NULL) {
            tc_peer_stats(peer, &ps);
            tc_error("mcast: rank %u, ring with rank %u: %llu frames out, %llu jams in, %llu "
                     "refused%s%s; %llu queued here", mc->rank, r,
                     (unsigned long long)ps.tx_frames, (unsigned long long)ps.rx_frames,
                     (unsigned long long)ps.rx_rejected, ps.rx_rejected ? ": " : "",
                     ps.rx_rejected ? tc_peer_last_reject(peer) : "",
                     (unsigned long long)mc->stats.queued);
        }
    }
}

static void tc_mcast_expire(tc_mcast_t *mc, uint64_t now);

/* Every TC_MCAST_CHECK_NS, whatever else is going on: every rank lives,
 * what the waiter waits on moved (moved_ns) within the timeout, and relay
 * records past the record timeout go. */
static tc_status_t tc_mcast_check(tc_mcast_t *mc, tc_mcast_waiter_t *w, uint64_t moved_ns)
{
    uint64_t now = tc_clock_mono_ns();

    if (w->next_check == 0) {
        w->next_check = now + TC_MCAST_CHECK_NS;
    }
    if (now < w->next_check) {
        return TC_OK;
    }
    w->next_check = now + TC_MCAST_CHECK_NS;
    ucp_worker_progress(mc->ctx->worker); /* delivers endpoint errors */
    if (tc_group_check(mc->group) != TC_OK) {
        tc_error("mcast: rank %u gives up waiting for %s", mc->rank, w->what);
        tc_mcast_dump(mc);
        return TC_ERR_PEER_FAILED;
    }
    if (now - moved_ns > 1000000ull * (uint64_t)mc->ctx->params.timeout_ms) {
        tc_error("mcast: rank %u: nothing moved for %d ms while waiting for %s "
                 "(a rank hung or stopped?)", mc->rank, mc->ctx->params.timeout_ms, w->what);
        tc_mcast_dump(mc);
        return TC_ERR_TIMEOUT;
    }
    tc_mcast_expire(mc, now);
    return TC_OK;
}

/* Every ring of this rank and the worker, as lib/wait's idle step sees
 * them (mc->waiter is the wait that takes the step). */
static volatile uint64_t *tc_mcast_wait_watch(void *arg, uint64_t *old_p)
{
    tc_mcast_t *mc = arg;
    const tc_mcast_waiter_t *w = mc->waiter;
    tc_peer_t *peer;

    if ((w != NULL) && (w->credits_from != NULL)) {
        *old_p = w->consumed; /* a blocked send: its credits */
        return &w->credits_from->ctrl->consumed;
    }
    /* one word only: the ring that had frames last; the strategies'
     * deadlines bound what the others wait */
    peer = tc_group_peer(mc->group, mc->watch_rank);
    if (peer == NULL) {
        *old_p = mc->no_watch;
        return &mc->no_watch;
    }
    return peer->wait_ops.watch(peer->wait_ops.arg, old_p);
}

/* After arming, before blocking: a frame that landed, or credits a
 * blocked send waits for that came back, before the arm would otherwise
 * sleep until the next doorbell. */
static int tc_mcast_wait_ready(void *arg)
{
    tc_mcast_t *mc = arg;
    const tc_mcast_waiter_t *w = mc->waiter;
    unsigned n = 0;

    if ((w != NULL) && (w->credits_from != NULL) &&
        (w->credits_from->ctrl->consumed != w->consumed)) {
        return 1;
    }
    if (tc_mcast_poll_peers(mc, (w != NULL) ? w->only : UINT32_MAX, &n) != TC_OK) {
        return 1; /* the caller's next poll reports it */
    }
    return n > 0;
}

static tc_status_t tc_mcast_wait_arm(void *arg)
{
    const tc_mcast_t *mc = arg;

    return (ucp_worker_arm(mc->ctx->worker) == UCS_OK) ? TC_OK : TC_ERR_NO_RESOURCE;
}

static void tc_mcast_wait_progress(void *arg)
{
    const tc_mcast_t *mc = arg;

    ucp_worker_progress(mc->ctx->worker);
}

/* Nothing to do: check (above; moved_ns is what the caller counts as
 * progress), then one idle step of the configured strategy (lib/wait). */
static tc_status_t tc_mcast_idle(tc_mcast_t *mc, tc_mcast_waiter_t *w, uint64_t moved_ns)
{
    tc_status_t status;

    status = tc_mcast_check(mc, w, moved_ns);
    if (status != TC_OK) {
        return status;
    }
    if (mc->wait == TC_WAIT_POLL) {
        ucp_worker_progress(mc->ctx->worker);
        return TC_OK;
    }
    mc->waiter = w;
    (void)tc_wait_idle(mc->wait, mc->ctx->params.spin_ns, &mc->wait_ops, &w->ws);
    mc->waiter = NULL;
    return TC_OK;
}

/* A wait ends: its blocking waits into the stats. */
static void tc_mcast_waiter_done(tc_mcast_t *mc, const tc_mcast_waiter_t *w)
{
    mc->stats.wakeups += w->ws.wakeups;
}

/* Put one frame to rank dest. A full ring does not block this rank: every
 * mailbox keeps being polled (what lands is queued), so credits flow in
 * every direction while we wait for ours. */
static tc_status_t tc_mcast_put(tc_mcast_t *mc, uint32_t dest, uint8_t kind, uint32_t pkg_id,
                                uint16_t element, const void *args, uint32_t args_len,
                                const void *payload, uint32_t payload_len)
{
    tc_peer_t *peer = tc_group_peer(mc->group, dest);
    tc_mcast_waiter_t w = {"send credits", 0, {0, 0}, dest, NULL, 0};
    uint64_t moved_ns = 0;
    tc_status_t status;
    char what[64];
    unsigned n;

    if (peer == NULL) {
        tc_error("mcast: rank %u has no peer for rank %u", mc->rank, dest);
        return TC_ERR_INVALID_PARAM;
    }
    for (;;) {
        status = tc_peer_send_kind(peer, kind, pkg_id, element, args, args_len, payload,
                                   payload_len, 1);
        if (status != TC_ERR_NO_RESOURCE) {
            if ((status == TC_OK) && (w.credits_from != NULL)) {
                mc->last_rx_ns = tc_clock_mono_ns(); /* we were blocked: it moved */
            }
            if (status != TC_OK) {
                tc_error("mcast: rank %u: sending to rank %u failed (%s)", mc->rank, dest,
                         tc_status_str(status));
            }
            tc_mcast_waiter_done(mc, &w);
            return status;
        }
        if (w.credits_from == NULL) {
            moved_ns = tc_clock_mono_ns(); /* the timeout runs from here */
            mc->stats.blocked++;
            snprintf(what, sizeof(what), "rank %u to take a frame", dest);
            w.what         = what;
            w.credits_from = peer;
            w.consumed     = peer->ctrl->consumed;
        }
        /* only dest's credits coming back count as moving: other ranks'
         * traffic must not hide a dest that hung or stopped */
        if (peer->ctrl->consumed != w.consumed) {
            w.consumed          = peer->ctrl->consumed;
            moved_ns            = tc_clock_mono_ns();
            w.ws.spin_start_ns  = 0;
            continue;
        }
        status = tc_mcast_poll_peers(mc, dest, &n);
        if (status == TC_OK) {
            status = tc_mcast_check(mc, &w, moved_ns);
        }
        if ((status == TC_OK) && (n == 0)) {
            status = tc_mcast_idle(mc, &w, moved_ns);
        } else {
            w.ws.spin_start_ns = 0;
        }
        if (status != TC_OK) {
            tc_mcast_waiter_done(mc, &w);
            return status;
        }
    }
}

/* -------------------------------------------------------------- forwarding */

/* Envelope header for a child, then its encoded slice: one buffer. */
static tc_status_t tc_mcast_send_env(tc_mcast_t *mc, const tc_mcast_env_t *parent,
                                     const tc_mcast_set_t *slice, uint32_t dest,
                                     const tc_mcast_msg_t *msg, uint64_t *bytes_p)
{
    tc_mcast_env_t env = *parent;
    uint8_t stack[256], *buf = stack;
    tc_mcast_kind_t kind;
    size_t size, h, len;
    tc_status_t status;

    env.hops = parent->hops + 1;
    if (!tc_mcast_env_hops_fit(env.hops, tc_mcast_set_count(slice), mc->size)) {
        /* the child would refuse it (and never ack): not sent, at the
         * origin or at any relay */
        if (mc->stats.too_deep++ < TC_MCAST_LOG_MAX) {
            tc_error("mcast: rank %u: an envelope to rank %u at hop %u with %llu targets "
                     "cannot be: hops and targets exceed the group's %u ranks", mc->rank, dest,
                     env.hops, (unsigned long long)tc_mcast_set_count(slice), mc->size);
        }
        return TC_ERR_PROTOCOL;
    }
    status = tc_mcast_encode_choose(slice, &kind, &size);
    if (status != TC_OK) {
        return status;
    }
    if (size + TC_MCAST_ENV_HDR_MAX > sizeof(stack)) {
        buf = malloc(size + TC_MCAST_ENV_HDR_MAX);
        if (buf == NULL) {
            return TC_ERR_NO_MEMORY;
        }
    }
    h      = tc_mcast_env_put_hdr(&env, buf);
    status = tc_mcast_encode(slice, buf + h, size, &len);
    if (status == TC_OK) {
        status = tc_mcast_put(mc, dest, TC_KIND_MCAST, msg->pkg_id, msg->element, buf,
                              (uint32_t)(h + len), msg->payload, msg->len);
    }
    if (status == TC_OK) {
        mc->stats.envelopes++;
        *bytes_p += len;
        if (mc->n_sent < mc->size) {
            mc->sent_to[mc->n_sent++] = dest;
        }
    }
    if (buf != stack) {
        free(buf);
    }
    return status;
}

static tc_status_t tc_mcast_tree_forward(tc_mcast_t *mc, const tc_mcast_env_t *env,
                                         const tc_mcast_set_t *set, const tc_mcast_msg_t *msg,
                                         int relay, uint32_t *n_children_p, uint64_t *bytes_p)
{
    tc_mcast_slice_t *slices = NULL;
    uint32_t n_slices = 0, i;
    tc_status_t status;

    status = tc_mcast_forward_plan(set, mc->rank, env->radix,
                                   relay ? TC_MCAST_SELF_REQUIRED : 0, &slices, &n_slices);
    if (status != TC_OK) {
        return status;
    }
    *bytes_p = 0;
    for (i = 0; (i < n_slices) && (status == TC_OK); ++i) {
        status = tc_mcast_send_env(mc, env, slices[i].set, slices[i].relay, msg, bytes_p);
    }
    tc_mcast_slices_free(slices, n_slices);
    if (status == TC_OK) {
        *n_children_p = n_slices;
    }
    return status;
}

/* Naive: the origin sends every target its own one-node envelope. */
static tc_status_t tc_mcast_flat_forward(tc_mcast_t *mc, const tc_mcast_env_t *env,
                                         const tc_mcast_set_t *set, const tc_mcast_msg_t *msg,
                                         int relay, uint32_t *n_children_p, uint64_t *bytes_p)
{
    const tc_mcast_run_t *runs;
    tc_status_t status = TC_OK;
    uint32_t node, n = 0;
    size_t n_runs, i;

    *bytes_p = 0;
    if (relay) {
        /* a one-node slice: only ourselves */
        if (!tc_mcast_set_contains(set, mc->rank) || (tc_mcast_set_count(set) != 1)) {
            return tc_mcast_tree_forward(mc, env, set, msg, relay, n_children_p, bytes_p);
        }
        *n_children_p = 0;
        return TC_OK;
    }
    runs = tc_mcast_set_runs(set, &n_runs);
    for (i = 0; (i < n_runs) && (status == TC_OK); ++i) {
        for (node = runs[i].start; (node < runs[i].end) && (status == TC_OK); ++node) {
            if (node == mc->rank) {
                continue;
            }
            tc_mcast_set_clear(mc->one);
            status = tc_mcast_set_add(mc->one, node);
            if (status == TC_OK) {
                status = tc_mcast_send_env(mc, env, mc->one, node, msg, bytes_p);
            }
            n += (status == TC_OK);
        }
    }
    if (status == TC_OK) {
        *n_children_p = n;
    }
    return status;
}

const tc_mcast_ops_t tc_mcast_ops_tree = {"tree", tc_mcast_tree_forward};
const tc_mcast_ops_t tc_mcast_ops_flat = {"flat", tc_mcast_flat_forward};

/* ------------------------------------------------------------- ack tree */

static void tc_mcast_drop(tc_mcast_t *mc, tc_mcast_rec_t *rec, const char *why)
{
    if (mc->stats.expired + mc->stats.evicted < TC_MCAST_LOG_MAX) {
        tc_warn("mcast: rank %u freed the record of multicast %llu from rank %u %s, %u of "
                "its acks missing", mc->rank, (unsigned long long)rec->agg.id,
                rec->agg.origin, why, rec->outstanding);
    }
    tc_mcast_recs_free(mc->recs, rec);
}

/* Relay records whose acks are later than the record timeout are not
 * coming: free them (checked while waiting and whenever a record is made). */
static void tc_mcast_expire(tc_mcast_t *mc, uint64_t now)
{
    tc_mcast_rec_t *rec;

    while (((rec = tc_mcast_recs_oldest(mc->recs)) != NULL) && (now > rec->born_ns) &&
           (now - rec->born_ns > mc->rec_timeout_ns)) {
        tc_mcast_drop(mc, rec, "after the record timeout");
        mc->stats.expired++;
    }
}

/* A record for (origin, id); at the maximum the oldest relay record makes
 * room. TC_ERR_NO_RESOURCE when only origin records are held. */
static tc_status_t tc_mcast_rec_new(tc_mcast_t *mc, uint32_t origin, uint64_t id, int is_origin,
                                    tc_mcast_rec_t **rec_p)
{
    uint64_t now = tc_clock_mono_ns();
    tc_mcast_rec_t *oldest;
    tc_status_t status;

    tc_mcast_expire(mc, now);
    status = tc_mcast_recs_add(mc->recs, origin, id, is_origin, now, rec_p);
    if ((status == TC_ERR_NO_RESOURCE) && ((oldest = tc_mcast_recs_oldest(mc->recs)) != NULL)) {
        tc_mcast_drop(mc, oldest, "to make room");
        mc->stats.evicted++;
        status = tc_mcast_recs_add(mc->recs, origin, id, is_origin, now, rec_p);
    }
    return status;
}

/* Keep who the forward just sent envelopes to: only they may ack, once
 * each. An ops table that sends its own way leaves the list empty, and
 * then any rank's ack counts (as before). */
static tc_status_t tc_mcast_rec_children(tc_mcast_t *mc, tc_mcast_rec_t *rec, uint32_t n)
{
    if ((n == 0) || (mc->n_sent != n)) {
        return TC_OK;
    }
    rec->children = malloc(n * sizeof(*rec->children));
    if (rec->children == NULL) {
        return TC_ERR_NO_MEMORY;
    }
    memcpy(rec->children, mc->sent_to, n * sizeof(*rec->children));
    rec->n_children = n;
    return TC_OK;
}

/* Is this ack from a child the record still waits for? Crosses it off. */
static int tc_mcast_rec_take_ack(tc_mcast_rec_t *rec, uint32_t from)
{
    uint32_t i;

    if (rec->children == NULL) {
        return 1;
    }
    for (i = 0; i < rec->n_children; ++i) {
        if (rec->children[i] == from) {
            rec->children[i] = UINT32_MAX;
            return 1;
        }
    }
    return 0;
}

static tc_status_t tc_mcast_send_ack(tc_mcast_t *mc, uint32_t to, const tc_mcast_ack_t *ack)
{
    uint8_t buf[TC_MCAST_ACK_MAX];
    tc_status_t status;

    status = tc_mcast_put(mc, to, TC_KIND_MCAST_ACK, 0, 0, buf,
                          (uint32_t)tc_mcast_ack_put(ack, buf), NULL, 0);
    if (status == TC_OK) {
        mc->stats.acks++;
    }
    return status;
}

/* Everything below this record is in: ack the parent (or complete, at the
 * origin) and free the record. */
static tc_status_t tc_mcast_rec_finish(tc_mcast_t *mc, tc_mcast_rec_t *rec)
{
    tc_mcast_done_t done;
    tc_mcast_ack_t agg = rec->agg;
    uint32_t parent = rec->parent;
    int is_origin = rec->is_origin;
    uint32_t origin_sends = rec->origin_sends;

    tc_mcast_recs_free(mc->recs, rec); /* a hook below may start the next multicast */
    if (!is_origin) {
        return tc_mcast_send_ack(mc, parent, &agg);
    }
    done.id           = agg.id;
    done.delivered    = agg.delivered;
    done.depth        = agg.depth;
    done.edges        = agg.edges;
    done.bytes        = agg.bytes;
    done.origin_sends = origin_sends;
    mc->stats.completions++;
    if (mc->complete != NULL) {
        mc->complete(mc->hook_arg, &done);
    }
    return TC_OK;
}

static void tc_mcast_refuse(tc_mcast_t *mc, const tc_mcast_item_t *item, const char *what)
{
    if (mc->stats.rejected++ < TC_MCAST_LOG_MAX) {
        tc_warn("mcast: rank %u refused a %s from rank %u: %s", mc->rank,
                tc_frame_kind_str(item->kind), item->from, what);
    }
}

/* An envelope refused after its header was read: if it wants acks, tell
 * its sender nothing ran here, so the sender's record need not wait for
 * this rank until it times out. */
static tc_status_t tc_mcast_refuse_env(tc_mcast_t *mc, const tc_mcast_item_t *item,
                                       const tc_mcast_env_t *env, const char *what)
{
    tc_mcast_ack_t ack = {env->origin, env->id, 0, env->hops, 0, 0};

    tc_mcast_refuse(mc, item, what);
    return (env->flags & TC_MCAST_ENV_ACK) ? tc_mcast_send_ack(mc, item->from, &ack) : TC_OK;
}

static tc_status_t tc_mcast_run_ack(tc_mcast_t *mc, const tc_mcast_item_t *item)
{
    tc_mcast_decode_status_t ds;
    tc_mcast_rec_t *rec;
    tc_mcast_ack_t ack;

    ds = tc_mcast_ack_parse(item->data, item->args_len, mc->size, &ack);
    if (ds != TC_MCAST_DECODE_OK) {
        tc_mcast_refuse(mc, item, tc_mcast_decode_status_str(ds));
        return TC_OK;
    }
    rec = tc_mcast_recs_find(mc->recs, ack.origin, ack.id);
    if ((rec == NULL) || (rec->outstanding == 0)) {
        tc_mcast_refuse(mc, item, "no multicast waits for it");
        return TC_OK;
    }
    if (!tc_mcast_rec_take_ack(rec, item->from)) {
        tc_mcast_refuse(mc, item, "it comes from no child this multicast waits for");
        return TC_OK;
    }
    rec->agg.delivered += ack.delivered;
    rec->agg.edges     += ack.edges;
    rec->agg.bytes     += ack.bytes;
    if (ack.depth > rec->agg.depth) {
        rec->agg.depth = ack.depth;
    }
    if (--rec->outstanding > 0) {
        return TC_OK;
    }
    return tc_mcast_rec_finish(mc, rec);
}

/* The jam, with the origin as its sender. */
static int tc_mcast_deliver(tc_mcast_t *mc, const tc_mcast_msg_t *msg, uint32_t origin,
                            int64_t *ret_p)
{
    const tc_ctx_pkg_t *entry = tc_context_find_pkg(mc->ctx, msg->pkg_id);
    const tc_pkg_element_t *elem;
    tc_jam_ctx_t jctx;

    if ((entry == NULL) || (msg->element >= entry->pkg->desc->n_elements)) {
        return -1;
    }
    elem = &entry->pkg->desc->elements[msg->element];
    if ((elem->kind != TC_ELEM_JAM) || (elem->run == NULL)) {
        return -1;
    }
    jctx.state    = entry->state;
    jctx.origin   = origin;
    jctx.seq      = 0;
    jctx.args     = NULL;
    jctx.args_len = 0;
    *ret_p = elem->run(&jctx, (void *)msg->payload, msg->len);
    return 0;
}

/* The delivery hook: what this rank saw. */
static void tc_mcast_report(tc_mcast_t *mc, const tc_mcast_item_t *item, const tc_mcast_env_t *env,
                            uint32_t n_children, int64_t ret)
{
    /* what the slice called for, planned again independently of the
     * sends made: the hook checks every one went out first */
    tc_mcast_slice_t *slices = NULL;
    tc_mcast_info_t info;
    uint32_t planned = 0;

    if (tc_mcast_forward_plan(mc->rx_set, mc->rank, env->radix, TC_MCAST_SELF_REQUIRED, &slices,
                              &planned) == TC_OK) {
        tc_mcast_slices_free(slices, planned);
    }
    info.planned  = (mc->ops == &tc_mcast_ops_tree) ? planned : 0;
    info.origin   = env->origin;
    info.from     = item->from;
    info.hops     = env->hops;
    info.children = n_children;
    info.id       = env->id;
    info.ret      = ret;
    mc->deliver(mc->hook_arg, &info);
}

static tc_status_t tc_mcast_run_env(tc_mcast_t *mc, tc_mcast_item_t *item)
{
    tc_mcast_msg_t msg = {item->pkg_id, item->element,
                          item->data + TC_ALIGN_UP((size_t)item->args_len, 8),
                          item->payload_len};
    tc_mcast_decode_status_t ds;
    tc_mcast_env_t env;
    tc_mcast_rec_t *rec = NULL;
    tc_status_t status;
    uint32_t n_children = 0;
    uint64_t bytes = 0;
    int64_t ret = 0;
    int ran = 0;
    char why[128];

    ds = tc_mcast_env_parse(item->data, item->args_len, mc->rx_set, &env);
    if (ds != TC_MCAST_DECODE_OK) {
        tc_mcast_refuse(mc, item, tc_mcast_decode_status_str(ds));
        return TC_OK; /* no trustworthy id: nothing can be acked */
    }
    if (env.origin == mc->rank) {
        /* the origin removes itself: its own multicast never comes back */
        tc_mcast_refuse(mc, item, "it names this rank as its origin");
        return TC_OK;
    }
    if (!tc_mcast_set_contains(mc->rx_set, mc->rank)) {
        return tc_mcast_refuse_env(mc, item, &env, "this rank is not in the envelope's slice");
    }
    if (!tc_mcast_env_hops_fit(env.hops, tc_mcast_set_count(mc->rx_set), mc->size)) {
        /* refused here, before its children get envelopes they would
         * refuse without acking */
        mc->stats.too_deep++;
        snprintf(why, sizeof(why), "hop count %u with %llu targets left exceeds the group's %u "
                 "ranks", env.hops, (unsigned long long)tc_mcast_set_count(mc->rx_set), mc->size);
        return tc_mcast_refuse_env(mc, item, &env, why);
    }
    if (env.flags & TC_MCAST_ENV_ACK) {
        if (tc_mcast_recs_find(mc->recs, env.origin, env.id) != NULL) {
            /* not acked: the sender's record may be waiting for the real one */
            tc_mcast_refuse(mc, item, "a multicast with its origin and id is under way here");
            return TC_OK;
        }
        /* made before forwarding: acks that land meanwhile are only queued */
        status = tc_mcast_rec_new(mc, env.origin, env.id, 0, &rec);
        if (status == TC_ERR_NO_RESOURCE) {
            return tc_mcast_refuse_env(mc, item, &env, "no room for its ack-tree record");
        }
        if (status != TC_OK) {
            return status;
        }
    }
    /* forward first: a jam that stops this rank's progress must not cut
     * its subtree off */
    mc->n_sent = 0;
    status     = mc->ops->forward(mc, &env, mc->rx_set, &msg, 1, &n_children, &bytes);
    if (rec != NULL) {
        /* a send blocked past the record timeout may have freed it */
        rec = tc_mcast_recs_find(mc->recs, env.origin, env.id);
    }
    if ((status == TC_OK) && (rec != NULL)) {
        status = tc_mcast_rec_children(mc, rec, n_children);
    }
    if (status != TC_OK) {
        if (rec != NULL) {
            tc_mcast_recs_free(mc->recs, rec); /* acks from those already sent are refused */
        }
        return (status == TC_ERR_PROTOCOL) ?
               tc_mcast_refuse_env(mc, item, &env, "its slice cannot be forwarded from here") :
               status;
    }
    if (rec != NULL) {
        rec->parent        = item->from;
        rec->outstanding   = n_children + 1; /* + this rank's own delivery, below */
        rec->agg.depth     = env.hops;
        rec->agg.edges     = n_children;
        rec->agg.bytes     = bytes;
    }
    if (tc_mcast_deliver(mc, &msg, env.origin, &ret) != 0) {
        tc_mcast_refuse(mc, item, "it names no jam loaded here");
    } else {
        ran = 1;
        mc->stats.delivered++;
        if (mc->deliver != NULL) {
            tc_mcast_report(mc, item, &env, n_children, ret);
        }
    }
    if (!(env.flags & TC_MCAST_ENV_ACK)) {
        return TC_OK; /* fire-and-forget: no state */
    }
    /* the jam or its hook may have run the queue: look the record up again */
    rec = tc_mcast_recs_find(mc->recs, env.origin, env.id);
    if (rec == NULL) {
        return TC_OK; /* freed to make room meanwhile */
    }
    rec->agg.delivered += (uint64_t)ran; /* a refused envelope counts as not delivered */
    return (--rec->outstanding == 0) ? tc_mcast_rec_finish(mc, rec) : TC_OK;
}

tc_status_t tc_mcast_progress(tc_mcast_t *mc, unsigned *n_p)
{
    tc_mcast_item_t *item;
    tc_status_t status;
    unsigned n = 0, polled;

    status = tc_mcast_poll_peers(mc, UINT32_MAX, &polled); /* none while the queue is full */
    while ((status == TC_OK) && (mc->head != NULL)) {
        item     = mc->head;
        mc->head = item->next;
        if (mc->head == NULL) {
            mc->tail = NULL;
        }
        mc->stats.queued--;
        mc->queued_bytes -= tc_mcast_item_bytes(item);
        status = (item->kind == TC_KIND_MCAST) ? tc_mcast_run_env(mc, item) :
                                                 tc_mcast_run_ack(mc, item);
        free(item);
        ++n;
    }
    if (n_p != NULL) {
        *n_p = n + polled;
    }
    return status;
}

/* ------------------------------------------------------------------ origin */

/* A relay re-encodes its children's slices, and a child's slice can encode
 * longer than the slice the relay got: the origin admits a payload only if
 * an envelope with the longest slice any subset of the group can encode to
 * (its bitmap over all N ranks) still fits a slot, so no relay fails to
 * forward what the origin sent. */
static tc_status_t tc_mcast_check_fits(tc_mcast_t *mc, uint32_t payload_len)
{
    tc_frame_layout_t layout = {(uint32_t)(TC_MCAST_ENV_HDR_MAX + mc->slice_max), 0, 0,
                                payload_len};
    tc_frame_offsets_t off;

    if (tc_frame_layout(&layout, mc->ctx->params.slot_size, &off) != TC_OK) {
        tc_error("mcast: a %u-byte payload leaves no room in a %u-byte slot for a relay's "
                 "envelope (up to %zu bytes of targets for %u ranks)", payload_len,
                 mc->ctx->params.slot_size, mc->slice_max, mc->size);
        return TC_ERR_OUT_OF_RANGE;
    }
    return TC_OK;
}

tc_status_t tc_mcast_send(tc_mcast_t *mc, const tc_jam_t *jam, const void *src, size_t len,
                          const tc_mcast_set_t *targets, unsigned flags, uint64_t *id_p)
{
    tc_mcast_env_t env = {0, mc->rank, mc->radix, 0, 0};
    tc_mcast_msg_t msg;
    tc_mcast_rec_t *rec = NULL;
    tc_status_t status;
    uint64_t remote, bytes = 0;
    uint32_t n_children = 0, only;
    int64_t packed;

    if ((targets == NULL) || (tc_mcast_set_num_nodes(targets) != mc->size)) {
        tc_error("mcast: the target set must span the group's %u ranks", mc->size);
        return TC_ERR_INVALID_PARAM;
    }
    packed = jam->elem->pack(mc->pack_buf, mc->pack_cap, src, len);
    if (packed < 0) {
        tc_error("mcast: jam '%s' refused to pack %zu bytes", jam->elem->name, len);
        return TC_ERR_OUT_OF_RANGE;
    }
    status = tc_mcast_check_fits(mc, (uint32_t)packed);
    if (status != TC_OK) {
        return status;
    }
    msg.pkg_id  = jam->pkg_id;
    msg.element = jam->element;
    msg.payload = mc->pack_buf;
    msg.len     = (uint32_t)packed;
    remote      = tc_mcast_set_count(targets) -
                  (uint64_t)tc_mcast_set_contains(targets, mc->rank);

    /* one remote target, no completion: a plain jam frame, no envelope */
    if ((remote == 1) && !(flags & TC_MCAST_F_ACK)) {
        const tc_mcast_run_t *runs;
        size_t n_runs, i;
        uint32_t node;

        runs = tc_mcast_set_runs(targets, &n_runs);
        only = UINT32_MAX;
        for (i = 0; (i < n_runs) && (only == UINT32_MAX); ++i) {
            for (node = runs[i].start; node < runs[i].end; ++node) {
                if (node != mc->rank) {
                    only = node;
                    break;
                }
            }
        }
        status = tc_mcast_put(mc, only, TC_KIND_LOCAL, msg.pkg_id, msg.element, NULL, 0,
                              msg.payload, msg.len);
        mc->stats.unicasts += (status == TC_OK);
        return status;
    }

    if (flags & TC_MCAST_F_ACK) {
        env.flags = TC_MCAST_ENV_ACK;
        env.id    = mc->next_id + 1;
        status    = tc_mcast_rec_new(mc, mc->rank, env.id, 1, &rec);
        if (status != TC_OK) {
            if (status == TC_ERR_NO_RESOURCE) {
                tc_error("mcast: rank %u holds %zu multicasts awaiting acks, the most it may: "
                         "wait for some first", mc->rank, tc_mcast_recs_count(mc->recs));
            }
            return status;
        }
        mc->next_id = env.id;
        rec->parent = mc->rank;
    }
    /* acks that land while we send are only queued: the record is
     * complete before any of them runs */
    mc->n_sent = 0;
    status     = mc->ops->forward(mc, &env, targets, &msg, 0, &n_children, &bytes);
    if (status != TC_OK) {
        if (rec != NULL) {
            tc_mcast_recs_free(mc->recs, rec); /* its acks, if any come, are refused */
        }
        return status;
    }
    if (rec != NULL) {
        status = tc_mcast_rec_children(mc, rec, n_children);
        if (status != TC_OK) {
            tc_mcast_recs_free(mc->recs, rec);
            return status;
        }
        rec->outstanding  = n_children;
        rec->origin_sends = n_children;
        rec->agg.edges    = n_children;
        rec->agg.bytes    = bytes;
        if (n_children == 0) {
            status = tc_mcast_rec_finish(mc, rec);
        }
        if (id_p != NULL) {
            *id_p = env.id;
        }
    }
    return status;
}

typedef struct tc_mcast_id_wait {
    tc_mcast_t *mc;
    uint64_t    id;
    unsigned    calls;
} tc_mcast_id_wait_t;

/* Completed, or (looked at now and then: the clock is not free) older than
 * the record timeout. */
static int tc_mcast_id_done(void *arg)
{
    tc_mcast_id_wait_t *a = arg;
    const tc_mcast_rec_t *rec = tc_mcast_recs_find(a->mc->recs, a->mc->rank, a->id);

    if (rec == NULL) {
        return 1;
    }
    if ((++a->calls % 1024) != 0) {
        return 0;
    }
    return tc_clock_mono_ns() - rec->born_ns > a->mc->rec_timeout_ns;
}

tc_status_t tc_mcast_wait(tc_mcast_t *mc, uint64_t id)
{
    tc_mcast_id_wait_t a = {mc, id, 0};
    tc_mcast_rec_t *rec;
    tc_status_t status;

    status = tc_mcast_wait_until(mc, tc_mcast_id_done, &a, "multicast acks");
    if (status != TC_OK) {
        return status;
    }
    rec = tc_mcast_recs_find(mc->recs, mc->rank, id);
    if (rec == NULL) {
        return TC_OK;
    }
    tc_error("mcast: rank %u: multicast %llu still misses %u acks after %llu ms; given up",
             mc->rank, (unsigned long long)id, rec->outstanding,
             (unsigned long long)(mc->rec_timeout_ns / 1000000));
    tc_mcast_recs_free(mc->recs, rec);
    mc->stats.expired++;
    return TC_ERR_TIMEOUT;
}

tc_status_t tc_mcast_wait_until(tc_mcast_t *mc, int (*done)(void *arg), void *arg,
                                const char *what)
{
    tc_mcast_waiter_t w = {what, 0, {0, 0}, UINT32_MAX, NULL, 0};
    tc_status_t status = TC_OK;
    unsigned n;

    mc->last_rx_ns = tc_clock_mono_ns();
    while (!done(arg)) {
        status = tc_mcast_progress(mc, &n);
        if (status != TC_OK) {
            break;
        }
        if (n > 0) {
            w.ws.spin_start_ns = 0;
            status = tc_mcast_check(mc, &w, mc->last_rx_ns); /* dead ranks, even amid traffic */
            if (status != TC_OK) {
                break;
            }
            continue;
        }
        status = tc_mcast_idle(mc, &w, mc->last_rx_ns);
        if (status != TC_OK) {
            break;
        }
    }
    tc_mcast_waiter_done(mc, &w);
    return status;
}

tc_status_t tc_mcast_flush(tc_mcast_t *mc)
{
    tc_status_t status = TC_OK;
    uint32_t r;

    for (r = 0; (r < mc->size) && (status == TC_OK); ++r) {
        tc_peer_t *peer = tc_group_peer(mc->group, r);

        if (peer != NULL) {
            uint32_t reported = peer->rx_reported;

            status = tc_peer_flush(peer);
            if (status == TC_OK) {
                status = tc_mcast_credits_rung(peer, reported);
            }
        }
    }
    return status;
}

/* ------------------------------------------------------------ lifecycle */

tc_status_t tc_mcast_create(tc_group_t *group, const tc_mcast_ops_t *ops, uint32_t radix,
                            tc_wait_t wait, tc_mcast_t **mc_p)
{
    tc_context_t *ctx = tc_group_context(group);
    tc_status_t status;
    tc_mcast_t *mc;
    uint32_t r;

    if ((ops == NULL) || (radix == 0) || (ctx->mcast_rx != NULL)) {
        tc_error("mcast: needs ops, a radix >= 1 and a context without multicast yet");
        return TC_ERR_INVALID_PARAM;
    }
    mc = calloc(1, sizeof(*mc));
    if (mc == NULL) {
        return TC_ERR_NO_MEMORY;
    }
    mc->group    = group;
    mc->ctx      = ctx;
    mc->ops      = ops;
    mc->radix    = radix;
    mc->rank     = tc_group_rank(group);
    mc->size     = tc_group_size(group);
    mc->wait     = wait;
    mc->wait_ops = (tc_wait_ops_t){tc_mcast_wait_watch, tc_mcast_wait_ready, tc_mcast_wait_arm,
                                   tc_mcast_wait_progress, ctx->efd, mc};
    mc->watch_rank     = (mc->rank == 0) ? 1 : 0;
    mc->rec_timeout_ns = 2000000ull * (uint64_t)ctx->params.timeout_ms;
    mc->pack_cap = ctx->params.slot_size;
    mc->pack_buf = malloc(mc->pack_cap);
    mc->sent_to  = malloc(mc->size * sizeof(*mc->sent_to));
    if ((mc->pack_buf == NULL) || (mc->sent_to == NULL)) {
        status = TC_ERR_NO_MEMORY;
        goto err_free;
    }
    status = tc_mcast_recs_create(TC_MCAST_REC_MAX_DEFAULT, &mc->recs);
    if (status == TC_OK) {
        status = tc_mcast_set_create(mc->size, &mc->rx_set);
    }
    if (status == TC_OK) {
        /* the bitmap over all ranks bounds every subset's chosen form */
        status = tc_mcast_set_add_range(mc->rx_set, 0, mc->size);
        if ((status == TC_OK) && (tc_mcast_encoded_size(mc->rx_set, TC_MCAST_BITMAP,
                                                        &mc->slice_max) != TC_OK)) {
            mc->slice_max = TC_MCAST_VARINT_MAX * 3 + (mc->size + 7) / 8;
        }
        mc->slice_max += TC_MCAST_VARINT_MAX; /* a subset's bitmap may start further in */
        tc_mcast_set_clear(mc->rx_set);
    }
    if (status == TC_OK) {
        status = tc_mcast_set_create(mc->size, &mc->one);
    }
    for (r = 0; (r < mc->size) && (status == TC_OK); ++r) {
        tc_peer_t *peer = tc_group_peer(group, r);

        if (peer != NULL) {
            status = tc_peer_set_wait(peer, wait);
        }
    }
    if (status != TC_OK) {
        goto err_free;
    }
    ctx->mcast_rx  = tc_mcast_rx;
    ctx->mcast_arg = mc;
    *mc_p = mc;
    return TC_OK;

err_free:
    tc_mcast_set_destroy(mc->one);
    tc_mcast_set_destroy(mc->rx_set);
    tc_mcast_recs_destroy(mc->recs);
    free(mc->sent_to);
    free(mc->pack_buf);
    free(mc);
    return status;
}

void tc_mcast_destroy(tc_mcast_t *mc)
{
    tc_mcast_item_t *item;

    if (mc == NULL) {
        return;
    }
    mc->ctx->mcast_rx  = NULL;
    mc->ctx->mcast_arg = NULL;
    while ((item = mc->head) != NULL) {
        mc->head = item->next;
        free(item);
    }
    tc_mcast_set_destroy(mc->one);
    tc_mcast_set_destroy(mc->rx_set);
    tc_mcast_recs_destroy(mc->recs);
    free(mc->sent_to);
    free(mc->pack_buf);
    free(mc);
}

void tc_mcast_set_hooks(tc_mcast_t *mc, tc_mcast_deliver_fn deliver,
                        tc_mcast_complete_fn complete, void *arg)
{
    mc->deliver  = deliver;
    mc->complete = complete;
    mc->hook_arg = arg;
}

void tc_mcast_set_ops(tc_mcast_t *mc, const tc_mcast_ops_t *ops, uint32_t radix)
{
    mc->ops   = ops;
    mc->radix = radix;
}

tc_status_t tc_mcast_set_limits(tc_mcast_t *mc, uint32_t rec_timeout_ms, uint32_t max_recs)
{
    tc_status_t status;

    status = tc_mcast_recs_set_max(mc->recs, max_recs ? max_recs : TC_MCAST_REC_MAX_DEFAULT);
    if (status != TC_OK) {
        return status;
    }
    /* by default twice the context's timeout: a wait gives up after
     * timeout_ms with nothing moving, so an ack later than twice that is
     * not coming */
    mc->rec_timeout_ns = 1000000ull * (rec_timeout_ms ? (uint64_t)rec_timeout_ms :
                                       2ull * (uint64_t)mc->ctx->params.timeout_ms);
    return TC_OK;
}

void tc_mcast_stats(const tc_mcast_t *mc, tc_mcast_stats_t *stats_p)
{
    *stats_p      = mc->stats;
    stats_p->live = tc_mcast_recs_count(mc->recs);
}
