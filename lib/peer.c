/*
 * A peer: the endpoint to one other process, the mailbox ring this side
 * registers for the peer's frames, staging for frames to the peer, and the
 * credits that keep a sender from overwriting an unconsumed slot.
 */
#define _GNU_SOURCE
#include "runtime.h"
#include "clock.h"
#include "log.h"
#include "place.h"
#include "platform.h"
#include "wait.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__aarch64__)
#define tc_load_acquire_fence() __asm__ __volatile__("dmb ishld" ::: "memory")
#else
/* x86 TSO: loads are not reordered with older loads */
#define tc_load_acquire_fence() __asm__ __volatile__("" ::: "memory")
#endif

static void tc_peer_err_cb(void *arg, ucp_ep_h ep, ucs_status_t ucs)
{
    tc_peer_t *peer = arg;

    (void)ep;
    if (peer->failed == TC_OK) {
        tc_error("%s: endpoint failed: %s", peer->name, ucs_status_string(ucs));
        peer->failed = TC_ERR_PEER_FAILED;
    }
}

/* ------------------------------------------------------------ UCX helpers */

static tc_status_t tc_peer_mem_alloc(tc_peer_t *peer, size_t len, ucp_mem_h *memh_p,
                                     void **addr_p)
{
    ucp_mem_map_params_t params;
    ucp_mem_attr_t attr;
    ucs_status_t ucs;
    ucp_mem_h memh;

    memset(&params, 0, sizeof(params));
    params.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                        UCP_MEM_MAP_PARAM_FIELD_FLAGS;
    params.address    = NULL;
    params.length     = len;
    params.flags      = UCP_MEM_MAP_ALLOCATE;

    ucs = ucp_mem_map(peer->ctx->ucp, &params, &memh);
    if (ucs != UCS_OK) {
        tc_error("%s: ucp_mem_map(%zu bytes): %s", peer->name, len, ucs_status_string(ucs));
        return TC_ERR_UCX;
    }

    attr.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS | UCP_MEM_ATTR_FIELD_LENGTH;
    ucs = ucp_mem_query(memh, &attr);
    if (ucs != UCS_OK) {
        tc_error("%s: ucp_mem_query: %s", peer->name, ucs_status_string(ucs));
        ucp_mem_unmap(peer->ctx->ucp, memh);
        return TC_ERR_UCX;
    }

    memset(attr.address, 0, len);
    *memh_p = memh;
    *addr_p = attr.address;
    return TC_OK;
}

static inline tc_status_t tc_peer_put(tc_peer_t *peer, const void *buf, size_t len,
                                      uint64_t raddr)
{
    ucp_request_param_t param;
    ucs_status_ptr_t sp;

    param.op_attr_mask = 0;
    sp = ucp_put_nbx(peer->ep, buf, len, raddr, peer->rkey, &param);
    if (TC_LIKELY(sp == NULL)) {
        return TC_OK;
    }
    if (UCS_PTR_IS_ERR(sp)) {
        tc_error("%s: put of %zu bytes failed: %s", peer->name, len,
                 ucs_status_string(UCS_PTR_STATUS(sp)));
        peer->failed = TC_ERR_PEER_FAILED;
        return TC_ERR_PEER_FAILED;
    }
    /* The source stays untouched until its credit returns, which proves
     * the put landed; UCX frees the request when it completes. */
    ucp_request_free(sp);
    return TC_OK;
}

/* Decide whether wait loops must progress the worker: when no lane does
 * puts (UCX emulates them over active messages) or a put lane is tcp, the
 * target must progress for a put to land. Decided from what UCX says it
 * selected for the endpoint. */
