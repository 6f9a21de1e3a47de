/*
 * Bootstrap over TCP: the server takes exactly one client (like
 * ucx_perftest's rendezvous), the first connection that says the hello
 * (strays that reach the port first are heard beside it and dropped), then
 * both use the shared fd framing from boot.c.
 */
#define _GNU_SOURCE /* accept4, SOCK_CLOEXEC, SOCK_NONBLOCK */

#include "boot.h"
#include "log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define TC_BOOT_TCP_RETRY_MS 50 /* client: pause between connect attempts */
/* Server: connections heard at once while none has said the hello (and the
 * listen backlog); past this, the longest-waiting one is dropped for the
 * newcomer. */
#define TC_BOOT_TCP_CANDIDATES 8

static const tc_boot_ops_t tc_boot_tcp_ops = {
    .name       = "tcp",
    .exchange   = tc_boot_fd_exchange,
    .check_peer = tc_boot_fd_check_peer,
    .close      = tc_boot_fd_close,
};

/* Bootstrap messages are small request/response steps: don't let Nagle hold
 * them back. */
static tc_status_t tc_boot_tcp_nodelay(tc_boot_fd_t *boot)
{
    int one = 1;

    if (setsockopt(boot->fd, IPPROTO_TCP, TCP_NODELAY, &one,
                   sizeof(one)) < 0) {
        tc_error("bootstrap: setting TCP_NODELAY on the connection to %s "
                 "failed: %s", boot->super.peer_name, strerror(errno));
        return TC_ERR_IO;
    }
    return TC_OK;
}

/* A connected stream, either side: no Nagle delay, then the hello. */
static tc_status_t tc_boot_tcp_ready(tc_boot_fd_t *boot)
{
    tc_status_t status = tc_boot_tcp_nodelay(boot);

    return (status == TC_OK) ? tc_boot_fd_hello(boot, 1, 1) : status;
}

static tc_status_t tc_boot_tcp_listen(uint16_t port, int *fd_p,
                                      uint16_t *port_p)
{
    struct sockaddr_in addr;
    socklen_t addrlen;
    tc_status_t status;
    int one = 1;
    int fd;

    fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        tc_error("bootstrap server: cannot create a TCP socket: %s",
                 strerror(errno));
        return TC_ERR_IO;
    }

    /* A server restarted right after a run must not wait out TIME_WAIT. */
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0) {
        tc_error("bootstrap server: setting SO_REUSEADDR for port %u failed: "
                 "%s", port, strerror(errno));
        status = TC_ERR_IO;
        goto err_close;
    }

    memset(&addr, 0, sizeof(addr));
    addr.sin_family      = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    addr.sin_port        = htons(port);
    if ((bind(fd, (struct sockaddr*)&addr, sizeof(addr)) < 0) ||
        (listen(fd, TC_BOOT_TCP_CANDIDATES) < 0)) {
        if (errno == EADDRINUSE) {
            tc_error("bootstrap server: port %u is already in use (another "
                     "server still running?); pick another port with -p",
                     port);
            status = TC_ERR_PORT_BUSY;
        } else {
            tc_error("bootstrap server: cannot listen on port %u: %s; pick "
                     "another port with -p", port, strerror(errno));
            status = TC_ERR_IO;
        }
        goto err_close;
    }

    addrlen = sizeof(addr);
    if (getsockname(fd, (struct sockaddr*)&addr, &addrlen) < 0) {
        tc_error("bootstrap server: cannot read the bound port: %s",
                 strerror(errno));
        status = TC_ERR_IO;
        goto err_close;
    }

    *fd_p   = fd;
    *port_p = ntohs(addr.sin_port);
    return TC_OK;

err_close:
    close(fd);
    return status;
}

