/*
 * The connection blob's rules and the connect verdict (lib/codec/wire.h).
 */
#include "wire.h"
#include "frame.h"
#include "log.h"

#include <stdio.h>
#include <string.h>

#define TC_WIRE_REFUSE(...) (snprintf(why, TC_WIRE_WHY_MAX, __VA_ARGS__), TC_ERR_PROTOCOL)

/* The ring the peer asks this side to stage for: sized within limits, and
 * its frames fit this side's slots. */
static tc_status_t tc_wire_check_ring(const tc_peer_wire_t *r, const tc_wire_local_t *local,
                                      char *why)
{
    uint64_t ring = (uint64_t)r->slots * r->slot_size;
    uint64_t ring_max = (local->ring_bytes > TC_WIRE_RING_FLOOR) ? local->ring_bytes :
                                                                    TC_WIRE_RING_FLOOR;

    if ((r->slots < 2) || (r->slots & (r->slots - 1)) || (r->slots > TC_WIRE_SLOTS_MAX)) {
        return TC_WIRE_REFUSE("slots %u is not a power of two in [2, %u]", r->slots,
                              TC_WIRE_SLOTS_MAX);
    }
    if ((r->slot_size < TC_FRAME_MIN_SIZE) || (r->slot_size % TC_FRAME_ALIGN) ||
        (r->slot_size > TC_WIRE_SLOT_SIZE_MAX)) {
        return TC_WIRE_REFUSE("slot size %u is not a multiple of %u in [%u, %u]", r->slot_size,
                              TC_FRAME_ALIGN, TC_FRAME_MIN_SIZE, TC_WIRE_SLOT_SIZE_MAX);
    }
    if (ring > ring_max) {
        return TC_WIRE_REFUSE("a ring of %u x %u bytes is over the %llu bytes this side stages "
                              "for a peer (its own ring, at least %llu MiB)",
                              r->slots, r->slot_size, (unsigned long long)ring_max,
                              (unsigned long long)(TC_WIRE_RING_FLOOR >> 20));
    }
    if ((r->frame_size < TC_FRAME_MIN_SIZE) || (r->frame_size % TC_FRAME_ALIGN) ||
        (r->frame_size > local->rx_slot_size)) {
        return TC_WIRE_REFUSE("frame size %u is not a multiple of %u in [%u, %u] (this side's "
                              "slots)", r->frame_size, TC_FRAME_ALIGN, TC_FRAME_MIN_SIZE,
                              local->rx_slot_size);
    }
    return TC_OK;
}

/* The mailbox the ring lives in: laid out as this protocol lays it out,
 * padded to at most the largest page, not wrapping the address space. */
static tc_status_t tc_wire_check_mbox(const tc_peer_wire_t *r, char *why)
{
    uint64_t ring = (uint64_t)r->slots * r->slot_size;
    uint64_t need = tc_wire_mbox_need(r->slots, r->slot_size);

    if (r->ring_off != sizeof(tc_mbox_ctrl_t)) {
        return TC_WIRE_REFUSE("ring offset %llu is not %zu (the ctrl line)",
                              (unsigned long long)r->ring_off, sizeof(tc_mbox_ctrl_t));
    }
    if (r->raw_off != r->ring_off + ring) {
        return TC_WIRE_REFUSE("raw area offset %llu is not %llu (the end of the ring)",
                              (unsigned long long)r->raw_off,
                              (unsigned long long)(r->ring_off + ring));
    }
    if ((r->mbox_len < need) || (r->mbox_len > TC_ALIGN_UP(need, (uint64_t)TC_WIRE_PAGE_MAX))) {
        return TC_WIRE_REFUSE("mailbox length %llu is not %llu padded to a page",
                              (unsigned long long)r->mbox_len, (unsigned long long)need);
    }
    if ((r->mbox_base == 0) || (r->mbox_base + r->mbox_len < r->mbox_base)) {
        return TC_WIRE_REFUSE("mailbox 0x%llx + %llu bytes wraps the address space",
                              (unsigned long long)r->mbox_base,
                              (unsigned long long)r->mbox_len);
    }
    return TC_OK;
}

uint64_t tc_wire_blob_len(const tc_peer_wire_t *w)
{
    return sizeof(*w) + (uint64_t)w->worker_addr_len + w->rkey_len +
           (uint64_t)w->n_pkgs * sizeof(tc_wire_pkg_t);
}

