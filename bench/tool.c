#define _GNU_SOURCE /* sched_getaffinity, CPU_* */
#include "tool.h"
#include "log.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <hwloc.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "build_rev.h"

static const char *const tc_tool_api_names[TC_TOOL_API_LAST] = {"send", "prepared"};
const tc_names_t tc_tool_names_api = {"api", tc_tool_api_names, TC_TOOL_API_LAST};

int tc_tool_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *val_p)
{
    unsigned long long v;
    char *end;

    if ((s == NULL) || (*s < '0') || (*s > '9')) {
        return -1; /* strtoull would take "-5" and " 5" */
    }
    errno = 0;
    v     = strtoull(s, &end, 10);
    if ((errno != 0) || (*end != '\0') || (v < min) || (v > max)) {
        return -1;
    }
    *val_p = v;
    return 0;
}

tc_status_t tc_tool_pin(int cpu)
{
    hwloc_topology_t topo;
    hwloc_bitmap_t set;
    int rc;

    if (cpu < 0) {
        return TC_OK;
    }
    if (hwloc_topology_init(&topo) || hwloc_topology_load(topo)) {
        tc_error("hwloc topology failed");
        return TC_ERR_IO;
    }
    set = hwloc_bitmap_alloc();
    hwloc_bitmap_only(set, (unsigned)cpu);
    rc = hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD | HWLOC_CPUBIND_STRICT);
    if (rc != 0) {
        rc = hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD);
    }
    hwloc_bitmap_free(set);
    hwloc_topology_destroy(topo);
    if (rc != 0) {
        tc_error("cannot pin to cpu %d: %s", cpu, strerror(errno));
        return TC_ERR_INVALID_PARAM;
    }
    return TC_OK;
}

/* ------------------------------------------------------ shared options */

int tc_tool_bad(const tc_tool_t *tool, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "%s: ", tool->name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\ntry '%s --help'\n", tool->name);
    return TC_TOOL_EXIT_USAGE;
}

int tc_tool_unsupported(const tc_tool_t *tool, const char *fmt, ...)
{
    static const char prefix[] = "unsupported: ";
    char why[512], *at;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    /* "wait wfe: unsupported: not aarch64": the reason once, after ours */
    at = strstr(why, prefix);
    if (at != NULL) {
        memmove(at, at + strlen(prefix), strlen(at + strlen(prefix)) + 1);
    }
    fprintf(stderr, "%s: %s%s\n", tool->name, prefix, why);
    return TC_TOOL_EXIT_UNSUPPORTED;
}

int tc_tool_version(const tc_tool_t *tool)
{
    printf("%s (Two-Chains) rev %s, UCX %s\n", tool->name, tc_build_rev, tc_ucx_version());
    return 0;
}

int tc_tool_check_value(const tc_tool_t *tool, int argc, char **argv)
{
    const char *opt, *val;

    /* detached: optarg is the whole argument after the option's own */
    if ((optarg == NULL) || (optind < 2) || (optind > argc) || (optarg != argv[optind - 1])) {
        return 0;
    }
    val = optarg;
    opt = argv[optind - 2];
    if ((val[0] != '-') || (val[1] == '\0') || isdigit((unsigned char)val[1]) ||
        (val[1] == '.')) {
        return 0;
    }
    return tc_tool_bad(tool, "%s takes a value, and '%s' is an option (%s=%s if that is meant)",
                       opt, val, opt, val);
}

int tc_tool_bad_opt(const tc_tool_t *tool, int c, char **argv)
{
    if (c == ':') {
        return tc_tool_bad(tool, "option '%s' needs a value", argv[optind - 1]);
    }
    return tc_tool_bad(tool, "unknown option '%s'", argv[optind - 1]);
}

const char *tc_tool_jam_list(const tc_pkg_t *pkg, char *buf, size_t len)
{
    const tc_pkg_desc_t *desc = tc_pkg_desc(pkg);
    size_t used = 0;
    uint32_t e;
    int n;

    buf[0] = '\0';
    for (e = 0; (e < desc->n_elements) && (used < len); ++e) {
        if (desc->elements[e].kind == TC_ELEM_JAM) {
            n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
                         desc->elements[e].name);
            used += (n > 0) ? (size_t)n : 0;
        }
    }
    if ((used >= len) && (len >= 4)) {
        memcpy(buf + len - 4, "...", 4); /* cut: the list goes on */
    }
    return (buf[0] != '\0') ? buf : "none";
}

