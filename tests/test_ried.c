/*
 * Rieds over the wire, both sides, on a loopback pair: a ried shipped over
 * the wire is loaded from a memfd on the peer, initialised, and answers with
 * its exports; slot names then resolve against it. A library that cannot
 * load is reported with the peer's dlerror and the peer keeps serving; an
 * unloaded ried is gone. The context's ried table is shared by its peers:
 * one peer shipping the same ried again and again fills only its own share
 * (refused with the reason past it), and another peer still ships its own.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "twochains.h"
#include "runtime.h"
#include "bench_state.h"

#include "loop_pair.h"
#include "log_keep.h"
#include "raw_frame.h"

static void test_ried_over_the_wire(void **unused)
{
    char path[4096], exports[1024], bogus[] = "/tmp/tc-test-ried-XXXXXX";
    tc_context_params_t params;
    serve_t server;
    unsigned ried_index;
    pthread_t thread;
    uint32_t id = 0, id2 = 0;
    int64_t ret;
    int32_t v = 7;
    tc_jam_t jam;
    pair_t pair;
    int fd;

    (void)unused;
    pair_params(&params, 4);
    params.frames    = TC_FRAMES_VARIABLE;
    params.slot_size = 4096; /* the library goes in many chunks */
    pair_open(&pair, &params);
    assert_int_equal(tc_pkg_default_path(path, sizeof(path)), TC_OK);
    strcpy(strrchr(path, '/') + 1, "libried_bench.so");

    serve_start(&server, &pair.s[0], &thread);

    assert_int_equal(tc_ried_ship(pair.s[1].peer, path, sizeof(exports), exports, &id), TC_OK);
    assert_true(id != 0);
    assert_non_null(strstr(exports, "tc_ried_init_bench"));

    /* not a ried of an accepted package: the allow-list refuses it */
    fd = mkstemp(bogus);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "not an ELF file", 15), 15);
    close(fd);
    assert_int_equal(tc_ried_ship(pair.s[1].peer, bogus, 0, NULL, &id2), TC_ERR_IO);
    assert_non_null(strstr(pair.s[1].peer->ried->tx.text, "allow-list"));

    /* a receiver that accepts any code tries it: dlopen says why */
    serve_stop(&server, thread);
    pair.s[0].ctx->params.exec = TC_EXEC_ANY;
    serve_start(&server, &pair.s[0], &thread);
    assert_int_equal(tc_ried_ship(pair.s[1].peer, bogus, 0, NULL, &id2), TC_ERR_IO);
    assert_non_null(strstr(pair.s[1].peer->ried->tx.text, "dlopen"));
    unlink(bogus);
    /* ... and keeps serving */
    jam = jam_of(&pair.s[1], "server_sum");
    assert_int_equal(tc_jam_call(pair.s[1].peer, &jam, &v, sizeof(v), NULL, &ret), TC_OK);
    assert_int_equal(ret, 7);

    serve_stop(&server, thread);
    assert_int_equal(server.status, TC_OK);
    /* the receiver resolves names against it (what namespace sync uses) */
    assert_non_null(tc_ried_lookup(pair.s[0].ctx, "tc_ried_init_bench", &ried_index));

    serve_start(&server, &pair.s[0], &thread);
    assert_int_equal(tc_ried_unload(pair.s[1].peer, id), TC_OK);
    assert_int_equal(tc_ried_unload(pair.s[1].peer, id), TC_ERR_NOT_FOUND);
    serve_stop(&server, thread);
    assert_null(tc_ried_lookup(pair.s[0].ctx, "tc_ried_init_bench", &ried_index));
    pair_close(&pair);
}

/* One receiving context and SHARED_MAX connections to it, each over its
 * own loopback bootstrap: the first `procs_first` of them from one sending
 * context (one process's worker, as limits per process see it), each other
 * one from a context of its own. */
#define SHARED_MAX 6

typedef struct shared_rx {
    tc_context_t *ctx;
    tc_pkg_t     *pkg;
    int           n;
    side_t        rx[SHARED_MAX]; /* the receiver's end of each connection */
    side_t        tx[SHARED_MAX]; /* each sender: its context and peer */
    int           own_ctx[SHARED_MAX]; /* tx[i].ctx is its own (destroyed with it) */
    atomic_int    stop;
    tc_status_t   status;
} shared_rx_t;

