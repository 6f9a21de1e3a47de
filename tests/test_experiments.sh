#!/usr/bin/env bash
# scripts/tc-experiments with a fixed definition (tests/experiments/defs), a
# fixed platform report and a fake tool (tests/experiments/fake-tc-perf, the
# --tool-cmd test seam): expansion, skipping with reasons, result files written
# whole from one run, Ctrl-C (nothing left running, partial state kept) and
# --resume (finished points not rerun, one run id). Then tc-plot on the result.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
fx="$top/tests/experiments"
runner_cmd=(python3 "$top/scripts/tc-experiments" --experiments-dir "$fx/defs" --platform-json "$fx/platform.json"
            --tool-cmd "python3 $fx/fake-tc-perf" --platform-id fake --results "$TMP/res")
run() { "${runner_cmd[@]}" "$@"; } # the runner with the seams
command -v python3 >/dev/null || skip "python3 missing"
export FAKE_LOG="$TMP/calls.log" FAKE_PIDS="$TMP/pids"

# --- expansion and skipping: 2 jams x 2 stash values = 4 points; stash=on
# skipped with the platform's reason; wfe dropped from every -W list.
run --dry-run --plan-json "$TMP/plan.json" tiny 2>"$TMP/plan.err" || fail "dry run: $(cat "$TMP/plan.err")"
python3 - "$TMP/plan.json" <<'PY' || fail "expansion"
import json, sys
d = json.load(open(sys.argv[1]))
pts = d['experiments'][0]['points']
assert d['points'] == 4 and d['skipped'] == 2, (d['points'], d['skipped'])
want = [('alpha', None), ('alpha', 'on'), ('beta', None), ('beta', 'on')]
assert [(p['axes']['jam'], p['axes']['stash']) for p in pts] == want, pts
assert pts[0]['args'] == ['-t', 'jam_lat,put_lat', '-j', 'alpha', '-W', 'poll,pause', '-s', '64,1024',
                          '-n', '100'], pts[0]['args']
assert pts[1]['args'][6:8] == ['--stash', 'on'], pts[1]['args']
assert pts[0]['skip'] is None and pts[2]['skip'] is None
assert 'fake: no stash control' in pts[1]['skip'] and 'fake: no stash control' in pts[3]['skip']
assert all(p['dropped'] == [{'var': 'waits', 'value': 'wfe', 'reason': 'wait.wfe unsupported: fake: no wfe here'}]
           for p in pts), pts[0]['dropped']
PY
grep -q "4 points (2 skipped)" "$TMP/plan.err" || fail "plan line: $(head -1 "$TMP/plan.err")"
# an option the tool does not list in -h: skipped with the reason, not failed
run --dry-run needs-opt >"$TMP/opt.out" 2>&1 || fail "dry run needs-opt"
grep -q "skip: tc-perf has no --placement" "$TMP/opt.out" || fail "missing option not skipped: $(cat "$TMP/opt.out")"

# --- a full run: result files with the prefix columns, skips in meta.json;
# 3 rounds, each its own invocation, round-major (every point's round 1
# first), every round kept; both presets default to 5
run --dry-run tiny 2>&1 | grep -q "x 5 round(s)" || fail "the quick preset does not run 5 rounds"
run --rounds 3 tiny >"$TMP/run1.out" 2>&1 || fail "run: $(tail -5 "$TMP/run1.out")"
[ "$(wc -l <"$FAKE_LOG")" = 6 ] || fail "expected 6 tool runs (2 points x 3 rounds), got $(wc -l <"$FAKE_LOG")"
[ "$(grep -o -- '-j [a-z]*' "$FAKE_LOG" | tr '\n' ' ')" = "-j alpha -j beta -j alpha -j beta -j alpha -j beta " ] \
    || fail "rounds not round-major: $(cat "$FAKE_LOG")"
