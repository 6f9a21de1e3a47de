#!/usr/bin/env bash
# tc-perf --stress: stress-ng runs pinned for the run, is recorded in the
# JSON, and is gone afterwards - after a normal run, after SIGINT and after
# tc-perf is killed with SIGKILL; a missing stress-ng or a bad spec is a
# clear error with nothing run.
. "$(dirname "$0")/lib.sh"
set -m # background jobs in their own group, SIGINT not ignored
command -v stress-ng >/dev/null || skip "stress-ng not installed"

# no process left in stress-ng's group $1 within $2 seconds (only this
# test's load is watched: other stress-ng runs on the host do not count)
gone_within() {
    local deadline=$(( $(date +%s) + $2 ))
    while pgrep -g "$1" >/dev/null; do
        [ "$(date +%s)" -lt "$deadline" ] || { pgrep -a -g "$1" | head; return 1; }
        sleep 0.2
    done
}

# the process group of the stress-ng that tc-perf $1 started (tc-perf ->
# watchdog -> stress-ng, which leads its own group)
stress_group() {
    local deadline=$(( $(date +%s) + 10 )) w g
    while [ "$(date +%s)" -lt "$deadline" ]; do
        for w in $(pgrep -P "$1"); do
            g=$(pgrep -P "$w" | head -1)
            if [ -n "$g" ] && [ "$(pgrep -g "$g" | wc -l)" -ge 2 ]; then
                echo "$g"; return 0
            fi
        done
        sleep 0.1
    done
    return 1
}

# 1. a normal run: recorded, pinned, gone when tc-perf returns
"$TC_PERF" -l -c 0,1 -W event -t jam_lat -s 64 -n 300 -w 10 --stress vm --stress-cpus 0 \
    --json "$TMP/s.json" --csv "$TMP/s.csv" -q 2>"$TMP/err" || fail "stress run failed: $(cat "$TMP/err")"
grep -q '"command": "stress-ng --class vm --all 1"' "$TMP/s.json" || fail "JSON lacks the stress-ng command"
grep -q '"cpus": "0"' "$TMP/s.json" || fail "JSON lacks the stress cores"
grep -q '"version": "stress-ng, version' "$TMP/s.json" || fail "JSON lacks the stress-ng version"
pgid=$(sed -n 's/.*"pgid": \([0-9]*\).*/\1/p' "$TMP/s.json")
[ -n "$pgid" ] && [ "$pgid" -gt 1 ] || fail "JSON lacks the stress-ng group"
python3 - "$TMP/s.csv" <<'PY' || fail "CSV stress column"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows and all(r["stress"] == "vm" for r in rows), rows
PY
gone_within "$pgid" 0 || fail "stress-ng still running after tc-perf returned"

# 2. and 3. SIGINT and SIGKILL in the middle of a run
for sig in INT KILL; do
    "$TC_PERF" -l -c 0,1 -t jam_lat -s 64 -n 100000000 -w 0 -T 600000 --stress vm \
        --stress-cpus 0 -q >/dev/null 2>"$TMP/err.$sig" &
    pid=$!
    pgid=$(stress_group $pid) || fail "SIG$sig: stress-ng never started: $(cat "$TMP/err.$sig")"
    taskset -p "$pgid" | grep -q "mask: 1$" || fail "SIG$sig: stress-ng not pinned: $(taskset -p "$pgid")"
    sleep 1
    kill -$sig $pid || fail "SIG$sig: tc-perf was already gone: $(cat "$TMP/err.$sig")"
    wait $pid 2>/dev/null
    gone_within "$pgid" 60 || fail "stress-ng survived SIG$sig to tc-perf"
done

# 4. stress-ng missing from PATH: a clear error, nothing measured
PATH=/nonexistent "$TC_PERF" -l -n 10 -w 0 --stress vm --csv "$TMP/none.csv" \
    >"$TMP/out" 2>"$TMP/err"; rc=$?
[ "$rc" = 1 ] || fail "missing stress-ng: exit $rc"
grep -q "stress-ng not found in PATH" "$TMP/err" || fail "missing stress-ng: $(cat "$TMP/err")"
[ ! -e "$TMP/none.csv" ] || fail "missing stress-ng: a result was written"

# 5. a spec that is not CLASS[:N], or a class stress-ng lacks: a usage error
"$TC_PERF" -l -n 10 -w 0 --stress 'vm;true' >"$TMP/out" 2>"$TMP/err"; rc=$?
[ "$rc" = 2 ] || fail "bad spec: exit $rc"
grep -q "expected CLASS\[:N\]" "$TMP/err" || fail "bad spec: $(cat "$TMP/err")"
"$TC_PERF" -l -n 10 -w 0 --stress bogus >"$TMP/out" 2>"$TMP/err"; rc=$?
[ "$rc" = 2 ] || fail "--stress bogus: exit $rc"
head -1 "$TMP/err" | grep -q "^tc-perf: --stress bogus: stress-ng refuses it: .*class.*bogus" \
    || fail "--stress bogus: $(head -1 "$TMP/err")"
grep -q "died" "$TMP/err" && fail "--stress bogus: still says died: $(cat "$TMP/err")"
[ ! -s "$TMP/out" ] || fail "--stress bogus: something ran"
echo ok
