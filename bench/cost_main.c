/*
 * tc-cost: what the framework itself does per message, without the wire.
 * One thread drives both peers of an in-process loopback pair (A sends, B
 * runs it, B sends back, A runs it), so no line moves between cores while
 * it is measured: what is left is the send and receive paths' own work,
 * which on a fast host is most of a small jam's distance from the floor.
 *
 * The figures that hold from run to run are callgrind's (scripts/bench-cost.sh,
 * --instr-atstart=no): each point's warm-up and loop run instrumented, from
 * a cleared cache simulation (CALLGRIND_START_INSTRUMENTATION), the loop
 * alone is collected and dumped with the point's label, whatever the host's
 * speed or placement; no PMU is needed. So that the simulated cache sees the
 * same layout on every run, the two contexts are created one after the
 * other and the two connects take turns (a bootstrap pair in lockstep). The nanoseconds it prints natively are a
 * single core's and include a stall no two-process run has: the sender
 * stores through its mapping of the peer's ring and the receiver loads the
 * same bytes through its own, which the core cannot forward from store to
 * load (docs/EXPERIMENTS.md, "The framework's own cost").
 *
 * Every point checks that each side ran exactly the frames sent to it and
 * rejected none; a jam that failed to arrive fails the tool (exit 1).
 */
#define _GNU_SOURCE
#include "twochains.h"
#include "barrier.h"
#include "clock.h"
#include "log.h"
#include "tool.h"
#include "harness/pkg_path.h"
#include "boot.h"

#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/callgrind.h>

#define COST_MAX_JAMS  8
#define COST_MAX_SIZES 16
#define COST_WARMUP    1000u

typedef struct cost_opts {
    char        jam_list[256];
    const char *jams[COST_MAX_JAMS];
    unsigned    n_jams;
    uint32_t    modes[3], n_modes;
    uint32_t    apis[TC_TOOL_API_LAST], n_apis;
    uint64_t    sizes[COST_MAX_SIZES];
    unsigned    n_sizes;
    uint64_t    iters;
    int         cpu;
    const char *csv_path;
} cost_opts_t;

typedef struct cost_side {
    int           counters;     /* the context's (tc_context_params_t.counters) */
    tc_boot_t    *boot;
    tc_context_t *ctx;
    tc_peer_t    *peer;
    uint32_t      slot_size;
    tc_pkg_t     *pkg;
    tc_status_t   status;
} cost_side_t;

static void cost_usage(FILE *out)
{
    fprintf(out,
            "usage: tc-cost [options]\n"
            "  What the framework does per message, without the wire: one thread drives\n"
            "  both peers of a loopback pair (send, run, send back, run). Run it under\n"
            "  scripts/bench-cost.sh for instructions per message (callgrind).\n"
            "  -j JAMS     comma list of jams (default noop,server_sum)\n"
            "  -m MODES    comma list: local, injected, cached (default all three)\n"
            "  -s SIZES    payload bytes, comma list (default 8,64,1024)\n"
            "  -n ITERS    round trips per point (default 100000)\n"
            "  --api APIS  comma list: send (tc_jam_send), prepared (tc_jam_init once,\n"
            "              tc_jam_start a message) (default send)\n"
            "  -c CPU      pin the thread to this core (default: not pinned)\n"
            "  --csv FILE  one row per point; - for stdout\n"
            "  -h, --help  this help\n"
            "  --version   the tool's revision and UCX's version\n"
            TC_TOOL_EXIT_HELP);
}

static const tc_tool_t cost_tool = {"tc-cost", cost_usage};

