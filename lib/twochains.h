/*
 * libtwochains: push compiled functions (jams) and their data into another
 * process with one-sided UCX puts and run them on arrival.
 *
 * One public header. Every function that can fail returns tc_status_t
 * (TC_OK = 0, negative errors); output parameters come last, end in _p and
 * are written only on success.
 */
#ifndef TWOCHAINS_H
#define TWOCHAINS_H

/* An installed header: what it declares is the library's API, exported
 * from libtwochains.so (built -fvisibility=hidden; lib/twochains.map). */
#pragma GCC visibility push(default)

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TC_VERSION_MAJOR 0
#define TC_VERSION_MINOR 1
/* Wire protocol version: bootstrap handshake and frame header (and the
 * package ABI, tc_pkg_desc_t.abi_version). Bump on any change that an
 * older peer would misread. 4: line frames (lib/codec/frame_line.h). */
#define TC_PROTO_VERSION 4

/* ------------------------------------------------------------------ status */

/* Every status code, its value and its string, in one list (the model:
 * UCX's ucs/type/status.h). TC_OK is 0, errors are negative, and a value
 * once given never changes (it crosses the wire inside replies);
 * TC_INPROGRESS (positive, like UCS_INPROGRESS) says an operation was
 * started and is not done yet; TC_ERR_AGAIN that nothing was done and the
 * same call may succeed later. New codes go at the end, before TC_ERR_LAST. */
#define TC_STATUS_TABLE(_) \
    _(TC_INPROGRESS,           1,   "operation in progress") \
    _(TC_OK,                   0,   "success") \
    _(TC_ERR_INVALID_PARAM,    -1,  "invalid parameter") \
    _(TC_ERR_NO_MEMORY,        -2,  "out of memory") \
    _(TC_ERR_IO,               -3,  "input/output error") \
    _(TC_ERR_TIMEOUT,          -4,  "timed out") \
    _(TC_ERR_PEER_NOT_FOUND,   -5,  "peer not found") \
    _(TC_ERR_PORT_BUSY,        -6,  "port busy") \
    _(TC_ERR_VERSION_MISMATCH, -7,  "protocol version mismatch") \
    _(TC_ERR_PEER_FAILED,      -8,  "peer failed") \
    _(TC_ERR_UCX,              -9,  "UCX error") \
    _(TC_ERR_NO_RESOURCE,      -10, "no resource") \
    _(TC_ERR_BAD_FRAME,        -11, "malformed frame") \
    _(TC_ERR_NOT_FOUND,        -12, "not found") \
    _(TC_ERR_UNSUPPORTED,      -13, "unsupported") \
    _(TC_ERR_PROTOCOL,         -14, "protocol error") \
    _(TC_ERR_OUT_OF_RANGE,     -15, "out of range") \
    _(TC_ERR_INTERRUPTED,      -16, "interrupted") \
    _(TC_ERR_AGAIN,            -17, "try again") \
    _(TC_ERR_REFUSED,          -18, "refused by the peer's policy") \
    _(TC_ERR_CLOSED,           -19, "the peer closed the connection") \
    _(TC_ERR_BUSY,             -20, "in use")

#define TC_STATUS_ENUM_ENTRY(_code, _value, _str) _code = (_value),

typedef enum {
    TC_STATUS_TABLE(TC_STATUS_ENUM_ENTRY)
    TC_ERR_LAST = -21 /* below every error: not a status, keep it last */
} tc_status_t;

/* The status' string from the table; "unknown status" for a value that is
 * not a code. */
const char *tc_status_str(tc_status_t status);

/* --------------------------------------------------------------------- log
 * What the library has to say goes through one handler, filtered by level
 * (the library never prints on its own beyond it). The default handler
 * writes "twochains: error: <msg>" (warning, info, debug) to stderr; the
 * default level is TC_LOG_WARN, or TC_LOG_LEVEL from the environment
 * (error, warn, info, debug) read at the first message. A handler gets one
 * message (no newline) per call, possibly from several threads at once. */

typedef enum {
    TC_LOG_ERROR = 0,
    TC_LOG_WARN  = 1,
    TC_LOG_INFO  = 2,
    TC_LOG_DEBUG = 3
} tc_log_level_t;

typedef void (*tc_log_handler_t)(tc_log_level_t level, const char *msg, void *arg);

/* Messages above level are dropped. */
void           tc_log_set_level(tc_log_level_t level);
tc_log_level_t tc_log_get_level(void);
/* handler NULL: back to the default one. */
tc_status_t    tc_log_set_handler(tc_log_handler_t handler, void *arg);
const char    *tc_log_level_str(tc_log_level_t level);  /* error, warn, info, debug */
tc_status_t    tc_log_level_parse(const char *name, tc_log_level_t *level_p);

/* --------------------------------------------------------------- bootstrap
 * Out-of-band rendezvous used once, before the data path: the two sides
 * swap blobs (worker address, mailbox address, packed rkeys, tool options).
 * Behind an ops table so MPI or a rendezvous server can be added. */

