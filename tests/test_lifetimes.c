/*
 * Lifetimes of what a peer leaves in the receiver: a shipped ried cannot be
 * unloaded while a synced jam's GOT points into it (the unload is refused
 * with the reason), and what a peer shipped goes with that peer, so a peer
 * allocated later (perhaps at the same address) never owns it.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "twochains.h"
#include "runtime.h"

#include "loop_pair.h"
#include "harness/pkg_path.h"

/* Ship the bench ried from s[1] to s[0]; its slot in s[0]'s context. */
static int ship(pair_t *pair, uint32_t *id_p)
{
    char path[4096];
    unsigned i;

    assert_int_equal(tc_pkg_default_path(path, sizeof(path)), TC_OK);
    strcpy(strrchr(path, '/') + 1, "libried_bench.so");
    assert_int_equal(tc_ried_ship(pair->s[1].peer, path, 0, NULL, id_p), TC_OK);
    for (i = 0; i < TC_MAX_RIEDS; ++i) {
        if ((pair->s[0].ctx->rieds[i].handle != NULL) &&
            (pair->s[0].ctx->rieds[i].id == *id_p)) {
            return (int)i;
        }
    }
    fail_msg("the shipped ried is not loaded");
    return -1;
}

/* A small pair, s[0] served by srv's thread, the bench ried shipped to it. */
static int open_and_ship(pair_t *pair, serve_t *srv, pthread_t *th, uint32_t *id_p)
{
    tc_context_params_t params;

    tc_context_params_init(&params);
    params.slots     = 4;
    params.slot_size = 4096;
    params.frames    = TC_FRAMES_VARIABLE;
    pair_open(pair, &params);
    memset(srv, 0, sizeof(*srv));
    srv->side = &pair->s[0];
    assert_int_equal(pthread_create(th, NULL, serve_thread, srv), 0);
    return ship(pair, id_p);
}

static void test_pinned_ried_not_unloaded(void **unused)
{
    uint32_t id = 0;
    tc_inj_t *inj;
    tc_jam_t jam;
    pthread_t th;
    serve_t srv;
    pair_t pair;
    int slot;

    (void)unused;
    slot = open_and_ship(&pair, &srv, &th, &id);

    /* a receiver-side sync whose GOT slot resolved into the ried: what
     * tc_inj_resolve records when a name is found only there */
    atomic_store(&srv.stop, 1);
    pthread_join(th, NULL);
    jam = jam_of(&pair.s[0], "copy");
    inj = tc_inj_get(pair.s[0].peer, &jam);
    assert_non_null(inj);
    inj->ried_pins |= 1u << slot;
    pair.s[0].ctx->rieds[slot].pins++;

    atomic_store(&srv.stop, 0);
    assert_int_equal(pthread_create(&th, NULL, serve_thread, &srv), 0);
    assert_int_equal(tc_ried_unload(pair.s[1].peer, id), TC_ERR_BUSY);
    assert_non_null(strstr(pair.s[1].peer->ried->tx.text, "in use"));
    assert_non_null(pair.s[0].ctx->rieds[slot].handle); /* still there */

    /* the sync goes (as when its peer closes): the unload goes through */
    atomic_store(&srv.stop, 1);
    pthread_join(th, NULL);
    tc_ried_unpin(pair.s[0].ctx, inj->ried_pins);
    inj->ried_pins = 0;
    atomic_store(&srv.stop, 0);
    assert_int_equal(pthread_create(&th, NULL, serve_thread, &srv), 0);
    assert_int_equal(tc_ried_unload(pair.s[1].peer, id), TC_OK);
    atomic_store(&srv.stop, 1);
    pthread_join(th, NULL);
    assert_null(pair.s[0].ctx->rieds[slot].handle);
    assert_int_equal(srv.status, TC_OK);
    pair_close(&pair);
}

static void test_shipped_ried_goes_with_its_peer(void **unused)
{
    uint32_t id = 0;
    uint64_t serial;
    pthread_t th;
    serve_t srv;
    pair_t pair;
    int slot;

    (void)unused;
    slot = open_and_ship(&pair, &srv, &th, &id);
    atomic_store(&srv.stop, 1);
    pthread_join(th, NULL);

    /* owned by the peer's serial, which no later peer of the context gets */
    serial = pair.s[0].peer->wireup->serial;
    assert_true(serial != 0);
    assert_int_equal(pair.s[0].ctx->rieds[slot].owner, serial);
    assert_int_equal(pair.s[0].ctx->next_peer_serial, serial);
    tc_peer_close(pair.s[0].peer);
    pair.s[0].peer = NULL;
    assert_null(pair.s[0].ctx->rieds[slot].handle);
    pair_close(&pair);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pinned_ried_not_unloaded),
        cmocka_unit_test(test_shipped_ried_goes_with_its_peer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
