/*
 * Tests of process groups and multicast forwarding (lib/group/group.c,
 * lib/mcast_*.c) with real processes and UCX puts: five ranks forked
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
 *     the receiver keeps serving; so is a one-hop envelope whose origin
 *     is not its sender;
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

#include "clock.h"
#include "group.h"
#include "mcast_fwd.h"
#include "mcast_fwd_int.h"
#include "runtime.h"
#include "harness/pkg_path.h"

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

/* ------------------------------------------------------------------------
 * The limit tests' ranks (bounded state, origin share): four, rank 3 with
 * no multicast engine (it refuses every multicast frame and never acks),
 * rings of 8 slots of 256 bytes, timeouts a loaded machine cannot reach.
 */
#define LIM_RANKS 4u

typedef struct lim_rank {
    tc_pkg_t     *pkg;
    tc_context_t *ctx;
    tc_group_t   *group;
    tc_mcast_t   *mc;   /* NULL at rank 3 */
    tc_jam_t      jam;  /* the noop jam: every envelope and marker runs it */
    uint32_t      rank;
} lim_rank_t;

#define LIM_CHECK(_c, ...) do { if (!(_c)) { fprintf(stderr, "rank %u: ", lr->rank); \
    fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); return 1; } } while (0)

static int lim_open(lim_rank_t *lr, uint32_t rank, uint16_t port, int listen_fd)
{
    tc_context_params_t cp;
    tc_group_params_t gp;
    char path[4096];

    memset(lr, 0, sizeof(*lr));
    lr->rank = rank;
    LIM_CHECK((tc_pkg_default_path(path, sizeof(path)) == TC_OK) &&
              (tc_pkg_open(path, &lr->pkg) == TC_OK) &&
              (tc_pkg_jam(lr->pkg, "noop", &lr->jam) == TC_OK), "no bench package");
    setenv("UCX_TLS", "^sysv", 0);
    setenv("UCX_ALLOC_PRIO", "md:posix,huge,thp,mmap,heap", 0);
    tc_context_params_init(&cp);
    cp.slots      = 8;
    cp.slot_size  = 256;
    cp.frames     = TC_FRAMES_VARIABLE;
    cp.timeout_ms = 60000; /* generous: a loaded machine must not fail this */
    cp.rank       = rank;
    LIM_CHECK((tc_context_create(&cp, &lr->ctx) == TC_OK) &&
              (tc_context_add_pkg(lr->ctx, lr->pkg) == TC_OK), "context");
    tc_group_params_init(&gp, rank, LIM_RANKS);
    gp.boot_port  = port;
    gp.listen_fd  = (rank == 0) ? listen_fd : -1;
    gp.timeout_ms = 60000;
    LIM_CHECK(tc_group_create(lr->ctx, &gp, &lr->group) == TC_OK, "group");
    if (rank != 3) {
        LIM_CHECK(tc_mcast_create(lr->group, &tc_mcast_ops_tree, 2, TC_WAIT_POLL, &lr->mc) ==
                  TC_OK, "mcast");
    }
    return 0;
}

static int lim_close(lim_rank_t *lr)
{
    if (lr->mc != NULL) {
        LIM_CHECK(tc_mcast_flush(lr->mc) == TC_OK, "flush");
    }
    LIM_CHECK(tc_group_barrier(lr->group) == TC_OK, "last barrier");
    tc_mcast_destroy(lr->mc);
    tc_group_destroy(lr->group);
    tc_context_destroy(lr->ctx);
    tc_pkg_close(lr->pkg);
    return 0;
}

/* An ack envelope (origin, hops, id) for the slice {lo, hi}, put straight
 * into rank dest's ring; now and then this rank runs what came back (the
 * acks it holds no record for are refused). */
static int lim_forge(const lim_rank_t *lr, uint32_t dest, uint32_t origin, uint32_t hops,
                     uint64_t id, uint32_t lo, uint32_t hi)
{
    tc_mcast_env_t e = {TC_MCAST_ENV_ACK, origin, 2, hops, id};
    tc_mcast_set_t *slice = NULL;
    uint64_t v = id;
    uint8_t env[64];
    size_t h, len = 0;
    int ok;

    ok = (tc_mcast_set_create(LIM_RANKS, &slice) == TC_OK) &&
         (tc_mcast_set_add(slice, lo) == TC_OK) && (tc_mcast_set_add(slice, hi) == TC_OK);
    h  = tc_mcast_env_put_hdr(&e, env);
    ok = ok && (tc_mcast_encode(slice, env + h, sizeof(env) - h, &len) == TC_OK);
    ok = ok && (tc_peer_send_kind(tc_group_peer(lr->group, dest), TC_KIND_MCAST, lr->jam.pkg_id,
                                  lr->jam.element, env, (uint32_t)(h + len), &v, 8, 0) == TC_OK);
    tc_mcast_set_destroy(slice);
    if (ok && ((id % 256) == 0)) {
        ok = (tc_mcast_progress(lr->mc, NULL) == TC_OK);
    }
    LIM_CHECK(ok, "forging envelope %llu to rank %u", (unsigned long long)id, dest);
    return 0;
}

/* A plain frame (the noop jam) to rank r: a marker behind everything sent
 * to it before (rings are FIFO). */
static int lim_marker(const lim_rank_t *lr, uint32_t r)
{
    tc_mcast_set_t *one = NULL;
    uint64_t v = 0;
    int ok;

    ok = (tc_mcast_set_create(LIM_RANKS, &one) == TC_OK) && (tc_mcast_set_add(one, r) == TC_OK) &&
         (tc_mcast_send(lr->mc, &lr->jam, &v, 8, one, 0, NULL) == TC_OK);
    tc_mcast_set_destroy(one);
    LIM_CHECK(ok, "marker to rank %u", r);
    return 0;
}

/* Ranks with little to do sleep between looks instead of spinning, so the
 * ranks measured keep the machine's cores. Gives up after 60 s without a
 * frame (a hang guard, not a time limit). */
