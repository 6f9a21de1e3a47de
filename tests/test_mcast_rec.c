/*
 * Tests of the ack tree's record table (lib/codec/mcast_rec.c), with a clock the
 * test moves by hand:
 *   - add, find and free by (origin, id); equal ids of other origins and
 *     duplicates kept apart; origins at or past the group size refused;
 *   - each origin's relay records counted as they come and go (what a
 *     relay holds one origin to a share by);
 *   - never more than max records: the next add is refused until one goes;
 *   - the age list hands out relay records oldest first and skips origin
 *     records, also after frees from its middle;
 *   - 40,000 records that never complete, each added, found and timed out
 *     as a rank does: the table never holds more than max, and nothing
 *     is left after the sweep;
 *   - lookups among many records of many origins find exactly theirs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>

#include "mcast_rec.h"

static int test_quick(void)
{
    const char *q = getenv("TC_TEST_QUICK");

    return (q != NULL) && (*q != '\0') && (*q != '0');
}

static void test_rec_basics(void **state)
{
    tc_mcast_recs_t *recs;
    tc_mcast_rec_t *a, *b, *c, *x;

    (void)state;
    assert_int_equal(tc_mcast_recs_create(0, 4, &recs), TC_ERR_INVALID_PARAM);
    assert_int_equal(tc_mcast_recs_create(3, 0, &recs), TC_ERR_INVALID_PARAM);
    assert_int_equal(tc_mcast_recs_create(3, 4, &recs), TC_OK);
    assert_null(tc_mcast_recs_find(recs, 0, 1));
    assert_null(tc_mcast_recs_oldest(recs));
    assert_int_equal(tc_mcast_recs_add(recs, 0, 1, 1, 0, 10, &a), TC_OK);
    assert_int_equal(tc_mcast_recs_add(recs, 1, 1, 0, 1, 20, &b), TC_OK);
    assert_int_equal(tc_mcast_recs_add(recs, 0, 1, 0, 0, 30, &x), TC_ERR_INVALID_PARAM);
    assert_int_equal(tc_mcast_recs_add(recs, 4, 9, 0, 4, 30, &x), TC_ERR_INVALID_PARAM);
    assert_int_equal(tc_mcast_recs_add(recs, 2, 7, 0, 2, 30, &c), TC_OK);
    assert_true((a != b) && (b != c));
    /* relay records per origin; origin records are not counted */
    assert_int_equal(tc_mcast_recs_relays_from(recs, 0), 0);
    assert_int_equal(tc_mcast_recs_relays_from(recs, 1), 1);
    assert_int_equal(tc_mcast_recs_relays_from(recs, 2), 1);
    assert_int_equal(tc_mcast_recs_relays_from(recs, 4), 0);
    assert_true((a->agg.origin == 0) && (a->agg.id == 1) && a->is_origin);
    assert_true((b->agg.origin == 1) && (b->agg.id == 1) && !b->is_origin && (b->born_ns == 20));
    assert_ptr_equal(tc_mcast_recs_find(recs, 0, 1), a);
    assert_ptr_equal(tc_mcast_recs_find(recs, 1, 1), b);
    assert_ptr_equal(tc_mcast_recs_find(recs, 2, 7), c);
    assert_null(tc_mcast_recs_find(recs, 2, 1));
    assert_int_equal(tc_mcast_recs_count(recs), 3);

    /* full: refused until one goes, then a lower maximum stops new ones */
    assert_int_equal(tc_mcast_recs_add(recs, 3, 3, 0, 3, 40, &x), TC_ERR_NO_RESOURCE);
    assert_null(tc_mcast_recs_find(recs, 3, 3));
    /* the oldest relay record, not the older origin one */
    assert_ptr_equal(tc_mcast_recs_oldest(recs), b);
    b->children = malloc(4 * sizeof(*b->children)); /* freed with it */
    assert_non_null(b->children);
    tc_mcast_recs_free(recs, b);
    assert_null(tc_mcast_recs_find(recs, 1, 1));
    assert_int_equal(tc_mcast_recs_relays_from(recs, 1), 0);
    assert_ptr_equal(tc_mcast_recs_oldest(recs), c);
    assert_int_equal(tc_mcast_recs_set_max(recs, 2), TC_OK);
    assert_int_equal(tc_mcast_recs_add(recs, 3, 3, 0, 3, 40, &x), TC_ERR_NO_RESOURCE);
    assert_int_equal(tc_mcast_recs_set_max(recs, 0), TC_ERR_INVALID_PARAM);
    assert_int_equal(tc_mcast_recs_max(recs), 2);
    tc_mcast_recs_free(recs, c);
    assert_null(tc_mcast_recs_oldest(recs));
    assert_int_equal(tc_mcast_recs_add(recs, 3, 3, 0, 3, 40, &x), TC_OK);
    assert_ptr_equal(tc_mcast_recs_oldest(recs), x);
    assert_int_equal(tc_mcast_recs_count(recs), 2);
    tc_mcast_recs_destroy(recs); /* frees a and x */
    tc_mcast_recs_destroy(NULL);
}

