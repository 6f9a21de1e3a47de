/*
 * Process groups over the TCP bootstrap or a launcher's job (see group.h).
 */
#define _GNU_SOURCE
#include "group.h"
#include "boot.h"
#include "credits.h"
#include "log.h"
#include "runtime.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* What a rank tells the rendezvous, and the table rank 0 sends back. */
typedef struct tc_group_hello {
    uint32_t rank;
    uint32_t size;
    uint32_t port;  /* its pair listener */
    uint32_t proto;
} tc_group_hello_t;

typedef struct tc_group_addr {
    char     host[TC_GROUP_HOST_MAX];
    uint32_t port;
    uint32_t pad;
} tc_group_addr_t;

struct tc_group {
    tc_context_t      *ctx;
    tc_group_params_t  params;
    tc_boot_t        **rdv;   /* rank 0: one per rank (NULL at 0); else rdv[0] */
    tc_boot_t        **pair;  /* per rank: the pair's bootstrap (peer liveness) */
    tc_peer_t        **peers;
    tc_group_addr_t   *table;
    int                pair_fd; /* our pair listener */
    tc_boot_listen_t   rdv_listen;  /* rank 0: params.listen_fd's connections not yet heard */
    tc_boot_listen_t   pair_listen; /* pair_fd's */
    int                whole;   /* every pair connected: teardown quiets them first */
};

/* Accepted sockets speak the fd bootstrap like tc_boot_tcp_server's. */
static const tc_boot_ops_t tc_group_boot_ops = {
    .name       = "group",
    .exchange   = tc_boot_fd_exchange,
    .check_peer = tc_boot_fd_check_peer,
    .close      = tc_boot_fd_close,
};

void tc_group_params_init(tc_group_params_t *params, uint32_t rank, uint32_t size)
{
    memset(params, 0, sizeof(*params));
    params->rank             = rank;
    params->size             = size;
    params->listen_fd        = -1;
    params->timeout_ms       = 10000;
    params->setup_timeout_ms = 30000 + 250 * (int)((size < 4096) ? size : 4096);
    snprintf(params->boot_host, sizeof(params->boot_host), "127.0.0.1");
}

static int tc_group_env_u32(const char *name, uint32_t max, uint32_t *v_p)
{
    const char *s = getenv(name);
    unsigned long v;
    char *end;

    if ((s == NULL) || (*s < '0') || (*s > '9')) {
        return -1;
    }
    errno = 0;
    v     = strtoul(s, &end, 10);
    if ((errno != 0) || (*end != '\0') || (v > max)) {
        return -1;
    }
    *v_p = (uint32_t)v;
    return 0;
}

void tc_group_params_from_job(tc_group_params_t *params, tc_job_t *job)
{
    tc_group_params_init(params, tc_job_rank(job), tc_job_size(job));
    params->job = job;
}

