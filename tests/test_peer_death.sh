#!/usr/bin/env bash
# A peer that dies (SIGKILL) or hangs (SIGSTOP) mid-run: the survivor exits
# non-zero within seconds with a message naming the peer.
. "$(dirname "$0")/lib.sh"
run_case() { # signal, max seconds to exit after it
    local sig=$1 max_ms=$2 port srv cli t0 t1 rc
    port=$(free_port)
    "$TC_PERF" -p "$port" -T 1500 >"$TMP/srv.out" 2>"$TMP/srv.err" &
    srv=$!
    "$TC_PERF" 127.0.0.1 -p "$port" -T 1500 -t jam_lat -n 1000000000 -w 0 >"$TMP/cli.out" 2>"$TMP/cli.err" &
    cli=$!
    sleep 1
    kill -0 "$cli" 2>/dev/null || fail "$sig: client ended early: $(cat "$TMP/cli.err")"
    t0=$(now_ms)
    kill "-$sig" "$srv"
    wait "$cli"; rc=$?
    t1=$(now_ms)
    kill -KILL "$srv" 2>/dev/null; wait "$srv" 2>/dev/null
    [ "$rc" != 0 ] || fail "$sig: survivor exited 0"
    [ $((t1 - t0)) -le "$max_ms" ] || fail "$sig: survivor took $((t1 - t0)) ms"
    grep -q "peer 127.0.0.1" "$TMP/cli.err" || fail "$sig: message does not name the peer: $(cat "$TMP/cli.err")"
    echo "$sig: survivor exited rc=$rc after $((t1 - t0)) ms: $(head -1 "$TMP/cli.err")"
}
run_case KILL 3000
run_case STOP 3000
echo ok