static int lim_idle_until(const lim_rank_t *lr, int (*done)(void *arg), void *arg)
{
    uint64_t last = tc_clock_mono_ns();
    unsigned n, total;
    uint32_t r;

    while (!done(arg)) {
        total = 0;
        if (lr->mc != NULL) {
            LIM_CHECK(tc_mcast_progress(lr->mc, &total) == TC_OK, "progress");
        } else {
            for (r = 0; r < LIM_RANKS; ++r) {
                n = 0;
                LIM_CHECK((r == lr->rank) ||
                          (tc_peer_progress(tc_group_peer(lr->group, r), 0, &n) == TC_OK),
                          "progress with rank %u", r);
                total += n;
            }
        }
        if (total > 0) {
            last = tc_clock_mono_ns();
            continue;
        }
        LIM_CHECK(tc_clock_mono_ns() - last < 60000000000ull, "nothing came for 60 s");
        usleep(200);
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Bounded state: envelopes whose acks never come. Four ranks; rank 3 runs
 * no multicast engine: it refuses every multicast frame and never acks.
 * First rank 0 multicasts to {1, 3} with acks and a 200 ms record timeout:
 * tc_mcast_wait gives up with TC_ERR_TIMEOUT and frees the record. Then
 * rank 0 forges envelopes straight into rank 1's ring:
 *   A: BND_FLOOD ack envelopes with hop count N - 1 and the slice {1, 2}:
 *      no real tree gets there (hops + slice > N), so rank 1 must refuse
 *      them before forwarding (rank 2 never sees one) and hold no record;
 *   boundary: one with hops 2 and the slice {1, 2} (hops + slice = N): it
 *      is allowed, rank 2 runs it;
 *   C: BND_FLOOD + 1 ack envelopes with the slice {1, 3}: rank 1 forwards
 *      each to rank 3, which refuses it without acking (it has no engine),
 *      so each record rank 1 keeps waits for an ack that never comes. With
 *      a 200 ms record timeout and at most 256 records, rank 1 holds at
 *      most 256 at any time, and every one goes (timed out, or the oldest
 *      freed to make room). Rank 1 lets one origin fill its table here
 *      (tc_mcast_set_origin_limit): the eviction is what this test looks
 *      at; test_mcast_origin_share holds an origin to its default share.
 * Ranks 2 and 3 sleep between looks, so ranks 0 and 1 have the cores.
 * Rank 1 prints how long each flood took and its RSS (the reproduction's
 * figures; nothing here asserts a time). Then rank 1 sends every rank one
 * plain frame: the rings are FIFO, so a rank that saw it has seen all.
 */
#define BND_RANKS    LIM_RANKS
#define BND_MAX_RECS 256u
#define BND_ID_A     2u /* the forged ids follow rank 0's one real multicast */

typedef struct bnd_rank {
    lim_rank_t  lim;
    tc_mcast_t *mc;     /* lim's */
    tc_group_t *group;  /* lim's */
    uint32_t    rank;
    uint64_t    flood, delivered, max_live, t_a, t_c;
    long        rss_start, rss_a, rss_c;
} bnd_rank_t;

#define BND_CHECK(_c, ...) do { if (!(_c)) { fprintf(stderr, "rank %u: ", br->rank); \
    fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); return 1; } } while (0)

static uint64_t bnd_flood(void)
{
    const char *s = getenv("TC_TEST_MCAST_FLOOD");
    const char *q = getenv("TC_TEST_QUICK");

    if ((s != NULL) && (atoll(s) > 0)) {
        return (uint64_t)atoll(s);
    }
    return ((q != NULL) && (*q != '\0') && (*q != '0')) ? 2000 : 40000;
}

