/*
 * Wireup: connect to a peer in steps (this side's mailbox, the wire
 * exchange over the bootstrap, the UCX endpoint and the peer's mailbox),
 * decide the data path once, and tear the connection down again. Nothing
 * here is on the data path (model: UCX src/ucp/wireup).
 */
#define _GNU_SOURCE
#include "runtime.h"
#include "clock.h"
#include "credits.h"
#include "log.h"
#include "mailbox.h"
#include "peer_wait.h"
#include "send.h"
#include "shm_guard.h"
#include "boot.h"
#include "wire_extent.h"
#include "ucx_blob.h"
#include "wire_rkey_probe.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void tc_peer_err_cb(void *arg, ucp_ep_h ep, ucs_status_t ucs)
{
    tc_peer_t *peer = arg;

    (void)ep;
    /* reported by the next liveness check, after what the peer put before
     * it went (a goodbye, say) has been read */
    if (peer->ep_error == UCS_OK) {
        peer->ep_error = ucs;
    }
}

/* Decide whether wait loops must progress the worker: when no lane does
 * puts (UCX emulates them over active messages) or a put lane is tcp, the
 * target must progress for a put to land. Decided from what UCX says it
 * selected for the endpoint; one tcp lane for the puts (a put lane, or
 * the AM lane they are emulated on) also says the peer lands them in
 * stream order (put_landed_by_peer). */
static void tc_peer_detect_transports(tc_peer_t *peer)
{
    char lanes[16][32];
    char *info = NULL, *line, *save = NULL;
    size_t info_len = 0, used = 0;
    int emulated = 0, n_put = 0, am_tcp = 0;
    unsigned lane;
    FILE *stream;

    memset(lanes, 0, sizeof(lanes));
    peer->wireup->transports[0] = '\0';
    stream = open_memstream(&info, &info_len);
    if (stream != NULL) {
        ucp_ep_print_info(peer->ep, stream);
        fclose(stream);
    }

    for (line = (info != NULL) ? strtok_r(info, "\n", &save) : NULL; line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        char *p;
        /* "#   lane[1]:  4:posix/memory.0 md[3] -> ..." */
        if (((p = strstr(line, "lane[")) != NULL) && (sscanf(p, "lane[%u]", &lane) == 1) &&
            (lane < 16) && ((p = strstr(p, "]:")) != NULL) && ((p = strchr(p + 2, ':')) != NULL)) {
            snprintf(lanes[lane], sizeof(lanes[lane]), "%.*s", (int)strcspn(p + 1, " \t"),
                     p + 1);
            /* "... -> md[0]/tcp/sysdev[255] rma_bw#0 am am_bw#0": the AM lane */
            if ((strncmp(lanes[lane], "tcp", 3) == 0) && ((p = strstr(p, "->")) != NULL) &&
                ((strstr(p, " am ") != NULL) || (strcmp(p + strlen(p) - 3, " am") == 0))) {
                am_tcp = 1;
            }
            continue;
        }
        /* "#   put[1]: 0..<short>..4294967296..<bcopy>..(inf)" */
        if (((p = strstr(line, "put[")) != NULL) && (sscanf(p, "put[%u]", &lane) == 1) &&
            (lane < 16) && (lanes[lane][0] != '\0')) {
            if (strncmp(lanes[lane], "tcp", 3) == 0) {
                emulated = 1;
            }
            if (strstr(peer->wireup->transports, lanes[lane]) == NULL) {
                used += (size_t)snprintf(peer->wireup->transports + used,
                                         sizeof(peer->wireup->transports) - used, "%s%s",
                                         (n_put > 0) ? "," : "", lanes[lane]);
            }
            ++n_put;
        }
    }
    free(info);
    /* one tcp lane carries every put: a put lane, or, with none, the AM
     * lane UCX emulates them on */
    peer->wireup->put_landed_by_peer = ((n_put == 1) && emulated) || ((n_put == 0) && am_tcp);

    if (n_put == 0) {
        /* no put lane: name the lane the emulated puts travel on */
        emulated = 1;
        used = (size_t)snprintf(peer->wireup->transports, sizeof(peer->wireup->transports), "am-emulated:%s",
                                lanes[0][0] ? lanes[0] : "unknown");
    }

    switch (peer->ctx->params.progress) {
    case TC_PROGRESS_ALWAYS:
        peer->progress     = 1;
        peer->wireup->progress_why = "forced on";
        break;
    case TC_PROGRESS_NEVER:
        peer->progress     = 0;
        peer->wireup->progress_why = "forced off";
        break;
    default:
        peer->progress     = emulated;
        peer->wireup->progress_why = (n_put == 0) ? "auto: no put lane, UCX emulates puts over AM" :
                             emulated     ? "auto: put lane is tcp, the target completes puts" :
                                            "auto: puts are one-sided";
        break;
    }
}

