/*
 * Mailbox peers end to end over real UCX (loopback: two contexts in one
 * process, shared-memory transports): every jam of the bench package, the
 * ring and its credits, ordering over a small ring, reply values, variable
 * frames, and malformed frames that must be rejected, counted and never run.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "twochains.h"
#include "runtime.h"
#include "frame.h"
#include "clock.h"
#include "bench_state.h"
#include "log.h"
#include "place.h"
#include "harness/platform.h"

#include "loop_pair.h"
#include "harness/pkg_path.h"

static int quick(void)
{
    return getenv("TC_TEST_QUICK") != NULL;
}

static void default_params(tc_context_params_t *params, uint32_t slots)
{
    tc_context_params_init(params);
    params->slots      = slots;
    params->slot_size  = 4096;
    params->timeout_ms = 5000;
}

static void set_frames(pair_t *pair, uint32_t payload)
{
    assert_int_equal(tc_peer_set_frame_size(pair->s[0].peer, tc_frame_size_for(payload)), TC_OK);
    assert_int_equal(tc_peer_set_frame_size(pair->s[1].peer, tc_frame_size_for(payload)), TC_OK);
}

/* ---------------------------------------------------------------- tests */

static void test_connect_reports_transport(void **unused)
{
    tc_context_params_t params;
    const char *why = NULL;
    pair_t pair;

    (void)unused;
    default_params(&params, 8);
    pair_open(&pair, &params);
    assert_non_null(tc_peer_transports(pair.s[0].peer));
    assert_true(strlen(tc_peer_transports(pair.s[0].peer)) > 0);
    (void)tc_peer_progress_needed(pair.s[0].peer, &why);
    assert_non_null(why);
    assert_int_equal(tc_peer_check_alive(pair.s[0].peer), TC_OK);
    pair_close(&pair);
}

static void test_server_sum_matches_local(void **unused)
{
    const uint64_t n = 5000;
    int32_t payload[64];
    tc_context_params_t params;
    server_arg_t server;
    int64_t expect = 0;
    pthread_t thread;
    tc_jam_t jam;
    pair_t pair;
    uint64_t i;
    int k;

    (void)unused;
    default_params(&params, 16);
    pair_open(&pair, &params);
    set_frames(&pair, sizeof(payload));
    jam = jam_of(&pair.s[1], "server_sum");

    server = (server_arg_t){&pair.s[0], n, 0, TC_OK};
    pthread_create(&thread, NULL, server_thread, &server);
    for (i = 0; i < n; ++i) {
        for (k = 0; k < 64; ++k) {
            payload[k] = (int32_t)((i * 131 + (uint64_t)k * 7) % 20011) - 10000;
            expect += payload[k];
        }
        assert_int_equal(tc_jam_send(pair.s[1].peer, &jam, payload, sizeof(payload), TC_SEND_PARAMS(TC_MODE_LOCAL, 0)), TC_OK);
    }
    assert_int_equal(tc_peer_drain(pair.s[1].peer), TC_OK);
    pthread_join(thread, NULL);
    assert_int_equal(server.status, TC_OK);

    assert_int_equal(state_of(&pair.s[0])->sum, expect);
    assert_int_equal(state_of(&pair.s[0])->calls, n);
    assert_int_equal(state_of(&pair.s[1])->calls, 0); /* the sender ran nothing */
    pair_close(&pair);
}

static void test_indirect_put_matches_local(void **unused)
{
    const uint64_t n = 3000, ints = 100;
    int32_t *expect = calloc(TC_BENCH_ARRAY_LEN, sizeof(int32_t));
    int32_t payload[100];
    tc_context_params_t params;
    tc_bench_state_t *st;
    server_arg_t server;
    pthread_t thread;
    uint64_t i, k, cursor = 0;
    tc_jam_t jam;
    pair_t pair;

    (void)unused;
    default_params(&params, 8);
    pair_open(&pair, &params);
    set_frames(&pair, sizeof(payload));
    jam = jam_of(&pair.s[1], "indirect_put");

    server = (server_arg_t){&pair.s[0], n, 0, TC_OK};
    pthread_create(&thread, NULL, server_thread, &server);
    for (i = 0; i < n; ++i) {
        for (k = 0; k < ints; ++k) {
            payload[k] = (int32_t)(i * 1000003u + k);
            expect[tc_bench_index(cursor++)] = payload[k];
        }
        assert_int_equal(tc_jam_send(pair.s[1].peer, &jam, payload, sizeof(payload), TC_SEND_PARAMS(TC_MODE_LOCAL, 0)), TC_OK);
    }
    assert_int_equal(tc_peer_drain(pair.s[1].peer), TC_OK);
    pthread_join(thread, NULL);
    assert_int_equal(server.status, TC_OK);

    st = state_of(&pair.s[0]);
    assert_int_equal(st->cursor, n * ints);
    assert_memory_equal(st->array, expect, TC_BENCH_ARRAY_LEN * sizeof(int32_t));
    free(expect);
    pair_close(&pair);
}

static void test_call_returns_result(void **unused)
{
    tc_context_params_t params;
    server_arg_t server;
    int32_t payload[4] = {1, 2, 3, 4};
    pthread_t thread;
    int64_t ret = 0;
    tc_jam_t jam;
    pair_t pair;
    int i;

    (void)unused;
    default_params(&params, 4);
    pair_open(&pair, &params);
    set_frames(&pair, sizeof(payload));
    jam = jam_of(&pair.s[1], "server_sum");

    server = (server_arg_t){&pair.s[0], 100, 0, TC_OK};
    pthread_create(&thread, NULL, server_thread, &server);
    for (i = 1; i <= 100; ++i) {
        assert_int_equal(tc_jam_call(pair.s[1].peer, &jam, payload, sizeof(payload), NULL, &ret),
                         TC_OK);
        assert_int_equal(ret, 10 * i); /* the running total after this call */
    }
    pthread_join(thread, NULL);
    assert_int_equal(server.status, TC_OK);
    pair_close(&pair);
}

