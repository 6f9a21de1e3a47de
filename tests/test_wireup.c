/*
 * Wireup: tc_peer_connect over a loopback bootstrap. A real pair connects
 * and reports its transports; a connection blob this side must refuse
 * (short, another protocol version, malformed) fails the connect with the
 * reason, before any endpoint is made, and leaves the output untouched.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "twochains.h"
#include "runtime.h"
#include "frame.h"
#include "log.h"
#include "wire.h"

#include "loop_pair.h"
#include "log_keep.h"

static void test_connect_reports_transport(void **unused)
{
    tc_context_params_t params;
    const char *why = NULL;
    pair_t pair;

    (void)unused;
    pair_params(&params, 8);
    pair_open(&pair, &params);
    assert_non_null(tc_peer_transports(pair.s[0].peer));
    assert_true(strlen(tc_peer_transports(pair.s[0].peer)) > 0);
    (void)tc_peer_progress_needed(pair.s[0].peer, &why);
    assert_non_null(why);
    assert_int_equal(tc_peer_check_alive(pair.s[0].peer), TC_OK);
    pair_close(&pair);
}

/* One end of a loopback bootstrap runs tc_peer_connect in a thread; the
 * test plays the other end by hand (tc_boot_exchange), sending a crafted
 * connection blob. */
typedef struct connect_arg {
    tc_context_t *ctx;
    tc_boot_t    *boot;
    tc_peer_t    *peer;
    tc_status_t   status;
} connect_arg_t;

static void *connect_thread(void *arg)
{
    connect_arg_t *a = arg;

    a->status = tc_peer_connect(a->ctx, a->boot, NULL, &a->peer);
    return NULL;
}

enum { FAKE_SLOTS = 4, FAKE_SLOT_SIZE = 4096 };

/* A wire header that passes every check of tc_peer_connect: each case
 * breaks one thing (a blob passing them all would reach ucp_ep_create with
 * no worker address). */
static void fake_wire(tc_peer_wire_t *w)
{
    const uint64_t ring = (uint64_t)FAKE_SLOTS * FAKE_SLOT_SIZE;

    memset(w, 0, sizeof(*w));
    w->proto           = TC_PROTO_VERSION;
    w->rank            = 1;
    w->wait            = TC_WAIT_POLL;
    w->slots           = FAKE_SLOTS;
    w->slot_size       = FAKE_SLOT_SIZE;
    w->mbox_base       = 0x10000000;
    w->ring_off        = 64;
    w->raw_off         = 64 + ring;
    w->mbox_len        = 64 + 2 * ring;
    w->worker_addr_len = 0;
    w->rkey_len        = 0;
    w->frame_size      = 64;
}

/* The fake end's last step of connect: it says it goes on and must hear
 * that the real side refused it, with the reason. */
static void fake_verdict(tc_boot_t *fake)
{
    char why[TC_WIRE_WHY_MAX];
    tc_wire_verdict_t mine;
    tc_status_t theirs;
    void *got = NULL;
    size_t got_len = 0;

    tc_wire_verdict_init(&mine, TC_OK, NULL);
    assert_int_equal(tc_boot_exchange(fake, &mine, sizeof(mine), &got, &got_len), TC_OK);
    assert_int_equal(tc_wire_verdict_read(got, got_len, &theirs, why), TC_OK);
    free(got);
    assert_true(theirs < TC_OK);
    assert_true(strlen(why) > 0);
    print_message("  refused: %s\n", why);
}

/* ctx connects over a fresh loopback pair to a fake peer that sends
 * blob/len; returns what tc_peer_connect returned, which must not have
 * touched its output. What the real side sent is checked on the way. */
