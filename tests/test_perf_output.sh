#!/usr/bin/env bash
# What tc-perf prints and writes, as ucx_perftest and OSU users expect: the
# rate of every row counts every message, units said in the header, a header
# box that lines up, --csv/--json - on stdout alone, host and timestamp
# columns at the end of the CSV, outputs opened before the run, progress
# lines within a long point counting what -n and -w asked for (and none
# with --report final), the default warm-up clamped to -n, and a table under
# 100 columns (171 with --wide). SIGINT: tests/test_perf_sigint.sh.
. "$(dirname "$0")/lib.sh"
set -m # background jobs in their own group: SIGINT not ignored

# 1. rate: a ping-pong iteration is two messages, a stream's is one
"$TC_PERF" -l -t jam_lat,put_lat,jam_rate -s 8,64 -n 20000 -w 100 --json "$TMP/r.json" \
    >"$TMP/out" 2>"$TMP/err" || fail "run: $(cat "$TMP/err")"
python3 - "$TMP/r.json" <<'PY' || fail "rate column"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["results"], d
for r in d["results"]:
    per_iter = 2 if r["test"].endswith("_lat") else 1
    want = per_iter * r["iterations"] / r["elapsed_s"]
    assert abs(r["rate_mps"] - want) <= 1e-3 * want, (r["test"], r["rate_mps"], want)
    assert abs(r["bw_mbs"] - r["rate_mps"] * r["payload_bytes"] / 1e6) <= 1e-3 * r["bw_mbs"] + 1e-3, r
assert "2 per round trip" in d["units"]["rate_mps"] and "10^6" in d["units"]["bw_mbs"], d["units"]
PY
# 2. the header says the units, and its box lines up
grep -q "rate = messages/s" "$TMP/out" || fail "header: no rate unit: $(head -12 "$TMP/out")"
grep -q "MB/s = rate x payload / 10^6" "$TMP/out" || fail "header: MB/s not said decimal"
widths=$(grep -E '^[|+]' "$TMP/out" | awk '{ print length($0) }' | sort -u)
[ "$(echo "$widths" | wc -l)" = 1 ] || fail "header box lines of widths $(echo $widths): $(grep -E '^[|+]' "$TMP/out")"
"$TC_PERF" -h | grep -q "2 per round trip" || fail "-h does not say what the rate counts"

# 3. --csv -: the CSV alone on stdout (the table goes to stderr), host and
# timestamp as the last columns
"$TC_PERF" -l -t jam_lat -s 8,16 -n 2000 -w 10 --csv - >"$TMP/csv" 2>"$TMP/err" \
    || fail "--csv -: $(cat "$TMP/err")"
[ ! -e ./- ] || { rm -f ./-; fail "--csv - wrote a file named -"; }
grep -q "^jam_lat " "$TMP/err" || fail "--csv -: the table is not on stderr"
python3 - "$TMP/csv" "$(hostname)" <<'PY' || fail "--csv - output"
import csv, re, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines[0].startswith("test,jam,mode,"), lines[:2]
assert lines[0].endswith(",api,frame_of,host,timestamp,schema_version"), lines[0]
rows = list(csv.DictReader(lines))
assert len(rows) == 2, lines          # nothing but the CSV
for r in rows:
    assert r["host"] == sys.argv[2], r
    assert r["api"] == "send", r              # the default: tc_jam_send
    assert r["schema_version"] == "2", r      # bench/tool.h TC_TOOL_SCHEMA_VERSION
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", r["timestamp"]), r
PY
"$TC_PERF" -l -t jam_lat -n 2000 -w 10 --json - >"$TMP/json" 2>"$TMP/err" || fail "--json -: $(cat "$TMP/err")"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['results'] and d['interrupted'] is False" \
    "$TMP/json" 2>"$TMP/py" || fail "--json - is not JSON alone: $(cat "$TMP/py")"
"$TC_PERF" -l --csv - --json - >"$TMP/out" 2>"$TMP/err"; rc=$?
[ "$rc" = 2 ] && head -1 "$TMP/err" | grep -q "only one output can go to stdout" \
    || fail "--csv - --json -: rc $rc $(head -1 "$TMP/err")"

# 4. an unwritable output: refused before anything runs; a failed run leaves
# no empty file behind, and an existing file is not truncated before the run
for bad in "--csv $TMP/no/such/dir/r.csv" "--json $TMP" "--dist $TMP/no/d.csv"; do
    "$TC_PERF" -l -n 10 -w 0 $bad >"$TMP/out" 2>"$TMP/err"; rc=$?
    [ "$rc" = 2 ] || fail "$bad: exit $rc"
    head -1 "$TMP/err" | grep -q "cannot write it" || fail "$bad: $(head -1 "$TMP/err")"
    [ ! -s "$TMP/out" ] || fail "$bad: something ran: $(head -3 "$TMP/out")"
