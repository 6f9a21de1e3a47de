#!/usr/bin/env bash
# scripts/tc-compare end to end, as a command: its table and exit status on
# the committed real bench-ci result (tests/data/compare/base) and on small
# files whose rounds are known: a regression with the rounds apart fails (1),
# the same move within the rounds' spread is noise (0), --gate median and
# --report-only change that, nothing compared (bad input, no such
# folder, no common rows) is 2. The scenarios (normalisation by
# the put reference, thresholds, tails, rates, tc-mcast files, cost.csv) are
# unit tests: tests/py/test_compare.py.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
cmp="$top/scripts/tc-compare"
base="$top/tests/data/compare/base"
command -v python3 >/dev/null || skip "python3 missing"

run() { # expected-rc args...
    local want=$1; shift
    "$cmp" "$@" >"$TMP/out" 2>&1; rc=$?
    [ "$rc" = "$want" ] || { cat "$TMP/out"; fail "tc-compare $* exited $rc, expected $want"; }
}

run 0 "$base" "$base"
grep -q "^PASS$" "$TMP/out" || fail "equal inputs: no PASS line"
grep "| jam_" "$TMP/out" | grep -qv "| 1.000 |" && fail "equal inputs: a ratio other than 1.000"
run 0 "$base/ci.csv" "$base/ci.csv"

ivl() { # dir jam-p50... : one jam_lat point per value, each beside a put_lat of 0.1 us
    mkdir -p "$1"
    { echo "experiment,point,preset,test,jam,mode,payload_bytes,p50_us,p999_us"
      local p=0 v
      for v in "${@:2}"; do
          echo "ci,$p,t,jam_lat,noop,local,8,$v,9"
          echo "ci,$p,t,put_lat,,raw,8,0.100,1"
          p=$((p + 1))
      done; } >"$1/ci.csv"
}
ivl "$TMP/rb" 0.20 0.26 0.30      # normalised 2.0 .. 3.0, median 2.6
ivl "$TMP/rn" 0.28 0.34 0.40      # median +31%, 2.8 .. 4.0: the rounds overlap
ivl "$TMP/rs" 0.31 0.34 0.40      # median +31%, 3.1 .. 4.0: every round worse
run 1 "$TMP/rb" "$TMP/rs"
grep -q "REGRESSION: p50 +31%" "$TMP/out" || fail "rounds apart: not flagged"
grep -q "^FAIL: 1 point(s) regressed past the 10% threshold$" "$TMP/out" || fail "rounds apart: no FAIL line"
run 0 "$TMP/rb" "$TMP/rn"
grep -q "noise: p50 +31% (rounds overlap)" "$TMP/out" || fail "overlapping rounds: not shown as noise"
run 1 "$TMP/rb" "$TMP/rn" --gate median
run 0 "$TMP/rb" "$TMP/rs" --report-only
grep -q "^PASS (report only: 1 point(s) regressed past the 10% threshold, not gating)$" "$TMP/out" ||
    fail "report-only: $(tail -1 "$TMP/out")"
run 1 "$TMP/rb" "$TMP/rs" --report-only --fail-factor 1.1

mkdir -p "$TMP/empty"
run 2 "$base" "$TMP/empty"
grep -q "^tc-compare: nothing compared: no common rows" "$TMP/out" || fail "no common rows: $(tail -1 "$TMP/out")"
run 2 "$base" /no/such/folder --report-only
[ "$(wc -l <"$TMP/out")" = 1 ] && grep -q "nothing compared: NEW /no/such/folder: no such folder or file" "$TMP/out" ||
    fail "no such folder: $(cat "$TMP/out")"
run 2 "$base" "$base" --threshold
echo ok
