/*
 * The build's git revision (the Makefile's -DTC_GIT_REV), for the tools'
 * --version, tc-perf's table and its JSON. Held in an array of a fixed
 * size: a string literal's length (a "-dirty" tree's is longer) would move
 * whatever follows it in .rodata, and with it the simulated cache misses
 * tc-cost counts (scripts/bench-cost.sh: the cycles of a build must not
 * depend on the name of its revision).
 */
#ifndef TC_BUILD_REV_H
#define TC_BUILD_REV_H

#ifndef TC_GIT_REV
#define TC_GIT_REV "unknown"
#endif

#define TC_BUILD_REV_MAX 64u

static const char tc_build_rev[TC_BUILD_REV_MAX] __attribute__((unused)) = TC_GIT_REV;

#endif
