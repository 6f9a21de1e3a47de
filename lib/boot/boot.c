/*
 * Bootstrap: framing over a connected stream socket, shared by the TCP and
 * loopback backends, and the backend-independent barrier.
 */
#define _GNU_SOURCE /* POLLRDHUP */

#include "boot.h"
#include "log.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define TC_BOOT_LEN_HDR 8 /* uint64 blob length before every blob */

/* What is left to send: up to two pieces (length header, blob). */
typedef struct tc_boot_tx {
    struct iovec iov[2];
    int          iovcnt;
    int          idx;   /* first piece not fully sent */
    size_t       done;
    size_t       total;
    int         *state; /* an exchange's tx_state, idle again once all is sent */
} tc_boot_tx_t;

/* What is left to receive: a fixed-size header and, for a frame, the blob
 * whose length that header gives. */
typedef struct tc_boot_rx {
    uint8_t  hdr[TC_BOOT_HELLO_LEN];
    size_t   hdr_len;
    size_t   hdr_off;
    int      framed;   /* hdr is a blob length: a blob follows */
    int      hello;    /* hdr is a hello: check the magic as it arrives */
    int      bye;      /* hdr announced the peer's bye: blob is its reason */
    uint8_t *blob;
    size_t   blob_len;
    size_t   blob_off;
} tc_boot_rx_t;


static uint64_t tc_boot_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t tc_boot_deadline(int timeout_ms)
{
    return tc_boot_now_ns() + (uint64_t)timeout_ms * 1000000ull;
}

int tc_boot_time_left_ms(uint64_t deadline)
{
    uint64_t now = tc_boot_now_ns();
    uint64_t left;

    if (now >= deadline) {
        return 0;
    }

    /* Round up: poll() with 0 ms for the last fraction would spin. */
    left = (deadline - now + 999999ull) / 1000000ull;
    return (left > INT_MAX) ? INT_MAX : (int)left;
}

static void tc_boot_put_le(uint8_t *p, uint64_t value, size_t n)
{
    size_t i;

    for (i = 0; i < n; ++i) {
        p[i] = (uint8_t)(value >> (8 * i));
    }
}

static uint64_t tc_boot_get_le(const uint8_t *p, size_t n)
{
    uint64_t value = 0;
    size_t i;

    for (i = 0; i < n; ++i) {
        value |= (uint64_t)p[i] << (8 * i);
    }
    return value;
}

static int tc_boot_errno_is_peer_gone(int err)
{
    return (err == EPIPE) || (err == ECONNRESET) || (err == ECONNABORTED) ||
           (err == ENOTCONN) || (err == ETIMEDOUT) || (err == EHOSTUNREACH);
}

tc_status_t tc_boot_fd_create(const tc_boot_ops_t *ops, int rank,
                              int timeout_ms, tc_boot_fd_t **boot_p)
{
    tc_boot_fd_t *boot;

    if (timeout_ms <= 0) {
        tc_error("bootstrap: timeout must be positive, got %d ms", timeout_ms);
        return TC_ERR_INVALID_PARAM;
    }

    boot = calloc(1, sizeof(*boot));
    if (boot == NULL) {
        tc_error("bootstrap: cannot allocate the %s endpoint", ops->name);
        return TC_ERR_NO_MEMORY;
    }

    boot->super.ops        = ops;
    boot->super.rank       = rank;
    boot->super.size       = 2;
    boot->super.timeout_ms = timeout_ms;
    boot->fd               = -1;
    boot->failed           = TC_OK;
    *boot_p                = boot;
    return TC_OK;
}

void tc_boot_fd_close(tc_boot_t *boot)
{
    tc_boot_fd_t *fd_boot = (tc_boot_fd_t*)boot;

    if (fd_boot->fd >= 0) {
        close(fd_boot->fd);
    }
    free(fd_boot);
}

static void tc_boot_tx_add(tc_boot_tx_t *tx, const void *buf, size_t len)
{
    /* Empty pieces would never be "sent"; leave them out. */
    if (len == 0) {
        return;
    }

    tx->iov[tx->iovcnt].iov_base = (void*)buf;
    tx->iov[tx->iovcnt].iov_len  = len;
    tx->iovcnt++;
    tx->total += len;
}

