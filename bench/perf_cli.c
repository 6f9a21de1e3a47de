/*
 * tc-perf's command line: the usage text and the options, checked and
 * parsed into the run's options (perf_opts_t, sent to the server) and this
 * process's own (perf_local_t). A bad option prints one line and the
 * caller exits 2 (bench/tool.c).
 */
#define _GNU_SOURCE
#include "perf.h"
#include "log.h"
#include "tool.h"
#include "place.h"
#include "stress.h"
#include "harness/platform.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void perf_usage(FILE *out)
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
            "  --api API   how the jam tests send: send (default: tc_jam_send each frame)\n"
            "              or prepared (tc_jam_init once a point, outside the timed loop,\n"
            "              then tc_jam_start: one-way, no result asked); both sides\n"
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
            "  --ref-work N  floor_lat, put_read_lat, put_lat: each receiver takes N\n"
            "              dependent integer steps (about a cycle each) after reading a frame\n"
            "              and before answering: how the host's ping-pong moves with a few\n"
            "              ns of receiver work (scripts/bench-phase.sh); refused where no\n"
            "              latency reference runs\n"
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
            "  --signal M  auto (default: store where the peer's mailbox is mapped,\n"
            "              single-put over tcp, else fenced), store, fenced, ordered or\n"
            "              single-put (docs/ARCHITECTURE.md)\n"
            "  -F MODE     frames: variable (default, as the library's) or fixed (one\n"
            "              size per side, set per point; the committed figures' mode)\n"
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
            "  --pairs P   list the core pairs the topology sweep (scripts/tc-topo) measures\n"
            "              and their hwloc classes, and exit: all, classes (one per class)\n"
            "              or sender:receiver PUs (0:1,0:8); HWLOC_SYNTHETIC or\n"
            "              HWLOC_XMLFILE: another topology; with --json -: as JSON\n"
            "  -q          quiet: no table\n"
            "  --wide      the table with every column (min, p99.9, max, mean, tail spread,\n"
            "              frame bytes, CPU ns per message: 169 wide); default: test, mode,\n"
            "              wait, placement, payload, p50, p99, rate, MB/s (97 wide)\n"
            "  -h, --help  this help\n"
            "  --version   the tool's revision and UCX's version\n"
            "Table: latency in us, one-way (RTT/2) on ping-pong rows; rate msg/s counts every\n"
            "message (2 per round trip on ping-pong rows); MB/s = rate x payload / 10^6.\n"
            TC_TOOL_EXIT_HELP
            "  130 interrupted (Ctrl-C: the rows measured are written); a server whose client\n"
            "  was interrupted says \"client stopped (interrupted)\" and exits 0\n",
            PERF_DEFAULT_PORT);
}

const tc_tool_t perf_tool = {"tc-perf", perf_usage};

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

int perf_parse(int argc, char **argv, perf_opts_t *opts, perf_local_t *local)
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
        {"ref-work", required_argument, NULL, 22},
        {"wide", no_argument, NULL, 23},
        {"pairs", required_argument, NULL, 24},
        {"api", required_argument, NULL, 25},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, TC_TOOL_OPT_VERSION},
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
    opts->frames   = TC_FRAMES_VARIABLE; /* the library's default: what a program gets */
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
        rc = tc_tool_check_value(&perf_tool, argc, argv);
        if (rc != 0) {
            return rc;
        }
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
            rc = tc_tool_opt_cpus(&perf_tool, "-c", optarg, 1, 2, "CPU; with -l or --boot pmix "
                                  "CLIENT,SERVER", local->cpu, &n);
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
        case 25:
            rc = tc_tool_opt_name(&perf_tool, &tc_tool_names_api, TC_TOOL_NAMES_ALL, optarg,
                                  "bad api '%s' (send, prepared)", &opts->api);
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
        case 22:
            rc = tc_tool_opt_u64(&perf_tool, optarg, 0, 100000,
                                 "bad --ref-work '%s' (0..100000 steps)", &v);
            if (rc == 0) {
                opts->ref_work = (uint32_t)v;
            }
            break;
        case 1: local->csv_path = optarg; break;
        case 2: local->json_path = optarg; break;
        case 23: local->wide = 1; break;
        case 24: local->pairs = optarg; break;
        case 'h': perf_usage(stdout); exit(0);
        case TC_TOOL_OPT_VERSION: exit(tc_tool_version(&perf_tool));
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
    if (opts->api != TC_TOOL_API_SEND) {
        for (n = 0; n < opts->n_tests; ++n) {
            if (perf_tests[opts->tests[n]].uses_jam) {
                break;
            }
        }
        if (n == opts->n_tests) {
            return tc_tool_bad(&perf_tool, "--api %s applies to the jam tests (jam_lat, jam_rate), "
                               "and -t runs none", tc_names_str(&tc_tool_names_api, opts->api));
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
    if (opts->ref_work != 0) {
        for (n = 0; n < opts->n_tests; ++n) {
            if (perf_tests[opts->tests[n]].fn == perf_floor_lat ||
                perf_tests[opts->tests[n]].fn == perf_put_read_lat ||
                perf_tests[opts->tests[n]].fn == perf_put_lat) {
                break;
            }
        }
        if (n == opts->n_tests) {
            return tc_tool_bad(&perf_tool, "--ref-work applies to floor_lat, put_read_lat and "
                               "put_lat, and none of them is in -t");
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

