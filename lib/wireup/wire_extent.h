/*
 * Where a peer's rkey lets this side write, checked on this side: the
 * peer's whole mailbox must land in memory that ucp_ep_rkey_unpack mapped
 * for that rkey, never in memory this process had before (another segment,
 * the heap, a stack) nor in a second view of an object it already maps.
 */
#ifndef TC_WIRE_EXTENT_H
#define TC_WIRE_EXTENT_H

#include "maps.h"
#include "wire.h"

#include <ucp/api/ucp.h>

/* How this side's writes to the peer are bounded. */
typedef enum {
    TC_EXTENT_MAPPED,    /* they land in a mapping of ours: checked here */
    TC_EXTENT_TRANSPORT  /* no mapping (cma, tcp, a NIC): the transport bounds them
                          * to the peer's own memory */
} tc_extent_kind_t;

/* Check [base, base + len) of the peer's memory under rkey, with before the
 * map read just before the rkey was unpacked. in_process: the peer is this
 * process (a loopback bootstrap), whose objects this side already maps.
 * TC_ERR_PROTOCOL with why (TC_WIRE_WHY_MAX bytes) for a mailbox that
 * lands elsewhere. */
tc_status_t tc_wire_extent_check(ucp_rkey_h rkey, uint64_t base, uint64_t len,
                                 const tc_maps_t *before, int in_process, char *why,
                                 tc_extent_kind_t *kind_p);

#endif
