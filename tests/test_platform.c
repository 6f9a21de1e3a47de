/*
 * Platform report and hardware controls.
 *
 * - The report names every wait strategy, cache op, placement mode and
 *   control, each "supported" or "unsupported: <reason>", in text and in
 *   JSON (checked by a small parser here, and by python3 when present).
 * - Asking for a control this host lacks fails with the reason.
 * - The save/set/restore machinery, driven by a fake backend whose units
 *   live in a state file: explicit restore, rollback on a failed write,
 *   restore at exit, after SIGINT/SIGTERM (default action and a chained
 *   handler), and no restore from a forked child.
 *
 * Children only report through exit codes: cmocka asserts longjmp.
 */
#define _GNU_SOURCE

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <ucp/api/ucp.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/platform.h"
#include "names.h"

/* ------------------------------------------------------------ helpers */

static char *report_string(int json)
{
    char  *buf = NULL;
    size_t len = 0;
    FILE  *f   = open_memstream(&buf, &len);

    assert_non_null(f);
    assert_int_equal(tc_platform_report(f, json), TC_OK);
    fclose(f);
    assert_non_null(buf);
    return buf;
}

/* The value of "key: value" in the text report (static buffer). */
static const char *text_value(const char *report, const char *key)
{
    static char value[512];
    size_t      klen = strlen(key);
    const char *p    = report;

    while (p != NULL && *p != '\0') {
        const char *eol = strchr(p, '\n');
        size_t      n   = eol != NULL ? (size_t)(eol - p) : strlen(p);

        if (n > klen + 2 && strncmp(p, key, klen) == 0 && p[klen] == ':' &&
            p[klen + 1] == ' ') {
            n -= klen + 2;
            if (n >= sizeof(value)) {
                n = sizeof(value) - 1;
            }
            memcpy(value, p + klen + 2, n);
            value[n] = '\0';
            return value;
        }
        p = eol != NULL ? eol + 1 : NULL;
    }
    return NULL;
}

static void assert_capability(const char *value, const char *what)
{
    if (value == NULL) {
        fail_msg("%s missing from the report", what);
    }
    if (strcmp(value, "supported") == 0) {
        return;
    }
    if (strncmp(value, "unsupported: ", 13) != 0 || strlen(value) <= 13) {
        fail_msg("%s: \"%s\" is neither supported nor unsupported: <reason>", what, value);
    }
}

/* --- a minimal JSON validator (RFC 8259 subset that the report uses, plus
 * arrays, true/false/null for completeness) */

static const char *json_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
        ++p;
    }
    return p;
}

static const char *json_value(const char *p, int depth);

static const char *json_string(const char *p)
{
    if (*p != '"') {
        return NULL;
    }
    for (++p; *p != '"'; ++p) {
        if ((unsigned char)*p < 0x20) {
            return NULL;
        }
        if (*p == '\\') {
            ++p;
            if (*p == 'u') {
                for (int i = 1; i <= 4; ++i) {
                    if (!isxdigit((unsigned char)p[i])) {
                        return NULL;
                    }
                }
                p += 4;
            } else if (strchr("\"\\/bfnrt", *p) == NULL || *p == '\0') {
                return NULL;
            }
        }
    }
    return p + 1;
}

static const char *json_number(const char *p)
{
    const char *s = p;

    if (*p == '-') {
        ++p;
    }
    if (!isdigit((unsigned char)*p)) {
        return NULL;
    }
    if (*p == '0' && isdigit((unsigned char)p[1])) {
        return NULL;
    }
    while (isdigit((unsigned char)*p)) {
        ++p;
    }
    if (*p == '.') {
        ++p;
        if (!isdigit((unsigned char)*p)) {
            return NULL;
        }
        while (isdigit((unsigned char)*p)) {
            ++p;
        }
    }
    if (*p == 'e' || *p == 'E') {
        ++p;
        if (*p == '+' || *p == '-') {
            ++p;
        }
        if (!isdigit((unsigned char)*p)) {
            return NULL;
        }
        while (isdigit((unsigned char)*p)) {
            ++p;
        }
    }
    return p > s ? p : NULL;
}

