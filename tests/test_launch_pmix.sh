#!/usr/bin/env bash
# Started by a PMIx launcher (Open MPI's mpirun) on this host: tc-perf as two
# ranks (rank 0 serves, rank 1 measures; every frame run exactly once, which
# tc-perf checks after each test), tc-mcast as the job's ranks (each target
# ran every multicast exactly once, checked by tc-mcast), the errors of a
# wrong launch, and a rank killed mid-run: the launcher exits non-zero and
# the output names the rank. --boot pmix without a launcher is refused.
. "$(dirname "$0")/lib.sh"
MCAST="$TC_BUILD/bin/tc-mcast"
command -v mpirun >/dev/null || skip "mpirun missing (make deps installs openmpi-bin)"
pkg-config --exists pmix 2>/dev/null || skip "libpmix-dev missing (make deps)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# two cores: more ranks than slots, and no binding of every rank to core 0
mpi=(mpirun --oversubscribe --bind-to none)

# no launcher: a clear error, nothing run
env -u PMIX_NAMESPACE -u PMIX_RANK "$TC_PERF" --boot pmix -n 10 >"$TMP/nolaunch" 2>&1 &&
    fail "--boot pmix without a launcher succeeded"
grep -q "no PMIx launcher started this process" "$TMP/nolaunch" ||
    fail "no-launcher error: $(cat "$TMP/nolaunch")"
"$TC_PERF" --boot bogus >"$TMP/bad" 2>&1; rc=$?
[ $rc = 2 ] || fail "--boot bogus: rc=$rc"
head -1 "$TMP/bad" | grep -q "bad bootstrap 'bogus'" || fail "--boot bogus: $(head -1 "$TMP/bad")"
"$TC_PERF" --boot pmix 127.0.0.1 >"$TMP/bad" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "takes no HOST" "$TMP/bad" || fail "--boot pmix HOST: rc=$rc $(cat "$TMP/bad")"
"$MCAST" --boot loopback >"$TMP/bad" 2>&1; rc=$?
[ $rc = 2 ] || fail "tc-mcast --boot loopback: rc=$rc $(cat "$TMP/bad")"

# tc-perf: two ranks, every mode, 1-line and multi-line frames
timeout 180 "${mpi[@]}" -n 2 "$TC_PERF" -t jam_lat,jam_rate,put_lat -m local,injected,cached \
    -s 8,4096 -n 3000 -w 100 -c 0,1 --json "$TMP/perf.json" --csv "$TMP/perf.csv" \
    >"$TMP/perf.out" 2>&1 || fail "tc-perf under mpirun -n 2: $(tail -20 "$TMP/perf.out")"
grep -q "peer rank 0 on" "$TMP/perf.out" || fail "rank 1 did not report its peer: $(cat "$TMP/perf.out")"
python3 - "$TMP/perf.json" "$TMP/perf.csv" <<'PY' || fail "tc-perf under mpirun: results"
import csv, json, sys
j = json.load(open(sys.argv[1]))
assert j['boot'] == 'pmix', j['boot']
assert j['hosts']['client'] and j['hosts']['server'], j['hosts']
rows = list(csv.DictReader(open(sys.argv[2])))
got = {(r['test'], r['mode'], r['payload_bytes']) for r in rows}
for t in ('jam_lat', 'jam_rate'):
    for m in ('local', 'injected', 'cached'):
        for s in ('8', '4096'):
            assert (t, m, s) in got, (t, m, s, sorted(got))
assert all('tcp' not in r['transports'] for r in rows), 'one host: shared memory expected'
PY

# the wrong number of ranks: refused by rank 0, non-zero from the launcher
timeout 60 "${mpi[@]}" -n 3 "$TC_PERF" -t jam_lat -n 10 >"$TMP/three" 2>&1 &&
    fail "tc-perf under mpirun -n 3 succeeded"
grep -q "runs as 2 ranks" "$TMP/three" || fail "-n 3: $(cat "$TMP/three")"

# tc-mcast: the job's ranks are the group; the CSV from rank 0 alone
timeout 180 "${mpi[@]}" -n 5 "$MCAST" -R 2 --ack --iters 200 --warmup 20 -j seq -q \
    --csv "$TMP/mc.csv" >"$TMP/mc.out" 2>&1 || fail "tc-mcast under mpirun -n 5: $(tail -20 "$TMP/mc.out")"
[ "$(wc -l <"$TMP/mc.csv")" = 2 ] || fail "tc-mcast CSV: $(cat "$TMP/mc.csv")"
grep -q '^tree,5,2,1,seq,8,200,[0-9.]*,[0-9.]*,[0-9.]*,2,[23],4,2,' "$TMP/mc.csv" ||
    fail "tc-mcast row: $(cat "$TMP/mc.csv")"
timeout 60 "${mpi[@]}" -n 3 "$MCAST" -n 4 --iters 10 -q >"$TMP/mcn" 2>&1 &&
    fail "tc-mcast -n 4 under mpirun -n 3 succeeded"
grep -q "the launcher started 3 ranks" "$TMP/mcn" || fail "tc-mcast -n mismatch: $(cat "$TMP/mcn")"

# a rank killed mid-run: the launcher exits non-zero and the rank is named
# (by the survivors, or by mpirun, which ends the job when a rank dies)
kill_rank "$MCAST -R 2 --ack --iters 100000000" 2 1.5 "$TMP/die" \
    timeout 120 "${mpi[@]}" -n 4 "$MCAST" -R 2 --ack --iters 100000000 -q -T 3000
rc=$KILLED_RC
grep -Eq "rank 2 .*is gone|rank 2 on .* is gone|process rank 2 " "$TMP/die" ||
    { cat "$TMP/die"; fail "dead rank not named"; }
echo "killed rank 2: mpirun rc=$rc; $(grep -m1 -E 'rank 2' "$TMP/die")"
echo ok
