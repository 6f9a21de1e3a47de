#!/usr/bin/env bash
# A failed test's cause reaches the CI output (issue 43 item 9, issue 45
# item 6): tests/log_cause.sh picks the first sanitizer report's ERROR: line
# and the stack under it (not the shadow legend that ends the log), UBSan's
# runtime error, cmocka's first failing assertion; run-tests.sh prints it
# for a failed test, before the log's tail. Fed the saved logs of
# tests/data/logs/ (hand-made in the sanitizers' and cmocka's formats).
. "$(dirname "$0")/lib.sh"
SRC=${TC_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
cause="$SRC/tests/log_cause.sh" data="$SRC/tests/data/logs"

bash "$cause" "$data/asan-thread.log" >"$TMP/asan"
head -1 "$TMP/asan" | grep -q '==4242==ERROR: AddressSanitizer: stack-use-after-return' ||
    fail "ASan: the first line is not the ERROR line: $(head -1 "$TMP/asan")"
grep -q 'READ of size 8 at .* thread T3' "$TMP/asan" || fail "ASan: the access line is missing"
grep -q '#0 .* in serve_loop tests/loop_pair.h:310' "$TMP/asan" || fail "ASan: the stack is missing"
grep -q '#1 .* in serve_start tests/loop_pair.h:337' "$TMP/asan" ||
    fail "ASan: the thread's creation stack is missing"
tail -1 "$TMP/asan" | grep -q '^SUMMARY: AddressSanitizer' || fail "ASan: does not end at SUMMARY"
grep -q 'Shadow byte legend' "$TMP/asan" && fail "ASan: the shadow legend was printed"
[ "$(bash "$cause" "$data/asan-thread.log" 5 | wc -l)" = 5 ] || fail "ASan: MAX lines not kept"

bash "$cause" "$data/ubsan.log" >"$TMP/ub"
head -1 "$TMP/ub" | grep -q 'frame.c:212:17: runtime error: shift exponent 64' ||
    fail "UBSan: the runtime error line is not first"
grep -q '#1 .* in test_frame_len' "$TMP/ub" || fail "UBSan: the stack is missing"

bash "$cause" "$data/cmocka.log" >"$TMP/cm"
[ "$(cat "$TMP/cm")" = "[ RUN      ] test_refused
[  ERROR   ] --- 0 != 0xfffffff2
[   LINE   ] --- tests/test_wire_forge.c:301: error: Failure!" ] ||
    fail "cmocka: not the first failure and its test: $(cat "$TMP/cm")"
[ -z "$(bash "$cause" /dev/null)" ] || fail "a log without an error printed something"

# run-tests.sh itself: a failing program (a stand-in named like a real test)
# whose log is the ASan one; the cause comes before the tail
mkdir -p "$TMP/build/tests"
printf '#!/bin/sh\ncat "%s"\nexit 1\n' "$data/asan-thread.log" >"$TMP/build/tests/test_hist"
chmod +x "$TMP/build/tests/test_hist"
rel=$(realpath --relative-to="$SRC" "$TMP/build")
BUILD=$rel TC_TESTS=test_hist bash "$SRC/tests/run-tests.sh" >"$TMP/out" 2>&1 &&
    fail "run-tests.sh passed a failing test"
grep -q '^failed: test_hist' "$TMP/out" || fail "no failed: line: $(cat "$TMP/out")"
err=$(grep -n '==4242==ERROR: AddressSanitizer' "$TMP/out" | cut -d: -f1)
legend=$(grep -n 'Right alloca redzone' "$TMP/out" | cut -d: -f1)
[ -n "$err" ] || fail "run-tests.sh did not print the ERROR line: $(cat "$TMP/out")"
grep -q 'serve_start tests/loop_pair.h:337' "$TMP/out" || fail "run-tests.sh: no stack"
[ -n "$legend" ] && [ "$err" -lt "$legend" ] || fail "run-tests.sh: the tail is not after the cause"
echo "ok: ASan, UBSan and cmocka causes printed before the tail"
