/*
 * A peer's mailbox checked against what its rkey maps here
 * (lib/wireup/wire_extent.h). UCX 1.13's shared-memory transports take any remote
 * address: a put or a store to rkey_ptr(addr) is a plain write at addr plus
 * the rkey's offset, wherever that lands.
 */
#include "wire_extent.h"

#include <stdio.h>

#define TC_EXTENT_REFUSE(...) (snprintf(why, TC_WIRE_WHY_MAX, __VA_ARGS__), TC_ERR_PROTOCOL)

tc_status_t tc_wire_extent_check(ucp_rkey_h rkey, uint64_t base, uint64_t len,
                                 const tc_maps_t *before, int in_process, char *why,
                                 tc_extent_kind_t *kind_p)
{
    const tc_map_range_t *r, *first = NULL;
    void *lo_ptr, *hi_ptr;
    uintptr_t lo, hi, at;
    tc_status_t status;
    tc_maps_t after;

    if (ucp_rkey_ptr(rkey, base, &lo_ptr) != UCS_OK) {
        *kind_p = TC_EXTENT_TRANSPORT;
        return TC_OK;
    }
    *kind_p = TC_EXTENT_MAPPED;
    lo      = (uintptr_t)lo_ptr;
    if ((ucp_rkey_ptr(rkey, base + len - 1, &hi_ptr) != UCS_OK) ||
        ((uintptr_t)hi_ptr - lo != len - 1) || ((uintptr_t)hi_ptr < lo)) {
        return TC_EXTENT_REFUSE("mailbox 0x%llx + %llu bytes is not one piece of this side's "
                                "mapping of the peer's rkey", (unsigned long long)base,
                                (unsigned long long)len);
    }
    hi = (uintptr_t)hi_ptr;

    status = tc_maps_read(&after);
    if (status != TC_OK) {
        return TC_EXTENT_REFUSE("cannot read this process's memory map to check the mailbox");
    }
    for (at = lo; (at >= lo) && (at <= hi); at = r->end) {
        r = tc_maps_find(&after, at);
        if (r == NULL) {
            status = TC_EXTENT_REFUSE("mailbox 0x%llx + %llu bytes: byte %llu lands where "
                                      "this side maps nothing", (unsigned long long)base,
                                      (unsigned long long)len,
                                      (unsigned long long)(at - lo));
            break;
        }
        if (tc_maps_has_range(before, r) || !r->shm ||
            ((first != NULL) && ((r->dev != first->dev) || (r->inode != first->inode)))) {
            status = TC_EXTENT_REFUSE("mailbox 0x%llx + %llu bytes: byte %llu lands outside "
                                      "the memory the peer's rkey maps (in %s this process "
                                      "had)", (unsigned long long)base,
                                      (unsigned long long)len,
                                      (unsigned long long)(at - lo),
                                      r->shm ? "a shared-memory segment" : "memory");
            break;
        }
        /* a second view of one of this process's own objects (its
         * mailbox, a UCX segment) would let the peer aim this side's
         * writes at this side; a peer in this process owns them too */
        if ((first == NULL) && !in_process && tc_maps_has_object(before, r->dev, r->inode)) {
            status = TC_EXTENT_REFUSE("the peer's rkey maps a shared-memory object this "
                                      "process already maps (its own)");
            break;
        }
        if (first == NULL) {
            first = r;
        }
        if (r->end == 0) {
            break;
        }
    }
    tc_maps_free(&after);
    return status;
}