static long bnd_rss_kib(void)
{
    long pages = 0, rss = 0;
    FILE *f = fopen("/proc/self/statm", "r");

    if (f != NULL) {
        if (fscanf(f, "%ld %ld", &pages, &rss) != 2) {
            rss = 0;
        }
        fclose(f);
    }
    return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

/* Rank 1 times each flood by the envelopes that end it: the boundary one
 * ends A, the last of C ends C. */
static void bnd_deliver(void *arg, const tc_mcast_info_t *info)
{
    bnd_rank_t *br = arg;

    br->delivered++;
    if (info->id == BND_ID_A + br->flood) {
        br->t_a   = tc_clock_mono_ns();
        br->rss_a = bnd_rss_kib();
    } else if (info->id == BND_ID_A + 2 * br->flood + 1) {
        br->t_c   = tc_clock_mono_ns();
        br->rss_c = bnd_rss_kib();
    }
}

/* Rank 1: every envelope either ran or was refused as too deep. */
static int bnd_relay_done(void *arg)
{
    bnd_rank_t *br = arg;
    tc_mcast_stats_t st;
    uint64_t seen;

    tc_mcast_stats(br->mc, &st);
    br->max_live = (st.live > br->max_live) ? st.live : br->max_live;
    seen = br->delivered + st.too_deep;
    return (seen >= 2 * br->flood + 3) && (st.queued == 0);
}

static int bnd_no_records(void *arg)
{
    bnd_rank_t *br = arg;
    tc_mcast_stats_t st;

    tc_mcast_stats(br->mc, &st);
    br->max_live = (st.live > br->max_live) ? st.live : br->max_live;
    return st.live == 0;
}

/* Ranks 0 and 2: rank 1's last frame came, and nothing waits here. */
static int bnd_marker_seen(void *arg)
{
    bnd_rank_t *br = arg;
    tc_mcast_stats_t st;
    tc_peer_stats_t ps;

    tc_mcast_stats(br->mc, &st);
    tc_peer_stats(tc_group_peer(br->group, 1), &ps);
    return (ps.rx_frames >= 1) && (st.live == 0) && (st.queued == 0);
}

/* Rank 3: rank 0's one multicast frame and rank 1's last frame came. */
static int bnd_rank3_done(void *arg)
{
    bnd_rank_t *br = arg;
    tc_peer_stats_t p0, p1;

    tc_peer_stats(tc_group_peer(br->group, 0), &p0);
    tc_peer_stats(tc_group_peer(br->group, 1), &p1);
    return (p0.rx_rejected >= 1) && (p1.rx_frames >= 1);
}

static int bnd_rank_main(uint32_t rank, uint16_t port, int listen_fd)
{
    bnd_rank_t brs, *br = &brs;
    lim_rank_t *lr = &br->lim;
    tc_mcast_set_t *one = NULL;
    tc_mcast_stats_t st;
    tc_peer_stats_t ps, ps0;
    uint64_t i, t0, v = 0;

    memset(br, 0, sizeof(*br));
    br->rank  = rank;
    br->flood = bnd_flood();
    if (lim_open(lr, rank, port, listen_fd)) {
        return 1;
    }
    br->mc    = lr->mc;
    br->group = lr->group;
    if (br->mc != NULL) {
        tc_mcast_set_hooks(br->mc, bnd_deliver, NULL, br);
    }
    if (rank == 1) {
        BND_CHECK(tc_mcast_set_limits(br->mc, 200, BND_MAX_RECS) == TC_OK, "limits");
        tc_mcast_set_origin_limit(br->mc, UINT32_MAX); /* the table's maximum alone */
    }
    BND_CHECK(tc_group_barrier(br->group) == TC_OK, "first barrier");

    switch (rank) {
    case 0:
        BND_CHECK((tc_mcast_set_limits(br->mc, 200, 0) == TC_OK) &&
                  (tc_mcast_set_create(BND_RANKS, &one) == TC_OK) &&
                  (tc_mcast_set_add(one, 1) == TC_OK) && (tc_mcast_set_add(one, 3) == TC_OK) &&
                  (tc_mcast_send(br->mc, &lr->jam, &v, 8, one, TC_MCAST_F_ACK, &i) == TC_OK) &&
                  (i == BND_ID_A - 1), "multicast to {1, 3}");
        tc_mcast_set_destroy(one);
        BND_CHECK(tc_mcast_wait(br->mc, i) == TC_ERR_TIMEOUT, "rank 3's ack came, or the wait "
                  "did not give up");
        tc_mcast_stats(br->mc, &st);
        BND_CHECK((st.expired == 1) && (st.live == 0) && (st.completions == 0),
                  "%llu records timed out, %llu held, %llu completions after giving up",
                  (unsigned long long)st.expired, (unsigned long long)st.live,
                  (unsigned long long)st.completions);
        for (i = 0; i < br->flood; ++i) {
            if (lim_forge(lr, 1, 0, BND_RANKS - 1, BND_ID_A + i, 1, 2)) {
                return 1;
            }
        }
        if (lim_forge(lr, 1, 0, 2, BND_ID_A + br->flood, 1, 2)) {
            return 1;
        }
        for (i = 0; i <= br->flood; ++i) {
            if (lim_forge(lr, 1, 0, 1, BND_ID_A + br->flood + 1 + i, 1, 3)) {
                return 1;
            }
        }
        BND_CHECK(tc_mcast_wait_until(br->mc, bnd_marker_seen, br, "rank 1's last frame") ==
                  TC_OK, "waiting for rank 1");
        break;
    case 1:
        t0            = tc_clock_mono_ns();
        br->rss_start = bnd_rss_kib();
        BND_CHECK(tc_mcast_wait_until(br->mc, bnd_relay_done, br, "the floods") == TC_OK,
                  "waiting for the floods");
        /* the records left wait for acks that never come: they time out */
        BND_CHECK(tc_mcast_wait_until(br->mc, bnd_no_records, br, "the records to expire") ==
                  TC_OK, "waiting for the records to go");
        tc_mcast_stats(br->mc, &st);
        printf("rank 1: %llu envelopes too deep for their slice: %.2f s, RSS %ld -> %ld KiB\n"
               "rank 1: %llu envelopes whose acks never come: %.2f s, RSS -> %ld KiB\n"
               "rank 1: records held at most %llu (limit %u); %llu timed out, %llu freed for "
               "room, %llu too deep refused\n",
               (unsigned long long)br->flood, (double)(br->t_a - t0) / 1e9, br->rss_start,
               br->rss_a, (unsigned long long)br->flood + 1, (double)(br->t_c - br->t_a) / 1e9,
               br->rss_c, (unsigned long long)br->max_live, BND_MAX_RECS,
               (unsigned long long)st.expired, (unsigned long long)st.evicted,
               (unsigned long long)st.too_deep);
        fflush(stdout);
        BND_CHECK(br->max_live <= BND_MAX_RECS, "%llu records held at once (limit %u)",
                  (unsigned long long)br->max_live, BND_MAX_RECS);
        BND_CHECK(st.too_deep == br->flood, "%llu of %llu too-deep envelopes refused",
                  (unsigned long long)st.too_deep, (unsigned long long)br->flood);
        BND_CHECK(br->delivered == br->flood + 3, "ran %llu jams, expected %llu",
                  (unsigned long long)br->delivered, (unsigned long long)br->flood + 3);
        /* every record went: completed (the boundary one, unless it timed
         * out first), timed out, or freed for room; the acks sent are the
         * completions and one per too-deep refusal */
        BND_CHECK(st.acks - st.too_deep + st.expired + st.evicted == br->flood + 3,
                  "records: %llu completed, %llu timed out, %llu freed for room; %llu made",
                  (unsigned long long)(st.acks - st.too_deep), (unsigned long long)st.expired,
                  (unsigned long long)st.evicted, (unsigned long long)br->flood + 3);
        BND_CHECK(st.expired >= 1, "no record timed out");
        BND_CHECK(st.live == 0, "%llu records left", (unsigned long long)st.live);
        if (lim_marker(lr, 0) || lim_marker(lr, 2) || lim_marker(lr, 3)) {
            return 1;
        }
        break;
    case 2:
        if (lim_idle_until(lr, bnd_marker_seen, br)) {
            return 1;
        }
        tc_mcast_stats(br->mc, &st);
        /* the too-deep envelopes stopped at rank 1: none came here */
        BND_CHECK(st.rejected == 0, "%llu envelopes refused here", (unsigned long long)st.rejected);
        BND_CHECK(br->delivered == 1, "ran %llu jams, expected the boundary one",
                  (unsigned long long)br->delivered);
        break;
    default:
        if (lim_idle_until(lr, bnd_rank3_done, br)) {
            return 1;
        }
        tc_peer_stats(tc_group_peer(br->group, 1), &ps);
        tc_peer_stats(tc_group_peer(br->group, 0), &ps0);
        /* C's envelopes, forwarded by rank 1 */
        BND_CHECK(ps.rx_rejected == br->flood + 1, "%llu multicast frames from rank 1 refused, "
                  "expected %llu", (unsigned long long)ps.rx_rejected,
                  (unsigned long long)br->flood + 1);
        BND_CHECK(ps0.rx_rejected == 1, "%llu multicast frames from rank 0 refused, expected 1",
                  (unsigned long long)ps0.rx_rejected);
        break;
    }
    return lim_close(lr);
}

/* ------------------------------------------------------------------------
 * One origin cannot take a relay's records from the others. Four ranks;
 * rank 3 runs no multicast engine (it refuses every multicast frame and
 * never acks). Rank 1 is the relay under test: a record timeout of 60 s
 * (nothing expires while the floods run) and room for OSH_FLOOD / 2 records.
 *   - rank 2 puts OSH_KEPT ack envelopes of its own with the slice {1, 3}
 *     into rank 1's ring: rank 1 holds a record for each (rank 3 never
 *     acks), then tells rank 0 to go. Rank 2 also puts one ack envelope
 *     naming rank 0 as its origin into rank 0's ring: refused there, and
 *     acked (rank 2 holds no record for it, so it refuses that ack);
 *   D: rank 0 puts OSH_FLOOD ack envelopes whose slice {0, 1} holds their
 *      origin (rank 0) into rank 1's ring: rank 1 refuses each where it
 *      lands and acks it, and makes no record. (Before: rank 1 forwarded
 *      each to rank 0, which refused it without an ack, so each record
 *      waited for its timeout, and at the maximum records were evicted);
 *   S: rank 0 puts OSH_FLOOD ack envelopes with the slice {1, 3}: rank 1
 *      holds at most origin 0's share (a quarter of its maximum), refuses
 *      and acks the rest;
 * then rank 2's records are all still held at rank 1, none evicted, and
 * rank 1 shortens its record timeout: every record it holds goes. Rank 1
 * prints its RSS before and after the floods (nothing asserts a size).
 */
#define OSH_RANKS LIM_RANKS
#define OSH_KEPT  4u

typedef struct osh_rank {
    lim_rank_t  lim;
    tc_mcast_t *mc;     /* lim's */
    tc_group_t *group;  /* lim's */
    uint32_t    rank;
    uint64_t    flood, max_live, from_rank;
    uint32_t    max_recs;
} osh_rank_t;

#define OSH_CHECK(_c, ...) do { if (!(_c)) { fprintf(stderr, "rank %u: ", osr->rank); \
    fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); return 1; } } while (0)

