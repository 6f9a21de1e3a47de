/*
 * x86-64 primitives for the wait loops and arrival placement.
 *
 * Include through wait_arch.h. Everything is static inline and header-only.
 * Instructions newer than the x86-64 baseline (CLFLUSHOPT, CLWB, CLDEMOTE,
 * UMONITOR/UMWAIT, MONITORX/MWAITX, MOVDIR64B) are emitted as .byte with
 * their operands pinned to fixed registers, so the header builds with any
 * assembler and without -m flags. They raise #UD on a CPU that lacks them:
 * call them only after lib/arch/cpu.c's CPUID check said "supported"
 * (CLDEMOTE is the exception: it is a NOP hint where unsupported).
 */
#ifndef TC_ARCH_X86_64_H
#define TC_ARCH_X86_64_H

#if !defined(__x86_64__)
#error "lib/arch/x86_64.h is for x86-64 only: include wait_arch.h"
#endif

#include "barrier.h"

#include <emmintrin.h> /* SSE2: part of the x86-64 baseline */
#include <stdint.h>

#define TC_ARCH_NAME        "x86_64"
#define TC_ARCH_CACHE_LINE  64
#define TC_ARCH_HAVE_PAUSE  1
#define TC_ARCH_HAVE_UMWAIT 1 /* compiled in; usable iff CPUID says WAITPKG */
#define TC_ARCH_HAVE_MWAITX 1 /* compiled in; usable iff CPUID says MONITORX */

/* ------------------------------------------------------------- spinning */

/* Spin-wait hint: yields the core's resources to the sibling hyperthread
 * and, on Skylake and later, stalls ~140 cycles. */
static inline void tc_arch_pause(void)
{
    __asm__ __volatile__("pause" ::: "memory");
}

/* -------------------------------------------------------------- fences */

static inline void tc_arch_sfence(void)
{
    __asm__ __volatile__("sfence" ::: "memory");
}

static inline void tc_arch_lfence(void)
{
    __asm__ __volatile__("lfence" ::: "memory");
}

static inline void tc_arch_mfence(void)
{
    __asm__ __volatile__("mfence" ::: "memory");
}

/* Order the stores before it ahead of the stores after it, non-temporal and
 * flushed lines included (on x86 only sfence does that for weak stores). */
static inline void tc_arch_store_fence(void)
{
    tc_arch_sfence();
}

/* ---------------------------------------------------------- cache lines */

/* CLFLUSH (baseline): write back and invalidate; ordered with other
 * CLFLUSHes and stores, so slow. */
static inline void tc_arch_clflush(const void *line)
{
    __asm__ __volatile__("clflush (%0)" :: "r"(line) : "memory");
}

/* CLFLUSHOPT (CPUID.(EAX=7,ECX=0):EBX[23]): 66 0F AE /7, weakly ordered:
 * follow a batch with tc_arch_sfence(). */
static inline void tc_arch_clflushopt(const void *line)
{
    __asm__ __volatile__(".byte 0x66, 0x0f, 0xae, 0x3f" /* clflushopt (%rdi) */
                         :: "D"(line) : "memory");
}

/* CLWB (CPUID.(EAX=7,ECX=0):EBX[24]): 66 0F AE /6: write back, the line
 * may stay cached. Weakly ordered: follow with tc_arch_sfence(). */
static inline void tc_arch_clwb(const void *line)
{
    __asm__ __volatile__(".byte 0x66, 0x0f, 0xae, 0x37" /* clwb (%rdi) */
                         :: "D"(line) : "memory");
}

/* CLDEMOTE (CPUID.(EAX=7,ECX=0):ECX[25]): NP 0F 1C /0: hint to move the
 * line from the core's caches toward the shared LLC. Executes as a NOP on
 * CPUs without it. */
static inline void tc_arch_cldemote(const void *line)
{
    __asm__ __volatile__(".byte 0x0f, 0x1c, 0x07" /* cldemote (%rdi) */
                         :: "D"(line) : "memory");
}

/* 64 bytes from src (any alignment) to dst (64-byte aligned) with
 * non-temporal stores: the line goes to memory through the write-combining
 * buffers, evicting any cached copy. Follow with tc_arch_sfence(). */
static inline void tc_arch_nt_store_64B(void *dst, const void *src)
{
    const __m128i *s = (const __m128i *)src;
    __m128i       *d = (__m128i *)dst;
    __m128i        a = _mm_loadu_si128(s + 0);
    __m128i        b = _mm_loadu_si128(s + 1);
    __m128i        c = _mm_loadu_si128(s + 2);
    __m128i        e = _mm_loadu_si128(s + 3);

    _mm_stream_si128(d + 0, a);
    _mm_stream_si128(d + 1, b);
    _mm_stream_si128(d + 2, c);
    _mm_stream_si128(d + 3, e);
}

