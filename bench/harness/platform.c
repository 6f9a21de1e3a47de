/*
 * Platform report and hardware controls. See platform.h.
 *
 * Probing reads CPUID (x86), /proc/cpuinfo, sysfs and hwloc and has no side
 * effects. The controls go through tc_hwctl_ops_t backends; the save/set/
 * restore machinery around them is generic.
 *
 * Global state: the restore registry, and nothing else. A control changed
 * by this process must be put back when the process ends, however it ends
 * short of SIGKILL: normal exit and exit() on an error path (atexit), and
 * SIGINT/SIGTERM/SIGHUP (a handler). Neither an atexit function nor a signal
 * handler takes an argument, so the saved values, the units and the backend
 * that writes them must be reachable from a global. The handler only reads
 * the registry and calls the backends' async-signal-safe write; it takes no
 * lock, allocates nothing and never frees (the arrays live as long as the
 * process).
 */
#define _GNU_SOURCE

#include "platform.h"
#include "names.h"
#include "place.h"
#include "cycles.h"
#include "log.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <hwloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

/* ----------------------------------------------------------------- names */

static const char *const tc_platform_op_names[TC_PLATFORM_OP_COUNT] = {
    [TC_PLATFORM_OP_CLFLUSH]    = "clflush",
    [TC_PLATFORM_OP_CLFLUSHOPT] = "clflushopt",
    [TC_PLATFORM_OP_CLWB]       = "clwb",
    [TC_PLATFORM_OP_CLDEMOTE]   = "cldemote",
    [TC_PLATFORM_OP_NT_STORE]   = "nt_store",
    [TC_PLATFORM_OP_MOVDIR64B]  = "movdir64b",
    [TC_PLATFORM_OP_DC_CVAC]    = "dc_cvac",
    [TC_PLATFORM_OP_DC_CIVAC]   = "dc_civac",
};

const char *tc_platform_wait_name(tc_platform_wait_t wait)
{
    return tc_names_str(&tc_names_wait, (unsigned)wait);
}

const char *tc_platform_op_name(tc_platform_op_t op)
{
    return (unsigned)op < TC_PLATFORM_OP_COUNT ? tc_platform_op_names[op] : NULL;
}

const char *tc_platform_place_name(tc_platform_place_t place)
{
    return tc_names_str(&tc_names_place, (unsigned)place);
}

/* The names are lib/base/names.c's (one table per enum); the platform's enums
 * keep the same order. */
tc_status_t tc_platform_wait_lookup(const char *name, tc_platform_wait_t *wait_p)
{
    unsigned value;
    tc_status_t status = tc_names_parse(&tc_names_wait, name, &value);

    if (status == TC_OK) {
        *wait_p = (tc_platform_wait_t)value;
    }
    return (status == TC_ERR_INVALID_PARAM) ? TC_ERR_NOT_FOUND : status;
}

tc_status_t tc_platform_place_lookup(const char *name, tc_platform_place_t *place_p)
{
    unsigned value;
    tc_status_t status = tc_names_parse(&tc_names_place, name, &value);

    if (status == TC_OK) {
        *place_p = (tc_platform_place_t)value;
    }
    return (status == TC_ERR_INVALID_PARAM) ? TC_ERR_NOT_FOUND : status;
}

/* The list lib/arch/cpu makes, from the platform's copy of its wait answers. */
void tc_platform_wait_available(const tc_platform_t *platform, char *buf, size_t len)
{
    tc_cpu_features_t cpu;

    _Static_assert(sizeof(cpu.wait) == sizeof(platform->wait), "the same wait table");
    memset(&cpu, 0, sizeof(cpu));
    memcpy(cpu.wait, platform->wait, sizeof(cpu.wait));
    tc_cpu_wait_available(&cpu, buf, len);
}

/* ------------------------------------------------------------ features */

#define tc_feat_yes tc_cpu_feature_yes
#define tc_feat_no  tc_cpu_feature_no

/* Copy with truncation (snprintf "%s" would warn about it). */
static void tc_copy(char *dst, size_t len, const char *src)
{
    size_t n = strnlen(src, len - 1);

    memcpy(dst, src, n);
    dst[n] = '\0';
}

__attribute__((unused)) /* users are x86-only */
static int tc_path_exists(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0;
}

/* ------------------------------------------------------------ CPU ident
 * CPUID is lib/arch/cpu's (tc_cpu_ident); this adds /proc/cpuinfo and uname. */

/* Value of the first "key<spaces>: value" line in /proc/cpuinfo. */
static int tc_cpuinfo_field(const char *key, char *buf, size_t len)
{
    FILE  *f = fopen("/proc/cpuinfo", "r");
    char   line[512];
    size_t klen = strlen(key);
    int    found = 0;

    if (f == NULL) {
        return 0;
    }
    while (!found && fgets(line, sizeof(line), f) != NULL) {
        char *p = line, *v, *e;

        if (strncmp(p, key, klen) != 0) {
            continue;
        }
        p += klen;
        while (*p == ' ' || *p == '\t') {
            ++p;
        }
        if (*p != ':') {
            continue;
        }
        v = p + 1;
        while (*v == ' ' || *v == '\t') {
            ++v;
        }
        e = v + strlen(v);
        while (e > v && isspace((unsigned char)e[-1])) {
            *--e = '\0';
        }
        snprintf(buf, len, "%s", v);
        found = 1;
    }
    fclose(f);
    return found;
}

#if defined(__aarch64__)
static const char *tc_arm_implementer(unsigned code)
{
    switch (code) {
    case 0x41: return "ARM";
    case 0x42: return "Broadcom";
    case 0x43: return "Cavium";
    case 0x46: return "Fujitsu";
    case 0x48: return "HiSilicon";
    case 0x4e: return "NVIDIA";
    case 0x50: return "APM";
    case 0x51: return "Qualcomm";
    case 0x61: return "Apple";
    case 0xc0: return "Ampere";
    default:   return NULL;
    }
}

