/*
 * The bench package's data-structure jams end to end over real UCX
 * (loopback, as in test_send.c): append, kv_get and pointer_chase, each in
 * every mode (local, injected, cached), checked call by call and in the
 * receiver's ried state against a local computation, and the three modes
 * against each other; what every bench jam's source says it does, takes
 * and returns (TC_JAM_DESCRIBE), and a refused payload reported with it.
 * Public API only, plus bench_state.h and the package header tc-pkg
 * generates.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "twochains.h"
#include "bench_state.h"
#include "bench.h"

#define N_MODES 3

static const tc_mode_t modes[N_MODES] = {TC_MODE_LOCAL, TC_MODE_INJECTED, TC_MODE_CACHED};

/* ------------------------------------------------ a loopback pair of peers */

#include "loop_pair.h"
#include "log_keep.h"
#include "harness/pkg_path.h"

/* Variable frames: every jam and mode gets the frame its payload needs. */
static void pair_open_variable(pair_t *pair)
{
    tc_context_params_t params;

    tc_context_params_init(&params);
    params.slots      = 8;
    params.slot_size  = 4096;
    params.timeout_ms = 5000;
    params.frames     = TC_FRAMES_VARIABLE;
    pair_open(pair, &params);
}

/* ------------------------------------------------------ calls in one mode */

typedef struct call {
    const void *src;
    size_t      len;
    int64_t     expect; /* the local computation's result */
} call_t;

/* s[1] calls jam `name` in `mode` once per call (its result into ret[k])
 * while a thread serves s[0]; none may be rejected. */
static void call_all(pair_t *pair, const char *name, tc_mode_t mode, const call_t *calls,
                     size_t n, int64_t *ret)
{
    tc_jam_t jam = jam_of(&pair->s[1], name);
    tc_status_t status = TC_OK;
    tc_peer_stats_t before, after;
    server_arg_t server;
    pthread_t thread;
    size_t k;

    tc_peer_stats(pair->s[0].peer, &before);
    server = (server_arg_t){&pair->s[0], before.rx_frames + before.rx_rejected + n, 0, TC_OK};
    assert_int_equal(pthread_create(&thread, NULL, server_thread, &server), 0);
    for (k = 0; (k < n) && (status == TC_OK); ++k) {
        status = tc_jam_call(pair->s[1].peer, &jam, calls[k].src, calls[k].len, TC_SEND_PARAMS(mode, 0), &ret[k]);
    }
    pthread_join(thread, NULL); /* on a failed call the server times out */
    assert_int_equal(status, TC_OK);
    assert_int_equal(server.status, TC_OK);
    tc_peer_stats(pair->s[0].peer, &after);
    assert_int_equal(after.rx_rejected, before.rx_rejected);
    assert_int_equal(after.rx_frames, before.rx_frames + n);
}

/* Every result as the local computation says. */
static void check_results(const char *name, tc_mode_t mode, const call_t *calls, size_t n,
                          const int64_t *ret)
{
    size_t k;

    for (k = 0; k < n; ++k) {
        if (ret[k] != calls[k].expect) {
            fail_msg("%s %s: call %zu (%zu bytes) returned %lld, expected %lld", name,
                     tc_mode_str(mode), k, calls[k].len, (long long)ret[k],
                     (long long)calls[k].expect);
        }
    }
}

/* A payload the jam's pack refuses goes nowhere: the call fails, saying
 * what the jam takes in its own words, and the receiver finds nothing to
 * run. */
static void check_pack_refuses(pair_t *pair, const char *name, tc_mode_t mode,
                               const void *src, size_t len)
{
    tc_jam_t jam = jam_of(&pair->s[1], name);
    char want[64 + TC_JAM_DOC_MAX];
    tc_jam_doc_t doc;
    int64_t ret;
    unsigned n = 99;

    assert_int_equal(tc_jam_doc(&jam, &doc), TC_OK);
    snprintf(want, sizeof(want), "jam '%s' does not take a %zu-byte payload; it takes: %s",
             name, len, doc.payload);
    log_keep_start();
    assert_int_not_equal(tc_jam_call(pair->s[1].peer, &jam, src, len, TC_SEND_PARAMS(mode, 0), &ret), TC_OK);
    log_keep_stop();
    if (!log_kept_has_at(TC_LOG_ERROR, want)) {
        fail_msg("%s %s, %zu bytes: no error saying '%s'; logged: %s", name, tc_mode_str(mode),
                 len, want, log_kept);
    }
    assert_int_equal(tc_peer_progress(pair->s[0].peer, 0, &n), TC_OK);
    assert_int_equal(n, 0);
}


static uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * UINT64_C(0x2545f4914f6cdd1d);
}

/* ------------------------------------------------------------------ tests */

/* The manifest's sizes reach the API and the generated header agrees. */
static void test_code_info(void **unused)
{
    static const struct {
        const char *name;
        uint32_t    bytes, slots;
    } jams[] = {
        {"append", TC_PKG_BENCH_APPEND_CODE_BYTES, TC_PKG_BENCH_APPEND_GOT_SLOTS},
        {"kv_get", TC_PKG_BENCH_KV_GET_CODE_BYTES, TC_PKG_BENCH_KV_GET_GOT_SLOTS},
        {"pointer_chase", TC_PKG_BENCH_POINTER_CHASE_CODE_BYTES,
         TC_PKG_BENCH_POINTER_CHASE_GOT_SLOTS},
    };
    uint32_t bytes, slots;
    tc_pkg_t *pkg;
    char path[4096];
    tc_jam_t jam;
    size_t i;

    (void)unused;
    assert_int_equal(tc_pkg_default_path(path, sizeof(path)), TC_OK);
    assert_int_equal(tc_pkg_open(path, &pkg), TC_OK);
    for (i = 0; i < sizeof(jams) / sizeof(jams[0]); ++i) {
        assert_int_equal(tc_pkg_jam(pkg, jams[i].name, &jam), TC_OK);
        assert_int_equal(tc_jam_code_info(&jam, &bytes, &slots), TC_OK);
        assert_int_equal(bytes, jams[i].bytes);
        assert_int_equal(slots, jams[i].slots);
        print_message("jam %-14s %4u code bytes, %u GOT slots\n", jams[i].name, bytes, slots);
    }
    tc_pkg_close(pkg);
}

/* Every bench jam says what it does, takes and returns, one printable
 * line each (the manifest's rules); tc_jam_doc hands out the manifest's
 * texts, the same on every call. */
static void test_docs(void **unused)
{
    const tc_pkg_desc_t *desc;
    tc_jam_doc_t doc, again;
    const char *texts[3];
    tc_pkg_t *pkg;
    char path[4096];
    tc_jam_t jam;
    uint32_t i, jams = 0;
    size_t k, c;

    (void)unused;
    assert_int_equal(tc_pkg_default_path(path, sizeof(path)), TC_OK);
    assert_int_equal(tc_pkg_open(path, &pkg), TC_OK);
    desc = tc_pkg_desc(pkg);
    for (i = 0; i < desc->n_elements; ++i) {
        if (desc->elements[i].kind != TC_ELEM_JAM) {
            continue;
        }
        jams++;
        assert_int_equal(tc_pkg_jam(pkg, desc->elements[i].name, &jam), TC_OK);
        if (tc_jam_doc(&jam, &doc) != TC_OK) {
            fail_msg("bench jam '%s' is not described (TC_JAM_DESCRIBE)", desc->elements[i].name);
        }
        texts[0] = doc.what;
        texts[1] = doc.payload;
        texts[2] = doc.result;
        for (k = 0; k < 3; ++k) {
            assert_non_null(texts[k]);
            assert_true((strlen(texts[k]) > 0) && (strlen(texts[k]) < TC_JAM_DOC_MAX));
            for (c = 0; texts[k][c] != '\0'; ++c) {
                assert_true((texts[k][c] >= ' ') && (texts[k][c] <= '~'));
            }
        }
        assert_int_equal(tc_jam_doc(&jam, &again), TC_OK);
        assert_ptr_equal(again.payload, doc.payload);
    }
    assert_int_equal(jams, TC_PKG_BENCH_N_ELEMENTS - 1); /* and its ried */
    assert_int_equal(tc_pkg_jam(pkg, "seq", &jam), TC_OK);
    assert_int_equal(tc_jam_doc(&jam, &doc), TC_OK);
    assert_non_null(strstr(doc.payload, "8 bytes"));
    tc_pkg_close(pkg);
}

