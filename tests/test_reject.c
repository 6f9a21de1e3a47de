/*
 * Frames a receiver must reject, count and never run, over a loopback pair:
 * injected frames with a flipped byte in the code, the GOTP or the header
 * (and any injected frame at a local-only receiver), malformed headers of
 * every kind, and frames of a kind the receive path's table hands to no
 * handler or to one that refuses them; after each the receiver keeps
 * serving.
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
#include "runtime.h"
#include "frame.h"
#include "frame_line.h"
#include "bench_state.h"
#include "credits.h"
#include "log.h"

#include "loop_pair.h"
#include "raw_frame.h"

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
    pair_params(&params, 4);
    params.frames = TC_FRAMES_VARIABLE;
    pair_open(&pair, &params);
    /* append: its run calls memcpy, so its frames carry a GOTP to tamper
     * with (server_sum's run calls nothing) */
    jam = jam_of(&pair.s[1], "append");
    assert_true(tc_pkg_blob(jam.pkg, jam.element)->hdr->got_count > 0);

    /* the sync first, with one served call */
    {
        int32_t one = 1;
        /* append returns its log's length */
        assert_int_equal(call_served(&pair, 1, &jam, &one, sizeof(one), TC_MODE_INJECTED),
                         sizeof(one));
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
        assert_int_equal(state_of(&pair.s[0])->calls, 1 + (uint64_t)i); /* never ran */
        /* an untampered frame still runs */
        assert_int_equal(send_tampered(&pair, &jam, 10, 0, 0), TC_OK);
        assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, &n), TC_OK);
        assert_int_equal(state_of(&pair.s[0])->calls, 1 + (uint64_t)(i + 1));
        assert_int_equal(tc_peer_flush(pair.s[0].peer), TC_OK);
    }

    /* the same receiver turned local-only refuses it */
    pair.s[0].ctx->params.exec = TC_EXEC_LOCAL_ONLY;
    assert_int_equal(send_tampered(&pair, &jam, 10, 0, 0), TC_OK);
    assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, &n), TC_OK);
    assert_non_null(strstr(tc_peer_last_reject(pair.s[0].peer), "local-only"));
    assert_int_equal(state_of(&pair.s[0])->calls, 4);
    pair_close(&pair);
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
    pair_params(&params, 4);
    pair_open(&pair, &params);
    pair_set_frames(&pair, sizeof(int32_t));

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

/* A handler the test registers in the receiver's table for a kind nothing
 * else takes there (MCAST: no multicast engine on that context): counts what
 * dispatch hands it, refuses while told to. */
typedef struct kind_probe {
    unsigned    seen;
    uint32_t    last_seq;
    tc_status_t refuse;
} kind_probe_t;

static const char *kind_probe_rx(void *arg, tc_peer_t *peer, const char *frame,
                                 const tc_frame_hdr_t *hdr, tc_status_t *status_p)
{
    kind_probe_t *probe = arg;

    (void)peer;
    (void)frame;
    probe->seen++;
    probe->last_seq = hdr->seq;
    if (probe->refuse != TC_OK) {
        *status_p = probe->refuse;
        return "the probe refuses it";
    }
    return NULL;
}

static tc_status_t kind_probe_owed(tc_peer_t *peer)
{
    (void)peer;
    return TC_OK;
}

/* An MCAST frame naming server_sum (what the validator asks of one), for
 * the sender's next seq; tamper: none, else the element made unknown. */
static void send_mcast(pair_t *pair, int tamper)
{
    const uint32_t fsize = tc_frame_size_for(sizeof(int32_t));
    char frame[256];

    build_frame(&pair->s[1], frame, fsize, 7);
    ((tc_frame_hdr_t *)frame)->kind = TC_KIND_MCAST;
    if (tamper) {
        ((tc_frame_hdr_t *)frame)->element = 999;
    }
    assert_int_equal(tc_peer_send_raw_frame(pair->s[1].peer, frame, fsize), TC_OK);
}

/* The receiver's one frame: consumed, nothing run, `rejected` counted so
 * far; then the sender reads what came back (credits, a NACK). With a
 * reason, the frame was rejected for it and NACKed with status (the NACK's
 * words are cut to the sender's 64-byte frames: not compared); without,
 * no NACK came. */