/* Every jam of the package runs end to end and returns what it computed. */
static void test_every_jam_returns(void **unused)
{
    int32_t ints[16];
    uint64_t counter = 0;
    tc_context_params_t params;
    server_arg_t server;
    pthread_t thread;
    int64_t ret;
    tc_jam_t jam;
    pair_t pair;
    int i;

    (void)unused;
    default_params(&params, 4);
    params.frames = TC_FRAMES_VARIABLE; /* each jam its own frame size */
    pair_open(&pair, &params);
    for (i = 0; i < 16; ++i) {
        ints[i] = i + 1;
    }

    server = (server_arg_t){&pair.s[0], 4, 0, TC_OK};
    pthread_create(&thread, NULL, server_thread, &server);
    jam = jam_of(&pair.s[1], "indirect_put");
    assert_int_equal(tc_jam_call(pair.s[1].peer, &jam, ints, sizeof(ints), NULL, &ret), TC_OK);
    assert_int_equal(ret, 16);                 /* integers put */
    jam = jam_of(&pair.s[1], "server_sum");
    assert_int_equal(tc_jam_call(pair.s[1].peer, &jam, ints, sizeof(ints), NULL, &ret), TC_OK);
    assert_int_equal(ret, 136);                /* 1 + ... + 16 */
    jam = jam_of(&pair.s[1], "seq");
    assert_int_equal(tc_jam_call(pair.s[1].peer, &jam, &counter, sizeof(counter), NULL, &ret), TC_OK);
    assert_int_equal(ret, 0);
    jam = jam_of(&pair.s[1], "noop");
    assert_int_equal(tc_jam_call(pair.s[1].peer, &jam, ints, 40, NULL, &ret), TC_OK);
    assert_int_equal(ret, 40);                 /* bytes it was given */
    pthread_join(thread, NULL);
    assert_int_equal(server.status, TC_OK);
    assert_int_equal(state_of(&pair.s[0])->calls, 3); /* noop touches no state */
    assert_int_equal(state_of(&pair.s[0])->array[tc_bench_index(15)], 16);
    pair_close(&pair);
}

/* The same jam source runs identically as Local Function, Injected Function
 * and from the receiver's code cache: same results, same receiver state. */
static void modes_agree(int wx)
{
    static const char *const jams[] = {"indirect_put", "server_sum", "noop"};
    static const uint32_t sizes[]   = {4, 64, 1024, 3600};
    static const tc_mode_t modes[]  = {TC_MODE_LOCAL, TC_MODE_INJECTED, TC_MODE_CACHED};
    int32_t payload[1000];
    tc_context_params_t params;
    int64_t ret[3];
    server_arg_t server;
    pthread_t thread;
    tc_peer_stats_t rx;
    tc_bench_state_t *st;
    int64_t sum[3];
    uint64_t cursor[3];
    unsigned j, z, m, i;
    tc_jam_t jam;
    pair_t pair[3];

    for (i = 0; i < 1000; ++i) {
        payload[i] = (int32_t)(i * 7919) - 5000;
    }
    /* one connection per mode, so each receiver state sees one mode only */
    for (m = 0; m < 3; ++m) {
        default_params(&params, 8);
        params.frames = TC_FRAMES_VARIABLE;
        params.wx     = wx;
        pair_open(&pair[m], &params);
        assert_int_equal(pair[m].s[0].peer->mbox_exec, 0); /* code never runs in the slot */
        /* sync traffic runs nothing: only the jams count */
        server = (server_arg_t){&pair[m].s[0], TC_ARRAY_SIZE(jams) * TC_ARRAY_SIZE(sizes), 0,
                                TC_OK};
        pthread_create(&thread, NULL, server_thread, &server);
        for (j = 0; j < TC_ARRAY_SIZE(jams); ++j) {
            jam = jam_of(&pair[m].s[1], jams[j]);
            for (z = 0; z < TC_ARRAY_SIZE(sizes); ++z) {
                assert_int_equal(tc_jam_call(pair[m].s[1].peer, &jam, payload, sizes[z], TC_SEND_PARAMS(modes[m], 0), &ret[m]), TC_OK);
            }
        }
        pthread_join(thread, NULL);
        assert_int_equal(server.status, TC_OK);
        tc_peer_stats(pair[m].s[0].peer, &rx);
        assert_int_equal(rx.rx_rejected, 0);
        st        = state_of(&pair[m].s[0]);
        sum[m]    = st->sum;
        cursor[m] = st->cursor;
        if (m > 0) {
            assert_int_equal(sum[m], sum[0]);
            assert_int_equal(cursor[m], cursor[0]);
            assert_int_equal(ret[m], ret[0]);
            assert_memory_equal(st->array, state_of(&pair[0].s[0])->array,
                                TC_BENCH_ARRAY_LEN * sizeof(int32_t));
        }
    }
    for (m = 0; m < 3; ++m) {
        pair_close(&pair[m]);
    }
}

static void test_modes_agree(void **unused)
{
    (void)unused;
    modes_agree(0);
}

/* W^X: the mailbox stays RW; injected code runs from the RX view of the
 * code cache. Results must not change. */
static void test_modes_agree_wx(void **unused)
{
    (void)unused;
    modes_agree(1);
}

/* Injected frames with a flipped byte in the code, the GOTP or the header
 * are rejected, counted and never run; a local-only receiver refuses code. */
