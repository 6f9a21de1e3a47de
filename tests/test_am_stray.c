/*
 * Active messages this library never sends (issue 43 item 1): a raw UCX
 * endpoint sends one message of every id UCX can carry (0..65535: the id is
 * a uint16_t in UCX 1.13's header, and ucp_am_send_nbx truncates a larger
 * one) at a context with events off and with events on, over shared memory
 * (and every 251st id over TCP); a few ids also with a user header, with a payload past the
 * eager limit (rendezvous) and with the reply flag. Before every id had a
 * handler the first one segfaulted UCX's ucp_am_handler (events off), or
 * read past its handler array (ASan, events on). Here nothing crashes and
 * every message but the doorbell's id is counted as dropped.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "twochains.h"
#include "runtime.h"
#include "log.h"

#include "loop_pair.h"

#define BIG_LEN (1u << 20) /* past every eager limit: rendezvous */

typedef struct raw_sender {
    ucp_context_h ucp;
    ucp_worker_h  worker;
    ucp_ep_h      ep;
} raw_sender_t;

static void raw_open(raw_sender_t *s, tc_context_t *to)
{
    ucp_params_t params;
    ucp_worker_params_t wp;
    ucp_ep_params_t ep;
    ucp_address_t *addr;
    size_t addr_len;

    memset(s, 0, sizeof(*s));
    memset(&params, 0, sizeof(params));
    params.field_mask = UCP_PARAM_FIELD_FEATURES;
    params.features   = UCP_FEATURE_AM;
    assert_int_equal(ucp_init(&params, NULL, &s->ucp), UCS_OK);
    memset(&wp, 0, sizeof(wp));
    wp.field_mask  = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wp.thread_mode = UCS_THREAD_MODE_SINGLE;
    assert_int_equal(ucp_worker_create(s->ucp, &wp, &s->worker), UCS_OK);
    assert_int_equal(ucp_worker_get_address(to->worker, &addr, &addr_len), UCS_OK);
    memset(&ep, 0, sizeof(ep));
    ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
    ep.address    = addr;
    assert_int_equal(ucp_ep_create(s->worker, &ep, &s->ep), UCS_OK);
    ucp_worker_release_address(to->worker, addr);
}

static void progress_both(raw_sender_t *s, tc_context_t *to)
{
    ucp_worker_progress(s->worker);
    ucp_worker_progress(to->worker);
}

static void raw_close(raw_sender_t *s, tc_context_t *to)
{
    ucp_request_param_t param;
    void *req;

    memset(&param, 0, sizeof(param));
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    param.flags        = UCP_EP_CLOSE_FLAG_FORCE;
    req = ucp_ep_close_nbx(s->ep, &param);
    while (UCS_PTR_IS_PTR(req) && (ucp_request_check_status(req) == UCS_INPROGRESS)) {
        progress_both(s, to);
    }
    if (UCS_PTR_IS_PTR(req)) {
        ucp_request_free(req);
    }
    ucp_worker_destroy(s->worker);
    ucp_cleanup(s->ucp);
}

/* One message of id: sent, and both workers progressed until UCX is done
 * with it (a rendezvous completes when the receiver answers). */
static void send_one(raw_sender_t *s, tc_context_t *to, unsigned id, const void *hdr,
                     size_t hdr_len, const void *data, size_t len, uint32_t flags)
{
    ucp_request_param_t param;
    ucs_status_t status;
    void *req;

    memset(&param, 0, sizeof(param));
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    param.flags        = flags;
    req = ucp_am_send_nbx(s->ep, id, hdr, hdr_len, data, len, &param);
    assert_false(UCS_PTR_IS_ERR(req));
    if (UCS_PTR_IS_PTR(req)) {
        while ((status = ucp_request_check_status(req)) == UCS_INPROGRESS) {
            progress_both(s, to);
        }
        assert_int_equal(status, UCS_OK);
        ucp_request_free(req);
    }
}

/* Progress until the receiver counted want drops; a hang guard, not a
 * timing assumption: a minute is far past what the messages take. */
static void await_dropped(raw_sender_t *s, tc_context_t *to, uint64_t want)
{
    time_t end = time(NULL) + 60;

    while ((tc_context_am_dropped(to) < want) && (time(NULL) < end)) {
        progress_both(s, to);
    }
    assert_int_equal(tc_context_am_dropped(to), want);
}

/* ids 0, step, 2 step, ... and the last: step 1 is every id */
static void every_id(const char *tls, int events, unsigned step)
{
    static const unsigned big_ids[] = {0, 1, 30, 32, 255, 4096, 65535};
    tc_context_params_t params;
    tc_context_t *ctx;
    raw_sender_t s;
    uint64_t want = 0;
    char *big, hdr[16] = "stray header";
    unsigned id, i;

    setenv("UCX_TLS", tls, 1);
    pair_params(&params, 8);
    params.events = events;
    assert_int_equal(tc_context_create(&params, &ctx), TC_OK);
    raw_open(&s, ctx);
    for (id = 0; id < TC_AM_IDS; id += step) {
        send_one(&s, ctx, id, NULL, 0, NULL, 0, 0);
        want += (id != TC_AM_DOORBELL);
        if ((id % 256) == 255) {
            progress_both(&s, ctx);
        }
    }
    if (step > 1) { /* the doorbell's id and the last, whatever the step */
        send_one(&s, ctx, TC_AM_DOORBELL, NULL, 0, NULL, 0, 0);
        send_one(&s, ctx, TC_AM_IDS - 1, NULL, 0, NULL, 0, 0);
        ++want;
    }
    await_dropped(&s, ctx, want);

    /* a header, a payload for rendezvous, the reply flag: the other ways in */
    big = calloc(1, BIG_LEN);
    assert_non_null(big);
    for (i = 0; i < (unsigned)TC_ARRAY_SIZE(big_ids); ++i) {
        send_one(&s, ctx, big_ids[i], hdr, sizeof(hdr), "x", 1, UCP_AM_SEND_FLAG_REPLY);
        send_one(&s, ctx, big_ids[i], NULL, 0, big, BIG_LEN, 0);
        send_one(&s, ctx, big_ids[i], hdr, sizeof(hdr), big, BIG_LEN, UCP_AM_SEND_FLAG_RNDV);
        want += 3;
    }
    /* ucp_am_send_nbx takes an unsigned id and sends its low 16 bits */
    send_one(&s, ctx, 65536u + 7, NULL, 0, NULL, 0, 0);
    ++want;
    await_dropped(&s, ctx, want);
    print_message("%-6s events %s: %llu stray active messages dropped and counted\n", tls,
                  events ? "on " : "off", (unsigned long long)tc_context_am_dropped(ctx));
    free(big);
    raw_close(&s, ctx);
    tc_context_destroy(ctx);
    unsetenv("UCX_TLS");
}

static void test_every_id_events_off(void **unused)
{
    (void)unused;
    every_id("posix", 0, 1);
    every_id("tcp", 0, 251); /* the same handlers behind another transport */
}

static void test_every_id_events_on(void **unused)
{
    (void)unused;
    every_id("posix", 1, 1);
    every_id("tcp", 1, 251);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_id_events_off),
        cmocka_unit_test(test_every_id_events_on),
    };
    test_filter_from_env();
    return cmocka_run_group_tests_name("am_stray", tests, NULL, NULL);
}
