/*
 * The group API's own error paths and its one-rank case (the multi-process
 * runs are tests/test_mcast_fwd.c and tests/test_mcast_group.sh):
 * tc_group_params_from_env refuses every malformed variable and leaves its
 * output untouched; tc_group_create refuses ranks that do not fit, reports
 * a busy rendezvous port and a rendezvous nobody came to; a group of one
 * gathers, broadcasts and passes its barrier alone.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "twochains.h"
#include "group.h"
#include "log.h"

static const char *const group_vars[] = {"TC_RANK", "TC_SIZE", "TC_BOOT", "TC_BOOT_FD",
                                         "TC_SETUP_TIMEOUT_MS"};

static void env_clear(void)
{
    unsigned i;

    for (i = 0; i < TC_ARRAY_SIZE(group_vars); ++i) {
        assert_int_equal(unsetenv(group_vars[i]), 0);
    }
}

/* Set the group variables from "NAME=value" strings (NULL ends), the rest
 * unset, and parse them. */
static tc_status_t from_env(tc_group_params_t *params_p, const char *const *vars)
{
    char name[32];
    const char *eq;

    env_clear();
    for (; *vars != NULL; ++vars) {
        eq = strchr(*vars, '=');
        assert_non_null(eq);
        assert_true((size_t)(eq - *vars) < sizeof(name));
        memcpy(name, *vars, (size_t)(eq - *vars));
        name[eq - *vars] = '\0';
        assert_int_equal(setenv(name, eq + 1, 1), 0);
    }
    return tc_group_params_from_env(params_p);
}

