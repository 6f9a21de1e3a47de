/*
 * tc-mcast: the CLI. Real runs start N local processes themselves (-n N) or
 * join a group a launcher started (TC_RANK, TC_SIZE, TC_BOOT=host:port);
 * --simulate N models the same tree in one process.
 */
#define _GNU_SOURCE
#include "mcast.h"
#include "tool.h"
#include "harness/pkg_path.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void mcast_usage(FILE *out)
{
    fprintf(out,
            "usage: tc-mcast [options]\n"
            "  -n N          processes in the group, 2..4096 (default 4); started here unless\n"
            "                TC_RANK/TC_SIZE/TC_BOOT=host:port say a launcher did\n"
            "  --boot B      auto (default: pmix when mpirun or srun --mpi=pmix started\n"
            "                the ranks, else tcp), tcp (-n N here, or TC_RANK...), pmix\n"
            "                (the job's ranks are the group; -n, if given, must match)\n"
            "  -R RADICES    forwarding radix, comma list (default 4; --simulate: 2,4,8,16,64)\n"
            "  --ack         completion through the ack tree (latency is measured to it)\n"
            "  --naive       baseline: N-1 unicasts from the origin\n"
            "  -j JAM        jam every target runs (default noop)\n"
            "  -s SIZE       payload bytes (default 8)\n"
            "  --iters K     measured multicasts (default 1000)\n"
            "  --warmup K    warm-up multicasts (default 100)\n"
            "  -W WAIT       poll, pause, event or adaptive (default: adaptive when the\n"
            "                group has more processes than this host has cores, else poll)\n"
            "  -S SLOTS      mailbox slots per peer, a power of two (default 8)\n"
            "  -T MS         timeout: longest silence before a rank is reported (default 10000)\n"
            "  --csv FILE    one row per configuration (header: " "see docs)\n"
            "  --simulate N  model the tree for N nodes in this process (N <= 2^32-1)\n"
            "  --shape S     with --simulate, its target set: all (all but the origin; default),\n"
            "                every100, dense (random 90%%), block (a contiguous tenth)\n"
            "  --hop-us X    model: one hop in flight (default 1.0)\n"
            "  --send-us X   model: sender's cost per message (default 0.25)\n"
            "  --verify      model: encode and decode every envelope\n"
            "  --shapes      encoded target bytes of the PR's test shapes, then exit\n"
            "  -q            quiet: no table\n"
            "  -h, --help    this help\n"
            "  --version     the tool's revision and UCX's version\n"
            TC_TOOL_EXIT_HELP);
}

static const tc_tool_t mcast_tool = {"tc-mcast", mcast_usage};

static int mcast_parse_double(const char *s, double *v_p)
{
    char *end;
    double v;

    if ((s == NULL) || (*s == '\0')) {
        return -1;
    }
    v = strtod(s, &end);
    if ((*end != '\0') || !(v >= 0.0) || (v > 1e9)) {
        return -1;
    }
    *v_p = v;
    return 0;
}

static int mcast_parse_radices(const char *arg, mcast_opts_t *opts)
{
    static const tc_tool_list_t radices = {
        .opt = "-R", .min = 1, .max = 1u << 16, .max_n = MCAST_MAX_RADICES,
        .bad_fmt = "bad radix list '%s' (1..65536, at most 16)", .bad_whole = 1,
        .none_fmt = "bad radix list '%s'",
    };
    uint64_t v[MCAST_MAX_RADICES];
    unsigned i, n;
    int rc;

    rc = tc_tool_opt_list(&mcast_tool, arg, &radices, v, &n);
    if (rc == 0) {
        for (i = 0; i < n; ++i) {
            opts->radices[i] = (uint32_t)v[i];
        }
        opts->n_radices = n;
    }
    return rc;
}

