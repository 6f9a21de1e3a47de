/*
 * The receive-path fuzz target's input (tests/fuzz/rx_target.c): a program
 * the sending side and a hostile peer play against the receiver. Shared
 * with the seed writer (tests/fuzz/rx_seeds.c), which writes genuine
 * programs in it. Operands are big-endian; an input that ends early reads
 * zeros.
 *
 * Byte 0 sets the stage for the whole input:
 *   bit 0      the receiver's policy: any (else allow-list)
 *   bit 1      the fixed-frame pair (else the variable-frame pair)
 *   bits 2-4   fixed: the sender's frame size, RX_FRAME_SIZES[n]
 *   bits 5-7   fixed: the receiver's frame size (its answers, NACKs, replies)
 * Then up to RX_MAX_STEPS steps: an op byte (mod RX_OP_N) and its operands.
 */
#ifndef TC_RX_PROGRAM_H
#define TC_RX_PROGRAM_H

#include <stdint.h>

#define RX_SETUP_ANY   0x01u
#define RX_SETUP_FIXED 0x02u
#define RX_SETUP(any, fixed, tx_size, rx_size) \
    ((uint8_t)((any) | ((fixed) << 1) | ((tx_size) << 2) | ((rx_size) << 5)))

/* Index n of RX_FRAME_SIZES (three bits). */
#define RX_FS_64   0u
#define RX_FS_128  1u
#define RX_FS_192  2u
#define RX_FS_256  3u
#define RX_FS_384  4u
#define RX_FS_512  5u
#define RX_FS_1024 6u
#define RX_FS_4096 7u
#define RX_FRAME_SIZES {64u, 128u, 192u, 256u, 384u, 512u, 1024u, 4096u}

#define RX_MAX_STEPS 64

/* The jams the target sends, by index (RX_JAM_*). */
#define RX_JAMS {"noop", "seq", "server_sum", "copy", "append", "indirect_put", "kv_get"}
#define RX_JAM_NOOP 0u
#define RX_JAM_SEQ  1u
#define RX_JAM_COPY 3u /* one GOT slot: its sync answer needs a 128-byte frame */

/* Ried names the target can put in a ried frame's ARGS (RX_RIED_NAMES). */
#define RX_RIED_NAMES {"libried_bench", "ried_bench", "bench", "ried_none", ""}
#define RX_RIED_NAME_OWN  0u    /* the bench package's own ried, as tc_ried_ship names it */
#define RX_RIED_NAME_TEXT 0x80u /* name byte flag: the name's bytes follow (len: low 3 bits) */
#define RX_RIED_DATA_LIB  0x40u /* name byte flag: the chunk is the real library's bytes */

enum {
    /* [jam 1][len 2][payload len][seq only: counter 4]: a genuine jam */
    RX_OP_LOCAL,
    RX_OP_INJECTED,
    RX_OP_CACHED,
    /* [pick 1][flags 1][kind 1][args 1][payload 2]...: a frame of any kind
     * and header, then a few bytes edited (rx_raw_frame) */
    RX_OP_RAW,
    RX_OP_RAW2,
    /* [at 2][len 1][bytes]: a put into the frame that landed, not yet run */
    RX_OP_REWRITE,
    /* [n 1]: receiver steps, 1 + n % 4 of them */
    RX_OP_RX_STEPS,
    /* the sender takes what the receiver sent */
    RX_OP_TX_PROGRESS,
    /* [what 1]: genuine config frames, from the API: what & 3 is
     * 0 the sender's frame size, 1 the receiver's, 2 the sender's wait
     * strategy ((what >> 2) % 7), 3 both frame sizes; sizes are
     * RX_FRAME_SIZES[(what >> 2) & 7] */
    RX_OP_CONFIG,
    /* [seq 1 (& 0x80: then seq 4)][status 1][len 1][reason len % 64]: a NACK
     * the sender's library frames (tc_peer_send_kind), of the receiver's
     * frame tx_seq - 1 - (seq & 7) or the given seq; status byte s is
     * element s, status -s (0 and past TC_ERR_LAST are the malformed ones) */
    RX_OP_NACK,
    /* a goodbye, as tc_peer_close sends it */
    RX_OP_GOODBYE,
    /* [op 1][id 1][name 1 (RX_RIED_*)][name bytes][total 2][offset 2][len 2][data]:
     * one ried frame, its ARGS as tc_ried_ship writes them; op % 8 (0 chunk,
     * 1 unload, others unknown); RX_RIED_DATA_LIB: total is the library's
     * size and the data its bytes from offset (no data bytes follow); under
     * policy any only those go (any loads whatever library it is sent) */
    RX_OP_RIED,
    /* [id 1][flaw 1][at 2]: the bench package's ried library shipped whole
     * as tc_ried_ship does, in chunks of what the sender's frames carry;
     * flaw & 3: 0 none, 1 byte at (at) flipped (the allow-list refuses it;
     * under policy any, none),
     * 2 only the first half (the rest never comes), 3 the chunks of another
     * id from the middle on */
    RX_OP_RIED_SHIP,
    /* [id 1][status 1][len 1][text len % 64]: a ried answer to the receiver
     * (id 0: the one it waits for, if any) */
    RX_OP_RIED_ANSWER,
    /* [sub 1][jam 1][status 1][count 1]: namespace sync, sub & 3:
     * 0 a genuine request (sub & 4: cache the code) as tc_jam_prepare sends
     * it, 1 an answer to the receiver (status RX_SYNC_STATUSES[status % 6],
     * count slots: count & 0x80 the jam's own count), 2 the receiver forgets
     * its code (tc_peer_forget_code), 3 a cache request carrying the code
     * of the next jam (the receiver refuses it: bad code) */
    RX_OP_SYNC,
    /* [sub 1][delta 1]: credits, sub % 4: 0 the sender's credit put
     * (tc_credits_return), 1 a NOP frame (acks piggybacked), 2
     * tc_peer_flush, 3 a put of a forged consumed count into the
     * receiver's credit word: (int8)delta >= 0 far beyond what the
     * receiver sent (2^16 + delta); < 0, behind what the sender said before
     * (the target never lies in between: the receiver cannot tell) */
    RX_OP_CREDITS,
    RX_OP_N
};

#endif
