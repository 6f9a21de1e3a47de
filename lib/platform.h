/*
 * Transitional, to be deleted with lib/peer.c's copy of tc_peer_raw (issue
 * 12: the harness out of libtwochains). The platform report moved to the
 * harness (bench/harness/platform.h) and the library's CPU probe is cpu.h;
 * lib/peer.c, being split at the same time, still includes "platform.h" for
 * TC_PLATFORM_STATUS_LEN and still defines tc_peer_raw, whose handles the
 * harness now takes with tc_harness_peer_raw (bench/harness/peer_raw.h).
 * Nothing else in lib/ includes this header and it is not installed.
 */
#ifndef TC_LIB_PLATFORM_COMPAT_H
#define TC_LIB_PLATFORM_COMPAT_H

#include "cpu.h"

#include <stdint.h>

#define TC_PLATFORM_STATUS_LEN TC_CPU_STATUS_LEN

typedef struct tc_peer_raw {
    void              *ucp_worker;
    void              *ucp_ep;
    void              *ucp_rkey;
    uint64_t           remote_ring;
    uint64_t           remote_consumed;
    uint32_t           remote_slots, remote_slot_size;
    char              *local_ring;
    volatile uint64_t *local_consumed;
    uint32_t           local_slots, local_slot_size;
} tc_peer_raw_t;

void tc_peer_raw(const tc_peer_t *peer, tc_peer_raw_t *raw_p);

#endif
