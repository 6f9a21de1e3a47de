/*
 * Acks of the ack tree: sending one, running one that landed, finishing a
 * record (ack the parent, or complete at the origin), and refusing a frame
 * (an envelope refused is acked as not delivered).
 */
#define _GNU_SOURCE
#include "mcast_fwd_int.h"

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
tc_status_t tc_mcast_rec_finish(tc_mcast_t *mc, tc_mcast_rec_t *rec)
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

void tc_mcast_refuse(tc_mcast_t *mc, const tc_mcast_item_t *item, const char *what)
{
    if (mc->stats.rejected++ < TC_MCAST_LOG_MAX) {
        tc_warn("mcast: rank %u refused a %s from rank %u: %s", mc->rank,
                tc_frame_kind_str(item->kind), item->from, what);
    }
}

/* An envelope refused after its header was read: if it wants acks, tell
 * its sender nothing ran here, so the sender's record need not wait for
 * this rank until it times out. */
tc_status_t tc_mcast_refuse_env(tc_mcast_t *mc, const tc_mcast_item_t *item,
                                const tc_mcast_env_t *env, const char *what)
{
    tc_mcast_ack_t ack = {env->origin, env->id, 0, env->hops, 0, 0};

    tc_mcast_refuse(mc, item, what);
    return (env->flags & TC_MCAST_ENV_ACK) ? tc_mcast_send_ack(mc, item->from, &ack) : TC_OK;
}

tc_status_t tc_mcast_run_ack(tc_mcast_t *mc, const tc_mcast_item_t *item)
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
