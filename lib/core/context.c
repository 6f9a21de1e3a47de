/* UCX context and worker, the packages loaded into them, and the receive
 * path's table: the handlers the modules register for the frame kinds that
 * are not jams, and the steps for what frames leave owed (lib/core/dispatch.c
 * reads it; registering is the context's, so that no module above the
 * data path calls into dispatch to register). */
#include "runtime.h"
#include "cpu.h"
#include "log.h"
#include "names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tc_context_params_init(tc_context_params_t *params)
{
    memset(params, 0, sizeof(*params));
    params->slots      = 64;
    params->slot_size  = 65536;
    params->signal     = TC_SIGNAL_AUTO;
    params->frames     = TC_FRAMES_VARIABLE; /* works for any payload (docs/USING.md) */
    params->progress   = TC_PROGRESS_AUTO;
    params->timeout_ms = 10000;
    params->enable_am  = 0;
    params->exec       = TC_EXEC_ALLOWLIST;
    params->code_cache = 1u << 20;
    params->wx         = 0;
    params->wait       = TC_WAIT_POLL;
    params->events     = 0;
    params->spin_ns    = 20000;
    params->rank       = 0;
    params->call_timeout_ms           = 0; /* timeout_ms */
    params->ried_max_per_process      = TC_MAX_RIEDS / 4;
    params->ried_rx_bytes_per_process = TC_RIED_MAX_BYTES;
    params->ried_rx_bytes             = 2ull * TC_RIED_MAX_BYTES;
    params->counters   = 1;
    params->field_mask = TC_CONTEXT_PARAM_FIELD_ALL;
}

/* The caller's fields over the defaults: a field whose bit is clear keeps
 * its default (a program built before the field existed never set it). */
static void tc_context_params_apply(const tc_context_params_t *in, tc_context_params_t *out)
{
    uint64_t mask = in->field_mask;

    tc_context_params_init(out);
#define TC_PARAM_TAKE(_bit, _field) \
    if (mask & TC_CONTEXT_PARAM_FIELD_##_bit) { \
        out->_field = in->_field; \
    }
    TC_PARAM_TAKE(SLOTS, slots)
    TC_PARAM_TAKE(SLOT_SIZE, slot_size)
    TC_PARAM_TAKE(SIGNAL, signal)
    TC_PARAM_TAKE(FRAMES, frames)
    TC_PARAM_TAKE(PROGRESS, progress)
    TC_PARAM_TAKE(TIMEOUT, timeout_ms)
    TC_PARAM_TAKE(ENABLE_AM, enable_am)
    TC_PARAM_TAKE(EXEC, exec)
    TC_PARAM_TAKE(CODE_CACHE, code_cache)
    TC_PARAM_TAKE(WAIT, wait)
    TC_PARAM_TAKE(EVENTS, events)
    TC_PARAM_TAKE(SPIN_NS, spin_ns)
    TC_PARAM_TAKE(WX, wx)
    TC_PARAM_TAKE(RANK, rank)
    TC_PARAM_TAKE(IN_PLACE, in_place)
    TC_PARAM_TAKE(CALL_TIMEOUT, call_timeout_ms)
    TC_PARAM_TAKE(RIED_LIMITS, ried_max_per_process)
    TC_PARAM_TAKE(RIED_LIMITS, ried_rx_bytes_per_process)
    TC_PARAM_TAKE(RIED_LIMITS, ried_rx_bytes)
    TC_PARAM_TAKE(COUNTERS, counters)
#undef TC_PARAM_TAKE
    out->field_mask = TC_CONTEXT_PARAM_FIELD_ALL;
}

