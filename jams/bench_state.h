/* State the bench package's ried sets up in each receiving process. Tests
 * include it to check a jam's effects against a local computation. */
#ifndef TC_BENCH_STATE_H
#define TC_BENCH_STATE_H

#include <stdint.h>


#define TC_BENCH_ARRAY_LEN  (1u << 16)          /* power of two */
#define TC_BENCH_INDEX_MULT 40503u              /* odd: i*M mod 2^k permutes */

typedef struct tc_bench_state {
    int32_t  *array;      /* indirect_put target */
    uint32_t *index;      /* the indirection: slot of the i-th put */
    uint64_t  len;
    uint64_t  cursor;     /* puts done so far */
    int64_t   sum;        /* server_sum running total */
    uint64_t  calls;      /* jams run, any kind */
    uint64_t  seq_next;   /* jam_seq, jam_stamp: next sequence number expected */
    uint64_t  seq_errors; /* jam_seq, jam_stamp: frames that ran out of order */
    uint64_t  checksum;   /* jam_stamp: sum of the counters it ran */
    uint32_t *lat_ticks;  /* jam_stamp: arrival minus send time, set by the host */
    uint64_t  lat_cap;
    uint64_t  lat_n;
} tc_bench_state_t;

/* jam_stamp's payload */
typedef struct tc_bench_stamp {
    uint64_t counter;
    uint64_t ticks;       /* sender's cycle counter when it packed the frame */
} tc_bench_stamp_t;

static inline uint32_t tc_bench_index(uint64_t i)
{
    return (uint32_t)((i * TC_BENCH_INDEX_MULT) & (TC_BENCH_ARRAY_LEN - 1));
}

/* The cycle counter jam_stamp reads. A copy of lib/clock.h's on purpose:
 * jams build against the installed headers alone (twochains.h, tc_jam.h). */
static inline uint64_t tc_bench_ticks(void)
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
    return 0;
#endif
}

#endif