/* Frees from the middle, the front and the back keep the age order. */
static void test_rec_age_order(void **state)
{
    enum { N = 100 };
    tc_mcast_recs_t *recs;
    tc_mcast_rec_t *r[N], *o;
    uint64_t last;
    int i, seen;

    (void)state;
    assert_int_equal(tc_mcast_recs_create(2 * N, 7, &recs), TC_OK);
    for (i = 0; i < N; ++i) {
        assert_int_equal(tc_mcast_recs_add(recs, (uint32_t)i % 7, (uint64_t)i + 1, (i % 10) == 0,
                                           (uint32_t)i % 7, (uint64_t)i, &r[i]), TC_OK);
    }
    for (i = 0; i < N; i += 3) {
        tc_mcast_recs_free(recs, r[i]);
        r[i] = NULL;
    }
    tc_mcast_recs_free(recs, r[N - 2]); /* the newest left (N - 1 went above) */
    r[N - 2] = NULL;
    last = 0;
    seen = 0;
    while ((o = tc_mcast_recs_oldest(recs)) != NULL) {
        assert_false(o->is_origin);
        assert_true(o->born_ns >= last);
        last = o->born_ns;
        assert_ptr_equal(r[o->born_ns], o);
        r[o->born_ns] = NULL;
        tc_mcast_recs_free(recs, o);
        ++seen;
    }
    /* what is left: the origin records the frees above did not take */
    for (i = 0; i < N; ++i) {
        if (r[i] != NULL) {
            assert_true(r[i]->is_origin);
            assert_ptr_equal(tc_mcast_recs_find(recs, (uint32_t)i % 7, (uint64_t)i + 1), r[i]);
        }
    }
    assert_true(seen > 0);
    tc_mcast_recs_destroy(recs);
}

/* What 40,000 envelopes whose acks never come do to a relay: each adds a
 * record, the sweep frees those past the timeout (the clock moves one step
 * per envelope) and at the maximum the oldest goes to make room. The table
 * stays bounded and every record is accounted for. */
static void test_rec_flood_bounded(void **state)
{
    const uint32_t max = 1024, timeout = 3000; /* steps */
    uint64_t n = test_quick() ? 4000 : 40000, now, i, expired = 0, evicted = 0, peak = 0;
    tc_mcast_recs_t *recs;
    tc_mcast_rec_t *rec;
    tc_status_t status;

    (void)state;
    assert_int_equal(tc_mcast_recs_create(max, 1, &recs), TC_OK);
    for (i = 0, now = 0; i < n; ++i, ++now) {
        while (((rec = tc_mcast_recs_oldest(recs)) != NULL) && (now - rec->born_ns > timeout)) {
            tc_mcast_recs_free(recs, rec);
            ++expired;
        }
        assert_null(tc_mcast_recs_find(recs, 0, i + 1));
        status = tc_mcast_recs_add(recs, 0, i + 1, 0, 0, now, &rec);
        if (status == TC_ERR_NO_RESOURCE) {
            tc_mcast_recs_free(recs, tc_mcast_recs_oldest(recs));
            ++evicted;
            status = tc_mcast_recs_add(recs, 0, i + 1, 0, 0, now, &rec);
        }
        assert_int_equal(status, TC_OK);
        assert_ptr_equal(tc_mcast_recs_find(recs, 0, i + 1), rec);
        peak = (tc_mcast_recs_count(recs) > peak) ? tc_mcast_recs_count(recs) : peak;
    }
    assert_true(peak <= max);
    assert_true(evicted > 0); /* the maximum was reached: 3000 steps > 1024 */
    now += timeout + 1;
    while (((rec = tc_mcast_recs_oldest(recs)) != NULL) && (now - rec->born_ns > timeout)) {
        tc_mcast_recs_free(recs, rec);
        ++expired;
    }
    assert_int_equal(tc_mcast_recs_count(recs), 0);
    assert_true(expired + evicted == n);
    tc_mcast_recs_destroy(recs);
}

