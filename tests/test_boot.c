/*
 * Bootstrap tests: loopback pair, TCP server/client, and every failure the
 * bootstrap reports (peer not found, port busy, timeout, version mismatch,
 * peer gone mid-exchange, non-twochains peer, strays ahead of the client),
 * a peer that leaves saying why (its bye), and a loopback pair in lockstep
 * (its two threads take turns).
 * Loopback addresses only.
 *
 * cmocka asserts longjmp, so helper threads only record results and the
 * test's own thread asserts on them after joining.
 */
#define _GNU_SOURCE

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "twochains.h"
#include "boot.h"

#define TEST_TIMEOUT_MS  5000
#define TEST_SHORT_MS    300
#define TEST_BIG_LEN     (1u << 20)

/* Wire format, spelled out here so the tests also pin it down. */
static const uint8_t test_magic[8] = { 'T', 'C', 'H', 'A', 'I', 'N', 'S', 0 };

static uint64_t test_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint8_t test_pattern(int rank, size_t i)
{
    return (uint8_t)(i * 31u + (size_t)rank * 7u + 1u);
}

/* ------------------------------------------------------------ port box */

/* The server thread publishes its ephemeral port here for the client. */
typedef struct port_box {
    pthread_mutex_t lock;
    pthread_cond_t  cond;
    uint16_t        port;
    int             failed;
} port_box_t;

static void port_box_init(port_box_t *box)
{
    pthread_mutex_init(&box->lock, NULL);
    pthread_cond_init(&box->cond, NULL);
    box->port   = 0;
    box->failed = 0;
}

static void port_box_destroy(port_box_t *box)
{
    pthread_cond_destroy(&box->cond);
    pthread_mutex_destroy(&box->lock);
}

static void port_box_post(port_box_t *box, uint16_t port, int failed)
{
    pthread_mutex_lock(&box->lock);
    box->port   = port;
    box->failed = failed;
    pthread_cond_broadcast(&box->cond);
    pthread_mutex_unlock(&box->lock);
}

/* 0 when the server failed before listening. */
static uint16_t port_box_wait(port_box_t *box)
{
    uint16_t port;

    pthread_mutex_lock(&box->lock);
    while ((box->port == 0) && !box->failed) {
        pthread_cond_wait(&box->cond, &box->lock);
    }
    port = box->port;
    pthread_mutex_unlock(&box->lock);
    return port;
}

static void port_box_cb(uint16_t port, void *arg)
{
    port_box_post(arg, port, 0);
}

/* ------------------------------------------------------------- sides */

typedef enum {
    SIDE_GIVEN,   /* boot already made (loopback pair) */
    SIDE_SERVER,
    SIDE_CLIENT
} side_mode_t;

typedef struct side {
    side_mode_t  mode;
    int          timeout_ms;
    port_box_t  *box;
    int          exchange;      /* run run_exchanges() once connected */
    tc_status_t  conn_status;
    tc_boot_t   *boot;          /* left open for the test to check/close */
    tc_status_t  xchg_status;   /* first exchange failure */
    int          small_ok;
    int          big_ok;
} side_t;

static void side_init(side_t *side, side_mode_t mode, port_box_t *box,
                      tc_boot_t *boot, int exchange)
{
    memset(side, 0, sizeof(*side));
    side->mode        = mode;
    side->timeout_ms  = TEST_TIMEOUT_MS;
    side->box         = box;
    side->boot        = boot;
    side->exchange    = exchange;
    side->conn_status = TC_OK;
    side->xchg_status = TC_OK;
}

/* A small blob, a 1 MiB blob (both sides at once: must not deadlock), and a
 * barrier. */
