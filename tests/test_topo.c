/*
 * Core pairs by topology (bench/harness/topo.c), without the hardware:
 *
 * - hwloc synthetic topologies and saved XML ones (tests/data/topo-*.xml,
 *   made with lstopo --input SPEC --of xml; the dual-socket one with an
 *   RDMA NIC added under package 0): every class's pair count and
 *   representative, and single pairs' classes, as the hardware has them.
 * - A NIC makes pairs ordered and the receiver's side a class.
 * - "all" keeps every pair with the class classify gives it; a list keeps
 *   its pairs; a bad list, an unknown PU, a pair of one PU are refused
 *   with the reason.
 * - The JSON and text outputs name the classes; this host's topology loads.
 */
#define _GNU_SOURCE

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/topo.h"

typedef struct {
    tc_topo_class_t cls;
    tc_topo_nic_t   nic;
    unsigned        pairs, rep_a, rep_b;
} want_class_t;

static hwloc_topology_t load_syn(const char *spec)
{
    hwloc_topology_t topo;

    assert_int_equal(tc_topo_load(spec, NULL, &topo), TC_OK);
    return topo;
}

static hwloc_topology_t load_xml(const char *name)
{
    const char *src = getenv("TC_SRC");
    char path[PATH_MAX];
    hwloc_topology_t topo;

    snprintf(path, sizeof(path), "%s/tests/data/%s", src ? src : ".", name);
    assert_int_equal(tc_topo_load(NULL, path, &topo), TC_OK);
    return topo;
}

static void check_classes(hwloc_topology_t topo, const want_class_t *want, unsigned n_want,
                          unsigned long total)
{
    tc_topo_plan_t plan;
    char why[256] = "";
    unsigned i, sum = 0;

    assert_int_equal(tc_topo_plan(topo, "classes", why, sizeof(why), &plan), TC_OK);
    assert_int_equal(plan.total_pairs, total);
    assert_int_equal(plan.n_classes, n_want);
    assert_int_equal(plan.n_pairs, n_want);
    for (i = 0; i < n_want; i++) {
        assert_int_equal(plan.classes[i].cls, want[i].cls);
        assert_int_equal(plan.classes[i].nic, want[i].nic);
        assert_int_equal(plan.classes[i].pairs, want[i].pairs);
        assert_int_equal(plan.classes[i].rep.a, want[i].rep_a);
        assert_int_equal(plan.classes[i].rep.b, want[i].rep_b);
        /* the pairs measured are the representatives, in class order */
        assert_int_equal(plan.pairs[i].a, want[i].rep_a);
        assert_int_equal(plan.pairs[i].b, want[i].rep_b);
        sum += plan.classes[i].pairs;
    }
    assert_int_equal(sum, total);
    tc_topo_plan_free(&plan);
}

static void check_pair(hwloc_topology_t topo, unsigned a, unsigned b, tc_topo_class_t cls,
                       tc_topo_nic_t nic)
{
    tc_topo_class_t c;
    tc_topo_nic_t n;

    assert_int_equal(tc_topo_classify(topo, a, b, &c, &n), TC_OK);
    assert_int_equal(c, cls);
    assert_int_equal(n, nic);
}

/* 2 packages x 2 NUMA nodes x 2 L3s x 4 cores x 2 PUs: 64 PUs, five classes */
static void test_synthetic_numa(void **state)
{
    static const want_class_t want[] = {
        {TC_TOPO_SMT, TC_TOPO_NIC_NONE, 32, 2, 3},
        {TC_TOPO_L3, TC_TOPO_NIC_NONE, 192, 1, 2},
        {TC_TOPO_NUMA, TC_TOPO_NIC_NONE, 256, 1, 8},
        {TC_TOPO_PACKAGE, TC_TOPO_NIC_NONE, 512, 1, 16},
        {TC_TOPO_MACHINE, TC_TOPO_NIC_NONE, 1024, 1, 32},
    };
    hwloc_topology_t topo = load_syn("pack:2 numa:2 l3:2 core:4 pu:2");

    (void)state;
    check_classes(topo, want, 5, 2016);
    check_pair(topo, 0, 1, TC_TOPO_SMT, TC_TOPO_NIC_NONE);
    check_pair(topo, 7, 0, TC_TOPO_L3, TC_TOPO_NIC_NONE);
    check_pair(topo, 7, 8, TC_TOPO_NUMA, TC_TOPO_NIC_NONE);
    check_pair(topo, 15, 16, TC_TOPO_PACKAGE, TC_TOPO_NIC_NONE);
    check_pair(topo, 31, 32, TC_TOPO_MACHINE, TC_TOPO_NIC_NONE);
    check_pair(topo, 63, 0, TC_TOPO_MACHINE, TC_TOPO_NIC_NONE);
    hwloc_topology_destroy(topo);
}