static void tc_peer_detect_transports(tc_peer_t *peer)
{
    char lanes[16][32];
    char *info = NULL, *line, *save = NULL;
    size_t info_len = 0, used = 0;
    int emulated = 0, n_put = 0;
    unsigned lane;
    FILE *stream;

    memset(lanes, 0, sizeof(lanes));
    peer->transports[0] = '\0';
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
            continue;
        }
        /* "#   put[1]: 0..<short>..4294967296..<bcopy>..(inf)" */
        if (((p = strstr(line, "put[")) != NULL) && (sscanf(p, "put[%u]", &lane) == 1) &&
            (lane < 16) && (lanes[lane][0] != '\0')) {
            if (strncmp(lanes[lane], "tcp", 3) == 0) {
                emulated = 1;
            }
            if (strstr(peer->transports, lanes[lane]) == NULL) {
                used += (size_t)snprintf(peer->transports + used,
                                         sizeof(peer->transports) - used, "%s%s",
                                         (n_put > 0) ? "," : "", lanes[lane]);
            }
            ++n_put;
        }
    }
    free(info);

    if (n_put == 0) {
        /* no put lane: name the lane the emulated puts travel on */
        emulated = 1;
        used = (size_t)snprintf(peer->transports, sizeof(peer->transports), "am-emulated:%s",
                                lanes[0][0] ? lanes[0] : "unknown");
    }

    switch (peer->ctx->params.progress) {
    case TC_PROGRESS_ALWAYS:
        peer->progress     = 1;
        peer->progress_why = "forced on";
        break;
    case TC_PROGRESS_NEVER:
        peer->progress     = 0;
        peer->progress_why = "forced off";
        break;
    default:
        peer->progress     = emulated;
        peer->progress_why = (n_put == 0) ? "auto: no put lane, UCX emulates puts over AM" :
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

/* lib/wait's view of a peer (defined with the wait loop below) */
static volatile uint64_t *tc_peer_wait_watch(void *arg, uint64_t *old_p);
static int                tc_peer_wait_ready(void *arg);
static tc_status_t        tc_peer_wait_arm(void *arg);
static void               tc_peer_wait_progress(void *arg);

tc_status_t tc_peer_connect(tc_context_t *ctx, tc_boot_t *boot, tc_peer_t **peer_p)
{
    const tc_context_params_t *params = &ctx->params;
    ucp_address_t *worker_addr;
    size_t worker_addr_len, rkey_len;
    void *rkey_buf, *peer_blob = NULL, *blob;
    size_t peer_blob_len = 0, blob_len, ring_len;
    tc_peer_wire_t wire, remote;
    ucp_ep_params_t ep_params;
    ucs_status_t ucs;
    tc_status_t status;
    tc_peer_t *peer;
    const char *p;

    peer = calloc(1, sizeof(*peer));
    if (peer == NULL) {
        return TC_ERR_NO_MEMORY;
    }
    peer->ctx    = ctx;
    peer->boot   = boot;
    peer->serial = ++ctx->next_peer_serial;
    snprintf(peer->name, sizeof(peer->name), "peer %s", boot->peer_name);

    /* our mailbox: ctrl line, ring, raw ring of the same shape (reference puts) */
    peer->rx_slots     = params->slots;
    peer->rx_slot_size = params->slot_size;
    ring_len           = (size_t)params->slots * params->slot_size;
    peer->mbox_len     = TC_ALIGN_UP(sizeof(tc_mbox_ctrl_t) + 2 * ring_len,
                                     (size_t)sysconf(_SC_PAGESIZE));
    status = tc_peer_mem_alloc(peer, peer->mbox_len, &peer->mbox_memh, (void **)&peer->mbox);
    if (status != TC_OK) {
        goto err_free;
    }
    /* Only in place does code run in the slot (the paper's RWX mailbox);
     * otherwise the mailbox is data (lib/exec.c). */
    peer->mbox_exec = params->in_place && (mprotect(peer->mbox, peer->mbox_len,
                                                    PROT_READ | PROT_WRITE | PROT_EXEC) == 0);
    if (!peer->mbox_exec && params->in_place) {
        tc_warn("%s: mailbox cannot be made executable (%m); injected frames will be "
                "rejected", peer->name);
    }
    /* A consumed slot is never cleared: a transport may store a signal word
     * more than once (memcpy writes overlapping tails), so a clear can be
     * undone by a late duplicate. The receiver instead remembers what each
     * slot held and waits for something different. */
    peer->rx_stale = calloc(params->slots, sizeof(*peer->rx_stale));
    if (peer->rx_stale == NULL) {
        status = TC_ERR_NO_MEMORY;
        goto err_unmap_mbox;
    }
    peer->ctrl    = (tc_mbox_ctrl_t *)peer->mbox;
    peer->rx_ring = peer->mbox + sizeof(tc_mbox_ctrl_t);
    peer->raw     = peer->rx_ring + ring_len;

    ucs = ucp_worker_get_address(ctx->worker, &worker_addr, &worker_addr_len);
    if (ucs != UCS_OK) {
        tc_error("ucp_worker_get_address: %s", ucs_status_string(ucs));
        status = TC_ERR_UCX;
        goto err_unmap_mbox;
    }
    ucs = ucp_rkey_pack(ctx->ucp, peer->mbox_memh, &rkey_buf, &rkey_len);
    if (ucs != UCS_OK) {
        tc_error("ucp_rkey_pack: %s", ucs_status_string(ucs));
        status = TC_ERR_UCX;
        goto err_release_addr;
    }

    memset(&wire, 0, sizeof(wire));
    wire.proto           = TC_PROTO_VERSION;
    wire.rank            = params->rank;
    wire.wait            = (uint32_t)params->wait;
    wire.slots           = params->slots;
    wire.slot_size       = params->slot_size;
    wire.mbox_base       = (uintptr_t)peer->mbox;
    wire.ring_off        = (uint64_t)(peer->rx_ring - peer->mbox);
    wire.raw_off         = (uint64_t)(peer->raw - peer->mbox);
    wire.mbox_len        = peer->mbox_len;
    wire.worker_addr_len = (uint32_t)worker_addr_len;
    wire.rkey_len        = (uint32_t)rkey_len;

    blob_len = sizeof(wire) + worker_addr_len + rkey_len;
    blob     = malloc(blob_len);
    if (blob == NULL) {
        status = TC_ERR_NO_MEMORY;
        goto err_release_rkey;
    }
    memcpy(blob, &wire, sizeof(wire));
    memcpy((char *)blob + sizeof(wire), worker_addr, worker_addr_len);
    memcpy((char *)blob + sizeof(wire) + worker_addr_len, rkey_buf, rkey_len);
    status = tc_boot_exchange(boot, blob, blob_len, &peer_blob, &peer_blob_len);
    free(blob);
    if (status != TC_OK) {
        goto err_release_rkey;
    }

    if (peer_blob_len < sizeof(remote)) {
        tc_error("%s: connection blob too short (%zu bytes)", peer->name, peer_blob_len);
        status = TC_ERR_PROTOCOL;
        goto err_free_blob;
    }
    memcpy(&remote, peer_blob, sizeof(remote));
    if (remote.proto != TC_PROTO_VERSION) {
        tc_error("%s speaks protocol %u, this side %u", peer->name, remote.proto,
                 TC_PROTO_VERSION);
        status = TC_ERR_VERSION_MISMATCH;
        goto err_free_blob;
    }
    if ((peer_blob_len != sizeof(remote) + (size_t)remote.worker_addr_len + remote.rkey_len) ||
        (remote.slots < 2) || (remote.slots & (remote.slots - 1)) ||
        (remote.slot_size < TC_FRAME_MIN_SIZE) || (remote.slot_size % TC_FRAME_ALIGN) ||
        (remote.ring_off + (uint64_t)remote.slots * remote.slot_size > remote.mbox_len) ||
        (remote.raw_off + (uint64_t)remote.slots * remote.slot_size > remote.mbox_len)) {
        tc_error("%s: malformed connection blob", peer->name);
        status = TC_ERR_PROTOCOL;
        goto err_free_blob;
    }
    peer->peer_rank    = remote.rank;
    peer->wait         = params->wait;
    peer->wait_ops     = (tc_wait_ops_t){tc_peer_wait_watch, tc_peer_wait_ready, tc_peer_wait_arm,
                                         tc_peer_wait_progress, ctx->efd, peer};
    peer->doorbell     = (remote.wait == TC_WAIT_EVENT) || (remote.wait == TC_WAIT_ADAPTIVE);
    peer->tx_slots     = remote.slots;
    peer->tx_slot_size = remote.slot_size;
    peer->remote_base  = remote.mbox_base;
    peer->remote_ring  = remote.mbox_base + remote.ring_off;
    peer->remote_raw   = remote.mbox_base + remote.raw_off;
    peer->credit_batch = (peer->rx_slots >= 4) ? peer->rx_slots / 4 : 1;
    peer->frame_size   = TC_FRAME_MIN_SIZE;
    peer->stats.last_ret_seq = UINT32_MAX; /* no result yet */
    peer->disp_element       = UINT32_MAX;

    p = (const char *)peer_blob + sizeof(remote);
    memset(&ep_params, 0, sizeof(ep_params));
    ep_params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS |
                           UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                           UCP_EP_PARAM_FIELD_ERR_HANDLER;
    ep_params.address         = (const ucp_address_t *)p;
    ep_params.err_mode        = tc_peer_err_mode();
    ep_params.err_handler.cb  = tc_peer_err_cb;
    ep_params.err_handler.arg = peer;
    ucs = ucp_ep_create(ctx->worker, &ep_params, &peer->ep);
    if (ucs != UCS_OK) {
        tc_error("%s: ucp_ep_create: %s", peer->name, ucs_status_string(ucs));
        status = TC_ERR_UCX;
        goto err_free_blob;
    }

    ucs = ucp_ep_rkey_unpack(peer->ep, p + remote.worker_addr_len, &peer->rkey);
    if (ucs != UCS_OK) {
        tc_error("%s: ucp_ep_rkey_unpack: %s", peer->name, ucs_status_string(ucs));
        status = TC_ERR_UCX;
        goto err_close_ep;
    }
    /* Direct placement needs the peer's ring in our address space; only
     * shared-memory transports can give it (tc_peer_set_placement says). */
    if (ucp_rkey_ptr(peer->rkey, peer->remote_ring, (void **)&peer->remote_ring_ptr) != UCS_OK) {
        peer->remote_ring_ptr = NULL;
    }

    status = tc_peer_mem_alloc(peer,
                               (size_t)peer->tx_slots * peer->tx_slot_size +
                                   sizeof(tc_mbox_ctrl_t),
                               &peer->tx_memh, (void **)&peer->tx_ring);
    if (status != TC_OK) {
        goto err_destroy_rkey;
    }
    peer->credit_src = (uint64_t *)(peer->tx_ring +
                                    (size_t)peer->tx_slots * peer->tx_slot_size);

    tc_peer_detect_transports(peer);

    free(peer_blob);
    ucp_rkey_buffer_release(rkey_buf);
    ucp_worker_release_address(ctx->worker, worker_addr);

    /* Both endpoints exist before either side puts. */
    status = tc_boot_barrier(boot);
    if (status != TC_OK) {
        tc_peer_destroy(peer);
        return status;
    }

    *peer_p = peer;
    return TC_OK;

err_destroy_rkey:
    ucp_rkey_destroy(peer->rkey);
err_close_ep:
    ucp_ep_destroy(peer->ep);
err_free_blob:
    free(peer_blob);
err_release_rkey:
    ucp_rkey_buffer_release(rkey_buf);
err_release_addr:
    ucp_worker_release_address(ctx->worker, worker_addr);
err_unmap_mbox:
    free(peer->rx_stale);
    ucp_mem_unmap(ctx->ucp, peer->mbox_memh);
err_free:
    free(peer);
    return status;
}

static void tc_peer_close_ep(tc_peer_t *peer)
{
    ucp_request_param_t param;
    ucs_status_ptr_t req;
    uint64_t deadline;

    memset(&param, 0, sizeof(param));
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    /* A failed peer cannot answer a flush; nor can a blocking peer that
     * already closed answer the doorbells still queued for it (useless now:
     * every frame's landing was proven by its credit). */
    param.flags        = ((peer->failed != TC_OK) || peer->doorbell) ? UCP_EP_CLOSE_FLAG_FORCE : 0;
    req = ucp_ep_close_nbx(peer->ep, &param);
    if ((req == NULL) || UCS_PTR_IS_ERR(req)) {
        return;
    }

    /* A flush towards a dead peer must not hang the survivor. */
    deadline = tc_clock_mono_ns() + 1000000ull * (uint64_t)peer->ctx->params.timeout_ms;
    while (ucp_request_check_status(req) == UCS_INPROGRESS) {
        ucp_worker_progress(peer->ctx->worker);
        if (tc_clock_mono_ns() > deadline) {
            tc_warn("%s: endpoint close timed out", peer->name);
            break;
        }
    }
    ucp_request_free(req);
}

void tc_peer_destroy(tc_peer_t *peer)
{
    if (peer == NULL) {
        return;
    }
    ucp_mem_unmap(peer->ctx->ucp, peer->tx_memh);
    ucp_rkey_destroy(peer->rkey);
    tc_peer_close_ep(peer);
    ucp_mem_unmap(peer->ctx->ucp, peer->mbox_memh);
    tc_inj_cleanup(peer);
    tc_ried_release(peer->ctx, peer);
    tc_exec_cleanup(peer);
    free(peer->ried_rx.buf);
    free(peer->rx_stale);
    free(peer);
}

static inline void tc_peer_note_ack(tc_peer_t *peer, uint32_t ack);

tc_status_t tc_peer_set_frame_size(tc_peer_t *peer, uint32_t frame_size)
{
    tc_status_t status;
    uint32_t i;

    if ((frame_size < TC_FRAME_MIN_SIZE) || (frame_size % TC_FRAME_ALIGN) ||
        (frame_size > peer->rx_slot_size) || (frame_size > peer->tx_slot_size)) {
        tc_error("%s: frame size %u must be a multiple of %u in [%u, %u]", peer->name,
                 frame_size, TC_FRAME_ALIGN, TC_FRAME_MIN_SIZE,
                 (peer->rx_slot_size < peer->tx_slot_size) ? peer->rx_slot_size :
                                                             peer->tx_slot_size);
        return TC_ERR_INVALID_PARAM;
    }
    /* our frames must all be consumed; where puts are emulated the last
     * credits land only while we progress */
    status = tc_peer_drain(peer);
    if (status != TC_OK) {
        return status;
    }
    /* the signal moves: forget what the old position held */
    for (i = 0; i < peer->rx_slots; ++i) {
        *tc_frame_sig_ptr(peer->rx_ring + (size_t)i * peer->rx_slot_size, frame_size) = 0;
        peer->rx_stale[i] = 0;
    }
    peer->frame_size = frame_size;
    return TC_OK;
}

/* ----------------------------------------------------------------- checks */

tc_status_t tc_peer_check_alive(tc_peer_t *peer)
{
    tc_status_t status;

    if (peer->failed != TC_OK) {
        return peer->failed;
    }
    status = peer->boot->ops->check_peer(peer->boot);
    if (status != TC_OK) {
        tc_error("%s: the peer closed its bootstrap connection (process gone?)",
                 peer->name);
        peer->failed = TC_ERR_PEER_FAILED;
    }
    return peer->failed;
}

/* The bookkeeping every wait loop shares: one call per iteration progresses
 * the worker where puts need the target, and every TC_CHECK_EVERY calls
 * delivers endpoint errors, checks the peer is alive (once a millisecond)
 * and gives up after timeout_ms of waiting. The clock is read only once a
 * wait drags on. */
typedef struct tc_peer_waiter {
    const char *what;
    uint64_t    iter;
    uint64_t    start_ns;
    uint64_t    next_alive_ns;
} tc_peer_waiter_t;

#define TC_PEER_WAITER(_what) {(_what), 0, 0, 0}

static tc_status_t tc_peer_waiter_check(tc_peer_t *peer, tc_peer_waiter_t *w)
{
    uint64_t now;

    ucp_worker_progress(peer->ctx->worker); /* delivers endpoint errors */
    if (peer->failed != TC_OK) {
        return peer->failed;
    }
    now = tc_clock_mono_ns();
    if (w->start_ns == 0) {
        w->start_ns = w->next_alive_ns = now;
    }
    if (now >= w->next_alive_ns) {
        w->next_alive_ns = now + 1000000ull;
        if (tc_peer_check_alive(peer) != TC_OK) {
            return peer->failed;
        }
    }
    if (now - w->start_ns > 1000000ull * (uint64_t)peer->ctx->params.timeout_ms) {
        tc_error("%s: nothing for %d ms while waiting for %s (peer hung or stopped?)",
                 peer->name, peer->ctx->params.timeout_ms, w->what);
        /* the ring's state is unknown now: the peer is done for */
        peer->failed = TC_ERR_TIMEOUT;
        return TC_ERR_TIMEOUT;
    }
    return TC_OK;
}

static inline tc_status_t tc_peer_waiter_spin(tc_peer_t *peer, tc_peer_waiter_t *w)
{
    if (peer->progress) {
        ucp_worker_progress(peer->ctx->worker);
    }
    if (TC_UNLIKELY((++w->iter % TC_CHECK_EVERY) == 0)) {
        return tc_peer_waiter_check(peer, w);
    }
    return TC_OK;
}

/* ----------------------------------------------------------------- credits */

static inline void tc_peer_note_ack(tc_peer_t *peer, uint32_t ack)
{
    if ((int32_t)(ack - peer->tx_acked) > 0) {
        peer->tx_acked = ack;
    }
}

static inline uint32_t tc_peer_tx_free(tc_peer_t *peer)
{
    if (peer->tx_seq - peer->tx_acked >= peer->tx_slots) {
        tc_peer_note_ack(peer, (uint32_t)peer->ctrl->consumed);
    }
    return peer->tx_slots - (peer->tx_seq - peer->tx_acked);
}

static tc_status_t tc_peer_return_credits(tc_peer_t *peer)
{
    tc_status_t status;

    *peer->credit_src = peer->rx_seq;
    status = tc_peer_put(peer, peer->credit_src, sizeof(uint64_t),
                         peer->remote_base + offsetof(tc_mbox_ctrl_t, consumed));
    if (status == TC_OK) {
        peer->rx_reported = peer->rx_seq;
        peer->stats.credit_puts++;
    }
    return status;
}

static tc_status_t tc_peer_send_frame(tc_peer_t *peer, char *frame);
static tc_status_t tc_peer_send_reply(tc_peer_t *peer);

/* Wait for a free slot in the peer's ring, running what arrives meanwhile
 * so two peers that stream at each other cannot deadlock. */
static tc_status_t tc_peer_wait_credit(tc_peer_t *peer)
{
    tc_peer_waiter_t w = TC_PEER_WAITER("credits");
    tc_status_t status = TC_OK;

    peer->stats.credit_waits++;
    while ((tc_peer_tx_free(peer) == 0) && (status == TC_OK)) {
        if (!peer->in_progress) {
            status = tc_peer_progress(peer, 0, NULL);
        }
        if (status == TC_OK) {
            status = tc_peer_waiter_spin(peer, &w);
        }
    }
    return status;
}

/* ------------------------------------------------------------------ send */

static inline char *tc_peer_tx_frame(tc_peer_t *peer)
{
    return peer->tx_ring + (size_t)(peer->tx_seq & (peer->tx_slots - 1)) * peer->tx_slot_size;
}

/* A peer that blocks in its worker's fd wakes on an active message: a
 * zero-byte doorbell after the frame's puts (which it cannot see land). */
tc_status_t tc_peer_ring(tc_peer_t *peer)
{
    ucp_request_param_t param;
    ucs_status_ptr_t sp;

    param.op_attr_mask = 0;
    sp = ucp_am_send_nbx(peer->ep, TC_AM_DOORBELL, NULL, 0, NULL, 0, &param);
    if (UCS_PTR_IS_ERR(sp)) {
        tc_error("%s: doorbell: %s", peer->name, ucs_status_string(UCS_PTR_STATUS(sp)));
        peer->failed = TC_ERR_PEER_FAILED;
        return TC_ERR_PEER_FAILED;
    }
    if (sp != NULL) {
        ucp_request_free(sp);
    }
    return TC_OK;
}

tc_status_t tc_peer_set_wait(tc_peer_t *peer, tc_wait_t mine, tc_wait_t theirs)
{
    tc_status_t status = tc_context_check_wait(peer->ctx, mine);

    if (status != TC_OK) {
        return status;
    }
    peer->wait     = mine;
    peer->doorbell = (theirs == TC_WAIT_EVENT) || (theirs == TC_WAIT_ADAPTIVE);
    return TC_OK;
}

tc_status_t tc_peer_set_placement(tc_peer_t *peer, tc_place_t place)
{
    char why[TC_PLATFORM_STATUS_LEN];
    tc_status_t status = tc_place_check(place, why, sizeof(why));

    if (status != TC_OK) {
        tc_error("%s: placement %s: %s", peer->name, tc_place_str(place), why);
        return status;
    }
    if ((place != TC_PLACE_DEFAULT) && (peer->remote_ring_ptr == NULL)) {
        tc_error("%s: placement %s: unsupported: ucp_rkey_ptr cannot map the peer's mailbox "
                 "over %s (needs same-host shared memory: posix or sysv)",
                 peer->name, tc_place_str(place), tc_peer_transports(peer));
        return TC_ERR_UNSUPPORTED;
    }
    peer->place = place;
    return TC_OK;
}

void tc_peer_set_sw_prefetch(tc_peer_t *peer, int on)
{
    peer->sw_prefetch = !!on;
}

/* Write the sealed frame straight into the peer's mapped slot (placement
 * llc or dram); the doorbell, if any, follows as for a put. */
static tc_status_t tc_peer_place_frame(tc_peer_t *peer, const char *frame, uint32_t size)
{
    char *dst = peer->remote_ring_ptr +
                (size_t)(peer->tx_seq & (peer->tx_slots - 1)) * peer->tx_slot_size;

    tc_place_frame(peer->place, dst, frame, size);
    return TC_OK;
}

/* Stamp credits and the latest result, seal, and put the frame into the
 * peer's slot for tx_seq. */
static tc_status_t tc_peer_send_frame(tc_peer_t *peer, char *frame)
{
    tc_frame_hdr_t *hdr = (tc_frame_hdr_t *)frame;
    uint64_t raddr = peer->remote_ring +
                     (uint64_t)(peer->tx_seq & (peer->tx_slots - 1)) * peer->tx_slot_size;
    uint32_t size  = hdr->frame_size;
    tc_status_t status;

    hdr->ack         = peer->rx_seq;
    peer->rx_reported = peer->rx_seq;
    if (peer->ran_has) {
        hdr->flags  |= TC_FRAME_F_HAS_RET;
        hdr->ret     = peer->ran_ret;
        hdr->ret_seq = peer->ran_seq;
    }
    tc_frame_seal(frame);
    if (TC_UNLIKELY(peer->place != TC_PLACE_DEFAULT)) {
        status = tc_peer_place_frame(peer, frame, size);
    } else if (peer->ctx->params.signal == TC_SIGNAL_SINGLE_PUT) {
        status = tc_peer_put(peer, frame, size, raddr);
    } else {
        status = tc_peer_put(peer, frame, size - TC_FRAME_SIG_SIZE, raddr);
        if (TC_LIKELY(status == TC_OK) && (peer->ctx->params.signal == TC_SIGNAL_FENCED)) {
            ucs_status_t ucs = ucp_worker_fence(peer->ctx->worker);
            if (TC_UNLIKELY(ucs != UCS_OK)) {
                tc_error("%s: ucp_worker_fence: %s", peer->name, ucs_status_string(ucs));
                return TC_ERR_UCX;
            }
        }
        if (TC_LIKELY(status == TC_OK)) {
            status = tc_peer_put(peer, frame + size - TC_FRAME_SIG_SIZE,
                                 TC_FRAME_SIG_SIZE, raddr + size - TC_FRAME_SIG_SIZE);
        }
    }
    if (TC_UNLIKELY(peer->doorbell) && (status == TC_OK)) {
        status = tc_peer_ring(peer);
    }
    if (TC_UNLIKELY(status != TC_OK)) {
        return status;
    }
    peer->tx_seq++;
    peer->stats.tx_frames++;
    peer->stats.tx_jams += (hdr->kind == TC_KIND_LOCAL) || (hdr->kind == TC_KIND_INJECTED) ||
                           (hdr->kind == TC_KIND_CACHED);
    return TC_OK;
}

tc_status_t tc_peer_send_raw_frame(tc_peer_t *peer, const void *frame, uint32_t len)
{
    uint64_t raddr = peer->remote_ring +
                     (uint64_t)(peer->tx_seq & (peer->tx_slots - 1)) * peer->tx_slot_size;
    char *staging;
    tc_status_t status;

    if ((len < TC_FRAME_SIG_SIZE) || (len > peer->tx_slot_size)) {
        return TC_ERR_INVALID_PARAM;
    }
    if (tc_peer_tx_free(peer) == 0) {
        status = tc_peer_wait_credit(peer);
        if (status != TC_OK) {
            return status;
        }
    }
    staging = tc_peer_tx_frame(peer);
    memcpy(staging, frame, len);
    status = tc_peer_put(peer, staging, len - TC_FRAME_SIG_SIZE, raddr);
    if (status == TC_OK) {
        ucp_worker_fence(peer->ctx->worker);
        status = tc_peer_put(peer, staging + len - TC_FRAME_SIG_SIZE, TC_FRAME_SIG_SIZE,
                             raddr + len - TC_FRAME_SIG_SIZE);
    }
    if (status == TC_OK) {
        peer->tx_seq++;
        peer->stats.tx_frames++;
    }
    return status;
}

static uint32_t tc_peer_frame_size(const tc_peer_t *peer, uint32_t needed)
{
    if (peer->ctx->params.frames == TC_FRAMES_FIXED) {
        return (needed <= peer->frame_size) ? peer->frame_size : 0;
    }
    return needed;
}

static tc_status_t tc_jam_send_local(tc_peer_t *peer, const tc_jam_t *jam, const void *src,
                                     size_t len, unsigned flags)
{
    tc_frame_layout_t layout = {0, 0, 0, 0};
    tc_frame_offsets_t offsets;
    tc_status_t status;
    uint32_t size;
    int64_t packed;
    char *frame;

    if (TC_UNLIKELY(peer->failed != TC_OK)) {
        return peer->failed;
    }
    if (TC_UNLIKELY(tc_peer_tx_free(peer) == 0)) {
        status = tc_peer_wait_credit(peer);
        if (status != TC_OK) {
            return status;
        }
    }

    frame  = tc_peer_tx_frame(peer);
    packed = jam->elem->pack(frame + TC_FRAME_HDR_SIZE,
                             peer->tx_slot_size - TC_FRAME_HDR_SIZE - TC_FRAME_SIG_SIZE,
                             src, len);
    if (TC_UNLIKELY(packed < 0)) {
        tc_error("%s: jam '%s' refused to pack %zu bytes (its pack routine returned -1; "
                 "slots are %u bytes)", peer->name, jam->elem->name, len, peer->tx_slot_size);
        return TC_ERR_OUT_OF_RANGE;
    }

    if (TC_LIKELY((jam->elem == peer->tx_tmpl_elem) && ((uint32_t)packed == peer->tx_tmpl_len) &&
                  (flags == peer->tx_tmpl_flags) &&
                  ((peer->ctx->params.frames != TC_FRAMES_FIXED) ||
                   (peer->frame_size == peer->tx_tmpl_size)))) {
        memcpy(frame, &peer->tx_tmpl, sizeof(peer->tx_tmpl));
        ((tc_frame_hdr_t *)frame)->seq = peer->tx_seq;
        return tc_peer_send_frame(peer, frame);
    }

    layout.payload_len = (uint32_t)packed;
    status = tc_frame_layout(&layout, peer->tx_slot_size, &offsets);
    size   = (status == TC_OK) ? tc_peer_frame_size(peer, offsets.frame_size) : 0;
    if (TC_UNLIKELY(size == 0)) {
        tc_error("%s: jam '%s' with %lld payload bytes needs a %u-byte frame; "
                 "frames are %u bytes, slots %u", peer->name, jam->elem->name,
                 (long long)packed, offsets.frame_size, peer->frame_size,
                 peer->tx_slot_size);
        return TC_ERR_OUT_OF_RANGE;
    }
    offsets.frame_size = size;

    tc_frame_write_hdr(frame, &offsets, &layout, TC_KIND_LOCAL,
                       (flags & TC_SEND_WANT_REPLY) ? TC_FRAME_F_WANT_REPLY : 0,
                       jam->pkg_id, jam->element, peer->tx_seq);
    memcpy(&peer->tx_tmpl, frame, sizeof(peer->tx_tmpl));
    peer->tx_tmpl_elem  = jam->elem;
    peer->tx_tmpl_len   = (uint32_t)packed;
    peer->tx_tmpl_flags = flags;
    peer->tx_tmpl_size  = size;
    return tc_peer_send_frame(peer, frame);
}

tc_status_t tc_jam_send(tc_peer_t *peer, const tc_jam_t *jam, const void *src,
                        size_t len, unsigned flags)
{
    return tc_jam_send_local(peer, jam, src, len, flags);
}

/* ------------------------------------------------------- injected, cached */

static tc_frame_layout_t tc_jam_layout(const tc_blob_t *blob, tc_mode_t mode,
                                       uint32_t payload_len)
{
    tc_frame_layout_t layout = {0, 0, 0, payload_len};

    if (mode == TC_MODE_INJECTED) {
        layout.got_count = blob->hdr->got_count;
        layout.code_len  = blob->hdr->image_size - blob->hdr->code_offset;
    }
    return layout;
}

uint32_t tc_jam_frame_size(const tc_jam_t *jam, tc_mode_t mode, uint32_t len)
{
    const tc_blob_t *blob = tc_pkg_blob(jam->pkg, jam->element);
    tc_frame_layout_t layout;
    tc_frame_offsets_t off;

    if (mode == TC_MODE_LOCAL) {
        return tc_frame_size_for(len);
    }
    if (blob == NULL) {
        return UINT32_MAX;
    }
    layout = tc_jam_layout(blob, mode, len);
    return (tc_frame_layout(&layout, UINT32_MAX, &off) == TC_OK) ? off.frame_size : UINT32_MAX;
}

uint32_t tc_jam_prepare_size(const tc_jam_t *jam, tc_mode_t mode)
{
    const tc_blob_t *blob = tc_pkg_blob(jam->pkg, jam->element);
    tc_frame_layout_t layout;
    tc_frame_offsets_t off;
    uint32_t req, rep;

    if ((mode == TC_MODE_LOCAL) || (blob == NULL)) {
        return TC_FRAME_MIN_SIZE;
    }
    /* the request carries the code when it is to be cached */
    layout = tc_jam_layout(blob, (mode == TC_MODE_CACHED) ? TC_MODE_INJECTED : TC_MODE_LOCAL, 0);
    req    = (tc_frame_layout(&layout, UINT32_MAX, &off) == TC_OK) ? off.frame_size : UINT32_MAX;
    rep    = tc_frame_size_for(8u + 8u * blob->hdr->got_count);
    return (req > rep) ? req : rep;
}

void tc_peer_forget_code(tc_peer_t *peer)
{
    unsigned i;

    /* the bytes stay in the peer's code area (a bump allocator); only the
     * link to them goes */
    for (i = 0; i < peer->n_inj; ++i) {
        peer->inj[i].cache_run = NULL;
    }
    peer->disp_cached = NULL;
}

int tc_jam_is_prepared(tc_peer_t *peer, const tc_jam_t *jam, tc_mode_t mode)
{
    const tc_inj_t *inj;

    if (mode == TC_MODE_LOCAL) {
        return 1;
    }
    inj = tc_inj_find(peer, jam->pkg_id, jam->element);
    return (inj != NULL) && inj->tx_synced && ((mode != TC_MODE_CACHED) || inj->tx_cached);
}

tc_status_t tc_jam_prepare(tc_peer_t *peer, const tc_jam_t *jam, tc_mode_t mode)
{
    tc_frame_layout_t layout = {0, 0, 0, 0};
    const tc_blob_t *blob;
    tc_frame_offsets_t off;
    tc_status_t status;
    tc_inj_t *inj;
    char *frame;
    int cache;

    if (mode == TC_MODE_LOCAL) {
        return TC_OK;
    }
    blob = tc_pkg_blob(jam->pkg, jam->element);
    inj  = (blob != NULL) ? tc_inj_get(peer, jam) : NULL;
    if (inj == NULL) {
        tc_error("%s: jam '%s' cannot go %s: its package has no blob for it (build it "
                 "with tc-pkg)", peer->name, jam->elem->name, tc_mode_str(mode));
        return TC_ERR_UNSUPPORTED;
    }
    cache = (mode == TC_MODE_CACHED) && !inj->tx_cached;
    if (inj->tx_synced && !cache) {
        return TC_OK;
    }

    if (tc_peer_tx_free(peer) == 0) {
        status = tc_peer_wait_credit(peer);
        if (status != TC_OK) {
            return status;
        }
    }
    if (cache) {
        layout = tc_jam_layout(blob, TC_MODE_INJECTED, 0);
    }
    status         = tc_frame_layout(&layout, peer->tx_slot_size, &off);
    off.frame_size = (status == TC_OK) ? tc_peer_frame_size(peer, off.frame_size) : 0;
    if (off.frame_size == 0) {
        tc_error("%s: the sync of jam '%s' needs %u-byte frames (frames are %u bytes, "
                 "slots %u)", peer->name, jam->elem->name, tc_jam_prepare_size(jam, mode),
                 peer->frame_size, peer->tx_slot_size);
        return TC_ERR_OUT_OF_RANGE;
    }
    frame = tc_peer_tx_frame(peer);
    tc_frame_write_hdr(frame, &off, &layout, TC_KIND_SYNC_REQ, cache ? TC_FRAME_F_CACHE : 0,
                       jam->pkg_id, jam->element, peer->tx_seq);
    if (cache) {
        /* GOTP is the peer's to fill; the code is the image after it */
        memset(frame + off.got_off, 0, 8u * layout.got_count);
        memcpy(frame + off.code_off, blob->image + blob->hdr->code_offset, layout.code_len);
    }
    inj->tx_sync_wait   = 1;
    inj->tx_sync_status = 0;
    status = tc_peer_send_frame(peer, frame);
    while ((status == TC_OK) && inj->tx_sync_wait) {
        status = tc_peer_wait(peer, NULL);
    }
    if (status != TC_OK) {
        return status;
    }
    if (inj->tx_sync_status < 0) {
        if (inj->tx_sync_status == TC_SYNC_BAD_CODE) {
            tc_error("%s refused the code of jam '%s' (its manifest differs?)", peer->name,
                     jam->elem->name);
        } else if (inj->tx_sync_status == TC_SYNC_WRITABLE) {
            tc_error("%s runs code W^X and refuses jam '%s': it writes its own .data or .bss "
                     "(%u bytes), which W^X maps read-only; keep its state in a ried",
                     peer->name, jam->elem->name, inj->writable);
            return TC_ERR_UNSUPPORTED;
        } else if (-inj->tx_sync_status - 1 < blob->hdr->got_count) {
            tc_error("%s cannot resolve '%s' for jam '%s': load the ried that exports it",
                     peer->name, tc_blob_slot_name(blob, (uint32_t)(-inj->tx_sync_status - 1)),
                     jam->elem->name);
        } else {
            tc_error("%s: namespace sync of jam '%s' failed", peer->name, jam->elem->name);
        }
        return TC_ERR_NOT_FOUND;
    }
    if (cache && !inj->tx_cached) {
        tc_error("%s did not cache the code of jam '%s'", peer->name, jam->elem->name);
        return TC_ERR_PROTOCOL;
    }
    return TC_OK;
}

tc_status_t tc_jam_send_mode(tc_peer_t *peer, const tc_jam_t *jam, const void *src,
                             size_t len, tc_mode_t mode, unsigned flags)
{
    tc_frame_layout_t layout;
    const tc_blob_t *blob;
    tc_frame_offsets_t off;
    tc_status_t status;
    int64_t packed;
    tc_inj_t *inj;
    char *frame;

    if (mode == TC_MODE_LOCAL) {
        return tc_jam_send_local(peer, jam, src, len, flags);
    }
    if (TC_UNLIKELY(peer->failed != TC_OK)) {
        return peer->failed;
    }
    /* the steady state: synced (and cached) already, one lookup */
    inj = tc_inj_find(peer, jam->pkg_id, jam->element);
    if (TC_UNLIKELY((inj == NULL) || !inj->tx_synced ||
                    ((mode == TC_MODE_CACHED) && !inj->tx_cached))) {
        status = tc_jam_prepare(peer, jam, mode);
        if (status != TC_OK) {
            return status;
        }
        inj = tc_inj_find(peer, jam->pkg_id, jam->element);
    }
    blob = inj->blob;
    if (TC_UNLIKELY(tc_peer_tx_free(peer) == 0)) {
        status = tc_peer_wait_credit(peer);
        if (status != TC_OK) {
            return status;
        }
    }

    /* where the payload goes follows from the sections in front of it */
    frame  = tc_peer_tx_frame(peer);
    layout = tc_jam_layout(blob, mode, 0);
    status = tc_frame_layout(&layout, peer->tx_slot_size, &off);
    packed = (status == TC_OK) ?
                 jam->elem->pack(frame + off.payload_off,
                                 peer->tx_slot_size - off.payload_off - TC_FRAME_SIG_SIZE, src,
                                 len) :
                 -1;
    if (packed >= 0) {
        layout.payload_len = (uint32_t)packed;
        status             = tc_frame_layout(&layout, peer->tx_slot_size, &off);
        off.frame_size     = (status == TC_OK) ? tc_peer_frame_size(peer, off.frame_size) : 0;
    }
    if (TC_UNLIKELY(packed < 0)) {
        tc_error("%s: jam '%s' refused to pack %zu bytes (its pack routine returned -1)",
                 peer->name, jam->elem->name, len);
        return TC_ERR_OUT_OF_RANGE;
    }
    if (TC_UNLIKELY(off.frame_size == 0)) {
        tc_error("%s: jam '%s' %s with %zu payload bytes needs a %u-byte frame; slots are "
                 "%u bytes, fixed frames %u", peer->name, jam->elem->name, tc_mode_str(mode),
                 len, tc_jam_frame_size(jam, mode, (uint32_t)len), peer->tx_slot_size,
                 (peer->ctx->params.frames == TC_FRAMES_FIXED) ? peer->frame_size : 0);
        return TC_ERR_OUT_OF_RANGE;
    }

    tc_frame_write_hdr(frame, &off, &layout,
                       (mode == TC_MODE_CACHED) ? TC_KIND_CACHED : TC_KIND_INJECTED,
                       (flags & TC_SEND_WANT_REPLY) ? TC_FRAME_F_WANT_REPLY : 0, jam->pkg_id,
                       jam->element, peer->tx_seq);
    if (mode == TC_MODE_INJECTED) {
        memcpy(frame + off.got_off, inj->tx_gotp, 8u * layout.got_count);
        memcpy(frame + off.code_off, blob->image + blob->hdr->code_offset, layout.code_len);
    }
    return tc_peer_send_frame(peer, frame);
}

/* A frame that only carries the latest result (and credits). Never waits:
 * without a free slot the reply stays pending and goes later. */
static tc_status_t tc_peer_send_reply(tc_peer_t *peer)
{
    tc_frame_layout_t layout = {0, 0, 0, 0};
    tc_frame_offsets_t offsets;
    char *frame;

    if (tc_peer_tx_free(peer) == 0) {
        peer->reply_pending = 1;
        return TC_OK;
    }
    peer->reply_pending = 0;

    frame = tc_peer_tx_frame(peer);
    (void)tc_frame_layout(&layout, peer->tx_slot_size, &offsets);
    offsets.frame_size = tc_peer_frame_size(peer, offsets.frame_size);
    tc_frame_write_hdr(frame, &offsets, &layout, TC_KIND_REPLY, 0, 0, 0, peer->tx_seq);
    return tc_peer_send_frame(peer, frame);
}

/* --------------------------------------------------------------- receive */

static int tc_peer_known(void *arg, uint32_t pkg_id, uint16_t element, uint8_t kind)
{
    tc_peer_t *peer = arg;
    const tc_ctx_pkg_t *entry;
    const tc_pkg_element_t *elem;

    if ((kind != TC_KIND_LOCAL) && (kind != TC_KIND_MCAST)) {
        /* injected, cached, sync: a jam of an accepted package with a blob
         * (a multicast envelope names a jam as a local frame does) */
        entry = tc_context_find_pkg(peer->ctx, pkg_id);
        return (entry != NULL) && (tc_pkg_blob(entry->pkg, element) != NULL);
    }
    if ((pkg_id == peer->disp_pkg_id) && (element == peer->disp_element)) {
        return 1;
    }
    entry = tc_context_find_pkg(peer->ctx, pkg_id);
    if ((entry == NULL) || (element >= entry->pkg->desc->n_elements)) {
        return 0;
    }
    elem = &entry->pkg->desc->elements[element];
    if (elem->kind != TC_ELEM_JAM) {
        return 0;
    }
    peer->disp_elem    = elem;
    peer->disp_state   = entry->state;
    peer->disp_pkg_id  = pkg_id;
    peer->disp_element = element;
    return 1;
}

static void tc_peer_reject(tc_peer_t *peer, const char *reason)
{
    snprintf(peer->last_reject, sizeof(peer->last_reject), "%s", reason);
    if (peer->stats.rx_rejected++ < TC_REJECT_LOG_MAX) {
        tc_warn("%s: rejected frame in slot %u (expected seq %u): %s", peer->name,
                peer->rx_seq & (peer->rx_slots - 1), peer->rx_seq, reason);
    }
}

#define TC_STALE_HDR (1ull << 63) /* variable frames: stale[] holds a header seq */

/* Look at the next slot: 1 and the frame if one has landed, 0 if not. */
/* --sw-prefetch: ask for every line of the frame at once, before the
 * validator and the jam walk it line by line. */
static inline void tc_peer_prefetch_frame(const tc_peer_t *peer, const char *slot)
{
    uint32_t size = (peer->ctx->params.frames == TC_FRAMES_FIXED) ?
                        peer->frame_size : ((const tc_frame_hdr_t *)slot)->frame_size;
    uint32_t off;

    if (size > peer->rx_slot_size) {
        size = peer->rx_slot_size; /* garbage: the validator will say */
    }
    for (off = TC_FRAME_ALIGN; off < size; off += TC_FRAME_ALIGN) {
        __builtin_prefetch(slot + off, 0, 3);
    }
}

/* Laps: slot i holds seq i, i + slots, i + 2 slots, ... A header or SIG of
 * an earlier lap of the slot the receiver waits on is what it left behind,
 * whatever else changed since (frame size, mode, a reset of rx_stale): not
 * a new frame, and not garbage either. */
static inline int tc_peer_seq_stale(const tc_peer_t *peer, uint32_t seq)
{
    uint32_t behind = peer->rx_seq - seq;

    return (behind != 0) && !(behind & (peer->rx_slots - 1)) && ((int32_t)behind > 0);
}

static inline int tc_peer_sig_stale(const tc_peer_t *peer, uint64_t sig)
{
    return ((uint32_t)sig == (uint32_t)tc_frame_sig(0)) &&
           tc_peer_seq_stale(peer, (uint32_t)(sig >> 32));
}

/* Fixed frames: has the SIG word of slot idx changed since the receiver
 * last looked (what a frame left, an earlier lap's)? The expected frame's
 * signal is the common case and skips the lap arithmetic. */
static inline int tc_peer_sig_new(const tc_peer_t *peer, uint32_t idx, uint64_t seen)
{
    return (seen != 0) && (seen != peer->rx_stale[idx]) &&
           TC_LIKELY((seen == tc_frame_sig(peer->rx_seq)) || !tc_peer_sig_stale(peer, seen));
}

/* Variable frames: the same for the header's seq (MAG nonzero: written). */
static inline int tc_peer_hdr_new(const tc_peer_t *peer, uint32_t idx, uint32_t seq)
{
    return ((TC_STALE_HDR | seq) != peer->rx_stale[idx]) && !tc_peer_seq_stale(peer, seq);
}

static inline int tc_peer_rx_ready(tc_peer_t *peer, char **frame_p, uint64_t *seen_p)
{
    uint32_t idx = peer->rx_seq & (peer->rx_slots - 1);
    char *slot   = peer->rx_ring + (size_t)idx * peer->rx_slot_size;
    volatile tc_frame_hdr_t *vhdr = (volatile tc_frame_hdr_t *)slot;
    uint64_t seen;
    uint32_t size, seq;

    if (TC_LIKELY(peer->ctx->params.frames == TC_FRAMES_FIXED)) {
        seen = *tc_frame_sig_ptr(slot, peer->frame_size);
        if (!tc_peer_sig_new(peer, idx, seen)) {
            return 0;
        }
    } else {
        /* variable frames: a new header first, then SIG where its size says */
        if (vhdr->mag == 0) {
            return 0;
        }
        tc_load_acquire_fence();
        seq  = vhdr->seq;
        seen = TC_STALE_HDR | seq;
        if (!tc_peer_hdr_new(peer, idx, seq)) {
            return 0;
        }
        size = vhdr->frame_size;
        if ((seq == peer->rx_seq) && (size >= TC_FRAME_MIN_SIZE) &&
            (size <= peer->rx_slot_size) && !(size % TC_FRAME_ALIGN) &&
            (*tc_frame_sig_ptr(slot, size) != tc_frame_sig(seq))) {
            return 0; /* header landed, the rest not yet */
        }
        /* otherwise complete, or garbage the validator will name */
    }
    tc_load_acquire_fence();
    if (TC_UNLIKELY(peer->sw_prefetch)) {
        tc_peer_prefetch_frame(peer, slot);
    }
    *frame_p = slot;
    *seen_p  = seen;
    return 1;
}

/* Validate and run (or reject) the frame, then give its slot back. */
/* Frames that carry or name code: check them against the manifest and the
 * namespace sync; return why not, or NULL and what to run (NULL for sync
 * traffic, which runs nothing). */
static const char *tc_peer_rx_code(tc_peer_t *peer, char *frame, const tc_frame_hdr_t *hdr,
                                   tc_jam_run_fn *run_p, void **state_p)
{
    tc_frame_layout_t layout = {hdr->args_len, hdr->got_count, hdr->code_len,
                                hdr->payload_len};
    tc_frame_offsets_t off;
    const int64_t *status;
    const char *why;
    tc_inj_t *inj;

    (void)tc_frame_layout(&layout, UINT32_MAX, &off); /* the validator checked it */
    if (hdr->kind == TC_KIND_SYNC_REP) {
        inj    = tc_inj_find(peer, hdr->pkg_id, hdr->element);
        status = (const int64_t *)(frame + off.payload_off);
        if ((inj != NULL) && (hdr->payload_len >= 8) && (*status == TC_SYNC_MISS)) {
            inj->tx_cached = 0; /* the peer lost our code: the next cached send pushes it */
            *run_p = NULL;
            return NULL;
        }
        if ((inj == NULL) || !inj->tx_sync_wait) {
            return "sync reply nobody asked for";
        }
        if ((hdr->payload_len != 8u + 8u * inj->blob->hdr->got_count) || (*status < 0)) {
            inj->tx_sync_status = (hdr->payload_len >= 8) ? *status : -1;
        } else {
            inj->tx_sync_status = *status;
            free(inj->tx_gotp);
            inj->tx_gotp = malloc(8u * inj->blob->hdr->got_count + 8u);
            if (inj->tx_gotp == NULL) {
                inj->tx_sync_status = -1;
            } else {
                memcpy(inj->tx_gotp, status + 1, 8u * inj->blob->hdr->got_count);
                inj->tx_synced = 1;
                inj->tx_cached = (*status == TC_SYNC_CACHED) || inj->tx_cached;
            }
        }
        inj->tx_sync_wait = 0;
        *run_p = NULL;
        return NULL;
    }

    inj = tc_inj_find(peer, hdr->pkg_id, hdr->element);
    if (inj == NULL) {
        tc_jam_t jam = {NULL, NULL, hdr->pkg_id, hdr->element};
        inj = tc_inj_get(peer, &jam);
        if (inj == NULL) {
            return "no room for another injected jam";
        }
    }
    *state_p = inj->state;

    switch (hdr->kind) {
    case TC_KIND_SYNC_REQ:
        inj->rx_sync_status = tc_exec_sync_allowed(peer, inj);
        if (inj->rx_sync_status == TC_SYNC_OK) {
            inj->rx_sync_status = tc_inj_resolve(peer, inj);
        }
        if ((inj->rx_sync_status == TC_SYNC_OK) && (hdr->flags & TC_FRAME_F_CACHE)) {
            why = tc_exec_cache(peer, inj, hdr, (const uint8_t *)frame + off.code_off);
            if (why != NULL) {
                tc_peer_reject(peer, why);
                inj->rx_sync_status = TC_SYNC_BAD_CODE;
            } else {
                inj->rx_sync_status = TC_SYNC_CACHED;
            }
        }
        inj->rx_sync_reply       = 1;
        peer->sync_reply_pending = 1;
        *run_p = NULL;
        return NULL;
    case TC_KIND_INJECTED:
        return tc_exec_injected(peer, inj, hdr, (uint8_t *)frame + off.got_off, run_p);
    default: /* TC_KIND_CACHED */
        /* package id and element name the code: the cache holds what the
         * sync checked (lib/exec.c) */
        why = tc_exec_cached(peer, inj, run_p);
        if (why != NULL) {
            return why;
        }
        if (*run_p == NULL) {
            inj->rx_sync_status      = TC_SYNC_MISS; /* tell the sender */
            inj->rx_sync_reply       = 1;
            peer->sync_reply_pending = 1;
            return "cached frame for code this receiver does not hold (sender told)";
        }
        peer->disp_cached = inj;
        return NULL;
    }
}

/* Ried frames: a chunk (or unload) for us, or the answer to our own. */
static void tc_peer_rx_ried(tc_peer_t *peer, const char *frame, const tc_frame_hdr_t *hdr)
{
    tc_ried_args_t args;
    uint32_t n;

    memcpy(&args, frame + TC_FRAME_HDR_SIZE, sizeof(args)); /* args_len checked */
    if (hdr->kind == TC_KIND_RIED) {
        tc_ried_rx(peer, &args, (const uint8_t *)frame + hdr->payload_off, hdr->payload_len);
        return;
    }
    if (args.id != peer->ried_tx.wait_id) {
        return; /* an answer nobody waits for any more */
    }
    n = (hdr->payload_len < sizeof(peer->ried_tx.text)) ? hdr->payload_len :
                                                          sizeof(peer->ried_tx.text) - 1;
    memcpy(peer->ried_tx.text, frame + hdr->payload_off, n);
    peer->ried_tx.text[n] = '\0';
    peer->ried_tx.status  = args.status;
    peer->ried_tx.done    = 1;
}

static tc_status_t tc_peer_rx_handle(tc_peer_t *peer, char *frame, uint64_t seen)
{
    tc_frame_expect_t expect;
    tc_jam_run_fn run_fn = NULL;
    void *state = NULL;
    tc_frame_hdr_t hdr;
    char reason[160];
    tc_jam_ctx_t jctx;
    const char *why;
    int64_t ret;

    /* one copy of the header: what is checked is what is used */
    memcpy(&hdr, frame, sizeof(hdr));
    if (TC_LIKELY(peer->ctx->params.frames == TC_FRAMES_FIXED)) {
        /* the common cases: the same jam as the last frame, local or cached */
        if (TC_LIKELY(tc_frame_fast(&hdr, TC_KIND_LOCAL, peer->frame_size, peer->rx_seq,
                                    seen) &&
                      (hdr.pkg_id == peer->disp_pkg_id) && (hdr.element == peer->disp_element))) {
            goto run;
        }
        if ((peer->disp_cached != NULL) && (peer->ctx->params.exec != TC_EXEC_LOCAL_ONLY) &&
            tc_frame_fast(&hdr, TC_KIND_CACHED, peer->frame_size, peer->rx_seq, seen) &&
            (hdr.pkg_id == peer->disp_cached->pkg_id) &&
            (hdr.element == peer->disp_cached->element)) {
            run_fn = peer->disp_cached->cache_run;
            state  = peer->disp_cached->state;
            goto run;
        }
    }

    expect.slot_size  = peer->rx_slot_size;
    expect.frame_size = (peer->ctx->params.frames == TC_FRAMES_FIXED) ? peer->frame_size : 0;
    expect.seq        = peer->rx_seq;
    expect.known      = tc_peer_known;
    expect.known_arg  = peer;
    if (TC_UNLIKELY(tc_frame_validate_hdr(&hdr, frame, &expect, reason, sizeof(reason)) !=
                    TC_OK)) {
        tc_peer_reject(peer, reason);
        goto consumed;
    }
    run_fn = NULL;
    switch (hdr.kind) {
    case TC_KIND_LOCAL:
        break;
    case TC_KIND_RIED:
    case TC_KIND_RIED_REP:
        tc_peer_rx_ried(peer, frame, &hdr);
        goto bookkeeping;
    case TC_KIND_MCAST:
    case TC_KIND_MCAST_ACK:
        /* multicast: queued by lib/mcast_fwd.c, run outside this loop */
        if (peer->ctx->mcast_rx == NULL) {
            tc_peer_reject(peer, "multicast frame, but no multicast set up here");
            goto credits;
        }
        peer->ctx->mcast_rx(peer->ctx->mcast_arg, peer, &hdr, frame);
        goto bookkeeping;
    case TC_KIND_INJECTED:
    case TC_KIND_CACHED:
    case TC_KIND_SYNC_REQ:
    case TC_KIND_SYNC_REP:
        why = tc_peer_rx_code(peer, frame, &hdr, &run_fn, &state);
        if (why != NULL) {
            /* refused, but its header is valid: the credits it carries
             * still count (else both sides wait for each other) */
            tc_peer_reject(peer, why);
            goto credits;
        }
        if (run_fn == NULL) {
            goto bookkeeping; /* sync traffic: nothing runs */
        }
        break;
    default:
        goto bookkeeping; /* a reply: only its result and credits matter */
    }

run:
    jctx.state    = (run_fn != NULL) ? state : peer->disp_state;
    jctx.origin   = peer->peer_rank;
    jctx.seq      = hdr.seq;
    jctx.args     = frame + TC_FRAME_HDR_SIZE;
    jctx.args_len = hdr.args_len;
    run_fn = (run_fn != NULL) ? run_fn : peer->disp_elem->run;
    peer->rx_last_run = run_fn;
    ret = run_fn(&jctx, frame + hdr.payload_off, hdr.payload_len);
    peer->ran_ret = ret;
    peer->ran_seq = hdr.seq;
    peer->ran_has = 1;
    peer->stats.rx_frames++;
    if (hdr.flags & TC_FRAME_F_WANT_REPLY) {
        peer->reply_pending = 1;
    }

bookkeeping:
    if (hdr.flags & TC_FRAME_F_HAS_RET) {
        peer->stats.last_ret     = hdr.ret;
        peer->stats.last_ret_seq = hdr.ret_seq;
    }
credits:
    tc_peer_note_ack(peer, hdr.ack);

consumed:
    /* the slot goes back to the sender with the next credit */
    peer->rx_stale[peer->rx_seq & (peer->rx_slots - 1)] = seen;
    peer->rx_seq++;
    peer->idle_polls = 0;
    return TC_OK;
}

/* One ried frame; the payload is cut to what the frame can carry when
 * may_truncate (answers), else it must fit. The caller checked credits. */
static tc_status_t tc_peer_send_ried(tc_peer_t *peer, uint8_t kind, uint32_t id, uint32_t op,
                                     uint32_t total, uint32_t offset, int32_t status,
                                     const char *name, const void *data, uint32_t len,
                                     int may_truncate)
{
    tc_frame_layout_t layout = {sizeof(tc_ried_args_t), 0, 0, 0};
    tc_frame_offsets_t off;
    tc_ried_args_t args;
    uint32_t room;
    char *frame;

    (void)tc_frame_layout(&layout, peer->tx_slot_size, &off);
    room = ((peer->ctx->params.frames == TC_FRAMES_FIXED) ? peer->frame_size :
                                                           peer->tx_slot_size) -
           off.payload_off - TC_FRAME_SIG_SIZE;
    if (len > room) {
        if (!may_truncate) {
            return TC_ERR_OUT_OF_RANGE;
        }
        len = room;
    }
    layout.payload_len = len;
    if (tc_frame_layout(&layout, peer->tx_slot_size, &off) != TC_OK) {
        return TC_ERR_OUT_OF_RANGE;
    }
    off.frame_size = tc_peer_frame_size(peer, off.frame_size);
    if (off.frame_size == 0) {
        tc_error("%s: ried frames do not fit %u-byte frames", peer->name, peer->frame_size);
        return TC_ERR_OUT_OF_RANGE;
    }
    memset(&args, 0, sizeof(args));
    args.id     = id;
    args.op     = op;
    args.total  = total;
    args.offset = offset;
    args.status = status;
    snprintf(args.name, sizeof(args.name), "%s", name);
    frame = tc_peer_tx_frame(peer);
    tc_frame_write_hdr(frame, &off, &layout, kind, 0, 0, 0, peer->tx_seq);
    memcpy(frame + TC_FRAME_HDR_SIZE, &args, sizeof(args));
    memcpy(frame + off.payload_off, data, len);
    return tc_peer_send_frame(peer, frame);
}

/* Wait for the peer's answer about ried id. */
static tc_status_t tc_peer_ried_wait(tc_peer_t *peer, uint32_t id)
{
    tc_status_t status = TC_OK;

    while ((status == TC_OK) && !peer->ried_tx.done) {
        status = tc_peer_wait(peer, NULL);
    }
    (void)id;
    return status;
}

tc_status_t tc_ried_ship(tc_peer_t *peer, const char *path, char *exports, size_t exports_len,
                         uint32_t *ried_id_p)
{
    tc_frame_layout_t layout = {sizeof(tc_ried_args_t), 0, 0, 0};
    const char *base = strrchr(path, '/');
    char name[TC_RIED_NAME_MAX];
    tc_frame_offsets_t off;
    uint32_t id, offset = 0, room, n;
    tc_status_t status = TC_OK;
    uint8_t *buf;
    long size;
    FILE *f;

    base = (base != NULL) ? base + 1 : path;
    snprintf(name, sizeof(name), "%.*s", (int)strcspn(base, "."), base);
    f = fopen(path, "rb");
    if (f == NULL) {
        tc_error("ried %s: %m", path);
        return TC_ERR_NOT_FOUND;
    }
    if ((fseek(f, 0, SEEK_END) != 0) || ((size = ftell(f)) <= 0) || (size > (64l << 20)) ||
        (fseek(f, 0, SEEK_SET) != 0) || ((buf = malloc((size_t)size)) == NULL)) {
        fclose(f);
        tc_error("ried %s: empty, unreadable or over 64 MiB", path);
        return TC_ERR_IO;
    }
    if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
        fclose(f);
        free(buf);
        tc_error("ried %s: short read", path);
        return TC_ERR_IO;
    }
    fclose(f);

    (void)tc_frame_layout(&layout, peer->tx_slot_size, &off);
    room = ((peer->ctx->params.frames == TC_FRAMES_FIXED) ? peer->frame_size :
                                                           peer->tx_slot_size) -
           off.payload_off - TC_FRAME_SIG_SIZE;
    id                    = ++peer->ried_tx.next_id;
    peer->ried_tx.wait_id = id;
    peer->ried_tx.done    = 0;
    while ((status == TC_OK) && (offset < (uint32_t)size)) {
        n = ((uint32_t)size - offset < room) ? (uint32_t)size - offset : room;
        if (tc_peer_tx_free(peer) == 0) {
            status = tc_peer_wait_credit(peer);
        }
        if (status == TC_OK) {
            status = tc_peer_send_ried(peer, TC_KIND_RIED, id, TC_RIED_OP_CHUNK, (uint32_t)size,
                                       offset, 0, name, buf + offset, n, 0);
        }
        offset += n;
    }
    free(buf);
    if (status == TC_OK) {
        status = tc_peer_ried_wait(peer, id);
    }
    if (status != TC_OK) {
        return status;
    }
    if (peer->ried_tx.status != 0) {
        tc_error("%s could not load ried %s: %s", peer->name, path, peer->ried_tx.text);
        return TC_ERR_IO;
    }
    if ((exports != NULL) && (exports_len > 0)) {
        snprintf(exports, exports_len, "%s", peer->ried_tx.text);
    }
    *ried_id_p = id;
    return TC_OK;
}

