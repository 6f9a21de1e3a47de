/*
 * Multicast tree model: the real plan, a simple clock (see mcast_sim.h).
 */
#include "mcast_sim.h"
#include "log.h"

#include <stdlib.h>
#include <string.h>

typedef struct tc_mcast_sim {
    const tc_mcast_sim_params_t *params;
    tc_mcast_sim_result_t        res;
    uint8_t                     *buf;      /* verify: encode scratch */
    size_t                       buf_cap;
    tc_mcast_set_t              *decoded;  /* verify: decode scratch */
} tc_mcast_sim_t;

uint32_t tc_mcast_sim_log_ceil(uint64_t n, uint32_t radix)
{
    uint64_t reach = 1;
    uint32_t k = 0;

    if (radix < 2) {
        return (n > 0) ? (uint32_t)(n - 1) : 0; /* a chain */
    }
    while (reach < n) {
        reach = (reach > UINT64_MAX / radix) ? UINT64_MAX : reach * radix;
        ++k;
    }
    return k;
}

/* Encode the slice for real (and decode it back when verifying): the
 * bytes a relay's envelope would carry. */
static tc_status_t tc_mcast_sim_encode(tc_mcast_sim_t *sim, const tc_mcast_set_t *slice,
                                       size_t *len_p)
{
    tc_mcast_decode_status_t ds;
    tc_mcast_kind_t kind;
    tc_status_t status;
    size_t size, len;
    uint8_t *nbuf;

    status = tc_mcast_encode_choose(slice, &kind, &size);
    if ((status != TC_OK) || !sim->params->verify) {
        if (status == TC_OK) {
            *len_p = size;
        }
        return status;
    }
    if (size > sim->buf_cap) {
        nbuf = realloc(sim->buf, size);
        if (nbuf == NULL) {
            return TC_ERR_NO_MEMORY;
        }
        sim->buf     = nbuf;
        sim->buf_cap = size;
    }
    status = tc_mcast_encode(slice, sim->buf, sim->buf_cap, &len);
    if (status != TC_OK) {
        return status;
    }
    ds = tc_mcast_decode(sim->buf, len, sim->decoded, NULL);
    if ((ds != TC_MCAST_DECODE_OK) || (len != size) ||
        !tc_mcast_set_equal(sim->decoded, slice)) {
        tc_error("mcast model: slice of %llu nodes did not survive the codec (%s)",
                 (unsigned long long)tc_mcast_set_count(slice),
                 tc_mcast_decode_status_str(ds));
        return TC_ERR_PROTOCOL;
    }
    *len_p = len;
    return TC_OK;
}

/* One node of the tree: it got set at time t (depth hops from the origin).
 * Sets *ack_ready_p to when it can ack its parent. */
static tc_status_t tc_mcast_sim_node(tc_mcast_sim_t *sim, const tc_mcast_set_t *set,
                                     uint32_t self, int is_origin, uint32_t depth, double t,
                                     double *ack_ready_p)
{
    const tc_mcast_sim_params_t *p = sim->params;
    tc_mcast_slice_t *slices = NULL;
    uint32_t n_slices = 0, i;
    double ready, child_ready, arrive;
    tc_status_t status;
    size_t len;

    status = tc_mcast_forward_plan(set, self, p->radix,
                                   is_origin ? 0 : TC_MCAST_SELF_REQUIRED, &slices,
                                   &n_slices);
    if (status != TC_OK) {
        return status;
    }
    if (n_slices > sim->res.max_fanout) {
        sim->res.max_fanout = n_slices;
    }
    if (is_origin) {
        sim->res.origin_sends = n_slices;
    }

    ready = t + (double)n_slices * p->send_us; /* after the last send: deliver */
    for (i = 0; i < n_slices; ++i) {
        status = tc_mcast_sim_encode(sim, slices[i].set, &len);
        if (status != TC_OK) {
            goto out_free_slices;
        }
        sim->res.edges++;
        sim->res.target_bytes += len;
        if (len > sim->res.max_target_bytes) {
            sim->res.max_target_bytes = len;
        }
        arrive = t + (double)(i + 1) * p->send_us + p->hop_us;
        status = tc_mcast_sim_node(sim, slices[i].set, slices[i].relay, 0, depth + 1, arrive,
                                   &child_ready);
        if (status != TC_OK) {
            goto out_free_slices;
        }
        /* the child's ack: one send and one hop after it is ready */
        child_ready += p->send_us + p->hop_us;
        sim->res.acks++;
        if (child_ready > ready) {
            ready = child_ready;
        }
    }
    if (!is_origin) {
        double delivered = t + (double)n_slices * p->send_us;

        sim->res.delivered++;
        if (delivered > sim->res.deliver_us) {
            sim->res.deliver_us = delivered;
        }
        if (depth > sim->res.depth) {
            sim->res.depth = depth;
        }
    }
    *ack_ready_p = ready;

out_free_slices:
    tc_mcast_slices_free(slices, n_slices);
    return status;
}

