#include "clock.h"

#include <string.h>

static int tc_clock_tsc_invariant(void)
{
#if defined(__x86_64__)
    unsigned a, b, c, d;
    __asm__ __volatile__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0x80000007u), "c"(0));
    return (d >> 8) & 1; /* invariant TSC: constant rate across P/C-states */
#elif defined(__aarch64__)
    return 1;            /* the generic timer is architecturally constant-rate */
#else
    return 0;
#endif
}

static uint64_t tc_clock_gcd(uint64_t a, uint64_t b)
{
    while (b != 0) {
        uint64_t t = a % b;
        a          = b;
        b          = t;
    }
    return a;
}

/* The counter's step, in ticks: the greatest common divisor of differences
 * between reads a varying few instructions apart. Where the counter moves
 * every tick (and a read takes some ticks) the differences vary and it is
 * 1; where it moves in steps they are all multiples of the step. Taken over
 * 15 windows of 64 reads, the median: a read across a hypervisor's move of
 * the vCPU (a new TSC offset) spoils one window, not the answer. */
#define TC_CLOCK_STEP_WINDOWS 15

static uint64_t tc_clock_step_ticks(void)
{
    uint64_t g[TC_CLOCK_STEP_WINDOWS], prev, now, t;
    volatile unsigned sink = 0;
    unsigned w, i, j, k;

    for (w = 0; w < TC_CLOCK_STEP_WINDOWS; ++w) {
        g[w] = 0;
        prev = tc_clock_ticks();
        for (i = 0; i < 64; ++i) {
            for (j = 0; j < ((w * 64 + i) * 7919u) % 23u; ++j) {
                sink += j;
            }
            now  = tc_clock_ticks();
            g[w] = tc_clock_gcd(g[w], now - prev);
            prev = now;
        }
        g[w] += (g[w] == 0); /* a counter that did not move: no step to tell */
    }
    for (w = 1; w < TC_CLOCK_STEP_WINDOWS; ++w) { /* insertion sort, then the median */
        for (k = w; (k > 0) && (g[k - 1] > g[k]); --k) {
            t        = g[k];
            g[k]     = g[k - 1];
            g[k - 1] = t;
        }
    }
    return g[TC_CLOCK_STEP_WINDOWS / 2];
}

void tc_clock_init(tc_clock_t *clock)
{
    uint64_t t0, t1, c0, c1;

    memset(clock, 0, sizeof(*clock));
    if (!tc_clock_tsc_invariant()) {
        clock->ns_per_tick   = 1.0;
        clock->resolution_ns = (double)tc_clock_step_ticks();
        clock->source        = "clock_gettime";
        return;
    }

    t0 = tc_clock_mono_ns();
    c0 = tc_clock_ticks();
    do {
        t1 = tc_clock_mono_ns();
    } while (t1 - t0 < 20000000ull);
    c1 = tc_clock_ticks();

    clock->ns_per_tick   = (double)(t1 - t0) / (double)(c1 - c0);
    clock->resolution_ns = (double)tc_clock_step_ticks() * clock->ns_per_tick;
#if defined(__x86_64__)
    clock->source = "tsc";
#elif defined(__aarch64__)
    clock->source = "cntvct";
#endif
}