static void test_params_from_env(void **unused)
{
    static const char *const no_launcher[] = {"TC_SIZE=2", "TC_BOOT=127.0.0.1:4000", NULL};
    static const char *const bad[][5] = {
        {"TC_RANK=x", "TC_SIZE=2", "TC_BOOT=h:4000", NULL},
        {"TC_RANK=", "TC_SIZE=2", "TC_BOOT=h:4000", NULL},
        {"TC_RANK=-1", "TC_SIZE=2", "TC_BOOT=h:4000", NULL},
        {"TC_RANK=1x", "TC_SIZE=2", "TC_BOOT=h:4000", NULL},
        {"TC_RANK=2", "TC_SIZE=2", "TC_BOOT=h:4000", NULL},        /* rank >= size */
        {"TC_RANK=0", "TC_SIZE=0", "TC_BOOT=h:4000", NULL},
        {"TC_RANK=0", "TC_BOOT=h:4000", NULL},                     /* no size */
        {"TC_RANK=0", "TC_SIZE=2000000", "TC_BOOT=h:4000", NULL},  /* over 2^20 */
        {"TC_RANK=0", "TC_SIZE=2", NULL},                          /* no rendezvous */
        {"TC_RANK=0", "TC_SIZE=2", "TC_BOOT=h", NULL},             /* no port */
        {"TC_RANK=0", "TC_SIZE=2", "TC_BOOT=:4000", NULL},         /* no host */
        {"TC_RANK=0", "TC_SIZE=2", "TC_BOOT=h:0", NULL},
        {"TC_RANK=0", "TC_SIZE=2", "TC_BOOT=h:65536", NULL},
        {"TC_RANK=0", "TC_SIZE=2", "TC_BOOT=h:40x", NULL},
        {"TC_RANK=0", "TC_SIZE=2",
         "TC_BOOT=a-host-name-of-sixty-four-characters-or-more-does-not-fit-in-boot-host:4000", NULL},
        {"TC_RANK=0", "TC_SIZE=2", "TC_BOOT=h:4000", "TC_SETUP_TIMEOUT_MS=0", NULL},
        {"TC_RANK=0", "TC_SIZE=2", "TC_BOOT=h:4000", "TC_SETUP_TIMEOUT_MS=3600001", NULL},
        {"TC_RANK=0", "TC_SIZE=2", "TC_BOOT=h:4000", "TC_SETUP_TIMEOUT_MS=soon", NULL},
        {"TC_RANK=0", "TC_SIZE=2", "TC_BOOT=h:4000", "TC_BOOT_FD=three", NULL},
        {"TC_RANK=0", "TC_SIZE=2", "TC_BOOT=h:4000", "TC_BOOT_FD=70000", NULL},
    };
    static const char *const good[] = {"TC_RANK=1", "TC_SIZE=3", "TC_BOOT=10.1.2.3:4242",
                                       "TC_SETUP_TIMEOUT_MS=1234", "TC_BOOT_FD=7", NULL};
    static const char *const alone[] = {"TC_RANK=0", "TC_SIZE=1", NULL};
    static const char *const longest[] = {   /* 63 characters and the NUL fit */
        "TC_RANK=1", "TC_SIZE=2",
        "TC_BOOT=a-host-name-of-sixty-three-characters-fits-the-boot-host-fields:4000", NULL};
    static const char *const root_fd[] = {"TC_RANK=0", "TC_SIZE=2", "TC_BOOT=h:4000",
                                          "TC_BOOT_FD=7", NULL};
    tc_group_params_t params, untouched;
    unsigned i;

    (void)unused;
    memset(&untouched, 0xa5, sizeof(untouched));
    params = untouched;
    assert_int_equal(from_env(&params, no_launcher), TC_ERR_NOT_FOUND);
    assert_memory_equal(&params, &untouched, sizeof(params));
    for (i = 0; i < TC_ARRAY_SIZE(bad); ++i) {
        print_message("refused: %s %s %s %s\n", bad[i][0], bad[i][1],
                      bad[i][2] ? bad[i][2] : "", (bad[i][2] && bad[i][3]) ? bad[i][3] : "");
        assert_int_equal(from_env(&params, bad[i]), TC_ERR_INVALID_PARAM);
        assert_memory_equal(&params, &untouched, sizeof(params)); /* set only on success */
    }

    assert_int_equal(from_env(&params, good), TC_OK);
    assert_int_equal(params.rank, 1);
    assert_int_equal(params.size, 3);
    assert_string_equal(params.boot_host, "10.1.2.3");
    assert_int_equal(params.boot_port, 4242);
    assert_int_equal(params.setup_timeout_ms, 1234);
    assert_int_equal(params.listen_fd, -1); /* TC_BOOT_FD is rank 0's only */

    assert_int_equal(from_env(&params, root_fd), TC_OK);
    assert_int_equal(params.listen_fd, 7);

    assert_int_equal(from_env(&params, longest), TC_OK);
    assert_int_equal(strlen(params.boot_host), TC_GROUP_HOST_MAX - 1);
    assert_int_equal(params.boot_port, 4000);

    assert_int_equal(from_env(&params, alone), TC_OK); /* one rank needs no rendezvous */
    assert_int_equal(params.rank, 0);
    assert_int_equal(params.size, 1);
    assert_int_equal(params.listen_fd, -1);
    env_clear();
}

static void make_ctx(uint32_t rank, tc_context_t **ctx_p)
{
    tc_context_params_t params;

    tc_context_params_init(&params);
    params.slots     = 4;
    params.slot_size = 4096;
    params.rank      = rank;
    assert_int_equal(tc_context_create(&params, ctx_p), TC_OK);
}

/* Ranks that do not fit the group or the context are refused up front. */
static void test_create_invalid_rank(void **unused)
{
    tc_group_t *const untouched = (tc_group_t *)&untouched;
    tc_group_params_t params;
    tc_context_t *ctx;
    tc_group_t *group;

    (void)unused;
    make_ctx(1, &ctx);
    tc_group_params_init(&params, 1, 0); /* no ranks */
    group = untouched;
    assert_int_equal(tc_group_create(ctx, &params, &group), TC_ERR_INVALID_PARAM);
    assert_ptr_equal(group, untouched);
    tc_group_params_init(&params, 1, 1); /* rank beyond the size */
    assert_int_equal(tc_group_create(ctx, &params, &group), TC_ERR_INVALID_PARAM);
    assert_ptr_equal(group, untouched);
    tc_group_params_init(&params, 0, 1); /* not the context's rank */
    assert_int_equal(tc_group_create(ctx, &params, &group), TC_ERR_INVALID_PARAM);
    assert_ptr_equal(group, untouched);
    tc_context_destroy(ctx);
}

