/*
 * Fuzz target for the multicast decoders (libFuzzer; also replayed by
 * tests/test_mcast_corpus.c under gcc): the target-set codec, the
 * envelope and the ack (lib/codec/mcast.h, lib/codec/mcast_env.h). Byte 0 picks the
 * decoder (bits 3-4) and the node count N (bits 0-2); the rest is the
 * input, placed so that its last byte sits right before a PROT_NONE page:
 * any read past the end faults, with or without a sanitizer.
 *
 * Invariant: whatever is accepted is canonical (encoding it again in the
 * same form gives back the very bytes), within N, and never larger than the
 * encoder's own choice would be smaller than; whatever is refused leaves
 * the set empty.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mcast.h"
#include "mcast_env.h"

#define FUZZ_MAX_INPUT 4096u

static const uint32_t fuzz_sizes[8] = {1, 2, 7, 64, 100, 1000, 65536, UINT32_MAX};

#define FUZZ_REQUIRE(_cond) do { if (!(_cond)) { abort(); } } while (0)

static uint8_t *fuzz_guarded(size_t len)
{
    static uint8_t *guard;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t room = (FUZZ_MAX_INPUT + page - 1) / page * page;
    uint8_t *area;

    if (guard == NULL) {
        area = mmap(NULL, room + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                    -1, 0);
        FUZZ_REQUIRE(area != MAP_FAILED);
        FUZZ_REQUIRE(mprotect(area + room, page, PROT_NONE) == 0);
        guard = area + room;
    }
    return guard - len;
}

static void fuzz_check_set(const uint8_t *in, size_t len, const tc_mcast_set_t *set,
                           tc_mcast_kind_t kind)
{
    uint8_t *again = malloc(len + 1);
    tc_mcast_kind_t best;
    size_t n = 0, best_size;

    FUZZ_REQUIRE(again != NULL);
    FUZZ_REQUIRE(tc_mcast_set_count(set) <= tc_mcast_set_num_nodes(set));
    FUZZ_REQUIRE(tc_mcast_encode_kind(set, kind, again, len + 1, &n) == TC_OK);
    FUZZ_REQUIRE((n == len) && !memcmp(again, in, len));
    FUZZ_REQUIRE(tc_mcast_encode_choose(set, &best, &best_size) == TC_OK);
    FUZZ_REQUIRE(best_size <= len);
    free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tc_mcast_decode_status_t ds;
    tc_mcast_set_t *set = NULL;
    tc_mcast_kind_t kind;
    tc_mcast_env_t env;
    tc_mcast_ack_t ack;
    uint8_t hdr[TC_MCAST_ENV_HDR_MAX], out[TC_MCAST_ACK_MAX];
    const uint8_t *in;
    size_t len, hlen;
    uint32_t n;

    if ((size < 1) || (size - 1 > FUZZ_MAX_INPUT)) {
        return 0;
    }
    n   = fuzz_sizes[data[0] & 7];
    len = size - 1;
    in  = fuzz_guarded(len);
    memcpy((uint8_t *)in, data + 1, len);
    FUZZ_REQUIRE(tc_mcast_set_create(n, &set) == TC_OK);

    switch ((data[0] >> 3) & 3) {
    case 1: /* envelope */
        ds = tc_mcast_env_parse(in, len, set, &env);
        if (ds == TC_MCAST_DECODE_OK) {
            FUZZ_REQUIRE((env.origin < n) && (env.radix >= 1) && (env.hops >= 1));
            FUZZ_REQUIRE(!(env.flags & TC_MCAST_ENV_ACK) == (env.id == 0));
            hlen = tc_mcast_env_put_hdr(&env, hdr);
            FUZZ_REQUIRE((hlen <= len) && !memcmp(hdr, in, hlen));
            FUZZ_REQUIRE(tc_mcast_decode(in + hlen, len - hlen, set, &kind) ==
                         TC_MCAST_DECODE_OK);
            fuzz_check_set(in + hlen, len - hlen, set, kind);
        } else {
            FUZZ_REQUIRE((ds > TC_MCAST_DECODE_OK) && (ds <= TC_MCAST_DECODE_NOT_CANONICAL));
            FUZZ_REQUIRE(tc_mcast_set_count(set) == 0);
        }
        break;
    case 2: /* ack */
        ds = tc_mcast_ack_parse(in, len, n, &ack);
        if (ds == TC_MCAST_DECODE_OK) {
            FUZZ_REQUIRE(ack.origin < n);
            FUZZ_REQUIRE((tc_mcast_ack_put(&ack, out) == len) && !memcmp(out, in, len));
        } else {
            FUZZ_REQUIRE((ds > TC_MCAST_DECODE_OK) && (ds <= TC_MCAST_DECODE_NOT_CANONICAL));
        }
        break;
    default: /* a target set */
        ds = tc_mcast_decode(in, len, set, &kind);
        if (ds == TC_MCAST_DECODE_OK) {
            fuzz_check_set(in, len, set, kind);
        } else {
            FUZZ_REQUIRE((ds > TC_MCAST_DECODE_OK) && (ds <= TC_MCAST_DECODE_NOT_CANONICAL));
            FUZZ_REQUIRE(tc_mcast_set_count(set) == 0);
        }
        break;
    }
    tc_mcast_set_destroy(set);
    return 0;
}