int tc_tool_bad_jam(const tc_tool_t *tool, const tc_pkg_t *pkg, const char *jam)
{
    char jams[256];

    return tc_tool_bad(tool, "package '%s' has no jam '%s' (its jams: %s)",
                       tc_pkg_desc(pkg)->name, jam, tc_tool_jam_list(pkg, jams, sizeof(jams)));
}

int tc_tool_opt_u64(const tc_tool_t *tool, const char *arg, uint64_t min, uint64_t max,
                    const char *bad_fmt, uint64_t *val_p)
{
    uint64_t v;

    if (tc_tool_parse_u64(arg, min, max, &v)) {
        return tc_tool_bad(tool, bad_fmt, arg);
    }
    *val_p = v;
    return 0;
}

int tc_tool_opt_pow2(const tc_tool_t *tool, const char *arg, uint64_t min, uint64_t max,
                     const char *bad_fmt, uint32_t *val_p)
{
    uint64_t v;

    if (tc_tool_parse_u64(arg, min, max, &v) || (v & (v - 1)) || (v > UINT32_MAX)) {
        return tc_tool_bad(tool, bad_fmt, arg);
    }
    *val_p = (uint32_t)v;
    return 0;
}

int tc_tool_opt_mult64(const tc_tool_t *tool, const char *arg, uint64_t min, uint64_t max,
                       const char *bad_fmt, uint32_t *val_p)
{
    uint64_t v;

    if (tc_tool_parse_u64(arg, min, max, &v) || (v % 64) || (v > UINT32_MAX)) {
        return tc_tool_bad(tool, bad_fmt, arg);
    }
    *val_p = (uint32_t)v;
    return 0;
}

int tc_tool_opt_timeout(const tc_tool_t *tool, const char *arg, int *ms_p)
{
    uint64_t v;

    if (tc_tool_parse_u64(arg, 1, 3600000, &v)) {
        return tc_tool_bad(tool, "bad timeout '%s' (1..3600000 ms)", arg);
    }
    *ms_p = (int)v;
    return 0;
}

int tc_tool_list_has_empty(const char *arg)
{
    size_t len = strlen(arg);

    return (len == 0) || (arg[0] == ',') || (arg[len - 1] == ',') || (strstr(arg, ",,") != NULL);
}

int tc_tool_bad_empty(const tc_tool_t *tool, const char *opt, const char *arg)
{
    return tc_tool_bad(tool, "empty item in '%s' (%s takes a comma list)", arg, opt);
}

/* One item of a list: N, or with ranges A:B (A, 2A, 4A ... up to B). */
static int tc_tool_list_item(const tc_tool_list_t *list, char *tok, uint64_t *vals,
                             unsigned *n_p)
{
    char *colon = list->ranges ? strchr(tok, ':') : NULL;
    uint64_t a, b, v;

    if (colon == NULL) {
        if ((*n_p == list->max_n) || tc_tool_parse_u64(tok, list->min, list->max, &v)) {
            return -1;
        }
        vals[(*n_p)++] = v;
        return 0;
    }
    *colon = '\0';
    if (tc_tool_parse_u64(tok, list->min, list->max, &a) ||
        tc_tool_parse_u64(colon + 1, list->min, list->max, &b) || (a > b)) {
        *colon = ':';
        return -1;
    }
    *colon = ':';
    for (v = a; v <= b; v = (v == 0) ? 1 : 2 * v) {
        if (*n_p == list->max_n) {
            return -1;
        }
        vals[(*n_p)++] = v;
    }
    return 0;
}

int tc_tool_opt_list(const tc_tool_t *tool, const char *arg, const tc_tool_list_t *list,
                     uint64_t *vals, unsigned *n_p)
{
    char *copy, *tok, *save = NULL;
    unsigned n = 0;
    int rc = 0;

    if (tc_tool_list_has_empty(arg)) {
        return tc_tool_bad_empty(tool, (list->opt != NULL) ? list->opt : "it", arg);
    }
    copy = strdup(arg);
    if (copy == NULL) {
        return tc_tool_bad(tool, "out of memory parsing '%s'", arg);
    }
    for (tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
        if (tc_tool_list_item(list, tok, vals, &n)) {
            rc = tc_tool_bad(tool, list->bad_fmt, list->bad_whole ? arg : tok);
            break;
        }
    }
    if ((rc == 0) && (n == 0)) {
        rc = tc_tool_bad(tool, list->none_fmt, arg);
    }
    free(copy);
    if (rc == 0) {
        *n_p = n;
    }
    return rc;
}