static void *shared_connect(void *arg)
{
    side_t *side = arg;

    side->status = tc_peer_connect(side->ctx, side->boot, NULL, &side->peer);
    return NULL;
}

/* The receiver serves all of its peers from one thread. */
static void *shared_serve(void *arg)
{
    shared_rx_t *s = arg;
    unsigned n, total;
    int i;

    s->status = TC_OK;
    while (!atomic_load(&s->stop) && (s->status == TC_OK)) {
        total = 0;
        for (i = 0; (i < s->n) && (s->status == TC_OK); ++i) {
            if (s->rx[i].peer != NULL) {
                s->status = tc_peer_progress(s->rx[i].peer, 0, &n);
                total += n;
            }
        }
        if (total == 0) {
            sched_yield();
        }
    }
    return NULL;
}

/* n connections; the first procs_first from one sending context. */
static void shared_open_n(shared_rx_t *s, int n, int procs_first)
{
    tc_context_params_t params;
    char path[4096];
    pthread_t thread;
    int i;

    memset(s, 0, sizeof(*s));
    s->n = n;
    pair_params(&params, 4);
    params.frames    = TC_FRAMES_VARIABLE;
    params.slot_size = 4096;
    assert_int_equal(tc_pkg_default_path(path, sizeof(path)), TC_OK);
    assert_int_equal(tc_pkg_open(path, &s->pkg), TC_OK);
    assert_int_equal(tc_context_create(&params, &s->ctx), TC_OK);
    assert_int_equal(tc_context_add_pkg(s->ctx, s->pkg), TC_OK);
    for (i = 0; i < n; ++i) {
        s->own_ctx[i] = (i == 0) || (i >= procs_first);
        if (s->own_ctx[i]) {
            params.rank = (uint32_t)i + 1;
            assert_int_equal(tc_context_create(&params, &s->tx[i].ctx), TC_OK);
        } else {
            s->tx[i].ctx = s->tx[0].ctx;
        }
        assert_int_equal(tc_boot_loopback_pair(5000, &s->rx[i].boot, &s->tx[i].boot), TC_OK);
        s->rx[i].ctx = s->ctx;
        assert_int_equal(pthread_create(&thread, NULL, shared_connect, &s->rx[i]), 0);
        shared_connect(&s->tx[i]);
        pthread_join(thread, NULL);
        assert_int_equal(s->rx[i].status, TC_OK);
        assert_int_equal(s->tx[i].status, TC_OK);
    }
}

static void shared_open(shared_rx_t *s)
{
    shared_open_n(s, 2, 1);
}

static void shared_close(shared_rx_t *s)
{
    int i;

    for (i = 0; i < s->n; ++i) {
        tc_peer_close(s->tx[i].peer);
        tc_peer_close(s->rx[i].peer);
    }
    for (i = 0; i < s->n; ++i) {
        if (s->own_ctx[i]) {
            tc_context_destroy(s->tx[i].ctx);
        }
        tc_boot_close(s->tx[i].boot);
        tc_boot_close(s->rx[i].boot);
    }
    tc_context_destroy(s->ctx);
    tc_pkg_close(s->pkg);
}

/* How many of the context's rieds the receiver's end of connection i owns. */
static unsigned rieds_owned(const shared_rx_t *s, int i)
{
    unsigned k, n = 0;

    for (k = 0; k < TC_MAX_RIEDS; ++k) {
        n += (s->ctx->rieds[k].handle != NULL) &&
             (s->ctx->rieds[k].owner == s->rx[i].peer->wireup->serial);
    }
    return n;
}

/* Peer 0 ships the same allow-listed ried again and again, more times than
 * the table has entries: it gets its share, then a refusal that names the
 * per-process limit; peer 1 still ships its own, and uses it (its exports come
 * back, the receiver resolves names into it, it unloads); peer 0's copies
 * go with peer 0. */
