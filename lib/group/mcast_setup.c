/*
 * Multicast's setup and teardown: the engine over a group, its hooks, ops
 * and limits, and its counters.
 */
#define _GNU_SOURCE
#include "mcast_fwd_int.h"

#include <stdlib.h>

/* ------------------------------------------------------------ lifecycle */

static const tc_rx_kind_def_t tc_mcast_rx_kinds[] = {
    {TC_KIND_MCAST, tc_mcast_rx, 0},
    {TC_KIND_MCAST_ACK, tc_mcast_rx, 0},
};

tc_status_t tc_mcast_create(tc_group_t *group, const tc_mcast_ops_t *ops, uint32_t radix,
                            tc_wait_t wait, tc_mcast_t **mc_p)
{
    tc_context_t *ctx = tc_group_context(group);
    tc_status_t status;
    tc_mcast_t *mc;
    uint32_t r;

    if ((ops == NULL) || (radix == 0) || (ctx->rx_kinds[TC_KIND_MCAST].cb != NULL)) {
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
    mc->wait_ops = tc_mcast_wait_ops(mc);
    mc->watch_rank     = (mc->rank == 0) ? 1 : 0;
    mc->rec_timeout_ns = 2000000ull * (uint64_t)ctx->params.timeout_ms;
    mc->queue_hold     = TC_MCAST_QUEUE_HOLD;
    mc->queue_cap      = TC_MCAST_QUEUE_CAP;
    mc->pack_cap = ctx->params.slot_size;
    mc->pack_buf = malloc(mc->pack_cap);
    mc->sent_to  = malloc(mc->size * sizeof(*mc->sent_to));
    if ((mc->pack_buf == NULL) || (mc->sent_to == NULL)) {
        status = TC_ERR_NO_MEMORY;
        goto err_free;
    }
    status = tc_mcast_recs_create(TC_MCAST_REC_MAX_DEFAULT, mc->size, &mc->recs);
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
    /* dispatch hands this engine both kinds (it queues them: they run
     * outside every peer's receive loop) */
    if (status == TC_OK) {
        status = tc_rx_register_kinds(ctx, tc_mcast_rx_kinds, TC_ARRAY_SIZE(tc_mcast_rx_kinds),
                                      mc, 0, NULL);
    }
    if (status != TC_OK) {
        goto err_free;
    }
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
    tc_rx_unregister(mc->ctx, TC_KIND_MCAST);
    tc_rx_unregister(mc->ctx, TC_KIND_MCAST_ACK);
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

void tc_mcast_set_origin_limit(tc_mcast_t *mc, uint32_t max_per_origin)
{
    mc->origin_max = max_per_origin;
}

void tc_mcast_stats(const tc_mcast_t *mc, tc_mcast_stats_t *stats_p)
{
    *stats_p      = mc->stats;
    stats_p->live = tc_mcast_recs_count(mc->recs);
}