done
if ! "$TC_PERF" --platform | grep -q "^placement.dram: supported"; then
    echo keep >"$TMP/old.csv"
    "$TC_PERF" -l -n 10 -w 0 --placement dram --csv "$TMP/new.csv" --json "$TMP/old.csv" \
        >/dev/null 2>&1 && fail "--placement dram ran here"
    [ ! -e "$TMP/new.csv" ] || fail "a failed run left $TMP/new.csv"
    [ "$(cat "$TMP/old.csv")" = keep ] || fail "a failed run truncated an existing output"
fi

# 5. progress within a point: a line per interval (TC_PERF_REPORT_MS shortens
# the 2 s), counting -n's iterations, the warm-up apart (it said "of 200010"
# for -n 200000 -w 10); --report final prints none
TC_PERF_REPORT_MS=1 "$TC_PERF" -l -t jam_lat,jam_rate -s 8 -n 200000 -w 10 -q \
    >"$TMP/out" 2>"$TMP/err" || fail "periodic: $(cat "$TMP/err")"
grep -Eq "^tc-perf: jam_lat local 8 B: [0-9]+ of 200000 iterations, [0-9.]+ s in this point$" "$TMP/err" \
    || fail "no jam_lat progress line: $(head -3 "$TMP/err")"
! grep -q "of 200010" "$TMP/err" || fail "progress counts the warm-up into -n: $(grep -m1 "of 200010" "$TMP/err")"
grep -Eq "^tc-perf: jam_rate local 8 B: [0-9]+ of 200000 iterations" "$TMP/err" \
    || fail "no jam_rate progress line: $(head -3 "$TMP/err")"
TC_PERF_REPORT_MS=1 "$TC_PERF" -l -t jam_lat -s 8 -n 10 -w 400000 -q >"$TMP/out" 2>"$TMP/err" ||
    fail "long warm-up: $(cat "$TMP/err")"
grep -Eq "^tc-perf: jam_lat local 8 B: warm-up, [0-9]+ of 400000 iterations, [0-9.]+ s in this point$" "$TMP/err" \
    || fail "no warm-up progress line: $(head -3 "$TMP/err")"
TC_PERF_REPORT_MS=1 "$TC_PERF" -l -t jam_lat,jam_rate -s 8 -n 200000 -w 10 -q --report final \
    >"$TMP/out" 2>"$TMP/err" || fail "final: $(cat "$TMP/err")"
! grep -q "iterations, .* in this point" "$TMP/err" || fail "--report final printed progress"
"$TC_PERF" --report sometimes >/dev/null 2>"$TMP/err"; rc=$?
[ "$rc" = 2 ] && head -1 "$TMP/err" | grep -q "bad --report 'sometimes'" || fail "--report sometimes: rc $rc"

# 6. the default warm-up (10000) is clamped to a smaller -n, and says so;
# an explicit -w is kept
"$TC_PERF" -l -n 50 -q --json "$TMP/w.json" 2>"$TMP/err" || fail "-n 50: $(cat "$TMP/err")"
grep -q '"warmup": 50,' "$TMP/w.json" || fail "warm-up not clamped: $(grep -o '"warmup": [0-9]*' "$TMP/w.json")"
[ "$(grep -c "clamped to -n" "$TMP/err")" = 1 ] || fail "clamp not said once: $(cat "$TMP/err")"
"$TC_PERF" -l -n 50 -w 70 -q --json "$TMP/w.json" 2>"$TMP/err" || fail "-w 70: $(cat "$TMP/err")"
grep -q '"warmup": 70,' "$TMP/w.json" || fail "explicit -w changed"
! grep -q "clamped" "$TMP/err" || fail "explicit -w said clamped"

# 7. the table: under 100 columns by default (test, mode, wait, placement,
# payload, p50, p99, rate, MB/s); --wide has every column (171)
"$TC_PERF" -l -t jam_lat,jam_rate -m local,injected -s 8,4096 -n 2000 -w 10 >"$TMP/t.out" 2>"$TMP/err" ||
    fail "table: $(cat "$TMP/err")"
head_line=$(grep "^test " "$TMP/t.out")
[ "$(echo "$head_line" | tr -s ' |' ' ')" = "test mode wait place payload p50 us p99 us rate msg/s MB/s" ] ||
    fail "compact table head: $head_line"