static void test_ried_per_peer_limit(void **unused)
{
    char path[4096], exports[1024];
    uint32_t id, id_b = 0;
    unsigned k, loaded = 0, refused = 0, idx;
    tc_status_t status, first_refusal = TC_OK;
    pthread_t thread;
    shared_rx_t s;

    (void)unused;
    shared_open(&s);
    assert_int_equal(tc_pkg_default_path(path, sizeof(path)), TC_OK);
    strcpy(strrchr(path, '/') + 1, "libried_bench.so");
    assert_int_equal(pthread_create(&thread, NULL, shared_serve, &s), 0);

    for (k = 0; k < TC_MAX_RIEDS + 4; ++k) {
        status = tc_ried_ship(s.tx[0].peer, path, 0, NULL, &id);
        if (status == TC_OK) {
            loaded++;
            continue;
        }
        if (refused++ == 0) {
            first_refusal = status;
            print_message("flooder: refused after %u loads: %s\n", loaded,
                          s.tx[0].peer->ried->tx.text);
        }
    }
    print_message("flooder: %u of %u ships loaded (table of %u)\n", loaded,
                  TC_MAX_RIEDS + 4, TC_MAX_RIEDS);
    assert_true(loaded < TC_MAX_RIEDS);
    assert_int_equal(first_refusal, TC_ERR_NO_RESOURCE);
    assert_non_null(strstr(s.tx[0].peer->ried->tx.text, "per-process limit"));

    /* the other peer ships its own and uses it */
    status = tc_ried_ship(s.tx[1].peer, path, sizeof(exports), exports, &id_b);
    print_message("other peer: %s\n", tc_status_str(status));
    assert_int_equal(status, TC_OK);
    assert_non_null(strstr(exports, "tc_ried_init_bench"));
    atomic_store(&s.stop, 1);
    pthread_join(thread, NULL);
    assert_int_equal(s.status, TC_OK);
    assert_int_equal(rieds_owned(&s, 1), 1);
    assert_non_null(tc_ried_lookup(s.ctx, "tc_ried_init_bench", &idx));

    atomic_store(&s.stop, 0);
    assert_int_equal(pthread_create(&thread, NULL, shared_serve, &s), 0);
    assert_int_equal(tc_ried_unload(s.tx[1].peer, id_b), TC_OK);
    atomic_store(&s.stop, 1);
    pthread_join(thread, NULL);
    assert_int_equal(s.status, TC_OK);
    assert_int_equal(rieds_owned(&s, 1), 0);
    assert_int_equal(rieds_owned(&s, 0), loaded);
    tc_peer_close(s.rx[0].peer); /* the flooder's copies go with it */
    s.rx[0].peer = NULL;
    for (k = 0; k < TC_MAX_RIEDS; ++k) {
        assert_null(s.ctx->rieds[k].handle);
    }
    shared_close(&s);
}

/* The bench package's ried. */
static void ried_path(char *path, size_t len)
{
    assert_int_equal(tc_pkg_default_path(path, len), TC_OK);
    strcpy(strrchr(path, '/') + 1, "libried_bench.so");
}

/* How many rieds the receiver holds from the connections [first, last). */
static unsigned rieds_owned_by(const shared_rx_t *s, int first, int last)
{
    unsigned n = 0;
    int i;

    for (i = first; i < last; ++i) {
        n += (s->rx[i].peer != NULL) ? rieds_owned(s, i) : 0;
    }
    return n;
}

/* One process with four connections (one context: one UCX worker) ships
 * the same allow-listed ried 20 times over them in turn: its connections
 * together get the process's share (4), then refusals naming the
 * per-process limit; another process still ships its own. On the tree
 * whose limit was per connection the four took all 16 entries and the
 * other process was refused. */
static void test_ried_per_process_limit(void **unused)
{
    char path[4096], exports[1024];
    unsigned k, loaded = 0, refused = 0;
    const int conns = 4;
    pthread_t thread;
    shared_rx_t s;
    uint32_t id;

    (void)unused;
    shared_open_n(&s, conns + 1, conns);
    ried_path(path, sizeof(path));
    assert_int_equal(s.rx[0].peer->wireup->proc, s.rx[conns - 1].peer->wireup->proc);
    assert_true(s.rx[0].peer->wireup->proc != s.rx[conns].peer->wireup->proc);
    assert_int_equal(pthread_create(&thread, NULL, shared_serve, &s), 0);
    for (k = 0; k < TC_MAX_RIEDS + 4; ++k) {
        tc_peer_t *via = s.tx[k % conns].peer;

        if (tc_ried_ship(via, path, 0, NULL, &id) == TC_OK) {
            loaded++;
            continue;
        }
        if (refused++ == 0) {
            print_message("one process, %d connections: refused after %u loads: %s\n", conns,
                          loaded, via->ried->tx.text);
        }
        assert_non_null(strstr(via->ried->tx.text, "per-process limit"));
    }
    print_message("one process, %d connections: %u of %u ships loaded (table of %u)\n", conns,
                  loaded, TC_MAX_RIEDS + 4, TC_MAX_RIEDS);
    assert_int_equal(loaded, TC_MAX_RIEDS / 4);
    assert_int_equal(tc_ried_ship(s.tx[conns].peer, path, sizeof(exports), exports, &id), TC_OK);
    assert_non_null(strstr(exports, "tc_ried_init_bench"));
    atomic_store(&s.stop, 1);
    pthread_join(thread, NULL);
    assert_int_equal(s.status, TC_OK);
    assert_int_equal(rieds_owned_by(&s, 0, conns), TC_MAX_RIEDS / 4);
    assert_int_equal(rieds_owned(&s, conns), 1);
    shared_close(&s);
}

