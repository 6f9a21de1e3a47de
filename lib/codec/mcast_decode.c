/*
 * Multicast target decoder: the eight wire forms of mcast.h read back from
 * untrusted bytes, with strict statuses (encoding: mcast_codec.c). Pure: no
 * UCX, no runtime state.
 *
 * The decoder never trusts a count before checking it against N and against
 * the bytes left; the set it fills grows only as elements are actually read,
 * so memory stays bounded by the input.
 */
#include "mcast.h"

#include <string.h>

typedef tc_mcast_decode_status_t tc_mcast_ds_t;

/* --------------------------------------------------------------- decoding */

typedef struct {
    const uint8_t  *buf;
    size_t          len;
    size_t          pos;
    uint32_t        num_nodes;
    uint64_t        except_next; /* ALL_EXCEPT: first node not yet placed */
    tc_mcast_set_t *set;
} tc_mcast_rd_t;

static tc_mcast_ds_t tc_mcast_add(tc_mcast_rd_t *rd, uint64_t start, uint64_t end)
{
    /* bounds were checked by the caller: start < end <= N < 2^32 */
    return (tc_mcast_set_add_range(rd->set, (uint32_t)start, (uint32_t)end) ==
            TC_OK) ? TC_MCAST_DECODE_OK : TC_MCAST_DECODE_NO_MEMORY;
}

#define TC_MCAST_GET(_rd, _value) \
    do { \
        tc_mcast_ds_t _ds = tc_mcast_varint_get((_rd)->buf, (_rd)->len, \
                                                &(_rd)->pos, &(_value)); \
        if (_ds != TC_MCAST_DECODE_OK) { \
            return _ds; \
        } \
    } while (0)

#define TC_MCAST_CHECK(_expr) \
    do { \
        tc_mcast_ds_t _ds = (_expr); \
        if (_ds != TC_MCAST_DECODE_OK) { \
            return _ds; \
        } \
    } while (0)

/* Read a count field: 1 <= count <= max (else BAD_CARDINALITY), and at least
 * count * min_bytes bytes must be left (else TRUNCATED); before any loop. */
static tc_mcast_ds_t tc_mcast_get_count(tc_mcast_rd_t *rd, uint64_t max,
                                        uint64_t min_bytes, uint64_t *count_p)
{
    uint64_t count;

    TC_MCAST_GET(rd, count);
    if ((count == 0) || (count > max)) {
        return TC_MCAST_DECODE_BAD_CARDINALITY;
    }
    /* count <= N < 2^32 and min_bytes <= 2: no overflow */
    if (count * min_bytes > rd->len - rd->pos) {
        return TC_MCAST_DECODE_TRUNCATED;
    }
    *count_p = count;
    return TC_MCAST_DECODE_OK;
}

/* Read count increasing ids (first absolute, then deltas if delta, else all
 * absolute) and hand each maximal stretch of consecutive ids to emit, so a
 * long run costs one set append. */
typedef tc_mcast_ds_t (*tc_mcast_emit_fn)(tc_mcast_rd_t *rd, uint64_t start,
                                          uint64_t end);

static tc_mcast_ds_t tc_mcast_get_list(tc_mcast_rd_t *rd, uint64_t count,
                                       int delta, tc_mcast_emit_fn emit)
{
    uint64_t n = rd->num_nodes, value, id = 0, run_start = 0;

    for (uint64_t i = 0; i < count; ++i) {
        TC_MCAST_GET(rd, value);
        if (i == 0) {
            if (value >= n) {
                return TC_MCAST_DECODE_NODE_OUT_OF_RANGE;
            }
            id = run_start = value;
            continue;
        }

        if (delta) {
            if (value == 0) {
                return TC_MCAST_DECODE_NOT_CANONICAL; /* repeated id */
            }
            if (value > n - 1 - id) { /* id + value >= n, without wrapping */
                return TC_MCAST_DECODE_NODE_OUT_OF_RANGE;
            }
            value += id;
        } else {
            if (value >= n) {
                return TC_MCAST_DECODE_NODE_OUT_OF_RANGE;
            }
            if (value <= id) {
                return TC_MCAST_DECODE_NOT_CANONICAL; /* not increasing */
            }
        }

        if (value != id + 1) {
            TC_MCAST_CHECK(emit(rd, run_start, id + 1));
            run_start = value;
        }
        id = value;
    }
    return emit(rd, run_start, id + 1);
}

/* ALL_EXCEPT: the excluded stretches arrive in order; each one adds the
 * included gap before it. */
static tc_mcast_ds_t tc_mcast_emit_except(tc_mcast_rd_t *rd, uint64_t start,
                                          uint64_t end)
{
    uint64_t from = rd->except_next;

    rd->except_next = end;
    return (start > from) ? tc_mcast_add(rd, from, start) : TC_MCAST_DECODE_OK;
}

static tc_mcast_ds_t tc_mcast_get_ranges(tc_mcast_rd_t *rd)
{
    uint64_t n = rd->num_nodes, count, gap, length, start, prev_end = 0;

    /* non-adjacent runs: at most ceil(N / 2); two bytes each at least */
    TC_MCAST_CHECK(tc_mcast_get_count(rd, (n + 1) / 2, 2, &count));
    for (uint64_t i = 0; i < count; ++i) {
        TC_MCAST_GET(rd, gap);
        TC_MCAST_GET(rd, length);
        if ((i > 0) && (gap == 0)) {
            return TC_MCAST_DECODE_NOT_CANONICAL; /* touches the previous run */
        }
        if (gap >= n - prev_end) { /* prev_end + gap >= n, without wrapping */
            return TC_MCAST_DECODE_NODE_OUT_OF_RANGE;
        }
        start = prev_end + gap;
        if (length == 0) {
            return TC_MCAST_DECODE_NOT_CANONICAL;
        }
        if (length > n - start) {
            return TC_MCAST_DECODE_RANGE_OVERFLOW;
        }
        prev_end = start + length;
        TC_MCAST_CHECK(tc_mcast_add(rd, start, prev_end));
    }
    return TC_MCAST_DECODE_OK;
}