static int mcast_parse(int argc, char **argv, mcast_opts_t *opts)
{
    enum { O_ACK = 1, O_NAIVE, O_ITERS, O_WARMUP, O_CSV, O_SIM, O_SHAPE, O_HOP, O_SEND,
           O_SHAPES, O_VERIFY, O_BOOT };
    static const struct option longs[] = {
        {"ack", no_argument, NULL, O_ACK},          {"naive", no_argument, NULL, O_NAIVE},
        {"iters", required_argument, NULL, O_ITERS}, {"warmup", required_argument, NULL, O_WARMUP},
        {"csv", required_argument, NULL, O_CSV},    {"simulate", required_argument, NULL, O_SIM},
        {"shape", required_argument, NULL, O_SHAPE}, {"hop-us", required_argument, NULL, O_HOP},
        {"send-us", required_argument, NULL, O_SEND}, {"shapes", no_argument, NULL, O_SHAPES},
        {"verify", no_argument, NULL, O_VERIFY},    {"help", no_argument, NULL, 'h'},
        {"boot", required_argument, NULL, O_BOOT},
        {"version", no_argument, NULL, TC_TOOL_OPT_VERSION},
        {NULL, 0, NULL, 0}};
    uint64_t v;
    int c, rc;

    memset(opts, 0, sizeof(*opts));
    opts->n          = 4;
    opts->jam        = "noop";
    opts->size       = 8;
    opts->iters      = 1000;
    opts->warmup     = 100;
    opts->shape      = "all";
    opts->hop_us     = 1.0;
    opts->send_us    = 0.25;
    opts->timeout_ms = 10000;
    opts->slots      = 8;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":n:R:j:s:W:S:T:qh", longs, NULL)) != -1) {
        rc = tc_tool_check_value(&mcast_tool, argc, argv);
        if (rc != 0) {
            return rc;
        }
        switch (c) {
        case 'n':
            /* a group of one has nobody to multicast to */
            rc = tc_tool_opt_u64(&mcast_tool, optarg, 2, 4096, "bad process count '%s' (2..4096)",
                                 &v);
            if (rc == 0) {
                opts->n     = (uint32_t)v;
                opts->n_set = 1;
            }
            break;
        case O_BOOT: {
            unsigned kind;
            rc = tc_tool_opt_name(&mcast_tool, &tc_names_boot,
                                  (1u << TC_BOOT_AUTO) | (1u << TC_BOOT_TCP) | (1u << TC_BOOT_PMIX),
                                  optarg, "bad bootstrap '%s' (auto, tcp, pmix: a group is "
                                  "processes)", &kind);
            opts->boot = (tc_boot_kind_t)kind;
            break;
        }
        case 'R': rc = mcast_parse_radices(optarg, opts); break;
        case 'j':
            opts->jam     = optarg;
            opts->jam_set = 1;
            break;
        case 's':
            rc = tc_tool_opt_u64(&mcast_tool, optarg, 0, 1u << 20,
                                 "bad payload size '%s' (0..1048576)", &v);
            if (rc == 0) {
                opts->size = (uint32_t)v;
            }
            break;
        case 'W': {
            /* the group's forwarding waits: no WFE/UMWAIT/MWAITX there */
            const uint32_t waits = (1u << TC_WAIT_POLL) | (1u << TC_WAIT_PAUSE) |
                                   (1u << TC_WAIT_EVENT) | (1u << TC_WAIT_ADAPTIVE);
            unsigned w;
            rc = tc_tool_opt_name(&mcast_tool, &tc_names_wait, waits, optarg,
                                  "bad wait '%s' (poll, pause, event, adaptive)", &w);
            if (rc == 0) {
                opts->wait     = (tc_wait_t)w;
                opts->wait_set = 1;
            }
            break;
        }
        case 'S':
            rc = tc_tool_opt_pow2(&mcast_tool, optarg, 2, 1u << 16,
                                  "bad slot count '%s' (a power of two, 2..65536)", &opts->slots);
            break;
        case 'T': rc = tc_tool_opt_timeout(&mcast_tool, optarg, &opts->timeout_ms); break;
        case 'q': opts->quiet = 1; break;
        case O_ACK: opts->ack = 1; break;
        case O_NAIVE: opts->naive = 1; break;
        case O_ITERS:
            rc = tc_tool_opt_u64(&mcast_tool, optarg, 1, 100000000,
                                 "bad iteration count '%s' (1..10^8)", &v);
            if (rc == 0) {
                opts->iters = (uint32_t)v;
            }
            break;
        case O_WARMUP:
            rc = tc_tool_opt_u64(&mcast_tool, optarg, 0, 100000000,
                                 "bad warm-up count '%s' (0..10^8)", &v);
            if (rc == 0) {
                opts->warmup = (uint32_t)v;
            }
            break;
        case O_CSV: opts->csv_path = optarg; break;
        case O_SIM:
            rc = tc_tool_opt_u64(&mcast_tool, optarg, 1, UINT32_MAX,
                                 "bad node count '%s' (1..4294967295)", &opts->simulate);
            break;
        case O_SHAPE:
            if (strcmp(optarg, "all") && strcmp(optarg, "every100") && strcmp(optarg, "dense") &&
                strcmp(optarg, "block")) {
                return tc_tool_bad(&mcast_tool, "bad shape '%s' (all, every100, dense, block)",
                                   optarg);
            }
            opts->shape     = optarg;
            opts->shape_set = 1;
            break;
        case O_HOP:
            if (mcast_parse_double(optarg, &opts->hop_us)) {
                return tc_tool_bad(&mcast_tool, "bad --hop-us '%s' (microseconds >= 0)", optarg);
            }
            break;
        case O_SEND:
            if (mcast_parse_double(optarg, &opts->send_us)) {
                return tc_tool_bad(&mcast_tool, "bad --send-us '%s' (microseconds >= 0)", optarg);
            }
            break;
        case O_SHAPES: opts->shapes = 1; break;
        case O_VERIFY: opts->verify = 1; break;
        case 'h': mcast_usage(stdout); exit(0);
        case TC_TOOL_OPT_VERSION: exit(tc_tool_version(&mcast_tool));
        default: return tc_tool_bad_opt(&mcast_tool, c, argv);
        }
        if (rc != 0) {
            return rc;
        }
    }
    if (optind < argc) {
        return tc_tool_bad(&mcast_tool, "unexpected argument '%s'", argv[optind]);
    }
    if (opts->boot == TC_BOOT_AUTO) {
        opts->boot = ((getenv("TC_RANK") == NULL) && tc_job_launched()) ? TC_BOOT_PMIX :
                                                                           TC_BOOT_TCP;
    }
    if (opts->shape_set && !opts->simulate) {
        return tc_tool_bad(&mcast_tool, "--shape %s needs --simulate: a real group's targets are "
                           "all its ranks but the origin", opts->shape);
    }
    if (opts->naive && opts->simulate) {
        return tc_tool_bad(&mcast_tool, "--naive: --simulate always prints the naive row");
    }
    if (opts->jam_set && opts->simulate) {
        return tc_tool_bad(&mcast_tool, "-j %s: --simulate models the tree and runs no jam",
                           opts->jam);
    }
    return 0;
}