tc_status_t tc_ried_unload(tc_peer_t *peer, uint32_t ried_id)
{
    tc_status_t status = TC_OK;

    peer->ried_tx.wait_id = ried_id;
    peer->ried_tx.done    = 0;
    if (tc_peer_tx_free(peer) == 0) {
        status = tc_peer_wait_credit(peer);
    }
    if (status == TC_OK) {
        status = tc_peer_send_ried(peer, TC_KIND_RIED, ried_id, TC_RIED_OP_UNLOAD, 0, 0, 0, "",
                                   "", 0, 0);
    }
    if (status == TC_OK) {
        status = tc_peer_ried_wait(peer, ried_id);
    }
    if ((status == TC_OK) && (peer->ried_tx.status != 0)) {
        tc_error("%s: unload of ried %u: %s", peer->name, ried_id, peer->ried_tx.text);
        status = TC_ERR_NOT_FOUND;
    }
    return status;
}

/* Answer the peer's namespace syncs: status, then the addresses resolved
 * for it. Never waits: without a free slot the answer goes later. */
static tc_status_t tc_peer_send_sync_replies(tc_peer_t *peer)
{
    tc_frame_layout_t layout = {0, 0, 0, 0};
    tc_frame_offsets_t off;
    tc_status_t status;
    unsigned i;
    char *frame;

    for (i = 0; i < peer->n_inj; ++i) {
        tc_inj_t *inj = &peer->inj[i];
        uint32_t n    = inj->blob->hdr->got_count;

        if (!inj->rx_sync_reply) {
            continue;
        }
        if (tc_peer_tx_free(peer) == 0) {
            return TC_OK; /* still pending */
        }
        layout.payload_len = 8u + 8u * n;
        status = tc_frame_layout(&layout, peer->tx_slot_size, &off);
        off.frame_size = (status == TC_OK) ? tc_peer_frame_size(peer, off.frame_size) : 0;
        if (off.frame_size == 0) {
            tc_error("%s: a %u-slot sync reply does not fit the %u-byte frames", peer->name, n,
                     peer->frame_size);
            return TC_ERR_OUT_OF_RANGE;
        }
        frame = tc_peer_tx_frame(peer);
        tc_frame_write_hdr(frame, &off, &layout, TC_KIND_SYNC_REP, 0, inj->pkg_id,
                           inj->element, peer->tx_seq);
        memcpy(frame + off.payload_off, &inj->rx_sync_status, 8);
        if (inj->rx_resolved) {
            memcpy(frame + off.payload_off + 8, inj->rx_gotp, 8u * n);
        } else {
            memset(frame + off.payload_off + 8, 0, 8u * n);
        }
        status = tc_peer_send_frame(peer, frame);
        if (status != TC_OK) {
            return status;
        }
        inj->rx_sync_reply = 0;
    }
    peer->sync_reply_pending = 0;
    return TC_OK;
}