#define APPEND_DATA  (64u * 1024u)
#define APPEND_CHUNK 3000u
#define APPEND_MAX   512u

/* The append script: each call's bytes and, computed here, what the log
 * must hold after it. */
typedef struct append_script {
    const uint8_t *data;   /* APPEND_DATA bytes to take payloads from */
    call_t        *calls;  /* APPEND_MAX */
    size_t         n;
    uint8_t       *expect; /* TC_BENCH_LOG_CAP */
    uint64_t       len;
} append_script_t;

static void append_add(append_script_t *sc, size_t len)
{
    call_t *c = &sc->calls[sc->n];

    assert_true(sc->n < APPEND_MAX);
    assert_true(len <= APPEND_CHUNK);
    c->src = sc->data + (sc->n * 4099u) % (APPEND_DATA - APPEND_CHUNK);
    c->len = len;
    if (len <= TC_BENCH_LOG_CAP - sc->len) {
        memcpy(sc->expect + sc->len, c->src, len);
        sc->len  += len;
        c->expect = (int64_t)sc->len;
    } else {
        c->expect = -1;
    }
    sc->n++;
}

/* Several sizes, then fill the log: the payload that does not fit is
 * refused whole; the exact remainder fits; then nothing more does. */
static void test_append(void **unused)
{
    static const size_t sizes[] = {0, 1, 7, 8, 63, 64, 65, 333, 1000, 2047, 3000, 4, 2};
    uint8_t *data = malloc(APPEND_DATA), *expect = calloc(1, TC_BENCH_LOG_CAP);
    call_t *calls = calloc(APPEND_MAX, sizeof(*calls));
    int64_t (*ret)[APPEND_MAX] = calloc(N_MODES, sizeof(*ret));
    append_script_t sc = {data, calls, 0, expect, 0};
    size_t n1, n, at_refusal, k, i;
    uint64_t seed = 7;
    pair_t pair[N_MODES];
    tc_bench_state_t *st;
    unsigned m;

    (void)unused;
    assert_non_null(data);
    assert_non_null(expect);
    assert_non_null(calls);
    assert_non_null(ret);
    for (i = 0; i < APPEND_DATA; ++i) {
        data[i] = (uint8_t)(xorshift(&seed) | 1); /* never 0: a stray write shows */
    }

    /* the script and what the log must become, computed here */
    for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
        append_add(&sc, sizes[i]);
    }
    while (sc.len + APPEND_CHUNK <= TC_BENCH_LOG_CAP) {
        append_add(&sc, APPEND_CHUNK);
    }
    append_add(&sc, APPEND_CHUNK); /* does not fit */
    assert_int_equal(calls[sc.n - 1].expect, -1);
    at_refusal = sc.len;
    assert_true(at_refusal < TC_BENCH_LOG_CAP);
    n1 = sc.n;
    append_add(&sc, TC_BENCH_LOG_CAP - sc.len); /* fits exactly */
    append_add(&sc, 1);                         /* the log is full */
    append_add(&sc, 0);                         /* nothing still fits */
    n = sc.n;
    assert_int_equal(calls[n - 3].expect, (int64_t)TC_BENCH_LOG_CAP);
    assert_int_equal(calls[n - 2].expect, -1);
    assert_int_equal(calls[n - 1].expect, (int64_t)TC_BENCH_LOG_CAP);

    for (m = 0; m < N_MODES; ++m) { /* one connection per mode: one state each */
        pair_open_variable(&pair[m]);
        st = state_of(&pair[m].s[0]);
        assert_int_equal(st->log_cap, TC_BENCH_LOG_CAP);
        assert_int_equal(st->log_len, 0);

        call_all(&pair[m], "append", modes[m], calls, n1, ret[m]);
        check_results("append", modes[m], calls, n1, ret[m]);
        assert_int_equal(st->log_len, at_refusal);
        assert_memory_equal(st->log, expect, at_refusal);
        for (k = at_refusal; k < TC_BENCH_LOG_CAP; ++k) { /* the refused one wrote nothing */
            assert_int_equal(st->log[k], 0);
        }

        call_all(&pair[m], "append", modes[m], calls + n1, n - n1, ret[m] + n1);
        check_results("append", modes[m], calls, n, ret[m]);
        assert_int_equal(st->log_len, TC_BENCH_LOG_CAP);
        assert_memory_equal(st->log, expect, TC_BENCH_LOG_CAP);
        assert_int_equal(st->calls, n);
        assert_int_equal(state_of(&pair[m].s[1])->calls, 0); /* the sender ran nothing */
        assert_int_equal(state_of(&pair[m].s[1])->log_len, 0);

        if (m > 0) { /* the same as the local run, result for result, byte for byte */
            assert_memory_equal(ret[m], ret[0], n * sizeof(int64_t));
            assert_memory_equal(st->log, state_of(&pair[0].s[0])->log, TC_BENCH_LOG_CAP);
        }
    }
    print_message("append: %zu calls per mode, log full at %u bytes\n", n, TC_BENCH_LOG_CAP);
    for (m = 0; m < N_MODES; ++m) {
        pair_close(&pair[m]);
    }
    free(ret);
    free(calls);
    free(expect);
    free(data);
}

