/*
 * tc-perf: server with no HOST, client with HOST (like ucx_perftest), or
 * both sides in one process with -l. The client decides the tests and
 * sends its options to the server over the bootstrap; the server answers
 * whether it serves them, and if not why, which the client prints.
 */
#define _GNU_SOURCE
#include "perf.h"
#include "boot.h"
#include "log.h"
#include "tool.h"
#include "harness/platform.h"
#include "harness/topo.h"
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

/* The tool's exit code for a run's status (bench/tool.h): what this host or
 * transport cannot do is 77, said as "unsupported: why" where it was found. */
static int perf_exit_code(tc_status_t status)
{
    if (status == TC_ERR_UNSUPPORTED) {
        return TC_TOOL_EXIT_UNSUPPORTED;
    }
    if (status != TC_OK) {
        return TC_TOOL_EXIT_FAILED;
    }
    return perf_sigint ? TC_TOOL_EXIT_INTERRUPTED : 0;
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
        return tc_tool_bad_jam(&perf_tool, pkg, opts->jam);
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
        return tc_tool_bad(&perf_tool, "slot size %u is below the %u-byte frame of the largest "
                           "payload", opts->slot_size, need);
    }
    return 0;
}


void perf_live_publish(unsigned n)
{
    __atomic_store_n(&perf_live.n, n, __ATOMIC_RELEASE);
}

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
    /* the server would otherwise see only a closed connection mid-point */
    (void)tc_boot_say_bye(run.boot, "interrupted");
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
/* The hardware controls the options ask this host to set; a refusal is
 * logged and, where reason is not NULL, written there too. */
static tc_status_t perf_set_controls(const perf_opts_t *opts, char *reason, size_t len)
{
    char why[TC_PLATFORM_STATUS_LEN], said[TC_PLATFORM_STATUS_LEN + 32];
    tc_status_t status = TC_OK;

    if (opts->hw_prefetch >= 0) {
        status = tc_platform_prefetch_set(opts->hw_prefetch, why, sizeof(why));
        if (status != TC_OK) {
            snprintf(said, sizeof(said), "--hw-prefetch %s: %s", opts->hw_prefetch ? "on" : "off",
                     why);
        }
    }
    if ((status == TC_OK) && (opts->stash >= 0)) {
        status = tc_platform_stash_set(opts->stash, why, sizeof(why));
        if (status != TC_OK) {
            snprintf(said, sizeof(said), "--stash %s: %s", opts->stash ? "on" : "off", why);
        }
    }
    if (status == TC_ERR_UNSUPPORTED) {
        (void)tc_tool_unsupported(&perf_tool, "%s", said);
    } else if (status != TC_OK) {
        tc_error("%s", said);
    }
    if ((status != TC_OK) && (reason != NULL)) {
        snprintf(reason, len, "%s", said);
    }
    return status;
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
            (void)tc_tool_unsupported(&perf_tool, "--placement %s: %s (this host has: %s)",
                                      tc_place_str((tc_place_t)p), platform.place[p].status,
                                      have);
            return TC_ERR_UNSUPPORTED;
        }
    }
    return TC_OK;
}

/* len bytes of ours for len bytes of the peer's (what: "option", "verdict"
 * for the message where the peer's differ in size). */
static tc_status_t perf_exchange(perf_side_t *side, const char *what, const void *mine,
                                 void *theirs, size_t len)
{
    void *peer = NULL;
    size_t peer_len = 0;
    tc_status_t status;

    status = tc_boot_exchange(side->boot, mine, len, &peer, &peer_len);
    if (status != TC_OK) {
        return status;
    }
    if (peer_len != len) {
        tc_error("peer %s sent %zu %s bytes, expected %zu (different tc-perf build?)",
                 side->boot->peer_name, peer_len, what, len);
        free(peer);
        return TC_ERR_VERSION_MISMATCH;
    }
    memcpy(theirs, peer, len);
    free(peer);
    return TC_OK;
}

