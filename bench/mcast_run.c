/*
 * tc-mcast real runs: N processes (started here with -n N, or by any
 * launcher through TC_RANK/TC_SIZE/TC_BOOT), rank 0 multicasts a jam to
 * every other rank, over the tree (-R) or as N-1 unicasts (--naive), with
 * or without the ack tree. Every rank then reports what it ran and rank 0
 * checks: each target ran every multicast exactly once, saw rank 0 as the
 * origin, had forwarded its whole slice before its jam ran, and no rank
 * holds ack-tree state afterwards.
 */
#define _GNU_SOURCE
#include "mcast.h"
#include "mcast_fwd.h"
#include "harness/mcast_sim.h"
#include "group.h"
#include "hist.h"
#include "frame.h"
#include "clock.h"
#include "log.h"
#include "bench_state.h"
#include "harness/pkg_path.h"
#include "tool.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MCAST_ORIGIN 0u

/* What each rank reports after a configuration. */
typedef struct mcast_report {
    uint64_t delivered;    /* jams run here (envelopes and plain frames) */
    uint64_t bad_origin;   /* deliveries that did not name rank 0 */
    uint64_t bad_order;    /* deliveries before their slice was forwarded */
    uint64_t max_hops;
    uint64_t live;         /* ack-tree records still held */
    uint64_t rejected;
    uint64_t completions;  /* origin: completions fired */
    uint64_t bad_done;     /* origin: completions not covering every target */
    uint64_t blocked;      /* sends that found a ring full */
    uint64_t seq_errors;   /* -j seq: multicasts the jam saw out of order */
} mcast_report_t;

typedef struct mcast_rank {
    const mcast_opts_t *opts;
    tc_group_t         *group;
    tc_mcast_t         *mc;
    uint32_t            rank, size;
    mcast_report_t      rep;
    uint64_t            base_rx;   /* plain jam frames already run */
    uint64_t            expect;    /* multicasts per configuration */
    tc_mcast_done_t     last_done;
    int                 done_seen;
    uint64_t            counter;   /* origin: next payload counter (-j seq) */
    tc_bench_state_t   *seq;       /* -j seq: the jam's state here, else NULL */
} mcast_rank_t;

static void mcast_on_deliver(void *arg, const tc_mcast_info_t *info)
{
    mcast_rank_t *mr = arg;

    mr->rep.bad_origin += (info->origin != MCAST_ORIGIN);
    mr->rep.bad_order  += (info->children != info->planned) &&
                          (mr->opts->naive == 0);
    if (info->hops > mr->rep.max_hops) {
        mr->rep.max_hops = info->hops;
    }
}

static void mcast_on_complete(void *arg, const tc_mcast_done_t *done)
{
    mcast_rank_t *mr = arg;

    mr->rep.completions++;
    mr->rep.bad_done += (done->delivered != mr->size - 1) || (done->edges != mr->size - 1);
    mr->last_done = *done;
    mr->done_seen = 1;
}

/* Jams run here so far: from envelopes, and plain frames (a multicast to
 * one remote target without ack is a plain LOCAL frame). */
static uint64_t mcast_delivered(const mcast_rank_t *mr)
{
    tc_mcast_stats_t ms;
    tc_peer_stats_t ps;
    uint64_t n;
    uint32_t r;

    tc_mcast_stats(mr->mc, &ms);
    n = ms.delivered;
    for (r = 0; r < mr->size; ++r) {
        tc_peer_t *peer = tc_group_peer(mr->group, r);

        if (peer != NULL) {
            tc_peer_stats(peer, &ps);
            n += ps.rx_frames;
        }
    }
    return n;
}

static int mcast_target_done(void *arg)
{
    mcast_rank_t *mr = arg;
    tc_mcast_stats_t ms;

    tc_mcast_stats(mr->mc, &ms);
    return (mcast_delivered(mr) - mr->base_rx >= mr->expect) && (ms.live == 0) &&
           (ms.queued == 0);
}

static int mcast_no_state(void *arg)
{
    mcast_rank_t *mr = arg;
    tc_mcast_stats_t ms;

    tc_mcast_stats(mr->mc, &ms);
    return (ms.live == 0) && (ms.queued == 0);
}

/* One configuration (radix, or naive) at this rank; rank 0 gets every
 * rank's report and the latency histogram. */