static const char *json_container(const char *p, int depth, char close, int object)
{
    p = json_ws(p + 1);
    if (*p == close) {
        return p + 1;
    }
    for (;;) {
        if (object) {
            p = json_string(json_ws(p));
            if (p == NULL) {
                return NULL;
            }
            p = json_ws(p);
            if (*p++ != ':') {
                return NULL;
            }
        }
        p = json_value(p, depth + 1);
        if (p == NULL) {
            return NULL;
        }
        p = json_ws(p);
        if (*p == ',') {
            ++p;
            continue;
        }
        return *p == close ? p + 1 : NULL;
    }
}

static const char *json_value(const char *p, int depth)
{
    if (depth > 64) {
        return NULL;
    }
    p = json_ws(p);
    switch (*p) {
    case '{': return json_container(p, depth, '}', 1);
    case '[': return json_container(p, depth, ']', 0);
    case '"': return json_string(p);
    case 't': return strncmp(p, "true", 4) == 0 ? p + 4 : NULL;
    case 'f': return strncmp(p, "false", 5) == 0 ? p + 5 : NULL;
    case 'n': return strncmp(p, "null", 4) == 0 ? p + 4 : NULL;
    default:  return json_number(p);
    }
}

static int json_valid(const char *text)
{
    const char *end = json_value(text, 0);

    return end != NULL && *json_ws(end) == '\0';
}

/* ------------------------------------------------------------- report */

/* Wait strategies and placements by the library's own tables (names.h), in
 * the platform's order. */
static const char *const op_names[] = { "clflush", "clflushopt", "clwb", "cldemote",
                                        "nt_store", "movdir64b", "dc_cvac", "dc_civac" };

static void test_report_text(void **state)
{
    char       *text = report_string(0);
    char        key[64];
    const char *v;

    (void)state;
    assert_int_equal(tc_names_wait.count, TC_PLATFORM_WAIT_COUNT);
    assert_int_equal(tc_names_place.count, TC_PLATFORM_PLACE_COUNT);
    printf("%s", text);
    v = text_value(text, "arch");
    assert_non_null(v);
    assert_true(strlen(v) > 0);
    assert_non_null(text_value(text, "cpu.vendor"));
    assert_non_null(text_value(text, "cpu.model_name"));
    assert_capability(text_value(text, "topology.status"), "topology");
    assert_capability(text_value(text, "pmu"), "pmu");
    for (size_t i = 0; i < tc_names_wait.count; ++i) {
        snprintf(key, sizeof(key), "wait.%s", tc_names_wait.names[i]);
        assert_capability(text_value(text, key), key);
    }
    for (size_t i = 0; i < sizeof(op_names) / sizeof(op_names[0]); ++i) {
        snprintf(key, sizeof(key), "cache_op.%s", op_names[i]);
        assert_capability(text_value(text, key), key);
    }
    for (size_t i = 0; i < tc_names_place.count; ++i) {
        snprintf(key, sizeof(key), "placement.%s", tc_names_place.names[i]);
        assert_capability(text_value(text, key), key);
        snprintf(key, sizeof(key), "placement.%s_sequence", tc_names_place.names[i]);
        v = text_value(text, key);
        assert_non_null(v);
        assert_true(strlen(v) > 0);
    }
    assert_capability(text_value(text, "control.hw_prefetch"), "hw_prefetch");
    assert_capability(text_value(text, "control.stash"), "stash");

    /* Always-there strategies. */
    assert_string_equal(text_value(text, "wait.poll"), "supported");
    assert_string_equal(text_value(text, "wait.event"), "supported");
    assert_string_equal(text_value(text, "wait.adaptive"), "supported");
    assert_string_equal(text_value(text, "placement.default"), "supported");
#if defined(__x86_64__)
    assert_string_equal(text_value(text, "arch"), "x86_64");
    assert_string_equal(text_value(text, "wait.pause"), "supported");
    assert_string_equal(text_value(text, "wait.wfe"), "unsupported: not aarch64");
    assert_string_equal(text_value(text, "cache_op.nt_store"), "supported");
    assert_string_equal(text_value(text, "cache_op.dc_cvac"), "unsupported: not aarch64");
    assert_string_equal(text_value(text, "placement.dram"), "supported");
#elif defined(__aarch64__)
    assert_string_equal(text_value(text, "wait.wfe"), "supported");
    assert_string_equal(text_value(text, "wait.umwait"), "unsupported: not x86_64");
#endif
    /* Only lines of the form "name: value". */
    for (const char *p = text; *p != '\0';) {
        const char *eol = strchr(p, '\n');

        assert_non_null(eol);
        assert_non_null(memchr(p, ':', (size_t)(eol - p)));
        p = eol + 1;
    }
    free(text);
}

