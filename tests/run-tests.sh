#!/usr/bin/env bash
# Runs every test program in $BUILD/tests (cmocka), the unit tests of
# scripts/tcresults (tests/py/run.py: Python's unittest, printed as cmocka
# prints) and every tests/test_*.sh, and ends with the line "N passed, N
# failed, N skipped" counting test cases (cmocka's skip()s, the unit tests'
# skips and the scripts' exit 77 are the skipped ones, each listed with its
# reason).
# VALGRIND=1 runs the pure-module programs under valgrind memcheck instead.
# TC_TESTS="name ..." runs only those (cmocka program or script names;
# "cmocka" stands for every cmocka program, test_py for the unit tests of
# scripts/tcresults); TC_TEST_DIRS="dir ..." adds
# the test_*.sh of those folders (make check-aarch64 uses both).
set -u
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
export TC_BUILD="$top/$BUILD" TC_SRC="$top"
pass=0 fail=0 skip=0 failed_names=()
# Under sanitizers the volume tests run their short form: the sanitizer pass
# looks for memory and UB errors; the plain make check runs the full counts.
[ -n "${SAN:-}" ] && export TC_TEST_QUICK=1
# what libpmix leaks itself is not ours to report (tests/lsan.supp)
[ -n "${SAN:-}" ] && export LSAN_OPTIONS="suppressions=$here/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
selected() { # name [cmocka]: is it in TC_TESTS (or is TC_TESTS unset)?
    [ -z "${TC_TESTS:-}" ] && return 0
    [[ " $TC_TESTS " == *" $1 "* ]] && return 0
    [ -n "${2:-}" ] && [[ " $TC_TESTS " == *" cmocka "* ]]
}
logdir="$TC_BUILD/test-logs"
mkdir -p "$logdir"

# pure modules: no UCX, so valgrind sees only our code
pure="test_hist test_clock test_frame test_wait test_mcast test_blob test_manifest test_mcast_sim test_mcast_env test_mcast_rec test_mcast_corpus test_wire_corpus test_ucxblob_corpus"

count_cmocka() { # log -> "passed failed skipped" (cmocka's closing lines)
    local log=$1 p f s
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
    s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
    echo "${p:-0} ${f:-0} ${s:-0}"
}

skipped_cmocka() { # log -> "    skipped: NAME: the line the test printed before skip()"
    awk '/^\[ RUN      \]/ { prev = ""; next }
         /^\[  SKIPPED \] [0-9]+ test/ { exit }
         /^\[  SKIPPED \]/ { name = $0; sub(/^\[  SKIPPED \] /, "", name)
                              print "    skipped: " name (prev != "" ? ": " prev : ""); next }
         { prev = $0 }' "$1"
}

tally_cases() { # name rc: a program that printed cmocka's closing lines, counted
    local t=$1 rc=$2 p f s
    read -r p f s < <(count_cmocka "$logdir/$t.log")
    pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
    if [ "$rc" != 0 ] && [ "$f" = 0 ]; then fail=$((fail + 1)); fi
    [ "$rc" = 0 ] || failed_names+=("$t (rc=$rc)")
    printf '%-28s %3s passed %3s failed %3s skipped%s\n' "$t" "$p" "$f" "$s" \
        "$([ "$rc" = 0 ] || echo "  <- see $logdir/$t.log")"
    skipped_cmocka "$logdir/$t.log"
}

run_one() { # name cmd...
    local name=$1; shift
    local log="$logdir/$name.log" rc
    "$@" >"$log" 2>&1; rc=$?
    echo "$rc"
}

if [ "${VALGRIND:-}" = 1 ]; then
    command -v valgrind >/dev/null || { echo "valgrind missing: run make deps"; exit 1; }
    for t in $pure; do
        bin="$TC_BUILD/tests/$t"
        [ -x "$bin" ] || continue
        rc=$(run_one "$t.valgrind" env TC_TEST_QUICK=1 valgrind -q --error-exitcode=99 \
             --leak-check=full "$bin")
        read -r p f s < <(count_cmocka "$logdir/$t.valgrind.log")
        skip=$((skip + s))
        if [ "$rc" = 0 ]; then pass=$((pass + p)); else
            fail=$((fail + (f > 0 ? f : 1))); failed_names+=("$t (valgrind rc=$rc)"); fi
        printf '%-28s %s%s\n' "$t (valgrind)" "$([ "$rc" = 0 ] && echo ok || echo FAIL)" \
            "$([ "$s" = 0 ] || echo ", $s skipped")"
        skipped_cmocka "$logdir/$t.valgrind.log"
    done
else
    for bin in "$TC_BUILD"/tests/test_*; do
        [ -x "$bin" ] || continue
        t=$(basename "$bin")
        # a binary whose source is gone (a test split or renamed) is stale
        [ -f "$here/$t.c" ] || { echo "$t: no tests/$t.c, stale: not run"; continue; }
        selected "$t" cmocka || continue
        rc=$(run_one "$t" "$bin")
        tally_cases "$t" "$rc"
    done
    # the unit tests of scripts/tcresults, each test case counted
    if selected test_py; then
        if command -v python3 >/dev/null; then
            rc=$(run_one test_py env PYTHONDONTWRITEBYTECODE=1 python3 "$here/py/run.py")
            tally_cases test_py "$rc"
        else
            skip=$((skip + 1)); printf '%-28s skipped: python3 missing (scripts/deps.sh)\n' test_py
        fi
    fi
    extra=()
    for d in ${TC_TEST_DIRS:-}; do extra+=("$d"/test_*.sh); done
    for sh in "$here"/test_*.sh "${extra[@]}"; do
        [ -f "$sh" ] || continue
        t=$(basename "$sh" .sh)
        case "$sh" in "$here"/test_*) selected "$t" || continue ;; esac
        rc=$(run_one "$t" bash "$sh")
        case "$rc" in
            0) pass=$((pass + 1)); st=ok ;;
            77) skip=$((skip + 1)); st="skipped: $(tail -1 "$logdir/$t.log")" ;;
            *) fail=$((fail + 1)); st="FAIL <- see $logdir/$t.log"; failed_names+=("$t") ;;
        esac
        printf '%-28s %s\n' "$t" "$st"
    done
fi

# each failure's cause first (tests/log_cause.sh: a sanitizer's error line
# and stack, UCX's fatal line, cmocka's first failed assertion), then the
# log's tail
for n in "${failed_names[@]}"; do
    echo "failed: $n"
    log="$logdir/${n%% *}.log"
    cause=$(bash "$here/log_cause.sh" "$log" 2>/dev/null)
    if [ -n "$cause" ]; then
        echo "  first error:"
        printf '%s\n' "$cause" | sed 's/^/    /'
        echo "  log tail ($log):"
    fi
    tail -n 15 "$log" 2>/dev/null | sed 's/^/    /'
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