static tc_status_t mcast_config(mcast_rank_t *mr, const tc_jam_t *jam,
                                const tc_mcast_set_t *targets, tc_hist_t *hist,
                                mcast_report_t **all_p)
{
    const mcast_opts_t *opts = mr->opts;
    uint64_t *payload, i, id = 0, t0, total = (uint64_t)opts->warmup + opts->iters;
    uint64_t seq_errors = (mr->seq != NULL) ? mr->seq->seq_errors : 0;
    unsigned flags = opts->ack ? TC_MCAST_F_ACK : 0;
    tc_mcast_stats_t ms;
    tc_status_t status;

    memset(&mr->rep, 0, sizeof(mr->rep));
    mr->expect    = total;
    mr->done_seen = 0;
    mr->base_rx   = mcast_delivered(mr);
    tc_hist_reset(hist);
    status = tc_group_barrier(mr->group);
    if (status != TC_OK) {
        return status;
    }
    if (mr->rank == MCAST_ORIGIN) {
        /* -s bytes (at least the counter): the jams read all of it */
        payload = calloc(1, TC_ALIGN_UP(((size_t)opts->size > 8) ? (size_t)opts->size : 8, 8));
        if (payload == NULL) {
            return TC_ERR_NO_MEMORY;
        }
        for (i = 0; (i < total) && (status == TC_OK); ++i) {
            payload[0] = mr->counter++; /* the seq jam checks the order */
            t0     = tc_clock_mono_ns();
            status = tc_mcast_send(mr->mc, jam, payload, opts->size, targets, flags, &id);
            if ((status == TC_OK) && opts->ack) {
                status = tc_mcast_wait(mr->mc, id);
            }
            if ((status == TC_OK) && (i >= opts->warmup)) {
                tc_hist_record(hist, tc_clock_mono_ns() - t0);
            }
            if (status == TC_OK) {
                status = tc_mcast_progress(mr->mc, NULL); /* credits, stray acks */
            }
        }
        free(payload);
        if (status == TC_OK) {
            status = tc_mcast_wait_until(mr->mc, mcast_no_state, mr, "the last acks");
        }
    } else {
        status = tc_mcast_wait_until(mr->mc, mcast_target_done, mr, "multicasts from rank 0");
    }
    if (status == TC_OK) {
        status = tc_mcast_flush(mr->mc);
    }
    if (status != TC_OK) {
        tc_error("tc-mcast: rank %u failed: %s", mr->rank, tc_status_str(status));
        return status;
    }
    tc_mcast_stats(mr->mc, &ms);
    mr->rep.delivered = mcast_delivered(mr) - mr->base_rx;
    mr->rep.live      = ms.live;
    mr->rep.rejected  = ms.rejected;
    mr->rep.blocked   = ms.blocked;
    mr->rep.seq_errors = (mr->seq != NULL) ? mr->seq->seq_errors - seq_errors : 0;
    return tc_group_gather(mr->group, &mr->rep, sizeof(mr->rep), (void **)all_p);
}

/* Rank 0: every rank ran every multicast once, and so on. */
static int mcast_verify(const mcast_rank_t *mr, const mcast_report_t *all)
{
    const mcast_opts_t *opts = mr->opts;
    uint64_t total = (uint64_t)opts->warmup + opts->iters;
    int bad = 0;
    uint32_t r;

    for (r = 0; r < mr->size; ++r) {
        const mcast_report_t *p = &all[r];
        uint64_t want = (r == MCAST_ORIGIN) ? 0 : total;

        if ((p->delivered != want) || p->bad_origin || p->bad_order || p->live ||
            p->rejected || p->seq_errors) {
            fprintf(stderr, "tc-mcast: rank %u ran %llu jams (expected %llu), %llu with the "
                            "wrong origin, %llu before forwarding, %llu ack records left, "
                            "%llu frames refused, %llu out of order (jam seq)\n", r,
                    (unsigned long long)p->delivered,
                    (unsigned long long)want, (unsigned long long)p->bad_origin,
                    (unsigned long long)p->bad_order, (unsigned long long)p->live,
                    (unsigned long long)p->rejected, (unsigned long long)p->seq_errors);
            bad = 1;
        }
    }
    if (opts->ack && ((all[MCAST_ORIGIN].completions != total) || all[MCAST_ORIGIN].bad_done)) {
        fprintf(stderr, "tc-mcast: %llu completions for %llu multicasts (%llu incomplete)\n",
                (unsigned long long)all[MCAST_ORIGIN].completions, (unsigned long long)total,
                (unsigned long long)all[MCAST_ORIGIN].bad_done);
        bad = 1;
    }
    return bad;
}