static void test_report_json(void **state)
{
    char *json = report_string(1);
    char  needle[64];
    FILE *py;

    (void)state;
    assert_true(json_valid(json));
    assert_true(json[0] == '{');
    for (size_t i = 0; i < tc_names_wait.count; ++i) {
        snprintf(needle, sizeof(needle), "\"%s\": \"", tc_names_wait.names[i]);
        assert_non_null(strstr(json, needle));
    }
    assert_non_null(strstr(json, "\"wait\": {"));
    assert_non_null(strstr(json, "\"control\": {"));
    assert_non_null(strstr(json, "\"hw_prefetch\": \""));

    /* Our validator must reject what is not JSON. */
    assert_false(json_valid("{\"a\": \"b}"));
    assert_false(json_valid("{\"a\": 1,}"));
    assert_false(json_valid("{\"a\": \"x\ny\"}"));
    assert_false(json_valid("{\"a\": {\"b\": 1}"));
    assert_true(json_valid("{\"a\": [1, -2.5e3, true, null], \"b\": \"\\u00e9\\\"\"}"));

    /* And python agrees, where there is one: every capability has the
     * right shape too. */
    if (system("python3 -c 'import json' >/dev/null 2>&1") == 0) {
        static const char script[] =
            "python3 -c '\n"
            "import json, sys\n"
            "d = json.load(sys.stdin)\n"
            "ok = lambda v: v == \"supported\" or (v.startswith(\"unsupported: \") and len(v) > 13)\n"
            "caps = [d[\"pmu\"], d[\"topology\"][\"status\"]] + list(d[\"wait\"].values()) + "
            "list(d[\"cache_op\"].values()) + list(d[\"control\"].values()) + "
            "[d[\"placement\"][k] for k in (\"default\", \"llc\", \"dram\")]\n"
            "assert len(d[\"wait\"]) == 7, d[\"wait\"]\n"
            "n = d[\"network\"]\n"
            "assert n[\"ucx_version\"].count(\".\") >= 2, n\n"
            "assert n[\"ucx_transports\"], n\n"
            "assert all(v.count(\", mtu \") == 1 for k, v in n.items() if k.startswith(\"nic_\")), n\n"
            "assert all(ok(v) for v in caps), caps\n"
            "'";
        int rc;

        py = popen(script, "w");
        assert_non_null(py);
        fputs(json, py);
        rc = pclose(py);
        assert_true(WIFEXITED(rc));
        assert_int_equal(WEXITSTATUS(rc), 0);
    } else {
        printf("python3 not found: JSON checked by the built-in parser only\n");
    }
    free(json);
}

static void test_probe_api(void **state)
{
    tc_platform_t      p;
    tc_platform_wait_t w;
    tc_platform_place_t pl;
    char               avail[128];

    (void)state;
    assert_int_equal(tc_platform_probe(NULL), TC_ERR_INVALID_PARAM);
    assert_int_equal(tc_platform_probe(&p), TC_OK);
    assert_int_equal(tc_platform_wait_lookup("umwait", &w), TC_OK);
    assert_int_equal(w, TC_PLATFORM_WAIT_UMWAIT);
    assert_int_equal(tc_platform_wait_lookup("spin", &w), TC_ERR_NOT_FOUND);
    assert_int_equal(tc_platform_place_lookup("llc", &pl), TC_OK);
    assert_int_equal(pl, TC_PLATFORM_PLACE_LLC);
    assert_int_equal(tc_platform_place_lookup("l3", &pl), TC_ERR_NOT_FOUND);
    assert_string_equal(tc_platform_wait_name(TC_PLATFORM_WAIT_MWAITX), "mwaitx");
    assert_null(tc_platform_wait_name(TC_PLATFORM_WAIT_COUNT));
    assert_string_equal(tc_platform_op_name(TC_PLATFORM_OP_CLDEMOTE), "cldemote");
    assert_string_equal(tc_platform_place_name(TC_PLATFORM_PLACE_DRAM), "dram");
    for (int i = 0; i < TC_PLATFORM_WAIT_COUNT; ++i) {
        assert_int_equal(p.wait[i].supported, strcmp(p.wait[i].status, "supported") == 0);
    }
    tc_platform_wait_available(&p, avail, sizeof(avail));
    printf("available wait strategies: %s\n", avail);
    assert_non_null(strstr(avail, "poll"));
    assert_non_null(strstr(avail, "event"));
    assert_int_equal(strstr(avail, "umwait") != NULL, p.wait[TC_PLATFORM_WAIT_UMWAIT].supported);
    assert_true(p.pus >= 1 || !p.topology.supported);
    /* the network: UCX's own version and transports, the NICs in name order */
    assert_string_equal(p.net.ucx_version, ucp_get_version_string());
    printf("UCX %s, transports %s, %u NICs\n", p.net.ucx_version, p.net.transports,
           p.net.n_nics);
    assert_null(strstr(p.net.transports, "self/"));
    assert_true(strstr(p.net.transports, "/") != NULL); /* tl/dev of at least one */
    for (unsigned i = 1; i < p.net.n_nics; ++i) {
        assert_true(strcmp(p.net.nics[i - 1].name, p.net.nics[i].name) < 0);
    }
    /* a line size wherever hwloc found a cache; none where it found none
     * (a guest kernel without /sys/devices/system/cpu/cpuN/cache, read by a
     * hwloc that has no CPUID to ask: aarch64 under qemu-user) */
    if (p.topology.supported && (p.l1d_count + p.l2_count + p.l3_count > 0)) {
        assert_true(p.line_bytes >= 32);
    } else {
        assert_int_equal(p.line_bytes, 0);
    }
}

