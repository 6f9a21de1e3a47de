/* tc-perf output: configuration block, table, CSV and JSON. */
#define _GNU_SOURCE
#include "perf.h"
#include "log.h"
#include "harness/cycles.h"
#include "harness/platform.h"
#include "tool.h"
#include "place.h"
#include "stress.h"

#include <hwloc.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "build_rev.h"
#ifndef TC_CFLAGS
#define TC_CFLAGS "unknown"
#endif

static void perf_cpu_model(char *buf, size_t len)
{
    char line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");

    snprintf(buf, len, "unknown");
    if (f == NULL) {
        return;
    }
    while (fgets(line, sizeof(line), f) != NULL) {
        char *colon = strchr(line, ':');
        if ((colon != NULL) && ((strncmp(line, "model name", 10) == 0) ||
                                (strncmp(line, "CPU part", 8) == 0))) {
            colon += 2;
            colon[strcspn(colon, "\n")] = '\0';
            snprintf(buf, len, "%s", colon);
            break;
        }
    }
    fclose(f);
}

static void perf_topology(char *buf, size_t len)
{
    hwloc_topology_t topo;

    snprintf(buf, len, "unknown");
    if (hwloc_topology_init(&topo) || hwloc_topology_load(topo)) {
        return;
    }
    snprintf(buf, len, "%d package(s), %d NUMA node(s), %d core(s), %d PU(s), L3 %d",
             hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE),
             hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE),
             hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE),
             hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU),
             hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_L3CACHE));
    hwloc_topology_destroy(topo);
}

static void perf_cores(const perf_run_t *run, char *buf, size_t len)
{
    const perf_local_t *l = run->local;

    if (l->loopback || ((l->boot == TC_BOOT_PMIX) && (l->cpu[1] >= 0))) {
        snprintf(buf, len, "%d,%d", (l->cpu[0] >= 0) ? l->cpu[0] : 0,
                 (l->cpu[1] >= 0) ? l->cpu[1] : 1);
    } else if (l->cpu[0] >= 0) {
        snprintf(buf, len, "%d", l->cpu[0]);
    } else {
        snprintf(buf, len, "unpinned");
    }
}

static void perf_list(const perf_run_t *run, int sizes, char *buf, size_t len)
{
    size_t used = 0;
    uint32_t i, n = sizes ? run->opts->n_sizes : run->opts->n_tests;

    buf[0] = '\0';
    for (i = 0; (i < n) && (used < len); ++i) {
        if (sizes) {
            used += (size_t)snprintf(buf + used, len - used, "%s%u", i ? "," : "",
                                     run->opts->sizes[i]);
        } else {
            used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "," : "",
                                     perf_tests[run->opts->tests[i]].name);
        }
    }
}