static const char *tc_arm_part(unsigned implementer, unsigned part)
{
    if (implementer != 0x41) {
        return NULL;
    }
    switch (part) {
    case 0xd03: return "Cortex-A53";
    case 0xd07: return "Cortex-A57";
    case 0xd08: return "Cortex-A72";
    case 0xd0c: return "Neoverse-N1";
    case 0xd40: return "Neoverse-V1";
    case 0xd49: return "Neoverse-N2";
    case 0xd4f: return "Neoverse-V2";
    default:    return NULL;
    }
}
#endif

int tc_platform_emulation(char *why, size_t len)
{
#if defined(__aarch64__)
    char buf[64];

    /* qemu-user passes the host's /proc/cpuinfo through: an aarch64 process
     * reading an x86 vendor_id and no CPU implementer is emulated. */
    if (!tc_cpuinfo_field("CPU implementer", buf, sizeof(buf)) &&
        tc_cpuinfo_field("vendor_id", buf, sizeof(buf))) {
        snprintf(why, len, "aarch64 code on a %.32s host (qemu-user): not for timing", buf);
        return 1;
    }
#endif
    snprintf(why, len, "no");
    return 0;
}

static void tc_platform_cpu(tc_platform_t *p, const tc_cpu_ident_t *id)
{
    struct utsname u;
    char           buf[128];

    if (uname(&u) == 0) {
        tc_copy(p->arch, sizeof(p->arch), u.machine);
    } else {
#if defined(__x86_64__)
        snprintf(p->arch, sizeof(p->arch), "x86_64");
#elif defined(__aarch64__)
        snprintf(p->arch, sizeof(p->arch), "aarch64");
#else
        snprintf(p->arch, sizeof(p->arch), "unknown");
#endif
    }
    snprintf(p->vendor, sizeof(p->vendor), "%s", id->vendor);
    snprintf(p->hypervisor, sizeof(p->hypervisor), "%s", id->hypervisor);
    tc_platform_emulation(p->emulated, sizeof(p->emulated));
    p->family   = id->family;
    p->model    = id->model;
    p->stepping = id->stepping;

    if (tc_cpuinfo_field("model name", buf, sizeof(buf))) {
        snprintf(p->cpu_model, sizeof(p->cpu_model), "%s", buf);
    }
#if defined(__aarch64__)
    {
        unsigned impl = 0, part = 0, variant = 0;
        const char *vname, *pname;

        if (tc_cpuinfo_field("CPU implementer", buf, sizeof(buf))) {
            impl = (unsigned)strtoul(buf, NULL, 0);
        }
        if (tc_cpuinfo_field("CPU part", buf, sizeof(buf))) {
            part = (unsigned)strtoul(buf, NULL, 0);
        }
        if (tc_cpuinfo_field("CPU variant", buf, sizeof(buf))) {
            variant = (unsigned)strtoul(buf, NULL, 0);
        }
        vname = tc_arm_implementer(impl);
        pname = tc_arm_part(impl, part);
        if (vname != NULL) {
            snprintf(p->vendor, sizeof(p->vendor), "%s", vname);
        } else if (impl != 0) {
            snprintf(p->vendor, sizeof(p->vendor), "0x%02x", impl);
        }
        p->model    = part;
        p->stepping = variant;
        if (p->cpu_model[0] == '\0' && impl != 0) {
            snprintf(p->cpu_model, sizeof(p->cpu_model), "%s%s%s part 0x%03x",
                     pname != NULL ? pname : "", pname != NULL ? " " : "",
                     vname != NULL ? vname : "implementer", part);
        }
    }
#endif
    if (p->vendor[0] == '\0') {
        if (tc_cpuinfo_field("vendor_id", buf, sizeof(buf))) {
            tc_copy(p->vendor, sizeof(p->vendor), buf);
        } else {
            snprintf(p->vendor, sizeof(p->vendor), "unknown");
        }
    }
}

/* ------------------------------------------------------------- topology */

static unsigned tc_hwloc_count(hwloc_topology_t topo, hwloc_obj_type_t type)
{
    int n = hwloc_get_nbobjs_by_type(topo, type);

    return n > 0 ? (unsigned)n : 0;
}

static void tc_hwloc_cache(hwloc_topology_t topo, hwloc_obj_type_t type, uint64_t *size_p,
                           unsigned *count_p, unsigned *line_p)
{
    hwloc_obj_t obj = hwloc_get_obj_by_type(topo, type, 0);

    *count_p = tc_hwloc_count(topo, type);
    *size_p  = 0;
    if (obj != NULL && obj->attr != NULL) {
        *size_p = obj->attr->cache.size;
        if (*line_p == 0 && obj->attr->cache.linesize > 0) {
            *line_p = obj->attr->cache.linesize;
        }
    }
}

static void tc_platform_topology(tc_platform_t *p)
{
    hwloc_topology_t topo;
    int              rc;

    if (hwloc_topology_init(&topo) != 0) {
        tc_feat_no(&p->topology, "hwloc_topology_init: %s", strerror(errno));
        return;
    }
    rc = hwloc_topology_load(topo);
    if (rc != 0) {
        tc_feat_no(&p->topology, "hwloc_topology_load: %s", strerror(errno));
        hwloc_topology_destroy(topo);
        return;
    }
    p->packages   = tc_hwloc_count(topo, HWLOC_OBJ_PACKAGE);
    p->cores      = tc_hwloc_count(topo, HWLOC_OBJ_CORE);
    p->pus        = tc_hwloc_count(topo, HWLOC_OBJ_PU);
    p->numa_nodes = tc_hwloc_count(topo, HWLOC_OBJ_NUMANODE);
    /* hwloc 2 keeps L1 instruction caches in their own type: L1CACHE is the
     * data (or unified) cache. The line size is L1d's, else the next one's. */
    tc_hwloc_cache(topo, HWLOC_OBJ_L1CACHE, &p->l1d_bytes, &p->l1d_count, &p->line_bytes);
    tc_hwloc_cache(topo, HWLOC_OBJ_L2CACHE, &p->l2_bytes, &p->l2_count, &p->line_bytes);
    tc_hwloc_cache(topo, HWLOC_OBJ_L3CACHE, &p->l3_bytes, &p->l3_count, &p->line_bytes);
    if (p->cpu_model[0] == '\0') {
        hwloc_obj_t pkg   = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0);
        const char *model = pkg != NULL ? hwloc_obj_get_info_by_name(pkg, "CPUModel") : NULL;

        if (model != NULL) {
            snprintf(p->cpu_model, sizeof(p->cpu_model), "%s", model);
        }
    }
    hwloc_topology_destroy(topo);
    tc_feat_yes(&p->topology);
}

