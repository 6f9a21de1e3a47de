/*
 * Core pairs by topology (topo.h).
 */
#define _GNU_SOURCE
#include "topo.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "platform.h"

#define TC_TOPO_N_KEYS (TC_TOPO_CLASS_LAST * TC_TOPO_NIC_LAST)

static const char *const tc_topo_class_list[] = {
    [TC_TOPO_SMT] = "smt",   [TC_TOPO_L2] = "l2",           [TC_TOPO_L3] = "l3",
    [TC_TOPO_NUMA] = "numa", [TC_TOPO_PACKAGE] = "package", [TC_TOPO_MACHINE] = "machine"};
static const char *const tc_topo_title_list[] = {
    [TC_TOPO_SMT] = "SMT siblings",     [TC_TOPO_L2] = "shared L2",
    [TC_TOPO_L3] = "shared L3",         [TC_TOPO_NUMA] = "same NUMA node",
    [TC_TOPO_PACKAGE] = "same package", [TC_TOPO_MACHINE] = "across packages"};
static const char *const tc_topo_nic_list[] = {
    [TC_TOPO_NIC_NONE] = "none", [TC_TOPO_NIC_LOCAL] = "local",
    [TC_TOPO_NIC_PACKAGE] = "package", [TC_TOPO_NIC_REMOTE] = "remote"};

const tc_names_t tc_names_topo_class = {"pair class", tc_topo_class_list,
                                        TC_ARRAY_SIZE(tc_topo_class_list)};
const tc_names_t tc_names_topo_title = {"pair class", tc_topo_title_list,
                                        TC_ARRAY_SIZE(tc_topo_title_list)};
const tc_names_t tc_names_topo_nic   = {"NIC locality", tc_topo_nic_list,
                                        TC_ARRAY_SIZE(tc_topo_nic_list)};

tc_status_t tc_topo_load(const char *synthetic, const char *xml, hwloc_topology_t *topo_p)
{
    hwloc_topology_t topo;

    if (hwloc_topology_init(&topo) != 0) {
        tc_error("hwloc_topology_init: %s", strerror(errno));
        return TC_ERR_NO_RESOURCE;
    }
    if ((synthetic != NULL) && (hwloc_topology_set_synthetic(topo, synthetic) != 0)) {
        tc_error("bad synthetic topology '%s' (hwloc's syntax: \"pack:2 l3:2 core:4 pu:2\")",
                 synthetic);
        goto err_destroy;
    }
    if ((synthetic == NULL) && (xml != NULL) && (hwloc_topology_set_xml(topo, xml) != 0)) {
        tc_error("cannot read XML topology '%s': %s", xml, strerror(errno));
        goto err_destroy;
    }
    /* the NIC's locality is a class: keep the network and RDMA devices.
     * Not through the libpciaccess plugin, whose allocations LeakSanitizer
     * reports at exit: hwloc's Linux backend reads the same PCI devices
     * and their locality from sysfs. */
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    (void)hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "pci");
    if (hwloc_topology_load(topo) != 0) {
        tc_error("hwloc_topology_load: %s", strerror(errno));
        goto err_destroy;
    }
    *topo_p = topo;
    return TC_OK;

err_destroy:
    hwloc_topology_destroy(topo);
    return TC_ERR_INVALID_PARAM;
}

/* Whether obj or one of its ancestors is of one of the types. */
static int tc_topo_under(hwloc_obj_t obj, hwloc_obj_type_t t1, hwloc_obj_type_t t2)
{
    for (; obj != NULL; obj = obj->parent) {
        if ((obj->type == t1) || (obj->type == t2)) {
            return 1;
        }
    }
    return 0;
}

/* The first network device: an RDMA one if any (the transport a NIC's
 * stashing concerns), else an Ethernet one. */
static hwloc_obj_t tc_topo_nic(hwloc_topology_t topo)
{
    hwloc_obj_t dev = NULL, eth = NULL;

    while ((dev = hwloc_get_next_osdev(topo, dev)) != NULL) {
        if (dev->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS) {
            return dev;
        }
        if ((dev->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK) && (eth == NULL)) {
            eth = dev;
        }
    }
    return eth;
}