/* The real controls: on a host without them, set fails with the reason. */
static void test_real_controls(void **state)
{
    tc_platform_t    p;
    tc_hwctl_state_t st;
    char             why[TC_PLATFORM_STATUS_LEN];
    tc_status_t      s;

    (void)state;
    assert_int_equal(tc_platform_probe(&p), TC_OK);
    if (!p.hw_prefetch.supported) {
        why[0] = '\0';
        s = tc_platform_prefetch_set(0, why, sizeof(why));
        printf("prefetch set: %s (%s)\n", tc_status_str(s), why);
        assert_int_equal(s, TC_ERR_UNSUPPORTED);
        assert_string_equal(why, p.hw_prefetch.status);
        assert_int_equal(tc_platform_prefetch_get(why, sizeof(why), &st), TC_ERR_UNSUPPORTED);
        assert_true(strncmp(why, "unsupported: ", 13) == 0);
    } else {
        /* A host that has it: only query (a test does not flip the
         * machine's prefetchers). */
        assert_int_equal(tc_platform_prefetch_get(why, sizeof(why), &st), TC_OK);
        printf("prefetch state: %d\n", (int)st);
    }
    assert_int_equal(tc_platform_prefetch_restore(), TC_OK); /* never set: no-op */

    why[0] = '\0';
    assert_int_equal(tc_platform_stash_set(1, why, sizeof(why)), TC_ERR_UNSUPPORTED);
    assert_true(strncmp(why, "unsupported: ", 13) == 0);
    assert_string_equal(why, p.stash.status);
    assert_int_equal(tc_platform_stash_get(why, sizeof(why), &st), TC_ERR_UNSUPPORTED);
    assert_int_equal(tc_platform_stash_restore(), TC_OK);
}

/* ------------------------------------------------------- fake backend */

#define FAKE_UNITS 4

typedef struct fake {
    char path[64];
    int  fail_unit;     /* write to this unit fails (-1: none) */
} fake_t;

static const uint64_t fake_orig[FAKE_UNITS] = { 0x120, 0x2a5, 0x3cf, 0x400 };

static tc_status_t fake_probe(void *ctx, unsigned **units_p, unsigned *n_p, char *why,
                              size_t len)
{
    unsigned *u = malloc(FAKE_UNITS * sizeof(*u));

    (void)ctx;
    (void)why;
    (void)len;
    if (u == NULL) {
        return TC_ERR_NO_MEMORY;
    }
    for (unsigned i = 0; i < FAKE_UNITS; ++i) {
        u[i] = i;
    }
    *units_p = u;
    *n_p     = FAKE_UNITS;
    return TC_OK;
}