tc_status_t tc_group_params_from_env(tc_group_params_t *params_p)
{
    tc_group_params_t p;
    const char *boot, *colon;
    uint32_t rank, size, port, fd;

    if (getenv("TC_RANK") == NULL) {
        return TC_ERR_NOT_FOUND;
    }
    if (tc_group_env_u32("TC_RANK", UINT32_MAX, &rank) ||
        tc_group_env_u32("TC_SIZE", 1u << 20, &size) || (size == 0) || (rank >= size)) {
        tc_error("group: TC_RANK='%s' TC_SIZE='%s' must be 0 <= rank < size",
                 getenv("TC_RANK"), getenv("TC_SIZE") ? getenv("TC_SIZE") : "(unset)");
        return TC_ERR_INVALID_PARAM;
    }
    tc_group_params_init(&p, rank, size);
    boot  = getenv("TC_BOOT");
    colon = (boot != NULL) ? strrchr(boot, ':') : NULL;
    if ((size > 1) && ((colon == NULL) || (colon == boot) ||
                       ((size_t)(colon - boot) >= sizeof(p.boot_host)))) {
        tc_error("group: TC_BOOT='%s' must be host:port (rank 0's rendezvous)",
                 boot ? boot : "(unset)");
        return TC_ERR_INVALID_PARAM;
    }
    if (colon != NULL) {
        char *end;
        unsigned long v = strtoul(colon + 1, &end, 10);

        if ((*end != '\0') || (v == 0) || (v > 65535)) {
            tc_error("group: TC_BOOT='%s': bad port", boot);
            return TC_ERR_INVALID_PARAM;
        }
        port = (uint32_t)v;
        memcpy(p.boot_host, boot, (size_t)(colon - boot));
        p.boot_host[colon - boot] = '\0';
        p.boot_port = (uint16_t)port;
    }
    if (getenv("TC_SETUP_TIMEOUT_MS") != NULL) {
        uint32_t ms;

        if (tc_group_env_u32("TC_SETUP_TIMEOUT_MS", 3600000, &ms) || (ms == 0)) {
            tc_error("group: TC_SETUP_TIMEOUT_MS='%s' is not 1..3600000",
                     getenv("TC_SETUP_TIMEOUT_MS"));
            return TC_ERR_INVALID_PARAM;
        }
        p.setup_timeout_ms = (int)ms;
    }
    if ((getenv("TC_BOOT_FD") != NULL) && (rank == 0)) {
        if (tc_group_env_u32("TC_BOOT_FD", 65535, &fd)) {
            tc_error("group: TC_BOOT_FD='%s' is not a descriptor", getenv("TC_BOOT_FD"));
            return TC_ERR_INVALID_PARAM;
        }
        p.listen_fd = (int)fd;
    }
    *params_p = p;
    return TC_OK;
}

tc_status_t tc_group_listen(const char *host, uint16_t port, int backlog, int *fd_p,
                            uint16_t *port_p)
{
    struct sockaddr_in addr;
    socklen_t addrlen = sizeof(addr);
    int one = 1, fd;

    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        tc_error("group: socket: %s", strerror(errno));
        return TC_ERR_IO;
    }
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    memset(&addr, 0, sizeof(addr));
    addr.sin_family      = AF_INET;
    addr.sin_port        = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    if ((host != NULL) && (inet_pton(AF_INET, host, &addr.sin_addr) != 1)) {
        addr.sin_addr.s_addr = htonl(INADDR_ANY); /* a name: listen everywhere */
    }
    if ((bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) || (listen(fd, backlog) < 0) ||
        (getsockname(fd, (struct sockaddr *)&addr, &addrlen) < 0)) {
        tc_error("group: cannot listen on port %u: %s", port, strerror(errno));
        close(fd);
        return (errno == EADDRINUSE) ? TC_ERR_PORT_BUSY : TC_ERR_IO;
    }
    *fd_p   = fd;
    *port_p = ntohs(addr.sin_port);
    return TC_OK;
}

/* The next connection on l to say the hello before deadline, as an fd
 * bootstrap end (steps bounded by timeout_ms); its numeric address into
 * host if not NULL. Strays are heard beside it and dropped (lib/boot/boot_tcp.c). */
static tc_status_t tc_group_accept(tc_boot_listen_t *l, uint64_t deadline, int timeout_ms,
                                   char *host, size_t host_len, tc_boot_t **boot_p)
{
    tc_boot_fd_t *boot;
    tc_status_t status;

    status = tc_boot_fd_create(&tc_group_boot_ops, 0, timeout_ms, &boot);
    if (status != TC_OK) {
        return status;
    }
    status = tc_boot_listen_take(l, deadline, boot, host, host_len);
    if (status != TC_OK) {
        tc_boot_fd_close(&boot->super);
        return status;
    }
    *boot_p = &boot->super;
    return TC_OK;
}

/* Swap fixed-size records over boot; the peer's must be exactly len. */
static tc_status_t tc_group_swap(tc_boot_t *boot, const void *mine, size_t len, void *theirs,
                                 size_t their_len)
{
    void *buf = NULL;
    size_t got = 0;
    tc_status_t status;

    status = tc_boot_exchange(boot, mine, len, &buf, &got);
    if (status != TC_OK) {
        return status;
    }
    if (got != their_len) {
        tc_error("group: %s sent %zu bytes, expected %zu", boot->peer_name, got, their_len);
        free(buf);
        return TC_ERR_PROTOCOL;
    }
    if (their_len > 0) {
        memcpy(theirs, buf, their_len);
    }
    free(buf);
    return TC_OK;
}