static tc_topo_nic_t tc_topo_nic_class(hwloc_topology_t topo, hwloc_obj_t nic, hwloc_obj_t pu)
{
    hwloc_obj_t near, pkg;

    if (nic == NULL) {
        return TC_TOPO_NIC_NONE;
    }
    near = hwloc_get_non_io_ancestor_obj(topo, nic);
    if ((near == NULL) || hwloc_bitmap_isset(near->cpuset, pu->os_index)) {
        return TC_TOPO_NIC_LOCAL;
    }
    pkg = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu);
    if ((pkg != NULL) && hwloc_bitmap_intersects(pkg->cpuset, near->cpuset)) {
        return TC_TOPO_NIC_PACKAGE;
    }
    return TC_TOPO_NIC_REMOTE;
}

static tc_topo_class_t tc_topo_class_of(hwloc_topology_t topo, hwloc_obj_t pa, hwloc_obj_t pb)
{
    hwloc_obj_t anc = hwloc_get_common_ancestor_obj(topo, pa, pb);
    int same_pkg;

    if (tc_topo_under(anc, HWLOC_OBJ_CORE, HWLOC_OBJ_CORE)) {
        return TC_TOPO_SMT;
    }
    if (tc_topo_under(anc, HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE)) {
        return TC_TOPO_L2;
    }
    if (tc_topo_under(anc, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L3CACHE)) {
        return TC_TOPO_L3;
    }
    same_pkg = tc_topo_under(anc, HWLOC_OBJ_PACKAGE, HWLOC_OBJ_PACKAGE);
    /* hwloc 2 hangs NUMA nodes beside the CPU tree: a PU's nodeset names
     * its local node(s). A node that spans packages is no closer than
     * them: such a pair is across packages. */
    if (!hwloc_bitmap_iszero(pa->nodeset) && hwloc_bitmap_isequal(pa->nodeset, pb->nodeset) &&
        (same_pkg || (hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE) < 2))) {
        return TC_TOPO_NUMA;
    }
    if (same_pkg) {
        return TC_TOPO_PACKAGE;
    }
    return TC_TOPO_MACHINE;
}

tc_status_t tc_topo_classify(hwloc_topology_t topo, unsigned a, unsigned b,
                             tc_topo_class_t *cls_p, tc_topo_nic_t *nic_p)
{
    hwloc_obj_t pa = hwloc_get_pu_obj_by_os_index(topo, a);
    hwloc_obj_t pb = hwloc_get_pu_obj_by_os_index(topo, b);

    if ((pa == NULL) || (pb == NULL) || (a == b)) {
        return TC_ERR_INVALID_PARAM;
    }
    *cls_p = tc_topo_class_of(topo, pa, pb);
    *nic_p = tc_topo_nic_class(topo, tc_topo_nic(topo), pb);
    return TC_OK;
}

/* "A:B[,C:D...]" into plan->pairs (unclassified yet). */
static tc_status_t tc_topo_parse_list(hwloc_topology_t topo, const char *sel, char *why,
                                      size_t why_len, tc_topo_plan_t *plan)
{
    const char *p = sel;
    unsigned    cap = 1, v[2], k;
    char       *end;

    for (k = 0; sel[k] != '\0'; k++) {
        cap += (sel[k] == ',');
    }
    plan->pairs = calloc(cap, sizeof(*plan->pairs));
    if (plan->pairs == NULL) {
        return TC_ERR_NO_MEMORY;
    }
    while (*p != '\0') {
        for (k = 0; k < 2; k++) {
            errno = 0;
            v[k]  = (unsigned)strtoul(p, &end, 10);
            /* A:B, then a comma and the next pair or the end */
            if (!isdigit((unsigned char)*p) || (errno != 0) ||
                ((k == 0) ? (*end != ':') : ((*end != '\0') && ((*end != ',') || !end[1])))) {
                snprintf(why, why_len, "bad --pairs '%s' (all, classes, or sender:receiver "
                         "PUs: 0:1,0:8)", sel);
                return TC_ERR_INVALID_PARAM;
            }
            p = end + (*end != '\0');
        }
        if (v[0] == v[1]) {
            snprintf(why, why_len, "--pairs %u:%u: a pair needs two PUs", v[0], v[1]);
            return TC_ERR_INVALID_PARAM;
        }
        for (k = 0; k < 2; k++) {
            if (hwloc_get_pu_obj_by_os_index(topo, v[k]) == NULL) {
                snprintf(why, why_len, "--pairs %u:%u: no PU %u in this topology (%d PUs)",
                         v[0], v[1], v[k], hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU));
                return TC_ERR_INVALID_PARAM;
            }
        }
        plan->pairs[plan->n_pairs].a   = v[0];
        plan->pairs[plan->n_pairs++].b = v[1];
    }
    if (plan->n_pairs == 0) {
        snprintf(why, why_len, "--pairs: empty list");
        return TC_ERR_INVALID_PARAM;
    }
    return TC_OK;
}