typedef struct tc_boot tc_boot_t;

typedef struct tc_boot_ops {
    const char *name;
    /* Send buf, receive the peer's blob (malloc'd, caller frees). */
    tc_status_t (*exchange)(tc_boot_t *boot, const void *buf, size_t len,
                            void **peer_buf_p, size_t *peer_len_p);
    /* TC_OK while the peer's end is open; TC_ERR_PEER_FAILED once it closed
     * (TC_ERR_CLOSED: it closed after saying why, which the tcp and
     * loopback backends carry; logs nothing). */
    tc_status_t (*check_peer)(tc_boot_t *boot);
    void        (*close)(tc_boot_t *boot);
} tc_boot_ops_t;

struct tc_boot {
    const tc_boot_ops_t *ops;
    int                  rank;       /* 0: server side, 1: client side */
    int                  size;       /* 2 for point-to-point */
    int                  timeout_ms; /* every step is bounded by this */
    char                 peer_name[96];
};

/* Server: listen on port (0 picks one: use tc_boot_tcp_server_cb), accept
 * one client, check the protocol version. */
tc_status_t tc_boot_tcp_server(uint16_t port, int timeout_ms, tc_boot_t **boot_p);
/* Like tc_boot_tcp_server, but reports the bound port through port_cb before
 * waiting for the client (lets a test pick a free port). */
tc_status_t tc_boot_tcp_server_cb(uint16_t port, int timeout_ms,
                                  void (*port_cb)(uint16_t port, void *arg),
                                  void *arg, tc_boot_t **boot_p);
/* Client: connect to host:port, retrying until timeout_ms. */
tc_status_t tc_boot_tcp_client(const char *host, uint16_t port, int timeout_ms,
                               tc_boot_t **boot_p);
/* Both ends in one process (socketpair): for loopback runs and tests. */
tc_status_t tc_boot_loopback_pair(int timeout_ms, tc_boot_t **rank0_p,
                                  tc_boot_t **rank1_p);

static inline tc_status_t tc_boot_exchange(tc_boot_t *boot, const void *buf,
                                           size_t len, void **peer_buf_p,
                                           size_t *peer_len_p)
{
    return boot->ops->exchange(boot, buf, len, peer_buf_p, peer_len_p);
}

/* Both sides call it; returns when both got there. */
tc_status_t tc_boot_barrier(tc_boot_t *boot);

static inline void tc_boot_close(tc_boot_t *boot)
{
    if (boot != NULL) {
        boot->ops->close(boot);
    }
}

/* Which bootstrap a tool uses (--boot): auto (a PMIx job when a PMIx
 * launcher started the process, else TCP), tcp (started by hand: server
 * and client), pmix (a job; an error when no launcher started it),
 * loopback (both sides in one process). */
typedef enum {
    TC_BOOT_AUTO     = 0,
    TC_BOOT_TCP      = 1,
    TC_BOOT_PMIX     = 2,
    TC_BOOT_LOOPBACK = 3
} tc_boot_kind_t;

const char *tc_boot_kind_str(tc_boot_kind_t kind);   /* auto, tcp, pmix, loopback */
tc_status_t tc_boot_kind_parse(const char *name, tc_boot_kind_t *kind_p);

/* -------------------------------------------------------------------- jobs
 * The processes one PMIx launcher started (Open MPI's mpirun, Slurm's
 * srun --mpi=pmix): rank and size from the launcher, and every out-of-band
 * step through PMIx put, commit, fence and get (no TCP rendezvous). Each
 * rank pair gets a bootstrap end for tc_peer_connect from tc_job_boot; the
 * collectives are the job's, called by every rank in the same order.
 * A rank that died is found through the launcher's events where it sends
 * them and, for ranks on this kernel, through a pidfd of its process; every
 * step is bounded by the job's timeout. */

typedef struct tc_job tc_job_t;

/* Whether the environment says a PMIx launcher started this process. */
int         tc_job_launched(void);
/* Joins the job (PMIx_Init, one fence among all ranks); timeout_ms bounds
 * every later step. TC_ERR_UNSUPPORTED, logged with the reason, when no
 * launcher started the process or the library was built without PMIx. */
tc_status_t tc_job_open(int timeout_ms, tc_job_t **job_p);
/* After every tc_job_boot end of the job is closed. */
void        tc_job_close(tc_job_t *job);
uint32_t    tc_job_rank(const tc_job_t *job);
uint32_t    tc_job_size(const tc_job_t *job);
/* The host name rank published ("?" when it published none). */
const char *tc_job_host(const tc_job_t *job, uint32_t rank);
/* A bootstrap end between this rank and peer_rank (the lower rank is side
 * 0, the server side); both ranks call it and then exchange in step. */
tc_status_t tc_job_boot(tc_job_t *job, uint32_t peer_rank, tc_boot_t **boot_p);
tc_status_t tc_job_barrier(tc_job_t *job);
/* Rank 0 gets every rank's len bytes in rank order (malloc'd, caller frees);
 * the others get NULL. */