static void tc_group_name_missing(const tc_group_t *g, const char *what)
{
    char list[512];
    size_t off = 0;
    uint32_t r, n = 0;

    list[0] = '\0';
    for (r = 1; r < g->params.size; ++r) {
        if ((g->rdv[r] == NULL) && (off < sizeof(list) - 16)) {
            off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%u", n ? ", " : "", r);
            ++n;
        }
    }
    tc_error("group: %u rank(s) %s within %d ms: %s", n, what, g->params.setup_timeout_ms,
             list);
}

/* Rank 0: collect every rank's hello, then send the table. */
static tc_status_t tc_group_rendezvous_root(tc_group_t *g, uint16_t my_port)
{
    uint64_t deadline = tc_boot_deadline(g->params.setup_timeout_ms);
    uint32_t arrived = 1, size = g->params.size, r;
    tc_group_hello_t hello;
    tc_status_t status;
    char host[TC_GROUP_HOST_MAX];
    tc_boot_t *boot;

    snprintf(g->table[0].host, sizeof(g->table[0].host), "%s", g->params.boot_host);
    g->table[0].port = my_port;
    while (arrived < size) {
        status = tc_group_accept(&g->rdv_listen, deadline, g->params.setup_timeout_ms, host,
                                 sizeof(host), &boot);
        if (status == TC_ERR_TIMEOUT) {
            tc_group_name_missing(g, "never arrived");
            return TC_ERR_TIMEOUT;
        }
        if (status != TC_OK) {
            continue; /* a stray connection: the deadline still holds */
        }
        status = tc_group_swap(boot, NULL, 0, &hello, sizeof(hello));
        if ((status != TC_OK) || (hello.size != size) || (hello.rank == 0) ||
            (hello.rank >= size) || (g->rdv[hello.rank] != NULL) ||
            (hello.proto != TC_PROTO_VERSION) || (hello.port == 0) || (hello.port > 65535)) {
            if (status == TC_OK) {
                tc_error("group: a rank said rank %u of %u (protocol %u): expected a new "
                         "rank below %u, protocol %u", hello.rank, hello.size, hello.proto,
                         size, TC_PROTO_VERSION);
            }
            tc_boot_close(boot);
            continue;
        }
        g->rdv[hello.rank] = boot;
        snprintf(g->table[hello.rank].host, TC_GROUP_HOST_MAX, "%s", host);
        g->table[hello.rank].port = hello.port;
        ++arrived;
    }
    for (r = 1; r < size; ++r) {
        status = tc_group_swap(g->rdv[r], g->table, size * sizeof(*g->table), NULL, 0);
        if (status != TC_OK) {
            tc_error("group: rank %u left during the rendezvous", r);
            return status;
        }
    }
    return TC_OK;
}

static tc_status_t tc_group_rendezvous_leaf(tc_group_t *g, uint16_t my_port)
{
    tc_group_hello_t hello = {g->params.rank, g->params.size, my_port, TC_PROTO_VERSION};
    tc_status_t status;

    /* a rank may start long before rank 0 listens: the client retries, and
     * then waits for the table as long as rank 0 waits for everyone */
    status = tc_boot_tcp_client(g->params.boot_host, g->params.boot_port,
                                g->params.setup_timeout_ms + 5000, &g->rdv[0]);
    if (status != TC_OK) {
        tc_error("group: rank %u could not reach the rendezvous at %s:%u", g->params.rank,
                 g->params.boot_host, g->params.boot_port);
        return status;
    }
    status = tc_group_swap(g->rdv[0], &hello, sizeof(hello), NULL, 0);
    if (status == TC_OK) {
        status = tc_group_swap(g->rdv[0], NULL, 0, g->table,
                               g->params.size * sizeof(*g->table));
    }
    if (status != TC_OK) {
        tc_error("group: rank %u got no address table from rank 0 (it reports the ranks "
                 "that never arrived)", g->params.rank);
    } else {
        /* the table came over a socket: every entry must be usable as is */
        uint32_t r;

        for (r = 0; (r < g->params.size) && (status == TC_OK); ++r) {
            if ((memchr(g->table[r].host, '\0', TC_GROUP_HOST_MAX) == NULL) ||
                (g->table[r].port == 0) || (g->table[r].port > 65535)) {
                tc_error("group: rank %u: the address table from rank 0 has a bad entry for "
                         "rank %u", g->params.rank, r);
                status = TC_ERR_PROTOCOL;
            }
        }
    }
    return status;
}