/* ------------------------------------------------- wait / ops / placement */

/* The CPU's answers are the library's (lib/arch/cpu.c): what it refuses is what
 * the report says; the enums are in the same order. */
_Static_assert((int)TC_PLATFORM_WAIT_COUNT == (int)TC_CPU_WAIT_COUNT, "tc_platform_wait_t is tc_wait_t");
_Static_assert((int)TC_PLATFORM_OP_COUNT == (int)TC_CPU_OP_COUNT, "tc_platform_op_t is tc_cpu_op_t");
_Static_assert((int)TC_PLATFORM_PLACE_COUNT == (int)TC_CPU_PLACE_COUNT, "tc_platform_place_t is tc_place_t");

static void tc_platform_cpu_features(tc_platform_t *p, const tc_cpu_ident_t *id)
{
    tc_cpu_features_t f;
    unsigned          i;

    tc_cpu_features(id, &f);
    memcpy(p->wait, f.wait, sizeof(p->wait));
    memcpy(p->op, f.op, sizeof(p->op));
    memcpy(p->place, f.place, sizeof(p->place));
    /* the sequences are lib/arch/place's: what it runs is what the report says */
    for (i = 0; i < TC_PLATFORM_PLACE_COUNT; ++i) {
        snprintf(p->place_seq[i], sizeof(p->place_seq[i]), "%s", tc_place_sequence((tc_place_t)i));
    }
}

static void tc_platform_control(tc_platform_feature_t *f, const tc_hwctl_ops_t *ops)
{
    unsigned   *units = NULL;
    unsigned    n     = 0;
    tc_status_t st;

    st = ops->probe(NULL, &units, &n, f->status, sizeof(f->status));
    free(units);
    if (st == TC_OK) {
        tc_feat_yes(f);
    } else {
        f->supported = 0;
        if (strncmp(f->status, "unsupported: ", 13) != 0) {
            char why[TC_PLATFORM_STATUS_LEN];

            snprintf(why, sizeof(why), "%s", f->status);
            tc_feat_no(f, "%s", why[0] != '\0' ? why : tc_status_str(st));
        }
    }
}

tc_status_t tc_platform_probe(tc_platform_t *platform_p)
{
    tc_platform_t  *p;
    tc_cpu_ident_t  id;

    if (platform_p == NULL) {
        return TC_ERR_INVALID_PARAM;
    }
    p = calloc(1, sizeof(*p));
    if (p == NULL) {
        return TC_ERR_NO_MEMORY;
    }
    tc_cpu_ident(&id);
    tc_platform_cpu(p, &id);
    tc_platform_topology(p);
    if (tc_cycles_probe(p->pmu.status, sizeof(p->pmu.status)) == TC_OK) {
        tc_feat_yes(&p->pmu);
    }
    tc_platform_cpu_features(p, &id);
    tc_platform_control(&p->hw_prefetch, &tc_hwctl_prefetch_ops);
    tc_platform_control(&p->stash, &tc_hwctl_stash_ops);
    tc_platform_net_probe(&p->net);
    *platform_p = *p;
    free(p);
    return TC_OK;
}

/* --------------------------------------------------------------- report */

typedef struct tc_out {
    FILE       *f;
    int         json;
    int         n_top;    /* members written at the top level */
    int         n_group;  /* members written in the open group */
    const char *group;    /* NULL at the top level */
} tc_out_t;

void tc_json_string(FILE *f, const char *s)
{
    const unsigned char *c;

    fputc('"', f);
    for (c = (const unsigned char *)s; *c != '\0'; ++c) {
        switch (*c) {
        case '"':  fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*c < 0x20 || *c == 0x7f) {
                fprintf(f, "\\u%04x", *c);
            } else {
                fputc(*c, f);
            }
        }
    }
    fputc('"', f);
}

static void tc_out_key(tc_out_t *o, const char *key)
{
    if (o->json) {
        int *n = o->group != NULL ? &o->n_group : &o->n_top;

        fputs(*n > 0 ? ", " : "", o->f);
        tc_json_string(o->f, key);
        fputs(": ", o->f);
        ++*n;
    } else if (o->group != NULL) {
        fprintf(o->f, "%s.%s: ", o->group, key);
    } else {
        fprintf(o->f, "%s: ", key);
    }
}

static void tc_out_str(tc_out_t *o, const char *key, const char *value)
{
    tc_out_key(o, key);
    if (o->json) {
        tc_json_string(o->f, value);
    } else {
        fprintf(o->f, "%s\n", value);
    }
}

static void tc_out_u64(tc_out_t *o, const char *key, uint64_t value)
{
    tc_out_key(o, key);
    fprintf(o->f, o->json ? "%llu" : "%llu\n", (unsigned long long)value);
}

static void tc_out_group(tc_out_t *o, const char *group)
{
    if (o->json) {
        tc_out_key(o, group);
        fputc('{', o->f);
    }
    o->group   = group;
    o->n_group = 0;
}