static void tc_boot_tcp_name(const struct sockaddr *addr, socklen_t addrlen,
                             char *buf, size_t len)
{
    char host[INET6_ADDRSTRLEN];
    char serv[8];

    if (getnameinfo(addr, addrlen, host, sizeof(host), serv, sizeof(serv),
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
        snprintf(buf, len, "unknown client");
        return;
    }
    snprintf(buf, len, "%s:%s", host, serv);
}

/* A connection the server has accepted but not yet heard the hello from. */
typedef struct tc_boot_tcp_cand {
    int     fd;
    size_t  got;                      /* hello bytes received */
    uint8_t hello[TC_BOOT_HELLO_LEN];
    char    name[96];                 /* host:port, for the log */
} tc_boot_tcp_cand_t;

/* What the server makes of a candidate's bytes. */
typedef enum {
    TC_BOOT_CAND_WAIT,  /* nothing new, or a hello begun */
    TC_BOOT_CAND_HELLO, /* a whole hello: the client */
    TC_BOOT_CAND_DROP   /* gone, or not a twochains peer (logged) */
} tc_boot_cand_state_t;

static tc_boot_cand_state_t tc_boot_tcp_cand_read(tc_boot_tcp_cand_t *cand, uint16_t port)
{
    ssize_t n = recv(cand->fd, cand->hello + cand->got, sizeof(cand->hello) - cand->got,
                     MSG_DONTWAIT);

    if (n < 0) {
        if ((errno == EINTR) || (errno == EAGAIN) || (errno == EWOULDBLOCK)) {
            return TC_BOOT_CAND_WAIT;
        }
        tc_warn("bootstrap server: port %u: dropped %s: %s", port, cand->name, strerror(errno));
        return TC_BOOT_CAND_DROP;
    }
    if (n == 0) {
        tc_warn("bootstrap server: port %u: dropped %s: it closed after %zu of %u hello bytes",
                port, cand->name, cand->got, TC_BOOT_HELLO_LEN);
        return TC_BOOT_CAND_DROP;
    }
    cand->got += (size_t)n;
    if (!tc_boot_hello_prefix_ok(cand->hello, cand->got)) {
        tc_warn("bootstrap server: port %u: dropped %s: not a twochains peer (bad magic in "
                "its hello)", port, cand->name);
        return TC_BOOT_CAND_DROP;
    }
    return (cand->got == sizeof(cand->hello)) ? TC_BOOT_CAND_HELLO : TC_BOOT_CAND_WAIT;
}

static void tc_boot_tcp_cand_drop(tc_boot_tcp_cand_t *cands, int *n_p, int i)
{
    close(cands[i].fd);
    cands[i] = cands[--*n_p];
}

/* A new connection on the listener, heard from next (the oldest dropped
 * where TC_BOOT_TCP_CANDIDATES wait already). */
static tc_status_t tc_boot_tcp_cand_accept(int listen_fd, uint16_t port,
                                           tc_boot_tcp_cand_t *cands, int *n_p,
                                           unsigned *dropped_p)
{
    struct sockaddr_storage addr;
    socklen_t addrlen = sizeof(addr);
    int fd;

    fd = accept4(listen_fd, (struct sockaddr*)&addr, &addrlen, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
        /* The client may have given up between poll and accept. */
        if ((errno == EAGAIN) || (errno == EWOULDBLOCK) || (errno == EINTR) ||
            (errno == ECONNABORTED) || (errno == EPROTO)) {
            return TC_OK;
        }
        tc_error("bootstrap server: accepting a client on port %u failed: %s", port,
                 strerror(errno));
        return TC_ERR_IO;
    }
    if (*n_p == TC_BOOT_TCP_CANDIDATES) {
        tc_warn("bootstrap server: port %u: dropped %s: %d newer connections came before "
                "it said the hello", port, cands[0].name, TC_BOOT_TCP_CANDIDATES);
        close(cands[0].fd);
        memmove(&cands[0], &cands[1], sizeof(cands[0]) * (TC_BOOT_TCP_CANDIDATES - 1));
        --*n_p;
        ++*dropped_p;
    }
    cands[*n_p].fd  = fd;
    cands[*n_p].got = 0;
    tc_boot_tcp_name((struct sockaddr*)&addr, addrlen, cands[*n_p].name,
                     sizeof(cands[*n_p].name));
    ++*n_p;
    return TC_OK;
}

/* The one client: the first connection whose bytes are a whole hello (its
 * magic checked, its version not yet), in *hello. Strays that reach the
 * port first (they close, send something else, or say nothing) are heard
 * beside it and dropped, so they cannot take the client's place; the
 * deadline covers connecting and the hello. */
static tc_status_t tc_boot_tcp_accept(tc_boot_fd_t *boot, int listen_fd, uint16_t port,
                                      uint8_t hello[TC_BOOT_HELLO_LEN])
{
    uint64_t deadline = tc_boot_deadline(boot->super.timeout_ms);
    tc_boot_tcp_cand_t cands[TC_BOOT_TCP_CANDIDATES];
    struct pollfd pfds[1 + TC_BOOT_TCP_CANDIDATES];
    tc_boot_cand_state_t state;
    tc_status_t status = TC_OK;
    unsigned dropped   = 0;
    int n = 0, i, wait_ms, ret;

    for (;;) {
        wait_ms = tc_boot_time_left_ms(deadline);
        if (wait_ms <= 0) {
            tc_error("bootstrap server: no twochains client said its hello on port %u within "
                     "%d ms (%u other connection%s dropped); start the client or raise the "
                     "timeout", port, boot->super.timeout_ms, dropped, (dropped == 1) ? "" : "s");
            status = TC_ERR_TIMEOUT;
            break;
        }
        pfds[0] = (struct pollfd){.fd = listen_fd, .events = POLLIN};
        for (i = 0; i < n; ++i) {
            pfds[1 + i] = (struct pollfd){.fd = cands[i].fd, .events = POLLIN};
        }
        ret = poll(pfds, (nfds_t)(1 + n), wait_ms);
        if (ret < 0) {
            if (errno == EINTR) {
                continue;
            }
            tc_error("bootstrap server: waiting for a client on port %u: poll failed: %s", port,
                     strerror(errno));
            status = TC_ERR_IO;
            break;
        }
        /* candidates from the last one down, so a drop moves only ones
         * already heard */
        for (i = n - 1; i >= 0; --i) {
            if (pfds[1 + i].revents == 0) {
                continue;
            }
            state = tc_boot_tcp_cand_read(&cands[i], port);
            if (state == TC_BOOT_CAND_HELLO) {
                boot->fd = cands[i].fd;
                memcpy(hello, cands[i].hello, TC_BOOT_HELLO_LEN);
                snprintf(boot->super.peer_name, sizeof(boot->super.peer_name), "%s",
                         cands[i].name);
                cands[i] = cands[--n];
                goto out; /* the strays still waiting are closed below */
            }
            if (state == TC_BOOT_CAND_DROP) {
                tc_boot_tcp_cand_drop(cands, &n, i);
                ++dropped;
            }
        }
        if (pfds[0].revents & POLLIN) {
            status = tc_boot_tcp_cand_accept(listen_fd, port, cands, &n, &dropped);
            if (status != TC_OK) {
                break;
            }
        }
    }
out:
    while (n > 0) {
        tc_warn("bootstrap server: port %u: closed %s: connected, but said no hello before %s",
                port, cands[n - 1].name, (status == TC_OK) ? "the client's" : "the deadline");
        tc_boot_tcp_cand_drop(cands, &n, n - 1);
    }
    return status;
}

tc_status_t tc_boot_tcp_server_cb(uint16_t port, int timeout_ms,
                                  void (*port_cb)(uint16_t port, void *arg),
                                  void *arg, tc_boot_t **boot_p)
{
    uint8_t hello[TC_BOOT_HELLO_LEN];
    tc_boot_fd_t *boot;
    uint16_t bound_port;
    tc_status_t status;
    int listen_fd;

    if (boot_p == NULL) {
        tc_error("bootstrap server: NULL output pointer");
        return TC_ERR_INVALID_PARAM;
    }

    status = tc_boot_fd_create(&tc_boot_tcp_ops, 0, timeout_ms, &boot);
    if (status != TC_OK) {
        return status;
    }

    status = tc_boot_tcp_listen(port, &listen_fd, &bound_port);
    if (status != TC_OK) {
        goto err_free;
    }

    snprintf(boot->super.peer_name, sizeof(boot->super.peer_name),
             "client on port %u", bound_port);
    if (port_cb != NULL) {
        port_cb(bound_port, arg);
    }

    status = tc_boot_tcp_accept(boot, listen_fd, bound_port, hello);
    /* One client only: later ones get "connection refused", not a hang. */
    close(listen_fd);
    if (status != TC_OK) {
        goto err_free;
    }

    /* its hello is in: ours goes back (a client of another version then
     * says why too), then the version check */
    status = tc_boot_tcp_nodelay(boot);
    if (status == TC_OK) {
        status = tc_boot_fd_hello(boot, 1, 0);
    }
    if (status == TC_OK) {
        status = tc_boot_fd_hello_version(boot, hello);
    }
    if (status != TC_OK) {
        goto err_free;
    }

    *boot_p = &boot->super;
    return TC_OK;

err_free:
    tc_boot_fd_close(&boot->super);
    return status;
}

tc_status_t tc_boot_tcp_server(uint16_t port, int timeout_ms, tc_boot_t **boot_p)
{
    return tc_boot_tcp_server_cb(port, timeout_ms, NULL, NULL, boot_p);
}

/* Errors that mean "no server there (yet)": worth another try. */
static int tc_boot_tcp_retryable(int err)
{
    return (err == ECONNREFUSED) || (err == ENETUNREACH) ||
           (err == EHOSTUNREACH) || (err == ETIMEDOUT) ||
           (err == ECONNRESET) || (err == ECONNABORTED) ||
           (err == ENETDOWN) || (err == EADDRNOTAVAIL) ||
           (err == EAFNOSUPPORT) || (err == EINTR);
}

/* Linux can connect a socket to itself when the destination port is in the
 * ephemeral range and nobody listens there (TCP simultaneous open). */
static int tc_boot_tcp_is_self(int fd)
{
    struct sockaddr_storage local, remote;
    socklen_t local_len  = sizeof(local);
    socklen_t remote_len = sizeof(remote);

    if ((getsockname(fd, (struct sockaddr*)&local, &local_len) < 0) ||
        (getpeername(fd, (struct sockaddr*)&remote, &remote_len) < 0)) {
        return 0;
    }
    return (local_len == remote_len) && !memcmp(&local, &remote, local_len);
}

/* One attempt at one address; fd kept in boot on success. Returns
 * TC_ERR_PEER_NOT_FOUND (with *err_p set) when worth retrying. */
static tc_status_t tc_boot_tcp_connect_one(tc_boot_fd_t *boot,
                                           const struct addrinfo *ai,
                                           uint64_t deadline, int *err_p)
{
    struct pollfd pfd;
    socklen_t optlen;
    int fd, err, ret, wait_ms;

    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                ai->ai_protocol);
    if (fd < 0) {
        err = errno;
        goto out_err;
    }

    err = 0;
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
        err = errno;
    }

    /* Non-blocking connect, so an unreachable host cannot outlast the
     * deadline. */
    while (err == EINPROGRESS) {
        /* Poll even when the deadline has passed (0 ms), so that the last
         * attempt reports what really happened, e.g. ECONNREFUSED. */
        wait_ms     = tc_boot_time_left_ms(deadline);
        pfd.fd      = fd;
        pfd.events  = POLLOUT;
        pfd.revents = 0;
        ret         = poll(&pfd, 1, wait_ms);
        if (ret < 0) {
            if (errno != EINTR) {
                err = errno;
            }
        } else if (ret > 0) {
            optlen = sizeof(err);
            if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &optlen) < 0) {
                err = errno;
            }
        } else if (wait_ms <= 0) {
            err = ETIMEDOUT;
        }
    }

    if ((err == 0) && tc_boot_tcp_is_self(fd)) {
        err = ECONNREFUSED;
    }

    if (err == 0) {
        boot->fd = fd;
        return TC_OK;
    }

    close(fd);