tc_status_t tc_peer_progress(tc_peer_t *peer, unsigned max, unsigned *n_p)
{
    tc_status_t status = TC_OK;
    unsigned n = 0;
    uint64_t seen;
    char *frame;

    if (TC_UNLIKELY(peer->failed != TC_OK)) {
        return peer->failed;
    }
    peer->in_progress = 1;
    while (((max == 0) || (n < max)) && tc_peer_rx_ready(peer, &frame, &seen)) {
        status = tc_peer_rx_handle(peer, frame, seen);
        if (status != TC_OK) {
            break;
        }
        ++n;
    }
    if ((status == TC_OK) && peer->reply_pending) {
        status = tc_peer_send_reply(peer);
    }
    if ((status == TC_OK) && peer->sync_reply_pending) {
        status = tc_peer_send_sync_replies(peer);
    }
    if ((status == TC_OK) && peer->ried_rx.reply_pending && (tc_peer_tx_free(peer) > 0)) {
        status = tc_peer_send_ried(peer, TC_KIND_RIED_REP, peer->ried_rx.id,
                                   peer->ried_rx.reply_op, 0, 0, peer->ried_rx.reply_status, "",
                                   peer->ried_rx.reply_text,
                                   (uint32_t)strlen(peer->ried_rx.reply_text), 1);
        peer->ried_rx.reply_pending = 0;
    }
    if ((status == TC_OK) && (peer->rx_seq - peer->rx_reported >= peer->credit_batch)) {
        status = tc_peer_return_credits(peer);
    }
    peer->in_progress = 0;
    if (n_p != NULL) {
        *n_p = n;
    }
    return status;
}