static tc_status_t tc_context_check_params(const tc_context_params_t *params)
{
    if ((params->counters != 0) && (params->counters != 1)) {
        tc_error("counters must be 0 (off) or 1 (on) (got %d)", params->counters);
        return TC_ERR_INVALID_PARAM;
    }
    if ((params->slots < 2) || (params->slots & (params->slots - 1))) {
        tc_error("ring slots must be a power of two >= 2 (got %u)", params->slots);
        return TC_ERR_INVALID_PARAM;
    }
    if ((params->slot_size < TC_FRAME_MIN_SIZE) ||
        (params->slot_size % TC_FRAME_ALIGN) != 0) {
        tc_error("slot size must be a multiple of %u, at least %u (got %u)",
                 TC_FRAME_ALIGN, TC_FRAME_MIN_SIZE, params->slot_size);
        return TC_ERR_INVALID_PARAM;
    }
    if ((uint64_t)params->slots * params->slot_size > (1ull << 32)) {
        tc_error("mailbox of %u x %u bytes is over 4 GiB", params->slots,
                 params->slot_size);
        return TC_ERR_INVALID_PARAM;
    }
    if (params->timeout_ms <= 0) {
        tc_error("timeout must be positive (got %d ms)", params->timeout_ms);
        return TC_ERR_INVALID_PARAM;
    }
    if (params->call_timeout_ms < 0) {
        tc_error("call timeout must be positive, or 0 for the timeout's (got %d ms)",
                 params->call_timeout_ms);
        return TC_ERR_INVALID_PARAM;
    }
    if (params->ried_max_per_process > TC_MAX_RIEDS) {
        tc_error("rieds per peer process: at most the table's %u (got %u)", TC_MAX_RIEDS,
                 params->ried_max_per_process);
        return TC_ERR_INVALID_PARAM;
    }
    /* in place runs bytes a peer can still write: only as the measured
     * layout of policy any, never beside the allow-list or W^X */
    if (params->in_place && ((params->exec != TC_EXEC_ANY) || params->wx)) {
        tc_error("in-place execution needs policy any and no W^X (it does not hold against "
                 "a racing peer: docs/SECURITY.md)");
        return TC_ERR_INVALID_PARAM;
    }
    return TC_OK;
}

static ucs_status_t tc_context_doorbell(void *arg, const void *header, size_t header_length,
                                        void *data, size_t length,
                                        const ucp_am_recv_param_t *param)
{
    (void)arg;
    (void)header;
    (void)header_length;
    (void)data;
    (void)length;
    (void)param;
    return UCS_OK;
}

/* Every other id: nothing of ours sends it. Dropped (UCS_OK: UCX frees the
 * data, or answers a rendezvous without fetching it) and counted; no NACK, as
 * an active message is no frame of a stream and names no peer that the
 * mailbox protocol knows. Logged once per context: a peer must not fill the
 * log. */
static ucs_status_t tc_context_am_stray(void *arg, const void *header, size_t header_length,
                                        void *data, size_t length,
                                        const ucp_am_recv_param_t *param)
{
    tc_context_t *ctx = arg;

    (void)header;
    (void)data;
    (void)param;
    if (ctx->am_dropped++ == 0) {
        tc_warn("dropped an active message this library never sends (%zu + %zu bytes): "
                "counted in tc_context_am_dropped, not logged again",
                header_length, length);
    }
    return UCS_OK;
}

/* A handler on every id UCX can deliver. UCX 1.13 looks an arriving id up
 * in its handler array before it checks the id (ucp_am_handler_common reads
 * the entry's flags), and the array it grows for an id leaves the entries
 * below uninitialised: an id no one registered reads past the array, or
 * calls through garbage. The id is a uint16_t on the wire, so all 65,536
 * get an entry; the highest first makes UCX allocate the array once. */
static tc_status_t tc_context_am_handlers(tc_context_t *ctx)
{
    ucp_am_handler_param_t am;
    ucs_status_t ucs;
    uint32_t i, id;

    memset(&am, 0, sizeof(am));
    am.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                    UCP_AM_HANDLER_PARAM_FIELD_ARG;
    am.arg        = ctx;
    for (i = 0; i < TC_AM_IDS; ++i) {
        id    = TC_AM_IDS - 1 - i;
        am.id = id;
        /* the doorbell carries nothing: its arrival is the wake-up; taken
         * with events off too (a peer's config frame can turn doorbells on) */
        am.cb = (id == TC_AM_DOORBELL) ? tc_context_doorbell : tc_context_am_stray;
        ucs   = ucp_worker_set_am_recv_handler(ctx->worker, &am);
        if (ucs != UCS_OK) {
            tc_error("active-message handler %u: %s", id, ucs_status_string(ucs));
            return TC_ERR_UCX;
        }
    }
    return TC_OK;
}