static void run_exchanges(side_t *side)
{
    tc_boot_t *boot = side->boot;
    int peer_rank   = 1 - boot->rank;
    char small[64], expect[64];
    uint8_t *big, *got;
    size_t got_len, i;
    tc_status_t status;
    void *peer_buf;

    snprintf(small, sizeof(small), "hello from rank %d", boot->rank);
    snprintf(expect, sizeof(expect), "hello from rank %d", peer_rank);
    status = tc_boot_exchange(boot, small, strlen(small) + 1, &peer_buf,
                              &got_len);
    if (status != TC_OK) {
        side->xchg_status = status;
        return;
    }
    side->small_ok = (got_len == strlen(expect) + 1) &&
                     !strcmp(peer_buf, expect);
    free(peer_buf);

    big = malloc(TEST_BIG_LEN);
    if (big == NULL) {
        side->xchg_status = TC_ERR_NO_MEMORY;
        return;
    }
    for (i = 0; i < TEST_BIG_LEN; ++i) {
        big[i] = test_pattern(boot->rank, i);
    }
    status = tc_boot_exchange(boot, big, TEST_BIG_LEN, &peer_buf, &got_len);
    free(big);
    if (status != TC_OK) {
        side->xchg_status = status;
        return;
    }
    got          = peer_buf;
    side->big_ok = (got_len == TEST_BIG_LEN);
    for (i = 0; side->big_ok && (i < got_len); ++i) {
        side->big_ok = (got[i] == test_pattern(peer_rank, i));
    }
    free(peer_buf);

    side->xchg_status = tc_boot_barrier(boot);
}

static void *side_thread(void *arg)
{
    side_t *side = arg;
    uint16_t port;

    switch (side->mode) {
    case SIDE_SERVER:
        side->conn_status = tc_boot_tcp_server_cb(0, side->timeout_ms,
                                                  port_box_cb, side->box,
                                                  &side->boot);
        if (side->conn_status != TC_OK) {
            port_box_post(side->box, 0, 1); /* unblock a waiting client */
        }
        break;
    case SIDE_CLIENT:
        port = port_box_wait(side->box);
        if (port == 0) {
            side->conn_status = TC_ERR_INVALID_PARAM;
            break;
        }
        side->conn_status = tc_boot_tcp_client("127.0.0.1", port,
                                               side->timeout_ms, &side->boot);
        break;
    case SIDE_GIVEN:
        break;
    }

    if ((side->conn_status == TC_OK) && side->exchange) {
        run_exchanges(side);
    }
    return NULL;
}

static void side_start(side_t *side, pthread_t *thread)
{
    assert_int_equal(pthread_create(thread, NULL, side_thread, side), 0);
}

static void assert_exchanged(const side_t *side)
{
    assert_int_equal(side->conn_status, TC_OK);
    assert_int_equal(side->xchg_status, TC_OK);
    assert_true(side->small_ok);
    assert_true(side->big_ok);
}

/* ------------------------------------------------------- raw sockets */

/* A free loopback port: bind port 0, read it back, close. */
static uint16_t unused_port(void)
{
    struct sockaddr_in addr;
    socklen_t len = sizeof(addr);
    int fd;

    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    memset(&addr, 0, sizeof(addr));
    addr.sin_family      = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr*)&addr, sizeof(addr)), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr*)&addr, &len), 0);
    close(fd);
    return ntohs(addr.sin_port);
}

/* A socket's connect to the loopback port: connect's result (errno set),
 * the socket in *fd_p either way. */
static int raw_try_connect(uint16_t port, int *fd_p)
{
    struct sockaddr_in addr;

    *fd_p = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(*fd_p >= 0);
    memset(&addr, 0, sizeof(addr));
    addr.sin_family      = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port        = htons(port);
    return connect(*fd_p, (struct sockaddr*)&addr, sizeof(addr));
}

static int raw_connect(uint16_t port)
{
    int fd;

    assert_int_equal(raw_try_connect(port, &fd), 0);
    return fd;
}

static void raw_send(int fd, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    ssize_t n;

    while (len > 0) {
        n = send(fd, p, len, MSG_NOSIGNAL);
        if ((n < 0) && (errno == EINTR)) {
            continue;
        }
        assert_true(n > 0);
        p   += n;
        len -= (size_t)n;
    }
}

static void raw_recv(int fd, void *buf, size_t len)
{
    uint8_t *p = buf;
    ssize_t n;

    while (len > 0) {
        n = recv(fd, p, len, 0);
        if ((n < 0) && (errno == EINTR)) {
            continue;
        }
        assert_true(n > 0);
        p   += n;
        len -= (size_t)n;
    }
}

