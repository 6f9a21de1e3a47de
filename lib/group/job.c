/*
 * Jobs: the processes one PMIx launcher started (Open MPI's mpirun, Slurm's
 * srun --mpi=pmix). Rank and size come from PMIx; every out-of-band step
 * (a pair's blob swap, gather, broadcast, barrier) is a PMIx put and commit,
 * a fence among the ranks taking part, then a get from the peer with a
 * refreshed cache. The fence only synchronises (no data collected): its
 * data would be every blob the ranks ever put, moved on every fence.
 *
 * A rank that died: the launcher's events where it sends them (PRRTE,
 * Slurm; Open MPI 4.1's mpirun kills the job instead), and for ranks on
 * this kernel a pidfd of the rank's process (opened once and checked
 * against the start time it published, so a reused pid is not mistaken
 * for it). Across hosts, UCX's endpoint errors and the wait timeout do it.
 * Every wait of a fence is bounded by the job's timeout and watches both.
 */
#define _GNU_SOURCE
#include "boot.h"
#include "log.h"
#include "runtime.h"

#include <stdlib.h>
#include <string.h>

int tc_job_launched(void)
{
    return (getenv("PMIX_NAMESPACE") != NULL) && (getenv("PMIX_RANK") != NULL);
}

#ifndef TC_HAVE_PMIX

tc_status_t tc_job_open(int timeout_ms, tc_job_t **job_p)
{
    (void)timeout_ms;
    (void)job_p;
    tc_error("job: unsupported: this libtwochains was built without PMIx "
             "(install libpmix-dev and rebuild)");
    return TC_ERR_UNSUPPORTED;
}

void tc_job_close(tc_job_t *job)
{
    (void)job;
}

void tc_job_set_worker(tc_job_t *job, ucp_worker_h worker)
{
    (void)job;
    (void)worker;
}

uint32_t tc_job_rank(const tc_job_t *job)
{
    (void)job;
    return 0;
}

uint32_t tc_job_size(const tc_job_t *job)
{
    (void)job;
    return 0;
}

const char *tc_job_host(const tc_job_t *job, uint32_t rank)
{
    (void)job;
    (void)rank;
    return "";
}

tc_status_t tc_job_boot(tc_job_t *job, uint32_t peer_rank, tc_boot_t **boot_p)
{
    (void)job;
    (void)peer_rank;
    (void)boot_p;
    return TC_ERR_UNSUPPORTED;
}

tc_status_t tc_job_barrier(tc_job_t *job)
{
    (void)job;
    return TC_ERR_UNSUPPORTED;
}

tc_status_t tc_job_barrier_within(tc_job_t *job, int timeout_ms, const char *what)
{
    (void)job;
    (void)timeout_ms;
    (void)what;
    return TC_ERR_UNSUPPORTED;
}

tc_status_t tc_job_gather(tc_job_t *job, const void *buf, size_t len, void **all_p)
{
    (void)job;
    (void)buf;
    (void)len;
    (void)all_p;
    return TC_ERR_UNSUPPORTED;
}

tc_status_t tc_job_bcast(tc_job_t *job, const void *buf, size_t len, void **out_p,
                         size_t *len_p)
{
    (void)job;
    (void)buf;
    (void)len;
    (void)out_p;
    (void)len_p;
    return TC_ERR_UNSUPPORTED;
}

tc_status_t tc_job_check(tc_job_t *job, uint32_t rank)
{
    (void)job;
    (void)rank;
    return TC_ERR_UNSUPPORTED;
}

#else /* TC_HAVE_PMIX */

#include <errno.h>
#include <fcntl.h>
#include <pmix.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define TC_JOB_KEY_ID "tc.id" /* each rank's identity, put once at open */
#define TC_JOB_GONE_GRACE_MS 2000 /* a fence may still complete after a rank left */

/* What a rank says of itself: enough to watch its process from this kernel
 * and to name its host. */
typedef struct tc_job_ident {
    char     host[64];
    char     boot_id[40];   /* /proc/sys/kernel/random/boot_id: same kernel */
    uint64_t pid_ns;        /* st_ino of /proc/self/ns/pid: same pid space */
    uint64_t start_ticks;   /* /proc/<pid>/stat field 22: not a reused pid */
    int32_t  pid;
    uint32_t rank;
} tc_job_ident_t;

