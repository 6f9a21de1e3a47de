/*
 * The architecture's wait and placement primitives: includes lib/arch/<arch>.h
 * for the machine being compiled for. Each header defines TC_ARCH_NAME,
 * TC_ARCH_CACHE_LINE, tc_arch_pause(), tc_arch_store_fence(),
 * tc_arch_nt_store_64B() and tc_arch_clear_icache(), plus its own
 * instructions (x86: cldemote, clflushopt, clwb, movdir64b, umwait, mwaitx;
 * aarch64: wfe wait, dc cvac/civac/cvau, dmb/dsb/isb), announced by
 * TC_ARCH_HAVE_* macros. Whether the CPU running the code has an optional
 * instruction is lib/arch/cpu.c's business (CPUID), not this header's.
 */
#ifndef TC_WAIT_ARCH_H
#define TC_WAIT_ARCH_H

#if defined(__x86_64__)
#include "arch/x86_64.h"
#elif defined(__aarch64__)
#include "arch/aarch64.h"
#else
#include "barrier.h"

#include <stdint.h>
#include <string.h>

#define TC_ARCH_NAME       "generic"
#define TC_ARCH_CACHE_LINE 64

static inline void tc_arch_pause(void)
{
    tc_compiler_barrier();
}

static inline void tc_arch_store_fence(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static inline void tc_arch_nt_store_64B(void *dst, const void *src)
{
    memcpy(dst, src, 64);
}

static inline void tc_arch_clear_icache(void *begin, void *end)
{
    __builtin___clear_cache((char *)begin, (char *)end);
}
#endif

#ifndef TC_ARCH_HAVE_WFE
#define TC_ARCH_HAVE_WFE 0
#endif
#ifndef TC_ARCH_HAVE_UMWAIT
#define TC_ARCH_HAVE_UMWAIT 0
#endif
#ifndef TC_ARCH_HAVE_MWAITX
#define TC_ARCH_HAVE_MWAITX 0
#endif
#ifndef TC_ARCH_HAVE_PAUSE
#define TC_ARCH_HAVE_PAUSE 0
#endif

#endif
