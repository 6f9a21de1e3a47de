/*
 * tc-soak: a long stream of jams through one mailbox ring with flow control,
 * both sides in one process (two pinned threads, separate UCX contexts).
 * Every frame carries a counter and the sender's cycle counter; the receiver
 * checks the counters run exactly once in order, and its state is compared
 * with a local computation at the end. Reports throughput and the one-way
 * latency distribution (pack to run, queueing in the ring included).
 * `make soak` runs it under stress-ng --class vm --all 1.
 */
#define _GNU_SOURCE
#include "twochains.h"
#include "clock.h"
#include "log.h"
#include "bench_state.h"
#include "tool.h"
#include "harness/pkg_path.h"

#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct soak_opts {
    uint64_t    count;
    uint32_t    slots;
    int         timeout_ms;
    int         cpu[2];
    tc_signal_mode_t signal;
    tc_mode_t   mode;
    const char *json_path;
    const char *label;
} soak_opts_t;

typedef struct soak_side {
    const soak_opts_t  *opts;
    tc_boot_t          *boot;
    tc_pkg_t           *pkg;
    tc_context_t       *ctx;
    tc_peer_t          *peer;
    int                 cpu;
    int                 receiver;
    uint32_t           *lat;        /* receiver: latency samples, count of them */
    tc_status_t         status;
    uint64_t            elapsed_ns;
} soak_side_t;

static void soak_usage(FILE *out)
{
    fprintf(out,
            "usage: tc-soak [options]\n"
            "  -n COUNT    jams to stream (default 10000000)\n"
            "  -S SLOTS    ring slots, a power of two (default 64)\n"
            "  --signal M  signalling: auto (default), store, fenced, ordered, single-put\n"
            "  -m MODE     jam invocation: local (default), injected, cached\n"
            "  -c A,B      cores of the sender and the receiver (default 0,1); a core\n"
            "              this process may not use is refused\n"
            "  -T MS       longest silence before giving up (default 10000)\n"
            "  -L LABEL    what ran beside it, recorded in the JSON (e.g. the stress command)\n"
            "  --json FILE write the result\n"
            "  -h, --help  this help\n"
            "  --version   the tool's revision and UCX's version\n"
            TC_TOOL_EXIT_HELP);
}

static const tc_tool_t soak_tool = {"tc-soak", soak_usage};

static int soak_parse(int argc, char **argv, soak_opts_t *o)
{
    static const struct option long_opts[] = {
        {"json", required_argument, NULL, 1},
        {"signal", required_argument, NULL, 2},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, TC_TOOL_OPT_VERSION},
        {NULL, 0, NULL, 0},
    };
    unsigned n, v;
    int c, rc;

    memset(o, 0, sizeof(*o));
    o->count      = 10000000;
    o->slots      = 64;
    o->signal     = TC_SIGNAL_AUTO;
    o->timeout_ms = 10000;
    o->cpu[0]     = 0;
    o->cpu[1]     = 1;
    o->label      = "";
    opterr        = 0;
    while ((c = getopt_long(argc, argv, ":n:S:m:c:T:L:h", long_opts, NULL)) != -1) {
        rc = tc_tool_check_value(&soak_tool, argc, argv);
        if (rc != 0) {
            return rc;
        }
        switch (c) {
        case 'n':
            rc = tc_tool_opt_u64(&soak_tool, optarg, 1, 1ull << 40, "bad count '%s' (1..2^40)",
                                 &o->count);
            break;
        case 'S':
            rc = tc_tool_opt_pow2(&soak_tool, optarg, 2, 1u << 20,
                                  "bad slot count '%s' (a power of two, 2..2^20)", &o->slots);
            break;
        case 2:
            rc = tc_tool_opt_name(&soak_tool, &tc_names_signal, TC_TOOL_NAMES_ALL, optarg,
                                  "bad signalling mode '%s' (auto, store, fenced, ordered, single-put)", &v);
            if (rc == 0) {
                o->signal = (tc_signal_mode_t)v;
            }
            break;
        case 'c':
            rc = tc_tool_opt_cpus(&soak_tool, "-c", optarg, 2, 2, "SENDER,RECEIVER", o->cpu, &n);
            if (rc == 0) {
                /* asked for: refused where it cannot be had (the default
                 * 0,1 stays best effort, for a one-core host) */
                rc = tc_tool_check_cpus(&soak_tool, o->cpu, 2);
            }
            break;
        case 'T': rc = tc_tool_opt_timeout(&soak_tool, optarg, &o->timeout_ms); break;
        case 'm':
            rc = tc_tool_opt_name(&soak_tool, &tc_names_mode, TC_TOOL_NAMES_ALL, optarg,
                                  "unknown mode '%s' (local, injected, cached)", &v);
            if (rc == 0) {
                o->mode = (tc_mode_t)v;
            }
            break;
        case 'L': o->label = optarg; break;
        case 1: o->json_path = optarg; break;
        case 'h': soak_usage(stdout); exit(0);
        case TC_TOOL_OPT_VERSION: exit(tc_tool_version(&soak_tool));
        default: return tc_tool_bad_opt(&soak_tool, c, argv);
        }
        if (rc != 0) {
            return rc;
        }
    }
    if (optind < argc) {
        return tc_tool_bad(&soak_tool, "unexpected argument '%s'", argv[optind]);
    }
    return 0;
}

