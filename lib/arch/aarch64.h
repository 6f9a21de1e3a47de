/*
 * AArch64 primitives for the wait loops and arrival placement.
 *
 * Include through wait_arch.h. Everything is static inline and header-only.
 *
 * EL0 availability, as Linux sets things up: WFE/WFI do not trap
 * (SCTLR_EL1.nTWE = 1), DC CVAC/CIVAC/CVAU and IC IVAU are allowed
 * (SCTLR_EL1.UCI = 1; kernels with a cache erratum trap and emulate them),
 * and the event stream (CONFIG_ARM_ARCH_TIMER_EVTSTREAM, at 10 kHz) bounds
 * every WFE even when nobody writes the watched word.
 */
#ifndef TC_ARCH_AARCH64_H
#define TC_ARCH_AARCH64_H

#if !defined(__aarch64__)
#error "lib/arch/aarch64.h is for AArch64 only: include wait_arch.h"
#endif

#include "barrier.h"

#include <stdint.h>

#define TC_ARCH_NAME       "aarch64"
#define TC_ARCH_CACHE_LINE 64 /* the usual; CTR_EL0.DminLine has the truth */
#define TC_ARCH_HAVE_PAUSE 1
#define TC_ARCH_HAVE_WFE   1

/* ------------------------------------------------------------- spinning */

/* YIELD: the spin-wait hint (a NOP on most cores, a hint to SMT ones). */
static inline void tc_arch_pause(void)
{
    __asm__ __volatile__("yield" ::: "memory");
}

static inline void tc_arch_sevl(void)
{
    __asm__ __volatile__("sevl" ::: "memory");
}

static inline void tc_arch_wfe(void)
{
    __asm__ __volatile__("wfe" ::: "memory");
}

static inline void tc_arch_sev(void)
{
    __asm__ __volatile__("sev" ::: "memory");
}

/* Exclusive load-acquire: reads the word and arms the exclusive monitor on
 * its granule; a store to it by anyone clears the monitor, which sends this
 * core an event (wakes WFE). */
static inline uint64_t tc_arch_ldaxr_u64(const uint64_t *addr)
{
    uint64_t v;

    __asm__ __volatile__("ldaxr %0, [%1]" : "=r"(v) : "r"(addr) : "memory");
    return v;
}

static inline void tc_arch_clrex(void)
{
    __asm__ __volatile__("clrex" ::: "memory");
}

static inline uint64_t tc_arch_cntvct(void)
{
    uint64_t v;

    __asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v) :: "memory");
    return v;
}

/*
 * Sleep until *addr differs from old; returns the new value (load-acquire:
 * reads after it see what the writer wrote before the word).
 *
 * SEVL sets the local event so the first WFE falls through; each round then
 * arms the monitor with LDAXR, checks the word and sleeps in WFE. A write
 * between the LDAXR and the WFE has already cleared the monitor and set the
 * event, so the WFE returns at once: no lost wake-up. Interrupts, exception
 * returns and the timer event stream also wake WFE; the loop re-checks.
 */
static inline uint64_t tc_arch_wfe_wait_u64(const uint64_t *addr, uint64_t old)
{
    uint64_t v;

    tc_arch_sevl();
    for (;;) {
        v = tc_arch_ldaxr_u64(addr);
        if (v != old) {
            tc_arch_clrex();
            return v;
        }
        tc_arch_wfe();
    }
}

/* As tc_arch_wfe_wait_u64, giving up once CNTVCT passes deadline (then it
 * returns old). The event stream bounds how late it notices. */
static inline uint64_t tc_arch_wfe_wait_u64_until(const uint64_t *addr, uint64_t old,
                                                  uint64_t deadline_cntvct)
{
    uint64_t v;

    tc_arch_sevl();
    for (;;) {
        v = tc_arch_ldaxr_u64(addr);
        if (v != old) {
            tc_arch_clrex();
            return v;
        }
        if (tc_arch_cntvct() >= deadline_cntvct) {
            tc_arch_clrex();
            return old;
        }
        tc_arch_wfe();
    }
}

/* -------------------------------------------------------------- barriers */

static inline void tc_arch_dmb_ish(void)
{
    __asm__ __volatile__("dmb ish" ::: "memory");
}

static inline void tc_arch_dmb_ishst(void)
{
    __asm__ __volatile__("dmb ishst" ::: "memory");
}

static inline void tc_arch_dsb_ish(void)
{
    __asm__ __volatile__("dsb ish" ::: "memory");
}

static inline void tc_arch_isb(void)
{
    __asm__ __volatile__("isb" ::: "memory");
}

/* Orders earlier stores and cache maintenance before later stores, as
 * sfence does on x86: DMB ISH (DMB orders DC ops by VA with stores). */
static inline void tc_arch_store_fence(void)
{
    tc_arch_dmb_ish();
}

/* ----------------------------------------------------- cache maintenance */

/* DC CVAC: clean to the point of coherency (written back to memory, the
 * line may stay cached). */
static inline void tc_arch_dc_cvac(const void *line)
{
    __asm__ __volatile__("dc cvac, %0" :: "r"(line) : "memory");
}

/* DC CIVAC: clean and invalidate to the point of coherency: the line
 * leaves the CPU caches for memory (a system cache beyond the point of
 * coherency may still keep it). */
static inline void tc_arch_dc_civac(const void *line)
{
    __asm__ __volatile__("dc civac, %0" :: "r"(line) : "memory");
}

/* DC CVAU: clean to the point of unification (usually the L2/LLC shared by
 * instruction and data sides). */
static inline void tc_arch_dc_cvau(const void *line)
{
    __asm__ __volatile__("dc cvau, %0" :: "r"(line) : "memory");
}

/* 64 bytes from src to dst (16-byte aligned) with STNP: non-temporal pair
 * stores, a hint that the data need not be cached. Follow with a barrier. */
static inline void tc_arch_nt_store_64B(void *dst, const void *src)
{
    __asm__ __volatile__("ldp q0, q1, [%1]\n\t"
                         "ldp q2, q3, [%1, #32]\n\t"
                         "stnp q0, q1, [%0]\n\t"
                         "stnp q2, q3, [%0, #32]"
                         :: "r"(dst), "r"(src)
                         : "v0", "v1", "v2", "v3", "memory");
}

/* Make freshly written code in [begin, end) executable on this core:
 * DC CVAU + IC IVAU per line and DSB (the builtin), then ISB. Other cores
 * need their own ISB (or a context synchronization event). */
static inline void tc_arch_clear_icache(void *begin, void *end)
{
    __builtin___clear_cache((char *)begin, (char *)end);
    tc_arch_isb();
}

#endif