static uint64_t osh_flood(void)
{
    const char *q = getenv("TC_TEST_QUICK");

    return ((q != NULL) && (*q != '\0') && (*q != '0')) ? 2000 : 20000;
}

/* Plain frames (jams) that ran from rank r. */
static uint64_t osh_ran_from(const osh_rank_t *osr, uint32_t r)
{
    tc_peer_stats_t ps;

    tc_peer_stats(tc_group_peer(osr->group, r), &ps);
    return ps.rx_frames;
}

/* Rank 1: at least OSH_KEPT records held (rank 2's). */
static int osh_kept_held(void *arg)
{
    osh_rank_t *osr = arg;
    tc_mcast_stats_t st;

    tc_mcast_stats(osr->mc, &st);
    return (st.live >= OSH_KEPT) && (st.queued == 0);
}

/* from_rank's marker number osr->flood... ran here, nothing queued; tracks
 * the most records held. */
static int osh_marker_seen(void *arg)
{
    osh_rank_t *osr = arg;
    tc_mcast_stats_t st;

    tc_mcast_stats(osr->mc, &st);
    osr->max_live = (st.live > osr->max_live) ? st.live : osr->max_live;
    return (osh_ran_from(osr, (uint32_t)osr->from_rank) >= 1) && (st.queued == 0);
}

static int osh_no_records(void *arg)
{
    osh_rank_t *osr = arg;
    tc_mcast_stats_t st;

    tc_mcast_stats(osr->mc, &st);
    return st.live == 0;
}

/* Rank 0: rank 1's second marker (after the go) ran, nothing waits here. */
static int osh_rank0_done(void *arg)
{
    osh_rank_t *osr = arg;
    tc_mcast_stats_t st;

    tc_mcast_stats(osr->mc, &st);
    return (osh_ran_from(osr, 1) >= 2) && (st.queued == 0) && (st.live == 0);
}

/* Rank 2: rank 1's marker ran and rank 0's ack came (refused here). */
static int osh_rank2_done(void *arg)
{
    osh_rank_t *osr = arg;
    tc_mcast_stats_t st;

    tc_mcast_stats(osr->mc, &st);
    return (osh_ran_from(osr, 1) >= 1) && (st.rejected >= 1) && (st.queued == 0);
}

/* Rank 3 (no engine): rank 1's marker ran. */
static int osh_rank3_done(void *arg)
{
    return osh_ran_from(arg, 1) >= 1;
}

static int osh_relay(osh_rank_t *osr)
{
    const lim_rank_t *lr = &osr->lim;
    uint64_t share = osr->max_recs / TC_MCAST_REC_ORIGIN_SHARE, f = osr->flood;
    tc_mcast_stats_t st;
    long rss0, rss1;

    OSH_CHECK(tc_mcast_wait_until(osr->mc, osh_kept_held, osr, "rank 2's records") == TC_OK,
              "waiting for rank 2's envelopes");
    rss0 = bnd_rss_kib();
    if (lim_marker(lr, 0)) { /* go */
        return 1;
    }
    osr->from_rank = 0;
    OSH_CHECK(tc_mcast_wait_until(osr->mc, osh_marker_seen, osr, "the floods") == TC_OK,
              "waiting for the floods");
    rss1 = bnd_rss_kib();
    tc_mcast_stats(osr->mc, &st);
    printf("rank 1: %llu envelopes whose slice holds their origin, then %llu that wait on "
           "rank 3: records held at most %llu (limit %u, origin share %llu), %llu evicted, "
           "%llu refused and acked; RSS %ld -> %ld KiB\n",
           (unsigned long long)f, (unsigned long long)f, (unsigned long long)osr->max_live,
           osr->max_recs, (unsigned long long)share, (unsigned long long)st.evicted,
           (unsigned long long)st.acks, rss0, rss1);
    fflush(stdout);
    OSH_CHECK(st.evicted == 0, "%llu records evicted (rank 2's among them)",
              (unsigned long long)st.evicted);
    OSH_CHECK(st.expired == 0, "%llu records timed out during the floods",
              (unsigned long long)st.expired);
    OSH_CHECK(osr->max_live <= OSH_KEPT + share, "%llu records held at once, origin 0's share "
              "is %llu", (unsigned long long)osr->max_live, (unsigned long long)share);
    OSH_CHECK(st.live == OSH_KEPT + share, "%llu records held after the floods, expected rank "
              "2's %u and origin 0's share %llu", (unsigned long long)st.live, OSH_KEPT,
              (unsigned long long)share);
    /* ran: rank 2's and origin 0's share; every other envelope refused
     * where it landed, and acked */
    OSH_CHECK(st.delivered == OSH_KEPT + share, "ran %llu jams, expected %llu",
              (unsigned long long)st.delivered, (unsigned long long)(OSH_KEPT + share));
    OSH_CHECK((st.acks == 2 * f - share) && (st.rejected == 2 * f - share), "%llu acks, %llu "
              "refusals, expected %llu of each", (unsigned long long)st.acks,
              (unsigned long long)st.rejected, (unsigned long long)(2 * f - share));
    OSH_CHECK(st.origin_full == f - share, "%llu refused past origin 0's share, expected %llu",
              (unsigned long long)st.origin_full, (unsigned long long)(f - share));
    /* every record held goes at its timeout */
    OSH_CHECK(tc_mcast_set_limits(osr->mc, 1, osr->max_recs) == TC_OK, "limits");
    OSH_CHECK(tc_mcast_wait_until(osr->mc, osh_no_records, osr, "the records to expire") ==
              TC_OK, "waiting for the records to go");
    tc_mcast_stats(osr->mc, &st);
    OSH_CHECK(st.expired == OSH_KEPT + share, "%llu records timed out, expected %llu",
              (unsigned long long)st.expired, (unsigned long long)(OSH_KEPT + share));
    return lim_marker(lr, 0) || lim_marker(lr, 2) || lim_marker(lr, 3);
}

