/*
 * Multicast envelope and ack codec (see mcast_env.h).
 */
#include "mcast_env.h"

#include <string.h>

size_t tc_mcast_env_put_hdr(const tc_mcast_env_t *env, uint8_t *buf)
{
    size_t n = 0;

    buf[n++] = env->flags;
    n += tc_mcast_varint_put(buf + n, env->origin);
    n += tc_mcast_varint_put(buf + n, env->radix);
    n += tc_mcast_varint_put(buf + n, env->hops);
    if (env->flags & TC_MCAST_ENV_ACK) {
        n += tc_mcast_varint_put(buf + n, env->id);
    }
    return n;
}

/* A varint that must fit 32 bits. */
static tc_mcast_decode_status_t tc_mcast_env_get32(const uint8_t *p, size_t len, size_t *pos,
                                                   uint32_t *v_p)
{
    tc_mcast_decode_status_t ds;
    uint64_t v;

    ds = tc_mcast_varint_get(p, len, pos, &v);
    if (ds != TC_MCAST_DECODE_OK) {
        return ds;
    }
    if (v > UINT32_MAX) {
        return TC_MCAST_DECODE_NOT_CANONICAL;
    }
    *v_p = (uint32_t)v;
    return TC_MCAST_DECODE_OK;
}

tc_mcast_decode_status_t tc_mcast_env_parse(const void *buf, size_t len,
                                            tc_mcast_set_t *set,
                                            tc_mcast_env_t *env_p)
{
    const uint8_t *p = buf;
    tc_mcast_decode_status_t ds;
    tc_mcast_env_t env;
    size_t pos = 0;

    if ((set == NULL) || (env_p == NULL) || ((buf == NULL) && (len > 0))) {
        return TC_MCAST_DECODE_INVALID_PARAM;
    }
    tc_mcast_set_clear(set);
    memset(&env, 0, sizeof(env));
    if (len < 1) {
        return TC_MCAST_DECODE_TRUNCATED;
    }
    env.flags = p[pos++];
    if (env.flags & ~TC_MCAST_ENV_FLAGS) {
        return TC_MCAST_DECODE_NOT_CANONICAL;
    }
    ds = tc_mcast_env_get32(p, len, &pos, &env.origin);
    if (ds == TC_MCAST_DECODE_OK) {
        ds = tc_mcast_env_get32(p, len, &pos, &env.radix);
    }
    if (ds == TC_MCAST_DECODE_OK) {
        ds = tc_mcast_env_get32(p, len, &pos, &env.hops);
    }
    if ((ds == TC_MCAST_DECODE_OK) && (env.flags & TC_MCAST_ENV_ACK)) {
        ds = tc_mcast_varint_get(p, len, &pos, &env.id);
        if ((ds == TC_MCAST_DECODE_OK) && (env.id == 0)) {
            ds = TC_MCAST_DECODE_NOT_CANONICAL;
        }
    }
    if (ds != TC_MCAST_DECODE_OK) {
        return ds;
    }
    if ((env.radix == 0) || (env.hops == 0)) {
        return TC_MCAST_DECODE_NOT_CANONICAL;
    }
    if (env.origin >= tc_mcast_set_num_nodes(set)) {
        return TC_MCAST_DECODE_NODE_OUT_OF_RANGE;
    }
    ds = tc_mcast_decode(p + pos, len - pos, set, NULL);
    if (ds == TC_MCAST_DECODE_OK) {
        *env_p = env;
    }
    return ds;
}

int tc_mcast_env_hops_fit(uint32_t hops, uint64_t slice_count, uint32_t num_nodes)
{
    return (hops >= 1) && (slice_count >= 1) &&
           ((uint64_t)hops + slice_count <= (uint64_t)num_nodes);
}

size_t tc_mcast_ack_put(const tc_mcast_ack_t *ack, uint8_t *buf)
{
    size_t n = 0;

    n += tc_mcast_varint_put(buf + n, ack->origin);
    n += tc_mcast_varint_put(buf + n, ack->id);
    n += tc_mcast_varint_put(buf + n, ack->delivered);
    n += tc_mcast_varint_put(buf + n, ack->depth);
    n += tc_mcast_varint_put(buf + n, ack->edges);
    n += tc_mcast_varint_put(buf + n, ack->bytes);
    return n;
}

tc_mcast_decode_status_t tc_mcast_ack_parse(const void *buf, size_t len, uint32_t num_nodes,
                                            tc_mcast_ack_t *ack_p)
{
    const uint8_t *p = buf;
    tc_mcast_decode_status_t ds;
    tc_mcast_ack_t ack;
    size_t pos = 0;

    if ((ack_p == NULL) || ((buf == NULL) && (len > 0))) {
        return TC_MCAST_DECODE_INVALID_PARAM;
    }
    ds = tc_mcast_env_get32(p, len, &pos, &ack.origin);
    if (ds == TC_MCAST_DECODE_OK) {
        ds = tc_mcast_varint_get(p, len, &pos, &ack.id);
    }
    if (ds == TC_MCAST_DECODE_OK) {
        ds = tc_mcast_varint_get(p, len, &pos, &ack.delivered);
    }
    if (ds == TC_MCAST_DECODE_OK) {
        ds = tc_mcast_varint_get(p, len, &pos, &ack.depth);
    }
    if (ds == TC_MCAST_DECODE_OK) {
        ds = tc_mcast_varint_get(p, len, &pos, &ack.edges);
    }
    if (ds == TC_MCAST_DECODE_OK) {
        ds = tc_mcast_varint_get(p, len, &pos, &ack.bytes);
    }
    if (ds != TC_MCAST_DECODE_OK) {
        return ds;
    }
    if (pos != len) {
        return TC_MCAST_DECODE_TRAILING_BYTES;
    }
    if (ack.origin >= num_nodes) {
        return TC_MCAST_DECODE_NODE_OUT_OF_RANGE;
    }
    if ((ack.id == 0) || (ack.delivered > num_nodes) || (ack.edges > num_nodes)) {
        return TC_MCAST_DECODE_BAD_CARDINALITY;
    }
    *ack_p = ack;
    return TC_MCAST_DECODE_OK;
}