static tc_status_t send_tampered(pair_t *pair, const tc_jam_t *jam, int32_t value,
                                 size_t where, int policy_case)
{
    char frame[4096];
    tc_peer_t *tx = pair->s[1].peer;
    tc_inj_t *inj = tc_inj_find(tx, jam->pkg_id, jam->element);
    const tc_blob_t *blob = inj->blob;
    tc_frame_layout_t layout = {0, blob->hdr->got_count,
                                blob->hdr->image_size - blob->hdr->code_offset, sizeof(value)};
    tc_frame_offsets_t off;
    uint32_t size;

    (void)policy_case;
    assert_int_equal(tc_frame_layout(&layout, sizeof(frame), &off), TC_OK);
    size = off.frame_size;
    memset(frame, 0, size);
    tc_frame_write_hdr(frame, &off, &layout, TC_KIND_INJECTED, 0, jam->pkg_id, jam->element,
                       tx->tx_seq);
    memcpy(frame + off.got_off, inj->tx_gotp, 8u * layout.got_count);
    memcpy(frame + off.code_off, blob->image + blob->hdr->code_offset, layout.code_len);
    memcpy(frame + off.payload_off, &value, sizeof(value));
    if (where != 0) {
        frame[where] ^= 0x40;
    }
    tc_frame_seal(frame);
    return tc_peer_send_raw_frame(tx, frame, size);
}

static void test_injected_tampering_rejected(void **unused)
{
    tc_context_params_t params;
    tc_frame_offsets_t off;
    tc_frame_layout_t layout;
    tc_peer_stats_t rx;
    tc_inj_t *inj;
    unsigned n, i;
    tc_jam_t jam;
    pair_t pair;
    struct { size_t where; const char *why; } cases[3];

    (void)unused;
    default_params(&params, 4);
    params.frames = TC_FRAMES_VARIABLE;
    pair_open(&pair, &params);
    jam = jam_of(&pair.s[1], "server_sum");

    /* sync by hand, both sides driven from this thread */
    {
        server_arg_t server = {&pair.s[0], 1, 0, TC_OK};
        pthread_t thread;
        int64_t ret;
        int32_t one = 1;
        pthread_create(&thread, NULL, server_thread, &server);
        assert_int_equal(tc_jam_call(pair.s[1].peer, &jam, &one, sizeof(one), TC_SEND_PARAMS(TC_MODE_INJECTED, 0), &ret), TC_OK);
        pthread_join(thread, NULL);
        assert_int_equal(ret, 1);
    }
    inj    = tc_inj_find(pair.s[1].peer, jam.pkg_id, jam.element);
    layout = (tc_frame_layout_t){0, inj->blob->hdr->got_count,
                                 inj->blob->hdr->image_size - inj->blob->hdr->code_offset, 4};
    assert_int_equal(tc_frame_layout(&layout, 4096, &off), TC_OK);
    cases[0].where = off.code_off + 3;  cases[0].why = "code differs";
    cases[1].where = off.got_off + 1;   cases[1].why = "GOTP differs";
    cases[2].where = offsetof(tc_frame_hdr_t, code_len); cases[2].why = "";

    for (i = 0; i < 3; ++i) {
        assert_int_equal(send_tampered(&pair, &jam, 100, cases[i].where, 0), TC_OK);
        assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, &n), TC_OK);
        assert_int_equal(n, 1);
        tc_peer_stats(pair.s[0].peer, &rx);
        assert_int_equal(rx.rx_rejected, i + 1);
        assert_non_null(strstr(tc_peer_last_reject(pair.s[0].peer), cases[i].why));
        assert_int_equal(state_of(&pair.s[0])->sum, 1 + 10 * (int64_t)i); /* never ran */
        /* an untampered frame still runs */
        assert_int_equal(send_tampered(&pair, &jam, 10, 0, 0), TC_OK);
        assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, &n), TC_OK);
        assert_int_equal(state_of(&pair.s[0])->sum, 1 + 10 * (int64_t)(i + 1));
        assert_int_equal(tc_peer_flush(pair.s[0].peer), TC_OK);
    }

    /* the same receiver turned local-only refuses it */
    pair.s[0].ctx->params.exec = TC_EXEC_LOCAL_ONLY;
    assert_int_equal(send_tampered(&pair, &jam, 10, 0, 0), TC_OK);
    assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, &n), TC_OK);
    assert_non_null(strstr(tc_peer_last_reject(pair.s[0].peer), "local-only"));
    assert_int_equal(state_of(&pair.s[0])->sum, 31);
    pair_close(&pair);
}

/* A receiver that lost its cached code: under the allow-list it relinks its
 * own blob and nothing is lost; under policy `any` it rejects the frame,
 * tells the sender, and the sender's next cached jam carries the code. */
