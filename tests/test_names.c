/*
 * The name tables of the public enums (lib/base/names.c): each value has one
 * non-empty name, names are distinct, tc_*_parse reads back what tc_*_str
 * wrote, an unknown name is refused without touching the output, and the
 * names are the ones the tools' command lines and reports have always used.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "twochains.h"
#include "names.h"

static const tc_names_t *const tables[] = {
    &tc_names_wait, &tc_names_mode, &tc_names_place, &tc_names_signal,
    &tc_names_frames, &tc_names_exec, &tc_names_progress, &tc_names_log_level,
    &tc_names_boot,
};

static void test_tables_complete(void **state)
{
    unsigned t, i, j, v;

    (void)state;
    for (t = 0; t < sizeof(tables) / sizeof(tables[0]); ++t) {
        const tc_names_t *n = tables[t];

        assert_non_null(n->what);
        assert_true(n->count > 0);
        for (i = 0; i < n->count; ++i) {
            assert_non_null(n->names[i]);
            assert_true(strlen(n->names[i]) > 0);
            assert_null(strchr(n->names[i], ',')); /* the tools take comma lists */
            assert_ptr_equal(tc_names_str(n, i), n->names[i]);
            assert_int_equal(tc_names_parse(n, n->names[i], &v), TC_OK);
            assert_int_equal(v, i);
            for (j = 0; j < i; ++j) {
                assert_string_not_equal(n->names[i], n->names[j]);
            }
        }
        assert_null(tc_names_str(n, n->count));
        v = 12345;
        assert_int_equal(tc_names_parse(n, "no-such-name", &v), TC_ERR_NOT_FOUND);
        assert_int_equal(tc_names_parse(n, "", &v), TC_ERR_NOT_FOUND);
        assert_int_equal(tc_names_parse(n, NULL, &v), TC_ERR_INVALID_PARAM);
        assert_int_equal(v, 12345);
    }
    assert_int_equal(tc_names_wait.count, TC_WAIT_ADAPTIVE + 1);
    assert_int_equal(tc_names_mode.count, TC_MODE_CACHED + 1);
    assert_int_equal(tc_names_place.count, TC_PLACE_DRAM + 1);
    assert_int_equal(tc_names_signal.count, TC_SIGNAL_AUTO + 1);
    assert_int_equal(tc_names_frames.count, TC_FRAMES_VARIABLE + 1);
    assert_int_equal(tc_names_exec.count, TC_EXEC_LOCAL_ONLY + 1);
    assert_int_equal(tc_names_progress.count, TC_PROGRESS_NEVER + 1);
    assert_int_equal(tc_names_log_level.count, TC_LOG_DEBUG + 1);
    assert_int_equal(tc_names_boot.count, TC_BOOT_LOOPBACK + 1);
}

/* The words of the command lines, CSV and JSON. */
static void test_public_names(void **state)
{
    (void)state;
    assert_string_equal(tc_wait_str(TC_WAIT_POLL), "poll");
    assert_string_equal(tc_wait_str(TC_WAIT_PAUSE), "pause");
    assert_string_equal(tc_wait_str(TC_WAIT_WFE), "wfe");
    assert_string_equal(tc_wait_str(TC_WAIT_UMWAIT), "umwait");
    assert_string_equal(tc_wait_str(TC_WAIT_MWAITX), "mwaitx");
    assert_string_equal(tc_wait_str(TC_WAIT_EVENT), "event");
    assert_string_equal(tc_wait_str(TC_WAIT_ADAPTIVE), "adaptive");
    assert_string_equal(tc_mode_str(TC_MODE_LOCAL), "local");
    assert_string_equal(tc_mode_str(TC_MODE_INJECTED), "injected");
    assert_string_equal(tc_mode_str(TC_MODE_CACHED), "cached");
    assert_string_equal(tc_place_str(TC_PLACE_DEFAULT), "default");
    assert_string_equal(tc_place_str(TC_PLACE_LLC), "llc");
    assert_string_equal(tc_place_str(TC_PLACE_DRAM), "dram");
    assert_string_equal(tc_signal_str(TC_SIGNAL_FENCED), "fenced");
    assert_string_equal(tc_signal_str(TC_SIGNAL_SINGLE_PUT), "single-put");
    assert_string_equal(tc_signal_str(TC_SIGNAL_ORDERED), "ordered");
    assert_string_equal(tc_signal_str(TC_SIGNAL_STORE), "store");
    assert_string_equal(tc_signal_str(TC_SIGNAL_AUTO), "auto");
    assert_string_equal(tc_frames_str(TC_FRAMES_FIXED), "fixed");
    assert_string_equal(tc_frames_str(TC_FRAMES_VARIABLE), "variable");
    assert_string_equal(tc_exec_str(TC_EXEC_ALLOWLIST), "allowlist");
    assert_string_equal(tc_exec_str(TC_EXEC_ANY), "any");
    assert_string_equal(tc_exec_str(TC_EXEC_LOCAL_ONLY), "local-only");
    assert_string_equal(tc_progress_str(TC_PROGRESS_AUTO), "auto");
    assert_string_equal(tc_progress_str(TC_PROGRESS_ALWAYS), "on");
    assert_string_equal(tc_progress_str(TC_PROGRESS_NEVER), "off");
    assert_string_equal(tc_log_level_str(TC_LOG_WARN), "warn");
    {
        tc_boot_kind_t kind = TC_BOOT_AUTO;

        assert_string_equal(tc_boot_kind_str(TC_BOOT_PMIX), "pmix");
        assert_int_equal(tc_boot_kind_parse("tcp", &kind), TC_OK);
        assert_int_equal(kind, TC_BOOT_TCP);
        assert_int_equal(tc_boot_kind_parse("mpi", &kind), TC_ERR_NOT_FOUND);
    }

    assert_string_equal(tc_wait_str((tc_wait_t)99), "unknown");
    assert_string_equal(tc_mode_str((tc_mode_t)-1), "unknown");
    assert_string_equal(tc_signal_str((tc_signal_mode_t)5), "unknown");
    assert_string_equal(tc_frames_str((tc_frame_mode_t)2), "unknown");
    assert_string_equal(tc_exec_str((tc_exec_policy_t)3), "unknown");
    assert_string_equal(tc_progress_str((tc_progress_mode_t)3), "unknown");
}