w=$(grep -E "^(test|jam_)" "$TMP/t.out" | awk '{ print length($0) }' | sort -nu | tail -1)
[ "$w" -le 100 ] || fail "compact table: $w columns: $(grep -E "^(test|jam_)" "$TMP/t.out")"
[ "$(grep -c "^jam_" "$TMP/t.out")" = 8 ] || fail "compact table: not 8 rows: $(cat "$TMP/t.out")"
"$TC_PERF" -l -t jam_lat -s 8 -n 2000 -w 10 --wide >"$TMP/t.out" 2>"$TMP/err" || fail "--wide: $(cat "$TMP/err")"
grep "^test " "$TMP/t.out" | grep -q "p99.9 us .*cpu ns/msg" || fail "--wide head: $(grep "^test " "$TMP/t.out")"
[ "$(grep -E "^(test|jam_)" "$TMP/t.out" | awk '{ print length($0) }' | sort -n | tail -1)" = 171 ] ||
    fail "--wide: not 171 columns: $(grep -E "^(test|jam_)" "$TMP/t.out")"
# a payload's two put_lat rows under -m local,injected (two frame sizes) are
# told apart in the compact table: the mode column names the jam mode's frame
"$TC_PERF" -l -t jam_lat,put_lat -m local,injected -s 8 -n 2000 -w 10 >"$TMP/t.out" 2>"$TMP/err" ||
    fail "put_lat rows: $(cat "$TMP/err")"
rows=$(grep "^put_lat " "$TMP/t.out" | awk '{ print $2, $5 }' | sort)
[ "$rows" = "raw/injected 8
raw/local 8" ] || fail "the put_lat rows of -m local,injected are not told apart: $(cat "$TMP/t.out")"
# frames: variable by default, as the library's; -F fixed as asked (the
# header and the JSON say which)
"$TC_PERF" -l -t jam_lat -s 8 -n 100 -w 10 --json "$TMP/f.json" >"$TMP/f.out" 2>"$TMP/err" || fail "frames: $(cat "$TMP/err")"
grep -q '"frames": "variable",' "$TMP/f.json" && grep -q " frames variable " "$TMP/f.out" ||
    fail "the default frames are not variable: $(grep -o '"frames": "[a-z]*"' "$TMP/f.json")"
"$TC_PERF" -l -F fixed -t jam_lat -s 8 -n 100 -w 10 --json "$TMP/f.json" >/dev/null 2>"$TMP/err" || fail "-F fixed: $(cat "$TMP/err")"
grep -q '"frames": "fixed",' "$TMP/f.json" || fail "-F fixed: $(grep -o '"frames": "[a-z]*"' "$TMP/f.json")"
# the header names the peer once ("peer peer loopback" before)
grep -q "^| cores .*  peer [^ ]" "$TMP/t.out" || fail "the header names no peer: $(head -12 "$TMP/t.out")"
grep -q "peer peer" "$TMP/t.out" && fail "the header says peer twice: $(grep "peer peer" "$TMP/t.out")"
w=$(grep -E "^(test|jam_|put_)" "$TMP/t.out" | awk '{ print length($0) }' | sort -nu | tail -1)
[ "$w" -le 100 ] || fail "compact table with references: $w columns: $(cat "$TMP/t.out")"
echo ok

# 8. --api prepared: the jam tests send through a request prepared once a
# point (tc_jam_init, tc_jam_start); the header, the CSV's api column and
# the JSON say so for the jam rows, and every iteration ran (a refused
# start fails the run); reference rows have no api
"$TC_PERF" -l --api prepared -t jam_lat,jam_rate,put_lat -m local,injected -F fixed -s 8 -n 2000 -w 10 \
    --csv "$TMP/a.csv" --json "$TMP/a.json" >"$TMP/a.out" 2>"$TMP/err" || fail "--api prepared: $(cat "$TMP/err")"
grep -q "^| api        prepared (tc_jam_init" "$TMP/a.out" || fail "--api prepared: header: $(head -12 "$TMP/a.out")"
python3 - "$TMP/a.csv" "$TMP/a.json" <<'PY' || fail "--api prepared output"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
jams = [r for r in rows if r["test"].startswith("jam_")]
assert sorted((r["test"], r["mode"]) for r in jams) == \
    [("jam_lat", "injected"), ("jam_lat", "local"), ("jam_rate", "injected"), ("jam_rate", "local")], rows
for r in jams:
    assert r["api"] == "prepared" and r["iterations"] == "2000", r
assert all(r["api"] == "" for r in rows if not r["test"].startswith("jam_")), rows
d = json.load(open(sys.argv[2]))
assert d["options"]["api"] == "prepared", d["options"]
assert [r["api"] for r in d["results"]] == [r["api"] for r in rows], d["results"]
PY
"$TC_PERF" -l -t jam_lat -n 100 -w 10 --json "$TMP/a.json" >"$TMP/a.out" 2>"$TMP/err" || fail "api default: $(cat "$TMP/err")"
grep -q '"api": "send"}' "$TMP/a.json" && grep -q "^| api        send (tc_jam_send)" "$TMP/a.out" ||
    fail "the default api is not send: $(grep -o '"api": "[a-z]*"' "$TMP/a.json")"