static void mcast_report_row(const mcast_rank_t *mr, FILE *csv, uint32_t radix,
                             const tc_mcast_set_t *targets, const tc_hist_t *hist,
                             const mcast_report_t *all)
{
    const mcast_opts_t *opts = mr->opts;
    tc_mcast_sim_params_t sp = {radix, MCAST_ORIGIN, 0.0, 0.0, 0};
    tc_mcast_sim_result_t plan;
    uint64_t max_hops = 0, blocked = 0;
    mcast_row_t row;
    uint32_t r;

    for (r = 0; r < mr->size; ++r) {
        max_hops = (all[r].max_hops > max_hops) ? all[r].max_hops : max_hops;
        blocked += all[r].blocked;
    }
    memset(&row, 0, sizeof(row));
    row.mode          = opts->naive ? "naive" : "tree";
    row.n             = mr->size;
    row.radix         = opts->naive ? -1 : (int64_t)radix;
    row.ack           = opts->ack;
    row.jam           = opts->jam;
    row.payload_bytes = opts->size;
    row.iterations    = opts->iters;
    row.p50_us        = tc_hist_percentile(hist, 50.0) / 1000.0;
    row.p99_us        = tc_hist_percentile(hist, 99.0) / 1000.0;
    row.p999_us       = tc_hist_percentile(hist, 99.9) / 1000.0;
    row.modelled_us = row.hop_us = row.send_us = NAN;
    if (opts->ack && mr->done_seen) {
        /* measured: the ack tree sums what every relay did */
        row.origin_sends = mr->last_done.origin_sends;
        row.depth        = mr->last_done.depth;
        row.edges        = mr->last_done.edges;
        row.target_bytes_per_hop = mr->last_done.edges ?
            (double)mr->last_done.bytes / (double)mr->last_done.edges : 0.0;
    } else {
        /* the deliveries saw this many hops; a lone target without ack got
         * a plain frame: one hop the engine did not see */
        row.depth = (max_hops > 0) ? max_hops : (mr->size > 1);
    }
    /* fan-out (and, without acks, sends and bytes) from the same plan */
    if (((opts->naive ? tc_mcast_sim_naive : tc_mcast_sim_tree)(targets, &sp, &plan)) == TC_OK) {
        row.max_fanout = plan.max_fanout;
        if (!(opts->ack && mr->done_seen)) {
            row.origin_sends         = plan.origin_sends;
            row.edges                = plan.edges;
            row.target_bytes_per_hop = plan.edges ? (double)plan.target_bytes / plan.edges : 0;
        }
    }
    if (opts->naive && !(opts->ack && mr->done_seen)) {
        /* every naive envelope carries its one target (SINGLE) */
        tc_mcast_set_t *one = NULL;
        tc_mcast_kind_t kind;
        uint64_t bytes = 0;
        size_t size;

        if (tc_mcast_set_create(mr->size, &one) == TC_OK) {
            for (r = 1; r < mr->size; ++r) {
                tc_mcast_set_clear(one);
                if ((tc_mcast_set_add(one, r) == TC_OK) &&
                    (tc_mcast_encode_choose(one, &kind, &size) == TC_OK)) {
                    bytes += size;
                }
            }
            tc_mcast_set_destroy(one);
        }
        row.target_bytes_per_hop = (mr->size > 2) ? (double)bytes / (mr->size - 1) : 0.0;
    }
    if (!opts->quiet) {
        char rstr[16];

        snprintf(rstr, sizeof(rstr), "%u", radix);
        printf("%-6s %5u %5s %3d %8.2f %8.2f %8.2f %7llu %5llu %6llu %6llu %7.2f %8llu\n",
               row.mode, mr->size, opts->naive ? "-" : rstr, opts->ack, row.p50_us,
               row.p99_us, row.p999_us, (unsigned long long)row.origin_sends,
               (unsigned long long)row.depth, (unsigned long long)row.edges,
               (unsigned long long)row.max_fanout, row.target_bytes_per_hop,
               (unsigned long long)blocked);
        fflush(stdout);
    }
    mcast_csv_row(csv, &row);
}

