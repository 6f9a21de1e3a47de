#!/usr/bin/env bash
# tc-mcast over real process groups (UCX puts between N local processes):
# every run is checked by tc-mcast itself (each target ran every multicast
# exactly once, with rank 0 as the origin, after forwarding its whole slice;
# the origin's completion fired once per multicast with every target in it;
# no ack-tree state left on any rank after repeated rounds); then strays
# ahead of a rank must not stop the group, and a rank that never arrives and
# a rank that dies must be reported, and nothing may hang.
set -u
. "$(dirname "$0")/lib.sh"
MCAST="$TC_BUILD/bin/tc-mcast"
[ -x "$MCAST" ] || { echo "tc-mcast not built"; exit 1; }
tmp=$TMP

run() { # args...: must succeed
    echo "+ tc-mcast $*"
    timeout 180 "$MCAST" "$@" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "tc-mcast $*"; }
    cat "$tmp/out"
}

# multi-hop trees with the ack tree (depth > 1: relays forward), a chain,
# the naive baseline, fire-and-forget, a lone target (plain unicast), the
# blocking wait strategies
run -n 6 -R 2,4 --ack --iters 200 --warmup 20 -q --csv "$tmp/tree.csv"
run -n 4 -R 1 --ack --iters 100 --warmup 0 -q -j seq
run -n 5 --naive --ack --iters 100 --warmup 10 -q
run -n 5 -R 2 --iters 200 --warmup 0 -q -j seq
run -n 2 --iters 100 --warmup 0 -q
run -n 2 --ack --iters 100 --warmup 0 -q
# blocking waits: fire-and-forget fills rings, so blocked senders must be
# woken by the credits coming back (doorbells); the ack tree, adaptive
run -n 4 -R 2 --iters 500 --warmup 0 -q -W event
run -n 4 -R 2 --ack --iters 200 --warmup 0 -q -W adaptive
# many ranks (more than cores 32x): every endpoint's wireup ends before the
# teardown closes it (UCX 1.13 aborts a worker with a wireup reply pending)
[ -z "${TC_TEST_QUICK:-}" ] && run -n 64 --naive --ack --iters 50 --warmup 5 -q

# the CSV the plotting scripts read: exact header, one row per radix
want="mode,n,radix,ack,jam,payload_bytes,iterations,p50_us,p99_us,p999_us,origin_sends,depth,edges,max_fanout,target_bytes_per_hop,modelled_us,hop_us,send_us,host,timestamp,schema_version"
[ "$(head -1 "$tmp/tree.csv")" = "$want" ] || fail "CSV header: $(head -1 "$tmp/tree.csv")"
[ "$(wc -l <"$tmp/tree.csv")" = 3 ] || fail "CSV rows: $(cat "$tmp/tree.csv")"
# R=2 over 6 ranks: origin sends 2, depth 3 (ceil(log2 6)), 5 edges
grep -q '^tree,6,2,1,noop,8,200,[0-9.]*,[0-9.]*,[0-9.]*,2,[23],5,2,' "$tmp/tree.csv" ||
    fail "R=2 row: $(sed -n 2p "$tmp/tree.csv")"
grep -q '^tree,6,4,1,noop,8,200,[0-9.]*,[0-9.]*,[0-9.]*,4,2,5,4,' "$tmp/tree.csv" ||
    fail "R=4 row: $(sed -n 3p "$tmp/tree.csv")"
awk -F, 'NR > 1 && NF != 21 { exit 1 }' "$tmp/tree.csv" || fail "CSV columns"
# each row ends in the host that wrote it, an ISO 8601 UTC time and the
# results schema's version
grep -q ",$(hostname),20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9]Z,2\$" "$tmp/tree.csv" ||
    fail "host,timestamp: $(sed -n 2p "$tmp/tree.csv")"

# a rank that never arrives: rank 0 names it, rank 1 gets no table; both end
port=$(free_port)
export TC_SIZE=3 TC_BOOT=127.0.0.1:$port TC_SETUP_TIMEOUT_MS=1500
TC_RANK=1 timeout 60 "$MCAST" --ack --iters 10 -q >"$tmp/r1" 2>&1 &
r1=$!
TC_RANK=0 timeout 60 "$MCAST" --ack --iters 10 -q >"$tmp/r0" 2>&1 && fail "rank 0 without rank 2 succeeded"
wait $r1 && fail "rank 1 without rank 2 succeeded"
unset TC_SIZE TC_BOOT TC_SETUP_TIMEOUT_MS
grep -q "rank(s) never arrived within 1500 ms: 2" "$tmp/r0" || { cat "$tmp/r0"; fail "absent rank not named"; }
grep -q "no address table" "$tmp/r1" || { cat "$tmp/r1"; fail "rank 1 not told"; }

