#!/usr/bin/env bash
# tc-perf and Ctrl-C: SIGINT on the measuring side writes the rows already
# measured and exits 130; a client's Ctrl-C reaches its server as one line
# and the server exits 0. Skipped, with the reason, where SIGINT was ignored
# when this test started (a background job of a shell without job control,
# e.g. `cmd &` in a script: its children inherit SIGINT ignored, which no
# shell can undo, and tc-perf then leaves SIGINT alone as a background job
# expects).
. "$(dirname "$0")/lib.sh"
set -m # background jobs in their own group: SIGINT not ignored
[ -x "$TC_PERF" ] || fail "tc-perf not built"
command -v python3 >/dev/null || skip "python3 missing"
if [ -n "$(trap -p INT)" ]; then
    skip "SIGINT is ignored in this environment (started as a background job without job control): tc-perf leaves it alone"
fi

# 1. SIGINT: the point in progress is abandoned, the rows measured are
# written, exit 130. Each point lasts at least 1000 x 100 us (--gap-us), so
# the run cannot finish between the first row and the signal.
"$TC_PERF" -l -t jam_lat -s 0:1024 -n 1000 -w 0 --gap-us 100 --csv "$TMP/i.csv" \
    --json "$TMP/i.json" >"$TMP/i.out" 2>"$TMP/i.err" &
pid=$!
for _ in $(seq 1200); do grep -q "^jam_lat " "$TMP/i.out" && break; sleep 0.1; done
grep -q "^jam_lat " "$TMP/i.out" || fail "SIGINT: no first row in 120 s: $(cat "$TMP/i.err")"
kill -INT $pid
wait $pid; rc=$?
[ "$rc" = 130 ] || fail "SIGINT: exit $rc, expected 130: $(cat "$TMP/i.err")"
grep -q "interrupted (SIGINT)" "$TMP/i.err" || fail "SIGINT: not said: $(cat "$TMP/i.err")"
python3 - "$TMP/i.csv" "$TMP/i.json" <<'PY' || fail "SIGINT: rows not written"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
d = json.load(open(sys.argv[2]))
assert 1 <= len(rows) < 12, len(rows)
assert d["interrupted"] is True and len(d["results"]) == len(rows), d["interrupted"]
assert [r["payload_bytes"] for r in rows] == [str(s) for s in [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024][:len(rows)]], rows
PY

# 2. a client's Ctrl-C reaches its server as one line, "client HOST:PORT
# stopped (interrupted)", and the server exits 0 (it printed three error
# lines about a closed connection and exited 1)
port=$(free_port)
"$TC_PERF" -p "$port" -T 5000 >"$TMP/s.out" 2>"$TMP/s.err" &
srv=$!
wait_listening "$port" 30 || fail "server not listening: $(cat "$TMP/s.err")"
TC_PERF_REPORT_MS=20 "$TC_PERF" 127.0.0.1 -p "$port" -T 5000 -t jam_lat -n 1000000000 \
    >"$TMP/c.out" 2>"$TMP/c.err" &
cli=$!
for _ in $(seq 1200); do grep -q " iterations, " "$TMP/c.err" && break; sleep 0.1; done
grep -q " iterations, " "$TMP/c.err" || fail "client: no progress in 120 s: $(head -3 "$TMP/c.err")"
kill -INT $cli
wait $cli; rc=$?
[ "$rc" = 130 ] || fail "client: exit $rc after SIGINT, expected 130: $(cat "$TMP/c.err")"
wait $srv; rc=$?
[ "$rc" = 0 ] || fail "server: exit $rc after its client's Ctrl-C, expected 0: $(cat "$TMP/s.err")"
tail -n +2 "$TMP/s.err" | grep -Eqx "tc-perf: client 127\.0\.0\.1:[0-9]+ stopped \(interrupted\)" &&
    [ "$(wc -l <"$TMP/s.err")" = 2 ] || fail "server after its client's Ctrl-C: $(cat "$TMP/s.err")"
echo ok