static tc_status_t connect_to_fake(tc_context_t *ctx, const void *blob, size_t len)
{
    tc_peer_t *const untouched = (tc_peer_t *)&untouched;
    const tc_peer_wire_t *real;
    connect_arg_t arg;
    tc_boot_t *fake;
    pthread_t thread;
    void *got = NULL;
    size_t got_len = 0;

    memset(&arg, 0, sizeof(arg));
    arg.ctx  = ctx;
    arg.peer = untouched;
    assert_int_equal(tc_boot_loopback_pair(5000, &arg.boot, &fake), TC_OK);
    assert_int_equal(pthread_create(&thread, NULL, connect_thread, &arg), 0);
    assert_int_equal(tc_boot_exchange(fake, blob, len, &got, &got_len), TC_OK);
    fake_verdict(fake);
    pthread_join(thread, NULL);

    /* the real side's blob: the wire header, its worker address, its rkey */
    assert_true(got_len >= sizeof(*real));
    real = got;
    assert_int_equal(real->proto, TC_PROTO_VERSION);
    assert_int_equal(real->slots, 8);
    assert_int_equal(real->slot_size, 4096);
    assert_int_equal(real->rank, 0);
    assert_true(real->worker_addr_len > 0);
    assert_true(real->rkey_len > 0);
    assert_int_equal(got_len, sizeof(*real) + real->worker_addr_len + real->rkey_len);
    free(got);

    if (arg.status != TC_OK) {
        assert_ptr_equal(arg.peer, untouched); /* output set only on success */
    }
    tc_boot_close(fake);
    tc_boot_close(arg.boot);
    return arg.status;
}

static void wireup_ctx(tc_context_t **ctx_p)
{
    tc_context_params_t params;

    pair_params(&params, 8);
    assert_int_equal(tc_context_create(&params, ctx_p), TC_OK);
}

/* The same context connects to a real peer after the refusals. */
static void connect_real(tc_context_t *ctx)
{
    tc_context_params_t params;
    tc_context_t *other;
    tc_peer_t *peer;
    connect_arg_t arg;
    tc_boot_t *boot;
    pthread_t thread;

    pair_params(&params, 8);
    params.rank = 1;
    assert_int_equal(tc_context_create(&params, &other), TC_OK);
    memset(&arg, 0, sizeof(arg));
    arg.ctx = ctx;
    assert_int_equal(tc_boot_loopback_pair(5000, &arg.boot, &boot), TC_OK);
    assert_int_equal(pthread_create(&thread, NULL, connect_thread, &arg), 0);
    assert_int_equal(tc_peer_connect(other, boot, NULL, &peer), TC_OK);
    pthread_join(thread, NULL);
    assert_int_equal(arg.status, TC_OK);
    assert_int_equal(tc_peer_check_alive(arg.peer), TC_OK);
    assert_int_equal(tc_peer_check_alive(peer), TC_OK);
    tc_peer_close(peer);
    tc_peer_close(arg.peer);
    tc_context_destroy(other);
    tc_boot_close(boot);
    tc_boot_close(arg.boot);
}

/* Shorter than the wire header, down to nothing at all. */
static void test_connect_short_blob(void **unused)
{
    tc_peer_wire_t w;
    tc_context_t *ctx;

    (void)unused;
    wireup_ctx(&ctx);
    fake_wire(&w);
    assert_int_equal(connect_to_fake(ctx, &w, sizeof(w) - 1), TC_ERR_PROTOCOL);
    assert_int_equal(connect_to_fake(ctx, &w, 4), TC_ERR_PROTOCOL);
    assert_int_equal(connect_to_fake(ctx, NULL, 0), TC_ERR_PROTOCOL);
    connect_real(ctx);
    tc_context_destroy(ctx);
}

/* Another protocol version is refused as such, whatever follows it. */
static void test_connect_version_mismatch(void **unused)
{
    tc_peer_wire_t w;
    tc_context_t *ctx;

    (void)unused;
    wireup_ctx(&ctx);
    fake_wire(&w);
    w.proto = TC_PROTO_VERSION + 1;
    assert_int_equal(connect_to_fake(ctx, &w, sizeof(w)), TC_ERR_VERSION_MISMATCH);
    w.proto = 0;
    assert_int_equal(connect_to_fake(ctx, &w, sizeof(w)), TC_ERR_VERSION_MISMATCH);
    fake_wire(&w);
    w.proto  = TC_PROTO_VERSION + 1;
    w.slots  = 6; /* malformed too: the version is what it reports */
    assert_int_equal(connect_to_fake(ctx, &w, sizeof(w)), TC_ERR_VERSION_MISMATCH);
    connect_real(ctx);
    tc_context_destroy(ctx);
}

