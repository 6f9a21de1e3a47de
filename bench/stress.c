/*
 * stress-ng for the length of a run (see stress.h). Process tree:
 *
 *   tc-perf --(pipe)--> watchdog --> stress-ng (own process group) --> workers
 *
 * The watchdog is a plain fork of tc-perf that never execs: it needs no
 * binary of its own and holds no descriptor but its end of the pipe.
 */
#define _GNU_SOURCE
#include "stress.h"

#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TC_STRESS_GRACE_MS  2000  /* SIGTERM to SIGKILL */
#define TC_STRESS_SETTLE_MS 2000  /* let the workers start before measuring: the
                                   * vm class takes about a second on 2 cores */
#define TC_STRESS_DIED      3     /* watchdog exit code: stress-ng died early */
#define TC_STRESS_GONE_MS   60000 /* longest wait for the last worker to exit */

struct tc_stress {
    pid_t watchdog;
    pid_t pgid;      /* stress-ng's process group: its main process's pid */
    int   pipe_wr;
    char  spec[64];
    char  argv_str[160];
    char  cpus[128];
    char  version[128];
    char  temp_dir[256]; /* stress-ng --temp-path: its files, removed after */
};

static int tc_stress_find(char *path, size_t len)
{
    const char *env = getenv("PATH");
    char *copy, *dir, *save = NULL;
    int found = 0;

    if (env == NULL) {
        env = "/usr/local/bin:/usr/bin:/bin";
    }
    copy = strdup(env);
    if (copy == NULL) {
        return 0;
    }
    for (dir = strtok_r(copy, ":", &save); (dir != NULL) && !found;
         dir = strtok_r(NULL, ":", &save)) {
        snprintf(path, len, "%s/stress-ng", dir);
        found = (access(path, X_OK) == 0);
    }
    free(copy);
    return found;
}

/* "0,2-3" -> set; 0 on success. */
static int tc_stress_parse_cpus(const char *list, cpu_set_t *set)
{
    char *copy = strdup(list), *tok, *save = NULL, *end;
    long a, b;
    int rc = 0;

    if (copy == NULL) {
        return -1;
    }
    CPU_ZERO(set);
    for (tok = strtok_r(copy, ",", &save); (tok != NULL) && (rc == 0);
         tok = strtok_r(NULL, ",", &save)) {
        errno = 0;
        a = strtol(tok, &end, 10);
        b = a;
        if ((end != tok) && (*end == '-')) {
            char *s = end + 1;
            b = strtol(s, &end, 10);
            if (end == s) {
                rc = -1;
            }
        }
        if ((end == tok) || (*end != '\0') || errno || (a < 0) || (b < a) ||
            (b >= CPU_SETSIZE)) {
            rc = -1;
            break;
        }
        for (; a <= b; ++a) {
            CPU_SET((int)a, set);
        }
    }
    free(copy);
    return ((rc == 0) && (CPU_COUNT(set) > 0)) ? 0 : -1;
}

static void tc_stress_read_version(const char *path, char *buf, size_t len)
{
    char cmd[600];
    FILE *p;

    snprintf(buf, len, "unknown");
    snprintf(cmd, sizeof(cmd), "'%s' --version 2>&1", path);
    p = popen(cmd, "r");
    if (p == NULL) {
        return;
    }
    if (fgets(buf, (int)len, p) != NULL) {
        buf[strcspn(buf, "\n")] = '\0';
    }
    pclose(p);
}