/* The first chunk of a ried of total bytes, as a peer sends it, put
 * straight into the ring (the rest never follows). */
static void ried_first_chunk(tc_peer_t *peer, uint32_t id, uint32_t total)
{
    tc_ried_args_t args;
    uint8_t chunk[256];

    memset(&args, 0, sizeof(args));
    memset(chunk, 0x7f, sizeof(chunk));
    args.id    = id;
    args.op    = TC_RIED_OP_CHUNK;
    args.total = total;
    snprintf(args.name, sizeof(args.name), "ried_bench");
    assert_int_equal(tc_peer_send_kind(peer, TC_KIND_RIED, 0, 0, &args, sizeof(args), chunk,
                                       sizeof(chunk), 0), TC_OK);
}

/* Bytes the receiver holds for rieds not yet whole over connections
 * [first, last). */
static uint64_t ried_bytes_under_way(const shared_rx_t *s, int first, int last)
{
    uint64_t bytes = 0;
    int i;

    for (i = first; i < last; ++i) {
        bytes += (s->rx[i].peer->ried->rx.buf != NULL) ? s->rx[i].peer->ried->rx.total : 0;
    }
    return bytes;
}

/* Run the frame the receiver's end of connection i has (one thread drives
 * both ends: which frame ran when is the test's, not a scheduler's). */
static void shared_take(shared_rx_t *s, int i)
{
    unsigned n = 0;
    int k;

    for (k = 0; (k < 1000000) && (n == 0); ++k) {
        assert_int_equal(tc_peer_progress(s->rx[i].peer, 0, &n), TC_OK);
    }
    assert_true(n > 0);
}

/* One process, five connections, each begins a 64 MiB ried and never ends
 * it: the receiver holds one of them (the process's 64 MiB) and refuses
 * the others before allocating, with the reason; a second process still
 * begins one (the receiver's 128 MiB), and a third is refused by the
 * receiver's limit. On the tree before, the five held 320 MiB. */
static void test_ried_bytes_under_way(void **unused)
{
    const uint32_t total = 64u << 20;
    const int conns = 5;
    uint64_t held;
    shared_rx_t s;
    int i, refused = 0;

    (void)unused;
    shared_open_n(&s, conns + 1, conns);
    for (i = 0; i < conns; ++i) {
        ried_first_chunk(s.tx[i].peer, 1, total);
        shared_take(&s, i);
        refused += (s.rx[i].peer->ried->rx.buf == NULL);
        if (s.rx[i].peer->ried->rx.buf == NULL) {
            assert_non_null(strstr(s.rx[i].peer->ried->rx.reply_text, "per-process limit"));
        }
    }
    held = ried_bytes_under_way(&s, 0, conns);
    print_message("one process, %d connections, a %u-byte ried begun on each: %llu bytes held "
                  "here, %d refused (%s)\n", conns, total, (unsigned long long)held, refused,
                  s.rx[conns - 1].peer->ried->rx.reply_text);
    assert_int_equal(held, total);
    assert_int_equal(refused, conns - 1);

    /* another process: the receiver's limit leaves room for it */
    ried_first_chunk(s.tx[conns].peer, 1, total);
    shared_take(&s, conns);
    assert_non_null(s.rx[conns].peer->ried->rx.buf);
    assert_int_equal(ried_bytes_under_way(&s, 0, conns + 1), 2ull * total);

    /* ... which is then full: the first process, a smaller ried, refused */
    ried_first_chunk(s.tx[1].peer, 2, 4096);
    shared_take(&s, 1);
    assert_null(s.rx[1].peer->ried->rx.buf);
    assert_non_null(strstr(s.rx[1].peer->ried->rx.reply_text, "limit"));
    shared_close(&s);
}