/* UCX 1.13's shared-memory transports have no peer-failure handling: asking
 * for it would silently move the data path to tcp. Ask for it only when the
 * user restricted UCX to network transports; otherwise a dead peer is found
 * through the bootstrap connection and the wait-loop timeout. */
static ucp_err_handling_mode_t tc_peer_err_mode(void)
{
    static const char *const shm[] = {"all", "sm", "shm", "posix", "sysv", "cma",
                                      "knem", "xpmem", "self"};
    const char *tls = getenv("UCX_TLS");
    unsigned i;

    if ((tls == NULL) || (*tls == '\0') || (*tls == '^')) {
        return UCP_ERR_HANDLING_MODE_NONE;
    }
    for (i = 0; i < TC_ARRAY_SIZE(shm); ++i) {
        if (strstr(tls, shm[i]) != NULL) {
            return UCP_ERR_HANDLING_MODE_NONE;
        }
    }
    return UCP_ERR_HANDLING_MODE_PEER;
}

/* --------------------------------------------------------------- connect */

/* The packages this side loaded, for the peer, at out (any alignment: the
 * blob is bytes; out is zeroed). */
static void tc_wireup_pkgs_out(const tc_context_t *ctx, char *out)
{
    tc_wire_pkg_t pkg;
    unsigned i;

    for (i = 0; i < ctx->n_pkgs; ++i) {
        const tc_pkg_desc_t *desc = ctx->pkgs[i].pkg->desc;

        memset(&pkg, 0, sizeof(pkg));
        pkg.id         = desc->id;
        pkg.n_elements = desc->n_elements;
        snprintf(pkg.name, sizeof(pkg.name), "%s", desc->name);
        memcpy(out + (size_t)i * sizeof(pkg), &pkg, sizeof(pkg));
    }
}

/* What the peer loaded, for a message: "'bench' 0x07d41ed4, ...". */
static void tc_peer_pkgs_str(const tc_peer_t *peer, char *buf, size_t len)
{
    size_t used = 0;
    uint32_t i;

    buf[0] = '\0';
    for (i = 0; (i < peer->wireup->n_peer_pkgs) && (used < len); ++i) {
        used += (size_t)snprintf(buf + used, len - used, "%s'%s' 0x%08x", (i > 0) ? ", " : "",
                                 peer->wireup->peer_pkgs[i].name, peer->wireup->peer_pkgs[i].id);
    }
    if (peer->wireup->n_peer_pkgs == 0) {
        snprintf(buf, len, "no package");
    }
}

tc_status_t tc_peer_check_pkg(const tc_peer_t *peer, const tc_jam_t *jam)
{
    char loaded[TC_WIRE_PKGS_MAX * (TC_WIRE_PKG_NAME_MAX + 16)];
    uint32_t i;

    for (i = 0; i < peer->wireup->n_peer_pkgs; ++i) {
        if (peer->wireup->peer_pkgs[i].id == jam->pkg_id) {
            return TC_OK;
        }
    }
    tc_peer_pkgs_str(peer, loaded, sizeof(loaded));
    tc_error("%s loaded %s; jam '%s' is in '%s' 0x%08x, which it did not load (load the same "
             "package on both sides, before tc_peer_connect)", peer->wireup->name, loaded,
             jam->elem->name, jam->pkg->desc->name, jam->pkg_id);
    return TC_ERR_NOT_FOUND;
}

/* Step 2: swap wire blobs through the bootstrap (ours: this side's mailbox,
 * worker address and rkey) and check the peer's (lib/codec/wire.c) before
 * anything is allocated for it. The blob is the caller's to free; *remote_p
 * its fixed part; why the reason of a refusal. */
