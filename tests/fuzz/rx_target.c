/*
 * Fuzz target for the whole receive path (libFuzzer; also replayed by
 * tests/test_rx_corpus.c under gcc). Two real loopback pairs over UCX, one
 * with variable frames and one with fixed frames whose sizes each input
 * sets per direction. The input is a program (tests/fuzz/rx_program.h) that
 * the sending side and a hostile peer play against the receiver: genuine
 * local, injected and cached jams through the API; genuine control frames
 * as the sender's library frames them (config, NACK, goodbye, ried chunks,
 * whole ried ships, unloads and answers, sync requests and answers,
 * credits); raw frames of any kind and header put into the ring with real
 * puts; rewrites of a frame that landed and was not run yet; receiver and
 * sender steps in any order.
 *
 * Invariants (abort otherwise, which libFuzzer records):
 * - after every receiver step, whatever ran is the receiver's own accepted
 *   code with its own GOT: a Local Function of its package, or an image the
 *   receiver linked for this peer whose GOT words are the ones it resolved
 *   and, under the allow-list, whose code is byte-identical to its blob
 *   (under policy any, the input's first byte chooses it: the checked copy
 *   in the code area), never anything inside the mailbox;
 * - the receiver's tc_peer_progress never fails on what the peer sent (a
 *   frame it cannot take is rejected, counted and NACKed, and it goes on),
 *   neither once nor again and again;
 * - nothing runs after the peer's goodbye;
 * - the receiver never counts more of its frames consumed than the sender
 *   consumed (the hostile peer says the truth or far more than the
 *   receiver sent: a lie in between only hurts the liar);
 * - every frame the receiver sends (replies, answers, NACKs) is one its
 *   genuine peer takes: the sender's library rejects none, apart from an
 *   answer to a forged sync request (the hostile peer asked, its library
 *   did not);
 * - after the program, the receiver still serves: a genuine call gets its
 *   reply; and nothing crashes or hangs (a loop that cannot make room ends
 *   in abort). Every loop is bounded by counts, never by time.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "twochains.h"
#include "runtime.h"
#include "credits.h"
#include "frame.h"
#include "send.h"
#include "harness/pkg_path.h"
#include "rx_program.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct rx_side {
    tc_boot_t    *boot;
    tc_context_t *ctx;
    tc_peer_t    *peer;
    tc_pkg_t     *pkg;
    tc_frame_mode_t frames;
    tc_status_t   status;
} rx_side_t;

static const char *const rx_jam_names[] = RX_JAMS;
#define RX_N_JAMS (sizeof(rx_jam_names) / sizeof(rx_jam_names[0]))

typedef struct rx_pair {
    rx_side_t side[2];          /* [0] receives, [1] sends */
    tc_jam_t  jam[RX_N_JAMS];   /* the sender's */
    int       any;              /* the receiver runs under policy any now */
    uint64_t  tx_rejected;      /* the sender's rejections already checked */
} rx_pair_t;

static rx_pair_t  rx_pairs[2]; /* [0] variable frames, [1] fixed frames */
static rx_pair_t *rx_cur;      /* the pair this input plays on */
static uint16_t   rx_unbounded[2];
static uint8_t   *rx_ried_lib; /* the bench package's ried library */
static size_t     rx_ried_len;

static const uint32_t rx_frame_sizes[] = RX_FRAME_SIZES;
static const int64_t  rx_sync_statuses[] = {TC_SYNC_OK,       TC_SYNC_CACHED,   TC_SYNC_MISS,
                                            TC_SYNC_BAD_CODE, TC_SYNC_WRITABLE, -1};
static const char *const rx_ried_names[] = RX_RIED_NAMES;

#define RX_RX (rx_cur->side[0].peer)
#define RX_TX (rx_cur->side[1].peer)

/* ------------------------------------------------------------ the library's log */

/* The library's lines are kept, not printed (a hostile peer makes many);
 * the last few are shown when an invariant breaks. */
#define RX_LOG_KEEP 8
static char     rx_log_lines[RX_LOG_KEEP][256];
static unsigned rx_log_next;

static void rx_log(tc_log_level_t level, const char *msg, void *arg)
{
    (void)arg;
    snprintf(rx_log_lines[rx_log_next++ % RX_LOG_KEEP], sizeof(rx_log_lines[0]), "%s: %s",
             tc_log_level_str(level), msg);
}

static void rx_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void rx_die(const char *fmt, ...)
{
    const tc_peer_t *rx = (rx_cur != NULL) ? RX_RX : NULL, *tx = (rx_cur != NULL) ? RX_TX : NULL;
    unsigned k;
    va_list ap;

    fprintf(stderr, "rx fuzz: invariant broken: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    for (k = (rx_log_next > RX_LOG_KEEP) ? rx_log_next - RX_LOG_KEEP : 0; k < rx_log_next; ++k) {
        fprintf(stderr, "rx fuzz: library said: %s\n", rx_log_lines[k % RX_LOG_KEEP]);
    }
    if ((rx != NULL) && (tx != NULL)) {
        uint32_t idx = rx->rx_seq & (rx->rx_slots - 1);
        const tc_frame_hdr_t *h =
            (const tc_frame_hdr_t *)(rx->rx_ring + (size_t)idx * rx->rx_slot_size);

        fprintf(stderr, "rx fuzz: %s frames (receiver's %u bytes, sender's %u); receiver at "
                "seq %u (reported %u, %llu run, %llu rejected: %s), sender at %u (%u "
                "consumed, %llu of the receiver's rejected: %s)\n",
                (rx->frames == TC_FRAMES_FIXED) ? "fixed" : "variable", rx->tx_frame_size,
                tx->tx_frame_size, rx->rx_seq, rx->rx_reported,
                (unsigned long long)rx->stats.rx_frames,
                (unsigned long long)rx->stats.rx_rejected, rx->reject->last, tx->tx_seq,
                (uint32_t)tx->ctrl->consumed, (unsigned long long)tx->stats.rx_rejected,
                tx->reject->last);
        fprintf(stderr, "rx fuzz: next slot %u: mag 0x%x seq %u size %u kind %u, "
                "stale 0x%llx, sig 0x%llx\n", idx, h->mag, h->seq, h->frame_size, h->kind,
                (unsigned long long)rx->rx_stale[idx],
                (h->frame_size >= 64 && h->frame_size <= rx->rx_slot_size) ?
                    (unsigned long long)*tc_frame_sig_ptr((void *)h, h->frame_size) : 0ull);
    }
    abort();
}