static int tc_boot_rx_done(const tc_boot_rx_t *rx)
{
    if (rx->hdr_off < rx->hdr_len) {
        return 0;
    }
    return !rx->framed || (rx->blob_off == rx->blob_len);
}

static tc_status_t tc_boot_tx_step(tc_boot_fd_t *boot, tc_boot_tx_t *tx,
                                   const char *what)
{
    struct msghdr msg;
    ssize_t sent;
    size_t left;

    memset(&msg, 0, sizeof(msg));
    msg.msg_iov    = &tx->iov[tx->idx];
    msg.msg_iovlen = (size_t)(tx->iovcnt - tx->idx);

    /* MSG_NOSIGNAL: a dead peer must be a status, not a SIGPIPE. */
    sent = sendmsg(boot->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent < 0) {
        if ((errno == EINTR) || (errno == EAGAIN) || (errno == EWOULDBLOCK)) {
            return TC_OK;
        }
        if (tc_boot_errno_is_peer_gone(errno)) {
            tc_error("bootstrap %s: peer %s closed the connection (%s) after "
                     "taking %zu of %zu bytes", what, boot->super.peer_name,
                     strerror(errno), tx->done, tx->total);
            return TC_ERR_PEER_FAILED;
        }
        tc_error("bootstrap %s: sending to %s failed: %s", what,
                 boot->super.peer_name, strerror(errno));
        return TC_ERR_IO;
    }

    tx->done += (size_t)sent;
    left      = (size_t)sent;
    while ((tx->idx < tx->iovcnt) && (left >= tx->iov[tx->idx].iov_len)) {
        left -= tx->iov[tx->idx].iov_len;
        tx->idx++;
    }
    if (left > 0) {
        tx->iov[tx->idx].iov_base = (uint8_t*)tx->iov[tx->idx].iov_base + left;
        tx->iov[tx->idx].iov_len -= left;
    }
    return TC_OK;
}

static tc_status_t tc_boot_rx_step(tc_boot_fd_t *boot, tc_boot_rx_t *rx,
                                   const char *what)
{
    int in_hdr = rx->hdr_off < rx->hdr_len;
    uint64_t blob_len;
    uint8_t *dst;
    size_t cap;
    ssize_t got;

    if (in_hdr) {
        dst = rx->hdr + rx->hdr_off;
        cap = rx->hdr_len - rx->hdr_off;
    } else {
        dst = rx->blob + rx->blob_off;
        cap = rx->blob_len - rx->blob_off;
    }

    got = recv(boot->fd, dst, cap, MSG_DONTWAIT);
    if (got < 0) {
        if ((errno == EINTR) || (errno == EAGAIN) || (errno == EWOULDBLOCK)) {
            return TC_OK;
        }
        if (tc_boot_errno_is_peer_gone(errno)) {
            tc_error("bootstrap %s: connection to peer %s lost (%s)", what,
                     boot->super.peer_name, strerror(errno));
            return TC_ERR_PEER_FAILED;
        }
        tc_error("bootstrap %s: receiving from %s failed: %s", what,
                 boot->super.peer_name, strerror(errno));
        return TC_ERR_IO;
    }

    if (got == 0) {
        if (in_hdr) {
            tc_error("bootstrap %s: peer %s closed the connection (got %zu "
                     "of %zu header bytes)", what, boot->super.peer_name,
                     rx->hdr_off, rx->hdr_len);
        } else {
            tc_error("bootstrap %s: peer %s closed the connection (got %zu "
                     "of %zu blob bytes)", what, boot->super.peer_name,
                     rx->blob_off, rx->blob_len);
        }
        return TC_ERR_PEER_FAILED;
    }

    if (!in_hdr) {
        rx->blob_off += (size_t)got;
        return TC_OK;
    }

    rx->hdr_off += (size_t)got;

    /* Check the magic as it arrives: a stray client that sends a few bytes
     * and then waits should fail now, not at the deadline. */
    if (rx->hello && !tc_boot_hello_prefix_ok(rx->hdr, rx->hdr_off)) {
        tc_error("bootstrap %s: %s is not a twochains peer (bad magic in its "
                 "hello)", what, boot->super.peer_name);
        return TC_ERR_PROTOCOL;
    }

    if ((rx->hdr_off < rx->hdr_len) || !rx->framed) {
        return TC_OK;
    }

    blob_len = tc_boot_get_le(rx->hdr, TC_BOOT_LEN_HDR);
    if ((blob_len & ~(uint64_t)TC_BOOT_BYE_MAX) == TC_BOOT_BYE_MARK) {
        rx->bye  = 1; /* its reason follows, sent with it */
        blob_len &= TC_BOOT_BYE_MAX;
    } else if (blob_len > TC_BOOT_MAX_BLOB) {
        tc_error("bootstrap %s: peer %s announced a %llu-byte blob, over the "
                 "%llu MiB limit (garbage on the bootstrap socket?)", what,
                 boot->super.peer_name, (unsigned long long)blob_len,
                 TC_BOOT_MAX_BLOB >> 20);
        return TC_ERR_PROTOCOL;
    }

    /* Never NULL, so the caller can free() an empty blob like any other. */
    rx->blob = malloc((blob_len > 0) ? (size_t)blob_len : 1);
    if (rx->blob == NULL) {
        tc_error("bootstrap %s: cannot allocate %llu bytes for the blob from "
                 "%s", what, (unsigned long long)blob_len,
                 boot->super.peer_name);
        return TC_ERR_NO_MEMORY;
    }
    rx->blob_len = (size_t)blob_len;
    return TC_OK;
}