/* A rank as this process knows it. */
typedef struct tc_job_rank_info {
    tc_job_ident_t ident;
    int            have_ident;
    int            pidfd;     /* -1: not on this kernel, or not opened yet */
    int            pidfd_tried;
    atomic_int     gone;      /* set by the launcher's event, or the pidfd */
} tc_job_rank_info_t;

struct tc_job {
    pmix_proc_t          me;
    uint32_t             rank;
    uint32_t             size;
    int                  timeout_ms;
    uint64_t             coll_seq;   /* gathers and broadcasts, in job order */
    tc_job_ident_t       my_ident;
    tc_job_rank_info_t  *ranks;
    size_t               evhdlr_ref;
    atomic_int           evhdlr_state; /* 0 pending, 1 registered, -1 failed */
    ucp_worker_h         worker;     /* progressed while a step waits, or NULL */
};

/* One rank pair's bootstrap end. */
typedef struct tc_job_boot {
    tc_boot_t  super;
    tc_job_t  *job;
    uint32_t   peer;
    uint64_t   seq;   /* exchanges so far: both ends count alike */
} tc_job_boot_t;

/* A fence in flight: the PMIx thread calls back when it completes, maybe
 * after its waiter gave up, so whoever drops the last reference frees it. */
typedef struct tc_job_fence_op {
    atomic_int    refs;
    atomic_int    done;
    pmix_status_t status;
} tc_job_fence_op_t;

static void tc_job_fence_op_put(tc_job_fence_op_t *op)
{
    if (atomic_fetch_sub(&op->refs, 1) == 1) {
        free(op);
    }
}

static void tc_job_fence_cb(pmix_status_t status, void *cbdata)
{
    tc_job_fence_op_t *op = cbdata;

    op->status = status;
    atomic_store(&op->done, 1);
    tc_job_fence_op_put(op);
}

static uint64_t tc_job_start_ticks(pid_t pid)
{
    char path[64], buf[1024], *p;
    unsigned long long ticks = 0;
    ssize_t n;
    int fd, field;

    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return 0;
    }
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0) {
        return 0;
    }
    buf[n] = '\0';
    p = strrchr(buf, ')'); /* the command name may hold spaces and ')' */
    if (p == NULL) {
        return 0;
    }
    /* after ") " comes field 3 (state); start time is field 22 */
    for (field = 2; (p != NULL) && (field < 22); ++field) {
        p = strchr(p + 1, ' ');
    }
    if ((p == NULL) || (sscanf(p + 1, "%llu", &ticks) != 1)) {
        return 0;
    }
    return ticks;
}

static void tc_job_ident_fill(tc_job_ident_t *id, uint32_t rank)
{
    struct stat st;
    ssize_t n;
    int fd;

    memset(id, 0, sizeof(*id));
    id->rank = rank;
    id->pid  = (int32_t)getpid();
    if (gethostname(id->host, sizeof(id->host) - 1) != 0) {
        snprintf(id->host, sizeof(id->host), "?");
    }
    fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        n = read(fd, id->boot_id, sizeof(id->boot_id) - 1);
        id->boot_id[(n > 0) ? n : 0] = '\0';
        close(fd);
    }
    if (stat("/proc/self/ns/pid", &st) == 0) {
        id->pid_ns = (uint64_t)st.st_ino;
    }
    id->start_ticks = tc_job_start_ticks(getpid());
}

/* The launcher says a process of the job ended: mark it, whatever the
 * event's shape (the source or an affected-proc entry names it). */
