/*
 * Arrival placement: write a frame straight into the peer's mailbox (mapped
 * through ucp_rkey_ptr, i.e. same-host shared memory) so that its lines
 * land where a NIC with or without cache stashing would put them:
 *
 *   llc   write, then push every line toward the shared cache (x86 CLDEMOTE;
 *         aarch64 DC CVAC, the closest EL0 has), emulating a stashing NIC;
 *   dram  write so that no cache keeps the lines (x86 non-temporal stores;
 *         aarch64 store + DC CIVAC), emulating DMA without stashing.
 *
 * The data goes first, then a store fence, then the 8-byte signal as one
 * aligned store: the receiver that sees the signal sees the data. This is an
 * emulation by the sending CPU, not a NIC's write: see docs/EXPERIMENTS.md.
 *
 * Pure: no UCX. Whether the running CPU has the instructions is lib/cpu's
 * answer (tc_place_check).
 */
#ifndef TC_PLACE_H
#define TC_PLACE_H

#include "twochains.h"
#include "cpu.h"
#include "frame.h"
#include "frame_line.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The instruction sequence a placement uses on this build's architecture. */
const char *tc_place_sequence(tc_place_t place);

/* TC_OK when this host can do place, else TC_ERR_UNSUPPORTED with why =
 * "unsupported: <reason>" (why may be NULL). */
tc_status_t tc_place_check(tc_place_t place, char *why, size_t len);

/* Frames up to linewise_max bytes of whole lines are copied line by line,
 * in order; larger ones by memcpy. Which wins is the CPU's: on Intel lines
 * up to 8 KiB (beyond, memcpy's rep movsb wins), on AMD memcpy from 1 KiB
 * of lines on. The measurements that chose both: docs/THRESHOLDS.md. */
#define TC_PLACE_LINEWISE_INTEL 8192u
#define TC_PLACE_LINEWISE_AMD   960u

/* linewise_max for the CPU ident describes: AMD's, else (Intel, aarch64,
 * others not measured) Intel's. Chosen at connect (tx_linewise_max). */
uint32_t tc_place_linewise_max(const tc_cpu_ident_t *ident);

/* Payloads from this many bytes on are packed straight into the peer's
 * mapped slot with signalling store (tx_direct_min, lib/jam/jam.c), the CPU's
 * (tc_place_direct_min). On Intel the receiver's polling of the slot the
 * pack writes piecemeal costs more up to 8 KiB than the staging copy saves,
 * so there from 16 KiB. An injected frame's from TC_PACK_DIRECT_CODE_MIN
 * (tx_direct_code_min): below it, its code lines stored after the payload
 * cost more than the staging copy saves. Figures: docs/THRESHOLDS.md. */
#define TC_PACK_DIRECT_MIN_INTEL 16384u
#define TC_PACK_DIRECT_CODE_MIN  16384u
/* The same for a jam that does not read its payload (no
 * TC_JAM_HINT_READS_PAYLOAD): the receiver never takes those lines back
 * while they are written, so packing in place wins sooner. */
#define TC_PACK_DIRECT_MIN_UNREAD 1024u
/* On AMD in place from 256 B, whatever the jam reads; below, a frame of
 * one or two lines written piecemeal gives the receiver's polls time to
 * take its line back between the stores. */
#define TC_PACK_DIRECT_MIN_AMD   256u

/* direct_min for the CPU ident describes: AMD's, else (Intel, aarch64,
 * others not measured) Intel's. Chosen at connect (tx_direct_min). */
uint32_t tc_place_direct_min(const tc_cpu_ident_t *ident);
/* The same for a jam that does not read its payload: AMD's, else
 * TC_PACK_DIRECT_MIN_UNREAD (tx_direct_min_unread). */
uint32_t tc_place_direct_min_unread(const tc_cpu_ident_t *ident);

/* Whole lines of frame from byte from (a multiple of 64) on, then the
 * last line's data, then sig: tc_place_store's tail. */
static inline void tc_place_store_from(char *dst, const char *frame, uint32_t from,
                                       uint32_t size, uint64_t sig, uint32_t linewise_max)
{
    uint32_t off;

    if (size - 64u - from <= linewise_max) {
        for (off = from; off + 64u < size; off += 64u) {
            memcpy(dst + off, frame + off, 64u);
        }
    } else {
        memcpy(dst + from, frame + from, size - 64u - from);
    }
    memcpy(dst + size - 64u, frame + size - 64u, 64u - sizeof(sig));
    __atomic_store_n((uint64_t *)(void *)(dst + size - sizeof(sig)), sig, __ATOMIC_RELEASE);
}

