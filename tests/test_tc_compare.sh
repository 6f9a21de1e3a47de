#!/usr/bin/env bash
# scripts/tc-compare on a committed real bench-ci result (tests/data/compare/base)
# and copies of it scaled here: equal inputs pass, a 2x slower jam fails, a
# machine 2x slower for jam and put alike passes (normalisation by the put
# reference), --threshold moves the gate, the default interval gate tells
# overlapping rounds (noise) from rounds apart (a regression), --report-only
# never fails unless --fail-factor is given, p99.9 gates only with --gate-tail, the gated rate is the median
# window's unless --rate-from total, tc-mcast files compare raw.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
cmp="$top/scripts/tc-compare"
base="$top/tests/data/compare/base"
command -v python3 >/dev/null || skip "python3 missing"

# scale DIR OUT TESTS COLS FACTOR: copy DIR to OUT, multiplying COLS of rows whose
# test is in TESTS (comma lists) by FACTOR (rate_mps divided: slower = fewer msgs/s)
scale() {
    python3 - "$@" <<'PY' || fail "scale $*: could not write the scaled copy"
import csv, os, shutil, sys
src, out, tests, cols, f = sys.argv[1], sys.argv[2], sys.argv[3].split(","), sys.argv[4].split(","), float(sys.argv[5])
shutil.copytree(src, out)
p = os.path.join(out, "ci.csv")
with open(p, newline="") as fh:
    rd = csv.DictReader(fh); fields = rd.fieldnames; rows = list(rd)
for r in rows:
    if r["test"] in tests:
        for c in cols:
            if r.get(c):
                v = float(r[c])
                r[c] = "%.6g" % (v / f if c == "rate_mps" else v * f)
with open(p, "w", newline="") as fh:
    w = csv.DictWriter(fh, fieldnames=fields); w.writeheader(); w.writerows(rows)
PY
}
run() { # expected-rc args...
    local want=$1; shift
    "$cmp" "$@" >"$TMP/out" 2>&1; rc=$?
    [ "$rc" = "$want" ] || { cat "$TMP/out"; fail "tc-compare $* exited $rc, expected $want"; }
}

# 1. identical inputs pass, every gated ratio is exactly 1
run 0 "$base" "$base"
grep -q "^PASS" "$TMP/out" || fail "equal inputs: no PASS line"
grep -q "regressed past" "$TMP/out" || fail "equal inputs: no summary line"
grep -q "| jam_" "$TMP/out" || fail "equal inputs: no jam rows in the table"
grep "| jam_" "$TMP/out" | grep -v "| 1.000 |" | grep -q . && fail "equal inputs: a ratio other than 1.000"
# a single file pair works too
run 0 "$base/ci.csv" "$base/ci.csv"

# 2. the jam 2x slower (latency x2, rate /2) fails at the default 10%
scale "$base" "$TMP/slow2" jam_lat,jam_rate p50_us,p999_us,rate_mps 2
run 1 "$base" "$TMP/slow2"
grep -q "REGRESSION: p50 +100%" "$TMP/out" || fail "2x slower: p50 not flagged +100%"
grep -q "REGRESSION: rate -50%" "$TMP/out" || fail "2x slower: rate not flagged as -50%"
grep -q "rate +" "$TMP/out" && fail "2x slower: a slower rate printed with a + sign"
grep -q "^FAIL" "$TMP/out" || fail "2x slower: no FAIL line"

# 3. normalisation: jam and put both 2x slower (a slower machine) passes
scale "$base" "$TMP/machine2" jam_lat,jam_rate,put_lat,put_rate p50_us,p999_us,rate_mps 2
run 0 "$base" "$TMP/machine2"
grep -q "| jam_" "$TMP/out" || fail "machine 2x slower: no jam rows in the table"
grep "| jam_" "$TMP/out" | grep -q REGRESSION && fail "machine 2x slower: flagged a regression"
# ... but only the put reference slower (jam unchanged) is an improvement, not a failure
scale "$base" "$TMP/putslow" put_lat,put_rate p50_us,p999_us,rate_mps 2
run 0 "$base" "$TMP/putslow"