static void tc_job_event(size_t evhdlr_id, pmix_status_t status, const pmix_proc_t *source,
                         pmix_info_t info[], size_t ninfo, pmix_info_t *results,
                         size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                         void *cbdata)
{
    tc_job_t *job = NULL;
    pmix_rank_t rank = PMIX_RANK_UNDEF;
    size_t i;

    (void)evhdlr_id;
    (void)status;
    (void)results;
    (void)nresults;
    for (i = 0; i < ninfo; ++i) {
        if (!strcmp(info[i].key, PMIX_EVENT_RETURN_OBJECT) &&
            (info[i].value.type == PMIX_POINTER)) {
            job = info[i].value.data.ptr;
        } else if (!strcmp(info[i].key, PMIX_EVENT_AFFECTED_PROC) &&
                   (info[i].value.type == PMIX_PROC) && (info[i].value.data.proc != NULL)) {
            rank = info[i].value.data.proc->rank;
        }
    }
    if ((rank == PMIX_RANK_UNDEF) && (source != NULL)) {
        rank = source->rank;
    }
    if ((job != NULL) && (rank < job->size)) {
        atomic_store(&job->ranks[rank].gone, 1);
    }
    if (cbfunc != NULL) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

static void tc_job_event_registered(pmix_status_t status, size_t ref, void *cbdata)
{
    tc_job_t *job = cbdata;

    job->evhdlr_ref = ref;
    atomic_store(&job->evhdlr_state, (status == PMIX_SUCCESS) ? 1 : -1);
}

/* Reads rank's identity (put at its open, before the opening fence). */
static tc_job_rank_info_t *tc_job_info(tc_job_t *job, uint32_t rank)
{
    tc_job_rank_info_t *ri = &job->ranks[rank];
    pmix_value_t *val = NULL;
    pmix_proc_t proc;

    if (!ri->have_ident) {
        PMIX_LOAD_PROCID(&proc, job->me.nspace, rank);
        if ((PMIx_Get(&proc, TC_JOB_KEY_ID, NULL, 0, &val) == PMIX_SUCCESS) &&
            (val->type == PMIX_BYTE_OBJECT) && (val->data.bo.size == sizeof(ri->ident))) {
            memcpy(&ri->ident, val->data.bo.bytes, sizeof(ri->ident));
            ri->ident.host[sizeof(ri->ident.host) - 1]       = '\0';
            ri->ident.boot_id[sizeof(ri->ident.boot_id) - 1] = '\0';
            ri->have_ident = 1;
        } else {
            snprintf(ri->ident.host, sizeof(ri->ident.host), "?");
        }
        if (val != NULL) {
            PMIX_VALUE_RELEASE(val);
        }
    }
    if (ri->have_ident && !ri->pidfd_tried && (rank != job->rank)) {
        ri->pidfd_tried = 1;
        if ((ri->ident.boot_id[0] != '\0') &&
            !strcmp(ri->ident.boot_id, job->my_ident.boot_id) &&
            (ri->ident.pid_ns == job->my_ident.pid_ns)) {
            int fd = (int)syscall(SYS_pidfd_open, (pid_t)ri->ident.pid, 0);

            if ((fd >= 0) && (tc_job_start_ticks(ri->ident.pid) != ri->ident.start_ticks)) {
                close(fd); /* that pid is somebody else now: the rank is gone */
                fd = -1;
                atomic_store(&ri->gone, 1);
            } else if ((fd < 0) && (errno == ESRCH)) {
                atomic_store(&ri->gone, 1);
            }
            ri->pidfd = fd;
        }
    }
    return ri;
}

/* TC_OK while rank lives as far as this process can tell; quiet. */
static tc_status_t tc_job_rank_quiet_alive(tc_job_t *job, uint32_t rank)
{
    tc_job_rank_info_t *ri = tc_job_info(job, rank);
    struct pollfd pfd;

    if (!atomic_load(&ri->gone) && (ri->pidfd >= 0)) {
        pfd.fd      = ri->pidfd;
        pfd.events  = POLLIN;
        pfd.revents = 0;
        if ((poll(&pfd, 1, 0) > 0) && (pfd.revents & (POLLIN | POLLHUP))) {
            atomic_store(&ri->gone, 1);
        }
    }
    return atomic_load(&ri->gone) ? TC_ERR_PEER_FAILED : TC_OK;
}

/* The same, and a rank found gone is logged once. */
static tc_status_t tc_job_rank_alive(tc_job_t *job, uint32_t rank)
{
    tc_job_rank_info_t *ri = tc_job_info(job, rank);

    (void)tc_job_rank_quiet_alive(job, rank);
    if (atomic_load(&ri->gone) == 1) {
        atomic_store(&ri->gone, 2); /* reported */
        tc_error("job: rank %u (pid %d on %s) is gone", rank, (int)ri->ident.pid,
                 ri->ident.host);
    }
    return atomic_load(&ri->gone) ? TC_ERR_PEER_FAILED : TC_OK;
}

/* Fence among procs (NULL: the whole job), bounded by the job's timeout
 * and given up as soon as one of the ranks taking part is gone. */
static tc_status_t tc_job_fence(tc_job_t *job, const uint32_t *ranks, size_t n,
                                const char *what, int timeout_ms)
{
    uint64_t deadline = tc_boot_deadline(timeout_ms);
    struct timespec nap = {0, 20000};
    pmix_proc_t procs[2];
    tc_job_fence_op_t *op;
    pmix_status_t rc;
    uint64_t gone_at = 0;
    uint32_t r, gone = 0;
    size_t i;

    op = calloc(1, sizeof(*op));
    if (op == NULL) {
        return TC_ERR_NO_MEMORY;
    }
    atomic_init(&op->refs, 2);
    for (i = 0; (ranks != NULL) && (i < n); ++i) {
        PMIX_LOAD_PROCID(&procs[i], job->me.nspace, ranks[i]);
    }
    rc = PMIx_Fence_nb((ranks != NULL) ? procs : NULL, (ranks != NULL) ? n : 0, NULL, 0,
                       tc_job_fence_cb, op);
    if (rc != PMIX_SUCCESS) {
        free(op);
        tc_error("job: rank %u: fence for %s: %s", job->rank, what, PMIx_Error_string(rc));
        return TC_ERR_IO;
    }
    while (!atomic_load(&op->done)) {
        for (i = 0; (gone_at == 0) && (i < ((ranks != NULL) ? n : job->size)); ++i) {
            r = (ranks != NULL) ? ranks[i] : (uint32_t)i;
            if ((r != job->rank) && (tc_job_rank_quiet_alive(job, r) != TC_OK)) {
                gone      = r;
                gone_at   = tc_boot_deadline(TC_JOB_GONE_GRACE_MS);
            }
        }
        /* a rank that got the fence's completion first may have exited
         * already: gone is an error only if the fence does not complete */
        if ((gone_at != 0) && (tc_boot_time_left_ms(gone_at) <= 0)) {
            (void)tc_job_rank_alive(job, gone);
            tc_error("job: rank %u: %s: rank %u left the job", job->rank, what, gone);
            tc_job_fence_op_put(op);
            return TC_ERR_PEER_FAILED;
        }
        if (tc_boot_time_left_ms(deadline) <= 0) {
            tc_error("job: rank %u: %s: not every rank got there within %d ms", job->rank,
                     what, timeout_ms);
            tc_job_fence_op_put(op);
            return TC_ERR_TIMEOUT;
        }
        if (job->worker != NULL) {
            /* peers already connected may be setting up their endpoints to us
             * (wireup over tcp needs both workers to progress) */
            ucp_worker_progress(job->worker);
        }
        nanosleep(&nap, NULL);
        /* back off to 2 ms: more ranks than cores, and the launcher's own
         * daemons need the cores to complete the fence */
        if (nap.tv_nsec < 2000000) {
            nap.tv_nsec *= 2;
        }
    }
    rc = op->status;
    tc_job_fence_op_put(op);
    if (rc != PMIX_SUCCESS) {
        tc_error("job: rank %u: fence for %s failed: %s", job->rank, what,
                 PMIx_Error_string(rc));
        return TC_ERR_IO;
    }
    return TC_OK;
}

static tc_status_t tc_job_put(tc_job_t *job, const char *key, const void *buf, size_t len)
{
    pmix_value_t val;
    pmix_status_t rc;

    memset(&val, 0, sizeof(val));
    val.type          = PMIX_BYTE_OBJECT;
    val.data.bo.bytes = (char *)buf;
    val.data.bo.size  = len;
    rc                = PMIx_Put(PMIX_GLOBAL, key, &val);
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Commit();
    }
    if (rc != PMIX_SUCCESS) {
        tc_error("job: rank %u: cannot publish %s: %s", job->rank, key, PMIx_Error_string(rc));
        return TC_ERR_IO;
    }
    return TC_OK;
}