uint64_t tc_context_am_dropped(const tc_context_t *ctx)
{
    return ctx->am_dropped;
}

/* UCX's unified mode packs a worker address without its lengths (they
 * come from this side's own interfaces), so a peer's address could not be
 * checked before UCX parses it (lib/codec/ucx_blob.h): refused. */
static tc_status_t tc_context_check_ucx_config(const ucp_config_t *config)
{
    char *text = NULL;
    size_t len = 0;
    FILE *stream;
    int unified;

    stream = open_memstream(&text, &len);
    if (stream == NULL) {
        tc_error("cannot read UCX's configuration: out of memory");
        return TC_ERR_NO_MEMORY;
    }
    ucp_config_print(config, stream, NULL, UCS_CONFIG_PRINT_CONFIG);
    fclose(stream);
    unified = (text != NULL) && (strstr(text, "UCX_UNIFIED_MODE=y") != NULL);
    free(text);
    if (unified) {
        tc_error("UCX_UNIFIED_MODE=y: a peer's worker address then carries no lengths, and "
                 "cannot be checked before UCX parses it (docs/SECURITY.md)");
        return TC_ERR_UNSUPPORTED;
    }
    return TC_OK;
}

tc_status_t tc_context_check_wait(const tc_context_t *ctx, tc_wait_t wait)
{
    tc_cpu_features_t cpu;
    char have[128];

    if ((unsigned)wait >= tc_names_wait.count) {
        tc_error("unknown wait strategy %d", (int)wait);
        return TC_ERR_INVALID_PARAM;
    }
    if (wait == TC_WAIT_POLL) {
        return TC_OK;
    }
    if (((wait == TC_WAIT_EVENT) || (wait == TC_WAIT_ADAPTIVE)) && !ctx->params.events) {
        tc_error("wait strategy %s needs UCX wake-ups: create the context with events",
                 tc_wait_str(wait));
        return TC_ERR_INVALID_PARAM;
    }
    tc_cpu_probe(&cpu);
    if (!cpu.wait[wait].supported) {
        tc_cpu_wait_available(&cpu, have, sizeof(have));
        tc_error("wait strategy %s: %s (this host has: %s)", tc_wait_str(wait),
                 cpu.wait[wait].status, have);
        return TC_ERR_UNSUPPORTED;
    }
    return TC_OK;
}