static int cost_parse_jams(const char *arg, cost_opts_t *o)
{
    char *save = NULL, *tok;

    if (tc_tool_list_has_empty(arg)) {
        return tc_tool_bad_empty(&cost_tool, "-j", arg);
    }
    if (strlen(arg) >= sizeof(o->jam_list)) {
        return tc_tool_bad(&cost_tool, "jam list '%s' too long", arg);
    }
    snprintf(o->jam_list, sizeof(o->jam_list), "%s", arg);
    o->n_jams = 0;
    for (tok = strtok_r(o->jam_list, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
        if (o->n_jams == COST_MAX_JAMS) {
            return tc_tool_bad(&cost_tool, "too many jams in '%s' (at most %d)", arg,
                               COST_MAX_JAMS);
        }
        o->jams[o->n_jams++] = tok;
    }
    return 0;
}

static int cost_parse(int argc, char **argv, cost_opts_t *o)
{
    static const struct option long_opts[] = {
        {"csv", required_argument, NULL, 1},
        {"api", required_argument, NULL, 2},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, TC_TOOL_OPT_VERSION},
        {NULL, 0, NULL, 0},
    };
    static const tc_tool_list_t sizes = {
        .opt = "-s", .min = 0, .max = 1u << 20, .max_n = COST_MAX_SIZES,
        .bad_fmt  = "bad payload size '%s' (0..1048576, at most 16 sizes)",
        .none_fmt = "no size in '%s'",
    };
    uint64_t cpu;
    int c, rc;

    memset(o, 0, sizeof(*o));
    rc = cost_parse_jams("noop,server_sum", o);
    o->modes[0] = TC_MODE_LOCAL;
    o->modes[1] = TC_MODE_INJECTED;
    o->modes[2] = TC_MODE_CACHED;
    o->n_modes  = 3;
    o->apis[0]  = TC_TOOL_API_SEND;
    o->n_apis   = 1;
    o->sizes[0] = 8;
    o->sizes[1] = 64;
    o->sizes[2] = 1024;
    o->n_sizes  = 3;
    o->iters    = 100000;
    o->cpu      = -1;
    opterr      = 0;
    while ((rc == 0) && ((c = getopt_long(argc, argv, ":j:m:s:n:c:h", long_opts, NULL)) != -1)) {
        rc = tc_tool_check_value(&cost_tool, argc, argv);
        if (rc != 0) {
            return rc;
        }
        switch (c) {
        case 'j': rc = cost_parse_jams(optarg, o); break;
        case 'm':
            rc = tc_tool_opt_names(&cost_tool, &tc_names_mode, optarg, o->modes,
                                   TC_ARRAY_SIZE(o->modes), &o->n_modes);
            break;
        case 's': rc = tc_tool_opt_list(&cost_tool, optarg, &sizes, o->sizes, &o->n_sizes); break;
        case 'n':
            rc = tc_tool_opt_u64(&cost_tool, optarg, 1, 1ull << 32, "bad count '%s' (1..2^32)",
                                 &o->iters);
            break;
        case 'c':
            rc = tc_tool_opt_u64(&cost_tool, optarg, 0, 4095, "bad core '%s' (0..4095)", &cpu);
            if (rc == 0) {
                o->cpu = (int)cpu;
                rc     = tc_tool_check_cpus(&cost_tool, &o->cpu, 1);
            }
            break;
        case 1: o->csv_path = optarg; break;
        case 2:
            rc = tc_tool_opt_names(&cost_tool, &tc_tool_names_api, optarg, o->apis,
                                   TC_ARRAY_SIZE(o->apis), &o->n_apis);
            break;
        case 'h': cost_usage(stdout); exit(0);
        case TC_TOOL_OPT_VERSION: exit(tc_tool_version(&cost_tool));
        default: return tc_tool_bad_opt(&cost_tool, c, argv);
        }
    }
    if ((rc == 0) && (optind < argc)) {
        return tc_tool_bad(&cost_tool, "unexpected argument '%s'", argv[optind]);
    }
    return rc;
}

/* A side's context, its package loaded (both in the measuring thread). */
static void cost_side_create(cost_side_t *side)
{
    tc_context_params_t params;

    tc_context_params_init(&params);
    params.slots     = 64;
    params.slot_size = side->slot_size;
    params.frames    = TC_FRAMES_FIXED; /* sized per point (cost_set_frames): the counts before
                                          * the library's default became variable frames */
    params.rank      = (uint32_t)side->boot->rank;
    /* the prepared points count the contracts the budgets are for: counters
     * off (starts and the receiver's frames not counted; and, tc_jam_init's
     * default, no result asked); the send points with them on, as before,
     * so that they stay comparable (cost_counters) */
    params.counters  = side->counters;
    side->status     = tc_context_create(&params, &side->ctx);
    if (side->status == TC_OK) {
        side->status = tc_context_add_pkg(side->ctx, side->pkg);
    }
}

