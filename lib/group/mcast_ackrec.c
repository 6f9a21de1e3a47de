/*
 * The ack tree's records at this rank, as multicast keeps them: made (the
 * oldest relay record making room), who may ack crossed off, and freed
 * past the record timeout. Nothing here sends (acks: mcast_ack.c).
 */
#define _GNU_SOURCE
#include "mcast_fwd_int.h"

#include <stdlib.h>
#include <string.h>

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
void tc_mcast_expire(tc_mcast_t *mc, uint64_t now)
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
tc_status_t tc_mcast_rec_new(tc_mcast_t *mc, uint32_t origin, uint64_t id, int is_origin,
                             uint32_t from, tc_mcast_rec_t **rec_p)
{
    uint64_t now = tc_clock_mono_ns();
    tc_mcast_rec_t *oldest;
    tc_status_t status;

    tc_mcast_expire(mc, now);
    status = tc_mcast_recs_add(mc->recs, origin, id, is_origin, from, now, rec_p);
    if ((status == TC_ERR_NO_RESOURCE) && ((oldest = tc_mcast_recs_oldest(mc->recs)) != NULL)) {
        tc_mcast_drop(mc, oldest, "to make room");
        mc->stats.evicted++;
        status = tc_mcast_recs_add(mc->recs, origin, id, is_origin, from, now, rec_p);
    }
    return status;
}

/* Relay records the envelopes of one sending rank may hold here (whatever
 * origins they name): as set, else its share of the maximum (the maximum
 * may change: tc_mcast_set_limits). */
uint32_t tc_mcast_rec_origin_limit(const tc_mcast_t *mc)
{
    uint32_t share = tc_mcast_recs_max(mc->recs) / TC_MCAST_REC_ORIGIN_SHARE;

    if (mc->origin_max != 0) {
        return mc->origin_max;
    }
    return (share > 0) ? share : 1;
}

/* Keep who the forward just sent envelopes to: only they may ack, once
 * each. An ops table that sends its own way leaves the list empty, and
 * then any rank's ack counts (as before). */
tc_status_t tc_mcast_rec_children(tc_mcast_t *mc, tc_mcast_rec_t *rec, uint32_t n)
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
int tc_mcast_rec_take_ack(tc_mcast_rec_t *rec, uint32_t from)
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
