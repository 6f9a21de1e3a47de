/*
 * Cycle accounting for one thread over a whole run (warm-up included).
 *
 * Where the kernel gives us a PMU, three hardware counters are opened as one
 * perf_event group on the calling thread: CPU cycles (leader), instructions
 * and reference cycles. Otherwise (a KVM guest without a virtual PMU, a
 * seccomp'd container, perf_event_paranoid too high) the module falls back
 * to "thread-cputime": CLOCK_THREAD_CPUTIME_ID of the thread, the TSC (or
 * CNTVCT) elapsed over the window and a poll-loop counter the caller bumps.
 * The fallback never invents cycles: cycles, instructions and ref_cycles are
 * TC_CYCLES_NONE unless a hardware counter counted them.
 *
 * Kernel cycles are counted (exclude_kernel = 0) when allowed: the cost of a
 * wait strategy that enters the kernel (event, adaptive) is mostly there, and
 * CLOCK_THREAD_CPUTIME_ID includes system time too, so both sources measure
 * the same thing. When perf_event_paranoid forbids kernel counting the group
 * is reopened user-only and the sample says so (kernel_counted = 0).
 * Hypervisor cycles are never counted (exclude_hv = 1).
 *
 * Usage, on the thread to measure:
 *     tc_cycles_open(&c);                  // never fails for lack of a PMU
 *     tc_cycles_start(c);
 *     ... loop { ...; tc_cycles_add_polls(c, 1); } ...
 *     tc_cycles_stop(c);
 *     tc_cycles_read(c, &sample);
 *     tc_cycles_close(c);
 * start, stop and read may also be called from another thread: the counters
 * and the CPU-time clock stay bound to the thread that called open. The poll
 * counter is a plain (non-atomic) counter: only the measured thread bumps it.
 */
#ifndef TC_CYCLES_H
#define TC_CYCLES_H

#include <stddef.h>
#include <stdint.h>

#include "twochains.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A counter value that no hardware counter produced. */
#define TC_CYCLES_NONE UINT64_MAX

/* Source names. */
#define TC_CYCLES_SOURCE_PMU      "pmu"
#define TC_CYCLES_SOURCE_FALLBACK "thread-cputime"

/* tc_cycles_open_flags: use the fallback even where a PMU is available
 * (tests, or to compare both sources on one host). */
#define TC_CYCLES_NO_PMU 0x1u

typedef struct tc_cycles tc_cycles_t;

typedef struct tc_cycles_sample {
    const char *source;         /* TC_CYCLES_SOURCE_PMU or _FALLBACK */
    int         pmu;            /* 1 iff source is "pmu" */
    int         kernel_counted; /* pmu: kernel-mode cycles included */
    int         scaled;         /* pmu: the group was multiplexed, values scaled
                                 * by time_enabled / time_running */
    uint64_t    cycles;         /* TC_CYCLES_NONE unless pmu */
    uint64_t    instructions;   /* TC_CYCLES_NONE unless pmu */
    uint64_t    ref_cycles;     /* TC_CYCLES_NONE unless pmu and the PMU has
                                 * a reference-cycle event (Arm has none) */
    uint64_t    cpu_ns;         /* CLOCK_THREAD_CPUTIME_ID, user + system */
    uint64_t    tsc_ticks;      /* tc_clock_ticks() elapsed */
    uint64_t    elapsed_ns;     /* CLOCK_MONOTONIC elapsed, same window */
    uint64_t    polls;          /* caller-counted wait-loop iterations */
} tc_cycles_sample_t;

/* Does this host let the calling thread count cycles? TC_OK, or
 * TC_ERR_UNSUPPORTED with why = "unsupported: <reason>". why may be NULL. */
tc_status_t tc_cycles_probe(char *why, size_t len);

/* Binds the accounting to the calling thread. Falls back silently when the
 * PMU is unavailable (tc_cycles_pmu_status says why); fails only for lack of
 * memory or of the thread CPU-time clock. */
tc_status_t tc_cycles_open(tc_cycles_t **cycles_p);
tc_status_t tc_cycles_open_flags(unsigned flags, tc_cycles_t **cycles_p);
void        tc_cycles_close(tc_cycles_t *cycles);

/* "supported" when the PMU counts, else "unsupported: <reason>", e.g.
 * "unsupported: perf_event_open(cycles): No such file or directory". */
const char *tc_cycles_pmu_status(const tc_cycles_t *cycles);
/* TC_CYCLES_SOURCE_PMU or TC_CYCLES_SOURCE_FALLBACK. */
const char *tc_cycles_source(const tc_cycles_t *cycles);

/* Zero everything (the poll counter too) and start counting. */
tc_status_t tc_cycles_start(tc_cycles_t *cycles);
/* Freeze the window. read() then returns the same numbers until the next
 * start. Stopping a stopped accounting is a no-op. */
tc_status_t tc_cycles_stop(tc_cycles_t *cycles);
/* The window start..stop, or start..now while running; all zero (and the
 * counter fields TC_CYCLES_NONE without a PMU) before the first start. */
tc_status_t tc_cycles_read(tc_cycles_t *cycles, tc_cycles_sample_t *sample_p);

/* The poll counter: bump it from the wait loop. A hot loop keeps the
 * pointer in a local and does ++*polls; add_polls is the convenient form. */
uint64_t   *tc_cycles_polls_ptr(tc_cycles_t *cycles);

static inline void tc_cycles_add_polls(tc_cycles_t *cycles, uint64_t n)
{
    *tc_cycles_polls_ptr(cycles) += n;
}

#ifdef __cplusplus
}
#endif
#endif
