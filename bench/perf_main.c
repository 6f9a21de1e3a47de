/*
 * tc-perf: server with no HOST, client with HOST (like ucx_perftest), or
 * both sides in one process with -l. The client decides the tests and
 * sends its options to the server over the bootstrap.
 */
#define _GNU_SOURCE
#include "perf.h"
#include "log.h"
#include "tool.h"
#include "harness/platform.h"
#include "manifest.h"
#include "harness/cycles.h"
#include "stress.h"
#include "place.h"
#include "harness/pkg_path.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* SIGINT on the side that measures: the point in progress is abandoned
 * (the peer cannot be told mid-point), the rows measured so far are
 * written and tc-perf exits 130. The handler only wakes a thread that does
 * it; a second SIGINT ends the process at once. */
static volatile sig_atomic_t perf_sigint;
static struct sigaction      perf_sigint_old;
static struct {
    int            pipe[2];  /* the handler writes a byte; [0] < 0: not armed */
    pthread_t      thread;
    perf_run_t    *run;
    perf_result_t *results;
    unsigned       n;        /* __atomic: rows finished (never changed again) */
    int            claimed;  /* __atomic: the outputs are being written */
} perf_live = {.pipe = {-1, -1}};

static void perf_usage(FILE *out)
{
    unsigned i;

    fprintf(out,
            "usage: tc-perf [options] [HOST]\n"
            "  no HOST: server, waits for a client on -p PORT; HOST: client; -l: both in one process\n"
            "  -t TESTS    comma list of tests (default jam_lat):\n");
    for (i = 0; i < perf_n_tests; ++i) {
        fprintf(out, "                %-13s %s\n", perf_tests[i].name, perf_tests[i].measures);
    }
    fprintf(out,
            "  -j JAM      jam for jam_* tests (default indirect_put)\n"
            "  -m MODES    jam invocation, comma list: local (default), injected, cached\n"
            "  -W WAITS    how receivers wait, comma list: poll (default), pause, wfe, umwait,\n"
            "              mwaitx, event, adaptive (tc-perf --platform says which this host has);\n"
            "              the put_*/floor_* references' receivers too (event, adaptive: poll)\n"
            "  -P DIR      package install directory (tc-pkg build --out DIR)\n"
            "  --wx        W^X: injected code runs from the RX view of a code area\n"
            "              mapped twice (written only through its RW view)\n"
            "  --exec POLICY  what receivers run: allowlist (default: code identical to\n"
            "              their own blob, which is what runs), any (a checked copy of\n"
            "              the frame's code), local-only (no injected or cached code)\n"
            "  --in-place  with --exec any: run injected code in place in the slot (the\n"
            "              paper's layout, to measure it; it does NOT hold against a\n"
            "              peer racing its own frame: docs/SECURITY.md)\n"
            "  --placement LIST  where senders' frames land, comma list: default (the\n"
            "              transport's put), llc (write + push lines to the shared cache),\n"
            "              dram (write around the caches); llc and dram need same-host\n"
            "              shared memory and are an emulation (docs/EXPERIMENTS.md)\n"
            "  --sw-prefetch on|off  receivers prefetch the whole frame on arrival\n"
            "  --hw-prefetch on|off  set the CPU hardware prefetchers for the run (restored\n"
            "              after it, also on SIGINT/SIGTERM); fails where not controllable\n"
            "  --stash on|off  the same for I/O cache stashing (e.g. Intel DDIO)\n"
            "  --stress SPEC  run stress-ng --class CLASS --all N for the run (SPEC = CLASS[:N],\n"
            "              e.g. vm; a CLASS stress-ng lacks is refused), pinned to\n"
            "              --stress-cpus, stopped whatever happens\n"
            "  --stress-cpus LIST  cores for the load (default: -c's cores with -l, else all)\n"
            "  --dist FILE  write each latency row's distribution (percentile, latency)\n"
            "  --order O   test (default): each wait and placement in turn, each test\n"
            "              over its modes and sizes; size: each payload's waits,\n"
            "              placements, tests and modes back to back, so the variants\n"
            "              compared at a payload and the references of their frame sizes\n"
            "              run seconds apart, not minutes (the host's speed drifts)\n"
            "  --blocks B  each point's iterations (and warm-up) in B blocks, the points\n"
            "              taking turns block by block: with --order size every variant\n"
            "              of a payload (modes, waits, placements) and its references\n"
            "              alternate every -n/B iterations, so a host whose speed switches\n"
            "              slows them alike (default 1: each point whole; rows print as\n"
            "              their last block ends)\n"
            "  --gap-us N  jam_lat: the client idles N us between round trips (sparse\n"
            "              traffic: compare the server's cost, the peer_* columns); refused\n"
            "              with the stream (*_rate) tests, which send back to back\n"
            "  -s SIZES    payload bytes, comma list of N or MIN:MAX (MIN doubled up to MAX,\n"
            "              like OSU's -m; 0:MAX is 0,1,2,4..), e.g. 8,64 or 8:32768 (default 8:\n"
            "              one size, as ucx_perftest: a sweep of 10^6 iterations each is long)\n"
            "  -n ITERS    measured iterations (default 1000000)\n"
            "  -w WARMUP   warm-up iterations (default 10000, or -n if smaller)\n"
            "  -c CPU      pin to this core (hwloc); with -l or --boot pmix: -c A,B for\n"
            "              the client and the server\n"
            "  -p PORT     bootstrap TCP port (default %d)\n"
            "  -l          loopback: both sides in one process, two pinned threads\n"
            "  --boot B    how the sides meet: auto (default: pmix when mpirun or srun\n"
            "              --mpi=pmix started this process, else tcp), tcp (server, and\n"
            "              client with HOST), pmix (2 ranks: rank 0 serves, rank 1\n"
            "              measures and reports; -c A,B: rank 1 on A, rank 0 on B),\n"
            "              loopback (-l)\n"
            "  -S SLOTS    mailbox ring slots, a power of two (default 64)\n"
            "  -z BYTES    slot size, a multiple of 64 (default: fits the largest size)\n"
            "  --signal M  auto (default: store where the peer's mailbox is mapped, else\n"
            "              fenced), store, fenced, ordered or single-put (docs/ARCHITECTURE.md)\n"
            "  -F MODE     frames: fixed (default) or variable\n"
            "  --progress M  worker progress in wait loops: auto (default), on, off\n"
            "  -T MS       timeout: longest silence from the peer (default 10000); a server\n"
            "              also waits 6 x MS for its client to connect\n"
            "  --window N  stream tests: messages per histogram sample (default 64)\n"
            "  -k PATH     package library (default: the bench package of this build)\n"
            "  --csv FILE  write one row per (test, size); - for stdout (the table then goes\n"
            "              to stderr); opened before the run, written after it (also after\n"
            "              Ctrl-C: the rows measured so far, exit 130)\n"
            "  --json FILE write the run's configuration and results; - for stdout\n"
            "  --report R  periodic (default: a progress line on stderr every 2 s within a\n"
            "              long point) or final (only the rows)\n"
            "  --platform  print what this host supports (wait strategies, placement,\n"
            "              controls, PMU) and exit; with --json -: as JSON\n"
            "  -q          quiet: no table\n"
            "  -h          this help\n"
            "Table: latency in us, one-way (RTT/2) on ping-pong rows; rate msg/s counts every\n"
            "message (2 per round trip on ping-pong rows); MB/s = rate x payload / 10^6.\n",
            PERF_DEFAULT_PORT);
}

static const tc_tool_t perf_tool = {"tc-perf", perf_usage};

static int perf_check_stdout_once(perf_local_t *local);