/* The smallest frame a ried frame or its answer goes in: ARGS, no payload. */
static uint32_t ried_frame_min(void)
{
    tc_frame_layout_t layout = {sizeof(tc_ried_args_t), 0, 0, 0};
    tc_frame_offsets_t off;

    assert_int_equal(tc_frame_layout(&layout, UINT32_MAX, &off), TC_OK);
    return off.frame_size;
}

/* A pair with fixed frames of their own size on each side (the receiver's,
 * s[0], and the sender's, s[1]), read by both; a side left waiting would
 * time out, which fails the test. */
static void open_sized(pair_t *pair, uint32_t receiver, uint32_t sender)
{
    tc_context_params_t params;

    pair_params(&params, 4);
    params.timeout_ms = 60000;
    pair_open(pair, &params);
    pair_set_sizes(pair, receiver, sender);
}

/* A ried answer carries ARGS, so it needs frames of ried_frame_min() bytes:
 * a receiver whose frames are smaller refuses every ried frame with a NACK
 * (OUT_OF_RANGE) and keeps serving; the sender's tc_ried_ship and
 * tc_ried_unload return that at once, and its log names the frame size the
 * answer needs. In frames that hold it the answer is cut to fit: the ried
 * ships, its exports listed, and an unload of an unknown id is NOT_FOUND.
 * Every receiver frame size from 64 B to the first that fits. */
static void test_ried_answer_frame_sizes(void **unused)
{
    const uint32_t need = ried_frame_min();
    char path[4096], exports[1024], need_text[64];
    tc_peer_stats_t rx, tx;
    pthread_t thread;
    uint32_t size, id;
    serve_t server;
    pair_t pair;

    (void)unused;
    ried_path(path, sizeof(path));
    snprintf(need_text, sizeof(need_text), "needs %u-byte frames", need);
    for (size = TC_FRAME_MIN_SIZE; size <= need; size += TC_FRAME_ALIGN) {
        open_sized(&pair, size, 1024);
        log_keep_start();
        serve_start(&server, &pair.s[0], &thread);
        id = 0;
        if (size < need) {
            assert_int_equal(tc_ried_ship(pair.s[1].peer, path, sizeof(exports), exports, &id),
                             TC_ERR_OUT_OF_RANGE);
            assert_true(log_kept_has_at(TC_LOG_ERROR, need_text)); /* the sender's line */
            still_serving(&pair);
            assert_int_equal(tc_ried_unload(pair.s[1].peer, 999), TC_ERR_OUT_OF_RANGE);
        } else {
            assert_int_equal(tc_ried_ship(pair.s[1].peer, path, sizeof(exports), exports, &id),
                             TC_OK);
            assert_non_null(strstr(exports, "tc_ried_init_bench"));
            assert_int_equal(tc_ried_unload(pair.s[1].peer, 999), TC_ERR_NOT_FOUND);
            assert_int_equal(tc_ried_unload(pair.s[1].peer, id), TC_OK);
        }
        still_serving(&pair);
        serve_stop(&server, thread);
        log_keep_stop();
        assert_int_equal(server.status, TC_OK);
        assert_int_equal(pair.s[1].peer->failed, TC_OK);
        tc_peer_stats(pair.s[0].peer, &rx);
        tc_peer_stats(pair.s[1].peer, &tx);
        assert_true((size < need) ? (rx.rx_rejected >= 2) : (rx.rx_rejected == 0));
        assert_int_equal(tx.rx_rejected, 0);
        pair_close(&pair);
    }
}

/* The sender's own frames too small for any ried frame: tc_ried_ship and
 * tc_ried_unload fail at once, each with a line naming the frame size a
 * ried frame needs; nothing goes out. */
