/*
 * Internal runtime structures: context (UCX context + worker + loaded
 * packages) and peer (endpoint, this side's mailbox for the peer's frames,
 * staging for frames to the peer, credits).
 */
#ifndef TC_RUNTIME_H
#define TC_RUNTIME_H

#include "twochains.h"
#include "blob.h"
#include "frame.h"
#include "manifest.h"
#include "shm_object.h"
#include "wait.h"
#include "wire.h"

#include <ucp/api/ucp.h>
#include <stddef.h>

#define TC_MAX_PKGS        8
#define TC_REJECT_LOG_MAX  8     /* rejections logged per peer, the rest only counted */
#define TC_CHECK_EVERY     1024  /* wait-loop iterations between deadline checks */

/* One jam's injectable blob, read from the package directory. */
typedef struct tc_pkg_blob {
    void     *file;     /* the blob file's bytes; blob views into them */
    tc_blob_t blob;
} tc_pkg_blob_t;

struct tc_pkg {
    void                *handle;   /* dlopen */
    const tc_pkg_desc_t *desc;
    char                *path;
    tc_manifest_t       *manifest; /* NULL: built without tc-pkg, local mode only */
    tc_pkg_blob_t       *blobs;    /* per element; file NULL for rieds */
    const uint32_t      *hints;    /* TC_PKG_HINTS_SYMBOL; NULL: none */
};

/* TC_JAM_HINT_* bits of an element of pkg (0 where it has none). */
static inline uint32_t tc_pkg_hints(const tc_pkg_t *pkg, uint32_t element)
{
    return ((pkg->hints != NULL) && (element < pkg->desc->n_elements)) ? pkg->hints[element] : 0;
}

static inline const tc_blob_t *tc_pkg_blob(const tc_pkg_t *pkg, uint16_t element)
{
    return ((pkg->blobs != NULL) && (element < pkg->desc->n_elements) &&
            (pkg->blobs[element].file != NULL)) ? &pkg->blobs[element].blob : NULL;
}

typedef struct tc_ctx_pkg {
    const tc_pkg_t *pkg;
    void           *state;
} tc_ctx_pkg_t;

#define TC_MAX_RIEDS 16
/* Of those, the peers of one process hold at most their share
 * (tc_context_params_t.ried_max_per_process, a quarter by default): a peer
 * that ships again and again, over one connection or many (the same
 * allow-listed ried is a new load each time: its own init state, id and
 * pins), is refused past its share, and other processes keep room. */
#define TC_RIED_MAX_BYTES (64u << 20) /* one ried, whole */

/* A ried a peer shipped to this process, loaded from a memfd. */
typedef struct tc_ctx_ried {
    void            *handle;   /* NULL: free entry */
    int              fd;       /* its memfd, open while loaded: dlopen knows a
                                * library by path, and /proc/self/fd/N must not
                                * name a previous ried when N is reused */
    void            *state;
    tc_ried_fini_fn  fini;
    uint64_t         owner;    /* the serial of the peer that shipped it (0: that
                                * peer is gone, the ried stays while pinned), its
                                * process (tc_peer_wireup_t.proc, 0 with owner 0), and */
    uint64_t         owner_proc;
    uint32_t         id;       /* its number for it */
    uint32_t         pins;     /* synced jams (any peer's) with a GOT slot in it */
    char             name[TC_RIED_NAME_MAX];
} tc_ctx_ried_t;

/* Frames a peer owes the other once frames ran (tc_peer_t.owed): one word,
 * so that the fast path asks once whether anything is owed. Each bit is
 * sent by the step its module registered (tc_rx_register_owed), in the
 * order of the bits. */
enum {
    TC_OWED_REPLY = 1u << 0, /* a jam asked for its result (lib/core/send.c) */
    TC_OWED_SYNC  = 1u << 1, /* answers to injected syncs (lib/core/inject.c) */
    TC_OWED_RIED  = 1u << 2, /* a ried's answer (lib/core/ried.c) */
    TC_OWED_NACK  = 1u << 3, /* rejected frames' NACKs (queued: reject.c; sent: control.c) */
    TC_OWED_STEPS = 4        /* bits */
};

/* The receive path's table (lib/core/dispatch.c reads it, as UCX's ucp_am_handlers):
 * every frame kind that is not a jam is taken by the handler its module
 * registered (tc_rx_register), once the validator passed the frame's header.
 * The handler returns NULL, or why it refuses the frame and in *status_p
 * what the NACK says (dispatch rejects it: counted, logged, NACKed). It
 * runs inside tc_peer_progress: it never waits; what it owes the peer it
 * marks in peer->owed. */
typedef const char *(*tc_rx_kind_fn)(void *arg, tc_peer_t *peer, const char *frame,
                                     const tc_frame_hdr_t *hdr, tc_status_t *status_p);
typedef tc_status_t (*tc_owed_fn)(tc_peer_t *peer);

/* The receiver's two entries (tc_peer_wait, tc_peer_progress), each
 * instantiated once per receive path; rx_path (TC_RX_PATH_*, below: three
 * bits) indexes TC_RX_PATHS of them. */
typedef tc_status_t (*tc_rx_wait_fn)(tc_peer_t *peer, unsigned *n_p);
typedef tc_status_t (*tc_rx_progress_fn)(tc_peer_t *peer, unsigned max, unsigned *n_p);
#define TC_RX_PATHS 16u

typedef struct tc_rx_kind {
    tc_rx_kind_fn cb;    /* NULL: nothing takes the kind here (refused) */
    void         *arg;
    unsigned      flags; /* TC_RX_KIND_F_* */
} tc_rx_kind_t;

/* A frame no call waits for (config, goodbye): a wait goes on past it. */
#define TC_RX_KIND_F_QUIET 1u

/* One kind as a module declares it (a static table per module, as
 * UCP_DEFINE_AM declares UCX's), registered with tc_rx_register_kinds. */
typedef struct tc_rx_kind_def {
    uint8_t       kind;
    tc_rx_kind_fn cb;
    unsigned      flags;
} tc_rx_kind_def_t;