static void put_le(uint8_t *p, uint64_t value, size_t n)
{
    size_t i;

    for (i = 0; i < n; ++i) {
        p[i] = (uint8_t)(value >> (8 * i));
    }
}

/* Play a correct client's hello by hand; check the server's. */
static int raw_hello_client(uint16_t port)
{
    uint8_t hello[16], peer[16];
    int fd;

    fd = raw_connect(port);
    memcpy(hello, test_magic, 8);
    put_le(hello + 8, TC_PROTO_VERSION, 4);
    put_le(hello + 12, 0, 4);
    raw_send(fd, hello, sizeof(hello));
    raw_recv(fd, peer, sizeof(peer));
    assert_memory_equal(peer, hello, sizeof(hello));
    return fd;
}

/* Wait (up to 10 s: a loaded host) until check_peer reports the peer gone. */
static tc_status_t wait_peer_failed(tc_boot_t *boot)
{
    uint64_t start = test_now_ms();
    tc_status_t status;

    do {
        status = boot->ops->check_peer(boot);
        if (status != TC_OK) {
            return status;
        }
        poll(NULL, 0, 1);
    } while (test_now_ms() - start < 10000);
    return status;
}

/* --------------------------------------------------------------- tests */

static void test_loopback_exchange(void **state)
{
    tc_boot_t *rank0 = NULL, *rank1 = NULL;
    side_t sides[2];
    pthread_t threads[2];
    int i;

    (void)state;
    assert_int_equal(tc_boot_loopback_pair(TEST_TIMEOUT_MS, &rank0, &rank1),
                     TC_OK);
    assert_int_equal(rank0->rank, 0);
    assert_int_equal(rank1->rank, 1);
    assert_int_equal(rank0->size, 2);
    assert_int_equal(rank1->size, 2);
    assert_string_equal(rank0->peer_name, "loopback:rank1");
    assert_string_equal(rank1->peer_name, "loopback:rank0");

    side_init(&sides[0], SIDE_GIVEN, NULL, rank0, 1);
    side_init(&sides[1], SIDE_GIVEN, NULL, rank1, 1);
    for (i = 0; i < 2; ++i) {
        side_start(&sides[i], &threads[i]);
    }
    for (i = 0; i < 2; ++i) {
        pthread_join(threads[i], NULL);
    }
    for (i = 0; i < 2; ++i) {
        assert_exchanged(&sides[i]);
    }

    tc_boot_close(rank0);
    tc_boot_close(rank1);
}

static void test_tcp_exchange(void **state)
{
    char expect[32];
    port_box_t box;
    side_t server, client;
    pthread_t threads[2];
    uint16_t port;

    (void)state;
    port_box_init(&box);
    side_init(&server, SIDE_SERVER, &box, NULL, 1);
    side_init(&client, SIDE_CLIENT, &box, NULL, 1);
    side_start(&server, &threads[0]);
    side_start(&client, &threads[1]);
    pthread_join(threads[0], NULL);
    pthread_join(threads[1], NULL);

    assert_exchanged(&server);
    assert_exchanged(&client);

    port = box.port;
    assert_int_not_equal(port, 0);
    assert_int_equal(server.boot->rank, 0);
    assert_int_equal(client.boot->rank, 1);
    assert_int_equal(server.boot->size, 2);
    assert_int_equal(client.boot->size, 2);
    snprintf(expect, sizeof(expect), "127.0.0.1:%u", port);
    assert_string_equal(client.boot->peer_name, expect);
    assert_memory_equal(server.boot->peer_name, "127.0.0.1:", 10);
    assert_string_equal(server.boot->ops->name, "tcp");

    /* Both open: check_peer is quiet and OK. Then the client goes away. */
    assert_int_equal(server.boot->ops->check_peer(server.boot), TC_OK);
    assert_int_equal(client.boot->ops->check_peer(client.boot), TC_OK);
    tc_boot_close(client.boot);
    assert_int_equal(wait_peer_failed(server.boot), TC_ERR_PEER_FAILED);
    tc_boot_close(server.boot);
    port_box_destroy(&box);
}

