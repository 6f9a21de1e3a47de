/*
 * Internal: the fd-based bootstrap shared by the TCP and loopback backends.
 *
 * Wire format (all integers little-endian):
 *   hello, once right after connect, each side:
 *       8 bytes magic "TCHAINS\0", uint32 version, uint32 flags (0, ignored)
 *   every exchange, each side:
 *       uint64 length (at most TC_BOOT_MAX_BLOB), then length bytes
 *   a bye, the last thing a side sends when it leaves without closing its
 *   peer (tc_boot_say_bye: tc-perf's client on Ctrl-C), in place of a blob:
 *       uint64 TC_BOOT_BYE_MARK | n, then n bytes of reason (n <= 255);
 *       no blob is that long, so a receiver tells the two apart
 *
 * Both sides send and receive at once, interleaved with poll(), so two large
 * blobs sent in both directions cannot deadlock on full socket buffers.
 * One end is used by one thread at a time.
 */
#ifndef TC_BOOT_H
#define TC_BOOT_H

#include "twochains.h"

#include <stdint.h>
#include <stdlib.h>

#define TC_BOOT_MAGIC         "TCHAINS" /* + its NUL: 8 bytes on the wire */
#define TC_BOOT_MAGIC_LEN     8
#define TC_BOOT_HELLO_LEN     16
#define TC_BOOT_MAX_BLOB      (64ull << 20) /* larger is garbage, not data */
/* Test hook: decimal version announced in the hello instead of
 * TC_PROTO_VERSION, so tests can provoke a mismatch. Read only there. */
#define TC_BOOT_FAKE_VERSION_ENV "TC_BOOT_FAKE_VERSION"

#define TC_BOOT_BYE_MARK 0xb7e0000000000000ull
#define TC_BOOT_BYE_MAX  255

typedef struct tc_boot_turn tc_boot_turn_t;

typedef struct tc_boot_fd {
    tc_boot_t       super;  /* first: the ops cast tc_boot_t * back to this */
    int             fd;     /* connected stream socket, O_NONBLOCK, FD_CLOEXEC */
    tc_status_t     failed; /* error that left the stream mid-message, or TC_OK */
    int             tx_state; /* __atomic: TC_BOOT_TX_* (a bye never splits a blob) */
    int             bye_seen; /* the peer's bye arrived: its reason in bye */
    char            bye[TC_BOOT_BYE_MAX + 1];
    tc_boot_turn_t *turn;   /* a loopback pair in lockstep: the turn both ends
                             * share (lib/boot/boot_turn.c); NULL otherwise */
} tc_boot_fd_t;

/* tx_state: nothing being sent, an exchange's blob partway out, bye sent */
enum { TC_BOOT_TX_IDLE, TC_BOOT_TX_BLOB, TC_BOOT_TX_BYE };

/* Tell the peer why this side leaves (reason: printable, cut to 255 bytes)
 * when it is about to exit without closing it: sent at once unless an
 * exchange on another thread is partway through sending a blob, whose
 * bytes it would split (then nothing is sent: TC_ERR_BUSY). The peer's
 * tc_boot_fd_check_peer and exchanges then end in TC_ERR_CLOSED, logging
 * nothing, and tc_boot_peer_bye gives the reason. Only the fd backends
 * (tcp, loopback) carry one: TC_ERR_UNSUPPORTED elsewhere. No exchange may
 * follow a bye. */
tc_status_t tc_boot_say_bye(tc_boot_t *boot, const char *reason);
/* The reason in the peer's bye (escaped, printable), or NULL if none came:
 * one read already, or one waiting unread on the stream. Logs nothing. */
const char *tc_boot_peer_bye(tc_boot_t *boot);

/* Lockstep (lib/boot/boot_turn.c): from here on the two ends of one fresh
 * loopback pair take turns, so that their threads' setup runs in the same
 * order on every run (tc-cost's simulated cache counts depend on where
 * each side's memory lands). Rank 0 holds the first turn; an exchange
 * hands the turn to the peer and returns holding it again with the peer's
 * blob; closing an end hands it over for good. A thread takes its end's
 * turn before it starts (tc_boot_turn_wait) and gives it when it is done
 * with the bootstrap (tc_boot_turn_pass). Not for TCP ends. */
tc_status_t tc_boot_loopback_lockstep(tc_boot_t *rank0, tc_boot_t *rank1);
tc_status_t tc_boot_turn_wait(tc_boot_t *boot);
void        tc_boot_turn_pass(tc_boot_t *boot);