struct tc_context {
    tc_context_params_t params;
    tc_ctx_ried_t       rieds[TC_MAX_RIEDS];  /* lib/core/ried_store.c */
    ucp_context_h       ucp;
    ucp_worker_h        worker;
    tc_ctx_pkg_t        pkgs[TC_MAX_PKGS];
    unsigned            n_pkgs;
    int                 efd;             /* the worker's wake-up fd (events), else -1 */
    uint64_t            next_peer_serial; /* names peers for what they own (rieds) */
    uint64_t            am_dropped;      /* active messages of ids we never send */
    tc_peer_t          *peers;           /* every connected peer (tc_peer_t.ctx_next):
                                          * what the peers of one process hold */
    /* the receive path's table: control, inject, ried and send register
     * theirs when a peer connects (lib/wireup/wireup.c), multicast with its engine
     * (lib/group/mcast_setup.c: its handler only queues, it runs outside
     * tc_peer_progress) */
    tc_rx_kind_t        rx_kinds[TC_KIND_LAST];
    tc_owed_fn          owed_steps[TC_OWED_STEPS];
    /* tc_peer_wait and tc_peer_progress instantiated per receive path
     * (TC_RX_PATH_*), registered at connect by lib/core/peer_wait.c and
     * dispatch.c: a peer's rx_wait and rx_progress come from them with its
     * rx_path (tc_rx_path_set) */
    tc_rx_wait_fn       rx_wait_paths[TC_RX_PATHS];
    tc_rx_progress_fn   rx_progress_paths[TC_RX_PATHS];
};

#define TC_MAX_INJ 64

/* What one side knows about one (package, jam) with one peer. */
typedef struct tc_inj {
    uint32_t          pkg_id;
    uint16_t          element;
    const tc_blob_t  *blob;         /* this side's blob of the jam */
    void             *state;        /* the package's state here (receiver) */
    void             *lib;          /* the package's library handle (receiver) */
    uint32_t          writable;     /* bytes of .data/.bss the jam's image has (manifest) */
    /* as sender */
    uint64_t         *tx_gotp;      /* the peer's addresses for the slots */
    int               tx_synced;
    int               tx_cached;    /* the peer keeps our code */
    int64_t           tx_sync_status;
    int               tx_sync_wait;
    /* as receiver */
    uint64_t         *rx_gotp;      /* what we resolved for the peer */
    int               rx_resolved;
    int               rx_sync_reply; /* a sync reply is owed to the peer */
    int64_t           rx_sync_status;
    uint32_t          rx_sync_seq;   /* the request's frame (refused late: its NACK) */
    tc_jam_run_fn     own_run;      /* our blob linked with rx_gotp (lib/core/exec.c) */
    tc_jam_run_fn     cache_run;    /* what cached frames run */
    uint32_t          ried_pins;    /* bit i: a GOT slot resolved into ctx->rieds[i] */
} tc_inj_t;

/* A peer's executable memory (lib/core/exec.c): images the receiver linked for
 * that peer, and the transit copy of policy any. Mapped at first use,
 * released with the peer. */
typedef struct tc_code_area {
    uint8_t          *rw;           /* the receiver writes here */
    uint8_t          *rx;           /* code runs from here (== rw unless W^X) */
    size_t            len;
    size_t            used;         /* the transit area, then linked images */
    uint8_t          *transit_src;  /* private: the image the transit area holds, unlinked,
                                     * then the copy being checked */
    const tc_inj_t   *transit_inj;
    tc_jam_run_fn     transit_run;
} tc_code_area_t;

#define TC_SYNC_OK        0
#define TC_SYNC_CACHED    1
#define TC_SYNC_BAD_CODE  (-100000) /* < 0 otherwise: -(slot + 1) did not resolve */
#define TC_SYNC_MISS      (-200000) /* unasked: "I no longer hold your code" */
#define TC_SYNC_WRITABLE  (-300000) /* W^X receiver: the jam writes its own image */
#define TC_SYNC_LOCAL_ONLY (-400000) /* the receiver runs no injected or cached code */


/* How frame tx_seq, laid out in tx_ring, gets its signal and reaches the
 * peer's slot at raddr (lib/core/send.c picks one at connect: signalling x
 * placement). */
typedef tc_status_t (*tc_deliver_fn)(tc_peer_t *peer, char *frame, uint32_t size,
                                     uint64_t raddr);

/* A peer's cold state, one part per module that owns (writes) it, each
 * behind a pointer of the peer (as UCX's ucp_ep and its ext) in its own
 * zeroed allocation, made and freed (in reverse) with the peer
 * (lib/wireup/wireup.c), so that the peer itself holds the per-message
 * paths' fields and the small state of
 * the slow paths, and no text buffer or table. */

/* wireup (lib/wireup/wireup.c): the connection as connect made it */
typedef struct tc_peer_wireup {
    tc_boot_t        *boot;
    uint64_t          serial;       /* unique in the context, never reused */
    /* the peer's process, the UCX worker id of the address our endpoint
     * was made from (what its connections have in common; limits per
     * process); the context's peers (tc_context_t.peers) */
    uint64_t          proc;
    tc_peer_t        *ctx_next;
    const char       *progress_why;
    ucp_mem_h         tx_memh;
    uint64_t          remote_raw;
    /* one tcp lane carries our puts (a put lane, or the AM lane UCX
     * emulates them on): the peer lands each put of ours itself,
     * in stream order, inside the ucp_worker_progress of the thread that
     * then reads the slot (signalling single-put is correct; see
     * docs/SIGNALLING.md, "Signalling modes") */
    int               put_landed_by_peer;
    /* the endpoint has peer failure handling: UCX closes it by force (else
     * only by a flush) */
    int               ep_forcible;
    uint8_t           goodbye_sent; /* (control's frame, which wireup says) */
    /* where the peer's mailbox is mapped here: the SIGBUS guard over that
     * mapping (-1: none; lib/arch/shm_guard.h) and the object behind it,
     * held open to see it resized (fd -1: none), which liveness checks */
    int               remote_guard;
    tc_shm_object_t   remote_obj;
    char              name[128];
    char              transports[128];
    /* the packages the peer loaded, as it announced them at connect */
    uint32_t          n_peer_pkgs;
    tc_wire_pkg_t     peer_pkgs[TC_WIRE_PKGS_MAX];
} tc_peer_wireup_t;