# strays reach rank 0's rendezvous port before rank 1 (one silent, one
# sending junk): rank 0 must not give a rank's place to either, nor wait on
# them; both ranks run, and rank 0 says it dropped the junk
port=$(free_port)
export TC_SIZE=2 TC_BOOT=127.0.0.1:$port TC_SETUP_TIMEOUT_MS=30000
TC_RANK=0 timeout 60 "$MCAST" --iters 10 --warmup 0 -q >"$tmp/s0" 2>&1 &
r0=$!
wait_listening "$port" 20 || { cat "$tmp/s0"; fail "rank 0 never listened on $port"; }
exec 7<>"/dev/tcp/127.0.0.1/$port" || fail "silent stray could not connect"
exec 8<>"/dev/tcp/127.0.0.1/$port" || fail "junk stray could not connect"
printf 'GET / HTTP/1.0\r\n\r\n' >&8
TC_RANK=1 timeout 60 "$MCAST" --iters 10 --warmup 0 -q >"$tmp/s1" 2>&1 || { cat "$tmp/s1" "$tmp/s0"; fail "rank 1 behind strays"; }
wait $r0 || { cat "$tmp/s0"; fail "rank 0 behind strays"; }
exec 7>&- 8>&-
unset TC_SIZE TC_BOOT TC_SETUP_TIMEOUT_MS
grep -q "dropped 127.0.0.1:[0-9]*: not a twochains peer" "$tmp/s0" || { cat "$tmp/s0"; fail "junk stray not named"; }

# a rank that dies mid-run: the launcher names it, the others notice, no hang
timeout 120 "$MCAST" -n 4 -R 2 --ack --iters 100000000 -q -T 3000 >"$tmp/die" 2>&1 &
launcher=$!
sleep 4
main=$(pgrep -P $launcher | head -1)   # timeout's child: the tc-mcast launcher
victim=$(pgrep -P "${main:-0}" | sort -n | tail -1)
[ -n "$victim" ] || fail "no ranks running"
kill -9 "$victim"
wait $launcher; rc=$?
[ $rc != 0 ] && [ $rc != 124 ] || { cat "$tmp/die"; fail "launcher rc=$rc after a rank died"; }
grep -q "rank 3 died (signal 9)" "$tmp/die" || { cat "$tmp/die"; fail "dead rank not named"; }
grep -Eq "rank 3 is gone|rank 3 failed|no peer|closed" "$tmp/die" || { cat "$tmp/die"; fail "others did not notice"; }

# a rank that stops (SIGSTOP) while its parent keeps getting traffic from the
# origin: the parent names it within the timeout instead of waiting (and
# queueing) forever, and its queue stays bounded
timeout 120 "$MCAST" -n 3 -R 1 -j append -s 4096 --iters 100000000 --warmup 0 -q -T 2000 \
    >"$tmp/stop" 2>&1 &
launcher=$!
sleep 3
main=$(pgrep -P $launcher | head -1)
victim=$(pgrep -P "${main:-0}" | sort -n | tail -1)   # rank 2, rank 1's only child
[ -n "$victim" ] || fail "no ranks running"
kill -STOP "$victim"
wait $launcher; rc=$?
kill -CONT "$victim" 2>/dev/null
[ $rc != 0 ] && [ $rc != 124 ] || { cat "$tmp/stop"; fail "launcher rc=$rc after a rank stopped"; }
# rank 1 names rank 2 when its own timeout runs out, or, when the origin's
# (blocked behind rank 1's full queue since a few ms later) ran out first and
# the group is coming down, as what it was waiting for when it gave up
grep -Eq "rank 1(: nothing moved for 2000 ms while waiting| gives up waiting) for rank 2 to take a frame" \
    "$tmp/stop" || { cat "$tmp/stop"; fail "the stopped rank was not named by its parent"; }
echo "ok"