static void test_client_no_server(void **state)
{
    tc_boot_t *sentinel = (tc_boot_t*)(uintptr_t)0x1;
    tc_boot_t *boot     = sentinel;
    uint16_t port       = unused_port();
    uint64_t start, elapsed;

    (void)state;
    start   = test_now_ms();
    assert_int_equal(tc_boot_tcp_client("127.0.0.1", port, TEST_SHORT_MS,
                                        &boot),
                     TC_ERR_PEER_NOT_FOUND);
    elapsed = test_now_ms() - start;
    assert_ptr_equal(boot, sentinel); /* outputs untouched on failure */
    /* Kept retrying until the deadline, and not much longer. */
    assert_true(elapsed >= TEST_SHORT_MS - 10);
    assert_true(elapsed < TEST_SHORT_MS + 700);
}

static void test_port_busy(void **state)
{
    struct sockaddr_in addr;
    socklen_t len = sizeof(addr);
    tc_boot_t *boot = NULL;
    uint64_t start;
    int fd;

    (void)state;
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    memset(&addr, 0, sizeof(addr));
    addr.sin_family      = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr*)&addr, sizeof(addr)), 0);
    assert_int_equal(listen(fd, 1), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr*)&addr, &len), 0);

    start = test_now_ms();
    assert_int_equal(tc_boot_tcp_server(ntohs(addr.sin_port), TEST_SHORT_MS,
                                        &boot),
                     TC_ERR_PORT_BUSY);
    assert_null(boot);
    assert_true(test_now_ms() - start < TEST_SHORT_MS); /* fails at once */
    close(fd);
}

static void test_server_timeout(void **state)
{
    tc_boot_t *boot = NULL;
    uint64_t start, elapsed;

    (void)state;
    start   = test_now_ms();
    assert_int_equal(tc_boot_tcp_server(0, TEST_SHORT_MS, &boot),
                     TC_ERR_TIMEOUT);
    elapsed = test_now_ms() - start;
    assert_null(boot);
    assert_true(elapsed >= TEST_SHORT_MS - 10);
    assert_true(elapsed < TEST_SHORT_MS + 700);
}

/* The peer never takes part: the exchange gives up at the deadline. */
static void test_exchange_timeout(void **state)
{
    tc_boot_t *rank0 = NULL, *rank1 = NULL;
    void *buf       = NULL;
    size_t len      = 0;
    uint64_t start, elapsed;

    (void)state;
    assert_int_equal(tc_boot_loopback_pair(TEST_SHORT_MS, &rank0, &rank1),
                     TC_OK);
    start   = test_now_ms();
    assert_int_equal(tc_boot_exchange(rank0, "x", 1, &buf, &len),
                     TC_ERR_TIMEOUT);
    elapsed = test_now_ms() - start;
    assert_null(buf);
    assert_int_equal(len, 0);
    assert_true(elapsed >= TEST_SHORT_MS - 10);
    assert_true(elapsed < TEST_SHORT_MS + 700);
    tc_boot_close(rank0);
    tc_boot_close(rank1);
}

static void pipe_port_cb(uint16_t port, void *arg)
{
    int fd = *(int*)arg;

    if (write(fd, &port, sizeof(port)) != (ssize_t)sizeof(port)) {
        fprintf(stderr, "test: cannot pass the port to the child\n");
    }
}

/* The environment is process-wide, so the client with the faked version
 * runs in a forked child; the server (this process) keeps the real one. */