/* One NACK owed: the refused frame's seq, the status its NACK carries, and
 * why, cut to a length that still names what was wrong (the words go cut
 * to the frame anyway: tc_ctrl_send_nack). */
typedef struct tc_nack_owed {
    uint32_t    seq;
    tc_status_t status;
    char        reason[120];
} tc_nack_owed_t;

/* reject (lib/core/reject.c): the latest rejection, and the NACKs owed, a
 * ring of oldest first (TC_OWED_NACK while it holds any; control sends them
 * in order while the peer's ring has free slots). One entry per slot of our
 * ring, after the peer's block (lib/wireup/wireup.c): the peer has no more
 * frames in flight than its credits, and a progress call returns credits
 * only after its NACKs went, so one call's refusals all fit; only a peer
 * that sends while it reads none of ours overflows it (the newest dropped,
 * counted in nacks_dropped). why is the one buffer written elsewhere: a receive handler
 * that refuses a frame formats its reason there (dispatch, inject, ried,
 * multicast's queue) and hands it to tc_peer_reject. */
typedef struct tc_peer_reject {
    char              last[192];
    tc_nack_owed_t   *nack_q;     /* nack_max entries */
    uint32_t          nack_max;   /* a power of two: our ring's slots */
    uint32_t          nack_head;  /* the oldest owed */
    uint32_t          nack_n;     /* how many are owed */
    char              why[160];
} tc_peer_reject_t;

/* control (lib/core/control.c): the latest NACK the peer told us */
typedef struct tc_peer_ctrl {
    tc_nack_t         nack_rx;
    uint8_t           nack_unseen;  /* no call has returned it yet */
} tc_peer_ctrl_t;

/* inj_table, inject (lib/core/inj_table.c, lib/core/inject.c): per (package,
 * jam) sync and cache state */
typedef struct tc_peer_inj {
    tc_inj_t          inj[TC_MAX_INJ];
    unsigned          n;
} tc_peer_inj_t;

/* ried (lib/core/ried.c): the ried being received, and the answer the
 * sender waits for */
typedef struct tc_peer_ried {
    struct {
        uint32_t id, total, received;
        uint8_t *buf;
        char     name[TC_RIED_NAME_MAX];
        int32_t  reply_status;   /* the answer owed (TC_OWED_RIED) */
        uint32_t reply_op;
        uint32_t reply_seq;      /* the frame it answers (refused late: its NACK) */
        char     reply_text[1024];
    } rx;
    struct {
        uint32_t next_id;
        uint32_t wait_id;
        int      done;
        int32_t  status;
        char     text[1024];
    } tx;
} tc_peer_ried_t;

/* One peer. The first two parts are what the per-message paths read,
 * two cache lines each (asserted below): the send part (lib/core/send.h,
 * send.c, credits.h, jam.c's sends and starts) and the receive part
 * (tc_rx_poll_as in lib/core/dispatch.h and what it inlines, mailbox.h).
 * Their lines, not their owners, decide their order; each field says who
 * writes it. Then the counters both paths bump, the small state of the
 * slow paths per module, and the cold parts behind pointers. */
struct tc_peer {
    /* --- the send part, line 1: send.c, jam.c; wireup sets the geometry,
     * credits tx_acked */
    char             *tx_ring;       /* staging: one frame per remote slot */
    uint64_t          remote_ring;
    ucp_ep_h          ep;
    ucp_rkey_h        rkey;
    tc_deliver_fn     deliver;       /* chosen at connect; NULL: signalling store,
                                      * copied inline (tc_peer_send_sized) */
    uint32_t          tx_seq;        /* next sequence number to send */
    uint32_t          tx_acked;      /* frames the peer has consumed */
    uint32_t          tx_slots;
    uint32_t          tx_slot_size;
    uint32_t          tx_frame_size; /* fixed frames: the size of ours (we announce it) */
    uint8_t           frames;        /* tc_frame_mode_t, fixed at connect */
    uint8_t           doorbell;      /* the peer blocks: ring it after each frame */
    uint8_t           progress;      /* wait loops progress the worker */
    uint8_t           ran_has;       /* dispatch: a result to piggyback (ran_seq, ran_ret) */

    /* --- the send part, line 2: wireup (ctx, remote_ring_ptr), send
     * (place, tx_stage_mask, tx_direct_*, tx_linewise_max, tx_slots_frame),
     * jam (tx_gen), dispatch (ran_*), peer (failed) */
    tc_context_t     *ctx __attribute__((aligned(64)));
    char             *remote_ring_ptr; /* the peer's mailbox: ucp_rkey_ptr mapping, NULL
                                        * if none */
    int64_t           ran_ret;       /* latest result of a jam from the peer */
    uint32_t          ran_seq;
    tc_status_t       failed;        /* tc_peer_fail */
    tc_place_t        place;         /* how frames land in the peer's mailbox */
    /* staging slots in use, minus one: tx_slots - 1 where a frame may leave
     * by a UCX put (its source stays put until its credit returns), 0 with
     * signalling store, where the CPU copies every frame into the peer's
     * mapped slot before the send returns (one staging frame, which stays
     * in this core's cache) */
    uint32_t          tx_stage_mask;
    /* payload bytes from which a local or cached jam packs straight into
     * the peer's mapped slot (no staging copy): signalling store only;
     * UINT32_MAX where frames are staged (tc_send_select). A jam that reads
     * its payload from tx_direct_min (the CPU's), one that does not from
     * tx_direct_min_unread */
    uint32_t          tx_direct_min;
    uint32_t          tx_direct_min_unread;
    uint32_t          tx_direct_code_min; /* the same for injected frames */
    /* whole-line bytes a stored frame's lines go one by one up to, else
     * one memcpy: the CPU's (tc_place_linewise_max) */
    uint32_t          tx_linewise_max;
    /* the size of our last frame in every slot of the peer's ring, where
     * it is the same in all (0: not): a frame of it clears nothing, one
     * compare on the send path (tc_peer_send_sized) */
    uint32_t          tx_slots_frame;
    /* what prepared jams (tc_jam_init) checked once holds while this is
     * the same: bumped where a frame size, the delivery, a sync or the
     * peer's cache of our code changes (tc_peer_invalidate), and where the
     * peer fails (tc_peer_fail): their starts test nothing else of these */
    uint32_t          tx_gen;