# 4. --threshold (medians alone, --gate median): a 20% slower jam_lat fails
# at 10%, passes at 30%
scale "$base" "$TMP/slow12" jam_lat p50_us 1.2
run 1 "$base" "$TMP/slow12" --threshold 10 --gate median
grep -q "REGRESSION: p50 +20%" "$TMP/out" || fail "1.2x slower at 10%: not flagged +20%"
run 0 "$base" "$TMP/slow12" --threshold 30 --gate median
# 5% slower passes at 10%, fails at 2%
scale "$base" "$TMP/slow105" jam_lat p50_us 1.05
run 0 "$base" "$TMP/slow105" --threshold 10 --gate median
run 1 "$base" "$TMP/slow105" --threshold 2 --gate median

# 4b. --gate interval (the default) on a fixture with known rounds: a point
# whose medians moved 30% but whose rounds overlap is noise, not a regression;
# the same move with the rounds apart is one
mkdir -p "$TMP/rb" "$TMP/rn" "$TMP/rs"
ivl() { # out jam-p50-round0 jam-p50-round1 jam-p50-round2
    { echo "experiment,point,preset,test,jam,mode,payload_bytes,p50_us,p999_us"
      local p=0 v
      for v in "${@:2}"; do
          echo "ci,$p,t,jam_lat,noop,local,8,$v,9"
          echo "ci,$p,t,put_lat,,raw,8,0.100,1"
          p=$((p + 1))
      done; } >"$1/ci.csv"
}
ivl "$TMP/rb" 0.20 0.26 0.30      # base rounds: normalised 2.0 .. 3.0, median 2.6
ivl "$TMP/rn" 0.28 0.34 0.40      # median 3.4 (+31%), rounds 2.8 .. 4.0 overlap
ivl "$TMP/rs" 0.31 0.34 0.40      # median 3.4 (+31%), rounds 3.1 .. 4.0 all worse
run 0 "$TMP/rb" "$TMP/rn"
grep -q "noise: p50 +31% (rounds overlap)" "$TMP/out" || fail "overlapping rounds: not shown as noise"
grep -q "1 moved past it within the rounds' spread" "$TMP/out" || fail "overlapping rounds: not counted as noise"
run 1 "$TMP/rb" "$TMP/rn" --gate median
run 1 "$TMP/rb" "$TMP/rs"
grep -q "REGRESSION: p50 +31%" "$TMP/out" || fail "rounds apart: not flagged"
# 4c. tc-experiments' layout: one point, its rounds in a round column, each
# round its own invocation with its own put reference. A jam 1.5x its own
# round's put in every round against 2x is a regression with the rounds
# apart; normalised by the point's pooled references instead (rounds mixed)
# the rounds would overlap and it would pass as noise.
rnd() { # out jam1 put1 jam2 put2
    { echo "experiment,point,round,preset,test,jam,mode,payload_bytes,p50_us,p999_us"
      echo "fig,0,1,quick,jam_lat,noop,local,8,$2,9"
      echo "fig,0,1,quick,put_lat,,raw,8,$3,1"
      echo "fig,0,2,quick,jam_lat,noop,local,8,$4,9"
      echo "fig,0,2,quick,put_lat,,raw,8,$5,1"; } >"$1/fig.csv"
}
mkdir -p "$TMP/pb" "$TMP/pn"
rnd "$TMP/pb" 0.20 0.10 0.40 0.20     # 2.0, 2.0
rnd "$TMP/pn" 0.15 0.10 0.30 0.20     # 1.5, 1.5: better, not worse
run 0 "$TMP/pb" "$TMP/pn"
rnd "$TMP/pn" 0.30 0.10 0.60 0.20     # 3.0, 3.0: +50%, rounds apart
run 1 "$TMP/pb" "$TMP/pn"
grep -q "REGRESSION: p50 +50%" "$TMP/out" || fail "rounds of one point: not normalised per round ($(grep jam_lat "$TMP/out"))"

# identical inputs and a rerun within the same spread never alarm
run 0 "$TMP/rb" "$TMP/rb"