/* Each side connects in its own thread (the bootstrap meets in the
 * middle), the two taking turns; after that the measuring thread drives
 * both. */
static void *cost_side_connect(void *arg)
{
    cost_side_t *side = arg;

    side->status = tc_boot_turn_wait(side->boot);
    if (side->status == TC_OK) {
        side->status = tc_peer_connect(side->ctx, side->boot, NULL, &side->peer);
    }
    tc_boot_turn_pass(side->boot);
    return NULL;
}

/* Counters on the contexts: off where every point is prepared (bench-cost.sh
 * counts --api prepared in a run of its own), else on. */
static int cost_counters(const cost_opts_t *o)
{
    unsigned a;

    for (a = 0; a < o->n_apis; ++a) {
        if (o->apis[a] != TC_TOOL_API_PREPARED) {
            return 1;
        }
    }
    return 0;
}

static tc_status_t cost_open(cost_side_t *side)
{
    tc_status_t status = TC_OK;
    pthread_t thread;
    int i;

    for (i = 0; (i < 2) && (status == TC_OK); ++i) {
        cost_side_create(&side[i]);
        status = side[i].status;
    }
    if (status == TC_OK) {
        status = tc_boot_loopback_lockstep(side[0].boot, side[1].boot);
    }
    if (status != TC_OK) {
        return status;
    }
    if (pthread_create(&thread, NULL, cost_side_connect, &side[1]) != 0) {
        return TC_ERR_NO_RESOURCE;
    }
    cost_side_connect(&side[0]);
    pthread_join(thread, NULL);
    return (side[0].status != TC_OK) ? side[0].status : side[1].status;
}

/* Both sides' frames are frame bytes, each having read the other's config
 * frame. */
static tc_status_t cost_set_frames(cost_side_t *side, uint32_t frame)
{
    tc_status_t status = tc_peer_set_frame_size(side[0].peer, frame);

    if (status == TC_OK) {
        status = tc_peer_set_frame_size(side[1].peer, frame);
    }
    if (status == TC_OK) {
        status = tc_peer_progress(side[0].peer, 0, NULL);
    }
    if (status == TC_OK) {
        status = tc_peer_progress(side[1].peer, 0, NULL);
    }
    return status;
}

typedef struct cost_prep {
    tc_peer_t     *peer;
    const tc_jam_t *jam;
    tc_mode_t      mode;
    int            done;    /* the preparing thread is through (release/acquire) */
    tc_status_t    status;
} cost_prep_t;

static void *cost_prep_run(void *arg)
{
    cost_prep_t *prep = arg;

    prep->status = tc_jam_prepare(prep->peer, prep->jam, prep->mode);
    tc_store_release(&prep->done, 1);
    return NULL;
}

/* tc_jam_prepare from `from` waits for the answer of `to`, which this
 * thread serves meanwhile. */
static tc_status_t cost_prepare(tc_peer_t *from, tc_peer_t *to, const tc_jam_t *jam,
                                tc_mode_t mode)
{
    cost_prep_t prep = {from, jam, mode, 0, TC_OK};
    tc_status_t status = TC_OK;
    pthread_t thread;

    if (pthread_create(&thread, NULL, cost_prep_run, &prep) != 0) {
        return TC_ERR_NO_RESOURCE;
    }
    while (!tc_load_acquire(&prep.done) && (status == TC_OK)) {
        status = tc_peer_progress(to, 0, NULL);
        sched_yield(); /* one core, or valgrind's one thread at a time */
    }
    pthread_join(thread, NULL);
    return (status != TC_OK) ? status : prep.status;
}

