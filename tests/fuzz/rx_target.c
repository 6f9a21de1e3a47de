/*
 * Fuzz target for the whole receive path (libFuzzer; also replayed by
 * tests/test_rx_corpus.c under gcc). A real loopback pair over UCX: the input
 * is a program of steps that the sending side and a hostile peer play against
 * the receiver: genuine local, injected and cached jams through the API, raw
 * frames of any kind and header put into the ring with real puts (sync
 * traffic, rieds and replies among them), rewrites of a frame that landed and
 * was not run yet, and receiver and sender steps in any order.
 *
 * Invariant, checked after every receiver step (abort otherwise): whatever
 * ran is the receiver's own accepted code with its own GOT: a Local Function
 * of its package, or an image the receiver linked for this peer whose GOT
 * words are the ones it resolved and, under the allow-list, whose code is
 * byte-identical to its blob (under policy any, the input's first byte
 * chooses it: the checked copy in the code area), never anything inside the
 * mailbox; and nothing crashes or hangs (a step loop that cannot make room
 * ends in abort).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "twochains.h"
#include "runtime.h"
#include "frame.h"
#include "harness/pkg_path.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct rx_side {
    tc_boot_t    *boot;
    tc_context_t *ctx;
    tc_peer_t    *peer;
    tc_pkg_t     *pkg;
    tc_status_t   status;
} rx_side_t;

/* Jams whose run is bounded whatever the payload (pointer_chase walks as
 * many hops as the sender asks; stamp reads the host clock table). */
static const char *const rx_jams[] = {"noop", "seq", "server_sum", "copy", "append",
                                      "indirect_put", "kv_get"};
#define RX_N_JAMS (sizeof(rx_jams) / sizeof(rx_jams[0]))

static rx_side_t rx_sides[2]; /* [0] receives, [1] sends */
static int       rx_any;      /* this input runs the receiver under policy any */
static tc_jam_t  rx_jam[RX_N_JAMS];
static uint16_t  rx_unbounded[2];

static void rx_die(const char *what)
{
    const tc_peer_t *rx = rx_sides[0].peer, *tx = rx_sides[1].peer;

    fprintf(stderr, "rx fuzz: invariant broken: %s\n", what);
    if ((rx != NULL) && (tx != NULL)) {
        fprintf(stderr, "rx fuzz: receiver at seq %u (reported %u, %llu run, %llu rejected: "
                "%s), sender at %u (%u consumed)\n", rx->rx_seq, rx->rx_reported,
                (unsigned long long)rx->stats.rx_frames,
                (unsigned long long)rx->stats.rx_rejected, rx->last_reject, tx->tx_seq,
                (uint32_t)tx->ctrl->consumed);
        {
            uint32_t idx = rx->rx_seq & (rx->rx_slots - 1);
            const tc_frame_hdr_t *h =
                (const tc_frame_hdr_t *)(rx->rx_ring + (size_t)idx * rx->rx_slot_size);
            fprintf(stderr, "rx fuzz: next slot %u: mag 0x%x seq %u size %u kind %u, "
                    "stale 0x%llx, sig 0x%llx\n", idx, h->mag, h->seq, h->frame_size, h->kind,
                    (unsigned long long)rx->rx_stale[idx],
                    (h->frame_size >= 64 && h->frame_size <= rx->rx_slot_size) ?
                        (unsigned long long)*tc_frame_sig_ptr((void *)h, h->frame_size) : 0ull);
        }
    }
    abort();
}

static void *rx_open(void *arg)
{
    rx_side_t *s = arg;
    tc_context_params_t params;
    char path[4096];

    tc_context_params_init(&params);
    params.slots      = 8;
    params.slot_size  = 4096;
    params.frames     = TC_FRAMES_VARIABLE;
    params.timeout_ms = 20000;
    params.rank       = (s == &rx_sides[0]) ? 0 : 1;
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
        s->status = tc_peer_connect(s->ctx, s->boot, NULL, &s->peer);
    }
    return NULL;
}

static volatile int rx_serving;