/* Pair sockets: connect to every lower rank, accept every higher one. */
static tc_status_t tc_group_pairs(tc_group_t *g)
{
    uint32_t me = g->params.rank, size = g->params.size, r, other, got;
    uint64_t deadline;
    tc_status_t status;
    tc_boot_t *boot;

    for (r = 0; r < me; ++r) {
        status = tc_boot_tcp_client(g->table[r].host, (uint16_t)g->table[r].port,
                                    g->params.setup_timeout_ms, &boot);
        if (status == TC_OK) {
            status = tc_group_swap(boot, &me, sizeof(me), &other, sizeof(other));
            if ((status == TC_OK) && (other != r)) {
                char host[TC_LOG_TEXT_SIZE]; /* rank 0's table's words */

                tc_error("group: %s:%u answered as rank %u, expected %u",
                         tc_log_text(g->table[r].host, TC_GROUP_HOST_MAX, host, sizeof(host)),
                         g->table[r].port, other, r);
                status = TC_ERR_PROTOCOL;
            }
            if (status != TC_OK) {
                tc_boot_close(boot);
            }
        }
        if (status != TC_OK) {
            tc_error("group: rank %u cannot connect to rank %u", me, r);
            return status;
        }
        g->pair[r] = boot;
    }
    deadline = tc_boot_deadline(g->params.setup_timeout_ms);
    for (got = 0; got < size - 1 - me;) {
        status = tc_group_accept(&g->pair_listen, deadline, g->params.timeout_ms, NULL, 0,
                                 &boot);
        if (status == TC_ERR_TIMEOUT) {
            for (r = me + 1; r < size; ++r) {
                if (g->pair[r] == NULL) {
                    tc_error("group: rank %u never connected to rank %u", r, me);
                }
            }
            return status;
        }
        if (status != TC_OK) {
            continue;
        }
        status = tc_group_swap(boot, &me, sizeof(me), &other, sizeof(other));
        if ((status != TC_OK) || (other <= me) || (other >= size) || (g->pair[other] != NULL)) {
            tc_boot_close(boot);
            continue;
        }
        g->pair[other] = boot;
        ++got;
    }
    return TC_OK;
}

/* A launcher's job: every pair's bootstrap end comes from it. */
static tc_status_t tc_group_job_pairs(tc_group_t *g)
{
    tc_status_t status;
    uint32_t r;

    tc_job_set_worker(g->params.job, g->ctx->worker);
    for (r = 0; r < g->params.size; ++r) {
        if (r != g->params.rank) {
            status = tc_job_boot(g->params.job, r, &g->pair[r]);
            if (status != TC_OK) {
                return status;
            }
            /* pairs connect one after another: the last may wait on every
             * earlier one, as the TCP rendezvous waits for every rank */
            g->pair[r]->timeout_ms = g->params.setup_timeout_ms;
        }
    }
    return TC_OK;
}

