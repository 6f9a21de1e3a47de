/*
 * The log (lib/base/log.c) and the status strings (lib/base/status.c).
 *
 * - Level filtering: a message above the level never reaches the handler;
 *   tc_log_enabled says the same.
 * - The handler an application installs gets each message whole (long ones
 *   too), with its level and argument; NULL puts the default back, which
 *   writes "twochains: error: ..." lines to stderr as the library always did.
 * - errno survives a log call; "%m" prints the caller's.
 * - TC_LOG_LEVEL sets the level at start (checked in a re-executed child,
 *   since the level is read once per process).
 * - Threads logging while the handler is swapped lose no message.
 * - tc_log_text (a peer's text for a log line): printable ASCII as is, a
 *   backslash doubled, every other byte as \n, \r, \t or \xHH; NUL or
 *   len ends it; cut to the buffer with "..." and never inside an escape.
 * - Every status code of TC_STATUS_TABLE has its own string, no "unknown";
 *   existing values are unchanged; in progress and try again exist.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "twochains.h"
#include "log.h"

typedef struct capture {
    unsigned       n;
    tc_log_level_t level;
    char           msg[8192];
    void          *arg;
} capture_t;

static void capture_handler(tc_log_level_t level, const char *msg, void *arg)
{
    capture_t *c = arg;

    c->n++;
    c->level = level;
    c->arg   = arg;
    snprintf(c->msg, sizeof(c->msg), "%s", msg);
}

static int setup(void **state)
{
    (void)state;
    tc_log_set_level(TC_LOG_WARN);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tc_log_set_handler(NULL, NULL);
    tc_log_set_level(TC_LOG_WARN);
    return 0;
}

static void test_level_filter(void **state)
{
    capture_t c = {0};

    (void)state;
    assert_int_equal(tc_log_set_handler(capture_handler, &c), TC_OK);

    tc_log_set_level(TC_LOG_ERROR);
    assert_int_equal(tc_log_get_level(), TC_LOG_ERROR);
    tc_warn("dropped %d", 1);
    tc_info("dropped %d", 2);
    tc_debug("dropped %d", 3);
    assert_int_equal(c.n, 0);
    assert_true(tc_log_enabled(TC_LOG_ERROR));
    assert_false(tc_log_enabled(TC_LOG_WARN));
    tc_error("kept %d", 4);
    assert_int_equal(c.n, 1);
    assert_int_equal(c.level, TC_LOG_ERROR);
    assert_string_equal(c.msg, "kept 4");

    tc_log_set_level(TC_LOG_WARN);
    tc_warn("warned");
    assert_int_equal(c.n, 2);
    assert_int_equal(c.level, TC_LOG_WARN);
    tc_info("dropped");
    assert_int_equal(c.n, 2);

    tc_log_set_level(TC_LOG_INFO);
    tc_info("informed");
    assert_int_equal(c.n, 3);
    assert_int_equal(c.level, TC_LOG_INFO);
    tc_debug("dropped");
    assert_int_equal(c.n, 3);

    tc_log_set_level(TC_LOG_DEBUG);
    assert_true(tc_log_enabled(TC_LOG_DEBUG));
    tc_debug("debugged %s", "x");
    assert_int_equal(c.n, 4);
    assert_int_equal(c.level, TC_LOG_DEBUG);
    assert_string_equal(c.msg, "debugged x");

    /* out of range: clamped to the nearest level */
    tc_log_set_level((tc_log_level_t)99);
    assert_int_equal(tc_log_get_level(), TC_LOG_DEBUG);
    tc_log_set_level((tc_log_level_t)-5);
    assert_int_equal(tc_log_get_level(), TC_LOG_ERROR);
    assert_false(tc_log_enabled((tc_log_level_t)-1));
}