#define KV_ABSENT 72u

/* Every key of the table, in a scrambled order, and keys it lacks. */
static void test_kv_get(void **unused)
{
    const size_t n = TC_BENCH_KV_N + KV_ABSENT;
    uint32_t *keys = calloc(n, sizeof(*keys));
    call_t *calls  = calloc(n, sizeof(*calls));
    int64_t *ret[N_MODES];
    size_t k, hits = 0, misses = 0, used, displaced;
    const tc_bench_state_t *st;
    uint64_t seed = 11;
    pair_t pair[N_MODES];
    uint32_t bad3 = 1;
    uint64_t bad8 = 1;
    unsigned m;

    (void)unused;
    assert_non_null(keys);
    assert_non_null(calls);
    for (k = 0; k < TC_BENCH_KV_N; ++k) {
        keys[k] = tc_bench_kv_key((uint32_t)((k * 1031u) % TC_BENCH_KV_N)); /* 1031 odd */
    }
    keys[k++] = tc_bench_kv_key(TC_BENCH_KV_N);      /* the first one past the end */
    keys[k++] = tc_bench_kv_key(UINT32_MAX);
    keys[k++] = 1;
    keys[k++] = UINT32_MAX;
    keys[k++] = 0x80000000u;
    keys[k++] = 12345;
    while (k < n) {
        keys[k++] = (uint32_t)xorshift(&seed);
    }
    for (k = 0; k < n; ++k) {
        calls[k].src    = &keys[k];
        calls[k].len    = sizeof(keys[k]);
        calls[k].expect = tc_bench_kv_value(keys[k]);
        if (calls[k].expect < 0) {
            misses++;
        } else {
            hits++;
        }
    }
    assert_int_equal(hits, TC_BENCH_KV_N); /* every key once, no stray hit */
    assert_int_equal(misses, KV_ABSENT);
    assert_int_equal(tc_bench_kv_value(0), 7); /* key 0 is key #0 */

    for (m = 0; m < N_MODES; ++m) {
        ret[m] = calloc(n, sizeof(int64_t));
        assert_non_null(ret[m]);
        pair_open_variable(&pair[m]);
        st = state_of(&pair[m].s[0]);

        /* the table the ried built: every key, each with its value */
        assert_int_equal(st->kv_cap, TC_BENCH_KV_CAP);
        for (k = 0, used = 0, displaced = 0; k < st->kv_cap; ++k) {
            if (st->kv[k].used) {
                used++;
                displaced += (tc_bench_kv_hash(st->kv[k].key) & (st->kv_cap - 1)) != k;
                assert_int_equal(st->kv[k].value, tc_bench_kv_value(st->kv[k].key));
            }
        }
        assert_int_equal(used, TC_BENCH_KV_N);
        assert_true(displaced > 0); /* lookups do probe */
        if (m == 0) {
            print_message("kv_get: %zu keys in %u slots, %zu away from their home slot\n",
                          used, TC_BENCH_KV_CAP, displaced);
        }

        call_all(&pair[m], "kv_get", modes[m], calls, n, ret[m]);
        check_results("kv_get", modes[m], calls, n, ret[m]);
        assert_int_equal(st->calls, n);
        assert_int_equal(state_of(&pair[m].s[1])->calls, 0);
        check_pack_refuses(&pair[m], "kv_get", modes[m], &bad3, 3);
        check_pack_refuses(&pair[m], "kv_get", modes[m], &bad8, 8);
        if (m > 0) {
            assert_memory_equal(ret[m], ret[0], n * sizeof(int64_t));
            assert_memory_equal(st->kv, state_of(&pair[0].s[0])->kv,
                                TC_BENCH_KV_CAP * sizeof(*st->kv));
        }
    }
    for (m = 0; m < N_MODES; ++m) {
        pair_close(&pair[m]);
        free(ret[m]);
    }
    free(calls);
    free(keys);
}

