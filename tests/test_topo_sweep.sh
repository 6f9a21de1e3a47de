#!/usr/bin/env bash
# The topology sweep as commands: tc-perf --pairs lists the pairs and classes
# of this host's topology, of HWLOC_SYNTHETIC's and of a saved XML one
# (tests/data/topo-*.xml); a bad selection is one line and exit 2;
# tc-topo --dry-run plans one point per pair and jam, measuring nothing; and
# a tiny real sweep (tc-perf's two processes pinned to the pair, 2,000
# iterations, one round) ends in topo.csv, the per-pair and per-class tables,
# the claims and the figures. The classes themselves: tests/test_topo.c.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
perf="$TC_BUILD/bin/tc-perf"
command -v python3 >/dev/null || skip "python3 missing"
[ -x "$perf" ] || fail "no $perf (make all)"
unset HWLOC_SYNTHETIC HWLOC_XMLFILE

"$perf" --pairs classes >"$TMP/host.txt" 2>&1 || fail "tc-perf --pairs classes: $(cat "$TMP/host.txt")"
grep -q "^topology: this host: " "$TMP/host.txt" || fail "no topology line: $(head -2 "$TMP/host.txt")"
nclass=$(sed -n 's/.* pair(s) in \([0-9]*\) class(es).*/\1/p' "$TMP/host.txt")
[ -n "$nclass" ] || fail "no class count: $(cat "$TMP/host.txt")"
if [ "$nclass" = 1 ]; then
    grep -q "one class on this topology" "$TMP/host.txt" || fail "one class not said: $(cat "$TMP/host.txt")"
fi

HWLOC_SYNTHETIC="pack:2 numa:2 l3:2 core:4 pu:2" "$perf" --pairs classes --json - >"$TMP/syn.json" ||
    fail "synthetic: $(cat "$TMP/syn.json")"
python3 - "$TMP/syn.json" <<'PY' || fail "synthetic classes: $(cat "$TMP/syn.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["source"] == "synthetic pack:2 numa:2 l3:2 core:4 pu:2", d["source"]
assert (d["pus"], d["total_pairs"], d["nic"]) == (64, 2016, None), d
assert [(c["class"], c["pairs"]) for c in d["classes"]] == [
    ("smt", 32), ("l3", 192), ("numa", 256), ("package", 512), ("machine", 1024)], d["classes"]
assert [(p["a"], p["b"]) for p in d["pairs"]] == [(2, 3), (1, 2), (1, 8), (1, 16), (1, 32)], d["pairs"]
PY
HWLOC_XMLFILE="$top/tests/data/topo-dual-socket-nic.xml" "$perf" --pairs all >"$TMP/xml.txt" ||
    fail "xml: $(cat "$TMP/xml.txt")"
grep -q "network device: mlx5_0" "$TMP/xml.txt" || fail "no NIC: $(head -1 "$TMP/xml.txt")"
grep -q "^--pairs all: 2256 pair(s) to measure" "$TMP/xml.txt" || fail "all pairs: $(grep -- --pairs "$TMP/xml.txt")"
grep -q "^  24:1 machine local$" "$TMP/xml.txt" || fail "pair 24:1 not machine/local"

"$perf" --pairs 0:0 >"$TMP/bad.txt" 2>&1; rc=$?
[ "$rc" = 2 ] || fail "--pairs 0:0 exited $rc, expected 2"
head -1 "$TMP/bad.txt" | grep -q "^tc-perf: --pairs 0:0: a pair needs two PUs$" || fail "bad pair: $(cat "$TMP/bad.txt")"

# the plan, nothing measured: 5 classes x 2 jams
HWLOC_SYNTHETIC="pack:2 numa:2 l3:2 core:4 pu:2" python3 "$top/scripts/tc-topo" --dry-run --rounds 1 \
    --results "$TMP/res" --platform-id syn >"$TMP/dry.out" 2>&1 || fail "dry run: $(cat "$TMP/dry.out")"
grep -q "10 points (0 skipped) x 1 round(s)" "$TMP/dry.out" || fail "dry-run plan: $(cat "$TMP/dry.out")"
[ "$(grep -c '^topo #.*(sender:receiver ' "$TMP/dry.out")" = 10 ] || fail "dry-run points: $(cat "$TMP/dry.out")"
grep -q "1:32 machine none" "$TMP/dry.out" || fail "dry run lists no pairs: $(cat "$TMP/dry.out")"
[ -e "$TMP/res" ] && fail "a dry run wrote results"
python3 "$top/scripts/tc-topo" --dry-run --pairs 0:99 >"$TMP/dry-bad.out" 2>&1; rc=$?
[ "$rc" = 2 ] || fail "tc-topo --pairs 0:99 exited $rc, expected 2: $(cat "$TMP/dry-bad.out")"

# a tiny real sweep on this host: its classes' representatives, noop only
[ "$(nproc)" -ge 2 ] || skip "one CPU: no pair to pin"
mkdir -p "$TMP/defs"
python3 - "$top/scripts/experiments/topo.json" "$TMP/defs/topo.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
e["axes"][1]["values"] = ["noop"]
e["presets"]["quick"].update(sizes=[8], iters=2000, warmup=100, blocks=2)
json.dump(e, open(sys.argv[2], "w"))
PY
python3 "$top/scripts/tc-topo" --experiments-dir "$TMP/defs" --rounds 1 --results "$TMP/res" \
    --platform-id host --plots "$TMP/plots" >"$TMP/run.out" 2>&1 || fail "sweep: $(tail -5 "$TMP/run.out")"
for f in topo.csv topo.pairs.csv topo.classes.csv topo.claims.md; do
    [ -s "$TMP/res/host/$f" ] || fail "no $f: $(tail -3 "$TMP/run.out")"
done
if command -v gnuplot >/dev/null; then
    for f in topo-matrix.png topo-classes.png; do [ -s "$TMP/plots/$f" ] || fail "no $f"; done
fi
python3 - "$TMP/res/host" "$TMP/host.txt" <<'PY' || fail "sweep tables"
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/topo.pairs.csv")))
want = re.findall(r"^  (\d+):(\d+) (\w+) (\w+)$", open(sys.argv[2]).read(), re.M)
got = sorted({(r["sender"], r["receiver"], r["class"], r["nic"]) for r in rows})
assert got == sorted(want), (got, want)
for r in rows:
    assert float(r["jam_lat_ns"]) > 0 and float(r["floor_lat_ns"]) > 0 and float(r["put_lat_ns"]) > 0, r
claims = open(sys.argv[1] + "/topo.claims.md").read()
assert ("one class on this host" in claims) == (len({w[2:] for w in want}) == 1), claims
PY
echo "ok: $nclass class(es) here"