out_err:
    *err_p = err;
    if (tc_boot_tcp_retryable(err)) {
        return TC_ERR_PEER_NOT_FOUND;
    }
    tc_error("bootstrap client: connecting to %s failed: %s",
             boot->super.peer_name, strerror(err));
    return TC_ERR_IO;
}

static tc_status_t tc_boot_tcp_connect(tc_boot_fd_t *boot,
                                       const struct addrinfo *ai_list)
{
    uint64_t deadline = tc_boot_deadline(boot->super.timeout_ms);
    const struct addrinfo *ai;
    tc_status_t status;
    int last_err = ECONNREFUSED;
    int wait_ms;

    for (;;) {
        for (ai = ai_list; ai != NULL; ai = ai->ai_next) {
            status = tc_boot_tcp_connect_one(boot, ai, deadline, &last_err);
            if (status != TC_ERR_PEER_NOT_FOUND) {
                return status;
            }
        }

        wait_ms = tc_boot_time_left_ms(deadline);
        if (wait_ms <= 0) {
            break;
        }

        /* The server may not be listening yet: retry at a steady pace. */
        poll(NULL, 0, (wait_ms < TC_BOOT_TCP_RETRY_MS) ? wait_ms :
                                                         TC_BOOT_TCP_RETRY_MS);
    }

    tc_error("bootstrap client: no twochains server at %s within %d ms (%s); "
             "is the server running, and are host and port right?",
             boot->super.peer_name, boot->super.timeout_ms,
             strerror(last_err));
    return TC_ERR_PEER_NOT_FOUND;
}

