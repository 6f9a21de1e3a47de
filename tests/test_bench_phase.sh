#!/usr/bin/env bash
# scripts/bench-phase.sh end to end, small: two works, two rounds. phase.csv
# has a row per (round, work) with the work's time; phase.md a row per work
# with each round's p50 and the median; the work reaches both receivers (a
# one-way trip lasts at least 20000 dependent steps, over 3.3 us at under
# 6 GHz, where the floor alone is a microsecond or less).
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
command -v python3 >/dev/null || skip "python3 missing"
"$TC_PERF" -l -t floor_lat -n 10 -w 0 >"$TMP/out" 2>&1 ||
    skip "floor_lat does not run here: $(tail -1 "$TMP/out")"

TC_BUILD=$TC_BUILD "$top/scripts/bench-phase.sh" -o "$TMP/p" -n 300 -w 0,20000 -r 2 -W poll \
    >"$TMP/out" 2>&1 || fail "bench-phase.sh: $(tail -5 "$TMP/out")"
python3 - "$TMP/p" <<'PY' || fail "bench-phase output: $(cat "$TMP/p/phase.csv" "$TMP/p/phase.md")"
import csv, statistics, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/phase.csv")))
assert sorted((r["round"], r["ref_work"]) for r in rows) == \
    [("1", "0"), ("1", "20000"), ("2", "0"), ("2", "20000")], rows
for r in rows:
    assert (float(r["ref_work_ns"]) > 0) == (r["ref_work"] != "0"), r
    if r["ref_work"] == "20000":
        assert float(r["p50_us"]) >= 3.3, r
md = open(d + "/phase.md").read()
for w in ("0", "20000"):
    (line,) = [l for l in md.splitlines() if l.startswith("| %s |" % w)]
    cells = [c.strip() for c in line.strip("|").split("|")]
    vals = [float(r["p50_us"]) for r in sorted(rows, key=lambda r: r["round"]) if r["ref_work"] == w]
    assert cells[2:4] == ["%.3f" % v for v in vals], (cells, vals)
    assert cells[4] == "%.3f" % statistics.median(vals), (cells, vals)
assert "Over the sweep the floor read" in md, md
PY
echo ok
