/*
 * Raw UCX handles of a connected peer, for the harness's reference tests
 * (tc-perf put_*, am_*), which measure plain UCX on the same connection as
 * the jams. Each side's mailbox has a raw ring shaped like the jam ring and
 * a raw credit word (lib/core/runtime.h). Not part of the library's API: it hands
 * out the peer's internals.
 */
#ifndef TC_HARNESS_PEER_RAW_H
#define TC_HARNESS_PEER_RAW_H

#include "twochains.h"

#include <stdint.h>

typedef struct tc_harness_peer_raw {
    void              *ucp_worker;        /* ucp_worker_h */
    void              *ucp_ep;            /* ucp_ep_h */
    void              *ucp_rkey;          /* ucp_rkey_h of the peer's mailbox */
    uint64_t           remote_ring;       /* the peer's raw ring */
    uint64_t           remote_consumed;   /* the peer's raw credit word */
    uint32_t           remote_slots, remote_slot_size;
    char              *local_ring;        /* our raw ring, written by the peer */
    uint64_t          *local_consumed;    /* our raw credit word, written by the peer
                                           * (tc_read_once, lib/base/barrier.h) */
    uint32_t           local_slots, local_slot_size;
    /* the peer's raw ring and credit word in our address space (ucp_rkey_ptr:
     * same-host shared memory), NULL where the transport maps nothing */
    char              *remote_ring_ptr;
    uint64_t          *remote_consumed_ptr;
    tc_wait_t          wait;              /* how this side waits for the peer's frames */
    uint32_t           linewise_max;      /* how the library stores frames (lib/arch/place.h) */
} tc_harness_peer_raw_t;

void tc_harness_peer_raw(const tc_peer_t *peer, tc_harness_peer_raw_t *raw_p);

#endif