static int osh_rank_main(uint32_t rank, uint16_t port, int listen_fd)
{
    osh_rank_t oshs, *osr = &oshs;
    lim_rank_t *lr = &osr->lim;
    tc_mcast_stats_t st;
    uint64_t i;

    memset(osr, 0, sizeof(*osr));
    osr->rank     = rank;
    osr->flood    = osh_flood();
    osr->max_recs = (uint32_t)(osr->flood / 2);
    if (lim_open(lr, rank, port, listen_fd)) {
        return 1;
    }
    osr->mc    = lr->mc;
    osr->group = lr->group;
    if (rank == 1) {
        OSH_CHECK(tc_mcast_set_limits(osr->mc, 60000, osr->max_recs) == TC_OK, "limits");
    }
    OSH_CHECK(tc_group_barrier(osr->group) == TC_OK, "first barrier");

    switch (rank) {
    case 0:
        osr->from_rank = 1;
        OSH_CHECK(tc_mcast_wait_until(osr->mc, osh_marker_seen, osr, "rank 1's go") == TC_OK,
                  "waiting for rank 1's go");
        for (i = 1; i <= osr->flood; ++i) {
            if (lim_forge(lr, 1, 0, 1, i, 0, 1)) {
                return 1;
            }
        }
        for (i = osr->flood + 1; i <= 2 * osr->flood; ++i) {
            if (lim_forge(lr, 1, 0, 1, i, 1, 3)) {
                return 1;
            }
        }
        if (lim_marker(lr, 1)) {
            return 1;
        }
        OSH_CHECK(tc_mcast_wait_until(osr->mc, osh_rank0_done, osr, "rank 1's last frame") ==
                  TC_OK, "waiting for rank 1");
        tc_mcast_stats(osr->mc, &st);
        /* no envelope of the floods came back here; rank 2's naming this
         * rank as its origin was refused and acked */
        OSH_CHECK(st.delivered == 0, "ran %llu jams from envelopes",
                  (unsigned long long)st.delivered);
        OSH_CHECK(st.acks == 1, "%llu acks sent, expected 1 (rank 2's envelope)",
                  (unsigned long long)st.acks);
        OSH_CHECK(st.rejected == 1 + 2 * osr->flood - osr->max_recs / TC_MCAST_REC_ORIGIN_SHARE,
                  "%llu refused: expected rank 2's envelope and rank 1's acks",
                  (unsigned long long)st.rejected);
        break;
    case 1:
        if (osh_relay(osr)) {
            return 1;
        }
        break;
    case 2:
        for (i = 1; i <= OSH_KEPT; ++i) {
            if (lim_forge(lr, 1, 2, 1, i, 1, 3)) {
                return 1;
            }
        }
        /* as if relayed: it names rank 0 as its origin */
        if (lim_forge(lr, 0, 0, 2, 7, 0, 3)) {
            return 1;
        }
        OSH_CHECK(tc_mcast_wait_until(osr->mc, osh_rank2_done, osr, "rank 0's ack") == TC_OK,
                  "waiting for rank 0's ack and rank 1's marker");
        tc_mcast_stats(osr->mc, &st);
        OSH_CHECK(st.rejected == 1, "%llu refused, expected rank 0's ack",
                  (unsigned long long)st.rejected);
        break;
    default:
        if (lim_idle_until(lr, osh_rank3_done, osr)) {
            return 1;
        }
        break;
    }
    return lim_close(lr);
}

/* ------------------------------------------------------------------------
 * One-hop envelopes are the origin's own: only the origin sends them. Rank 2
 * puts into rank 1's ring envelopes of one hop that name rank 0 as their
 * origin, one with acks and one without: rank 1 refuses both (the ack one
 * acked as not delivered, which rank 2, holding no record, refuses in
 * turn); then one naming rank 2 itself, which runs with rank 2 as its
 * origin. Before, rank 1 ran all three, two of them with rank 0 as the
 * jam's sender. */
#define HOP_RANKS 3u

typedef struct hop_rank {
    tc_mcast_t *mc;
    tc_group_t *group;
    uint32_t    rank;
    uint64_t    delivered, not_sender;
} hop_rank_t;

#define HOP_CHECK(_c, ...) do { if (!(_c)) { fprintf(stderr, "rank %u: ", hr->rank); \
    fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); return 1; } } while (0)

static void hop_deliver(void *arg, const tc_mcast_info_t *info)
{
    hop_rank_t *hr = arg;

    hr->delivered++;
    hr->not_sender += (info->hops == 1) && (info->origin != info->from);
}

static int hop_rank1_done(void *arg)
{
    hop_rank_t *hr = arg;
    tc_mcast_stats_t st;

    tc_mcast_stats(hr->mc, &st);
    return (hr->delivered + st.rejected >= 3) && (st.queued == 0);
}