static int mcast_rank_main(const mcast_opts_t *opts, FILE *csv, const tc_group_params_t *gp)
{
    static const uint32_t default_radix = 4;
    const uint32_t *radices = opts->n_radices ? opts->radices : &default_radix;
    unsigned n_radices = opts->naive ? 1 : (opts->n_radices ? opts->n_radices : 1), k;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    tc_context_params_t cp;
    tc_frame_layout_t layout = {0, 0, 0, 0};
    tc_frame_offsets_t off;
    tc_mcast_set_t *targets = NULL;
    mcast_report_t *all = NULL;
    tc_context_t *ctx = NULL;
    tc_hist_t *hist = NULL;
    tc_pkg_t *pkg = NULL;
    char path[4096];
    mcast_rank_t mr;
    tc_status_t status;
    tc_wait_t wait;
    tc_jam_t jam;
    int rc = 1;

    memset(&mr, 0, sizeof(mr));
    mr.opts = opts;
    mr.rank = gp->rank;
    mr.size = gp->size;
    wait    = opts->wait_set ? opts->wait :
                               (((long)gp->size > cores) ? TC_WAIT_ADAPTIVE : TC_WAIT_POLL);

    if ((tc_pkg_default_path(path, sizeof(path)) != TC_OK) || (tc_pkg_open(path, &pkg) != TC_OK)) {
        fprintf(stderr, "tc-mcast: rank %u: cannot open the bench package\n", gp->rank);
        goto out;
    }
    if (tc_pkg_jam(pkg, opts->jam, &jam) != TC_OK) {
        fprintf(stderr, "tc-mcast: package has no jam '%s'\n", opts->jam);
        goto out_close_pkg;
    }
    /* a slot holds the envelope header, the largest slice encoding (a
     * bitmap of the group is the worst the encoder can pick) and the payload */
    layout.args_len    = TC_MCAST_ENV_HDR_MAX + 2 * TC_MCAST_VARINT_MAX + 1 + gp->size / 8 + 1;
    layout.payload_len = opts->size;
    if (tc_frame_layout(&layout, 1u << 24, &off) != TC_OK) {
        goto out_close_pkg;
    }
    /* Every rank maps 2 (N - 1) mailboxes: on sysv shared memory the host's
     * segment limit (shmmni, 4096 here) runs out near N = 45 and meanwhile
     * fails every other UCX process on the host; posix shared memory has no
     * such limit. A user's own UCX_TLS / UCX_ALLOC_PRIO win. */
    setenv("UCX_TLS", "^sysv", 0);
    setenv("UCX_ALLOC_PRIO", "md:posix,huge,thp,mmap,heap", 0);
    tc_context_params_init(&cp);
    cp.slots      = opts->slots;
    cp.slot_size  = off.frame_size;
    cp.frames     = TC_FRAMES_VARIABLE;
    cp.timeout_ms = opts->timeout_ms;
    cp.wait       = wait;
    cp.events     = (wait == TC_WAIT_EVENT) || (wait == TC_WAIT_ADAPTIVE);
    cp.rank       = gp->rank;
    if ((tc_context_create(&cp, &ctx) != TC_OK) || (tc_context_add_pkg(ctx, pkg) != TC_OK)) {
        fprintf(stderr, "tc-mcast: rank %u: no context\n", gp->rank);
        goto out_destroy_ctx;
    }
    if (!strcmp(opts->jam, "seq")) {
        /* the jam counts multicasts that run out of order at each target */
        mr.seq = tc_context_pkg_state(ctx, pkg);
        if ((mr.seq == NULL) || (opts->size != sizeof(uint64_t))) {
            fprintf(stderr, "tc-mcast: -j seq takes -s 8 and the bench ried's state\n");
            goto out_destroy_ctx;
        }
    }
    status = tc_group_create(ctx, gp, &mr.group);
    if (status != TC_OK) {
        fprintf(stderr, "tc-mcast: rank %u could not join the group of %u: %s\n", gp->rank,
                gp->size, tc_status_str(status));
        goto out_destroy_ctx;
    }
    status = tc_mcast_create(mr.group, opts->naive ? &tc_mcast_ops_flat : &tc_mcast_ops_tree,
                             radices[0], wait, &mr.mc);
    if (status != TC_OK) {
        goto out_destroy_group;
    }
    tc_mcast_set_hooks(mr.mc, mcast_on_deliver, mcast_on_complete, &mr);
    if ((tc_mcast_set_create(gp->size, &targets) != TC_OK) ||
        (tc_mcast_set_add_range(targets, 0, gp->size) != TC_OK) ||
        (tc_mcast_set_remove(targets, MCAST_ORIGIN) != TC_OK) ||
        (tc_hist_create(60000000000ull, &hist) != TC_OK)) {
        goto out_destroy_mc;
    }
    if ((gp->rank == 0) && !opts->quiet) {
        printf("# tc-mcast: %u processes (%ld cores), jam %s, %u B payload, %u iterations "
               "(+%u warm-up), wait %s, %s%s\n", gp->size, cores, opts->jam, opts->size,
               opts->iters, opts->warmup, tc_wait_str(wait),
               opts->naive ? "naive unicasts" : "tree",
               opts->ack ? ", latency to the ack tree's completion" :
                           ", latency = origin send time (no ack)");
        printf("%-6s %5s %5s %3s %8s %8s %8s %7s %5s %6s %6s %7s %8s\n", "mode", "n", "R", "ack",
               "p50_us", "p99_us", "p999_us", "o.sends", "depth", "edges", "fanout", "B/hop",
               "blocked");
        fflush(stdout);
    }
    for (k = 0; k < n_radices; ++k) {
        uint32_t radix = opts->naive ? gp->size : radices[k];

        tc_mcast_set_ops(mr.mc, opts->naive ? &tc_mcast_ops_flat : &tc_mcast_ops_tree, radix);
        status = mcast_config(&mr, &jam, targets, hist, &all);
        if (status != TC_OK) {
            goto out_destroy_mc;
        }
        if (gp->rank == 0) {
            if (mcast_verify(&mr, all)) {
                free(all);
                goto out_destroy_mc;
            }
            mcast_report_row(&mr, csv, radix, targets, hist, all);
            free(all);
            all = NULL;
        }
    }
    status = tc_group_barrier(mr.group); /* nobody leaves while others still check */
    rc     = (status == TC_OK) ? 0 : 1;

out_destroy_mc:
    tc_hist_destroy(hist);
    tc_mcast_set_destroy(targets);
    tc_mcast_destroy(mr.mc);
out_destroy_group:
    tc_group_destroy(mr.group);
out_destroy_ctx:
    tc_context_destroy(ctx);
out_close_pkg:
    tc_pkg_close(pkg);
out:
    return rc;
}

