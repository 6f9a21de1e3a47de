/*
 * What each side knows about each injected jam it shares with a peer
 * (tc_peer_t.inj, one tc_inj_t per package and element): found, made on
 * first use for a jam of a package this context loaded, freed with the
 * peer. The receive path looks its injected and cached frames up here;
 * nothing here sends (the sync that fills an entry is lib/core/inject.c's).
 */
#include "runtime.h"
#include "log.h"

#include <stdlib.h>
#include <string.h>

tc_inj_t *tc_inj_find(tc_peer_t *peer, uint32_t pkg_id, uint16_t element)
{
    unsigned i;

    if ((peer->inj_last != NULL) && (peer->inj_last->pkg_id == pkg_id) &&
        (peer->inj_last->element == element)) {
        return peer->inj_last;
    }
    for (i = 0; i < peer->injs->n; ++i) {
        if ((peer->injs->inj[i].pkg_id == pkg_id) && (peer->injs->inj[i].element == element)) {
            peer->inj_last = &peer->injs->inj[i];
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
    if (peer->injs->n == TC_MAX_INJ) {
        tc_error("%s: more than %d injected jams", peer->wireup->name, TC_MAX_INJ);
        return NULL;
    }
    inj = &peer->injs->inj[peer->injs->n++];
    memset(inj, 0, sizeof(*inj));
    inj->pkg_id  = pkg_id;
    inj->element = element;
    inj->blob    = blob;
    inj->state   = cp->state;
    inj->lib     = cp->pkg->handle;
    inj->writable = ((cp->pkg->manifest != NULL) && (element < cp->pkg->manifest->n_elements)) ?
                        cp->pkg->manifest->elements[element].writable_bytes : 0;
    peer->inj_last = inj;
    return inj;
}

tc_inj_t *tc_inj_get(tc_peer_t *peer, const tc_jam_t *jam)
{
    tc_inj_t *inj = tc_inj_find(peer, jam->pkg_id, jam->element);

    return (inj != NULL) ? inj : tc_inj_create(peer, jam->pkg_id, jam->element);
}

tc_status_t tc_peer_inj_alloc(tc_peer_t *peer)
{
    peer->injs = calloc(1, sizeof(*peer->injs));
    return (peer->injs != NULL) ? TC_OK : TC_ERR_NO_MEMORY;
}

void tc_peer_inj_free(tc_peer_t *peer)
{
    free(peer->injs);
}

void tc_inj_cleanup(tc_peer_t *peer)
{
    unsigned i;

    for (i = 0; i < peer->injs->n; ++i) {
        free(peer->injs->inj[i].tx_gotp);
        free(peer->injs->inj[i].rx_gotp);
        tc_ried_unpin(peer->ctx, peer->injs->inj[i].ried_pins);
    }
    peer->injs->n    = 0;
    peer->inj_last = NULL;
}

/* Beside the table it writes: the cache links go, and with them the memos
 * that may point into the code (tc_peer_invalidate). */
void tc_peer_forget_code(tc_peer_t *peer)
{
    unsigned i;

    /* the bytes stay in the peer's code area (a bump allocator); only the
     * link to them goes */
    for (i = 0; i < peer->injs->n; ++i) {
        peer->injs->inj[i].cache_run = NULL;
    }
    tc_peer_invalidate(peer, TC_PEER_CHANGED_CODE);
}