/* One 8-byte non-temporal store (MOVNTI); dst 8-byte aligned. */
static inline void tc_arch_nt_store_u64(void *dst, uint64_t v)
{
    _mm_stream_si64((long long *)dst, (long long)v);
}

/* MOVDIR64B (CPUID.(EAX=7,ECX=0):ECX[28]): 66 0F 38 F8 /r: one 64-byte
 * direct store, written as a single non-torn unit, not cached. dst 64-byte
 * aligned. */
static inline void tc_arch_movdir64b(void *dst, const void *src)
{
    __asm__ __volatile__(".byte 0x66, 0x0f, 0x38, 0xf8, 0x3e" /* movdir64b (%rsi), %rdi */
                         :: "D"(dst), "S"(src) : "memory");
}

/* ------------------------------------------------------- UMONITOR/UMWAIT
 * WAITPKG (CPUID.(EAX=7,ECX=0):ECX[5]), user mode. The OS caps each wait
 * (IA32_UMWAIT_CONTROL, /sys/devices/system/cpu/umwait_control). */

#define TC_ARCH_UMWAIT_C02 0u /* deeper, slower wake-up */
#define TC_ARCH_UMWAIT_C01 1u /* lighter, faster wake-up */

/* UMONITOR: arm the address-monitoring hardware on addr's line. */
static inline void tc_arch_umonitor(const void *addr)
{
    __asm__ __volatile__(".byte 0xf3, 0x0f, 0xae, 0xf7" /* umonitor %rdi */
                         :: "D"(addr) : "memory");
}

/* UMWAIT until the monitored line is written, the TSC passes deadline, the
 * OS limit expires or an interrupt. Returns 1 when the OS limit ended the
 * wait (CF), else 0. */
static inline int tc_arch_umwait(uint32_t ctrl, uint64_t deadline_tsc)
{
    uint8_t cf;

    __asm__ __volatile__(".byte 0xf2, 0x0f, 0xae, 0xf1\n\t" /* umwait %ecx */
                         "setc %0"
                         : "=r"(cf)
                         : "c"(ctrl), "a"((uint32_t)deadline_tsc),
                           "d"((uint32_t)(deadline_tsc >> 32))
                         : "memory", "cc");
    return cf;
}

/* Wait (at most until deadline_tsc) for *addr to differ from old; returns
 * the value last seen (== old on timeout or a spurious wake-up: loop). */
static inline uint64_t tc_arch_umwait_u64(const uint64_t *addr, uint64_t old,
                                          uint64_t deadline_tsc)
{
    uint64_t v;

    tc_arch_umonitor(addr);
    v = tc_load_acquire(addr);
    if (v != old) {
        return v;
    }
    (void)tc_arch_umwait(TC_ARCH_UMWAIT_C01, deadline_tsc);
    return tc_load_acquire(addr);
}

/* ------------------------------------------------------ MONITORX/MWAITX
 * AMD (CPUID 0x80000001:ECX[29]), allowed at CPL 3. */

/* MONITORX: 0F 01 FA, address in rax, extensions ecx = 0, hints edx = 0. */
static inline void tc_arch_monitorx(const void *addr)
{
    __asm__ __volatile__(".byte 0x0f, 0x01, 0xfa" /* monitorx %rax, %ecx, %edx */
                         :: "a"(addr), "c"(0u), "d"(0u) : "memory");
}

/* MWAITX: 0F 01 FB. eax = hints (0: C1, the only state allowed in user
 * mode), ecx bit 1 = use the timer in ebx (in TSC-rate ticks; 0 = none). */
static inline void tc_arch_mwaitx(uint32_t timeout_ticks)
{
    __asm__ __volatile__(".byte 0x0f, 0x01, 0xfb" /* mwaitx %eax, %ecx, %ebx */
                         :: "a"(0u), "c"(timeout_ticks != 0 ? 2u : 0u), "b"(timeout_ticks)
                         : "memory");
}

/* Wait (at most timeout_ticks, 0 = no timer) for *addr to differ from old;
 * returns the value last seen (== old: loop). */
static inline uint64_t tc_arch_mwaitx_u64(const uint64_t *addr, uint64_t old,
                                          uint32_t timeout_ticks)
{
    uint64_t v;

    tc_arch_monitorx(addr);
    v = tc_load_acquire(addr);
    if (v != old) {
        return v;
    }
    tc_arch_mwaitx(timeout_ticks);
    return tc_load_acquire(addr);
}

/* ---------------------------------------------------------- code bytes */

/* x86 keeps instruction fetch coherent with stores: only the compiler must
 * not move stores across; a serializing jump to the new code follows. */
static inline void tc_arch_clear_icache(void *begin, void *end)
{
    __builtin___clear_cache((char *)begin, (char *)end);
    tc_compiler_barrier();
}

#endif
