/*
 * Multicast's dispatch: landed frames run from the queue outside every
 * peer's receive loop (an envelope forwarded, then delivered; an ack
 * counted), and the waits for a multicast or a condition that run it.
 */
#define _GNU_SOURCE
#include "mcast_fwd_int.h"

#include <stdio.h>
#include <stdlib.h>

/* --------------------------------------------------------------- running */

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

/* An envelope that landed, checked before anything is forwarded: parsed
 * into env and mc->rx_set, not this rank's own, this rank in its slice,
 * its origin not, its hops possible. Not admitted: the status is the
 * refusal's (every refused ack envelope whose header parsed is acked). */
static tc_status_t tc_mcast_env_admit(tc_mcast_t *mc, const tc_mcast_item_t *item,
                                      tc_mcast_env_t *env, int *admitted_p)
{
    tc_mcast_decode_status_t ds;
    char why[128];

    *admitted_p = 0;
    ds = tc_mcast_env_parse(item->data, item->args_len, mc->rx_set, env);
    if (ds != TC_MCAST_DECODE_OK) {
        tc_mcast_refuse(mc, item, tc_mcast_decode_status_str(ds));
        return TC_OK; /* no trustworthy id: nothing can be acked */
    }
    if (env->origin == mc->rank) {
        /* the origin removes itself: its own multicast never comes back */
        return tc_mcast_refuse_env(mc, item, env, "it names this rank as its origin");
    }
    if ((env->hops == 1) && (env->origin != item->from)) {
        /* one hop: the origin's own envelope, which only the origin sends;
         * delivered, its jam would run with another rank as its sender */
        snprintf(why, sizeof(why), "a one-hop envelope names rank %u as its origin, but rank "
                 "%u sent it", env->origin, item->from);
        return tc_mcast_refuse_env(mc, item, env, why);
    }
    if (!tc_mcast_set_contains(mc->rx_set, mc->rank)) {
        return tc_mcast_refuse_env(mc, item, env, "this rank is not in the envelope's slice");
    }
    if (tc_mcast_set_contains(mc->rx_set, env->origin)) {
        /* the origin removed itself: a child sent to it would refuse */
        snprintf(why, sizeof(why), "its slice holds its origin, rank %u", env->origin);
        return tc_mcast_refuse_env(mc, item, env, why);
    }
    if (!tc_mcast_env_hops_fit(env->hops, tc_mcast_set_count(mc->rx_set), mc->size)) {
        /* refused here, before its children get envelopes they would
         * refuse without acking */
        mc->stats.too_deep++;
        snprintf(why, sizeof(why), "hop count %u with %llu targets left exceeds the group's %u "
                 "ranks", env->hops, (unsigned long long)tc_mcast_set_count(mc->rx_set),
                 mc->size);
        return tc_mcast_refuse_env(mc, item, env, why);
    }
    *admitted_p = 1;
    return TC_OK;
}

/* An admitted envelope that wants acks: its relay record, made before
 * forwarding (acks that land meanwhile are only queued). Not opened: the
 * status is the refusal's, or the error. */
static tc_status_t tc_mcast_relay_rec_open(tc_mcast_t *mc, const tc_mcast_item_t *item,
                                           const tc_mcast_env_t *env, int *opened_p)
{
    tc_mcast_rec_t *rec;
    tc_status_t status;
    uint32_t limit = tc_mcast_rec_origin_limit(mc);
    char why[128];

    *opened_p = 0;
    if (tc_mcast_recs_find(mc->recs, env->origin, env->id) != NULL) {
        /* not acked: the sender's record may be waiting for the real one */
        tc_mcast_refuse(mc, item, "a multicast with its origin and id is under way here");
        return TC_OK;
    }
    if (tc_mcast_recs_relays_from(mc->recs, item->from) >= limit) {
        /* one sender must not take the others' room (nor evict them): its
         * share is counted by the ring it came in, not the origin it names */
        mc->stats.origin_full++;
        snprintf(why, sizeof(why), "rank %u's envelopes (origin %u) hold %u ack-tree records "
                 "here, its limit", item->from, env->origin, limit);
        return tc_mcast_refuse_env(mc, item, env, why);
    }
    status = tc_mcast_rec_new(mc, env->origin, env->id, 0, item->from, &rec);
    if (status == TC_ERR_NO_RESOURCE) {
        return tc_mcast_refuse_env(mc, item, env, "no room for its ack-tree record");
    }
    if (status != TC_OK) {
        return status;
    }
    *opened_p = 1;
    return TC_OK;
}