static void take_one(pair_t *pair, uint64_t rejected, const char *reason, tc_status_t status)
{
    tc_peer_stats_t rx;
    tc_nack_t nack;
    unsigned n;

    assert_int_equal(tc_peer_progress(pair->s[0].peer, 0, &n), TC_OK);
    assert_int_equal(n, 1);
    tc_peer_stats(pair->s[0].peer, &rx);
    assert_int_equal(rx.rx_rejected, rejected);
    assert_int_equal(rx.rx_frames, 0);
    assert_int_equal(tc_peer_flush(pair->s[0].peer), TC_OK);
    assert_int_equal(tc_peer_progress(pair->s[1].peer, 0, NULL), TC_OK);
    if (reason == NULL) {
        assert_int_equal(tc_peer_last_nack(pair->s[1].peer, &nack), TC_ERR_NOT_FOUND);
        return;
    }
    assert_non_null(strstr(tc_peer_last_reject(pair->s[0].peer), reason));
    assert_int_equal(tc_peer_last_nack(pair->s[1].peer, &nack), TC_OK);
    assert_int_equal(nack.seq, pair->s[1].peer->tx_seq - 1);
    assert_int_equal(nack.status, status);
}

/* The receive path's table (lib/core/dispatch.c): a kind is taken by the handler
 * registered for it, which sees only frames the validator passed; one it
 * refuses, and one of a kind nothing registered, is rejected, counted and
 * NACKed with the status given; jams' kinds and taken kinds cannot be
 * registered over. */
static void test_kind_table(void **unused)
{
    kind_probe_t probe = {0, 0, TC_OK}, other = {0, 0, TC_OK};
    const uint32_t fsize = tc_frame_size_for(sizeof(int32_t));
    tc_context_params_t params;
    char frame[256];
    tc_context_t *ctx;
    pair_t pair;
    unsigned n;

    (void)unused;
    pair_params(&params, 4);
    pair_open(&pair, &params);
    pair_set_frames(&pair, sizeof(int32_t));
    ctx = pair.s[0].ctx;

    /* what registers: not a jam's kind, not over another's, one owed bit */
    assert_int_equal(tc_rx_register(ctx, TC_KIND_LOCAL, kind_probe_rx, &probe, 0),
                     TC_ERR_INVALID_PARAM);
    assert_int_equal(tc_rx_register(ctx, TC_KIND_INJECTED, kind_probe_rx, &probe, 0),
                     TC_ERR_INVALID_PARAM);
    assert_int_equal(tc_rx_register(ctx, TC_KIND_LAST, kind_probe_rx, &probe, 0),
                     TC_ERR_INVALID_PARAM);
    assert_int_equal(tc_rx_register(ctx, TC_KIND_CONFIG, kind_probe_rx, &probe, 0),
                     TC_ERR_BUSY); /* control's, since the connect */
    assert_int_equal(tc_rx_register(ctx, TC_KIND_MCAST, kind_probe_rx, &probe, 0), TC_OK);
    assert_int_equal(tc_rx_register(ctx, TC_KIND_MCAST, kind_probe_rx, &probe, 0), TC_OK);
    assert_int_equal(tc_rx_register(ctx, TC_KIND_MCAST, kind_probe_rx, &other, 0),
                     TC_ERR_BUSY);
    assert_int_equal(tc_rx_register_owed(ctx, 0, kind_probe_owed), TC_ERR_INVALID_PARAM);
    assert_int_equal(tc_rx_register_owed(ctx, 1u << TC_OWED_STEPS, kind_probe_owed),
                     TC_ERR_INVALID_PARAM);
    assert_int_equal(tc_rx_register_owed(ctx, TC_OWED_NACK, NULL), TC_ERR_INVALID_PARAM);
    assert_int_equal(tc_rx_register_owed(ctx, TC_OWED_SYNC | TC_OWED_NACK, kind_probe_owed),
                     TC_ERR_INVALID_PARAM);
    /* a module's kinds go in all or none */
    {
        const tc_rx_kind_def_t defs[] = {{TC_KIND_MCAST_ACK, kind_probe_rx, 0},
                                         {TC_KIND_GOODBYE, kind_probe_rx, 0}};

        assert_int_equal(tc_rx_register_kinds(ctx, defs, 2, &probe, 0, NULL), TC_ERR_BUSY);
        assert_null(ctx->rx_kinds[TC_KIND_MCAST_ACK].cb);
        assert_int_equal(tc_rx_register_kinds(ctx, defs, 1, &probe, TC_OWED_SYNC | TC_OWED_NACK,
                                              kind_probe_owed), TC_ERR_INVALID_PARAM);
        assert_null(ctx->rx_kinds[TC_KIND_MCAST_ACK].cb);
    }

    /* taken: the handler sees it once; nothing runs, nothing is rejected */
    send_mcast(&pair, 0);
    take_one(&pair, 0, NULL, TC_OK);
    assert_int_equal(probe.seen, 1);
    assert_int_equal(probe.last_seq, pair.s[1].peer->tx_seq - 1);

    /* refused by its handler: rejected, counted, NACKed with its status */
    probe.refuse = TC_ERR_NO_RESOURCE;
    send_mcast(&pair, 0);
    take_one(&pair, 1, "the probe refuses it", TC_ERR_NO_RESOURCE);
    assert_int_equal(probe.seen, 2);

    /* a frame the validator refuses never reaches the handler */
    probe.refuse = TC_OK;
    send_mcast(&pair, 1);
    take_one(&pair, 2, "unknown element", TC_ERR_NOT_FOUND);
    assert_int_equal(probe.seen, 2);

    /* nothing registered for the kind: refused as unsupported */
    tc_rx_unregister(ctx, TC_KIND_MCAST);
    send_mcast(&pair, 0);
    take_one(&pair, 3, "nothing on this side takes", TC_ERR_UNSUPPORTED);
    assert_int_equal(probe.seen, 2);

    /* the receiver keeps serving */
    build_frame(&pair.s[1], frame, fsize, 5);
    assert_int_equal(tc_peer_send_raw_frame(pair.s[1].peer, frame, fsize), TC_OK);
    assert_int_equal(tc_peer_progress(pair.s[0].peer, 0, &n), TC_OK);
    assert_int_equal(n, 1);
    assert_int_equal(state_of(&pair.s[0])->calls, 1);
    assert_int_equal(state_of(&pair.s[0])->sum, 5);
    pair_close(&pair);
}

