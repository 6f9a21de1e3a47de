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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ried_over_the_wire),
    };
    test_filter_from_env();
    return cmocka_run_group_tests_name("ried", tests, NULL, NULL);
}