static inline int tc_peer_rx_peek(const tc_peer_t *peer);

/* The word whose change announces the next frame: SIG of the next slot for
 * fixed frames, the header's last word (MAG) for variable ones. */
static inline volatile uint64_t *tc_peer_watch_word(const tc_peer_t *peer, uint64_t *old_p)
{
    uint32_t idx = peer->rx_seq & (peer->rx_slots - 1);
    char *slot   = peer->rx_ring + (size_t)idx * peer->rx_slot_size;
    volatile uint64_t *word;

    word = (peer->ctx->params.frames == TC_FRAMES_FIXED) ?
               tc_frame_sig_ptr(slot, peer->frame_size) :
               (volatile uint64_t *)(slot + TC_FRAME_HDR_SIZE - sizeof(uint64_t));
    *old_p = *word;
    return word;
}

/* The mailbox and worker as lib/wait sees them. */
static volatile uint64_t *tc_peer_wait_watch(void *arg, uint64_t *old_p)
{
    return tc_peer_watch_word(arg, old_p);
}

static int tc_peer_wait_ready(void *arg)
{
    return tc_peer_rx_peek(arg);
}

static tc_status_t tc_peer_wait_arm(void *arg)
{
    const tc_peer_t *peer = arg;

    return (ucp_worker_arm(peer->ctx->worker) == UCS_OK) ? TC_OK : TC_ERR_NO_RESOURCE;
}

