/*
 * Tests of process groups and multicast forwarding (lib/group.c,
 * lib/mcast_fwd.c) with real processes and UCX puts: five ranks forked
 * here, each checking its own deliveries, rank 0 its completions.
 *
 * In every round rank 0 multicasts to all others over a radix-2 tree
 * (three hops deep at 5 ranks) with and without the ack tree, and flat:
 *   - every target runs every multicast exactly once, with rank 0 as the
 *     origin whichever relay brought it;
 *   - a relay has sent its whole slice before its jam runs (the hook sees
 *     children == planned, planned from the slice independently);
 *   - the completion fires exactly once per multicast and covers every
 *     target; fire-and-forget leaves no record at any time;
 *   - after all rounds no rank holds ack-tree state;
 *   - an envelope whose slice does not hold its receiver is refused and
 *     the receiver keeps serving;
 *   - gather, broadcast and barrier over the rendezvous.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "group.h"
#include "mcast_fwd.h"
#include "runtime.h"

#define FWD_RANKS  5u
#define FWD_ROUNDS 40u

typedef struct fwd_rank {
    tc_mcast_t *mc;
    tc_group_t *group;
    int         forged;
    uint32_t    rank;
    uint64_t    delivered, bad, completions, bad_done, live_seen;
    uint64_t    max_hops;
    uint64_t    done_ids[3 * FWD_ROUNDS + 8];
} fwd_rank_t;

#define FWD_CHECK(_c, ...) do { if (!(_c)) { fprintf(stderr, "rank %u: ", fr->rank); \
    fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); return 1; } } while (0)

static void fwd_deliver(void *arg, const tc_mcast_info_t *info)
{
    fwd_rank_t *fr = arg;
    tc_mcast_stats_t st;

    fr->delivered++;
    fr->bad += (info->origin != 0) || (info->hops == 0);
    fr->bad += (info->planned != 0) && (info->children != info->planned);
    if (info->hops > fr->max_hops) {
        fr->max_hops = info->hops;
    }
    tc_mcast_stats(fr->mc, &st);
    if (info->id == 0) {
        fr->live_seen += st.live; /* fire-and-forget: no state anywhere */
    }
    /* rank 4, a leaf, is no child of the origin: an ack it sends there for
     * the first multicast must be refused, not count toward completion
     * (the totals checked in fwd_complete would be wrong) */
    if ((fr->rank == FWD_RANKS - 1) && (info->id == 1) && !fr->forged) {
        tc_mcast_ack_t ack = {0, 1, FWD_RANKS, 1, FWD_RANKS, 0};
        uint8_t buf[TC_MCAST_ACK_MAX];

        fr->forged = 1;
        if (tc_peer_send_kind(tc_group_peer(fr->group, 0), TC_KIND_MCAST_ACK, 0, 0, buf,
                              (uint32_t)tc_mcast_ack_put(&ack, buf), NULL, 0, 0) != TC_OK) {
            fr->bad++;
        }
    }
}

static void fwd_complete(void *arg, const tc_mcast_done_t *done)
{
    fwd_rank_t *fr = arg;

    if (fr->completions < sizeof(fr->done_ids) / sizeof(fr->done_ids[0])) {
        fr->done_ids[fr->completions] = done->id;
    }
    fr->completions++;
    fr->bad_done += (done->delivered != FWD_RANKS - 1) || (done->edges != FWD_RANKS - 1);
}

static int fwd_done(void *arg)
{
    fwd_rank_t *fr = arg;
    tc_mcast_stats_t st;

    tc_mcast_stats(fr->mc, &st);
    return (fr->delivered >= 3 * FWD_ROUNDS) && (st.live == 0) && (st.queued == 0);
}