/* Walks of 0 hops and more, starts past the list's end, whole laps. */
static void test_pointer_chase(void **unused)
{
    static const tc_bench_chase_t q[] = {
        {0, 0},          {1, 0},      {TC_BENCH_CHASE_LEN - 1, 0}, {0, 1},
        {1, 1},          {12345, 7},  {TC_BENCH_CHASE_LEN - 1, 100},
        {70000, 3},      {UINT32_MAX, 2},          {0, TC_BENCH_CHASE_LEN - 1},
        {0, TC_BENCH_CHASE_LEN},      {17, TC_BENCH_CHASE_LEN},    {4242, 100000},
        {31337, 1000},   {9, 2 * TC_BENCH_CHASE_LEN + 5},
    };
    const size_t n = sizeof(q) / sizeof(q[0]);
    call_t calls[sizeof(q) / sizeof(q[0])];
    int64_t ret[N_MODES][sizeof(q) / sizeof(q[0])];
    const tc_bench_state_t *st;
    pair_t pair[N_MODES];
    uint32_t i, steps;
    uint32_t short4 = 0;
    size_t k;
    unsigned m;

    (void)unused;
    for (k = 0; k < n; ++k) {
        calls[k].src    = &q[k];
        calls[k].len    = sizeof(q[k]);
        calls[k].expect = tc_bench_chase_expect(q[k].start, q[k].hops);
    }
    /* one cycle through every node: a lap of LEN hops comes back, no less */
    for (i = tc_bench_chase_next(0), steps = 1; i != 0; i = tc_bench_chase_next(i)) {
        steps++;
        assert_true(steps <= TC_BENCH_CHASE_LEN);
    }
    assert_int_equal(steps, TC_BENCH_CHASE_LEN);
    assert_int_equal(tc_bench_chase_expect(0, 0), 1);
    assert_int_equal(tc_bench_chase_expect(0, TC_BENCH_CHASE_LEN), 1);
    assert_int_equal(tc_bench_chase_expect(17, TC_BENCH_CHASE_LEN), 17 * 3 + 1);
    assert_int_equal(tc_bench_chase_expect(5, 0), 16);

    for (m = 0; m < N_MODES; ++m) {
        pair_open_variable(&pair[m]);
        st = state_of(&pair[m].s[0]);

        /* the list the ried built is the one the helpers describe */
        assert_int_equal(st->chase_len, TC_BENCH_CHASE_LEN);
        for (i = 0; i < TC_BENCH_CHASE_LEN; ++i) {
            assert_int_equal(st->nodes[i].next, tc_bench_chase_next(i));
            assert_int_equal(st->nodes[i].value, tc_bench_chase_value(i));
        }

        call_all(&pair[m], "pointer_chase", modes[m], calls, n, ret[m]);
        check_results("pointer_chase", modes[m], calls, n, ret[m]);
        assert_int_equal(st->calls, n);
        assert_int_equal(state_of(&pair[m].s[1])->calls, 0);
        check_pack_refuses(&pair[m], "pointer_chase", modes[m], &short4, 4);
        check_pack_refuses(&pair[m], "pointer_chase", modes[m], q, 16);
        if (m > 0) {
            assert_memory_equal(ret[m], ret[0], n * sizeof(int64_t));
            assert_memory_equal(st->nodes, state_of(&pair[0].s[0])->nodes,
                                TC_BENCH_CHASE_LEN * sizeof(*st->nodes));
        }
    }
    for (m = 0; m < N_MODES; ++m) {
        pair_close(&pair[m]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_code_info),
        cmocka_unit_test(test_docs),
        cmocka_unit_test(test_append),
        cmocka_unit_test(test_kv_get),
        cmocka_unit_test(test_pointer_chase),
    };

    return cmocka_run_group_tests_name("jams", tests, NULL, NULL);
}