static int hop_rank2_done(void *arg)
{
    hop_rank_t *hr = arg;
    tc_mcast_stats_t st;

    tc_mcast_stats(hr->mc, &st);
    return st.rejected >= 1;
}

static int hop_forge(hop_rank_t *hr, const tc_jam_t *jam, uint8_t flags, uint32_t origin,
                     uint64_t id)
{
    tc_mcast_env_t e = {flags, origin, 2, 1, id};
    tc_mcast_set_t *slice = NULL;
    uint64_t v = id;
    uint8_t env[64];
    size_t h, len = 0;
    int ok;

    ok = (tc_mcast_set_create(HOP_RANKS, &slice) == TC_OK) && (tc_mcast_set_add(slice, 1) == TC_OK);
    h  = tc_mcast_env_put_hdr(&e, env);
    ok = ok && (tc_mcast_encode(slice, env + h, sizeof(env) - h, &len) == TC_OK);
    ok = ok && (tc_peer_send_kind(tc_group_peer(hr->group, 1), TC_KIND_MCAST, jam->pkg_id,
                                  jam->element, env, (uint32_t)(h + len), &v, 8, 0) == TC_OK);
    tc_mcast_set_destroy(slice);
    HOP_CHECK(ok, "forging an envelope of origin %u", origin);
    return 0;
}

static int hop_rank_main(uint32_t rank, uint16_t port, int listen_fd)
{
    hop_rank_t hrs, *hr = &hrs;
    tc_context_params_t cp;
    tc_group_params_t gp;
    tc_context_t *ctx = NULL;
    tc_group_t *group = NULL;
    tc_mcast_stats_t st;
    tc_pkg_t *pkg = NULL;
    char path[4096];
    tc_jam_t jam;

    memset(hr, 0, sizeof(*hr));
    hr->rank = rank;
    HOP_CHECK((tc_pkg_default_path(path, sizeof(path)) == TC_OK) &&
              (tc_pkg_open(path, &pkg) == TC_OK) && (tc_pkg_jam(pkg, "noop", &jam) == TC_OK),
              "no bench package");
    setenv("UCX_TLS", "^sysv", 0);
    setenv("UCX_ALLOC_PRIO", "md:posix,huge,thp,mmap,heap", 0);
    tc_context_params_init(&cp);
    cp.slots      = 4;
    cp.slot_size  = 256;
    cp.frames     = TC_FRAMES_VARIABLE;
    cp.timeout_ms = 20000;
    cp.rank       = rank;
    HOP_CHECK((tc_context_create(&cp, &ctx) == TC_OK) && (tc_context_add_pkg(ctx, pkg) == TC_OK),
              "context");
    tc_group_params_init(&gp, rank, HOP_RANKS);
    gp.boot_port  = port;
    gp.listen_fd  = (rank == 0) ? listen_fd : -1;
    gp.timeout_ms = 20000;
    HOP_CHECK(tc_group_create(ctx, &gp, &group) == TC_OK, "group");
    hr->group = group;
    HOP_CHECK(tc_mcast_create(group, &tc_mcast_ops_tree, 2, TC_WAIT_POLL, &hr->mc) == TC_OK,
              "mcast");
    tc_mcast_set_hooks(hr->mc, hop_deliver, NULL, hr);
    HOP_CHECK(tc_group_barrier(group) == TC_OK, "first barrier");

    if (rank == 2) {
        if (hop_forge(hr, &jam, TC_MCAST_ENV_ACK, 0, 7) || hop_forge(hr, &jam, 0, 0, 0) ||
            hop_forge(hr, &jam, 0, 2, 0)) {
            return 1;
        }
        HOP_CHECK(tc_mcast_wait_until(hr->mc, hop_rank2_done, hr, "rank 1's ack") == TC_OK,
                  "waiting for rank 1's ack");
    } else if (rank == 1) {
        HOP_CHECK(tc_mcast_wait_until(hr->mc, hop_rank1_done, hr, "rank 2's envelopes") == TC_OK,
                  "waiting for rank 2's envelopes");
        tc_mcast_stats(hr->mc, &st);
        printf("rank 1: one-hop envelopes from rank 2 naming rank 0 as origin: %llu ran "
               "with an origin not their sender, %llu refused\n",
               (unsigned long long)hr->not_sender, (unsigned long long)st.rejected);
        fflush(stdout);
        HOP_CHECK(hr->not_sender == 0, "%llu one-hop envelopes ran with an origin not their "
                  "sender", (unsigned long long)hr->not_sender);
        HOP_CHECK(st.rejected == 2, "%llu refused, expected 2", (unsigned long long)st.rejected);
        HOP_CHECK(hr->delivered == 1, "ran %llu, expected rank 2's own",
                  (unsigned long long)hr->delivered);
        HOP_CHECK(st.live == 0, "%llu records held", (unsigned long long)st.live);
    }
    HOP_CHECK(tc_mcast_flush(hr->mc) == TC_OK, "flush");
    HOP_CHECK(tc_group_barrier(group) == TC_OK, "last barrier");
    tc_mcast_destroy(hr->mc);
    tc_group_destroy(group);
    tc_context_destroy(ctx);
    tc_pkg_close(pkg);
    return 0;
}

/* Fork n ranks running rank_main; every one must exit 0. */
/* ------------------------------------------------------------------------
 * A share is the sender's, not the origin's it names. Rank 2 puts into
 * rank 1's ring SPO_FORGED ack envelopes past their first hop that name
 * rank 0 as their origin (slice {1, 3}: rank 3 never acks, so each record
 * kept waits); rank 1 holds rank 2's share of them and refuses the rest.
 * Then rank 0 multicasts to rank 1 with acks: it runs there and rank 0's
 * completion comes. On the tree before, the share was origin 0's: rank 2
 * had spent it, and rank 0's own multicast was refused.
 */
#define SPO_MAX_RECS 40u
#define SPO_FORGED   30u
#define SPO_ID0      1000u /* the forged ids: not rank 0's own */

typedef struct spo_rank {
    lim_rank_t lim;
    uint32_t   from_rank, want;
    uint64_t   completions;
} spo_rank_t;