/* The measured loop, alone in its function (callgrind collects only here). */
static __attribute__((noinline)) tc_status_t
cost_loop(cost_side_t *side, const tc_jam_t *jam, const void *src, uint32_t payload,
          tc_mode_t mode, uint64_t iters)
{
    tc_status_t status = TC_OK;
    uint64_t i;

    for (i = 0; (i < iters) && (status == TC_OK); ++i) {
        status = tc_jam_send(side[0].peer, &jam[0], src, payload, TC_SEND_PARAMS(mode, 0));
        if (status == TC_OK) {
            status = tc_peer_wait(side[1].peer, NULL);
        }
        if (status == TC_OK) {
            status = tc_jam_send(side[1].peer, &jam[1], src, payload, TC_SEND_PARAMS(mode, 0));
        }
        if (status == TC_OK) {
            status = tc_peer_wait(side[0].peer, NULL);
        }
    }
    return status;
}

/* The same with each side's prepared jam req[i] (a loop of its own: the
 * send loop's instructions stay those of the counts before it). */
static __attribute__((noinline)) tc_status_t
cost_loop_prepared(cost_side_t *side, tc_jam_req_t *const *req, const void *src,
                   uint32_t payload, uint64_t iters)
{
    tc_status_t status = TC_OK;
    uint64_t i;

    for (i = 0; (i < iters) && (status == TC_OK); ++i) {
        status = tc_jam_start(req[0], src, payload);
        if (status == TC_OK) {
            status = tc_peer_wait(side[1].peer, NULL);
        }
        if (status == TC_OK) {
            status = tc_jam_start(req[1], src, payload);
        }
        if (status == TC_OK) {
            status = tc_peer_wait(side[0].peer, NULL);
        }
    }
    return status;
}

/* One of the two, as the point asks (req NULL: tc_jam_send). */
static tc_status_t cost_run(cost_side_t *side, const tc_jam_t *jam, tc_jam_req_t *const *req,
                            const void *src, uint32_t payload, tc_mode_t mode, uint64_t iters)
{
    return (req != NULL) ? cost_loop_prepared(side, req, src, payload, iters)
                         : cost_loop(side, jam, src, payload, mode, iters);
}

/* One point: warm-up, then the measured round trips between a callgrind
 * toggle pair and a dump named after the point; each side must have run
 * exactly what was sent to it. Under callgrind with --instr-atstart=no the
 * point runs instrumented from an empty simulated cache, so its counts do
 * not depend on what ran before it (the setup, the other points). */
static tc_status_t cost_point(cost_side_t *side, const tc_jam_t *jam, tc_jam_req_t *const *req,
                              const char *name, tc_mode_t mode, uint32_t payload,
                              uint32_t frame, const cost_opts_t *o, const tc_clock_t *clock,
                              FILE *csv)
{
    const char *api =
        tc_names_str(&tc_tool_names_api, (req != NULL) ? TC_TOOL_API_PREPARED : TC_TOOL_API_SEND);
    static char src[1u << 20];
    tc_peer_stats_t before[2], after[2];
    uint64_t t0, t1, msgs = 2 * o->iters, warm = (o->iters < COST_WARMUP) ? o->iters : COST_WARMUP;
    char label[160];
    tc_status_t status;
    double ns;
    int i;

    CALLGRIND_START_INSTRUMENTATION;
    status = cost_run(side, jam, req, src, payload, mode, warm);
    for (i = 0; i < 2; ++i) {
        tc_peer_stats(side[i].peer, &before[i]);
    }
    snprintf(label, sizeof(label),
             "tc-cost jam=%s mode=%s payload=%u frame=%u messages=%llu api=%s", name,
             tc_mode_str(mode), payload, frame, (unsigned long long)msgs, api);
    t0 = tc_clock_ticks();
    CALLGRIND_TOGGLE_COLLECT;
    if (status == TC_OK) {
        status = cost_run(side, jam, req, src, payload, mode, o->iters);
    }
    CALLGRIND_TOGGLE_COLLECT;
    t1 = tc_clock_ticks();
    CALLGRIND_DUMP_STATS_AT(label);
    CALLGRIND_STOP_INSTRUMENTATION;
    if (status != TC_OK) {
        tc_error("%s: %s", label, tc_status_str(status));
        return status;
    }
    for (i = 0; i < 2; ++i) {
        tc_peer_stats(side[i].peer, &after[i]);
        /* counters off: rx_frames is not counted; a run that rejected
         * nothing and ended ran every frame (each round trip waits for
         * the other side's frame) */
        if ((after[i].counters && (after[i].rx_frames - before[i].rx_frames != o->iters)) ||
            (after[i].rx_rejected != before[i].rx_rejected)) {
            tc_error("%s: side %d ran %llu frames of %llu and rejected %llu", label, i,
                     (unsigned long long)(after[i].rx_frames - before[i].rx_frames),
                     (unsigned long long)o->iters,
                     (unsigned long long)(after[i].rx_rejected - before[i].rx_rejected));
            return TC_ERR_PROTOCOL;
        }
    }
    ns = tc_clock_ticks_to_ns(clock, t1 - t0) / (double)msgs;
    /* the table goes to stderr where the rows go to stdout */
    fprintf((csv == stdout) ? stderr : stdout,
            "%-12s %-9s %8u B  frame %6u B  %-8s %8.2f ns a message (one core, both ends)\n",
            name, tc_mode_str(mode), payload, frame, api, ns);
    if (csv != NULL) {
        fprintf(csv, "%s,%s,%u,%u,%llu,%.3f,%s\n", name, tc_mode_str(mode), payload, frame,
                (unsigned long long)msgs, ns, api);
    }
    return TC_OK;
}

