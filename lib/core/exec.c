/*
 * The execution rule, in one place: the receiver runs only bytes it owns and
 * has checked, never bytes a peer can still write.
 *
 * A peer's puts may rewrite any byte of its ring at any moment, also between
 * the receiver's check of a frame and its call. So what a frame carries is
 * only ever compared or copied, never run or used as a GOT:
 *   - allowlist (default): a frame's code and GOTP are compared with the
 *     receiver's own blob and the GOT it resolved for this peer; what runs is
 *     the receiver's own copy of its blob, linked once with that GOT, in the
 *     peer's code area. Cached mode runs the same copy.
 *   - any: the frame's image is first copied into memory the peer cannot
 *     write, the copy is checked, linked and run; cached code is linked from
 *     such a copy.
 *   - in place (policy any and params.in_place, for measuring the paper's
 *     layout only): the frame runs in the slot. It does not hold against a
 *     racing peer, and nothing else here relies on it.
 * The code area belongs to its peer and goes with it: under W^X one memfd
 * mapped twice (a RW view the receiver writes, a RX view code runs from),
 * else one private RWX mapping; the mailbox itself is never executable
 * except in place.
 */
#define _GNU_SOURCE
#include "runtime.h"
#include "exec.h"
#include "log.h"
#include "wait_arch.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The first TC_EXEC_TRANSIT_BYTES of a code area take the copy of the
 * latest injected image under policy any; linked images follow. */
#define TC_EXEC_TRANSIT_BYTES TC_ALIGN_UP((size_t)TC_BLOB_MAX_IMAGE + 1, 4096)

