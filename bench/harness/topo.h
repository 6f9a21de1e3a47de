/*
 * Core pairs by topology: every pair of processing units (PUs) classified
 * by the deepest cache or node the two share, as hwloc sees them, and one
 * representative pair chosen per class, for the topology sweep
 * (scripts/tc-topo, `tc-perf --pairs`). Pure: hwloc only, no UCX, so the
 * tests run it on synthetic and saved XML topologies.
 *
 * A pair is (sender, receiver): the sender is tc-perf's client (core a),
 * the receiver its server (core b), the side that runs the jams. Where the
 * topology has a network device (an OS device of type network or
 * openfabrics), the receiver's distance to the first one is a second class,
 * and a pair is ordered (a:b and b:a); without one a pair is a < b in
 * hwloc's logical order.
 */
#ifndef TC_TOPO_H
#define TC_TOPO_H

#include <hwloc.h>
#include <stdio.h>

#include "twochains.h"
#include "names.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Closest first: the first kind of object the two PUs both sit in. */
typedef enum {
    TC_TOPO_SMT = 0,   /* one core: SMT siblings */
    TC_TOPO_L2,        /* a shared L2 (or L1), different cores */
    TC_TOPO_L3,        /* a shared L3: one CCX, one LLC slice group */
    TC_TOPO_NUMA,      /* the same NUMA node, different L3s */
    TC_TOPO_PACKAGE,   /* the same package, different NUMA nodes */
    TC_TOPO_MACHINE,   /* across packages */
    TC_TOPO_CLASS_LAST
} tc_topo_class_t;

/* The receiver against the network device. */
typedef enum {
    TC_TOPO_NIC_NONE = 0, /* no network device in the topology */
    TC_TOPO_NIC_LOCAL,    /* in the device's locality (its non-I/O parent) */
    TC_TOPO_NIC_PACKAGE,  /* outside it, in the same package */
    TC_TOPO_NIC_REMOTE,   /* in another package */
    TC_TOPO_NIC_LAST
} tc_topo_nic_t;

extern const tc_names_t tc_names_topo_class; /* tc_topo_class_t: short names */
extern const tc_names_t tc_names_topo_title; /* tc_topo_class_t: for people */
extern const tc_names_t tc_names_topo_nic;   /* tc_topo_nic_t */

typedef enum {
    TC_TOPO_SEL_ALL = 0,  /* every pair */
    TC_TOPO_SEL_CLASSES,  /* one representative per (class, nic) */
    TC_TOPO_SEL_LIST      /* the pairs given */
} tc_topo_sel_t;

typedef struct {
    unsigned        a, b;  /* PU OS indexes: sender, receiver */
    tc_topo_class_t cls;
    tc_topo_nic_t   nic;
} tc_topo_pair_t;

typedef struct {
    tc_topo_class_t cls;
    tc_topo_nic_t   nic;
    unsigned        pairs; /* pairs of the topology in this class */
    tc_topo_pair_t  rep;   /* the one --pairs classes measures */
} tc_topo_class_info_t;

typedef struct {
    unsigned              n_pus, packages, numa_nodes, cores;
    char                  nic[64];     /* the network device's name, "" if none */
    unsigned long         total_pairs; /* n_pus * (n_pus - 1), halved without a NIC */
    tc_topo_sel_t         sel;
    unsigned              n_classes;
    tc_topo_class_info_t  classes[TC_TOPO_CLASS_LAST * TC_TOPO_NIC_LAST];
    unsigned              n_pairs;     /* the pairs selected */
    tc_topo_pair_t       *pairs;
} tc_topo_plan_t;

/* A topology loaded: from a synthetic description (e.g. "pack:2 l3:2
 * core:4 pu:2") or an XML file when given, else this host's (hwloc itself
 * honours HWLOC_SYNTHETIC and HWLOC_XMLFILE then); I/O devices kept. */
tc_status_t tc_topo_load(const char *synthetic, const char *xml, hwloc_topology_t *topo_p);

/* The class of the pair of PUs with OS indexes a and b (a != b), and the
 * receiver b's class against the network device. */
tc_status_t tc_topo_classify(hwloc_topology_t topo, unsigned a, unsigned b,
                             tc_topo_class_t *cls_p, tc_topo_nic_t *nic_p);

/* The plan of a selection: "all", "classes" or a list "A:B[,C:D...]" of
 * sender:receiver PUs. A bad list or an unknown PU is TC_ERR_INVALID_PARAM
 * with the reason in why. Free with tc_topo_plan_free. */
tc_status_t tc_topo_plan(hwloc_topology_t topo, const char *sel, char *why, size_t why_len,
                         tc_topo_plan_t *plan_p);
void        tc_topo_plan_free(tc_topo_plan_t *plan);

/* The plan as text (a line per class, then per pair) or JSON. */
void tc_topo_plan_print(FILE *f, const tc_topo_plan_t *plan, const char *source, int json);

#ifdef __cplusplus
}
#endif

#endif