static tc_mcast_ds_t tc_mcast_get_bitmap(tc_mcast_rd_t *rd)
{
    uint64_t n = rd->num_nodes, base, bits, n_bytes, i, run_start = 0;
    const uint8_t *bytes;
    int in_run = 0, bit;
    uint8_t b;

    TC_MCAST_GET(rd, base);
    if (base >= n) {
        return TC_MCAST_DECODE_NODE_OUT_OF_RANGE;
    }
    TC_MCAST_GET(rd, bits);
    if (bits == 0) {
        return TC_MCAST_DECODE_BAD_CARDINALITY;
    }
    if (bits > n - base) {
        return TC_MCAST_DECODE_RANGE_OVERFLOW;
    }
    n_bytes = (bits + 7) / 8;
    if (n_bytes > rd->len - rd->pos) {
        return TC_MCAST_DECODE_TRUNCATED;
    }

    bytes = rd->buf + rd->pos;
    if (!(bytes[0] & 1u) ||
        !(bytes[(bits - 1) / 8] & (1u << ((bits - 1) % 8))) ||
        ((bits % 8 != 0) && (bytes[n_bytes - 1] >> (bits % 8)) != 0)) {
        return TC_MCAST_DECODE_NOT_CANONICAL;
    }
    rd->pos += n_bytes;

    /* padding is zero, so scanning whole bytes sees no node past bits */
    for (i = 0; i < n_bytes; ++i) {
        b = bytes[i];
        if ((b == 0x00 && !in_run) || (b == 0xff && in_run)) {
            continue; /* nothing changes inside this byte */
        }
        for (bit = 0; bit < 8; ++bit) {
            if (((b >> bit) & 1u) && !in_run) {
                run_start = i * 8 + bit;
                in_run    = 1;
            } else if (!((b >> bit) & 1u) && in_run) {
                TC_MCAST_CHECK(tc_mcast_add(rd, base + run_start,
                                            base + i * 8 + bit));
                in_run = 0;
            }
        }
    }
    /* the last bit is set, so a run is open here */
    return tc_mcast_add(rd, base + run_start, base + bits);
}

static tc_mcast_ds_t tc_mcast_decode_body(tc_mcast_rd_t *rd, uint8_t kind)
{
    uint64_t n = rd->num_nodes, value, count;

    switch (kind) {
    case TC_MCAST_EMPTY:
        return TC_MCAST_DECODE_OK;
    case TC_MCAST_SINGLE:
        TC_MCAST_GET(rd, value);
        if (value >= n) {
            return TC_MCAST_DECODE_NODE_OUT_OF_RANGE;
        }
        return tc_mcast_add(rd, value, value + 1);
    case TC_MCAST_SMALL_INLINE:
        TC_MCAST_CHECK(tc_mcast_get_count(rd, (n < TC_MCAST_SMALL_INLINE_MAX) ?
                                              n : TC_MCAST_SMALL_INLINE_MAX,
                                          1, &count));
        return tc_mcast_get_list(rd, count, 0, tc_mcast_add);
    case TC_MCAST_RANGES:
        return tc_mcast_get_ranges(rd);
    case TC_MCAST_DELTA_LIST:
        TC_MCAST_CHECK(tc_mcast_get_count(rd, n, 1, &count));
        return tc_mcast_get_list(rd, count, 1, tc_mcast_add);
    case TC_MCAST_BITMAP:
        return tc_mcast_get_bitmap(rd);
    case TC_MCAST_ALL_NODES:
        return tc_mcast_add(rd, 0, n);
    case TC_MCAST_ALL_EXCEPT:
        /* excluding all N would be the empty set, which is EMPTY's alone */
        TC_MCAST_CHECK(tc_mcast_get_count(rd, n - 1, 1, &count));
        rd->except_next = 0;
        TC_MCAST_CHECK(tc_mcast_get_list(rd, count, 1, tc_mcast_emit_except));
        return (rd->except_next < n) ? tc_mcast_add(rd, rd->except_next, n) :
                                       TC_MCAST_DECODE_OK;
    default:
        return TC_MCAST_DECODE_UNKNOWN_KIND;
    }
}

tc_mcast_decode_status_t tc_mcast_decode(const void *buf, size_t len,
                                         tc_mcast_set_t *set,
                                         tc_mcast_kind_t *kind_p)
{
    tc_mcast_rd_t rd;
    tc_mcast_ds_t ds;
    uint8_t kind;

    if ((set == NULL) || ((buf == NULL) && (len > 0))) {
        return TC_MCAST_DECODE_INVALID_PARAM;
    }

    tc_mcast_set_clear(set);
    if (len == 0) {
        return TC_MCAST_DECODE_TRUNCATED;
    }

    rd.buf         = buf;
    rd.len         = len;
    rd.pos         = 1;
    rd.num_nodes   = tc_mcast_set_num_nodes(set);
    rd.except_next = 0;
    rd.set         = set;
    kind           = rd.buf[0];

    ds = tc_mcast_decode_body(&rd, kind);
    if ((ds == TC_MCAST_DECODE_OK) && (rd.pos != len)) {
        ds = TC_MCAST_DECODE_TRAILING_BYTES;
    }
    if (ds != TC_MCAST_DECODE_OK) {
        tc_mcast_set_clear(set);
        return ds;
    }

    if (kind_p != NULL) {
        *kind_p = (tc_mcast_kind_t)kind;
    }
    return TC_MCAST_DECODE_OK;
}