static int perf_parse_tests(const char *arg, perf_opts_t *opts)
{
    char *copy, *tok, *save = NULL;
    unsigned i;
    int rc = 0;

    if (tc_tool_list_has_empty(arg)) {
        return tc_tool_bad_empty(&perf_tool, "-t", arg);
    }
    copy          = strdup(arg);
    opts->n_tests = 0;
    for (tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
        for (i = 0; (i < perf_n_tests) && strcmp(perf_tests[i].name, tok); ++i) {
        }
        if ((i == perf_n_tests) || (opts->n_tests == PERF_MAX_TESTS)) {
            rc = tc_tool_bad(&perf_tool, "unknown test '%s'", tok);
            break;
        }
        opts->tests[opts->n_tests++] = i;
    }
    if ((rc == 0) && (opts->n_tests == 0)) {
        rc = tc_tool_bad(&perf_tool, "no test in '%s'", arg);
    }
    free(copy);
    return rc;
}

static int perf_parse_sizes(const char *arg, perf_opts_t *opts)
{
    static const tc_tool_list_t sizes = {
        .opt = "-s", .min = 0, .max = 1u << 30, .max_n = PERF_MAX_SIZES, .ranges = 1,
        .bad_fmt  = "bad payload size '%s' (0..1073741824 or MIN:MAX, at most 64 sizes)",
        .none_fmt = "no size in '%s'",
    };
    uint64_t v[PERF_MAX_SIZES];
    unsigned i, n;
    int rc;

    rc = tc_tool_opt_list(&perf_tool, arg, &sizes, v, &n);
    if (rc == 0) {
        for (i = 0; i < n; ++i) {
            opts->sizes[i] = (uint32_t)v[i];
        }
        opts->n_sizes = n;
    }
    return rc;
}