static void tc_out_group_end(tc_out_t *o)
{
    if (o->json) {
        fputc('}', o->f);
    }
    o->group = NULL;
}

static void tc_size_str(char *buf, size_t len, uint64_t bytes, unsigned count)
{
    if (bytes == 0) {
        snprintf(buf, len, "none");
    } else if (bytes % (1024 * 1024) == 0) {
        snprintf(buf, len, "%llu MiB x%u", (unsigned long long)(bytes >> 20), count);
    } else if (bytes % 1024 == 0) {
        snprintf(buf, len, "%llu KiB x%u", (unsigned long long)(bytes >> 10), count);
    } else {
        snprintf(buf, len, "%llu B x%u", (unsigned long long)bytes, count);
    }
}

void tc_platform_print(const tc_platform_t *p, FILE *f, int json)
{
    tc_out_t o = { .f = f, .json = json };
    char     buf[256], l1[32], l2[32], l3[32], line[48];
    unsigned i;

    if (json) {
        fputc('{', f);
    }
    tc_out_str(&o, "arch", p->arch);
    tc_out_str(&o, "emulated", p->emulated);

    tc_out_group(&o, "cpu");
    tc_out_str(&o, "vendor", p->vendor);
    tc_out_str(&o, "model_name", p->cpu_model[0] != '\0' ? p->cpu_model : "unknown");
    tc_out_u64(&o, "family", p->family);
    tc_out_u64(&o, "model", p->model);
    tc_out_u64(&o, "stepping", p->stepping);
    tc_out_str(&o, "hypervisor", p->hypervisor[0] != '\0' ? p->hypervisor : "none");
    tc_out_group_end(&o);

    tc_out_group(&o, "topology");
    tc_out_str(&o, "status", p->topology.status);
    if (p->topology.supported) {
        tc_size_str(l1, sizeof(l1), p->l1d_bytes, p->l1d_count);
        tc_size_str(l2, sizeof(l2), p->l2_bytes, p->l2_count);
        tc_size_str(l3, sizeof(l3), p->l3_bytes, p->l3_count);
        /* no cache, no line size: a kernel without
         * /sys/devices/system/cpu/cpuN/cache gives hwloc none where it has
         * no CPUID to ask (aarch64 under qemu-user on a bhyve guest) */
        if (p->line_bytes != 0) {
            snprintf(line, sizeof(line), "%u B", p->line_bytes);
        } else {
            snprintf(line, sizeof(line), "unknown (hwloc found no cache)");
        }
        snprintf(buf, sizeof(buf), "L1d %s, L2 %s, L3 %s, line %s, %u package%s, "
                 "%u core%s, %u PU%s, %u NUMA node%s", l1, l2, l3, line,
                 p->packages, p->packages == 1 ? "" : "s", p->cores,
                 p->cores == 1 ? "" : "s", p->pus, p->pus == 1 ? "" : "s",
                 p->numa_nodes, p->numa_nodes == 1 ? "" : "s");
        tc_out_str(&o, "summary", buf);
        tc_out_u64(&o, "l1d_bytes", p->l1d_bytes);
        tc_out_u64(&o, "l1d_count", p->l1d_count);
        tc_out_u64(&o, "l2_bytes", p->l2_bytes);
        tc_out_u64(&o, "l2_count", p->l2_count);
        tc_out_u64(&o, "l3_bytes", p->l3_bytes);
        tc_out_u64(&o, "l3_count", p->l3_count);
        tc_out_u64(&o, "line_bytes", p->line_bytes);
        tc_out_u64(&o, "packages", p->packages);
        tc_out_u64(&o, "cores", p->cores);
        tc_out_u64(&o, "pus", p->pus);
        tc_out_u64(&o, "numa_nodes", p->numa_nodes);
    }
    tc_out_group_end(&o);

    tc_out_str(&o, "pmu", p->pmu.status);

    tc_out_group(&o, "wait");
    for (i = 0; i < TC_PLATFORM_WAIT_COUNT; ++i) {
        tc_out_str(&o, tc_names_wait.names[i], p->wait[i].status);
    }
    tc_out_group_end(&o);

    tc_out_group(&o, "cache_op");
    for (i = 0; i < TC_PLATFORM_OP_COUNT; ++i) {
        tc_out_str(&o, tc_platform_op_names[i], p->op[i].status);
    }
    tc_out_group_end(&o);

    tc_out_group(&o, "placement");
    for (i = 0; i < TC_PLATFORM_PLACE_COUNT; ++i) {
        tc_out_str(&o, tc_names_place.names[i], p->place[i].status);
    }
    for (i = 0; i < TC_PLATFORM_PLACE_COUNT; ++i) {
        snprintf(buf, sizeof(buf), "%s_sequence", tc_names_place.names[i]);
        tc_out_str(&o, buf, p->place_seq[i]);
    }
    tc_out_group_end(&o);

    tc_out_group(&o, "control");
    tc_out_str(&o, "hw_prefetch", p->hw_prefetch.status);
    tc_out_str(&o, "stash", p->stash.status);
    tc_out_group_end(&o);

    tc_out_group(&o, "network");
    tc_out_str(&o, "ucx_version", p->net.ucx_version);
    tc_out_str(&o, "ucx_transports", p->net.transports);
    for (i = 0; i < p->net.n_nics; ++i) {
        char key[48], nic[160];

        snprintf(key, sizeof(key), "nic_%s", p->net.nics[i].name);
        tc_platform_nic_str(&p->net.nics[i], nic, sizeof(nic));
        tc_out_str(&o, key, strchr(nic, ' ') + 1);
    }
    if (p->net.n_nics == 0) {
        tc_out_str(&o, "nics", "none (no /sys/class/net entry but lo)");
    }
    tc_out_group_end(&o);

    if (json) {
        fputs("}\n", f);
    }
    fflush(f);
}

