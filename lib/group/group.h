/*
 * Process groups: N processes that all know each other (every pair has a
 * connected tc_peer: endpoint, mailboxes, rkeys), for multicast.
 *
 * Bootstrap (TCP, no MPI needed): rank 0 serves a rendezvous at
 * TC_BOOT=host:port. Every other rank opens a listening socket for its
 * pairs, connects to the rendezvous and says {rank, port}; rank 0 answers
 * with the table of every rank's address once all have arrived (or names
 * the ranks that never did, after the setup timeout). Then each rank
 * connects to every lower rank's listener and accepts the higher ones, and
 * the pairs run tc_peer_connect (worker address, mailbox address, rkey)
 * in one global order (by lower rank, then higher), so no two ranks wait
 * for each other in opposite orders. The rendezvous sockets stay open for
 * gather, broadcast and barrier; every pair's socket tells when a rank dies.
 *
 * Launchers: any launcher works through the environment (TC_RANK, TC_SIZE,
 * TC_BOOT; TC_BOOT_FD: rank 0 inherits an already listening rendezvous
 * socket, as tc-mcast -n N does when it starts the ranks itself). A PMIx
 * launcher (mpirun, srun --mpi=pmix) needs none of it: with params.job the
 * pairs' blobs, gather, broadcast and barrier go through the job instead.
 */
#ifndef TC_GROUP_H
#define TC_GROUP_H

/* An installed header: what it declares is the library's API, exported
 * from libtwochains.so (built -fvisibility=hidden; lib/twochains.map). */
#pragma GCC visibility push(default)

#include "twochains.h"

#define TC_GROUP_HOST_MAX 64

typedef struct tc_group tc_group_t;

typedef struct tc_group_params {
    uint32_t rank;
    uint32_t size;
    char     boot_host[TC_GROUP_HOST_MAX]; /* where rank 0's rendezvous listens */
    uint16_t boot_port;
    int      listen_fd;        /* rank 0: rendezvous socket already listening, or -1 */
    int      timeout_ms;       /* every later step (gather, barrier) */
    int      setup_timeout_ms; /* how long rank 0 waits for every rank to arrive */
    tc_job_t *job;             /* not NULL: a launcher's job does the bootstrap
                                * (PMIx; no rendezvous, no pair sockets) */
} tc_group_params_t;

/* Defaults for a group of size: timeouts 10 s and 30 s + 250 ms per rank. */
void        tc_group_params_init(tc_group_params_t *params, uint32_t rank, uint32_t size);
/* From TC_RANK, TC_SIZE, TC_BOOT (host:port), TC_BOOT_FD and
 * TC_SETUP_TIMEOUT_MS (how long the rendezvous waits). TC_ERR_NOT_FOUND
 * when TC_RANK is unset (no launcher); TC_ERR_INVALID_PARAM, logged, when
 * a variable is malformed. */
tc_status_t tc_group_params_from_env(tc_group_params_t *params_p);
/* The group of every rank of a launcher's job (tc_job_open): rank and size
 * from it; the job must outlive the group. */
void        tc_group_params_from_job(tc_group_params_t *params, tc_job_t *job);
/* A listening TCP socket on host (port 0: any), for a launcher to hand to
 * rank 0 (TC_BOOT_FD) before it starts the ranks. */
tc_status_t tc_group_listen(const char *host, uint16_t port, int backlog, int *fd_p,
                            uint16_t *port_p);

/* Join the group; ctx's rank must be params->rank. */
tc_status_t tc_group_create(tc_context_t *ctx, const tc_group_params_t *params,
                            tc_group_t **group_p);
void        tc_group_destroy(tc_group_t *group);

uint32_t      tc_group_rank(const tc_group_t *group);
uint32_t      tc_group_size(const tc_group_t *group);
tc_context_t *tc_group_context(const tc_group_t *group);
/* The peer for rank (NULL for this rank itself). */
tc_peer_t    *tc_group_peer(const tc_group_t *group, uint32_t rank);

/* Rank 0 gets every rank's len bytes (rank order, malloc'd, caller frees);
 * the others get NULL. Over the rendezvous sockets (out of band). */
tc_status_t tc_group_gather(tc_group_t *group, const void *buf, size_t len, void **all_p);
/* Rank 0's len bytes to every rank (buf ignored elsewhere); out_p gets a
 * malloc'd copy everywhere. */
tc_status_t tc_group_bcast(tc_group_t *group, const void *buf, size_t len, void **out_p,
                           size_t *len_p);
tc_status_t tc_group_barrier(tc_group_t *group);
/* TC_OK while every other rank is alive; else logs each rank that is gone
 * and returns TC_ERR_PEER_FAILED. */
tc_status_t tc_group_check(tc_group_t *group);

#pragma GCC visibility pop
#endif