tc_status_t tc_group_create(tc_context_t *ctx, const tc_group_params_t *params,
                            tc_group_t **group_p)
{
    uint32_t size = params->size, r;
    tc_status_t status;
    uint16_t port = 0;
    tc_group_t *g;

    if ((size == 0) || (params->rank >= size) || (ctx->params.rank != params->rank)) {
        tc_error("group: rank %u of %u (context rank %u)", params->rank, size,
                 ctx->params.rank);
        return TC_ERR_INVALID_PARAM;
    }
    g = calloc(1, sizeof(*g));
    if (g == NULL) {
        return TC_ERR_NO_MEMORY;
    }
    g->ctx     = ctx;
    g->params  = *params;
    g->pair_fd = -1;
    g->rdv     = calloc(size, sizeof(*g->rdv));
    g->pair    = calloc(size, sizeof(*g->pair));
    g->peers   = calloc(size, sizeof(*g->peers));
    g->table   = calloc(size, sizeof(*g->table));
    if ((g->rdv == NULL) || (g->pair == NULL) || (g->peers == NULL) || (g->table == NULL)) {
        status = TC_ERR_NO_MEMORY;
        goto err_destroy;
    }
    if (size == 1) {
        *group_p = g;
        return TC_OK;
    }
    if (params->job != NULL) {
        status = tc_group_job_pairs(g);
        goto connect;
    }

    if ((params->rank == 0) && (params->listen_fd < 0)) {
        status = tc_group_listen(params->boot_host, params->boot_port, (int)size + 16,
                                 &g->params.listen_fd, &port);
        if (status != TC_OK) {
            goto err_destroy;
        }
    }
    status = tc_group_listen(NULL, 0, (int)size + 16, &g->pair_fd, &port);
    if (status != TC_OK) {
        goto err_destroy;
    }
    tc_boot_listen_init(&g->rdv_listen, (params->rank == 0) ? g->params.listen_fd : -1);
    tc_boot_listen_init(&g->pair_listen, g->pair_fd);
    status = (params->rank == 0) ? tc_group_rendezvous_root(g, port) :
                                   tc_group_rendezvous_leaf(g, port);
    if (status == TC_OK) {
        status = tc_group_pairs(g);
    }
connect:
    /* endpoints and mailboxes, pair by pair in one global order: by the
     * lower rank, then the higher, which for every rank is simply the
     * order of the other rank */
    for (r = 0; (r < size) && (status == TC_OK); ++r) {
        if (r == params->rank) {
            continue;
        }
        /* the rank it was paired as is the one it must claim */
        status = tc_peer_connect_rank(ctx, g->pair[r], r, &g->peers[r]);
        if (status != TC_OK) {
            tc_error("group: rank %u: connecting to rank %u failed", params->rank, r);
        }
    }
    if ((status == TC_OK) && (params->job != NULL)) {
        /* nobody sends before every rank is connected */
        status = tc_job_barrier_within(params->job, params->setup_timeout_ms,
                                       "the group's setup");
    }
    if (status != TC_OK) {
        goto err_destroy;
    }
    if (g->pair_fd >= 0) {
        tc_boot_listen_drop_all(&g->pair_listen, "every rank connected");
        close(g->pair_fd); /* everyone is connected */
        g->pair_fd = -1;
    }
    g->whole = 1;
    *group_p = g;
    return TC_OK;

err_destroy:
    tc_group_destroy(g);
    return status;
}

/* Every endpoint flushed, the worker progressed meanwhile: a flush ends
 * once the endpoint's wireup did, so no peer sends us a wireup request
 * after its goodbye (an endpoint UCX makes to answer one after ours closed
 * is purged at worker destroy, which UCX 1.13 asserts against). Every
 * rank of the group is here or later in the teardown, progressing. */
static void tc_group_flush_eps(tc_group_t *g, uint64_t deadline)
{
    ucs_status_ptr_t *reqs = calloc(g->params.size, sizeof(*reqs));
    ucp_request_param_t param;
    uint32_t r, pending = 0;
    tc_peer_t *p;

    if (reqs == NULL) {
        return;
    }
    memset(&param, 0, sizeof(param));
    for (r = 0; r < g->params.size; ++r) {
        p = g->peers[r];
        if ((p != NULL) && (p->ep_error == UCS_OK) &&
            ((p->failed == TC_OK) || (p->failed == TC_ERR_CLOSED))) {
            reqs[r] = ucp_ep_flush_nbx(p->ep, &param);
            if (UCS_PTR_IS_PTR(reqs[r])) {
                ++pending;
            } else {
                reqs[r] = NULL;
            }
        }
    }
    while ((pending > 0) && (tc_boot_time_left_ms(deadline) > 0)) {
        ucp_worker_progress(g->ctx->worker);
        for (r = 0; r < g->params.size; ++r) {
            p = g->peers[r];
            if ((p != NULL) && (p->failed == TC_OK)) {
                (void)tc_peer_flush(p); /* what peers still send runs and is credited */
            }
            if ((reqs[r] != NULL) && (ucp_request_check_status(reqs[r]) != UCS_INPROGRESS)) {
                ucp_request_free(reqs[r]);
                reqs[r] = NULL;
                --pending;
            }
        }
        if (pending > 0) {
            sched_yield();
        }
    }
    for (r = 0; r < g->params.size; ++r) {
        if (reqs[r] != NULL) {
            ucp_request_cancel(g->ctx->worker, reqs[r]);
            ucp_request_free(reqs[r]);
        }
    }
    free(reqs);
}

