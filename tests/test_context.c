/*
 * Contexts: tc_context_params_init's defaults create a context; every
 * parameter tc_context_create validates is refused with
 * TC_ERR_INVALID_PARAM and the output left untouched; tc_context_add_pkg
 * refuses a package already loaded and keeps each context's ried state its
 * own.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "twochains.h"
#include "runtime.h"
#include "log.h"
#include "harness/pkg_path.h"

#include "loop_pair.h"

static void test_defaults_create(void **unused)
{
    tc_context_params_t params;
    tc_context_t *ctx = NULL;

    (void)unused;
    tc_context_params_init(&params);
    assert_true(params.slots >= 2);
    assert_int_equal(params.slots & (params.slots - 1), 0);
    assert_int_equal(params.slot_size % 64, 0);
    assert_true(params.timeout_ms > 0);
    assert_int_equal(params.exec, TC_EXEC_ALLOWLIST);
    assert_int_equal(params.wait, TC_WAIT_POLL);
    assert_int_equal(params.in_place, 0);
    assert_int_equal(params.frames, TC_FRAMES_VARIABLE); /* any payload, nothing to size */
    assert_int_equal(tc_context_create(&params, &ctx), TC_OK);
    assert_non_null(ctx);
    tc_context_destroy(ctx);
    tc_context_destroy(NULL); /* a no-op */
    assert_non_null(tc_ucx_version());
    assert_true(strlen(tc_ucx_version()) > 0);
}

/* The program docs/USING.md describes, on the defaults alone (no frame
 * size, no frame mode set): every mode and payloads up to a slot run. */
static void test_defaults_run_every_mode(void **unused)
{
    static const tc_mode_t modes[] = {TC_MODE_LOCAL, TC_MODE_INJECTED, TC_MODE_CACHED};
    static int32_t ints[2048];
    tc_context_params_t params;
    pthread_t thread;
    tc_jam_t jam;
    int64_t ret = 0, want = 0;
    pair_t pair;
    serve_t s;
    unsigned m, i;
    size_t len;

    (void)unused;
    for (i = 0; i < TC_ARRAY_SIZE(ints); ++i) {
        ints[i] = (int32_t)i - 1000;
    }
    tc_context_params_init(&params);
    pair_open(&pair, &params);
    jam = jam_of(&pair.s[1], "server_sum");
    serve_start(&s, &pair.s[0], &thread);
    for (m = 0; m < TC_ARRAY_SIZE(modes); ++m) {
        for (len = 4; len <= sizeof(ints); len *= 4) {
            assert_int_equal(tc_jam_call(pair.s[1].peer, &jam, ints, len,
                                         TC_SEND_PARAMS(modes[m], 0), &ret), TC_OK);
            for (i = 0; i < len / sizeof(int32_t); ++i) {
                want += ints[i]; /* server_sum keeps a running total */
            }
            assert_int_equal(ret, want);
        }
    }
    serve_stop(&s, thread);
    assert_int_equal(s.status, TC_OK);
    pair_close(&pair);
}

typedef void (*params_fn)(tc_context_params_t *p);

static void slots_zero(tc_context_params_t *p)      { p->slots = 0; }
static void slots_one(tc_context_params_t *p)       { p->slots = 1; }
static void slots_three(tc_context_params_t *p)     { p->slots = 3; }
static void slots_not_pow2(tc_context_params_t *p)  { p->slots = 48; }
static void slot_size_zero(tc_context_params_t *p)  { p->slot_size = 0; }
static void slot_size_small(tc_context_params_t *p) { p->slot_size = 32; }
static void slot_size_unaligned(tc_context_params_t *p) { p->slot_size = 4096 + 8; }
static void mailbox_over_4g(tc_context_params_t *p)
{
    p->slots     = 1u << 16;
    p->slot_size = 1u << 17; /* 8 GiB */
}
static void timeout_zero(tc_context_params_t *p)     { p->timeout_ms = 0; }
static void timeout_negative(tc_context_params_t *p) { p->timeout_ms = -1; }
static void in_place_allowlist(tc_context_params_t *p) { p->in_place = 1; }
static void in_place_local_only(tc_context_params_t *p)
{
    p->in_place = 1;
    p->exec     = TC_EXEC_LOCAL_ONLY;
}
static void in_place_wx(tc_context_params_t *p)
{
    p->in_place = 1;
    p->exec     = TC_EXEC_ANY;
    p->wx       = 1;
}
static void wait_unknown(tc_context_params_t *p) { p->wait = (tc_wait_t)99; }
static void call_timeout_negative(tc_context_params_t *p) { p->call_timeout_ms = -1; }
static void rieds_past_table(tc_context_params_t *p) { p->ried_max_per_process = TC_MAX_RIEDS + 1; }

/* Only the fields in field_mask count; the others take their defaults, as
 * for a program built before they existed. */
