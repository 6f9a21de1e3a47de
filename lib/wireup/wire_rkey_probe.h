/*
 * A peer's rkey attached once, domain by domain, by UCT before UCP unpacks
 * it (lib/wireup/wire_rkey_probe.c says why).
 */
#ifndef TC_WIRE_RKEY_PROBE_H
#define TC_WIRE_RKEY_PROBE_H

#include "twochains.h"
#include "ucx_blob.h"
#include "wire.h"

/* rkey: the peer's packed rkey, which passed tc_ucx_rkey_check (ri) and
 * whose worker address passed tc_ucx_addr_check (addr). TC_OK when every
 * shared-memory key (posix, sysv) has the size its transport reads and
 * attaches here; else TC_ERR_PROTOCOL with why (TC_WIRE_WHY_MAX bytes). */
tc_status_t tc_wire_rkey_probe(const tc_ucx_addr_info_t *addr, const void *rkey,
                               const tc_ucx_rkey_info_t *ri, char *why);

#endif