/* ----------------------------------------------------------- the invariants */

/* What ran, after every receiver step (each step runs at most one frame
 * before it is checked). */
static void rx_check_ran(void)
{
    tc_peer_t *rx               = RX_RX;
    const tc_pkg_desc_t *desc   = tc_pkg_desc(rx_cur->side[0].pkg);
    uintptr_t fn                = (uintptr_t)(void *)rx->rx_last_run;
    static uint64_t checked[2];
    uint64_t *seen = &checked[rx_cur - rx_pairs];
    unsigned i;

    if (rx->stats.rx_frames == *seen) {
        return; /* nothing ran since the last check */
    }
    *seen = rx->stats.rx_frames;

    if ((fn >= (uintptr_t)rx->mbox) && (fn < (uintptr_t)rx->mbox + rx->mbox_len)) {
        rx_die("code in the mailbox ran");
    }
    for (i = 0; i < desc->n_elements; ++i) {
        if ((desc->elements[i].kind == TC_ELEM_JAM) &&
            ((uintptr_t)(void *)desc->elements[i].run == fn)) {
            return; /* a Local Function of the receiver's package */
        }
    }
    if ((rx->ctx->params.exec == TC_EXEC_ANY) && (fn == (uintptr_t)(void *)rx->code.transit_run) &&
        (rx->code.transit_inj != NULL)) {
        /* policy any: the checked copy, which sits at the start of the area
         * and whose GOT must still be the resolved one */
        const tc_inj_t *inj = rx->code.transit_inj;
        if (fn != (uintptr_t)(void *)(rx->code.rx + inj->blob->hdr->entry_offset)) {
            rx_die("policy any ran something other than its checked copy");
        }
        if (memcmp(rx->code.rx, inj->rx_gotp, 8u * inj->blob->hdr->got_count) != 0) {
            rx_die("policy any ran a copy whose GOT is not the one resolved for the peer");
        }
        return;
    }
    for (i = 0; i < rx->injs->n; ++i) {
        const tc_inj_t *inj          = &rx->injs->inj[i];
        const tc_blob_file_hdr_t *bh = inj->blob->hdr;
        const uint8_t *image;

        if ((fn != (uintptr_t)(void *)inj->own_run) && (fn != (uintptr_t)(void *)inj->cache_run)) {
            continue;
        }
        image = (const uint8_t *)fn - bh->entry_offset;
        if ((image < rx->code.rx) || (image + bh->image_size > rx->code.rx + rx->code.len)) {
            rx_die("a linked image outside the receiver's code area ran");
        }
        if (!rx_cur->any &&
            (memcmp(image + bh->code_offset, inj->blob->image + bh->code_offset,
                    bh->image_size - bh->code_offset) != 0)) {
            rx_die("an image whose code is not the receiver's blob ran");
        }
        if (memcmp(image, inj->rx_gotp, 8u * bh->got_count) != 0) {
            rx_die("an image whose GOT is not the one resolved for the peer ran");
        }
        return;
    }
    rx_die("code the receiver never linked ran");
}

/* The genuine sender rejects nothing of the receiver's but the answer to a
 * sync request its library never sent (the hostile peer's). */
static void rx_check_sender(void)
{
    tc_peer_t *tx = RX_TX;

    if (tx->stats.rx_rejected == rx_cur->tx_rejected) {
        return;
    }
    rx_cur->tx_rejected = tx->stats.rx_rejected;
    if (strcmp(tx->reject->last, "sync reply nobody asked for") != 0) {
        rx_die("the sender rejects a frame of the receiver's: %s", tx->reject->last);
    }
}

/* Credits: the receiver never counts more of its frames consumed than the
 * sender consumed. The target's peer tells the truth or says more than the
 * receiver sent (rx_honest_ack), so only taking such an ack breaks this;
 * the receiver then overruns the sender's ring. */
static void rx_check_credits(void)
{
    const tc_peer_t *rx = RX_RX;

    if ((int32_t)(rx->tx_acked - RX_TX->rx_seq) > 0) {
        rx_die("the receiver takes credits the sender never gave: an ack beyond what it sent "
               "(acked %u, sent %u, consumed %u)", rx->tx_acked, rx->tx_seq, RX_TX->rx_seq);
    }
}

/* The peer's goodbye ends its stream; the target takes the pair as
 * connected again (a new peer at the same place), so that the rest of the
 * program still plays. */
static void rx_reconnect(void)
{
    tc_peer_t *rx = RX_RX;

    rx->goodbye_seen = 0;
    if (rx->failed == TC_ERR_CLOSED) {
        rx->failed = TC_OK;
        tc_rx_path_set(rx, tc_rx_path_of(rx)); /* off FAILED, as a new peer's */
    }
}

/* What a receiver call returned: any error but the closed peer's after its
 * goodbye breaks the invariant; one that comes back on the next calls is a
 * stall. */
static void rx_check_status(tc_status_t status, const char *call)
{
    tc_peer_t *rx = RX_RX;
    tc_status_t again;
    unsigned k, same = 0;

    if ((status == TC_OK) || ((status == TC_ERR_CLOSED) && rx->goodbye_seen)) {
        return;
    }
    for (k = 0; k < 3; ++k) {
        again = tc_peer_progress(rx, 1, NULL);
        rx_check_ran();
        same += (again == status);
    }
    if (same == 3) {
        rx_die("stall: %s returned %s, and tc_peer_progress returns it again and again",
               call, tc_status_str(status));
    }
    rx_die("%s failed on the peer's frames (%s): a server loop ends there", call,
           tc_status_str(status));
}

/* One receiver step: at most one frame that runs (configs and goodbyes are
 * not counted), checked. 1 when a frame was taken. */
