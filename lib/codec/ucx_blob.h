/*
 * The two blobs a peer's connection blob hands to UCX: its worker address
 * (for ucp_ep_create) and its mailbox's packed rkey (for ucp_ep_rkey_unpack).
 * UCX 1.13 parses both without a length: every length and count in them is
 * the peer's word, and a flipped byte made UCX read past the blob or abort.
 * These validators walk the layouts UCX 1.13.1 packs (src/ucp/wireup/
 * address.c ucp_address_pack/unpack, src/ucp/core/ucp_rkey.c
 * ucp_rkey_pack/unpack; defined here, so the module stays pure: no UCX
 * headers) and accept a blob only when every field lies inside the bytes
 * present, the walk ends exactly at the blob's end, and what can be checked
 * from outside UCX holds. The transports' own address and rkey bytes (a
 * device, interface or endpoint address; one memory domain's rkey) are
 * opaque here: their lengths are bounded, their contents are UCX's to read
 * (docs/SECURITY.md lists what is and is not checked).
 */
#ifndef TC_UCX_BLOB_H
#define TC_UCX_BLOB_H

#include "twochains.h"

#include <stddef.h>
#include <stdint.h>

/* UCX 1.13's bounds (src/ucp/core/ucp_types.h) */
#define TC_UCX_MAX_RESOURCES   128 /* UCP_MAX_RESOURCES: interfaces in an address */
#define TC_UCX_MAX_MDS         64  /* UCP_MAX_MDS: bits of an md map */
#define TC_UCX_MAX_LANES       6   /* UCP_MAX_LANES */
#define TC_UCX_MAX_SYS_DEVICES 64  /* UCP_MAX_SYS_DEVICES: bits of a system-device map */

/* What a worker address that passed says about its sender. */
typedef struct tc_ucx_addr_info {
    unsigned version;    /* UCX's address version: 1 or 2 */
    unsigned n_devices;
    unsigned n_ifaces;
    uint64_t md_map;     /* the memory domains the address names (bit = md index) */
    struct {
        uint16_t tl_csum; /* UCX's checksum of the transport's name (ucs_crc16_string) */
        uint8_t  md;      /* the memory domain it belongs to */
    } ifaces[TC_UCX_MAX_RESOURCES];
} tc_ucx_addr_info_t;

/* Where each memory domain's key lies in a packed rkey that passed. */
typedef struct tc_ucx_rkey_info {
    unsigned n_mds;
    struct {
        uint8_t  md;      /* its index */
        uint8_t  len;     /* its key's bytes */
        uint16_t off;     /* their offset in the rkey */
    } mds[TC_UCX_MAX_MDS];
} tc_ucx_rkey_info_t;

/* A peer's worker address of len bytes, as ucp_ep_create would unpack it
 * (UCX's default, non-unified layout). TC_OK and what it names in *info_p,
 * or TC_ERR_PROTOCOL with why (why_len bytes) naming the field, its offset
 * and the rule. */
tc_status_t tc_ucx_addr_check(const void *addr, size_t len, char *why, size_t why_len,
                              tc_ucx_addr_info_t *info_p);

/* A peer's packed rkey of len bytes for host memory, as ucp_ep_rkey_unpack
 * would read it. addr_md_map: the memory domains the same peer's address
 * named (tc_ucx_addr_check), which every domain of the rkey must be one of;
 * 0 skips that check. TC_OK and where each domain's key lies in *info_p,
 * or TC_ERR_PROTOCOL with why naming the field. */
tc_status_t tc_ucx_rkey_check(const void *rkey, size_t len, uint64_t addr_md_map, char *why,
                              size_t why_len, tc_ucx_rkey_info_t *info_p);

#endif
