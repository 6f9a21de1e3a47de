/* tc-pkg helpers: string vectors, files, running the compiler. */
#define _GNU_SOURCE
#include "tc_pkg.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

tc_status_t tc_pkg_strv_add(tc_pkg_strv_t *sv, const char *s)
{
    char **grown;
    size_t cap;

    if (sv->len + 1 >= sv->cap) {
        cap   = (sv->cap == 0) ? 16 : 2 * sv->cap;
        grown = realloc(sv->v, cap * sizeof(*grown));
        if (grown == NULL) {
            tc_pkg_err("out of memory");
            return TC_ERR_NO_MEMORY;
        }
        sv->v   = grown;
        sv->cap = cap;
    }
    sv->v[sv->len] = strdup(s);
    if (sv->v[sv->len] == NULL) {
        tc_pkg_err("out of memory");
        return TC_ERR_NO_MEMORY;
    }
    sv->v[++sv->len] = NULL;
    return TC_OK;
}

tc_status_t tc_pkg_strv_add_words(tc_pkg_strv_t *sv, const char *s)
{
    char word[TC_PKG_PATH_MAX];
    tc_status_t status;
    size_t n;

    while (s != NULL) {
        s += strspn(s, " \t\n");
        n = strcspn(s, " \t\n");
        if (n == 0) {
            break;
        }
        if (n >= sizeof(word)) {
            tc_pkg_err("argument too long: '%.40s...'", s);
            return TC_ERR_OUT_OF_RANGE;
        }
        memcpy(word, s, n);
        word[n] = '\0';
        status  = tc_pkg_strv_add(sv, word);
        if (status != TC_OK) {
            return status;
        }
        s += n;
    }
    return TC_OK;
}

tc_status_t tc_pkg_strv_addf(tc_pkg_strv_t *sv, const char *fmt, ...)
{
    char buf[TC_PKG_PATH_MAX];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if ((n < 0) || ((size_t)n >= sizeof(buf))) {
        tc_pkg_err("argument too long: '%.40s...'", buf);
        return TC_ERR_OUT_OF_RANGE;
    }
    return tc_pkg_strv_add(sv, buf);
}

void tc_pkg_strv_free(tc_pkg_strv_t *sv)
{
    size_t i;

    for (i = 0; i < sv->len; ++i) {
        free(sv->v[i]);
    }
    free(sv->v);
    sv->v   = NULL;
    sv->len = sv->cap = 0;
}

uint64_t tc_pkg_fnv(uint64_t h, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    size_t i;

    for (i = 0; i < len; ++i) {
        h ^= p[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

tc_status_t tc_pkg_read_file(const char *path, void **buf_p, size_t *len_p)
{
    struct stat st;
    tc_status_t status;
    uint8_t *buf;
    size_t len = 0;
    ssize_t n;
    int fd;

    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        tc_pkg_err("cannot open %s: %s", path, strerror(errno));
        return (errno == ENOENT) ? TC_ERR_NOT_FOUND : TC_ERR_IO;
    }
    if ((fstat(fd, &st) != 0) || !S_ISREG(st.st_mode)) {
        tc_pkg_err("%s is not a regular file", path);
        status = TC_ERR_IO;
        goto out_close;
    }
    buf = malloc((size_t)st.st_size + 1); /* + 1: never malloc(0) */
    if (buf == NULL) {
        tc_pkg_err("out of memory reading %s", path);
        status = TC_ERR_NO_MEMORY;
        goto out_close;
    }
    while (len < (size_t)st.st_size) {
        n = read(fd, buf + len, (size_t)st.st_size - len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            tc_pkg_err("cannot read %s: %s", path, (n < 0) ? strerror(errno) : "short");
            free(buf);
            status = TC_ERR_IO;
            goto out_close;
        }
        len += (size_t)n;
    }
    *buf_p = buf;
    *len_p = len;
    status = TC_OK;
out_close:
    close(fd);
    return status;
}

tc_status_t tc_pkg_write_file(const char *path, const void *buf, size_t len,
                              int executable)
{
    char tmp[TC_PKG_PATH_MAX];
    const uint8_t *p = buf;
    size_t done = 0;
    ssize_t n;
    int fd, rc;

    rc = snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    if ((rc < 0) || ((size_t)rc >= sizeof(tmp))) {
        tc_pkg_err("path too long: %s", path);
        return TC_ERR_OUT_OF_RANGE;
    }
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, executable ? 0755 : 0644);
    if (fd < 0) {
        tc_pkg_err("cannot create %s: %s", tmp, strerror(errno));
        return TC_ERR_IO;
    }
    while (done < len) {
        n = write(fd, p + done, len - done);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            tc_pkg_err("cannot write %s: %s", tmp, strerror(errno));
            goto err_unlink;
        }
        done += (size_t)n;
    }
    if (close(fd) != 0) {
        fd = -1;
        tc_pkg_err("cannot write %s: %s", tmp, strerror(errno));
        goto err_unlink;
    }
    if (rename(tmp, path) != 0) {
        fd = -1;
        tc_pkg_err("cannot rename %s to %s: %s", tmp, path, strerror(errno));
        goto err_unlink;
    }
    return TC_OK;

err_unlink:
    if (fd >= 0) {
        close(fd);
    }
    unlink(tmp);
    return TC_ERR_IO;
}