static void *soak_side_run(void *arg)
{
    soak_side_t *side = arg;
    tc_context_params_t params;
    tc_bench_stamp_t stamp;
    tc_peer_stats_t st;
    uint64_t i, t0;
    tc_jam_t jam;

    if (sysconf(_SC_NPROCESSORS_ONLN) > 1) {
        (void)tc_tool_pin(side->cpu); /* a failed pin is logged; the soak still runs */
    }
    side->status = tc_pkg_jam(side->pkg, "stamp", &jam);
    if (side->status != TC_OK) {
        return NULL;
    }
    tc_context_params_init(&params);
    params.slots      = side->opts->slots;
    params.slot_size  = tc_frame_size_for(sizeof(stamp));
    if (side->opts->mode != TC_MODE_LOCAL) {
        /* code in the frames (or once, at sync): frames as big as each needs */
        uint32_t f       = tc_jam_frame_size(&jam, side->opts->mode, sizeof(stamp));
        uint32_t p       = tc_jam_prepare_size(&jam, side->opts->mode);
        params.slot_size = (f > p) ? f : p;
        params.frames    = TC_FRAMES_VARIABLE;
    }
    params.signal     = side->opts->signal;
    params.timeout_ms = side->opts->timeout_ms;
    params.rank       = (uint32_t)side->boot->rank;

    side->status = tc_context_create(&params, &side->ctx);
    if (side->status == TC_OK) {
        side->status = tc_context_add_pkg(side->ctx, side->pkg);
    }
    if ((side->status == TC_OK) && side->receiver) {
        tc_bench_state_t *st = tc_context_pkg_state(side->ctx, side->pkg);
        st->lat_ticks = side->lat;
        st->lat_cap   = side->opts->count;
    }
    if (side->status == TC_OK) {
        side->status = tc_peer_connect(side->ctx, side->boot, NULL, &side->peer);
    }
    if ((side->status == TC_OK) && (side->opts->mode == TC_MODE_LOCAL)) {
        side->status = tc_peer_set_frame_size(side->peer, tc_frame_size_for(sizeof(stamp)));
    }
    if (side->status == TC_OK) {
        side->status = tc_boot_barrier(side->boot); /* both sized before the first send */
    }
    if (side->status != TC_OK) {
        return NULL;
    }

    t0 = tc_clock_mono_ns();
    if (side->receiver) {
        for (;;) {
            tc_peer_stats(side->peer, &st);
            if (st.rx_frames + st.rx_rejected >= side->opts->count) {
                break;
            }
            side->status = tc_peer_wait(side->peer, NULL);
            if (side->status != TC_OK) {
                return NULL;
            }
        }
        side->status = tc_peer_flush(side->peer);
    } else {
        for (i = 0; (i < side->opts->count) && (side->status == TC_OK); ++i) {
            side->status = tc_jam_send(side->peer, &jam, &i, sizeof(i), TC_SEND_PARAMS(side->opts->mode, 0));
        }
        if (side->status == TC_OK) {
            side->status = tc_peer_drain(side->peer); /* the last credit is back */
        }
    }
    side->elapsed_ns = tc_clock_mono_ns() - t0;
    if (side->status == TC_OK) {
        side->status = tc_boot_barrier(side->boot);
    }
    return NULL;
}