static void test_cache_loss(void **unused)
{
    tc_context_params_t params;
    tc_peer_stats_t rx;
    int32_t v = 5;
    unsigned n, k;
    tc_jam_t jam;
    pair_t pair;

    (void)unused;
    default_params(&params, 4);
    params.frames = TC_FRAMES_VARIABLE;
    pair_open(&pair, &params);
    jam = jam_of(&pair.s[1], "server_sum");

    /* one thread drives both sides; the sync needs the receiver to answer */
    {
        server_arg_t server = {&pair.s[0], 1, 0, TC_OK};
        pthread_t thread;
        int64_t ret;
        pthread_create(&thread, NULL, server_thread, &server);
        assert_int_equal(tc_jam_call(pair.s[1].peer, &jam, &v, sizeof(v), TC_SEND_PARAMS(TC_MODE_CACHED, 0), &ret), TC_OK);
        pthread_join(thread, NULL);
        assert_int_equal(ret, 5);
    }

    /* allow-list: relinked from the receiver's own blob */
    tc_peer_forget_code(pair.s[0].peer);
    assert_int_equal(tc_jam_send(pair.s[1].peer, &jam, &v, sizeof(v), TC_SEND_PARAMS(TC_MODE_CACHED, 0)),
                     TC_OK);
    assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, &n), TC_OK);
    assert_int_equal(n, 1);
    assert_int_equal(state_of(&pair.s[0])->sum, 10);
    tc_peer_stats(pair.s[0].peer, &rx);
    assert_int_equal(rx.rx_rejected, 0);

    /* policy any: rejected, the sender told, the code goes again */
    pair.s[0].ctx->params.exec = TC_EXEC_ANY;
    tc_peer_forget_code(pair.s[0].peer);
    assert_int_equal(tc_jam_send(pair.s[1].peer, &jam, &v, sizeof(v), TC_SEND_PARAMS(TC_MODE_CACHED, 0)),
                     TC_OK);
    assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, &n), TC_OK); /* rejects, tells */
    tc_peer_stats(pair.s[0].peer, &rx);
    assert_int_equal(rx.rx_rejected, 1);
    assert_non_null(strstr(tc_peer_last_reject(pair.s[0].peer), "does not hold"));
    assert_int_equal(state_of(&pair.s[0])->sum, 10);
    assert_int_equal(tc_peer_progress(pair.s[1].peer, 0, &n), TC_OK); /* hears it */
    assert_false(tc_jam_is_prepared(pair.s[1].peer, &jam, TC_MODE_CACHED));
    {
        /* so far 2 ran and 1 was rejected: serve until one more */
        server_arg_t server = {&pair.s[0], 4, 0, TC_OK};
        pthread_t thread;
        int64_t ret;
        pthread_create(&thread, NULL, server_thread, &server);
        assert_int_equal(tc_jam_call(pair.s[1].peer, &jam, &v, sizeof(v), TC_SEND_PARAMS(TC_MODE_CACHED, 0), &ret), TC_OK);
        pthread_join(thread, NULL);
        assert_int_equal(ret, 15);
    }
    for (k = 0; k < 3; ++k) { /* and it stays cached */
        assert_int_equal(tc_jam_send(pair.s[1].peer, &jam, &v, sizeof(v), TC_SEND_PARAMS(TC_MODE_CACHED, 0)), TC_OK);
        assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, &n), TC_OK);
        assert_int_equal(tc_peer_flush(pair.s[0].peer), TC_OK);
    }
    assert_int_equal(state_of(&pair.s[0])->sum, 30);
    tc_peer_stats(pair.s[0].peer, &rx);
    assert_int_equal(rx.rx_rejected, 1);
    pair_close(&pair);
}

/* A ried shipped over the wire is loaded from a memfd on the peer,
 * initialised, and answers with its exports; slot names then resolve
 * against it. A library that cannot load is reported with the peer's
 * dlerror and the peer keeps serving; an unloaded ried is gone. */
typedef struct ship_arg {
    side_t     *side;
    volatile int stop;
    tc_status_t status;
} ship_arg_t;

static void *serve_until_stopped(void *arg)
{
    ship_arg_t *a = arg;
    unsigned n;

    a->status = TC_OK;
    while (!a->stop && (a->status == TC_OK)) {
        a->status = tc_peer_progress(a->side->peer, 0, &n);
    }
    return NULL;
}

static void test_ried_over_the_wire(void **unused)
{
    char path[4096], exports[1024], bogus[] = "/tmp/tc-test-ried-XXXXXX";
    tc_context_params_t params;
    ship_arg_t server;
    unsigned ried_index;
    pthread_t thread;
    uint32_t id = 0, id2 = 0;
    int64_t ret;
    int32_t v = 7;
    tc_jam_t jam;
    pair_t pair;
    int fd;

    (void)unused;
    default_params(&params, 4);
    params.frames    = TC_FRAMES_VARIABLE;
    params.slot_size = 4096; /* the library goes in many chunks */
    pair_open(&pair, &params);
    assert_int_equal(tc_pkg_default_path(path, sizeof(path)), TC_OK);
    strcpy(strrchr(path, '/') + 1, "libried_bench.so");

    server = (ship_arg_t){&pair.s[0], 0, TC_OK};
    pthread_create(&thread, NULL, serve_until_stopped, &server);

    assert_int_equal(tc_ried_ship(pair.s[1].peer, path, sizeof(exports), exports, &id), TC_OK);
    assert_true(id != 0);
    assert_non_null(strstr(exports, "tc_ried_init_bench"));

    /* not a ried of an accepted package: the allow-list refuses it */
    fd = mkstemp(bogus);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "not an ELF file", 15), 15);
    close(fd);
    assert_int_equal(tc_ried_ship(pair.s[1].peer, bogus, 0, NULL, &id2), TC_ERR_IO);
    assert_non_null(strstr(pair.s[1].peer->ried_tx.text, "allow-list"));

    /* a receiver that accepts any code tries it: dlopen says why */
    server.stop = 1;
    pthread_join(thread, NULL);
    pair.s[0].ctx->params.exec = TC_EXEC_ANY;
    server = (ship_arg_t){&pair.s[0], 0, TC_OK};
    pthread_create(&thread, NULL, serve_until_stopped, &server);
    assert_int_equal(tc_ried_ship(pair.s[1].peer, bogus, 0, NULL, &id2), TC_ERR_IO);
    assert_non_null(strstr(pair.s[1].peer->ried_tx.text, "dlopen"));
    unlink(bogus);
    /* ... and keeps serving */
    jam = jam_of(&pair.s[1], "server_sum");
    assert_int_equal(tc_jam_call(pair.s[1].peer, &jam, &v, sizeof(v), NULL, &ret), TC_OK);
    assert_int_equal(ret, 7);

    server.stop = 1;
    pthread_join(thread, NULL);
    assert_int_equal(server.status, TC_OK);
    /* the receiver resolves names against it (what namespace sync uses) */
    assert_non_null(tc_ried_lookup(pair.s[0].ctx, "tc_ried_init_bench", &ried_index));

    server = (ship_arg_t){&pair.s[0], 0, TC_OK};
    pthread_create(&thread, NULL, serve_until_stopped, &server);
    assert_int_equal(tc_ried_unload(pair.s[1].peer, id), TC_OK);
    assert_int_equal(tc_ried_unload(pair.s[1].peer, id), TC_ERR_NOT_FOUND);
    server.stop = 1;
    pthread_join(thread, NULL);
    assert_null(tc_ried_lookup(pair.s[0].ctx, "tc_ried_init_bench", &ried_index));
    pair_close(&pair);
}