/* Many origins with overlapping ids: every lookup finds its own record,
 * and keys never added are not found. */
static void test_rec_many_keys(void **state)
{
    const uint32_t origins = 50, ids = test_quick() ? 40 : 400;
    tc_mcast_recs_t *recs;
    tc_mcast_rec_t *rec;
    uint32_t o, i;

    (void)state;
    assert_int_equal(tc_mcast_recs_create(origins * ids, origins, &recs), TC_OK);
    for (i = 1; i <= ids; ++i) {
        for (o = 0; o < origins; ++o) {
            assert_int_equal(tc_mcast_recs_add(recs, o, i, o == 0, o, 0, &rec), TC_OK);
            rec->parent = o * 100000 + i;
        }
    }
    assert_int_equal(tc_mcast_recs_count(recs), origins * ids);
    assert_int_equal(tc_mcast_recs_relays_from(recs, 0), 0); /* origin records */
    assert_int_equal(tc_mcast_recs_relays_from(recs, 1), ids);
    for (o = 0; o < origins; ++o) {
        for (i = 1; i <= ids; ++i) {
            rec = tc_mcast_recs_find(recs, o, i);
            assert_non_null(rec);
            assert_int_equal(rec->parent, o * 100000 + i);
        }
        assert_null(tc_mcast_recs_find(recs, o, ids + 1));
        assert_null(tc_mcast_recs_find(recs, o, 0));
    }
    assert_null(tc_mcast_recs_find(recs, origins, 1));
    for (o = 0; o < origins; o += 2) {
        for (i = 1; i <= ids; ++i) {
            tc_mcast_recs_free(recs, tc_mcast_recs_find(recs, o, i));
        }
    }
    for (o = 0; o < origins; ++o) {
        assert_true((tc_mcast_recs_find(recs, o, ids) == NULL) == ((o % 2) == 0));
        assert_int_equal(tc_mcast_recs_relays_from(recs, o), ((o % 2) == 0) ? 0 : ids);
    }
    tc_mcast_recs_destroy(recs);
}

/* Relay records count under the rank they came from, whatever origin they
 * name: one rank naming origin 0 spends its own share, not origin 0's. */
static void test_rec_share_by_sender(void **state)
{
    tc_mcast_recs_t *recs;
    tc_mcast_rec_t *rec, *forged[3];
    uint64_t i;

    (void)state;
    assert_int_equal(tc_mcast_recs_create(16, 4, &recs), TC_OK);
    for (i = 0; i < 3; ++i) { /* rank 2 names origin 0 */
        assert_int_equal(tc_mcast_recs_add(recs, 0, i + 1, 0, 2, 0, &forged[i]), TC_OK);
    }
    assert_int_equal(tc_mcast_recs_add(recs, 0, 9, 0, 0, 0, &rec), TC_OK); /* origin 0's own */
    assert_int_equal(tc_mcast_recs_relays_from(recs, 2), 3);
    assert_int_equal(tc_mcast_recs_relays_from(recs, 0), 1);
    rec->parent = 3; /* the caller's to change: the share stays where it came from */
    tc_mcast_recs_free(recs, rec);
    assert_int_equal(tc_mcast_recs_relays_from(recs, 0), 0);
    assert_int_equal(tc_mcast_recs_relays_from(recs, 3), 0);
    for (i = 0; i < 3; ++i) {
        tc_mcast_recs_free(recs, forged[i]);
    }
    assert_int_equal(tc_mcast_recs_relays_from(recs, 2), 0);
    assert_int_equal(tc_mcast_recs_add(recs, 0, 1, 0, 4, 0, &rec), TC_ERR_INVALID_PARAM);
    tc_mcast_recs_destroy(recs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rec_basics),
        cmocka_unit_test(test_rec_age_order),
        cmocka_unit_test(test_rec_flood_bounded),
        cmocka_unit_test(test_rec_many_keys),
        cmocka_unit_test(test_rec_share_by_sender),
    };
    return cmocka_run_group_tests_name("mcast_rec", tests, NULL, NULL);
}