tc_status_t tc_context_create(const tc_context_params_t *params, tc_context_t **ctx_p)
{
    ucp_params_t ucp_params;
    ucp_worker_params_t worker_params;
    ucp_config_t *config;
    ucs_status_t ucs;
    tc_context_params_t given;
    tc_context_t *ctx;
    tc_status_t status;

    if (params == NULL) {
        tc_error("tc_context_create: params is NULL (tc_context_params_init makes defaults)");
        return TC_ERR_INVALID_PARAM;
    }
    tc_context_params_apply(params, &given);
    params = &given;
    status = tc_context_check_params(params);
    if (status != TC_OK) {
        return status;
    }

    ctx = calloc(1, sizeof(*ctx));
    if (ctx == NULL) {
        return TC_ERR_NO_MEMORY;
    }
    ctx->params = *params;

    ucs = ucp_config_read(NULL, NULL, &config);
    if (ucs != UCS_OK) {
        tc_error("ucp_config_read: %s", ucs_status_string(ucs));
        status = TC_ERR_UCX;
        goto err_free;
    }
    status = tc_context_check_ucx_config(config);
    if (status != TC_OK) {
        ucp_config_release(config);
        goto err_free;
    }

    memset(&ucp_params, 0, sizeof(ucp_params));
    ucp_params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED;
    /* AM always: a peer that waits on events needs our doorbells */
    ucp_params.features   = UCP_FEATURE_RMA | UCP_FEATURE_AM;
    if (params->events || (params->wait == TC_WAIT_EVENT) ||
        (params->wait == TC_WAIT_ADAPTIVE)) {
        ucp_params.features |= UCP_FEATURE_WAKEUP;
        ctx->params.events = 1;
    }
    ucp_params.mt_workers_shared = 0;

    ucs = ucp_init(&ucp_params, config, &ctx->ucp);
    ucp_config_release(config);
    if (ucs != UCS_OK) {
        tc_error("ucp_init: %s (check UCX_TLS)", ucs_status_string(ucs));
        status = TC_ERR_UCX;
        goto err_free;
    }

    memset(&worker_params, 0, sizeof(worker_params));
    worker_params.field_mask  = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    worker_params.thread_mode = UCS_THREAD_MODE_SINGLE;
    ucs = ucp_worker_create(ctx->ucp, &worker_params, &ctx->worker);
    if (ucs != UCS_OK) {
        tc_error("ucp_worker_create: %s", ucs_status_string(ucs));
        status = TC_ERR_UCX;
        goto err_cleanup_ucp;
    }

    status = tc_context_am_handlers(ctx);
    if (status != TC_OK) {
        goto err_destroy_worker;
    }
    ctx->efd = -1;
    if (ctx->params.events) {
        ucs = ucp_worker_get_efd(ctx->worker, &ctx->efd);
        if (ucs != UCS_OK) {
            tc_error("ucp_worker_get_efd: %s", ucs_status_string(ucs));
            status = TC_ERR_UCX;
            goto err_destroy_worker;
        }
    }
    status = tc_context_check_wait(ctx, params->wait);
    if (status != TC_OK) {
        goto err_destroy_worker;
    }

    *ctx_p = ctx;
    return TC_OK;

err_destroy_worker:
    ucp_worker_destroy(ctx->worker);
err_cleanup_ucp:
    ucp_cleanup(ctx->ucp);
err_free:
    free(ctx);
    return status;
}

void tc_context_destroy(tc_context_t *ctx)
{
    unsigned i, e;

    if (ctx == NULL) {
        return;
    }
    tc_ried_unload_all(ctx);
    for (i = ctx->n_pkgs; i-- > 0;) {
        const tc_pkg_desc_t *desc = ctx->pkgs[i].pkg->desc;
        for (e = desc->n_elements; e-- > 0;) {
            if ((desc->elements[e].kind == TC_ELEM_RIED) &&
                (desc->elements[e].fini != NULL)) {
                desc->elements[e].fini(ctx->pkgs[i].state);
            }
        }
    }
    ucp_worker_destroy(ctx->worker);
    ucp_cleanup(ctx->ucp);
    free(ctx);
}

tc_status_t tc_context_add_pkg(tc_context_t *ctx, const tc_pkg_t *pkg)
{
    const tc_pkg_desc_t *desc = pkg->desc;
    void *state = NULL;
    uint32_t e;
    int rc;

    if (tc_context_find_pkg(ctx, desc->id) != NULL) {
        tc_error("package '%s' (0x%08x) is already loaded", desc->name, desc->id);
        return TC_ERR_INVALID_PARAM;
    }
    if (ctx->n_pkgs == TC_MAX_PKGS) {
        tc_error("at most %d packages per context", TC_MAX_PKGS);
        return TC_ERR_NO_RESOURCE;
    }

    /* The package's ried builds the state its jams work on, per context:
     * two contexts in one process (loopback) keep separate state. */
    for (e = 0; e < desc->n_elements; ++e) {
        if ((desc->elements[e].kind != TC_ELEM_RIED) || (desc->elements[e].init == NULL)) {
            continue;
        }
        if (state != NULL) {
            tc_error("package '%s': more than one ried with state", desc->name);
            return TC_ERR_UNSUPPORTED;
        }
        rc = desc->elements[e].init(&state);
        if (rc != 0) {
            tc_error("package '%s': ried '%s' init failed (%d)", desc->name,
                     desc->elements[e].name, rc);
            return TC_ERR_IO;
        }
    }

    if (ctx->next_peer_serial > 0) {
        tc_warn("package '%s' loaded after a peer connected: peers hear of packages at "
                "connect, so those connected before refuse local calls into it",
                desc->name);
    }
    ctx->pkgs[ctx->n_pkgs].pkg   = pkg;
    ctx->pkgs[ctx->n_pkgs].state = state;
    ctx->n_pkgs++;
    return TC_OK;
}