static void tc_peer_wait_progress(void *arg)
{
    const tc_peer_t *peer = arg;

    ucp_worker_progress(peer->ctx->worker);
}

/* Has the next frame (or something to reject) landed? The wait loop's only
 * work per iteration, so it stays a couple of loads. */
static inline int tc_peer_rx_peek(const tc_peer_t *peer)
{
    uint32_t idx     = peer->rx_seq & (peer->rx_slots - 1);
    const char *slot = peer->rx_ring + (size_t)idx * peer->rx_slot_size;
    uint64_t seen;

    if (TC_LIKELY(peer->ctx->params.frames == TC_FRAMES_FIXED)) {
        seen = *tc_frame_sig_ptr((char *)slot, peer->frame_size);
        return tc_peer_sig_new(peer, idx, seen);
    }
    return (((const volatile tc_frame_hdr_t *)slot)->mag != 0) &&
           tc_peer_hdr_new(peer, idx, ((const volatile tc_frame_hdr_t *)slot)->seq);
}

tc_status_t tc_peer_wait(tc_peer_t *peer, unsigned *n_p)
{
    tc_peer_waiter_t w = TC_PEER_WAITER("a frame");
    tc_wait_state_t ws = {0, 0};
    tc_status_t status;
    unsigned n = 0;

    for (;;) {
        if (tc_peer_rx_peek(peer) || peer->reply_pending) {
            /* one frame: looking at the next slot first would put a cache
             * miss between this frame and whatever the caller sends next */
            status = tc_peer_progress(peer, 1, &n);
            if ((status != TC_OK) || (n > 0)) {
                break;
            }
        }
        /* an idle receiver hands back what it consumed, so a sender
         * waiting for its last credits is not stuck behind the batch */
        if (TC_UNLIKELY((++peer->idle_polls == 256) &&
                        (peer->rx_seq != peer->rx_reported))) {
            status = tc_peer_return_credits(peer);
            if (status != TC_OK) {
                break;
            }
        }
        if (peer->wait != TC_WAIT_POLL) {
            int blocked = tc_wait_idle(peer->wait, peer->ctx->params.spin_ns, &peer->wait_ops,
                                       &ws);
            if (blocked) {
                /* a blocking wait may last long: check deadlines every time */
                status = tc_peer_waiter_check(peer, &w);
                if (status != TC_OK) {
                    break;
                }
                continue;
            }
        }
        status = tc_peer_waiter_spin(peer, &w);
        if (status != TC_OK) {
            break;
        }
    }
    peer->stats.polls   += w.iter + 1;
    peer->stats.wakeups += ws.wakeups;
    if ((status == TC_OK) && (n_p != NULL)) {
        *n_p = n;
    }
    return status;
}