/* "0-1,3" from an affinity mask, for the message */
static void tc_tool_cpu_set_str(const cpu_set_t *set, char *buf, size_t len)
{
    size_t used = 0;
    int cpu, first;

    buf[0] = '\0';
    for (cpu = 0; (cpu < CPU_SETSIZE) && (used < len); ++cpu) {
        if (!CPU_ISSET(cpu, set)) {
            continue;
        }
        for (first = cpu; (cpu + 1 < CPU_SETSIZE) && CPU_ISSET(cpu + 1, set); ++cpu) {
        }
        used += (size_t)((first == cpu) ?
                         snprintf(buf + used, len - used, "%s%d", used ? "," : "", cpu) :
                         snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", first, cpu));
    }
}

int tc_tool_check_cpus(const tc_tool_t *tool, const int *cpus, unsigned n)
{
    char allowed[256];
    cpu_set_t set;
    unsigned i;

    if (sched_getaffinity(0, sizeof(set), &set) != 0) {
        return 0; /* nothing to check against: pinning will say */
    }
    for (i = 0; i < n; ++i) {
        if ((cpus[i] >= 0) && ((cpus[i] >= CPU_SETSIZE) || !CPU_ISSET(cpus[i], &set))) {
            tc_tool_cpu_set_str(&set, allowed, sizeof(allowed));
            return tc_tool_bad(tool, "cpu %d is not available here (allowed: %s)", cpus[i],
                               allowed);
        }
    }
    return 0;
}

int tc_tool_opt_cpus(const tc_tool_t *tool, const char *opt, const char *arg, unsigned n_min,
                     unsigned n_max, const char *roles, int *cpus, unsigned *n_p)
{
    char *copy, *item, *comma, here[256], takes[64];
    unsigned n = 0, items = 1;
    const char *c;
    cpu_set_t set;
    int got[64];
    uint64_t v;
    int rc = 0;

    here[0] = '\0';
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        tc_tool_cpu_set_str(&set, here, sizeof(here));
    }
    if (n_min == n_max) {
        snprintf(takes, sizeof(takes), "%u", n_min);
    } else {
        snprintf(takes, sizeof(takes), "%u %s %u", n_min, (n_max == n_min + 1) ? "or" : "to",
                 n_max);
    }
    for (c = arg; *c != '\0'; ++c) {
        items += (*c == ',');
    }
    if (tc_tool_list_has_empty(arg)) {
        return tc_tool_bad(tool, "%s %s: an empty item; %s takes %s core%s (%s); cores here: %s",
                           opt, arg, opt, takes, (n_max > 1) ? "s" : "", roles, here);
    }
    if ((items < n_min) || (items > n_max) || (items > TC_ARRAY_SIZE(got))) {
        return tc_tool_bad(tool, "%s %s: %u core%s; %s takes %s (%s); cores here: %s", opt, arg,
                           items, (items > 1) ? "s" : "", opt, takes, roles, here);
    }
    copy = strdup(arg);
    if (copy == NULL) {
        return tc_tool_bad(tool, "out of memory parsing '%s'", arg);
    }
    for (item = copy; (item != NULL) && (rc == 0); item = (comma != NULL) ? comma + 1 : NULL) {
        comma = strchr(item, ',');
        if (comma != NULL) {
            *comma = '\0';
        }
        if (tc_tool_parse_u64(item, 0, 4095, &v)) {
            rc = tc_tool_bad(tool, "%s %s: '%s' is not a core number (0..4095); cores here: %s",
                             opt, arg, item, here);
        } else {
            got[n++] = (int)v;
        }
    }
    free(copy);
    if (rc == 0) {
        memcpy(cpus, got, n * sizeof(*cpus));
        *n_p = n;
    }
    return rc;
}

int tc_tool_opt_name(const tc_tool_t *tool, const tc_names_t *names, uint32_t allowed,
                     const char *arg, const char *bad_fmt, unsigned *val_p)
{
    unsigned v;

    if ((tc_names_parse(names, arg, &v) != TC_OK) || (v >= 32) || !(allowed & (1u << v))) {
        return tc_tool_bad(tool, bad_fmt, arg);
    }
    *val_p = v;
    return 0;
}