static tc_status_t perf_swap_opts(perf_side_t *side)
{
    tc_status_t status;
    perf_opts_t theirs;

    status = perf_exchange(side, "option", &side->opts, &theirs, sizeof(theirs));
    if (status != TC_OK) {
        return status;
    }
    if ((theirs.magic != PERF_OPTS_MAGIC) || (theirs.proto != TC_PROTO_VERSION)) {
        tc_error("peer %s runs tc-perf protocol %u, this side %u", side->boot->peer_name,
                 theirs.proto, TC_PROTO_VERSION);
        return TC_ERR_VERSION_MISMATCH;
    }
    if (!side->initiator) {
        side->opts = theirs; /* the client decides what runs */
        /* its strings are the peer's: terminated here, escaped where shown */
        side->opts.jam[sizeof(side->opts.jam) - 1]           = '\0';
        side->opts.pkg_name[sizeof(side->opts.pkg_name) - 1] = '\0';
        side->opts.stress[sizeof(side->opts.stress) - 1]     = '\0';
        side->opts.host[sizeof(side->opts.host) - 1]         = '\0';
    } else {
        theirs.host[sizeof(theirs.host) - 1] = '\0';
        snprintf(side->local->peer_host, sizeof(side->local->peer_host), "%s", theirs.host);
    }
    return TC_OK;
}

#define PERF_VERDICT_MAGIC 0x54435056u /* "TCPV" */
#define PERF_REASON_MAX    768

/* The server's answer to the client's options: it serves them, or not and
 * why, in words the client prints. */
typedef struct perf_verdict {
    uint32_t magic;
    uint32_t refused;
    char     reason[PERF_REASON_MAX];
} perf_verdict_t;

/* Whether this server serves the client's options (side->opts, just
 * taken): the jam from the same build of the package the client sends it
 * from, every mode asked for (injected and cached need the package's
 * blobs), the hardware controls asked of this host. 0, or 1 with why. */
static int perf_serve_check(const perf_side_t *side, char *reason, size_t len)
{
    const perf_opts_t *opts   = &side->opts;
    const tc_pkg_t *pkg       = side->local->pkg;
    const tc_pkg_desc_t *desc = tc_pkg_desc(pkg);
    char jams[256], jam_s[4 * PERF_NAME_LEN], pkg_s[4 * sizeof(opts->pkg_name)];
    tc_jam_t jam;
    unsigned m;
    int have = (tc_pkg_jam(pkg, opts->jam, &jam) == TC_OK);

    /* the client's names, as this side logs them (tc_log_text) */
    tc_log_text(opts->jam, sizeof(opts->jam), jam_s, sizeof(jam_s));
    tc_log_text(opts->pkg_name, sizeof(opts->pkg_name), pkg_s, sizeof(pkg_s));

    if (!have) {
        snprintf(reason, len, "its package '%s' 0x%08x has no jam '%s' (its jams: %s); the "
                 "client's '%s' is in package '%s' 0x%08x: start the server with that package "
                 "(-P DIR)", desc->name, desc->id, jam_s,
                 tc_tool_jam_list(pkg, jams, sizeof(jams)), jam_s, pkg_s, opts->pkg_id);
        return 1;
    }
    if (strcmp(desc->name, opts->pkg_name) != 0) {
        snprintf(reason, len, "it loaded package '%s' 0x%08x; the client's jam '%s' is in "
                 "package '%s' 0x%08x, which it did not load: start the server with that "
                 "package (-P DIR)", desc->name, desc->id, jam_s, pkg_s, opts->pkg_id);
        return 1;
    }
    if (desc->id != opts->pkg_id) {
        snprintf(reason, len, "it loaded package '%s' 0x%08x; the client's is 0x%08x, another "
                 "build of it: both sides need the same build (the same sources, headers, "
                 "compiler and flags: tc-pkg's package id)", desc->name, desc->id,
                 opts->pkg_id);
        return 1;
    }
    for (m = 0; m < opts->n_modes; ++m) {
        if ((opts->modes[m] != TC_MODE_LOCAL) &&
            (tc_jam_frame_size(&jam, opts->modes[m], 0) == UINT32_MAX)) {
            snprintf(reason, len, "jam '%s' cannot run %s there: its package has no blobs (a "
                     "library opened with -k; start the server with -P DIR)", jam_s,
                     tc_mode_str((tc_mode_t)opts->modes[m]));
            return 1;
        }
    }
    /* the client and -l set theirs in main, before connecting */
    if (!side->local->loopback && (perf_set_controls(opts, reason, len) != TC_OK)) {
        return 1;
    }
    return 0;
}

