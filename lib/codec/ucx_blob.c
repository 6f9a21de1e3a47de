/*
 * Validators of a peer's UCX worker address and packed rkey (lib/codec/ucx_blob.h).
 * Pure: no UCX. The layouts are UCX 1.13.1's; each rule says which of UCX's
 * reads it keeps inside the blob or which of its assumptions it checks.
 */
#include "ucx_blob.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* UCX's address header (src/ucp/wireup/address.c) */
#define ADDR_VERSION_MASK  0x0fu /* low nibble: 0 = UCX's V1, 1 = V2 */
#define ADDR_FLAG_DEBUG    0x01u /* worker name packed */
#define ADDR_FLAG_UUID     0x02u
#define ADDR_FLAG_CLIENT   0x04u
#define ADDR_FLAG_AM_ONLY  0x08u
#define ADDR_FLAGS_KNOWN   0x0fu
#define ADDR_NULL_RESOURCE 0xffu /* an address with no device */
/* device: md byte, then length byte with flags */
#define MD_EMPTY_DEV       0x80u
#define MD_MASK_V1         0x1fu /* V1 keeps two flag bits it no longer uses */
#define MD_MASK_V2         0x7fu /* 0x7f: the index is in the next byte */
#define DEV_LAST           0x80u
#define DEV_NUM_PATHS      0x40u
#define DEV_SYS_DEVICE     0x20u
#define DEV_LEN_MASK       0x1fu
/* interface: length byte with flags, after the attributes */
#define IFACE_LAST         0x80u
#define IFACE_HAS_EP       0x40u
#define IFACE_LEN_MASK     0x3fu
#define EP_LANE_LAST       0x80u
#define EP_LANE_MASK       0x3fu
#define IFACE_ATTR_V1      16u   /* 3 floats and prio/cap flags */
#define IFACE_ATTR_V2      8u    /* fp8 x 3, prio, seg_size, flags */
#define IFACE_FLAGS_V2     0x3ffu /* UCP_ADDR_IFACE_FLAG_*: bits 0-9 */
/* rkey */
#define RKEY_MEM_HOST      0u    /* UCS_MEMORY_TYPE_HOST */
#define RKEY_DISTANCE_LEN  3u    /* sys_dev, latency fp8, bandwidth fp8 */

typedef struct cursor {
    const uint8_t *base;
    size_t         len, off;
    char          *why;
    size_t         why_len;
} cursor_t;

static tc_status_t __attribute__((format(printf, 2, 3)))
refuse(cursor_t *c, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(c->why, c->why_len, fmt, ap);
    va_end(ap);
    return TC_ERR_PROTOCOL;
}

/* n bytes of field `what` at the cursor, or a refusal naming it. */
static tc_status_t take(cursor_t *c, size_t n, const char *what, const uint8_t **p_p)
{
    if (n > c->len - c->off) {
        return refuse(c, "%s: %zu bytes at offset %zu, the blob has %zu", what, n, c->off,
                      c->len);
    }
    *p_p = c->base + c->off;
    c->off += n;
    return TC_OK;
}

static tc_status_t take_u8(cursor_t *c, const char *what, uint8_t *v_p)
{
    const uint8_t *p = NULL;
    tc_status_t status = take(c, 1, what, &p);

    if (status == TC_OK) {
        *v_p = *p;
    }
    return status;
}

/* A value packed in the low bits of a byte, extended to the next byte when
 * they are all ones (V2 only: ucp_address_unpack_byte_extended). */
static tc_status_t take_extended(cursor_t *c, unsigned version, uint8_t mask, const char *what,
                                 uint8_t *byte_p, unsigned *value_p)
{
    uint8_t b, ext;
    tc_status_t status = take_u8(c, what, &b);

    if (status != TC_OK) {
        return status;
    }
    *byte_p  = b;
    *value_p = b & mask;
    if ((version == 2) && ((b & mask) == mask)) {
        status = take_u8(c, what, &ext);
        *value_p = ext;
    }
    return status;
}