    /* --- the receive part, line 1: dispatch; wireup sets the geometry,
     * control the frame size */
    char             *rx_ring __attribute__((aligned(64)));
    /* the fast path (fixed frames): the shape of the last LOCAL or CACHED
     * frame the validator passed, and what it ran; a frame of that shape
     * runs the same (fast_run NULL: none; any frame the validator handles
     * clears it first) */
    tc_frame_shape_t  fast_shape;
    tc_jam_run_fn     fast_run;
    void             *fast_state;
    uint32_t          rx_seq;        /* next sequence number expected */
    uint32_t          rx_slots;
    uint32_t          rx_slot_size;
    uint32_t          rx_frame_size; /* fixed frames: the size of the peer's (it announces it) */

    /* --- the receive part, line 2: mailbox (rx_stale, rx_held), credits
     * (rx_reported), dispatch (the rest), peer (sw_prefetch) */
    uint64_t         *rx_stale __attribute__((aligned(64))); /* per slot: what the last
                                      * frame left behind */
    /* the last injected jam run under the allow-list, the shape of its
     * frame (tc_frame_shape_of, at the frame size then: a frame-size change
     * drops it) and where its GOTP is: the next frame of that shape takes
     * the fast path (rx_path INJECTED) */
    struct tc_inj    *disp_injected;
    tc_frame_shape_t  disp_inj_shape;
    uint32_t          rx_reported;   /* consumed count last told to the peer */
    uint32_t          peer_rank;     /* wireup: the peer's rank (a run's origin) */
    uint32_t          credit_batch;  /* credits: frames per credit return */
    uint8_t           owed;          /* TC_OWED_*: frames to send the peer */
    uint8_t           in_progress;
    uint8_t           rx_path;       /* TC_RX_PATH_*: how the next frame is read (tc_rx_path_set) */
    uint8_t           rx_held;       /* fixed frames: since the last frame-size change some
                                      * slot's remembered word is the signal of the frame due
                                      * there (tc_mbox_resize, tc_peer_sig_held) */
    uint8_t           sw_prefetch;   /* prefetch a frame once its arrival is seen */
    uint8_t           rx_prefetch;   /* the jam run last reads its payload: prefetch
                                      * the next frame on arrival (TC_JAM_HINT_*) */
    uint16_t          disp_inj_got_off; /* where disp_injected's frames hold their GOTP */
    uint16_t          disp_inj_prefetch_end; /* disp_injected's frames: the lines [64, this)
                                      * its check reads, asked for on arrival (0: none,
                                      * the poll read the frame whole) */

    /* --- both paths' counters (send.h, dispatch.h, peer_wait, credits) */
    tc_peer_stats_t   stats __attribute__((aligned(64)));

    /* --- the slow paths' small state, one group per module that owns
     * (writes) it, in the order of the layers */
    /* tc_rx_path_set (with rx_path): the receiver's entries
     * instantiated for rx_path, which tc_peer_wait and tc_peer_progress
     * jump to (on the line the counters above end on) */
    tc_rx_wait_fn     rx_wait;
    tc_rx_progress_fn rx_progress;
    tc_jam_run_fn     rx_last_run;   /* dispatch: what the latest frame ran (checked by
                                      * the receive-path fuzzer's invariant) */
    uint32_t          idle_polls;    /* dispatch resets it at a run; the wait loops count */
    uint64_t          remote_base;   /* wireup: the peer's mailbox (credit puts) */
    uint64_t         *credit_src;    /* credits: source of credit puts (monotonic) */
    uint64_t         *remote_consumed_ptr; /* wireup: its ctrl line's credit word, mapped */
    tc_signal_mode_t  signal;        /* send: how our frames are signalled: resolved at
                                      * connect (never AUTO) */

    /* peer (lib/core/peer.c): liveness */
    ucs_status_t      ep_error;     /* the endpoint's failure (wireup's handler sets it),
                                     * reported once the ring holds nothing more (it may
                                     * hold a goodbye) */

    /* mailbox (lib/core/mailbox.c): our ring for the peer's frames */
    tc_mbox_ctrl_t   *ctrl;
    ucp_mem_h         mbox_memh;
    char             *mbox;
    size_t            mbox_len;
    char             *raw;
    int               mbox_exec;     /* the mailbox could be made executable */

    /* credits (lib/core/credits.c) */
    uint32_t          bad_ack;      /* the last ack refused (tc_peer_ack_refused) */

    /* send (lib/core/send.c): what our frames left in the peer's ring */
    /* per slot of the peer's ring: the size of our last frame there, whose
     * signal word is then an earlier seq's; 0 where not known (none yet, a
     * raw frame). A frame of another size may find its signal in that word
     * already and clears it first (tc_peer_tx_slot_sized, lib/core/send.c); the
     * run of frames of one size since tx_run_start, which once it covers
     * every slot sets tx_slots_frame */
    uint32_t         *tx_slot_frame;
    void             *bell_req;        /* the doorbell in flight (NULL: none; tc_peer_ring) */
    uint32_t          tx_run_frame;
    uint32_t          tx_run_start;
    uint64_t         *zero_src;        /* a registered word that stays 0: the clear's put */