/* Every wait strategy this host has delivers every frame, in order; one it
 * lacks is refused at context creation with the reason, and its test is a
 * cmocka skip that prints the platform's reason. */
static unsigned waits_ran; /* strategies that ran; test_wait_strategies_ran checks */

static void wait_strategy(tc_wait_t wait)
{
    const uint64_t n = quick() ? 20000 : 1000000;
    tc_context_params_t params;
    tc_bench_state_t *st;
    tc_peer_stats_t rx;
    server_arg_t server;
    pthread_t thread;
    tc_context_t *ctx;
    tc_status_t status;
    tc_jam_t jam;
    uint64_t i;
    pair_t pair;

    default_params(&params, 16);
    params.events = 1;
    params.wait   = wait;
    status        = tc_context_create(&params, &ctx);
    if (status != TC_OK) {
        tc_platform_t platform;

        assert_int_equal(status, TC_ERR_UNSUPPORTED); /* and the log says why */
        assert_int_equal(tc_platform_probe(&platform), TC_OK);
        assert_false(platform.wait[wait].supported); /* the report agrees */
        print_message("wait %s: %s\n", tc_wait_str(wait), platform.wait[wait].status);
        skip();
    }
    tc_context_destroy(ctx);

    pair_open(&pair, &params); /* both sides wait so; each rings the other */
    set_frames(&pair, sizeof(uint64_t));
    jam    = jam_of(&pair.s[1], "seq");
    server = (server_arg_t){&pair.s[0], n, 0, TC_OK};
    pthread_create(&thread, NULL, server_thread, &server);
    for (i = 0; i < n; ++i) {
        assert_int_equal(tc_jam_send(pair.s[1].peer, &jam, &i, sizeof(i), TC_SEND_PARAMS(TC_MODE_LOCAL, 0)), TC_OK);
    }
    assert_int_equal(tc_peer_drain(pair.s[1].peer), TC_OK);
    pthread_join(thread, NULL);
    assert_int_equal(server.status, TC_OK);
    st = state_of(&pair.s[0]);
    tc_peer_stats(pair.s[0].peer, &rx);
    assert_int_equal(st->seq_errors, 0);
    assert_int_equal(st->seq_next, n);
    assert_int_equal(rx.rx_rejected, 0);
    print_message("wait %s: %llu frames in order, %llu blocking waits\n",
                  tc_wait_str(wait), (unsigned long long)n,
                  (unsigned long long)rx.wakeups);
    pair_close(&pair);
    ++waits_ran;
}

static void test_wait_poll(void **unused)     { (void)unused; wait_strategy(TC_WAIT_POLL); }
static void test_wait_pause(void **unused)    { (void)unused; wait_strategy(TC_WAIT_PAUSE); }
static void test_wait_wfe(void **unused)      { (void)unused; wait_strategy(TC_WAIT_WFE); }
static void test_wait_umwait(void **unused)   { (void)unused; wait_strategy(TC_WAIT_UMWAIT); }
static void test_wait_mwaitx(void **unused)   { (void)unused; wait_strategy(TC_WAIT_MWAITX); }
static void test_wait_event(void **unused)    { (void)unused; wait_strategy(TC_WAIT_EVENT); }
static void test_wait_adaptive(void **unused) { (void)unused; wait_strategy(TC_WAIT_ADAPTIVE); }

/* Runs after the seven above (cmocka keeps the table's order). */
static void test_wait_strategies_ran(void **unused)
{
    (void)unused;
    assert_true(waits_ran >= 4); /* poll, pause, event, adaptive run everywhere */
}

/* Arrival placement writes the frame itself into the peer's slot (llc,
 * dram) instead of the transport's put: the receiver's ring must end up
 * byte for byte as the put leaves it, every frame runs once, in order.
 * A placement this host lacks is refused by the sender and its test is a
 * cmocka skip that prints the reason. */
enum { PLACE_SLOTS = 16, PLACE_PAYLOAD = 300 };
static unsigned places_ran; /* placements that ran; test_placements_ran checks */

/* A fresh pair whose sender places frames by `place`: one ring's worth of
 * append frames (each slot written once, their payloads into sent), all run
 * by the receiver. The pair is left open. */
static void placement_fill(pair_t *pair, tc_place_t place, uint8_t *sent)
{
    uint8_t payload[PLACE_PAYLOAD];
    tc_context_params_t params;
    tc_bench_state_t *st;
    server_arg_t server;
    pthread_t thread;
    uint64_t i, k;
    tc_jam_t jam;

    default_params(&params, PLACE_SLOTS);
    pair_open(pair, &params);
    set_frames(pair, PLACE_PAYLOAD);
    assert_int_equal(tc_peer_set_placement(pair->s[1].peer, place), TC_OK);
    tc_peer_set_sw_prefetch(pair->s[0].peer, place == TC_PLACE_DRAM);

    jam    = jam_of(&pair->s[1], "append");
    server = (server_arg_t){&pair->s[0], PLACE_SLOTS, 0, TC_OK};
    pthread_create(&thread, NULL, server_thread, &server);
    for (i = 0; i < PLACE_SLOTS; ++i) {
        for (k = 0; k < PLACE_PAYLOAD; ++k) {
            payload[k] = (uint8_t)((i * 131 + k * 7) ^ (k >> 3));
        }
        memcpy(sent + i * PLACE_PAYLOAD, payload, PLACE_PAYLOAD);
        assert_int_equal(tc_jam_send(pair->s[1].peer, &jam, payload, PLACE_PAYLOAD, TC_SEND_PARAMS(TC_MODE_LOCAL, 0)), TC_OK);
    }
    assert_int_equal(tc_peer_drain(pair->s[1].peer), TC_OK);
    pthread_join(thread, NULL);
    assert_int_equal(server.status, TC_OK);
    st = state_of(&pair->s[0]);
    assert_int_equal(st->log_len, (uint64_t)PLACE_SLOTS * PLACE_PAYLOAD);
    assert_memory_equal(st->log, sent, (size_t)PLACE_SLOTS * PLACE_PAYLOAD);
}