static void test_handler_gets_messages(void **state)
{
    capture_t c = {0};
    char long_msg[5000];

    (void)state;
    tc_log_set_handler(capture_handler, &c);
    tc_error("peer %s: %u frames, %.1f%%", "p0", 17u, 12.5);
    assert_int_equal(c.n, 1);
    assert_ptr_equal(c.arg, &c);
    assert_string_equal(c.msg, "peer p0: 17 frames, 12.5%"); /* no prefix, no newline */

    /* past the formatting buffer: delivered whole */
    memset(long_msg, 'a', sizeof(long_msg) - 1);
    long_msg[sizeof(long_msg) - 1] = '\0';
    tc_warn("<%s>", long_msg);
    assert_int_equal(c.n, 2);
    assert_int_equal(strlen(c.msg), sizeof(long_msg) - 1 + 2);
    assert_int_equal(c.msg[0], '<');
    assert_int_equal(c.msg[sizeof(long_msg)], '>');

    /* back to the default: the handler hears nothing more */
    assert_int_equal(tc_log_set_handler(NULL, &c), TC_OK);
    tc_log_set_level(TC_LOG_ERROR); /* keep the test's stderr quiet */
    tc_warn("to the default handler");
    assert_int_equal(c.n, 2);
}

static void test_errno_kept(void **state)
{
    capture_t c = {0};

    (void)state;
    tc_log_set_handler(capture_handler, &c);
    errno = ENOENT;
    tc_error("open: %m");
    assert_int_equal(errno, ENOENT);
    assert_string_equal(c.msg, "open: No such file or directory");
    errno = EAGAIN;
    tc_debug("filtered out"); /* level warn: not even formatted */
    assert_int_equal(errno, EAGAIN);
}

/* The default handler: one "twochains: <level>: <msg>" line on stderr. */
static void test_default_handler_format(void **state)
{
    char path[] = "/tmp/tc_test_log_XXXXXX", text[512];
    int fd = mkstemp(path), saved;
    FILE *f;
    size_t n;

    (void)state;
    assert_true(fd >= 0);
    fflush(stderr);
    saved = dup(STDERR_FILENO);
    assert_true(saved >= 0);
    assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);
    tc_log_set_handler(NULL, NULL);
    tc_log_set_level(TC_LOG_DEBUG);
    tc_error("e %d", 1);
    tc_warn("w %d", 2);
    tc_info("i %d", 3);
    tc_debug("d %d", 4);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    tc_log_set_level(TC_LOG_WARN);

    f = fdopen(fd, "r");
    assert_non_null(f);
    rewind(f);
    n = fread(text, 1, sizeof(text) - 1, f);
    text[n] = '\0';
    fclose(f);
    unlink(path);
    assert_string_equal(text, "twochains: error: e 1\n"
                              "twochains: warning: w 2\n"
                              "twochains: info: i 3\n"
                              "twochains: debug: d 4\n");
}

/* TC_LOG_LEVEL, in a child of our own binary that starts with it set. */
static int child_env_level(void)
{
    capture_t c = {0};

    tc_log_set_handler(capture_handler, &c);
    if (tc_log_get_level() != TC_LOG_DEBUG) {
        return 10;
    }
    tc_debug("seen");
    return (c.n == 1) ? 0 : 11;
}

static int child_env_bad(void)
{
    capture_t c = {0};

    tc_log_set_handler(capture_handler, &c);
    if (tc_log_get_level() != TC_LOG_WARN) {
        return 20;
    }
    /* the bad value is reported once, as a warning naming it */
    return ((c.n == 1) && (c.level == TC_LOG_WARN) && strstr(c.msg, "loud")) ? 0 : 21;
}

static const char *self_path = "/proc/self/exe";