/* Each package named once, by a printable name that ends in the field. */
static tc_status_t tc_wire_check_pkgs(const tc_peer_wire_t *r, const char *at, char *why)
{
    tc_wire_pkg_t pkg[TC_WIRE_PKGS_MAX];
    uint32_t i, j;
    size_t c;

    if (r->reserved != 0) {
        return TC_WIRE_REFUSE("reserved word is %u, not 0", r->reserved);
    }
    memcpy(pkg, at, (size_t)r->n_pkgs * sizeof(pkg[0]));
    for (i = 0; i < r->n_pkgs; ++i) {
        for (c = 0; (c < sizeof(pkg[i].name)) && (pkg[i].name[c] != '\0'); ++c) {
            if ((pkg[i].name[c] < 0x21) || (pkg[i].name[c] > 0x7e)) {
                return TC_WIRE_REFUSE("package %u's name holds byte 0x%02x", i,
                                      (unsigned char)pkg[i].name[c]);
            }
        }
        if ((c == 0) || (c == sizeof(pkg[i].name))) {
            return TC_WIRE_REFUSE("package %u's name is empty or unterminated", i);
        }
        for (j = 0; j < i; ++j) {
            if (pkg[j].id == pkg[i].id) {
                return TC_WIRE_REFUSE("package 0x%08x announced twice", pkg[i].id);
            }
        }
    }
    return TC_OK;
}

tc_status_t tc_wire_check(const void *blob, size_t blob_len, const tc_wire_local_t *local,
                          tc_peer_wire_t *remote, char *why)
{
    tc_peer_wire_t r;
    tc_status_t status;

    if (blob_len < sizeof(r)) {
        return TC_WIRE_REFUSE("connection blob too short (%zu bytes, at least %zu)", blob_len,
                              sizeof(r));
    }
    memcpy(&r, blob, sizeof(r));
    if (r.proto != TC_PROTO_VERSION) {
        snprintf(why, TC_WIRE_WHY_MAX, "speaks protocol %u, this side %u", r.proto,
                 TC_PROTO_VERSION);
        return TC_ERR_VERSION_MISMATCH;
    }
    if (r.n_pkgs > TC_WIRE_PKGS_MAX) {
        return TC_WIRE_REFUSE("announces %u packages, at most %u", r.n_pkgs, TC_WIRE_PKGS_MAX);
    }
    if (blob_len != tc_wire_blob_len(&r)) {
        return TC_WIRE_REFUSE("connection blob of %zu bytes, its header says %llu "
                              "(worker address %u, rkey %u, %u packages)", blob_len,
                              (unsigned long long)tc_wire_blob_len(&r), r.worker_addr_len,
                              r.rkey_len, r.n_pkgs);
    }
    status = tc_wire_check_pkgs(&r, (const char *)blob + blob_len -
                                        (size_t)r.n_pkgs * sizeof(tc_wire_pkg_t), why);
    if (status != TC_OK) {
        return status;
    }
    if (r.wait > TC_WAIT_ADAPTIVE) {
        return TC_WIRE_REFUSE("wait strategy %u is unknown", r.wait);
    }
    status = tc_wire_check_ring(&r, local, why);
    if (status == TC_OK) {
        status = tc_wire_check_mbox(&r, why);
    }
    if (status != TC_OK) {
        return status;
    }
    /* A receiver waits for a fixed frame's signal at its announced size, or
     * for a variable frame's header: frames of the other kind never look
     * complete, so a mismatch would be a silent timeout later. */
    if (r.frames != local->frames) {
        snprintf(why, TC_WIRE_WHY_MAX, "uses %s frames, this side %s: set "
                 "tc_context_params_t.frames (tc-perf -F) the same on both sides",
                 tc_frames_str((tc_frame_mode_t)r.frames),
                 tc_frames_str((tc_frame_mode_t)local->frames));
        return TC_ERR_INVALID_PARAM;
    }
    if ((r.worker_addr_len == 0) || (r.rkey_len == 0)) {
        return TC_WIRE_REFUSE("connection blob without a worker address or an rkey");
    }
    *remote = r;
    return TC_OK;
}

void tc_wire_verdict_init(tc_wire_verdict_t *v, tc_status_t status, const char *why)
{
    memset(v, 0, sizeof(*v));
    v->magic  = TC_WIRE_VERDICT_MAGIC;
    v->status = (int32_t)status;
    snprintf(v->why, sizeof(v->why), "%s", (why != NULL) ? why : "");
}

tc_status_t tc_wire_verdict_read(const void *buf, size_t len, tc_status_t *peer_status,
                                 char *why)
{
    tc_wire_verdict_t v;

    if ((len != sizeof(v)) || (memcpy(&v, buf, sizeof(v)), v.magic != TC_WIRE_VERDICT_MAGIC)) {
        snprintf(why, TC_WIRE_WHY_MAX, "sent a %zu-byte connect verdict, not one of %zu "
                 "(the two sides are out of step)", len, sizeof(v));
        return TC_ERR_PROTOCOL;
    }
    if ((v.status > 0) || (v.status <= TC_ERR_LAST)) {
        snprintf(why, TC_WIRE_WHY_MAX, "sent a connect verdict with status %d, not one",
                 (int)v.status);
        return TC_ERR_PROTOCOL;
    }
    /* the peer's words are data: printable, bounded, on one line */
    (void)tc_log_text(v.why, sizeof(v.why), why, TC_WIRE_WHY_MAX);
    *peer_status = (tc_status_t)v.status;
    return TC_OK;
}