/* One line of the header box: the text padded (or cut) to the box. */
#define PERF_BOX_WIDTH 90
static void perf_box(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void perf_box(FILE *out, const char *fmt, ...)
{
    char line[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(out, "| %-*.*s |\n", PERF_BOX_WIDTH, PERF_BOX_WIDTH, line);
}

static void perf_box_rule(FILE *out)
{
    char rule[PERF_BOX_WIDTH + 3];

    memset(rule, '-', sizeof(rule) - 1);
    rule[sizeof(rule) - 1] = '\0';
    fprintf(out, "+%s+\n", rule);
}

void perf_print_header(const perf_run_t *run)
{
    const perf_opts_t *o = run->opts;
    FILE *out            = run->local->table;
    char cpu[256], topo[256], cores[64], host[128], sig[32], emu[96];
    const char *why;
    int prog = tc_peer_progress_needed(run->peer, &why);

    perf_cpu_model(cpu, sizeof(cpu));
    perf_topology(topo, sizeof(topo));
    perf_cores(run, cores, sizeof(cores));
    gethostname(host, sizeof(host));
    snprintf(sig, sizeof(sig), "%s%s", tc_signal_str(tc_peer_signal(run->peer)),
             (o->signal == TC_SIGNAL_AUTO) ? " (auto)" : "");
    perf_box_rule(out);
    perf_box(out, "tc-perf  host %-30s  rev %-10s  UCX %s", host, tc_build_rev, tc_ucx_version());
    perf_box(out, "cpu        %s", cpu);
    perf_box(out, "topology   %s", topo);
    perf_box(out, "cores      %-20s  %s", cores, tc_peer_name(run->peer)); /* "peer HOST" */
    perf_box(out, "transports %-20s  progress %s (%s)", tc_peer_transports(run->peer),
             prog ? "on" : "off", why);
    perf_box(out, "signalling %-14s frames %-8s slots %u x %u B  jam %s", sig,
             tc_frames_str((tc_frame_mode_t)o->frames), o->slots, o->slot_size, o->jam);
    perf_box(out, "api        %s", (o->api == TC_TOOL_API_PREPARED) ?
             "prepared (tc_jam_init per point, tc_jam_start in the loop)" : "send (tc_jam_send)");
    perf_box(out, "iterations %-12llu warm-up %-10llu blocks %u", (unsigned long long)o->iters,
             (unsigned long long)o->warmup, o->blocks);
    perf_box(out, "clock      %s, %.4f ns/tick, reads move in steps of %.2f ns%s", run->clock.source,
             run->clock.ns_per_tick, run->clock.resolution_ns,
             (run->clock.resolution_ns > 2.0) ? " (percentiles spread over them)" : "");
    perf_box(out, "units      us = 10^-6 s, one-way (RTT/2) on ping-pong rows; rate = messages/s,");
    perf_box(out, "           2 per round trip on ping-pong rows; MB/s = rate x payload / 10^6");
    if (tc_platform_emulation(emu, sizeof(emu))) {
        perf_box(out, "EMULATED   %s", emu);
    }
    perf_box_rule(out);
}

void perf_print_table_head(FILE *out, int wide)
{
    if (!wide) {
        fprintf(out, "%-13s %-12s %-8s %-7s %7s | %9s %9s | %12s %10s\n", "test", "mode", "wait",
                "place", "payload", "p50 us", "p99 us", "rate msg/s", "MB/s");
        return;
    }
    fprintf(out, "%-13s %-12s %-8s %-7s %7s %7s | %9s %9s %9s %9s %9s %9s | %8s | %12s %10s | %9s\n",
            "test", "mode", "wait", "place", "payload", "frame", "min us", "p50 us", "p99 us",
            "p99.9 us", "max us", "mean us", "spread%", "rate msg/s", "MB/s", "cpu ns/msg");
}

static double perf_tail_spread(const perf_result_t *r)
{
    return (r->lat.p50 > 0) ? 100.0 * ((double)r->lat.p999 - (double)r->lat.p50) /
                                  (double)r->lat.p50 :
                              0.0;
}

void perf_print_row(FILE *out, const perf_result_t *r, int wide)
{
    char mode[24];

    /* a reference row names the jam mode whose frame it puts: with -m
     * local,injected a payload has two put_lat rows, of two frame sizes */
    if ((r->frame_of != NULL) && (r->frame_of[0] != '\0')) {
        snprintf(mode, sizeof(mode), "%s/%s", r->mode, r->frame_of);
    } else {
        snprintf(mode, sizeof(mode), "%s", r->mode);
    }
    if (!wide) {
        fprintf(out, "%-13s %-12s %-8s %-7s %7u | %9.3f %9.3f | %12.0f %10.1f\n", r->test, mode,
                r->wait, r->place, r->payload, r->lat.p50 / 1e3, r->lat.p99 / 1e3, r->rate_mps,
                r->bw_mbs);
        fflush(out);
        return;
    }
    fprintf(out, "%-13s %-12s %-8s %-7s %7u %7u | %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f | %8.1f | %12.0f %10.1f"
           " | %9.1f\n",
           r->test, mode, r->wait, r->place, r->payload, r->frame_bytes, r->lat.min / 1e3, r->lat.p50 / 1e3,
           r->lat.p99 / 1e3, r->lat.p999 / 1e3, r->lat.max / 1e3, r->lat.mean / 1e3,
           perf_tail_spread(r), r->rate_mps, r->bw_mbs, r->cpu_ns_per_msg);
    fflush(out);
}

void perf_progress_line(perf_run_t *run, uint64_t done, uint64_t total, uint64_t warmup,
                        uint64_t now)
{
    double s = tc_clock_ticks_to_ns(&run->clock, now - run->point_start) * 1e-9;
    char block[48] = "";

    if (run->opts->blocks > 1) {
        snprintf(block, sizeof(block), " (block %u of %u)", run->point_block + 1,
                 run->opts->blocks);
    }
    if (done <= warmup) {
        fprintf(stderr, "tc-perf: %s %s %u B: warm-up, %llu of %llu iterations%s, %.1f s in "
                "this point\n", run->point_test, tc_mode_str(run->mode), run->point_payload,
                (unsigned long long)done, (unsigned long long)warmup, block, s);
    } else {
        fprintf(stderr, "tc-perf: %s %s %u B: %llu of %llu iterations%s, %.1f s in this point\n",
                run->point_test, tc_mode_str(run->mode), run->point_payload,
                (unsigned long long)(done - warmup), (unsigned long long)(total - warmup), block,
                s);
    }
    run->report_next = now + run->report_every;
}

FILE *perf_open_out(const char *path)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;

    if (f == NULL) {
        tc_error("cannot write %s: %m", path);
    }
    return f;
}

tc_status_t perf_close_out(FILE *f, const char *path)
{
    int rc = (f == stdout) ? fflush(f) : fclose(f);

    if ((rc != 0) || ((f == stdout) && ferror(f))) {
        tc_error("cannot write %s: %m", path);
        return TC_ERR_IO;
    }
    return TC_OK;
}

static const perf_test_t *perf_find(const char *name)
{
    unsigned i;

    for (i = 0; i < perf_n_tests; ++i) {
        if (strcmp(perf_tests[i].name, name) == 0) {
            return &perf_tests[i];
        }
    }
    return NULL;
}

/* The reference row of test ref for jam row r: same frame size, wait and
 * placement, and of the same payload where there is one (each payload's
 * references run beside its jam rows: two payloads' frames can be of one
 * size, 8 B injected and 64 B local); NULL if the run has none. */
static const perf_result_t *perf_find_ref(const perf_result_t *results, unsigned n,
                                          const perf_result_t *r, const char *ref)
{
    const perf_result_t *found = NULL;
    unsigned i;

    for (i = 0; i < n; ++i) {
        if (!strcmp(results[i].test, ref) && (results[i].frame_bytes == r->frame_bytes) &&
            !strcmp(results[i].wait, r->wait) && !strcmp(results[i].place, r->place)) {
            if (results[i].payload == r->payload) {
                return &results[i];
            }
            found = (found != NULL) ? found : &results[i];
        }
    }
    return found;
}

/* Latency: p50 over p50 (above 1: slower than the reference); streams: rate
 * over rate (below 1: fewer messages than the reference). *payload_p: the
 * reference's payload. */
static double perf_ratio(const perf_result_t *r, const perf_result_t *ref, int pingpong,
                         uint32_t *payload_p)
{
    if (ref == NULL) {
        return -1.0;
    }
    *payload_p = ref->payload;
    if (pingpong) {
        return (ref->lat.p50 > 0) ? (double)r->lat.p50 / (double)ref->lat.p50 : -1.0;
    }
    return (ref->rate_mps > 0) ? r->rate_mps / ref->rate_mps : -1.0;
}

void perf_fill_ratios(perf_result_t *results, unsigned n)
{
    unsigned i;

    for (i = 0; i < n; ++i) {
        perf_result_t *r        = &results[i];
        const perf_test_t *test = perf_find(r->test);
        int pingpong            = (test->shape == PERF_SHAPE_PINGPONG);

        r->floor_ratio    = -1.0;
        r->put_read_ratio = -1.0;
        r->floor_ref      = NULL;
        r->put_read_ref   = NULL;
        if (!test->uses_jam) {
            continue;
        }
        r->floor_ref      = pingpong ? "floor_lat" : "floor_rate";
        r->put_read_ref   = pingpong ? "put_read_lat" : "put_read_rate";
        r->floor_ratio    = perf_ratio(r, perf_find_ref(results, n, r, r->floor_ref), pingpong,
                                       &r->floor_ref_payload);
        r->put_read_ratio = perf_ratio(r, perf_find_ref(results, n, r, r->put_read_ref),
                                       pingpong, &r->put_read_ref_payload);
    }
}

static void perf_print_ratio(FILE *out, double v)
{
    if (v >= 0) {
        fprintf(out, " %14.3f", v);
    } else {
        fprintf(out, " %14s", "-");
    }
}

void perf_print_ratios(FILE *out, const perf_result_t *results, unsigned n)
{
    unsigned i, shown = 0;

    for (i = 0; i < n; ++i) {
        const perf_result_t *r = &results[i];
        if ((r->floor_ratio < 0) && (r->put_read_ratio < 0)) {
            continue;
        }
        if (shown++ == 0) {
            fprintf(out, "\nratios (jam over the reference of the same frame size; latency p50/p50, "
                   "streams rate/rate):\n%-13s %-8s %-8s %-7s %9s %7s | %14s %14s\n", "test",
                   "mode", "wait", "place", "payload", "frame", "floor x", "put_read x");
        }
        fprintf(out, "%-13s %-8s %-8s %-7s %9u %7u |", r->test, r->mode, r->wait, r->place,
                r->payload, r->frame_bytes);
        perf_print_ratio(out, r->floor_ratio);
        perf_print_ratio(out, r->put_read_ratio);
        fprintf(out, "\n");
    }
}

/* A per-message count, or "" where no counter counted it. */
static const char *perf_opt_num(char *buf, double v)
{
    if (v < 0) {
        return "";
    }
    sprintf(buf, "%.1f", v);
    return buf;
}

/* A ratio, or "" where the run has no reference for it. */
static const char *perf_ratio_num(char *buf, double v)
{
    if (v < 0) {
        return "";
    }
    sprintf(buf, "%.4f", v);
    return buf;
}

static const char *perf_stress_name(const perf_run_t *run)
{
    return (run->opts->stress[0] != '\0') ? run->opts->stress : "none";
}

double perf_dist_percentile(unsigned k)
{
    return 100.0 * (1.0 - pow(10.0, -(double)k / 4.0));
}

tc_status_t perf_write_dist(const char *path, const perf_run_t *run,
                            const perf_result_t *results, unsigned n)
{
    FILE *f = perf_open_out(path);
    unsigned i, k;

    if (f == NULL) {
        return TC_ERR_IO;
    }
    fprintf(f, "test,jam,mode,payload_bytes,wait,placement,sw_prefetch,stress,percentile,"
               "latency_us,schema_version\n");
    for (i = 0; i < n; ++i) {
        const perf_result_t *r = &results[i];
        if (!r->has_dist) {
            continue;
        }
        for (k = 0; k < PERF_DIST_POINTS; ++k) {
            fprintf(f, "%s,%s,%s,%u,%s,%s,%s,%s,%.6f,%.4f,%d\n", r->test,
                    perf_find(r->test)->uses_jam ? run->opts->jam : "", r->mode, r->payload,
                    r->wait, r->place, run->opts->sw_prefetch ? "on" : "off",
                    perf_stress_name(run), perf_dist_percentile(k), r->dist_ns[k] / 1e3,
                    TC_TOOL_SCHEMA_VERSION);
        }
    }
    return perf_close_out(f, path);
}

tc_status_t perf_write_csv(const char *path, const perf_run_t *run,
                           const perf_result_t *results, unsigned n)
{
    FILE *f = perf_open_out(path);
    unsigned i;

    if (f == NULL) {
        return TC_ERR_IO;
    }
    fprintf(f, "test,jam,mode,payload_bytes,frame_bytes,iterations,min_us,p50_us,p90_us,"
               "p99_us,p999_us,p9999_us,max_us,mean_us,tail_spread_pct,rate_mps,bw_mbs,"
               "signal,transports,code_bytes,got_slots,wait,cpu_ns_per_msg,polls_per_msg,"
               "cycles,cycles_source,placement,sw_prefetch,stress,peer_cpu_ns_per_msg,"
               "peer_polls_per_msg,peer_cycles,instructions,ref_cycles,gap_us,floor_ratio,"
               "put_read_ratio,api,frame_of,host,timestamp,schema_version\n");
    for (i = 0; i < n; ++i) {
        const perf_result_t *r = &results[i];
        const perf_test_t *t   = perf_find(r->test);
        char c0[32], c1[32], c2[32], c3[32], c4[32], c5[32], when[32];
        tc_tool_iso_time(r->when, when, sizeof(when));
        fprintf(f, "%s,%s,%s,%u,%u,%llu,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.2f,%.1f,%.3f,"
                   "%s,\"%s\",%u,%u,%s,%.1f,%.2f,%s,%s,%s,%s,%s,%.1f,%.2f,%s,%s,%s,%llu,%s,%s,%s,"
                   "%s,%s,%s,%d\n",
                r->test, t->uses_jam ? run->opts->jam : "", r->mode, r->payload,
                r->frame_bytes, (unsigned long long)r->iters, r->lat.min / 1e3,
                r->lat.p50 / 1e3, r->lat.p90 / 1e3, r->lat.p99 / 1e3, r->lat.p999 / 1e3,
                r->lat.p9999 / 1e3, r->lat.max / 1e3, r->lat.mean / 1e3,
                perf_tail_spread(r), r->rate_mps, r->bw_mbs,
                tc_signal_str(tc_peer_signal(run->peer)), tc_peer_transports(run->peer),
                r->code_bytes, r->got_slots, r->wait, r->cpu_ns_per_msg, r->polls_per_msg,
                perf_opt_num(c0, r->cycles_per_msg), tc_cycles_source(run->cycles), r->place,
                run->opts->sw_prefetch ? "on" : "off", perf_stress_name(run),
                r->peer_cpu_ns_per_msg, r->peer_polls_per_msg,
                perf_opt_num(c1, r->peer_cycles_per_msg), perf_opt_num(c2, r->instr_per_msg),
                perf_opt_num(c3, r->ref_cycles_per_msg),
                (unsigned long long)(strcmp(r->test, "jam_lat") ? 0 : run->opts->gap_ns / 1000),
                perf_ratio_num(c4, r->floor_ratio), perf_ratio_num(c5, r->put_read_ratio),
                r->api, r->frame_of, run->opts->host, when, TC_TOOL_SCHEMA_VERSION);
    }
    return perf_close_out(f, path);
}

static void perf_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s != '\0'; ++s) {
        if ((*s == '"') || (*s == '\\')) {
            fprintf(f, "\\%c", *s);
        } else if ((unsigned char)*s < 0x20) {
            fprintf(f, "\\u%04x", (unsigned char)*s);
        } else {
            fputc(*s, f);
        }
    }
    fputc('"', f);
}

