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
# baseline, and decide. --clang: the clang-14 key's counts held the same
# way (nothing compared for that key without its baseline, both keys pass
# an unchanged tree, both fail the slowed jam), and skipped, saying so,
# where clang-14 is missing.
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

    # --clang: the clang-14 leg, its key's counts held by the same rule
    if command -v clang-14 >/dev/null; then
        export TC_CLANG_BUILD=$TC_BUILD/clang-leg
        clang_sweep() { # out extra-args...
            local o=$1; shift
            TC_PLATFORM_ID=test-platform-2 "$top/scripts/bench-ci.sh" -o "$o" -r 1 -n 2000 --against "$root" \
                --clang --compare-flags "--report-only --json $o.verdict.json" "$@" >"$TMP/log" 2>&1
        }
        legs() { # verdict.json -> "exit leg-exit leg-exit"
            python3 -c 'import json, sys; v = json.load(open(sys.argv[1]))
print(v["exit"], *[l["exit"] for l in v["legs"]])' "$1"
        }
        # no baseline for the clang key: that leg compared nothing, saying so
        clang_sweep "$TMP/clang0"; rc=$?
        [ "$rc" = 0 ] || { cat "$TMP/log"; fail "--clang, no clang baseline: exit $rc, expected 0 (the cc leg's)"; }
        ckey=$(TC_BUILD=$TC_CLANG_BUILD "$top/scripts/bench-cost.sh" --key)
        case $ckey in *-clang14-*) ;; *) fail "--clang: the leg's key is $ckey, not clang-14's";; esac
        grep -q "^bench-ci: clang leg: no counts for key $ckey in $root/cost/$ckey/ (make CC=" "$TMP/log" ||
            { cat "$TMP/log"; fail "--clang, no clang baseline: no line saying so"; }
        [ "$(legs "$TMP/clang0.verdict.json")" = "0 0 2" ] || fail "--clang, no baseline: legs $(legs "$TMP/clang0.verdict.json")"
        mkdir -p "$root/cost/$ckey"
        cp "$TMP/clang0/clang/cost.csv" "$TMP/clang0/clang/cost-meta.json" "$root/cost/$ckey/" || fail "--clang: no counts in $TMP/clang0/clang/"
        # both keys' baselines: an unchanged tree passes both, each reported
        clang_sweep "$TMP/clang1"; rc=$?
        [ "$rc" = 0 ] || { cat "$TMP/log"; fail "--clang: exit $rc, expected 0"; }
        [ "$(legs "$TMP/clang1.verdict.json")" = "0 0 0" ] || { cat "$TMP/log"; fail "--clang: legs $(legs "$TMP/clang1.verdict.json")"; }
        grep -q "^bench-ci: key $key: PASS" "$TMP/log" && grep -q "^bench-ci: key $ckey: PASS" "$TMP/log" ||
            { cat "$TMP/log"; fail "--clang: no PASS line per key"; }
        cmp -s "$TMP/clang1.verdict.json" "$TMP/clang1/verdict.json" || fail "--clang: OUT/verdict.json is not the caller's --json"
        # the slowed jam regresses on both keys: exit 1, the clang leg naming it
        clang_sweep "$TMP/clang2" --slow-jam 50; rc=$?
        [ "$rc" = 1 ] || { cat "$TMP/log"; fail "--clang, slowed jam: exit $rc, expected 1"; }
        [ "$(legs "$TMP/clang2.verdict.json")" = "1 1 1" ] || { cat "$TMP/log"; fail "--clang, slowed: legs $(legs "$TMP/clang2.verdict.json")"; }
        python3 - "$TMP/clang2.verdict.json" "$ckey" <<'PY' || fail "--clang, slowed jam: the clang leg does not name indirect_put"
import json, sys
v = json.load(open(sys.argv[1]))
reg = sorted({c["name"] for c in v["cases"] if c["status"] == "regression" and c["suite"] == "cost:" + sys.argv[2]})
assert reg and all(n.startswith("indirect_put ") for n in reg), reg
PY
    fi
    rm -rf "$root/cost"
fi

# --clang where clang-14 is missing: that leg skipped with its reason, not
# passed; the verdict is the other leg's
TC_CLANG_CC=no-such-clang-14 sweep "$TMP/noclang" --no-cost --clang --compare-flags --report-only; rc=$?
[ "$rc" = 0 ] || { cat "$TMP/log"; fail "--clang, no clang: exit $rc, expected the first leg's 0"; }
grep -q "^bench-ci: clang leg: unsupported: no-such-clang-14 not installed" "$TMP/log" ||
    { cat "$TMP/log"; fail "--clang, no clang: no line saying why"; }
python3 -c 'import json, sys; l = json.load(open(sys.argv[1]))["legs"][1]
assert l["status"] == "skipped" and l["exit"] == 77 and "unsupported: no-such-clang-14 not installed" in l["headline"], l' \
    "$TMP/noclang/verdict.json" || fail "--clang, no clang: the verdict does not say skipped"

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