# 5. --report-only exits 0 whatever the figures, unless --fail-factor is given
scale "$base" "$TMP/slow15" jam_lat,jam_rate p50_us,rate_mps 1.5
run 0 "$base" "$TMP/slow15" --report-only
grep -q "REGRESSION" "$TMP/out" || fail "report-only: the table does not show the regression"
grep -q "^PASS (report only: [0-9]* regression" "$TMP/out" || fail "report-only: the closing line hides the regressions"
scale "$base" "$TMP/slow25" jam_lat p50_us 2.5
run 0 "$base" "$TMP/slow25" --report-only
run 1 "$base" "$TMP/slow25" --report-only --fail-factor 2
run 0 "$base" "$TMP/slow25" --report-only --fail-factor 3

# 6. p99.9 alone: reported, gates only with --gate-tail
scale "$base" "$TMP/tail" jam_lat p999_us 3
run 0 "$base" "$TMP/tail"
run 1 "$base" "$TMP/tail" --gate-tail
grep -q "REGRESSION: p99.9" "$TMP/out" || fail "--gate-tail: p99.9 not flagged"

# 6b. the gated rate is the median window's (1/p50 of the rate test): a run whose
# total rate dropped (a preemption) but whose windows did not passes; with
# --rate-from total it fails
scale "$base" "$TMP/total" jam_rate rate_mps 2
run 0 "$base" "$TMP/total"
run 1 "$base" "$TMP/total" --rate-from total

# 7. tc-mcast files: matched by their own key, compared raw
cp -r "$base" "$TMP/mc"
sed -i 's/^\(mcast-scaling,0,fixture,tree,4,2,1,noop,64,2000\),2.0,/\1,4.0,/' "$TMP/mc/mcast-scaling.csv"
run 1 "$base" "$TMP/mc" --experiment mcast-scaling
grep -q "REGRESSION: p50 +100%" "$TMP/out" || fail "mcast: tree p50 x2 not flagged"

# 7b. rows that differ only in gap_us (tc-perf --gap-us) are separate points:
# a folder compared with itself stays at ratio 1, and slowing only the 1000 us
# gap row is caught there
mkdir -p "$TMP/gap"
cat >"$TMP/gap/sparse.csv" <<'EOF'
experiment,point,preset,test,jam,mode,payload_bytes,p50_us,p999_us,wait,placement,sw_prefetch,stress,gap_us
sparse,0,t,jam_lat,indirect_put,local,64,0.30,1.0,event,default,off,none,0
sparse,0,t,put_lat,,raw,64,0.20,0.5,event,default,off,none,0
sparse,1,t,jam_lat,indirect_put,local,64,37.0,90.0,event,default,off,none,1000
sparse,1,t,put_lat,,raw,64,0.20,0.5,event,default,off,none,0
EOF
run 0 "$TMP/gap" "$TMP/gap" --threshold 10
grep -q "points compared (2 gated)" "$TMP/out" || { cat "$TMP/out"; fail "gap rows merged"; }
grep -q "max 0.0%" "$TMP/out" || { cat "$TMP/out"; fail "identical gap rows do not compare at 1"; }
mkdir -p "$TMP/gap2"
sed 's/^\(sparse,1,t,jam_lat,indirect_put,local,64\),37.0,/\1,74.0,/' "$TMP/gap/sparse.csv" >"$TMP/gap2/sparse.csv"
run 1 "$TMP/gap" "$TMP/gap2" --threshold 10
grep -q "REGRESSION: p50 +100%" "$TMP/out" || { cat "$TMP/out"; fail "the slower gap row is not the one flagged"; }

# a result from before --gap-us (no gap_us column) still compares with a new
# one (gap_us 0)
mkdir -p "$TMP/old" "$TMP/new0"
cut -d, -f1-13 "$TMP/gap/sparse.csv" | head -3 >"$TMP/old/sparse.csv"
head -3 "$TMP/gap/sparse.csv" >"$TMP/new0/sparse.csv"
run 0 "$TMP/old" "$TMP/new0" --threshold 10
grep -q "points compared (1 gated)" "$TMP/out" || { cat "$TMP/out"; fail "no gap_us column vs gap_us 0: not comparable"; }

# 8. bad input: nothing comparable -> 2; bad option -> usage error
mkdir -p "$TMP/empty"
run 2 "$base" "$TMP/empty"
run 2 "$base" "$base" --threshold
echo ok
