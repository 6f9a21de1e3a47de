/*
 * The connection blob the two sides swap through the bootstrap at connect
 * (this side's mailbox, how it waits, its worker address and rkey), the
 * rules a peer's blob must keep before anything is allocated or mapped for
 * it, and the verdict each side sends back. Pure: no UCX, no runtime state.
 *
 * A peer's blob aims this side's writes: every put and store of ours to the
 * peer lands at mbox_base + offset. The geometry is checked here; where
 * those addresses land on this side is checked once the rkey is unpacked
 * (lib/wireup/wire_extent.c).
 */
#ifndef TC_WIRE_H
#define TC_WIRE_H

#include "twochains.h"

#include <stddef.h>
#include <stdint.h>

/* The mailbox memory each side registers for its peer. The peer writes the
 * ctrl line (credits) and the ring; the raw area is for reference puts. */
typedef struct tc_mbox_ctrl {
    uint64_t consumed;     /* frames of ours the peer has consumed (the peer's put
                            * writes it: read with tc_read_once) */
    uint64_t raw_consumed; /* reference path: raw puts the peer consumed */
    uint8_t           pad[48];
} tc_mbox_ctrl_t;

/* Swapped through the bootstrap. The mailbox is laid out as
 * | ctrl | ring (slots x slot_size) | raw area (as large) | pad to a page |. */
typedef struct tc_peer_wire {
    uint32_t proto;
    uint32_t rank;
    uint32_t wait;          /* how the sender of this blob waits (tc_wait_t) */
    uint32_t slots;
    uint32_t slot_size;
    uint64_t mbox_base;
    uint64_t ring_off;
    uint64_t raw_off;
    uint64_t mbox_len;
    uint32_t worker_addr_len;
    uint32_t rkey_len;
    uint32_t frame_size;    /* fixed frames: the size of the sender's frames */
    uint32_t frames;        /* the sender's tc_frame_mode_t: both sides must agree
                             * (0, fixed, is what builds before this field sent) */
    uint32_t n_pkgs;        /* the packages the sender loaded (tc_wire_pkg_t each) */
    uint32_t reserved;      /* 0 */
    /* followed by worker address, packed rkey, then n_pkgs tc_wire_pkg_t */
} tc_peer_wire_t;

#define TC_WIRE_PKGS_MAX     8   /* a context's packages (TC_MAX_PKGS) */
#define TC_WIRE_PKG_NAME_MAX 48

/* A package one side loaded, announced at connect: a call into a package
 * the peer did not load fails on the sender at once, naming both. */
typedef struct tc_wire_pkg {
    uint32_t id;            /* tc_pkg_desc_t.id: a hash of its name and content */
    uint32_t n_elements;
    char     name[TC_WIRE_PKG_NAME_MAX]; /* NUL-terminated, printable */
} tc_wire_pkg_t;

/* What a peer's ring may be: it sizes this side's staging ring (one frame
 * per remote slot), allocated at connect. */
#define TC_WIRE_SLOTS_MAX     65536u
#define TC_WIRE_SLOT_SIZE_MAX (16u << 20)
#define TC_WIRE_RING_FLOOR    (64ull << 20) /* a ring this large is always taken */
#define TC_WIRE_PAGE_MAX      65536u        /* the largest base page a peer pads to */
#define TC_WIRE_WHY_MAX       192           /* a refusal's reason, NUL included */

/* Bytes a mailbox of slots x slot_size needs before page padding. */
static inline uint64_t tc_wire_mbox_need(uint32_t slots, uint32_t slot_size)
{
    return sizeof(tc_mbox_ctrl_t) + 2 * (uint64_t)slots * slot_size;
}

/* The bytes of a blob whose header is w. */
uint64_t tc_wire_blob_len(const tc_peer_wire_t *w);

/* What this side brings to the check of a peer's blob. */
typedef struct tc_wire_local {
    uint64_t ring_bytes;    /* this side's own ring: a peer's may be as large */
    uint32_t rx_slot_size;  /* the peer's frames must fit this side's slots */
    uint32_t frames;        /* this side's tc_frame_mode_t */
} tc_wire_local_t;

/* Check a peer's blob of blob_len bytes (its fixed part copied to *remote on
 * success; its packages, checked too, are the blob's last bytes). TC_ERR_VERSION_MISMATCH for another protocol, TC_ERR_INVALID_PARAM
 * for frames of the other kind, TC_ERR_PROTOCOL for a blob that breaks a
 * rule; why (TC_WIRE_WHY_MAX bytes) then names the field and the rule. */
tc_status_t tc_wire_check(const void *blob, size_t blob_len, const tc_wire_local_t *local,
                          tc_peer_wire_t *remote, char *why);

/* The last step of connect, swapped both ways once each side has checked
 * the other's blob and made its endpoint: it is the barrier before either
 * side puts, and carries a refusal's reason to the side that was refused. */
typedef struct tc_wire_verdict {
    uint32_t magic;        /* TC_WIRE_VERDICT_MAGIC */
    int32_t  status;       /* TC_OK: go on; else why this side refused */
    char     why[TC_WIRE_WHY_MAX];
} tc_wire_verdict_t;

#define TC_WIRE_VERDICT_MAGIC 0x74637664u /* "tcvd" */

void tc_wire_verdict_init(tc_wire_verdict_t *v, tc_status_t status, const char *why);
/* Read a peer's verdict of len bytes into *peer_status and why
 * (TC_WIRE_WHY_MAX bytes: its reason, made printable). TC_ERR_PROTOCOL,
 * with why saying so, where the bytes are not a verdict. */
tc_status_t tc_wire_verdict_read(const void *buf, size_t len, tc_status_t *peer_status,
                                 char *why);

#endif
