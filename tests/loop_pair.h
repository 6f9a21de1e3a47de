/*
 * A loopback pair of peers for the tests: two UCX contexts in one process,
 * connected through an in-process bootstrap, each with the bench package,
 * and a receiver thread that serves until enough jams have arrived.
 */
#ifndef TC_TEST_LOOP_PAIR_H
#define TC_TEST_LOOP_PAIR_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "twochains.h"
#include "bench_state.h"
#include "harness/pkg_path.h"

typedef struct side {
    tc_context_params_t params;
    tc_boot_t          *boot;
    tc_context_t       *ctx;
    tc_peer_t          *peer;
    tc_pkg_t           *pkg;
    const tc_peer_params_t *connect; /* NULL: the defaults */
    tc_status_t         status;
} side_t;

typedef struct pair {
    side_t s[2]; /* s[0] receives, s[1] sends, unless a test says otherwise */
} pair_t;

static void *side_open(void *arg)
{
    side_t *side = arg;
    char path[4096];

    side->status = tc_pkg_default_path(path, sizeof(path));
    if (side->status == TC_OK) {
        side->status = tc_pkg_open(path, &side->pkg);
    }
    if (side->status == TC_OK) {
        side->status = tc_context_create(&side->params, &side->ctx);
    }
    if (side->status == TC_OK) {
        side->status = tc_context_add_pkg(side->ctx, side->pkg);
    }
    if (side->status == TC_OK) {
        side->status = tc_peer_connect(side->ctx, side->boot, side->connect, &side->peer);
    }
    return NULL;
}

/* Open both sides as far as they get, side i with context params params[i]
 * and peer params connect[i] (may be NULL); each side's status says how far. */
static __attribute__((unused)) void pair_start_sides(pair_t *pair, const tc_context_params_t *params0,
                                                     const tc_context_params_t *params1,
                                                     const tc_peer_params_t *connect0,
                                                     const tc_peer_params_t *connect1)
{
    pthread_t thread;
    int i;

    memset(pair, 0, sizeof(*pair));
    pair->s[0].connect = connect0;
    pair->s[1].connect = connect1;
    assert_int_equal(tc_boot_loopback_pair(5000, &pair->s[0].boot, &pair->s[1].boot), TC_OK);
    pair->s[0].params = *params0;
    pair->s[1].params = *params1;
    for (i = 0; i < 2; ++i) {
        pair->s[i].params.rank = (uint32_t)i;
    }
    assert_int_equal(pthread_create(&thread, NULL, side_open, &pair->s[0]), 0);
    side_open(&pair->s[1]);
    pthread_join(thread, NULL);
}

/* Open both sides with the same context params; connect[i] as above. */
static void pair_start(pair_t *pair, const tc_context_params_t *params,
                       const tc_peer_params_t *connect0, const tc_peer_params_t *connect1)
{
    pair_start_sides(pair, params, params, connect0, connect1);
}

static void pair_open_with(pair_t *pair, const tc_context_params_t *params,
                           const tc_peer_params_t *connect0, const tc_peer_params_t *connect1)
{
    pair_start(pair, params, connect0, connect1);
    assert_int_equal(pair->s[0].status, TC_OK);
    assert_int_equal(pair->s[1].status, TC_OK);
}

static __attribute__((unused)) void pair_open(pair_t *pair, const tc_context_params_t *params)
{
    pair_open_with(pair, params, NULL, NULL);
}

static void *side_close(void *arg)
{
    side_t *side = arg;

    tc_peer_close(side->peer);
    tc_context_destroy(side->ctx); /* as a process's exit: its sockets close */
    return NULL;
}

/* Both sides close at once, as two processes do: where the transport needs
 * the peer's progress for a put or a flush to finish (tcp), one side
 * closing alone waits out its timeout for the other, which then answers
 * puts of a peer already gone (UCX 1.13 asserted in ucp_worker_destroy
 * with a wireup request still pending). */
static __attribute__((unused)) void pair_close(pair_t *pair)
{
    pthread_t thread;
    int i;

    assert_int_equal(pthread_create(&thread, NULL, side_close, &pair->s[1]), 0);
    side_close(&pair->s[0]);
    pthread_join(thread, NULL);
    for (i = 0; i < 2; ++i) {
        tc_pkg_close(pair->s[i].pkg);
        tc_boot_close(pair->s[i].boot);
    }
}

/* Fill dst with frame i's n integers, each depending on i and its place
 * (both signs, all bits), and return their sum: a frame torn, stale or run
 * twice sums to something else. */
