#!/usr/bin/env bash
# scripts/bench-ci.sh --against ROOT (what make bench-ci runs): baselines are
# per platform; with none for this platform the sweep is recorded as one and
# nothing is compared (exit 0, said so); the next sweep is compared with it;
# another platform's baseline is never used; --slow-jam never records one;
# instruction counts are recorded and compared with the sweep where they can be.
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

sweep "$TMP/run1" --compare-flags --report-only || { cat "$TMP/log"; fail "first sweep failed"; }
grep -q "no baseline for platform test-platform-1 in $root/ (it has: some-other-platform )" "$TMP/log" \
    || { cat "$TMP/log"; fail "first sweep: did not say it found no baseline for this platform"; }
grep -q "recorded this sweep as $root/test-platform-1/" "$TMP/log" || { cat "$TMP/log"; fail "first sweep: not recorded"; }
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
    sweep "$TMP/slow1" --slow-jam 50 --compare-flags --report-only || { cat "$TMP/log"; fail "slow sweep failed"; }
    grep -Eq "^\| indirect_put \| local \| 8 \| .*REGRESSION: instructions \+" "$TMP/log" ||
        { cat "$TMP/log"; fail "slowed jam: no instruction regression"; }
    grep -Eq "^\| server_sum \| local \| 8 \| .* \| ok \|$" "$TMP/log" ||
        { cat "$TMP/log"; fail "server_sum (not slowed): instructions moved"; }
fi

# a slow jam with no baseline for its platform records nothing
rm -rf "$root/test-platform-1"
sweep "$TMP/slow" --slow-jam 10 && { cat "$TMP/log"; fail "slow jam without a baseline: exit 0"; }
grep -q "to hold the slow jam against" "$TMP/log" || { cat "$TMP/log"; fail "slow jam: no reason given"; }
[ -e "$root/test-platform-1" ] && fail "slow jam recorded a baseline"
echo ok
