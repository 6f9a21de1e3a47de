#!/usr/bin/env bash
# scripts/bench-ci.sh --against ROOT (what make bench-ci runs): timing
# baselines are per platform; with none for this platform, and no counts for
# the build's key, nothing is compared and nothing recorded (exit 2, one line
# naming what is missing and what to run); --record records the sweep as one
# (refused on a busy machine, still exit 2: nothing was compared); the next
# sweep is compared with it; another platform's baseline is never used;
# --slow-jam never records one; instruction counts are recorded and compared
# with the sweep where they can be, and gate even with --report-only; the
# key's counts (ROOT/cost/<key>/) are compared on a platform with no timing
# baseline, and decide.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
command -v python3 >/dev/null || skip "python3 missing"
[ -x "$TC_BUILD/bin/tc-perf" ] || fail "tc-perf not built"
root=$TMP/baselines
mkdir -p "$root/some-other-platform"
echo "test,p50_us" >"$root/some-other-platform/ci.csv"
sweep() { # out extra-args...
    local out=$1; shift
    TC_PLATFORM_ID=test-platform-1 "$top/scripts/bench-ci.sh" -o "$out" -r 1 -n 2000 \
        --against "$root" "$@" >"$TMP/log" 2>&1
}

# no baseline: nothing compared, nothing recorded, exit 2 and one line
sweep "$TMP/run0" --compare-flags --report-only; rc=$?
[ "$rc" = 2 ] || { cat "$TMP/log"; fail "no baseline: exit $rc, expected 2 (nothing compared)"; }
grep -q "^bench-ci: nothing compared: no baseline for platform test-platform-1 .*TC_PLATFORM_ID.* in $root/ (it has: some-other-platform ), nor counts for key .* in $root/cost/.*/ (make cost-baseline); record one on an idle machine (make bench-ci-baseline, or make bench-ci RECORD=1)" "$TMP/log" \
    || { cat "$TMP/log"; fail "no baseline: no line saying why and what to run"; }
[ ! -e "$root/test-platform-1" ] || fail "no baseline: a sweep was recorded without --record"
# --record on a busy machine: refused before the sweep
TC_LOADAVG=99 sweep "$TMP/run0" --record; rc=$?
[ "$rc" = 2 ] || { cat "$TMP/log"; fail "--record on a busy machine: exit $rc, expected 2"; }
grep -q "and --record refused: load average 99 on" "$TMP/log" || { cat "$TMP/log"; fail "--record busy: no reason"; }
[ ! -e "$root/test-platform-1" ] || fail "--record on a busy machine recorded a sweep"
[ ! -e "$TMP/run0/ci.csv" ] || fail "--record on a busy machine ran the sweep"

# --record: recorded, said so, still nothing compared (2)
TC_BASELINE_ANY_LOAD=1 sweep "$TMP/run1" --compare-flags --report-only --record; rc=$?
[ "$rc" = 2 ] || { cat "$TMP/log"; fail "--record: exit $rc, expected 2"; }
grep -q "recorded this sweep as $root/test-platform-1/ (--record" "$TMP/log" || { cat "$TMP/log"; fail "first sweep: not recorded"; }
[ -s "$root/test-platform-1/ci.csv" ] && [ -s "$root/test-platform-1/meta.json" ] || fail "baseline files missing"
grep -q tc-compare "$TMP/log" && fail "first sweep: compared although there was no baseline"
grep -q '"platform_id": "test-platform-1"' "$root/test-platform-1/meta.json" || fail "baseline meta names another platform"

# the second sweep is held against it (report only: exit 0 whatever the figures)
sweep "$TMP/run2" --compare-flags --report-only || { cat "$TMP/log"; fail "second sweep failed"; }
grep -q "^# tc-compare" "$TMP/log" || { cat "$TMP/log"; fail "second sweep: not compared"; }
grep -q "base: \`$root/test-platform-1\`" "$TMP/log" || { cat "$TMP/log"; fail "second sweep: wrong baseline"; }
grep -q "^PASS (report only" "$TMP/log" || { cat "$TMP/log"; fail "second sweep: no report-only verdict"; }

# instruction counts (tc-cost under callgrind): recorded with the baseline
# where valgrind runs this build, else the sweep says why not; the slowed
# jam's package is the one counted, so its rows regress and the others not
if grep -q "bench-ci: no instruction counts: " "$TMP/log"; then
    [ ! -e "$root/test-platform-1/cost.csv" ] || fail "cost.csv recorded although the sweep said it had none"