static int fwd_rank_main(uint32_t rank, uint16_t port, int listen_fd)
{
    fwd_rank_t frs, *fr = &frs;
    tc_context_params_t cp;
    tc_group_params_t gp;
    tc_context_t *ctx = NULL;
    tc_group_t *group = NULL;
    tc_mcast_set_t *targets = NULL, *bogus = NULL;
    tc_mcast_stats_t st;
    tc_pkg_t *pkg = NULL;
    char path[4096];
    tc_jam_t jam;
    uint64_t v = 0, id, round;
    void *all = NULL, *b = NULL;
    size_t blen = 0;

    memset(fr, 0, sizeof(*fr));
    fr->rank = rank;
    FWD_CHECK((tc_pkg_default_path(path, sizeof(path)) == TC_OK) &&
              (tc_pkg_open(path, &pkg) == TC_OK) && (tc_pkg_jam(pkg, "noop", &jam) == TC_OK),
              "no bench package");
    setenv("UCX_TLS", "^sysv", 0); /* as tc-mcast: no system-wide segment limit */
    setenv("UCX_ALLOC_PRIO", "md:posix,huge,thp,mmap,heap", 0);
    tc_context_params_init(&cp);
    cp.slots      = 4; /* small rings: sends must wait for credits */
    cp.slot_size  = 256;
    cp.frames     = TC_FRAMES_VARIABLE;
    cp.timeout_ms = 20000;
    cp.rank       = rank;
    FWD_CHECK((tc_context_create(&cp, &ctx) == TC_OK) && (tc_context_add_pkg(ctx, pkg) == TC_OK),
              "context");
    tc_group_params_init(&gp, rank, FWD_RANKS);
    gp.boot_port  = port;
    gp.listen_fd  = (rank == 0) ? listen_fd : -1;
    gp.timeout_ms = 20000;
    FWD_CHECK(tc_group_create(ctx, &gp, &group) == TC_OK, "group");
    fr->group = group;

    /* gather, broadcast, barrier */
    v = 1000 + rank;
    FWD_CHECK(tc_group_gather(group, &v, sizeof(v), &all) == TC_OK, "gather");
    if (rank == 0) {
        for (uint32_t r = 0; r < FWD_RANKS; ++r) {
            FWD_CHECK(((uint64_t *)all)[r] == 1000 + r, "gather: rank %u's value", r);
        }
    } else {
        FWD_CHECK(all == NULL, "gather: non-root got data");
    }
    free(all);
    v = 4242;
    FWD_CHECK((tc_group_bcast(group, &v, sizeof(v), &b, &blen) == TC_OK) && (blen == 8) &&
              (*(uint64_t *)b == 4242), "bcast");
    free(b);
    FWD_CHECK(tc_group_barrier(group) == TC_OK, "barrier");

    FWD_CHECK(tc_mcast_create(group, &tc_mcast_ops_tree, 2, TC_WAIT_POLL, &fr->mc) == TC_OK,
              "mcast");
    tc_mcast_set_hooks(fr->mc, fwd_deliver, fwd_complete, fr);
    FWD_CHECK((tc_mcast_set_create(FWD_RANKS, &targets) == TC_OK) &&
              (tc_mcast_set_add_range(targets, 0, FWD_RANKS) == TC_OK), "targets");

    if (rank == 0) {
        uint8_t env[64];
        tc_mcast_env_t e = {0, 0, 2, 1, 0};
        size_t h, len;

        /* an envelope for rank 1 whose slice is {2, 3}: refused there */
        FWD_CHECK((tc_mcast_set_create(FWD_RANKS, &bogus) == TC_OK) &&
                  (tc_mcast_set_add_range(bogus, 2, 4) == TC_OK), "bogus");
        h = tc_mcast_env_put_hdr(&e, env);
        FWD_CHECK(tc_mcast_encode(bogus, env + h, sizeof(env) - h, &len) == TC_OK, "encode");
        FWD_CHECK(tc_peer_send_kind(tc_group_peer(group, 1), TC_KIND_MCAST, jam.pkg_id,
                                    jam.element, env, (uint32_t)(h + len), &v, 8, 0) == TC_OK,
                  "bogus send");
        for (round = 0; round < FWD_ROUNDS; ++round) {
            /* tree with acks, tree fire-and-forget, flat with acks */
            tc_mcast_set_ops(fr->mc, &tc_mcast_ops_tree, 2);
            FWD_CHECK(tc_mcast_send(fr->mc, &jam, &v, 8, targets, TC_MCAST_F_ACK, &id) == TC_OK,
                      "send");
            FWD_CHECK(tc_mcast_wait(fr->mc, id) == TC_OK, "wait %llu", (unsigned long long)id);
            FWD_CHECK(fr->completions == 2 * round + 1, "completion count");
            FWD_CHECK(tc_mcast_send(fr->mc, &jam, &v, 8, targets, 0, NULL) == TC_OK, "send");
            tc_mcast_stats(fr->mc, &st);
            FWD_CHECK(st.live == 0, "fire-and-forget left state at the origin");
            tc_mcast_set_ops(fr->mc, &tc_mcast_ops_flat, 2);
            FWD_CHECK(tc_mcast_send(fr->mc, &jam, &v, 8, targets, TC_MCAST_F_ACK, &id) == TC_OK,
                      "flat send");
            FWD_CHECK(tc_mcast_wait(fr->mc, id) == TC_OK, "flat wait");
        }
        FWD_CHECK(fr->completions == 2 * FWD_ROUNDS, "%llu completions",
                  (unsigned long long)fr->completions);
        for (uint64_t i = 0; i < fr->completions; ++i) {
            FWD_CHECK(fr->done_ids[i] == i + 1, "completion %llu fired for id %llu",
                      (unsigned long long)i, (unsigned long long)fr->done_ids[i]);
        }
        FWD_CHECK(fr->bad_done == 0, "a completion missed targets");
        tc_mcast_stats(fr->mc, &st);
        FWD_CHECK(st.rejected == 1, "%llu acks refused at the origin, expected the forged one",
                  (unsigned long long)st.rejected);
        FWD_CHECK(fr->delivered == 0, "the origin ran its own multicast");
        tc_mcast_set_destroy(bogus);
    } else {
        /* the refused envelope counts nowhere: 3 deliveries a round */
        FWD_CHECK(tc_mcast_wait_until(fr->mc, fwd_done, fr, "the rounds") == TC_OK,
                  "waiting for the rounds");
        tc_mcast_stats(fr->mc, &st);
        FWD_CHECK(fr->delivered == 3 * FWD_ROUNDS, "delivered %llu",
                  (unsigned long long)fr->delivered);
        FWD_CHECK(fr->bad == 0, "%llu bad deliveries", (unsigned long long)fr->bad);
        FWD_CHECK(fr->live_seen == 0, "fire-and-forget saw state");
        FWD_CHECK(st.rejected == (rank == 1), "%llu refused", (unsigned long long)st.rejected);
        FWD_CHECK(fr->max_hops >= 1 && fr->max_hops <= 3, "hops %llu",
                  (unsigned long long)fr->max_hops);
    }
    FWD_CHECK(tc_mcast_flush(fr->mc) == TC_OK, "flush");
    tc_mcast_stats(fr->mc, &st);
    FWD_CHECK(st.live == 0, "ack-tree state left");
    v = fr->max_hops;
    FWD_CHECK(tc_group_gather(group, &v, sizeof(v), &all) == TC_OK, "final gather");
    if (rank == 0) {
        uint64_t deepest = 0;

        for (uint32_t r = 1; r < FWD_RANKS; ++r) {
            deepest = (((uint64_t *)all)[r] > deepest) ? ((uint64_t *)all)[r] : deepest;
        }
        /* 4 targets, radix 2: two levels of relays, so the origin is
         * presented across more than one hop */
        FWD_CHECK(deepest >= 2, "no multi-hop delivery (deepest %llu)",
                  (unsigned long long)deepest);
    }
    free(all);
    FWD_CHECK(tc_group_barrier(group) == TC_OK, "last barrier");
    tc_mcast_set_destroy(targets);
    tc_mcast_destroy(fr->mc);
    tc_group_destroy(group);
    tc_context_destroy(ctx);
    tc_pkg_close(pkg);
    return 0;
}

static void test_group_mcast(void **state)
{
    pid_t pids[FWD_RANKS];
    uint16_t port;
    int fd, st, bad = 0;

    (void)state;
    assert_int_equal(tc_group_listen("127.0.0.1", 0, 32, &fd, &port), TC_OK);
    fflush(stdout);
    fflush(stderr);
    for (uint32_t r = 0; r < FWD_RANKS; ++r) {
        pids[r] = fork();
        assert_true(pids[r] >= 0);
        if (pids[r] == 0) {
            (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (r != 0) {
                close(fd);
            }
            _exit(fwd_rank_main(r, port, fd));
        }
    }
    close(fd);
    for (uint32_t r = 0; r < FWD_RANKS; ++r) {
        assert_int_equal(waitpid(pids[r], &st, 0), pids[r]);
        if (!WIFEXITED(st) || (WEXITSTATUS(st) != 0)) {
            fprintf(stderr, "rank %u: %s %d\n", r, WIFEXITED(st) ? "exit" : "signal",
                    WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
            bad = 1;
        }
    }
    assert_false(bad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_group_mcast),
    };
    return cmocka_run_group_tests_name("mcast_fwd", tests, NULL, NULL);
}
