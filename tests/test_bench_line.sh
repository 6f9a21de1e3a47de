#!/usr/bin/env bash
# scripts/bench-line.sh end to end, small: two rounds of a few hundred round
# trips. line.csv has each round's tc-perf rows (jam, floor, put, am) and,
# where ucx_perftest is installed, its put and am latencies; line.md a row
# per round and the median, whose jam - floor and ratios come from each
# round's own rows.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
command -v python3 >/dev/null || skip "python3 missing"
"$TC_PERF" -l -t floor_lat -n 10 -w 0 >"$TMP/out" 2>&1 ||
    skip "floor_lat does not run here: $(tail -1 "$TMP/out")"

TC_BUILD=$TC_BUILD "$top/scripts/bench-line.sh" -o "$TMP/l" -n 300 -r 2 -b 3 \
    >"$TMP/out" 2>&1 || fail "bench-line.sh: $(tail -5 "$TMP/out")"
perftest=$(command -v ucx_perftest >/dev/null 2>&1 && echo 1 || echo 0)
python3 - "$TMP/l" "$perftest" <<'PY' || fail "bench-line output: $(cat "$TMP/l/line.csv" "$TMP/l/line.md")"
import csv, statistics, sys
d, perftest = sys.argv[1], sys.argv[2] == "1"
rows = list(csv.DictReader(open(d + "/line.csv")))
tests = {"jam_lat", "floor_lat", "put_lat", "am_lat"}
if perftest:
    tests |= {"ucp_put_lat", "ucp_am_lat"}
for k in ("1", "2"):
    got = {r["test"] for r in rows if r["round"] == k}
    assert got == tests, (k, got)
for r in rows:
    assert float(r["p50_us"]) > 0, r
p50 = {(r["round"], r["test"]): float(r["p50_us"]) for r in rows}
md = open(d + "/line.md").read().splitlines()
diffs = []
for k in ("1", "2"):
    (line,) = [l for l in md if l.startswith("| %s |" % k)]
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[1] == "%.3f" % p50[(k, "jam_lat")], (cells, p50)
    diff = (p50[(k, "jam_lat")] - p50[(k, "floor_lat")]) * 1000
    assert cells[-3] == "%.0f" % diff, (cells, diff)
    assert cells[-2] == "%.2f" % (p50[(k, "jam_lat")] / p50[(k, "floor_lat")]), cells
    diffs.append(diff)
(line,) = [l for l in md if l.startswith("| median |")]
cells = [c.strip() for c in line.strip("|").split("|")]
assert cells[-3] == "%.0f" % statistics.median(diffs), (cells, diffs)
PY
grep -q "noop local, api send, 8 B payload" "$TMP/l/line.md" || fail "line.md does not say api send: $(cat "$TMP/l/line.md")"
# -a prepared: tc-perf --api prepared, said in line.md and the last JSON
TC_BUILD=$TC_BUILD "$top/scripts/bench-line.sh" -o "$TMP/p" -n 200 -r 1 -b 2 -a prepared \
    >"$TMP/out" 2>&1 || fail "bench-line.sh -a prepared: $(tail -5 "$TMP/out")"
grep -q "noop local, api prepared, 8 B payload" "$TMP/p/line.md" || fail "line.md: $(cat "$TMP/p/line.md")"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['options']['api'] == 'prepared', d['options']; \
assert [r['api'] for r in d['results'] if r['test'] == 'jam_lat'] == ['prepared'], d['results']" "$TMP/p/last.json" ||
    fail "bench-line.sh -a prepared: last.json"
"$top/scripts/bench-line.sh" -a bogus >"$TMP/out" 2>&1; rc=$?
[ "$rc" = 2 ] && [ "$(cat "$TMP/out")" = "bench-line.sh: bad api 'bogus' (send, prepared)" ] ||
    fail "bench-line.sh -a bogus: rc $rc: $(cat "$TMP/out")"
"$top/scripts/bench-line.sh" -x >"$TMP/out" 2>&1 && fail "bench-line.sh took an unknown flag"
grep -q "unknown option -x" "$TMP/out" || fail "bench-line.sh -x: $(cat "$TMP/out")"
echo ok
