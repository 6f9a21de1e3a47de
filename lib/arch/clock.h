/* Cheap timestamps for latency loops: the cycle counter (TSC, CNTVCT),
 * calibrated once against CLOCK_MONOTONIC; CLOCK_MONOTONIC itself on other
 * architectures. */
#ifndef TC_CLOCK_H
#define TC_CLOCK_H

#include <stdint.h>
#include <time.h>

typedef struct tc_clock {
    double      ns_per_tick;
    double      resolution_ns; /* the step between two reads' values: a counter may
                                * count in steps of many ticks (some hypervisors'
                                * TSC does), so a difference of two reads is a
                                * multiple of it */
    const char *source;   /* "tsc", "tsc-variant" (no invariant bit), "cntvct" or
                           * "clock_gettime" */
} tc_clock_t;

static inline uint64_t tc_clock_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t tc_clock_ticks(void)
{
#if defined(__x86_64__)
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
#elif defined(__aarch64__)
    uint64_t v;
    __asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v) :: "memory");
    return v;
#else
    return tc_clock_mono_ns();
#endif
}

/* Where tc_clock_calibrate reads its two clocks: the real ones in
 * tc_clock_init, scripted ones in the tests. */
typedef struct tc_clock_reader {
    uint64_t (*mono_ns)(void *arg);
    uint64_t (*ticks)(void *arg);
    void     *arg;
} tc_clock_reader_t;

/* ns a tick: the median over `windows` (at most TC_CLOCK_CAL_WINDOWS)
 * windows of at least window_ns each, so that a counter's jump inside one
 * window (a hypervisor moving the vCPU to a host CPU with another TSC
 * offset) spoils that window, not the rate. 0.0 if no window saw the
 * counter move forward. */
#define TC_CLOCK_CAL_WINDOWS 15
double tc_clock_calibrate(const tc_clock_reader_t *reader, unsigned windows,
                          uint64_t window_ns);

/* Measures the tick rate over ~20 ms, and the step the counter moves in. */
void tc_clock_init(tc_clock_t *clock);

static inline double tc_clock_ticks_to_ns(const tc_clock_t *clock, uint64_t ticks)
{
    return (double)ticks * clock->ns_per_tick;
}

#endif
