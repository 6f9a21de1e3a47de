/*
 * Fuzz target for what a peer sends at connect (libFuzzer; also replayed by
 * tests/test_wire_corpus.c under gcc): the connection blob, the connect
 * verdict, and a memory map's text. The first byte picks which and, for a
 * blob, this side's configuration. Invariants: a blob tc_wire_check takes
 * describes a ring of the limited size inside a mailbox that does not wrap,
 * laid out as the protocol lays it out, with frames that fit this side's
 * slots and packages named once by a printable word; a refusal always says why; a verdict read gives a known status and
 * a printable reason; a map parsed is in address order or refused.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "maps.h"
#include "wire.h"
#include "frame.h"

#define FUZZ_REQUIRE(_cond) do { if (!(_cond)) { abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_blob(uint8_t cfg, const uint8_t *data, size_t size)
{
    static const tc_wire_local_t locals[] = {
        {64ull * 4096, 4096, TC_FRAMES_FIXED},
        {64ull * 65536, 65536, TC_FRAMES_VARIABLE},
        {1ull << 32, 1u << 20, TC_FRAMES_FIXED},
        {2ull * 64, 64, TC_FRAMES_VARIABLE},
    };
    const tc_wire_local_t *local = &locals[cfg % 4];
    char why[TC_WIRE_WHY_MAX];
    tc_peer_wire_t r;
    uint64_t ring, ring_max;
    tc_status_t status;

    why[0] = '\0';
    memset(&r, 0xa5, sizeof(r));
    status = tc_wire_check(data, size, local, &r, why);
    if (status != TC_OK) {
        FUZZ_REQUIRE((why[0] != '\0') && (memchr(why, '\0', sizeof(why)) != NULL));
        return;
    }
    ring     = (uint64_t)r.slots * r.slot_size;
    ring_max = (local->ring_bytes > TC_WIRE_RING_FLOOR) ? local->ring_bytes : TC_WIRE_RING_FLOOR;
    FUZZ_REQUIRE(size == sizeof(r) + (uint64_t)r.worker_addr_len + r.rkey_len +
                             (uint64_t)r.n_pkgs * sizeof(tc_wire_pkg_t));
    FUZZ_REQUIRE(r.n_pkgs <= TC_WIRE_PKGS_MAX);
    {   /* every package named once, by one printable word */
        const tc_wire_pkg_t *pkg = (const tc_wire_pkg_t *)(data + size -
                                                            r.n_pkgs * sizeof(tc_wire_pkg_t));
        uint32_t i, j;

        for (i = 0; i < r.n_pkgs; ++i) {
            tc_wire_pkg_t p;
            size_t n;

            memcpy(&p, pkg + i, sizeof(p));
            n = strnlen(p.name, sizeof(p.name));
            FUZZ_REQUIRE((n > 0) && (n < sizeof(p.name)));
            for (j = 0; j < n; ++j) {
                FUZZ_REQUIRE((p.name[j] > 0x20) && (p.name[j] < 0x7f));
            }
            for (j = 0; j < i; ++j) {
                tc_wire_pkg_t q;

                memcpy(&q, pkg + j, sizeof(q));
                FUZZ_REQUIRE(q.id != p.id);
            }
        }
    }
    FUZZ_REQUIRE((r.worker_addr_len > 0) && (r.rkey_len > 0));
    FUZZ_REQUIRE(r.proto == TC_PROTO_VERSION);
    FUZZ_REQUIRE((r.slots >= 2) && !(r.slots & (r.slots - 1)) && (r.slots <= TC_WIRE_SLOTS_MAX));
    FUZZ_REQUIRE((r.slot_size >= TC_FRAME_MIN_SIZE) && !(r.slot_size % TC_FRAME_ALIGN) &&
                 (r.slot_size <= TC_WIRE_SLOT_SIZE_MAX));
    FUZZ_REQUIRE(ring <= ring_max);
    FUZZ_REQUIRE((r.frame_size >= TC_FRAME_MIN_SIZE) && (r.frame_size <= local->rx_slot_size));
    /* every byte this side writes lies in [mbox_base, mbox_base + mbox_len) */
    FUZZ_REQUIRE(r.ring_off >= sizeof(tc_mbox_ctrl_t));
    FUZZ_REQUIRE(r.ring_off + ring <= r.raw_off);
    FUZZ_REQUIRE(r.raw_off + ring <= r.mbox_len);
    FUZZ_REQUIRE(r.mbox_len - tc_wire_mbox_need(r.slots, r.slot_size) < TC_WIRE_PAGE_MAX);
    FUZZ_REQUIRE((r.mbox_base != 0) && (r.mbox_base + r.mbox_len > r.mbox_base));
    FUZZ_REQUIRE(r.frames == local->frames);
    FUZZ_REQUIRE(r.wait <= TC_WAIT_ADAPTIVE);
}

static void fuzz_verdict(const uint8_t *data, size_t size)
{
    char why[TC_WIRE_WHY_MAX];
    tc_status_t theirs = TC_OK;
    size_t i;

    if (tc_wire_verdict_read(data, size, &theirs, why) != TC_OK) {
        FUZZ_REQUIRE(why[0] != '\0');
        return;
    }
    FUZZ_REQUIRE((theirs <= TC_OK) && (theirs > TC_ERR_LAST));
    for (i = 0; why[i] != '\0'; ++i) {
        FUZZ_REQUIRE(i < sizeof(why) - 1);
        FUZZ_REQUIRE((why[i] >= 0x20) && (why[i] < 0x7f)); /* one printable line */
    }
}

static void fuzz_maps(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    tc_maps_t maps;
    size_t i;

    if (text == NULL) {
        return;
    }
    memcpy(text, data, size);
    text[size] = '\0';
    if (tc_maps_parse(text, &maps) == TC_OK) {
        for (i = 0; i < maps.count; ++i) {
            FUZZ_REQUIRE(maps.ranges[i].start < maps.ranges[i].end);
            FUZZ_REQUIRE(tc_maps_find(&maps, maps.ranges[i].start) != NULL);
        }
        tc_maps_free(&maps);
    }
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) {
        return 0;
    }
    switch (data[0] >> 6) {
    case 0:
    case 1:
        fuzz_blob(data[0], data + 1, size - 1);
        break;
    case 2:
        fuzz_verdict(data + 1, size - 1);
        break;
    default:
        fuzz_maps(data + 1, size - 1);
        break;
    }
    return 0;
}