    /* jam (lib/jam/jam.c): what the send path lays out once and copies after */
    /* per staging slot: the injected jam whose code it still holds from
     * the last frame written there (NULL: something else, or written over;
     * tc_peer_tx_frame clears it); a stream of one jam then writes its code
     * into staging once per slot, not per frame */
    const struct tc_inj **tx_code_in;
    /* the prepared jams of this peer (lib/jam/jam.c): told when it goes */
    struct tc_jam_req_link *tx_reqs;

    /* header of the last jam frame sent: the next one of the same jam, size
     * and flags copies it instead of laying the frame out again */
    tc_frame_hdr_t          tx_tmpl;
    uint64_t                tx_tmpl_key;  /* tc_jam_tmpl_key of it; 0: none (a kind is
                                           * never 0) */
    uint32_t                tx_tmpl_size;

    /* one-line frames (lib/jam/jam.c, tc_jam_send_line): the header's name word
     * (package, element, kind, flags; tc_frame_line_name) of the local or
     * cached jam the template holds where its frame is one line (64 bytes)
     * that the CPU stores (deliver NULL); 0: none. Dropped with the
     * templates (tc_peer_invalidate). */
    uint64_t                tx_line_name;
    /* with fixed 64-byte frames such frames go in the line format
     * (lib/codec/frame_line.h): its word 0 without seq, length and HAS_RET
     * (tc_frame_line_word) and its word 1 (tc_frame_line_id); with variable
     * frames tx_line_name is 0 and tx_vline_name names the jam whose
     * frames go as one line of the general header */
    uint64_t                tx_line_id;
    uint64_t                tx_vline_name;
    uint32_t                tx_line_word;

    /* the same for injected frames: the sections of the last injected jam
     * sent (its layout with no payload: where GOTP, code and payload go)
     * and the header of its last frame, keyed as tx_tmpl (0: none) */
    tc_frame_hdr_t          tx_itmpl;
    const struct tc_inj    *tx_itmpl_inj;
    tc_frame_layout_t       tx_itmpl_layout;
    tc_frame_offsets_t      tx_itmpl_off;
    uint64_t                tx_itmpl_key;
    uint32_t                tx_itmpl_size;

    /* peer_wait (lib/core/peer_wait.c) */
    tc_wait_t         wait;          /* how this side waits for the peer's frames
                                      * (control changes it) */
    tc_wait_ops_t     wait_ops;      /* this mailbox and worker as lib/arch/wait sees them */

    /* dispatch (lib/core/dispatch.c): what the validated path keeps for the
     * next frame */
    /* filled by the validator's lookup, kept for the next frame (a stream
     * of one jam looks its element up once) */
    const tc_pkg_element_t *disp_elem;
    void                   *disp_state;
    struct tc_inj          *disp_cached;  /* the last cached jam run */
    tc_status_t       known_status; /* why the validator's lookup said no */
    uint32_t          disp_pkg_id;
    uint32_t          disp_element;  /* UINT32_MAX: nothing cached */

    /* control (lib/core/control.c): the goodbye the peer said, a config
     * frame's new size (both read by dispatch for every validated frame) */
    uint8_t           goodbye_seen;
    uint32_t          rx_resize;    /* a config frame's new frame size, which dispatch
                                     * gives the mailbox once that frame is consumed
                                     * (0: none) */

    /* exec (lib/core/exec.c): the peer's executable memory */
    tc_code_area_t    code;

    /* inj_table (lib/core/inj_table.c): the last entry of injs looked up,
     * which every injected or cached send asks first (here, not behind
     * injs: one load less on the send path) */
    tc_inj_t         *inj_last;

    /* peer_wait: the blocking call under way (tc_peer_call_begin): when it
     * gives up, however often the peer speaks (0: no call) */
    uint64_t          call_deadline_ns;
    const char       *call_what;

    /* the cold parts (above), each written by the module it names */
    tc_peer_wireup_t *wireup;
    tc_peer_reject_t *reject;
    tc_peer_ctrl_t   *control;
    tc_peer_inj_t    *injs;
    tc_peer_ried_t   *ried;
};

_Static_assert(TC_WIRE_PKGS_MAX == TC_MAX_PKGS, "a connect announces every package");

/* A prepared jam's place in its peer's list (tx_reqs): the peer's going
 * leaves peer NULL, which the request's next start refuses. */
typedef struct tc_jam_req_link {
    tc_peer_t              *peer;
    struct tc_jam_req_link *next;
    struct tc_jam_req_link *prev;
} tc_jam_req_link_t;

/* How tc_rx_poll_as reads the next frame (rx_path), and which fast paths
 * it holds: fixed frames, the general header, the last local or cached
 * shape the validator passed (0: fixed frames are TC_FRAMES_FIXED's 0);
 * fixed 64-byte frames where that frame was a line
 * (lib/codec/frame_line.h); variable frames; fixed frames, the general
 * header, and also the injected jam whose own copy the allow-list ran last
 * (disp_injected: its frames' code and GOTP are compared out of line, which
 * only a receiver of injected frames pays for). */
#define TC_RX_PATH_GENERAL  0u
#define TC_RX_PATH_LINE     1u
#define TC_RX_PATH_VARIABLE 2u
#define TC_RX_PATH_INJECTED 3u
/* with one of them: the context's counters are off (rx_frames and polls
 * are not counted: a specialisation without the increments) */
#define TC_RX_PATH_UNCOUNTED 4u
/* the peer failed or closed (tc_peer_fail): no fast path reads its frames,
 * and its entries return what failed holds at once, so that no other path
 * tests failed on its way */
#define TC_RX_PATH_FAILED 8u

/* What a frame that ran counts (tc_rx_exec's counters, a constant per
 * specialisation): rx_frames; polls (tc_peer_wait's first look). */
#define TC_RX_COUNT_FRAMES 1u
#define TC_RX_COUNT_POLLS  2u

