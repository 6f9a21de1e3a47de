/*
 * Fuzz target for the frame validator (libFuzzer; also replayed by
 * tests/test_fuzz_corpus.c under gcc). The input is the slot's content after
 * one mode byte. Invariant: a frame the validator accepts lies wholly inside
 * its slot, names a known element of a known package, and its sections are
 * where the header says; anything else must be rejected with a reason.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"

#define FUZZ_SLOT_SIZE   1024u
#define FUZZ_FIXED_SIZE  128u
#define FUZZ_SEQ         7u
#define FUZZ_PKG_ID      0x40a180b8u
#define FUZZ_N_ELEMENTS  4u

static int fuzz_known(void *arg, uint32_t pkg_id, uint16_t element, uint8_t kind)
{
    (void)arg;
    (void)kind;
    return (pkg_id == FUZZ_PKG_ID) && (element < FUZZ_N_ELEMENTS);
}

#define FUZZ_REQUIRE(_cond) do { if (!(_cond)) { abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* exactly one slot: ASan catches any read past it */
    uint8_t *slot = malloc(FUZZ_SLOT_SIZE);
    tc_frame_expect_t expect;
    const tc_frame_hdr_t *hdr;
    char reason[160];
    uint64_t end;

    if ((slot == NULL) || (size < 1)) {
        free(slot);
        return 0;
    }
    memset(slot, 0, FUZZ_SLOT_SIZE);
    memcpy(slot, data + 1, (size - 1 < FUZZ_SLOT_SIZE) ? size - 1 : FUZZ_SLOT_SIZE);

    expect.slot_size  = FUZZ_SLOT_SIZE;
    expect.frame_size = (data[0] & 1) ? FUZZ_FIXED_SIZE : 0;
    expect.seq        = FUZZ_SEQ;
    expect.known      = fuzz_known;
    expect.known_arg  = NULL;

    reason[0] = '\0';
    if (tc_frame_validate(slot, &expect, reason, sizeof(reason)) == TC_OK) {
        hdr = (const tc_frame_hdr_t *)slot;
        end = (uint64_t)hdr->payload_off + hdr->payload_len + TC_FRAME_SIG_SIZE;
        FUZZ_REQUIRE(hdr->frame_size <= FUZZ_SLOT_SIZE);
        FUZZ_REQUIRE((hdr->frame_size % TC_FRAME_ALIGN) == 0);
        FUZZ_REQUIRE(end <= hdr->frame_size);
        FUZZ_REQUIRE(hdr->payload_off >= TC_FRAME_HDR_SIZE + hdr->args_len +
                                             8u * hdr->got_count + hdr->code_len);
        FUZZ_REQUIRE(hdr->seq == FUZZ_SEQ);
        FUZZ_REQUIRE(*tc_frame_sig_ptr(slot, hdr->frame_size) == tc_frame_sig(FUZZ_SEQ));
        FUZZ_REQUIRE((hdr->kind > 0) && (hdr->kind < TC_KIND_LAST));
        if ((hdr->kind == TC_KIND_LOCAL) || (hdr->kind == TC_KIND_INJECTED) ||
            (hdr->kind == TC_KIND_CACHED) || (hdr->kind == TC_KIND_SYNC_REQ) ||
            (hdr->kind == TC_KIND_MCAST)) {
            FUZZ_REQUIRE(fuzz_known(NULL, hdr->pkg_id, hdr->element, hdr->kind));
        }
        if ((hdr->kind != TC_KIND_INJECTED) &&
            !((hdr->kind == TC_KIND_SYNC_REQ) && (hdr->flags & TC_FRAME_F_CACHE))) {
            FUZZ_REQUIRE((hdr->got_count == 0) && (hdr->code_len == 0));
        }
        if ((hdr->kind != TC_KIND_INJECTED) && (hdr->kind != TC_KIND_SYNC_REQ)) {
            FUZZ_REQUIRE(!(hdr->flags & TC_FRAME_F_CACHE));
        }
        if (expect.frame_size != 0) {
            FUZZ_REQUIRE(hdr->frame_size == expect.frame_size);
        }
    } else {
        FUZZ_REQUIRE(reason[0] != '\0'); /* every rejection says why */
    }
    free(slot);
    return 0;
}
