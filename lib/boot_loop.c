/*
 * Bootstrap with both ends in one process: a socketpair, same framing as TCP.
 *
 * The hello runs eagerly inside tc_boot_loopback_pair, split in halves: both
 * hellos are sent before either is read. A hello is 16 bytes, which an empty
 * socketpair always buffers, so the one calling thread never waits on
 * itself, and the two ends come back fully checked and independent: each can
 * then be handed to its own thread (exchange needs both ends to run at once,
 * as with TCP).
 */
#define _GNU_SOURCE /* SOCK_CLOEXEC, SOCK_NONBLOCK */

#include "boot.h"
#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

static const tc_boot_ops_t tc_boot_loop_ops = {
    .name       = "loopback",
    .exchange   = tc_boot_fd_exchange,
    .check_peer = tc_boot_fd_check_peer,
    .close      = tc_boot_fd_close,
};

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