tc_status_t tc_peer_drain(tc_peer_t *peer)
{
    tc_peer_waiter_t w = TC_PEER_WAITER("the last credits");
    tc_status_t status = TC_OK;

    /* the peer may be draining towards us at the same time: what we owe it
     * goes back first, or both wait for each other */
    if (peer->rx_seq != peer->rx_reported) {
        status = tc_peer_return_credits(peer);
    }
    for (;;) {
        tc_peer_note_ack(peer, (uint32_t)peer->ctrl->consumed);
        if ((peer->tx_acked == peer->tx_seq) || (status != TC_OK)) {
            return status;
        }
        status = tc_peer_progress(peer, 0, NULL);
        if ((status == TC_OK) && (peer->rx_seq != peer->rx_reported)) {
            status = tc_peer_return_credits(peer);
        }
        if (status == TC_OK) {
            status = tc_peer_waiter_spin(peer, &w);
        }
    }
}

tc_status_t tc_peer_flush(tc_peer_t *peer)
{
    tc_peer_waiter_t w = TC_PEER_WAITER("outgoing puts");
    tc_status_t status;

    status = tc_peer_progress(peer, 0, NULL);
    if ((status == TC_OK) && (peer->rx_seq != peer->rx_reported)) {
        status = tc_peer_return_credits(peer);
    }
    if ((status != TC_OK) || !peer->progress) {
        return status;
    }

    /* Where puts are emulated, a put leaves only when the worker runs: keep
     * it running until nothing of ours waits to go out. A worker flush would
     * also wait for the peer's acknowledgement, which a peer that has moved
     * on (to a barrier, say) does not send. */
    while ((status == TC_OK) && (ucp_worker_progress(peer->ctx->worker) != 0)) {
        status = tc_peer_waiter_spin(peer, &w);
    }
    return status;
}