static void *rx_serve(void *arg)
{
    (void)arg;
    while (rx_serving) {
        (void)tc_peer_progress(rx_sides[0].peer, 0, NULL);
    }
    return NULL;
}

/* Once per process: connect, sync every jam injected and cached. */
static void rx_setup(void)
{
    static int done;
    pthread_t th;
    tc_jam_t jam;
    unsigned j;

    if (done) {
        return;
    }
    done = 1;
    if (tc_boot_loopback_pair(5000, &rx_sides[0].boot, &rx_sides[1].boot) != TC_OK) {
        rx_die("no loopback bootstrap");
    }
    pthread_create(&th, NULL, rx_open, &rx_sides[0]);
    rx_open(&rx_sides[1]);
    pthread_join(th, NULL);
    if ((rx_sides[0].status != TC_OK) || (rx_sides[1].status != TC_OK)) {
        rx_die("cannot set up the loopback pair (is TC_BUILD's bench package built?)");
    }
    rx_serving = 1;
    pthread_create(&th, NULL, rx_serve, NULL);
    for (j = 0; j < RX_N_JAMS; ++j) {
        if ((tc_pkg_jam(rx_sides[1].pkg, rx_jams[j], &rx_jam[j]) != TC_OK) ||
            (tc_jam_prepare(rx_sides[1].peer, &rx_jam[j], TC_MODE_INJECTED) != TC_OK) ||
            (tc_jam_prepare(rx_sides[1].peer, &rx_jam[j], TC_MODE_CACHED) != TC_OK)) {
            rx_die("cannot sync the bench jams");
        }
    }
    rx_serving = 0;
    pthread_join(th, NULL);
    rx_unbounded[0] = rx_unbounded[1] = UINT16_MAX;
    if (tc_pkg_jam(rx_sides[1].pkg, "pointer_chase", &jam) == TC_OK) {
        rx_unbounded[0] = jam.element;
    }
    if (tc_pkg_jam(rx_sides[1].pkg, "stamp", &jam) == TC_OK) {
        rx_unbounded[1] = jam.element;
    }
}

/* The replay test closes the pair (libFuzzer keeps it for the process). */
static __attribute__((unused)) void rx_teardown(void)
{
    int i;

    for (i = 0; i < 2; ++i) {
        tc_peer_close(rx_sides[i].peer);
    }
    for (i = 0; i < 2; ++i) {
        tc_context_destroy(rx_sides[i].ctx);
        tc_pkg_close(rx_sides[i].pkg);
        tc_boot_close(rx_sides[i].boot);
    }
    memset(rx_sides, 0, sizeof(rx_sides));
}

/* The invariant, after every receiver step (each step runs at most one
 * frame before it is checked where the step says max 1). */