tc_status_t tc_job_gather(tc_job_t *job, const void *buf, size_t len, void **all_p);
/* Rank 0's len bytes to every rank; out_p (if not NULL) gets a malloc'd copy. */
tc_status_t tc_job_bcast(tc_job_t *job, const void *buf, size_t len, void **out_p,
                         size_t *len_p);
/* TC_OK while rank is alive as far as this process can tell; else logs it
 * once and returns TC_ERR_PEER_FAILED. */
tc_status_t tc_job_check(tc_job_t *job, uint32_t rank);

/* ---------------------------------------------------------------- packages
 * A package is a shared library built from jams/ (jam_<name>.amc) and rieds
 * (ried_<name>.rdc). It exports one descriptor, tc_package_desc. */

typedef struct tc_jam_ctx {
    void      *state;      /* the package's state in this process (ried init) */
    uint32_t   origin;     /* rank of the process that sent the jam */
    uint32_t   seq;        /* frame sequence number */
    const void *args;      /* frame ARGS section */
    uint32_t   args_len;
} tc_jam_ctx_t;

typedef int64_t (*tc_jam_run_fn)(tc_jam_ctx_t *ctx, void *payload, size_t len);
/* Sender side: fill dst (cap bytes) from src/len; return bytes written or -1.
 * dst is for writing only: for a large payload it is the peer's mailbox
 * slot, mapped (signalling store; lib/arch/place.h tc_place_direct_min). A pack
 * that fails there (-1, or more than cap) is called again on a staging
 * frame, with the slot's whole room as cap, before the send reports why:
 * packing must have no other effect. */
typedef int64_t (*tc_jam_pack_fn)(void *dst, size_t cap, const void *src, size_t len);
typedef int     (*tc_ried_init_fn)(void **state_p);
typedef void    (*tc_ried_fini_fn)(void *state);

typedef enum {
    TC_ELEM_JAM  = 1,
    TC_ELEM_RIED = 2
} tc_elem_kind_t;

typedef struct tc_pkg_element {
    const char     *name;
    uint16_t        id;
    uint16_t        kind;       /* tc_elem_kind_t */
    tc_jam_run_fn   run;        /* jams */
    tc_jam_pack_fn  pack;       /* jams */
    tc_ried_init_fn init;       /* rieds */
    tc_ried_fini_fn fini;       /* rieds */
} tc_pkg_element_t;

#define TC_PKG_DESC_MAGIC 0x54435047u /* "TCPG" */
#define TC_PKG_DESC_SYMBOL "tc_package_desc"
/* What each element tells the receiver about itself, const uint32_t
 * [n_elements] of TC_JAM_HINT_* bits, written by tc-pkg (optional: a
 * package without it hints nothing). */
#define TC_PKG_HINTS_SYMBOL "tc_package_hints"
/* The jam reads every line of its payload (its source defines
 * TC_JAM_READS_PAYLOAD): after a frame of it, the receiver asks for the next
 * frame's lines (its first 4 KiB) the moment that frame arrives, beside its
 * header's line, not after the header is checked and the jam called. A jam
 * that does not read its payload (noop) is better off without: those lines
 * would cross for nothing. */
#define TC_JAM_HINT_READS_PAYLOAD 1u

typedef struct tc_pkg_desc {
    uint32_t                magic;
    uint32_t                abi_version;  /* TC_PROTO_VERSION */
    const char             *name;
    uint32_t                id;           /* hash of name and content */
    uint32_t                n_elements;
    const tc_pkg_element_t *elements;     /* elements[i].id == i */
} tc_pkg_desc_t;

typedef struct tc_pkg tc_pkg_t;
typedef struct tc_jam {
    const tc_pkg_t         *pkg;
    const tc_pkg_element_t *elem;
    uint32_t                pkg_id;
    uint16_t                element;
} tc_jam_t;

/* path: a package directory tc-pkg installed (the library its manifest.tcm
 * names is opened, e.g. pkg-config --variable=benchpkgdir twochains) or the
 * package library itself. Checked whole before use (docs/SECURITY.md);
 * TC_ERR_NOT_FOUND for a directory with no manifest in it. */
tc_status_t tc_pkg_open(const char *path, tc_pkg_t **pkg_p);
void        tc_pkg_close(tc_pkg_t *pkg);
const tc_pkg_desc_t *tc_pkg_desc(const tc_pkg_t *pkg);
tc_status_t tc_pkg_jam(const tc_pkg_t *pkg, const char *name, tc_jam_t *jam_p);
/* The jam's injectable image: bytes (GOT slots included) and GOT slots.
 * TC_ERR_UNSUPPORTED when its package was not built by tc-pkg. */
tc_status_t tc_jam_code_info(const tc_jam_t *jam, uint32_t *code_bytes_p,
                             uint32_t *got_slots_p);
/* What the jam's package records about it: TC_JAM_HINT_* bits (0 for a
 * package without TC_PKG_HINTS_SYMBOL). */