/* pairs of cores sharing an L2 (a cluster, e.g. Arm's or Intel's E-cores) */
static void test_synthetic_l2(void **state)
{
    static const want_class_t want[] = {
        {TC_TOPO_L2, TC_TOPO_NIC_NONE, 4, 2, 3},
        {TC_TOPO_L3, TC_TOPO_NIC_NONE, 24, 1, 2},
    };
    hwloc_topology_t topo = load_syn("pack:1 l3:1 l2:4 core:2 pu:1");

    (void)state;
    check_classes(topo, want, 2, 28);
    check_pair(topo, 4, 5, TC_TOPO_L2, TC_TOPO_NIC_NONE);
    check_pair(topo, 5, 6, TC_TOPO_L3, TC_TOPO_NIC_NONE);
    hwloc_topology_destroy(topo);
}

/* a Zen-4-like desktop part: two CCDs of one CCX (an L3) of 8 cores each,
 * one L2 per core, SMT 2, one NUMA node */
static void test_xml_zen4(void **state)
{
    static const want_class_t want[] = {
        {TC_TOPO_SMT, TC_TOPO_NIC_NONE, 16, 2, 3},
        {TC_TOPO_L3, TC_TOPO_NIC_NONE, 224, 1, 2},
        {TC_TOPO_NUMA, TC_TOPO_NIC_NONE, 256, 1, 16},
    };
    hwloc_topology_t topo = load_xml("topo-zen4-2ccd.xml");

    (void)state;
    check_classes(topo, want, 3, 496);
    check_pair(topo, 14, 15, TC_TOPO_SMT, TC_TOPO_NIC_NONE);
    check_pair(topo, 0, 15, TC_TOPO_L3, TC_TOPO_NIC_NONE);
    check_pair(topo, 15, 16, TC_TOPO_NUMA, TC_TOPO_NIC_NONE);
    hwloc_topology_destroy(topo);
}

/* two packages of 12 cores x 2 PUs, an L3 and a NUMA node each, an RDMA
 * NIC (mlx5_0) on package 0: ordered pairs, the receiver's side a class */
static void test_xml_dual_socket_nic(void **state)
{
    static const want_class_t want[] = {
        {TC_TOPO_SMT, TC_TOPO_NIC_LOCAL, 24, 2, 3},
        {TC_TOPO_SMT, TC_TOPO_NIC_REMOTE, 24, 24, 25},
        {TC_TOPO_L3, TC_TOPO_NIC_LOCAL, 528, 1, 2},
        {TC_TOPO_L3, TC_TOPO_NIC_REMOTE, 528, 24, 26},
        {TC_TOPO_MACHINE, TC_TOPO_NIC_LOCAL, 576, 24, 1},
        {TC_TOPO_MACHINE, TC_TOPO_NIC_REMOTE, 576, 1, 24},
    };
    hwloc_topology_t topo = load_xml("topo-dual-socket-nic.xml");
    tc_topo_plan_t plan;
    char why[256] = "";

    (void)state;
    check_classes(topo, want, 6, 48 * 47);
    check_pair(topo, 30, 5, TC_TOPO_MACHINE, TC_TOPO_NIC_LOCAL);
    check_pair(topo, 5, 30, TC_TOPO_MACHINE, TC_TOPO_NIC_REMOTE);
    check_pair(topo, 46, 47, TC_TOPO_SMT, TC_TOPO_NIC_REMOTE);
    assert_int_equal(tc_topo_plan(topo, "classes", why, sizeof(why), &plan), TC_OK);
    assert_string_equal(plan.nic, "mlx5_0");   /* RDMA before its Ethernet twin */
    tc_topo_plan_free(&plan);
    hwloc_topology_destroy(topo);
}

static void test_all_and_list(void **state)
{
    hwloc_topology_t topo = load_syn("pack:2 l3:2 core:2 pu:2");
    tc_topo_plan_t plan;
    tc_topo_class_t c;
    tc_topo_nic_t n;
    char why[256] = "";
    unsigned i;

    (void)state;
    assert_int_equal(tc_topo_plan(topo, "all", why, sizeof(why), &plan), TC_OK);
    assert_int_equal(plan.n_pairs, 16 * 15 / 2);
    for (i = 0; i < plan.n_pairs; i++) {
        assert_true(plan.pairs[i].a < plan.pairs[i].b);
        assert_int_equal(tc_topo_classify(topo, plan.pairs[i].a, plan.pairs[i].b, &c, &n), TC_OK);
        assert_int_equal(plan.pairs[i].cls, c);
        assert_int_equal(plan.pairs[i].nic, n);
    }
    tc_topo_plan_free(&plan);

    assert_int_equal(tc_topo_plan(topo, "9:8,0:15,4:6", why, sizeof(why), &plan), TC_OK);
    assert_int_equal(plan.n_pairs, 3);
    assert_int_equal(plan.pairs[0].a, 9);
    assert_int_equal(plan.pairs[0].b, 8);
    assert_int_equal(plan.pairs[0].cls, TC_TOPO_SMT);
    assert_int_equal(plan.pairs[1].cls, TC_TOPO_MACHINE);
    assert_int_equal(plan.pairs[2].cls, TC_TOPO_L3);
    /* the topology's classes, for the report: one NUMA node spans both
     * packages, so across L3 in a package is "numa", across packages
     * "machine" */
    assert_int_equal(plan.n_classes, 4);
    assert_int_equal(plan.classes[2].cls, TC_TOPO_NUMA);
    assert_int_equal(plan.classes[2].rep.a, 1);
    assert_int_equal(plan.classes[2].rep.b, 4);
    assert_int_equal(plan.classes[3].cls, TC_TOPO_MACHINE);
    tc_topo_plan_free(&plan);
    hwloc_topology_destroy(topo);
}