static void rx_check_ran(void)
{
    tc_peer_t *rx               = rx_sides[0].peer;
    const tc_pkg_desc_t *desc   = tc_pkg_desc(rx_sides[0].pkg);
    uintptr_t fn                = (uintptr_t)(void *)rx->rx_last_run;
    static uint64_t checked;
    unsigned i;

    if (rx->stats.rx_frames == checked) {
        return; /* nothing ran since the last check */
    }
    checked = rx->stats.rx_frames;

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
    for (i = 0; i < rx->n_inj; ++i) {
        const tc_inj_t *inj          = &rx->inj[i];
        const tc_blob_file_hdr_t *bh = inj->blob->hdr;
        const uint8_t *image;

        if ((fn != (uintptr_t)(void *)inj->own_run) && (fn != (uintptr_t)(void *)inj->cache_run)) {
            continue;
        }
        image = (const uint8_t *)fn - bh->entry_offset;
        if ((image < rx->code.rx) || (image + bh->image_size > rx->code.rx + rx->code.len)) {
            rx_die("a linked image outside the receiver's code area ran");
        }
        if (!rx_any &&
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

/* Receiver steps of one frame each, every one checked; how many ran. */
static unsigned rx_steps(unsigned max)
{
    unsigned k, n = 0, one;

    for (k = 0; k < max; ++k) {
        (void)tc_peer_progress(rx_sides[0].peer, 1, &one);
        rx_check_ran();
        if (one == 0) {
            break;
        }
        n += one;
    }
    return n;
}

/* A hostile peer can leave its own ring stalled: a header made to look
 * like an earlier lap's, a SIG that never matches, MAG cleared. The
 * receiver rightly waits for such a slot (it is the peer's to fill); the
 * peer then puts a header the receiver can name as wrong, which it rejects
 * and consumes. Only a receiver that still makes no progress hangs. */
static void rx_unstick(void)
{
    tc_peer_t *rx = rx_sides[0].peer;
    char *slot = rx->rx_ring + (size_t)(rx->rx_seq & (rx->rx_slots - 1)) * rx->rx_slot_size;
    tc_frame_hdr_t *hdr = (tc_frame_hdr_t *)slot;

    if ((int32_t)(rx_sides[1].peer->tx_seq - rx->rx_seq) <= 0) {
        return; /* nothing of the peer's is pending */
    }
    /* a seq that is neither this lap's, an earlier lap's, nor what the
     * receiver left in the slot */
    hdr->seq = rx->rx_seq + 1;
    if (((1ull << 63) | hdr->seq) == rx->rx_stale[rx->rx_seq & (rx->rx_slots - 1)]) {
        hdr->seq = rx->rx_seq + 2;
    }
    hdr->frame_size = TC_FRAME_MIN_SIZE;
    __atomic_store_n(&hdr->mag, TC_FRAME_MAG, __ATOMIC_RELEASE);
}

/* Until the sender has a free slot: the receiver consumes, credits return. */
static void rx_make_room(void)
{
    tc_peer_t *rx = rx_sides[0].peer, *tx = rx_sides[1].peer;
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
        (void)rx_steps(UINT32_MAX);
        (void)tc_peer_flush(rx); /* the credits of what it consumed */
        (void)tc_peer_progress(tx, 0, NULL);
        ucp_worker_progress(rx->ctx->worker);
        ucp_worker_progress(tx->ctx->worker);
    }
    rx_die("no credits come back (hang)");
}

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

/* Policy any runs whatever code fits, by definition: under it the input
 * leaves code bytes alone (a crash there would be the jam's, not the
 * receiver's), and races the GOTP, the header and the payload. */
static int rx_in_code(const void *frame, uint32_t at)
{
    const tc_frame_hdr_t *h = frame;
    tc_frame_layout_t lay   = {h->args_len, h->got_count, h->code_len, 0};
    tc_frame_offsets_t off;

    if (!rx_any || (h->code_len == 0) || (tc_frame_layout(&lay, UINT32_MAX, &off) != TC_OK)) {
        return 0;
    }
    return (at >= off.code_off) && (at < off.code_off + h->code_len);
}

/* A frame of any kind, header fields from the input, sections optionally
 * the genuine code and GOTP of a jam, then a few bytes overwritten. */
static void rx_raw_frame(rx_in_t *in)
{
    tc_peer_t *tx = rx_sides[1].peer;
    static uint8_t frame[4096];
    uint32_t pick = rx_take(in, 1), flags = rx_take(in, 1), kind = rx_take(in, 1) % 13;
    const tc_jam_t *jam = &rx_jam[pick % RX_N_JAMS];
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
        if (!rx_in_code(frame, at) && !(rx_any && (at < TC_FRAME_HDR_SIZE))) {
            frame[at] ^= x;
        }
    }
    if (rx_any && (lay.code_len > 0) && !((pick & 0x80) && (blob != NULL))) {
        return; /* code of the input's own making */
    }
    /* jams whose run the sender bounds become noop: a walk of 2^32 hops is
     * a hang of the fuzzer, not of the receiver */
    if ((((tc_frame_hdr_t *)frame)->element == rx_unbounded[0]) ||
        (((tc_frame_hdr_t *)frame)->element == rx_unbounded[1])) {
        ((tc_frame_hdr_t *)frame)->element = rx_jam[0].element;
    }
    rx_make_room();
    (void)tc_peer_send_raw_frame(tx, frame, off.frame_size);
}

/* A peer's put into a frame that landed and was not run yet. (A put into a
 * slot it has not sent yet is a frame of its own, which raw frames cover; it
 * would only put the peer's count of its frames out of step with its own.) */
static void rx_rewrite(rx_in_t *in)
{
    tc_peer_t *rx = rx_sides[0].peer;
    char *slot    = rx->rx_ring + (size_t)(rx->rx_seq & (rx->rx_slots - 1)) * rx->rx_slot_size;
    uint32_t at   = rx_take(in, 2) % rx->rx_slot_size, len = 1 + rx_take(in, 1) % 16, k;

    if ((int32_t)(rx_sides[1].peer->tx_seq - rx->rx_seq) <= 0) {
        return;
    }
    for (k = 0; k < len && at + k < rx->rx_slot_size; ++k) {
        char b = (char)rx_take(in, 1);
        if (!rx_in_code(slot, at + k) && !((at + k < TC_FRAME_HDR_SIZE) && rx_any)) {
            slot[at + k] = b;
        }
    }
}

static void rx_genuine(rx_in_t *in, tc_mode_t mode)
{
    const tc_jam_t *jam = &rx_jam[rx_take(in, 1) % RX_N_JAMS];
    uint8_t payload[512];
    uint32_t len = rx_take(in, 2) % sizeof(payload), k;
    uint64_t counter;

    for (k = 0; k < len; ++k) {
        payload[k] = (uint8_t)rx_take(in, 1);
    }
    if (!tc_jam_is_prepared(rx_sides[1].peer, jam, mode)) {
        return; /* a forged sync answer made the sender forget: syncing needs both sides */
    }
    if (!strcmp(jam->elem->name, "seq")) {
        counter = rx_take(in, 4);
        memcpy(payload, &counter, sizeof(counter));
        len = sizeof(counter);
    }
    rx_make_room();
    if (!tc_jam_is_prepared(rx_sides[1].peer, jam, mode)) {
        return; /* told meanwhile that the receiver dropped the code */
    }
    (void)tc_jam_send(rx_sides[1].peer, jam, payload, len, TC_SEND_PARAMS(mode, 0));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rx_in_t in = {data, size};
    tc_peer_t *rx, *tx;
    unsigned steps = 0;

    rx_setup();
    rx = rx_sides[0].peer;
    tx = rx_sides[1].peer;
    /* the first byte's low bit: the receiver's policy for this input (any:
     * checked copies of whatever code fits run, a cached sync links a copy) */
    if ((int)(rx_take(&in, 1) & 1) != rx_any) {
        /* a receiver's policy is fixed for its life: drop what the other
         * policy linked, as a new receiver would not have it */
        rx_any = !rx_any;
        tc_peer_forget_code(rx);
        rx->code.transit_inj = NULL;
    }
    rx->ctx->params.exec = rx_any ? TC_EXEC_ANY : TC_EXEC_ALLOWLIST;
    while ((in.n > 0) && (steps++ < 64)) {
        switch (rx_take(&in, 1) % 8) {
        case 0: rx_genuine(&in, TC_MODE_LOCAL); break;
        case 1: rx_genuine(&in, TC_MODE_INJECTED); break;
        case 2: rx_genuine(&in, TC_MODE_CACHED); break;
        case 3:
        case 4: rx_raw_frame(&in); break;
        case 5: rx_rewrite(&in); break;
        case 6: (void)rx_steps(1 + rx_take(&in, 1) % 4); break;
        default: (void)tc_peer_progress(tx, 0, NULL); break;
        }
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
    (void)tc_peer_flush(rx);
    (void)tc_peer_progress(tx, 0, NULL);
    (void)rx_steps(UINT32_MAX);
    if ((rx->failed != TC_OK) || (tx->failed != TC_OK)) {
        rx_die("a peer failed");
    }
    return 0;
}