/* rank's value of key, which it committed before a fence we both passed;
 * a malloc'd copy (one spare byte), caller frees. */
static tc_status_t tc_job_get(tc_job_t *job, uint32_t rank, const char *key, void **buf_p,
                              size_t *len_p)
{
    uint64_t deadline = tc_boot_deadline(job->timeout_ms);
    struct timespec nap = {0, 1000000};
    pmix_value_t *val = NULL;
    pmix_info_t info[2];
    pmix_proc_t proc;
    pmix_status_t rc;
    int timeout_s = (job->timeout_ms + 999) / 1000;
    bool refresh = true;
    void *buf;

    PMIX_LOAD_PROCID(&proc, job->me.nspace, rank);
    PMIX_INFO_LOAD(&info[0], PMIX_TIMEOUT, &timeout_s, PMIX_INT);
    PMIX_INFO_LOAD(&info[1], PMIX_GET_REFRESH_CACHE, &refresh, PMIX_BOOL);
    for (;;) {
        rc = PMIx_Get(&proc, key, info, 2, &val);
        if ((rc != PMIX_ERR_NOT_FOUND) || (tc_boot_time_left_ms(deadline) <= 0) ||
            (tc_job_rank_alive(job, rank) != TC_OK)) {
            break;
        }
        nanosleep(&nap, NULL); /* its commit is still on the way */
    }
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    if ((rc != PMIX_SUCCESS) || (val == NULL) || (val->type != PMIX_BYTE_OBJECT) ||
        (val->data.bo.size > TC_BOOT_MAX_BLOB)) {
        tc_error("job: rank %u: no %s from rank %u: %s", job->rank, key, rank,
                 (rc != PMIX_SUCCESS) ? PMIx_Error_string(rc) : "not a byte object");
        if (val != NULL) {
            PMIX_VALUE_RELEASE(val);
        }
        return (rc == PMIX_SUCCESS) ? TC_ERR_PROTOCOL : TC_ERR_PEER_FAILED;
    }
    buf = malloc(val->data.bo.size + 1);
    if (buf == NULL) {
        PMIX_VALUE_RELEASE(val);
        return TC_ERR_NO_MEMORY;
    }
    if (val->data.bo.size > 0) {
        memcpy(buf, val->data.bo.bytes, val->data.bo.size);
    }
    *len_p = val->data.bo.size;
    *buf_p = buf;
    PMIX_VALUE_RELEASE(val);
    return TC_OK;
}

