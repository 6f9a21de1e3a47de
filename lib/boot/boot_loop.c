/*
 * Bootstrap with both ends in one process: a socketpair, same framing as TCP.
 *
 * The hello runs eagerly inside tc_boot_loopback_pair, split in halves: both
 * hellos are sent before either is read. A hello is 16 bytes, which an empty
 * socketpair always buffers, so the one calling thread never waits on
 * itself, and the two ends come back fully checked and independent: each can
 * then be handed to its own thread (exchange needs both ends to run at once,
 * as with TCP). In lockstep (tc_boot_loopback_lockstep) the two threads take
 * turns instead and the blobs pass in memory (lib/boot/boot_turn.c).
 */
#define _GNU_SOURCE /* SOCK_CLOEXEC, SOCK_NONBLOCK */

#include "boot.h"
#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

static tc_status_t tc_boot_loop_exchange(tc_boot_t *boot, const void *buf, size_t len,
                                         void **peer_buf_p, size_t *peer_len_p);
static void        tc_boot_loop_close(tc_boot_t *boot);

static const tc_boot_ops_t tc_boot_loop_ops = {
    .name       = "loopback",
    .exchange   = tc_boot_loop_exchange,
    .check_peer = tc_boot_fd_check_peer,
    .close      = tc_boot_loop_close,
};

/* In lockstep the blobs pass through the turn, in memory; else the socket. */
static tc_status_t tc_boot_loop_exchange(tc_boot_t *boot, const void *buf, size_t len,
                                         void **peer_buf_p, size_t *peer_len_p)
{
    tc_boot_fd_t *fd_boot = (tc_boot_fd_t *)boot;

    if (fd_boot->turn == NULL) {
        return tc_boot_fd_exchange(boot, buf, len, peer_buf_p, peer_len_p);
    }
    if (((buf == NULL) && (len > 0)) || (peer_buf_p == NULL) || (peer_len_p == NULL)) {
        tc_error("bootstrap exchange with %s: NULL buffer", boot->peer_name);
        return TC_ERR_INVALID_PARAM;
    }
    if (len > TC_BOOT_MAX_BLOB) {
        tc_error("bootstrap exchange with %s: a %zu-byte blob is over the %llu MiB limit",
                 boot->peer_name, len, TC_BOOT_MAX_BLOB >> 20);
        return TC_ERR_INVALID_PARAM;
    }
    return tc_boot_turn_exchange(fd_boot->turn, boot, buf, len, peer_buf_p, peer_len_p);
}

static void tc_boot_loop_close(tc_boot_t *boot)
{
    tc_boot_fd_t *fd_boot = (tc_boot_fd_t *)boot;

    if (fd_boot->turn != NULL) {
        tc_boot_turn_close(fd_boot->turn, boot);
    }
    tc_boot_fd_close(boot);
}

/* A loopback end's state, or NULL (with the error logged) for another. */
static tc_boot_fd_t *tc_boot_loop_end(tc_boot_t *boot, const char *what)
{
    if ((boot == NULL) || !tc_boot_in_process(boot)) {
        tc_error("bootstrap %s: %s is not an end of a loopback pair", what,
                 (boot == NULL) ? "NULL" : boot->peer_name);
        return NULL;
    }
    return (tc_boot_fd_t *)boot;
}

tc_status_t tc_boot_loopback_lockstep(tc_boot_t *rank0, tc_boot_t *rank1)
{
    tc_boot_fd_t *end0 = tc_boot_loop_end(rank0, "lockstep");
    tc_boot_fd_t *end1 = tc_boot_loop_end(rank1, "lockstep");
    tc_boot_turn_t *turn;
    tc_status_t status;

    if ((end0 == NULL) || (end1 == NULL)) {
        return TC_ERR_INVALID_PARAM;
    }
    if ((rank0->rank != 0) || (rank1->rank != 1) || (end0->turn != NULL) ||
        (end1->turn != NULL)) {
        tc_error("bootstrap lockstep: needs rank 0 and rank 1 of one pair, not in lockstep "
                 "yet");
        return TC_ERR_INVALID_PARAM;
    }
    status = tc_boot_turn_create(&turn);
    if (status == TC_OK) {
        end0->turn = turn;
        end1->turn = turn;
    }
    return status;
}

tc_status_t tc_boot_turn_wait(tc_boot_t *boot)
{
    tc_boot_fd_t *end = tc_boot_loop_end(boot, "turn");

    if ((end == NULL) || (end->turn == NULL)) {
        return TC_ERR_INVALID_PARAM;
    }
    return tc_boot_turn_take(end->turn, boot);
}

void tc_boot_turn_pass(tc_boot_t *boot)
{
    tc_boot_fd_t *end = tc_boot_loop_end(boot, "turn");

    if ((end != NULL) && (end->turn != NULL)) {
        tc_boot_turn_give(end->turn, boot);
    }
}

int tc_boot_in_process(const tc_boot_t *boot)
{
    return boot->ops == &tc_boot_loop_ops;
}

tc_status_t tc_boot_loopback_pair(int timeout_ms, tc_boot_t **rank0_p,
                                  tc_boot_t **rank1_p)
{
    tc_boot_fd_t *rank0, *rank1;
    tc_status_t status;
    int fds[2];

    if ((rank0_p == NULL) || (rank1_p == NULL)) {
        tc_error("bootstrap loopback: NULL output pointer");
        return TC_ERR_INVALID_PARAM;
    }

    status = tc_boot_fd_create(&tc_boot_loop_ops, 0, timeout_ms, &rank0);
    if (status != TC_OK) {
        return status;
    }

    status = tc_boot_fd_create(&tc_boot_loop_ops, 1, timeout_ms, &rank1);
    if (status != TC_OK) {
        goto err_close0;
    }

    snprintf(rank0->super.peer_name, sizeof(rank0->super.peer_name),
             "loopback:rank1");
    snprintf(rank1->super.peer_name, sizeof(rank1->super.peer_name),
             "loopback:rank0");

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
                   fds) < 0) {
        tc_error("bootstrap loopback: socketpair failed: %s", strerror(errno));
        status = TC_ERR_IO;
        goto err_close1;
    }
    /* From here on each end's close releases its own fd. */
    rank0->fd = fds[0];
    rank1->fd = fds[1];

    /* Both sends first, then both receives: see the top of the file. */
    status = tc_boot_fd_hello(rank0, 1, 0);
    if (status != TC_OK) {
        goto err_close1;
    }
    status = tc_boot_fd_hello(rank1, 1, 0);
    if (status != TC_OK) {
        goto err_close1;
    }
    status = tc_boot_fd_hello(rank0, 0, 1);
    if (status != TC_OK) {
        goto err_close1;
    }
    status = tc_boot_fd_hello(rank1, 0, 1);
    if (status != TC_OK) {
        goto err_close1;
    }

    *rank0_p = &rank0->super;
    *rank1_p = &rank1->super;
    return TC_OK;

err_close1:
    tc_boot_fd_close(&rank1->super);
err_close0:
    tc_boot_fd_close(&rank0->super);
    return status;
}