/* -n N: start the ranks here (fork: the rendezvous socket is inherited by
 * rank 0), wait for them, report any that died. */
static int mcast_launch(const mcast_opts_t *opts, FILE *csv)
{
    uint64_t deadline_ns = 0;
    pid_t *pids;
    uint16_t port;
    uint32_t r, left;
    int fd, rc = 0, st, fork_failed = 0;

    if (opts->n < 2) {
        fprintf(stderr, "tc-mcast: -n needs at least 2 processes\n");
        return 2;
    }
    if (tc_group_listen("127.0.0.1", 0, (int)opts->n + 16, &fd, &port) != TC_OK) {
        return 1;
    }
    pids = calloc(opts->n, sizeof(*pids));
    if (pids == NULL) {
        close(fd);
        return 1;
    }
    fflush(stdout);
    fflush(stderr);
    for (r = 0; r < opts->n; ++r) {
        pids[r] = fork();
        if (pids[r] == 0) {
            tc_group_params_t gp;

            /* a rank must not outlive its launcher */
            (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() == 1) {
                _exit(1);
            }

            tc_group_params_init(&gp, r, opts->n);
            if ((getenv("TC_SETUP_TIMEOUT_MS") != NULL) &&
                (atoi(getenv("TC_SETUP_TIMEOUT_MS")) > 0)) {
                gp.setup_timeout_ms = atoi(getenv("TC_SETUP_TIMEOUT_MS"));
            }
            gp.boot_port  = port;
            gp.listen_fd  = (r == 0) ? fd : -1;
            gp.timeout_ms = opts->timeout_ms;
            if (r != 0) {
                close(fd);
            }
            rc = mcast_rank_main(opts, (r == 0) ? csv : NULL, &gp);
            fflush(stdout);
            if ((r == 0) && (csv != NULL)) {
                fflush(csv);
            }
            _exit(rc);
        }
        if (pids[r] < 0) {
            uint32_t k;

            fprintf(stderr, "tc-mcast: fork: %s; stopping the %u ranks started\n",
                    strerror(errno), r);
            fork_failed = 1;
            for (k = 0; k < r; ++k) {
                kill(pids[k], SIGKILL);
            }
            break;
        }
    }
    close(fd);
    left = r;
    while (left > 0) {
        pid_t pid = waitpid(-1, &st, (deadline_ns != 0) ? WNOHANG : 0);

        if (pid > 0) {
            for (r = 0; (r < opts->n) && (pids[r] != pid); ++r) {
            }
            --left;
            if (WIFEXITED(st) && (WEXITSTATUS(st) == 0)) {
                continue;
            }
            if (WIFSIGNALED(st)) {
                fprintf(stderr, "tc-mcast: rank %u died (signal %d)\n", r, WTERMSIG(st));
            } else {
                fprintf(stderr, "tc-mcast: rank %u exited with status %d\n", r,
                        WEXITSTATUS(st));
            }
            rc = 1;
            if (deadline_ns == 0) {
                /* the others notice within their timeout; then we stop them */
                deadline_ns = tc_clock_mono_ns() + 1000000ull * opts->timeout_ms +
                              5000000000ull;
            }
            continue;
        }
        if ((pid < 0) && (errno != EINTR)) {
            break;
        }
        if ((deadline_ns != 0) && (tc_clock_mono_ns() > deadline_ns)) {
            for (r = 0; r < opts->n; ++r) {
                if ((pids[r] > 0) && (kill(pids[r], 0) == 0)) {
                    fprintf(stderr, "tc-mcast: rank %u still running after a rank failed: "
                                    "killing it\n", r);
                    kill(pids[r], SIGKILL);
                }
            }
            deadline_ns = UINT64_MAX;
        }
        if (pid == 0) {
            struct timespec ts = {0, 10000000};

            nanosleep(&ts, NULL);
        }
    }
    free(pids);
    return fork_failed ? 1 : rc;
}