static void test_ried_ship_small_frames(void **unused)
{
    const uint32_t need = ried_frame_min();
    char path[4096], need_text[64];
    tc_peer_stats_t rx;
    pthread_t thread;
    uint32_t size, id = 0;
    serve_t server;
    pair_t pair;

    (void)unused;
    ried_path(path, sizeof(path));
    snprintf(need_text, sizeof(need_text), "needs %u-byte frames", need);
    for (size = TC_FRAME_MIN_SIZE; size < need; size += TC_FRAME_ALIGN) {
        open_sized(&pair, need, size);
        serve_start(&server, &pair.s[0], &thread);
        log_keep_start();
        assert_int_equal(tc_ried_ship(pair.s[1].peer, path, 0, NULL, &id), TC_ERR_OUT_OF_RANGE);
        assert_true(log_kept_has_at(TC_LOG_ERROR, need_text));
        log_keep_start();
        assert_int_equal(tc_ried_unload(pair.s[1].peer, 1), TC_ERR_OUT_OF_RANGE);
        assert_true(log_kept_has_at(TC_LOG_ERROR, need_text));
        log_keep_stop();
        still_serving(&pair);
        serve_stop(&server, thread);
        assert_int_equal(server.status, TC_OK);
        tc_peer_stats(pair.s[0].peer, &rx);
        assert_int_equal(rx.rx_rejected, 0);
        pair_close(&pair);
    }
}

/* A ried frame (request or answer) whose op no one defines is refused with
 * the reason and NACKed; before, op 7 was taken as a chunk (a library of
 * its total size begun). */
static void test_ried_unknown_op(void **unused)
{
    static const uint8_t kinds[] = {TC_KIND_RIED, TC_KIND_RIED_REP};
    tc_frame_layout_t layout = {sizeof(tc_ried_args_t), 0, 0, 16};
    tc_context_params_t params;
    tc_frame_offsets_t off;
    tc_ried_args_t args;
    tc_peer_stats_t st;
    tc_nack_t nack;
    char frame[256];
    unsigned k;
    pair_t pair;

    (void)unused;
    pair_params(&params, 4);
    pair_open(&pair, &params);
    pair_set_frames(&pair, 256 - TC_FRAME_HDR_SIZE - TC_FRAME_SIG_SIZE);
    for (k = 0; k < 2; ++k) {
        memset(frame, 0, sizeof(frame));
        assert_int_equal(tc_frame_layout(&layout, sizeof(frame), &off), TC_OK);
        off.frame_size = sizeof(frame);
        tc_frame_write_hdr(frame, &off, &layout, kinds[k], 0, 0, 0, pair.s[1].peer->tx_seq);
        memset(&args, 0, sizeof(args));
        args.id    = 1;
        args.op    = 7;
        args.total = 100;
        strcpy(args.name, "ried_bench");
        memcpy(frame + off.args_off, &args, sizeof(args));
        tc_frame_seal(frame);
        assert_int_equal(tc_peer_send_raw_frame(pair.s[1].peer, frame, sizeof(frame)), TC_OK);
        assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, NULL), TC_OK);
        tc_peer_stats(pair.s[0].peer, &st);
        print_message("%s frame with op 7: %llu rejected, a library of %u bytes begun\n",
                      k ? "ried answer" : "ried", (unsigned long long)st.rx_rejected,
                      pair.s[0].peer->ried->rx.total);
        assert_int_equal(st.rx_rejected, k + 1);
        assert_non_null(strstr(tc_peer_last_reject(pair.s[0].peer), "unknown op 7"));
        assert_null(pair.s[0].peer->ried->rx.buf);
        assert_int_equal(pair.s[0].peer->owed & TC_OWED_RIED, 0);
        while ((tc_peer_last_nack(pair.s[1].peer, &nack) != TC_OK) ||
               (nack.seq != pair.s[1].peer->tx_seq - 1)) {
            assert_int_equal(tc_peer_progress(pair.s[1].peer, 0, NULL), TC_OK);
        }
        assert_int_equal(nack.status, TC_ERR_BAD_FRAME);
        assert_non_null(strstr(nack.reason, "unknown op 7"));
        assert_int_equal(tc_peer_flush(pair.s[0].peer), TC_OK);
    }
    pair_close(&pair);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ried_over_the_wire),
        cmocka_unit_test(test_ried_per_peer_limit),
        cmocka_unit_test(test_ried_per_process_limit),
        cmocka_unit_test(test_ried_bytes_under_way),
        cmocka_unit_test(test_ried_answer_frame_sizes),
        cmocka_unit_test(test_ried_ship_small_frames),
        cmocka_unit_test(test_ried_unknown_op),
    };
    test_filter_from_env();
    return cmocka_run_group_tests_name("ried", tests, NULL, NULL);
}
