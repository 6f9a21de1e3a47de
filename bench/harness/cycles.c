/*
 * Cycle accounting: a perf_event group where the PMU is there, thread CPU
 * time + TSC + poll count where it is not. See cycles.h.
 */
#define _GNU_SOURCE

#include "cycles.h"
#include "clock.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define TC_CYCLES_NEVENTS   3
#define TC_CYCLES_REASON    256

enum { TC_EV_CYCLES = 0, TC_EV_INSTRUCTIONS = 1, TC_EV_REF_CYCLES = 2 };

static const struct {
    uint64_t    config;
    const char *name;
} tc_cycles_events[TC_CYCLES_NEVENTS] = {
    [TC_EV_CYCLES]       = { PERF_COUNT_HW_CPU_CYCLES,     "cycles" },
    [TC_EV_INSTRUCTIONS] = { PERF_COUNT_HW_INSTRUCTIONS,   "instructions" },
    [TC_EV_REF_CYCLES]   = { PERF_COUNT_HW_REF_CPU_CYCLES, "ref-cycles" },
};

/* One read of the group (PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED/RUNNING),
 * with the values put back in event order (-1 slots stay 0). */
typedef struct tc_cycles_raw {
    uint64_t enabled, running;
    uint64_t value[TC_CYCLES_NEVENTS];
} tc_cycles_raw_t;

/* Everything sampled at one edge of the window. */
typedef struct tc_cycles_point {
    tc_cycles_raw_t pmu;
    uint64_t        cpu_ns, ticks, mono_ns;
} tc_cycles_point_t;

struct tc_cycles {
    uint64_t          polls;           /* first: the hot field */
    clockid_t         cpu_clock;       /* the opening thread's CPU-time clock */
    int               fd[TC_CYCLES_NEVENTS]; /* -1: not opened */
    int               n_open;          /* events in the group, in fd order */
    int               slot[TC_CYCLES_NEVENTS]; /* event -> position in group read */
    int               kernel_counted;
    int               started, running;
    uint64_t          polls_at_stop;
    tc_cycles_point_t begin, end;
    char              status[TC_CYCLES_REASON];
};