uint32_t    tc_jam_hints(const tc_jam_t *jam);

/* What a jam's source says about it (TC_JAM_DESCRIBE, tc_jam.h), one line
 * of printable ASCII each, shorter than TC_JAM_DOC_MAX bytes. */
#define TC_JAM_DOC_MAX 256
/* where TC_JAM_DESCRIBE puts them in a jam's object, after this text */
#define TC_JAM_DOC_SECTION ".rodata.tc_jam_doc"
#define TC_JAM_DOC_MAGIC   "tc-jam-doc 1"
typedef struct tc_jam_doc {
    const char *what;     /* what the jam does */
    const char *payload;  /* the payload it takes */
    const char *result;   /* what it returns */
} tc_jam_doc_t;
/* The jam's description, from its package's manifest (the strings live as
 * long as the package is open). TC_ERR_NOT_FOUND when its source describes
 * nothing, or its package was opened without a manifest. */
tc_status_t tc_jam_doc(const tc_jam_t *jam, tc_jam_doc_t *doc_p);

/* -------------------------------------------------------------- the runtime */

typedef struct tc_peer tc_peer_t;

/* Rieds over the wire: send the shared library at path (ried_<name>.so or
 * libried_<name>.so) to the peer, which loads it from a memfd, runs its
 * initialiser (tc_ried_init_<name>) and answers with its export table
 * (newline-separated symbol names, each printable: other bytes escaped,
 * written to exports if not NULL). Jams
 * injected afterwards resolve their slots against it. A library the peer
 * cannot load is reported with the peer's dlerror text (TC_ERR_IO); the
 * peer keeps serving. TC_ERR_NO_RESOURCE when the peer has no room: this
 * side already holds its share of the peer's ried table there (a quarter),
 * or the table is full; unload one first. A ried frame and its answer need
 * frames of 192 bytes (fixed frames): TC_ERR_OUT_OF_RANGE, with what to set,
 * where this side's or the peer's are smaller (the peer refuses the ried and
 * keeps serving). */
tc_status_t tc_ried_ship(tc_peer_t *peer, const char *path, size_t exports_len,
                         char *exports_p, uint32_t *ried_id_p);
/* Take a shipped ried back: TC_ERR_BUSY while a jam synced on the peer
 * has a GOT slot resolved into it, TC_ERR_NOT_FOUND for an id the peer
 * does not hold from this side. */
tc_status_t tc_ried_unload(tc_peer_t *peer, uint32_t ried_id);

/* Names of the enums below (lib/base/names.c, one table each): tc_<enum>_str gives
 * "unknown" for a value out of range; tc_<enum>_parse reads the same names
 * back (TC_ERR_NOT_FOUND for one it does not know; quiet, the caller
 * reports it; the output is written only on success). */

typedef enum {
    TC_SIGNAL_FENCED     = 0, /* data put, ucp_worker_fence, signal put: any transport */
    TC_SIGNAL_SINGLE_PUT = 1, /* one put: only where the signal word, the frame's last,
                               * cannot be seen before the bytes ahead of it: tcp (the
                               * receiver's own progress lands a put in stream order) */
    TC_SIGNAL_ORDERED    = 2, /* data put, signal put, no fence: only where two puts
                               * land in issue order (shared memory on x86-64 TSO,
                               * one RC lane); saves the fence's store-buffer drain */
    TC_SIGNAL_STORE      = 3, /* no UCX call per frame: the sending CPU stores the frame
                               * into the peer's mailbox mapped with ucp_rkey_ptr (data,
                               * then the signal with release order); same-host shared
                               * memory only, refused at connect elsewhere */
    TC_SIGNAL_AUTO       = 4  /* the default: store where the transport maps the peer's
                               * mailbox, single-put where one tcp lane carries the puts,
                               * else fenced (tc_peer_signal says which) */
} tc_signal_mode_t;

const char *tc_signal_str(tc_signal_mode_t signal);   /* fenced, single-put, ordered, store, auto */
tc_status_t tc_signal_parse(const char *name, tc_signal_mode_t *signal_p);

typedef enum {
    TC_FRAMES_FIXED    = 0, /* every frame has the size set per peer: wait on SIG */
    TC_FRAMES_VARIABLE = 1  /* wait on MAG, read the size, wait on SIG */
} tc_frame_mode_t;

const char *tc_frames_str(tc_frame_mode_t frames);    /* fixed, variable */
tc_status_t tc_frames_parse(const char *name, tc_frame_mode_t *frames_p);

typedef enum {
    TC_PROGRESS_AUTO   = 0, /* progress the worker in wait loops iff a lane emulates puts */
    TC_PROGRESS_ALWAYS = 1,
    TC_PROGRESS_NEVER  = 2
} tc_progress_mode_t;

const char *tc_progress_str(tc_progress_mode_t progress); /* auto, on (always), off (never) */
tc_status_t tc_progress_parse(const char *name, tc_progress_mode_t *progress_p);

