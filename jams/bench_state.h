/* State the bench package's ried sets up in each receiving process. Tests
 * include it to check a jam's effects against a local computation. */
#ifndef TC_BENCH_STATE_H
#define TC_BENCH_STATE_H

#include <stdint.h>


#define TC_BENCH_ARRAY_LEN  (1u << 16)          /* power of two */
#define TC_BENCH_INDEX_MULT 40503u              /* odd: i*M mod 2^k permutes */

/* jam_append: the receiver-side log. A payload that does not fit in what is
 * left is refused whole (-1), nothing written; the log never wraps. */
#define TC_BENCH_LOG_CAP    (1u << 20)

/* jam_kv_get: an open-addressing hash table (linear probing), filled by the
 * ried with key tc_bench_kv_key(i) -> value i*i + 7 for i < TC_BENCH_KV_N. */
#define TC_BENCH_KV_CAP     4096u                /* power of two */
#define TC_BENCH_KV_N       2048u                /* load 1/2 */
#define TC_BENCH_KV_MULT    2654435761u          /* odd: i -> key is one to one */
#define TC_BENCH_KV_INV     0x0e8b2f51u          /* TC_BENCH_KV_MULT^-1 mod 2^32 */

/* jam_pointer_chase: a linked list of TC_BENCH_CHASE_LEN nodes in an array,
 * node i -> node (i*MULT + ADD) mod LEN. With ADD odd and MULT = 1 mod 4 that
 * map is one cycle through all the nodes (Hull-Dobell), so every start
 * reaches every node; node i holds i*3 + 1. A walk costs one dependent load
 * per hop: the sender picks the hops, the receiver does not bound them. */
#define TC_BENCH_CHASE_LEN  (1u << 16)           /* power of two */
#define TC_BENCH_CHASE_MULT 40505u               /* = 1 mod 4 */
#define TC_BENCH_CHASE_ADD  1u                   /* odd */

typedef struct tc_bench_kv {
    uint32_t key;
    uint32_t used;        /* 0: an empty slot (every key is a valid uint32) */
    int64_t  value;
} tc_bench_kv_t;

typedef struct tc_bench_node {
    uint32_t next;        /* index of the next node */
    uint32_t value;
} tc_bench_node_t;

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
    uint8_t  *log;        /* jam_append: log[0 .. log_len) */
    uint64_t  log_len;
    uint64_t  log_cap;
    tc_bench_kv_t   *kv;  /* jam_kv_get: kv_cap slots */
    uint64_t  kv_cap;
    tc_bench_node_t *nodes; /* jam_pointer_chase: chase_len nodes */
    uint64_t  chase_len;
} tc_bench_state_t;

/* jam_pointer_chase's payload */
typedef struct tc_bench_chase {
    uint32_t start;       /* taken mod the list length */
    uint32_t hops;
} tc_bench_chase_t;

/* jam_stamp's payload */
typedef struct tc_bench_stamp {
    uint64_t counter;
    uint64_t ticks;       /* sender's cycle counter when it packed the frame */
} tc_bench_stamp_t;

static inline uint32_t tc_bench_index(uint64_t i)
{
    return (uint32_t)((i * TC_BENCH_INDEX_MULT) & (TC_BENCH_ARRAY_LEN - 1));
}

/* kv: the i-th key, a key's home slot (murmur3's finaliser: the keys are a
 * multiplicative sequence, so their low bits alone would never collide), and
 * the value a lookup must return, computed without the table: -1 if absent. */
static inline uint32_t tc_bench_kv_key(uint32_t i)
{
    return i * TC_BENCH_KV_MULT;
}

static inline uint32_t tc_bench_kv_hash(uint32_t key)
{
    key ^= key >> 16;
    key *= 0x85ebca6bu;
    key ^= key >> 13;
    key *= 0xc2b2ae35u;
    key ^= key >> 16;
    return key;
}

static inline int64_t tc_bench_kv_value(uint32_t key)
{
    uint32_t i = key * TC_BENCH_KV_INV;

    return (i < TC_BENCH_KV_N) ? (int64_t)i * i + 7 : -1;
}

/* pointer_chase: the list's links and values, and what a walk of hops hops
 * from start returns, computed without the list. */
static inline uint32_t tc_bench_chase_next(uint32_t i)
{
    return (i * TC_BENCH_CHASE_MULT + TC_BENCH_CHASE_ADD) & (TC_BENCH_CHASE_LEN - 1);
}

static inline uint32_t tc_bench_chase_value(uint32_t i)
{
    return i * 3u + 1u;
}

static inline int64_t tc_bench_chase_expect(uint32_t start, uint32_t hops)
{
    uint32_t i = start & (TC_BENCH_CHASE_LEN - 1);

    while (hops-- > 0) {
        i = tc_bench_chase_next(i);
    }
    return tc_bench_chase_value(i);
}

/* The cycle counter jam_stamp reads. A copy of lib/arch/clock.h's on purpose:
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
