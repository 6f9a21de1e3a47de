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

void tc_clock_init(tc_clock_t *clock)
{
    uint64_t t0, t1, c0, c1;

    memset(clock, 0, sizeof(*clock));
    if (!tc_clock_tsc_invariant()) {
        clock->ns_per_tick = 1.0;
        clock->source      = "clock_gettime";
        return;
    }

    t0 = tc_clock_mono_ns();
    c0 = tc_clock_ticks();
    do {
        t1 = tc_clock_mono_ns();
    } while (t1 - t0 < 20000000ull);
    c1 = tc_clock_ticks();

    clock->ns_per_tick = (double)(t1 - t0) / (double)(c1 - c0);
#if defined(__x86_64__)
    clock->source = "tsc";
#elif defined(__aarch64__)
    clock->source = "cntvct";
#endif
}