/* Every size of one jam in one mode: frames sized (and, for code in the
 * frames, the sync done each way) first. */
static tc_status_t cost_jam_mode(cost_side_t *side, const char *name, tc_mode_t mode,
                                 const cost_opts_t *o, const tc_clock_t *clock, FILE *csv)
{
    tc_jam_t jam[2];
    tc_status_t status;
    unsigned s;
    int i;

    for (i = 0; i < 2; ++i) {
        status = tc_pkg_jam(side[i].pkg, name, &jam[i]);
        if (status != TC_OK) {
            tc_error("tc-cost: no jam '%s' in the bench package", name);
            return status;
        }
    }
    status = TC_OK;
    if (mode != TC_MODE_LOCAL) {
        status = cost_set_frames(side, tc_jam_prepare_size(&jam[0], mode));
        if ((status == TC_OK) && !tc_jam_is_prepared(side[0].peer, &jam[0], mode)) {
            status = cost_prepare(side[0].peer, side[1].peer, &jam[0], mode);
        }
        if ((status == TC_OK) && !tc_jam_is_prepared(side[1].peer, &jam[1], mode)) {
            status = cost_prepare(side[1].peer, side[0].peer, &jam[1], mode);
        }
    }
    for (s = 0; (s < o->n_sizes) && (status == TC_OK); ++s) {
        uint32_t frame = tc_jam_frame_size(&jam[0], mode, (uint32_t)o->sizes[s]);
        unsigned a;

        status = cost_set_frames(side, frame);
        for (a = 0; (a < o->n_apis) && (status == TC_OK); ++a) {
            tc_jam_req_t *req[2] = {NULL, NULL};

            /* prepared after the frames are sized (and the syncs done): its
             * first start checks nothing again */
            for (i = 0; (i < 2) && (status == TC_OK) && (o->apis[a] == TC_TOOL_API_PREPARED); ++i) {
                status = tc_jam_init(side[i].peer, &jam[i], TC_SEND_PARAMS(mode, 0), &req[i]);
            }
            if (status == TC_OK) {
                status = cost_point(side, jam, (req[0] != NULL) ? req : NULL, name, mode,
                                    (uint32_t)o->sizes[s], frame, o, clock, csv);
            }
            for (i = 1; i >= 0; --i) {
                tc_jam_req_free(req[i]);
            }
        }
    }
    return status;
}