static void test_version_mismatch(void **state)
{
    tc_boot_t *boot = NULL;
    tc_status_t status;
    int pipefd[2], wstatus;
    uint16_t port;
    pid_t pid;

    (void)state;
    assert_int_equal(pipe(pipefd), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(pipefd[1]);
        if (read(pipefd[0], &port, sizeof(port)) != (ssize_t)sizeof(port)) {
            _exit(100);
        }
        close(pipefd[0]);
        setenv("TC_BOOT_FAKE_VERSION", "999", 1);
        status = tc_boot_tcp_client("127.0.0.1", port, TEST_TIMEOUT_MS, &boot);
        if (status == TC_OK) {
            tc_boot_close(boot);
        }
        _exit((status == TC_ERR_VERSION_MISMATCH) ? 0 : (int)-status);
    }

    close(pipefd[0]);
    status = tc_boot_tcp_server_cb(0, TEST_TIMEOUT_MS, pipe_port_cb,
                                   &pipefd[1], &boot);
    close(pipefd[1]);
    assert_int_equal(waitpid(pid, &wstatus, 0), pid);
    assert_int_equal(status, TC_ERR_VERSION_MISMATCH);
    assert_null(boot);
    assert_true(WIFEXITED(wstatus));
    assert_int_equal(WEXITSTATUS(wstatus), 0); /* the client saw it too */
}

/* A client does the hello, starts sending a blob, and closes halfway. */
static void test_peer_closes_mid_exchange(void **state)
{
    uint8_t hdr[8], part[10] = { 0 };
    port_box_t box;
    side_t server;
    pthread_t thread;
    void *buf;
    size_t len;
    int fd;

    (void)state;
    port_box_init(&box);
    side_init(&server, SIDE_SERVER, &box, NULL, 1);
    side_start(&server, &thread);

    fd = raw_hello_client(port_box_wait(&box));
    put_le(hdr, 1000, sizeof(hdr));
    raw_send(fd, hdr, sizeof(hdr));
    raw_send(fd, part, sizeof(part));
    close(fd);
    pthread_join(thread, NULL);

    assert_int_equal(server.conn_status, TC_OK);
    assert_int_equal(server.xchg_status, TC_ERR_PEER_FAILED);
    /* The stream is out of step now: later exchanges fail the same way. */
    assert_int_equal(tc_boot_exchange(server.boot, "x", 1, &buf, &len),
                     TC_ERR_PEER_FAILED);
    tc_boot_close(server.boot);
    port_box_destroy(&box);
}

/* A twochains-speaking client announces a blob over the 64 MiB cap. */
static void test_oversized_blob(void **state)
{
    uint8_t hdr[8];
    port_box_t box;
    side_t server;
    pthread_t thread;
    int fd;

    (void)state;
    port_box_init(&box);
    side_init(&server, SIDE_SERVER, &box, NULL, 1);
    side_start(&server, &thread);

    fd = raw_hello_client(port_box_wait(&box));
    put_le(hdr, 1ull << 40, sizeof(hdr));
    raw_send(fd, hdr, sizeof(hdr));
    pthread_join(thread, NULL); /* before close: PROTOCOL, not PEER_FAILED */
    close(fd);

    assert_int_equal(server.conn_status, TC_OK);
    assert_int_equal(server.xchg_status, TC_ERR_PROTOCOL);
    tc_boot_close(server.boot);
    port_box_destroy(&box);
}

static void test_check_peer(void **state)
{
    tc_boot_t *rank0 = NULL, *rank1 = NULL;
    side_t sender, receiver;
    pthread_t thread;
    size_t len;
    void *buf;
    int i;

    (void)state;
    assert_int_equal(tc_boot_loopback_pair(TEST_TIMEOUT_MS, &rank0, &rank1),
                     TC_OK);
    assert_int_equal(rank0->ops->check_peer(rank0), TC_OK);
    assert_int_equal(rank1->ops->check_peer(rank1), TC_OK);

    /* rank1's blobs sit unread in rank0's socket while rank0 keeps
     * checking: check_peer must stay OK and must not eat them. */
    side_init(&sender, SIDE_GIVEN, NULL, rank1, 1);
    side_start(&sender, &thread);
    for (i = 0; i < 50; ++i) {
        assert_int_equal(rank0->ops->check_peer(rank0), TC_OK);
        poll(NULL, 0, 1);
    }
    side_init(&receiver, SIDE_GIVEN, NULL, rank0, 1);
    side_thread(&receiver); /* rank0's half of the same exchanges, here */
    pthread_join(thread, NULL);
    assert_exchanged(&receiver);
    assert_exchanged(&sender);

    assert_int_equal(rank0->ops->check_peer(rank0), TC_OK);
    tc_boot_close(rank1);
    assert_int_equal(rank0->ops->check_peer(rank0), TC_ERR_PEER_FAILED);
    assert_int_equal(tc_boot_exchange(rank0, "x", 1, &buf, &len),
                     TC_ERR_PEER_FAILED);
    tc_boot_close(rank0);
}

