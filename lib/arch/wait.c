/* The blocking step of the event and adaptive strategies (see wait.h). */
#include "wait.h"

#include <poll.h>

int tc_wait_block(const tc_wait_ops_t *ops, tc_wait_state_t *state)
{
    struct pollfd pfd;

    /* arm, then look again: a frame that landed before the arm would
     * otherwise sleep until the next doorbell */
    if (ops->arm(ops->arg) != TC_OK) {
        ops->progress(ops->arg); /* busy: events pending */
        return 0;
    }
    if (ops->ready(ops->arg)) {
        return 0;
    }
    pfd.fd      = ops->fd;
    pfd.events  = POLLIN;
    pfd.revents = 0;
    (void)poll(&pfd, 1, 100); /* bounded: liveness checks keep running */
    ops->progress(ops->arg);
    state->wakeups++;
    return 1;
}
