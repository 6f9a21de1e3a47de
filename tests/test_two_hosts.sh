#!/usr/bin/env bash
# Two hosts over a real (virtual) network: two network namespaces joined by a
# veth pair, the tc-perf server in one and the client in the other over
# UCX_TLS=tcp. Checks jam_lat and jam_rate complete with every frame run
# exactly once (tc-perf compares the counts after each test), then that a
# link going down mid-run is reported by the survivor within seconds.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root for network namespaces"
command -v ip >/dev/null || skip "iproute2 missing (make deps)"
tag=$$
nsA=tcA$tag nsB=tcB$tag vA=tcva$tag vB=tcvb$tag
net=10.233.$((tag % 250)).
cleanup_ns() { ip netns del "$nsA" 2>/dev/null; ip netns del "$nsB" 2>/dev/null; }
trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; cleanup_ns; rm -rf "$TMP"' EXIT
ip netns add "$nsA" 2>"$TMP/ns.err" || skip "cannot create network namespaces: $(cat "$TMP/ns.err")"
ip netns add "$nsB" || fail "second namespace"
ip link add "$vA" type veth peer name "$vB" || skip "cannot create a veth pair"
ip link set "$vA" netns "$nsA" || fail "moving $vA into $nsA"
ip link set "$vB" netns "$nsB" || fail "moving $vB into $nsB"
ip -n "$nsA" addr add "${net}1/24" dev "$vA" || fail "address on $vA"
ip -n "$nsB" addr add "${net}2/24" dev "$vB" || fail "address on $vB"
for ns in "$nsA" "$nsB"; do ip -n "$ns" link set lo up || fail "lo up in $ns"; done
ip -n "$nsA" link set "$vA" up || fail "$vA up"
ip -n "$nsB" link set "$vB" up || fail "$vB up"

port=$(free_port)
ip netns exec "$nsA" env UCX_TLS=tcp "$TC_PERF" -p "$port" -T 5000 >"$TMP/srv.out" 2>"$TMP/srv.err" &
srv=$!
ip netns exec "$nsB" env UCX_TLS=tcp "$TC_PERF" "${net}1" -p "$port" -T 5000 \
    -t jam_lat,jam_rate -m local,injected,cached -s 8,4096 -n 3000 -w 100 --json "$TMP/r.json" \
    >"$TMP/cli.out" 2>"$TMP/cli.err" \
    || fail "client across namespaces: $(cat "$TMP/cli.err")"
wait "$srv" || fail "server across namespaces: $(cat "$TMP/srv.err")"
grep -q "peer ${net}1" "$TMP/cli.out" || fail "client did not talk to ${net}1"
grep -q "tcp" "$TMP/cli.out" || fail "not over tcp"

# the link goes down mid-run: the client must give up within seconds
port=$(free_port)
ip netns exec "$nsA" env UCX_TLS=tcp "$TC_PERF" -p "$port" -T 1500 >"$TMP/srv2.out" 2>"$TMP/srv2.err" &
srv=$!
ip netns exec "$nsB" env UCX_TLS=tcp "$TC_PERF" "${net}1" -p "$port" -T 1500 -t jam_lat \
    -n 1000000000 -w 0 >"$TMP/cli2.out" 2>"$TMP/cli2.err" &
cli=$!
sleep 1
kill -0 "$cli" 2>/dev/null || fail "link case: client ended early: $(cat "$TMP/cli2.err")"
t0=$(now_ms)
ip -n "$nsB" link set "$vB" down || fail "could not take $vB down"
wait "$cli"; rc=$?
t1=$(now_ms)
[ "$rc" != 0 ] || fail "link down: client exited 0"
[ $((t1 - t0)) -le 4000 ] || fail "link down: client took $((t1 - t0)) ms"
grep -q "peer ${net}1" "$TMP/cli2.err" || fail "link down: message does not name the peer: $(cat "$TMP/cli2.err")"
echo "link down: client exited rc=$rc after $((t1 - t0)) ms: $(grep -m1 error "$TMP/cli2.err")"
kill "$srv" 2>/dev/null
echo ok
