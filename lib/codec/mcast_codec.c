/*
 * Multicast target codec, encoding side: the eight wire forms of mcast.h,
 * their names, varints, sizes and the smallest form chosen (decoding:
 * mcast_decode.c). Pure: no UCX, no runtime state.
 *
 * Sizes are computed from runs in closed form (a run of L nodes is L - 1
 * one-byte deltas in a delta list), so sizing a set of billions of nodes
 * costs O(runs).
 */
#include "mcast.h"

#include <string.h>

typedef tc_mcast_decode_status_t tc_mcast_ds_t;

static const char *const tc_mcast_kind_names[TC_MCAST_KIND_LAST] = {
    [TC_MCAST_EMPTY]        = "empty",
    [TC_MCAST_SINGLE]       = "single",
    [TC_MCAST_SMALL_INLINE] = "small-inline",
    [TC_MCAST_RANGES]       = "ranges",
    [TC_MCAST_DELTA_LIST]   = "delta-list",
    [TC_MCAST_BITMAP]       = "bitmap",
    [TC_MCAST_ALL_NODES]    = "all-nodes",
    [TC_MCAST_ALL_EXCEPT]   = "all-except",
};

static const char *const tc_mcast_ds_names[TC_MCAST_DECODE_LAST] = {
    [TC_MCAST_DECODE_OK]                = "ok",
    [TC_MCAST_DECODE_UNKNOWN_KIND]      = "unknown kind",
    [TC_MCAST_DECODE_TRUNCATED]         = "truncated",
    [TC_MCAST_DECODE_TRAILING_BYTES]    = "trailing bytes",
    [TC_MCAST_DECODE_BAD_CARDINALITY]   = "bad cardinality",
    [TC_MCAST_DECODE_NODE_OUT_OF_RANGE] = "node out of range",
    [TC_MCAST_DECODE_RANGE_OVERFLOW]    = "range overflow",
    [TC_MCAST_DECODE_NOT_CANONICAL]     = "not canonical",
    [TC_MCAST_DECODE_NO_MEMORY]         = "out of memory",
    [TC_MCAST_DECODE_INVALID_PARAM]     = "invalid parameter",
};

const char *tc_mcast_kind_str(unsigned kind)
{
    return (kind < TC_MCAST_KIND_LAST) ? tc_mcast_kind_names[kind] : "unknown";
}

const char *tc_mcast_decode_status_str(tc_mcast_decode_status_t status)
{
    return ((unsigned)status < TC_MCAST_DECODE_LAST) ?
           tc_mcast_ds_names[status] : "unknown decode status";
}

tc_status_t tc_mcast_decode_status_to_status(tc_mcast_decode_status_t status)
{
    switch (status) {
    case TC_MCAST_DECODE_OK:            return TC_OK;
    case TC_MCAST_DECODE_NO_MEMORY:     return TC_ERR_NO_MEMORY;
    case TC_MCAST_DECODE_INVALID_PARAM: return TC_ERR_INVALID_PARAM;
    default:                            return TC_ERR_PROTOCOL;
    }
}

/* ---------------------------------------------------------------- varints */

unsigned tc_mcast_varint_size(uint64_t value)
{
    unsigned n = 1;

    while (value >= 0x80) {
        value >>= 7;
        ++n;
    }
    return n;
}

unsigned tc_mcast_varint_put(uint8_t *p, uint64_t value)
{
    unsigned n = 0;

    while (value >= 0x80) {
        p[n++]  = (uint8_t)(value | 0x80);
        value >>= 7;
    }
    p[n++] = (uint8_t)value;
    return n;
}

tc_mcast_decode_status_t tc_mcast_varint_get(const uint8_t *buf, size_t len,
                                             size_t *pos_p, uint64_t *value_p)
{
    size_t pos     = *pos_p;
    uint64_t value = 0;
    unsigned i;
    uint8_t b;

    for (i = 0; i < TC_MCAST_VARINT_MAX; ++i) {
        if (pos + i >= len) {
            return TC_MCAST_DECODE_TRUNCATED;
        }
        b = buf[pos + i];
        /* the 10th byte holds bit 63 only: anything else is an 11th byte
         * to come or a value above 2^64 - 1 */
        if ((i == TC_MCAST_VARINT_MAX - 1) && (b > 0x01)) {
            return TC_MCAST_DECODE_NOT_CANONICAL;
        }
        value |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            if ((i > 0) && (b == 0)) {
                return TC_MCAST_DECODE_NOT_CANONICAL; /* overlong */
            }
            *pos_p   = pos + i + 1;
            *value_p = value;
            return TC_MCAST_DECODE_OK;
        }
    }
    return TC_MCAST_DECODE_NOT_CANONICAL; /* not reached: byte 10 checked */
}

/* ------------------------------------------------------------ run sources
 * The encoder walks either the set's runs or their complement (ALL_EXCEPT)
 * through one interface. Slot i of the complement is the gap before run i
 * (slot n_runs: after the last run); empty gaps are skipped. */

typedef struct {
    const tc_mcast_run_t *runs;
    size_t                n_runs;
    uint32_t              num_nodes;
    int                   complement;
} tc_mcast_src_t;