/* How a jam reaches the peer. */
typedef enum {
    TC_MODE_LOCAL    = 0, /* by element id: the peer runs its own Local Function */
    TC_MODE_INJECTED = 1, /* the code travels in every frame, GOTP in front of it */
    TC_MODE_CACHED   = 2  /* the code travels once (at sync); frames carry its hash */
} tc_mode_t;

const char *tc_mode_str(tc_mode_t mode);
tc_status_t tc_mode_parse(const char *name, tc_mode_t *mode_p);

/* What a receiver agrees to run. */
typedef enum {
    TC_EXEC_ALLOWLIST  = 0, /* injected code must be byte-identical to a jam of an
                             * accepted package (default) */
    TC_EXEC_ANY        = 1, /* any code whose layout fits (loud warning) */
    TC_EXEC_LOCAL_ONLY = 2  /* no injected or cached code at all */
} tc_exec_policy_t;

const char *tc_exec_str(tc_exec_policy_t exec);       /* allowlist, any, local-only */
tc_status_t tc_exec_parse(const char *name, tc_exec_policy_t *exec_p);

/* How a receiver waits for the next frame (tc_context_check_wait says
 * whether this host can). */
typedef enum {
    TC_WAIT_POLL     = 0, /* plain loads */
    TC_WAIT_PAUSE    = 1, /* x86 PAUSE / aarch64 YIELD between loads */
    TC_WAIT_WFE      = 2, /* aarch64: exclusive load of the signal, WFE until it changes */
    TC_WAIT_UMWAIT   = 3, /* x86 WAITPKG: UMONITOR the signal, UMWAIT with a deadline */
    TC_WAIT_MWAITX   = 4, /* AMD MONITORX/MWAITX */
    TC_WAIT_EVENT    = 5, /* block on the UCX worker's fd; the sender rings a doorbell AM */
    TC_WAIT_ADAPTIVE = 6  /* poll for spin_ns, then as event */
} tc_wait_t;

const char *tc_wait_str(tc_wait_t wait);
tc_status_t tc_wait_parse(const char *name, tc_wait_t *wait_p);

/* Where a frame's bytes land in the peer's mailbox (an emulation by the
 * sending CPU of a NIC with or without cache stashing; needs the peer's
 * mailbox mapped through shared memory). */
typedef enum {
    TC_PLACE_DEFAULT = 0, /* the transport's own put */
    TC_PLACE_LLC     = 1, /* direct write, lines pushed to the shared cache */
    TC_PLACE_DRAM    = 2  /* direct write that leaves no line in any cache */
} tc_place_t;

const char *tc_place_str(tc_place_t place);
tc_status_t tc_place_parse(const char *name, tc_place_t *place_p);

/* Which fields of tc_context_params_t the caller set; the others take their
 * defaults (tc_context_params_init sets them all, with defaults). New fields
 * get new bits, so a program built against an older header keeps working. */
enum {
    TC_CONTEXT_PARAM_FIELD_SLOTS      = 1u << 0,
    TC_CONTEXT_PARAM_FIELD_SLOT_SIZE  = 1u << 1,
    TC_CONTEXT_PARAM_FIELD_SIGNAL     = 1u << 2,
    TC_CONTEXT_PARAM_FIELD_FRAMES     = 1u << 3,
    TC_CONTEXT_PARAM_FIELD_PROGRESS   = 1u << 4,
    TC_CONTEXT_PARAM_FIELD_TIMEOUT    = 1u << 5,
    TC_CONTEXT_PARAM_FIELD_ENABLE_AM  = 1u << 6,
    TC_CONTEXT_PARAM_FIELD_EXEC       = 1u << 7,
    TC_CONTEXT_PARAM_FIELD_CODE_CACHE = 1u << 8,
    TC_CONTEXT_PARAM_FIELD_WAIT       = 1u << 9,
    TC_CONTEXT_PARAM_FIELD_EVENTS     = 1u << 10,
    TC_CONTEXT_PARAM_FIELD_SPIN_NS    = 1u << 11,
    TC_CONTEXT_PARAM_FIELD_WX         = 1u << 12,
    TC_CONTEXT_PARAM_FIELD_RANK       = 1u << 13,
    TC_CONTEXT_PARAM_FIELD_IN_PLACE   = 1u << 14,
    TC_CONTEXT_PARAM_FIELD_CALL_TIMEOUT = 1u << 15,
    TC_CONTEXT_PARAM_FIELD_RIED_LIMITS  = 1u << 16,
    TC_CONTEXT_PARAM_FIELD_COUNTERS     = 1u << 17,
    TC_CONTEXT_PARAM_FIELD_ALL        = (1u << 18) - 1
};