/* The receiver takes path (TC_RX_PATH_*) from now: rx_path and the entries
 * instantiated for it (rx_wait, rx_progress), from the context's tables
 * (lib/core/peer_wait.c and dispatch.c register them). Connect, the
 * validator and a failure choose it; nothing a peer writes indexes it. A
 * failed peer's path is FAILED whatever else is asked (a jam whose run
 * failed the peer must not have its frames recorded for a fast path). */
_Static_assert((TC_RX_PATH_FAILED | TC_RX_PATH_INJECTED | TC_RX_PATH_UNCOUNTED) < TC_RX_PATHS,
               "rx_path indexes TC_RX_PATHS entries");
static inline void tc_rx_path_set(tc_peer_t *peer, uint8_t path)
{
    path              = (peer->failed != TC_OK) ? TC_RX_PATH_FAILED : (path & (TC_RX_PATHS - 1));
    peer->rx_path     = path;
    peer->rx_wait     = peer->ctx->rx_wait_paths[path];
    peer->rx_progress = peer->ctx->rx_progress_paths[path];
}

/* The path of fixed or variable frames, no line recorded: fixed frames'
 * holds the injected fast path where the allow-list recorded a jam. */
static inline uint8_t tc_rx_path_of(const tc_peer_t *peer)
{
    return ((peer->frames != TC_FRAMES_FIXED) ? TC_RX_PATH_VARIABLE :
            (peer->disp_injected != NULL)     ? TC_RX_PATH_INJECTED : TC_RX_PATH_GENERAL) |
           (peer->ctx->params.counters ? 0u : TC_RX_PATH_UNCOUNTED);
}

/* What changed, for tc_peer_invalidate (bits): each drops the memos and
 * templates that depend on it. */
enum {
    /* a namespace sync's answer: GOT addresses, or the peer's cache of our
     * code (lib/core/inject.c) */
    TC_PEER_CHANGED_SYNC   = 1u << 0,
    /* the frame size or the way frames reach the peer (control.c,
     * send.c): the headers the sends keep (jam.c's tx_tmpl, tx_itmpl and
     * one-line names) are laid out anew at the next send */
    TC_PEER_CHANGED_FRAMES = 1u << 1,
    /* this side forgot the code the peer had it cache (lib/jam/jam.c):
     * dispatch's memos of cached and injected jams, and the fast path,
     * which may run a cached jam's code */
    TC_PEER_CHANGED_CODE   = 1u << 2,
    /* whether the peer wants a doorbell after our frames
     * (tc_peer_set_doorbell): nothing to drop but tx_gen, so that prepared
     * jams choose their line start, which rings none, anew */
    TC_PEER_CHANGED_BELL   = 1u << 3
};

/* The one place the peer's memos and templates are dropped (what: the
 * TC_PEER_CHANGED_* that changed). Whatever changed, prepared jams
 * (tc_jam_init) check again at their next start (tx_gen). The fields are
 * jam's and dispatch's; only this function clears them from outside. */
static inline void tc_peer_invalidate(tc_peer_t *peer, unsigned what)
{
    if (what & TC_PEER_CHANGED_FRAMES) {
        peer->tx_tmpl_key   = 0;
        peer->tx_itmpl_key  = 0;
        peer->tx_line_name  = 0;
        peer->tx_vline_name = 0;
    }
    if (what & TC_PEER_CHANGED_CODE) {
        peer->disp_cached   = NULL;
        peer->disp_injected = NULL;
        peer->fast_run      = NULL;
    }
    peer->tx_gen++;
}

/* The peer failed or closed (status, said where it was decided): every
 * later send returns status, and prepared jams, which do not read failed
 * on their way, learn it from tx_gen at their next start; the receiver
 * from its path (FAILED), which no fast path reads. The one place failed
 * is set. */
static inline tc_status_t tc_peer_fail(tc_peer_t *peer, tc_status_t status)
{
    peer->failed = status;
    peer->tx_gen++;
    tc_rx_path_set(peer, TC_RX_PATH_FAILED);
    return status;
}

/* The peer goes (tc_peer_destroy): its prepared jams refuse from now on. */
static inline void tc_peer_reqs_detach(tc_peer_t *peer)
{
    tc_jam_req_link_t *link;

    for (link = peer->tx_reqs; link != NULL; link = link->next) {
        link->peer = NULL;
    }
    peer->tx_reqs = NULL;
}

/* The send part is lines 0 and 1 of the peer, the receive part lines 2
 * and 3: a field added to either that does not fit moves the next part,
 * and these fail. */
_Static_assert(offsetof(struct tc_peer, ctx) == 64, "send part: line 2 starts at 64");
_Static_assert(offsetof(struct tc_peer, rx_ring) == 128, "send part: two cache lines");
_Static_assert(offsetof(struct tc_peer, rx_stale) == 192, "receive part: line 2 starts at 192");
_Static_assert(offsetof(struct tc_peer, stats) == 256, "receive part: two cache lines");

/* wireup.c: tc_peer_connect where the peer must claim rank (a group's
 * pairing: its jams' origin and multicast's rules go by it); a peer that
 * claims another is refused at connect (TC_ERR_PROTOCOL), saying both. */
tc_status_t tc_peer_connect_rank(tc_context_t *ctx, tc_boot_t *boot, uint32_t rank,
                                 tc_peer_t **peer_p);
/* wireup.c: TC_OK when the peer announced jam's package; else
 * TC_ERR_NOT_FOUND, logged naming what the peer loaded and what jam is in. */
tc_status_t tc_peer_check_pkg(const tc_peer_t *peer, const tc_jam_t *jam);

/* context.c: the receive path's table (tc_context_t.rx_kinds, which
 * lib/core/dispatch.c reads). A module
 * registers the handler of a kind it owns (not a jam's: those are
 * dispatch's); TC_ERR_BUSY where another handler or arg holds the kind
 * (the same again is TC_OK), TC_ERR_INVALID_PARAM for a jam's kind or one
 * out of range. */
tc_status_t tc_rx_register(tc_context_t *ctx, uint8_t kind, tc_rx_kind_fn cb, void *arg,
                           unsigned flags);