/* Before any endpoint closes, every pair goes quiet: endpoints flushed,
 * goodbyes to all,
 * every peer's goodbye seen (or the peer failed), then a barrier. Over
 * emulated puts (tcp) a put is answered by its target's worker through
 * the endpoint back, so a goodbye landing after its target closed that
 * endpoint would fail there, or abort inside UCX. Once every goodbye was
 * seen the endpoints close without a flush. */
static void tc_group_quiesce(tc_group_t *g)
{
    uint64_t deadline = tc_boot_deadline(g->params.timeout_ms);
    uint32_t r, open_peers;
    tc_peer_t *p;

    /* every rank polls from here on: a goodbye rings no doorbell (63 of
     * them overflow a rank's UCX FIFO, and the wireup replies queued behind
     * them are purged at worker destroy, which UCX 1.13 asserts against) */
    for (r = 0; r < g->params.size; ++r) {
        if (g->peers[r] != NULL) {
            tc_peer_set_doorbell(g->peers[r], 0);
        }
    }
    tc_group_flush_eps(g, deadline);
    /* no rank blocks on one peer here: a goodbye goes where a slot is free,
     * and every peer's frames are consumed and credited meanwhile, or ranks
     * waiting on each other's full rings would wait in a circle */
    do {
        ucp_worker_progress(g->ctx->worker); /* emulated puts land only while we do */
        open_peers = 0;
        for (r = 0; r < g->params.size; ++r) {
            p = g->peers[r];
            if (p == NULL) {
                continue;
            }
            if (p->failed == TC_OK) {
                (void)tc_peer_flush(p); /* its frames run, its credits go back */
            }
            if (!p->wireup->goodbye_sent && ((p->failed == TC_OK) || (p->failed == TC_ERR_CLOSED))) {
                if (tc_peer_tx_free(p) > 0) {
                    (void)tc_peer_goodbye(p, 1);
                } else {
                    ++open_peers;
                    continue;
                }
            }
            if ((p->failed == TC_OK) && (tc_peer_check_alive(p) == TC_OK)) {
                ++open_peers; /* its goodbye has not come */
            }
        }
        if (open_peers > 0) {
            sched_yield(); /* more ranks than cores: let the others say theirs */
        }
    } while ((open_peers > 0) && (tc_boot_time_left_ms(deadline) > 0));
    if (open_peers == 0) {
        (void)tc_group_barrier(g);
    } else {
        tc_warn("group: rank %u: %u rank(s) said no goodbye within %d ms", g->params.rank,
                open_peers, g->params.timeout_ms);
    }
}

void tc_group_destroy(tc_group_t *g)
{
    uint32_t r;

    if (g == NULL) {
        return;
    }
    if (g->whole) {
        tc_group_quiesce(g);
    }
    if (g->params.job != NULL) {
        tc_job_set_worker(g->params.job, NULL); /* the context may go before the job */
    }
    for (r = 0; r < g->params.size; ++r) {
        if ((g->peers != NULL) && (g->peers[r] != NULL)) {
            tc_peer_close(g->peers[r]);
        }
        if ((g->pair != NULL) && (g->pair[r] != NULL)) {
            tc_boot_close(g->pair[r]);
        }
        if ((g->rdv != NULL) && (g->rdv[r] != NULL)) {
            tc_boot_close(g->rdv[r]);
        }
    }
    tc_boot_listen_drop_all(&g->rdv_listen, "the group's end");
    tc_boot_listen_drop_all(&g->pair_listen, "the group's end");
    if (g->pair_fd >= 0) {
        close(g->pair_fd);
    }
    if ((g->params.rank == 0) && (g->params.listen_fd >= 0)) {
        close(g->params.listen_fd);
    }
    free(g->table);
    free(g->peers);
    free(g->pair);
    free(g->rdv);
    free(g);
}