/* A peer of protocol 3 (before line frames, lib/codec/frame_line.h: it would
 * take a line for a general frame of a bad size) hears at connect which
 * protocol each side speaks. */
static void test_connect_old_peer(void **unused)
{
    char why[TC_WIRE_WHY_MAX] = "";
    tc_wire_local_t local;
    tc_peer_wire_t w, remote;
    tc_context_t *ctx;

    (void)unused;
    assert_int_equal(TC_PROTO_VERSION, 4);
    fake_wire(&w);
    w.proto = 3;
    memset(&local, 0, sizeof(local));
    assert_int_equal(tc_wire_check(&w, sizeof(w), &local, &remote, why),
                     TC_ERR_VERSION_MISMATCH);
    assert_string_equal(why, "speaks protocol 3, this side 4");
    wireup_ctx(&ctx);
    assert_int_equal(connect_to_fake(ctx, &w, sizeof(w)), TC_ERR_VERSION_MISMATCH);
    connect_real(ctx);
    tc_context_destroy(ctx);
}

/* A ring the peer describes must be a power of two of at least 2 slots,
 * each a multiple of TC_FRAME_ALIGN, inside the mailbox it describes; the
 * blob's length must be the header plus the lengths it announces. */
typedef void (*wire_tamper_fn)(tc_peer_wire_t *w);

static void slots_not_pow2(tc_peer_wire_t *w)    { w->slots = 6; }
static void slots_one(tc_peer_wire_t *w)         { w->slots = 1; }
static void slots_zero(tc_peer_wire_t *w)        { w->slots = 0; }
static void slot_size_zero(tc_peer_wire_t *w)    { w->slot_size = 0; }
static void slot_size_unaligned(tc_peer_wire_t *w) { w->slot_size = FAKE_SLOT_SIZE + 8; }
static void ring_past_mbox(tc_peer_wire_t *w)    { w->ring_off = w->mbox_len - 64; }
static void raw_past_mbox(tc_peer_wire_t *w)     { w->raw_off = w->mbox_len - 64; }
static void mbox_too_small(tc_peer_wire_t *w)    { w->mbox_len = 64; }
/* offsets whose sum with the ring's length wraps around 2^64 */
static void ring_off_wraps(tc_peer_wire_t *w)    { w->ring_off = UINT64_MAX - 63; }
static void raw_off_wraps(tc_peer_wire_t *w)     { w->raw_off = UINT64_MAX - 63; }
static void frame_size_zero(tc_peer_wire_t *w)   { w->frame_size = 0; }
static void frame_size_unaligned(tc_peer_wire_t *w) { w->frame_size = 100; }
static void frame_size_past_slot(tc_peer_wire_t *w) { w->frame_size = 1u << 30; }
static void wait_unknown(tc_peer_wire_t *w)      { w->wait = 99; }
static void addr_len_missing(tc_peer_wire_t *w)  { w->worker_addr_len = 100; }
static void rkey_len_missing(tc_peer_wire_t *w)  { w->rkey_len = 100; }
static void pkgs_too_many(tc_peer_wire_t *w)     { w->n_pkgs = TC_WIRE_PKGS_MAX + 1; }
static void pkgs_missing(tc_peer_wire_t *w)      { w->n_pkgs = 1; }
static void reserved_set(tc_peer_wire_t *w)      { w->reserved = 1; }

