/*
 * Unit tests of the tick-rate calibration (lib/arch/clock.c).
 *
 * tc_clock_calibrate reads two scripted clocks: CLOCK_MONOTONIC moves
 * TEST_MONO_STEP ns a read, the counter TEST_NS_PER_TICK ns a tick, and the
 * script can make the counter jump (a hypervisor moving the vCPU to a host
 * CPU whose TSC has another offset) at a chosen read. A jump inside one
 * window must not move the rate; one window over the whole time, as the
 * calibration was, took the jump for ticks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "clock.h"

#define TEST_NS_PER_TICK 0.4 /* a 2.5 GHz counter */
#define TEST_MONO_STEP   1000ull
#define TEST_WINDOW_NS   100000ull /* 100 mono reads a window */

typedef struct {
    uint64_t mono;       /* ns, the next mono read's value */
    uint64_t reads;      /* tick reads so far */
    uint64_t jump_at;    /* the tick read from which the counter is offset (0: never) */
    int64_t  jump_ticks; /* by this much */
    int      frozen;     /* the counter never moves */
} test_clocks_t;

static uint64_t test_mono(void *arg)
{
    test_clocks_t *c = arg;
    uint64_t v       = c->mono;

    c->mono += TEST_MONO_STEP;
    return v;
}

static uint64_t test_ticks(void *arg)
{
    test_clocks_t *c = arg;
    uint64_t t       = c->frozen ? 12345u : (uint64_t)((double)c->mono / TEST_NS_PER_TICK);

    c->reads++;
    if ((c->jump_at != 0) && (c->reads >= c->jump_at)) {
        t += (uint64_t)c->jump_ticks;
    }
    return t;
}

static double test_calibrate(test_clocks_t *c, unsigned windows)
{
    const tc_clock_reader_t r = {test_mono, test_ticks, c};

    return tc_clock_calibrate(&r, windows, TEST_WINDOW_NS);
}

/* no jump: every window says the rate */
static void test_steady(void **unused)
{
    test_clocks_t c = {.mono = 1000000};

    (void)unused;
    assert_true(fabs(test_calibrate(&c, 5) / TEST_NS_PER_TICK - 1.0) < 0.02);
    assert_int_equal(c.reads, 10); /* two reads a window */
}

/* a jump forward by a second's worth of ticks inside the third window
 * (tick reads 5 and 6): the median of five is unmoved */
static void test_jump_forward(void **unused)
{
    test_clocks_t c = {.mono = 1000000, .jump_at = 6, .jump_ticks = 2500000000ll};
    test_clocks_t one = c;

    (void)unused;
    one.jump_at = 2; /* the one window's closing read */
    assert_true(fabs(test_calibrate(&c, 5) / TEST_NS_PER_TICK - 1.0) < 0.02);
    /* the same jump in one window over all the time: what the median is for */
    assert_true(test_calibrate(&one, 1) < 0.5 * TEST_NS_PER_TICK);
}

/* set back inside a window: that window is dropped, not taken as a rate
 * of 2^64 ticks */
static void test_jump_back(void **unused)
{
    test_clocks_t c = {.mono = 100000000000ull, .jump_at = 4, .jump_ticks = -2500000000ll};

    (void)unused;
    assert_true(fabs(test_calibrate(&c, 4) / TEST_NS_PER_TICK - 1.0) < 0.02);
}

/* asked for more windows than it keeps: it takes TC_CLOCK_CAL_WINDOWS */
static void test_windows_capped(void **unused)
{
    test_clocks_t c = {.mono = 1000000};

    (void)unused;
    assert_true(fabs(test_calibrate(&c, TC_CLOCK_CAL_WINDOWS + 10) / TEST_NS_PER_TICK - 1.0) <
                0.02);
    assert_int_equal(c.reads, 2 * TC_CLOCK_CAL_WINDOWS);
}

/* a counter that never moves: no rate (the caller falls back) */
static void test_frozen(void **unused)
{
    test_clocks_t c = {.mono = 1000000, .frozen = 1};

    (void)unused;
    assert_true(test_calibrate(&c, 3) == 0.0);
}

/* the real clocks: a rate, and one that agrees with CLOCK_MONOTONIC over
 * 50 ms to within 5% (a jump then would spoil this check, not the rate) */
static void test_init_real(void **unused)
{
    tc_clock_t clock;
    uint64_t t0, t1, c0, c1;
    double ratio;

    (void)unused;
    tc_clock_init(&clock);
    assert_non_null(clock.source);
    assert_true(clock.ns_per_tick > 0.0);
    assert_true(clock.resolution_ns > 0.0);
    t0 = tc_clock_mono_ns();
    c0 = tc_clock_ticks();
    do {
        t1 = tc_clock_mono_ns();
    } while (t1 - t0 < 50000000ull);
    c1    = tc_clock_ticks();
    ratio = tc_clock_ticks_to_ns(&clock, c1 - c0) / (double)(t1 - t0);
    if (fabs(ratio - 1.0) >= 0.05) {
        print_message("ticks say %.3f ms where CLOCK_MONOTONIC says %.3f ms\n",
                      tc_clock_ticks_to_ns(&clock, c1 - c0) * 1e-6, (double)(t1 - t0) * 1e-6);
    }
    assert_true(fabs(ratio - 1.0) < 0.05);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_steady),
        cmocka_unit_test(test_jump_forward),
        cmocka_unit_test(test_jump_back),
        cmocka_unit_test(test_windows_capped),
        cmocka_unit_test(test_frozen),
        cmocka_unit_test(test_init_real),
    };

    return cmocka_run_group_tests_name("clock", tests, NULL, NULL);
}