tc_status_t tc_pkg_copy_file(const char *src, const char *dst, int executable)
{
    tc_status_t status;
    size_t len;
    void *buf;

    status = tc_pkg_read_file(src, &buf, &len);
    if (status != TC_OK) {
        return status;
    }
    status = tc_pkg_write_file(dst, buf, len, executable);
    free(buf);
    return status;
}

tc_status_t tc_pkg_mkdirs(const char *path)
{
    char buf[TC_PKG_PATH_MAX];
    size_t i, len = strlen(path);

    if ((len == 0) || (len >= sizeof(buf))) {
        tc_pkg_err("bad directory '%s'", path);
        return TC_ERR_INVALID_PARAM;
    }
    memcpy(buf, path, len + 1);
    for (i = 1; i <= len; ++i) {
        if ((buf[i] != '/') && (buf[i] != '\0')) {
            continue;
        }
        buf[i] = '\0';
        if ((mkdir(buf, 0755) != 0) && (errno != EEXIST)) {
            tc_pkg_err("cannot create directory %s: %s", buf, strerror(errno));
            return TC_ERR_IO;
        }
        buf[i] = path[i];
    }
    return TC_OK;
}

/* Waits for pid; a non-zero exit prints the command (argv). */
static tc_status_t tc_pkg_wait(pid_t pid, char *const argv[])
{
    int wstatus;
    size_t i;

    while (waitpid(pid, &wstatus, 0) < 0) {
        if (errno != EINTR) {
            tc_pkg_err("waiting for %s: %s", argv[0], strerror(errno));
            return TC_ERR_IO;
        }
    }
    if (WIFEXITED(wstatus) && (WEXITSTATUS(wstatus) == 0)) {
        return TC_OK;
    }
    fprintf(stderr, "tc-pkg: command failed (%s %d):",
            WIFEXITED(wstatus) ? "exit" : "signal",
            WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : WTERMSIG(wstatus));
    for (i = 0; argv[i] != NULL; ++i) {
        fprintf(stderr, " %s", argv[i]);
    }
    fprintf(stderr, "\n");
    return TC_ERR_IO;
}

tc_status_t tc_pkg_run(char *const argv[])
{
    pid_t pid;
    int rc;

    rc = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
    if (rc != 0) {
        tc_pkg_err("cannot run %s: %s", argv[0], strerror(rc));
        return TC_ERR_IO;
    }
    return tc_pkg_wait(pid, argv);
}