static void test_connect_malformed_blob(void **unused)
{
    static const struct {
        wire_tamper_fn fn;
        const char    *what;
    } cases[] = {
        {slots_not_pow2, "slots not a power of two"},
        {slots_one, "one slot"},
        {slots_zero, "no slots"},
        {slot_size_zero, "slot size 0"},
        {slot_size_unaligned, "slot size not a multiple of 64"},
        {ring_past_mbox, "ring past the mailbox"},
        {raw_past_mbox, "raw ring past the mailbox"},
        {mbox_too_small, "mailbox smaller than its rings"},
        {ring_off_wraps, "ring offset wrapping around"},
        {raw_off_wraps, "raw ring offset wrapping around"},
        {frame_size_zero, "frame size 0"},
        {frame_size_unaligned, "frame size not a multiple of 64"},
        {frame_size_past_slot, "frame size past our slots"},
        {wait_unknown, "unknown wait strategy"},
        {addr_len_missing, "worker address announced, not sent"},
        {rkey_len_missing, "rkey announced, not sent"},
        {pkgs_too_many, "more packages than a context holds"},
        {pkgs_missing, "a package announced, not sent"},
        {reserved_set, "the reserved word set"},
    };
    char longer[sizeof(tc_peer_wire_t) + 8];
    tc_peer_wire_t w;
    tc_context_t *ctx;
    unsigned i;

    (void)unused;
    wireup_ctx(&ctx);
    for (i = 0; i < TC_ARRAY_SIZE(cases); ++i) {
        print_message("malformed: %s\n", cases[i].what);
        fake_wire(&w);
        cases[i].fn(&w);
        assert_int_equal(connect_to_fake(ctx, &w, sizeof(w)), TC_ERR_PROTOCOL);
    }
    /* bytes beyond what the header announces */
    fake_wire(&w);
    memset(longer, 0, sizeof(longer));
    memcpy(longer, &w, sizeof(w));
    assert_int_equal(connect_to_fake(ctx, longer, sizeof(longer)), TC_ERR_PROTOCOL);
    /* package announcements: a name that forges a log line, one without its
     * end, the same package twice */
    {
        struct {
            tc_peer_wire_t w;
            tc_wire_pkg_t  pkg[2];
        } with_pkgs;
        unsigned k;

        for (k = 0; k < 3; ++k) {
            memset(&with_pkgs, 0, sizeof(with_pkgs));
            fake_wire(&with_pkgs.w);
            with_pkgs.w.n_pkgs = 2;
            with_pkgs.pkg[0].id = 1;
            with_pkgs.pkg[1].id = (k == 2) ? 1 : 2;
            strcpy(with_pkgs.pkg[0].name, (k == 0) ? "a\ntwochains: error: x" : "a");
            if (k == 1) {
                memset(with_pkgs.pkg[1].name, 'b', sizeof(with_pkgs.pkg[1].name));
            } else {
                strcpy(with_pkgs.pkg[1].name, "b");
            }
            assert_int_equal(connect_to_fake(ctx, &with_pkgs, sizeof(with_pkgs)),
                             TC_ERR_PROTOCOL);
        }
    }
    connect_real(ctx);
    tc_context_destroy(ctx);
}

/* Each side announces its packages at connect: a local call into a package
 * the peer did not load fails on the sender at once, naming both sides'
 * packages, and nothing is sent. */
static void test_connect_announces_packages(void **unused)
{
    tc_context_params_t params;
    tc_context_t *bare, *loaded;
    tc_peer_t *to_loaded = NULL;
    char path[4096];
    connect_arg_t arg;
    tc_boot_t *boot;
    pthread_t thread;
    tc_pkg_t *pkg;
    tc_jam_t jam;
    int64_t ret = 0;
    int32_t one = 1;

    (void)unused;
    pair_params(&params, 8);
    assert_int_equal(tc_context_create(&params, &bare), TC_OK);
    params.rank = 1;
    assert_int_equal(tc_context_create(&params, &loaded), TC_OK);
    assert_int_equal(tc_pkg_default_path(path, sizeof(path)), TC_OK);
    assert_int_equal(tc_pkg_open(path, &pkg), TC_OK);
    assert_int_equal(tc_context_add_pkg(loaded, pkg), TC_OK);

    memset(&arg, 0, sizeof(arg));
    arg.ctx = loaded;
    assert_int_equal(tc_boot_loopback_pair(5000, &arg.boot, &boot), TC_OK);
    assert_int_equal(pthread_create(&thread, NULL, connect_thread, &arg), 0);
    assert_int_equal(tc_peer_connect(bare, boot, NULL, &to_loaded), TC_OK);
    pthread_join(thread, NULL);
    assert_int_equal(arg.status, TC_OK);

    /* what each side heard */
    assert_int_equal(to_loaded->wireup->n_peer_pkgs, 1);
    assert_string_equal(to_loaded->wireup->peer_pkgs[0].name, "bench");
    assert_int_equal(to_loaded->wireup->peer_pkgs[0].id, tc_pkg_desc(pkg)->id);
    assert_int_equal(arg.peer->wireup->n_peer_pkgs, 0);

    /* the side with the package calls into it: refused here, nothing sent */
    assert_int_equal(tc_pkg_jam(pkg, "server_sum", &jam), TC_OK);
    assert_int_equal(tc_jam_call(arg.peer, &jam, &one, sizeof(one), NULL, &ret),
                     TC_ERR_NOT_FOUND);
    assert_int_equal(arg.peer->tx_seq, 0);
    assert_int_equal(tc_peer_check_alive(arg.peer), TC_OK);

    tc_peer_close(to_loaded);
    tc_peer_close(arg.peer);
    tc_boot_close(boot);
    tc_boot_close(arg.boot);
    tc_context_destroy(loaded);
    tc_context_destroy(bare);
    tc_pkg_close(pkg);
}