static int run_child(const char *mode, const char *level)
{
    pid_t pid = fork();
    int st;

    if (pid == 0) {
        setenv("TC_LOG_LEVEL", level, 1);
        execl(self_path, self_path, mode, (char *)NULL);
        _exit(127);
    }
    assert_true(pid > 0);
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

static void test_env_level(void **state)
{
    (void)state;
    assert_int_equal(run_child("--child-env-level", "debug"), 0);
    assert_int_equal(run_child("--child-env-bad", "loud"), 0);
}

#define LOG_THREADS 4
#define LOG_PER_THREAD 20000

static atomic_uint counted_a, counted_b;

static void count_a(tc_log_level_t level, const char *msg, void *arg)
{
    (void)level;
    (void)msg;
    (void)arg;
    atomic_fetch_add(&counted_a, 1);
}

static void count_b(tc_log_level_t level, const char *msg, void *arg)
{
    (void)level;
    (void)msg;
    (void)arg;
    atomic_fetch_add(&counted_b, 1);
}

static void *log_thread(void *arg)
{
    (void)arg;
    for (unsigned i = 0; i < LOG_PER_THREAD; ++i) {
        tc_warn("message %u", i);
    }
    return NULL;
}

static void test_threads_swap_handler(void **state)
{
    pthread_t th[LOG_THREADS];

    (void)state;
    tc_log_set_handler(count_a, NULL);
    for (unsigned i = 0; i < LOG_THREADS; ++i) {
        assert_int_equal(pthread_create(&th[i], NULL, log_thread, NULL), 0);
    }
    for (unsigned i = 0; i < 1000; ++i) {
        tc_log_set_handler((i & 1) ? count_a : count_b, NULL);
    }
    tc_log_set_handler(count_a, NULL);
    for (unsigned i = 0; i < LOG_THREADS; ++i) {
        pthread_join(th[i], NULL);
    }
    assert_int_equal(atomic_load(&counted_a) + atomic_load(&counted_b),
                     LOG_THREADS * LOG_PER_THREAD);
}

/* ------------------------------------------------------------ status */

static void test_log_text(void **state)
{
    char out[TC_LOG_TEXT_SIZE], small[8], big[4 * 300 + 1];
    const char *p;

    (void)state;
    assert_string_equal(tc_log_text("plain words: 1-2 (ok)", 100, out, sizeof(out)),
                        "plain words: 1-2 (ok)");
    assert_string_equal(tc_log_text("a\nb\rc\td\\e", 100, out, sizeof(out)),
                        "a\\nb\\rc\\td\\\\e");
    assert_string_equal(tc_log_text("\x1b[31mred\x7f\xc3\xa9\x01", 100, out, sizeof(out)),
                        "\\x1b[31mred\\x7f\\xc3\\xa9\\x01");
    assert_string_equal(tc_log_text("\ntwochains: error: forged", 100, out, sizeof(out)),
                        "\\ntwochains: error: forged");
    /* the first NUL, or len, ends it */
    assert_string_equal(tc_log_text("ab\0cd", 5, out, sizeof(out)), "ab");
    assert_string_equal(tc_log_text("abcdef", 3, out, sizeof(out)), "abc");
    assert_string_equal(tc_log_text(NULL, 3, out, sizeof(out)), "");
    /* exactly full; one more is cut, with "..." and whole escapes only */
    assert_string_equal(tc_log_text("abcdefg", 100, small, sizeof(small)), "abcdefg");
    assert_string_equal(tc_log_text("abcdefgh", 100, small, sizeof(small)), "abcd...");
    assert_string_equal(tc_log_text("ab\n\ncd", 100, small, sizeof(small)), "ab\\n...");
    assert_string_equal(tc_log_text("a\x1b\x1b", 100, small, sizeof(small)), "a...");
    assert_string_equal(tc_log_text("abcdefgh", 100, small, 3), "..");
    assert_string_equal(tc_log_text("abcdefgh", 100, small, 1), "");
    /* a long text of control bytes: bounded, one line */
    memset(big, '\n', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    p = tc_log_text(big, sizeof(big), out, sizeof(out));
    assert_int_equal(strlen(p), sizeof(out) - 1); /* 126 escapes and "..." */
    assert_null(strchr(p, '\n'));
    assert_string_equal(p + strlen(p) - 5, "\\n...");
}

static void test_status_strings(void **state)
{
#define STATUS_ROW(_code, _value, _str) {_code, _value, #_code, _str},
    static const struct {
        tc_status_t code;
        int         value;
        const char *name;
        const char *str;
    } rows[] = {TC_STATUS_TABLE(STATUS_ROW)};
#undef STATUS_ROW
    size_t i, j;

    (void)state;
    assert_true(TC_ARRAY_SIZE(rows) >= 19);
    for (i = 0; i < TC_ARRAY_SIZE(rows); ++i) {
        const char *s = tc_status_str(rows[i].code);

        assert_int_equal((int)rows[i].code, rows[i].value);
        assert_non_null(s);
        assert_string_equal(s, rows[i].str);
        assert_true(strlen(s) > 0);
        assert_null(strstr(s, "unknown"));
        assert_true((int)rows[i].code > (int)TC_ERR_LAST);
        for (j = 0; j < i; ++j) {
            assert_int_not_equal(rows[i].value, rows[j].value);
            assert_string_not_equal(rows[i].str, rows[j].str);
        }
    }
    /* every value from TC_ERR_LAST + 1 up to TC_INPROGRESS is a code */
    for (int v = (int)TC_ERR_LAST + 1; v <= (int)TC_INPROGRESS; ++v) {
        assert_null(strstr(tc_status_str((tc_status_t)v), "unknown"));
    }
    assert_string_equal(tc_status_str(TC_ERR_LAST), "unknown status");
    assert_string_equal(tc_status_str((tc_status_t)-1000), "unknown status");
    assert_string_equal(tc_status_str((tc_status_t)42), "unknown status");

    /* values other programs and the wire already know */
    assert_int_equal(TC_OK, 0);
    assert_int_equal(TC_ERR_INVALID_PARAM, -1);
    assert_int_equal(TC_ERR_NO_MEMORY, -2);
    assert_int_equal(TC_ERR_IO, -3);
    assert_int_equal(TC_ERR_TIMEOUT, -4);
    assert_int_equal(TC_ERR_PEER_NOT_FOUND, -5);
    assert_int_equal(TC_ERR_PORT_BUSY, -6);
    assert_int_equal(TC_ERR_VERSION_MISMATCH, -7);
    assert_int_equal(TC_ERR_PEER_FAILED, -8);
    assert_int_equal(TC_ERR_UCX, -9);
    assert_int_equal(TC_ERR_NO_RESOURCE, -10);
    assert_int_equal(TC_ERR_BAD_FRAME, -11);
    assert_int_equal(TC_ERR_NOT_FOUND, -12);
    assert_int_equal(TC_ERR_UNSUPPORTED, -13);
    assert_int_equal(TC_ERR_PROTOCOL, -14);
    assert_int_equal(TC_ERR_OUT_OF_RANGE, -15);
    assert_int_equal(TC_ERR_INTERRUPTED, -16);
    /* in progress (positive, as UCS_INPROGRESS) and try again */
    assert_true(TC_INPROGRESS > 0);
    assert_true(TC_ERR_AGAIN < 0);
    assert_string_equal(tc_status_str(TC_INPROGRESS), "operation in progress");
    assert_string_equal(tc_status_str(TC_ERR_AGAIN), "try again");
    assert_string_equal(tc_status_str(TC_OK), "success");
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_level_filter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_handler_gets_messages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errno_kept, setup, teardown),
        cmocka_unit_test_setup_teardown(test_default_handler_format, setup, teardown),
        cmocka_unit_test(test_env_level),
        cmocka_unit_test_setup_teardown(test_threads_swap_handler, setup, teardown),
        cmocka_unit_test(test_log_text),
        cmocka_unit_test(test_status_strings),
    };

    if (strchr(argv[0], '/') != NULL) {
        self_path = argv[0];
    }
    if ((argc == 2) && !strcmp(argv[1], "--child-env-level")) {
        return child_env_level();
    }
    if ((argc == 2) && !strcmp(argv[1], "--child-env-bad")) {
        return child_env_bad();
    }
    return cmocka_run_group_tests_name("log", tests, NULL, NULL);
}