static tc_status_t tc_wireup_exchange(tc_peer_t *peer, tc_boot_t *boot, char *why,
                                      tc_peer_wire_t *remote_p, void **peer_blob_p)
{
    tc_wire_local_t local;
    const tc_context_params_t *params = &peer->ctx->params;
    ucp_address_t *worker_addr;
    size_t worker_addr_len, rkey_len, blob_len, peer_blob_len = 0;
    void *rkey_buf, *blob, *peer_blob = NULL;
    tc_peer_wire_t wire, remote;
    ucs_status_t ucs;
    tc_status_t status;

    ucs = ucp_worker_get_address(peer->ctx->worker, &worker_addr, &worker_addr_len);
    if (ucs != UCS_OK) {
        tc_error("ucp_worker_get_address: %s", ucs_status_string(ucs));
        return TC_ERR_UCX;
    }
    ucs = ucp_rkey_pack(peer->ctx->ucp, peer->mbox_memh, &rkey_buf, &rkey_len);
    if (ucs != UCS_OK) {
        tc_error("ucp_rkey_pack: %s", ucs_status_string(ucs));
        status = TC_ERR_UCX;
        goto out_release_addr;
    }

    memset(&wire, 0, sizeof(wire));
    wire.proto           = TC_PROTO_VERSION;
    wire.rank            = params->rank;
    wire.wait            = (uint32_t)peer->wait;
    wire.slots           = params->slots;
    wire.slot_size       = params->slot_size;
    wire.mbox_base       = (uintptr_t)peer->mbox;
    wire.ring_off        = (uint64_t)(peer->rx_ring - peer->mbox);
    wire.raw_off         = (uint64_t)(peer->raw - peer->mbox);
    wire.mbox_len        = peer->mbox_len;
    wire.worker_addr_len = (uint32_t)worker_addr_len;
    wire.rkey_len        = (uint32_t)rkey_len;
    wire.frame_size      = peer->tx_frame_size;
    wire.frames          = (uint32_t)peer->ctx->params.frames;
    wire.n_pkgs          = peer->ctx->n_pkgs;

    blob_len = tc_wire_blob_len(&wire);
    blob     = calloc(1, blob_len);
    if (blob == NULL) {
        status = TC_ERR_NO_MEMORY;
        goto out_release_rkey;
    }
    memcpy(blob, &wire, sizeof(wire));
    memcpy((char *)blob + sizeof(wire), worker_addr, worker_addr_len);
    memcpy((char *)blob + sizeof(wire) + worker_addr_len, rkey_buf, rkey_len);
    tc_wireup_pkgs_out(peer->ctx, (char *)blob + sizeof(wire) + worker_addr_len + rkey_len);
    status = tc_boot_exchange(boot, blob, blob_len, &peer_blob, &peer_blob_len);
    free(blob);
    if (status != TC_OK) {
        goto out_release_rkey;
    }

    local.ring_bytes   = (uint64_t)params->slots * params->slot_size;
    local.rx_slot_size = peer->rx_slot_size;
    local.frames       = (uint32_t)params->frames;
    status = tc_wire_check(peer_blob, peer_blob_len, &local, &remote, why);
    if (status != TC_OK) {
        tc_error("%s: connection blob refused: %s", peer->wireup->name, why);
        goto out_free_blob;
    }
    peer->wireup->n_peer_pkgs = remote.n_pkgs;
    memcpy(peer->wireup->peer_pkgs, (char *)peer_blob + peer_blob_len -
                                (size_t)remote.n_pkgs * sizeof(tc_wire_pkg_t),
           (size_t)remote.n_pkgs * sizeof(tc_wire_pkg_t));
    *remote_p    = remote;
    *peer_blob_p = peer_blob;
    peer_blob    = NULL;
    status       = TC_OK;

out_free_blob:
    free(peer_blob);
out_release_rkey:
    ucp_rkey_buffer_release(rkey_buf);
out_release_addr:
    ucp_worker_release_address(peer->ctx->worker, worker_addr);
    return status;
}

/* The peer's worker address and rkey, checked before UCX parses them: UCX
 * 1.13 reads both without a length (lib/codec/ucx_blob.h); then its
 * shared-memory keys attached once (lib/wireup/wire_rkey_probe.h). */
static tc_status_t tc_wireup_check_ucx(tc_peer_t *peer, const tc_peer_wire_t *remote,
                                       const char *addresses, char *why)
{
    char what[TC_WIRE_WHY_MAX - 16];
    tc_ucx_addr_info_t addr;
    tc_ucx_rkey_info_t rkey;
    const char *rkey_buf = addresses + remote->worker_addr_len;
    tc_status_t status;

    if (tc_ucx_addr_check(addresses, remote->worker_addr_len, what, sizeof(what), &addr) !=
        TC_OK) {
        snprintf(why, TC_WIRE_WHY_MAX, "worker address: %s", what);
        status = TC_ERR_PROTOCOL;
    } else if (tc_ucx_rkey_check(rkey_buf, remote->rkey_len, addr.md_map, what, sizeof(what),
                                 &rkey) != TC_OK) {
        snprintf(why, TC_WIRE_WHY_MAX, "rkey: %s", what);
        status = TC_ERR_PROTOCOL;
    } else {
        status = tc_wire_rkey_probe(&addr, rkey_buf, &rkey, why);
    }
    if (status != TC_OK) {
        tc_error("%s: connection blob refused: %s", peer->wireup->name, why);
    }
    return status;
}