static unsigned rx_step(void)
{
    tc_peer_t *rx   = RX_RX;
    uint64_t ran    = rx->stats.rx_frames;
    int said_bye    = rx->goodbye_seen;
    unsigned one    = 0;
    tc_status_t status;

    status = tc_peer_progress(rx, 1, &one);
    rx_check_ran();
    if (!said_bye && rx->goodbye_seen) {
        /* a counted frame ends the call: one that ran came after the goodbye */
        if (rx->stats.rx_frames != ran) {
            rx_die("a frame ran after the peer's goodbye");
        }
        rx_reconnect();
        status = (status == TC_ERR_CLOSED) ? TC_OK : status;
    }
    rx_check_status(status, "tc_peer_progress");
    rx_check_credits();
    return one;
}

/* Receiver steps until nothing is taken or max; how many frames. */
static unsigned rx_steps(unsigned max)
{
    unsigned k, n = 0, one;

    for (k = 0; k < max; ++k) {
        one = rx_step();
        if (one == 0) {
            break;
        }
        n += one;
    }
    return n;
}

/* The receiver hands back what it consumed (tc_peer_flush), checked. */
static void rx_flush(void)
{
    (void)rx_steps(UINT32_MAX);
    rx_check_status(tc_peer_flush(RX_RX), "tc_peer_flush");
    rx_check_ran();
}

/* The sender takes what the receiver sent, one frame at a time. */
static void rx_tx_progress(void)
{
    unsigned k, one = 1;

    for (k = 0; (k < 64) && (one != 0); ++k) {
        (void)tc_peer_progress(RX_TX, 1, &one);
        rx_check_sender();
    }
}

/* ------------------------------------------------------------- the ring */

/* A hostile peer can leave its own ring stalled: a header made to look
 * like an earlier lap's, a SIG that never matches, MAG cleared. The
 * receiver rightly waits for such a slot (it is the peer's to fill); the
 * peer then puts a header and a signal the receiver can name as wrong,
 * which it rejects and consumes. Only a receiver that still makes no
 * progress hangs. */
static void rx_unstick(void)
{
    tc_peer_t *rx = RX_RX;
    uint32_t idx  = rx->rx_seq & (rx->rx_slots - 1);
    char *slot    = rx->rx_ring + (size_t)idx * rx->rx_slot_size;
    tc_frame_hdr_t *hdr = (tc_frame_hdr_t *)slot;
    uint32_t other = rx->rx_seq + 1;

    if ((int32_t)(RX_TX->tx_seq - rx->rx_seq) <= 0) {
        return; /* nothing of the peer's is pending */
    }
    /* a seq (and, for fixed frames, a signal where the receiver looks) that
     * is neither this lap's, an earlier lap's, nor what the receiver left in
     * the slot */
    if ((((1ull << 63) | other) == rx->rx_stale[idx]) ||
        (tc_frame_sig(other) == rx->rx_stale[idx])) {
        other = rx->rx_seq + 2;
    }
    hdr->seq        = other;
    hdr->frame_size = TC_FRAME_MIN_SIZE;
    *tc_frame_sig_ptr(slot, rx->rx_frame_size) = tc_frame_sig(other);
    __atomic_store_n(&hdr->mag, TC_FRAME_MAG, __ATOMIC_RELEASE);
}

/* Until the sender has a free slot: the receiver consumes, credits return. */
static void rx_make_room(void)
{
    tc_peer_t *tx = RX_TX;
    unsigned k;

    for (k = 0; k < 100000; ++k) {
        /* credits come as puts of the count, or on the receiver's frames */
        if ((tx->tx_seq - (uint32_t)tx->ctrl->consumed < tx->tx_slots) ||
            (tx->tx_seq - tx->tx_acked < tx->tx_slots)) {
            return;
        }
        if ((k % 1000) == 999) {
            rx_unstick();
        }
        rx_flush(); /* the credits of what it consumed */
        rx_tx_progress();
        ucp_worker_progress(RX_RX->ctx->worker);
        ucp_worker_progress(tx->ctx->worker);
    }
    rx_die("no credits come back (hang)");
}

/* Until the receiver has a free slot in the sender's ring; 0 if none comes. */
static int rx_room_back(void)
{
    unsigned k;

    for (k = 0; k < 100; ++k) {
        if (tc_peer_tx_free(RX_RX) > 0) {
            return 1;
        }
        rx_tx_progress();
        (void)tc_peer_flush(RX_TX);
        rx_check_sender();
    }
    return 0;
}

/* ----------------------------------------------------------- the input */

typedef struct rx_in {
    const uint8_t *p;
    size_t         n;
} rx_in_t;

static uint32_t rx_take(rx_in_t *in, unsigned bytes)
{
    uint32_t v = 0;

    while (bytes-- > 0) {
        v = (v << 8) | ((in->n > 0) ? (in->n--, *in->p++) : 0);
    }
    return v;
}

/* Payload bytes a frame of the sender's holds behind ARGS of args_len
 * (what tc_peer_frame_room says, without its wrap below 0). */
static uint32_t rx_tx_room(uint32_t args_len)
{
    tc_frame_layout_t lay = {args_len, 0, 0, 0};
    tc_frame_offsets_t off;
    uint32_t size = (RX_TX->frames == TC_FRAMES_FIXED) ? RX_TX->tx_frame_size :
                                                         RX_TX->tx_slot_size;

    (void)tc_frame_layout(&lay, UINT32_MAX, &off);
    return (size > off.payload_off + TC_FRAME_SIG_SIZE) ?
               size - off.payload_off - TC_FRAME_SIG_SIZE : 0;
}

/* A frame of kind the sender's library lays out (tc_peer_send_kind): the
 * framing is genuine, the words are the program's. */
static void rx_send_kind(uint8_t kind, uint32_t pkg_id, uint16_t element, const void *args,
                         uint32_t args_len, const void *payload, uint32_t len)
{
    rx_make_room();
    (void)tc_peer_send_kind(RX_TX, kind, pkg_id, element, args, args_len, payload, len, 1);
}

/* ---------------------------------------------------------- genuine jams */