/* The refused calls' payload: 8 bytes, so that a noop call's frame is one
 * line where the frames are fixed at 64 bytes. */
#define REFUSED_LEN 8

/* The pair the refused-call cases open: 8 slots, fixed frames of
 * REFUSED_LEN bytes; s[0] (*rx_p) refuses what s[1] (*tx_p) sends with its
 * noop (*noop_p). */
static void reject_pair_open(pair_t *pair, tc_peer_t **rx_p, tc_peer_t **tx_p, tc_jam_t *noop_p)
{
    pair_open_fixed(pair, 8, REFUSED_LEN);
    *rx_p   = pair->s[0].peer;
    *tx_p   = pair->s[1].peer;
    *noop_p = jam_of(&pair->s[1], "noop");
}

/* A call's frame from s[1] (noop, REFUSED_LEN bytes) that s[0] will refuse:
 * its payload length, as it landed in s[0]'s slot (the k-th after the one
 * s[0] takes next), rewritten past its room (test_exec_race's racer, by
 * hand: a line's byte 1 or a general header's payload_len). Returns the
 * frame's seq; *lines_p counts the line frames among them. */
static uint32_t send_refused(pair_t *pair, const tc_jam_t *noop, uint32_t k, unsigned *lines_p)
{
    tc_peer_t *rx = pair->s[0].peer, *tx = pair->s[1].peer;
    uint8_t buf[REFUSED_LEN] = {0};
    uint32_t seq = tx->tx_seq;
    tc_frame_hdr_t *hdr;
    char *slot;

    assert_int_equal(tc_jam_send(tx, noop, buf, sizeof(buf),
                                 TC_SEND_PARAMS(TC_MODE_LOCAL, TC_SEND_WANT_REPLY)), TC_OK);
    slot = rx->rx_ring + (size_t)((rx->rx_seq + k) & (rx->rx_slots - 1)) * rx->rx_slot_size;
    hdr  = (tc_frame_hdr_t *)(void *)slot;
    assert_int_equal(hdr->seq, seq); /* landed (seq: bytes 4-7 in both formats) */
    if ((uint8_t)slot[0] == TC_FRAME_LINE_TAG) {
        slot[1] = (char)0xFF;
        ++*lines_p;
    } else {
        hdr->payload_len = 0x40000000u;
    }
    return seq;
}