/* Send tx and receive rx at the same time, so that neither side can block
 * on a full socket buffer while the other does the same. */
static tc_status_t tc_boot_fd_xfer(tc_boot_fd_t *boot, tc_boot_tx_t *tx,
                                   tc_boot_rx_t *rx, const char *what)
{
    uint64_t deadline = tc_boot_deadline(boot->super.timeout_ms);
    struct pollfd pfd;
    tc_status_t status;
    int want_tx, want_rx, wait_ms, ret;

    for (;;) {
        want_tx = tx->idx < tx->iovcnt;
        want_rx = !tc_boot_rx_done(rx);
        if (!want_tx && !want_rx) {
            return TC_OK;
        }

        wait_ms = tc_boot_time_left_ms(deadline);
        if (wait_ms <= 0) {
            tc_error("bootstrap %s with %s timed out after %d ms waiting for "
                     "the peer to %s (sent %zu of %zu bytes)", what,
                     boot->super.peer_name, boot->super.timeout_ms,
                     want_rx ? "send its data" : "read ours", tx->done,
                     tx->total);
            return TC_ERR_TIMEOUT;
        }

        pfd.fd      = boot->fd;
        pfd.events  = (short)((want_tx ? POLLOUT : 0) | (want_rx ? POLLIN : 0));
        pfd.revents = 0;
        ret         = poll(&pfd, 1, wait_ms);
        if (ret < 0) {
            if (errno == EINTR) {
                continue;
            }
            tc_error("bootstrap %s with %s: poll failed: %s", what,
                     boot->super.peer_name, strerror(errno));
            return TC_ERR_IO;
        }
        if (ret == 0) {
            continue; /* the deadline check above reports it */
        }

        if (pfd.revents & POLLNVAL) {
            tc_error("bootstrap %s with %s: the socket is not open", what,
                     boot->super.peer_name);
            return TC_ERR_IO;
        }

        /* On HUP/ERR, recv/send say exactly what happened (and recv still
         * drains what the peer sent before closing). */
        if (want_rx && (pfd.revents & (POLLIN | POLLHUP | POLLERR))) {
            status = tc_boot_rx_step(boot, rx, what);
            if (status != TC_OK) {
                return status;
            }
            if (rx->bye) {
                /* the peer is leaving: ours would meet a closed socket */
                if (tc_boot_rx_done(rx)) {
                    return TC_ERR_CLOSED;
                }
                continue;
            }
        }
        if (want_tx && (pfd.revents & (POLLOUT | POLLHUP | POLLERR))) {
            status = tc_boot_tx_step(boot, tx, what);
            if (status != TC_OK) {
                return status; /* tx->state stays: a bye would follow half a blob */
            }
            if ((tx->idx == tx->iovcnt) && (tx->state != NULL)) {
                __atomic_store_n(tx->state, TC_BOOT_TX_IDLE, __ATOMIC_RELEASE);
                tx->state = NULL;
            }
        }
    }
}