static void rx_genuine(rx_in_t *in, tc_mode_t mode)
{
    const tc_jam_t *jam = &rx_cur->jam[rx_take(in, 1) % RX_N_JAMS];
    uint8_t payload[512];
    uint32_t len = rx_take(in, 2) % sizeof(payload), k;
    uint64_t counter;

    for (k = 0; k < len; ++k) {
        payload[k] = (uint8_t)rx_take(in, 1);
    }
    if (!tc_jam_is_prepared(RX_TX, jam, mode)) {
        return; /* a forged sync answer made the sender forget: syncing needs both sides */
    }
    if (!strcmp(jam->elem->name, "seq")) {
        counter = rx_take(in, 4);
        memcpy(payload, &counter, sizeof(counter));
        len = sizeof(counter);
    }
    rx_make_room();
    if (!tc_jam_is_prepared(RX_TX, jam, mode)) {
        return; /* told meanwhile that the receiver dropped the code */
    }
    (void)tc_jam_send(RX_TX, jam, payload, len, TC_SEND_PARAMS(mode, 0));
}

/* ------------------------------------------------------ hostile frames */

/* Policy any runs whatever code fits, by definition: under it the input
 * leaves code bytes alone (a crash there would be the jam's, not the
 * receiver's), and races the GOTP, the header and the payload. */
static int rx_in_code(const void *frame, uint32_t at)
{
    const tc_frame_hdr_t *h = frame;
    tc_frame_layout_t lay   = {h->args_len, h->got_count, h->code_len, 0};
    tc_frame_offsets_t off;

    if (!rx_cur->any || (h->code_len == 0) ||
        (tc_frame_layout(&lay, UINT32_MAX, &off) != TC_OK)) {
        return 0;
    }
    return (at >= off.code_off) && (at < off.code_off + h->code_len);
}

/* A peer's ack (and credit put) is its own word on how many of the
 * receiver's frames it consumed. One beyond what the receiver sent is
 * nonsense the receiver must refuse (rx_check_credits); one within it is a
 * lie the receiver cannot tell from the truth, which only hurts the liar
 * (its unread slots are written over) and would break this pair for every
 * later input. The receiver reads the word later, when it may have sent
 * more: so the target's hostile peer tells the truth, or says far more
 * than the receiver sent (RX_ACK_FAR: more than an input makes it send). */
#define RX_ACK_FAR 0x10000u

static void rx_honest_ack(tc_frame_hdr_t *hdr)
{
    uint32_t truth = RX_TX->rx_seq, far = RX_RX->tx_seq + RX_ACK_FAR;

    if (((int32_t)(hdr->ack - truth) > 0) && ((int32_t)(hdr->ack - far) < 0)) {
        hdr->ack = truth;
    }
}

/* A frame of any kind, header fields from the input, sections optionally
 * the genuine code and GOTP of a jam, then a few bytes overwritten. Fixed
 * frames: of the sender's size where the layout fits it. */
static void rx_raw_frame(rx_in_t *in)
{
    tc_peer_t *tx = RX_TX;
    static uint8_t frame[4096];
    uint32_t pick = rx_take(in, 1), flags = rx_take(in, 1), kind = rx_take(in, 1) % TC_KIND_LAST;
    const tc_jam_t *jam = &rx_cur->jam[pick % RX_N_JAMS];
    const tc_blob_t *blob = tc_pkg_blob(jam->pkg, jam->element);
    tc_frame_layout_t lay = {rx_take(in, 1) % 64, 0, 0, rx_take(in, 2) % 1500};
    tc_inj_t *inj = tc_inj_find(tx, jam->pkg_id, jam->element);
    tc_frame_offsets_t off;
    uint32_t k, edits;

    if ((pick & 0x80) && (blob != NULL)) {
        lay.got_count = blob->hdr->got_count;
        lay.code_len  = blob->hdr->image_size - blob->hdr->code_offset;
    } else if (pick & 0x40) {
        lay.got_count = rx_take(in, 1) % 8;
        lay.code_len  = rx_take(in, 1) * 4;
    }
    if (tc_frame_layout(&lay, sizeof(frame), &off) != TC_OK) {
        return;
    }
    if ((tx->frames == TC_FRAMES_FIXED) && (off.frame_size <= tx->tx_frame_size)) {
        off.frame_size = tx->tx_frame_size;
    }
    memset(frame, 0, off.frame_size);
    tc_frame_write_hdr(frame, &off, &lay, (uint8_t)kind, (uint8_t)(flags & 0x0f),
                       (pick & 0x20) ? rx_take(in, 4) : jam->pkg_id,
                       (pick & 0x10) ? (uint16_t)rx_take(in, 2) : jam->element,
                       (flags & 0x80) ? rx_take(in, 4) : tx->tx_seq);
    if ((pick & 0x80) && (blob != NULL)) {
        if (inj != NULL && inj->tx_gotp != NULL) {
            memcpy(frame + off.got_off, inj->tx_gotp, 8u * lay.got_count);
        }
        memcpy(frame + off.code_off, blob->image + blob->hdr->code_offset, lay.code_len);
    }
    for (k = 0; k < lay.args_len; ++k) {
        frame[off.args_off + k] = (uint8_t)rx_take(in, 1);
    }
    for (k = 0; k < lay.payload_len; ++k) {
        frame[off.payload_off + k] = (uint8_t)rx_take(in, 1);
    }
    tc_frame_seal(frame);
    edits = rx_take(in, 1) % 6;
    for (k = 0; k < edits; ++k) {
        uint32_t at = rx_take(in, 2) % off.frame_size;
        uint8_t  x  = (uint8_t)rx_take(in, 1);
        if (!rx_in_code(frame, at) && !(rx_cur->any && (at < TC_FRAME_HDR_SIZE))) {
            frame[at] ^= x;
        }
    }
    if (rx_cur->any && (lay.code_len > 0) && !((pick & 0x80) && (blob != NULL))) {
        return; /* code of the input's own making */
    }
    /* jams whose run the sender bounds become noop: a walk of 2^32 hops is
     * a hang of the fuzzer, not of the receiver */
    if ((((tc_frame_hdr_t *)frame)->element == rx_unbounded[0]) ||
        (((tc_frame_hdr_t *)frame)->element == rx_unbounded[1])) {
        ((tc_frame_hdr_t *)frame)->element = rx_cur->jam[RX_JAM_NOOP].element;
    }
    rx_make_room();
    rx_honest_ack((tc_frame_hdr_t *)frame);
    (void)tc_peer_send_raw_frame(tx, frame, off.frame_size);
}