/* send_refused, then s[0] takes it. */
static uint32_t call_refused(pair_t *pair, const tc_jam_t *noop, unsigned *lines_p)
{
    uint32_t seq = send_refused(pair, noop, 0, lines_p);

    assert_int_equal(tc_peer_progress(pair->s[0].peer, 1, NULL), TC_OK);
    return seq;
}

/* The receiver keeps serving: the caller's next call runs and its result
 * comes back. */
static void call_runs(pair_t *pair, const tc_jam_t *noop)
{
    tc_peer_t *rx = pair->s[0].peer, *tx = pair->s[1].peer;
    uint8_t buf[REFUSED_LEN] = {0};
    tc_peer_stats_t st;
    uint32_t seq = tx->tx_seq;

    assert_int_equal(tc_jam_send(tx, noop, buf, sizeof(buf),
                                 TC_SEND_PARAMS(TC_MODE_LOCAL, TC_SEND_WANT_REPLY)), TC_OK);
    assert_int_equal(tc_peer_progress(rx, 1, NULL), TC_OK);
    assert_int_equal(tc_peer_progress(tx, 0, NULL), TC_OK);
    tc_peer_stats(tx, &st);
    assert_int_equal(st.last_ret_seq, seq);
    assert_int_equal(st.last_ret, sizeof(buf));
}

/* The receiver's noop frames fill the caller's ring, unconsumed: a NACK
 * owed finds no free slot until the caller hands its credits back. */
static void fill_caller_ring(pair_t *pair)
{
    tc_jam_t noop = jam_of(&pair->s[0], "noop");
    uint8_t buf[REFUSED_LEN] = {0};

    while (tc_peer_tx_free(pair->s[0].peer) > 0) {
        assert_int_equal(tc_jam_send(pair->s[0].peer, &noop, buf, sizeof(buf),
                                     TC_SEND_PARAMS(TC_MODE_LOCAL, 0)), TC_OK);
    }
}

/* The caller's next frame, a NACK of status: its seq. Where none has
 * landed yet (the receiver's NACKs wait for a free slot of the caller's
 * ring), the caller hands its credits back and the receiver sends what it
 * owes. */
static uint32_t next_nack(pair_t *pair, tc_status_t status)
{
    tc_peer_t *rx = pair->s[0].peer, *tx = pair->s[1].peer;
    tc_nack_t nack;
    unsigned n = 0;

    assert_int_equal(tc_peer_progress(tx, 1, &n), TC_OK);
    if (n == 0) {
        assert_int_equal(tc_peer_flush(tx), TC_OK);
        assert_int_equal(tc_peer_progress(rx, 0, NULL), TC_OK);
        assert_int_equal(tc_peer_progress(tx, 1, &n), TC_OK);
    }
    assert_int_equal(n, 1);
    assert_int_equal(tc_peer_last_nack(tx, &nack), TC_OK);
    assert_int_equal(nack.status, status);
    return nack.seq;
}

/* A run of refused frames longer than the ring (test_exec_race's
 * test_line_len_race: a racing writer made the receiver's copy of several
 * calls in a row bad): each frame's sender counted the credits it carried
 * (its ack) as told, so the receiver takes them from a refused frame too;
 * else, a ring's worth of NACKs later, the next NACK finds no free slot and
 * stays owed, and that call gets neither its result nor a NACK. Every
 * call's frame is refused with a NACK for its own seq, and the next call
 * runs. */
static void test_refused_run_keeps_credits(void **unused)
{
    tc_peer_t *rx, *tx;
    tc_peer_stats_t st;
    uint32_t i, n, seq;
    unsigned lines = 0;
    tc_nack_t nack;
    tc_jam_t noop;
    pair_t pair;

    (void)unused;
    reject_pair_open(&pair, &rx, &tx, &noop);
    n = 3 * rx->rx_slots;
    for (i = 0; i < n; ++i) {
        seq = call_refused(&pair, &noop, &lines);
        assert_int_equal(tc_peer_progress(tx, 0, NULL), TC_OK);
        assert_int_equal(tc_peer_last_nack(tx, &nack), TC_OK);
        if (nack.seq != seq) {
            fail_msg("refused frame %u of %u (seq %u): the last NACK is for seq %u (the "
                     "receiver's NACK %s)", i + 1, n, seq, nack.seq,
                     (rx->owed & TC_OWED_NACK) ? "is still owed" : "went nowhere");
        }
        assert_int_equal(nack.status, TC_ERR_BAD_FRAME);
    }
    tc_peer_stats(rx, &st);
    assert_int_equal(st.rx_rejected, n);
    assert_int_equal(st.rx_frames, 0);
    assert_true(lines > 0); /* once every slot held a 64-byte frame: the racer's case */
    call_runs(&pair, &noop);
    pair_close(&pair);
}

