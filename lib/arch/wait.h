/*
 * How a receiver spends the time between two looks at its mailbox: one idle
 * step of a wait strategy (tc_wait_t). The caller's loop does the looking -
 * a couple of loads on the next slot - and calls tc_wait_idle when nothing
 * has landed.
 *
 *   pause            one PAUSE (x86) / YIELD (aarch64)
 *   wfe              aarch64: exclusive load of the watched word, WFE until
 *                    it changes or a CNTVCT deadline passes
 *   umwait, mwaitx   x86: monitor the watched word, wait with a deadline
 *   event            arm the UCX worker, look once more, then block in
 *                    poll() on its wake-up fd (bounded, so liveness checks
 *                    keep running)
 *   adaptive         as poll for spin_ns, then as event
 *
 * The spinning strategies are inline (they sit in the hot loop); the
 * blocking one is out of line in wait.c and reaches UCX only through the
 * caller's tc_wait_ops_t, so this module has no UCX dependency.
 * Whether the CPU has the instructions is lib/cpu's question; callers
 * check before choosing a strategy (tc_context_check_wait).
 */
#ifndef TC_WAIT_H
#define TC_WAIT_H

#include "twochains.h"
#include "clock.h"
#include "wait_arch.h"

#include <stdint.h>

/* What the strategies need from the caller's mailbox and transport. */
typedef struct tc_wait_ops {
    /* The word the next frame's arrival will change, and its value now. */
    const uint64_t    *(*watch)(void *arg, uint64_t *old_p);
    /* Has something landed? (looked at after arming, before blocking) */
    int                (*ready)(void *arg);
    /* Arm wake-ups: TC_OK, or another status when events are already
     * pending (the step then progresses instead of blocking). */
    tc_status_t        (*arm)(void *arg);
    void               (*progress)(void *arg);
    int                fd;      /* the fd that becomes readable on a wake-up */
    void              *arg;
} tc_wait_ops_t;

/* Per wait (one call of the caller's loop): when adaptive started spinning. */
typedef struct tc_wait_state {
    uint64_t spin_start_ns;
    uint64_t wakeups;          /* blocking waits done */
} tc_wait_state_t;

/* The event step: arm, look again, block for at most 100 ms. Returns 1. */
int tc_wait_block(const tc_wait_ops_t *ops, tc_wait_state_t *state);

/* One idle step of wait. Returns 1 if it may have slept a while (the
 * caller then checks its deadlines at once), 0 after a short step. */
static inline int tc_wait_idle(tc_wait_t wait, uint32_t spin_ns, const tc_wait_ops_t *ops,
                               tc_wait_state_t *state)
{
    const uint64_t *word;
    uint64_t old;

    switch (wait) {
    case TC_WAIT_PAUSE:
        tc_arch_pause();
        return 0;
#if TC_ARCH_HAVE_WFE
    case TC_WAIT_WFE:
        word = ops->watch(ops->arg, &old);
        (void)tc_arch_wfe_wait_u64_until(word, old, tc_arch_cntvct() + 100000);
        return 1;
#endif
#if TC_ARCH_HAVE_UMWAIT
    case TC_WAIT_UMWAIT:
        word = ops->watch(ops->arg, &old);
        (void)tc_arch_umwait_u64(word, old, tc_clock_ticks() + 200000);
        return 1;
#endif
#if TC_ARCH_HAVE_MWAITX
    case TC_WAIT_MWAITX:
        word = ops->watch(ops->arg, &old);
        (void)tc_arch_mwaitx_u64(word, old, 200000);
        return 1;
#endif
    case TC_WAIT_ADAPTIVE:
        if (state->spin_start_ns == 0) {
            state->spin_start_ns = tc_clock_mono_ns();
        }
        if (tc_clock_mono_ns() - state->spin_start_ns < spin_ns) {
            return 0;
        }
        return tc_wait_block(ops, state); /* spun long enough */
    case TC_WAIT_EVENT:
        return tc_wait_block(ops, state);
    default:
        (void)word;
        (void)old;
        return 0;
    }
}

#endif