typedef struct tc_context_params {
    uint64_t           field_mask;  /* TC_CONTEXT_PARAM_FIELD_* */
    uint32_t           slots;       /* ring slots per peer (power of two) */
    uint32_t           slot_size;   /* bytes, multiple of 64 */
    tc_signal_mode_t   signal;
    tc_frame_mode_t    frames;      /* variable (default): any payload; fixed: one size per side */
    tc_progress_mode_t progress;
    int                timeout_ms;  /* longest silence before a wait fails */
    int                enable_am;   /* also set up UCX active messages (reference tests) */
    tc_exec_policy_t   exec;        /* what injected code this side runs */
    uint32_t           code_cache;  /* bytes of executable code cache (cached mode) */
    tc_wait_t          wait;        /* how this side waits: the default for its peers */
    int                events;      /* set up UCX wake-ups (needed for event, adaptive) */
    uint32_t           spin_ns;     /* adaptive: spin this long before blocking */
    int                wx;          /* W^X: the mailbox stays RW; injected code is copied
                                     * into a code cache mapped twice (RW view, RX view)
                                     * and runs from the RX view */
    uint32_t           rank;        /* this process' rank (shown as jam origin) */
    int                in_place;    /* policy any only: run injected code in place in
                                     * the slot (the paper's layout; for measuring it:
                                     * does not hold against a racing peer, see
                                     * docs/SECURITY.md); refused otherwise */
    int                call_timeout_ms; /* the longest a blocking call (tc_jam_call,
                                     * tc_jam_prepare, tc_ried_ship, tc_ried_unload)
                                     * takes from its start, however often the peer
                                     * speaks meanwhile (default: timeout_ms) */
    /* What the peers of one process may hold here (a peer process is the UCX
     * worker its connections reach; docs/SECURITY.md): rieds loaded (default
     * 4 of the table's 16) and bytes of rieds under way (default 64 MiB, one
     * whole ried); and all peers together, bytes under way (default 128 MiB) */
    uint32_t           ried_max_per_process;
    uint64_t           ried_rx_bytes_per_process;
    uint64_t           ried_rx_bytes;
    int                counters;    /* 1 (default): tc_peer_stats counts every frame sent;
                                     * 0: prepared starts (tc_jam_start) are not counted
                                     * (tx_frames, tx_jams), nor frames received (rx_frames)
                                     * and polls, and spend no instruction on it (chosen at
                                     * init and connect); tc_peer_stats' counters says which */
} tc_context_params_t;

void tc_context_params_init(tc_context_params_t *params);

typedef struct tc_context tc_context_t;

tc_status_t tc_context_create(const tc_context_params_t *params, tc_context_t **ctx_p);
void        tc_context_destroy(tc_context_t *ctx);
/* Load a package into this context: run its rieds' init, keep their state.
 * Load every package before tc_peer_connect: a peer hears which packages
 * this side loaded at connect, and refuses local calls into others at once. */
tc_status_t tc_context_add_pkg(tc_context_t *ctx, const tc_pkg_t *pkg);
/* The state the package's ried made in this context (NULL if none). */
void       *tc_context_pkg_state(const tc_context_t *ctx, const tc_pkg_t *pkg);
/* Active messages that arrived on an id this library never sends: dropped
 * unread, counted here (docs/SECURITY.md). */
uint64_t    tc_context_am_dropped(const tc_context_t *ctx);
/* "x.y.z" of the UCX library in use. */
const char *tc_ucx_version(void);

/* Per connection; fields not in field_mask take the context's values. */
enum {
    TC_PEER_PARAM_FIELD_FRAME_SIZE = 1u << 0,
    TC_PEER_PARAM_FIELD_WAIT       = 1u << 1
};

typedef struct tc_peer_params {
    uint64_t  field_mask;   /* TC_PEER_PARAM_FIELD_* */
    uint32_t  frame_size;   /* fixed frames: the size of this side's frames (default 64) */
    tc_wait_t wait;         /* how this side waits for the peer's frames */
} tc_peer_params_t;

/* Connect to the peer at the other end of boot: swap worker address,
 * mailbox address and rkey, and what each side's frames and waits are, then
 * create the endpoint. params may be NULL. */
tc_status_t tc_peer_connect(tc_context_t *ctx, tc_boot_t *boot, const tc_peer_params_t *params,
                            tc_peer_t **peer_p);
/* Say goodbye and close: this side's frames are consumed first, the peer
 * sees the goodbye (its calls then return TC_ERR_CLOSED, with nothing
 * logged) and answers it; then the endpoint closes and the peer is freed.
 * A failed peer is only freed. */
void        tc_peer_close(tc_peer_t *peer);

/* Change how this side waits for the peer's frames. The peer hears it in the
 * stream (a config frame) and rings a doorbell after its frames from then
 * on where mine blocks (event, adaptive); nothing to set on its side. A
 * strategy this host lacks fails with TC_ERR_UNSUPPORTED and a message
 * naming the reason and the strategies it has. */
tc_status_t tc_peer_set_wait(tc_peer_t *peer, tc_wait_t mine);

/* How this side's frames land in the peer's mailbox from now on. LLC and
 * DRAM write through the mailbox mapped with ucp_rkey_ptr; they fail with
 * TC_ERR_UNSUPPORTED and a message naming the reason when the transport
 * cannot map it (not same-host shared memory) or the CPU lacks the
 * instructions. */