/* A peer's put into a frame that landed and was not run yet. (A put into a
 * slot it has not sent yet is a frame of its own, which raw frames cover; it
 * would only put the peer's count of its frames out of step with its own.) */
static void rx_rewrite(rx_in_t *in)
{
    tc_peer_t *rx = RX_RX;
    char *slot    = rx->rx_ring + (size_t)(rx->rx_seq & (rx->rx_slots - 1)) * rx->rx_slot_size;
    uint32_t at   = rx_take(in, 2) % rx->rx_slot_size, len = 1 + rx_take(in, 1) % 16, k;

    if ((int32_t)(RX_TX->tx_seq - rx->rx_seq) <= 0) {
        return;
    }
    for (k = 0; k < len && at + k < rx->rx_slot_size; ++k) {
        char b = (char)rx_take(in, 1);
        if (!rx_in_code(slot, at + k) && !((at + k < TC_FRAME_HDR_SIZE) && rx_cur->any)) {
            slot[at + k] = b;
        }
    }
    rx_honest_ack((tc_frame_hdr_t *)slot);
}

/* ------------------------------------------------------- control frames */

/* The sender's or the receiver's frame size, through the API (the config
 * goes in the old size, ahead of the first frame in the new one). */
static void rx_set_size(int receiver, uint32_t size)
{
    if (receiver) {
        if (rx_room_back()) {
            (void)tc_peer_set_frame_size(RX_RX, size);
        }
        return;
    }
    rx_make_room();
    (void)tc_peer_set_frame_size(RX_TX, size);
}

static void rx_config(rx_in_t *in)
{
    uint32_t what = rx_take(in, 1), size = rx_frame_sizes[(what >> 2) & 7];

    switch (what & 3) {
    case 0: rx_set_size(0, size); break;
    case 1: rx_set_size(1, size); break;
    case 2:
        rx_make_room();
        (void)tc_peer_set_wait(RX_TX, (tc_wait_t)((what >> 2) % 7));
        break;
    default:
        rx_set_size(0, size);
        rx_set_size(1, size);
        break;
    }
}

static void rx_nack(rx_in_t *in)
{
    uint32_t s = rx_take(in, 1), status = rx_take(in, 1), len = rx_take(in, 1) % 64, k;
    uint32_t seq = (s & 0x80) ? rx_take(in, 4) : RX_RX->tx_seq - 1 - (s & 7);
    char reason[64];

    for (k = 0; k < len; ++k) {
        reason[k] = (char)rx_take(in, 1);
    }
    len = (len < rx_tx_room(0)) ? len : rx_tx_room(0); /* cut as tc_ctrl_send_nack cuts */
    rx_send_kind(TC_KIND_NACK, seq, (uint16_t)status, NULL, 0, reason, len);
}

/* One ried frame, ARGS as tc_ried_ship writes them. */
static void rx_ried_frame(rx_in_t *in)
{
    uint32_t op = rx_take(in, 1) % 8, id = rx_take(in, 1), name = rx_take(in, 1), k, len;
    uint8_t data[1024];
    tc_ried_args_t args;

    memset(&args, 0, sizeof(args));
    if (name & RX_RIED_NAME_TEXT) {
        for (k = 0; k < (name & 7); ++k) {
            args.name[k] = (char)rx_take(in, 1);
        }
    } else {
        snprintf(args.name, sizeof(args.name), "%s",
                 rx_ried_names[(name & 0x3f) % TC_ARRAY_SIZE(rx_ried_names)]);
    }
    args.id     = id;
    args.op     = op;
    args.total  = rx_take(in, 2);
    args.offset = rx_take(in, 2);
    len         = rx_take(in, 2) % sizeof(data);
    len         = (len < rx_tx_room(sizeof(args))) ? len : rx_tx_room(sizeof(args));
    if (name & RX_RIED_DATA_LIB) {
        args.total  = (uint32_t)rx_ried_len;
        args.offset = (args.offset < rx_ried_len) ? args.offset : 0;
        len         = (len < rx_ried_len - args.offset) ? len : (uint32_t)(rx_ried_len - args.offset);
        memcpy(data, rx_ried_lib + args.offset, len);
    } else {
        for (k = 0; k < len; ++k) {
            data[k] = (uint8_t)rx_take(in, 1);
        }
        if (rx_cur->any && (op != TC_RIED_OP_UNLOAD)) {
            /* policy any loads any library, one of the input's making too
             * (an unknown op is taken as a chunk today) */
            return;
        }
    }
    rx_send_kind(TC_KIND_RIED, 0, 0, &args, sizeof(args), data, len);
}

/* The bench package's ried shipped whole, as tc_ried_ship sends it. */
static void rx_ried_ship(rx_in_t *in)
{
    uint32_t id = rx_take(in, 1), flaw = rx_take(in, 1) & 3, at = rx_take(in, 2) % rx_ried_len;
    uint32_t room = rx_tx_room(sizeof(tc_ried_args_t)), offset, n;
    static uint8_t chunk[4096];
    tc_ried_args_t args;

    if (room == 0) {
        return; /* the sender's frames carry no chunk (tc_ried_ship fails there too) */
    }
    if (rx_cur->any && (flaw == 1)) {
        flaw = 0; /* policy any loads a flawed library as it is: it would be its crash */
    }
    memset(&args, 0, sizeof(args));
    snprintf(args.name, sizeof(args.name), "%s", rx_ried_names[RX_RIED_NAME_OWN]);
    args.id    = id;
    args.op    = TC_RIED_OP_CHUNK;
    args.total = (uint32_t)rx_ried_len;
    for (offset = 0; offset < rx_ried_len; offset += n) {
        n = (rx_ried_len - offset < room) ? (uint32_t)(rx_ried_len - offset) : room;
        if ((flaw == 2) && (offset >= rx_ried_len / 2)) {
            return;
        }
        if ((flaw == 3) && (offset >= rx_ried_len / 2)) {
            args.id = id + 1;
        }
        memcpy(chunk, rx_ried_lib + offset, n);
        if ((flaw == 1) && (at >= offset) && (at < offset + n)) {
            chunk[at - offset] ^= 0x20;
        }
        args.offset = offset;
        rx_send_kind(TC_KIND_RIED, 0, 0, &args, sizeof(args), chunk, n);
        if (RX_TX->tx_seq - (uint32_t)RX_TX->ctrl->consumed >= RX_TX->tx_slots / 2) {
            (void)rx_steps(UINT32_MAX); /* as the receiver takes them meanwhile */
        }
    }
}