FILE *mcast_csv_open(const char *path)
{
    FILE *f;

    if (path == NULL) {
        return NULL;
    }
    f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "tc-mcast: cannot write %s: %m\n", path);
        return NULL;
    }
    fprintf(f, "%s\n", MCAST_CSV_HEADER);
    fflush(f); /* before any fork: a buffered header would be written twice */
    return f;
}

static void mcast_csv_i64(FILE *f, int64_t v)
{
    if (v >= 0) {
        fprintf(f, "%lld", (long long)v);
    }
    fputc(',', f);
}

static void mcast_csv_dbl(FILE *f, double v, int last)
{
    if (!isnan(v)) {
        fprintf(f, "%.3f", v);
    }
    fputc(last ? '\n' : ',', f);
}

void mcast_csv_row(FILE *f, const mcast_row_t *r)
{
    char host[256], when[32];

    if (f == NULL) {
        return;
    }
    fprintf(f, "%s,%llu,", r->mode, (unsigned long long)r->n);
    mcast_csv_i64(f, r->radix);
    fprintf(f, "%d,%s,", r->ack, (r->jam != NULL) ? r->jam : "");
    mcast_csv_i64(f, r->payload_bytes);
    mcast_csv_i64(f, r->iterations);
    mcast_csv_dbl(f, r->p50_us, 0);
    mcast_csv_dbl(f, r->p99_us, 0);
    mcast_csv_dbl(f, r->p999_us, 0);
    fprintf(f, "%llu,%llu,%llu,%llu,%.2f,", (unsigned long long)r->origin_sends,
            (unsigned long long)r->depth, (unsigned long long)r->edges,
            (unsigned long long)r->max_fanout, r->target_bytes_per_hop);
    mcast_csv_dbl(f, r->modelled_us, 0);
    mcast_csv_dbl(f, r->hop_us, 0);
    mcast_csv_dbl(f, r->send_us, 0);
    /* who wrote it and when (the row's end), as tc-perf's rows */
    if (gethostname(host, sizeof(host)) != 0) {
        host[0] = '\0';
    }
    host[sizeof(host) - 1] = '\0';
    tc_tool_iso_time(time(NULL), when, sizeof(when));
    fprintf(f, "%s,%s,%d\n", host, when, TC_TOOL_SCHEMA_VERSION);
    fflush(f);
}