static long tc_cycles_perf_open(struct perf_event_attr *attr, int group_fd)
{
    /* pid 0, cpu -1: the calling thread, wherever it runs. */
    return syscall(SYS_perf_event_open, attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

static int tc_cycles_paranoid(void)
{
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    int   v = -100;

    if (f != NULL) {
        if (fscanf(f, "%d", &v) != 1) {
            v = -100;
        }
        fclose(f);
    }
    return v;
}

/* "unsupported: perf_event_open(<event>): <strerror>[ (perf_event_paranoid=N)]" */
static void tc_cycles_reason(char *buf, size_t len, const char *event, int err)
{
    int paranoid;

    if (buf == NULL || len == 0) {
        return;
    }
    if (err == EACCES || err == EPERM) {
        paranoid = tc_cycles_paranoid();
        if (paranoid != -100) {
            snprintf(buf, len, "unsupported: perf_event_open(%s): %s "
                     "(/proc/sys/kernel/perf_event_paranoid=%d)", event,
                     strerror(err), paranoid);
        } else {
            snprintf(buf, len, "unsupported: perf_event_open(%s): %s "
                     "(/proc/sys/kernel/perf_event_paranoid unreadable)", event,
                     strerror(err));
        }
        return;
    }
    if (err == ENOSYS) {
        snprintf(buf, len, "unsupported: perf_event_open(%s): %s (kernel without "
                 "CONFIG_PERF_EVENTS, or an emulator)", event, strerror(err));
        return;
    }
    snprintf(buf, len, "unsupported: perf_event_open(%s): %s", event, strerror(err));
}

static void tc_cycles_close_fds(int *fd)
{
    int i;

    for (i = 0; i < TC_CYCLES_NEVENTS; ++i) {
        if (fd[i] >= 0) {
            close(fd[i]);
            fd[i] = -1;
        }
    }
}

/*
 * Open the group on the calling thread. cycles and instructions are required;
 * ref-cycles is optional (Arm PMUs have no such event). Returns 0 and fills
 * fd[] (ref-cycles may stay -1), or an errno and the event that failed.
 */
static int tc_cycles_open_group(int exclude_kernel, int *fd, const char **failed_p)
{
    struct perf_event_attr attr;
    int                    i, err;
    long                   r;

    for (i = 0; i < TC_CYCLES_NEVENTS; ++i) {
        fd[i] = -1;
    }
    for (i = 0; i < TC_CYCLES_NEVENTS; ++i) {
        memset(&attr, 0, sizeof(attr));
        attr.size           = sizeof(attr);
        attr.type           = PERF_TYPE_HARDWARE;
        attr.config         = tc_cycles_events[i].config;
        attr.read_format    = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                              PERF_FORMAT_TOTAL_TIME_RUNNING;
        attr.disabled       = (i == TC_EV_CYCLES); /* the leader gates the group */
        attr.exclude_kernel = (unsigned)(exclude_kernel != 0);
        attr.exclude_hv     = 1;
        r = tc_cycles_perf_open(&attr, i == TC_EV_CYCLES ? -1 : fd[TC_EV_CYCLES]);
        if (r < 0) {
            err = errno;
            if (i == TC_EV_REF_CYCLES && fd[TC_EV_CYCLES] >= 0) {
                return 0; /* optional: keep cycles + instructions */
            }
            tc_cycles_close_fds(fd);
            *failed_p = tc_cycles_events[i].name;
            return err;
        }
        fd[i] = (int)r;
    }
    return 0;
}

/* Read the group into raw, in event order. */
static int tc_cycles_read_group(const tc_cycles_t *c, tc_cycles_raw_t *raw)
{
    uint64_t buf[3 + TC_CYCLES_NEVENTS];
    ssize_t  n;
    int      i;

    memset(raw, 0, sizeof(*raw));
    n = read(c->fd[TC_EV_CYCLES], buf, sizeof(buf));
    if (n < (ssize_t)(3 * sizeof(uint64_t)) || buf[0] != (uint64_t)c->n_open ||
        n < (ssize_t)((3 + buf[0]) * sizeof(uint64_t))) {
        return -1;
    }
    raw->enabled = buf[1];
    raw->running = buf[2];
    for (i = 0; i < TC_CYCLES_NEVENTS; ++i) {
        if (c->slot[i] >= 0) {
            raw->value[i] = buf[3 + c->slot[i]];
        }
    }
    return 0;
}

/* With c == NULL: probe only. Otherwise leave the group open in c. */
static int tc_cycles_try_pmu(tc_cycles_t *c, char *why, size_t len)
{
    int         fd[TC_CYCLES_NEVENTS];
    const char *failed = "cycles";
    int         err, i, n, kernel = 1;

    err = tc_cycles_open_group(0, fd, &failed);
    if (err == EACCES || err == EPERM) {
        /* paranoid >= 2 forbids kernel counting for unprivileged users. */
        const char *failed_user = "cycles";
        int         err_user    = tc_cycles_open_group(1, fd, &failed_user);

        if (err_user == 0) {
            err    = 0;
            kernel = 0;
        }
    }
    if (err != 0) {
        tc_cycles_reason(why, len, failed, err);
        return -1;
    }

    if (c == NULL) {
        /* A probe: the group must also enable and read. */
        tc_cycles_t     probe;
        tc_cycles_raw_t raw;
        int             ok;

        memset(&probe, 0, sizeof(probe));
        for (i = 0, n = 0; i < TC_CYCLES_NEVENTS; ++i) {
            probe.fd[i]   = fd[i];
            probe.slot[i] = fd[i] >= 0 ? n++ : -1;
        }
        probe.n_open = n;
        errno = 0;
        ok    = ioctl(fd[TC_EV_CYCLES], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) == 0 &&
                tc_cycles_read_group(&probe, &raw) == 0;
        err   = errno;
        tc_cycles_close_fds(fd);
        if (why != NULL && len > 0) {
            if (ok) {
                snprintf(why, len, "supported");
            } else {
                snprintf(why, len, "unsupported: perf_event group enable/read failed: %s",
                         err != 0 ? strerror(err) : "short read");
            }
        }
        return ok ? 0 : -1;
    }

    for (i = 0, n = 0; i < TC_CYCLES_NEVENTS; ++i) {
        c->fd[i]   = fd[i];
        c->slot[i] = fd[i] >= 0 ? n++ : -1;
    }
    c->n_open         = n;
    c->kernel_counted = kernel;
    snprintf(c->status, sizeof(c->status), "supported");
    return 0;
}

tc_status_t tc_cycles_probe(char *why, size_t len)
{
    return tc_cycles_try_pmu(NULL, why, len) == 0 ? TC_OK : TC_ERR_UNSUPPORTED;
}

tc_status_t tc_cycles_open_flags(unsigned flags, tc_cycles_t **cycles_p)
{
    tc_cycles_t *c;
    int          i, rc;

    if (cycles_p == NULL) {
        return TC_ERR_INVALID_PARAM;
    }
    c = calloc(1, sizeof(*c));
    if (c == NULL) {
        return TC_ERR_NO_MEMORY;
    }
    for (i = 0; i < TC_CYCLES_NEVENTS; ++i) {
        c->fd[i]   = -1;
        c->slot[i] = -1;
    }
    rc = pthread_getcpuclockid(pthread_self(), &c->cpu_clock);
    if (rc != 0) {
        tc_error("cycles: pthread_getcpuclockid: %s", strerror(rc));
        free(c);
        return TC_ERR_UNSUPPORTED;
    }
    if (flags & TC_CYCLES_NO_PMU) {
        snprintf(c->status, sizeof(c->status),
                 "unsupported: PMU not used (TC_CYCLES_NO_PMU requested)");
    } else {
        (void)tc_cycles_try_pmu(c, c->status, sizeof(c->status));
    }
    *cycles_p = c;
    return TC_OK;
}

tc_status_t tc_cycles_open(tc_cycles_t **cycles_p)
{
    return tc_cycles_open_flags(0, cycles_p);
}

void tc_cycles_close(tc_cycles_t *cycles)
{
    if (cycles == NULL) {
        return;
    }
    tc_cycles_close_fds(cycles->fd);
    free(cycles);
}

const char *tc_cycles_pmu_status(const tc_cycles_t *cycles)
{
    return cycles->status;
}

static int tc_cycles_has_pmu(const tc_cycles_t *c)
{
    return c->fd[TC_EV_CYCLES] >= 0;
}

const char *tc_cycles_source(const tc_cycles_t *cycles)
{
    return tc_cycles_has_pmu(cycles) ? TC_CYCLES_SOURCE_PMU : TC_CYCLES_SOURCE_FALLBACK;
}

uint64_t *tc_cycles_polls_ptr(tc_cycles_t *cycles)
{
    return &cycles->polls;
}

static uint64_t tc_cycles_cpu_ns(const tc_cycles_t *c)
{
    struct timespec ts;

    if (clock_gettime(c->cpu_clock, &ts) != 0) {
        return 0;
    }
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The software edge of the window; the PMU part is handled by the callers
 * so that the counters cover as little of our own bookkeeping as possible. */
static void tc_cycles_sample_sw(const tc_cycles_t *c, tc_cycles_point_t *p)
{
    p->cpu_ns  = tc_cycles_cpu_ns(c);
    p->mono_ns = tc_clock_mono_ns();
    p->ticks   = tc_clock_ticks();
}

/* The group is switched off outside start..stop, so its counts and
 * enabled/running times only move inside windows; a window's value is the
 * difference of two reads. */
static void tc_cycles_sample_pmu(tc_cycles_t *c, tc_cycles_point_t *p)
{
    if (tc_cycles_has_pmu(c) && tc_cycles_read_group(c, &p->pmu) != 0) {
        /* Keep the window well-formed; read() reports the failure. */
        memset(&p->pmu, 0, sizeof(p->pmu));
    }
}

tc_status_t tc_cycles_start(tc_cycles_t *cycles)
{
    tc_cycles_t *c = cycles;

    if (c == NULL) {
        return TC_ERR_INVALID_PARAM;
    }
    if (c->running) {
        (void)tc_cycles_stop(c);
    }
    memset(&c->begin, 0, sizeof(c->begin));
    memset(&c->end, 0, sizeof(c->end));
    c->polls         = 0;
    c->polls_at_stop = 0;
    if (tc_cycles_has_pmu(c)) {
        tc_cycles_sample_pmu(c, &c->begin);
    }
    tc_cycles_sample_sw(c, &c->begin);
    if (tc_cycles_has_pmu(c) &&
        ioctl(c->fd[TC_EV_CYCLES], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) != 0) {
        tc_error("cycles: PERF_EVENT_IOC_ENABLE: %s", strerror(errno));
        return TC_ERR_IO;
    }
    c->started = 1;
    c->running = 1;
    return TC_OK;
}

tc_status_t tc_cycles_stop(tc_cycles_t *cycles)
{
    tc_cycles_t *c = cycles;
    tc_status_t  status = TC_OK;

    if (c == NULL) {
        return TC_ERR_INVALID_PARAM;
    }
    if (!c->running) {
        return TC_OK;
    }
    if (tc_cycles_has_pmu(c) &&
        ioctl(c->fd[TC_EV_CYCLES], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP) != 0) {
        tc_error("cycles: PERF_EVENT_IOC_DISABLE: %s", strerror(errno));
        status = TC_ERR_IO;
    }
    tc_cycles_sample_sw(c, &c->end);
    tc_cycles_sample_pmu(c, &c->end);
    c->polls_at_stop = c->polls;
    c->running       = 0;
    return status;
}

static uint64_t tc_cycles_diff(uint64_t a, uint64_t b)
{
    return b >= a ? b - a : 0;
}

tc_status_t tc_cycles_read(tc_cycles_t *cycles, tc_cycles_sample_t *sample_p)
{
    tc_cycles_t        *c = cycles;
    tc_cycles_sample_t  s;
    tc_cycles_point_t   now;
    const tc_cycles_point_t *end;
    int                 i;

    if (c == NULL || sample_p == NULL) {
        return TC_ERR_INVALID_PARAM;
    }
    memset(&s, 0, sizeof(s));
    s.cycles = s.instructions = s.ref_cycles = TC_CYCLES_NONE;
    s.source = TC_CYCLES_SOURCE_FALLBACK;

    if (!c->started) {
        *sample_p = s;
        return TC_OK;
    }
    if (c->running) {
        memset(&now, 0, sizeof(now));
        tc_cycles_sample_pmu(c, &now);
        tc_cycles_sample_sw(c, &now);
        end     = &now;
        s.polls = c->polls;
    } else {
        end     = &c->end;
        s.polls = c->polls_at_stop;
    }

    s.cpu_ns     = tc_cycles_diff(c->begin.cpu_ns, end->cpu_ns);
    s.tsc_ticks  = tc_cycles_diff(c->begin.ticks, end->ticks);
    s.elapsed_ns = tc_cycles_diff(c->begin.mono_ns, end->mono_ns);

    if (tc_cycles_has_pmu(c)) {
        uint64_t enabled = tc_cycles_diff(c->begin.pmu.enabled, end->pmu.enabled);
        uint64_t running = tc_cycles_diff(c->begin.pmu.running, end->pmu.running);
        uint64_t v[TC_CYCLES_NEVENTS];

        /* A group that never got onto the PMU (all counters taken by
         * someone else, or a failed read) counted nothing: say so by
         * reporting the fallback rather than zero cycles. */
        if (running == 0) {
            *sample_p = s;
            return TC_OK;
        }
        for (i = 0; i < TC_CYCLES_NEVENTS; ++i) {
            v[i] = tc_cycles_diff(c->begin.pmu.value[i], end->pmu.value[i]);
            if (running < enabled) {
                v[i] = (uint64_t)((double)v[i] * (double)enabled / (double)running);
            }
        }
        s.source         = TC_CYCLES_SOURCE_PMU;
        s.pmu            = 1;
        s.kernel_counted = c->kernel_counted;
        s.scaled         = running < enabled;
        s.cycles         = v[TC_EV_CYCLES];
        s.instructions   = v[TC_EV_INSTRUCTIONS];
        s.ref_cycles     = c->slot[TC_EV_REF_CYCLES] >= 0 ? v[TC_EV_REF_CYCLES]
                                                          : TC_CYCLES_NONE;
    }
    *sample_p = s;
    return TC_OK;
}