static int tc_topo_avoids_pu0(const tc_topo_pair_t *p)
{
    return (p->a != 0) && (p->b != 0);
}

/* Every pair counted into its class; the representative is the first pair
 * in logical order that keeps off PU 0 (where the OS's housekeeping and
 * most interrupts run), else the first. With keep, every pair is kept.
 * With a NIC a pair is ordered: which of the two receives changes its
 * class against the device. */
static tc_status_t tc_topo_walk(hwloc_topology_t topo, int keep, tc_topo_plan_t *plan)
{
    tc_topo_class_info_t by_key[TC_TOPO_N_KEYS];
    hwloc_obj_t          nic = tc_topo_nic(topo), pa, pb;
    unsigned             i, j, key;
    tc_topo_pair_t       pair;

    memset(by_key, 0, sizeof(by_key));
    if (keep) {
        plan->pairs = calloc(plan->total_pairs ? plan->total_pairs : 1, sizeof(*plan->pairs));
        if (plan->pairs == NULL) {
            return TC_ERR_NO_MEMORY;
        }
    }
    for (i = 0; i < plan->n_pus; i++) {
        pa = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, i);
        for (j = (nic != NULL) ? 0 : i + 1; j < plan->n_pus; j++) {
            if (j == i) {
                continue;
            }
            pb       = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, j);
            pair.a   = pa->os_index;
            pair.b   = pb->os_index;
            pair.cls = tc_topo_class_of(topo, pa, pb);
            pair.nic = tc_topo_nic_class(topo, nic, pb);
            key      = pair.cls * TC_TOPO_NIC_LAST + pair.nic;
            if ((by_key[key].pairs++ == 0) ||
                (!tc_topo_avoids_pu0(&by_key[key].rep) && tc_topo_avoids_pu0(&pair))) {
                by_key[key].rep = pair;
            }
            if (keep) {
                plan->pairs[plan->n_pairs++] = pair;
            }
        }
    }
    for (key = 0; key < TC_TOPO_N_KEYS; key++) {
        if (by_key[key].pairs != 0) {
            by_key[key].cls = by_key[key].rep.cls;
            by_key[key].nic = by_key[key].rep.nic;
            plan->classes[plan->n_classes++] = by_key[key];
        }
    }
    return TC_OK;
}

tc_status_t tc_topo_plan(hwloc_topology_t topo, const char *sel, char *why, size_t why_len,
                         tc_topo_plan_t *plan_p)
{
    tc_topo_plan_t plan;
    hwloc_obj_t    nic = tc_topo_nic(topo);
    tc_status_t    status;
    unsigned       i;

    memset(&plan, 0, sizeof(plan));
    plan.n_pus       = (unsigned)hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    plan.packages    = (unsigned)hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
    plan.numa_nodes  = (unsigned)hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    plan.cores       = (unsigned)hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    plan.total_pairs = (unsigned long)plan.n_pus * (plan.n_pus ? plan.n_pus - 1 : 0) /
                       ((nic != NULL) ? 1 : 2);
    if (nic != NULL) {
        snprintf(plan.nic, sizeof(plan.nic), "%s", nic->name ? nic->name : "?");
    }
    if (strcmp(sel, "all") == 0) {
        plan.sel = TC_TOPO_SEL_ALL;
    } else if (strcmp(sel, "classes") == 0) {
        plan.sel = TC_TOPO_SEL_CLASSES;
    } else {
        plan.sel = TC_TOPO_SEL_LIST;
        status   = tc_topo_parse_list(topo, sel, why, why_len, &plan);
        if (status != TC_OK) {
            goto err_free;
        }
    }
    status = tc_topo_walk(topo, plan.sel == TC_TOPO_SEL_ALL, &plan);
    if (status != TC_OK) {
        goto err_free;
    }
    if (plan.sel == TC_TOPO_SEL_CLASSES) {
        plan.pairs = calloc(plan.n_classes ? plan.n_classes : 1, sizeof(*plan.pairs));
        if (plan.pairs == NULL) {
            status = TC_ERR_NO_MEMORY;
            goto err_free;
        }
        for (i = 0; i < plan.n_classes; i++) {
            plan.pairs[plan.n_pairs++] = plan.classes[i].rep;
        }
    } else if (plan.sel == TC_TOPO_SEL_LIST) {
        for (i = 0; i < plan.n_pairs; i++) {
            tc_topo_classify(topo, plan.pairs[i].a, plan.pairs[i].b, &plan.pairs[i].cls,
                             &plan.pairs[i].nic);
        }
    }
    *plan_p = plan;
    return TC_OK;

err_free:
    free(plan.pairs);
    return status;
}