static const char *perf_json_num(char *buf, double v)
{
    if (v < 0) {
        return "null";
    }
    sprintf(buf, "%.1f", v);
    return buf;
}

static const char *perf_json_ratio(char *buf, double v)
{
    if (v < 0) {
        return "null";
    }
    sprintf(buf, "%.4f", v);
    return buf;
}

/* The reference's payload, or null where there is no ratio. */
static const char *perf_json_ref_payload(char *buf, double ratio, uint32_t payload)
{
    if (ratio < 0) {
        return "null";
    }
    sprintf(buf, "%u", payload);
    return buf;
}

/* Jam rows: each ratio with the reference row it used ("" for others). */
static const char *perf_json_ratios(char *buf, size_t len, const perf_result_t *r)
{
    char a[32], b[32], pa[16], pb[16];

    if (r->floor_ref == NULL) {
        snprintf(buf, len, ", \"frame_of\": \"%s\"", r->frame_of);
        return buf;
    }
    snprintf(buf, len,
             ", \"floor_ratio\": {\"value\": %s, \"reference\": \"%s\", \"metric\": \"%s\", "
             "\"reference_payload_bytes\": %s}"
             ", \"put_read_ratio\": {\"value\": %s, \"reference\": \"%s\", \"metric\": \"%s\", "
             "\"reference_payload_bytes\": %s}",
             perf_json_ratio(a, r->floor_ratio), r->floor_ref,
             strstr(r->floor_ref, "_lat") ? "p50_us" : "rate_mps",
             perf_json_ref_payload(pa, r->floor_ratio, r->floor_ref_payload),
             perf_json_ratio(b, r->put_read_ratio), r->put_read_ref,
             strstr(r->put_read_ref, "_lat") ? "p50_us" : "rate_mps",
             perf_json_ref_payload(pb, r->put_read_ratio, r->put_read_ref_payload));
    return buf;
}