/* A group pairs each rank with the rank it must be (tc_peer_connect_rank):
 * a peer whose blob claims another rank - to pass as another origin - is
 * refused at connect, the reason naming both ranks on this side and in
 * the verdict the peer hears; one that claims its own connects. On the
 * tree before, the claim was taken as the peer's rank. */
static void test_connect_rank_claimed(void **unused)
{
    tc_context_params_t params;
    tc_context_t *ours, *theirs;
    tc_peer_t *peer = NULL;
    connect_arg_t arg;
    tc_boot_t *boot;
    pthread_t thread;

    (void)unused;
    pair_params(&params, 8);
    assert_int_equal(tc_context_create(&params, &ours), TC_OK);
    params.rank = 2; /* it claims 2; we paired it as 1 */
    assert_int_equal(tc_context_create(&params, &theirs), TC_OK);

    memset(&arg, 0, sizeof(arg));
    arg.ctx = theirs;
    assert_int_equal(tc_boot_loopback_pair(5000, &arg.boot, &boot), TC_OK);
    assert_int_equal(pthread_create(&thread, NULL, connect_thread, &arg), 0);
    log_keep_start();
    assert_int_equal(tc_peer_connect_rank(ours, boot, 1, &peer), TC_ERR_PROTOCOL);
    pthread_join(thread, NULL);
    log_keep_stop();
    assert_null(peer);
    print_message("%s", log_kept);
    assert_true(log_kept_has("claims rank 2; it was paired as rank 1"));
    assert_int_equal(arg.status, TC_ERR_REFUSED);
    assert_null(arg.peer);
    tc_boot_close(boot);
    tc_boot_close(arg.boot);

    /* the rank it claims is the one paired: connected */
    memset(&arg, 0, sizeof(arg));
    arg.ctx = theirs;
    assert_int_equal(tc_boot_loopback_pair(5000, &arg.boot, &boot), TC_OK);
    assert_int_equal(pthread_create(&thread, NULL, connect_thread, &arg), 0);
    assert_int_equal(tc_peer_connect_rank(ours, boot, 2, &peer), TC_OK);
    pthread_join(thread, NULL);
    assert_int_equal(arg.status, TC_OK);
    assert_int_equal(peer->peer_rank, 2);
    tc_peer_close(peer);
    tc_peer_close(arg.peer);
    tc_boot_close(boot);
    tc_boot_close(arg.boot);
    tc_context_destroy(theirs);
    tc_context_destroy(ours);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_connect_reports_transport),
        cmocka_unit_test(test_connect_short_blob),
        cmocka_unit_test(test_connect_version_mismatch),
        cmocka_unit_test(test_connect_old_peer),
        cmocka_unit_test(test_connect_malformed_blob),
        cmocka_unit_test(test_connect_announces_packages),
        cmocka_unit_test(test_connect_rank_claimed),
    };
    test_filter_from_env();
    return cmocka_run_group_tests_name("wireup", tests, NULL, NULL);
}