static tc_status_t tc_mcast_sim_start(const tc_mcast_set_t *targets,
                                      const tc_mcast_sim_params_t *params,
                                      tc_mcast_sim_t *sim)
{
    tc_mcast_kind_t kind;
    size_t size;

    if ((targets == NULL) || (params == NULL) ||
        (params->origin >= tc_mcast_set_num_nodes(targets))) {
        return TC_ERR_INVALID_PARAM;
    }
    memset(sim, 0, sizeof(*sim));
    sim->params      = params;
    sim->res.targets = tc_mcast_set_count(targets) -
                       (uint64_t)tc_mcast_set_contains(targets, params->origin);
    if (tc_mcast_encode_choose(targets, &kind, &size) == TC_OK) {
        sim->res.origin_target_bytes = size;
    }
    return TC_OK;
}

tc_status_t tc_mcast_sim_tree(const tc_mcast_set_t *targets,
                              const tc_mcast_sim_params_t *params,
                              tc_mcast_sim_result_t *result_p)
{
    tc_mcast_sim_t sim;
    tc_status_t status;
    double ready;

    status = tc_mcast_sim_start(targets, params, &sim);
    if ((status == TC_OK) && (params->radix == 0)) {
        status = TC_ERR_INVALID_PARAM;
    }
    if (status != TC_OK) {
        return status;
    }
    if (params->verify) {
        status = tc_mcast_set_create(tc_mcast_set_num_nodes(targets), &sim.decoded);
        if (status != TC_OK) {
            return status;
        }
    }
    status = tc_mcast_sim_node(&sim, targets, params->origin, 1, 0, 0.0, &ready);
    if (status == TC_OK) {
        sim.res.complete_us = (sim.res.edges > 0) ? ready : 0.0;
        *result_p = sim.res;
    }
    tc_mcast_set_destroy(sim.decoded);
    free(sim.buf);
    return status;
}

tc_status_t tc_mcast_sim_naive(const tc_mcast_set_t *targets,
                               const tc_mcast_sim_params_t *params,
                               tc_mcast_sim_result_t *result_p)
{
    tc_mcast_sim_t sim;
    tc_status_t status;
    double m;

    status = tc_mcast_sim_start(targets, params, &sim);
    if (status != TC_OK) {
        return status;
    }
    /* plain unicasts carry no target set; each target acks the origin */
    m = (double)sim.res.targets;
    sim.res.delivered    = sim.res.targets;
    sim.res.edges        = sim.res.targets;
    sim.res.acks         = sim.res.targets;
    sim.res.origin_sends = (uint32_t)sim.res.targets;
    sim.res.max_fanout   = (uint32_t)sim.res.targets;
    sim.res.depth        = (sim.res.targets > 0) ? 1 : 0;
    if (sim.res.targets > 0) {
        sim.res.deliver_us  = m * params->send_us + params->hop_us;
        sim.res.complete_us = (m + 1.0) * params->send_us + 2.0 * params->hop_us;
    }
    *result_p = sim.res;
    return TC_OK;
}