/* want plain frames from from_rank ran here, nothing queued. */
static int spo_ran(void *arg)
{
    spo_rank_t *sr = arg;
    tc_mcast_stats_t st;
    tc_peer_stats_t ps;

    tc_peer_stats(tc_group_peer(sr->lim.group, sr->from_rank), &ps);
    if (sr->lim.mc == NULL) {
        return ps.rx_frames >= sr->want;
    }
    tc_mcast_stats(sr->lim.mc, &st);
    return (ps.rx_frames >= sr->want) && (st.queued == 0);
}

static void spo_complete(void *arg, const tc_mcast_done_t *done)
{
    (void)done;
    ((spo_rank_t *)arg)->completions++;
}

static int spo_completed(void *arg)
{
    return ((spo_rank_t *)arg)->completions >= 1;
}

static int spo_wait(spo_rank_t *sr, uint32_t from_rank, uint32_t want)
{
    const lim_rank_t *lr = &sr->lim;

    sr->from_rank = from_rank;
    sr->want      = want;
    if (lr->mc == NULL) {
        return lim_idle_until(lr, spo_ran, sr);
    }
    LIM_CHECK(tc_mcast_wait_until(lr->mc, spo_ran, sr, "a marker") == TC_OK,
              "waiting for rank %u's marker", from_rank);
    return 0;
}

static int spo_relay(spo_rank_t *sr)
{
    const lim_rank_t *lr = &sr->lim;
    const uint64_t share = SPO_MAX_RECS / TC_MCAST_REC_ORIGIN_SHARE;
    tc_mcast_stats_t st;

    if (spo_wait(sr, 2, 1)) { /* the forged envelopes, then rank 2's marker */
        return 1;
    }
    tc_mcast_stats(lr->mc, &st);
    LIM_CHECK(st.origin_full == SPO_FORGED - share, "%llu refused past rank 2's share, "
              "expected %llu", (unsigned long long)st.origin_full,
              (unsigned long long)(SPO_FORGED - share));
    if (lim_marker(lr, 0) || spo_wait(sr, 0, 1)) { /* go; rank 0's multicast, then its marker */
        return 1;
    }
    tc_mcast_stats(lr->mc, &st);
    printf("rank 1: rank 2 named origin 0 on %u envelopes: %llu held (its share), %llu "
           "refused; then origin 0's own: %s\n", SPO_FORGED, (unsigned long long)share,
           (unsigned long long)st.origin_full,
           (st.delivered == share + 1) ? "ran" : "refused");
    fflush(stdout);
    LIM_CHECK(st.origin_full == SPO_FORGED - share, "origin 0's own multicast refused: %llu "
              "refused past a share", (unsigned long long)st.origin_full);
    LIM_CHECK(st.delivered == share + 1, "ran %llu, expected rank 2's %llu and origin 0's",
              (unsigned long long)st.delivered, (unsigned long long)share);
    return lim_marker(lr, 2) || lim_marker(lr, 3);
}

static int spo_rank_main(uint32_t rank, uint16_t port, int listen_fd)
{
    spo_rank_t srs, *sr = &srs;
    lim_rank_t *lr = &sr->lim;
    tc_mcast_set_t *one = NULL;
    uint64_t i, v = 0;

    memset(sr, 0, sizeof(*sr));
    if (lim_open(lr, rank, port, listen_fd)) {
        return 1;
    }
    if (rank == 1) {
        LIM_CHECK(tc_mcast_set_limits(lr->mc, 60000, SPO_MAX_RECS) == TC_OK, "limits");
    }
    LIM_CHECK(tc_group_barrier(lr->group) == TC_OK, "first barrier");
    switch (rank) {
    case 0:
        tc_mcast_set_hooks(lr->mc, NULL, spo_complete, sr);
        if (spo_wait(sr, 1, 1)) {
            return 1;
        }
        LIM_CHECK((tc_mcast_set_create(LIM_RANKS, &one) == TC_OK) &&
                  (tc_mcast_set_add(one, 1) == TC_OK) &&
                  (tc_mcast_send(lr->mc, &lr->jam, &v, 8, one, TC_MCAST_F_ACK, NULL) == TC_OK),
                  "multicast to rank 1");
        tc_mcast_set_destroy(one);
        LIM_CHECK(tc_mcast_wait_until(lr->mc, spo_completed, sr, "the completion") == TC_OK,
                  "waiting for the completion");
        if (lim_marker(lr, 1)) {
            return 1;
        }
        break;
    case 1:
        if (spo_relay(sr)) {
            return 1;
        }
        break;
    case 2:
        for (i = 0; i < SPO_FORGED; ++i) {
            if (lim_forge(lr, 1, 0, 2, SPO_ID0 + i, 1, 3)) {
                return 1;
            }
        }
        if (lim_marker(lr, 1) || spo_wait(sr, 1, 1)) {
            return 1;
        }
        break;
    default:
        if (spo_wait(sr, 1, 1)) {
            return 1;
        }
        break;
    }
    return lim_close(lr);
}

/* ------------------------------------------------------------------------
 * The queue's cap while a send is blocked. Rank 0 sends rank 1 more plain
 * frames than its ring holds; rank 1 runs nothing until it has put
 * QFL_FLOOD envelopes into rank 0's ring (fire-and-forget, slice {0}), so
 * rank 0's send stays blocked on rank 1 the whole time, taking rank 1's
 * frames to keep credits moving. Rank 0's queue (its cap lowered so the
 * flood passes it many times) must never hold more than the cap: the
 * frames past it are refused and NACKed, never queued. On the tree before,
 * it queued every one (the whole flood). Then rank 1 runs rank 0's frames,
 * rank 0's send goes, and rank 0 runs what it queued.
 */
#define QFL_CAP   (64u << 10)
#define QFL_SENDS 12u /* rank 0 to rank 1: past rank 1's ring of 8 */

typedef struct qfl_rank {
    lim_rank_t lim;
    uint64_t   flood;
} qfl_rank_t;

static uint64_t qfl_flood(void)
{
    const char *q = getenv("TC_TEST_QUICK");

    return ((q != NULL) && (*q != '\0') && (*q != '0')) ? 4000 : 20000;
}

/* Rank 1: rank 0's QFL_SENDS frames ran here. */
static int qfl_rank1_done(void *arg)
{
    qfl_rank_t *qr = arg;
    tc_peer_stats_t ps;

    tc_peer_stats(tc_group_peer(qr->lim.group, 0), &ps);
    return ps.rx_frames >= QFL_SENDS;
}

