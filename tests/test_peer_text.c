/*
 * Text from a peer is data: what a peer writes in a NACK reason, a ried's
 * name or a ried answer reaches this side's log lines (and tc_nack_t)
 * printable-escaped and bounded, never as lines of its own. A hostile peer
 * is played by hand on a real loopback pair: s[0] puts the frames a peer
 * could put (tc_peer_send_kind) while s[1]'s calls wait for them, and every
 * message the library logs is captured.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "twochains.h"
#include "runtime.h"
#include "frame.h"

#include "loop_pair.h"

/* A line the peer wants this side to print, and ANSI colour around it. */
#define FORGED "\ntwochains: error: forged\x1b[31m red \x1b[0m\r"

#define LOG_MAX 64

static struct {
    pthread_mutex_t lock;
    unsigned        n;
    char           *msg[LOG_MAX];
} logged = {PTHREAD_MUTEX_INITIALIZER, 0, {NULL}};

static void capture(tc_log_level_t level, const char *msg, void *arg)
{
    (void)level;
    (void)arg;
    pthread_mutex_lock(&logged.lock);
    if (logged.n < LOG_MAX) {
        logged.msg[logged.n++] = strdup(msg);
    }
    pthread_mutex_unlock(&logged.lock);
}

static void capture_start(void)
{
    unsigned i;

    for (i = 0; i < logged.n; ++i) {
        free(logged.msg[i]);
    }
    logged.n = 0;
    assert_int_equal(tc_log_set_handler(capture, NULL), TC_OK);
}

/* The captured message holding needle; NULL if none. */
static const char *logged_with(const char *needle)
{
    unsigned i;

    for (i = 0; i < logged.n; ++i) {
        if (strstr(logged.msg[i], needle) != NULL) {
            return logged.msg[i];
        }
    }
    return NULL;
}

/* Every captured message is one line of printable text (the default
 * handler prints each as "twochains: <level>: <msg>\n"): a peer's newline
 * would start a line of its own there. Returns how many such forged lines
 * the messages would have printed. */
static unsigned forged_lines(void)
{
    unsigned i, n = 0;
    const char *p;

    for (i = 0; i < logged.n; ++i) {
        for (p = logged.msg[i]; (p = strstr(p, "\ntwochains: error: forged")) != NULL; ++p) {
            n++;
        }
        for (p = logged.msg[i]; *p != '\0'; ++p) {
            if ((*p < 0x20) || (*p == 0x7f)) {
                print_message("control byte 0x%02x in: %s\n", (unsigned char)*p, logged.msg[i]);
                n += (*p != '\n'); /* an escape sequence counts too */
                break;
            }
        }
    }
    return n;
}

static void open_pair(pair_t *pair)
{
    tc_context_params_t params;

    pair_params(&params, 4);
    params.frames     = TC_FRAMES_VARIABLE;
    params.timeout_ms = 20000;
    pair_open(pair, &params);
}

typedef struct call_arg {
    side_t     *side;
    const char *ried_path;   /* tc_ried_ship this, else a jam call */
    tc_status_t status;
} call_arg_t;

static void *call_thread(void *arg)
{
    call_arg_t *a = arg;
    tc_jam_t jam;
    int32_t v = 1;
    uint32_t id = 0;
    int64_t ret;

    if (a->ried_path != NULL) {
        a->status = tc_ried_ship(a->side->peer, a->ried_path, 0, NULL, &id);
        return NULL;
    }
    jam       = jam_of(a->side, "server_sum");
    a->status = tc_jam_call(a->side->peer, &jam, &v, sizeof(v), NULL, &ret);
    return NULL;
}

/* s[1] calls a jam; s[0] never runs it but NACKs it with a reason that
 * holds a line of its own, ANSI escapes and more than a reason may carry:
 * the sender's error shows it escaped in its one line, and so does the
 * reason tc_peer_last_nack hands out. */