static void placement(tc_place_t place)
{
    const uint64_t stream = quick() ? 20000 : 200000;
    uint8_t *reference = NULL, *sent;
    tc_context_params_t params;
    tc_bench_state_t *st;
    server_arg_t server;
    pthread_t thread;
    size_t ring_bytes;
    char why[TC_PLATFORM_STATUS_LEN];
    uint64_t i;
    tc_jam_t jam;
    pair_t pair;

    default_params(&params, PLACE_SLOTS);
    ring_bytes = (size_t)PLACE_SLOTS * params.slot_size;
    if (tc_place_check(place, why, sizeof(why)) != TC_OK) {
        tc_status_t status;

        pair_open(&pair, &params);
        set_frames(&pair, PLACE_PAYLOAD);
        status = tc_peer_set_placement(pair.s[1].peer, place);
        pair_close(&pair);
        assert_int_equal(status, TC_ERR_UNSUPPORTED); /* and the log says why */
        print_message("placement %s: %s\n", tc_place_str(place), why);
        skip();
    }
    sent = malloc((size_t)PLACE_SLOTS * PLACE_PAYLOAD);
    assert_non_null(sent);
    if (place != TC_PLACE_DEFAULT) {
        /* the reference: the same frames through the transport's put */
        placement_fill(&pair, TC_PLACE_DEFAULT, sent);
        reference = malloc(ring_bytes);
        assert_non_null(reference);
        memcpy(reference, pair.s[0].peer->rx_ring, ring_bytes);
        pair_close(&pair);
    }
    placement_fill(&pair, place, sent);
    if (reference != NULL) {
        assert_memory_equal(pair.s[0].peer->rx_ring, reference, ring_bytes);
    }

    /* and a stream through the ring, in order, nothing rejected */
    st           = state_of(&pair.s[0]);
    jam          = jam_of(&pair.s[1], "seq");
    st->seq_next = 0;
    server = (server_arg_t){&pair.s[0], PLACE_SLOTS + stream, 0, TC_OK}; /* counts all */
    pthread_create(&thread, NULL, server_thread, &server);
    for (i = 0; i < stream; ++i) {
        assert_int_equal(tc_jam_send(pair.s[1].peer, &jam, &i, sizeof(i), TC_SEND_PARAMS(TC_MODE_LOCAL, 0)), TC_OK);
    }
    assert_int_equal(tc_peer_drain(pair.s[1].peer), TC_OK);
    pthread_join(thread, NULL);
    assert_int_equal(server.status, TC_OK);
    assert_int_equal(st->seq_errors, 0);
    assert_int_equal(st->seq_next, stream);
    assert_int_equal(pair.s[0].peer->stats.rx_rejected, 0);
    print_message("placement %s: ring byte-identical, %llu frames in order\n",
                  tc_place_str(place), (unsigned long long)stream);
    pair_close(&pair);
    free(reference);
    free(sent);
    ++places_ran;
}

static void test_placement_default(void **unused) { (void)unused; placement(TC_PLACE_DEFAULT); }
static void test_placement_llc(void **unused)     { (void)unused; placement(TC_PLACE_LLC); }
static void test_placement_dram(void **unused)    { (void)unused; placement(TC_PLACE_DRAM); }

/* Runs after the three above. */
static void test_placements_ran(void **unused)
{
    (void)unused;
    assert_true(places_ran >= 2); /* default and dram run on every x86-64 and aarch64 host */
}

/* Every sequence number runs exactly once, in order, through a 4-slot ring. */
static void test_million_in_order_small_ring(void **unused)
{
    const uint64_t n = quick() ? 100000 : 1000000;
    tc_context_params_t params;
    tc_peer_stats_t tx, rx;
    tc_bench_state_t *st;
    server_arg_t server;
    pthread_t thread;
    tc_jam_t jam;
    pair_t pair;
    uint64_t i;

    (void)unused;
    default_params(&params, 4);
    pair_open(&pair, &params);
    set_frames(&pair, sizeof(uint64_t));
    jam = jam_of(&pair.s[1], "seq");

    server = (server_arg_t){&pair.s[0], n, 0, TC_OK};
    pthread_create(&thread, NULL, server_thread, &server);
    for (i = 0; i < n; ++i) {
        assert_int_equal(tc_jam_send(pair.s[1].peer, &jam, &i, sizeof(i), TC_SEND_PARAMS(TC_MODE_LOCAL, 0)), TC_OK);
    }
    assert_int_equal(tc_peer_drain(pair.s[1].peer), TC_OK);
    pthread_join(thread, NULL);
    assert_int_equal(server.status, TC_OK);

    st = state_of(&pair.s[0]);
    tc_peer_stats(pair.s[1].peer, &tx);
    tc_peer_stats(pair.s[0].peer, &rx);
    assert_int_equal(st->seq_errors, 0);
    assert_int_equal(st->seq_next, n);
    assert_int_equal(st->calls, n);
    assert_int_equal(tx.tx_frames, n);
    assert_int_equal(rx.rx_frames, n);
    assert_int_equal(rx.rx_rejected, 0);
    assert_true(tx.credit_waits > 0); /* a 4-slot ring must have filled */
    pair_close(&pair);
}

/* A full ring blocks the sender until the receiver frees slots; nothing is
 * overwritten (the seq jam would count a skipped frame). */
