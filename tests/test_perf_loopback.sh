#!/usr/bin/env bash
# tc-perf -l runs every test on one connection and writes CSV and JSON.
. "$(dirname "$0")/lib.sh"
"$TC_PERF" -l -t jam_lat,jam_rate,put_lat,put_rate,am_lat,am_rate -s 8,1024 -n 2000 -w 100 \
    --csv "$TMP/r.csv" --json "$TMP/r.json" >"$TMP/out" 2>"$TMP/err" \
    || fail "tc-perf -l failed: $(cat "$TMP/err")"
head -1 "$TMP/r.csv" | grep -q '^test,jam,mode,payload_bytes,frame_bytes,iterations,min_us,p50_us,p90_us,p99_us,p999_us' \
    || fail "csv header: $(head -1 "$TMP/r.csv")"
[ "$(tail -n +2 "$TMP/r.csv" | wc -l)" = 12 ] || fail "expected 12 csv rows"
for t in jam_lat jam_rate put_lat put_rate am_lat am_rate; do
    grep -q "^$t," "$TMP/r.csv" || fail "no $t row"
done
# every latency is positive and percentiles are ordered (under qemu-user,
# TC_EMULATED, the counter can stand still over a round trip: min may be 0)
minlat=$([ -n "${TC_EMULATED:-}" ] && echo 0 || echo 0.0000001)
awk -F, -v minlat="$minlat" 'NR > 1 { if (!($7 >= minlat && $7 <= $8 && $8 <= $9 && $9 <= $10 && $10 <= $11 && $11 <= $13)) { print "bad row: " $0; exit 1 } }' \
    "$TMP/r.csv" || fail "percentiles not ordered"
python3 -c "import json,sys; d=json.load(open('$TMP/r.json')); assert len(d['results']) == 12; assert d['ucx_version']; assert d['transports']" \
    || fail "json"
grep -q "jam_lat" "$TMP/out" || fail "no table"
# references that read every line (put_read_*, floor_*) run at the frame
# sizes of the jam rows beside them, one per distinct size; every jam row
# carries its ratio to both, and the JSON names the reference each used
"$TC_PERF" -l -m local,injected -t jam_lat,floor_lat,put_read_lat,jam_rate,floor_rate,put_read_rate \
    -s 8,1024 -n 2000 -w 100 --csv "$TMP/f.csv" --json "$TMP/f.json" >"$TMP/out" 2>"$TMP/err" \
    || fail "tc-perf floor: $(cat "$TMP/err")"
grep -q "^ratios" "$TMP/out" || fail "no ratios block in the table"
cat >"$TMP/ratio_check.py" <<'PY'
# a ratio of two CSV values is checked against what their printed digits
# allow (p50_us has 4 decimals, rate_mps 1): under qemu a reference's p50
# can read 0.0011 us, where the rounding alone moves the ratio by 5%
def ratio_ok(got, num, den, col):
    e = 0.00005 if col == "p50_us" else 0.05
    lo = (num - e) / (den + e)
    hi = (num + e) / (den - e) if den > e else float("inf")
    return lo * 0.99 - 1e-3 <= got <= hi * 1.01 + 1e-3
PY
PYTHONPATH="$TMP" python3 - "$TMP/f.csv" "$TMP/f.json" <<'PY' || fail "floor rows: $(cat "$TMP/f.csv")"
import csv, json, sys
from ratio_check import ratio_ok
rows = list(csv.DictReader(open(sys.argv[1])))
meta = json.load(open(sys.argv[2]))
assert meta["signalling"] == "store" and meta["signalling_asked"] == "auto", meta["signalling"]
jams = [r for r in rows if r["test"].startswith("jam_")]
assert len(jams) == 8, len(jams)
for ref in ("floor_lat", "put_read_lat", "floor_rate", "put_read_rate"):
    sizes = sorted(int(r["frame_bytes"]) for r in rows if r["test"] == ref)
    want = sorted({int(r["frame_bytes"]) for r in jams})
    assert sizes == want, (ref, sizes, want)