grep -q "2 points skipped) x 3 round(s)\|(2 skipped) x 3 round(s)" "$TMP/run1.out" || fail "plan line: $(head -1 "$TMP/run1.out")"
python3 - "$TMP/res/fake" <<'PY' || fail "results of run 1"
import csv, json, os, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(d, 'tiny.csv'))))
assert list(rows[0])[:7] == ['experiment', 'point', 'round', 'preset', 'test', 'jam', 'mode'], list(rows[0])[:7]
assert len(rows) == 3 * 2 * 2 * 2 * 2, len(rows)   # 3 rounds x 2 points x 2 tests x 2 waits x 2 sizes
assert {r['point'] for r in rows} == {'0', '2'} and {r['preset'] for r in rows} == {'quick'}
assert {r['round'] for r in rows} == {'1', '2', '3'}
assert all(sum(1 for r in rows if r['point'] == p and r['round'] == k) == 8 for p in '02' for k in '123')
assert {r['wait'] for r in rows} == {'poll', 'pause'}
dist = list(csv.DictReader(open(os.path.join(d, 'tiny.dist.csv'))))
assert dist and list(dist[0])[:4] == ['experiment', 'point', 'round', 'preset'] and 'percentile' in dist[0]
assert {r['round'] for r in dist} == {'1', '2', '3'}
m = json.load(open(os.path.join(d, 'meta.json')))
e = m['experiments']['tiny']
assert m['platform_id'] == 'fake' and m['preset'] == 'quick' and m['platform']['arch'] == 'fake'
assert e['points'] == 4 and e['ran'] == 2 and e['rounds'] == 3 and len(e['tool_json']) == 6, e
assert sorted((t['point'], t['round']) for t in e['tool_json']) == [(p, r) for p in (0, 2) for r in (1, 2, 3)]
sk = {(s['point'], s['reason']) for s in e['skipped']}
assert any(p == 1 and 'no stash control' in r for p, r in sk) and any(p == 3 for p, r in sk), sk
assert any('no wfe here' in r for p, r in sk), sk
assert not os.path.exists(os.path.join(d, '.partial')), 'partial state left after a finished run'
PY

# --- re-running replaces, never appends: the paper preset has one size;
# --rounds overrides the preset's 5
: >"$FAKE_LOG"
run --preset paper --rounds 1 tiny >"$TMP/run2.out" 2>&1 || fail "run 2: $(tail -5 "$TMP/run2.out")"
[ "$(wc -l <"$FAKE_LOG")" = 2 ] || fail "--rounds 1: expected 2 tool runs, got $(wc -l <"$FAKE_LOG")"
run --dry-run --preset paper tiny 2>&1 | grep -q "x 5 round(s)" || fail "the paper preset does not run 5 rounds"
run --rounds 0 tiny >/dev/null 2>&1 && fail "--rounds 0 accepted"
python3 - "$TMP/res/fake" <<'PY' || fail "stale rows after a re-run"
import csv, json, os, sys
rows = list(csv.DictReader(open(os.path.join(sys.argv[1], 'tiny.csv'))))
assert len(rows) == 2 * 2 * 2 and {r['preset'] for r in rows} == {'paper'}, (len(rows), {r['preset'] for r in rows})
assert {r['round'] for r in rows} == {'1'}
assert json.load(open(os.path.join(sys.argv[1], 'meta.json')))['experiments']['tiny']['preset'] == 'paper'
PY

# --- a failing point is reported (exit 1), named in meta.json, not hidden
FAKE_FAIL_JAM=beta run --rounds 2 tiny >"$TMP/run3.out" 2>&1 && fail "a failed point exited 0"
grep -q "failed: exit 2: .*unknown option" "$TMP/run3.out" || fail "failure reason: $(tail -3 "$TMP/run3.out")"
python3 -c "
import json,sys; e=json.load(open('$TMP/res/fake/meta.json'))['experiments']['tiny']
assert e['ran'] == 1 and [(f['point'], f['round']) for f in e['failed']] == [(2, 1), (2, 2)], e['failed']" || fail "meta failed"

