#!/usr/bin/env bash
# scripts/bench-floor.sh end to end, small: one jam, two payloads, two
# rounds of 3 blocks each. tables.md has a row per (jam, mode, payload)
# whose ratios are the medians of the rounds' own (from the CSV), each round's
# own in "Each round" beside that round's one-line floor, and says how the
# points ran; the merged CSV carries both rounds, the JSON the blocks.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
command -v python3 >/dev/null || skip "python3 missing"

TC_BUILD=$TC_BUILD "$top/scripts/bench-floor.sh" -o "$TMP/f" -n 300 -s 8,64 -j noop -r 2 -b 3 \
    >"$TMP/out" 2>&1 || fail "bench-floor.sh: $(tail -5 "$TMP/out")"
python3 - "$TMP/f" <<'PY' || fail "bench-floor output: $(cat "$TMP/f/tables.md")"
import csv, json, re, statistics, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/noop.csv")))
assert sorted({r["round"] for r in rows}) == ["1", "2"], {r["round"] for r in rows}
assert json.load(open(d + "/noop.json"))["options"]["blocks"] == 3
tables = open(d + "/tables.md").read()
assert "ran in 3 blocks" in tables and "waits with poll" in tables, tables[:600]
step = json.load(open(d + "/noop.json"))["clock"]["resolution_ns"]
assert (step > 2.0) == ("The clock moves in steps of %.2f ns" % step in tables), (step, tables[:800])
for size in (8, 64):
    part = tables.split("## %d B payload" % size)[1].split("##")[0]
    for mode in ("local", "injected", "cached"):
        (line,) = [l for l in part.splitlines() if l.startswith("| noop | %s |" % mode)]
        cells = [c.strip() for c in line.strip("|").split("|")]
        ratios = []
        for r in rows:
            if r["test"] == "jam_lat" and r["mode"] == mode and int(r["payload_bytes"]) == size:
                (f,) = [x for x in rows if x["test"] == "floor_lat" and x["round"] == r["round"]
                        and x["frame_bytes"] == r["frame_bytes"]
                        and x["payload_bytes"] == r["payload_bytes"]]
                ratios.append(float(r["p50_us"]) / float(f["p50_us"]))
        assert len(ratios) == 2, (mode, size, ratios)
        assert cells[5] == format(statistics.median(ratios), ".2f"), (cells, ratios)
        # each round's own, in round order, in "Each round"
        each = tables.split("## Each round")[1].split("##")[0]
        (line,) = [l for l in each.splitlines() if l.startswith("| noop | %s | %d |" % (mode, size))]
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[3:] == [format(x, ".2f") for x in ratios], (cells, ratios)
each = tables.split("## Each round")[1].split("##")[0]
(line,) = [l for l in each.splitlines() if l.startswith("| noop | floor_lat us | 8 |")]
floors = [float(x["p50_us"]) for x in rows if x["test"] == "floor_lat" and x["payload_bytes"] == "8"
          and x["frame_bytes"] == "64"]
assert [c.strip() for c in line.strip("|").split("|")][3:] == [format(x, ".3f") for x in floors], (line, floors)
PY
echo ok
