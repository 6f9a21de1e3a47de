/*
 * A peer's rkey, attached once domain by domain before UCP unpacks it
 * (lib/wireup/wire_rkey_probe.h). When a transport cannot attach what its key
 * names (an object the peer closed, a flipped segment id), UCX 1.13's
 * ucp_ep_rkey_unpack releases handles it never set (ucp_rkey_destroy after
 * a failed uct_rkey_unpack: ucp_rkey.c) and the process dies. So each key of
 * a transport that attaches memory (posix, sysv: shared memory) is first
 * unpacked by its UCT component and released again; a key that does not
 * attach refuses the connect. The connect unpacks the key twice, the first
 * still held (lib/wireup/wire_extent.c's second view), so the probe attaches
 * it twice at once too: a posix key's length is the peer's word, and one that
 * fits this side's address space once but not twice failed only in that
 * second unpack, into the same bug. A peer that unlinks its object between
 * this probe and UCP's unpacks still reaches UCX's bug (docs/SECURITY.md).
 */
#include "wire_rkey_probe.h"
#include "log.h"

#include <stdio.h>
#include <string.h>
#include <ucs/algorithm/crc.h>
#include <uct/api/uct.h>

/* The transports whose rkey unpack attaches memory; the component of the
 * same name unpacks their keys, reading a fixed head first (UCX 1.13:
 * uct_posix_packed_rkey_t seg_id, address, length; sysv's shmid and owner
 * address). */
static const char *const tc_probe_tls[] = {"posix", "sysv"};
static const uint8_t tc_probe_head[]    = {24, 12};
#define TC_POSIX_SEG_PROCFS   (1ull << 63) /* the object by /proc/<pid>/fd/<fd> */
#define TC_POSIX_SEG_SHM_OPEN (1ull << 62) /* by shm_open: else a file in a folder
                                            * whose name follows, NUL-terminated */

/* The transport of memory domain md in the peer's address, as an index of
 * tc_probe_tls, or -1. */
static int tc_probe_tl_of(const tc_ucx_addr_info_t *addr, unsigned md)
{
    unsigned i, t;

    for (i = 0; i < addr->n_ifaces; ++i) {
        if (addr->ifaces[i].md != md) {
            continue;
        }
        for (t = 0; t < TC_ARRAY_SIZE(tc_probe_tls); ++t) {
            if (addr->ifaces[i].tl_csum == ucs_crc16_string(tc_probe_tls[t])) {
                return (int)t;
            }
        }
    }
    return -1;
}

/* The key's bytes hold what the component reads before it attaches. */
static int tc_probe_key_whole(int tl, const uint8_t *key, size_t len)
{
    uint64_t seg_id;

    if (len < tc_probe_head[tl]) {
        return 0;
    }
    if (strcmp(tc_probe_tls[tl], "posix") != 0) {
        return 1;
    }
    memcpy(&seg_id, key, sizeof(seg_id));
    return (seg_id & (TC_POSIX_SEG_PROCFS | TC_POSIX_SEG_SHM_OPEN)) ||
           (memchr(key + tc_probe_head[tl], '\0', len - tc_probe_head[tl]) != NULL);
}

static uct_component_h tc_probe_component(uct_component_h *comps, unsigned n, const char *name)
{
    uct_component_attr_t attr;
    unsigned i;

    for (i = 0; i < n; ++i) {
        attr.field_mask = UCT_COMPONENT_ATTR_FIELD_NAME;
        if ((uct_component_query(comps[i], &attr) == UCS_OK) &&
            (strcmp(attr.name, name) == 0)) {
            return comps[i];
        }
    }
    return NULL;
}

tc_status_t tc_wire_rkey_probe(const tc_ucx_addr_info_t *addr, const void *rkey,
                               const tc_ucx_rkey_info_t *ri, char *why)
{
    uct_component_h *comps, comp;
    uct_rkey_bundle_t bundle[2]; /* the two views the connect holds at once */
    tc_status_t status = TC_OK;
    const uint8_t *key;
    ucs_status_t ucs;
    unsigned n, i;
    int tl;

    if (uct_query_components(&comps, &n) != UCS_OK) {
        snprintf(why, TC_WIRE_WHY_MAX, "rkey: cannot list UCX's components to check it");
        return TC_ERR_UCX;
    }
    for (i = 0; (i < ri->n_mds) && (status == TC_OK); ++i) {
        tl   = tc_probe_tl_of(addr, ri->mds[i].md);
        comp = (tl >= 0) ? tc_probe_component(comps, n, tc_probe_tls[tl]) : NULL;
        if (comp == NULL) {
            continue; /* nothing to attach, or a transport this side lacks */
        }
        key = (const uint8_t *)rkey + ri->mds[i].off;
        if (!tc_probe_key_whole(tl, key, ri->mds[i].len)) {
            snprintf(why, TC_WIRE_WHY_MAX, "rkey: the %s key of memory domain %u: %u bytes, "
                     "short of what %s reads", tc_probe_tls[tl], ri->mds[i].md,
                     ri->mds[i].len, tc_probe_tls[tl]);
            status = TC_ERR_PROTOCOL;
            continue;
        }
        ucs = uct_rkey_unpack(comp, key, &bundle[0]);
        if (ucs != UCS_OK) {
            snprintf(why, TC_WIRE_WHY_MAX,
                     "rkey: the %s key of memory domain %u names nothing this side can "
                     "attach (%s)", tc_probe_tls[tl], ri->mds[i].md, ucs_status_string(ucs));
            status = TC_ERR_PROTOCOL;
            continue;
        }
        ucs = uct_rkey_unpack(comp, key, &bundle[1]);
        if (ucs != UCS_OK) {
            snprintf(why, TC_WIRE_WHY_MAX,
                     "rkey: the %s key of memory domain %u names more than this side can "
                     "attach twice, as the connect does (%s)", tc_probe_tls[tl],
                     ri->mds[i].md, ucs_status_string(ucs));
            status = TC_ERR_PROTOCOL;
        } else {
            uct_rkey_release(comp, &bundle[1]);
        }
        uct_rkey_release(comp, &bundle[0]);
    }
    uct_release_component_list(comps);
    return status;
}