tc_status_t tc_job_open(int timeout_ms, tc_job_t **job_p)
{
    pmix_status_t codes[] = {PMIX_ERR_PROC_ABORTED, PMIX_ERR_PROC_ABORTING,
                             PMIX_EVENT_PROC_TERMINATED, PMIX_ERR_PROC_TERM_WO_SYNC};
    struct timespec nap = {0, 1000000};
    pmix_value_t *val = NULL;
    pmix_info_t ev_info;
    pmix_proc_t wild;
    pmix_status_t rc;
    tc_status_t status;
    tc_job_t *job;
    uint32_t r;
    int i;

    if (!tc_job_launched()) {
        tc_error("job: unsupported: no PMIx launcher started this process (PMIX_NAMESPACE "
                 "and PMIX_RANK unset: run it under mpirun or srun --mpi=pmix)");
        return TC_ERR_UNSUPPORTED;
    }
    job = calloc(1, sizeof(*job));
    if (job == NULL) {
        return TC_ERR_NO_MEMORY;
    }
    job->timeout_ms = (timeout_ms > 0) ? timeout_ms : 10000;
    rc              = PMIx_Init(&job->me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        tc_error("job: PMIx_Init: %s (is the launcher's PMIx server reachable?)",
                 PMIx_Error_string(rc));
        free(job);
        return TC_ERR_IO;
    }
    job->rank = job->me.rank;
    PMIX_LOAD_PROCID(&wild, job->me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val);
    if ((rc != PMIX_SUCCESS) || (val->type != PMIX_UINT32) || (val->data.uint32 == 0) ||
        (job->rank >= val->data.uint32)) {
        tc_error("job: rank %u: the launcher gives no job size (%s)", job->rank,
                 PMIx_Error_string(rc));
        status = TC_ERR_PROTOCOL;
        goto err_finalize;
    }
    job->size = val->data.uint32;
    PMIX_VALUE_RELEASE(val);
    job->ranks = calloc(job->size, sizeof(*job->ranks));
    if (job->ranks == NULL) {
        status = TC_ERR_NO_MEMORY;
        goto err_finalize;
    }
    for (r = 0; r < job->size; ++r) {
        job->ranks[r].pidfd = -1;
    }
    /* the event handler finds the job through its return object */
    PMIX_INFO_LOAD(&ev_info, PMIX_EVENT_RETURN_OBJECT, job, PMIX_POINTER);
    PMIx_Register_event_handler(codes, TC_ARRAY_SIZE(codes), &ev_info, 1, tc_job_event,
                                tc_job_event_registered, job);
    for (i = 0; (i < 1000) && (atomic_load(&job->evhdlr_state) == 0); ++i) {
        nanosleep(&nap, NULL);
    }
    if (atomic_load(&job->evhdlr_state) != 1) {
        tc_debug("job: rank %u: no process-end events from this launcher", job->rank);
    }
    tc_job_ident_fill(&job->my_ident, job->rank);
    job->ranks[job->rank].ident      = job->my_ident;
    job->ranks[job->rank].have_ident = 1;
    status = tc_job_put(job, TC_JOB_KEY_ID, &job->my_ident, sizeof(job->my_ident));
    if (status == TC_OK) {
        status = tc_job_fence(job, NULL, 0, "the job's start", job->timeout_ms);
    }
    if (status != TC_OK) {
        goto err_free;
    }
    tc_debug("job: rank %u of %u in %s on %s", job->rank, job->size, job->me.nspace,
             job->my_ident.host);
    *job_p = job;
    return TC_OK;

err_free:
    tc_job_close(job);
    return status;
err_finalize:
    if (val != NULL) {
        PMIX_VALUE_RELEASE(val);
    }
    PMIx_Finalize(NULL, 0);
    free(job);
    return status;
}