/* The peer's mapping is let go (the rkey's destroy unmaps it): unguarded
 * first, its object closed. */
static void tc_peer_unguard(tc_peer_t *peer)
{
    tc_shm_guard_remove(peer->wireup->remote_guard);
    peer->wireup->remote_guard = -1;
    tc_shm_object_close(&peer->wireup->remote_obj);
}

/* Step 3: the endpoint to the peer's worker, its mailbox's rkey (and, on
 * shared memory, a mapping of its ring for direct placement), and the
 * staging ring our frames are put from. */
static tc_status_t tc_wireup_endpoint(tc_peer_t *peer, const tc_peer_wire_t *remote,
                                      const char *addresses, char *why)
{
    tc_extent_t extent;
    ucp_ep_params_t ep_params;
    tc_maps_t before;
    ucs_status_t ucs;
    tc_status_t status;

    status = tc_wireup_check_ucx(peer, remote, addresses, why);
    if (status != TC_OK) {
        return status;
    }
    memset(&ep_params, 0, sizeof(ep_params));
    ep_params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS |
                           UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                           UCP_EP_PARAM_FIELD_ERR_HANDLER;
    ep_params.address         = (const ucp_address_t *)addresses;
    ep_params.err_mode        = tc_peer_err_mode();
    peer->wireup->ep_forcible         = (ep_params.err_mode == UCP_ERR_HANDLING_MODE_PEER);
    ep_params.err_handler.cb  = tc_peer_err_cb;
    ep_params.err_handler.arg = peer;
    ucs = ucp_ep_create(peer->ctx->worker, &ep_params, &peer->ep);
    if (ucs != UCS_OK) {
        snprintf(why, TC_WIRE_WHY_MAX, "ucp_ep_create: %s", ucs_status_string(ucs));
        tc_error("%s: %s", peer->wireup->name, why);
        return TC_ERR_UCX;
    }

    /* what this process mapped before the rkey: the peer's mailbox must
     * land in what the unpack adds (lib/wireup/wire_extent.c) */
    status = tc_maps_read(&before);
    if (status != TC_OK) {
        snprintf(why, TC_WIRE_WHY_MAX, "cannot read this process's memory map");
        goto err_close_ep;
    }
    ucs = ucp_ep_rkey_unpack(peer->ep, addresses + remote->worker_addr_len, &peer->rkey);
    if (ucs != UCS_OK) {
        snprintf(why, TC_WIRE_WHY_MAX, "ucp_ep_rkey_unpack: %s", ucs_status_string(ucs));
        tc_error("%s: %s", peer->wireup->name, why);
        tc_maps_free(&before);
        status = TC_ERR_UCX;
        goto err_close_ep;
    }
    status = tc_wire_extent_check(peer->ep, addresses + remote->worker_addr_len, peer->rkey,
                                  remote->mbox_base, remote->mbox_len, &before,
                                  tc_boot_in_process(peer->wireup->boot), why, &extent);
    tc_maps_free(&before);
    if (status != TC_OK) {
        tc_error("%s: connection blob refused: %s", peer->wireup->name, why);
        goto err_destroy_rkey;
    }
    /* the peer owns what that mapping shows: shrunk, a store faults */
    peer->wireup->remote_obj = extent.obj;
    if ((extent.kind == TC_EXTENT_MAPPED) &&
        (tc_shm_guard_add(extent.map_start, extent.map_end - extent.map_start,
                          &peer->wireup->remote_guard) != TC_OK)) {
        snprintf(why, TC_WIRE_WHY_MAX, "cannot guard the mapping of the peer's mailbox");
        tc_error("%s: %s", peer->wireup->name, why);
        status = TC_ERR_NO_RESOURCE;
        goto err_unguard;
    }
    /* Direct placement needs the peer's ring in our address space; only
     * shared-memory transports can give it (tc_peer_set_placement says). */
    if ((ucp_rkey_ptr(peer->rkey, peer->remote_ring, (void **)&peer->remote_ring_ptr) != UCS_OK) ||
        (ucp_rkey_ptr(peer->rkey, peer->remote_base + offsetof(tc_mbox_ctrl_t, consumed),
                      (void **)&peer->remote_consumed_ptr) != UCS_OK)) {
        peer->remote_ring_ptr     = NULL;
        peer->remote_consumed_ptr = NULL;
    }

    status = tc_mbox_mem_alloc(peer,
                               (size_t)peer->tx_slots * peer->tx_slot_size +
                                   sizeof(tc_mbox_ctrl_t),
                               &peer->wireup->tx_memh, (void **)&peer->tx_ring);
    if (status != TC_OK) {
        snprintf(why, TC_WIRE_WHY_MAX, "cannot allocate the staging ring");
        goto err_unguard;
    }
    peer->credit_src = (uint64_t *)(peer->tx_ring +
                                    (size_t)peer->tx_slots * peer->tx_slot_size);
    peer->zero_src   = peer->credit_src + 1;
    peer->tx_code_in = calloc(peer->tx_slots, sizeof(*peer->tx_code_in));
    if (peer->tx_code_in == NULL) {
        snprintf(why, TC_WIRE_WHY_MAX, "out of memory");
        status = TC_ERR_NO_MEMORY;
        goto err_unmap_tx;
    }
    peer->tx_slot_frame = calloc(peer->tx_slots, sizeof(*peer->tx_slot_frame));
    if (peer->tx_slot_frame == NULL) {
        status = TC_ERR_NO_MEMORY;
        goto err_free_code_in;
    }
    return TC_OK;

err_free_code_in:
    free(peer->tx_code_in);
    peer->tx_code_in = NULL;
err_unmap_tx:
    ucp_mem_unmap(peer->ctx->ucp, peer->wireup->tx_memh);
err_unguard:
    tc_peer_unguard(peer);
err_destroy_rkey:
    ucp_rkey_destroy(peer->rkey);
err_close_ep:
    ucp_ep_destroy(peer->ep);
    return status;
}