static __attribute__((unused)) int64_t pattern_fill(int32_t *dst, size_t n, uint64_t i)
{
    int64_t sum = 0;

    for (size_t k = 0; k < n; ++k) {
        dst[k] = (int32_t)((uint32_t)(i * 2654435761u) ^ (uint32_t)(k * 40503u));
        sum += dst[k];
    }
    return sum;
}

/* TC_TEST_QUICK: the volume tests run their short form (sanitizer runs). */
static __attribute__((unused)) int test_quick(void)
{
    return getenv("TC_TEST_QUICK") != NULL;
}

/* TC_TEST_FILTER=name (cmocka's wildcards) runs only the cases it names. */
static __attribute__((unused)) void test_filter_from_env(void)
{
    if (getenv("TC_TEST_FILTER") != NULL) {
        cmocka_set_test_filter(getenv("TC_TEST_FILTER"));
    }
}

/* The small ring most peer tests open: slots of 4 KiB, 5 s timeout. */
static __attribute__((unused)) void pair_params(tc_context_params_t *params, uint32_t slots)
{
    tc_context_params_init(params);
    params->slots      = slots;
    params->slot_size  = 4096;
    params->frames     = TC_FRAMES_FIXED; /* what the tests exercise unless they say */
    params->timeout_ms = 5000;
}

/* Fixed-frame mode: both sides' frames hold a payload of `payload` bytes.
 * Each side announces its size in a config frame; both are read here, so
 * what follows starts from the same state every run. */
static __attribute__((unused)) void pair_set_frames(pair_t *pair, uint32_t payload)
{
    assert_int_equal(tc_peer_set_frame_size(pair->s[0].peer, tc_frame_size_for(payload)), TC_OK);
    assert_int_equal(tc_peer_set_frame_size(pair->s[1].peer, tc_frame_size_for(payload)), TC_OK);
    assert_int_equal(tc_peer_progress(pair->s[0].peer, 0, NULL), TC_OK);
    assert_int_equal(tc_peer_progress(pair->s[1].peer, 0, NULL), TC_OK);
}

/* A pair of rings of slots 4 KiB slots whose fixed frames fit payload bytes. */
static __attribute__((unused)) void pair_open_fixed(pair_t *pair, uint32_t slots, size_t payload)
{
    tc_context_params_t params;

    pair_params(&params, slots);
    pair_open(pair, &params);
    pair_set_frames(pair, (uint32_t)payload);
}

static __attribute__((unused)) tc_bench_state_t *state_of(side_t *side)
{
    return tc_context_pkg_state(side->ctx, side->pkg);
}

static __attribute__((unused)) tc_jam_t jam_of(side_t *side, const char *name)
{
    tc_jam_t jam;
    assert_int_equal(tc_pkg_jam(side->pkg, name, &jam), TC_OK);
    return jam;
}

/* Fixed frames of their own size on each side: the receiver's (s[0]) and
 * the sender's (s[1]), each read by the other side before this returns. */
static __attribute__((unused)) void pair_set_sizes(pair_t *pair, uint32_t receiver,
                                                   uint32_t sender)
{
    assert_int_equal(tc_peer_set_frame_size(pair->s[0].peer, receiver), TC_OK);
    assert_int_equal(tc_peer_set_frame_size(pair->s[1].peer, sender), TC_OK);
    assert_int_equal(tc_peer_progress(pair->s[0].peer, 0, NULL), TC_OK);
    assert_int_equal(tc_peer_progress(pair->s[1].peer, 0, NULL), TC_OK);
}

/* A genuine call from s[1] runs on s[0], which a serve thread serves: the
 * receiver kept serving (after something it refused). */
static __attribute__((unused)) void still_serving(pair_t *pair)
{
    tc_jam_t sum = jam_of(&pair->s[1], "server_sum");
    int64_t before = state_of(&pair->s[0])->sum, ret = 0;
    int32_t v = 11;

    assert_int_equal(tc_jam_call(pair->s[1].peer, &sum, &v, sizeof(v), NULL, &ret), TC_OK);
    assert_int_equal(ret, before + v);
}

/* A receiver thread: serve until `frames` frames (run or rejected) arrived. */
typedef struct server_arg {
    side_t  *side;
    uint64_t frames;
    unsigned delay_ms;
    tc_status_t status;
} server_arg_t;