tc_status_t tc_platform_report(FILE *f, int json)
{
    tc_platform_t *p;
    tc_status_t    st;

    if (f == NULL) {
        return TC_ERR_INVALID_PARAM;
    }
    p = malloc(sizeof(*p));
    if (p == NULL) {
        return TC_ERR_NO_MEMORY;
    }
    st = tc_platform_probe(p);
    if (st == TC_OK) {
        tc_platform_print(p, f, json);
    }
    free(p);
    return st;
}

/* ====================================================== hardware controls */

/* --- async-signal-safe helpers */

/* "<prefix><n><suffix>" into buf without stdio. */
static void tc_path_uint(char *buf, size_t len, const char *prefix, unsigned n,
                         const char *suffix)
{
    char   digits[12];
    size_t d = 0, i = 0;

    do {
        digits[d++] = (char)('0' + n % 10);
        n /= 10;
    } while (n != 0 && d < sizeof(digits));
    for (; *prefix != '\0' && i + 1 < len; ++prefix) {
        buf[i++] = *prefix;
    }
    while (d > 0 && i + 1 < len) {
        buf[i++] = digits[--d];
    }
    for (; *suffix != '\0' && i + 1 < len; ++suffix) {
        buf[i++] = *suffix;
    }
    buf[i] = '\0';
}

/* --- online CPUs: "0-3,8,10-11" */

__attribute__((unused)) /* users are x86-only */
static tc_status_t tc_online_cpus(unsigned **units_p, unsigned *n_p)
{
    FILE     *f = fopen("/sys/devices/system/cpu/online", "r");
    char      line[4096], *p;
    unsigned *units = NULL, n = 0, cap = 0;

    if (f == NULL) {
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

        snprintf(line, sizeof(line), "0-%ld", ncpu > 0 ? ncpu - 1 : 0);
    } else {
        if (fgets(line, sizeof(line), f) == NULL) {
            line[0] = '\0';
        }
        fclose(f);
    }
    for (p = line; *p != '\0' && *p != '\n';) {
        char         *end;
        unsigned long a = strtoul(p, &end, 10), b = a;

        if (end == p) {
            break;
        }
        if (*end == '-') {
            p = end + 1;
            b = strtoul(p, &end, 10);
        }
        for (; a <= b && a < 65536; ++a) {
            if (n == cap) {
                unsigned *u;

                cap = cap ? cap * 2 : 64;
                u   = realloc(units, cap * sizeof(*units));
                if (u == NULL) {
                    free(units);
                    return TC_ERR_NO_MEMORY;
                }
                units = u;
            }
            units[n++] = (unsigned)a;
        }
        p = *end == ',' ? end + 1 : end;
    }
    if (n == 0) {
        free(units);
        return TC_ERR_NOT_FOUND;
    }
    *units_p = units;
    *n_p     = n;
    return TC_OK;
}

/* --- the Intel prefetch backend: MSR 0x1A4 (MISC_FEATURE_CONTROL) bits
 * 0..3 disable the L2 streamer, L2 adjacent-line, L1 DCU next-line and L1
 * DCU IP prefetchers: all 0 = on, all 1 = off. */

#define TC_MSR_PREFETCH 0x1a4