void        tc_rx_unregister(tc_context_t *ctx, uint8_t kind);
/* The step that sends what owed (one TC_OWED_* bit) marks;
 * TC_ERR_INVALID_PARAM for anything else. */
tc_status_t tc_rx_register_owed(tc_context_t *ctx, unsigned owed, tc_owed_fn step);
/* A module's kinds (n of defs, each with arg) and, where owed is not 0, its
 * owed step: all of them, or none and the first refusal's status. */
tc_status_t tc_rx_register_kinds(tc_context_t *ctx, const tc_rx_kind_def_t *defs, unsigned n,
                                 void *arg, unsigned owed, tc_owed_fn step);

/* Each module's kinds and owed steps, registered (lib/wireup/wireup.c, at connect). */
tc_status_t tc_send_rx_register(tc_context_t *ctx);  /* send.c: reply, nop; the reply owed */
tc_status_t tc_inj_rx_register(tc_context_t *ctx);   /* inject.c: the namespace sync */
tc_status_t tc_ried_rx_register(tc_context_t *ctx);  /* ried.c: ried chunks and answers */
tc_status_t tc_ctrl_rx_register(tc_context_t *ctx);  /* control.c: config, nack, goodbye */
/* dispatch.c: tc_peer_progress's instances per receive path, into
 * ctx->rx_progress_paths (tc_rx_path_set) */
void        tc_rx_progress_register(tc_context_t *ctx);

/* inj_table.c: the peer's injected jams (NULL: not there; tc_inj_get makes
 * one for a jam with a blob here, NULL when it has none or the table is
 * full) */
tc_inj_t   *tc_inj_find(tc_peer_t *peer, uint32_t pkg_id, uint16_t element);
tc_inj_t   *tc_inj_get(tc_peer_t *peer, const tc_jam_t *jam);
void        tc_inj_cleanup(tc_peer_t *peer);
/* The injs part (peer->injs), zeroed, and its freeing (after tc_inj_cleanup). */
tc_status_t tc_peer_inj_alloc(tc_peer_t *peer);
void        tc_peer_inj_free(tc_peer_t *peer);

/* inject.c: the namespace sync */
/* Receiver: resolve the slot names of inj's jam for the peer; returns
 * TC_SYNC_OK or -(slot + 1) for the first name that did not resolve. */
int64_t     tc_inj_resolve(tc_peer_t *peer, tc_inj_t *inj);
/* The sections in front of a jam's payload in a frame of this mode. */
tc_frame_layout_t tc_jam_layout(const tc_blob_t *blob, tc_mode_t mode, uint32_t payload_len);
/* The same, payload 0, filled in place (the send path). */
void              tc_jam_layout_into(const tc_blob_t *blob, tc_mode_t mode, tc_frame_layout_t *layout);
/* Receiver: answer the peer's namespace syncs (never waits; what finds no
 * free slot goes later). The step of TC_OWED_SYNC. */
tc_status_t tc_inj_send_replies(tc_peer_t *peer);

/* exec.c: the execution rule (what the receiver runs, and from where).
 * Injected: image is the frame's GOTP + CODE in the slot; returns why not,
 * or NULL and the entry to call (never in the slot, unless in place). */
const char   *tc_exec_injected(tc_peer_t *peer, tc_inj_t *inj, const tc_frame_hdr_t *hdr,
                               uint8_t *image, tc_jam_run_fn *run_p);
/* A sync request that asks the receiver to keep the code (in the slot at
 * code): checked every time; why not, or NULL and inj->cache_run set (what
 * it already held stays). */
const char   *tc_exec_cache(tc_peer_t *peer, tc_inj_t *inj, const tc_frame_hdr_t *hdr,
                            const uint8_t *code);
/* A cached frame of inj: why not (policy), or NULL and what it runs in
 * *run_p (NULL: the receiver holds nothing, the sender must be told). */
const char   *tc_exec_cached(tc_peer_t *peer, tc_inj_t *inj, tc_jam_run_fn *run_p);
/* (The fast path's half of tc_exec_injected, tc_exec_injected_again, and the
 * image check both share are inline: lib/core/exec.h.) */
/* May the receiver take a namespace sync of inj at all? TC_SYNC_OK or the
 * refusal the sender hears (TC_SYNC_LOCAL_ONLY under that policy,
 * TC_SYNC_WRITABLE under W^X). */
int64_t       tc_exec_sync_allowed(const tc_peer_t *peer, const tc_inj_t *inj);
void          tc_exec_cleanup(tc_peer_t *peer);

/* pkg.c: a whole file in memory (malloc'd; NULL if unreadable). */
void       *tc_read_file(const char *path, size_t *len_p);

/* ried_store.c: the rieds peers shipped that the context holds */
/* Receiver: the rieds peers shipped, searched when slot names resolve; the
 * address and, in *index_p, which ried it is in. */
void       *tc_ried_lookup(const tc_context_t *ctx, const char *name, unsigned *index_p);
/* A synced jam stops pointing into the rieds of pins (bit i: ctx->rieds[i]);
 * a ried whose peer is gone goes with its last pin. */
void        tc_ried_unpin(tc_context_t *ctx, uint32_t pins);
/* The peer is going: its rieds go, or stay until their last pin. */
void        tc_ried_release(tc_context_t *ctx, const tc_peer_t *peer);
void        tc_ried_unload_all(tc_context_t *ctx);
/* Unload one entry (its fini, dlclose, its memfd) and free it. */
void        tc_ried_unload_slot(tc_ctx_ried_t *slot);

/* ried.c: rieds over the wire */
/* The ried part (peer->ried), zeroed; freed with the chunks it holds. */
tc_status_t tc_peer_ried_alloc(tc_peer_t *peer);
void        tc_peer_ried_free(tc_peer_t *peer);
/* Receiver: the answer to the peer's ried frame, when a slot is free. The
 * step of TC_OWED_RIED. */
tc_status_t tc_ried_send_answer(tc_peer_t *peer);

