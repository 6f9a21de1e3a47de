/*
 * Fuzz target for the validators of a peer's UCX worker address and packed
 * rkey (lib/codec/ucx_blob.c; libFuzzer, also replayed by
 * tests/test_ucxblob_corpus.c under gcc). The first byte picks the input:
 * 0 an address, 1 an rkey, 2 a uint16_t address length, the address, then
 * the rkey checked against the address's memory domains. Invariants: a
 * refusal always says why in a NUL-terminated reason; a blob accepted is
 * walked again the way UCX 1.13.1 reads it (ucp_address_unpack with
 * ucp_ep_create's flags, ucp_ep_rkey_unpack: no lengths, as UCX does) in a
 * heap copy of exactly its size, so a read past it is a sanitizer report,
 * and the walk ends at its last byte.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ucx_blob.h"
#include "wire.h"

#define FUZZ_REQUIRE(_cond) do { if (!(_cond)) { abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ucp_address_unpack_byte_extended */
static const uint8_t *ucx_extended(const uint8_t *p, unsigned version, uint8_t mask,
                                   unsigned *v_p)
{
    *v_p = *p & mask;
    ++p;
    if ((version == 2) && (*v_p == mask)) {
        *v_p = *p++;
    }
    return p;
}

/* UCX's reads of a worker address, without bounds: where it stops. */
static size_t ucx_address_walk(const uint8_t *buf)
{
    const uint8_t *p = buf, *flags_p;
    unsigned version = (*p & 0x0f) + 1, flags, md, dev_len, iface_len, last_dev, last_tl;
    unsigned volatile sink = 0;

    flags = (version == 1) ? (unsigned)(*p >> 4) : p[1];
    p += version;
    if ((version == 1) || (flags & 0x02)) {
        p += 8;
    }
    if (flags & 0x04) {
        p += 8;
    }
    if (flags & 0x01) {
        p += 1 + *p;
    }
    if (*p == 0xff) {
        return (size_t)(p + 1 - buf);
    }
    do {
        int empty = *p & 0x80;

        p        = ucx_extended(p, version, (version == 1) ? 0x1f : 0x7f, &md);
        sink    += md;
        flags    = *p & 0xe0;
        last_dev = flags & 0x80;
        p        = ucx_extended(p, version, 0x1f, &dev_len);
        if (flags & 0x40) {
            sink += *p++;
        }
        if (flags & 0x20) {
            sink += *p++;
        }
        for (unsigned i = 0; i < dev_len; ++i) {
            sink += p[i]; /* the transport reads its device address */
        }
        p += dev_len;
        last_tl = empty;
        while (!last_tl) {
            sink   += p[0] + p[1];
            p      += 2 + ((version == 1) ? 16 : 8);
            flags_p = p;
            last_tl = *p & 0x80;
            p       = ucx_extended(p, version, 0x3f, &iface_len);
            for (unsigned i = 0; i < iface_len; ++i) {
                sink += p[i];
            }
            p += iface_len;
            FUZZ_REQUIRE(!(*flags_p & 0x40)); /* refused: no endpoint addresses */
        }
    } while (!last_dev);
    (void)sink;
    return (size_t)(p - buf);
}

/* ucp_ep_rkey_unpack's reads, then the optional system-device tail. */
static size_t ucx_rkey_walk(const uint8_t *buf, size_t len)
{
    const uint8_t *p = buf;
    uint64_t md_map;
    unsigned volatile sink = 0;

    memcpy(&md_map, p, sizeof(md_map));
    p += sizeof(md_map);
    sink += *p++; /* memory type */
    for (; md_map != 0; md_map &= md_map - 1) {
        unsigned size = *p++;

        for (unsigned i = 0; i < size; ++i) {
            sink += p[i]; /* the domain's component reads its rkey */
        }
        p += size;
    }
    if ((size_t)(p - buf) < len) {
        sink += *p++;
        for (; (size_t)(p - buf) < len; p += 3) {
            sink += p[0] + p[1] + p[2];
        }
    }
    (void)sink;
    return (size_t)(p - buf);
}

static void check_refusal(tc_status_t status, const char *why)
{
    FUZZ_REQUIRE(status == TC_ERR_PROTOCOL);
    FUZZ_REQUIRE((why[0] != '\0') && (memchr(why, '\0', TC_WIRE_WHY_MAX) != NULL));
}

static int fuzz_address(const uint8_t *data, size_t size, tc_ucx_addr_info_t *info)
{
    char why[TC_WIRE_WHY_MAX];
    tc_status_t status;
    uint8_t *copy;

    why[0] = '\0';
    status = tc_ucx_addr_check(data, size, why, sizeof(why), info);
    if (status != TC_OK) {
        check_refusal(status, why);
        return 0;
    }
    FUZZ_REQUIRE((info->version == 1) || (info->version == 2));
    FUZZ_REQUIRE(info->n_ifaces <= TC_UCX_MAX_RESOURCES);
    FUZZ_REQUIRE((info->n_devices == 0) == (info->md_map == 0));
    for (unsigned i = 0; i < info->n_ifaces; ++i) {
        FUZZ_REQUIRE(info->md_map & (1ull << info->ifaces[i].md));
    }
    copy = malloc(size);
    FUZZ_REQUIRE(copy != NULL);
    memcpy(copy, data, size);
    FUZZ_REQUIRE(ucx_address_walk(copy) == size);
    free(copy);
    return 1;
}

static void fuzz_rkey(const uint8_t *data, size_t size, uint64_t addr_md_map)
{
    char why[TC_WIRE_WHY_MAX];
    tc_ucx_rkey_info_t info;
    tc_status_t status;
    uint64_t md_map;
    uint8_t *copy;
    unsigned i;

    why[0] = '\0';
    status = tc_ucx_rkey_check(data, size, addr_md_map, why, sizeof(why), &info);
    if (status != TC_OK) {
        check_refusal(status, why);
        return;
    }
    memcpy(&md_map, data, sizeof(md_map));
    FUZZ_REQUIRE((addr_md_map == 0) || !(md_map & ~addr_md_map));
    FUZZ_REQUIRE(info.n_mds == (unsigned)__builtin_popcountll(md_map));
    for (i = 0; i < info.n_mds; ++i) { /* each domain's key inside the blob */
        FUZZ_REQUIRE(md_map & (1ull << info.mds[i].md));
        FUZZ_REQUIRE((size_t)info.mds[i].off + info.mds[i].len <= size);
    }
    copy = malloc(size);
    FUZZ_REQUIRE(copy != NULL);
    memcpy(copy, data, size);
    FUZZ_REQUIRE(ucx_rkey_walk(copy, size) == size);
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tc_ucx_addr_info_t info;
    uint16_t addr_len;

    if (size < 1) {
        return 0;
    }
    switch (data[0] % 3) {
    case 0:
        fuzz_address(data + 1, size - 1, &info);
        break;
    case 1:
        fuzz_rkey(data + 1, size - 1, 0);
        break;
    default:
        if (size < 3) {
            return 0;
        }
        memcpy(&addr_len, data + 1, sizeof(addr_len));
        if (addr_len > size - 3) {
            return 0;
        }
        if (fuzz_address(data + 3, addr_len, &info)) {
            fuzz_rkey(data + 3 + addr_len, size - 3 - addr_len, info.md_map);
        }
        break;
    }
    return 0;
}