static void test_full_ring_blocks_sender(void **unused)
{
    const unsigned slots = 4, n = 64;
    tc_context_params_t params;
    tc_bench_state_t *st;
    server_arg_t server;
    pthread_t thread;
    uint64_t i, t0, blocked_ns = 0;
    tc_jam_t jam;
    pair_t pair;

    (void)unused;
    default_params(&params, slots);
    pair_open(&pair, &params);
    set_frames(&pair, sizeof(uint64_t));
    jam = jam_of(&pair.s[1], "seq");

    server = (server_arg_t){&pair.s[0], n, 300, TC_OK}; /* starts 300 ms late */
    pthread_create(&thread, NULL, server_thread, &server);
    t0 = tc_clock_mono_ns();
    for (i = 0; i < n; ++i) {
        uint64_t before = tc_clock_mono_ns();
        assert_int_equal(tc_jam_send(pair.s[1].peer, &jam, &i, sizeof(i), TC_SEND_PARAMS(TC_MODE_LOCAL, 0)), TC_OK);
        if (i < slots) {
            /* no wait: a send that waited for the receiver, 300 ms late,
             * would take about 300 ms */
            assert_true(tc_clock_mono_ns() - before < 200000000ull);
        } else if (i == slots) {
            blocked_ns = tc_clock_mono_ns() - t0;
        }
    }
    assert_int_equal(tc_peer_drain(pair.s[1].peer), TC_OK);
    pthread_join(thread, NULL);
    assert_int_equal(server.status, TC_OK);

    assert_true(blocked_ns >= 200000000ull); /* the 5th send waited for the receiver */
    st = state_of(&pair.s[0]);
    assert_int_equal(st->seq_errors, 0);
    assert_int_equal(st->seq_next, n);
    pair_close(&pair);
}

static void test_variable_frames(void **unused)
{
    static int32_t payload[900];
    tc_context_params_t params;
    server_arg_t server;
    pthread_t thread;
    int64_t expect = 0;
    tc_peer_stats_t rx;
    tc_jam_t jam;
    pair_t pair;
    uint64_t i, n = 2000;
    size_t len;

    (void)unused;
    default_params(&params, 8);
    params.frames = TC_FRAMES_VARIABLE;
    pair_open(&pair, &params);
    jam = jam_of(&pair.s[1], "server_sum");
    for (i = 0; i < 900; ++i) {
        payload[i] = (int32_t)i - 450;
    }

    server = (server_arg_t){&pair.s[0], n, 0, TC_OK};
    pthread_create(&thread, NULL, server_thread, &server);
    for (i = 0; i < n; ++i) {
        len = ((i * 37) % 900) * sizeof(int32_t); /* 0 .. 3596 bytes */
        for (size_t k = 0; k < len / sizeof(int32_t); ++k) {
            expect += payload[k];
        }
        assert_int_equal(tc_jam_send(pair.s[1].peer, &jam, payload, len, TC_SEND_PARAMS(TC_MODE_LOCAL, 0)), TC_OK);
    }
    assert_int_equal(tc_peer_drain(pair.s[1].peer), TC_OK);
    pthread_join(thread, NULL);
    assert_int_equal(server.status, TC_OK);
    tc_peer_stats(pair.s[0].peer, &rx);
    assert_int_equal(rx.rx_rejected, 0);
    assert_int_equal(state_of(&pair.s[0])->sum, expect);
    pair_close(&pair);
}

static void test_single_put_signalling(void **unused)
{
    tc_context_params_t params;
    server_arg_t server;
    pthread_t thread;
    tc_jam_t jam;
    pair_t pair;
    uint64_t i, n = 20000;

    (void)unused;
    default_params(&params, 8);
    params.signal = TC_SIGNAL_SINGLE_PUT;
    pair_open(&pair, &params);
    set_frames(&pair, sizeof(uint64_t));
    jam = jam_of(&pair.s[1], "seq");

    server = (server_arg_t){&pair.s[0], n, 0, TC_OK};
    pthread_create(&thread, NULL, server_thread, &server);
    for (i = 0; i < n; ++i) {
        assert_int_equal(tc_jam_send(pair.s[1].peer, &jam, &i, sizeof(i), TC_SEND_PARAMS(TC_MODE_LOCAL, 0)), TC_OK);
    }
    assert_int_equal(tc_peer_drain(pair.s[1].peer), TC_OK);
    pthread_join(thread, NULL);
    assert_int_equal(server.status, TC_OK);
    assert_int_equal(state_of(&pair.s[0])->seq_errors, 0);
    assert_int_equal(state_of(&pair.s[0])->seq_next, n);
    pair_close(&pair);
}

/* ------------------------------------------------------ malformed frames */

/* A valid server_sum frame of `fsize` bytes for the sender's next seq. */
static void build_frame(side_t *tx, char *frame, uint32_t fsize, int32_t value)
{
    tc_frame_layout_t layout = {0, 0, 0, sizeof(int32_t)};
    tc_frame_offsets_t off;
    tc_jam_t jam = jam_of(tx, "server_sum");

    memset(frame, 0, fsize);
    assert_int_equal(tc_frame_layout(&layout, fsize, &off), TC_OK);
    off.frame_size = fsize;
    tc_frame_write_hdr(frame, &off, &layout, TC_KIND_LOCAL, 0, jam.pkg_id, jam.element,
                       tx->peer->tx_seq);
    memcpy(frame + off.payload_off, &value, sizeof(value));
    tc_frame_seal(frame);
}

typedef void (*tamper_fn)(char *frame);

static void tamper_magic(char *f)   { ((tc_frame_hdr_t *)f)->mag = 0x11; }
static void tamper_size(char *f)    { ((tc_frame_hdr_t *)f)->frame_size = 1u << 20; }
static void tamper_element(char *f) { ((tc_frame_hdr_t *)f)->element = 999; }
static void tamper_package(char *f) { ((tc_frame_hdr_t *)f)->pkg_id ^= 0x5a5a5a5a; }
static void tamper_trunc(char *f)   { ((tc_frame_hdr_t *)f)->payload_len = 4000; }
static void tamper_kind(char *f)    { ((tc_frame_hdr_t *)f)->kind = 77; }
static void tamper_seq(char *f)
{
    tc_frame_hdr_t *h = (tc_frame_hdr_t *)f;
    h->seq += 5;
    tc_frame_seal(f); /* a consistent frame, just not the one expected now */
}
static void tamper_sig(char *f)
{
    *tc_frame_sig_ptr(f, ((tc_frame_hdr_t *)f)->frame_size) ^= 0xff00;
}