static void test_count_errors(tc_log_level_t level, const char *msg, void *arg)
{
    (void)msg;
    *(int *)arg += (level == TC_LOG_ERROR);
}

typedef struct bye_xchg {
    tc_boot_t  *boot;
    tc_status_t status;
} bye_xchg_t;

static void *test_bye_exchange(void *arg)
{
    bye_xchg_t *x = arg;
    size_t len;
    void *buf = NULL;

    x->status = tc_boot_exchange(x->boot, "x", 1, &buf, &len);
    free(buf);
    return NULL;
}

/* A peer that leaves saying why (tc-perf's client on Ctrl-C): this side's
 * check_peer and an exchange it is in end in TC_ERR_CLOSED, log nothing,
 * and the reason comes escaped (it is the peer's text); the side that said
 * it exchanges nothing more and says it once. */
static void test_bye(void **state)
{
    tc_boot_t *rank0 = NULL, *rank1 = NULL;
    bye_xchg_t x;
    pthread_t thread;
    void *buf;
    size_t len;
    int errors = 0;

    (void)state;
    assert_int_equal(tc_boot_loopback_pair(TEST_TIMEOUT_MS, &rank0, &rank1), TC_OK);
    assert_null(tc_boot_peer_bye(rank0));
    tc_log_set_handler(test_count_errors, &errors);

    /* rank0 waits in an exchange when rank1 leaves */
    x.boot = rank0;
    assert_int_equal(pthread_create(&thread, NULL, test_bye_exchange, &x), 0);
    assert_int_equal(tc_boot_say_bye(rank1, "interrupted\ntwochains: error: \x1b[31mforged"),
                     TC_OK);
    assert_int_equal(tc_boot_say_bye(rank1, "again"), TC_ERR_BUSY);
    assert_int_equal(tc_boot_exchange(rank1, "y", 1, &buf, &len), TC_ERR_CLOSED);
    tc_boot_close(rank1);
    pthread_join(thread, NULL);
    assert_int_equal(x.status, TC_ERR_CLOSED);
    assert_string_equal(tc_boot_peer_bye(rank0),
                        "interrupted\\ntwochains: error: \\x1b[31mforged");
    assert_int_equal(rank0->ops->check_peer(rank0), TC_ERR_CLOSED);
    tc_boot_close(rank0);

    /* the bye waits unread behind nothing: check_peer finds it */
    assert_int_equal(tc_boot_loopback_pair(TEST_TIMEOUT_MS, &rank0, &rank1), TC_OK);
    assert_int_equal(tc_boot_say_bye(rank1, "interrupted"), TC_OK);
    tc_boot_close(rank1);
    assert_int_equal(rank0->ops->check_peer(rank0), TC_ERR_CLOSED);
    assert_string_equal(tc_boot_peer_bye(rank0), "interrupted");
    assert_int_equal(tc_boot_exchange(rank0, "x", 1, &buf, &len), TC_ERR_CLOSED);
    tc_boot_close(rank0);

    tc_log_set_handler(NULL, NULL);
    assert_int_equal(errors, 0);
}

/* Something that is not a twochains client connects and talks, and no
 * client follows: the server drops it at once (its socket sees the close)
 * and keeps listening until its deadline, which it then reports. */
static void test_junk_client(void **state)
{
    static const char junk[] = "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n";
    port_box_t box;
    side_t server;
    pthread_t thread;
    char byte;
    int fd;

    (void)state;
    port_box_init(&box);
    side_init(&server, SIDE_SERVER, &box, NULL, 0);
    server.timeout_ms = 1000;
    side_start(&server, &thread);

    fd = raw_connect(port_box_wait(&box));
    raw_send(fd, junk, sizeof(junk) - 1);
    /* dropped on its first bytes, not at the deadline: EOF (or a reset) */
    assert_true(recv(fd, &byte, 1, 0) <= 0);
    pthread_join(thread, NULL);
    close(fd);

    assert_int_equal(server.conn_status, TC_ERR_TIMEOUT);
    assert_null(server.boot);
    port_box_destroy(&box);
}