/* What the peer's wire blob says about its mailbox and how it waits. */
static void tc_wireup_apply(tc_peer_t *peer, const tc_peer_wire_t *remote)
{
    peer->peer_rank    = remote->rank;
    peer->doorbell     = (remote->wait == TC_WAIT_EVENT) || (remote->wait == TC_WAIT_ADAPTIVE);
    peer->tx_slots     = remote->slots;
    peer->tx_slot_size = remote->slot_size;
    peer->remote_base  = remote->mbox_base;
    peer->remote_ring  = remote->mbox_base + remote->ring_off;
    peer->wireup->remote_raw   = remote->mbox_base + remote->raw_off;
    peer->credit_batch = (peer->rx_slots >= 4) ? peer->rx_slots / 4 : 1;
    peer->rx_frame_size = remote->frame_size;
    peer->frames       = peer->ctx->params.frames;
    tc_rx_path_set(peer, tc_rx_path_of(peer));
    peer->stats.last_ret_seq = UINT32_MAX; /* no result yet */
    peer->disp_element       = UINT32_MAX;
}

/* The peer's process, as limits per process know it: the id of the UCX
 * worker whose address our endpoint was made from (every connection of
 * one context has it; UCX matches endpoints by it). Where UCX cannot say,
 * the connection alone (serials are not worker ids: the top bit). */
static uint64_t tc_wireup_proc(const tc_peer_t *peer, const char *address)
{
    ucp_worker_address_attr_t attr;

    attr.field_mask = UCP_WORKER_ADDRESS_ATTR_FIELD_UID;
    if (ucp_worker_address_query((ucp_address_t *)address, &attr) != UCS_OK) {
        return (1ull << 63) | peer->wireup->serial;
    }
    return attr.worker_uid;
}

/* Step 1: this side's choices, from params over the context's defaults. */
static tc_status_t tc_wireup_params(tc_peer_t *peer, const tc_peer_params_t *params)
{
    uint64_t mask = (params != NULL) ? params->field_mask : 0;

    peer->wait          = (mask & TC_PEER_PARAM_FIELD_WAIT) ? params->wait : peer->ctx->params.wait;
    peer->tx_frame_size = (mask & TC_PEER_PARAM_FIELD_FRAME_SIZE) ? params->frame_size :
                                                                      TC_FRAME_MIN_SIZE;
    if ((peer->tx_frame_size < TC_FRAME_MIN_SIZE) || (peer->tx_frame_size % TC_FRAME_ALIGN)) {
        tc_error("%s: frame size %u is not a multiple of %u (at least %u)", peer->wireup->name,
                 peer->tx_frame_size, TC_FRAME_ALIGN, TC_FRAME_MIN_SIZE);
        return TC_ERR_INVALID_PARAM;
    }
    return tc_context_check_wait(peer->ctx, peer->wait);
}

