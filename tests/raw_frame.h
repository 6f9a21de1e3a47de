/*
 * Frames written by hand for the loopback pair (loop_pair.h): what a test
 * puts with tc_peer_send_raw_frame to see the receiver reject, or not
 * rerun, what the library itself would never send.
 */
#ifndef TC_TEST_RAW_FRAME_H
#define TC_TEST_RAW_FRAME_H

#include <string.h>

#include "runtime.h"
#include "frame.h"

#include "loop_pair.h"

/* A valid server_sum frame of `fsize` bytes for the sender's next seq. */
static __attribute__((unused)) void build_frame(side_t *tx, char *frame, uint32_t fsize, int32_t value)
{
    tc_frame_layout_t layout = {0, 0, 0, sizeof(int32_t)};
    tc_frame_offsets_t off;
    tc_jam_t jam = jam_of(tx, "server_sum");

    memset(frame, 0, fsize);
    assert_int_equal(tc_frame_layout(&layout, fsize, &off), TC_OK);
    off.frame_size = fsize;
    tc_frame_write_hdr(frame, &off, &layout, TC_KIND_LOCAL, 0, jam.pkg_id, jam.element,
                       tx->peer->tx_seq);
    memcpy(frame + off.payload_off, &value, sizeof(value));
    tc_frame_seal(frame);
}

/* A 64-byte frame of kind with no sections (a control frame, a nop) for
 * the sender's next seq; the caller may change header fields, then seals. */
static __attribute__((unused)) void build_bare_frame(side_t *tx, char *frame, uint8_t kind)
{
    memset(frame, 0, TC_FRAME_MIN_SIZE);
    tc_frame_write_hdr(frame, &(tc_frame_offsets_t){48, 48, 48, 48, TC_FRAME_MIN_SIZE},
                       &(tc_frame_layout_t){0, 0, 0, 0}, kind, 0, 0, 0, tx->peer->tx_seq);
}

#endif