tc_status_t tc_peer_set_placement(tc_peer_t *peer, tc_place_t place);
/* Receiver: prefetch a whole frame as soon as its arrival is seen. */
void        tc_peer_set_sw_prefetch(tc_peer_t *peer, int on);

/* Fixed-frame mode: the size of this side's frames from the next one on (a
 * multiple of 64, at most the peer's slot size). The peer hears it in the
 * stream, ahead of the first frame of the new size: nothing to set on its
 * side, and no need to stop. */
tc_status_t tc_peer_set_frame_size(tc_peer_t *peer, uint32_t frame_size);
/* Bytes of the frame that carries a payload of len bytes; UINT32_MAX when
 * no frame can. */
uint32_t    tc_frame_size_for(uint32_t payload_len);

#define TC_SEND_WANT_REPLY 0x1u
/* tc_jam_init: the request's one-way starts ask the peer to record the
 * jam's result (piggybacked on its frames: tc_peer_stats' last_ret here),
 * as every tc_jam_send does; without it they ask for none, and the peer
 * spends nothing on it. */
#define TC_SEND_RESULT     0x2u

/* How one jam goes; fields not in field_mask take their defaults (mode
 * local, no flags). NULL: all defaults. */
enum {
    TC_SEND_PARAM_FIELD_MODE  = 1u << 0,
    TC_SEND_PARAM_FIELD_FLAGS = 1u << 1
};

typedef struct tc_send_params {
    uint64_t  field_mask;   /* TC_SEND_PARAM_FIELD_* */
    tc_mode_t mode;         /* local, injected or cached */
    unsigned  flags;        /* TC_SEND_* */
} tc_send_params_t;

#ifndef __cplusplus
/* Both fields at once, as an argument: tc_jam_send(..., TC_SEND_PARAMS(mode, flags)). */
#define TC_SEND_PARAMS(_mode, _flags) \
    (&(const tc_send_params_t){TC_SEND_PARAM_FIELD_MODE | TC_SEND_PARAM_FIELD_FLAGS, \
                               (_mode), (_flags)})
#endif

/* Pack a jam frame (the jam's pack routine fills the payload from src/len)
 * and put it into the peer's next mailbox slot. INJECTED and CACHED first
 * run the namespace sync with the peer (once per peer and jam; see
 * tc_jam_prepare). Blocks (progressing) while the ring is full; fails with
 * TC_ERR_TIMEOUT, TC_ERR_PEER_FAILED or TC_ERR_CLOSED. */
tc_status_t tc_jam_send(tc_peer_t *peer, const tc_jam_t *jam, const void *src, size_t len,
                        const tc_send_params_t *params);
/* The same, but never waits: TC_ERR_NO_RESOURCE while the ring is full (run
 * tc_peer_progress or tc_peer_wait, then try again), TC_ERR_INVALID_PARAM
 * for an INJECTED or CACHED jam not yet prepared (tc_jam_prepare, a round
 * trip). */
tc_status_t tc_jam_try_send(tc_peer_t *peer, const tc_jam_t *jam, const void *src, size_t len,
                            const tc_send_params_t *params);
/* Namespace sync now rather than at the first send: the peer resolves the
 * jam's GOT slot names against what it has loaded and returns the
 * addresses; for CACHED the code goes along and the peer keeps it. In
 * fixed-frame mode the frame size must hold tc_jam_prepare_size() bytes. */
tc_status_t tc_jam_prepare(tc_peer_t *peer, const tc_jam_t *jam, tc_mode_t mode);
uint32_t    tc_jam_prepare_size(const tc_jam_t *jam, tc_mode_t mode);
/* Forget the code this side cached for the peer (memory pressure, tests).
 * A later cached frame is relinked from this side's own blob where the
 * policy is allowlist; otherwise it is rejected and the peer told, which
 * then sends the code again with its next cached jam. */
void        tc_peer_forget_code(tc_peer_t *peer);
/* Nonzero when tc_jam_prepare has nothing left to do for this peer. */
int         tc_jam_is_prepared(tc_peer_t *peer, const tc_jam_t *jam, tc_mode_t mode);
/* Bytes of the frame that carries this jam with a payload of len bytes. */
uint32_t    tc_jam_frame_size(const tc_jam_t *jam, tc_mode_t mode, uint32_t len);
/* Send with TC_SEND_WANT_REPLY and wait for the int64 the jam returned.
 * A peer that rejects the frame answers with a NACK: the call returns its
 * status at once (tc_peer_last_nack says why). */
tc_status_t tc_jam_call(tc_peer_t *peer, const tc_jam_t *jam, const void *src, size_t len,
                        const tc_send_params_t *params, int64_t *ret_p);