/* A NACK owed where the ring had no free slot (the caller had not yet
 * consumed the receiver's earlier frames when it sent the refused one)
 * goes once the caller hands its credits back, also to a receiver that
 * only waits for its next frame (tc_peer_wait): the caller waiting for the
 * NACK sends no frame that would carry it out. */
static void test_owed_nack_sent_while_waiting(void **unused)
{
    server_arg_t server;
    uint8_t buf[REFUSED_LEN] = {0};
    tc_peer_t *rx, *tx;
    tc_peer_stats_t st;
    tc_status_t status = TC_OK;
    pthread_t thread;
    unsigned lines = 0;
    tc_nack_t nack;
    tc_jam_t noop;
    uint32_t seq;
    pair_t pair;

    (void)unused;
    reject_pair_open(&pair, &rx, &tx, &noop);
    fill_caller_ring(&pair);
    seq = call_refused(&pair, &noop, &lines);
    assert_true(rx->owed & TC_OWED_NACK); /* no slot for it yet */
    /* the caller runs them and hands the credits back (its credit word) */
    assert_int_equal(tc_peer_progress(tx, 0, NULL), TC_OK);
    assert_int_equal(tx->rx_reported, tx->rx_seq);

    tc_peer_stats(rx, &st);
    server = (server_arg_t){&pair.s[0], st.rx_frames + st.rx_rejected + 1, 0, TC_OK};
    assert_int_equal(pthread_create(&thread, NULL, server_thread, &server), 0);
    while ((status == TC_OK) &&
           ((tc_peer_last_nack(tx, &nack) != TC_OK) || (nack.seq != seq))) {
        status = tc_peer_wait(tx, NULL); /* a silent receiver: its timeout */
    }
    if (status == TC_OK) { /* the frame that ends the server's wait */
        status = tc_jam_send(tx, &noop, buf, sizeof(buf), TC_SEND_PARAMS(TC_MODE_LOCAL, 0));
    }
    pthread_join(thread, NULL);
    assert_int_equal(status, TC_OK);
    assert_int_equal(server.status, TC_OK);
    assert_int_equal(nack.status, TC_ERR_BAD_FRAME);
    pair_close(&pair);
}

/* n refused frames (at most 8) that one progress call of rx takes
 * together: each counted, none dropped, and the caller takes their NACKs
 * one at a time, each its frame's, in the frames' order. */
static void refused_burst_nacked(pair_t *pair, tc_peer_t *rx, const tc_jam_t *noop, uint32_t n)
{
    uint32_t seq[8], k;
    unsigned lines = 0;
    tc_peer_stats_t st;

    assert_true(n <= TC_ARRAY_SIZE(seq));
    for (k = 0; k < n; ++k) {
        seq[k] = send_refused(pair, noop, k, &lines);
    }
    assert_int_equal(tc_peer_progress(rx, 0, NULL), TC_OK);
    tc_peer_stats(rx, &st);
    assert_int_equal(st.rx_rejected, n);
    assert_int_equal(st.nacks_dropped, 0);
    for (k = 0; k < n; ++k) {
        assert_int_equal(next_nack(pair, TC_ERR_BAD_FRAME), seq[k]);
    }
}

/* Refused frames that one progress call takes together (a one-way jam
 * then a call, both refused) are each NACKed: their NACKs are queued and go
 * after the call's frames; before, one NACK was owed at a time, the second
 * refusal found the first's owed and its caller never heard. */
static void test_refused_burst_each_nacked(void **unused)
{
    tc_peer_t *rx, *tx;
    tc_jam_t noop;
    pair_t pair;

    (void)unused;
    reject_pair_open(&pair, &rx, &tx, &noop);
    refused_burst_nacked(&pair, rx, &noop, 3);
    pair_close(&pair);
}