/* Plain stores of a frame of size bytes (a multiple of 64) whose signal
 * word is sig: whole lines first (front to back up to linewise_max bytes,
 * else one memcpy), then the last line's data, then sig with release order
 * (signalling store, and tc-perf's floor). Line by line where the CPU
 * gains by it because glibc's vector memcpy of 129 B - 8 KiB does not
 * store in address order (head and tail vectors are stored around its loop,
 * overlapping at the tail), which lets a receiver polling the header's line
 * beside the signal take lines back mid-frame. One memcpy of size - 8
 * bytes would also end in unaligned vector stores that straddle lines.
 * What this was measured against: docs/THRESHOLDS.md. */
static inline void tc_place_store(char *dst, const char *frame, uint32_t size, uint64_t sig,
                                  uint32_t linewise_max)
{
    tc_place_store_from(dst, frame, 0, size, sig, linewise_max);
}

/* tc_place_store with the header's words given (hdr_w: stamped, lib/codec/frame.h)
 * rather than read from frame: they are stored first, as eight-byte words,
 * then the rest of the header's line and the frame as tc_place_store does. */
static inline void tc_place_store_hdr(char *dst, const uint64_t hdr_w[TC_FRAME_HDR_SIZE / 8],
                                      const char *frame, uint32_t size, uint64_t sig,
                                      uint32_t linewise_max)
{
    tc_frame_store_words(dst, hdr_w);
    if (size == 64u) {
        memcpy(dst + TC_FRAME_HDR_SIZE, frame + TC_FRAME_HDR_SIZE,
               64u - TC_FRAME_HDR_SIZE - sizeof(sig));
        __atomic_store_n((uint64_t *)(void *)(dst + 64u - sizeof(sig)), sig, __ATOMIC_RELEASE);
        return;
    }
    memcpy(dst + TC_FRAME_HDR_SIZE, frame + TC_FRAME_HDR_SIZE, 64u - TC_FRAME_HDR_SIZE);
    tc_place_store_from(dst, frame, 64u, size, sig, linewise_max);
}

/* A one-line frame (lib/codec/frame.h): its header's words, its payload word,
 * then sig with release order: eight stores into the line. */
static inline void tc_place_store_line(char *dst, const uint64_t hdr_w[TC_FRAME_HDR_SIZE / 8],
                                       uint64_t payload, uint64_t sig)
{
    tc_frame_store_words(dst, hdr_w);
    memcpy(dst + TC_FRAME_HDR_SIZE, &payload, sizeof(payload));
    __atomic_store_n((uint64_t *)(void *)(dst + TC_FRAME_ALIGN - sizeof(sig)), sig,
                     __ATOMIC_RELEASE);
}

/* A line frame (lib/codec/frame_line.h): its four header words, its payload
 * word, then sig with release order: six stores into the line (the bytes
 * past the payload's length are not the receiver's to read). */
static inline void tc_place_store_line_compact(char *dst, const uint64_t w[TC_FRAME_LINE_WORDS],
                                               uint64_t payload, uint64_t sig)
{
    memcpy(dst, &w[0], 8);
    memcpy(dst + 8, &w[1], 8);
    memcpy(dst + 16, &w[2], 8);
    memcpy(dst + 24, &w[3], 8);
    memcpy(dst + TC_FRAME_LINE_HDR_SIZE, &payload, sizeof(payload));
    __atomic_store_n((uint64_t *)(void *)(dst + TC_FRAME_ALIGN - sizeof(sig)), sig,
                     __ATOMIC_RELEASE);
}

/* Seal a frame whose payload is in dst already (packed there): the header's
 * words, then bytes [TC_FRAME_HDR_SIZE, sections_end) of frame (an injected
 * frame's ARGS, GOTP and code, staged; none where sections_end is
 * TC_FRAME_HDR_SIZE), then sig with release order (x86-64: a plain store
 * after them; aarch64: stlr orders the pack's stores and these before it). */
static inline void tc_place_seal(char *dst, const uint64_t hdr_w[TC_FRAME_HDR_SIZE / 8],
                                 const char *frame, uint32_t sections_end, uint32_t size,
                                 uint64_t sig)
{
    tc_frame_store_words(dst, hdr_w);
    if (sections_end > TC_FRAME_HDR_SIZE) {
        memcpy(dst + TC_FRAME_HDR_SIZE, frame + TC_FRAME_HDR_SIZE,
               sections_end - TC_FRAME_HDR_SIZE);
    }
    __atomic_store_n((uint64_t *)(void *)(dst + size - sizeof(sig)), sig, __ATOMIC_RELEASE);
}

/* Write a sealed frame of size bytes (a multiple of 64; dst 64-byte
 * aligned) whose last 8 bytes are its signal: data, fence, then signal.
 * place must be LLC or DRAM and checked. */
void        tc_place_frame(tc_place_t place, char *dst, const char *frame, uint32_t size);

#endif