uint32_t tc_group_rank(const tc_group_t *g)
{
    return g->params.rank;
}

uint32_t tc_group_size(const tc_group_t *g)
{
    return g->params.size;
}

tc_context_t *tc_group_context(const tc_group_t *g)
{
    return g->ctx;
}

tc_peer_t *tc_group_peer(const tc_group_t *g, uint32_t rank)
{
    return (rank < g->params.size) ? g->peers[rank] : NULL;
}

tc_status_t tc_group_gather(tc_group_t *g, const void *buf, size_t len, void **all_p)
{
    uint32_t r, size = g->params.size;
    tc_status_t status = TC_OK;
    uint8_t *all;

    if (g->params.job != NULL) {
        return tc_job_gather(g->params.job, buf, len, all_p);
    }
    if (g->params.rank != 0) {
        status = tc_group_swap(g->rdv[0], buf, len, NULL, 0);
        if (status == TC_OK) {
            *all_p = NULL;
        } else {
            tc_error("group: rank %u: gather to rank 0 failed", g->params.rank);
        }
        return status;
    }
    all = malloc(size * len + 1);
    if (all == NULL) {
        return TC_ERR_NO_MEMORY;
    }
    memcpy(all, buf, len);
    for (r = 1; (r < size) && (status == TC_OK); ++r) {
        status = tc_group_swap(g->rdv[r], NULL, 0, all + r * len, len);
        if (status != TC_OK) {
            tc_error("group: rank %u did not report (gone or stuck)", r);
        }
    }
    if (status != TC_OK) {
        free(all);
        return status;
    }
    *all_p = all;
    return TC_OK;
}

tc_status_t tc_group_bcast(tc_group_t *g, const void *buf, size_t len, void **out_p,
                           size_t *len_p)
{
    uint32_t r, size = g->params.size;
    tc_status_t status = TC_OK;
    void *copy = NULL;
    size_t got = 0;

    if (g->params.job != NULL) {
        return tc_job_bcast(g->params.job, buf, len, out_p, len_p);
    }
    if (g->params.rank != 0) {
        status = tc_boot_exchange(g->rdv[0], NULL, 0, &copy, &got);
        if (status != TC_OK) {
            tc_error("group: rank %u: nothing from rank 0 (gone or stuck)", g->params.rank);
            return status;
        }
    } else {
        for (r = 1; (r < size) && (status == TC_OK); ++r) {
            status = tc_group_swap(g->rdv[r], buf, len, NULL, 0);
            if (status != TC_OK) {
                tc_error("group: rank %u did not take the broadcast (gone or stuck)", r);
            }
        }
        copy = malloc(len + 1);
        if ((status == TC_OK) && (copy == NULL)) {
            status = TC_ERR_NO_MEMORY;
        }
        if (status == TC_OK) {
            memcpy(copy, buf, len);
            got = len;
        }
    }
    if (status != TC_OK) {
        free(copy);
        return status;
    }
    tc_boot_hand_out(copy, got, out_p, len_p);
    return TC_OK;
}

tc_status_t tc_group_barrier(tc_group_t *g)
{
    uint8_t zero = 0;
    void *all = NULL;
    tc_status_t status;

    if (g->params.size == 1) {
        return TC_OK;
    }
    if (g->params.job != NULL) {
        return tc_job_barrier(g->params.job);
    }
    status = tc_group_gather(g, &zero, 1, &all);
    free(all);
    if (status == TC_OK) {
        status = tc_group_bcast(g, &zero, 1, NULL, NULL);
    }
    return status;
}

tc_status_t tc_group_check(tc_group_t *g)
{
    tc_status_t status = TC_OK;
    uint32_t r;

    for (r = 0; r < g->params.size; ++r) {
        if ((g->peers[r] != NULL) && (tc_peer_check_alive(g->peers[r]) != TC_OK)) {
            tc_error("group: rank %u is gone", r);
            status = TC_ERR_PEER_FAILED;
        }
    }
    return status;
}