/* The turn itself, for lib/boot/boot_loop.c. */
tc_status_t tc_boot_turn_create(tc_boot_turn_t **turn_p);
tc_status_t tc_boot_turn_take(tc_boot_turn_t *turn, const tc_boot_t *boot);
void        tc_boot_turn_give(tc_boot_turn_t *turn, const tc_boot_t *boot);
tc_status_t tc_boot_turn_exchange(tc_boot_turn_t *turn, const tc_boot_t *boot, const void *buf,
                                  size_t len, void **peer_buf_p, size_t *peer_len_p);
void        tc_boot_turn_close(tc_boot_turn_t *turn, const tc_boot_t *boot);

/* Allocate an end with no socket yet (fd = -1), so that errors during
 * connection setup can already name the peer. */
/* Whether boot's two ends are both in this process (a loopback pair). */
int tc_boot_in_process(const tc_boot_t *boot);

tc_status_t tc_boot_fd_create(const tc_boot_ops_t *ops, int rank,
                              int timeout_ms, tc_boot_fd_t **boot_p);

/* Hello, in halves: send ours and/or receive and check the peer's, each
 * bounded by timeout_ms. TCP does both at once; the loopback pair sends both
 * hellos before reading either, so one thread can set it up. */
tc_status_t tc_boot_fd_hello(tc_boot_fd_t *boot, int do_send, int do_recv);
/* Are the first len bytes of a hello a twochains peer's so far (the magic)? */
int         tc_boot_hello_prefix_ok(const uint8_t *buf, size_t len);
/* A whole hello received (its magic checked): TC_OK where the peer speaks
 * our protocol version, else TC_ERR_VERSION_MISMATCH, logged. */
tc_status_t tc_boot_fd_hello_version(const tc_boot_fd_t *boot, const uint8_t *hello);

/* tc_boot_ops_t methods shared by the fd backends. */
tc_status_t tc_boot_fd_exchange(tc_boot_t *boot, const void *buf, size_t len,
                                void **peer_buf_p, size_t *peer_len_p);
tc_status_t tc_boot_fd_check_peer(tc_boot_t *boot);
void        tc_boot_fd_close(tc_boot_t *boot);

/* A TCP listener's side of the hello: connections accepted but not yet
 * heard from, up to TC_BOOT_LISTEN_CANDIDATES at once (past that the
 * longest-waiting one is dropped), so that strays reaching the port first
 * (silent, junk, gone) cannot hold back or take the place of a peer that
 * says the hello (lib/boot/boot_tcp.c). */
#define TC_BOOT_LISTEN_CANDIDATES 8

typedef struct tc_boot_cand {
    int     fd;
    size_t  got;                      /* hello bytes received */
    uint8_t hello[TC_BOOT_HELLO_LEN];
    char    host[64];                 /* numeric address */
    char    name[96];                 /* host:port, for the log */
} tc_boot_cand_t;

typedef struct tc_boot_listen {
    int            fd;      /* listening, the caller's */
    uint16_t       port;
    int            n;
    unsigned       dropped; /* strays dropped so far */
    tc_boot_cand_t cands[TC_BOOT_LISTEN_CANDIDATES];
} tc_boot_listen_t;

/* l hears fd's connections (fd < 0: none); fd is made non-blocking. */
void        tc_boot_listen_init(tc_boot_listen_t *l, int fd);
/* The next connection to say a whole hello before deadline becomes boot's
 * stream (boot: from tc_boot_fd_create, no fd yet), its address in boot's
 * peer name and (host not NULL) its numeric host in host; our hello goes
 * back, then the version check. TC_ERR_TIMEOUT is not logged: the caller
 * says what it waited for. */
tc_status_t tc_boot_listen_take(tc_boot_listen_t *l, uint64_t deadline, tc_boot_fd_t *boot,
                                char *host, size_t host_len);
/* Close the connections not yet heard from (not the listener), each
 * logged as closed before what (the client's hello, the deadline). */
void        tc_boot_listen_drop_all(tc_boot_listen_t *l, const char *before);

/* Deadlines on CLOCK_MONOTONIC, in nanoseconds. */
uint64_t tc_boot_deadline(int timeout_ms);
/* Milliseconds left until deadline, rounded up; <= 0 once it passed. */
int      tc_boot_time_left_ms(uint64_t deadline);

/* A broadcast's result to its caller: copy (malloc'd, len bytes) into
 * *out_p, or freed when out_p is NULL; len into *len_p if not NULL. */
static inline void tc_boot_hand_out(void *copy, size_t len, void **out_p, size_t *len_p)
{
    if (out_p != NULL) {
        *out_p = copy;
    } else {
        free(copy);
    }
    if (len_p != NULL) {
        *len_p = len;
    }
}

#endif