static void test_bad_selection(void **state)
{
    static const struct {
        const char *sel, *why;
    } bad[] = {
        {"", "empty"},        {"x", "bad --pairs"},       {"0:1,", "bad --pairs"},
        {"0", "bad --pairs"}, {"0:1:2", "bad --pairs"},   {"-1:2", "bad --pairs"},
        {"3:3", "two PUs"},   {"0:16", "no PU 16"},       {"0:1,,2:3", "bad --pairs"},
        {"classes ", "bad --pairs"},
    };
    hwloc_topology_t topo = load_syn("pack:2 l3:2 core:2 pu:2");
    tc_topo_plan_t plan;
    tc_topo_class_t c;
    tc_topo_nic_t n;
    unsigned i;

    (void)state;
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char why[256] = "";

        assert_int_equal(tc_topo_plan(topo, bad[i].sel, why, sizeof(why), &plan),
                         TC_ERR_INVALID_PARAM);
        if (strstr(why, bad[i].why) == NULL) {
            fail_msg("--pairs '%s': '%s' does not say '%s'", bad[i].sel, why, bad[i].why);
        }
    }
    assert_int_equal(tc_topo_classify(topo, 2, 2, &c, &n), TC_ERR_INVALID_PARAM);
    assert_int_equal(tc_topo_classify(topo, 0, 99, &c, &n), TC_ERR_INVALID_PARAM);
    hwloc_topology_destroy(topo);
    assert_int_not_equal(tc_topo_load("pack:2 bogus:3", NULL, &topo), TC_OK);
    assert_int_not_equal(tc_topo_load(NULL, "/nonexistent/topo.xml", &topo), TC_OK);
    hwloc_topology_destroy(load_syn("pu:1")); /* still usable after the refusals */
}

static char *print_plan(hwloc_topology_t topo, const char *sel, int json)
{
    tc_topo_plan_t plan;
    char why[256] = "", *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    assert_non_null(f);
    assert_int_equal(tc_topo_plan(topo, sel, why, sizeof(why), &plan), TC_OK);
    tc_topo_plan_print(f, &plan, "synthetic \"x\"", json);
    fclose(f);
    tc_topo_plan_free(&plan);
    return buf;
}

static void test_outputs(void **state)
{
    hwloc_topology_t topo = load_syn("pack:1 l3:1 core:2 pu:1");
    char *text;

    (void)state;
    text = print_plan(topo, "classes", 1);
    assert_non_null(strstr(text, "\"source\": \"synthetic \\\"x\\\"\""));
    assert_non_null(strstr(text, "\"selection\": \"classes\""));
    assert_non_null(strstr(text, "{\"class\": \"l3\", \"title\": \"shared L3\", \"nic\": \"none\", "
                                 "\"pairs\": 1, \"rep\": [0, 1]}"));
    assert_non_null(strstr(text, "{\"a\": 0, \"b\": 1, \"class\": \"l3\", \"nic\": \"none\"}"));
    assert_non_null(strstr(text, "\"nic\": null"));
    free(text);
    text = print_plan(topo, "all", 0);
    assert_non_null(strstr(text, "one class on this topology (shared L3)"));
    assert_non_null(strstr(text, "--pairs all: 1 pair(s) to measure"));
    free(text);
    hwloc_topology_destroy(topo);
}

static void test_host(void **state)
{
    hwloc_topology_t topo;
    tc_topo_plan_t plan;
    char why[256] = "";

    (void)state;
    /* this host's, unless the environment names another */
    unsetenv("HWLOC_SYNTHETIC");
    unsetenv("HWLOC_XMLFILE");
    assert_int_equal(tc_topo_load(NULL, NULL, &topo), TC_OK);
    assert_int_equal(tc_topo_plan(topo, "classes", why, sizeof(why), &plan), TC_OK);
    assert_true(plan.n_pus >= 1);
    assert_int_equal(plan.n_pairs, plan.n_classes);
    assert_true((plan.n_pus < 2) || (plan.n_classes >= 1));
    tc_topo_plan_free(&plan);
    hwloc_topology_destroy(topo);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_synthetic_numa),
        cmocka_unit_test(test_synthetic_l2),
        cmocka_unit_test(test_xml_zen4),
        cmocka_unit_test(test_xml_dual_socket_nic),
        cmocka_unit_test(test_all_and_list),
        cmocka_unit_test(test_bad_selection),
        cmocka_unit_test(test_outputs),
        cmocka_unit_test(test_host),
    };

    return cmocka_run_group_tests_name("topo", tests, NULL, NULL);
}