static void rx_ried_answer(rx_in_t *in)
{
    uint32_t id = rx_take(in, 1), status = rx_take(in, 1), len = rx_take(in, 1) % 64, k;
    tc_ried_args_t args;
    char text[64];

    for (k = 0; k < len; ++k) {
        text[k] = (char)rx_take(in, 1);
    }
    memset(&args, 0, sizeof(args));
    args.id     = (id != 0) ? id : RX_RX->ried->tx.wait_id;
    args.status = (int8_t)status;
    len         = (len < rx_tx_room(sizeof(args))) ? len : rx_tx_room(sizeof(args));
    rx_send_kind(TC_KIND_RIED_REP, 0, 0, &args, sizeof(args), text, len);
}

/* A sync request as tc_jam_prepare sends it (the code of jam code_of when
 * it is to be cached); the sender's library then waits for the answer. */
static void rx_sync_request(const tc_jam_t *jam, int cache, const tc_jam_t *code_of)
{
    tc_peer_t *tx = RX_TX;
    tc_inj_t *inj = tc_inj_get(tx, jam);
    const tc_blob_t *blob = tc_pkg_blob(code_of->pkg, code_of->element);
    tc_frame_layout_t layout = {0, 0, 0, 0};
    tc_frame_offsets_t off;
    char *frame;

    if ((inj == NULL) || (blob == NULL)) {
        return;
    }
    if (cache) {
        layout = tc_jam_layout(blob, TC_MODE_INJECTED, 0);
    }
    rx_make_room();
    if (tc_frame_layout(&layout, tx->tx_slot_size, &off) != TC_OK) {
        return;
    }
    off.frame_size = tc_peer_frame_size(tx, off.frame_size);
    if (off.frame_size == 0) {
        return; /* the sender's frames cannot carry it (tc_jam_prepare says so) */
    }
    frame = tc_peer_tx_frame(tx);
    tc_frame_write_hdr(frame, &off, &layout, TC_KIND_SYNC_REQ, cache ? TC_FRAME_F_CACHE : 0,
                       jam->pkg_id, jam->element, tx->tx_seq);
    if (cache) {
        memset(frame + off.got_off, 0, 8u * layout.got_count);
        memcpy(frame + off.code_off, blob->image + blob->hdr->code_offset, layout.code_len);
    }
    inj->tx_sync_wait   = 1;
    inj->tx_sync_status = 0;
    (void)tc_peer_send_frame(tx, frame);
}

/* An answer to the receiver's sync (it never asks: nobody waits for it,
 * unless it is a miss, which makes it forget that its code is held). */
static void rx_sync_answer(const tc_jam_t *jam, uint32_t status, uint32_t count)
{
    const tc_blob_t *blob = tc_pkg_blob(jam->pkg, jam->element);
    uint8_t payload[8 + 8 * 16];
    uint32_t n = (count & 0x80) && (blob != NULL) ? blob->hdr->got_count : count % 16;

    memset(payload, 0, sizeof(payload));
    memcpy(payload, &rx_sync_statuses[status % TC_ARRAY_SIZE(rx_sync_statuses)], 8);
    if (8u + 8u * n <= rx_tx_room(0)) {
        rx_send_kind(TC_KIND_SYNC_REP, jam->pkg_id, jam->element, NULL, 0, payload, 8u + 8u * n);
    }
}

static void rx_sync(rx_in_t *in)
{
    uint32_t sub = rx_take(in, 1), j = rx_take(in, 1) % RX_N_JAMS;
    uint32_t status = rx_take(in, 1), count = rx_take(in, 1);
    const tc_jam_t *jam = &rx_cur->jam[j];

    switch (sub & 3) {
    case 0: rx_sync_request(jam, (sub & 4) != 0, jam); break;
    case 1: rx_sync_answer(jam, status, count); break;
    case 2: tc_peer_forget_code(RX_RX); break;
    default: rx_sync_request(jam, 1, &rx_cur->jam[(j + 1) % RX_N_JAMS]); break;
    }
}

static void rx_credits(rx_in_t *in)
{
    uint32_t sub = rx_take(in, 1) % 4, delta = rx_take(in, 1);
    tc_peer_t *rx = RX_RX;

    switch (sub) {
    case 0: (void)tc_credits_return(RX_TX); break;
    case 1: rx_send_kind(TC_KIND_NOP, 0, 0, NULL, 0, NULL, 0); break;
    case 2:
        (void)tc_peer_flush(RX_TX);
        rx_check_sender();
        break;
    default:
        /* far beyond what the receiver sent, or behind what the peer said
         * before (never a lie in between: rx_honest_ack) */
        __atomic_store_n(&rx->ctrl->consumed,
                         (uint64_t)(((int8_t)delta >= 0) ? rx->tx_seq + RX_ACK_FAR + delta :
                                                           rx->tx_acked + (int8_t)delta),
                         __ATOMIC_RELEASE);
        break;
    }
}

/* ---------------------------------------------------------------- the pairs */

