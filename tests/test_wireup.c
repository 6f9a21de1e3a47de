/*
 * Wireup: tc_peer_connect over a loopback bootstrap. A real pair connects
 * and reports its transports; a connection blob this side must refuse
 * (short, another protocol version, malformed) fails the connect with the
 * reason, before any endpoint is made, and leaves the output untouched.
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

#include "loop_pair.h"

static void test_connect_reports_transport(void **unused)
{
    tc_context_params_t params;
    const char *why = NULL;
    pair_t pair;

    (void)unused;
    pair_params(&params, 8);
    pair_open(&pair, &params);
    assert_non_null(tc_peer_transports(pair.s[0].peer));
    assert_true(strlen(tc_peer_transports(pair.s[0].peer)) > 0);
    (void)tc_peer_progress_needed(pair.s[0].peer, &why);
    assert_non_null(why);
    assert_int_equal(tc_peer_check_alive(pair.s[0].peer), TC_OK);
    pair_close(&pair);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_connect_reports_transport),
    };
    test_filter_from_env();
    return cmocka_run_group_tests_name("wireup", tests, NULL, NULL);
}