for r in jams:
    lat = r["test"] == "jam_lat"
    col = "p50_us" if lat else "rate_mps"
    for name, ref in (("floor_ratio", "floor"), ("put_read_ratio", "put_read")):
        t = ref + ("_lat" if lat else "_rate")
        (x,) = [q for q in rows if q["test"] == t and q["frame_bytes"] == r["frame_bytes"]]
        if float(x[col]) == 0:
            # a reference that read 0 (an emulator's clock coarser than its
            # round trip) has no ratio: the column is empty, not a number
            assert r[name] == "", (r, name, x)
            continue
        want = float(r[col]) / float(x[col])
        assert ratio_ok(float(r[name]), float(r[col]), float(x[col]), col), (r, name, want)
for r in rows:
    if not r["test"].startswith("jam_"):
        assert r["floor_ratio"] == r["put_read_ratio"] == "", r
for j in meta["results"]:
    if j["test"].startswith("jam_"):
        lat = j["test"] == "jam_lat"
        assert j["floor_ratio"]["reference"] == ("floor_lat" if lat else "floor_rate"), j
        assert j["put_read_ratio"]["reference"] == ("put_read_lat" if lat else "put_read_rate"), j
        assert j["floor_ratio"]["metric"] == ("p50_us" if lat else "rate_mps"), j
        for name in ("floor_ratio", "put_read_ratio"):
            v = j[name]["value"]
            assert v is None or v > 0, j
            csv_row = [r for r in jams if r["test"] == j["test"] and r["mode"] == j["mode"]
                       and int(r["payload_bytes"]) == j["payload_bytes"]]
            assert len(csv_row) == 1 and (v is None) == (csv_row[0][name] == ""), (j, csv_row)
    else:
        assert "floor_ratio" not in j, j
PY

# wait strategies in one invocation, each delivering every frame; the
# references' receivers wait the same way (event and adaptive: poll)
"$TC_PERF" -l -W poll,pause,event,adaptive -t jam_lat,jam_rate,floor_lat,put_lat -s 64 -n 3000 \
    -w 100 --csv "$TMP/w.csv" >"$TMP/out" 2>"$TMP/err" || fail "tc-perf -W: $(cat "$TMP/err")"
python3 - "$TMP/w.csv" <<'PY' || fail "wait rows: $(cat "$TMP/w.csv")"
import csv, os, sys
# under qemu (TC_EMULATED) a floor's p50 can read 0: its clock is coarser
emulated = bool(os.environ.get("TC_EMULATED"))
rows = list(csv.DictReader(open(sys.argv[1])))
for w in ("poll", "pause", "event", "adaptive"):
    refs = [r for r in rows if r["wait"] == w and r["mode"] == "raw"]
    assert sorted(r["test"] for r in refs) == ["floor_lat", "put_lat"], (w, refs)
    assert all((float(r["p50_us"]) > 0 or emulated) and r["iterations"] == "3000" for r in refs), refs
    mine = [r for r in rows if r["wait"] == w and r["mode"] != "raw"]
    assert len(mine) == 2, (w, mine)
    for r in mine:
        # both sides' cost is there; cycles only where a PMU counted them
        assert float(r["cpu_ns_per_msg"]) > 0 and float(r["peer_cpu_ns_per_msg"]) > 0, r
        if r["cycles_source"] == "pmu":
            assert float(r["cycles"]) > 0 and float(r["peer_cycles"]) > 0, r
        else:
            assert r["cycles_source"] == "thread-cputime", r
            assert r["cycles"] == r["peer_cycles"] == r["instructions"] == "", r
        assert r["placement"] == "default" and r["sw_prefetch"] == "off" and r["stress"] == "none", r
PY

# placements on one connection (those this host has), with receiver
# prefetch, and the latency distribution of every latency row
places=$("$TC_PERF" --platform | sed -n 's/^placement\.\([a-z]*\): supported$/\1/p' | paste -sd,)
"$TC_PERF" -l --placement "$places" --sw-prefetch on -t jam_lat,jam_rate -s 64,2000 -n 2000 -w 100 \
    --csv "$TMP/p.csv" --dist "$TMP/d.csv" --json "$TMP/p.json" >"$TMP/out" 2>"$TMP/err" \
    || fail "tc-perf --placement $places: $(cat "$TMP/err")"