static void *rx_open(void *arg)
{
    rx_side_t *s = arg;
    tc_context_params_t params;
    tc_peer_params_t peer_params;
    char path[4096];

    tc_context_params_init(&params);
    params.slots      = 8;
    params.slot_size  = 4096;
    params.frames     = s->frames;
    params.timeout_ms = 20000;
    params.rank       = (s == &rx_cur->side[0]) ? 0 : 1;
    /* fixed frames: the jams are synced at the slot size; each input then
     * sets its own sizes */
    peer_params.field_mask = TC_PEER_PARAM_FIELD_FRAME_SIZE;
    peer_params.frame_size = params.slot_size;
    s->status = tc_pkg_default_path(path, sizeof(path));
    if (s->status == TC_OK) {
        s->status = tc_pkg_open(path, &s->pkg);
    }
    if (s->status == TC_OK) {
        s->status = tc_context_create(&params, &s->ctx);
    }
    if (s->status == TC_OK) {
        s->status = tc_context_add_pkg(s->ctx, s->pkg);
    }
    if (s->status == TC_OK) {
        s->status = tc_peer_connect(s->ctx, s->boot, &peer_params, &s->peer);
    }
    return NULL;
}

/* A namespace sync as tc_jam_prepare runs it, played step by step (a
 * receiver thread would make the sequence numbers, and so every later
 * input, depend on its timing). */
static void rx_sync_setup(const tc_jam_t *jam, int cache)
{
    tc_inj_t *inj = tc_inj_get(RX_TX, jam);
    unsigned k;

    rx_sync_request(jam, cache, jam);
    for (k = 0; (k < 100) && (inj != NULL) && inj->tx_sync_wait; ++k) {
        (void)rx_steps(UINT32_MAX);
        rx_tx_progress();
    }
}

/* Connect the pair, sync every jam injected and cached. */
static void rx_pair_setup(rx_pair_t *p, tc_frame_mode_t frames)
{
    pthread_t th;
    unsigned j;

    rx_cur = p;
    p->side[0].frames = p->side[1].frames = frames;
    if (tc_boot_loopback_pair(5000, &p->side[0].boot, &p->side[1].boot) != TC_OK) {
        rx_die("no loopback bootstrap");
    }
    pthread_create(&th, NULL, rx_open, &p->side[0]);
    rx_open(&p->side[1]);
    pthread_join(th, NULL);
    if ((p->side[0].status != TC_OK) || (p->side[1].status != TC_OK)) {
        rx_die("cannot set up the loopback pair (the bench package: $TC_PKG, or "
               "../pkg/bench beside this program)");
    }
    for (j = 0; j < RX_N_JAMS; ++j) {
        if (tc_pkg_jam(p->side[1].pkg, rx_jam_names[j], &p->jam[j]) != TC_OK) {
            rx_die("no jam %s in the bench package", rx_jam_names[j]);
        }
        rx_sync_setup(&p->jam[j], 0);
        rx_sync_setup(&p->jam[j], 1);
        if (!tc_jam_is_prepared(RX_TX, &p->jam[j], TC_MODE_CACHED)) {
            rx_die("cannot sync jam %s", rx_jam_names[j]);
        }
    }
    (void)rx_steps(UINT32_MAX);
    rx_flush();
    rx_tx_progress();
}

/* Once per process: both pairs, the library the ried ships carry. */
static void rx_setup(void)
{
    static int done;
    char path[4096];
    tc_jam_t jam;

    if (done) {
        return;
    }
    done = 1;
    tc_log_set_handler(rx_log, NULL);
    rx_pair_setup(&rx_pairs[0], TC_FRAMES_VARIABLE);
    rx_pair_setup(&rx_pairs[1], TC_FRAMES_FIXED);
    rx_unbounded[0] = rx_unbounded[1] = UINT16_MAX;
    if (tc_pkg_jam(rx_cur->side[1].pkg, "pointer_chase", &jam) == TC_OK) {
        rx_unbounded[0] = jam.element;
    }
    if (tc_pkg_jam(rx_cur->side[1].pkg, "stamp", &jam) == TC_OK) {
        rx_unbounded[1] = jam.element;
    }
    if ((tc_pkg_default_path(path, sizeof(path)) != TC_OK) ||
        (strlen(path) + sizeof("libried_bench.so") > sizeof(path))) {
        rx_die("no bench package path");
    }
    strcpy(strrchr(path, '/') + 1, "libried_bench.so");
    rx_ried_lib = tc_read_file(path, &rx_ried_len);
    if (rx_ried_lib == NULL) {
        rx_die("cannot read %s", path);
    }
}

/* The replay test closes the pairs (libFuzzer keeps them for the process). */
static __attribute__((unused)) void rx_teardown(void)
{
    unsigned p, i;

    for (p = 0; p < 2; ++p) {
        for (i = 0; i < 2; ++i) {
            tc_peer_close(rx_pairs[p].side[i].peer);
        }
        for (i = 0; i < 2; ++i) {
            tc_context_destroy(rx_pairs[p].side[i].ctx);
            tc_pkg_close(rx_pairs[p].side[i].pkg);
            tc_boot_close(rx_pairs[p].side[i].boot);
        }
    }
    memset(rx_pairs, 0, sizeof(rx_pairs));
    rx_cur = NULL;
    free(rx_ried_lib);
    rx_ried_lib = NULL;
    tc_log_set_handler(NULL, NULL);
}

/* ---------------------------------------------------- before and after */

/* The input's stage: the pair, the receiver's policy, the frame sizes. */
static void rx_begin(uint32_t setup)
{
    tc_peer_t *rx, *tx;
    int any = (setup & RX_SETUP_ANY) != 0;
    unsigned k;

    rx_cur = &rx_pairs[(setup & RX_SETUP_FIXED) ? 1 : 0];
    rx     = RX_RX;
    tx     = RX_TX;
    if (any != rx_cur->any) {
        /* a receiver's policy is fixed for its life: drop what the other
         * policy linked, as a new receiver would not have it */
        rx_cur->any = any;
        tc_peer_forget_code(rx);
        rx->code.transit_inj = NULL;
    }
    rx->ctx->params.exec = any ? TC_EXEC_ANY : TC_EXEC_ALLOWLIST;
    if (rx->frames != TC_FRAMES_FIXED) {
        return;
    }
    rx_set_size(0, rx_frame_sizes[(setup >> 2) & 7]);
    rx_set_size(1, rx_frame_sizes[(setup >> 5) & 7]);
    /* both configs taken before the program starts */
    for (k = 0; (k < 100) && ((rx->rx_seq != tx->tx_seq) || (tx->rx_seq != rx->tx_seq)); ++k) {
        (void)rx_steps(UINT32_MAX);
        rx_tx_progress();
    }
}