/* A group of one: no sockets, no peers; the collectives answer alone. */
static void test_group_of_one(void **unused)
{
    const uint64_t v = 0x1122334455667788ull;
    tc_group_params_t params;
    tc_context_t *ctx;
    tc_group_t *group;
    void *all = NULL, *out = NULL;
    size_t len = 0;

    (void)unused;
    make_ctx(0, &ctx);
    tc_group_params_init(&params, 0, 1);
    assert_int_equal(tc_group_create(ctx, &params, &group), TC_OK);
    assert_int_equal(tc_group_rank(group), 0);
    assert_int_equal(tc_group_size(group), 1);
    assert_ptr_equal(tc_group_context(group), ctx);
    assert_null(tc_group_peer(group, 0)); /* this rank itself */
    assert_null(tc_group_peer(group, 1)); /* beyond the group */
    assert_int_equal(tc_group_gather(group, &v, sizeof(v), &all), TC_OK);
    assert_non_null(all);
    assert_memory_equal(all, &v, sizeof(v));
    free(all);
    assert_int_equal(tc_group_bcast(group, &v, sizeof(v), &out, &len), TC_OK);
    assert_int_equal(len, sizeof(v));
    assert_memory_equal(out, &v, sizeof(v));
    free(out);
    assert_int_equal(tc_group_barrier(group), TC_OK);
    assert_int_equal(tc_group_check(group), TC_OK);
    tc_group_destroy(group);
    tc_group_destroy(NULL); /* a no-op */
    tc_context_destroy(ctx);
}

/* A rendezvous port already taken: tc_group_listen and rank 0's
 * tc_group_create say TC_ERR_PORT_BUSY. */
static void test_port_busy(void **unused)
{
    tc_group_t *const untouched = (tc_group_t *)&untouched;
    tc_group_params_t params;
    tc_context_t *ctx;
    tc_group_t *group;
    uint16_t port = 0, again = 0;
    int fd = -1, fd2 = -1;

    (void)unused;
    assert_int_equal(tc_group_listen("127.0.0.1", 0, 4, &fd, &port), TC_OK);
    assert_true(fd >= 0);
    assert_true(port != 0);
    assert_int_equal(tc_group_listen("127.0.0.1", port, 4, &fd2, &again), TC_ERR_PORT_BUSY);
    assert_int_equal(fd2, -1); /* outputs set only on success */
    assert_int_equal(again, 0);

    make_ctx(0, &ctx);
    tc_group_params_init(&params, 0, 2);
    params.boot_port = port;
    group            = untouched;
    assert_int_equal(tc_group_create(ctx, &params, &group), TC_ERR_PORT_BUSY);
    assert_ptr_equal(group, untouched);
    tc_context_destroy(ctx);
    close(fd);
}

/* Rank 0 of two, and rank 1 never comes: the rendezvous gives up after the
 * setup timeout with TC_ERR_TIMEOUT (and names the missing rank). */
static void test_rank_never_arrives(void **unused)
{
    tc_group_t *const untouched = (tc_group_t *)&untouched;
    tc_group_params_t params;
    tc_context_t *ctx;
    tc_group_t *group;
    uint16_t port;
    int fd;

    (void)unused;
    make_ctx(0, &ctx);
    assert_int_equal(tc_group_listen("127.0.0.1", 0, 4, &fd, &port), TC_OK);
    tc_group_params_init(&params, 0, 2);
    params.listen_fd        = fd; /* the group owns it from here on */
    params.boot_port        = port;
    params.setup_timeout_ms = 200;
    group                   = untouched;
    assert_int_equal(tc_group_create(ctx, &params, &group), TC_ERR_TIMEOUT);
    assert_ptr_equal(group, untouched);
    tc_context_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_params_from_env),
        cmocka_unit_test(test_create_invalid_rank),
        cmocka_unit_test(test_group_of_one),
        cmocka_unit_test(test_port_busy),
        cmocka_unit_test(test_rank_never_arrives),
    };
    if (getenv("TC_TEST_FILTER") != NULL) {
        cmocka_set_test_filter(getenv("TC_TEST_FILTER"));
    }
    return cmocka_run_group_tests_name("group", tests, NULL, NULL);
}
