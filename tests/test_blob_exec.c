/*
 * The bench package's blobs (build/pkg/bench, built by tc-pkg) run: each
 * image is placed in an executable mapping, its GOT slots filled with
 * dlsym(RTLD_DEFAULT, name) (this program is linked -rdynamic), its fixups
 * applied, and its entry called on a ried-made state; the result and the
 * state must equal the Local Function library's on another state.
 *
 * Prints the code bytes of indirect_put next to the paper's 1408.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <libgen.h>
#include <limits.h>
#include <stdlib.h>

#include "blob_exec.h"
#include "bench.h"
#include "harness/pkg_path.h"

#define TEST_PAPER_INDIRECT_PUT_BYTES 1408

typedef struct {
    char           dir[PATH_MAX];
    tc_manifest_t *m;
    tc_test_pkg_t  pkg;
} test_env_t;

static int test_setup(void **state)
{
    char path[PATH_MAX], why[512];
    test_env_t *env = calloc(1, sizeof(*env));

    assert_non_null(env);
    assert_int_equal(tc_pkg_default_path(path, sizeof(path)), TC_OK);
    snprintf(env->dir, sizeof(env->dir), "%s", dirname(path));
    assert_int_equal(tc_manifest_load(env->dir, &env->m), TC_OK);
    if (env->m->arch != TC_TEST_HOST_ARCH) {
        print_message("package is %s: not this machine's\n",
                      tc_manifest_arch_name(env->m->arch));
        tc_manifest_free(env->m);
        free(env);
        return -1;
    }
    if (tc_test_pkg_open(env->dir, env->m, &env->pkg, why, sizeof(why)) != 0) {
        print_message("%s\n", why);
        tc_manifest_free(env->m);
        free(env);
        return -1;
    }
    assert_non_null(env->pkg.ried);
    *state = env;
    return 0;
}

static int test_teardown(void **state)
{
    test_env_t *env = *state;

    dlclose(env->pkg.handle);
    tc_manifest_free(env->m);
    free(env);
    return 0;
}

/* The manifest, the generated header and the library's descriptor agree. */
static void test_manifest_matches(void **state)
{
    test_env_t *env = *state;
    const tc_manifest_elem_t *e;
    uint32_t i;

    assert_int_equal(env->m->id, TC_PKG_BENCH_ID);
    assert_int_equal(env->m->n_elements, TC_PKG_BENCH_N_ELEMENTS);
    assert_string_equal(env->m->name, TC_PKG_BENCH_NAME);
    for (i = 0; i < env->m->n_elements; ++i) {
        assert_string_equal(env->m->elements[i].name, env->pkg.desc->elements[i].name);
        assert_int_equal(env->m->elements[i].kind, env->pkg.desc->elements[i].kind);
    }
    e = tc_manifest_find(env->m, "indirect_put");
    assert_non_null(e);
    assert_int_equal(e->id, TC_PKG_BENCH_INDIRECT_PUT);
    assert_int_equal(e->code_bytes, TC_PKG_BENCH_INDIRECT_PUT_CODE_BYTES);
    assert_int_equal(e->got_slots, TC_PKG_BENCH_INDIRECT_PUT_GOT_SLOTS);
    e = tc_manifest_find(env->m, "server_sum");
    assert_non_null(e);
    assert_int_equal(e->id, TC_PKG_BENCH_SERVER_SUM);
    assert_int_equal(e->code_bytes, TC_PKG_BENCH_SERVER_SUM_CODE_BYTES);
    e = tc_manifest_find(env->m, "bench");
    assert_non_null(e);
    assert_int_equal(e->id, TC_PKG_BENCH_BENCH);
    assert_int_equal(e->kind, TC_ELEM_RIED);
}

/* One jam, injected and local, over payloads of 1..1024 integers. */
static void test_jam_vs_local(test_env_t *env, const char *name)
{
    const tc_manifest_elem_t *e = tc_manifest_find(env->m, name);
    tc_bench_state_t *st_blob = NULL, *st_local = NULL;
    tc_jam_ctx_t ctx_blob = {0}, ctx_local = {0};
    int32_t payload[1024], copy[1024];
    tc_test_image_t img;
    int64_t r_blob, r_local;
    uint64_t seed = 42;
    size_t n, i;
    char why[512];

    assert_non_null(e);
    if (tc_test_image_load(env->dir, env->m, e, env->pkg.handle, &img, why,
                           sizeof(why)) != 0) {
        fail_msg("%s", why);
    }
    assert_int_equal(env->pkg.ried->init((void **)&st_blob), 0);
    assert_int_equal(env->pkg.ried->init((void **)&st_local), 0);
    ctx_blob.state  = st_blob;
    ctx_local.state = st_local;

    for (n = 1; n <= 1024; n *= 2) {
        for (i = 0; i < n; ++i) {
            payload[i] = (int32_t)tc_test_rand(&seed);
        }
        memcpy(copy, payload, n * sizeof(*payload));
        r_blob  = img.run(&ctx_blob, copy, n * sizeof(*payload));
        r_local = env->pkg.desc->elements[e->id].run(&ctx_local, payload,
                                                     n * sizeof(*payload));
        assert_int_equal(r_blob, r_local);
        assert_int_equal(st_blob->cursor, st_local->cursor);
        assert_int_equal(st_blob->sum, st_local->sum);
        assert_int_equal(st_blob->calls, st_local->calls);
        assert_memory_equal(st_blob->array, st_local->array,
                            st_blob->len * sizeof(*st_blob->array));
    }
    assert_true(st_blob->calls > 0);

    /* the blob is the run entry and what it reaches: neither jam's run
     * calls out, and their packs (server_sum's calls memcpy) stay in the
     * library, out of every frame */
    assert_int_equal(img.blob.hdr->got_count, 0);
    assert_int_equal(img.blob.hdr->entry_offset, 0);

    env->pkg.ried->fini(st_blob);
    env->pkg.ried->fini(st_local);
    tc_test_image_unload(&img);
}