/* Strays reach the server's port before its client (another program, a
 * client of an earlier run still retrying): one that connects and never
 * speaks, one that sends junk. The server must not give its one client's
 * place to either: it pairs with the client that says the hello, closes
 * the strays, and then takes no more connections. */
static void test_strays_before_client(void **state)
{
    static const char junk[] = "\x16\x03\x01 not a hello";
    port_box_t box;
    side_t server, client;
    pthread_t threads[2];
    int silent, noisy, late;
    uint16_t port;
    char byte;

    (void)state;
    port_box_init(&box);
    side_init(&server, SIDE_SERVER, &box, NULL, 1);
    side_start(&server, &threads[0]);
    port = port_box_wait(&box);
    assert_int_not_equal(port, 0);

    silent = raw_connect(port);
    noisy  = raw_connect(port);
    raw_send(noisy, junk, sizeof(junk) - 1);
    side_init(&client, SIDE_CLIENT, &box, NULL, 1);
    side_start(&client, &threads[1]);
    pthread_join(threads[0], NULL);
    pthread_join(threads[1], NULL);

    assert_exchanged(&server);
    assert_exchanged(&client);
    /* both strays were closed by the server */
    assert_true(recv(silent, &byte, 1, 0) <= 0);
    assert_true(recv(noisy, &byte, 1, 0) <= 0);
    /* and the listener is gone: a late connection is refused */
    assert_int_equal(raw_try_connect(port, &late), -1);
    assert_int_equal(errno, ECONNREFUSED);
    close(late);
    close(silent);
    close(noisy);
    tc_boot_close(server.boot);
    tc_boot_close(client.boot);
    port_box_destroy(&box);
}


/* ------------------------------------------------------------ lockstep */

/* A lockstep pair's two threads each log their steps; only one may run at
 * a time, so the log comes out in one order however the threads are
 * scheduled. */
typedef struct lock_log {
    tc_boot_t  *boot;
    char       *log;     /* shared: one letter per step */
    int        *n;
    int         delay;   /* rank 0 dawdles first: a rank 1 that ran before
                          * its turn would log ahead of it */
    tc_status_t status[3];
    char        got[2][8];
} lock_log_t;

static void lock_log_step(lock_log_t *l, char c)
{
    int i = __atomic_fetch_add(l->n, 1, __ATOMIC_SEQ_CST);

    l->log[i] = c;
}

static void *lock_log_run(void *arg)
{
    lock_log_t *l = arg;
    char mine[8];
    void *buf;
    size_t len;
    int round;

    l->status[0] = (l->boot->rank == 0) ? TC_OK : tc_boot_turn_wait(l->boot);
    if (l->delay) {
        poll(NULL, 0, l->delay);
    }
    lock_log_step(l, (char)('a' + l->boot->rank));
    for (round = 0; (round < 2) && (l->status[0] == TC_OK); ++round) {
        snprintf(mine, sizeof(mine), "r%d-%d", l->boot->rank, round);
        buf = NULL;
        len = 0;
        l->status[1 + round] = tc_boot_exchange(l->boot, mine, strlen(mine) + 1, &buf, &len);
        if (l->status[1 + round] == TC_OK) {
            snprintf(l->got[round], sizeof(l->got[round]), "%s", (char *)buf);
        }
        free(buf);
        lock_log_step(l, (char)('A' + 2 * round + l->boot->rank));
    }
    tc_boot_turn_pass(l->boot);
    return NULL;
}