else
    [ -s "$root/test-platform-1/cost.csv" ] || { cat "$TMP/log"; fail "baseline has no cost.csv and no reason"; }
    grep -q "^## instructions per message" "$TMP/log" || { cat "$TMP/log"; fail "instructions not compared"; }
    # the counts gate even where the timings only report
    sweep "$TMP/slow1" --slow-jam 50 --compare-flags --report-only; rc=$?
    [ "$rc" = 1 ] || { cat "$TMP/log"; fail "slowed jam, --report-only: exit $rc, expected 1 (the counts gate)"; }
    grep -Eq "^\| indirect_put \| local \| 8 \| .*REGRESSION: instructions \+" "$TMP/log" ||
        { cat "$TMP/log"; fail "slowed jam: no instruction regression"; }
    grep -Eq "^\| server_sum \| local \| 8 \| .* \| ok \|$" "$TMP/log" ||
        { cat "$TMP/log"; fail "server_sum (not slowed): instructions moved"; }
    grep -q "^FAIL: [0-9]* point(s) regressed past the 3% threshold on the counts" "$TMP/log" ||
        { cat "$TMP/log"; fail "slowed jam: no FAIL headline on the counts"; }

    # another platform, no timing baseline, the key's counts committed: the
    # counts decide (0 for this tree, 1 for the slowed jam), nothing recorded
    key=$(TC_BUILD=$TC_BUILD "$top/scripts/bench-cost.sh" --key)
    mkdir -p "$root/cost/$key"
    cp "$root/test-platform-1/cost.csv" "$root/test-platform-1/cost-meta.json" "$root/cost/$key/"
    TC_PLATFORM_ID=test-platform-2 "$top/scripts/bench-ci.sh" -o "$TMP/run3" -r 1 -n 2000 \
        --against "$root" --compare-flags --report-only >"$TMP/log" 2>&1; rc=$?
    [ "$rc" = 0 ] || { cat "$TMP/log"; fail "key baseline only: exit $rc, expected 0"; }
    grep -q "timings not compared: no baseline for platform test-platform-2 .*the counts decide" "$TMP/log" ||
        { cat "$TMP/log"; fail "key baseline only: no line saying the timings were not compared"; }
    grep -q "^36 points counted, 0 regressed past 3% on the counts\|^[0-9]* points counted, 0 regressed" "$TMP/log" ||
        { cat "$TMP/log"; fail "key baseline only: the counts were not compared"; }
    [ ! -e "$root/test-platform-2" ] || fail "key baseline only: a timing baseline was recorded without --record"
    TC_PLATFORM_ID=test-platform-2 "$top/scripts/bench-ci.sh" -o "$TMP/run4" -r 1 -n 2000 --slow-jam 50 \
        --against "$root" --compare-flags --report-only >"$TMP/log" 2>&1; rc=$?
    [ "$rc" = 1 ] || { cat "$TMP/log"; fail "key baseline only, slowed jam: exit $rc, expected 1"; }
    rm -rf "$root/cost"
fi

# --no-cost: the time alone
sweep "$TMP/nocost" --no-cost --compare-flags --report-only || { cat "$TMP/log"; fail "--no-cost sweep failed"; }
[ ! -e "$TMP/nocost/cost.csv" ] || fail "--no-cost: cost.csv written"
grep -q '"skipped": "not asked for (--no-cost)"' "$TMP/nocost/meta.json" || fail "--no-cost: meta.json does not say why"

# a slow jam with no baseline for its platform records nothing
rm -rf "$root/test-platform-1"
sweep "$TMP/slow" --slow-jam 10 --record; rc=$?
[ "$rc" = 2 ] || { cat "$TMP/log"; fail "slow jam without a baseline: exit $rc, expected 2"; }
grep -q "to hold the slow jam against" "$TMP/log" || { cat "$TMP/log"; fail "slow jam: no reason given"; }
[ -e "$root/test-platform-1" ] && fail "slow jam recorded a baseline"

# --base REV (the counts against REV's, tests/test_ci_templates.sh runs it
# whole): a REV that names no commit compares nothing before counting
# anything, says so in one line and in OUT/verdict.json; --base does not
# mix with the committed-baseline options
"$top/scripts/bench-ci.sh" --base no-such-rev -o "$TMP/base" >"$TMP/log" 2>&1; rc=$?
[ "$rc" = 2 ] || { cat "$TMP/log"; fail "--base no-such-rev: exit $rc, expected 2"; }
grep -q "^bench-ci: nothing compared: BASE no-such-rev names no commit here" "$TMP/log" ||
    { cat "$TMP/log"; fail "--base no-such-rev: no line saying why"; }
[ ! -e "$TMP/base/cost.csv" ] || fail "--base no-such-rev counted this tree first"
python3 -c 'import json, sys; v = json.load(open(sys.argv[1])); assert v["exit"] == 2, v' "$TMP/base/verdict.json" || fail "--base no-such-rev: verdict.json does not say exit 2"
"$top/scripts/bench-ci.sh" --base HEAD --against "$root" -o "$TMP/base" >"$TMP/log" 2>&1; rc=$?
[ "$rc" = 2 ] || { cat "$TMP/log"; fail "--base with --against: exit $rc, expected 2"; }
echo ok
