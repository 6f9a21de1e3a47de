/*
 * The rieds peers shipped that a context holds (tc_context_t.rieds): found
 * by the names a synced jam's GOT slots ask for, pinned while such a jam
 * points into them, released with the peer that shipped them, unloaded
 * with the context. Loading one is lib/core/ried.c's (the wire protocol); this
 * file sends nothing, so the context and the injection table use it below
 * the data path.
 */
#include "runtime.h"

#include <dlfcn.h>
#include <string.h>
#include <unistd.h>

void tc_ried_unload_slot(tc_ctx_ried_t *slot)
{
    if (slot->fini != NULL) {
        slot->fini(slot->state);
    }
    dlclose(slot->handle);
    close(slot->fd);
    memset(slot, 0, sizeof(*slot));
}

void *tc_ried_lookup(const tc_context_t *ctx, const char *name, unsigned *index_p)
{
    unsigned i;
    void *addr;

    for (i = 0; i < TC_MAX_RIEDS; ++i) {
        if ((ctx->rieds[i].handle != NULL) &&
            ((addr = dlsym(ctx->rieds[i].handle, name)) != NULL)) {
            *index_p = i;
            return addr;
        }
    }
    return NULL;
}

void tc_ried_unpin(tc_context_t *ctx, uint32_t pins)
{
    unsigned i;

    for (i = 0; i < TC_MAX_RIEDS; ++i) {
        tc_ctx_ried_t *slot = &ctx->rieds[i];
        if (!(pins & (1u << i)) || (slot->handle == NULL) || (slot->pins == 0)) {
            continue;
        }
        if ((--slot->pins == 0) && (slot->owner == 0)) {
            tc_ried_unload_slot(slot);
        }
    }
}

void tc_ried_release(tc_context_t *ctx, const tc_peer_t *peer)
{
    unsigned i;

    for (i = 0; i < TC_MAX_RIEDS; ++i) {
        tc_ctx_ried_t *slot = &ctx->rieds[i];
        if ((slot->handle == NULL) || (slot->owner != peer->wireup->serial)) {
            continue;
        }
        if (slot->pins == 0) {
            tc_ried_unload_slot(slot);
        } else {
            slot->owner      = 0; /* orphaned: another peer's jams still call into it */
            slot->owner_proc = 0;
        }
    }
}

void tc_ried_unload_all(tc_context_t *ctx)
{
    unsigned i;

    for (i = 0; i < TC_MAX_RIEDS; ++i) {
        if (ctx->rieds[i].handle != NULL) {
            tc_ried_unload_slot(&ctx->rieds[i]);
        }
    }
}