/* Tests only: put len bytes of frame, as they are (no stamping, no seal),
 * into the peer's next slot with the configured signalling; the caller
 * writes a valid or a deliberately broken frame. */
tc_status_t tc_peer_send_raw_frame(tc_peer_t *peer, const void *frame, uint32_t len);

/* Put one frame of the given kind (ARGS, then payload) into the peer's next
 * slot. Without a free slot: TC_ERR_NO_RESOURCE if nowait, else wait for
 * one as tc_jam_send does. For multicast envelopes, acks and their plain
 * unicasts (lib/group/mcast_wait.c), which must never block with credits owed. */
tc_status_t tc_peer_send_kind(tc_peer_t *peer, uint8_t kind, uint32_t pkg_id, uint16_t element,
                              const void *args, uint32_t args_len, const void *payload,
                              uint32_t payload_len, int nowait);

/* Ring the peer's doorbell (a zero-byte active message that wakes a peer
 * blocked on its worker's fd). Frames ring it themselves; lib/group/mcast_queue.c
 * rings it after credits it returned, since its senders block for them. */
tc_status_t tc_peer_ring(tc_peer_t *peer);
/* Whether to ring the peer after our frames from now on (a config frame
 * saying how it waits, a group's quiesce; wireup sets it at connect):
 * prepared jams choose their start anew (TC_PEER_CHANGED_BELL). */
void        tc_peer_set_doorbell(tc_peer_t *peer, int on);

/* reject.c: rejections (nothing sends) */
/* The reject part (peer->reject) and its queue of NACKs owed, one per
 * slot of our ring (slots), made zeroed by its owner; freed with it. */
tc_status_t tc_peer_reject_alloc(tc_peer_t *peer, uint32_t slots);
void        tc_peer_reject_free(tc_peer_t *peer);
/* Record why the frame in the next slot was rejected (and log the first
 * few); the peer is told with a NACK carrying status (an error: any other
 * goes as TC_ERR_PROTOCOL) and reason. */
void        tc_peer_reject(tc_peer_t *peer, tc_status_t status, const char *reason);
/* The same, without the NACK: the peer is told otherwise (a sync answer). */
void        tc_peer_note_reject(tc_peer_t *peer, const char *reason);
/* Tell the peer its frame seq was refused (status, reason): queued behind
 * the NACKs owed before, or dropped and counted where the queue is full;
 * none once the peer said goodbye. */
void        tc_peer_nack(tc_peer_t *peer, uint32_t seq, tc_status_t status, const char *reason);
/* The oldest NACK owed (NULL: none), and its removal once sent (the last
 * one's clears TC_OWED_NACK); nonzero while no other fits the queue. */
const tc_nack_owed_t *tc_peer_nack_head(const tc_peer_t *peer);
void        tc_peer_nack_pop(tc_peer_t *peer);
int         tc_peer_nack_full(const tc_peer_t *peer);
/* None owed any more (the peer failed or closed: none would go). */
void        tc_peer_nack_clear(tc_peer_t *peer);

/* control.c: frames one side tells the other in the stream */
/* The control part (peer->control), zeroed, and its freeing. */
tc_status_t tc_peer_ctrl_alloc(tc_peer_t *peer);
void        tc_peer_ctrl_free(tc_peer_t *peer);
/* The NACKs owed, oldest first, while the peer's ring has a free slot (never
 * waits: the rest go later). The step of TC_OWED_NACK. */
tc_status_t tc_ctrl_send_nack(tc_peer_t *peer);
/* A NACK for one of our frames first..last that no call returned yet: its
 * status (logged, naming what), else TC_OK. */
tc_status_t tc_ctrl_nack_for(tc_peer_t *peer, uint32_t first, uint32_t last, const char *what);
/* Nonzero (and the NACK taken, unlogged) when the peer NACKed our frame seq
 * with TC_ERR_AGAIN: nothing ran, the caller may send it again. */
int         tc_ctrl_nack_again(tc_peer_t *peer, uint32_t seq);
/* A request of the peer's, frame seq, taken but its answer (what) no longer
 * fits our frames (they shrank since): refused now with a NACK
 * (TC_ERR_OUT_OF_RANGE, why), never dropped. TC_ERR_AGAIN while the NACKs
 * owed before fill the queue and find no slot (the answer stays owed until
 * then). */
tc_status_t tc_ctrl_nack_late(tc_peer_t *peer, uint32_t seq, const char *what, const char *why);

/* wireup.c: free the peer without a goodbye (tc_peer_close says it first). */
void        tc_peer_destroy(tc_peer_t *peer);
/* job.c: while a job's step waits, progress this worker too (a group's
 * context: peers connected earlier wire up their endpoints meanwhile). */
void        tc_job_set_worker(tc_job_t *job, ucp_worker_h worker);
/* job.c: a barrier bounded by timeout_ms instead of the job's timeout (a
 * group's setup: the last rank waits for every pair before it). */
tc_status_t tc_job_barrier_within(tc_job_t *job, int timeout_ms, const char *what);
/* wireup.c: say goodbye now (once; not to a peer that failed, nor to one
 * that said it first unless after_theirs: a group's teardown, where every
 * rank waits for every goodbye) and flush it. Waits for a slot when the
 * ring is full: a teardown of many pairs sends only where one is free. */
tc_status_t tc_peer_goodbye(tc_peer_t *peer, int after_theirs);

/* context.c: is this wait strategy usable here (events set up, host
 * support)? TC_OK, or TC_ERR_UNSUPPORTED after logging why. */
tc_status_t tc_context_check_wait(const tc_context_t *ctx, tc_wait_t wait);

#define TC_AM_DOORBELL 31 /* active-message id of the event doorbell */
#define TC_AM_IDS      65536u /* ids UCX 1.13 can deliver: a uint16_t in its header */

/* Context helpers used by the peer. */
const tc_ctx_pkg_t *tc_context_find_pkg(const tc_context_t *ctx, uint32_t pkg_id);

#endif
