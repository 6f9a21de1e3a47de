/*
 * The execution rule's per-frame check, inline (the rule itself and the rest
 * of it: lib/core/exec.c): a frame's image (its GOTP, then its code, as the blob
 * lays them out) against what the receiver holds for the jam. What runs is
 * never the frame's bytes: they are only compared here.
 */
#ifndef TC_EXEC_H
#define TC_EXEC_H

#include "runtime.h"

#include <string.h>

/* NULL when image holds the receiver's own code for inj (under the
 * allow-list; the other policies check no content here) and, with
 * check_gotp, the GOTP resolved for this peer; else why not. */
static inline const char *tc_exec_check_image(const tc_peer_t *peer, const tc_inj_t *inj,
                                              const uint8_t *image, int check_gotp)
{
    const tc_blob_file_hdr_t *bh = inj->blob->hdr;

    if ((peer->ctx->params.exec == TC_EXEC_ALLOWLIST) &&
        (memcmp(image + bh->code_offset, inj->blob->image + bh->code_offset,
                bh->image_size - bh->code_offset) != 0)) {
        return "code differs from the manifest's jam (tampered or another build)";
    }
    /* a jam without GOT slots (noop, server_sum) has no GOTP to compare:
     * no call on the fast path for it */
    if (check_gotp && (bh->got_count != 0) &&
        (memcmp(image, inj->rx_gotp, 8u * bh->got_count) != 0)) {
        return "GOTP differs from the addresses resolved for this peer";
    }
    return NULL;
}

/* The fast path's half of tc_exec_injected, for a frame of a jam that ran
 * injected before under the allow-list (the header already checked against
 * the shape of that one, tc_frame_same_shape): the receiver's own linked
 * copy if the frame's GOTP and code are the ones it holds, else NULL (the
 * validated path says why). Inline: a call less on every injected frame. */
static inline tc_jam_run_fn tc_exec_injected_again(const tc_peer_t *peer, const tc_inj_t *inj,
                                                   const uint8_t *image)
{
    if (!inj->rx_resolved || (tc_exec_check_image(peer, inj, image, 1) != NULL)) {
        return NULL;
    }
    return inj->own_run;
}

#endif
