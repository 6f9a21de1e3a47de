#!/usr/bin/env bash
# mpirun across hosts, the hosts being network namespaces on one bridge
# (scripts/tc-netns; mpirun reaches each through an rsh agent that enters
# the namespace under its own host name), UCX_TLS=tcp:
#   - tc-perf as two ranks on two hosts, and the same started by hand;
#   - tc-mcast with 8 ranks over 4 hosts: exactly-once delivery (tc-mcast
#     checks it) and the tree's shape;
#   - a rank killed mid-run: the survivors report it, mpirun exits non-zero.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root for network namespaces"
command -v ip >/dev/null || skip "iproute2 missing (make deps)"
command -v mpirun >/dev/null || skip "mpirun missing (make deps installs openmpi-bin)"
MCAST="$TC_BUILD/bin/tc-mcast"
NETNS="$TC_SRC/scripts/tc-netns"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
pre=tl$(( $$ % 100000 ))
trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; "$NETNS" down "$pre"; rm -rf "$TMP"' EXIT
"$NETNS" up "$pre" 4 >"$TMP/hosts" 2>"$TMP/ns.err" ||
    skip "cannot create network namespaces: $(cat "$TMP/ns.err")"
addr2=$(awk -v h="${pre}2" '$1 == "host" && $2 == h { print $3 }' "$TMP/hosts")
# shellcheck disable=SC2207
mpi=(mpirun --oversubscribe --bind-to none $("$NETNS" mpirun "$pre") -x UCX_TLS=tcp)

# tc-perf: rank 0 (server) on host 2, rank 1 (client) on host 1
timeout 180 "${mpi[@]}" --host "${pre}2:1,${pre}1:1" -n 2 "$TC_PERF" -t jam_lat,jam_rate,put_lat \
    -m local,injected -s 8,4096 -n 2000 -w 100 -c 0,1 -T 5000 --json "$TMP/mpi.json" \
    --csv "$TMP/mpi.csv" >"$TMP/mpi.out" 2>&1 || fail "tc-perf under mpirun across hosts: $(tail -20 "$TMP/mpi.out")"
python3 - "$TMP/mpi.json" "$pre" <<'PY' || fail "tc-perf under mpirun: $(grep -E 'hosts|transports' "$TMP/mpi.json")"
import json, sys
j, pre = json.load(open(sys.argv[1])), sys.argv[2]
assert j['boot'] == 'pmix', j['boot']
assert j['hosts'] == {'client': pre + '1', 'server': pre + '2'}, j['hosts']
assert 'tcp' in j['transports'], j['transports']
PY

# the same by hand: server in host 2, client in host 1 connecting to it
port=$(free_port)
"$NETNS" rsh "${pre}2" env UCX_TLS=tcp "$TC_PERF" -p "$port" -c 1 -T 5000 \
    >"$TMP/srv.out" 2>&1 &
srv=$!
"$NETNS" rsh "${pre}1" env UCX_TLS=tcp "$TC_PERF" "$addr2" -p "$port" -t jam_lat,jam_rate,put_lat \
    -m local,injected -s 8,4096 -n 2000 -w 100 -c 0 -T 5000 --json "$TMP/hand.json" \
    >"$TMP/hand.out" 2>&1 || fail "tc-perf by hand across hosts: $(tail -20 "$TMP/hand.out")"
wait $srv || fail "server by hand: $(cat "$TMP/srv.out")"
grep -q '"boot": "tcp"' "$TMP/hand.json" || fail "by hand: not the tcp bootstrap"

# tc-mcast: 8 ranks, 2 per host; rank 0 checks every target ran every
# multicast exactly once; R=2 over 8: origin sends 2, depth 3, 7 edges
timeout 180 "${mpi[@]}" --host "${pre}1:2,${pre}2:2,${pre}3:2,${pre}4:2" -n 8 \
    -x TC_LOG_LEVEL=debug "$MCAST" -R 2,4 --ack --iters 300 --warmup 20 -j seq -q \
    --csv "$TMP/mc.csv" >"$TMP/mc.out" 2>&1 || fail "tc-mcast across 4 hosts: $(grep -v debug "$TMP/mc.out" | tail -20)"
grep -q '^tree,8,2,1,seq,8,300,[0-9.]*,[0-9.]*,[0-9.]*,2,3,7,2,' "$TMP/mc.csv" ||
    fail "R=2 row: $(cat "$TMP/mc.csv")"
grep -q '^tree,8,4,1,seq,8,300,[0-9.]*,[0-9.]*,[0-9.]*,4,2,7,4,' "$TMP/mc.csv" ||
    fail "R=4 row: $(cat "$TMP/mc.csv")"
for h in 1 2 3 4; do
    [ "$(grep -c "job: rank [0-9]* of 8 in .* on ${pre}$h\$" "$TMP/mc.out")" = 2 ] ||
        fail "host ${pre}$h does not hold 2 ranks: $(grep 'job: rank' "$TMP/mc.out")"
done

# a rank killed mid-run on host 3: the others report it, mpirun exits non-zero
kill_rank "$MCAST -R 2 --ack --iters 100000000" 5 2 "$TMP/die" \
    timeout 120 "${mpi[@]}" --host "${pre}1:2,${pre}2:2,${pre}3:2,${pre}4:2" -n 8 "$MCAST" -R 2 \
    --ack --iters 100000000 -q -T 3000
rc=$KILLED_RC
grep -Eq "rank 5 .*(is gone|failed)|process rank 5 " "$TMP/die" || { cat "$TMP/die"; fail "dead rank not named"; }
echo "killed rank 5 on ${pre}3: mpirun rc=$rc; $(grep -m1 'rank 5' "$TMP/die")"
echo ok