/* Forward first: a jam that stops this rank's progress must not cut its
 * subtree off. The record, if any, learns its children; on failure it is
 * freed (acks from those already sent are refused). */
static tc_status_t tc_mcast_relay_forward(tc_mcast_t *mc, const tc_mcast_item_t *item,
                                          const tc_mcast_env_t *env, const tc_mcast_msg_t *msg,
                                          uint32_t *n_children_p)
{
    tc_mcast_rec_t *rec = NULL;
    uint32_t n_children = 0;
    uint64_t bytes = 0;
    tc_status_t status;

    mc->n_sent = 0;
    status     = mc->ops->forward(mc, env, mc->rx_set, msg, 1, &n_children, &bytes);
    if (env->flags & TC_MCAST_ENV_ACK) {
        /* a send blocked past the record timeout may have freed it */
        rec = tc_mcast_recs_find(mc->recs, env->origin, env->id);
    }
    if ((status == TC_OK) && (rec != NULL)) {
        status = tc_mcast_rec_children(mc, rec, n_children);
    }
    if (status != TC_OK) {
        if (rec != NULL) {
            tc_mcast_recs_free(mc->recs, rec);
        }
        return status;
    }
    if (rec != NULL) {
        rec->parent        = item->from;
        rec->outstanding   = n_children + 1; /* + this rank's own delivery, after this */
        rec->agg.depth     = env->hops;
        rec->agg.edges     = n_children;
        rec->agg.bytes     = bytes;
    }
    *n_children_p = n_children;
    return TC_OK;
}

/* The jam runs here (then the delivery hook); 1 if it ran. */
static int tc_mcast_relay_deliver(tc_mcast_t *mc, const tc_mcast_item_t *item,
                                  const tc_mcast_env_t *env, const tc_mcast_msg_t *msg,
                                  uint32_t n_children)
{
    int64_t ret = 0;

    if (tc_mcast_deliver(mc, msg, env->origin, &ret) != 0) {
        tc_mcast_refuse(mc, item, "it names no jam loaded here");
        return 0;
    }
    mc->stats.delivered++;
    if (mc->deliver != NULL) {
        tc_mcast_report(mc, item, env, n_children, ret);
    }
    return 1;
}

static tc_status_t tc_mcast_run_env(tc_mcast_t *mc, tc_mcast_item_t *item)
{
    tc_mcast_msg_t msg = {item->pkg_id, item->element,
                          item->data + TC_ALIGN_UP((size_t)item->args_len, 8),
                          item->payload_len};
    tc_mcast_env_t env;
    tc_mcast_rec_t *rec;
    tc_status_t status;
    uint32_t n_children = 0;
    int go, ran;

    status = tc_mcast_env_admit(mc, item, &env, &go);
    if ((status == TC_OK) && go && (env.flags & TC_MCAST_ENV_ACK)) {
        status = tc_mcast_relay_rec_open(mc, item, &env, &go);
    }
    if ((status != TC_OK) || !go) {
        return status;
    }
    status = tc_mcast_relay_forward(mc, item, &env, &msg, &n_children);
    if (status != TC_OK) {
        return (status == TC_ERR_PROTOCOL) ?
               tc_mcast_refuse_env(mc, item, &env, "its slice cannot be forwarded from here") :
               status;
    }
    ran = tc_mcast_relay_deliver(mc, item, &env, &msg, n_children);
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

/* --------------------------------------------------------------- waiting */

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