/* After the options: the server says whether it serves them (its reason
 * logged on its side, printed by the client, which then exits 2). */
static tc_status_t perf_agree(perf_side_t *side)
{
    char shown[TC_LOG_TEXT_SIZE * 4];
    perf_verdict_t mine, theirs;
    tc_status_t status;

    memset(&mine, 0, sizeof(mine));
    mine.magic = PERF_VERDICT_MAGIC;
    if (!side->initiator) {
        mine.refused = (uint32_t)perf_serve_check(side, mine.reason, sizeof(mine.reason));
        if (mine.refused) {
            side->refused = 1;
            tc_error("refusing the client's run (it is told why): %s", mine.reason);
        }
    }
    status = perf_exchange(side, "verdict", &mine, &theirs, sizeof(theirs));
    if (status != TC_OK) {
        return status;
    }
    if (theirs.magic != PERF_VERDICT_MAGIC) {
        tc_error("peer %s sent no tc-perf verdict (different tc-perf build?)",
                 side->boot->peer_name);
        return TC_ERR_VERSION_MISMATCH;
    }
    if (mine.refused) {
        return TC_ERR_UNSUPPORTED;
    }
    if (side->initiator && theirs.refused) {
        /* the peer's text: printable, one line (tc_log_text) */
        fprintf(stderr, "tc-perf: the server %s refuses this run: %s\n", side->boot->peer_name,
                tc_log_text(theirs.reason, sizeof(theirs.reason), shown, sizeof(shown)));
        side->refused = 1;
        return TC_ERR_UNSUPPORTED;
    }
    return TC_OK;
}

static tc_status_t perf_run_side(perf_side_t *side)
{
    perf_result_t *results; /* one side's rows; both sides of -l run at once */
    tc_context_params_t params;
    unsigned n_results = 0, wi;
    int am_count = 0; /* counted in ucp_worker_progress, on this thread */
    perf_run_t run;
    tc_status_t status;

    memset(&run, 0, sizeof(run));
    status = tc_tool_pin(side->cpu);
    if (status != TC_OK) {
        return status;
    }
    status = perf_swap_opts(side);
    if (status == TC_OK) {
        status = perf_agree(side);
    }
    if (status != TC_OK) {
        return status;
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
        /* said once the run is on: not before a refusal (exit 2) or an
         * unsupported wait or placement (exit 77) it has nothing to do with */
        if (!side->local->warmup_set && (side->opts.warmup == side->opts.iters) &&
            (side->opts.iters < 10000)) {
            fprintf(stderr, "tc-perf: warm-up %llu iterations: the default 10000 clamped to -n "
                    "(-w sets it)\n", (unsigned long long)side->opts.warmup);
        }
    }
    if (run.initiator && !side->local->quiet) {
        perf_print_header(&run);
        perf_print_table_head(side->local->table, side->local->wide);
    }
    if (run.initiator && !side->local->report_final) {
        run.report_every = (uint64_t)((double)side->local->report_ms * 1e6 /
                                      run.clock.ns_per_tick);
        run.report_every += (run.report_every == 0);
    }

    tc_peer_set_sw_prefetch(run.peer, (int)side->opts.sw_prefetch);
    status = perf_sweep(side, &run, results, &n_results);
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
            tc_error("%llu frames were rejected (last: %s; NACKs of them dropped: %u)",
                     (unsigned long long)stats.rx_rejected, tc_peer_last_reject(run.peer),
                     stats.nacks_dropped);
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

    /* a refused run: the client asked for what the server lacks (a usage
     * error of the client's), the server's own command line was fine */
    side->exit_code = !side->refused   ? perf_exit_code(status) :
                      side->initiator  ? TC_TOOL_EXIT_USAGE :
                                         TC_TOOL_EXIT_FAILED;
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
    if ((client.exit_code != 0) && (client.exit_code != TC_TOOL_EXIT_INTERRUPTED)) {
        tc_boot_close(b1); /* wakes the server side */
        b1 = NULL;
    }
    pthread_join(thread, NULL);
    tc_boot_close(b1);
    tc_boot_close(b0);
    if (client.exit_code == TC_TOOL_EXIT_USAGE) {
        return TC_TOOL_EXIT_USAGE;
    }
    if ((client.exit_code == TC_TOOL_EXIT_FAILED) || (server.exit_code == TC_TOOL_EXIT_FAILED)) {
        return TC_TOOL_EXIT_FAILED;
    }
    /* 77: unsupported (said by the side that found it), 130: interrupted */
    return client.exit_code ? client.exit_code : server.exit_code;
}