static void test_nack_reason_escaped(void **unused)
{
    char reason[600];
    call_arg_t call;
    pthread_t thread;
    const char *msg;
    tc_nack_t nack;
    pair_t pair;
    uint32_t seq;
    unsigned forged;

    (void)unused;
    open_pair(&pair);
    capture_start();
    snprintf(reason, sizeof(reason), "policy%s", FORGED);
    memset(reason + strlen(reason), 'A', sizeof(reason) - strlen(reason) - 1);
    reason[sizeof(reason) - 1] = '\0';

    seq  = pair.s[1].peer->tx_seq; /* the call's frame */
    call = (call_arg_t){&pair.s[1], NULL, TC_OK};
    assert_int_equal(pthread_create(&thread, NULL, call_thread, &call), 0);
    assert_int_equal(tc_peer_send_kind(pair.s[0].peer, TC_KIND_NACK, seq,
                                       (uint16_t)-TC_ERR_REFUSED, NULL, 0, reason,
                                       (uint32_t)strlen(reason), 0), TC_OK);
    pthread_join(thread, NULL);
    tc_log_set_handler(NULL, NULL);
    assert_int_equal(call.status, TC_ERR_REFUSED);

    msg = logged_with("rejected");
    assert_non_null(msg);
    print_message("logged: %s\n", msg);
    forged = forged_lines();
    print_message("forged lines: %u\n", forged);
    assert_int_equal(forged, 0);
    assert_non_null(strstr(msg, "policy\\ntwochains: error: forged\\x1b[31m red \\x1b[0m\\r"));
    assert_true(strlen(msg) < 400);
    assert_int_equal(tc_peer_last_nack(pair.s[1].peer, &nack), TC_OK);
    assert_null(strchr(nack.reason, '\n'));
    assert_null(strchr(nack.reason, '\x1b'));
    assert_non_null(strstr(nack.reason, "policy\\ntwochains: error: forged"));
    pair_close(&pair);
}

/* s[1] ships a bogus ried; s[0] answers for itself (it never reads the
 * chunk) with a refusal whose text forges a line and runs past what a log
 * line takes: the sender's error shows it escaped and cut. */
static void test_ried_answer_escaped(void **unused)
{
    char bogus[] = "/tmp/tc-test-text-XXXXXX", text[1000];
    tc_ried_args_t args;
    call_arg_t call;
    pthread_t thread;
    const char *msg;
    pair_t pair;
    unsigned forged;
    int fd;

    (void)unused;
    open_pair(&pair);
    fd = mkstemp(bogus);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "not an ELF file", 15), 15);
    close(fd);
    capture_start();
    snprintf(text, sizeof(text), "no%s", FORGED);
    memset(text + strlen(text), 'B', sizeof(text) - strlen(text) - 1);
    text[sizeof(text) - 1] = '\0';

    call = (call_arg_t){&pair.s[1], bogus, TC_OK};
    assert_int_equal(pthread_create(&thread, NULL, call_thread, &call), 0);
    memset(&args, 0, sizeof(args));
    args.id     = 1; /* the first ried this peer ships */
    args.op     = TC_RIED_OP_CHUNK;
    args.status = -1;
    assert_int_equal(tc_peer_send_kind(pair.s[0].peer, TC_KIND_RIED_REP, 0, 0, &args,
                                       sizeof(args), text, (uint32_t)strlen(text), 0), TC_OK);
    pthread_join(thread, NULL);
    tc_log_set_handler(NULL, NULL);
    unlink(bogus);
    assert_int_equal(call.status, TC_ERR_IO);

    msg = logged_with("could not load ried");
    assert_non_null(msg);
    print_message("logged (%zu bytes): %.160s...\n", strlen(msg), msg);
    forged = forged_lines();
    print_message("forged lines: %u\n", forged);
    assert_int_equal(forged, 0);
    assert_non_null(strstr(msg, "no\\ntwochains: error: forged\\x1b[31m red \\x1b[0m\\r"));
    assert_true(strlen(msg) < 400); /* the answer's 1000 bytes cut */
    pair_close(&pair);
}

/* s[0] plays the sender: one ried chunk whose name forges a line; s[1]
 * refuses it (not a ried of its packages) and its warning shows the name
 * escaped. */
static void test_ried_name_escaped(void **unused)
{
    tc_ried_args_t args;
    const char *msg;
    unsigned forged;
    pair_t pair;

    (void)unused;
    open_pair(&pair);
    capture_start();
    memset(&args, 0, sizeof(args));
    args.id    = 9;
    args.op    = TC_RIED_OP_CHUNK;
    args.total = 4;
    snprintf(args.name, sizeof(args.name), "x%s", FORGED);
    assert_int_equal(tc_peer_send_kind(pair.s[0].peer, TC_KIND_RIED, 0, 0, &args, sizeof(args),
                                       "junk", 4, 0), TC_OK);
    while ((msg = logged_with("allow-list")) == NULL) {
        assert_int_equal(tc_peer_progress(pair.s[1].peer, 0, NULL), TC_OK);
    }
    tc_log_set_handler(NULL, NULL);
    print_message("logged: %s\n", msg);
    forged = forged_lines();
    print_message("forged lines: %u\n", forged);
    assert_int_equal(forged, 0);
    assert_non_null(strstr(msg, "ried 'x\\ntwochains: error: forged\\x1b[31m red \\x1b[0m\\r'"));
    pair_close(&pair);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nack_reason_escaped),
        cmocka_unit_test(test_ried_answer_escaped),
        cmocka_unit_test(test_ried_name_escaped),
    };
    test_filter_from_env();
    return cmocka_run_group_tests_name("peer_text", tests, NULL, NULL);
}
