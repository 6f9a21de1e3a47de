/*
 * Internal runtime structures: context (UCX context + worker + loaded
 * packages) and peer (endpoint, this side's mailbox for the peer's frames,
 * staging for frames to the peer, credits).
 */
#ifndef TC_RUNTIME_H
#define TC_RUNTIME_H

#include "twochains.h"
#include "frame.h"

#include <ucp/api/ucp.h>

#define TC_MAX_PKGS        8
#define TC_REJECT_LOG_MAX  8     /* rejections logged per peer, the rest only counted */
#define TC_CHECK_EVERY     1024  /* wait-loop iterations between deadline checks */

struct tc_pkg {
    void                *handle;   /* dlopen */
    const tc_pkg_desc_t *desc;
    char                *path;
};

typedef struct tc_ctx_pkg {
    const tc_pkg_t *pkg;
    void           *state;
} tc_ctx_pkg_t;

struct tc_context {
    tc_context_params_t params;
    ucp_context_h       ucp;
    ucp_worker_h        worker;
    tc_ctx_pkg_t        pkgs[TC_MAX_PKGS];
    unsigned            n_pkgs;
};

/* The mailbox memory each side registers for its peer. The peer writes the
 * ctrl line (credits) and the ring; the raw area is for reference puts. */
typedef struct tc_mbox_ctrl {
    volatile uint64_t consumed;     /* frames of ours the peer has consumed */
    volatile uint64_t raw_consumed; /* reference path: raw puts the peer consumed */
    uint8_t           pad[48];
} tc_mbox_ctrl_t;

/* Swapped through the bootstrap. */
typedef struct tc_peer_wire {
    uint32_t proto;
    uint32_t rank;
    uint32_t slots;
    uint32_t slot_size;
    uint64_t mbox_base;
    uint64_t ring_off;
    uint64_t raw_off;
    uint64_t mbox_len;
    uint32_t worker_addr_len;
    uint32_t rkey_len;
    /* followed by worker address, then packed rkey */
} tc_peer_wire_t;

struct tc_peer {
    tc_context_t     *ctx;
    tc_boot_t        *boot;
    ucp_ep_h          ep;
    tc_status_t       failed;       /* set by the endpoint error handler */
    uint32_t          peer_rank;

    /* our mailbox for the peer's frames */
    ucp_mem_h         mbox_memh;
    char             *mbox;
    size_t            mbox_len;
    tc_mbox_ctrl_t   *ctrl;
    char             *rx_ring;
    char             *raw;
    uint32_t          rx_slots;
    uint32_t          rx_slot_size;
    uint64_t         *rx_stale;      /* per slot: what the last frame left behind */
    uint32_t          rx_seq;        /* next sequence number expected */
    uint32_t          rx_reported;   /* consumed count last told to the peer */
    uint32_t          credit_batch;
    uint32_t          idle_polls;

    /* the peer's mailbox */
    ucp_rkey_h        rkey;
    uint64_t          remote_base;
    uint64_t          remote_ring;
    uint64_t          remote_raw;
    uint32_t          tx_slots;
    uint32_t          tx_slot_size;
    uint32_t          tx_seq;        /* next sequence number to send */
    uint32_t          tx_acked;      /* frames the peer has consumed */
    char             *tx_ring;       /* staging: one frame per remote slot */
    ucp_mem_h         tx_memh;
    uint64_t         *credit_src;    /* source of credit puts (monotonic) */

    uint32_t          frame_size;    /* fixed-frame mode */

    /* header of the last jam frame sent: the next one of the same jam, size
     * and flags copies it instead of laying the frame out again */
    tc_frame_hdr_t          tx_tmpl;
    const tc_pkg_element_t *tx_tmpl_elem;
    uint32_t                tx_tmpl_len;
    uint32_t                tx_tmpl_size;
    unsigned                tx_tmpl_flags;
    int               progress;      /* wait loops progress the worker */
    const char       *progress_why;

    /* results */
    int64_t           ran_ret;       /* latest result of a jam from the peer */
    uint32_t          ran_seq;
    int               ran_has;
    int               reply_pending;
    int               in_progress;

    /* dispatch: filled by the validator's lookup, kept for the next frame
     * (a stream of one jam looks its element up once) */
    const tc_pkg_element_t *disp_elem;
    void                   *disp_state;
    uint32_t                disp_pkg_id;
    uint32_t                disp_element; /* UINT32_MAX: nothing cached */

    tc_peer_stats_t   stats;
    char              last_reject[192];
    char              name[128];
    char              transports[128];
};

/* Tests only: put len bytes of frame, as they are (no stamping, no seal),
 * into the peer's next slot with the configured signalling; the caller
 * writes a valid or a deliberately broken frame. */
tc_status_t tc_peer_send_raw_frame(tc_peer_t *peer, const void *frame, uint32_t len);

/* Context helpers used by the peer. */
const tc_ctx_pkg_t *tc_context_find_pkg(const tc_context_t *ctx, uint32_t pkg_id);

#endif
