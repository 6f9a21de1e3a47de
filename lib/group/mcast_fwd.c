/*
 * Multicast forwarding (see mcast_fwd.h): the envelopes a rank sends its
 * children, the tree and flat ops tables, and the origin's send.
 */
#define _GNU_SOURCE
#include "mcast_fwd_int.h"

#include <stdlib.h>

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

/* The payload packed into mc->pack_buf and checked to fit any relay's
 * envelope: the message every frame of this send carries. */
static tc_status_t tc_mcast_origin_pack(tc_mcast_t *mc, const tc_jam_t *jam, const void *src,
                                        size_t len, tc_mcast_msg_t *msg_p)
{
    tc_status_t status;
    int64_t packed;

    packed = jam->elem->pack(mc->pack_buf, mc->pack_cap, src, len);
    if (packed < 0) {
        tc_error("mcast: jam '%s' refused to pack %zu bytes", jam->elem->name, len);
        return TC_ERR_OUT_OF_RANGE;
    }
    if ((uint64_t)packed > mc->pack_cap) {
        tc_error("mcast: jam '%s': its pack routine returned %lld bytes, more than the %llu "
                 "it was given (cap): a pack returns at most cap", jam->elem->name,
                 (long long)packed, (unsigned long long)mc->pack_cap);
        return TC_ERR_OUT_OF_RANGE;
    }
    status = tc_mcast_check_fits(mc, (uint32_t)packed);
    if (status != TC_OK) {
        return status;
    }
    msg_p->pkg_id  = jam->pkg_id;
    msg_p->element = jam->element;
    msg_p->payload = mc->pack_buf;
    msg_p->len     = (uint32_t)packed;
    return TC_OK;
}

/* One remote target, no completion: a plain jam frame, no envelope. */
static tc_status_t tc_mcast_origin_unicast(tc_mcast_t *mc, const tc_mcast_set_t *targets,
                                           const tc_mcast_msg_t *msg)
{
    const tc_mcast_run_t *runs;
    uint32_t node, only = UINT32_MAX;
    tc_status_t status;
    size_t n_runs, i;

    runs = tc_mcast_set_runs(targets, &n_runs);
    for (i = 0; (i < n_runs) && (only == UINT32_MAX); ++i) {
        for (node = runs[i].start; node < runs[i].end; ++node) {
            if (node != mc->rank) {
                only = node;
                break;
            }
        }
    }
    status = tc_mcast_put(mc, only, TC_KIND_LOCAL, msg->pkg_id, msg->element, NULL, 0,
                          msg->payload, msg->len);
    mc->stats.unicasts += (status == TC_OK);
    return status;
}

/* TC_MCAST_F_ACK: the origin's record and the envelope's id, made before
 * anything is sent. */
static tc_status_t tc_mcast_origin_rec_new(tc_mcast_t *mc, tc_mcast_env_t *env,
                                           tc_mcast_rec_t **rec_p)
{
    tc_mcast_rec_t *rec;
    tc_status_t status;

    env->flags = TC_MCAST_ENV_ACK;
    env->id    = mc->next_id + 1;
    status     = tc_mcast_rec_new(mc, mc->rank, env->id, 1, mc->rank, &rec);
    if (status != TC_OK) {
        if (status == TC_ERR_NO_RESOURCE) {
            tc_error("mcast: rank %u holds %zu multicasts awaiting acks, the most it may: "
                     "wait for some first", mc->rank, tc_mcast_recs_count(mc->recs));
        }
        return status;
    }
    mc->next_id = env->id;
    *rec_p      = rec;
    return TC_OK;
}

/* The forward went out: the origin's record learns its children and what
 * they cost (freed if it cannot keep who they are). */
static tc_status_t tc_mcast_origin_rec_sent(tc_mcast_t *mc, tc_mcast_rec_t *rec,
                                            uint32_t n_children, uint64_t bytes)
{
    tc_status_t status;

    status = tc_mcast_rec_children(mc, rec, n_children);
    if (status != TC_OK) {
        tc_mcast_recs_free(mc->recs, rec);
        return status;
    }
    rec->outstanding  = n_children;
    rec->origin_sends = n_children;
    rec->agg.edges    = n_children;
    rec->agg.bytes    = bytes;
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
    uint32_t n_children = 0;

    if ((targets == NULL) || (tc_mcast_set_num_nodes(targets) != mc->size)) {
        tc_error("mcast: the target set must span the group's %u ranks", mc->size);
        return TC_ERR_INVALID_PARAM;
    }
    status = tc_mcast_origin_pack(mc, jam, src, len, &msg);
    if (status != TC_OK) {
        return status;
    }
    remote = tc_mcast_set_count(targets) - (uint64_t)tc_mcast_set_contains(targets, mc->rank);
    if ((remote == 1) && !(flags & TC_MCAST_F_ACK)) {
        return tc_mcast_origin_unicast(mc, targets, &msg);
    }
    if (flags & TC_MCAST_F_ACK) {
        status = tc_mcast_origin_rec_new(mc, &env, &rec);
        if (status != TC_OK) {
            return status;
        }
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
    if (rec == NULL) {
        return TC_OK; /* fire-and-forget: no state */
    }
    status = tc_mcast_origin_rec_sent(mc, rec, n_children, bytes);
    if (status != TC_OK) {
        return status;
    }
    if (n_children == 0) {
        status = tc_mcast_rec_finish(mc, rec);
    }
    if (id_p != NULL) {
        *id_p = env.id; /* as before, also when a hook's finish failed */
    }
    return status;
}
