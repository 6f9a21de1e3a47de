#!/usr/bin/env bash
# scripts/tc-experiments end to end, as a command, with a fixed definition
# (tests/experiments/defs), a fixed platform report and a fake tool
# (tests/experiments/fake-tc-perf, the --tool-cmd test seam): Ctrl-C stops a
# run (nothing left running, its finished runs kept), --resume continues it
# (finished runs not rerun, one run id), and tc-plot draws the result.
# Expansion, skips, the result files, a failing point, a changed plan: the
# unit tests, tests/py/test_experiments.py.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
fx="$top/tests/experiments"
runner_cmd=(python3 "$top/scripts/tc-experiments" --experiments-dir "$fx/defs" --platform-json "$fx/platform.json"
            --tool-cmd "python3 $fx/fake-tc-perf" --platform-id fake --results "$TMP/res")
run() { "${runner_cmd[@]}" "$@"; } # the runner with the seams
command -v python3 >/dev/null || skip "python3 missing"
export FAKE_LOG="$TMP/calls.log" FAKE_PIDS="$TMP/pids"
jams() { grep -o -- '-j [a-z]*' "$FAKE_LOG" | tr '\n' ' '; }

run --dry-run tiny >"$TMP/plan.out" 2>&1 || fail "dry run: $(cat "$TMP/plan.out")"
grep -q "4 points (2 skipped) x 5 round(s)" "$TMP/plan.out" || fail "plan line: $(head -1 "$TMP/plan.out")"

# --- Ctrl-C: the run stops, kills what it started, keeps finished points
FAKE_SLEEP_JAM=beta "${runner_cmd[@]}" --rounds 2 tiny >"$TMP/run.out" 2>&1 &
runner=$!
for _ in $(seq 600); do [ -s "$FAKE_PIDS" ] && break; sleep 0.1; done # up to 60 s
[ -s "$FAKE_PIDS" ] || fail "the hanging point never started: $(cat "$TMP/run.out")"
t0=$(now_ms)
kill -INT "$runner"
wait "$runner"; rc=$?
[ "$rc" = 130 ] || fail "interrupted runner exited $rc, expected 130: $(tail -3 "$TMP/run.out")"
# well before the hanging point would end by itself (60 s), on a loaded machine too
[ $(( $(now_ms) - t0 )) -lt 30000 ] || fail "the runner took more than 30 s to stop"
for pid in $(cat "$FAKE_PIDS"); do
    kill -0 "$pid" 2>/dev/null && fail "process $pid still running after Ctrl-C"
done
grep -q "continue with: scripts/tc-experiments --resume" "$TMP/run.out" || fail "no resume hint: $(tail -2 "$TMP/run.out")"
[ -f "$TMP/res/fake/tiny.csv" ] && fail "a partial experiment was written as a result file"
state="$TMP/res/fake/.partial/state.json"
run_id=$(grep -o '"run_id": "[0-9a-f]*"' "$state" | cut -d'"' -f4)
[ -n "$run_id" ] || fail "no run_id in the partial state: $(head -c 300 "$state")"
[ "$(jams)" = "-j alpha -j beta " ] || fail "before Ctrl-C: $(cat "$FAKE_LOG")"

# --- --resume: only the unfinished runs (beta's round 1, both points'
# round 2); the stopped run's rounds kept; one run id in the result
: >"$FAKE_LOG"
run --resume >"$TMP/resume.out" 2>&1 || fail "resume: $(tail -5 "$TMP/resume.out")"
grep -q "resuming run $run_id" "$TMP/resume.out" || fail "resume did not continue run $run_id"
[ "$(jams)" = "-j beta -j alpha -j beta " ] || fail "resume reran: $(cat "$FAKE_LOG")"
[ "$(cut -d, -f2,3 "$TMP/res/fake/tiny.csv" | sort -u | tr '\n' ' ')" = "0,1 0,2 2,1 2,2 point,round " ] \
    || fail "resumed result: not every (point, round): $(cut -d, -f2,3 "$TMP/res/fake/tiny.csv" | sort -u)"
grep -q "\"run_id\": \"$run_id\"" "$TMP/res/fake/meta.json" || fail "meta.json: not run $run_id"
[ -e "$TMP/res/fake/.partial" ] && fail "partial state left after the resumed run finished"

# --- the plot of the result (gnuplot), when gnuplot is here
if command -v gnuplot >/dev/null; then
    python3 "$top/scripts/tc-plot" --experiments-dir "$fx/defs" --platform-id fake --results "$TMP/res" \
        --plots "$TMP/plots" tiny >"$TMP/plot.out" 2>&1 || fail "tc-plot: $(cat "$TMP/plot.out")"
    for f in figXX-tiny.png figXX-tiny.svg; do
        [ -s "$TMP/plots/fake/$f" ] || fail "tc-plot made no $f: $(cat "$TMP/plot.out")"
    done
    ls "$TMP/plots/fake/"tiny-dist-p0-*.png >/dev/null 2>&1 || fail "no distribution plot: $(ls "$TMP/plots/fake")"
fi
echo "ok"