/* --boot pmix: the group is the launcher's job. */
static int mcast_run_job(const mcast_opts_t *opts, FILE *csv)
{
    tc_group_params_t gp;
    tc_status_t status;
    tc_job_t *job;
    int rc;

    status = tc_job_open(opts->timeout_ms, &job);
    if (status != TC_OK) {
        /* "unsupported: ..." said: no PMIx in this build, or no launcher */
        return (status == TC_ERR_UNSUPPORTED) ? TC_TOOL_EXIT_UNSUPPORTED : 1;
    }
    if (opts->n_set && (opts->n != tc_job_size(job))) {
        if (tc_job_rank(job) == 0) {
            fprintf(stderr, "tc-mcast: -n %u, but the launcher started %u ranks\n", opts->n,
                    tc_job_size(job));
        }
        tc_job_close(job);
        return 2;
    }
    tc_group_params_from_job(&gp, job);
    gp.timeout_ms = opts->timeout_ms;
    rc = mcast_rank_main(opts, (gp.rank == 0) ? csv : NULL, &gp);
    tc_job_close(job);
    return rc;
}

int mcast_run(const mcast_opts_t *opts, FILE *csv, int argc, char **argv)
{
    tc_group_params_t gp;
    tc_status_t status;

    (void)argc;
    (void)argv;
    if (opts->boot == TC_BOOT_PMIX) {
        return mcast_run_job(opts, csv);
    }
    status = tc_group_params_from_env(&gp);
    if (status == TC_ERR_NOT_FOUND) {
        return mcast_launch(opts, csv);
    }
    if (status != TC_OK) {
        return 2;
    }
    gp.timeout_ms = opts->timeout_ms;
    return mcast_rank_main(opts, (gp.rank == 0) ? csv : NULL, &gp);
}
