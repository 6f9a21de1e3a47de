/*
 * Memory the peer owns cannot kill this side (lib/arch/shm_guard.c,
 * lib/arch/shm_object.c, lib/wireup/wire_extent.c). A real pair over UCX's
 * posix transport in one process: after connect the receiver (the
 * attacker) resizes the POSIX object behind its own mailbox, found by the
 * mapping that backs it (/proc/self/maps, /proc/self/map_files); the
 * sender (the victim) then stores into it. Shrunk: the store faults, the
 * guard takes it, the victim lives and its next wait fails the peer with
 * the reason. Grown: nothing faults, the next wait fails the peer.
 * Unmapped by its owner: nothing faults, the wait times out. A thread
 * that maps shared memory all through connect changes nothing.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "twochains.h"
#include "runtime.h"
#include "maps.h"
#include "shm_guard.h"

#include "log_keep.h"
#include "loop_pair.h"

/* The object behind this process's mapping at addr, open read-write (the
 * attacker's own: it may resize it); -1 where it cannot be reached. */
static int object_of(const void *addr, off_t *size_p)
{
    const tc_map_range_t *r;
    struct stat st;
    tc_maps_t maps;
    char path[64];
    int fd = -1;

    assert_int_equal(tc_maps_read(&maps), TC_OK);
    r = tc_maps_find(&maps, (uintptr_t)addr);
    assert_non_null(r);
    if (r->shm) {
        snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx", (unsigned long)r->start,
                 (unsigned long)r->end);
        fd = open(path, O_RDWR | O_CLOEXEC);
        if ((fd < 0) && r->named) {
            fd = open(r->path, O_RDWR | O_CLOEXEC);
        }
    }
    tc_maps_free(&maps);
    if (fd >= 0) {
        assert_int_equal(fstat(fd, &st), 0);
        *size_p = st.st_size;
    }
    return fd;
}

/* A pair whose mailboxes are POSIX objects (UCX's default allocates SysV
 * segments first, which cannot be resized). */
static void pair_open_posix(pair_t *pair)
{
    tc_context_params_t params;

    setenv("UCX_TLS", "^sysv", 1);
    setenv("UCX_ALLOC_PRIO", "md:posix,huge,thp,mmap,heap", 1);
    pair_params(&params, 8);
    params.timeout_ms = 2000;
    params.frames     = TC_FRAMES_VARIABLE;
    pair_open(pair, &params);
}

/* One attack: the pair, and the object behind the attacker's (s[0]'s) own
 * mailbox, open read-write, and its size at connect. */
typedef struct attack {
    pair_t pair;
    int    fd;
    off_t  size;
} attack_t;

/* Opened, the attacker holding its object; the case is skipped, saying
 * why, where it cannot run here. */
static void attack_open(attack_t *a)
{
    pair_open_posix(&a->pair);
    if (a->pair.s[1].peer->remote_ring_ptr == NULL) {
        printf("the transport (%s) maps no mailbox here\n",
               tc_peer_transports(a->pair.s[1].peer));
        pair_close(&a->pair);
        skip();
    }
    assert_true(a->pair.s[1].peer->wireup->remote_guard >= 0);
    a->fd = object_of(a->pair.s[0].peer->mbox, &a->size);
    if (a->fd < 0) {
        printf("the mailbox's object cannot be opened here (/proc/self/map_files needs "
               "CAP_SYS_ADMIN and UCX removed its name)\n");
        pair_close(&a->pair);
        skip();
    }
}

/* The object back at its size (the attacker reads its own mailbox at
 * close), then both sides closed. */
static void attack_close(attack_t *a)
{
    assert_int_equal(ftruncate(a->fd, a->size), 0);
    close(a->fd);
    pair_close(&a->pair);
}

/* The victim (s[1]) sends a full ring's worth, every store of a frame and
 * of its signal through the mapping, then waits for credits that never
 * come: how that ended. */
static tc_status_t victim_fills(attack_t *a)
{
    tc_jam_t jam = jam_of(&a->pair.s[1], "server_sum");
    int32_t payload[4] = {1, 2, 3, 4};
    tc_status_t status;
    unsigned i;

    for (i = 0, status = TC_OK; (i < 64) && (status == TC_OK); ++i) {
        status = tc_jam_send(a->pair.s[1].peer, &jam, payload, sizeof(payload), NULL);
    }
    if (status == TC_OK) {
        status = tc_peer_drain(a->pair.s[1].peer);
    }
    return status;
}

/* The victim sends and waits: the peer fails with reason, nothing crashed. */
static void victim_sends(attack_t *a, const char *reason)
{
    tc_status_t status;

    log_keep_start();
    status = victim_fills(a);
    log_keep_stop();
    assert_int_equal(status, TC_ERR_PEER_FAILED);
    assert_true(log_kept_has(reason));
}

static void test_shrunk_mailbox_survived(void **unused)
{
    attack_t a;

    (void)unused;
    attack_open(&a);
    assert_int_equal(ftruncate(a.fd, 0), 0);
    victim_sends(&a, "went away under this side's access");
    assert_true(tc_shm_guard_hit(a.pair.s[1].peer->wireup->remote_guard));
    attack_close(&a);
}