const tc_ctx_pkg_t *tc_context_find_pkg(const tc_context_t *ctx, uint32_t pkg_id)
{
    unsigned i;

    for (i = 0; i < ctx->n_pkgs; ++i) {
        if (ctx->pkgs[i].pkg->desc->id == pkg_id) {
            return &ctx->pkgs[i];
        }
    }
    return NULL;
}

void *tc_context_pkg_state(const tc_context_t *ctx, const tc_pkg_t *pkg)
{
    const tc_ctx_pkg_t *entry = tc_context_find_pkg(ctx, pkg->desc->id);
    return (entry != NULL) ? entry->state : NULL;
}

const char *tc_ucx_version(void)
{
    return ucp_get_version_string();
}

/* ------------------------------------- the receive path's table (dispatch reads it) */

tc_status_t tc_rx_register(tc_context_t *ctx, uint8_t kind, tc_rx_kind_fn cb, void *arg,
                           unsigned flags)
{
    tc_rx_kind_t *entry;

    if ((kind == 0) || (kind >= TC_KIND_LAST) || (kind == TC_KIND_LOCAL) ||
        (kind == TC_KIND_INJECTED) || (kind == TC_KIND_CACHED) || (cb == NULL)) {
        tc_error("frame kind %u (%s): a handler registers only for a kind that is not a jam's",
                 kind, tc_frame_kind_str(kind));
        return TC_ERR_INVALID_PARAM;
    }
    entry = &ctx->rx_kinds[kind];
    if ((entry->cb != NULL) && ((entry->cb != cb) || (entry->arg != arg))) {
        tc_error("frame kind %s: another handler takes it already", tc_frame_kind_str(kind));
        return TC_ERR_BUSY;
    }
    entry->cb    = cb;
    entry->arg   = arg;
    entry->flags = flags;
    return TC_OK;
}

void tc_rx_unregister(tc_context_t *ctx, uint8_t kind)
{
    if (kind < TC_KIND_LAST) {
        memset(&ctx->rx_kinds[kind], 0, sizeof(ctx->rx_kinds[kind]));
    }
}

tc_status_t tc_rx_register_kinds(tc_context_t *ctx, const tc_rx_kind_def_t *defs, unsigned n,
                                 void *arg, unsigned owed, tc_owed_fn step)
{
    tc_status_t status = TC_OK;
    unsigned done;

    for (done = 0; done < n; ++done) {
        status = tc_rx_register(ctx, defs[done].kind, defs[done].cb, arg, defs[done].flags);
        if (status != TC_OK) {
            goto err_unregister;
        }
    }
    if (owed != 0) {
        status = tc_rx_register_owed(ctx, owed, step);
        if (status != TC_OK) {
            goto err_unregister;
        }
    }
    return TC_OK;

err_unregister:
    while (done-- > 0) {
        tc_rx_unregister(ctx, defs[done].kind);
    }
    return status;
}

tc_status_t tc_rx_register_owed(tc_context_t *ctx, unsigned owed, tc_owed_fn step)
{
    unsigned bit = (owed != 0) ? (unsigned)__builtin_ctz(owed) : 0;

    if ((owed == 0) || (bit >= TC_OWED_STEPS) || (owed != (1u << bit)) || (step == NULL)) {
        tc_error("owed work 0x%x: a step registers for one bit of TC_OWED_*", owed);
        return TC_ERR_INVALID_PARAM;
    }
    ctx->owed_steps[bit] = step;
    return TC_OK;
}