static void tc_mcast_src_init(tc_mcast_src_t *src, const tc_mcast_set_t *set,
                              int complement)
{
    src->runs       = tc_mcast_set_runs(set, &src->n_runs);
    src->num_nodes  = tc_mcast_set_num_nodes(set);
    src->complement = complement;
}

static size_t tc_mcast_src_slots(const tc_mcast_src_t *src)
{
    return src->complement ? src->n_runs + 1 : src->n_runs;
}

/* Returns 0 for an empty slot. */
static int tc_mcast_src_get(const tc_mcast_src_t *src, size_t i,
                            uint64_t *start_p, uint64_t *end_p)
{
    if (!src->complement) {
        *start_p = src->runs[i].start;
        *end_p   = src->runs[i].end;
    } else {
        *start_p = (i == 0) ? 0 : src->runs[i - 1].end;
        *end_p   = (i == src->n_runs) ? src->num_nodes : src->runs[i].start;
    }
    return *end_p > *start_p;
}

/* Delta list body after the count: v first, then one v delta per node. */
static uint64_t tc_mcast_delta_body_size(const tc_mcast_src_t *src)
{
    uint64_t size = 0, start, end, last = 0;
    int any = 0;

    for (size_t i = 0; i < tc_mcast_src_slots(src); ++i) {
        if (!tc_mcast_src_get(src, i, &start, &end)) {
            continue;
        }
        size += tc_mcast_varint_size(any ? start - last : start);
        size += end - start - 1; /* the rest of the run: deltas of 1 */
        last  = end - 1;
        any   = 1;
    }
    return size;
}

static uint8_t *tc_mcast_delta_body_put(const tc_mcast_src_t *src, uint8_t *p)
{
    uint64_t start, end, last = 0;
    int any = 0;

    for (size_t i = 0; i < tc_mcast_src_slots(src); ++i) {
        if (!tc_mcast_src_get(src, i, &start, &end)) {
            continue;
        }
        p += tc_mcast_varint_put(p, any ? start - last : start);
        memset(p, 0x01, end - start - 1);
        p   += end - start - 1;
        last = end - 1;
        any  = 1;
    }
    return p;
}

/* ------------------------------------------------------------------ sizes */

/* Exact size, or 0 when the form cannot hold the set (no encoding is 0
 * bytes long). 64-bit: a bitmap over 2^32 nodes does not fit 32 bits. */
static uint64_t tc_mcast_size_of(const tc_mcast_set_t *set, unsigned kind)
{
    uint64_t count = tc_mcast_set_count(set);
    uint32_t n     = tc_mcast_set_num_nodes(set);
    const tc_mcast_run_t *runs;
    tc_mcast_src_t src;
    uint64_t size, prev_end, bits;
    size_t n_runs;

    runs = tc_mcast_set_runs(set, &n_runs);
    switch (kind) {
    case TC_MCAST_EMPTY:
        return (count == 0) ? 1 : 0;
    case TC_MCAST_SINGLE:
        return (count == 1) ? 1 + tc_mcast_varint_size(runs[0].start) : 0;
    case TC_MCAST_SMALL_INLINE:
        if ((count == 0) || (count > TC_MCAST_SMALL_INLINE_MAX)) {
            return 0;
        }
        size = 2;
        for (size_t i = 0; i < n_runs; ++i) {
            for (uint64_t id = runs[i].start; id < runs[i].end; ++id) {
                size += tc_mcast_varint_size(id);
            }
        }
        return size;
    case TC_MCAST_RANGES:
        if (count == 0) {
            return 0;
        }
        size     = 1 + tc_mcast_varint_size(n_runs);
        prev_end = 0;
        for (size_t i = 0; i < n_runs; ++i) {
            size    += tc_mcast_varint_size(runs[i].start - prev_end) +
                       tc_mcast_varint_size(runs[i].end - runs[i].start);
            prev_end = runs[i].end;
        }
        return size;
    case TC_MCAST_DELTA_LIST:
        if (count == 0) {
            return 0;
        }
        tc_mcast_src_init(&src, set, 0);
        return 1 + tc_mcast_varint_size(count) + tc_mcast_delta_body_size(&src);
    case TC_MCAST_BITMAP:
        if (count == 0) {
            return 0;
        }
        bits = (uint64_t)runs[n_runs - 1].end - runs[0].start;
        return 1 + tc_mcast_varint_size(runs[0].start) +
               tc_mcast_varint_size(bits) + (bits + 7) / 8;
    case TC_MCAST_ALL_NODES:
        return (count == n) ? 1 : 0;
    case TC_MCAST_ALL_EXCEPT:
        if ((count == 0) || (count == n)) {
            return 0;
        }
        tc_mcast_src_init(&src, set, 1);
        return 1 + tc_mcast_varint_size(n - count) +
               tc_mcast_delta_body_size(&src);
    default:
        return 0;
    }
}

