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
    uint64_t  seq_next;   /* jam_seq: next sequence number expected */
    uint64_t  seq_errors; /* jam_seq: frames that ran out of order */
} tc_bench_state_t;

static inline uint32_t tc_bench_index(uint64_t i)
{
    return (uint32_t)((i * TC_BENCH_INDEX_MULT) & (TC_BENCH_ARRAY_LEN - 1));
}

#endif