/* A ring's worth of refused frames, all the credits the caller has, taken
 * by one progress call: the queue holds a NACK per slot, so none is
 * dropped, and they come out in the frames' order (seq), also those that
 * waited for a free slot of the caller's ring. */
static void test_refused_ring_nacked_in_order(void **unused)
{
    tc_peer_t *rx, *tx;
    tc_jam_t noop;
    pair_t pair;

    (void)unused;
    reject_pair_open(&pair, &rx, &tx, &noop);
    assert_int_equal(rx->rx_slots, 8);
    assert_int_equal(tc_peer_flush(rx), TC_OK); /* the config frame's credit */
    assert_int_equal(tc_peer_tx_free(tx), rx->rx_slots);
    refused_burst_nacked(&pair, rx, &noop, rx->rx_slots);
    assert_false(rx->owed & TC_OWED_NACK);
    call_runs(&pair, &noop);
    pair_close(&pair);
}

/* The caller's ring filled (fill_caller_ring), then n of its calls refused:
 * their seqs in seq[] (the receiver's NACKs for them find no free slot). */
static void refuse_while_caller_full(pair_t *pair, const tc_jam_t *noop, uint32_t n,
                                     uint32_t *seq, unsigned *lines_p)
{
    tc_peer_t *rx = pair->s[0].peer, *tx = pair->s[1].peer;
    uint32_t k;

    fill_caller_ring(pair);
    for (k = 0; k < n; ++k) {
        if (tc_peer_tx_free(tx) == 0) {
            assert_int_equal(tc_peer_flush(rx), TC_OK); /* credits by their word */
        }
        seq[k] = call_refused(pair, noop, lines_p);
    }
}

/* More refused frames than the NACK queue holds (a slot's worth each)
 * while the caller reads none of the receiver's frames (its ring full): the
 * oldest NACKs stay and go, in order, once the caller reads again; the
 * rest are dropped and counted (nacks_dropped), and the pair keeps
 * working. */
static void test_nack_queue_overflow(void **unused)
{
    const uint32_t extra = 5;
    uint32_t seq[8 + 5], k, max;
    unsigned lines = 0, n;
    tc_peer_t *rx, *tx;
    tc_peer_stats_t st;
    tc_jam_t noop;
    pair_t pair;

    (void)unused;
    reject_pair_open(&pair, &rx, &tx, &noop);
    max = rx->reject->nack_max;
    assert_int_equal(max, rx->rx_slots);
    assert_int_equal(max + extra, TC_ARRAY_SIZE(seq));
    refuse_while_caller_full(&pair, &noop, max + extra, seq, &lines);
    tc_peer_stats(rx, &st);
    assert_int_equal(st.rx_rejected, max + extra);
    assert_int_equal(st.nacks_dropped, extra);
    assert_true(rx->owed & TC_OWED_NACK);

    /* the caller reads the receiver's frames again: the oldest NACKs come,
     * in order, and nothing after them */
    assert_int_equal(tc_peer_progress(tx, 0, NULL), TC_OK);
    for (k = 0; k < max; ++k) {
        assert_int_equal(next_nack(&pair, TC_ERR_BAD_FRAME), seq[k]);
    }
    assert_false(rx->owed & TC_OWED_NACK);
    assert_int_equal(tc_peer_flush(tx), TC_OK);
    assert_int_equal(tc_peer_progress(rx, 0, NULL), TC_OK);
    assert_int_equal(tc_peer_progress(tx, 0, &n), TC_OK);
    assert_int_equal(n, 0);
    call_runs(&pair, &noop);
    pair_close(&pair);
}

/* The receiver's NACK queue full: the pair opened (reject_pair_open), the
 * caller's ring filled, then a queue's worth of calls refused, their seqs
 * in seq[] (seq_n entries, the queue's size). Returns that size. */
static uint32_t nack_queue_filled(pair_t *pair, tc_peer_t **rx_p, tc_peer_t **tx_p,
                                  tc_jam_t *noop_p, uint32_t *seq, uint32_t seq_n)
{
    unsigned lines = 0;
    uint32_t max;

    reject_pair_open(pair, rx_p, tx_p, noop_p);
    max = (*rx_p)->reject->nack_max;
    assert_int_equal(max, seq_n);
    refuse_while_caller_full(pair, noop_p, max, seq, &lines);
    assert_true(tc_peer_nack_full(*rx_p));
    return max;
}