/* Version this side announces: TC_PROTO_VERSION, unless the test hook
 * TC_BOOT_FAKE_VERSION_ENV overrides it. */
static uint32_t tc_boot_local_version(void)
{
    const char *env = getenv(TC_BOOT_FAKE_VERSION_ENV);
    unsigned long long value;
    char *end;

    if ((env == NULL) || (*env == '\0')) {
        return TC_PROTO_VERSION;
    }

    errno = 0;
    value = strtoull(env, &end, 10);
    if ((errno != 0) || (*end != '\0') || (value > UINT32_MAX)) {
        tc_warn("bootstrap: ignoring %s='%s': not a 32-bit decimal number",
                TC_BOOT_FAKE_VERSION_ENV, env);
        return TC_PROTO_VERSION;
    }
    return (uint32_t)value;
}

tc_status_t tc_boot_fd_hello(tc_boot_fd_t *boot, int do_send, int do_recv)
{
    uint32_t version = tc_boot_local_version();
    uint8_t hello[TC_BOOT_HELLO_LEN];
    tc_boot_tx_t tx;
    tc_boot_rx_t rx;
    tc_status_t status;

    memset(&tx, 0, sizeof(tx));
    memset(&rx, 0, sizeof(rx));

    if (do_send) {
        memcpy(hello, TC_BOOT_MAGIC, TC_BOOT_MAGIC_LEN);
        tc_boot_put_le(hello + TC_BOOT_MAGIC_LEN, version, 4);
        /* flags: none defined yet; ignored on receipt so that optional
         * features can be added without a version bump */
        tc_boot_put_le(hello + TC_BOOT_MAGIC_LEN + 4, 0, 4);
        tc_boot_tx_add(&tx, hello, sizeof(hello));
    }
    if (do_recv) {
        rx.hdr_len = TC_BOOT_HELLO_LEN;
        rx.hello   = 1;
    }

    status = tc_boot_fd_xfer(boot, &tx, &rx, "handshake");
    if ((status != TC_OK) || !do_recv) {
        return status;
    }
    return tc_boot_fd_hello_version(boot, rx.hdr);
}

int tc_boot_hello_prefix_ok(const uint8_t *buf, size_t len)
{
    return memcmp(buf, TC_BOOT_MAGIC, (len < TC_BOOT_MAGIC_LEN) ? len : TC_BOOT_MAGIC_LEN) == 0;
}

tc_status_t tc_boot_fd_hello_version(const tc_boot_fd_t *boot, const uint8_t *hello)
{
    uint32_t version      = tc_boot_local_version();
    uint32_t peer_version = (uint32_t)tc_boot_get_le(hello + TC_BOOT_MAGIC_LEN, 4);

    if (peer_version != version) {
        tc_error("bootstrap handshake: peer %s speaks protocol version %u, "
                 "this side speaks version %u; run the same twochains build "
                 "on both sides", boot->super.peer_name, peer_version,
                 version);
        return TC_ERR_VERSION_MISMATCH;
    }
    return TC_OK;
}