/* This process speaks for the group: rank 0 (which writes the CSV, one
 * file wherever the ranks run), the launcher of -n N, or --simulate. */
static int mcast_speaks(const mcast_opts_t *opts)
{
    const char *rank = getenv((opts->boot == TC_BOOT_PMIX) ? "PMIX_RANK" : "TC_RANK");

    if (opts->simulate) {
        return 1;
    }
    return (rank == NULL) ? (opts->boot != TC_BOOT_PMIX) : !strcmp(rank, "0");
}

/* -j: a jam of the bench package, or a usage error said once (by the
 * process that speaks) before any rank starts, where every rank would
 * otherwise fail on its own. A package that does not open is left to the
 * ranks, which say why. */
static int mcast_check_jam(const mcast_opts_t *opts)
{
    char path[4096];
    tc_pkg_t *pkg;
    tc_jam_t jam;
    int rc = 0;

    if ((tc_pkg_default_path(path, sizeof(path)) != TC_OK) || (tc_pkg_open(path, &pkg) != TC_OK)) {
        return 0;
    }
    if (tc_pkg_jam(pkg, opts->jam, &jam) != TC_OK) {
        rc = mcast_speaks(opts) ? tc_tool_bad_jam(&mcast_tool, pkg, opts->jam) : 2;
    }
    tc_pkg_close(pkg);
    return rc;
}

int main(int argc, char **argv)
{
    mcast_opts_t opts;
    FILE *csv = NULL;
    int rc, created;

    rc = mcast_parse(argc, argv, &opts);
    if (rc != 0) {
        return rc;
    }
    if (opts.shapes) {
        return mcast_shapes(&opts);
    }
    if (!opts.simulate) {
        rc = mcast_check_jam(&opts);
        if (rc != 0) {
            return rc;
        }
    }
    if ((opts.csv_path != NULL) && mcast_speaks(&opts)) {
        rc = tc_tool_check_output(&mcast_tool, "--csv", opts.csv_path, &created);
        if (rc != 0) {
            return rc;
        }
        csv = mcast_csv_open(opts.csv_path);
        if (csv == NULL) {
            return 1;
        }
    }
    rc = opts.simulate ? mcast_simulate(&opts, csv) : mcast_run(&opts, csv, argc, argv);
    if (csv != NULL) {
        fclose(csv);
    }
    return rc;
}