python3 - "$TMP/p.csv" "$TMP/d.csv" "$TMP/p.json" "$places" <<'PY' || fail "placement rows"
import csv, json, os, sys
rows = list(csv.DictReader(open(sys.argv[1])))
dist = list(csv.DictReader(open(sys.argv[2])))
meta = json.load(open(sys.argv[3]))
places = sys.argv[4].split(",")
assert "dram" in places, places
for p in places:
    mine = [r for r in rows if r["placement"] == p]
    assert len(mine) == 4 and all(r["sw_prefetch"] == "on" for r in mine), (p, mine)
    d = [r for r in dist if r["placement"] == p]
    assert len(d) == 2 * 25 and all(r["test"] == "jam_lat" for r in d), (p, len(d))
    lat = [float(r["latency_us"]) for r in d if r["payload_bytes"] == "64"]
    # under qemu (TC_EMULATED) the clock is coarser than a round trip: the
    # lowest percentiles may read 0 there, never all of them
    assert lat == sorted(lat) and lat[-1] > 0 and (lat[0] > 0 or os.environ.get("TC_EMULATED")), lat
assert [x["mode"] for x in meta["placement"]] == places, meta["placement"]
assert all(x["sequence"] for x in meta["placement"]), meta["placement"]
PY

# sparse traffic: the client idles --gap-us between round trips; the rows
# say so, and the run lasts at least iterations x gap
t0=$(now_ms)
"$TC_PERF" -l -W poll,event -t jam_lat,put_lat -s 64 -n 300 -w 10 --gap-us 200 \
    --csv "$TMP/g.csv" >"$TMP/out" 2>"$TMP/err" || fail "tc-perf --gap-us: $(cat "$TMP/err")"
[ $(( $(now_ms) - t0 )) -ge 120 ] || fail "--gap-us 200: 2 x 310 round trips took under 120 ms"
python3 - "$TMP/g.csv" <<'PY' || fail "gap rows: $(cat "$TMP/g.csv")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["gap_us"] for r in rows if r["test"] == "jam_lat"] == ["200", "200"], rows
assert all(r["gap_us"] == "0" for r in rows if r["test"] == "put_lat"), rows
PY

# --ref-work: both receivers of a latency reference take N dependent steps
# before they answer, so a one-way trip lasts at least N steps (a cycle at
# the least each: 60000 at under 6 GHz is over 10 us) where without it one
# takes a microsecond or less; the JSON records N and its time here
"$TC_PERF" -l -t put_lat,jam_lat -s 8 -n 100 -w 10 --ref-work 60000 --csv "$TMP/rw.csv" \
    --json "$TMP/rw.json" >"$TMP/out" 2>"$TMP/err" || fail "tc-perf --ref-work: $(cat "$TMP/err")"
python3 - "$TMP/rw.csv" "$TMP/rw.json" <<'PY' || fail "--ref-work rows: $(cat "$TMP/rw.csv")"
import csv, json, sys
rows = {r["test"]: r for r in csv.DictReader(open(sys.argv[1]))}
assert float(rows["put_lat"]["min_us"]) >= 10, rows["put_lat"]
opts = json.load(open(sys.argv[2]))["options"]
assert opts["ref_work"] == 60000 and opts["ref_work_ns"] > 0, opts
PY

# every invocation mode on one connection, in an order where the cached
# mode's sync already covers the injected one
"$TC_PERF" -l -m local,cached,injected -t jam_lat,jam_rate -s 8,512 -n 2000 -w 100 \
    --csv "$TMP/m.csv" >"$TMP/out" 2>"$TMP/err" || fail "tc-perf -m: $(cat "$TMP/err")"
for m in local cached injected; do
    [ "$(grep -c "^jam_[a-z]*,indirect_put,$m," "$TMP/m.csv")" = 4 ] || fail "mode $m rows: $(cat "$TMP/m.csv")"
done
# the injected rows carry the blob's figures, as the package's header has them
python3 - "$TMP/m.csv" "$TC_BUILD/pkg/bench/bench.h" <<'PY' || fail "code_bytes/got_slots wrong for injected rows"
import csv, re, sys
h = open(sys.argv[2]).read()
want = {k: re.search(r"TC_PKG_BENCH_INDIRECT_PUT_%s (\d+)" % k.upper(), h).group(1)
        for k in ("code_bytes", "got_slots")}
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r['mode'] == 'injected']
assert rows and int(want["code_bytes"]) > 0, (rows, want)
assert all(r[k] == v for r in rows for k, v in want.items()), (rows, want)
PY