/* The caller reads the receiver's frames and hands its credits back (their
 * word only: the receiver does not progress in between): the receiver has
 * a free slot again. */
static void caller_frees_room(pair_t *pair)
{
    assert_int_equal(tc_peer_progress(pair->s[1].peer, 0, NULL), TC_OK);
    assert_int_equal(tc_peer_flush(pair->s[1].peer), TC_OK);
    assert_true(tc_peer_tx_free(pair->s[0].peer) > 0);
}

/* A NACK decided late (a sync or ried answer that no longer fits our
 * frames, tc_ctrl_nack_late) stands for an answer owed and is never
 * dropped: with the queue full and the caller's ring full it is refused
 * for now (TC_ERR_AGAIN, nothing queued or counted); once the caller hands
 * credits back, the queue's NACKs go first and the late one after them. */
static void test_late_nack_waits_for_room(void **unused)
{
    uint32_t seq[8], k, max, late;
    tc_peer_t *rx, *tx;
    tc_peer_stats_t st;
    tc_jam_t noop;
    pair_t pair;

    (void)unused;
    max  = nack_queue_filled(&pair, &rx, &tx, &noop, seq, TC_ARRAY_SIZE(seq));
    late = seq[max - 1]; /* any frame of the caller's: the NACK names it */

    assert_int_equal(tc_ctrl_nack_late(rx, late, "sync", "test: refused after all"),
                     TC_ERR_AGAIN);
    assert_int_equal(rx->reject->nack_n, max);
    tc_peer_stats(rx, &st);
    assert_int_equal(st.nacks_dropped, 0);

    caller_frees_room(&pair);
    assert_int_equal(tc_ctrl_nack_late(rx, late, "sync", "test: refused after all"), TC_OK);
    assert_false(tc_peer_nack_full(rx));
    for (k = 0; k < max; ++k) {
        assert_int_equal(next_nack(&pair, TC_ERR_BAD_FRAME), seq[k]);
    }
    assert_int_equal(next_nack(&pair, TC_ERR_OUT_OF_RANGE), late);
    assert_false(rx->owed & TC_OWED_NACK);
    tc_peer_stats(rx, &st);
    assert_int_equal(st.nacks_dropped, 0);
    assert_int_equal(tc_peer_flush(tx), TC_OK);
    assert_int_equal(tc_peer_progress(rx, 0, NULL), TC_OK);
    call_runs(&pair, &noop);
    pair_close(&pair);
}

/* NACKs owed to a peer that then failed: the first send says so, and the
 * rest are dropped with it (none would go), TC_OWED_NACK cleared, so no
 * progress call tries them again. */
static void test_owed_nacks_cleared_on_failure(void **unused)
{
    uint32_t seq[8];
    tc_peer_t *rx, *tx;
    tc_jam_t noop;
    pair_t pair;

    (void)unused;
    (void)nack_queue_filled(&pair, &rx, &tx, &noop, seq, TC_ARRAY_SIZE(seq));
    caller_frees_room(&pair); /* room: only the failure stops them */
    (void)tc_peer_fail(rx, TC_ERR_PEER_FAILED);
    assert_int_equal(tc_ctrl_send_nack(rx), TC_ERR_PEER_FAILED);
    assert_int_equal(rx->reject->nack_n, 0);
    assert_null(tc_peer_nack_head(rx));
    assert_false(rx->owed & TC_OWED_NACK);
    pair_close(&pair);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_injected_tampering_rejected),
        cmocka_unit_test(test_malformed_frames_rejected),
        cmocka_unit_test(test_kind_table),
        cmocka_unit_test(test_refused_run_keeps_credits),
        cmocka_unit_test(test_owed_nack_sent_while_waiting),
        cmocka_unit_test(test_refused_burst_each_nacked),
        cmocka_unit_test(test_refused_ring_nacked_in_order),
        cmocka_unit_test(test_nack_queue_overflow),
        cmocka_unit_test(test_late_nack_waits_for_room),
        cmocka_unit_test(test_owed_nacks_cleared_on_failure),
    };
    test_filter_from_env();
    return cmocka_run_group_tests_name("reject", tests, NULL, NULL);
}