tc_status_t tc_mcast_encoded_size(const tc_mcast_set_t *set, unsigned kind,
                                  size_t *size_p)
{
    uint64_t size;

    if (kind >= TC_MCAST_KIND_LAST) {
        return TC_ERR_INVALID_PARAM;
    }

    size = tc_mcast_size_of(set, kind);
    if ((size == 0) || (size > SIZE_MAX)) {
        return TC_ERR_UNSUPPORTED;
    }

    *size_p = (size_t)size;
    return TC_OK;
}

tc_status_t tc_mcast_encode_choose(const tc_mcast_set_t *set,
                                   tc_mcast_kind_t *kind_p, size_t *size_p)
{
    uint64_t best = 0, size;
    unsigned best_kind = 0;

    /* strict < keeps the lower kind on ties */
    for (unsigned kind = 0; kind < TC_MCAST_KIND_LAST; ++kind) {
        size = tc_mcast_size_of(set, kind);
        if ((size != 0) && ((best == 0) || (size < best))) {
            best      = size;
            best_kind = kind;
        }
    }

    /* RANGES holds any non-empty set and EMPTY the empty one, so best is
     * set; a 32-bit host could still find it too large to address */
    if ((best == 0) || (best > SIZE_MAX)) {
        return TC_ERR_UNSUPPORTED;
    }

    *kind_p = (tc_mcast_kind_t)best_kind;
    *size_p = (size_t)best;
    return TC_OK;
}

/* --------------------------------------------------------------- encoding */

/* Set bits [from, to) of a zeroed LSB-first bitmap. */
static void tc_mcast_bits_set(uint8_t *bytes, uint64_t from, uint64_t to)
{
    while ((from < to) && (from % 8 != 0)) {
        bytes[from / 8] |= (uint8_t)(1u << (from % 8));
        ++from;
    }
    if (to - from >= 8) {
        memset(&bytes[from / 8], 0xff, (to - from) / 8);
        from += (to - from) / 8 * 8;
    }
    while (from < to) {
        bytes[from / 8] |= (uint8_t)(1u << (from % 8));
        ++from;
    }
}

tc_status_t tc_mcast_encode_kind(const tc_mcast_set_t *set, unsigned kind,
                                 void *buf, size_t cap, size_t *len_p)
{
    uint8_t *p = buf, *bytes;
    const tc_mcast_run_t *runs;
    tc_mcast_src_t src;
    uint64_t prev_end, base, bits;
    size_t size, n_runs;
    tc_status_t status;

    status = tc_mcast_encoded_size(set, kind, &size);
    if (status != TC_OK) {
        return status;
    }
    if (cap < size) {
        return TC_ERR_OUT_OF_RANGE;
    }

    runs = tc_mcast_set_runs(set, &n_runs);
    *p++ = (uint8_t)kind;
    switch (kind) {
    case TC_MCAST_SINGLE:
        p += tc_mcast_varint_put(p, runs[0].start);
        break;
    case TC_MCAST_SMALL_INLINE:
        *p++ = (uint8_t)tc_mcast_set_count(set);
        for (size_t i = 0; i < n_runs; ++i) {
            for (uint64_t id = runs[i].start; id < runs[i].end; ++id) {
                p += tc_mcast_varint_put(p, id);
            }
        }
        break;
    case TC_MCAST_RANGES:
        p       += tc_mcast_varint_put(p, n_runs);
        prev_end = 0;
        for (size_t i = 0; i < n_runs; ++i) {
            p       += tc_mcast_varint_put(p, runs[i].start - prev_end);
            p       += tc_mcast_varint_put(p, runs[i].end - runs[i].start);
            prev_end = runs[i].end;
        }
        break;
    case TC_MCAST_DELTA_LIST:
        tc_mcast_src_init(&src, set, 0);
        p += tc_mcast_varint_put(p, tc_mcast_set_count(set));
        p  = tc_mcast_delta_body_put(&src, p);
        break;
    case TC_MCAST_BITMAP:
        base  = runs[0].start;
        bits  = (uint64_t)runs[n_runs - 1].end - base;
        p    += tc_mcast_varint_put(p, base);
        p    += tc_mcast_varint_put(p, bits);
        bytes = p;
        memset(bytes, 0, (bits + 7) / 8);
        for (size_t i = 0; i < n_runs; ++i) {
            tc_mcast_bits_set(bytes, runs[i].start - base, runs[i].end - base);
        }
        p += (bits + 7) / 8;
        break;
    case TC_MCAST_ALL_EXCEPT:
        tc_mcast_src_init(&src, set, 1);
        p += tc_mcast_varint_put(p, (uint64_t)tc_mcast_set_num_nodes(set) -
                                    tc_mcast_set_count(set));
        p  = tc_mcast_delta_body_put(&src, p);
        break;
    default: /* EMPTY, ALL_NODES: the kind byte is all */
        break;
    }

    *len_p = (size_t)(p - (uint8_t*)buf);
    return TC_OK;
}

tc_status_t tc_mcast_encode(const tc_mcast_set_t *set, void *buf, size_t cap,
                            size_t *len_p)
{
    tc_mcast_kind_t kind;
    size_t size;
    tc_status_t status;

    status = tc_mcast_encode_choose(set, &kind, &size);
    if (status != TC_OK) {
        return status;
    }
    return tc_mcast_encode_kind(set, kind, buf, cap, len_p);
}
