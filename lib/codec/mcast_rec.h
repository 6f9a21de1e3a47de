/*
 * The ack tree's records at one rank (pure: no UCX, no clock): a hash
 * table keyed by (origin, id), bounded by a maximum count, with the relay
 * records also on a list in order of birth so the oldest - the first to
 * time out - is found in O(1).
 *
 * A relay's record waits for its children's acks; one whose acks never
 * come (a child refused the envelope, a forged envelope) must not live
 * forever: the caller frees relay records older than its timeout, and at
 * the maximum it frees the oldest relay record to make room. Origin
 * records belong to the application (tc_mcast_wait decides when to give up
 * on them): they count toward the maximum but are never on the age list.
 * The table counts relay records by the rank each came from (its parent,
 * which the receiver knows from the ring it landed in, unlike the origin an
 * envelope names past its first hop), so the caller can hold one sender to
 * a share: one must not evict the records of others, nor spend another
 * origin's share by naming it.
 *
 * Records do not move while held (each is its own allocation), so a
 * pointer from find or add stays valid until the record is freed.
 */
#ifndef TC_MCAST_REC_H
#define TC_MCAST_REC_H

#include "mcast_env.h"

#include <stddef.h>
#include <stdint.h>

typedef struct tc_mcast_rec {
    struct tc_mcast_rec *hash_next;     /* bucket chain */
    struct tc_mcast_rec *older, *newer; /* age list: relay records only */
    uint64_t             born_ns;
    int                  is_origin;
    uint32_t             parent;
    uint32_t             from;       /* the rank it came from (its share's; set by add) */
    uint32_t             outstanding;
    uint32_t             origin_sends;
    uint32_t            *children;   /* who may ack (each once); NULL: not known */
    uint32_t             n_children;
    tc_mcast_ack_t       agg;        /* the key (agg.origin, agg.id) and the sums */
} tc_mcast_rec_t;

typedef struct tc_mcast_recs tc_mcast_recs_t;

/* A table that holds at most max records (max >= 1), of origins below
 * num_origins (>= 1: the group's size). */
tc_status_t     tc_mcast_recs_create(uint32_t max, uint32_t num_origins,
                                     tc_mcast_recs_t **recs_p);
/* Frees every record still held (and its children list). */
void            tc_mcast_recs_destroy(tc_mcast_recs_t *recs);
/* A lower maximum than the count held only stops new records. */
tc_status_t     tc_mcast_recs_set_max(tc_mcast_recs_t *recs, uint32_t max);
uint32_t        tc_mcast_recs_max(const tc_mcast_recs_t *recs);
size_t          tc_mcast_recs_count(const tc_mcast_recs_t *recs);
/* Relay records held now that came from rank from (0 for one out of range). */
uint32_t        tc_mcast_recs_relays_from(const tc_mcast_recs_t *recs, uint32_t from);

/* A zeroed record for (origin, id) that came from rank from (its parent
 * until the caller says otherwise), born at now_ns, its key in agg.
 * TC_ERR_NO_RESOURCE when max are held, TC_ERR_INVALID_PARAM when the key is
 * held already (callers look first: a duplicate is their refusal) or the
 * origin or from is not below num_origins. */
tc_status_t     tc_mcast_recs_add(tc_mcast_recs_t *recs, uint32_t origin, uint64_t id,
                                  int is_origin, uint32_t from, uint64_t now_ns,
                                  tc_mcast_rec_t **rec_p);
tc_mcast_rec_t *tc_mcast_recs_find(const tc_mcast_recs_t *recs, uint32_t origin, uint64_t id);
/* The oldest relay record, NULL if none. */
tc_mcast_rec_t *tc_mcast_recs_oldest(const tc_mcast_recs_t *recs);
/* Remove rec from the table and free it. */
void            tc_mcast_recs_free(tc_mcast_recs_t *recs, tc_mcast_rec_t *rec);

#endif
