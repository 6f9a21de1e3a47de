/*
 * A peer's mailbox checked against what its rkey maps here
 * (lib/wireup/wire_extent.h). UCX 1.13's shared-memory transports take any remote
 * address: a put or a store to rkey_ptr(addr) is a plain write at addr plus
 * the rkey's offset, wherever that lands.
 */
#include "wire_extent.h"

#include <stdio.h>

#define TC_EXTENT_REFUSE(...) (snprintf(why, TC_WIRE_WHY_MAX, __VA_ARGS__), TC_ERR_PROTOCOL)

/* The byte at addr as (object, offset in it): where r holds addr. */
static uint64_t tc_extent_obj_off(const tc_map_range_t *r, uintptr_t addr)
{
    return r->offset + (addr - r->start);
}

/* [lo, hi] in one object's mapping (ranges of one object, back to back, at
 * offsets that follow on), from after; its first and last range. */
static tc_status_t tc_extent_walk(const tc_maps_t *after, uintptr_t lo, uintptr_t hi,
                                  uint64_t base, uint64_t len, char *why,
                                  const tc_map_range_t **first_p, const tc_map_range_t **last_p)
{
    const tc_map_range_t *r = tc_maps_find(after, lo), *prev = NULL;

    for (; r != NULL; prev = r, r = (r->end <= hi) ? tc_maps_find(after, r->end) : NULL) {
        if (!r->shm || ((prev != NULL) &&
                        ((r->dev != prev->dev) || (r->inode != prev->inode) ||
                         (r->offset != tc_extent_obj_off(prev, prev->end))))) {
            return TC_EXTENT_REFUSE("mailbox 0x%llx + %llu bytes: byte %llu lands outside "
                                    "the memory the peer's rkey maps (in %s this process "
                                    "has)", (unsigned long long)base,
                                    (unsigned long long)len,
                                    (unsigned long long)(r->start > lo ? r->start - lo : 0),
                                    r->shm ? "another shared-memory segment" : "memory");
        }
        if (prev == NULL) {
            *first_p = r;
        }
        if (r->end > hi) {
            *last_p = r;
            return TC_OK;
        }
    }
    return TC_EXTENT_REFUSE("mailbox 0x%llx + %llu bytes: byte %llu lands where this side "
                            "maps nothing", (unsigned long long)base, (unsigned long long)len,
                            (unsigned long long)((prev != NULL) ? prev->end - lo : 0));
}

/* The rkey unpacked again maps its object again: the byte base lands at the
 * same offset of the same object as through rkey (lo in first), unless UCX
 * gave the same mapping back. Another thread's mapping at lo is not it. */
static tc_status_t tc_extent_same_object(const tc_maps_t *after, const tc_map_range_t *first,
                                         uintptr_t lo, uintptr_t lo2, char *why)
{
    const tc_map_range_t *r2 = tc_maps_find(after, lo2);

    if ((r2 == NULL) || (r2->dev != first->dev) || (r2->inode != first->inode) ||
        (tc_extent_obj_off(r2, lo2) != tc_extent_obj_off(first, lo))) {
        return TC_EXTENT_REFUSE("the mailbox's mapping is not the one the peer's rkey maps "
                                "(unpacked again, the rkey maps %s)",
                                (r2 == NULL) ? "nothing here" : "another object or offset");
    }
    return TC_OK;
}

tc_status_t tc_wire_extent_check(ucp_ep_h ep, const void *rkey_buf, ucp_rkey_h rkey,
                                 uint64_t base, uint64_t len, const tc_maps_t *before,
                                 int in_process, char *why, tc_extent_t *extent_p)
{
    const tc_map_range_t *first = NULL, *last = NULL;
    void *lo_ptr, *hi_ptr, *lo2_ptr;
    uintptr_t lo, hi;
    ucp_rkey_h again;
    tc_status_t status;
    tc_maps_t after;
    uint64_t need;

    extent_p->obj = TC_SHM_OBJECT_NONE;
    if (ucp_rkey_ptr(rkey, base, &lo_ptr) != UCS_OK) {
        extent_p->kind = TC_EXTENT_TRANSPORT;
        return TC_OK;
    }
    extent_p->kind = TC_EXTENT_MAPPED;
    lo             = (uintptr_t)lo_ptr;
    if ((ucp_rkey_ptr(rkey, base + len - 1, &hi_ptr) != UCS_OK) ||
        ((uintptr_t)hi_ptr - lo != len - 1) || ((uintptr_t)hi_ptr < lo)) {
        return TC_EXTENT_REFUSE("mailbox 0x%llx + %llu bytes is not one piece of this side's "
                                "mapping of the peer's rkey", (unsigned long long)base,
                                (unsigned long long)len);
    }
    hi = (uintptr_t)hi_ptr;
    if ((ucp_ep_rkey_unpack(ep, rkey_buf, &again) != UCS_OK)) {
        return TC_EXTENT_REFUSE("the peer's rkey does not unpack a second time");
    }
    if (ucp_rkey_ptr(again, base, &lo2_ptr) != UCS_OK) {
        status = TC_EXTENT_REFUSE("the peer's rkey, unpacked again, maps nothing here");
        goto out_destroy;
    }

    status = tc_maps_read(&after);
    if (status != TC_OK) {
        status = TC_EXTENT_REFUSE("cannot read this process's memory map to check the mailbox");
        goto out_destroy;
    }
    status = tc_extent_walk(&after, lo, hi, base, len, why, &first, &last);
    if ((status == TC_OK) && ((uintptr_t)lo2_ptr != lo)) {
        status = tc_extent_same_object(&after, first, lo, (uintptr_t)lo2_ptr, why);
    }
    /* an object this process mapped before the unpack (its mailbox, a UCX
     * segment, another peer's mailbox) would let the peer aim this side's
     * writes at this side; a peer in this process owns them too */
    if ((status == TC_OK) && !in_process && tc_maps_has_object(before, first->dev, first->inode)) {
        status = TC_EXTENT_REFUSE("the peer's rkey maps a shared-memory object this "
                                  "process already maps (its own)");
    }
    if (status == TC_OK) {
        status = tc_shm_object_open(first, why, TC_WIRE_WHY_MAX, &extent_p->obj);
        status = (status == TC_ERR_UNSUPPORTED) ? TC_OK : status; /* the guard alone */
    }
    need = (last != NULL) ? tc_extent_obj_off(last, hi) + 1 : 0;
    if ((status == TC_OK) && (extent_p->obj.fd >= 0) && (extent_p->obj.size < need)) {
        status = TC_EXTENT_REFUSE("the peer's shared-memory object holds %llu bytes; its "
                                  "mailbox reaches byte %llu of it",
                                  (unsigned long long)extent_p->obj.size,
                                  (unsigned long long)need);
        tc_shm_object_close(&extent_p->obj);
    }
    if (status == TC_OK) {
        extent_p->map_start = first->start;
        extent_p->map_end   = last->end;
    }
    tc_maps_free(&after);
out_destroy:
    ucp_rkey_destroy(again);
    return status;
}