/* Step 4: swap verdicts. Each side sends its own once its endpoint exists
 * (so it is also the barrier before either side puts), or the reason it
 * refused the peer, which the peer then reports. TC_OK only when both
 * sides go on. */
static tc_status_t tc_wireup_verdict(tc_peer_t *peer, tc_boot_t *boot, tc_status_t mine,
                                     const char *why)
{
    char their_why[TC_WIRE_WHY_MAX];
    tc_status_t status, theirs;
    tc_wire_verdict_t verdict;
    void *buf = NULL;
    size_t len = 0;

    tc_wire_verdict_init(&verdict, mine, why);
    status = tc_boot_exchange(boot, &verdict, sizeof(verdict), &buf, &len);
    if (status != TC_OK) {
        return (mine != TC_OK) ? mine : status;
    }
    status = tc_wire_verdict_read(buf, len, &theirs, their_why);
    free(buf);
    if (mine != TC_OK) {
        return mine;
    }
    if (status != TC_OK) {
        tc_error("%s %s", peer->wireup->name, their_why);
        return status;
    }
    if (theirs != TC_OK) {
        tc_error("%s refused the connection: %s", peer->wireup->name, their_why);
        return TC_ERR_REFUSED;
    }
    return TC_OK;
}

/* The frame kinds that are not jams, and what frames leave owed, each
 * registered by the module that owns it in the context's table that
 * dispatch reads (before the first peer can land a frame; the same again
 * at every connect). Multicast registers its own with its engine. */
static tc_status_t tc_wireup_rx_kinds(tc_context_t *ctx)
{
    tc_status_t status;

    tc_peer_wait_register(ctx);
    tc_rx_progress_register(ctx);
    status = tc_send_rx_register(ctx);

    if (status == TC_OK) {
        status = tc_inj_rx_register(ctx);
    }
    if (status == TC_OK) {
        status = tc_ried_rx_register(ctx);
    }
    if (status == TC_OK) {
        status = tc_ctrl_rx_register(ctx);
    }
    return status;
}

/* A peer's claimed rank, where the caller knows what it must be. */
#define TC_RANK_ANY UINT32_MAX

/* The peer, line-aligned (its send and receive parts fill whole cache
 * lines), then each cold part (runtime.h) in its own zeroed allocation,
 * as UCX's ucp_ep and its ext: a part's size or layout moves nothing of
 * the peer's lines. Each part but wireup's own is made and freed by the
 * module that owns it. The NACKs owed (reject's queue): one per slot of
 * the ring the peer's frames land in. */
static tc_status_t tc_peer_alloc(uint32_t slots, tc_peer_t **peer_p)
{
    tc_peer_t *peer;

    if (posix_memalign((void **)&peer, 64, sizeof(*peer)) != 0) {
        return TC_ERR_NO_MEMORY;
    }
    memset(peer, 0, sizeof(*peer));
    peer->wireup = calloc(1, sizeof(*peer->wireup));
    if (peer->wireup == NULL) {
        goto err_free_peer;
    }
    if (tc_peer_reject_alloc(peer, slots) != TC_OK) {
        goto err_free_wireup;
    }
    if (tc_peer_ctrl_alloc(peer) != TC_OK) {
        goto err_free_reject;
    }
    if (tc_peer_inj_alloc(peer) != TC_OK) {
        goto err_free_control;
    }
    if (tc_peer_ried_alloc(peer) != TC_OK) {
        goto err_free_injs;
    }
    *peer_p = peer;
    return TC_OK;

err_free_injs:
    tc_peer_inj_free(peer);
err_free_control:
    tc_peer_ctrl_free(peer);
err_free_reject:
    tc_peer_reject_free(peer);
err_free_wireup:
    free(peer->wireup);
err_free_peer:
    free(peer);
    return TC_ERR_NO_MEMORY;
}

/* The cold parts in the reverse of their allocation, then the peer. */
static void tc_peer_free(tc_peer_t *peer)
{
    tc_peer_ried_free(peer);
    tc_peer_inj_free(peer);
    tc_peer_ctrl_free(peer);
    tc_peer_reject_free(peer);
    free(peer->wireup);
    free(peer);
}