void tc_job_close(tc_job_t *job)
{
    uint32_t r;

    if (job == NULL) {
        return;
    }
    if (atomic_load(&job->evhdlr_state) == 1) {
        PMIx_Deregister_event_handler(job->evhdlr_ref, NULL, NULL);
    }
    PMIx_Finalize(NULL, 0);
    for (r = 0; r < job->size; ++r) {
        if (job->ranks[r].pidfd >= 0) {
            close(job->ranks[r].pidfd);
        }
    }
    free(job->ranks);
    free(job);
}

void tc_job_set_worker(tc_job_t *job, ucp_worker_h worker)
{
    job->worker = worker;
}

uint32_t tc_job_rank(const tc_job_t *job)
{
    return job->rank;
}

uint32_t tc_job_size(const tc_job_t *job)
{
    return job->size;
}

const char *tc_job_host(const tc_job_t *job, uint32_t rank)
{
    if (rank >= job->size) {
        return "";
    }
    return tc_job_info((tc_job_t *)job, rank)->ident.host;
}

tc_status_t tc_job_check(tc_job_t *job, uint32_t rank)
{
    if (rank >= job->size) {
        return TC_ERR_INVALID_PARAM;
    }
    return (rank == job->rank) ? TC_OK : tc_job_rank_alive(job, rank);
}

/* ------------------------------------------------------- pair bootstrap */

static tc_status_t tc_job_boot_exchange(tc_boot_t *boot, const void *buf, size_t len,
                                        void **peer_buf_p, size_t *peer_len_p)
{
    tc_job_boot_t *jb = (tc_job_boot_t *)boot;
    tc_job_t *job = jb->job;
    uint32_t pair[2];
    tc_status_t status;
    char key[64], what[160];

    if (len > TC_BOOT_MAX_BLOB) {
        return TC_ERR_INVALID_PARAM;
    }
    snprintf(key, sizeof(key), "tc.p.%u.%u.%llu", job->rank, jb->peer,
             (unsigned long long)jb->seq);
    status = tc_job_put(job, key, buf, len);
    if (status != TC_OK) {
        return status;
    }
    pair[0] = (job->rank < jb->peer) ? job->rank : jb->peer;
    pair[1] = (job->rank < jb->peer) ? jb->peer : job->rank;
    snprintf(what, sizeof(what), "exchange %llu with %s", (unsigned long long)jb->seq,
             boot->peer_name);
    status = tc_job_fence(job, pair, 2, what, boot->timeout_ms);
    if (status == TC_OK) {
        snprintf(key, sizeof(key), "tc.p.%u.%u.%llu", jb->peer, job->rank,
                 (unsigned long long)jb->seq);
        status = tc_job_get(job, jb->peer, key, peer_buf_p, peer_len_p);
    }
    ++jb->seq;
    return status;
}

static tc_status_t tc_job_boot_check_peer(tc_boot_t *boot)
{
    tc_job_boot_t *jb = (tc_job_boot_t *)boot;

    return tc_job_rank_alive(jb->job, jb->peer);
}

static void tc_job_boot_close(tc_boot_t *boot)
{
    free(boot);
}