static void tc_stress_sleep_ms(unsigned ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Wait up to ms for pid; 1 if it was reaped. */
static int tc_stress_reap(pid_t pid, unsigned ms, int *wstatus)
{
    unsigned waited;

    for (waited = 0; waited <= ms; waited += 10) {
        pid_t r = waitpid(pid, wstatus, WNOHANG);
        if ((r == pid) || ((r < 0) && (errno == ECHILD))) {
            return 1;
        }
        tc_stress_sleep_ms(10);
    }
    return 0;
}

/* stress-ng's swap stressor swapon()s a file in its temp dir and a killed
 * worker leaves it active: switch such files off, then remove them all. */
static int tc_stress_rm_one(const char *path, const struct stat *st, int flag,
                            struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (flag == FTW_F) {
        (void)swapoff(path); /* fails harmlessly for anything not a swap file */
    }
    (void)remove(path);
    return 0;
}

static void tc_stress_rm_temp(const char *dir)
{
    if (dir[0] != '\0') {
        (void)nftw(dir, tc_stress_rm_one, 16, FTW_DEPTH | FTW_PHYS);
    }
}

/* The watchdog: never returns. */
static void tc_stress_watchdog(int pipe_rd, int back_wr, const char *path,
                               char *const argv[], const cpu_set_t *cpus,
                               const char *temp_dir)
{
    struct pollfd pfd = {.fd = pipe_rd, .events = POLLIN};
    int wstatus = 0, died = 0;
    unsigned waited;
    pid_t child;
    char c;

    signal(SIGINT, SIG_IGN);  /* a Ctrl-C reaches the whole terminal group: */
    signal(SIGTERM, SIG_IGN); /* the watchdog outlives it to clean up */
    signal(SIGHUP, SIG_IGN);
    child = fork();
    if (child < 0) {
        _exit(1);
    }
    if (child == 0) {
        int devnull = open("/dev/null", O_RDWR);
        close(pipe_rd);
        close(back_wr);
        setpgid(0, 0);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        /* should the watchdog itself be killed, take stress-ng's main along */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (devnull >= 0) {
            dup2(devnull, STDIN_FILENO);
            dup2(devnull, STDOUT_FILENO);
            dup2(devnull, STDERR_FILENO);
        }
        sched_setaffinity(0, sizeof(*cpus), cpus);
        execv(path, argv);
        _exit(127);
    }
    setpgid(child, child); /* both sides set it: no race with the kill below */
    /* tell tc-perf the group (for its JSON and for tests to watch) */
    if (write(back_wr, &child, sizeof(child)) != (ssize_t)sizeof(child)) {
        /* tc-perf is gone already: the pipe loop below cleans up */
    }
    close(back_wr);

    for (;;) {
        int r = poll(&pfd, 1, 100);
        if ((r > 0) && (read(pipe_rd, &c, 1) <= 0)) {
            break; /* EOF: tc-perf stopped us, exited or died */
        }
        if ((r < 0) && (errno != EINTR)) {
            break;
        }
        if (!died && (waitpid(child, &wstatus, WNOHANG) == child)) {
            died = 1; /* keep waiting for EOF; report it at the end */
        }
    }
    kill(-child, SIGTERM);
    if (!died && !tc_stress_reap(child, TC_STRESS_GRACE_MS, &wstatus)) {
        kill(-child, SIGKILL);
        tc_stress_reap(child, TC_STRESS_GRACE_MS, &wstatus);
    }
    /* Workers that outlived their parent still carry its group id; one
     * tearing down a large mapping takes seconds to exit after SIGKILL.
     * The load is gone when no process is left in the group. */
    for (waited = 0; (kill(-child, SIGKILL) == 0) && (waited < TC_STRESS_GONE_MS); waited += 20) {
        tc_stress_sleep_ms(20);
    }
    tc_stress_rm_temp(temp_dir);
    _exit(died ? TC_STRESS_DIED : 0);
}

/* CLASS[:N] into klass (48 bytes) and count (16); else why says what is wrong. */
static tc_status_t tc_stress_parse_spec(const char *spec, char *klass, char *count, char *why,
                                        size_t why_len)
{
    const char *colon = strchr(spec, ':');
    size_t n          = (colon != NULL) ? (size_t)(colon - spec) : strlen(spec);

    if ((n == 0) || (n >= 48) || (strspn(spec, "abcdefghijklmnopqrstuvwxyz0123456789-_") < n)) {
        snprintf(why, why_len, "expected CLASS[:N], e.g. vm or cpu:2");
        return TC_ERR_INVALID_PARAM;
    }
    memcpy(klass, spec, n);
    klass[n] = '\0';
    snprintf(count, 16, "1");
    if (colon != NULL) {
        char *end;
        long v;
        errno = 0;
        v     = strtol(colon + 1, &end, 10);
        if ((end == colon + 1) || (*end != '\0') || errno || (v < 1) || (v > 4096)) {
            snprintf(why, why_len, "N must be 1..4096, not '%s'", colon + 1);
            return TC_ERR_INVALID_PARAM;
        }
        snprintf(count, 16, "%ld", v);
    }
    return TC_OK;
}

tc_status_t tc_stress_check(const char *spec, char *why, size_t why_len)
{
    char path[512], klass[48], count[16], cmd[700], line[256] = "";
    tc_status_t status;
    FILE *p;
    int rc;

    status = tc_stress_parse_spec(spec, klass, count, why, why_len);
    if ((status != TC_OK) || !tc_stress_find(path, sizeof(path))) {
        return status; /* no stress-ng: tc_stress_start says so */
    }
    /* stress-ng knows its classes (they differ between versions); a dry
     * run starts no stressor. klass is [a-z0-9-_] only: safe in the shell */
    snprintf(cmd, sizeof(cmd), "'%s' --class %s --all %s --dry-run 2>&1", path, klass, count);
    p = popen(cmd, "r");
    if (p == NULL) {
        return TC_OK;
    }
    while ((line[0] == '\0') && (fgets(line, sizeof(line), p) != NULL)) {
        line[strcspn(line, "\n")] = '\0';
    }
    while (fgets(cmd, sizeof(cmd), p) != NULL) {
    }
    rc = pclose(p);
    if ((rc != -1) && WIFEXITED(rc) && (WEXITSTATUS(rc) != 0)) {
        snprintf(why, why_len, "stress-ng refuses it: %s", line[0] ? line : "(no reason given)");
        return TC_ERR_INVALID_PARAM;
    }
    return TC_OK;
}

tc_status_t tc_stress_start(const char *spec, const char *cpus, tc_stress_t **stress_p)
{
    char path[512], klass[48], count[16], temp_dir[256], why[128];
    char *argv[] = {"stress-ng", "--class", klass, "--all", count, "--temp-path", temp_dir, NULL};
    const char *tmp = getenv("TMPDIR");
    cpu_set_t set;
    tc_stress_t *s;
    int pfd[2], back[2], wstatus;

    if (tc_stress_parse_spec(spec, klass, count, why, sizeof(why)) != TC_OK) {
        tc_error("--stress '%s': %s", spec, why);
        return TC_ERR_INVALID_PARAM;
    }
    if (cpus != NULL) {
        if (tc_stress_parse_cpus(cpus, &set) != 0) {
            tc_error("--stress-cpus '%s': expected a list like 0,1 or 0-3", cpus);
            return TC_ERR_INVALID_PARAM;
        }
    } else if (sched_getaffinity(0, sizeof(set), &set) != 0) {
        tc_error("sched_getaffinity: %m");
        return TC_ERR_IO;
    }
    if (!tc_stress_find(path, sizeof(path))) {
        tc_error("--stress: stress-ng not found in PATH (apt-get install stress-ng, or "
                 "scripts/deps.sh)");
        return TC_ERR_NOT_FOUND;
    }

    /* stress-ng writes its files (and swap files) into the temp path; the
     * default, the working directory, would litter wherever tc-perf ran */
    snprintf(temp_dir, sizeof(temp_dir), "%s/tc-stress-XXXXXX",
             ((tmp != NULL) && (tmp[0] != '\0')) ? tmp : "/tmp");
    if (mkdtemp(temp_dir) == NULL) {
        tc_error("--stress: cannot make a temp directory %s: %m", temp_dir);
        return TC_ERR_IO;
    }
    s = calloc(1, sizeof(*s));
    if (s == NULL) {
        rmdir(temp_dir);
        return TC_ERR_NO_MEMORY;
    }
    snprintf(s->temp_dir, sizeof(s->temp_dir), "%s", temp_dir);
    snprintf(s->spec, sizeof(s->spec), "%s", spec);
    snprintf(s->argv_str, sizeof(s->argv_str), "stress-ng --class %s --all %s", klass, count);
    snprintf(s->cpus, sizeof(s->cpus), "%s", (cpus != NULL) ? cpus : "all");
    tc_stress_read_version(path, s->version, sizeof(s->version));

    if ((pipe2(pfd, O_CLOEXEC) != 0) || (pipe2(back, O_CLOEXEC) != 0)) {
        tc_error("pipe: %m");
        rmdir(temp_dir);
        free(s);
        return TC_ERR_IO;
    }
    fflush(NULL);
    s->watchdog = fork();
    if (s->watchdog < 0) {
        tc_error("fork: %m");
        close(pfd[0]);
        close(pfd[1]);
        close(back[0]);
        close(back[1]);
        rmdir(temp_dir);
        free(s);
        return TC_ERR_IO;
    }
    if (s->watchdog == 0) {
        close(pfd[1]);
        close(back[0]);
        tc_stress_watchdog(pfd[0], back[1], path, argv, &set, temp_dir);
    }
    close(pfd[0]);
    close(back[1]);
    s->pipe_wr = pfd[1];
    if (read(back[0], &s->pgid, sizeof(s->pgid)) != (ssize_t)sizeof(s->pgid)) {
        s->pgid = 0; /* the watchdog failed to fork: caught just below */
    }
    close(back[0]);

    tc_stress_sleep_ms(TC_STRESS_SETTLE_MS);
    if (waitpid(s->watchdog, &wstatus, WNOHANG) == s->watchdog) {
        tc_error("--stress %s: stress-ng exited at once (%s); run it by hand to see why",
                 spec, s->argv_str);
        close(s->pipe_wr);
        free(s);
        return TC_ERR_IO;
    }
    *stress_p = s;
    return TC_OK;
}

tc_status_t tc_stress_stop(tc_stress_t *s)
{
    tc_status_t status = TC_OK;
    int wstatus = 0;

    if (s == NULL) {
        return TC_OK;
    }
    close(s->pipe_wr);
    while ((waitpid(s->watchdog, &wstatus, 0) < 0) && (errno == EINTR)) {
    }
    if (WIFEXITED(wstatus) && (WEXITSTATUS(wstatus) == TC_STRESS_DIED)) {
        tc_error("--stress %s: stress-ng died during the run; the load was not there "
                 "throughout", s->spec);
        status = TC_ERR_IO;
    }
    free(s);
    return status;
}

const char *tc_stress_spec(const tc_stress_t *s)
{
    return s->spec;
}

const char *tc_stress_argv(const tc_stress_t *s)
{
    return s->argv_str;
}

const char *tc_stress_cpus(const tc_stress_t *s)
{
    return s->cpus;
}

int tc_stress_pgid(const tc_stress_t *s)
{
    return (int)s->pgid;
}

const char *tc_stress_version(const tc_stress_t *s)
{
    return s->version;
}