# --- Ctrl-C: the run stops, kills what it started, keeps finished points
rm -rf "$TMP/res" "$FAKE_LOG" "$FAKE_PIDS"
FAKE_SLEEP_JAM=beta "${runner_cmd[@]}" --rounds 2 tiny >"$TMP/run4.out" 2>&1 &
runner=$!
for _ in $(seq 600); do [ -s "$FAKE_PIDS" ] && break; sleep 0.1; done # up to 60 s
[ -s "$FAKE_PIDS" ] || fail "the hanging point never started: $(cat "$TMP/run4.out")"
t0=$(now_ms)
kill -INT "$runner"
wait "$runner"; rc=$?
[ "$rc" = 130 ] || fail "interrupted runner exited $rc, expected 130: $(tail -3 "$TMP/run4.out")"
[ $(( $(now_ms) - t0 )) -lt 5000 ] || fail "the runner took more than 5 s to stop"
for pid in $(cat "$FAKE_PIDS"); do
    kill -0 "$pid" 2>/dev/null && fail "process $pid still running after Ctrl-C"
done
grep -q "continue with: scripts/tc-experiments --resume" "$TMP/run4.out" || fail "no resume hint: $(tail -2 "$TMP/run4.out")"
[ -f "$TMP/res/fake/tiny.csv" ] && fail "a partial experiment was written as a result file"
[ -f "$TMP/res/fake/.partial/state.json" ] || fail "no partial state kept"
run_id=$(python3 -c "import json; print(json.load(open('$TMP/res/fake/.partial/state.json'))['run_id'])") \
    || fail "no run_id in the partial state"
[ -n "$run_id" ] || fail "empty run_id in the partial state"

# --- a changed plan (here: the platform now has wfe) is not resumed into the run
sed 's/"wfe": "unsupported: fake: no wfe here"/"wfe": "supported"/' "$fx/platform.json" >"$TMP/wfe.json"
run --resume --platform-json "$TMP/wfe.json" >"$TMP/run5a.out" 2>&1 && fail "resumed a changed plan"
grep -q "cannot resume run $run_id: the plan of tiny changed" "$TMP/run5a.out" || fail "changed plan: $(cat "$TMP/run5a.out")"

# --- --resume: only the unfinished runs (beta's round 1, both points' round
# 2) run; the stopped run's rounds are kept; one run id in the result
run --resume --rounds 3 >"$TMP/run5b.out" 2>&1 && fail "resumed with another round count"
grep -q "has 2 round(s) per point, not 3" "$TMP/run5b.out" || fail "round count: $(cat "$TMP/run5b.out")"
: >"$FAKE_LOG"
run --resume >"$TMP/run5.out" 2>&1 || fail "resume: $(tail -5 "$TMP/run5.out")"
grep -q "resuming run $run_id" "$TMP/run5.out" || fail "resume did not continue run $run_id"
[ "$(grep -o -- '-j [a-z]*' "$FAKE_LOG" | tr '\n' ' ')" = "-j beta -j alpha -j beta " ] || fail "resume reran: $(cat "$FAKE_LOG")"
python3 - "$TMP/res/fake" "$run_id" <<'PY' || fail "resumed results"
import csv, json, os, sys
rows = list(csv.DictReader(open(os.path.join(sys.argv[1], 'tiny.csv'))))
assert {r['point'] for r in rows} == {'0', '2'} and len(rows) == 32, len(rows)
assert {(r['point'], r['round']) for r in rows} == {(p, k) for p in '02' for k in '12'}
m = json.load(open(os.path.join(sys.argv[1], 'meta.json')))
assert m['run_id'] == sys.argv[2] and m['experiments']['tiny']['run_id'] == sys.argv[2]
assert not os.path.exists(os.path.join(sys.argv[1], '.partial'))
PY
run --resume >/dev/null 2>&1 && fail "--resume with nothing to resume exited 0"

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