tc_status_t tc_boot_tcp_client(const char *host, uint16_t port, int timeout_ms,
                               tc_boot_t **boot_p)
{
    struct addrinfo hints, *ai_list;
    tc_boot_fd_t *boot;
    tc_status_t status;
    char service[8];
    int ret;

    if ((host == NULL) || (boot_p == NULL)) {
        tc_error("bootstrap client: NULL host or output pointer");
        return TC_ERR_INVALID_PARAM;
    }

    status = tc_boot_fd_create(&tc_boot_tcp_ops, 1, timeout_ms, &boot);
    if (status != TC_OK) {
        return status;
    }

    snprintf(boot->super.peer_name, sizeof(boot->super.peer_name), "%s:%u",
             host, port);
    snprintf(service, sizeof(service), "%u", port);

    memset(&hints, 0, sizeof(hints));
    hints.ai_family   = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags    = AI_NUMERICSERV;
    ret = getaddrinfo(host, service, &hints, &ai_list);
    if (ret != 0) {
        tc_error("bootstrap client: cannot resolve the server address %s: %s",
                 boot->super.peer_name, gai_strerror(ret));
        status = TC_ERR_PEER_NOT_FOUND;
        goto err_free;
    }

    status = tc_boot_tcp_connect(boot, ai_list);
    freeaddrinfo(ai_list);
    if (status != TC_OK) {
        goto err_free;
    }

    status = tc_boot_tcp_ready(boot);
    if (status != TC_OK) {
        goto err_free;
    }

    *boot_p = &boot->super;
    return TC_OK;

err_free:
    tc_boot_fd_close(&boot->super);
    return status;
}