/* Slots that hold every point's frame and every sync. */
static tc_status_t cost_slot_size(tc_pkg_t *pkg, const cost_opts_t *o, uint32_t *size_p)
{
    uint32_t size = 4096, f;
    unsigned j, m, s;
    tc_jam_t jam;

    for (j = 0; j < o->n_jams; ++j) {
        if (tc_pkg_jam(pkg, o->jams[j], &jam) != TC_OK) {
            tc_error("tc-cost: no jam '%s' in the bench package", o->jams[j]);
            return TC_ERR_NOT_FOUND;
        }
        for (m = 0; m < o->n_modes; ++m) {
            f    = tc_jam_prepare_size(&jam, (tc_mode_t)o->modes[m]);
            size = (f > size) ? f : size;
            for (s = 0; s < o->n_sizes; ++s) {
                f    = tc_jam_frame_size(&jam, (tc_mode_t)o->modes[m], (uint32_t)o->sizes[s]);
                size = (f > size) ? f : size;
            }
        }
    }
    *size_p = (size + 63u) & ~63u;
    return TC_OK;
}

int main(int argc, char **argv)
{
    cost_side_t side[2];
    char pkg_path[PATH_MAX];
    tc_status_t status;
    cost_opts_t opts;
    tc_clock_t clock;
    unsigned j, m;
    FILE *csv = NULL;
    int rc, i, created;

    rc = cost_parse(argc, argv, &opts);
    if (rc == 0) {
        rc = tc_tool_check_output(&cost_tool, "--csv", opts.csv_path, &created);
    }
    if (rc != 0) {
        return rc;
    }
    if ((opts.cpu >= 0) && (tc_tool_pin(opts.cpu) != TC_OK)) {
        tc_tool_drop_output(opts.csv_path, created);
        return 1;
    }
    tc_clock_init(&clock);
    memset(side, 0, sizeof(side));
    status = tc_pkg_default_path(pkg_path, sizeof(pkg_path));
    for (i = 0; (i < 2) && (status == TC_OK); ++i) {
        status = tc_pkg_open(pkg_path, &side[i].pkg);
    }
    for (j = 0; (j < opts.n_jams) && (status == TC_OK); ++j) {
        tc_jam_t jam;

        if (tc_pkg_jam(side[0].pkg, opts.jams[j], &jam) != TC_OK) {
            rc = tc_tool_bad_jam(&cost_tool, side[0].pkg, opts.jams[j]);
            tc_pkg_close(side[1].pkg);
            tc_pkg_close(side[0].pkg);
            tc_tool_drop_output(opts.csv_path, created);
            return rc;
        }
    }
    if (status == TC_OK) {
        status = cost_slot_size(side[0].pkg, &opts, &side[0].slot_size);
        side[1].slot_size = side[0].slot_size;
        side[0].counters  = side[1].counters = cost_counters(&opts);
    }
    if (status == TC_OK) {
        status = tc_boot_loopback_pair(10000, &side[0].boot, &side[1].boot);
    }
    if (status == TC_OK) {
        status = cost_open(side);
    }
    if ((status == TC_OK) && (opts.csv_path != NULL)) {
        csv = (strcmp(opts.csv_path, "-") == 0) ? stdout : fopen(opts.csv_path, "w");
        if (csv == NULL) {
            tc_error("tc-cost: cannot write %s: %m", opts.csv_path);
            status = TC_ERR_IO;
        } else {
            fprintf(csv, "jam,mode,payload_bytes,frame_bytes,messages,ns_per_msg,api\n");
        }
    }
    for (j = 0; (j < opts.n_jams) && (status == TC_OK); ++j) {
        for (m = 0; (m < opts.n_modes) && (status == TC_OK); ++m) {
            status = cost_jam_mode(side, opts.jams[j], (tc_mode_t)opts.modes[m], &opts, &clock,
                                   csv);
        }
    }
    if ((csv != NULL) && (csv != stdout)) {
        fclose(csv);
    }
    for (i = 1; i >= 0; --i) {
        tc_peer_close(side[i].peer);
        tc_context_destroy(side[i].ctx);
        tc_boot_close(side[i].boot);
        tc_pkg_close(side[i].pkg);
    }
    if (status != TC_OK) {
        tc_tool_drop_output(opts.csv_path, created);
        tc_error("tc-cost: %s", tc_status_str(status));
        return 1;
    }
    return 0;
}