static void test_field_mask(void **unused)
{
    tc_context_params_t params, defaults;
    tc_context_t *ctx = NULL;

    (void)unused;
    tc_context_params_init(&defaults);
    assert_int_equal(defaults.field_mask, TC_CONTEXT_PARAM_FIELD_ALL);
    memset(&params, 0xff, sizeof(params)); /* garbage everywhere ... */
    params.field_mask = TC_CONTEXT_PARAM_FIELD_SLOTS | TC_CONTEXT_PARAM_FIELD_TIMEOUT;
    params.slots      = 8;                 /* ... but in the two fields set */
    params.timeout_ms = 1234;
    assert_int_equal(tc_context_create(&params, &ctx), TC_OK);
    assert_int_equal(ctx->params.slots, 8);
    assert_int_equal(ctx->params.timeout_ms, 1234);
    assert_int_equal(ctx->params.slot_size, defaults.slot_size);
    assert_int_equal(ctx->params.exec, defaults.exec);
    assert_int_equal(ctx->params.wait, defaults.wait);
    assert_int_equal(ctx->params.in_place, 0);
    /* the limits a program built before them never set: their defaults */
    assert_int_equal(ctx->params.call_timeout_ms, 0);
    assert_int_equal(ctx->params.ried_max_per_process, TC_MAX_RIEDS / 4);
    assert_int_equal(ctx->params.ried_rx_bytes_per_process, TC_RIED_MAX_BYTES);
    assert_int_equal(ctx->params.ried_rx_bytes, 2ull * TC_RIED_MAX_BYTES);
    tc_context_destroy(ctx);
    /* a field that is set is checked */
    params.field_mask |= TC_CONTEXT_PARAM_FIELD_SLOT_SIZE;
    ctx = NULL;
    assert_int_equal(tc_context_create(&params, &ctx), TC_ERR_INVALID_PARAM);
    assert_null(ctx);
    assert_int_equal(tc_context_create(NULL, &ctx), TC_ERR_INVALID_PARAM);
}

static void test_invalid_params_refused(void **unused)
{
    static const struct {
        params_fn   fn;
        const char *what;
    } cases[] = {
        {slots_zero, "no slots"},
        {slots_one, "one slot"},
        {slots_three, "3 slots"},
        {slots_not_pow2, "48 slots"},
        {slot_size_zero, "slot size 0"},
        {slot_size_small, "slot size 32"},
        {slot_size_unaligned, "slot size not a multiple of 64"},
        {mailbox_over_4g, "mailbox over 4 GiB"},
        {timeout_zero, "timeout 0"},
        {timeout_negative, "negative timeout"},
        {in_place_allowlist, "in place under the allow-list"},
        {in_place_local_only, "in place under local-only"},
        {in_place_wx, "in place with W^X"},
        {wait_unknown, "unknown wait strategy"},
        {call_timeout_negative, "negative call timeout"},
        {rieds_past_table, "more rieds per process than the table holds"},
    };
    tc_context_t *const untouched = (tc_context_t *)&untouched;
    tc_context_params_t params;
    tc_context_t *ctx;
    unsigned i;

    (void)unused;
    for (i = 0; i < TC_ARRAY_SIZE(cases); ++i) {
        print_message("refused: %s\n", cases[i].what);
        tc_context_params_init(&params);
        params.slot_size = 4096;
        cases[i].fn(&params);
        ctx = untouched;
        assert_int_equal(tc_context_create(&params, &ctx), TC_ERR_INVALID_PARAM);
        assert_ptr_equal(ctx, untouched); /* output set only on success */
    }
    /* the smallest valid ring is accepted */
    tc_context_params_init(&params);
    params.slots     = 2;
    params.slot_size = 64;
    assert_int_equal(tc_context_create(&params, &ctx), TC_OK);
    tc_context_destroy(ctx);
}

static void open_pkg(tc_pkg_t **pkg_p)
{
    char path[4096];

    assert_int_equal(tc_pkg_default_path(path, sizeof(path)), TC_OK);
    assert_int_equal(tc_pkg_open(path, pkg_p), TC_OK);
}

/* A package goes into a context once (again: refused, the first load kept);
 * the bench ried's state is per context. */
static void test_add_pkg(void **unused)
{
    tc_context_params_t params;
    tc_context_t *ctx[2];
    tc_pkg_t *pkg, *again;
    void *state;
    int i;

    (void)unused;
    open_pkg(&pkg);
    open_pkg(&again); /* the same package opened twice: same id */
    tc_context_params_init(&params);
    params.slot_size = 4096;
    for (i = 0; i < 2; ++i) {
        assert_int_equal(tc_context_create(&params, &ctx[i]), TC_OK);
        assert_null(tc_context_pkg_state(ctx[i], pkg)); /* not loaded yet */
    }
    assert_int_equal(tc_context_add_pkg(ctx[0], pkg), TC_OK);
    state = tc_context_pkg_state(ctx[0], pkg);
    assert_non_null(state); /* the bench ried made it */
    assert_int_equal(tc_context_add_pkg(ctx[0], pkg), TC_ERR_INVALID_PARAM);
    assert_int_equal(tc_context_add_pkg(ctx[0], again), TC_ERR_INVALID_PARAM);
    assert_ptr_equal(tc_context_pkg_state(ctx[0], pkg), state);
    assert_null(tc_context_pkg_state(ctx[1], pkg)); /* the other context has none */
    assert_int_equal(tc_context_add_pkg(ctx[1], again), TC_OK);
    assert_non_null(tc_context_pkg_state(ctx[1], again));
    assert_true(tc_context_pkg_state(ctx[1], again) != state);
    for (i = 0; i < 2; ++i) {
        tc_context_destroy(ctx[i]);
    }
    tc_pkg_close(again);
    tc_pkg_close(pkg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_create),
        cmocka_unit_test(test_defaults_run_every_mode),
        cmocka_unit_test(test_field_mask),
        cmocka_unit_test(test_invalid_params_refused),
        cmocka_unit_test(test_add_pkg),
    };
    if (getenv("TC_TEST_FILTER") != NULL) {
        cmocka_set_test_filter(getenv("TC_TEST_FILTER"));
    }
    return cmocka_run_group_tests_name("context", tests, NULL, NULL);
}
