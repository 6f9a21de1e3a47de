/*
 * Multicast target codec: the eight wire forms of mcast.h. Pure: no UCX, no
 * runtime state.
 *
 * Sizes are computed from runs in closed form (a run of L nodes is L - 1
 * one-byte deltas in a delta list), so sizing a set of billions of nodes
 * costs O(runs). The decoder never trusts a count before checking it against
 * N and against the bytes left; the set it fills grows only as elements are
 * actually read, so memory stays bounded by the input.
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