tc_status_t tc_pkg_run_capture(char *const argv[], char **out_p)
{
    posix_spawn_file_actions_t fa;
    char *buf = NULL, *grown;
    size_t len = 0, cap = 0;
    tc_status_t status;
    int fds[2], rc;
    ssize_t n;
    pid_t pid;

    if (pipe2(fds, O_CLOEXEC) != 0) {
        tc_pkg_err("pipe: %s", strerror(errno));
        return TC_ERR_IO;
    }
    rc = posix_spawn_file_actions_init(&fa);
    if (rc == 0) {
        rc = posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
        if (rc == 0) {
            rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
        }
        posix_spawn_file_actions_destroy(&fa);
    }
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        tc_pkg_err("cannot run %s: %s", argv[0], strerror(rc));
        return TC_ERR_IO;
    }
    status = TC_OK;
    for (;;) {
        if ((status == TC_OK) && (cap - len < 4096)) {
            cap   = (cap == 0) ? 8192 : 2 * cap;
            grown = realloc(buf, cap);
            if (grown == NULL) {
                tc_pkg_err("out of memory");
                status = TC_ERR_NO_MEMORY;
            } else {
                buf = grown;
            }
        }
        if (status != TC_OK) {
            char sink[4096]; /* keep reading: the child must not block on a full pipe */
            n = read(fds[0], sink, sizeof(sink));
        } else {
            n = read(fds[0], buf + len, cap - len - 1);
        }
        if ((n < 0) && (errno == EINTR)) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        len += (status == TC_OK) ? (size_t)n : 0;
    }
    close(fds[0]);
    if (tc_pkg_wait(pid, argv) != TC_OK) {
        status = TC_ERR_IO;
    }
    if (status != TC_OK) {
        free(buf);
        return status;
    }
    buf[len] = '\0';
    *out_p   = buf;
    return TC_OK;
}

tc_status_t tc_pkg_exe_dir(char *buf, size_t len)
{
    char exe[TC_PKG_PATH_MAX];
    ssize_t n;
    char *slash;

    n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n < 0) {
        tc_pkg_err("cannot find the tc-pkg binary (/proc/self/exe): %s", strerror(errno));
        return TC_ERR_NOT_FOUND;
    }
    exe[n] = '\0';
    slash  = strrchr(exe, '/');
    if (slash != NULL) {
        *slash = '\0';
    }
    if ((size_t)snprintf(buf, len, "%s", exe) >= len) {
        tc_pkg_err("path too long: %s", exe);
        return TC_ERR_OUT_OF_RANGE;
    }
    return TC_OK;
}

tc_status_t tc_pkg_lib_path(char *buf, size_t len)
{
    char exe[TC_PKG_PATH_MAX];
    tc_status_t status;

    status = tc_pkg_exe_dir(exe, sizeof(exe));
    if (status != TC_OK) {
        return status;
    }
    if (((size_t)snprintf(buf, len, "%s/../lib/libtwochains.so", exe) >= len) ||
        (access(buf, R_OK) != 0)) {
        tc_pkg_err("cannot find libtwochains.so next to tc-pkg (%s/../lib), whose symbols "
                   "jams may call: install tc-pkg with the library", exe);
        return TC_ERR_NOT_FOUND;
    }
    return TC_OK;
}

int tc_pkg_have_program(const char *cmd)
{
    char path[TC_PKG_PATH_MAX];
    const char *env = getenv("PATH"), *dir;
    size_t n;
    int rc;

    if (strchr(cmd, '/') != NULL) {
        return access(cmd, X_OK) == 0;
    }
    for (dir = (env != NULL) ? env : "/usr/bin:/bin"; *dir != '\0'; dir += n + (dir[n] == ':')) {
        n  = strcspn(dir, ":");
        rc = snprintf(path, sizeof(path), "%.*s/%s", (int)n, (n > 0) ? dir : ".", cmd);
        if ((rc > 0) && ((size_t)rc < sizeof(path)) && (access(path, X_OK) == 0)) {
            return 1;
        }
    }
    return 0;
}