/* A prepared jam (as MPI_Send_init / MPI_Start): tc_jam_init checks once
 * what every tc_jam_send checks (params, the package the peer announced,
 * the namespace sync for INJECTED and CACHED, which it runs now); each
 * start then packs and sends one frame as tc_jam_send does (same frames,
 * same waits for credits). Whatever the request depends on that changes
 * later (a frame size, the placement, a re-sync, the peer dropping its
 * cached code) is checked again at the next start: the request is
 * prepared anew, or the start refused with the reason logged; a closed
 * peer's requests refuse with TC_ERR_CLOSED (free them still). One
 * request per thread that sends to the peer, as the peer itself. */
typedef struct tc_jam_req tc_jam_req_t;

tc_status_t tc_jam_init(tc_peer_t *peer, const tc_jam_t *jam, const tc_send_params_t *params,
                        tc_jam_req_t **req_p);
/* One frame of len payload bytes from src, with the request's flags: no
 * result recorded by the peer unless they hold TC_SEND_RESULT. */
tc_status_t tc_jam_start(tc_jam_req_t *req, const void *src, size_t len);
/* The same with TC_SEND_WANT_REPLY, waiting for the result as tc_jam_call. */
tc_status_t tc_jam_start_call(tc_jam_req_t *req, const void *src, size_t len, int64_t *ret_p);
void        tc_jam_req_free(tc_jam_req_t *req);

/* Run whatever has arrived from the peer (at most max frames; 0 = all
 * ready). Never blocks. */
tc_status_t tc_peer_progress(tc_peer_t *peer, unsigned max, unsigned *n_p);
/* Wait until at least one frame from the peer has been handled. */
tc_status_t tc_peer_wait(tc_peer_t *peer, unsigned *n_p);
/* Wait until every frame sent so far has been consumed by the peer. */
tc_status_t tc_peer_drain(tc_peer_t *peer);

typedef struct tc_peer_stats {
    uint64_t tx_frames;      /* frames put into the peer's mailbox */
    uint64_t tx_jams;        /* of those, jams to run (not replies or sync) */
    uint64_t rx_frames;      /* frames from the peer that ran */
    uint64_t rx_rejected;    /* frames from the peer rejected, never run */
    uint64_t credit_waits;   /* sends that found the ring full */
    uint64_t polls;          /* wait-loop iterations */
    uint64_t wakeups;        /* blocking waits (event, adaptive) */
    uint64_t credit_puts;    /* explicit credit returns */
    int64_t  last_ret;       /* latest jam result the peer returned */
    uint32_t last_ret_seq;
    uint64_t rx_bad_acks;    /* acks from the peer (a frame's, its credit word) of more frames
                              * than this side sent: refused */
    uint32_t nacks_dropped;  /* NACKs of refused frames never sent: more were owed than the
                              * queue holds (one per slot of this side's ring) while the
                              * peer's ring had no free slot (32 bits: in the struct's padding) */
    int      counters;       /* the context's counters: 0 where tx_frames and tx_jams leave
                              * out the frames of prepared starts (not counted, not zero)
                              * and rx_frames and polls are not counted (stay 0) */
    uint64_t bells;          /* doorbells rung: active messages that wake a peer blocked on
                              * its worker's fd (TC_WAIT_EVENT, ADAPTIVE), at most one in
                              * flight (so fewer than the frames after it) */
} tc_peer_stats_t;

void        tc_peer_stats(const tc_peer_t *peer, tc_peer_stats_t *stats_p);
/* Why the latest frame from the peer was rejected ("" if none was). */
const char *tc_peer_last_reject(const tc_peer_t *peer);

/* The latest NACK from the peer: which of our frames it rejected and why. */
typedef struct tc_nack {
    uint32_t    seq;         /* the frame's sequence number */
    tc_status_t status;      /* NOT_FOUND: unknown package or element; UNSUPPORTED: no
                              * blob or no multicast there; REFUSED: its policy;
                              * BAD_FRAME: malformed */
    char        reason[160]; /* the peer's words, cut to what its frame could carry;
                              * printable: other bytes escaped (\n, \x1b) */
} tc_nack_t;

/* TC_OK and the latest NACK, or TC_ERR_NOT_FOUND if none came. */
tc_status_t tc_peer_last_nack(const tc_peer_t *peer, tc_nack_t *nack_p);
/* "peer NAME" (the bootstrap's name of the other side), as log lines name it. */
const char *tc_peer_name(const tc_peer_t *peer);
/* Does the wait loop progress the UCX worker, and why. */
int         tc_peer_progress_needed(const tc_peer_t *peer, const char **why_p);
/* The transports UCX picked for this endpoint, e.g. "posix/memory". */
const char *tc_peer_transports(const tc_peer_t *peer);
/* How this side's frames to the peer are signalled (never TC_SIGNAL_AUTO:
 * what AUTO resolved to at connect). */
tc_signal_mode_t tc_peer_signal(const tc_peer_t *peer);
tc_status_t tc_peer_check_alive(tc_peer_t *peer);
/* Hand back consumed slots and a pending reply now, and push out what waits
 * in the worker: the last thing a receiver does before it stops polling. */
tc_status_t tc_peer_flush(tc_peer_t *peer);

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop
#endif /* TWOCHAINS_H */
