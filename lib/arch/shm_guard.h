/*
 * A process-wide SIGBUS guard over shared memory another process owns: a
 * store or load through a mapping of an object its owner shrank faults
 * (SIGBUS past the object's end). Inside a registered range the handler
 * maps anonymous pages over the whole range (as Wayland's wl_shm does for
 * a client's pool), notes the hit and returns: the access completes into
 * memory nobody reads, and the owner of the range asks tc_shm_guard_hit
 * where it checks liveness anyway, so the hot path pays nothing. A fault
 * anywhere else goes to the handler installed before (or the default
 * action). Pure: no UCX. docs/SECURITY.md, "Memory the peer owns".
 */
#ifndef TC_SHM_GUARD_H
#define TC_SHM_GUARD_H

#include "twochains.h"

#include <stddef.h>
#include <stdint.h>

/* Ranges guarded at once in the process (peers' mailboxes). */
#define TC_SHM_GUARD_MAX 1024

/* Guard [start, start + len) (page-aligned by the caller: the whole mapping
 * that may fault); installs the handler at the first use. *id_p names it
 * for the calls below. TC_ERR_NO_RESOURCE when every entry is taken,
 * TC_ERR_INVALID_PARAM for a range that is not page-aligned or empty,
 * TC_ERR_IO when the handler cannot be installed (logged). */
tc_status_t tc_shm_guard_add(uintptr_t start, size_t len, int *id_p);
/* Stop guarding (before the range is unmapped: a later mapping there is
 * someone else's); id < 0 is ignored. */
void        tc_shm_guard_remove(int id);
/* Nonzero once a fault in the range was taken (the range is anonymous
 * memory since); 0 for id < 0. */
int         tc_shm_guard_hit(int id);
/* The address of the first fault taken in the range (0: none). */
uintptr_t   tc_shm_guard_fault_addr(int id);

#endif
