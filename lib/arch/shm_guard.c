/*
 * The SIGBUS guard (lib/arch/shm_guard.h). The library's one process-wide
 * state, by necessity: a signal handler finds nothing but globals. The
 * handler touches only lock-free atomics and makes only system calls
 * (mmap, sigaction, raise): async-signal-safe. Adding and removing take a
 * mutex among themselves; a handler running meanwhile is waited out by
 * the remove (each entry counts the handlers inside it), so a range is
 * never mapped over once its owner has let it go.
 */
#define _GNU_SOURCE
#include "shm_guard.h"
#include "log.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { TC_GUARD_FREE = 0, TC_GUARD_ACTIVE = 1 };

typedef struct tc_guard_entry {
    atomic_int       state;
    atomic_int       inside;  /* handlers reading this entry now */
    atomic_int       hit;
    atomic_uintptr_t start, end, fault;
} tc_guard_entry_t;

static tc_guard_entry_t tc_guard_entries[TC_SHM_GUARD_MAX];
static atomic_int       tc_guard_used; /* entries [0, used) may be active */
static pthread_mutex_t  tc_guard_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction tc_guard_prev;
/* a handler installed over ours that passes faults back to ours, to which
 * ours passes them again: the second pass in a thread takes the default */
static __thread int tc_guard_chaining __attribute__((tls_model("initial-exec")));

/* A fault that is not ours: as if the guard were not there. */
static void tc_guard_chain(int sig, siginfo_t *info, void *uc)
{
    struct sigaction dfl;

    if (!tc_guard_chaining && (tc_guard_prev.sa_flags & SA_SIGINFO) &&
        (tc_guard_prev.sa_sigaction != NULL)) {
        tc_guard_chaining = 1;
        tc_guard_prev.sa_sigaction(sig, info, uc);
        tc_guard_chaining = 0;
        return;
    }
    if (!tc_guard_chaining && !(tc_guard_prev.sa_flags & SA_SIGINFO) &&
        (tc_guard_prev.sa_handler != SIG_DFL) && (tc_guard_prev.sa_handler != SIG_IGN)) {
        tc_guard_chaining = 1;
        tc_guard_prev.sa_handler(sig);
        tc_guard_chaining = 0;
        return;
    }
    /* the default action: the access faults again on return (a signal
     * someone sent is sent again) and the process ends as it would have */
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGBUS, &dfl, NULL);
    if (info->si_code <= 0) {
        raise(SIGBUS);
    }
}

static void tc_guard_handler(int sig, siginfo_t *info, void *uc)
{
    uintptr_t addr = (uintptr_t)info->si_addr, start, end, none = 0;
    int saved = errno, used = atomic_load(&tc_guard_used), active, i;

    for (i = 0; (info->si_code > 0) && (i < used); ++i) {
        tc_guard_entry_t *e = &tc_guard_entries[i];

        /* counted in before the state is read (a remove waits for it);
         * the state before the bounds (an add writes them before it) */
        atomic_fetch_add(&e->inside, 1);
        active = (atomic_load(&e->state) == TC_GUARD_ACTIVE);
        start  = atomic_load(&e->start);
        end    = atomic_load(&e->end);
        if (active && (addr >= start) && (addr < end) &&
            (mmap((void *)start, end - start, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED)) {
            atomic_compare_exchange_strong(&e->fault, &none, addr);
            atomic_store(&e->hit, 1);
            atomic_fetch_sub(&e->inside, 1);
            errno = saved;
            return; /* the access runs again, into the anonymous pages */
        }
        atomic_fetch_sub(&e->inside, 1);
    }
    errno = saved;
    tc_guard_chain(sig, info, uc);
}

/* Under the lock: ours, over whatever handles SIGBUS now. A handler
 * installed after ours (a test framework's, an application's) would take
 * the peers' faults: each range added puts ours back on top, chaining to
 * it. */
static tc_status_t tc_guard_install(void)
{
    struct sigaction sa, now;

    if (sigaction(SIGBUS, NULL, &now) != 0) {
        tc_error("shared-memory guard: sigaction(SIGBUS): %m");
        return TC_ERR_IO;
    }
    if ((now.sa_flags & SA_SIGINFO) && (now.sa_sigaction == tc_guard_handler)) {
        return TC_OK;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = tc_guard_handler;
    sa.sa_flags     = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    /* the handler may run before sigaction returns: prev is set first */
    tc_guard_prev = now;
    if (sigaction(SIGBUS, &sa, NULL) != 0) {
        tc_error("shared-memory guard: sigaction(SIGBUS): %m");
        return TC_ERR_IO;
    }
    return TC_OK;
}

tc_status_t tc_shm_guard_add(uintptr_t start, size_t len, int *id_p)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    tc_status_t status;
    int i;

    if ((len == 0) || (start % page) || (len % page) || (start + len < start)) {
        return TC_ERR_INVALID_PARAM;
    }
    pthread_mutex_lock(&tc_guard_lock);
    status = tc_guard_install();
    if (status != TC_OK) {
        goto out;
    }
    status = TC_ERR_NO_RESOURCE;
    for (i = 0; i < TC_SHM_GUARD_MAX; ++i) {
        tc_guard_entry_t *e = &tc_guard_entries[i];

        if (atomic_load(&e->state) != TC_GUARD_FREE) {
            continue;
        }
        atomic_store(&e->start, start);
        atomic_store(&e->end, start + len);
        atomic_store(&e->fault, 0);
        atomic_store(&e->hit, 0);
        atomic_store(&e->state, TC_GUARD_ACTIVE); /* published last */
        if (i >= atomic_load(&tc_guard_used)) {
            atomic_store(&tc_guard_used, i + 1);
        }
        *id_p  = i;
        status = TC_OK;
        break;
    }
out:
    pthread_mutex_unlock(&tc_guard_lock);
    return status;
}

void tc_shm_guard_remove(int id)
{
    tc_guard_entry_t *e;

    if ((id < 0) || (id >= TC_SHM_GUARD_MAX)) {
        return;
    }
    e = &tc_guard_entries[id];
    pthread_mutex_lock(&tc_guard_lock);
    atomic_store(&e->state, TC_GUARD_FREE);
    /* a handler that saw the entry active finishes before the range is
     * let go (seq_cst: it counted itself in before it read the state) */
    while (atomic_load(&e->inside) != 0) {
        sched_yield();
    }
    pthread_mutex_unlock(&tc_guard_lock);
}

int tc_shm_guard_hit(int id)
{
    return (id >= 0) && (id < TC_SHM_GUARD_MAX) && atomic_load(&tc_guard_entries[id].hit);
}

uintptr_t tc_shm_guard_fault_addr(int id)
{
    return ((id >= 0) && (id < TC_SHM_GUARD_MAX)) ? atomic_load(&tc_guard_entries[id].fault) : 0;
}