static tc_status_t tc_peer_connect_as(tc_context_t *ctx, tc_boot_t *boot,
                                      const tc_peer_params_t *params, uint32_t rank,
                                      tc_peer_t **peer_p);

tc_status_t tc_peer_connect(tc_context_t *ctx, tc_boot_t *boot, const tc_peer_params_t *params,
                            tc_peer_t **peer_p)
{
    return tc_peer_connect_as(ctx, boot, params, TC_RANK_ANY, peer_p);
}

tc_status_t tc_peer_connect_rank(tc_context_t *ctx, tc_boot_t *boot, uint32_t rank,
                                 tc_peer_t **peer_p)
{
    return tc_peer_connect_as(ctx, boot, NULL, rank, peer_p);
}

static tc_status_t tc_peer_connect_as(tc_context_t *ctx, tc_boot_t *boot,
                                      const tc_peer_params_t *params, uint32_t rank,
                                      tc_peer_t **peer_p)
{
    char why[TC_WIRE_WHY_MAX] = "";
    tc_peer_wire_t remote = {0};
    void *peer_blob = NULL;
    tc_status_t status;
    tc_peer_t *peer;

    status = tc_wireup_rx_kinds(ctx);
    if (status != TC_OK) {
        return status;
    }
    status = tc_peer_alloc(ctx->params.slots, &peer);
    if (status != TC_OK) {
        return status;
    }
    peer->ctx    = ctx;
    peer->wireup->boot   = boot;
    peer->wireup->serial = ++ctx->next_peer_serial;
    peer->wireup->remote_guard = -1;
    peer->wireup->remote_obj   = TC_SHM_OBJECT_NONE;
    snprintf(peer->wireup->name, sizeof(peer->wireup->name), "peer %s", boot->peer_name);

    status = tc_wireup_params(peer, params);
    if (status != TC_OK) {
        goto err_free;
    }
    status = tc_mbox_create(peer);
    if (status != TC_OK) {
        goto err_free;
    }
    status = tc_wireup_exchange(peer, boot, why, &remote, &peer_blob);
    if (status != TC_OK) {
        goto err_refuse;
    }
    tc_wireup_apply(peer, &remote);
    if ((rank != TC_RANK_ANY) && (remote.rank != rank)) {
        /* its rank is what its jams' origin and multicast's rules go by */
        snprintf(why, sizeof(why), "the peer claims rank %u; it was paired as rank %u",
                 remote.rank, rank);
        tc_error("%s: connection refused: %s", peer->wireup->name, why);
        free(peer_blob);
        status = TC_ERR_PROTOCOL;
        goto err_refuse;
    }
    if (peer->tx_frame_size > peer->tx_slot_size) {
        snprintf(why, sizeof(why), "frame size %u exceeds the peer's %u-byte slots",
                 peer->tx_frame_size, peer->tx_slot_size);
        tc_error("%s: %s", peer->wireup->name, why);
        free(peer_blob);
        status = TC_ERR_INVALID_PARAM;
        goto err_refuse;
    }
    status = tc_wireup_endpoint(peer, &remote, (const char *)peer_blob + sizeof(remote), why);
    if (status == TC_OK) {
        peer->wireup->proc = tc_wireup_proc(peer, (const char *)peer_blob + sizeof(remote));
    }
    free(peer_blob);
    if (status != TC_OK) {
        goto err_refuse;
    }
    tc_peer_detect_transports(peer);
    tc_peer_wait_ops_init(peer);
    status = tc_send_resolve_signal(peer, peer->ctx->params.signal);
    if (status != TC_OK) {
        snprintf(why, sizeof(why), "this side cannot signal frames as asked: %s",
                 tc_status_str(status));
    } else {
        tc_send_select(peer);
    }
    status = tc_wireup_verdict(peer, boot, status, why);
    if (status != TC_OK) {
        tc_peer_destroy(peer);
        return status;
    }
    peer->wireup->ctx_next = ctx->peers;
    ctx->peers     = peer;
    *peer_p = peer;
    return TC_OK;

err_refuse:
    /* a refused blob (why says why) leaves the bootstrap in step: tell the
     * peer, which then reports it rather than a closed connection */
    if (why[0] != '\0') {
        (void)tc_wireup_verdict(peer, boot, status, why);
    }
    tc_mbox_destroy(peer);
err_free:
    tc_peer_free(peer);
    return status;
}