static int soak_cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The soak itself: 0 when every jam ran once and in order, else 1. */
static int soak_run(const soak_opts_t *opts)
{
    soak_side_t side[2];
    tc_bench_state_t *st;
    tc_peer_stats_t tx, rx;
    char pkg_path[PATH_MAX];
    tc_clock_t clock;
    pthread_t thread;
    tc_pkg_t *pkg;
    uint32_t *lat;
    uint64_t expect_sum, i;
    double rate, q[6];
    static const double pct[6] = {50, 90, 99, 99.9, 99.99, 100};
    int failed = 0;
    FILE *f;

    tc_clock_init(&clock);
    if ((tc_pkg_default_path(pkg_path, sizeof(pkg_path)) != TC_OK) ||
        (tc_pkg_open(pkg_path, &pkg) != TC_OK)) {
        return 1;
    }
    lat = calloc(opts->count, sizeof(*lat));
    if (lat == NULL) {
        tc_error("no memory for %llu latency samples", (unsigned long long)opts->count);
        return 1;
    }

    memset(side, 0, sizeof(side));
    for (i = 0; i < 2; ++i) {
        side[i].opts     = opts;
        side[i].pkg      = pkg;
        side[i].cpu      = opts->cpu[i];
        side[i].receiver = (i == 1);
    }
    side[1].lat = lat;
    if (tc_boot_loopback_pair(opts->timeout_ms, &side[1].boot, &side[0].boot) != TC_OK) {
        return 1;
    }
    pthread_create(&thread, NULL, soak_side_run, &side[1]);
    soak_side_run(&side[0]);
    if (side[0].status != TC_OK) {
        tc_boot_close(side[0].boot); /* wakes a receiver stuck in a barrier */
        side[0].boot = NULL;
    }
    pthread_join(thread, NULL);

    if ((side[0].status != TC_OK) || (side[1].status != TC_OK)) {
        tc_error("soak failed: sender %s, receiver %s", tc_status_str(side[0].status),
                 tc_status_str(side[1].status));
        return 1;
    }

    st = tc_context_pkg_state(side[1].ctx, pkg);
    tc_peer_stats(side[0].peer, &tx);
    tc_peer_stats(side[1].peer, &rx);
    expect_sum = (opts->count % 2 == 0) ? (opts->count / 2) * (opts->count - 1) :
                                          opts->count * ((opts->count - 1) / 2);
    if ((st->seq_errors != 0) || (st->seq_next != opts->count) || (st->calls != opts->count) ||
        (st->checksum != expect_sum) || (rx.rx_frames != opts->count) || (rx.rx_rejected != 0) ||
        (tx.tx_jams != opts->count)) {
        tc_error("delivery broken: sent %llu, ran %llu, rejected %llu (NACKs dropped %u), "
                 "out of order %llu, next %llu, checksum %llu (expected %llu)",
                 (unsigned long long)tx.tx_jams, (unsigned long long)st->calls,
                 (unsigned long long)rx.rx_rejected, rx.nacks_dropped,
                 (unsigned long long)st->seq_errors,
                 (unsigned long long)st->seq_next, (unsigned long long)st->checksum,
                 (unsigned long long)expect_sum);
        failed = 1;
    }

    qsort(lat, st->lat_n, sizeof(*lat), soak_cmp_u32);
    for (i = 0; i < 6; ++i) {
        uint64_t rank = (uint64_t)((pct[i] / 100.0) * (double)st->lat_n + 0.999999);
        rank   = (rank == 0) ? 1 : (rank > st->lat_n ? st->lat_n : rank);
        q[i]   = tc_clock_ticks_to_ns(&clock, lat[rank - 1]) / 1e3;
    }
    rate = (double)opts->count / ((double)side[0].elapsed_ns * 1e-9);
    printf("tc-soak: %llu jams (%s) in %.2f s: %.0f msg/s; every counter ran once, in order: %s\n"
           "one-way (pack to run, us): p50 %.3f  p90 %.3f  p99 %.3f  p99.9 %.3f  p99.99 %.3f  max %.3f\n"
           "credit waits %llu, credit puts %llu; beside: %s\n",
           (unsigned long long)opts->count, tc_mode_str(opts->mode), side[0].elapsed_ns * 1e-9, rate,
           failed ? "NO" : "yes", q[0], q[1], q[2], q[3], q[4], q[5],
           (unsigned long long)tx.credit_waits, (unsigned long long)rx.credit_puts,
           opts->label[0] ? opts->label : "nothing");

    if (opts->json_path != NULL) {
        f = fopen(opts->json_path, "w");
        if (f == NULL) {
            tc_error("cannot write %s: %m", opts->json_path);
            return 1;
        }
        fprintf(f, "{\"tool\": \"tc-soak\", \"mode\": \"%s\", \"count\": %llu, \"slots\": %u, "
                   "\"elapsed_s\": %.6f, "
                   "\"rate_mps\": %.1f, \"in_order_exactly_once\": %s, \"p50_us\": %.4f, "
                   "\"p90_us\": %.4f, \"p99_us\": %.4f, \"p999_us\": %.4f, \"p9999_us\": %.4f, "
                   "\"max_us\": %.4f, \"credit_waits\": %llu, \"ucx_version\": \"%s\", "
                   "\"transports\": \"%s\", \"beside\": \"%s\"}\n",
                tc_mode_str(opts->mode), (unsigned long long)opts->count, opts->slots,
                side[0].elapsed_ns * 1e-9, rate,
                failed ? "false" : "true", q[0], q[1], q[2], q[3], q[4], q[5],
                (unsigned long long)tx.credit_waits, tc_ucx_version(),
                tc_peer_transports(side[0].peer), opts->label);
        fclose(f);
    }

    for (i = 0; i < 2; ++i) {
        tc_peer_close(side[i].peer);
        tc_context_destroy(side[i].ctx);
        tc_boot_close(side[i].boot);
    }
    tc_pkg_close(pkg);
    free(lat);
    return failed;
}

int main(int argc, char **argv)
{
    soak_opts_t opts;
    int rc, created;

    rc = soak_parse(argc, argv, &opts);
    if (rc == 0) {
        rc = tc_tool_check_output(&soak_tool, "--json", opts.json_path, &created);
    }
    if (rc != 0) {
        return rc;
    }
    rc = soak_run(&opts);
    if (rc != 0) {
        tc_tool_drop_output(opts.json_path, created);
    }
    return rc;
}