static int perf_parse(int argc, char **argv, perf_opts_t *opts, perf_local_t *local)
{
    static const struct option long_opts[] = {
        {"csv", required_argument, NULL, 1},
        {"json", required_argument, NULL, 2},
        {"signal", required_argument, NULL, 3},
        {"progress", required_argument, NULL, 4},
        {"window", required_argument, NULL, 5},
        {"platform", no_argument, NULL, 6},
        {"wx", no_argument, NULL, 7},
        {"placement", required_argument, NULL, 8},
        {"sw-prefetch", required_argument, NULL, 9},
        {"hw-prefetch", required_argument, NULL, 10},
        {"stash", required_argument, NULL, 11},
        {"stress", required_argument, NULL, 12},
        {"stress-cpus", required_argument, NULL, 13},
        {"dist", required_argument, NULL, 14},
        {"gap-us", required_argument, NULL, 15},
        {"exec", required_argument, NULL, 16},
        {"in-place", no_argument, NULL, 17},
        {"boot", required_argument, NULL, 18},
        {"report", required_argument, NULL, 19},
        {"order", required_argument, NULL, 20},
        {"blocks", required_argument, NULL, 21},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    uint64_t v;
    unsigned n;
    int c, rc;

    memset(opts, 0, sizeof(*opts));
    memset(local, 0, sizeof(*local));
    opts->magic    = PERF_OPTS_MAGIC;
    opts->proto    = TC_PROTO_VERSION;
    opts->n_tests  = 1;
    opts->tests[0] = 0;
    opts->n_sizes  = 1;
    opts->sizes[0] = 8;
    opts->iters    = 1000000;
    opts->warmup   = 10000;
    opts->slots    = 64;
    opts->window   = 64;
    opts->blocks   = 1;
    opts->signal   = TC_SIGNAL_AUTO;
    opts->n_modes  = 1;
    opts->modes[0] = TC_MODE_LOCAL;
    opts->n_waits  = 1;
    opts->waits[0] = TC_WAIT_POLL;
    opts->n_places = 1;
    opts->places[0] = TC_PLACE_DEFAULT;
    opts->hw_prefetch = -1;
    opts->stash       = -1;
    snprintf(opts->jam, sizeof(opts->jam), "indirect_put");
    local->port       = PERF_DEFAULT_PORT;
    local->cpu[0]     = -1;
    local->cpu[1]     = -1;
    local->timeout_ms = 10000;
    local->report_ms  = 2000;
    local->table      = stdout;
    local->argc       = argc;
    local->argv       = argv;
    if (gethostname(opts->host, sizeof(opts->host) - 1) != 0) {
        snprintf(opts->host, sizeof(opts->host), "?");
    }

    opterr = 0;
    while ((c = getopt_long(argc, argv, ":t:j:m:P:W:s:n:w:c:p:lS:z:F:T:k:qh", long_opts,
                            NULL)) != -1) {
        rc = 0;
        switch (c) {
        case 't': rc = perf_parse_tests(optarg, opts); break;
        case 'j':
            if ((strlen(optarg) == 0) || (strlen(optarg) >= sizeof(opts->jam))) {
                return tc_tool_bad(&perf_tool, "bad jam name '%s'", optarg);
            }
            snprintf(opts->jam, sizeof(opts->jam), "%s", optarg);
            break;
        case 's': rc = perf_parse_sizes(optarg, opts); break;
        case 'm':
            rc = tc_tool_opt_names(&perf_tool, &tc_names_mode, optarg, opts->modes,
                                   TC_ARRAY_SIZE(opts->modes), &opts->n_modes);
            break;
        case 'W':
            rc = tc_tool_opt_names(&perf_tool, &tc_names_wait, optarg, opts->waits,
                                   TC_ARRAY_SIZE(opts->waits), &opts->n_waits);
            break;
        case 'P': local->pkg_dir = optarg; break;
        case 'n':
            rc = tc_tool_opt_u64(&perf_tool, optarg, 1, 1ull << 40,
                                 "bad iteration count '%s' (1..2^40)", &opts->iters);
            break;
        case 'w':
            rc = tc_tool_opt_u64(&perf_tool, optarg, 0, 1ull << 40,
                                 "bad warm-up count '%s' (0..2^40)", &opts->warmup);
            local->warmup_set = 1;
            break;
        case 'c':
            rc = tc_tool_opt_cpus(&perf_tool, optarg, 1, 2, "bad cpu '%s'", local->cpu, &n);
            break;
        case 'p':
            rc = tc_tool_opt_u64(&perf_tool, optarg, 1, 65535, "bad port '%s' (1..65535)", &v);
            if (rc == 0) {
                local->port = (uint16_t)v;
            }
            break;
        case 'l': local->loopback = 1; break;
        case 'S':
            rc = tc_tool_opt_pow2(&perf_tool, optarg, 2, 1u << 20,
                                  "bad slot count '%s' (a power of two, 2..2^20)", &opts->slots);
            break;
        case 'z':
            rc = tc_tool_opt_mult64(&perf_tool, optarg, 64, 1u << 30,
                                    "bad slot size '%s' (a multiple of 64, 64..2^30)",
                                    &opts->slot_size);
            break;
        case 3:
            rc = tc_tool_opt_name(&perf_tool, &tc_names_signal, TC_TOOL_NAMES_ALL, optarg,
                                  "bad signalling mode '%s' (auto, store, fenced, ordered, single-put)",
                                  &opts->signal);
            break;
        case 'F':
            rc = tc_tool_opt_name(&perf_tool, &tc_names_frames, TC_TOOL_NAMES_ALL, optarg,
                                  "bad frame mode '%s' (fixed, variable)", &opts->frames);
            break;
        case 4:
            rc = tc_tool_opt_name(&perf_tool, &tc_names_progress, TC_TOOL_NAMES_ALL, optarg,
                                  "bad progress mode '%s' (auto, on, off)", &opts->progress);
            break;
        case 'T': rc = tc_tool_opt_timeout(&perf_tool, optarg, &local->timeout_ms); break;
        case 5:
            rc = tc_tool_opt_u64(&perf_tool, optarg, 1, 1u << 20, "bad window '%s' (1..2^20)",
                                 &v);
            if (rc == 0) {
                opts->window = (uint32_t)v;
            }
            break;
        case 'k': local->pkg_path = optarg; break;
        case 'q': local->quiet = 1; break;
        case 6: local->platform = 1; break;
        case 7: opts->wx = 1; break;
        case 16: {
            uint32_t n_exec; /* one policy: a list of two names the second */
            rc = tc_tool_opt_names(&perf_tool, &tc_names_exec, optarg, &opts->exec, 1, &n_exec);
            break;
        }
        case 17: opts->in_place = 1; break;
        case 18: {
            unsigned kind;
            rc = tc_tool_opt_name(&perf_tool, &tc_names_boot, TC_TOOL_NAMES_ALL, optarg,
                                  "bad bootstrap '%s' (auto, tcp, pmix, loopback)", &kind);
            local->boot = (tc_boot_kind_t)kind;
            break;
        }
        case 8:
            rc = tc_tool_opt_names(&perf_tool, &tc_names_place, optarg, opts->places,
                                   TC_ARRAY_SIZE(opts->places), &opts->n_places);
            break;
        case 9: {
            int32_t on;
            rc = tc_tool_opt_onoff(&perf_tool, "--sw-prefetch", optarg, &on);
            if (rc == 0) {
                opts->sw_prefetch = (uint32_t)(on == 1);
            }
            break;
        }
        case 10:
            rc = tc_tool_opt_onoff(&perf_tool, "--hw-prefetch", optarg, &opts->hw_prefetch);
            break;
        case 20:
            if ((strcmp(optarg, "test") != 0) && (strcmp(optarg, "size") != 0)) {
                return tc_tool_bad(&perf_tool, "--order takes test or size, not '%s'", optarg);
            }
            opts->size_major = (strcmp(optarg, "size") == 0);
            break;
        case 21:
            rc = tc_tool_opt_u64(&perf_tool, optarg, 1, 100000, "bad --blocks '%s' (1..100000)",
                                 &v);
            if (rc == 0) {
                opts->blocks = (uint32_t)v;
            }
            break;
        case 11: rc = tc_tool_opt_onoff(&perf_tool, "--stash", optarg, &opts->stash); break;
        case 12:
            if ((strlen(optarg) == 0) || (strlen(optarg) >= sizeof(opts->stress))) {
                return tc_tool_bad(&perf_tool, "bad --stress spec '%s' (CLASS[:N], e.g. vm)",
                                   optarg);
            }
            snprintf(opts->stress, sizeof(opts->stress), "%s", optarg);
            break;
        case 19:
            if (strcmp(optarg, "periodic") && strcmp(optarg, "final")) {
                return tc_tool_bad(&perf_tool, "bad --report '%s' (periodic, final)", optarg);
            }
            local->report_final = !strcmp(optarg, "final");
            break;
        case 13: local->stress_cpus = optarg; break;
        case 14: local->dist_path = optarg; break;
        case 15:
            rc = tc_tool_opt_u64(&perf_tool, optarg, 0, 1000000, "bad gap '%s' (0..1000000 us)",
                                 &v);
            if (rc == 0) {
                opts->gap_ns = v * 1000;
            }
            break;
        case 1: local->csv_path = optarg; break;
        case 2: local->json_path = optarg; break;
        case 'h': perf_usage(stdout); exit(0);
        default: return tc_tool_bad_opt(&perf_tool, c, argv);
        }
        if (rc != 0) {
            return rc;
        }
    }
    if (optind < argc) {
        local->host = argv[optind++];
    }
    if (optind < argc) {
        return tc_tool_bad(&perf_tool, "unexpected argument '%s'", argv[optind]);
    }
    if (local->loopback && (local->boot != TC_BOOT_AUTO) && (local->boot != TC_BOOT_LOOPBACK)) {
        return tc_tool_bad(&perf_tool, "-l is --boot loopback, not --boot %s",
                           tc_boot_kind_str(local->boot));
    }
    if (local->boot == TC_BOOT_AUTO) {
        local->boot = local->loopback ? TC_BOOT_LOOPBACK :
                      ((local->host == NULL) && tc_job_launched()) ? TC_BOOT_PMIX : TC_BOOT_TCP;
    }
    local->loopback = (local->boot == TC_BOOT_LOOPBACK);
    if (local->loopback && (local->host != NULL)) {
        return tc_tool_bad(&perf_tool, "-l takes no HOST (got '%s')", local->host);
    }
    if ((local->boot == TC_BOOT_PMIX) && (local->host != NULL)) {
        return tc_tool_bad(&perf_tool, "--boot pmix takes no HOST (got '%s'): the launcher "
                           "places both ranks", local->host);
    }
    if ((local->stress_cpus != NULL) && (opts->stress[0] == '\0')) {
        return tc_tool_bad(&perf_tool, "--stress-cpus %s needs --stress", local->stress_cpus);
    }
    if (opts->in_place && ((opts->exec != TC_EXEC_ANY) || opts->wx)) {
        return tc_tool_bad(&perf_tool, "--in-place needs --exec any and no --wx");
    }
    if ((opts->stress[0] != '\0') && (local->boot == TC_BOOT_TCP) && (local->host == NULL)) {
        return tc_tool_bad(&perf_tool, "--stress %s goes on the client (or -l), which runs the load",
                           opts->stress);
    }
    if (opts->stress[0] != '\0') {
        char why[256];
        if (tc_stress_check(opts->stress, why, sizeof(why)) != TC_OK) {
            return tc_tool_bad(&perf_tool, "--stress %s: %s", opts->stress, why);
        }
    }
    if (opts->gap_ns != 0) {
        for (n = 0; n < opts->n_tests; ++n) {
            if (perf_tests[opts->tests[n]].shape == PERF_SHAPE_STREAM) {
                return tc_tool_bad(&perf_tool, "--gap-us applies to jam_lat, not to %s (a stream "
                                   "sends back to back)", perf_tests[opts->tests[n]].name);
            }
        }
    }
    rc = perf_check_stdout_once(local);
    if (rc != 0) {
        return rc;
    }
    {
        /* a test hook: progress lines more often than every 2 s */
        const char *ms = getenv("TC_PERF_REPORT_MS");
        if ((ms != NULL) && tc_tool_parse_u64(ms, 1, 3600000, &v)) {
            return tc_tool_bad(&perf_tool, "bad TC_PERF_REPORT_MS '%s' (1..3600000)", ms);
        }
        if (ms != NULL) {
            local->report_ms = v;
        }
    }
    if (opts->blocks > opts->iters) {
        return tc_tool_bad(&perf_tool, "--blocks %u needs at least as many iterations (-n %llu)",
                           opts->blocks, (unsigned long long)opts->iters);
    }
    if (!local->warmup_set && (opts->warmup > opts->iters)) {
        opts->warmup = opts->iters; /* said in main, on the side that measures */
    }
    return 0;
}

/* At most one output may be "-" (stdout); the table then goes to stderr so
 * that stdout holds that output alone. */
static int perf_check_stdout_once(perf_local_t *local)
{
    const char *paths[] = {local->csv_path, local->json_path, local->dist_path};
    const char *opt[]   = {"--csv", "--json", "--dist"};
    int first = -1, i;

    for (i = 0; i < 3; ++i) {
        if ((paths[i] == NULL) || strcmp(paths[i], "-")) {
            continue;
        }
        if (first >= 0) {
            return tc_tool_bad(&perf_tool, "%s - and %s -: only one output can go to stdout",
                               opt[first], opt[i]);
        }
        first = i;
    }
    if (first >= 0) {
        local->table = stderr;
    }
    return 0;
}

/* Open the package the jams come from: -P DIR (its manifest names the
 * library), -k PATH, or the bench package of this build. */
static tc_status_t perf_open_pkg(perf_local_t *local)
{
    char path[PATH_MAX];
    tc_manifest_t *m;
    tc_status_t status;

    if (local->pkg_dir != NULL) {
        status = tc_manifest_load(local->pkg_dir, &m);
        if (status != TC_OK) {
            tc_error("-P %s: no usable tc-pkg manifest there", local->pkg_dir);
            return status;
        }
        snprintf(path, sizeof(path), "%s/%s", local->pkg_dir, m->library);
        tc_manifest_free(m);
    } else if (local->pkg_path != NULL) {
        snprintf(path, sizeof(path), "%s", local->pkg_path);
    } else if (tc_pkg_default_path(path, sizeof(path)) != TC_OK) {
        tc_error("cannot locate the bench package (set TC_PKG, -k or -P)");
        return TC_ERR_NOT_FOUND;
    }
    return tc_pkg_open(path, &local->pkg);
}

/* The slot must hold the largest frame of any size and mode, and the
 * namespace sync; 0 asks for the smallest that does. */
static int perf_fix_slot_size(perf_opts_t *opts, const tc_pkg_t *pkg)
{
    uint32_t need = 0, i, m, f;
    tc_jam_t jam;

    if (tc_pkg_jam(pkg, opts->jam, &jam) != TC_OK) {
        fprintf(stderr, "tc-perf: package '%s' has no jam '%s'\n", tc_pkg_desc(pkg)->name,
                opts->jam);
        return 1;
    }
    for (m = 0; m < opts->n_modes; ++m) {
        if ((opts->modes[m] != TC_MODE_LOCAL) && (tc_jam_frame_size(&jam, opts->modes[m], 0) ==
                                                  UINT32_MAX)) {
            fprintf(stderr, "tc-perf: jam '%s' cannot run %s: its package has no blob "
                            "(build it with tc-pkg)\n", opts->jam, tc_mode_str(opts->modes[m]));
            return 1;
        }
        f    = tc_jam_prepare_size(&jam, opts->modes[m]);
        need = (f > need) ? f : need;
        for (i = 0; i < opts->n_sizes; ++i) {
            f    = tc_jam_frame_size(&jam, opts->modes[m], opts->sizes[i]);
            need = (f > need) ? f : need;
        }
    }
    for (i = 0; i < opts->n_sizes; ++i) {
        f    = tc_frame_size_for(opts->sizes[i]);
        need = (f > need) ? f : need;
    }
    if (opts->slot_size == 0) {
        opts->slot_size = need;
    } else if (opts->slot_size < need) {
        fprintf(stderr, "tc-perf: slot size %u is below the %u-byte frame of the largest "
                        "payload\n", opts->slot_size, need);
        perf_usage(stderr);
        return 2;
    }
    return 0;
}

/* After each test both sides compare counts: every frame one side put must
 * have run exactly once on the other, and none may have been rejected. */
typedef struct perf_counts {
    uint64_t tx, rx, rejected;
    /* this side's cost over the test (tc_cycles: PMU counts or UINT64_MAX) */
    uint64_t cpu_ns, polls, cycles, instructions, ref_cycles;
} perf_counts_t;

static void perf_counts_now(const perf_run_t *run, perf_counts_t *c)
{
    tc_peer_stats_t st;

    tc_peer_stats(run->peer, &st);
    c->tx       = st.tx_jams;
    c->rx       = st.rx_frames;
    c->rejected = st.rx_rejected;
    c->polls    = st.polls;
}

/* Reference tests move the frame of the jam rows beside them: the size of
 * the payload's jam frame in mode m. True (skip) when an earlier mode gave
 * the same size; else run->ref_frame is set. */
static int perf_ref_frame_seen(perf_run_t *run, const perf_opts_t *opts, unsigned m, unsigned s)
{
    uint32_t size = tc_jam_frame_size(&run->jam, (tc_mode_t)opts->modes[m], opts->sizes[s]);
    unsigned k;

    for (k = 0; k < m; ++k) {
        if (tc_jam_frame_size(&run->jam, (tc_mode_t)opts->modes[k], opts->sizes[s]) == size) {
            return 1;
        }
    }
    run->ref_frame = size;
    return 0;
}

static tc_status_t perf_check_delivery(perf_run_t *run, const char *test, uint32_t size,
                                       const perf_counts_t *before, perf_counts_t *mine_p,
                                       perf_counts_t *theirs_p)
{
    perf_counts_t now, mine, theirs;
    tc_cycles_sample_t cs;
    size_t len = 0;
    void *buf = NULL;
    tc_status_t status;

    perf_counts_now(run, &now);
    mine.tx       = now.tx - before->tx;
    mine.rx       = now.rx - before->rx;
    mine.rejected = now.rejected - before->rejected;
    (void)tc_cycles_read(run->cycles, &cs);
    mine.cpu_ns       = cs.cpu_ns;
    mine.polls        = now.polls - before->polls;
    mine.cycles       = cs.cycles;
    mine.instructions = cs.instructions;
    mine.ref_cycles   = cs.ref_cycles;
    status = tc_boot_exchange(run->boot, &mine, sizeof(mine), &buf, &len);
    if (status != TC_OK) {
        return status;
    }
    if (len != sizeof(theirs)) {
        free(buf);
        tc_error("%s: bad delivery report from the peer", test);
        return TC_ERR_PROTOCOL;
    }
    memcpy(&theirs, buf, sizeof(theirs));
    free(buf);
    if ((theirs.rx != mine.tx) || (mine.rx != theirs.tx) || mine.rejected || theirs.rejected) {
        tc_error("test %s, payload %u bytes: delivery mismatch: this side put %llu frames, "
                 "the peer ran %llu and rejected %llu; the peer put %llu, this side ran %llu "
                 "and rejected %llu", test, size, (unsigned long long)mine.tx,
                 (unsigned long long)theirs.rx, (unsigned long long)theirs.rejected,
                 (unsigned long long)theirs.tx, (unsigned long long)mine.rx,
                 (unsigned long long)mine.rejected);
        return TC_ERR_BAD_FRAME;
    }
    *mine_p   = mine;
    *theirs_p = theirs;
    return TC_OK;
}

static double perf_per_msg(uint64_t v, uint64_t n)
{
    return (v == TC_CYCLES_NONE) ? -1.0 : (double)v / (double)n;
}

/* Cost per message over the whole test on both sides. */
static void perf_fill_cost(perf_result_t *r, const perf_counts_t *mine,
                           const perf_counts_t *theirs, uint64_t n)
{
    r->cpu_ns_per_msg      = (double)mine->cpu_ns / (double)n;
    r->polls_per_msg       = (double)mine->polls / (double)n;
    r->cycles_per_msg      = perf_per_msg(mine->cycles, n);
    r->instr_per_msg       = perf_per_msg(mine->instructions, n);
    r->ref_cycles_per_msg  = perf_per_msg(mine->ref_cycles, n);
    r->peer_cpu_ns_per_msg = (double)theirs->cpu_ns / (double)n;
    r->peer_polls_per_msg  = (double)theirs->polls / (double)n;
    r->peer_cycles_per_msg = perf_per_msg(theirs->cycles, n);
}

static void perf_fill_dist(perf_result_t *r, const tc_hist_t *hist)
{
    unsigned k;

    for (k = 0; k < PERF_DIST_POINTS; ++k) {
        r->dist_ns[k] = tc_hist_percentile(hist, perf_dist_percentile(k));
    }
    r->has_dist = 1;
}

typedef struct perf_side {
    perf_opts_t   opts;
    perf_local_t *local;
    tc_boot_t    *boot;
    int           cpu;
    int           initiator;
    int           exit_code;
} perf_side_t;

static void perf_on_sigint(int sig)
{
    if (perf_sigint) {
        /* the second: what was there before (the default, or the control
         * restorer chained to it), delivered as this handler returns */
        sigaction(sig, &perf_sigint_old, NULL);
        raise(sig);
        return;
    }
    perf_sigint = 1;
    if (write(perf_live.pipe[1], "i", 1) < 0) {
        /* nothing more a handler can do */
    }
}

static tc_status_t perf_write_outputs(const perf_run_t *run, const perf_result_t *results,
                                      unsigned n)
{
    const perf_local_t *l = run->local;
    tc_status_t status    = TC_OK;

    if ((status == TC_OK) && (l->csv_path != NULL)) {
        status = perf_write_csv(l->csv_path, run, results, n);
    }
    if ((status == TC_OK) && (l->json_path != NULL)) {
        status = perf_write_json(l->json_path, run, results, n);
    }
    if ((status == TC_OK) && (l->dist_path != NULL)) {
        status = perf_write_dist(l->dist_path, run, results, n);
    }
    return status;
}

/* Wakes on SIGINT: writes the finished rows and ends the process (the
 * measuring thread is still in its point). Returns on a plain shutdown. */
static void *perf_live_thread(void *arg)
{
    perf_result_t *rows;
    perf_run_t run;
    unsigned n;
    char c;
    int rc;

    (void)arg;
    while ((read(perf_live.pipe[0], &c, 1) < 0) && (errno == EINTR)) {
    }
    if (!perf_sigint || __atomic_exchange_n(&perf_live.claimed, 1, __ATOMIC_ACQ_REL)) {
        return NULL; /* shut down, or the run is writing its outputs itself */
    }
    n    = __atomic_load_n(&perf_live.n, __ATOMIC_ACQUIRE);
    run  = *perf_live.run;
    rows = calloc(n + 1, sizeof(*rows));
    if (rows != NULL) {
        memcpy(rows, perf_live.results, n * sizeof(*rows));
    }
    run.interrupted = 1;
    fprintf(stderr, "tc-perf: interrupted (SIGINT): %s %u B abandoned; writing the rows "
            "measured (%u)\n", (run.point_test != NULL) ? run.point_test : "setup",
            run.point_payload, n);
    rc = 130;
    if (rows == NULL) {
        rc = 1;
    } else {
        perf_fill_ratios(rows, n);
        if (perf_write_outputs(&run, rows, n) != TC_OK) {
            rc = 1;
        }
    }
    fflush(NULL);
    (void)tc_stress_stop(run.local->stress); /* waits until the load is gone */
    tc_hwctl_restore_all();
    _exit(rc); /* no teardown: the other threads are still in UCX */
}

/* The measuring side arms SIGINT for the run (unless it is ignored, as in a
 * shell's background job). */
static void perf_live_arm(perf_run_t *run, perf_result_t *results)
{
    struct sigaction sa;

    if ((sigaction(SIGINT, NULL, &perf_sigint_old) != 0) ||
        (!(perf_sigint_old.sa_flags & SA_SIGINFO) && (perf_sigint_old.sa_handler == SIG_IGN))) {
        return;
    }
    if (pipe2(perf_live.pipe, O_CLOEXEC) != 0) {
        perf_live.pipe[0] = -1;
        return;
    }
    perf_live.run     = run;
    perf_live.results = results;
    if (pthread_create(&perf_live.thread, NULL, perf_live_thread, NULL) != 0) {
        close(perf_live.pipe[0]);
        close(perf_live.pipe[1]);
        perf_live.pipe[0] = -1;
        return;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = perf_on_sigint;
    sa.sa_flags   = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    (void)sigaction(SIGINT, &sa, NULL);
}

/* Before the run writes its outputs itself: 0 if a SIGINT came first (its
 * thread is writing them and will end the process). */
static int perf_live_claim(void)
{
    return (perf_live.pipe[0] < 0) ||
           !__atomic_exchange_n(&perf_live.claimed, 1, __ATOMIC_ACQ_REL);
}

static void perf_live_disarm(void)
{
    if (perf_live.pipe[0] < 0) {
        return;
    }
    (void)sigaction(SIGINT, &perf_sigint_old, NULL);
    close(perf_live.pipe[1]); /* the thread reads end of file */
    pthread_join(perf_live.thread, NULL);
    close(perf_live.pipe[0]);
    perf_live.pipe[0] = -1;
}

/* --hw-prefetch / --stash: set for the run (lib/platform restores them at
 * exit and on SIGINT/SIGTERM/SIGHUP), or fail with the reason. */
static tc_status_t perf_set_controls(const perf_opts_t *opts)
{
    char why[TC_PLATFORM_STATUS_LEN];
    tc_status_t status;

    if (opts->hw_prefetch >= 0) {
        status = tc_platform_prefetch_set(opts->hw_prefetch, why, sizeof(why));
        if (status != TC_OK) {
            tc_error("--hw-prefetch %s: %s", opts->hw_prefetch ? "on" : "off", why);
            return status;
        }
    }
    if (opts->stash >= 0) {
        status = tc_platform_stash_set(opts->stash, why, sizeof(why));
        if (status != TC_OK) {
            tc_error("--stash %s: %s", opts->stash ? "on" : "off", why);
            return status;
        }
    }
    return TC_OK;
}

/* Refuse a placement this host cannot do before anything runs (one probe:
 * the platform report's answers are what tc_place_check goes by). */
static tc_status_t perf_check_places(const perf_opts_t *opts)
{
    tc_platform_t platform;
    char have[64] = "";
    unsigned i, p;

    if (tc_platform_probe(&platform) != TC_OK) {
        return TC_ERR_UNSUPPORTED;
    }
    for (p = 0; p < TC_PLATFORM_PLACE_COUNT; ++p) {
        if (platform.place[p].supported) {
            snprintf(have + strlen(have), sizeof(have) - strlen(have), "%s%s",
                     have[0] ? "," : "", tc_place_str((tc_place_t)p));
        }
    }
    for (i = 0; i < opts->n_places; ++i) {
        p = opts->places[i];
        if (!platform.place[p].supported) {
            tc_error("--placement %s: %s (this host has: %s)", tc_place_str((tc_place_t)p),
                     platform.place[p].status, have);
            return TC_ERR_UNSUPPORTED;
        }
    }
    return TC_OK;
}

static tc_status_t perf_swap_opts(perf_side_t *side)
{
    void *peer = NULL;
    size_t peer_len = 0;
    tc_status_t status;
    perf_opts_t theirs;

    status = tc_boot_exchange(side->boot, &side->opts, sizeof(side->opts), &peer, &peer_len);
    if (status != TC_OK) {
        return status;
    }
    if (peer_len != sizeof(theirs)) {
        tc_error("peer %s sent %zu option bytes, expected %zu (different tc-perf build?)",
                 side->boot->peer_name, peer_len, sizeof(theirs));
        free(peer);
        return TC_ERR_VERSION_MISMATCH;
    }
    memcpy(&theirs, peer, sizeof(theirs));
    free(peer);
    if ((theirs.magic != PERF_OPTS_MAGIC) || (theirs.proto != TC_PROTO_VERSION)) {
        tc_error("peer %s runs tc-perf protocol %u, this side %u", side->boot->peer_name,
                 theirs.proto, TC_PROTO_VERSION);
        return TC_ERR_VERSION_MISMATCH;
    }
    if (!side->initiator) {
        side->opts = theirs; /* the client decides what runs */
    } else {
        theirs.host[sizeof(theirs.host) - 1] = '\0';
        snprintf(side->local->peer_host, sizeof(side->local->peer_host), "%s", theirs.host);
    }
    return TC_OK;
}

/* Where a point of the sweep is: indices into the run's waits, placements,
 * tests, modes and sizes. */
typedef struct perf_coord {
    unsigned w, p, t, m, s;
} perf_coord_t;

/* The sweep, waits x placements x tests x modes x sizes, runs in groups,
 * each group's points taking turns block by block (--blocks): test by test
 * (--order test), a group is one wait and placement, its tests each over
 * its modes, each over the sizes; size by size (--order size), a group is
 * one payload, its waits, placements, tests and modes side by side, so
 * that every variant a figure compares at a payload (a jam in two modes,
 * two placements, two waits, and the references of their frame sizes)
 * runs in the same seconds on a host whose speed switches. */
static unsigned perf_group_points(const perf_opts_t *opts)
{
    unsigned variants = opts->n_waits * opts->n_places * opts->n_tests * opts->n_modes;

    return opts->size_major ? variants : opts->n_tests * opts->n_modes * opts->n_sizes;
}

/* Point k of the sweep (groups in turn, then within the group). */
static void perf_point_at(const perf_opts_t *opts, unsigned k, perf_coord_t *c)
{
    if (opts->size_major) {
        c->m = k % opts->n_modes;
        k /= opts->n_modes;
        c->t = k % opts->n_tests;
        k /= opts->n_tests;
        c->p = k % opts->n_places;
        k /= opts->n_places;
        c->w = k % opts->n_waits;
        c->s = k / opts->n_waits;
    } else {
        c->s = k % opts->n_sizes;
        k /= opts->n_sizes;
        c->m = k % opts->n_modes;
        k /= opts->n_modes;
        c->t = k % opts->n_tests;
        k /= opts->n_tests;
        c->p = k % opts->n_places;
        c->w = k / opts->n_places;
    }
}

/* One point of the sweep over its blocks (--blocks): its row, its own
 * latency histogram, and the sums of its blocks' time, messages and cost. */
#define PERF_POINT_NEW  (-1) /* not run yet */
#define PERF_POINT_SKIP (-2) /* a reference whose frame an earlier mode moved, or refused */

typedef struct perf_point {
    int           row;
    tc_hist_t    *hist;             /* until the row is complete */
    perf_counts_t mine, theirs;
    double        elapsed_s, msgs;
} perf_point_t;

/* Block b of B: iterations of a total of n, the blocks summing to n exactly. */
static uint64_t perf_block_share(uint64_t n, uint32_t b, uint32_t blocks)
{
    return n * (b + 1) / blocks - n * b / blocks;
}

static uint64_t perf_sum_counted(uint64_t a, uint64_t v)
{
    return ((a == TC_CYCLES_NONE) || (v == TC_CYCLES_NONE)) ? TC_CYCLES_NONE : a + v;
}

static void perf_counts_add(perf_counts_t *sum, const perf_counts_t *c)
{
    sum->cpu_ns      += c->cpu_ns;
    sum->polls       += c->polls;
    sum->cycles       = perf_sum_counted(sum->cycles, c->cycles);
    sum->instructions = perf_sum_counted(sum->instructions, c->instructions);
    sum->ref_cycles   = perf_sum_counted(sum->ref_cycles, c->ref_cycles);
}

/* Runs block b of point k; its row is complete (printed, published for
 * Ctrl-C) after the last block. */
static tc_status_t perf_run_block(perf_side_t *side, perf_run_t *run, perf_point_t *p,
                                  const perf_coord_t *c, unsigned b, perf_result_t *results,
                                  unsigned *n_results_p)
{
    const perf_opts_t *opts = &side->opts;
    int last                = (b + 1 == opts->blocks);
    tc_wait_t wait          = (tc_wait_t)opts->waits[c->w];
    tc_place_t place        = (tc_place_t)opts->places[c->p];
    unsigned t = c->t, m = c->m, s = c->s;
    perf_counts_t before, mine, theirs;
    const perf_test_t *test;
    perf_result_t *r;
    tc_status_t status;

    if (p->row == PERF_POINT_SKIP) {
        return TC_OK;
    }
    test      = &perf_tests[opts->tests[t]];
    run->mode = (tc_mode_t)opts->modes[m];
    if (!test->uses_jam && perf_ref_frame_seen(run, opts, m, s)) {
        p->row = PERF_POINT_SKIP;
        return TC_OK;
    }
    if (p->row == PERF_POINT_NEW) {
        status = tc_hist_create(1000000000000ull, &p->hist); /* up to 1000 s */
        if (status != TC_OK) {
            return status;
        }
        /* a sample is half a round trip, or a window's time over its messages:
         * measured in steps of the clock's resolution over that */
        tc_hist_set_quantum(p->hist, run->clock.resolution_ns /
                                         ((test->shape == PERF_SHAPE_PINGPONG) ? 2.0 :
                                                                                (double)opts->window));
        p->row = (int)(*n_results_p)++;
        r      = &results[p->row];
        memset(r, 0, sizeof(*r));
        r->test     = test->name;
        r->mode     = test->uses_jam ? tc_mode_str(run->mode) : "raw";
        r->frame_of = test->uses_jam ? "" : tc_mode_str(run->mode);
        r->wait     = tc_wait_str(wait);
        r->place    = tc_place_str(place);
        if (test->uses_jam && (run->mode != TC_MODE_LOCAL)) {
            (void)tc_jam_code_info(&run->jam, &r->code_bytes, &r->got_slots);
        }
    }
    r = &results[p->row];
    run->hist   = p->hist;
    run->iters  = perf_block_share(opts->iters, b, opts->blocks);
    run->warmup = perf_block_share(opts->warmup, b, opts->blocks);
    status = tc_boot_barrier(side->boot);
    perf_counts_now(run, &before);
    run->point_test    = test->name;
    run->point_payload = opts->sizes[s];
    run->point_start   = tc_clock_ticks();
    run->report_next   = run->point_start + run->report_every;
    /* whole test, warm-up included, as in the paper */
    (void)tc_cycles_start(run->cycles);
    if (status == TC_OK) {
        status = test->fn(run, opts->sizes[s], r);
    }
    (void)tc_cycles_stop(run->cycles);
    if (status == TC_ERR_UNSUPPORTED) {
        /* refused where this transport cannot do it: said, not run */
        if (run->initiator) {
            tc_error("%s", run->refused);
        }
        *n_results_p -= 1; /* refused in its first block: its row was the last one taken */
        p->row = PERF_POINT_SKIP;
        return TC_OK;
    }
    if (status == TC_OK) {
        status = perf_check_delivery(run, test->name, opts->sizes[s], &before, &mine, &theirs);
    }
    if (status != TC_OK) {
        tc_error("test %s (%s), payload %u bytes: %s", test->name, r->mode, opts->sizes[s],
                 tc_status_str(status));
        return status;
    }
    perf_counts_add(&p->mine, &mine);
    perf_counts_add(&p->theirs, &theirs);
    p->elapsed_s += r->elapsed_s;
    p->msgs      += r->rate_mps * r->elapsed_s;
    if (!last) {
        return TC_OK;
    }
    /* the row over all its blocks (whose shares sum to -n and -w); r->lat
     * already summarizes the point's histogram */
    r->iters     = opts->iters;
    r->elapsed_s = p->elapsed_s;
    r->rate_mps  = p->msgs / p->elapsed_s;
    r->bw_mbs    = r->rate_mps * r->payload / 1e6;
    perf_fill_cost(r, &p->mine, &p->theirs, opts->iters + opts->warmup);
    if (test->shape == PERF_SHAPE_PINGPONG) {
        perf_fill_dist(r, p->hist);
    }
    tc_hist_destroy(p->hist); /* with one block, one histogram at a time */
    p->hist = NULL;
    r->when = time(NULL);
    if (run->initiator) {
        if (!side->local->quiet) {
            perf_print_row(side->local->table, r);
        }
        __atomic_store_n(&perf_live.n, (unsigned)p->row + 1, __ATOMIC_RELEASE);
    }
    return TC_OK;
}

/* The wait strategy and placement of point c, where they differ from the
 * last point's (*w_p, *p_p): both sides switch at the same point, and each
 * takes in the other's new wait (a config frame) before anything is
 * measured, so that a side now blocking is rung from the first frame on. */
static tc_status_t perf_switch(perf_run_t *run, const perf_opts_t *opts, const perf_coord_t *c,
                               unsigned *w_p, unsigned *p_p)
{
    tc_status_t status = TC_OK;
    int waits          = (c->w != *w_p);

    if (!waits && (c->p == *p_p)) {
        return TC_OK;
    }
    if (waits) {
        status = tc_peer_set_wait(run->peer, (tc_wait_t)opts->waits[c->w]);
    }
    if ((status == TC_OK) && (c->p != *p_p)) {
        status = tc_peer_set_placement(run->peer, (tc_place_t)opts->places[c->p]);
    }
    if (waits && (status == TC_OK)) {
        status = tc_peer_flush(run->peer); /* our config frame leaves */
        if (status == TC_OK) {
            status = tc_boot_barrier(run->boot);
        }
        if (status == TC_OK) {
            status = tc_peer_progress(run->peer, 0, NULL); /* and theirs is read */
        }
    }
    if (status == TC_OK) {
        status = tc_boot_barrier(run->boot);
    }
    *w_p = c->w;
    *p_p = c->p;
    return status;
}

static tc_status_t perf_run_side(perf_side_t *side)
{
    perf_result_t *results; /* one side's rows; both sides of -l run at once */
    tc_context_params_t params;
    unsigned n_results = 0, wi, b, g, j, group, n_points, cur_w = UINT_MAX, cur_p = UINT_MAX;
    perf_point_t *points = NULL;
    perf_coord_t c;
    volatile int am_count = 0;
    perf_run_t run;
    tc_status_t status;

    memset(&run, 0, sizeof(run));
    status = tc_tool_pin(side->cpu);
    if (status != TC_OK) {
        return status;
    }
    status = perf_swap_opts(side);
    if (status != TC_OK) {
        return status;
    }
    /* the client and -l set theirs in main, before connecting */
    if (!side->local->loopback && !side->initiator) {
        status = perf_set_controls(&side->opts);
        if (status != TC_OK) {
            return status;
        }
    }
    status = tc_cycles_open(&run.cycles);
    if (status != TC_OK) {
        return status;
    }

    run.opts      = &side->opts;
    run.local     = side->local;
    run.initiator = side->initiator;
    run.boot      = side->boot;
    run.am_count  = &am_count;
    tc_clock_init(&run.clock);

    tc_context_params_init(&params);
    params.slots      = side->opts.slots;
    params.slot_size  = side->opts.slot_size;
    params.signal     = (tc_signal_mode_t)side->opts.signal;
    params.frames     = (tc_frame_mode_t)side->opts.frames;
    params.progress   = (tc_progress_mode_t)side->opts.progress;
    params.timeout_ms = side->local->timeout_ms;
    params.enable_am  = 1;
    params.wx         = (int)side->opts.wx;
    params.exec       = (tc_exec_policy_t)side->opts.exec;
    params.in_place   = (int)side->opts.in_place;
    for (wi = 0; wi < side->opts.n_waits; ++wi) {
        params.events |= (side->opts.waits[wi] == TC_WAIT_EVENT) ||
                         (side->opts.waits[wi] == TC_WAIT_ADAPTIVE);
    }
    params.rank       = (uint32_t)side->boot->rank;

    run.pkg = side->local->pkg;
    status  = tc_pkg_jam(run.pkg, side->opts.jam, &run.jam);
    if (status != TC_OK) {
        tc_error("package '%s' has no jam '%s'", tc_pkg_desc(run.pkg)->name, side->opts.jam);
        goto out_close_cycles;
    }
    results = calloc((size_t)PERF_MAX_TESTS * PERF_MAX_SIZES * 3 * 7 * 3, sizeof(*results));
    if (results == NULL) {
        status = TC_ERR_NO_MEMORY;
        goto out_close_cycles;
    }
    run.src = aligned_alloc(64, (size_t)(side->opts.slots + 2) * side->opts.slot_size);
    if (run.src == NULL) {
        status = TC_ERR_NO_MEMORY;
        goto out_free_results;
    }
    memset(run.src, 0, (size_t)(side->opts.slots + 2) * side->opts.slot_size);
    run.am_buf = run.src + (size_t)(side->opts.slots + 1) * side->opts.slot_size;
    {
        int32_t *v = (int32_t *)run.src;
        for (size_t i = 0; i < side->opts.slot_size / sizeof(int32_t); ++i) {
            v[i] = (int32_t)(i * 7 + 1);
        }
    }

    status = tc_context_create(&params, &run.ctx);
    if (status != TC_OK) {
        goto out_free_src;
    }
    status = tc_context_add_pkg(run.ctx, run.pkg);
    if (status != TC_OK) {
        goto out_destroy_ctx;
    }
    status = tc_peer_connect(run.ctx, side->boot, NULL, &run.peer);
    if (status != TC_OK) {
        goto out_destroy_ctx;
    }
    status = perf_am_setup(&run);
    if (status != TC_OK) {
        goto out_destroy_peer;
    }

    if (run.initiator) {
        perf_live_arm(&run, results);
    }
    if (run.initiator && !side->local->quiet) {
        perf_print_header(&run);
        perf_print_table_head(side->local->table);
    }
    if (run.initiator && !side->local->report_final) {
        run.report_every = (uint64_t)((double)side->local->report_ms * 1e6 /
                                      run.clock.ns_per_tick);
        run.report_every += (run.report_every == 0);
    }

    tc_peer_set_sw_prefetch(run.peer, (int)side->opts.sw_prefetch);
    group    = perf_group_points(&side->opts);
    n_points = side->opts.n_waits * side->opts.n_places * side->opts.n_tests *
               side->opts.n_modes * side->opts.n_sizes;
    points   = calloc(group, sizeof(*points)); /* one group's points at a time */
    if (points == NULL) {
        status = TC_ERR_NO_MEMORY;
    }
    for (g = 0; (g < n_points / group) && (status == TC_OK); ++g) {
        for (j = 0; j < group; ++j) {
            points[j].row = PERF_POINT_NEW;
            points[j].hist = NULL;
            memset(&points[j].mine, 0, sizeof(points[j].mine));
            memset(&points[j].theirs, 0, sizeof(points[j].theirs));
            points[j].elapsed_s = points[j].msgs = 0;
        }
        for (b = 0; (b < side->opts.blocks) && (status == TC_OK); ++b) {
            for (j = 0; (j < group) && (status == TC_OK); ++j) {
                perf_point_at(&side->opts, g * group + j, &c);
                status = perf_switch(&run, &side->opts, &c, &cur_w, &cur_p);
                if (status == TC_OK) {
                    status = perf_run_block(side, &run, &points[j], &c, b, results, &n_results);
                }
            }
        }
        for (j = 0; j < group; ++j) {
            tc_hist_destroy(points[j].hist);
        }
    }
    free(points);
    if (status == TC_OK) {
        status = tc_boot_barrier(side->boot);
    }
    if ((status == TC_OK) && run.initiator) {
        tc_peer_stats_t stats;
        perf_fill_ratios(results, n_results);
        if (!side->local->quiet) {
            perf_print_ratios(side->local->table, results, n_results);
        }
        tc_peer_stats(run.peer, &stats);
        if (stats.rx_rejected != 0) {
            tc_error("%llu frames were rejected (last: %s)",
                     (unsigned long long)stats.rx_rejected, tc_peer_last_reject(run.peer));
            status = TC_ERR_BAD_FRAME;
        }
        if (status == TC_OK) {
            if (!perf_live_claim()) {
                for (;;) {
                    pause(); /* SIGINT's thread writes them and ends the process */
                }
            }
            run.interrupted = perf_sigint;
            status = perf_write_outputs(&run, results, n_results);
        }
    }
    if (run.initiator) {
        perf_live_disarm();
    }

out_destroy_peer:
    tc_peer_close(run.peer);
out_destroy_ctx:
    tc_context_destroy(run.ctx);
out_free_src:
    free(run.src);
out_free_results:
    free(results);
out_close_cycles:
    tc_cycles_close(run.cycles);
    return status;
}

static void *perf_side_thread(void *arg)
{
    perf_side_t *side = arg;
    tc_status_t status = perf_run_side(side);

    side->exit_code = (status != TC_OK) ? 1 : perf_sigint ? 130 : 0;
    return NULL;
}

static int perf_loopback(const perf_opts_t *opts, perf_local_t *local)
{
    perf_side_t server, client;
    tc_boot_t *b0, *b1;
    pthread_t thread;

    if (tc_boot_loopback_pair(local->timeout_ms, &b0, &b1) != TC_OK) {
        return 1;
    }
    memset(&server, 0, sizeof(server));
    memset(&client, 0, sizeof(client));
    server.opts  = *opts;
    server.local = local;
    server.boot  = b0;
    server.cpu   = (local->cpu[1] >= 0) ? local->cpu[1] : 1;
    client.opts      = *opts;
    client.local     = local;
    client.boot      = b1;
    client.cpu       = (local->cpu[0] >= 0) ? local->cpu[0] : 0;
    client.initiator = 1;
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
        server.cpu = client.cpu = -1; /* one core: pinning would serialize */
    }

    if (pthread_create(&thread, NULL, perf_side_thread, &server) != 0) {
        tc_error("pthread_create failed");
        return 1;
    }
    perf_side_thread(&client);
    if (client.exit_code == 1) {
        tc_boot_close(b1); /* wakes the server side */
        b1 = NULL;
    }
    pthread_join(thread, NULL);
    tc_boot_close(b1);
    tc_boot_close(b0);
    if ((client.exit_code == 1) || (server.exit_code == 1)) {
        return 1;
    }
    return client.exit_code ? client.exit_code : server.exit_code; /* 130: interrupted */
}

/* --boot pmix: two ranks of the launcher's job; rank 0 serves, rank 1
 * measures and reports (-c A,B as with -l: the client on A, the server on B). */
static int perf_join_job(perf_local_t *local, perf_side_t *side)
{
    uint32_t rank;

    if (tc_job_open(local->timeout_ms, &local->job) != TC_OK) {
        return 1;
    }
    rank = tc_job_rank(local->job);
    if (tc_job_size(local->job) != 2) {
        if (rank == 0) {
            fprintf(stderr, "tc-perf: under a launcher it runs as 2 ranks (one serves, one "
                    "measures), not %u: mpirun -n 2 / srun -n 2\n", tc_job_size(local->job));
        }
        tc_job_close(local->job);
        local->job = NULL;
        return 2;
    }
    side->initiator = (rank == 1);
    side->cpu       = ((rank == 0) && (local->cpu[1] >= 0)) ? local->cpu[1] : local->cpu[0];
    if (tc_job_boot(local->job, 1 - rank, &side->boot) != TC_OK) {
        tc_job_close(local->job);
        local->job = NULL;
        return 1;
    }
    return 0;
}

/* Closes what main opened, in reverse. */
static void perf_leave(perf_local_t *local, perf_side_t *side)
{
    tc_boot_close(side->boot);
    side->boot = NULL;
    if (local->job != NULL) {
        tc_job_close(local->job);
        local->job = NULL;
    }
    tc_pkg_close(local->pkg);
    local->pkg = NULL;
}

/* Outputs are opened before the run, so an unwritable path is found before
 * anything is measured; without truncating a file that is there (a run that
 * fails keeps the old one). created[i]: made here, removed if still empty
 * when the run fails. */
static int perf_check_outputs(const perf_local_t *local, int created[3])
{
    const char *paths[] = {local->csv_path, local->json_path, local->dist_path};
    const char *opt[]   = {"--csv", "--json", "--dist"};
    int i, fd;

    for (i = 0; i < 3; ++i) {
        created[i] = 0;
        if ((paths[i] == NULL) || !strcmp(paths[i], "-")) {
            continue;
        }
        fd = open(paths[i], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        created[i] = (fd >= 0);
        if ((fd < 0) && (errno == EEXIST)) {
            fd = open(paths[i], O_WRONLY | O_CLOEXEC);
        }
        if (fd < 0) {
            return tc_tool_bad(&perf_tool, "%s %s: cannot write it: %s", opt[i], paths[i],
                               strerror(errno));
        }
        close(fd);
    }
    return 0;
}

static void perf_drop_created(const perf_local_t *local, const int created[3])
{
    const char *paths[] = {local->csv_path, local->json_path, local->dist_path};
    struct stat st;
    int i;

    for (i = 0; i < 3; ++i) {
        if (created[i] && (stat(paths[i], &st) == 0) && (st.st_size == 0)) {
            (void)unlink(paths[i]);
        }
    }
}

/* The waits this host cannot do, refused once before anything runs (each
 * side's context would say it again). */
static tc_status_t perf_check_waits(const perf_opts_t *opts)
{
    tc_platform_wait_t pw;
    tc_platform_t platform;
    char have[128];
    unsigned i;

    if (tc_platform_probe(&platform) != TC_OK) {
        return TC_ERR_UNSUPPORTED;
    }
    for (i = 0; i < opts->n_waits; ++i) {
        const char *name = tc_wait_str((tc_wait_t)opts->waits[i]);
        if ((tc_platform_wait_lookup(name, &pw) == TC_OK) && !platform.wait[pw].supported) {
            tc_platform_wait_available(&platform, have, sizeof(have));
            tc_error("wait strategy %s: %s (this host has: %s)", name, platform.wait[pw].status,
                     have);
            return TC_ERR_UNSUPPORTED;
        }
    }
    return TC_OK;
}

/* -c: cores of this host that this process may use */
static int perf_check_cpus(const perf_local_t *local, const perf_side_t *side)
{
    if (local->loopback) {
        return tc_tool_check_cpus(&perf_tool, local->cpu, 2);
    }
    return tc_tool_check_cpus(&perf_tool, &side->cpu, 1);
}

int main(int argc, char **argv)
{
    perf_opts_t opts;
    perf_local_t local;
    perf_side_t side;
    tc_status_t status;
    int rc, created[3] = {0, 0, 0};

    rc = perf_parse(argc, argv, &opts, &local);
    if (rc != 0) {
        return rc;
    }
    if (local.platform) {
        return (tc_platform_report(stdout, (local.json_path != NULL)) == TC_OK) ? 0 : 1;
    }
    if (perf_open_pkg(&local) != TC_OK) {
        return 1;
    }
    rc = perf_fix_slot_size(&opts, local.pkg);
    if (rc != 0) {
        tc_pkg_close(local.pkg);
        return rc;
    }
    memset(&side, 0, sizeof(side));
    side.cpu       = local.cpu[0];
    side.initiator = (local.host != NULL);
    if (local.boot == TC_BOOT_PMIX) {
        rc = perf_join_job(&local, &side);
        if (rc != 0) {
            tc_pkg_close(local.pkg);
            return rc;
        }
        if (!side.initiator) {
            opts.stress[0] = '\0'; /* the client runs the load */
        }
    }
    rc = perf_check_cpus(&local, &side);
    if ((rc == 0) && (side.initiator || local.loopback)) {
        rc = perf_check_outputs(&local, created); /* the side that writes them */
    }
    if (rc != 0) {
        perf_leave(&local, &side);
        return rc;
    }
    if ((side.initiator || local.loopback) && !local.warmup_set && (opts.warmup == opts.iters) &&
        (opts.iters < 10000)) {
        fprintf(stderr, "tc-perf: warm-up %llu iterations: the default 10000 clamped to -n "
                "(-w sets it)\n", (unsigned long long)opts.warmup);
    }
    if (side.initiator || local.loopback) {
        if ((perf_check_waits(&opts) != TC_OK) || (perf_check_places(&opts) != TC_OK) ||
            (perf_set_controls(&opts) != TC_OK)) {
            perf_drop_created(&local, created);
            perf_leave(&local, &side);
            return 1;
        }
    }
    if (opts.stress[0] != '\0') {
        char cpus[32];
        const char *list = local.stress_cpus;
        if ((list == NULL) && local.loopback && (local.cpu[0] >= 0)) {
            snprintf(cpus, sizeof(cpus), "%d,%d", local.cpu[0],
                     (local.cpu[1] >= 0) ? local.cpu[1] : local.cpu[0]);
            list = cpus;
        }
        if (tc_stress_start(opts.stress, list, &local.stress) != TC_OK) {
            perf_drop_created(&local, created);
            perf_leave(&local, &side);
            return 1;
        }
    }
    if (local.loopback) {
        rc = perf_loopback(&opts, &local);
        if (tc_stress_stop(local.stress) != TC_OK) {
            rc = 1;
        }
        if (rc == 1) {
            perf_drop_created(&local, created);
        }
        tc_pkg_close(local.pkg);
        return rc;
    }

    side.opts  = opts;
    side.local = &local;
    if (local.boot == TC_BOOT_PMIX) {
        status = TC_OK; /* perf_join_job made the pair's end */
    } else if (side.initiator) {
        status = tc_boot_tcp_client(local.host, local.port, local.timeout_ms, &side.boot);
    } else {
        fprintf(stderr, "tc-perf: server waiting on port %u, at most 6 x -T = %d ms\n",
                local.port, local.timeout_ms * 6);
        status = tc_boot_tcp_server(local.port, local.timeout_ms * 6, &side.boot);
    }
    if (status == TC_OK) {
        status = perf_run_side(&side);
    }
    if ((tc_stress_stop(local.stress) != TC_OK) && (status == TC_OK)) {
        status = TC_ERR_IO;
    }
    if (status != TC_OK) {
        perf_drop_created(&local, created);
    }
    perf_leave(&local, &side);
    return (status != TC_OK) ? 1 : perf_sigint ? 130 : 0;
}
