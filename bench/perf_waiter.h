/*
 * What the reference tests share: the wait loop that gives up on a dead or
 * silent peer like the library does, and a plain put.
 */
#ifndef TC_PERF_WAITER_H
#define TC_PERF_WAITER_H

#include "perf.h"
#include "log.h"
#include "wait.h"

#include <ucp/api/ucp.h>

static inline uint64_t perf_elapsed_ns(const perf_run_t *run, uint64_t t0, uint64_t t1)
{
    return (uint64_t)(tc_clock_ticks_to_ns(&run->clock, t1 - t0) + 0.5);
}

/* Wait loops of the reference tests: progress where the transport needs it
 * and give up on a dead or silent peer like the library does. */
typedef struct perf_waiter {
    perf_run_t *run;
    int         progress;
    tc_wait_t   idle;     /* the row's spinning strategy, else TC_WAIT_POLL */
    uint64_t    iter;
    uint64_t    start_ns;
} perf_waiter_t;

/* A reference's receiver idles between looks as the row's wait strategy
 * does (-W), so that a reference and the jam beside it wait alike: where
 * PAUSE spins faster than plain loads (a tight load loop on the line the
 * sender is storing into keeps taking it back mid-frame), the floor must
 * too. Nothing rings a reference's receiver, so event and adaptive poll. */
static inline void perf_waiter_init(perf_waiter_t *w, perf_run_t *run, tc_wait_t wait)
{
    w->run      = run;
    w->progress = tc_peer_progress_needed(run->peer, NULL);
    w->idle     = ((wait == TC_WAIT_EVENT) || (wait == TC_WAIT_ADAPTIVE)) ? TC_WAIT_POLL : wait;
    w->iter     = 0;
    w->start_ns = 0;
}

static const uint64_t *perf_waiter_watch(void *arg, uint64_t *old_p)
{
    const uint64_t *word = arg;

    *old_p = tc_read_once(word);
    return word;
}

/* One idle step on word (the slot's mark) between two looks. */
static inline void perf_waiter_idle(const perf_waiter_t *w, const uint64_t *word)
{
    tc_wait_ops_t ops = {perf_waiter_watch, NULL, NULL, NULL, -1, (void *)(uintptr_t)word};

    if (w->idle != TC_WAIT_POLL) {
        (void)tc_wait_idle(w->idle, 0, &ops, NULL);
    }
}

static inline tc_status_t perf_waiter_spin(perf_waiter_t *w, ucp_worker_h worker,
                                           const char *what)
{
    tc_status_t status;
    uint64_t now;

    if (w->progress) {
        ucp_worker_progress(worker);
    }
    if (TC_LIKELY((++w->iter & 1023) != 0)) {
        return TC_OK;
    }
    ucp_worker_progress(worker);
    status = tc_peer_check_alive(w->run->peer);
    if (status != TC_OK) {
        return status;
    }
    now = tc_clock_mono_ns();
    if (w->start_ns == 0) {
        w->start_ns = now;
    } else if (now - w->start_ns > 1000000ull * (uint64_t)w->run->local->timeout_ms) {
        tc_error("%s: nothing for %d ms while waiting for %s", tc_peer_name(w->run->peer),
                 w->run->local->timeout_ms, what);
        return TC_ERR_TIMEOUT;
    }
    return TC_OK;
}

static inline void perf_waiter_reset(perf_waiter_t *w)
{
    w->iter     = 0;
    w->start_ns = 0;
}

static inline tc_status_t perf_put(ucp_ep_h ep, const void *buf, size_t len, uint64_t raddr,
                            ucp_rkey_h rkey)
{
    ucp_request_param_t param;
    ucs_status_ptr_t sp;

    param.op_attr_mask = 0;
    sp = ucp_put_nbx(ep, buf, len, raddr, rkey, &param);
    if (sp == NULL) {
        return TC_OK;
    }
    if (UCS_PTR_IS_ERR(sp)) {
        tc_error("put: %s", ucs_status_string(UCS_PTR_STATUS(sp)));
        return TC_ERR_PEER_FAILED;
    }
    ucp_request_free(sp);
    return TC_OK;
}

#endif