static void test_shrunk_mailbox_seen_before_a_store(void **unused)
{
    tc_peer_t *victim;
    attack_t a;

    (void)unused;
    attack_open(&a);
    victim = a.pair.s[1].peer;
    assert_int_equal(ftruncate(a.fd, a.size / 2), 0);
    if (victim->wireup->remote_obj.fd < 0) {
        printf("this side cannot hold the peer's object open here: only the guard sees it\n");
    } else {
        /* the liveness check finds it before any store faults */
        log_keep_start();
        assert_int_equal(tc_peer_check_alive(victim), TC_ERR_PEER_FAILED);
        log_keep_stop();
        assert_true(log_kept_has("shrank from"));
        assert_false(tc_shm_guard_hit(victim->wireup->remote_guard));
    }
    attack_close(&a);
}

static void test_grown_mailbox_detected(void **unused)
{
    attack_t a;

    (void)unused;
    attack_open(&a);
    if (a.pair.s[1].peer->wireup->remote_obj.fd < 0) {
        printf("this side cannot hold the peer's object open here: growth is not seen\n");
        attack_close(&a);
        skip();
    }
    assert_int_equal(ftruncate(a.fd, a.size * 2), 0);
    victim_sends(&a, "grew from");
    assert_false(tc_shm_guard_hit(a.pair.s[1].peer->wireup->remote_guard));
    attack_close(&a);
}

/* The attacker unmaps its own view: the object lives while the victim maps
 * it, nothing faults, and the silence is a wait's timeout. */
static void test_unmapped_mailbox_times_out(void **unused)
{
    tc_map_range_t r;
    tc_maps_t maps;
    attack_t a;

    (void)unused;
    attack_open(&a);
    assert_int_equal(tc_maps_read(&maps), TC_OK);
    r = *tc_maps_find(&maps, (uintptr_t)a.pair.s[0].peer->mbox);
    tc_maps_free(&maps);
    assert_int_equal(munmap((void *)r.start, r.end - r.start), 0);

    assert_int_equal(victim_fills(&a), TC_ERR_TIMEOUT);
    assert_false(tc_shm_guard_hit(a.pair.s[1].peer->wireup->remote_guard));
    /* the attacker's view back where its UCX expects it, for its close */
    assert_true(mmap((void *)r.start, r.end - r.start, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_FIXED, a.fd, (off_t)r.offset) == (void *)r.start);
    attack_close(&a);
}

/* A fault outside every guarded range still reaches the handler installed
 * before the guard's (here: one that jumps back). */
static sigjmp_buf outside_jmp;
static void outside_handler(int sig)
{
    (void)sig;
    siglongjmp(outside_jmp, 1);
}

static void test_fault_outside_chains(void **unused)
{
    struct sigaction sa, old;
    volatile char *p;
    void *anon;
    char path[] = "/tmp/tc-shm-guard-XXXXXX";
    int fd, guard;

    (void)unused;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = outside_handler;
    assert_int_equal(sigaction(SIGBUS, &sa, &old), 0);
    /* the first range guarded installs the guard over that handler */
    anon = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(anon != MAP_FAILED);
    assert_int_equal(tc_shm_guard_add((uintptr_t)anon, 4096, &guard), TC_OK);

    fd = mkstemp(path);
    assert_true(fd >= 0);
    unlink(path);
    assert_int_equal(ftruncate(fd, 4096), 0);
    p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    assert_true(p != MAP_FAILED);
    assert_int_equal(ftruncate(fd, 0), 0);
    if (sigsetjmp(outside_jmp, 1) == 0) {
        p[0] = 1; /* not guarded: the earlier handler's */
        fail_msg("a store past the end of a file did not fault");
    }
    munmap((void *)p, 4096);
    close(fd);
    tc_shm_guard_remove(guard);
    munmap(anon, 4096);
}

/* A thread maps and unmaps shared memory all through connect: the mailbox
 * is still the one the rkey maps, identified by its object. */
static atomic_int churn_stop;

static void *churn(void *arg)
{
    (void)arg;
    while (!atomic_load(&churn_stop)) {
        void *p = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

        if (p != MAP_FAILED) {
            munmap(p, 65536);
        }
    }
    return NULL;
}

static void test_connect_beside_mapping_thread(void **unused)
{
    const tc_map_range_t *mine, *theirs;
    pthread_t thread;
    tc_maps_t maps;
    pair_t pair;
    int i;

    (void)unused;
    atomic_store(&churn_stop, 0);
    assert_int_equal(pthread_create(&thread, NULL, churn, NULL), 0);
    for (i = 0; i < 3; ++i) {
        pair_open_posix(&pair);
        if (pair.s[1].peer->remote_ring_ptr != NULL) {
            assert_int_equal(tc_maps_read(&maps), TC_OK);
            mine   = tc_maps_find(&maps, (uintptr_t)pair.s[0].peer->mbox);
            theirs = tc_maps_find(&maps, (uintptr_t)pair.s[1].peer->remote_ring_ptr);
            assert_non_null(mine);
            assert_non_null(theirs);
            /* the sender's view is the receiver's mailbox object */
            assert_int_equal(mine->inode, theirs->inode);
            assert_int_equal(mine->dev, theirs->dev);
            tc_maps_free(&maps);
        }
        pair_close(&pair);
    }
    atomic_store(&churn_stop, 1);
    pthread_join(thread, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        /* first: the guard is installed over its handler */
        cmocka_unit_test(test_fault_outside_chains),
        cmocka_unit_test(test_shrunk_mailbox_survived),
        cmocka_unit_test(test_shrunk_mailbox_seen_before_a_store),
        cmocka_unit_test(test_grown_mailbox_detected),
        cmocka_unit_test(test_unmapped_mailbox_times_out),
        cmocka_unit_test(test_connect_beside_mapping_thread),
    };

    test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