static void test_loopback_lockstep(void **state)
{
    tc_boot_t *rank0 = NULL, *rank1 = NULL;
    char log[8] = "";
    int n = 0;
    lock_log_t l[2];
    pthread_t thread;

    (void)state;
    assert_int_equal(tc_boot_loopback_pair(TEST_TIMEOUT_MS, &rank0, &rank1), TC_OK);
    assert_int_equal(tc_boot_loopback_lockstep(rank0, rank1), TC_OK);
    /* twice into lockstep, or a TCP-less NULL end: refused */
    assert_int_equal(tc_boot_loopback_lockstep(rank0, rank1), TC_ERR_INVALID_PARAM);
    assert_int_equal(tc_boot_loopback_lockstep(NULL, rank1), TC_ERR_INVALID_PARAM);
    memset(l, 0, sizeof(l));
    l[0] = (lock_log_t){.boot = rank0, .log = log, .n = &n, .delay = 50};
    l[1] = (lock_log_t){.boot = rank1, .log = log, .n = &n};
    assert_int_equal(pthread_create(&thread, NULL, lock_log_run, &l[1]), 0);
    lock_log_run(&l[0]);
    pthread_join(thread, NULL);
    /* a, then b; each exchange hands the turn over: A B C D */
    assert_string_equal(log, "abABCD");
    assert_int_equal(l[0].status[1], TC_OK);
    assert_int_equal(l[1].status[2], TC_OK);
    assert_string_equal(l[0].got[0], "r1-0");
    assert_string_equal(l[0].got[1], "r1-1");
    assert_string_equal(l[1].got[0], "r0-0");
    assert_string_equal(l[1].got[1], "r0-1");
    tc_boot_close(rank0);
    tc_boot_close(rank1);
}

/* In lockstep a peer that closes without its exchange, or never takes
 * part, is reported, not waited for forever; a TCP end is refused. */
static void test_lockstep_peer_gone(void **state)
{
    tc_boot_t *rank0 = NULL, *rank1 = NULL;
    void *buf = NULL;
    size_t len = 0;
    uint64_t start, elapsed;

    (void)state;
    assert_int_equal(tc_boot_loopback_pair(TEST_SHORT_MS, &rank0, &rank1), TC_OK);
    assert_int_equal(tc_boot_loopback_lockstep(rank0, rank1), TC_OK);
    /* rank 1 never runs: its turn never comes back to rank 0 */
    start   = test_now_ms();
    assert_int_equal(tc_boot_exchange(rank0, "x", 1, &buf, &len), TC_ERR_TIMEOUT);
    elapsed = test_now_ms() - start;
    assert_null(buf);
    assert_true(elapsed >= TEST_SHORT_MS - 10);
    /* rank 1 (holding the turn now) closes without sending */
    tc_boot_close(rank1);
    assert_int_equal(tc_boot_turn_wait(rank0), TC_OK);
    assert_int_equal(tc_boot_exchange(rank0, "y", 1, &buf, &len), TC_ERR_PROTOCOL);
    tc_boot_close(rank0);

    assert_int_equal(tc_boot_loopback_pair(TEST_SHORT_MS, &rank0, &rank1), TC_OK);
    assert_int_equal(tc_boot_loopback_lockstep(rank0, rank1), TC_OK);
    tc_boot_close(rank1);
    assert_int_equal(tc_boot_exchange(rank0, "z", 1, &buf, &len), TC_ERR_PEER_FAILED);
    assert_null(buf);
    tc_boot_close(rank0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loopback_exchange),
        cmocka_unit_test(test_tcp_exchange),
        cmocka_unit_test(test_client_no_server),
        cmocka_unit_test(test_port_busy),
        cmocka_unit_test(test_server_timeout),
        cmocka_unit_test(test_exchange_timeout),
        cmocka_unit_test(test_version_mismatch),
        cmocka_unit_test(test_peer_closes_mid_exchange),
        cmocka_unit_test(test_oversized_blob),
        cmocka_unit_test(test_check_peer),
        cmocka_unit_test(test_bye),
        cmocka_unit_test(test_junk_client),
        cmocka_unit_test(test_strays_before_client),
        cmocka_unit_test(test_loopback_lockstep),
        cmocka_unit_test(test_lockstep_peer_gone),
    };

    return cmocka_run_group_tests_name("boot", tests, NULL, NULL);
}