static tc_status_t addr_header(cursor_t *c, unsigned *version_p)
{
    const uint8_t *p = NULL;
    uint8_t b, flags, name_len;
    tc_status_t status;

    status = take_u8(c, "address header", &b);
    if (status != TC_OK) {
        return status;
    }
    if ((b & ADDR_VERSION_MASK) > 1) {
        /* UCX asserts (aborts the process) on any other version */
        return refuse(c, "address version %u (UCX 1.13 knows 0 and 1)", b & ADDR_VERSION_MASK);
    }
    *version_p = (b & ADDR_VERSION_MASK) + 1;
    if (*version_p == 1) {
        flags = b >> 4;
    } else {
        status = take_u8(c, "address flags", &flags);
        if (status != TC_OK) {
            return status;
        }
        if (flags & ~ADDR_FLAGS_KNOWN) {
            return refuse(c, "address flags 0x%02x: bits UCX 1.13 does not pack", flags);
        }
    }
    /* V1 always carries the uuid where ucp_ep_create unpacks it */
    if ((*version_p == 1) || (flags & ADDR_FLAG_UUID)) {
        status = take(c, 8, "worker uuid", &p);
    }
    if ((status == TC_OK) && (flags & ADDR_FLAG_CLIENT)) {
        status = take(c, 8, "client id", &p);
    }
    if ((status == TC_OK) && (flags & ADDR_FLAG_DEBUG)) {
        status = take_u8(c, "worker name length", &name_len);
        if (status == TC_OK) {
            status = take(c, name_len, "worker name", &p);
        }
    }
    return status;
}

/* One interface's attributes: finite numbers UCX divides and compares by. */
static tc_status_t iface_attr(cursor_t *c, unsigned version, unsigned iface)
{
    const uint8_t *p = NULL;
    float v1[3], bw;
    uint16_t flags;
    tc_status_t status;

    status = take(c, (version == 1) ? IFACE_ATTR_V1 : IFACE_ATTR_V2, "interface attributes",
                  &p);
    if (status != TC_OK) {
        return status;
    }
    if (version == 1) {
        /* overhead, bandwidth (negative: a shared one, UCX 1.11's way), latency
         * overhead: UCX asserts on the negative score a negative time makes */
        memcpy(v1, p, sizeof(v1));
        bw = (v1[1] < 0.0f) ? -v1[1] : v1[1];
        if (!(v1[0] >= 0.0f) || !(v1[0] <= 1.0f) || !(v1[2] >= 0.0f) || !(v1[2] <= 1.0f)) {
            return refuse(c, "interface %u: overhead or latency %g s, %g s: not in [0, 1] s",
                          iface, (double)v1[0], (double)v1[2]);
        }
        if (!(bw >= 1.0f) || !(bw <= 1e15f)) {
            return refuse(c, "interface %u: bandwidth %g B/s: not in [1, 1e15]", iface,
                          (double)v1[1]);
        }
        return TC_OK;
    }
    /* fp8 numbers are finite by construction; the segment size is 0 on an
     * interface without active messages (cma) */
    memcpy(&flags, p + 6, sizeof(flags));
    if (flags & ~IFACE_FLAGS_V2) {
        return refuse(c, "interface %u: flags 0x%04x: bits UCX 1.13 does not pack", iface,
                      flags);
    }
    return TC_OK;
}

/* One interface: transport checksum, attributes, its address; a worker
 * address carries no endpoint addresses (only an endpoint's own does). */
