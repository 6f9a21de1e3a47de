/*
 * Lockstep for a loopback pair (boot.h, tc_boot_loopback_lockstep): the two
 * ends' threads run one at a time, handing a turn to each other at every
 * exchange, so what each side allocates and maps during setup, and where,
 * comes in the same order on every run. tc-cost needs that: callgrind's
 * simulated cache counts depend on where the frames' lines land.
 *
 * An exchange posts this end's blob, takes the peer's if it is posted
 * already, hands the turn over, and returns holding the turn again with the
 * peer's blob. Every wait is bounded by the end's timeout. An end that
 * closes hands the turn over; the peer's exchange then reports it gone.
 */
#define _GNU_SOURCE

#include "boot.h"
#include "log.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct tc_boot_turn {
    pthread_mutex_t lock;
    pthread_cond_t  changed;
    int             holder;     /* the rank whose thread may run */
    int             open;       /* ends not closed yet */
    int             closed[2];
    int             posted[2];  /* rank i's blob waits for the other end */
    void           *blob[2];
    size_t          len[2];
};

tc_status_t tc_boot_turn_create(tc_boot_turn_t **turn_p)
{
    pthread_condattr_t attr;
    tc_boot_turn_t *turn;

    turn = calloc(1, sizeof(*turn));
    if (turn == NULL) {
        tc_error("bootstrap loopback: cannot allocate the lockstep turn");
        return TC_ERR_NO_MEMORY;
    }
    pthread_mutex_init(&turn->lock, NULL);
    /* the deadlines are CLOCK_MONOTONIC (tc_boot_deadline) */
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&turn->changed, &attr);
    pthread_condattr_destroy(&attr);
    turn->holder = 0;
    turn->open   = 2;
    *turn_p      = turn;
    return TC_OK;
}

/* Wait until rank holds the turn (or its peer closed, and takes no more
 * turns), or the deadline passes; turn locked. */
static tc_status_t tc_boot_turn_wait_locked(tc_boot_turn_t *turn, const tc_boot_t *boot,
                                            uint64_t deadline, const char *what)
{
    struct timespec ts = {.tv_sec  = (time_t)(deadline / 1000000000ull),
                          .tv_nsec = (long)(deadline % 1000000000ull)};

    while ((turn->holder != boot->rank) && !turn->closed[1 - boot->rank]) {
        if (pthread_cond_timedwait(&turn->changed, &turn->lock, &ts) == ETIMEDOUT) {
            tc_error("bootstrap %s with %s timed out after %d ms waiting for its turn "
                     "(lockstep)", what, boot->peer_name, boot->timeout_ms);
            return TC_ERR_TIMEOUT;
        }
    }
    return TC_OK;
}

tc_status_t tc_boot_turn_take(tc_boot_turn_t *turn, const tc_boot_t *boot)
{
    tc_status_t status;

    pthread_mutex_lock(&turn->lock);
    status = tc_boot_turn_wait_locked(turn, boot, tc_boot_deadline(boot->timeout_ms), "turn");
    pthread_mutex_unlock(&turn->lock);
    return status;
}

static void tc_boot_turn_give_locked(tc_boot_turn_t *turn, int rank)
{
    turn->holder = 1 - rank;
    pthread_cond_broadcast(&turn->changed);
}

void tc_boot_turn_give(tc_boot_turn_t *turn, const tc_boot_t *boot)
{
    pthread_mutex_lock(&turn->lock);
    tc_boot_turn_give_locked(turn, boot->rank);
    pthread_mutex_unlock(&turn->lock);
}

/* The peer's posted blob, now the caller's. */
static void tc_boot_turn_take_blob(tc_boot_turn_t *turn, int peer, void **buf_p, size_t *len_p)
{
    *buf_p             = turn->blob[peer];
    *len_p             = turn->len[peer];
    turn->blob[peer]   = NULL;
    turn->posted[peer] = 0;
}

tc_status_t tc_boot_turn_exchange(tc_boot_turn_t *turn, const tc_boot_t *boot, const void *buf,
                                  size_t len, void **peer_buf_p, size_t *peer_len_p)
{
    uint64_t deadline = tc_boot_deadline(boot->timeout_ms);
    int me = boot->rank, peer = 1 - boot->rank, got = 0;
    tc_status_t status;
    void *copy;

    copy = malloc(len ? len : 1);
    if (copy == NULL) {
        tc_error("bootstrap exchange with %s: cannot copy a %zu-byte blob", boot->peer_name,
                 len);
        return TC_ERR_NO_MEMORY;
    }
    memcpy(copy, buf, len);
    pthread_mutex_lock(&turn->lock);
    status = tc_boot_turn_wait_locked(turn, boot, deadline, "exchange");
    if ((status == TC_OK) && turn->posted[me]) {
        /* the peer never took our last one: the two ends are out of step */
        tc_error("bootstrap exchange with %s: the peer has not taken our previous blob "
                 "(lockstep out of step)", boot->peer_name);
        status = TC_ERR_PROTOCOL;
    }
    if (status != TC_OK) {
        pthread_mutex_unlock(&turn->lock);
        free(copy);
        return status;
    }
    turn->blob[me]   = copy;
    turn->len[me]    = len;
    turn->posted[me] = 1;
    if (turn->posted[peer]) {
        tc_boot_turn_take_blob(turn, peer, peer_buf_p, peer_len_p);
        got = 1;
    }
    tc_boot_turn_give_locked(turn, me);
    status = tc_boot_turn_wait_locked(turn, boot, deadline, "exchange");
    if ((status == TC_OK) && !got) {
        if (turn->posted[peer]) {
            tc_boot_turn_take_blob(turn, peer, peer_buf_p, peer_len_p);
            got = 1;
        } else {
            tc_error("bootstrap exchange with %s: the peer %s without sending its data",
                     boot->peer_name, turn->closed[peer] ? "closed" : "handed the turn back");
            status = TC_ERR_PEER_FAILED;
        }
    }
    pthread_mutex_unlock(&turn->lock);
    if ((status != TC_OK) && got) {
        free(*peer_buf_p);
        *peer_buf_p = NULL;
    }
    return status;
}

void tc_boot_turn_close(tc_boot_turn_t *turn, const tc_boot_t *boot)
{
    int last, i;

    pthread_mutex_lock(&turn->lock);
    turn->closed[boot->rank] = 1;
    if (turn->holder == boot->rank) {
        tc_boot_turn_give_locked(turn, boot->rank);
    }
    last = (--turn->open == 0);
    pthread_mutex_unlock(&turn->lock);
    if (!last) {
        return;
    }
    for (i = 0; i < 2; ++i) {
        free(turn->blob[i]);
    }
    pthread_cond_destroy(&turn->changed);
    pthread_mutex_destroy(&turn->lock);
    free(turn);
}