static void tc_peer_close_ep(tc_peer_t *peer)
{
    ucp_request_param_t param;
    ucs_status_ptr_t req;
    uint64_t deadline;

    /* the doorbell in flight goes when the close completes or cancels it */
    if (peer->bell_req != NULL) {
        ucp_request_free(peer->bell_req);
        peer->bell_req = NULL;
    }
    memset(&param, 0, sizeof(param));
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    /* A failed peer cannot answer a flush; nor can a blocking peer that
     * already closed answer the doorbell still queued for it (useless now:
     * every frame's landing was proven by its credit). UCX 1.13 forces
     * only an endpoint with peer failure handling: any other it refuses
     * to close at all, keeping the endpoint and its mappings of the peer's
     * FIFO segments (a connection's worth each time the peer said goodbye
     * first). Those close with a flush, which the timeout below bounds
     * (shared memory's needs no answer from the peer). */
    param.flags        = (peer->wireup->ep_forcible &&
                          ((peer->failed != TC_OK) || peer->doorbell || (peer->ep_error != UCS_OK))) ?
                             UCP_EP_CLOSE_FLAG_FORCE : 0;
    req = ucp_ep_close_nbx(peer->ep, &param);
    if ((req == NULL) || UCS_PTR_IS_ERR(req)) {
        return;
    }

    /* A flush towards a dead peer must not hang the survivor. */
    deadline = tc_clock_mono_ns() + 1000000ull * (uint64_t)peer->ctx->params.timeout_ms;
    while (ucp_request_check_status(req) == UCS_INPROGRESS) {
        ucp_worker_progress(peer->ctx->worker);
        if (tc_clock_mono_ns() > deadline) {
            tc_warn("%s: endpoint close timed out", peer->wireup->name);
            break;
        }
    }
    ucp_request_free(req);
}

void tc_peer_destroy(tc_peer_t *peer)
{
    tc_peer_t **p;

    if (peer == NULL) {
        return;
    }
    for (p = &peer->ctx->peers; *p != NULL; p = &(*p)->wireup->ctx_next) {
        if (*p == peer) {
            *p = peer->wireup->ctx_next;
            break;
        }
    }
    /* The endpoint first: closing it flushes (or cancels) what is still
     * queued on it, puts that use the rkey and read the staging ring
     * (over tcp a put can wait on wireup past the goodbye's flush). */
    tc_peer_close_ep(peer);
    tc_peer_reqs_detach(peer);
    tc_peer_unguard(peer);
    ucp_rkey_destroy(peer->rkey);
    ucp_mem_unmap(peer->ctx->ucp, peer->wireup->tx_memh);
    tc_mbox_destroy(peer);
    tc_inj_cleanup(peer);
    tc_ried_release(peer->ctx, peer);
    tc_exec_cleanup(peer);
    free(peer->tx_code_in);
    free(peer->tx_slot_frame);
    tc_peer_free(peer);
}

/* ---------------------------------------------------------------- goodbye */

/* The goodbye follows every frame of ours in the ring, so the peer runs
 * them before it reads it; waiting for a credit is bounded by the timeout. */
static tc_status_t tc_ctrl_send_goodbye(tc_peer_t *peer)
{
    tc_peer_waiter_t w = TC_PEER_WAITER("a slot for the goodbye");
    tc_status_t status = TC_OK;

    while ((status == TC_OK) && (tc_peer_tx_free(peer) == 0)) {
        status = tc_peer_progress(peer, 0, NULL);
        if (status == TC_OK) {
            status = tc_peer_waiter_spin(peer, &w);
        }
    }
    if (status == TC_OK) {
        status = tc_peer_send_kind(peer, TC_KIND_GOODBYE, 0, 0, NULL, 0, NULL, 0, 1);
    }
    if (status == TC_OK) {
        status = tc_peer_flush(peer); /* emulated puts leave only while we progress */
    }
    return status;
}

tc_status_t tc_peer_goodbye(tc_peer_t *peer, int after_theirs)
{
    /* a peer that failed hears nothing more; one that said goodbye first
     * only when it waits for ours (a group's teardown) */
    if (peer->wireup->goodbye_sent ||
        ((peer->failed != TC_OK) && !(after_theirs && (peer->failed == TC_ERR_CLOSED)))) {
        return TC_OK;
    }
    peer->wireup->goodbye_sent = 1;
    return tc_ctrl_send_goodbye(peer);
}

void tc_peer_close(tc_peer_t *peer)
{
    if (peer == NULL) {
        return;
    }
    (void)tc_peer_goodbye(peer, 0);
    tc_peer_destroy(peer);
}