static void test_malformed_frames_rejected(void **unused)
{
    static const struct {
        tamper_fn   fn;
        const char *reason;
    } cases[] = {
        {tamper_magic, "magic"},     {tamper_size, "exceeds the slot"},
        {tamper_element, "unknown element"}, {tamper_package, "unknown element"},
        {tamper_trunc, "truncated"}, {tamper_kind, "unknown kind"},
        {tamper_seq, "sequence"},    {tamper_sig, "signal"},
    };
    const uint32_t fsize = tc_frame_size_for(sizeof(int32_t));
    tc_context_params_t params;
    tc_peer_stats_t rx;
    char frame[256];
    unsigned i, n;
    int64_t sum = 0;
    pair_t pair;

    (void)unused;
    default_params(&params, 4);
    pair_open(&pair, &params);
    set_frames(&pair, sizeof(int32_t));

    /* one thread drives both sides: shared-memory puts land at once */
    for (i = 0; i < TC_ARRAY_SIZE(cases); ++i) {
        build_frame(&pair.s[1], frame, fsize, 1000 + (int32_t)i);
        cases[i].fn(frame);
        assert_int_equal(tc_peer_send_raw_frame(pair.s[1].peer, frame, fsize), TC_OK);
        assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, &n), TC_OK);
        assert_int_equal(n, 1); /* consumed ... */
        tc_peer_stats(pair.s[0].peer, &rx);
        assert_int_equal(rx.rx_rejected, i + 1); /* ... rejected and counted */
        assert_int_equal(rx.rx_frames, i);
        assert_non_null(strstr(tc_peer_last_reject(pair.s[0].peer), cases[i].reason));
        assert_int_equal(state_of(&pair.s[0])->calls, i); /* never run */

        /* the receiver keeps serving: the next valid frame runs */
        build_frame(&pair.s[1], frame, fsize, (int32_t)i + 1);
        sum += (int32_t)i + 1;
        assert_int_equal(tc_peer_send_raw_frame(pair.s[1].peer, frame, fsize), TC_OK);
        assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, &n), TC_OK);
        assert_int_equal(n, 1);
        assert_int_equal(state_of(&pair.s[0])->calls, i + 1);
        assert_int_equal(state_of(&pair.s[0])->sum, sum);
        /* the sender learns about the freed slots */
        assert_int_equal(tc_peer_flush(pair.s[0].peer), TC_OK);
    }
    pair_close(&pair);
}

/* A slot left behind by a consumed frame is never taken for a new one, even
 * if its signal word is written again late (a transport may store a tail
 * twice): the receiver waits for a different signal. */
static void test_stale_signal_not_rerun(void **unused)
{
    const uint32_t fsize = tc_frame_size_for(sizeof(int32_t));
    tc_context_params_t params;
    tc_frame_hdr_t *hdr;
    char frame[256];
    unsigned n, i;
    pair_t pair;
    char *slot;

    (void)unused;
    default_params(&params, 2);
    pair_open(&pair, &params);
    set_frames(&pair, sizeof(int32_t));
    build_frame(&pair.s[1], frame, fsize, 5);
    assert_int_equal(tc_peer_send_raw_frame(pair.s[1].peer, frame, fsize), TC_OK);
    assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, &n), TC_OK);
    assert_int_equal(n, 1);

    /* replay the very same bytes into slot 0 again after one lap */
    build_frame(&pair.s[1], frame, fsize, 6);
    assert_int_equal(tc_peer_send_raw_frame(pair.s[1].peer, frame, fsize), TC_OK);
    assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, &n), TC_OK);
    assert_int_equal(n, 1);
    slot = pair.s[0].peer->rx_ring;
    hdr  = (tc_frame_hdr_t *)slot;
    for (i = 0; i < 1000; ++i) {
        *tc_frame_sig_ptr(slot, fsize) = tc_frame_sig(hdr->seq); /* the late duplicate */
        assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, &n), TC_OK);
        assert_int_equal(n, 0);
    }
    assert_int_equal(state_of(&pair.s[0])->calls, 2);
    assert_int_equal(state_of(&pair.s[0])->sum, 11);
    pair_close(&pair);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_connect_reports_transport),
        cmocka_unit_test(test_server_sum_matches_local),
        cmocka_unit_test(test_indirect_put_matches_local),
        cmocka_unit_test(test_call_returns_result),
        cmocka_unit_test(test_every_jam_returns),
        cmocka_unit_test(test_modes_agree),
        cmocka_unit_test(test_modes_agree_wx),
        cmocka_unit_test(test_injected_tampering_rejected),
        cmocka_unit_test(test_cache_loss),
        cmocka_unit_test(test_ried_over_the_wire),
        cmocka_unit_test(test_wait_poll),
        cmocka_unit_test(test_wait_pause),
        cmocka_unit_test(test_wait_wfe),
        cmocka_unit_test(test_wait_umwait),
        cmocka_unit_test(test_wait_mwaitx),
        cmocka_unit_test(test_wait_event),
        cmocka_unit_test(test_wait_adaptive),
        cmocka_unit_test(test_wait_strategies_ran),
        cmocka_unit_test(test_placement_default),
        cmocka_unit_test(test_placement_llc),
        cmocka_unit_test(test_placement_dram),
        cmocka_unit_test(test_placements_ran),
        cmocka_unit_test(test_million_in_order_small_ring),
        cmocka_unit_test(test_full_ring_blocks_sender),
        cmocka_unit_test(test_variable_frames),
        cmocka_unit_test(test_single_put_signalling),
        cmocka_unit_test(test_malformed_frames_rejected),
        cmocka_unit_test(test_stale_signal_not_rerun),
    };
    return cmocka_run_group_tests_name("peer", tests, NULL, NULL);
}