static tc_status_t addr_iface(cursor_t *c, unsigned version, unsigned iface,
                              uint16_t *tl_csum_p, int *last_p)
{
    const uint8_t *p = NULL;
    uint8_t flags;
    unsigned iface_len;
    tc_status_t status;

    status = take(c, 2, "transport name checksum", &p);
    if (status == TC_OK) {
        memcpy(tl_csum_p, p, sizeof(*tl_csum_p));
        status = iface_attr(c, version, iface);
    }
    if (status == TC_OK) {
        status = take_extended(c, version, IFACE_LEN_MASK, "interface address length",
                               &flags, &iface_len);
    }
    if (status == TC_OK) {
        status = take(c, iface_len, "interface address", &p);
    }
    if (status != TC_OK) {
        return status;
    }
    if (flags & IFACE_HAS_EP) {
        return refuse(c, "interface %u: endpoint addresses in a worker address", iface);
    }
    *last_p = !!(flags & IFACE_LAST);
    return TC_OK;
}

static tc_status_t addr_device(cursor_t *c, unsigned version, tc_ucx_addr_info_t *info,
                               int *last_p)
{
    const uint8_t *p = NULL;
    uint8_t md_byte, dev_byte, num_paths, sys_dev;
    unsigned md, dev_len;
    int last_iface = 0;
    tc_status_t status;

    status = take_extended(c, version, (version == 1) ? MD_MASK_V1 : MD_MASK_V2,
                           "memory domain index", &md_byte, &md);
    if (status != TC_OK) {
        return status;
    }
    if (md >= TC_UCX_MAX_MDS) {
        /* UCX makes a 64-bit map of it: UCS_BIT(md) */
        return refuse(c, "device %u: memory domain %u (at most %u)", info->n_devices, md,
                      TC_UCX_MAX_MDS - 1);
    }
    info->md_map |= 1ull << md;
    status = take_extended(c, version, DEV_LEN_MASK, "device address length", &dev_byte,
                           &dev_len);
    if (status != TC_OK) {
        return status;
    }
    *last_p = !!(dev_byte & DEV_LAST);
    if (dev_byte & DEV_NUM_PATHS) {
        status = take_u8(c, "device paths", &num_paths);
        if ((status == TC_OK) && (num_paths < 2)) {
            /* packed only when above 1; UCX divides bandwidth by it */
            return refuse(c, "device %u: %u paths (packed only when more than one)",
                          info->n_devices, num_paths);
        }
    }
    if ((status == TC_OK) && (dev_byte & DEV_SYS_DEVICE)) {
        status = take_u8(c, "system device", &sys_dev);
        if ((status == TC_OK) && (sys_dev >= TC_UCX_MAX_SYS_DEVICES)) {
            return refuse(c, "device %u: system device %u (at most %u)", info->n_devices,
                          sys_dev, TC_UCX_MAX_SYS_DEVICES - 1);
        }
    }
    if (status == TC_OK) {
        status = take(c, dev_len, "device address", &p);
    }
    if ((status != TC_OK) || (md_byte & MD_EMPTY_DEV)) {
        return status; /* a device without interfaces names its domain only */
    }
    while ((status == TC_OK) && !last_iface) {
        if (info->n_ifaces >= TC_UCX_MAX_RESOURCES) {
            return refuse(c, "more than %u interfaces", TC_UCX_MAX_RESOURCES);
        }
        info->ifaces[info->n_ifaces].md = (uint8_t)md;
        status = addr_iface(c, version, info->n_ifaces, &info->ifaces[info->n_ifaces].tl_csum,
                            &last_iface);
        ++info->n_ifaces;
    }
    return status;
}

tc_status_t tc_ucx_addr_check(const void *addr, size_t len, char *why, size_t why_len,
                              tc_ucx_addr_info_t *info_p)
{
    cursor_t c = {addr, len, 0, why, why_len};
    tc_ucx_addr_info_t info;
    uint8_t first;
    int last_dev = 0;
    tc_status_t status;

    memset(&info, 0, sizeof(info));
    status = addr_header(&c, &info.version);
    if (status != TC_OK) {
        return status;
    }
    if (c.off >= c.len) {
        return refuse(&c, "device list: missing at offset %zu", c.off);
    }
    first = c.base[c.off];
    if (first == ADDR_NULL_RESOURCE) {
        ++c.off; /* no device: UCX stops here, and finds the peer unreachable */
        last_dev = 1;
    }
    while ((status == TC_OK) && !last_dev) {
        if (info.n_devices >= TC_UCX_MAX_RESOURCES) {
            return refuse(&c, "more than %u devices", TC_UCX_MAX_RESOURCES);
        }
        status = addr_device(&c, info.version, &info, &last_dev);
        ++info.n_devices;
    }
    if (status != TC_OK) {
        return status;
    }
    if (c.off != c.len) {
        return refuse(&c, "address ends at byte %zu of %zu (UCX packs it exactly)", c.off,
                      c.len);
    }
    *info_p = info;
    return TC_OK;
}

