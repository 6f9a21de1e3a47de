#include "clock.h"
#include "barrier.h"

#include <string.h>

#if defined(__x86_64__)
static int tc_clock_tsc_invariant(void)
{
    unsigned a, b, c, d;
    __asm__ __volatile__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0x80000007u), "c"(0));
    return (d >> 8) & 1; /* invariant TSC: constant rate across P/C-states */
}
#endif

static uint64_t tc_clock_gcd(uint64_t a, uint64_t b)
{
    while (b != 0) {
        uint64_t t = a % b;
        a          = b;
        b          = t;
    }
    return a;
}

/* The median of v[0..n), n >= 1, v reordered (insertion sort: n is a few
 * windows); of an even n, the mean of the middle two. Both the step and
 * the rate take it over windows, so that one spoiled window moves neither. */
static double tc_clock_median(double *v, unsigned n)
{
    unsigned w, k;
    double t;

    for (w = 1; w < n; ++w) {
        for (k = w; (k > 0) && (v[k - 1] > v[k]); --k) {
            t        = v[k];
            v[k]     = v[k - 1];
            v[k - 1] = t;
        }
    }
    return (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
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
    double step[TC_CLOCK_STEP_WINDOWS];
    uint64_t g, prev, now;
    unsigned w, i, j;

    for (w = 0; w < TC_CLOCK_STEP_WINDOWS; ++w) {
        g    = 0;
        prev = tc_clock_ticks();
        for (i = 0; i < 64; ++i) {
            for (j = 0; j < ((w * 64 + i) * 7919u) % 23u; ++j) {
                tc_compiler_barrier(); /* a varying few instructions, kept */
            }
            now  = tc_clock_ticks();
            g    = tc_clock_gcd(g, now - prev);
            prev = now;
        }
        step[w] = (double)(g + (g == 0)); /* a counter that did not move: no step to tell */
    }
    /* an odd count: the median is one window's step, a whole number */
    return (uint64_t)tc_clock_median(step, TC_CLOCK_STEP_WINDOWS);
}

double tc_clock_calibrate(const tc_clock_reader_t *reader, unsigned windows,
                          uint64_t window_ns)
{
    double rate[TC_CLOCK_CAL_WINDOWS];
    uint64_t t0, t1, c0, c1;
    unsigned w, n = 0;

    if (windows > TC_CLOCK_CAL_WINDOWS) {
        windows = TC_CLOCK_CAL_WINDOWS;
    }
    for (w = 0; w < windows; ++w) {
        t0 = reader->mono_ns(reader->arg);
        c0 = reader->ticks(reader->arg);
        do {
            t1 = reader->mono_ns(reader->arg);
        } while (t1 - t0 < window_ns);
        c1 = reader->ticks(reader->arg);
        /* a counter set back inside the window: no rate to take from it */
        if ((int64_t)(c1 - c0) > 0) {
            rate[n++] = (double)(t1 - t0) / (double)(c1 - c0);
        }
    }
    if (n == 0) {
        return 0.0;
    }
    return tc_clock_median(rate, n);
}

static uint64_t tc_clock_read_mono(void *arg)
{
    (void)arg;
    return tc_clock_mono_ns();
}

static uint64_t tc_clock_read_ticks(void *arg)
{
    (void)arg;
    return tc_clock_ticks();
}

/* Five windows of 4 ms, where one of 20 ms once took a TSC jump inside it
 * for the rate: every latency of that tc-perf run came out 0.37-0.48x. */
#define TC_CLOCK_INIT_WINDOWS   5
#define TC_CLOCK_INIT_WINDOW_NS 4000000ull

void tc_clock_init(tc_clock_t *clock)
{
    const tc_clock_reader_t real = {tc_clock_read_mono, tc_clock_read_ticks, NULL};

    memset(clock, 0, sizeof(*clock));
#if defined(__x86_64__) || defined(__aarch64__)
    /* the counter is what tc_clock_ticks reads either way: without the
     * invariant bit (a hypervisor may hide it) its rate is still taken,
     * and tc-perf says where it moved over a point */
    clock->ns_per_tick = tc_clock_calibrate(&real, TC_CLOCK_INIT_WINDOWS, TC_CLOCK_INIT_WINDOW_NS);
    if (clock->ns_per_tick <= 0.0) { /* a counter that never moved forward: count in its ticks */
        clock->ns_per_tick = 1.0;
    }
    clock->resolution_ns = (double)tc_clock_step_ticks() * clock->ns_per_tick;
#if defined(__x86_64__)
    clock->source = tc_clock_tsc_invariant() ? "tsc" : "tsc-variant";
#else
    clock->source = "cntvct";
#endif
#else
    (void)real; /* tc_clock_ticks reads CLOCK_MONOTONIC itself */
    clock->ns_per_tick   = 1.0;
    clock->resolution_ns = (double)tc_clock_step_ticks();
    clock->source        = "clock_gettime";
#endif
}