/* Rank 1: the flood, into rank 0's ring, running nothing here meanwhile. */
static int qfl_flooder(qfl_rank_t *qr)
{
    const lim_rank_t *lr = &qr->lim;
    tc_peer_t *to0 = tc_group_peer(lr->group, 0);
    tc_mcast_env_t e = {0, 1, 2, 1, 0};
    tc_mcast_set_t *slice = NULL;
    tc_status_t status;
    uint8_t env[64];
    size_t h, len = 0;
    uint64_t i, v = 0;

    LIM_CHECK((tc_mcast_set_create(LIM_RANKS, &slice) == TC_OK) &&
              (tc_mcast_set_add(slice, 0) == TC_OK), "slice");
    h = tc_mcast_env_put_hdr(&e, env);
    LIM_CHECK(tc_mcast_encode(slice, env + h, sizeof(env) - h, &len) == TC_OK, "encode");
    tc_mcast_set_destroy(slice);
    for (i = 0; i < qr->flood; ++i) {
        do { /* credits come back as rank 0 takes them: nothing runs here */
            status = tc_peer_send_kind(to0, TC_KIND_MCAST, lr->jam.pkg_id, lr->jam.element, env,
                                       (uint32_t)(h + len), &v, 8, 1);
        } while (status == TC_ERR_NO_RESOURCE);
        LIM_CHECK(status == TC_OK, "flood frame %llu: %s", (unsigned long long)i,
                  tc_status_str(status));
    }
    return lim_idle_until(lr, qfl_rank1_done, qr);
}

/* Rank 0: blocked sending to rank 1 while rank 1 floods. */
static int qfl_victim(qfl_rank_t *qr)
{
    const lim_rank_t *lr = &qr->lim;
    tc_mcast_t *mc = lr->mc;
    tc_mcast_stats_t st;
    uint64_t v = 0;
    unsigned i, n;

    mc->queue_hold = QFL_CAP / 2;
    mc->queue_cap  = QFL_CAP;
    for (i = 0; i < QFL_SENDS; ++i) {
        LIM_CHECK(lim_marker(lr, 1) == 0, "send %u to rank 1", i);
    }
    tc_mcast_stats(mc, &st);
    printf("rank 0: blocked sending to rank 1 while it flooded %llu frames: the queue held at "
           "most %zu bytes (cap %u), %llu frames refused and NACKed, %llu sends blocked\n",
           (unsigned long long)qr->flood, mc->queued_bytes_max, QFL_CAP,
           (unsigned long long)st.rejected, (unsigned long long)st.blocked);
    fflush(stdout);
    (void)v;
    LIM_CHECK(st.blocked >= 1, "the send to rank 1 never blocked");
    LIM_CHECK(mc->queued_bytes_max <= QFL_CAP, "the queue held %zu bytes, past its cap of %u",
              mc->queued_bytes_max, QFL_CAP);
    LIM_CHECK(st.rejected >= 1, "no frame refused: the flood (%llu) never reached the cap",
              (unsigned long long)qr->flood);
    do { /* what it queued runs, and it is gone */
        LIM_CHECK(tc_mcast_progress(mc, &n) == TC_OK, "progress");
    } while (n > 0);
    LIM_CHECK(mc->queued_bytes == 0, "%zu bytes left queued", mc->queued_bytes);
    return 0;
}

static int qfl_rank_main(uint32_t rank, uint16_t port, int listen_fd)
{
    qfl_rank_t qr;
    lim_rank_t *lr = &qr.lim;
    int bad = 0;

    memset(&qr, 0, sizeof(qr));
    qr.flood = qfl_flood();
    if (lim_open(lr, rank, port, listen_fd)) {
        return 1;
    }
    LIM_CHECK(tc_group_barrier(lr->group) == TC_OK, "first barrier");
    if (rank == 0) {
        bad = qfl_victim(&qr);
    } else if (rank == 1) {
        bad = qfl_flooder(&qr);
    }
    return bad || lim_close(lr);
}

static void fwd_fork_group(uint32_t n, int (*rank_main)(uint32_t, uint16_t, int))
{
    pid_t pids[16];
    uint16_t port;
    int fd, st, bad = 0;

    assert_true(n <= 16);
    assert_int_equal(tc_group_listen("127.0.0.1", 0, 32, &fd, &port), TC_OK);
    fflush(stdout);
    fflush(stderr);
    for (uint32_t r = 0; r < n; ++r) {
        pids[r] = fork();
        assert_true(pids[r] >= 0);
        if (pids[r] == 0) {
            (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (r != 0) {
                close(fd);
            }
            _exit(rank_main(r, port, fd));
        }
    }
    close(fd);
    for (uint32_t r = 0; r < n; ++r) {
        assert_int_equal(waitpid(pids[r], &st, 0), pids[r]);
        if (!WIFEXITED(st) || (WEXITSTATUS(st) != 0)) {
            fprintf(stderr, "rank %u: %s %d\n", r, WIFEXITED(st) ? "exit" : "signal",
                    WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
            bad = 1;
        }
    }
    assert_false(bad);
}

static void test_group_mcast(void **state)
{
    (void)state;
    fwd_fork_group(FWD_RANKS, fwd_rank_main);
}

static void test_mcast_bounded(void **state)
{
    (void)state;
    fwd_fork_group(BND_RANKS, bnd_rank_main);
}

static void test_mcast_origin_share(void **state)
{
    (void)state;
    fwd_fork_group(OSH_RANKS, osh_rank_main);
}

static void test_mcast_one_hop_origin(void **state)
{
    (void)state;
    fwd_fork_group(HOP_RANKS, hop_rank_main);
}

static void test_mcast_share_by_sender(void **state)
{
    (void)state;
    fwd_fork_group(LIM_RANKS, spo_rank_main);
}

static void test_mcast_queue_cap(void **state)
{
    (void)state;
    fwd_fork_group(LIM_RANKS, qfl_rank_main);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_group_mcast),
        cmocka_unit_test(test_mcast_bounded),
        cmocka_unit_test(test_mcast_origin_share),
        cmocka_unit_test(test_mcast_one_hop_origin),
        cmocka_unit_test(test_mcast_share_by_sender),
        cmocka_unit_test(test_mcast_queue_cap),
    };
    return cmocka_run_group_tests_name("mcast_fwd", tests, NULL, NULL);
}