static tc_status_t tc_msr_access(unsigned cpu, uint64_t *value, int write, int *err_p)
{
    char    path[48];
    int     fd;
    ssize_t n;

    tc_path_uint(path, sizeof(path), "/dev/cpu/", cpu, "/msr");
    fd = open(path, (write ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
    if (fd < 0) {
        *err_p = errno;
        return TC_ERR_IO;
    }
    n = write ? pwrite(fd, value, sizeof(*value), TC_MSR_PREFETCH)
              : pread(fd, value, sizeof(*value), TC_MSR_PREFETCH);
    *err_p = n == (ssize_t)sizeof(*value) ? 0 : (n < 0 ? errno : EIO);
    close(fd);
    return *err_p == 0 ? TC_OK : TC_ERR_IO;
}

static tc_status_t tc_prefetch_probe(void *ctx, unsigned **units_p, unsigned *n_units_p,
                                     char *why, size_t len)
{
    tc_cpu_ident_t id;
    unsigned      *units = NULL, n = 0;
    uint64_t       v;
    int            err = 0;
    tc_status_t    st;

    (void)ctx;
    tc_cpu_ident(&id);
#if defined(__x86_64__)
    if (tc_cpu_is_amd(&id)) {
        snprintf(why, len, "unsupported: no documented control exposed on %s", id.vendor);
        return TC_ERR_UNSUPPORTED;
    }
    if (!tc_cpu_is_intel(&id)) {
        snprintf(why, len, "unsupported: no documented control exposed on %s",
                 id.vendor[0] != '\0' ? id.vendor : "this CPU");
        return TC_ERR_UNSUPPORTED;
    }
    if (id.family != 6) {
        snprintf(why, len, "unsupported: MSR 0x1a4 prefetch control is documented for "
                 "Intel family 6, this is family %u", id.family);
        return TC_ERR_UNSUPPORTED;
    }
    if (!tc_path_exists("/dev/cpu/0/msr")) {
        snprintf(why, len, "unsupported: /dev/cpu/0/msr missing (modprobe msr?)");
        return TC_ERR_UNSUPPORTED;
    }
    if (geteuid() != 0) {
        snprintf(why, len, "unsupported: not root (MSR access needs root and "
                 "CAP_SYS_RAWIO)");
        return TC_ERR_UNSUPPORTED;
    }
    st = tc_online_cpus(&units, &n);
    if (st != TC_OK) {
        snprintf(why, len, "unsupported: cannot list online CPUs (%s)", tc_status_str(st));
        return TC_ERR_UNSUPPORTED;
    }
    if (tc_msr_access(units[0], &v, 0, &err) != TC_OK) {
        snprintf(why, len, "unsupported: rdmsr 0x1a4 on cpu %u: %s%s", units[0],
                 strerror(err), id.in_vm ? " (the hypervisor does not expose it)" : "");
        free(units);
        return TC_ERR_UNSUPPORTED;
    }
    *units_p   = units;
    *n_units_p = n;
    if (why != NULL && len > 0) {
        snprintf(why, len, "supported");
    }
    return TC_OK;
#elif defined(__aarch64__)
    (void)units; (void)n; (void)v; (void)err; (void)st; (void)units_p; (void)n_units_p;
    snprintf(why, len, "unsupported: no documented control exposed on Arm (the "
             "prefetchers sit behind implementation-defined EL1/EL3 registers, no "
             "OS interface)");
    return TC_ERR_UNSUPPORTED;
#else
    (void)units; (void)n; (void)v; (void)err; (void)st; (void)units_p; (void)n_units_p;
    (void)id;
    snprintf(why, len, "unsupported: no documented control exposed on this architecture");
    return TC_ERR_UNSUPPORTED;
#endif
}

static tc_status_t tc_prefetch_read(void *ctx, unsigned unit, uint64_t *value_p)
{
    int err;

    (void)ctx;
    return tc_msr_access(unit, value_p, 0, &err);
}

static tc_status_t tc_prefetch_write(void *ctx, unsigned unit, uint64_t value)
{
    int err;

    (void)ctx;
    return tc_msr_access(unit, &value, 1, &err);
}

const tc_hwctl_ops_t tc_hwctl_prefetch_ops = {
    .name      = "hw_prefetch",
    .mechanism = "intel msr 0x1a4 bits 0-3 via /dev/cpu/N/msr",
    .mask      = 0xf,
    .on_bits   = 0x0,
    .off_bits  = 0xf,
    .probe     = tc_prefetch_probe,
    .read      = tc_prefetch_read,
    .write     = tc_prefetch_write,
};

/* --- I/O stashing: no backend can do it portably. */

static tc_status_t tc_stash_probe(void *ctx, unsigned **units_p, unsigned *n_units_p,
                                  char *why, size_t len)
{
    tc_cpu_ident_t id;

    (void)ctx;
    (void)units_p;
    (void)n_units_p;
    tc_cpu_ident(&id);
#if defined(__x86_64__)
    if (tc_cpu_is_intel(&id)) {
        snprintf(why, len, "unsupported: Intel DDIO is set per PCIe root port in "
                 "model-specific IIO config registers (e.g. perfctrlsts_0); needs bare metal, "
                 "root, the root ports' addresses and the model's layout: not implemented%s",
                 id.in_vm ? "; a VM cannot see the host's root ports" : "");
    } else if (tc_cpu_is_amd(&id)) {
        snprintf(why, len, "unsupported: no documented I/O stashing control exposed on %s",
                 id.vendor);
    } else {
        snprintf(why, len, "unsupported: no documented I/O stashing control exposed");
    }
#elif defined(__aarch64__)
    (void)id;
    snprintf(why, len, "unsupported: Arm stashing is set by firmware in the interconnect "
             "and by devices (PCIe TPH steering tags); no OS interface exposed");
#else
    (void)id;
    snprintf(why, len, "unsupported: no documented I/O stashing control exposed");
#endif
    return TC_ERR_UNSUPPORTED;
}

static tc_status_t tc_stash_read(void *ctx, unsigned unit, uint64_t *value_p)
{
    (void)ctx;
    (void)unit;
    (void)value_p;
    return TC_ERR_UNSUPPORTED;
}

static tc_status_t tc_stash_write(void *ctx, unsigned unit, uint64_t value)
{
    (void)ctx;
    (void)unit;
    (void)value;
    return TC_ERR_UNSUPPORTED;
}

const tc_hwctl_ops_t tc_hwctl_stash_ops = {
    .name      = "stash",
    .mechanism = "none",
    .mask      = 0x1,
    .on_bits   = 0x1,
    .off_bits  = 0x0,
    .probe     = tc_stash_probe,
    .read      = tc_stash_read,
    .write     = tc_stash_write,
};

/* --- the restore registry (the one piece of global state: see the top) */

#define TC_HWCTL_MAX 8

typedef struct tc_hwctl_entry {
    const tc_hwctl_ops_t *ops;
    void                 *ctx;
    unsigned             *units;   /* never freed: the handler may be using them */
    uint64_t             *saved;
    unsigned              n_units;
    unsigned              cap;
    pid_t                 owner;   /* only the process that saved restores */
    int                   active;  /* __atomic: saved values are valid */
} tc_hwctl_entry_t;

static const int tc_hwctl_signals[] = { SIGINT, SIGTERM, SIGHUP };

static struct {
    pthread_mutex_t  lock;
    int              hooks;        /* atexit + handlers installed */
    tc_hwctl_entry_t entry[TC_HWCTL_MAX];
    struct sigaction old[3];       /* per tc_hwctl_signals */
} tc_hwctl_reg = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void tc_hwctl_restore_entry(tc_hwctl_entry_t *e)
{
    unsigned i;

    for (i = 0; i < e->n_units; ++i) {
        (void)e->ops->write(e->ctx, e->units[i], e->saved[i]);
    }
}

/* Signal-safe: no locks, no allocation, no stdio. */
static void tc_hwctl_restore_signal_safe(void)
{
    pid_t    self = getpid();
    unsigned i;

    for (i = 0; i < TC_HWCTL_MAX; ++i) {
        tc_hwctl_entry_t *e = &tc_hwctl_reg.entry[i];

        if (__atomic_load_n(&e->active, __ATOMIC_ACQUIRE) && e->owner == self) {
            tc_hwctl_restore_entry(e);
            __atomic_store_n(&e->active, 0, __ATOMIC_RELEASE);
        }
    }
}

static void tc_hwctl_on_signal(int sig, siginfo_t *info, void *uctx)
{
    int               saved_errno = errno;
    struct sigaction *old = NULL;
    unsigned          i;

    tc_hwctl_restore_signal_safe();
    for (i = 0; i < TC_ARRAY_SIZE(tc_hwctl_signals); ++i) {
        if (tc_hwctl_signals[i] == sig) {
            old = &tc_hwctl_reg.old[i];
        }
    }
    if (old != NULL && (old->sa_flags & SA_SIGINFO) && old->sa_sigaction != NULL) {
        old->sa_sigaction(sig, info, uctx);
    } else if (old != NULL && old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
        old->sa_handler(sig);
    } else {
        /* Default action: reinstate it and re-raise; the signal is blocked
         * while we run and is delivered as we return. */
        struct sigaction dfl;

        memset(&dfl, 0, sizeof(dfl));
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        sigaction(sig, &dfl, NULL);
        raise(sig);
    }
    errno = saved_errno;
}

static void tc_hwctl_atexit(void)
{
    tc_hwctl_restore_all();
}

/* Called with the lock held, on every first set of a control: installs
 * the atexit hook once, and our signal handler wherever it is not the
 * current one (a program that installed its own handler since is chained
 * to: ours restores, then calls it). */
static void tc_hwctl_install_hooks(void)
{
    struct sigaction sa, cur;
    unsigned         i;

    if (!tc_hwctl_reg.hooks) {
        tc_hwctl_reg.hooks = 1;
        if (atexit(tc_hwctl_atexit) != 0) {
            tc_warn("hwctl: atexit failed: controls restore only on signals or explicitly");
        }
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = tc_hwctl_on_signal;
    sa.sa_flags     = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (i = 0; i < TC_ARRAY_SIZE(tc_hwctl_signals); ++i) {
        sigaddset(&sa.sa_mask, tc_hwctl_signals[i]);
    }
    for (i = 0; i < TC_ARRAY_SIZE(tc_hwctl_signals); ++i) {
        if (sigaction(tc_hwctl_signals[i], NULL, &cur) != 0) {
            continue;
        }
        if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == tc_hwctl_on_signal) {
            continue; /* still ours */
        }
        /* A process that ignores the signal keeps ignoring it: it will not
         * die of it, and exit restores. */
        if (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_IGN) {
            continue;
        }
        /* The handler reads old[] only for the signal it runs for, and the
         * signal cannot arrive with our handler before sigaction below. */
        tc_hwctl_reg.old[i] = cur;
        (void)sigaction(tc_hwctl_signals[i], &sa, NULL);
    }
}

static tc_hwctl_entry_t *tc_hwctl_find(const tc_hwctl_ops_t *ops, void *ctx, int create)
{
    tc_hwctl_entry_t *free_slot = NULL;
    unsigned          i;

    for (i = 0; i < TC_HWCTL_MAX; ++i) {
        tc_hwctl_entry_t *e = &tc_hwctl_reg.entry[i];

        if (e->ops == ops && e->ctx == ctx) {
            return e;
        }
        if (e->ops == NULL && free_slot == NULL) {
            free_slot = e;
        }
    }
    if (create && free_slot != NULL) {
        free_slot->ops = ops;
        free_slot->ctx = ctx;
        return free_slot;
    }
    return NULL;
}

static void tc_hwctl_fail(char *why, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void tc_hwctl_fail(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;

    if (why == NULL || len == 0) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
}

/* Probe into a local buffer (why may be NULL). */
static tc_status_t tc_hwctl_probe(const tc_hwctl_ops_t *ops, void *ctx, unsigned **units_p,
                                  unsigned *n_p, char *why, size_t len)
{
    char        local[TC_PLATFORM_STATUS_LEN];
    tc_status_t st;

    local[0] = '\0';
    st = ops->probe(ctx, units_p, n_p, local, sizeof(local));
    if (st != TC_OK) {
        tc_hwctl_fail(why, len, "%s", local[0] != '\0' ? local : "unsupported: probe failed");
        return st == TC_ERR_UNSUPPORTED ? st : TC_ERR_UNSUPPORTED;
    }
    return TC_OK;
}

tc_status_t tc_hwctl_get(const tc_hwctl_ops_t *ops, void *ctx, char *why, size_t len,
                         tc_hwctl_state_t *state_p)
{
    unsigned   *units = NULL, n = 0, i, n_on = 0, n_off = 0;
    uint64_t    v;
    tc_status_t st;

    if (ops == NULL || state_p == NULL) {
        return TC_ERR_INVALID_PARAM;
    }
    st = tc_hwctl_probe(ops, ctx, &units, &n, why, len);
    if (st != TC_OK) {
        return st;
    }
    for (i = 0; i < n; ++i) {
        st = ops->read(ctx, units[i], &v);
        if (st != TC_OK) {
            tc_hwctl_fail(why, len, "%s: read of unit %u failed: %s", ops->name, units[i],
                          tc_status_str(st));
            free(units);
            return st;
        }
        n_on  += (v & ops->mask) == ops->on_bits;
        n_off += (v & ops->mask) == ops->off_bits;
    }
    free(units);
    *state_p = n_on == n ? TC_HWCTL_ON : n_off == n ? TC_HWCTL_OFF : TC_HWCTL_MIXED;
    return TC_OK;
}

tc_status_t tc_hwctl_set(const tc_hwctl_ops_t *ops, void *ctx, int on, char *why, size_t len)
{
    tc_hwctl_entry_t *e;
    unsigned         *units = NULL, n = 0, i, done;
    int               first = 0;
    uint64_t          v;
    tc_status_t       st;

    if (ops == NULL) {
        return TC_ERR_INVALID_PARAM;
    }
    st = tc_hwctl_probe(ops, ctx, &units, &n, why, len);
    if (st != TC_OK) {
        return st;
    }

    pthread_mutex_lock(&tc_hwctl_reg.lock);
    e = tc_hwctl_find(ops, ctx, 1);
    if (e == NULL) {
        pthread_mutex_unlock(&tc_hwctl_reg.lock);
        free(units);
        tc_hwctl_fail(why, len, "%s: too many controls in the restore registry", ops->name);
        return TC_ERR_NO_RESOURCE;
    }
    if (!__atomic_load_n(&e->active, __ATOMIC_ACQUIRE) || e->owner != getpid()) {
        /* First set (or first in this process after a fork): save. */
        __atomic_store_n(&e->active, 0, __ATOMIC_RELEASE);
        if (e->cap < n) {
            unsigned *nu = malloc(n * sizeof(*nu));
            uint64_t *ns = malloc(n * sizeof(*ns));

            if (nu == NULL || ns == NULL) {
                free(nu);
                free(ns);
                pthread_mutex_unlock(&tc_hwctl_reg.lock);
                free(units);
                return TC_ERR_NO_MEMORY;
            }
            /* The old arrays are dropped, not freed: a handler on another
             * thread could still be reading them. */
            e->units = nu;
            e->saved = ns;
            e->cap   = n;
        }
        for (i = 0; i < n; ++i) {
            st = ops->read(ctx, units[i], &e->saved[i]);
            if (st != TC_OK) {
                pthread_mutex_unlock(&tc_hwctl_reg.lock);
                tc_hwctl_fail(why, len, "%s: saving unit %u failed: %s", ops->name,
                              units[i], tc_status_str(st));
                free(units);
                return st;
            }
            e->units[i] = units[i];
        }
        e->n_units = n;
        e->owner   = getpid();
        first      = 1;
        tc_hwctl_install_hooks();
        __atomic_store_n(&e->active, 1, __ATOMIC_RELEASE);
    }
    free(units);

    /* Write the new value into every saved unit, keeping the bits the
     * control does not own. */
    for (done = 0; done < e->n_units; ++done) {
        v  = (e->saved[done] & ~ops->mask) | (on ? ops->on_bits : ops->off_bits);
        st = ops->write(ctx, e->units[done], v);
        if (st != TC_OK) {
            break;
        }
    }
    if (done < e->n_units) {
        unsigned failed = e->units[done];

        for (i = 0; i < done; ++i) {
            (void)ops->write(ctx, e->units[i], e->saved[i]);
        }
        if (first) {
            /* Nothing of ours is left set: nothing to restore later. */
            __atomic_store_n(&e->active, 0, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&tc_hwctl_reg.lock);
        tc_hwctl_fail(why, len, "%s: write of unit %u failed (%s); the %u unit%s already "
                      "written were restored", ops->name, failed, tc_status_str(st), done,
                      done == 1 ? "" : "s");
        return st;
    }
    pthread_mutex_unlock(&tc_hwctl_reg.lock);
    if (why != NULL && len > 0) {
        snprintf(why, len, "%s %s on %u unit%s", ops->name, on ? "on" : "off", e->n_units,
                 e->n_units == 1 ? "" : "s");
    }
    return TC_OK;
}

tc_status_t tc_hwctl_restore(const tc_hwctl_ops_t *ops, void *ctx)
{
    tc_hwctl_entry_t *e;
    tc_status_t       st = TC_OK, wst;
    unsigned          i;

    if (ops == NULL) {
        return TC_ERR_INVALID_PARAM;
    }
    pthread_mutex_lock(&tc_hwctl_reg.lock);
    e = tc_hwctl_find(ops, ctx, 0);
    if (e != NULL && __atomic_load_n(&e->active, __ATOMIC_ACQUIRE) && e->owner == getpid()) {
        for (i = 0; i < e->n_units; ++i) {
            wst = ops->write(ctx, e->units[i], e->saved[i]);
            if (wst != TC_OK && st == TC_OK) {
                tc_error("%s: restoring unit %u failed: %s", ops->name, e->units[i],
                         tc_status_str(wst));
                st = wst;
            }
        }
        __atomic_store_n(&e->active, 0, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&tc_hwctl_reg.lock);
    return st;
}

void tc_hwctl_restore_all(void)
{
    unsigned i;

    for (i = 0; i < TC_HWCTL_MAX; ++i) {
        const tc_hwctl_ops_t *ops;
        void                 *ctx;

        pthread_mutex_lock(&tc_hwctl_reg.lock);
        ops = tc_hwctl_reg.entry[i].ops;
        ctx = tc_hwctl_reg.entry[i].ctx;
        pthread_mutex_unlock(&tc_hwctl_reg.lock);
        if (ops != NULL) {
            (void)tc_hwctl_restore(ops, ctx);
        }
    }
}

/* --- shorthands */

tc_status_t tc_platform_prefetch_get(char *why, size_t len, tc_hwctl_state_t *state_p)
{
    return tc_hwctl_get(&tc_hwctl_prefetch_ops, NULL, why, len, state_p);
}

tc_status_t tc_platform_prefetch_set(int on, char *why, size_t len)
{
    return tc_hwctl_set(&tc_hwctl_prefetch_ops, NULL, on, why, len);
}

tc_status_t tc_platform_prefetch_restore(void)
{
    return tc_hwctl_restore(&tc_hwctl_prefetch_ops, NULL);
}

tc_status_t tc_platform_stash_get(char *why, size_t len, tc_hwctl_state_t *state_p)
{
    return tc_hwctl_get(&tc_hwctl_stash_ops, NULL, why, len, state_p);
}

tc_status_t tc_platform_stash_set(int on, char *why, size_t len)
{
    return tc_hwctl_set(&tc_hwctl_stash_ops, NULL, on, why, len);
}

tc_status_t tc_platform_stash_restore(void)
{
    return tc_hwctl_restore(&tc_hwctl_stash_ops, NULL);
}