/* --boot pmix: two ranks of the launcher's job; rank 0 serves, rank 1
 * measures and reports (-c A,B as with -l: the client on A, the server on B). */
static int perf_join_job(perf_local_t *local, perf_side_t *side)
{
    uint32_t rank;

    tc_status_t status = tc_job_open(local->timeout_ms, &local->job);

    if (status != TC_OK) {
        return perf_exit_code(status); /* unsupported: no PMIx here, said */
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

/* Outputs are checked before the run (tc_tool_check_outputs: writable, at
 * most one on stdout, no two one file). created[i]: made here, removed if
 * still empty when the run fails. */
static int perf_check_outputs(const perf_local_t *local, int created[3])
{
    const char *const paths[] = {local->csv_path, local->json_path, local->dist_path};
    const char *const opt[]   = {"--csv", "--json", "--dist"};

    return tc_tool_check_outputs(&perf_tool, opt, paths, 3, created);
}

static void perf_drop_created(const perf_local_t *local, const int created[3])
{
    tc_tool_drop_output(local->csv_path, created[0]);
    tc_tool_drop_output(local->json_path, created[1]);
    tc_tool_drop_output(local->dist_path, created[2]);
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
            (void)tc_tool_unsupported(&perf_tool, "-W %s: %s (this host has: %s)", name,
                                      platform.wait[pw].status, have);
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

/* --platform and --pairs write to stdout, or as JSON with --json (to its
 * file, or stdout for -): out_p, or an exit status. */
static int perf_info_open(const perf_local_t *local, FILE **out_p, int *created_p)
{
    const char *path = local->json_path;
    int rc;

    *out_p     = stdout;
    *created_p = 0;
    if ((path != NULL) && strcmp(path, "-")) {
        rc = tc_tool_check_output(&perf_tool, "--json", path, created_p);
        if (rc != 0) {
            return rc;
        }
        *out_p = perf_open_out(path);
        if (*out_p == NULL) {
            tc_tool_drop_output(path, *created_p);
            return TC_TOOL_EXIT_FAILED;
        }
    }
    return 0;
}

static int perf_info_close(const perf_local_t *local, FILE *out, tc_status_t status)
{
    if ((out != stdout) && (perf_close_out(out, local->json_path) != TC_OK)) {
        status = TC_ERR_IO;
    }
    return (status == TC_OK) ? 0 : TC_TOOL_EXIT_FAILED;
}

static int perf_platform(const perf_local_t *local)
{
    FILE *out;
    int rc, created;

    rc = perf_info_open(local, &out, &created);
    if (rc != 0) {
        return rc;
    }
    return perf_info_close(local, out, tc_platform_report(out, (local->json_path != NULL)));
}

/* --pairs: the core pairs the topology sweep (scripts/tc-topo) would
 * measure and their classes, on this host's topology or the one
 * HWLOC_SYNTHETIC / HWLOC_XMLFILE give; nothing measured. */
static int perf_pairs(const perf_local_t *local)
{
    const char *syn = getenv("HWLOC_SYNTHETIC"), *xml = getenv("HWLOC_XMLFILE");
    char source[PATH_MAX + 16], why[256];
    hwloc_topology_t topo;
    tc_topo_plan_t plan;
    tc_status_t status;
    FILE *out;
    int rc, created;

    if (tc_topo_load(NULL, NULL, &topo) != TC_OK) {
        return TC_TOOL_EXIT_FAILED;
    }
    why[0] = '\0';
    status = tc_topo_plan(topo, local->pairs, why, sizeof(why), &plan);
    hwloc_topology_destroy(topo);
    if (status != TC_OK) {
        return why[0] ? tc_tool_bad(&perf_tool, "%s", why) : TC_TOOL_EXIT_FAILED;
    }
    snprintf(source, sizeof(source), "%s%s", (syn && syn[0]) ? "synthetic " :
             (xml && xml[0]) ? "xml " : "this host",
             (syn && syn[0]) ? syn : (xml && xml[0]) ? xml : "");
    rc = perf_info_open(local, &out, &created);
    if (rc == 0) {
        tc_topo_plan_print(out, &plan, source, (local->json_path != NULL));
        rc = perf_info_close(local, out, TC_OK);
    }
    tc_topo_plan_free(&plan);
    return rc;
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
        return perf_platform(&local);
    }
    if (local.pairs != NULL) {
        return perf_pairs(&local);
    }
    if (perf_open_pkg(&local) != TC_OK) {
        return 1;
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
    /* the client's options decide the run (a server takes them: its own -j
     * and sizes are not used), and name the package its jam is from; under
     * a launcher both ranks have the same command line, and both say what
     * is wrong with it */
    if (side.initiator || local.loopback || (local.boot == TC_BOOT_PMIX)) {
        rc = perf_fix_slot_size(&opts, local.pkg);
        if (rc != 0) {
            perf_leave(&local, &side);
            return rc;
        }
        snprintf(opts.pkg_name, sizeof(opts.pkg_name), "%s", tc_pkg_desc(local.pkg)->name);
        opts.pkg_id = tc_pkg_desc(local.pkg)->id;
    }
    rc = perf_check_cpus(&local, &side);
    if ((rc == 0) && (side.initiator || local.loopback)) {
        rc = perf_check_outputs(&local, created); /* the side that writes them */
    }
    if (rc != 0) {
        perf_leave(&local, &side);
        return rc;
    }
    if (side.initiator || local.loopback) {
        status = perf_check_waits(&opts);
        if (status == TC_OK) {
            status = perf_check_places(&opts);
        }
        if (status == TC_OK) {
            status = perf_set_controls(&opts, NULL, 0);
        }
        if (status != TC_OK) {
            perf_drop_created(&local, created);
            perf_leave(&local, &side);
            return perf_exit_code(status);
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
        if ((rc != 0) && (rc != TC_TOOL_EXIT_INTERRUPTED)) {
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
    if ((status == TC_ERR_CLOSED) && !side.initiator && (tc_boot_peer_bye(side.boot) != NULL)) {
        /* the client left saying why (Ctrl-C): its run, not a failure here */
        fprintf(stderr, "tc-perf: client %s stopped (%s)\n", side.boot->peer_name,
                tc_boot_peer_bye(side.boot));
        status = TC_OK;
    }
    if (status != TC_OK) {
        perf_drop_created(&local, created);
    }
    perf_leave(&local, &side);
    if ((status != TC_OK) && side.refused) {
        /* the client asked for what the server lacks: the client's usage
         * error; the server's own command line was fine */
        return side.initiator ? TC_TOOL_EXIT_USAGE : TC_TOOL_EXIT_FAILED;
    }
    return perf_exit_code(status);
}
