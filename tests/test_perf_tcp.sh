#!/usr/bin/env bash
# Two processes, server and client, over UCX_TLS=tcp: puts are emulated, so
# the wait loops must progress the worker; tc-perf says so.
. "$(dirname "$0")/lib.sh"
port=$(free_port)
UCX_TLS=tcp "$TC_PERF" -p "$port" -T 5000 >"$TMP/srv.out" 2>"$TMP/srv.err" &
srv=$!
UCX_TLS=tcp "$TC_PERF" 127.0.0.1 -p "$port" -T 5000 -t jam_lat,jam_rate,put_lat,am_lat,floor_lat -s 8,4096 \
    -n 500 -w 50 --json "$TMP/r.json" >"$TMP/cli.out" 2>"$TMP/cli.err" \
    || fail "client: $(cat "$TMP/cli.err")"
# nothing is mapped over tcp: the floor is refused by name, the rest runs,
# and auto signalling picked single-put (one tcp lane carries the puts)
grep -q "floor_lat: unsupported: the transport (.*tcp.*) does not map the peer's memory" \
    "$TMP/cli.err" || fail "floor_lat not refused over tcp: $(cat "$TMP/cli.err")"
grep -q "signalling single-put (auto)" "$TMP/cli.out" || fail "auto did not pick single-put over tcp"
wait "$srv" || fail "server: $(cat "$TMP/srv.err")"
grep -q "tcp" "$TMP/cli.out" || fail "transports do not show tcp: $(grep transports "$TMP/cli.out")"
grep -q "progress on" "$TMP/cli.out" || fail "progress not on over tcp"
python3 -c "import json; d=json.load(open('$TMP/r.json')); assert d['progress'] is True, d['progress']; assert len(d['results']) == 8, len(d['results']); assert d['signalling'] == 'single-put', d['signalling']; assert all(r['floor_ratio']['value'] is None for r in d['results'] if r['test'].startswith('jam_'))" \
    >"$TMP/py.err" 2>&1 || fail "JSON: $(tail -1 "$TMP/py.err")"
echo ok
