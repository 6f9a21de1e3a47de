/*
 * The ack tree's records (see mcast_rec.h): chained hash table, doubled
 * when it holds more records than buckets, plus the relay records' age list.
 */
#include "mcast_rec.h"

#include <stdlib.h>
#include <string.h>

#define TC_MCAST_RECS_MIN_BUCKETS 64u

struct tc_mcast_recs {
    tc_mcast_rec_t **buckets;
    size_t           n_buckets; /* a power of two */
    size_t           count;
    uint32_t         max;
    uint32_t         num_origins;
    uint32_t        *relays_from; /* relay records per rank they came from */
    uint64_t         seed;      /* differs per table: forged keys cannot aim at a bucket */
    tc_mcast_rec_t  *oldest, *newest;
};

/* splitmix64's finaliser over (origin, id): consecutive ids of one origin
 * and equal ids of different origins spread over every bucket. */
static size_t tc_mcast_recs_bucket(const tc_mcast_recs_t *recs, uint32_t origin, uint64_t id)
{
    uint64_t h = id ^ recs->seed ^ ((uint64_t)origin * 0x9e3779b97f4a7c15ull);

    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    h ^= h >> 31;
    return (size_t)h & (recs->n_buckets - 1);
}

tc_status_t tc_mcast_recs_create(uint32_t max, uint32_t num_origins,
                                 tc_mcast_recs_t **recs_p)
{
    tc_mcast_recs_t *recs;

    if ((max == 0) || (num_origins == 0)) {
        return TC_ERR_INVALID_PARAM;
    }
    recs = calloc(1, sizeof(*recs));
    if (recs == NULL) {
        return TC_ERR_NO_MEMORY;
    }
    recs->n_buckets = TC_MCAST_RECS_MIN_BUCKETS;
    recs->buckets   = calloc(recs->n_buckets, sizeof(*recs->buckets));
    recs->relays_from = calloc(num_origins, sizeof(*recs->relays_from));
    if ((recs->buckets == NULL) || (recs->relays_from == NULL)) {
        free(recs->relays_from);
        free(recs->buckets);
        free(recs);
        return TC_ERR_NO_MEMORY;
    }
    recs->max         = max;
    recs->num_origins = num_origins;
    recs->seed        = (uint64_t)(uintptr_t)recs * 0xd6e8feb86659fd93ull; /* ASLR varies it */
    *recs_p = recs;
    return TC_OK;
}

void tc_mcast_recs_destroy(tc_mcast_recs_t *recs)
{
    tc_mcast_rec_t *rec, *next;
    size_t b;

    if (recs == NULL) {
        return;
    }
    for (b = 0; b < recs->n_buckets; ++b) {
        for (rec = recs->buckets[b]; rec != NULL; rec = next) {
            next = rec->hash_next;
            free(rec->children);
            free(rec);
        }
    }
    free(recs->relays_from);
    free(recs->buckets);
    free(recs);
}

tc_status_t tc_mcast_recs_set_max(tc_mcast_recs_t *recs, uint32_t max)
{
    if (max == 0) {
        return TC_ERR_INVALID_PARAM;
    }
    recs->max = max;
    return TC_OK;
}

uint32_t tc_mcast_recs_max(const tc_mcast_recs_t *recs)
{
    return recs->max;
}

size_t tc_mcast_recs_count(const tc_mcast_recs_t *recs)
{
    return recs->count;
}

uint32_t tc_mcast_recs_relays_from(const tc_mcast_recs_t *recs, uint32_t from)
{
    return (from < recs->num_origins) ? recs->relays_from[from] : 0;
}

/* Twice the buckets; without the memory the chains just get longer. */
static void tc_mcast_recs_grow(tc_mcast_recs_t *recs)
{
    size_t n_old = recs->n_buckets, b, nb;
    tc_mcast_rec_t **old = recs->buckets, **fresh, *rec, *next;

    fresh = calloc(2 * n_old, sizeof(*fresh));
    if (fresh == NULL) {
        return;
    }
    recs->buckets   = fresh;
    recs->n_buckets = 2 * n_old;
    for (b = 0; b < n_old; ++b) {
        for (rec = old[b]; rec != NULL; rec = next) {
            next           = rec->hash_next;
            nb             = tc_mcast_recs_bucket(recs, rec->agg.origin, rec->agg.id);
            rec->hash_next = fresh[nb];
            fresh[nb]      = rec;
        }
    }
    free(old);
}

tc_mcast_rec_t *tc_mcast_recs_find(const tc_mcast_recs_t *recs, uint32_t origin, uint64_t id)
{
    tc_mcast_rec_t *rec;

    for (rec = recs->buckets[tc_mcast_recs_bucket(recs, origin, id)]; rec != NULL;
         rec = rec->hash_next) {
        if ((rec->agg.id == id) && (rec->agg.origin == origin)) {
            return rec;
        }
    }
    return NULL;
}

tc_status_t tc_mcast_recs_add(tc_mcast_recs_t *recs, uint32_t origin, uint64_t id,
                              int is_origin, uint32_t from, uint64_t now_ns,
                              tc_mcast_rec_t **rec_p)
{
    tc_mcast_rec_t *rec;
    size_t b;

    if ((origin >= recs->num_origins) || (from >= recs->num_origins)) {
        return TC_ERR_INVALID_PARAM;
    }
    if (recs->count >= recs->max) {
        return TC_ERR_NO_RESOURCE;
    }
    if (tc_mcast_recs_find(recs, origin, id) != NULL) {
        return TC_ERR_INVALID_PARAM;
    }
    rec = calloc(1, sizeof(*rec));
    if (rec == NULL) {
        return TC_ERR_NO_MEMORY;
    }
    if (recs->count >= recs->n_buckets) {
        tc_mcast_recs_grow(recs);
    }
    rec->born_ns    = now_ns;
    rec->is_origin  = !!is_origin;
    rec->parent     = from;
    rec->from       = from;
    rec->agg.origin = origin;
    rec->agg.id     = id;
    b               = tc_mcast_recs_bucket(recs, origin, id);
    rec->hash_next  = recs->buckets[b];
    recs->buckets[b] = rec;
    if (!rec->is_origin) {
        rec->older = recs->newest;
        if (recs->newest != NULL) {
            recs->newest->newer = rec;
        } else {
            recs->oldest = rec;
        }
        recs->newest = rec;
        recs->relays_from[from]++;
    }
    recs->count++;
    *rec_p = rec;
    return TC_OK;
}

tc_mcast_rec_t *tc_mcast_recs_oldest(const tc_mcast_recs_t *recs)
{
    return recs->oldest;
}

void tc_mcast_recs_free(tc_mcast_recs_t *recs, tc_mcast_rec_t *rec)
{
    tc_mcast_rec_t **link = &recs->buckets[tc_mcast_recs_bucket(recs, rec->agg.origin,
                                                                rec->agg.id)];

    while ((*link != NULL) && (*link != rec)) {
        link = &(*link)->hash_next;
    }
    if (*link == NULL) {
        return; /* not ours */
    }
    *link = rec->hash_next;
    if (!rec->is_origin) {
        if (rec->older != NULL) {
            rec->older->newer = rec->newer;
        } else {
            recs->oldest = rec->newer;
        }
        if (rec->newer != NULL) {
            rec->newer->older = rec->older;
        } else {
            recs->newest = rec->older;
        }
        recs->relays_from[rec->from]--;
    }
    recs->count--;
    free(rec->children);
    free(rec);
}