void tc_topo_plan_free(tc_topo_plan_t *plan)
{
    free(plan->pairs);
    plan->pairs   = NULL;
    plan->n_pairs = 0;
}

static const char *const tc_topo_sel_names[] = {"all", "classes", "list"};

static void tc_topo_print_json(FILE *f, const tc_topo_plan_t *plan, const char *source)
{
    unsigned i;

    fprintf(f, "{\"source\": ");
    tc_json_string(f, source);
    fprintf(f, ", \"pus\": %u, \"cores\": %u, \"packages\": %u, \"numa_nodes\": %u,\n \"nic\": ",
            plan->n_pus, plan->cores, plan->packages, plan->numa_nodes);
    if (plan->nic[0]) {
        tc_json_string(f, plan->nic);
    } else {
        fputs("null", f);
    }
    fprintf(f, ", \"total_pairs\": %lu, \"selection\": \"%s\",\n \"classes\": [",
            plan->total_pairs, tc_topo_sel_names[plan->sel]);
    for (i = 0; i < plan->n_classes; i++) {
        const tc_topo_class_info_t *c = &plan->classes[i];

        fprintf(f, "%s\n  {\"class\": \"%s\", \"title\": \"%s\", \"nic\": \"%s\", \"pairs\": %u, "
                "\"rep\": [%u, %u]}", i ? "," : "", tc_names_str(&tc_names_topo_class, c->cls),
                tc_names_str(&tc_names_topo_title, c->cls),
                tc_names_str(&tc_names_topo_nic, c->nic), c->pairs, c->rep.a, c->rep.b);
    }
    fprintf(f, "],\n \"pairs\": [");
    for (i = 0; i < plan->n_pairs; i++) {
        const tc_topo_pair_t *p = &plan->pairs[i];

        fprintf(f, "%s\n  {\"a\": %u, \"b\": %u, \"class\": \"%s\", \"nic\": \"%s\"}", i ? "," : "",
                p->a, p->b, tc_names_str(&tc_names_topo_class, p->cls),
                tc_names_str(&tc_names_topo_nic, p->nic));
    }
    fprintf(f, "]}\n");
}

void tc_topo_plan_print(FILE *f, const tc_topo_plan_t *plan, const char *source, int json)
{
    unsigned i;

    if (json) {
        tc_topo_print_json(f, plan, source);
        return;
    }
    fprintf(f, "topology: %s: %u PUs, %u cores, %u package(s), %u NUMA node(s); network device: "
            "%s\n", source, plan->n_pus, plan->cores, plan->packages, plan->numa_nodes,
            plan->nic[0] ? plan->nic : "none");
    fprintf(f, "%lu pair(s) in %u class(es) (sender:receiver%s):\n", plan->total_pairs,
            plan->n_classes, plan->nic[0] ? "; nic: the receiver against the device" : "");
    fprintf(f, "  %-8s %-16s %-8s %8s  %s\n", "class", "", "nic", "pairs", "representative");
    for (i = 0; i < plan->n_classes; i++) {
        const tc_topo_class_info_t *c = &plan->classes[i];

        fprintf(f, "  %-8s %-16s %-8s %8u  %u:%u\n", tc_names_str(&tc_names_topo_class, c->cls),
                tc_names_str(&tc_names_topo_title, c->cls),
                tc_names_str(&tc_names_topo_nic, c->nic), c->pairs, c->rep.a, c->rep.b);
    }
    if (plan->n_classes == 1) {
        fprintf(f, "one class on this topology (%s): the sweep measures it alone; comparing "
                "classes takes a host with more\n",
                tc_names_str(&tc_names_topo_title, plan->classes[0].cls));
    }
    fprintf(f, "--pairs %s: %u pair(s) to measure:\n", tc_topo_sel_names[plan->sel],
            plan->n_pairs);
    for (i = 0; i < plan->n_pairs; i++) {
        fprintf(f, "  %u:%u %s %s\n", plan->pairs[i].a, plan->pairs[i].b,
                tc_names_str(&tc_names_topo_class, plan->pairs[i].cls),
                tc_names_str(&tc_names_topo_nic, plan->pairs[i].nic));
    }
}
