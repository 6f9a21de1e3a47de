/*
 * Where a peer's rkey lets this side write, checked on this side: the
 * peer's whole mailbox must land in the mapping that ucp_ep_rkey_unpack
 * made for that rkey, identified by what it is (the shared-memory object,
 * offset and length the kernel lists for the address UCX returned), never
 * in memory this process had before (another segment, the heap, a stack)
 * nor in a second view of an object it already maps.
 */
#ifndef TC_WIRE_EXTENT_H
#define TC_WIRE_EXTENT_H

#include "maps.h"
#include "shm_object.h"
#include "wire.h"

#include <ucp/api/ucp.h>

/* How this side's writes to the peer are bounded. */
typedef enum {
    TC_EXTENT_MAPPED,    /* they land in a mapping of ours: checked here */
    TC_EXTENT_TRANSPORT  /* no mapping (cma, tcp, a NIC): the transport bounds them
                          * to the peer's own memory */
} tc_extent_kind_t;

/* The mapping a MAPPED mailbox lies in. */
typedef struct tc_extent {
    tc_extent_kind_t kind;
    uintptr_t        map_start, map_end; /* this side's mapping of the peer's object,
                                          * page-aligned: what the SIGBUS guard covers */
    tc_shm_object_t  obj;                /* the object, held open where it can be
                                          * (fd -1: not), the caller's to close */
} tc_extent_t;

/* Check [base, base + len) of the peer's memory under rkey, with before the
 * map read just before the rkey was unpacked (the objects this process
 * already mapped, none of which may be the peer's). in_process: the peer is
 * this process (a loopback bootstrap), whose objects this side already maps.
 * ep: the endpoint rkey_buf was unpacked on; the rkey is unpacked once more
 * to see which object it maps (a mapping another thread made meanwhile is
 * not it). TC_ERR_PROTOCOL with why (TC_WIRE_WHY_MAX bytes) for a mailbox
 * that lands elsewhere. */
tc_status_t tc_wire_extent_check(ucp_ep_h ep, const void *rkey_buf, ucp_rkey_h rkey,
                                 uint64_t base, uint64_t len, const tc_maps_t *before,
                                 int in_process, char *why, tc_extent_t *extent_p);

#endif