# --blocks: the points of a payload take turns block by block; each row
# still holds all its iterations (its histogram every block's samples) and
# every frame ran exactly once (tc-perf checks each block's counts)
"$TC_PERF" -l -m local,injected -t jam_lat,floor_lat,jam_rate -s 8,64 -n 403 -w 41 --window 8 \
    --order size --blocks 4 --csv "$TMP/k.csv" --json "$TMP/k.json" >"$TMP/out" 2>"$TMP/err" \
    || fail "tc-perf --blocks: $(cat "$TMP/err")"
PYTHONPATH="$TMP" python3 - "$TMP/k.csv" "$TMP/k.json" <<'PY' || fail "--blocks rows: $(cat "$TMP/k.csv")"
import csv, json, os, sys
from ratio_check import ratio_ok
rows = list(csv.DictReader(open(sys.argv[1])))
meta = json.load(open(sys.argv[2]))
assert meta["options"]["blocks"] == 4 and meta["options"]["iterations"] == 403, meta["options"]
got = [(r["test"], r["mode"], r["payload_bytes"]) for r in rows]
want = []
for p in ("8", "64"):
    want += [("jam_lat", "local", p), ("jam_lat", "injected", p)]
    want += [("floor_lat", "raw", p)] * len({r["frame_bytes"] for r in rows
                                            if r["test"] == "jam_lat" and r["payload_bytes"] == p})
    want += [("jam_rate", "local", p), ("jam_rate", "injected", p)]