tc_status_t perf_write_json(const char *path, const perf_run_t *run,
                            const perf_result_t *results, unsigned n)
{
    char cpu[256], topo[256], cores[64], host[128], tests[512], sizes[512], when[64], emu[96];
    const perf_opts_t *o = run->opts;
    const char *why, *env;
    FILE *f = perf_open_out(path);
    time_t now = time(NULL);
    unsigned i;
    int a;

    if (f == NULL) {
        return TC_ERR_IO;
    }
    perf_cpu_model(cpu, sizeof(cpu));
    perf_topology(topo, sizeof(topo));
    perf_cores(run, cores, sizeof(cores));
    perf_list(run, 0, tests, sizeof(tests));
    perf_list(run, 1, sizes, sizeof(sizes));
    gethostname(host, sizeof(host));
    tc_tool_iso_time(now, when, sizeof(when));
    env = getenv("UCX_TLS");

    fprintf(f, "{\n  \"tool\": \"tc-perf\",\n  \"date\": \"%s\",\n  \"interrupted\": %s,"
               "\n  \"units\": {\"latency\": \"us, one-way (RTT/2) on ping-pong rows\", "
               "\"rate_mps\": \"messages/s, 2 per round trip on ping-pong rows\", "
               "\"bw_mbs\": \"rate_mps x payload / 10^6 (MB/s, decimal)\"},\n  \"host\": ",
            when, run->interrupted ? "true" : "false");
    perf_json_str(f, host);
    fprintf(f, ",\n  \"cpu_model\": ");
    perf_json_str(f, cpu);
    fprintf(f, ",\n  \"topology\": ");
    perf_json_str(f, topo);
    tc_platform_emulation(emu, sizeof(emu));
    fprintf(f, ",\n  \"emulated\": ");
    perf_json_str(f, emu);
    fprintf(f, ",\n  \"cores\": \"%s\",\n  \"ucx_version\": \"%s\",\n  \"ucx_tls\": ", cores,
            tc_ucx_version());
    perf_json_str(f, (env != NULL) ? env : "");
    fprintf(f, ",\n  \"transports\": ");
    perf_json_str(f, tc_peer_transports(run->peer));
    fprintf(f, ",\n  \"boot\": \"%s\",\n  \"hosts\": {\"client\": ",
            tc_boot_kind_str(run->local->boot));
    perf_json_str(f, o->host);
    fprintf(f, ", \"server\": ");
    perf_json_str(f, run->local->peer_host);
    fprintf(f, "}");
    fprintf(f, ",\n  \"progress\": %s,\n  \"progress_why\": ",
            tc_peer_progress_needed(run->peer, &why) ? "true" : "false");
    perf_json_str(f, why);
    fprintf(f, ",\n  \"signalling\": \"%s\",\n  \"signalling_asked\": \"%s\","
               "\n  \"frames\": \"%s\",\n  \"progress_mode\": \"%s\","
               "\n  \"wx\": %s,\n  \"exec\": \"%s\",\n  \"in_place\": %s,"
               "\n  \"git_rev\": \"%s\",\n  \"cflags\": ",
            tc_signal_str(tc_peer_signal(run->peer)), tc_signal_str((tc_signal_mode_t)o->signal),
            tc_frames_str((tc_frame_mode_t)o->frames),
            tc_progress_str((tc_progress_mode_t)o->progress), o->wx ? "true" : "false",
            tc_exec_str((tc_exec_policy_t)o->exec),
            o->in_place ? "true" : "false", tc_build_rev);
    perf_json_str(f, TC_CFLAGS);
    fprintf(f, ",\n  \"clock\": {\"source\": \"%s\", \"ns_per_tick\": %.6f, "
               "\"resolution_ns\": %.3f},\n",
            run->clock.source, run->clock.ns_per_tick, run->clock.resolution_ns);
    fprintf(f, "  \"options\": {\"tests\": \"%s\", \"jam\": \"%s\", \"sizes\": [%s], "
               "\"iterations\": %llu, \"warmup\": %llu, \"blocks\": %u, \"slots\": %u, "
               "\"slot_size\": %u, "
               "\"window\": %u, \"loopback\": %s, \"timeout_ms\": %d, \"gap_us\": %llu, "
               "\"ref_work\": %u, \"ref_work_ns\": %.2f, \"api\": \"%s\"},\n",
            tests, o->jam, sizes, (unsigned long long)o->iters, (unsigned long long)o->warmup,
            o->blocks, o->slots, o->slot_size, o->window, run->local->loopback ? "true" : "false",
            run->local->timeout_ms, (unsigned long long)(o->gap_ns / 1000), o->ref_work,
            perf_ref_work_ns(run), tc_names_str(&tc_tool_names_api, o->api));
    fprintf(f, "  \"placement\": [");
    for (i = 0; i < o->n_places; ++i) {
        fprintf(f, "%s{\"mode\": \"%s\", \"sequence\": ", i ? ", " : "",
                tc_place_str((tc_place_t)o->places[i]));
        perf_json_str(f, tc_place_sequence((tc_place_t)o->places[i]));
        fprintf(f, "}");
    }
    fprintf(f, "],\n  \"order\": \"%s\",\n  \"sw_prefetch\": %s,\n  \"hw_prefetch\": \"%s\",\n"
               "  \"stash\": \"%s\",\n",
            o->size_major ? "size" : "test", o->sw_prefetch ? "true" : "false",
            (o->hw_prefetch < 0) ? "unchanged" : (o->hw_prefetch ? "on" : "off"),
            (o->stash < 0) ? "unchanged" : (o->stash ? "on" : "off"));
    fprintf(f, "  \"cycles_source\": \"%s\",\n  \"pmu\": ", tc_cycles_source(run->cycles));
    perf_json_str(f, tc_cycles_pmu_status(run->cycles));
    fprintf(f, ",\n  \"stress\": ");
    if (run->local->stress != NULL) {
        const struct tc_stress *st = run->local->stress;
        fprintf(f, "{\"spec\": ");
        perf_json_str(f, tc_stress_spec(st));
        fprintf(f, ", \"command\": ");
        perf_json_str(f, tc_stress_argv(st));
        fprintf(f, ", \"cpus\": ");
        perf_json_str(f, tc_stress_cpus(st));
        fprintf(f, ", \"version\": ");
        perf_json_str(f, tc_stress_version(st));
        fprintf(f, ", \"pgid\": %d},\n", tc_stress_pgid(st));
    } else {
        fprintf(f, "null,\n");
    }
    fprintf(f, "  \"argv\": [");
    for (a = 0; a < run->local->argc; ++a) {
        fprintf(f, "%s", a ? ", " : "");
        perf_json_str(f, run->local->argv[a]);
    }
    fprintf(f, "],\n  \"results\": [\n");
    for (i = 0; i < n; ++i) {
        const perf_result_t *r = &results[i];
        char c0[32], c1[32], c2[32], ratios[512], at[32];
        tc_tool_iso_time(r->when, at, sizeof(at));
        fprintf(f, "    {\"test\": \"%s\", \"api\": \"%s\", \"timestamp\": \"%s\", \"mode\": \"%s\", "
                   "\"wait\": \"%s\", "
                   "\"placement\": \"%s\", \"cycles_per_msg\": %s, \"peer_cycles_per_msg\": %s, "
                   "\"instructions_per_msg\": %s, \"polls_per_msg\": %.2f, "
                   "\"peer_cpu_ns_per_msg\": %.1f, \"peer_polls_per_msg\": %.2f, "
                   "\"cpu_ns_per_msg\": %.1f, \"code_bytes\": %u, "
                   "\"got_slots\": %u, \"payload_bytes\": %u, \"frame_bytes\": %u, "
                   "\"iterations\": %llu, \"samples\": %llu, \"min_us\": %.4f, "
                   "\"p50_us\": %.4f, \"p90_us\": %.4f, "
                   "\"p99_us\": %.4f, \"p999_us\": %.4f, \"p9999_us\": %.4f, \"max_us\": %.4f, "
                   "\"mean_us\": %.4f, \"tail_spread_pct\": %.2f, \"rate_mps\": %.1f, "
                   "\"bw_mbs\": %.3f, \"elapsed_s\": %.9f%s}%s\n",
                r->test, r->api, at, r->mode, r->wait, r->place, perf_json_num(c0, r->cycles_per_msg),
                perf_json_num(c1, r->peer_cycles_per_msg), perf_json_num(c2, r->instr_per_msg),
                r->polls_per_msg, r->peer_cpu_ns_per_msg, r->peer_polls_per_msg,
                r->cpu_ns_per_msg, r->code_bytes, r->got_slots,
                r->payload, r->frame_bytes,
                (unsigned long long)r->iters, (unsigned long long)r->lat.count,
                r->lat.min / 1e3, r->lat.p50 / 1e3, r->lat.p90 / 1e3, r->lat.p99 / 1e3,
                r->lat.p999 / 1e3, r->lat.p9999 / 1e3, r->lat.max / 1e3, r->lat.mean / 1e3,
                perf_tail_spread(r), r->rate_mps, r->bw_mbs, r->elapsed_s,
                perf_json_ratios(ratios, sizeof(ratios), r), (i + 1 < n) ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    return perf_close_out(f, path);
}