tc_status_t tc_jam_call(tc_peer_t *peer, const tc_jam_t *jam, const void *src,
                        size_t len, int64_t *ret_p)
{
    return tc_jam_call_mode(peer, jam, src, len, TC_MODE_LOCAL, ret_p);
}

tc_status_t tc_jam_call_mode(tc_peer_t *peer, const tc_jam_t *jam, const void *src,
                             size_t len, tc_mode_t mode, int64_t *ret_p)
{
    tc_status_t status;
    uint32_t seq;

    status = tc_jam_send_mode(peer, jam, src, len, mode, TC_SEND_WANT_REPLY);
    if (status != TC_OK) {
        return status;
    }
    /* tc_jam_send may have waited for credits; the jam went out as seq */
    seq = peer->tx_seq - 1;
    while (peer->stats.last_ret_seq != seq) {
        status = tc_peer_wait(peer, NULL);
        if (status != TC_OK) {
            return status;
        }
    }
    *ret_p = peer->stats.last_ret;
    return TC_OK;
}

/* ------------------------------------------------------------- queries */

void tc_peer_stats(const tc_peer_t *peer, tc_peer_stats_t *stats_p)
{
    *stats_p = peer->stats;
}

const char *tc_peer_last_reject(const tc_peer_t *peer)
{
    return peer->last_reject;
}

const char *tc_peer_name(const tc_peer_t *peer)
{
    return peer->name;
}

int tc_peer_progress_needed(const tc_peer_t *peer, const char **why_p)
{
    if (why_p != NULL) {
        *why_p = peer->progress_why;
    }
    return peer->progress;
}

void tc_peer_raw(const tc_peer_t *peer, tc_peer_raw_t *raw_p)
{
    raw_p->ucp_worker       = peer->ctx->worker;
    raw_p->ucp_ep           = peer->ep;
    raw_p->ucp_rkey         = peer->rkey;
    raw_p->remote_ring      = peer->remote_raw;
    raw_p->remote_consumed  = peer->remote_base + offsetof(tc_mbox_ctrl_t, raw_consumed);
    raw_p->remote_slots     = peer->tx_slots;
    raw_p->remote_slot_size = peer->tx_slot_size;
    raw_p->local_ring       = peer->raw;
    raw_p->local_consumed   = &peer->ctrl->raw_consumed;
    raw_p->local_slots      = peer->rx_slots;
    raw_p->local_slot_size  = peer->rx_slot_size;
}

const char *tc_peer_transports(const tc_peer_t *peer)
{
    return peer->transports;
}

tc_status_t tc_peer_send_kind(tc_peer_t *peer, uint8_t kind, uint32_t pkg_id, uint16_t element,
                              const void *args, uint32_t args_len, const void *payload,
                              uint32_t payload_len, int nowait)
{
    tc_frame_layout_t layout = {args_len, 0, 0, payload_len};
    tc_frame_offsets_t off;
    tc_status_t status;
    uint32_t size;
    char *frame;

    if (TC_UNLIKELY(peer->failed != TC_OK)) {
        return peer->failed;
    }
    if (tc_peer_tx_free(peer) == 0) {
        if (nowait) {
            return TC_ERR_NO_RESOURCE;
        }
        status = tc_peer_wait_credit(peer);
        if (status != TC_OK) {
            return status;
        }
    }
    status = tc_frame_layout(&layout, peer->tx_slot_size, &off);
    size   = (status == TC_OK) ? tc_peer_frame_size(peer, off.frame_size) : 0;
    if (size == 0) {
        tc_error("%s: a %s frame with %u ARGS and %u payload bytes does not fit the %u-byte "
                 "slots", peer->name, tc_frame_kind_str(kind), args_len, payload_len,
                 peer->tx_slot_size);
        return TC_ERR_OUT_OF_RANGE;
    }
    off.frame_size = size;
    frame = tc_peer_tx_frame(peer);
    tc_frame_write_hdr(frame, &off, &layout, kind, 0, pkg_id, element, peer->tx_seq);
    if (args_len > 0) {
        memcpy(frame + off.args_off, args, args_len);
    }
    if (payload_len > 0) {
        memcpy(frame + off.payload_off, payload, payload_len);
    }
    return tc_peer_send_frame(peer, frame);
}