static tc_status_t tc_exec_area_map(tc_peer_t *peer)
{
    tc_code_area_t *area = &peer->code;
    size_t len           = TC_EXEC_TRANSIT_BYTES + peer->ctx->params.code_cache;
    int fd;

    if (area->rw != NULL) {
        return TC_OK;
    }
    if (!peer->ctx->params.wx) {
        area->rw = mmap(NULL, len, PROT_READ | PROT_WRITE | PROT_EXEC,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (area->rw == MAP_FAILED) {
            area->rw = NULL;
            tc_error("%s: cannot map %zu bytes of executable code area: %m", peer->wireup->name, len);
            return TC_ERR_NO_MEMORY;
        }
        area->rx = area->rw;
        goto mapped;
    }

    /* W^X: one memfd, a writable view and an executable one, never both */
    fd = memfd_create("twochains-code", MFD_CLOEXEC);
    if ((fd < 0) || (ftruncate(fd, (off_t)len) != 0)) {
        tc_error("%s: W^X code area: memfd: %m", peer->wireup->name);
        goto err_close;
    }
    area->rw = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (area->rw == MAP_FAILED) {
        tc_error("%s: W^X code area: mmap RW: %m", peer->wireup->name);
        goto err_close;
    }
    area->rx = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
    if (area->rx == MAP_FAILED) {
        tc_error("%s: W^X code area: mmap RX: %m", peer->wireup->name);
        goto err_unmap_rw;
    }
    close(fd);

mapped:
    area->len  = len;
    area->used = TC_EXEC_TRANSIT_BYTES;
    return TC_OK;

err_unmap_rw:
    munmap(area->rw, len);
err_close:
    if (fd >= 0) {
        close(fd);
    }
    area->rw = area->rx = NULL;
    return TC_ERR_NO_MEMORY;
}

void tc_exec_cleanup(tc_peer_t *peer)
{
    tc_code_area_t *area = &peer->code;

    if (area->rw != NULL) {
        if (area->rx != area->rw) {
            munmap(area->rx, area->len);
        }
        munmap(area->rw, area->len);
    }
    free(area->transit_src);
    memset(area, 0, sizeof(*area));
}

/* Fixups are written through wbase (the RW view) with addresses of xbase
 * (where the image runs); the two differ only under W^X. Data words only:
 * no instruction is rewritten. */
static tc_jam_run_fn tc_exec_link_at(const tc_blob_t *blob, uint8_t *wbase, uint8_t *xbase)
{
    const tc_blob_file_hdr_t *bh = blob->hdr;
    uint32_t i;

    for (i = 0; i < bh->fixup_count; ++i) {
        uint64_t word = (uint64_t)(uintptr_t)xbase + (uint64_t)blob->fixups[i].addend;
        memcpy(wbase + blob->fixups[i].offset, &word, sizeof(word));
    }
    tc_arch_clear_icache(xbase + bh->code_offset, xbase + bh->image_size);
    return (tc_jam_run_fn)(void *)(xbase + bh->entry_offset);
}

/* A linked image in the peer's code area: the GOT resolved for the peer,
 * then code, which must be memory the peer cannot write (the receiver's
 * blob, or a copy). */
static tc_status_t tc_exec_link_image(tc_peer_t *peer, const tc_inj_t *inj, const uint8_t *code,
                                      tc_jam_run_fn *run_p)
{
    const tc_blob_file_hdr_t *bh = inj->blob->hdr;
    size_t need = TC_ALIGN_UP((size_t)bh->image_size, TC_BLOB_IMAGE_ALIGN);
    tc_code_area_t *area = &peer->code;
    tc_status_t status;
    uint8_t *w;

    status = tc_exec_area_map(peer);
    if (status != TC_OK) {
        return status;
    }
    if (area->used + need > area->len) {
        tc_error("%s: code area full (%u bytes)", peer->wireup->name, peer->ctx->params.code_cache);
        return TC_ERR_NO_RESOURCE;
    }
    w = area->rw + area->used;
    memcpy(w, inj->rx_gotp, 8u * bh->got_count);
    memset(w + 8u * bh->got_count, 0, bh->code_offset - 8u * bh->got_count);
    memcpy(w + bh->code_offset, code, bh->image_size - bh->code_offset);
    *run_p = tc_exec_link_at(inj->blob, w, area->rx + area->used);
    area->used += need;
    return TC_OK;
}

/* The receiver's own blob of the jam, linked with the GOT it resolved for
 * this peer: what runs under the allow-list. Made once per (peer, jam). */
static tc_jam_run_fn tc_exec_own(tc_peer_t *peer, tc_inj_t *inj)
{
    const tc_blob_file_hdr_t *bh = inj->blob->hdr;

    if ((inj->own_run == NULL) &&
        (tc_exec_link_image(peer, inj, inj->blob->image + bh->code_offset, &inj->own_run) !=
         TC_OK)) {
        return NULL;
    }
    return inj->own_run;
}

/* The checks every frame that carries or names code passes first. */
static const char *tc_exec_check_layout(const tc_peer_t *peer, const tc_inj_t *inj,
                                        const tc_frame_hdr_t *hdr)
{
    const tc_blob_file_hdr_t *bh = inj->blob->hdr;

    if (peer->ctx->params.exec == TC_EXEC_LOCAL_ONLY) {
        return "this receiver runs no injected code (local-only policy)";
    }
    if (hdr->got_count != bh->got_count) {
        return "GOT slot count differs from the manifest";
    }
    if (hdr->code_len != bh->image_size - bh->code_offset) {
        return "code size differs from the manifest";
    }
    return NULL;
}

/* Policy any: copy the frame's image out of the slot, check the copy, and
 * run a linked copy of it. The transit area keeps the latest image linked,
 * so a stream of one jam rewrites no code (on x86 every rewrite of code
 * costs a self-modifying-code clear). */
static const char *tc_exec_any(tc_peer_t *peer, tc_inj_t *inj, const uint8_t *image,
                               tc_jam_run_fn *run_p)
{
    const tc_blob_file_hdr_t *bh = inj->blob->hdr;
    tc_code_area_t *area         = &peer->code;
    const char *why;
    uint8_t *copy;

    if (tc_exec_area_map(peer) != TC_OK) {
        return "no executable memory for the checked copy";
    }
    if ((area->transit_src == NULL) &&
        ((area->transit_src = malloc(2 * (size_t)TC_EXEC_TRANSIT_BYTES)) == NULL)) {
        return "no memory for the checked copy";
    }
    copy = area->transit_src + TC_EXEC_TRANSIT_BYTES;
    memcpy(copy, image, bh->image_size);
    why = tc_exec_check_image(peer, inj, copy, 1);
    if (why != NULL) {
        return why;
    }
    if ((area->transit_inj != inj) || memcmp(copy, area->transit_src, bh->image_size)) {
        memcpy(area->transit_src, copy, bh->image_size);
        memcpy(area->rw, copy, bh->image_size);
        area->transit_inj = inj;
        area->transit_run = tc_exec_link_at(inj->blob, area->rw, area->rx);
    }
    *run_p = area->transit_run;
    return NULL;
}

const char *tc_exec_injected(tc_peer_t *peer, tc_inj_t *inj, const tc_frame_hdr_t *hdr,
                             uint8_t *image, tc_jam_run_fn *run_p)
{
    const tc_context_params_t *params = &peer->ctx->params;
    const char *why = tc_exec_check_layout(peer, inj, hdr);

    if (why != NULL) {
        return why;
    }
    if (!inj->rx_resolved) {
        return "injected before namespace sync";
    }
    if (params->in_place) {
        /* the paper's layout, for measuring it: checked, then run in the
         * slot, which a racing peer can rewrite in between */
        if (!peer->mbox_exec) {
            return "the mailbox is not executable on this host (RWX refused)";
        }
        why = tc_exec_check_image(peer, inj, image, 1);
        if (why == NULL) {
            *run_p = tc_exec_link_at(inj->blob, image, image);
        }
        return why;
    }
    if (params->exec == TC_EXEC_ANY) {
        return tc_exec_any(peer, inj, image, run_p);
    }
    why = tc_exec_check_image(peer, inj, image, 1);
    if (why != NULL) {
        return why;
    }
    *run_p = tc_exec_own(peer, inj);
    return (*run_p != NULL) ? NULL : "no executable memory for the receiver's copy";
}

const char *tc_exec_cache(tc_peer_t *peer, tc_inj_t *inj, const tc_frame_hdr_t *hdr,
                          const uint8_t *code)
{
    const tc_blob_file_hdr_t *bh = inj->blob->hdr;
    const char *why              = tc_exec_check_layout(peer, inj, hdr);

    if (why != NULL) {
        return why;
    }
    if (peer->ctx->params.exec != TC_EXEC_ANY) {
        /* the request's code decides only whether to cache: what is cached
         * is the receiver's own blob */
        if (memcmp(code, inj->blob->image + bh->code_offset, bh->image_size - bh->code_offset)) {
            return "code differs from the manifest's jam (tampered or another build)";
        }
        if (inj->cache_run == NULL) {
            inj->cache_run = tc_exec_own(peer, inj);
        }
        return (inj->cache_run != NULL) ? NULL : "no executable memory for the code cache";
    }
    /* any: nothing checks the content; what runs is the copy linked into
     * the code area, which the peer cannot write (a sync for code already
     * held keeps it) */
    if (inj->cache_run != NULL) {
        return NULL;
    }
    return (tc_exec_link_image(peer, inj, code, &inj->cache_run) == TC_OK) ?
               NULL : "no executable memory for the code cache";
}

const char *tc_exec_cached(tc_peer_t *peer, tc_inj_t *inj, tc_jam_run_fn *run_p)
{
    if (peer->ctx->params.exec == TC_EXEC_LOCAL_ONLY) {
        return "this receiver runs no injected code (local-only policy)";
    }
    /* lost (tc_peer_forget_code): under the allow-list it was our own blob */
    if ((inj->cache_run == NULL) && (peer->ctx->params.exec == TC_EXEC_ALLOWLIST) &&
        inj->rx_resolved) {
        inj->cache_run = tc_exec_own(peer, inj);
    }
    *run_p = inj->cache_run;
    return NULL;
}

int64_t tc_exec_sync_allowed(const tc_peer_t *peer, const tc_inj_t *inj)
{
    if (peer->ctx->params.exec == TC_EXEC_LOCAL_ONLY) {
        return TC_SYNC_LOCAL_ONLY; /* nothing it syncs could run here */
    }
    /* under W^X its image runs from the read-only RX view: the jam would
     * fault on its first store to its own .data or .bss */
    return (peer->ctx->params.wx && (inj->writable > 0)) ? TC_SYNC_WRITABLE : TC_SYNC_OK;
}