static void test_public_parsers(void **state)
{
    tc_wait_t wait = TC_WAIT_POLL;
    tc_mode_t mode = TC_MODE_LOCAL;
    tc_place_t place = TC_PLACE_DEFAULT;
    tc_signal_mode_t signal = TC_SIGNAL_FENCED;
    tc_frame_mode_t frames = TC_FRAMES_FIXED;
    tc_exec_policy_t exec = TC_EXEC_ALLOWLIST;
    tc_progress_mode_t progress = TC_PROGRESS_AUTO;
    tc_log_level_t level = TC_LOG_ERROR;

    (void)state;
    assert_int_equal(tc_wait_parse("umwait", &wait), TC_OK);
    assert_int_equal(wait, TC_WAIT_UMWAIT);
    assert_int_equal(tc_mode_parse("cached", &mode), TC_OK);
    assert_int_equal(mode, TC_MODE_CACHED);
    assert_int_equal(tc_place_parse("dram", &place), TC_OK);
    assert_int_equal(place, TC_PLACE_DRAM);
    assert_int_equal(tc_signal_parse("single-put", &signal), TC_OK);
    assert_int_equal(signal, TC_SIGNAL_SINGLE_PUT);
    assert_int_equal(tc_frames_parse("variable", &frames), TC_OK);
    assert_int_equal(frames, TC_FRAMES_VARIABLE);
    assert_int_equal(tc_exec_parse("local-only", &exec), TC_OK);
    assert_int_equal(exec, TC_EXEC_LOCAL_ONLY);
    assert_int_equal(tc_progress_parse("off", &progress), TC_OK);
    assert_int_equal(progress, TC_PROGRESS_NEVER);
    assert_int_equal(tc_log_level_parse("debug", &level), TC_OK);
    assert_int_equal(level, TC_LOG_DEBUG);

    /* refused: the output keeps its value; names are exact */
    assert_int_equal(tc_wait_parse("nap", &wait), TC_ERR_NOT_FOUND);
    assert_int_equal(wait, TC_WAIT_UMWAIT);
    assert_int_equal(tc_mode_parse("Cached", &mode), TC_ERR_NOT_FOUND);
    assert_int_equal(mode, TC_MODE_CACHED);
    assert_int_equal(tc_place_parse("l3", &place), TC_ERR_NOT_FOUND);
    assert_int_equal(place, TC_PLACE_DRAM);
    assert_int_equal(tc_signal_parse("fenced ", &signal), TC_ERR_NOT_FOUND);
    assert_int_equal(signal, TC_SIGNAL_SINGLE_PUT);
    assert_int_equal(tc_frames_parse(NULL, &frames), TC_ERR_INVALID_PARAM);
    assert_int_equal(frames, TC_FRAMES_VARIABLE);
    assert_int_equal(tc_exec_parse("all", &exec), TC_ERR_NOT_FOUND);
    assert_int_equal(exec, TC_EXEC_LOCAL_ONLY);
    assert_int_equal(tc_progress_parse("always", &progress), TC_ERR_NOT_FOUND);
    assert_int_equal(progress, TC_PROGRESS_NEVER);
    assert_int_equal(tc_log_level_parse("warning", &level), TC_ERR_NOT_FOUND);
    assert_int_equal(level, TC_LOG_DEBUG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables_complete),
        cmocka_unit_test(test_public_names),
        cmocka_unit_test(test_public_parsers),
    };

    return cmocka_run_group_tests_name("names", tests, NULL, NULL);
}
