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
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define TC_BOOT_TCP_RETRY_MS 50 /* client: pause between connect attempts */

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
        (listen(fd, TC_BOOT_LISTEN_CANDIDATES) < 0)) {
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

/* What a listener makes of a candidate's bytes. */
typedef enum {
    TC_BOOT_CAND_WAIT,  /* nothing new, or a hello begun */
    TC_BOOT_CAND_HELLO, /* a whole hello: a peer */
    TC_BOOT_CAND_DROP   /* gone, or not a twochains peer (logged) */
} tc_boot_cand_state_t;

static tc_boot_cand_state_t tc_boot_cand_read(tc_boot_cand_t *cand, uint16_t port)
{
    ssize_t n = recv(cand->fd, cand->hello + cand->got, sizeof(cand->hello) - cand->got,
                     MSG_DONTWAIT);

    if (n < 0) {
        if ((errno == EINTR) || (errno == EAGAIN) || (errno == EWOULDBLOCK)) {
            return TC_BOOT_CAND_WAIT;
        }
        tc_warn("bootstrap: port %u: dropped %s: %s", port, cand->name, strerror(errno));
        return TC_BOOT_CAND_DROP;
    }
    if (n == 0) {
        tc_warn("bootstrap: port %u: dropped %s: it closed after %zu of %u hello bytes", port,
                cand->name, cand->got, TC_BOOT_HELLO_LEN);
        return TC_BOOT_CAND_DROP;
    }
    cand->got += (size_t)n;
    if (!tc_boot_hello_prefix_ok(cand->hello, cand->got)) {
        tc_warn("bootstrap: port %u: dropped %s: not a twochains peer (bad magic in its "
                "hello)", port, cand->name);
        return TC_BOOT_CAND_DROP;
    }
    return (cand->got == sizeof(cand->hello)) ? TC_BOOT_CAND_HELLO : TC_BOOT_CAND_WAIT;
}

/* Candidate i leaves the list (its fd closed unless keep); the rest keep
 * their order of arrival, so cands[0] is always the longest-waiting. */
static void tc_boot_cand_remove(tc_boot_listen_t *l, int i, int keep)
{
    if (!keep) {
        close(l->cands[i].fd);
    }
    l->n--;
    memmove(&l->cands[i], &l->cands[i + 1], sizeof(l->cands[0]) * (size_t)(l->n - i));
}

/* A new connection on the listener, heard from next (the longest-waiting
 * one dropped where TC_BOOT_LISTEN_CANDIDATES wait already). */
static tc_status_t tc_boot_cand_accept(tc_boot_listen_t *l)
{
    struct sockaddr_storage addr;
    socklen_t addrlen = sizeof(addr);
    tc_boot_cand_t *cand;
    int fd;

    fd = accept4(l->fd, (struct sockaddr*)&addr, &addrlen, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
        /* The client may have given up between poll and accept. */
        if ((errno == EAGAIN) || (errno == EWOULDBLOCK) || (errno == EINTR) ||
            (errno == ECONNABORTED) || (errno == EPROTO)) {
            return TC_OK;
        }
        tc_error("bootstrap: accepting a connection on port %u failed: %s", l->port,
                 strerror(errno));
        return TC_ERR_IO;
    }
    if (l->n == TC_BOOT_LISTEN_CANDIDATES) {
        tc_warn("bootstrap: port %u: dropped %s: %d newer connections came before it said "
                "the hello", l->port, l->cands[0].name, TC_BOOT_LISTEN_CANDIDATES);
        tc_boot_cand_remove(l, 0, 0);
        l->dropped++;
    }
    cand      = &l->cands[l->n++];
    cand->fd  = fd;
    cand->got = 0;
    tc_boot_tcp_name((struct sockaddr*)&addr, addrlen, cand->name, sizeof(cand->name));
    if ((addr.ss_family != AF_INET) ||
        (inet_ntop(AF_INET, &((struct sockaddr_in *)&addr)->sin_addr, cand->host,
                   sizeof(cand->host)) == NULL)) {
        cand->host[0] = '\0';
    }
    return TC_OK;
}

void tc_boot_listen_init(tc_boot_listen_t *l, int fd)
{
    struct sockaddr_in addr;
    socklen_t addrlen = sizeof(addr);
    int flags;

    memset(l, 0, sizeof(*l));
    l->fd = fd;
    if (fd < 0) {
        return;
    }
    if (getsockname(fd, (struct sockaddr *)&addr, &addrlen) == 0) {
        l->port = ntohs(addr.sin_port);
    }
    /* an accept after poll must not block on a connection gone meanwhile */
    flags = fcntl(fd, F_GETFL);
    if ((flags >= 0) && !(flags & O_NONBLOCK)) {
        (void)fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    }
}

/* The first candidate (or newcomer) whose bytes make a whole hello: its
 * index, or -1 with the status at the deadline or a failure. */
static int tc_boot_listen_hear(tc_boot_listen_t *l, uint64_t deadline, tc_status_t *status_p)
{
    struct pollfd pfds[1 + TC_BOOT_LISTEN_CANDIDATES];
    tc_boot_cand_state_t state;
    int i, wait_ms, ret;

    for (;;) {
        wait_ms = tc_boot_time_left_ms(deadline);
        if (wait_ms <= 0) {
            *status_p = TC_ERR_TIMEOUT;
            return -1;
        }
        pfds[0] = (struct pollfd){.fd = l->fd, .events = POLLIN};
        for (i = 0; i < l->n; ++i) {
            pfds[1 + i] = (struct pollfd){.fd = l->cands[i].fd, .events = POLLIN};
        }
        ret = poll(pfds, (nfds_t)(1 + l->n), wait_ms);
        if (ret < 0) {
            if (errno == EINTR) {
                continue;
            }
            tc_error("bootstrap: waiting for peers on port %u: poll failed: %s", l->port,
                     strerror(errno));
            *status_p = TC_ERR_IO;
            return -1;
        }
        /* from the last one down, so a removal moves only ones already heard */
        for (i = l->n - 1; i >= 0; --i) {
            if (pfds[1 + i].revents == 0) {
                continue;
            }
            state = tc_boot_cand_read(&l->cands[i], l->port);
            if (state == TC_BOOT_CAND_HELLO) {
                return i;
            }
            if (state == TC_BOOT_CAND_DROP) {
                tc_boot_cand_remove(l, i, 0);
                l->dropped++;
            }
        }
        if (pfds[0].revents & POLLIN) {
            *status_p = tc_boot_cand_accept(l);
            if (*status_p != TC_OK) {
                return -1;
            }
        }
    }
}

tc_status_t tc_boot_listen_take(tc_boot_listen_t *l, uint64_t deadline, tc_boot_fd_t *boot,
                                char *host, size_t host_len)
{
    uint8_t hello[TC_BOOT_HELLO_LEN];
    tc_status_t status = TC_OK;
    int i;

    i = tc_boot_listen_hear(l, deadline, &status);
    if (i < 0) {
        return status;
    }
    boot->fd = l->cands[i].fd;
    memcpy(hello, l->cands[i].hello, sizeof(hello));
    snprintf(boot->super.peer_name, sizeof(boot->super.peer_name), "%s", l->cands[i].name);
    if (host != NULL) {
        snprintf(host, host_len, "%s", l->cands[i].host);
    }
    tc_boot_cand_remove(l, i, 1); /* the end owns its fd now */

    /* its hello is in: ours goes back (a peer of another version then says
     * why too), then the version check */
    status = tc_boot_tcp_nodelay(boot);
    if (status == TC_OK) {
        status = tc_boot_fd_hello(boot, 1, 0);
    }
    return (status == TC_OK) ? tc_boot_fd_hello_version(boot, hello) : status;
}

void tc_boot_listen_drop_all(tc_boot_listen_t *l, const char *before)
{
    while (l->n > 0) {
        tc_warn("bootstrap: port %u: closed %s: connected, but said no hello before %s",
                l->port, l->cands[l->n - 1].name, before);
        tc_boot_cand_remove(l, l->n - 1, 0);
    }
}

tc_status_t tc_boot_tcp_server_cb(uint16_t port, int timeout_ms,
                                  void (*port_cb)(uint16_t port, void *arg),
                                  void *arg, tc_boot_t **boot_p)
{
    tc_boot_listen_t listen;
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

    /* the first connection that says the hello; strays that came first
     * are heard beside it and dropped, so none takes its place */
    tc_boot_listen_init(&listen, listen_fd);
    status = tc_boot_listen_take(&listen, tc_boot_deadline(timeout_ms), boot, NULL, 0);
    if (status == TC_ERR_TIMEOUT) {
        tc_error("bootstrap server: no twochains client said its hello on port %u within %d "
                 "ms (%u other connection%s dropped); start the client or raise the timeout",
                 bound_port, timeout_ms, listen.dropped, (listen.dropped == 1) ? "" : "s");
    }
    tc_boot_listen_drop_all(&listen, (boot->fd >= 0) ? "the client's" : "the deadline");
    /* One client only: later ones get "connection refused", not a hang. */
    close(listen_fd);
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
    char service[8], host_text[64];
    int ret;

    if ((host == NULL) || (boot_p == NULL)) {
        tc_error("bootstrap client: NULL host or output pointer");
        return TC_ERR_INVALID_PARAM;
    }

    status = tc_boot_fd_create(&tc_boot_tcp_ops, 1, timeout_ms, &boot);
    if (status != TC_OK) {
        return status;
    }

    /* host may come from a peer (a group's address table): escaped */
    snprintf(boot->super.peer_name, sizeof(boot->super.peer_name), "%s:%u",
             tc_log_text(host, SIZE_MAX, host_text, sizeof(host_text)), port);
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