assert got == want, got
for r, j in zip(rows, meta["results"]):
    assert int(r["iterations"]) == 403 and j["iterations"] == 403, r
    lat = r["test"].endswith("_lat")
    # ping-pong: one sample per iteration; streams: one per whole window of
    # 8 in each block (blocks of 100, 101, 101, 101)
    shares = [403 * (b + 1) // 4 - 403 * b // 4 for b in range(4)]
    assert j["samples"] == (403 if lat else sum(n // 8 for n in shares)), j
    # under qemu (TC_EMULATED) a floor's p50 can read 0: its clock is coarser
    assert float(r["rate_mps"]) > 0 and (float(r["p50_us"]) > 0 or os.environ.get("TC_EMULATED")), r
# 8 B injected and 64 B local frames are both 128 B: each jam row's ratio
# is to the floor measured beside it, its own payload's
for j in meta["results"]:
    if j["test"] == "jam_lat":
        assert j["floor_ratio"]["reference_payload_bytes"] == j["payload_bytes"], j
for r in rows:
    if r["test"] == "jam_lat":
        (f,) = [x for x in rows if x["test"] == "floor_lat" and x["frame_bytes"] == r["frame_bytes"]
                and x["payload_bytes"] == r["payload_bytes"]]
        assert ratio_ok(float(r["floor_ratio"]), float(r["p50_us"]), float(f["p50_us"]), "p50_us"), (r, f)
PY

# --order size runs a payload's waits and placements side by side too (one
# group per payload, its variants taking turns block by block), so the
# rows a figure compares at a payload come from the same seconds; --order
# test keeps each wait and placement whole, over every size. Every row
# holds all its iterations either way.
for order in size test; do
    "$TC_PERF" -l -m local -W poll,pause --placement default,dram -t jam_lat,put_lat -s 8,64 \
        -n 90 -w 9 --order "$order" --blocks 3 --csv "$TMP/o-$order.csv" >"$TMP/out" 2>"$TMP/err" \
        || fail "tc-perf --order $order across waits and placements: $(cat "$TMP/err")"
done
python3 - "$TMP/o-size.csv" "$TMP/o-test.csv" <<'PY' || fail "--order across waits and placements: $(cat "$TMP/o-size.csv" "$TMP/o-test.csv")"
import csv, sys
key = lambda r: (r["payload_bytes"], r["wait"], r["placement"], r["test"])
size = [key(r) for r in csv.DictReader(open(sys.argv[1]))]
test = [key(r) for r in csv.DictReader(open(sys.argv[2]))]
want_size = [(p, w, pl, t) for p in ("8", "64") for w in ("poll", "pause")
             for pl in ("default", "dram") for t in ("jam_lat", "put_lat")]
want_test = [(p, w, pl, t) for w in ("poll", "pause") for pl in ("default", "dram")
             for t in ("jam_lat", "put_lat") for p in ("8", "64")]
assert size == want_size, size
assert test == want_test, test
for path in sys.argv[1:]:
    assert all(int(r["iterations"]) == 90 for r in csv.DictReader(open(path))), path
PY

# --order: test by test (the default), or each payload's tests and modes
# back to back; the JSON records which
for order in test size; do
    "$TC_PERF" -l -m local,injected -t jam_lat,floor_lat -s 8,64 -n 500 -w 50 --order "$order" \
        --csv "$TMP/o.csv" --json "$TMP/o.json" >"$TMP/out" 2>"$TMP/err" \
        || fail "tc-perf --order $order: $(cat "$TMP/err")"
    python3 - "$TMP/o.csv" "$TMP/o.json" "$order" <<'PY' || fail "--order $order rows: $(cat "$TMP/o.csv")"
import csv, json, sys
rows = [(r["test"], r["mode"], r["payload_bytes"], r["frame_bytes"])
        for r in csv.DictReader(open(sys.argv[1]))]
assert json.load(open(sys.argv[2]))["order"] == sys.argv[3]
jam = [("jam_lat", m, p) for m in ("local", "injected") for p in ("8", "64")]
got = [(t, m, p) for t, m, p, f in rows]
if sys.argv[3] == "test":
    assert got[:4] == jam and all(t == "floor_lat" for t, _, _ in got[4:]), got
else:
    assert [p for _, _, p in got] == sorted((p for _, _, p in got), key=int), got
    for p in ("8", "64"):
        tests = [t for t, _, q in got if q == p]
        assert tests[:2] == ["jam_lat", "jam_lat"] and set(tests[2:]) == {"floor_lat"}, got
PY
done
# A size the jam does not take (seq takes exactly 8 bytes) is skipped with
# the jam's reason on both sides alike; the sweep goes on and keeps its rows.
"$TC_PERF" -l -j seq -s 4,8,16 -n 2000 -q --csv "$TMP/seq.csv" >"$TMP/seq.out" 2>"$TMP/seq.err" ||
    fail "tc-perf -j seq -s 4,8,16 exited $?: $(cat "$TMP/seq.err")"
# (what it takes in its own words: its TC_JAM_DESCRIBE payload text)
seq_payload=$(awk '$1 == "element" && $4 == "seq" { id = $2 }
                   $1 == "describe" && $2 == id && $3 == "payload" { sub(/^describe [0-9]+ payload /, ""); print }' \
              "$TC_BUILD/pkg/bench/manifest.tcm")
[ -n "$seq_payload" ] || fail "seq has no payload text in the manifest"
grep -qF "jam 'seq' does not take a 4-byte payload; it takes: $seq_payload (its pack" "$TMP/seq.err" ||
    fail "no reason for the 4-byte size: $(cat "$TMP/seq.err")"
grep -q "jam 'seq' does not take a 16-byte payload" "$TMP/seq.err" ||
    fail "no reason for the 16-byte size: $(cat "$TMP/seq.err")"
python3 - "$TMP/seq.csv" <<'PY' || fail "rows of the seq sweep: $(cat "$TMP/seq.csv")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["payload_bytes"] for r in rows] == ["8"], rows
PY
# a receiver whose policy runs no injected code: the sync is refused at once
# and the run ends naming the policy (not a delivery mismatch, a malformed
# frame or a timeout)
timeout 120 "$TC_PERF" -l --exec local-only -m injected -n 100 -w 10 -s 8 -T 60000 \
    >"$TMP/lo.out" 2>"$TMP/lo.err"; rc=$?
[ "$rc" = 1 ] || fail "--exec local-only -m injected: rc=$rc: $(cat "$TMP/lo.err")"
grep -q "local-only" "$TMP/lo.err" && tail -1 "$TMP/lo.err" | grep -q "refused by the peer's policy$" ||
    fail "--exec local-only -m injected: $(cat "$TMP/lo.err")"
! grep -q "malformed frame\|delivery mismatch\|timed out" "$TMP/lo.err" ||
    fail "--exec local-only -m injected: $(cat "$TMP/lo.err")"
echo ok