int tc_tool_opt_names(const tc_tool_t *tool, const tc_names_t *names, const char *arg,
                      uint32_t *vals, uint32_t max, uint32_t *n_p)
{
    char *copy = strdup(arg), *tok, *save = NULL, msg[256];
    uint32_t got[32], n = 0;
    unsigned i, v;
    size_t used;
    int rc = 0;

    if (copy == NULL) {
        return tc_tool_bad(tool, "out of memory parsing '%s'", arg);
    }
    if (tc_tool_list_has_empty(arg)) {
        free(copy);
        return tc_tool_bad(tool, "empty %s in '%s'", names->what, arg);
    }
    if (max > TC_ARRAY_SIZE(got)) {
        max = TC_ARRAY_SIZE(got);
    }
    for (tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
        if ((tc_names_parse(names, tok, &v) != TC_OK) || (n == max)) {
            used = (size_t)snprintf(msg, sizeof(msg), "unknown %s '%s' (", names->what, tok);
            for (i = 0; (i < names->count) && (used < sizeof(msg)); ++i) {
                used += (size_t)snprintf(msg + used, sizeof(msg) - used, "%s%s",
                                         i ? ", " : "", names->names[i]);
            }
            if (used < sizeof(msg)) {
                snprintf(msg + used, sizeof(msg) - used, ")");
            }
            rc = tc_tool_bad(tool, "%s", msg);
            break;
        }
        got[n++] = v;
    }
    if ((rc == 0) && (n == 0)) {
        rc = tc_tool_bad(tool, "no %s in '%s'", names->what, arg);
    }
    free(copy);
    if (rc == 0) {
        memcpy(vals, got, n * sizeof(*vals));
        *n_p = n;
    }
    return rc;
}

int tc_tool_opt_onoff(const tc_tool_t *tool, const char *opt, const char *arg, int32_t *val_p)
{
    if (!strcmp(arg, "on")) {
        *val_p = 1;
    } else if (!strcmp(arg, "off")) {
        *val_p = 0;
    } else {
        return tc_tool_bad(tool, "%s takes on or off, not '%s'", opt, arg);
    }
    return 0;
}

int tc_tool_check_output(const tc_tool_t *tool, const char *opt, const char *path,
                         int *created_p)
{
    int fd;

    *created_p = 0;
    if ((path == NULL) || !strcmp(path, "-")) {
        return 0;
    }
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    *created_p = (fd >= 0);
    if ((fd < 0) && (errno == EEXIST)) {
        fd = open(path, O_WRONLY | O_CLOEXEC);
    }
    if (fd < 0) {
        return tc_tool_bad(tool, "%s %s: cannot write it: %s", opt, path, strerror(errno));
    }
    close(fd);
    return 0;
}

void tc_tool_drop_output(const char *path, int created)
{
    struct stat st;

    if (created && (stat(path, &st) == 0) && (st.st_size == 0)) {
        (void)unlink(path);
    }
}

static int tc_tool_same_file(const char *a, const char *b)
{
    struct stat sa, sb;

    return !strcmp(a, b) || ((stat(a, &sa) == 0) && (stat(b, &sb) == 0) &&
                             (sa.st_dev == sb.st_dev) && (sa.st_ino == sb.st_ino));
}

int tc_tool_check_outputs(const tc_tool_t *tool, const char *const *opts,
                          const char *const *paths, unsigned n, int *created)
{
    unsigned i, j;
    int stdout_at = -1, rc = 0;

    for (i = 0; i < n; ++i) {
        created[i] = 0;
    }
    for (i = 0; (i < n) && (rc == 0); ++i) {
        if (paths[i] == NULL) {
            continue;
        }
        if (!strcmp(paths[i], "-")) {
            if (stdout_at >= 0) {
                rc = tc_tool_bad(tool, "%s - and %s -: only one output can go to stdout",
                                 opts[stdout_at], opts[i]);
            }
            stdout_at = (int)i;
            continue;
        }
        rc = tc_tool_check_output(tool, opts[i], paths[i], &created[i]);
        /* each checked one exists now: ./r.csv and r.csv are one file too */
        for (j = 0; (j < i) && (rc == 0); ++j) {
            if ((paths[j] != NULL) && strcmp(paths[j], "-") &&
                tc_tool_same_file(paths[i], paths[j])) {
                rc = tc_tool_bad(tool, "%s %s and %s %s are one file: two outputs to one path "
                                 "(the second would overwrite the first)", opts[j], paths[j],
                                 opts[i], paths[i]);
            }
        }
    }
    if (rc != 0) {
        for (i = 0; i < n; ++i) {
            tc_tool_drop_output(paths[i], created[i]);
            created[i] = 0;
        }
    }
    return rc;
}

void tc_tool_iso_time(time_t t, char *buf, size_t len)
{
    struct tm tm;

    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
}
