/*
 * Injected Function: namespace sync bookkeeping, the receiver's checks on
 * code that arrives, linking (GOT slots and base fixups, i-cache), and the
 * code cache of cached mode. The send and receive paths that use it are in
 * peer.c.
 */
#define _GNU_SOURCE
#include "runtime.h"
#include "log.h"
#include "wait_arch.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const char *const tc_mode_names[] = {"local", "injected", "cached"};

const char *tc_mode_str(tc_mode_t mode)
{
    return ((unsigned)mode < TC_ARRAY_SIZE(tc_mode_names)) ? tc_mode_names[mode] : "unknown";
}

tc_inj_t *tc_inj_find(tc_peer_t *peer, uint32_t pkg_id, uint16_t element)
{
    unsigned i;

    if ((peer->inj_last != NULL) && (peer->inj_last->pkg_id == pkg_id) &&
        (peer->inj_last->element == element)) {
        return peer->inj_last;
    }
    for (i = 0; i < peer->n_inj; ++i) {
        if ((peer->inj[i].pkg_id == pkg_id) && (peer->inj[i].element == element)) {
            peer->inj_last = &peer->inj[i];
            return peer->inj_last;
        }
    }
    return NULL;
}

/* The entry for a jam of a package loaded in this context; created on
 * first use. NULL if the jam has no blob here or the table is full. */
static tc_inj_t *tc_inj_create(tc_peer_t *peer, uint32_t pkg_id, uint16_t element)
{
    const tc_ctx_pkg_t *cp = tc_context_find_pkg(peer->ctx, pkg_id);
    const tc_blob_t *blob;
    tc_inj_t *inj;

    if ((cp == NULL) || ((blob = tc_pkg_blob(cp->pkg, element)) == NULL)) {
        return NULL;
    }
    if (peer->n_inj == TC_MAX_INJ) {
        tc_error("%s: more than %d injected jams", peer->name, TC_MAX_INJ);
        return NULL;
    }
    inj = &peer->inj[peer->n_inj++];
    memset(inj, 0, sizeof(*inj));
    inj->pkg_id  = pkg_id;
    inj->element = element;
    inj->blob    = blob;
    inj->state   = cp->state;
    inj->lib     = cp->pkg->handle;
    peer->inj_last = inj;
    return inj;
}

tc_inj_t *tc_inj_get(tc_peer_t *peer, const tc_jam_t *jam)
{
    tc_inj_t *inj = tc_inj_find(peer, jam->pkg_id, jam->element);

    return (inj != NULL) ? inj : tc_inj_create(peer, jam->pkg_id, jam->element);
}

void tc_inj_cleanup(tc_peer_t *peer)
{
    unsigned i;

    for (i = 0; i < peer->n_inj; ++i) {
        free(peer->inj[i].tx_gotp);
        free(peer->inj[i].rx_gotp);
    }
    peer->n_inj    = 0;
    peer->inj_last = NULL;
}

int64_t tc_inj_resolve(tc_peer_t *peer, tc_inj_t *inj)
{
    uint32_t n = inj->blob->hdr->got_count, i;
    const char *name;
    void *addr;

    if (inj->rx_resolved) {
        return TC_SYNC_OK;
    }
    free(inj->rx_gotp);
    inj->rx_gotp = calloc(n ? n : 1, sizeof(uint64_t));
    if (inj->rx_gotp == NULL) {
        return -1;
    }
    for (i = 0; i < n; ++i) {
        /* the package's library first (its rieds, then what it links:
         * libc), then rieds shipped here, then everything loaded globally
         * (libtwochains) */
        name = tc_blob_slot_name(inj->blob, i);
        addr = dlsym(inj->lib, name);
        if (addr == NULL) {
            addr = tc_ried_lookup(peer->ctx, name); /* rieds peers shipped here */
        }
        if (addr == NULL) {
            addr = dlsym(RTLD_DEFAULT, name);
        }
        if (addr == NULL) {
            tc_warn("%s: cannot resolve '%s' (GOT slot %u of element %u)", peer->name, name,
                    i, inj->element);
            return -(int64_t)i - 1;
        }
        inj->rx_gotp[i] = (uint64_t)(uintptr_t)addr;
    }
    inj->rx_resolved = 1;
    return TC_SYNC_OK;
}

const char *tc_inj_verify(tc_peer_t *peer, const tc_inj_t *inj, const tc_frame_hdr_t *hdr,
                          const uint8_t *got, const uint8_t *code, int check_gotp)
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
    if ((peer->ctx->params.exec == TC_EXEC_ALLOWLIST) &&
        (memcmp(code, inj->blob->image + bh->code_offset, hdr->code_len) != 0)) {
        return "code differs from the manifest's jam (tampered or another build)";
    }
    if (check_gotp) {
        if (!inj->rx_resolved) {
            return "injected before namespace sync";
        }
        if (memcmp(got, inj->rx_gotp, 8u * bh->got_count) != 0) {
            return "GOTP differs from the addresses resolved for this peer";
        }
    }
    return NULL;
}

/* Fixups are written through wbase (the RW view) with addresses of xbase
 * (where the image runs); the two differ only under W^X. */
static tc_jam_run_fn tc_inj_link_at(const tc_blob_t *blob, uint8_t *wbase, uint8_t *xbase)
{
    const tc_blob_file_hdr_t *bh = blob->hdr;
    uint32_t i;

    /* data words only: no instruction is rewritten */
    for (i = 0; i < bh->fixup_count; ++i) {
        uint64_t word = (uint64_t)(uintptr_t)xbase + (uint64_t)blob->fixups[i].addend;
        memcpy(wbase + blob->fixups[i].offset, &word, sizeof(word));
    }
    tc_arch_clear_icache(xbase + bh->code_offset, xbase + bh->image_size);
    return (tc_jam_run_fn)(void *)(xbase + bh->entry_offset);
}