static void test_indirect_put(void **state)
{
    test_env_t *env = *state;
    const tc_manifest_elem_t *e = tc_manifest_find(env->m, "indirect_put");

    test_jam_vs_local(env, "indirect_put");
    print_message("indirect_put: %u code bytes injected (%u GOT slots, %s); the paper "
                  "shipped %u\n", e->code_bytes, e->got_slots,
                  tc_manifest_arch_name(env->m->arch), TEST_PAPER_INDIRECT_PUT_BYTES);
    assert_true(e->code_bytes < TEST_PAPER_INDIRECT_PUT_BYTES);
}

static void test_server_sum(void **state)
{
    test_jam_vs_local(*state, "server_sum");
}

/* Every jam of the package on the shared script (blob_exec.h). */
static void test_all_jams(void **state)
{
    test_env_t *env = *state;
    char why[512];
    FILE *out = fopen("/dev/null", "w");

    assert_non_null(out);
    if (tc_test_run_package(env->dir, out, why, sizeof(why)) != 0) {
        fclose(out);
        fail_msg("%s", why);
    }
    fclose(out);
}

/* An image runs wherever it is placed: two copies at different addresses. */
static void test_position_independent(void **state)
{
    test_env_t *env = *state;
    const tc_manifest_elem_t *e = tc_manifest_find(env->m, "server_sum");
    tc_test_image_t a, b;
    tc_jam_ctx_t ctx = {0};
    tc_bench_state_t *st = NULL;
    int32_t v[4] = {1, 2, 3, -10};
    char why[512];

    assert_int_equal(tc_test_image_load(env->dir, env->m, e, NULL, &a, why, sizeof(why)),
                     0);
    assert_int_equal(tc_test_image_load(env->dir, env->m, e, NULL, &b, why, sizeof(why)),
                     0);
    assert_ptr_not_equal(a.map, b.map);
    assert_int_equal(env->pkg.ried->init((void **)&st), 0);
    ctx.state = st;
    assert_int_equal(a.run(&ctx, v, sizeof(v)), -4);
    assert_int_equal(b.run(&ctx, v, sizeof(v)), -8);
    assert_int_equal(st->calls, 2);
    env->pkg.ried->fini(st);
    tc_test_image_unload(&a);
    tc_test_image_unload(&b);
}

/* server_sum's image is exact wherever int64 is: extremes of both signs,
 * every tail length, an unaligned payload, and more than one block of lane
 * sums (65536 vectors) of INT32_MIN and of INT32_MAX. */
static void test_server_sum_exact(void **state)
{
    test_env_t *env = *state;
    const tc_manifest_elem_t *e = tc_manifest_find(env->m, "server_sum");
    const size_t big = 4u * 65536u * 2u + 7u;
    tc_bench_state_t *st = NULL;
    tc_jam_ctx_t ctx = {0};
    int64_t want = 0, got;
    tc_test_image_t img;
    int32_t *v;
    char why[512];
    size_t n, i;

    assert_int_equal(tc_test_image_load(env->dir, env->m, e, NULL, &img, why, sizeof(why)), 0);
    assert_int_equal(env->pkg.ried->init((void **)&st), 0);
    ctx.state = st;
    v = malloc((big + 1) * sizeof(*v));
    assert_non_null(v);
    for (n = 0; n <= 37; ++n) { /* every tail, from one element's offset on */
        for (i = 0; i < n; ++i) {
            v[1 + i] = (i % 3 == 0) ? INT32_MIN : (i % 3 == 1) ? INT32_MAX : -(int32_t)(i * 40503u);
            want += v[1 + i];
        }
        got = img.run(&ctx, v + 1, n * sizeof(*v));
        assert_true(got == want);
    }
    for (i = 0; i < big; ++i) {
        v[i] = INT32_MIN;
    }
    want += (int64_t)INT32_MIN * (int64_t)big;
    assert_true(img.run(&ctx, v, big * sizeof(*v)) == want);
    for (i = 0; i < big; ++i) {
        v[i] = INT32_MAX;
    }
    want += (int64_t)INT32_MAX * (int64_t)big;
    assert_true(img.run(&ctx, v, big * sizeof(*v) + 3) == want); /* a partial int is not summed */
    assert_int_equal(st->calls, 38 + 2);
    free(v);
    env->pkg.ried->fini(st);
    tc_test_image_unload(&img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_manifest_matches),
        cmocka_unit_test(test_indirect_put),
        cmocka_unit_test(test_server_sum),
        cmocka_unit_test(test_all_jams),
        cmocka_unit_test(test_position_independent),
        cmocka_unit_test(test_server_sum_exact),
    };

    return cmocka_run_group_tests(tests, test_setup, test_teardown);
}