tc_status_t tc_ucx_rkey_check(const void *rkey, size_t len, uint64_t addr_md_map, char *why,
                              size_t why_len, tc_ucx_rkey_info_t *info_p)
{
    cursor_t c = {rkey, len, 0, why, why_len};
    tc_ucx_rkey_info_t info;
    const uint8_t *p = NULL;
    uint64_t md_map, m;
    uint8_t mem_type, size, sys_dev;
    size_t n;
    tc_status_t status;

    status = take(&c, sizeof(md_map), "rkey md map", &p);
    if (status != TC_OK) {
        return status;
    }
    memcpy(&md_map, p, sizeof(md_map));
    if (md_map == 0) {
        return refuse(&c, "rkey md map 0: no memory domain to reach the mailbox by");
    }
    if ((addr_md_map != 0) && (md_map & ~addr_md_map)) {
        return refuse(&c, "rkey md map 0x%llx names domains 0x%llx its worker address does "
                      "not", (unsigned long long)md_map,
                      (unsigned long long)(md_map & ~addr_md_map));
    }
    status = take_u8(&c, "rkey memory type", &mem_type);
    if (status != TC_OK) {
        return status;
    }
    if (mem_type != RKEY_MEM_HOST) {
        /* UCX indexes tables by it; a mailbox is host memory */
        return refuse(&c, "rkey memory type %u, a mailbox is host memory (%u)", mem_type,
                      RKEY_MEM_HOST);
    }
    info.n_mds = 0;
    for (m = md_map; (status == TC_OK) && (m != 0); m &= m - 1) {
        status = take_u8(&c, "rkey size of a memory domain", &size);
        if (status == TC_OK) {
            info.mds[info.n_mds].md  = (uint8_t)__builtin_ctzll(m);
            info.mds[info.n_mds].len = size;
            info.mds[info.n_mds].off = (uint16_t)c.off;
            ++info.n_mds;
            status = take(&c, size, "memory domain rkey", &p);
        }
    }
    if (status != TC_OK) {
        return status;
    }
    if (c.off == c.len) {
        *info_p = info;
        return TC_OK;
    }
    /* the memory's system device and its distances to the peer's devices */
    status = take_u8(&c, "rkey system device", &sys_dev);
    if (status != TC_OK) {
        return status;
    }
    if (sys_dev >= TC_UCX_MAX_SYS_DEVICES) {
        return refuse(&c, "rkey system device %u (at most %u)", sys_dev,
                      TC_UCX_MAX_SYS_DEVICES - 1);
    }
    n = c.len - c.off;
    if ((n % RKEY_DISTANCE_LEN) || (n / RKEY_DISTANCE_LEN > TC_UCX_MAX_SYS_DEVICES)) {
        return refuse(&c, "rkey distances: %zu bytes, not up to %u entries of %u", n,
                      TC_UCX_MAX_SYS_DEVICES, RKEY_DISTANCE_LEN);
    }
    for (; c.off < c.len; c.off += RKEY_DISTANCE_LEN) {
        if (c.base[c.off] >= TC_UCX_MAX_SYS_DEVICES) {
            return refuse(&c, "rkey distance to system device %u (at most %u)", c.base[c.off],
                          TC_UCX_MAX_SYS_DEVICES - 1);
        }
    }
    *info_p = info;
    return TC_OK;
}