static const tc_boot_ops_t tc_job_boot_ops = {
    .name       = "pmix",
    .exchange   = tc_job_boot_exchange,
    .check_peer = tc_job_boot_check_peer,
    .close      = tc_job_boot_close,
};

tc_status_t tc_job_boot(tc_job_t *job, uint32_t peer_rank, tc_boot_t **boot_p)
{
    tc_job_boot_t *jb;

    if ((peer_rank >= job->size) || (peer_rank == job->rank)) {
        tc_error("job: rank %u: no pair with rank %u (job of %u)", job->rank, peer_rank,
                 job->size);
        return TC_ERR_INVALID_PARAM;
    }
    jb = calloc(1, sizeof(*jb));
    if (jb == NULL) {
        return TC_ERR_NO_MEMORY;
    }
    jb->super.ops        = &tc_job_boot_ops;
    jb->super.rank       = (job->rank < peer_rank) ? 0 : 1; /* the lower rank serves */
    jb->super.size       = 2;
    jb->super.timeout_ms = job->timeout_ms;
    jb->job              = job;
    jb->peer             = peer_rank;
    snprintf(jb->super.peer_name, sizeof(jb->super.peer_name), "rank %u on %s", peer_rank,
             tc_job_host(job, peer_rank));
    *boot_p = &jb->super;
    return TC_OK;
}

/* ---------------------------------------------------------- collectives */

tc_status_t tc_job_barrier(tc_job_t *job)
{
    return tc_job_fence(job, NULL, 0, "a barrier", job->timeout_ms);
}

tc_status_t tc_job_barrier_within(tc_job_t *job, int timeout_ms, const char *what)
{
    return tc_job_fence(job, NULL, 0, what, timeout_ms);
}

tc_status_t tc_job_gather(tc_job_t *job, const void *buf, size_t len, void **all_p)
{
    uint64_t seq = job->coll_seq++;
    tc_status_t status;
    uint8_t *all = NULL;
    char key[48];
    size_t got;
    void *one;
    uint32_t r;

    snprintf(key, sizeof(key), "tc.g.%llu", (unsigned long long)seq);
    status = tc_job_put(job, key, buf, len);
    if (status == TC_OK) {
        status = tc_job_fence(job, NULL, 0, "a gather", job->timeout_ms);
    }
    if (status != TC_OK) {
        return status;
    }
    *all_p = NULL;
    if (job->rank != 0) {
        return TC_OK;
    }
    all = malloc(job->size * len + 1);
    if (all == NULL) {
        return TC_ERR_NO_MEMORY;
    }
    memcpy(all, buf, len);
    for (r = 1; (r < job->size) && (status == TC_OK); ++r) {
        status = tc_job_get(job, r, key, &one, &got);
        if ((status == TC_OK) && (got != len)) {
            tc_error("job: gather: rank %u sent %zu bytes, expected %zu", r, got, len);
            status = TC_ERR_PROTOCOL;
        }
        if (status == TC_OK) {
            memcpy(all + r * len, one, len);
            free(one);
        }
    }
    if (status != TC_OK) {
        free(all);
        return status;
    }
    *all_p = all;
    return TC_OK;
}

tc_status_t tc_job_bcast(tc_job_t *job, const void *buf, size_t len, void **out_p,
                         size_t *len_p)
{
    uint64_t seq = job->coll_seq++;
    tc_status_t status = TC_OK;
    void *copy = NULL;
    size_t got = len;
    char key[48];

    snprintf(key, sizeof(key), "tc.b.%llu", (unsigned long long)seq);
    if (job->rank == 0) {
        status = tc_job_put(job, key, buf, len);
    }
    if (status == TC_OK) {
        status = tc_job_fence(job, NULL, 0, "a broadcast", job->timeout_ms);
    }
    if (status != TC_OK) {
        return status;
    }
    if (job->rank != 0) {
        status = tc_job_get(job, 0, key, &copy, &got);
    } else {
        copy = malloc(len + 1);
        if (copy == NULL) {
            status = TC_ERR_NO_MEMORY;
        } else if (len > 0) {
            memcpy(copy, buf, len);
        }
    }
    if (status != TC_OK) {
        return status;
    }
    tc_boot_hand_out(copy, got, out_p, len_p);
    return TC_OK;
}

#endif /* TC_HAVE_PMIX */
