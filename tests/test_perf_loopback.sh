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
# every latency is positive and percentiles are ordered
awk -F, 'NR > 1 { if (!($7 > 0 && $7 <= $8 && $8 <= $9 && $9 <= $10 && $10 <= $11 && $11 <= $13)) { print "bad row: " $0; exit 1 } }' \
    "$TMP/r.csv" || fail "percentiles not ordered"
python3 -c "import json,sys; d=json.load(open('$TMP/r.json')); assert len(d['results']) == 12; assert d['ucx_version']; assert d['transports']" \
    || fail "json"
grep -q "jam_lat" "$TMP/out" || fail "no table"
# wait strategies in one invocation, each delivering every frame
"$TC_PERF" -l -W poll,pause,event,adaptive -t jam_lat,jam_rate -s 64 -n 3000 -w 100 \
    --csv "$TMP/w.csv" >"$TMP/out" 2>"$TMP/err" || fail "tc-perf -W: $(cat "$TMP/err")"
for w in poll pause event adaptive; do
    [ "$(grep -c ",$w,[0-9.]*,[0-9.]*,,thread-cputime$" "$TMP/w.csv")" = 2 ] || fail "wait $w rows: $(cat "$TMP/w.csv")"
done

# every invocation mode on one connection, in an order where the cached
# mode's sync already covers the injected one
"$TC_PERF" -l -m local,cached,injected -t jam_lat,jam_rate -s 8,512 -n 2000 -w 100 \
    --csv "$TMP/m.csv" >"$TMP/out" 2>"$TMP/err" || fail "tc-perf -m: $(cat "$TMP/err")"
for m in local cached injected; do
    [ "$(grep -c "^jam_[a-z]*,indirect_put,$m," "$TMP/m.csv")" = 4 ] || fail "mode $m rows: $(cat "$TMP/m.csv")"
done
python3 - "$TMP/m.csv" <<'PY' || fail "code_bytes/got_slots missing for injected rows"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r['mode'] == 'injected']
assert rows and all(int(r['code_bytes']) > 0 and int(r['got_slots']) == 1 for r in rows), rows
PY
echo ok