/* A hostile config may have told the receiver a frame size the sender does
 * not use (fixed frames): it then rejects the sender's frames, as it
 * should. A peer that wants to be heard again says its size in a frame of
 * the size the receiver expects. */
static void rx_resync_size(void)
{
    tc_peer_t *rx = RX_RX, *tx = RX_TX;
    tc_frame_layout_t lay = {0, 0, 0, 0};
    static uint8_t frame[4096];
    tc_frame_offsets_t off;

    if ((rx->frames != TC_FRAMES_FIXED) || (rx->rx_frame_size == tx->tx_frame_size)) {
        return;
    }
    (void)tc_frame_layout(&lay, UINT32_MAX, &off);
    off.frame_size = rx->rx_frame_size;
    memset(frame, 0, off.frame_size);
    tc_frame_write_hdr(frame, &off, &lay, TC_KIND_CONFIG, 0, tx->tx_frame_size,
                       TC_CONFIG_F_FRAME_SIZE, tx->tx_seq);
    tc_frame_seal(frame);
    rx_make_room();
    (void)tc_peer_send_raw_frame(tx, frame, off.frame_size);
    (void)rx_steps(UINT32_MAX);
}

/* After the program the receiver still serves: a genuine call gets its
 * reply. */
static void rx_serve_genuine(void)
{
    tc_peer_t *rx = RX_RX, *tx = RX_TX;
    uint8_t payload[8] = {0};
    tc_status_t status;
    uint32_t seq;
    unsigned k;

    rx_resync_size();
    rx_make_room();
    seq = tx->tx_seq;
    tx->stats.last_ret_seq = seq - 1;
    status = tc_jam_send(tx, &rx_cur->jam[RX_JAM_NOOP], payload, 0,
                         TC_SEND_PARAMS(TC_MODE_LOCAL, TC_SEND_WANT_REPLY));
    if (status != TC_OK) {
        rx_die("the sender cannot send a genuine call after the program (%s)",
               tc_status_str(status));
    }
    for (k = 0; (k < 1000) && (tx->stats.last_ret_seq != seq); ++k) {
        if (rx_steps(UINT32_MAX) == 0) {
            rx_unstick();
        }
        rx_flush();
        rx_tx_progress();
        ucp_worker_progress(rx->ctx->worker);
        ucp_worker_progress(tx->ctx->worker);
    }
    if (tx->stats.last_ret_seq != seq) {
        rx_die("a genuine call after the program gets no reply (receiver at seq %u of %u; "
               "last rejected: %s)", rx->rx_seq, seq + 1, rx->reject->last);
    }
}

/* What the program left that a new input must not find: a library in the
 * making, rieds this peer shipped, a forged credit word not read yet (a
 * new input is a new peer). */
static void rx_end(void)
{
    tc_peer_t *rx = RX_RX;

    __atomic_store_n(&rx->ctrl->consumed, (uint64_t)RX_TX->rx_seq, __ATOMIC_RELEASE);
    free(rx->ried->rx.buf);
    rx->ried->rx.buf      = NULL;
    rx->ried->rx.received = 0;
    tc_ried_release(rx->ctx, rx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rx_in_t in = {data, size};
    tc_peer_t *rx, *tx;
    unsigned steps = 0;

    rx_setup();
    rx_begin(rx_take(&in, 1));
    rx = RX_RX;
    tx = RX_TX;
    while ((in.n > 0) && (steps++ < RX_MAX_STEPS)) {
        switch (rx_take(&in, 1) % RX_OP_N) {
        case RX_OP_LOCAL: rx_genuine(&in, TC_MODE_LOCAL); break;
        case RX_OP_INJECTED: rx_genuine(&in, TC_MODE_INJECTED); break;
        case RX_OP_CACHED: rx_genuine(&in, TC_MODE_CACHED); break;
        case RX_OP_RAW:
        case RX_OP_RAW2: rx_raw_frame(&in); break;
        case RX_OP_REWRITE: rx_rewrite(&in); break;
        case RX_OP_RX_STEPS: (void)rx_steps(1 + rx_take(&in, 1) % 4); break;
        case RX_OP_TX_PROGRESS: rx_tx_progress(); break;
        case RX_OP_CONFIG: rx_config(&in); break;
        case RX_OP_NACK: rx_nack(&in); break;
        case RX_OP_GOODBYE: rx_send_kind(TC_KIND_GOODBYE, 0, 0, NULL, 0, NULL, 0); break;
        case RX_OP_RIED: rx_ried_frame(&in); break;
        case RX_OP_RIED_SHIP: rx_ried_ship(&in); break;
        case RX_OP_RIED_ANSWER: rx_ried_answer(&in); break;
        case RX_OP_SYNC: rx_sync(&in); break;
        default: rx_credits(&in); break;
        }
        rx_check_sender();
        rx_check_credits();
    }
    /* the receiver takes what is left; the next input starts from a quiet
     * ring */
    for (steps = 0; (rx->rx_seq != tx->tx_seq) && (steps < 100); ++steps) {
        if (rx_steps(UINT32_MAX) == 0) {
            rx_unstick();
        }
    }
    if (rx->rx_seq != tx->tx_seq) {
        rx_die("the receiver does not take what landed (hang)");
    }
    rx_flush();
    rx_tx_progress();
    (void)rx_steps(UINT32_MAX);
    rx_serve_genuine();
    rx_end();
    if ((rx->failed != TC_OK) || (tx->failed != TC_OK)) {
        rx_die("a peer failed (receiver: %s, sender: %s)", tc_status_str(rx->failed),
               tc_status_str(tx->failed));
    }
    return 0;
}