static tc_status_t fake_read(void *ctx, unsigned unit, uint64_t *value_p)
{
    fake_t *f  = ctx;
    int     fd = open(f->path, O_RDONLY | O_CLOEXEC);
    ssize_t n;

    if (fd < 0) {
        return TC_ERR_IO;
    }
    n = pread(fd, value_p, sizeof(*value_p), (off_t)unit * 8);
    close(fd);
    return n == 8 ? TC_OK : TC_ERR_IO;
}

/* async-signal-safe: open/pwrite/close only */
static tc_status_t fake_write(void *ctx, unsigned unit, uint64_t value)
{
    fake_t *f = ctx;
    int     fd;
    ssize_t n;

    if ((int)unit == f->fail_unit) {
        return TC_ERR_IO;
    }
    fd = open(f->path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        return TC_ERR_IO;
    }
    n = pwrite(fd, &value, sizeof(value), (off_t)unit * 8);
    close(fd);
    return n == 8 ? TC_OK : TC_ERR_IO;
}

static const tc_hwctl_ops_t fake_ops = {
    .name      = "fake",
    .mechanism = "state file",
    .mask      = 0xf,
    .on_bits   = 0x0,
    .off_bits  = 0xf,
    .probe     = fake_probe,
    .read      = fake_read,
    .write     = fake_write,
};

static void fake_init(fake_t *f)
{
    int fd;

    snprintf(f->path, sizeof(f->path), "/tmp/tc_test_hwctl.XXXXXX");
    fd = mkstemp(f->path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, fake_orig, sizeof(fake_orig)), (ssize_t)sizeof(fake_orig));
    close(fd);
    f->fail_unit = -1;
}

static void fake_load(const fake_t *f, uint64_t v[FAKE_UNITS])
{
    for (unsigned i = 0; i < FAKE_UNITS; ++i) {
        assert_int_equal(fake_read((void *)f, i, &v[i]), TC_OK);
    }
}

/* 1 if every unit holds orig with the control's bits set for on/off
 * (on = -1: the originals exactly). Usable in children (no asserts). */
static int fake_is(const fake_t *f, int on)
{
    uint64_t v;

    for (unsigned i = 0; i < FAKE_UNITS; ++i) {
        uint64_t want = on < 0 ? fake_orig[i] : (fake_orig[i] & ~0xfull) | (on ? 0x0 : 0xf);

        if (fake_read((void *)f, i, &v) != TC_OK || v != want) {
            return 0;
        }
    }
    return 1;
}

static void test_fake_set_restore(void **state)
{
    fake_t           f;
    tc_hwctl_state_t st;
    char             why[256];
    uint64_t         v[FAKE_UNITS];

    (void)state;
    fake_init(&f);
    assert_int_equal(tc_hwctl_get(&fake_ops, &f, why, sizeof(why), &st), TC_OK);
    assert_int_equal(st, TC_HWCTL_MIXED);

    assert_int_equal(tc_hwctl_set(&fake_ops, &f, 0, why, sizeof(why)), TC_OK);
    printf("%s\n", why);
    assert_true(fake_is(&f, 0));
    assert_int_equal(tc_hwctl_get(&fake_ops, &f, why, sizeof(why), &st), TC_OK);
    assert_int_equal(st, TC_HWCTL_OFF);

    /* A second set keeps the first originals. */
    assert_int_equal(tc_hwctl_set(&fake_ops, &f, 1, why, sizeof(why)), TC_OK);
    assert_true(fake_is(&f, 1));
    assert_int_equal(tc_hwctl_get(&fake_ops, &f, why, sizeof(why), &st), TC_OK);
    assert_int_equal(st, TC_HWCTL_ON);

    assert_int_equal(tc_hwctl_restore(&fake_ops, &f), TC_OK);
    fake_load(&f, v);
    assert_memory_equal(v, fake_orig, sizeof(v));
    /* Restoring twice is a no-op; so is restoring a control never set. */
    assert_int_equal(tc_hwctl_restore(&fake_ops, &f), TC_OK);
    assert_true(fake_is(&f, -1));

    /* restore_all covers it too */
    assert_int_equal(tc_hwctl_set(&fake_ops, &f, 0, why, sizeof(why)), TC_OK);
    tc_hwctl_restore_all();
    assert_true(fake_is(&f, -1));
    unlink(f.path);
}

