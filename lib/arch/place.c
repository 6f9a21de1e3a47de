/*
 * Arrival placement (see place.h). Lines are written whole where the
 * architecture has a 64-byte non-temporal store; the last line carries the
 * signal in its final 8 bytes and is written in two steps so the signal is
 * the last thing that becomes visible.
 */
#include "place.h"

#include "cpu.h"
#include "log.h"
#include "names.h"
#include "wait_arch.h"

#include <stdio.h>
#include <string.h>

#define TC_PLACE_LINE 64u
#define TC_PLACE_SIG  8u

const char *tc_place_sequence(tc_place_t place)
{
#if defined(__x86_64__)
    static const char *const seq[] = {"transport put",
                                      "store + cldemote per line + sfence, signal last",
                                      "movntdq x4 per line + sfence, signal (movnti) last"};
#elif defined(__aarch64__)
    static const char *const seq[] = {"transport put",
                                      "store + dc cvac per line + dmb ish, signal last",
                                      "store + dc civac per line + dsb ish, signal last"};
#else
    static const char *const seq[] = {"transport put", "none", "none"};
#endif
    return ((unsigned)place < TC_ARRAY_SIZE(seq)) ? seq[place] : "?";
}

tc_status_t tc_place_check(tc_place_t place, char *why, size_t len)
{
    tc_cpu_features_t cpu;

    if ((unsigned)place >= tc_names_place.count) {
        if (why != NULL) {
            snprintf(why, len, "unsupported: unknown placement %d", (int)place);
        }
        return TC_ERR_INVALID_PARAM;
    }
    if (place == TC_PLACE_DEFAULT) {
        return TC_OK;
    }
    tc_cpu_probe(&cpu);
    if (!cpu.place[place].supported) {
        if (why != NULL) {
            snprintf(why, len, "%s", cpu.place[place].status);
        }
        return TC_ERR_UNSUPPORTED;
    }
    return TC_OK;
}

static inline void tc_place_store_sig(char *dst, const char *src)
{
    uint64_t sig;

    memcpy(&sig, src, sizeof(sig));
    /* one aligned 8-byte store: never the overlapping pair memcpy may do */
    __atomic_store_n((uint64_t *)(void *)dst, sig, __ATOMIC_RELEASE);
}

#if defined(__x86_64__)

static void tc_place_llc(char *dst, const char *frame, uint32_t size)
{
    uint32_t off;

    memcpy(dst, frame, size - TC_PLACE_SIG);
    for (off = 0; off + TC_PLACE_LINE < size; off += TC_PLACE_LINE) {
        tc_arch_cldemote(dst + off);
    }
    tc_arch_sfence();
    tc_place_store_sig(dst + size - TC_PLACE_SIG, frame + size - TC_PLACE_SIG);
    tc_arch_cldemote(dst + size - TC_PLACE_LINE);
    tc_arch_sfence();
}

static void tc_place_dram(char *dst, const char *frame, uint32_t size)
{
    uint32_t last = size - TC_PLACE_LINE;
    uint32_t off;
    uint64_t word;

    for (off = 0; off < last; off += TC_PLACE_LINE) {
        tc_arch_nt_store_64B(dst + off, frame + off);
    }
    for (off = last; off < size - TC_PLACE_SIG; off += 8) {
        memcpy(&word, frame + off, sizeof(word));
        tc_arch_nt_store_u64(dst + off, word);
    }
    tc_arch_sfence(); /* NT stores are weakly ordered: data before signal */
    memcpy(&word, frame + size - TC_PLACE_SIG, sizeof(word));
    tc_arch_nt_store_u64(dst + size - TC_PLACE_SIG, word);
    tc_arch_sfence();
}

#elif defined(__aarch64__)

static void tc_place_llc(char *dst, const char *frame, uint32_t size)
{
    uint32_t off;

    memcpy(dst, frame, size - TC_PLACE_SIG);
    for (off = 0; off < size; off += TC_PLACE_LINE) {
        tc_arch_dc_cvac(dst + off);
    }
    tc_arch_dmb_ish();
    tc_place_store_sig(dst + size - TC_PLACE_SIG, frame + size - TC_PLACE_SIG);
    tc_arch_dc_cvac(dst + size - TC_PLACE_LINE);
    tc_arch_dmb_ish();
}

static void tc_place_dram(char *dst, const char *frame, uint32_t size)
{
    uint32_t off;

    memcpy(dst, frame, size - TC_PLACE_SIG);
    for (off = 0; off < size; off += TC_PLACE_LINE) {
        tc_arch_dc_civac(dst + off);
    }
    tc_arch_dsb_ish();
    tc_place_store_sig(dst + size - TC_PLACE_SIG, frame + size - TC_PLACE_SIG);
    tc_arch_dc_civac(dst + size - TC_PLACE_LINE);
    tc_arch_dsb_ish();
}

#else

/* tc_place_check refuses both on other architectures; plain stores keep
 * the frame correct should a caller skip the check. */
static void tc_place_llc(char *dst, const char *frame, uint32_t size)
{
    memcpy(dst, frame, size - TC_PLACE_SIG);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    tc_place_store_sig(dst + size - TC_PLACE_SIG, frame + size - TC_PLACE_SIG);
}

#define tc_place_dram tc_place_llc

#endif

void tc_place_frame(tc_place_t place, char *dst, const char *frame, uint32_t size)
{
    if (place == TC_PLACE_DRAM) {
        tc_place_dram(dst, frame, size);
    } else {
        tc_place_llc(dst, frame, size);
    }
}

uint32_t tc_place_linewise_max(const tc_cpu_ident_t *ident)
{
    return tc_cpu_is_amd(ident) ? TC_PLACE_LINEWISE_AMD : TC_PLACE_LINEWISE_INTEL;
}

uint32_t tc_place_direct_min(const tc_cpu_ident_t *ident)
{
    return tc_cpu_is_amd(ident) ? TC_PACK_DIRECT_MIN_AMD : TC_PACK_DIRECT_MIN_INTEL;
}

uint32_t tc_place_direct_min_unread(const tc_cpu_ident_t *ident)
{
    return tc_cpu_is_amd(ident) ? TC_PACK_DIRECT_MIN_AMD : TC_PACK_DIRECT_MIN_UNREAD;
}