tc_jam_run_fn tc_inj_link(const tc_blob_t *blob, uint8_t *base)
{
    return tc_inj_link_at(blob, base, base);
}

/* Under W^X the first TC_BLOB_MAX_IMAGE+1 bytes (rounded) are the transit
 * area injected frames are copied into; cached copies follow. */
#define TC_INJ_TRANSIT_BYTES TC_ALIGN_UP((size_t)TC_BLOB_MAX_IMAGE + 1, 4096)

static tc_status_t tc_inj_cache_map(tc_peer_t *peer)
{
    tc_context_t *ctx = peer->ctx;
    size_t len        = ctx->params.code_cache;
    int fd;

    if (ctx->code_cache != NULL) {
        return TC_OK;
    }
    if (!ctx->params.wx) {
        ctx->code_cache = mmap(NULL, len, PROT_READ | PROT_WRITE | PROT_EXEC,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (ctx->code_cache == MAP_FAILED) {
            ctx->code_cache = NULL;
            tc_error("%s: cannot map a %zu-byte executable code cache: %m", peer->name, len);
            return TC_ERR_NO_MEMORY;
        }
        ctx->code_cache_rx = ctx->code_cache;
        return TC_OK;
    }

    /* W^X: one memfd, a writable view and an executable one, never both */
    len += TC_INJ_TRANSIT_BYTES;
    fd = memfd_create("twochains-code", MFD_CLOEXEC);
    if ((fd < 0) || (ftruncate(fd, (off_t)len) != 0)) {
        tc_error("%s: W^X code cache: memfd: %m", peer->name);
        if (fd >= 0) {
            close(fd);
        }
        return TC_ERR_NO_MEMORY;
    }
    ctx->code_cache    = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ctx->code_cache_rx = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
    close(fd);
    if ((ctx->code_cache == MAP_FAILED) || (ctx->code_cache_rx == MAP_FAILED)) {
        tc_error("%s: W^X code cache: mmap: %m", peer->name);
        if (ctx->code_cache != MAP_FAILED) {
            munmap(ctx->code_cache, len);
        }
        if (ctx->code_cache_rx != MAP_FAILED) {
            munmap(ctx->code_cache_rx, len);
        }
        ctx->code_cache = ctx->code_cache_rx = NULL;
        return TC_ERR_NO_MEMORY;
    }
    ctx->code_cache_used = TC_INJ_TRANSIT_BYTES;
    return TC_OK;
}

void tc_inj_cache_unmap(tc_context_t *ctx)
{
    size_t len = ctx->params.code_cache + (ctx->params.wx ? TC_INJ_TRANSIT_BYTES : 0);

    if (ctx->code_cache == NULL) {
        return;
    }
    if (ctx->code_cache_rx != ctx->code_cache) {
        munmap(ctx->code_cache_rx, len);
    }
    munmap(ctx->code_cache, len);
    ctx->code_cache = ctx->code_cache_rx = NULL;
}

tc_status_t tc_inj_cache(tc_peer_t *peer, tc_inj_t *inj, const uint8_t *code)
{
    const tc_blob_file_hdr_t *bh = inj->blob->hdr;
    tc_context_t *ctx            = peer->ctx;
    size_t need                  = TC_ALIGN_UP((size_t)bh->image_size, TC_BLOB_IMAGE_ALIGN);
    size_t cap;
    tc_status_t status;
    uint8_t *base;

    status = tc_inj_cache_map(peer);
    if (status != TC_OK) {
        return status;
    }
    cap = ctx->params.code_cache + (ctx->params.wx ? TC_INJ_TRANSIT_BYTES : 0);
    if (ctx->code_cache_used + need > cap) {
        tc_error("%s: code cache full (%u bytes)", peer->name, ctx->params.code_cache);
        return TC_ERR_NO_RESOURCE;
    }
    base = ctx->code_cache + ctx->code_cache_used;

    memcpy(base, inj->rx_gotp, 8u * bh->got_count);
    memset(base + 8u * bh->got_count, 0, bh->code_offset - 8u * bh->got_count);
    memcpy(base + bh->code_offset, code, bh->image_size - bh->code_offset);
    inj->cache_image = base;
    inj->cache_run   = tc_inj_link_at(inj->blob, base,
                                      ctx->code_cache_rx + ctx->code_cache_used);
    ctx->code_cache_used += need;
    return TC_OK;
}

tc_jam_run_fn tc_inj_transit(tc_peer_t *peer, const tc_inj_t *inj, const uint8_t *got)
{
    const tc_blob_file_hdr_t *bh = inj->blob->hdr;
    tc_context_t *ctx            = peer->ctx;

    if (tc_inj_cache_map(peer) != TC_OK) {
        return NULL;
    }
    /* A frame that passed the checks carries exactly the blob's code and the
     * GOTP resolved for this peer: if the transit area already holds this
     * jam's image, rewriting the same bytes would only make the CPU treat
     * its code as modified (x86 SMC clears cost ~0.5 us a frame here). */
    if (ctx->transit_inj == (const void *)inj) {
        return ctx->transit_run;
    }
    memcpy(ctx->code_cache, got, bh->image_size); /* GOTP, pad, CODE as checked */
    ctx->transit_inj = inj;
    ctx->transit_run = tc_inj_link_at(inj->blob, ctx->code_cache, ctx->code_cache_rx);
    return ctx->transit_run;
}
