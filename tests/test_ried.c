/*
 * Rieds over the wire, both sides, on a loopback pair: a ried shipped over
 * the wire is loaded from a memfd on the peer, initialised, and answers with
 * its exports; slot names then resolve against it. A library that cannot
 * load is reported with the peer's dlerror and the peer keeps serving; an
 * unloaded ried is gone.
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
#include "bench_state.h"

#include "loop_pair.h"
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
    assert_non_null(strstr(pair.s[1].peer->ried_tx.text, "allow-list"));

    /* a receiver that accepts any code tries it: dlopen says why */
    serve_stop(&server, thread);
    pair.s[0].ctx->params.exec = TC_EXEC_ANY;
    serve_start(&server, &pair.s[0], &thread);
    assert_int_equal(tc_ried_ship(pair.s[1].peer, bogus, 0, NULL, &id2), TC_ERR_IO);
    assert_non_null(strstr(pair.s[1].peer->ried_tx.text, "dlopen"));
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
                      pair.s[0].peer->ried_rx.total);
        assert_int_equal(st.rx_rejected, k + 1);
        assert_non_null(strstr(tc_peer_last_reject(pair.s[0].peer), "unknown op 7"));
        assert_null(pair.s[0].peer->ried_rx.buf);
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
        cmocka_unit_test(test_ried_unknown_op),
    };
    test_filter_from_env();
    return cmocka_run_group_tests_name("ried", tests, NULL, NULL);
}