static void test_fake_write_failure_rolls_back(void **state)
{
    fake_t f;
    char   why[256] = "";

    (void)state;
    fake_init(&f);
    f.fail_unit = 2;
    assert_int_equal(tc_hwctl_set(&fake_ops, &f, 0, why, sizeof(why)), TC_ERR_IO);
    printf("%s\n", why);
    assert_non_null(strstr(why, "unit 2"));
    assert_true(fake_is(&f, -1)); /* units 0 and 1 were put back */
    f.fail_unit = -1;
    assert_int_equal(tc_hwctl_restore(&fake_ops, &f), TC_OK);
    assert_true(fake_is(&f, -1));
    unlink(f.path);
}

/* --- children */

enum { CHILD_NOT_SET = 90, CHILD_SURVIVED = 91, CHILD_HANDLER = 42 };

static void child_handler(int sig)
{
    (void)sig;
    _exit(CHILD_HANDLER);
}

/* mode: what the child does after setting the control off. */
enum { END_SIGINT, END_SIGTERM, END_EXIT0, END_EXIT1, END_CHAINED };

static int run_child(fake_t *f, int mode)
{
    pid_t pid;
    int   status;

    fflush(NULL);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char why[256];

        if (mode == END_CHAINED) {
            signal(SIGINT, child_handler); /* the program's own handler */
        }
        if (tc_hwctl_set(&fake_ops, f, 0, why, sizeof(why)) != TC_OK || !fake_is(f, 0)) {
            _exit(CHILD_NOT_SET);
        }
        switch (mode) {
        case END_SIGINT:
        case END_CHAINED:
            raise(SIGINT);
            break;
        case END_SIGTERM:
            raise(SIGTERM);
            break;
        case END_EXIT0:
            exit(0);
        case END_EXIT1:
            exit(1); /* an error exit */
        }
        _exit(CHILD_SURVIVED);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

static void test_restore_on_sigint(void **state)
{
    fake_t f;
    int    status;

    (void)state;
    fake_init(&f);
    status = run_child(&f, END_SIGINT);
    assert_true(WIFSIGNALED(status));     /* the default action still happens */
    assert_int_equal(WTERMSIG(status), SIGINT);
    assert_true(fake_is(&f, -1));
    unlink(f.path);
}

static void test_restore_on_sigterm(void **state)
{
    fake_t f;
    int    status;

    (void)state;
    fake_init(&f);
    status = run_child(&f, END_SIGTERM);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGTERM);
    assert_true(fake_is(&f, -1));
    unlink(f.path);
}

static void test_restore_chains_handler(void **state)
{
    fake_t f;
    int    status;

    (void)state;
    fake_init(&f);
    status = run_child(&f, END_CHAINED);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), CHILD_HANDLER);
    assert_true(fake_is(&f, -1));
    unlink(f.path);
}

static void test_restore_on_exit(void **state)
{
    fake_t f;
    int    status;

    (void)state;
    fake_init(&f);
    status = run_child(&f, END_EXIT0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_true(fake_is(&f, -1));

    status = run_child(&f, END_EXIT1);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 1);
    assert_true(fake_is(&f, -1));
    unlink(f.path);
}

/* A process that set a control forks: the child's exit must not restore
 * what the parent still wants set. */
static void test_fork_child_does_not_restore(void **state)
{
    fake_t f;
    char   why[256];
    pid_t  pid;
    int    status;

    (void)state;
    fake_init(&f);
    assert_int_equal(tc_hwctl_set(&fake_ops, &f, 0, why, sizeof(why)), TC_OK);
    fflush(NULL);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        exit(0); /* runs the inherited atexit hook */
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_true(fake_is(&f, 0));
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        raise(SIGTERM); /* and the inherited handler */
        _exit(CHILD_SURVIVED);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_true(fake_is(&f, 0));
    assert_int_equal(tc_hwctl_restore(&fake_ops, &f), TC_OK);
    assert_true(fake_is(&f, -1));
    unlink(f.path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_text),
        cmocka_unit_test(test_report_json),
        cmocka_unit_test(test_probe_api),
        cmocka_unit_test(test_real_controls),
        cmocka_unit_test(test_fake_set_restore),
        cmocka_unit_test(test_fake_write_failure_rolls_back),
        cmocka_unit_test(test_restore_on_sigint),
        cmocka_unit_test(test_restore_on_sigterm),
        cmocka_unit_test(test_restore_chains_handler),
        cmocka_unit_test(test_restore_on_exit),
        cmocka_unit_test(test_fork_child_does_not_restore),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