static __attribute__((unused)) void *server_thread(void *arg)
{
    server_arg_t *a = arg;
    tc_peer_stats_t st;

    if (a->delay_ms != 0) {
        usleep(a->delay_ms * 1000u);
    }
    a->status = TC_OK;
    for (;;) {
        tc_peer_stats(a->side->peer, &st);
        if (st.rx_frames + st.rx_rejected >= a->frames) {
            break;
        }
        a->status = tc_peer_wait(a->side->peer, NULL);
        if (a->status != TC_OK) {
            return NULL;
        }
    }
    a->status = tc_peer_flush(a->side->peer);
    return NULL;
}

/* One tc_jam_call from s[1] while a server thread serves s[0] until it has
 * seen `frames` more frames (run or rejected); both must end TC_OK.
 * Returns what the jam returned. */
static __attribute__((unused)) int64_t call_served(pair_t *pair, uint64_t frames,
                                                   const tc_jam_t *jam, const void *src,
                                                   size_t len, tc_mode_t mode)
{
    server_arg_t server = {&pair->s[0], frames, 0, TC_OK};
    tc_peer_stats_t st;
    pthread_t thread;
    int64_t ret = 0;

    /* frames more than the receiver has seen so far */
    tc_peer_stats(pair->s[0].peer, &st);
    server.frames += st.rx_frames + st.rx_rejected;
    assert_int_equal(pthread_create(&thread, NULL, server_thread, &server), 0);
    assert_int_equal(tc_jam_call(pair->s[1].peer, jam, src, len, TC_SEND_PARAMS(mode, 0), &ret),
                     TC_OK);
    pthread_join(thread, NULL);
    assert_int_equal(server.status, TC_OK);
    return ret;
}

/* The payload of the i-th jam send_and_drain sends: *len_p bytes at the
 * pointer returned (kept valid until the next call). */
typedef const void *(*payload_fn)(uint64_t i, size_t *len_p, void *arg);

/* Send n jams from s[1] to s[0] while a server thread serves s[0] (until
 * it has seen these n frames besides those it saw before), each send TC_OK;
 * then drain the sender and join the server, which must end TC_OK. The
 * payload of jam i comes from fill, or with fill NULL is i itself (8 bytes:
 * what the seq jam expects). */
static __attribute__((unused)) void send_and_drain(pair_t *pair, const tc_jam_t *jam, uint64_t n,
                                                   payload_fn fill, void *arg)
{
    server_arg_t server;
    tc_peer_stats_t rx;
    pthread_t thread;
    const void *payload;
    size_t len;
    uint64_t i;

    tc_peer_stats(pair->s[0].peer, &rx);
    server = (server_arg_t){&pair->s[0], rx.rx_frames + rx.rx_rejected + n, 0, TC_OK};
    assert_int_equal(pthread_create(&thread, NULL, server_thread, &server), 0);
    for (i = 0; i < n; ++i) {
        if (fill != NULL) {
            payload = fill(i, &len, arg);
        } else {
            payload = &i;
            len     = sizeof(i);
        }
        assert_int_equal(tc_jam_send(pair->s[1].peer, jam, payload, len, TC_SEND_PARAMS(TC_MODE_LOCAL, 0)), TC_OK);
    }
    assert_int_equal(tc_peer_drain(pair->s[1].peer), TC_OK);
    pthread_join(thread, NULL);
    assert_int_equal(server.status, TC_OK);
}

/* A receiver thread that progresses until told to stop; between steps it
 * drops its code cache when asked (forget), so that the next cached jam
 * needs a fresh sync. It yields when idle: tests run three busy threads on
 * two cores. */
typedef struct serve {
    side_t     *side;
    atomic_int  stop;
    atomic_int  forget;
    tc_status_t status;
} serve_t;

static __attribute__((unused)) void *serve_thread(void *arg)
{
    serve_t *s = arg;
    unsigned n;

    s->status = TC_OK;
    while (!atomic_load(&s->stop) && (s->status == TC_OK)) {
        if (atomic_load(&s->forget)) {
            tc_peer_forget_code(s->side->peer);
            atomic_store(&s->forget, 0);
        }
        s->status = tc_peer_progress(s->side->peer, 0, &n);
        if (n == 0) {
            sched_yield();
        }
    }
    return NULL;
}

/* Start a serve_thread for side; serve_stop stops and joins it (its
 * status is then in s->status). */
static __attribute__((unused)) void serve_start(serve_t *s, side_t *side, pthread_t *thread)
{
    memset(s, 0, sizeof(*s));
    s->side = side;
    assert_int_equal(pthread_create(thread, NULL, serve_thread, s), 0);
}

static __attribute__((unused)) void serve_stop(serve_t *s, pthread_t thread)
{
    atomic_store(&s->stop, 1);
    pthread_join(thread, NULL);
}

#endif