tc_status_t tc_boot_fd_exchange(tc_boot_t *boot, const void *buf, size_t len,
                                void **peer_buf_p, size_t *peer_len_p)
{
    tc_boot_fd_t *fd_boot = (tc_boot_fd_t*)boot;
    uint8_t len_hdr[TC_BOOT_LEN_HDR];
    tc_boot_tx_t tx;
    tc_boot_rx_t rx;
    tc_status_t status;

    if (((buf == NULL) && (len > 0)) || (peer_buf_p == NULL) ||
        (peer_len_p == NULL)) {
        tc_error("bootstrap exchange with %s: NULL buffer", boot->peer_name);
        return TC_ERR_INVALID_PARAM;
    }
    if (len > TC_BOOT_MAX_BLOB) {
        tc_error("bootstrap exchange with %s: a %zu-byte blob is over the "
                 "%llu MiB limit", boot->peer_name, len,
                 TC_BOOT_MAX_BLOB >> 20);
        return TC_ERR_INVALID_PARAM;
    }
    if (fd_boot->failed != TC_OK) {
        /* The stream stopped mid-message: what follows would be misread. */
        tc_error("bootstrap exchange with %s: the connection already failed "
                 "(%s)", boot->peer_name, tc_status_str(fd_boot->failed));
        return fd_boot->failed;
    }

    if (fd_boot->bye_seen) {
        return TC_ERR_CLOSED; /* the peer left and said why: nothing to add */
    }

    memset(&tx, 0, sizeof(tx));
    memset(&rx, 0, sizeof(rx));
    tc_boot_put_le(len_hdr, len, sizeof(len_hdr));
    tc_boot_tx_add(&tx, len_hdr, sizeof(len_hdr));
    tc_boot_tx_add(&tx, buf, len);
    rx.hdr_len = TC_BOOT_LEN_HDR;
    rx.framed  = 1;
    {
        int idle = TC_BOOT_TX_IDLE;
        if (!__atomic_compare_exchange_n(&fd_boot->tx_state, &idle, TC_BOOT_TX_BLOB, 0,
                                         __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            return TC_ERR_CLOSED; /* this side said its bye: it is leaving */
        }
        tx.state = &fd_boot->tx_state;
    }

    status = tc_boot_fd_xfer(fd_boot, &tx, &rx, "exchange");
    if ((status == TC_ERR_CLOSED) && rx.bye) {
        tc_log_text((const char *)rx.blob, rx.blob_len, fd_boot->bye, sizeof(fd_boot->bye));
        fd_boot->bye_seen = 1;
    }
    if (status != TC_OK) {
        free(rx.blob);
        fd_boot->failed = status;
        return status;
    }

    *peer_buf_p = rx.blob;
    *peer_len_p = rx.blob_len;
    return TC_OK;
}

/* Whether what the peer sent and this side has not read yet holds its bye
 * (after at most a few whole blobs: a barrier it sent before leaving); if
 * so, its reason is kept. Reads nothing off the stream. */
static int tc_boot_fd_peek_bye(tc_boot_fd_t *boot)
{
    uint8_t buf[1024];
    uint64_t len;
    size_t pos = 0;
    ssize_t got;

    got = recv(boot->fd, buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT);
    while ((got > 0) && (pos + TC_BOOT_LEN_HDR <= (size_t)got)) {
        len = tc_boot_get_le(buf + pos, TC_BOOT_LEN_HDR);
        pos += TC_BOOT_LEN_HDR;
        if ((len & ~(uint64_t)TC_BOOT_BYE_MAX) == TC_BOOT_BYE_MARK) {
            len &= TC_BOOT_BYE_MAX;
            if (pos + len > (size_t)got) {
                return 0; /* the rest of it is still on its way */
            }
            tc_log_text((const char *)buf + pos, len, boot->bye, sizeof(boot->bye));
            boot->bye_seen = 1;
            return 1;
        }
        if (len > (size_t)got - pos) {
            return 0;
        }
        pos += len;
    }
    return 0;
}

tc_status_t tc_boot_say_bye(tc_boot_t *boot, const char *reason)
{
    tc_boot_fd_t *fd_boot = (tc_boot_fd_t*)boot;
    uint8_t msg[TC_BOOT_LEN_HDR + TC_BOOT_BYE_MAX];
    size_t n = strlen(reason);
    int idle = TC_BOOT_TX_IDLE;

    if ((boot == NULL) || (boot->ops->check_peer != tc_boot_fd_check_peer) ||
        (fd_boot->fd < 0)) {
        return TC_ERR_UNSUPPORTED;
    }
    if (!__atomic_compare_exchange_n(&fd_boot->tx_state, &idle, TC_BOOT_TX_BYE, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        return TC_ERR_BUSY; /* a blob is partway out, or the bye already went */
    }
    n = (n > TC_BOOT_BYE_MAX) ? TC_BOOT_BYE_MAX : n;
    tc_boot_put_le(msg, TC_BOOT_BYE_MARK | n, TC_BOOT_LEN_HDR);
    memcpy(msg + TC_BOOT_LEN_HDR, reason, n);
    /* one small send into an idle socket's buffer: whole, or the peer
     * reads a closed connection as before */
    return (send(fd_boot->fd, msg, TC_BOOT_LEN_HDR + n, MSG_NOSIGNAL | MSG_DONTWAIT) ==
            (ssize_t)(TC_BOOT_LEN_HDR + n)) ? TC_OK : TC_ERR_IO;
}

const char *tc_boot_peer_bye(tc_boot_t *boot)
{
    tc_boot_fd_t *fd_boot = (tc_boot_fd_t*)boot;

    if ((boot == NULL) || (boot->ops->check_peer != tc_boot_fd_check_peer) ||
        (fd_boot->fd < 0)) {
        return NULL;
    }
    if (!fd_boot->bye_seen && !fd_boot->failed) {
        (void)tc_boot_fd_peek_bye(fd_boot);
    }
    return fd_boot->bye_seen ? fd_boot->bye : NULL;
}

tc_status_t tc_boot_fd_check_peer(tc_boot_t *boot)
{
    tc_boot_fd_t *fd_boot = (tc_boot_fd_t*)boot;
    struct pollfd pfd;
    socklen_t optlen;
    ssize_t got;
    int err;
    char c;

    if (fd_boot->bye_seen) {
        return TC_ERR_CLOSED;
    }
    pfd.fd      = fd_boot->fd;
    pfd.events  = POLLIN | POLLRDHUP;
    pfd.revents = 0;
    if (poll(&pfd, 1, 0) <= 0) {
        /* Nothing pending (or EINTR): no sign that the peer is gone. */
        return TC_OK;
    }
    if ((fd_boot->failed == TC_OK) && tc_boot_fd_peek_bye(fd_boot)) {
        return TC_ERR_CLOSED; /* it left and said why: not a failure */
    }

    if (pfd.revents & POLLNVAL) {
        tc_error("bootstrap peer %s: the socket is not open", boot->peer_name);
        return TC_ERR_PEER_FAILED;
    }
    if (pfd.revents & POLLERR) {
        err    = 0;
        optlen = sizeof(err);
        getsockopt(fd_boot->fd, SOL_SOCKET, SO_ERROR, &err, &optlen);
        tc_error("bootstrap peer %s: connection failed (%s)", boot->peer_name,
                 strerror(err));
        return TC_ERR_PEER_FAILED;
    }
    if (pfd.revents & (POLLRDHUP | POLLHUP)) {
        tc_error("bootstrap peer %s closed the connection", boot->peer_name);
        return TC_ERR_PEER_FAILED;
    }

    /* Readable but no RDHUP: normally the peer's next blob. Peek (never
     * consume) to catch an EOF on stacks without POLLRDHUP. */
    got = recv(fd_boot->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    if (got == 0) {
        tc_error("bootstrap peer %s closed the connection", boot->peer_name);
        return TC_ERR_PEER_FAILED;
    }
    if ((got < 0) && tc_boot_errno_is_peer_gone(errno)) {
        tc_error("bootstrap peer %s: connection lost (%s)", boot->peer_name,
                 strerror(errno));
        return TC_ERR_PEER_FAILED;
    }
    return TC_OK;
}

tc_status_t tc_boot_barrier(tc_boot_t *boot)
{
    const uint8_t token = 0xba;
    tc_status_t status;
    size_t peer_len;
    void *peer_buf;

    status = tc_boot_exchange(boot, &token, sizeof(token), &peer_buf,
                              &peer_len);
    if (status != TC_OK) {
        return status;
    }

    free(peer_buf);
    if (peer_len != sizeof(token)) {
        tc_error("bootstrap barrier with %s: peer sent a %zu-byte blob, "
                 "expected %zu (the two sides are out of step)",
                 boot->peer_name, peer_len, sizeof(token));
        return TC_ERR_PROTOCOL;
    }
    return TC_OK;
}
