#!/usr/bin/env bash
# Started by Slurm's srun --mpi=pmix, where a Slurm cluster answers here
# (sinfo): tc-perf as two ranks, tc-mcast as the job's ranks, a rank killed
# mid-run (srun exits non-zero, the survivors name the rank), and a small
# experiment through tc-experiments --launcher srun. Skipped with the reason
# where no Slurm answers (make deps does not install one).
. "$(dirname "$0")/lib.sh"
MCAST="$TC_BUILD/bin/tc-mcast"
command -v srun >/dev/null || skip "srun missing: no Slurm here (slurm-client, and a cluster with mpi/pmix)"
timeout 10 sinfo -h >/dev/null 2>&1 || skip "no Slurm cluster answers (sinfo failed)"
srun --mpi=list 2>&1 | grep -q pmix || skip "this Slurm has no mpi/pmix plugin"
node=$(sinfo -h -N -o %N | head -1)
srun=(timeout 180 srun --mpi=pmix --overcommit)

"${srun[@]}" -n 2 "$TC_PERF" -c 0,1 -t jam_lat,jam_rate -m local,injected -s 8,4096 -n 3000 \
    -w 100 --json "$TMP/perf.json" >"$TMP/perf.out" 2>&1 || fail "tc-perf under srun: $(tail -20 "$TMP/perf.out")"
grep -q '"boot": "pmix"' "$TMP/perf.json" || fail "tc-perf under srun: not the PMIx bootstrap"

"${srun[@]}" -n 5 "$MCAST" -R 2 --ack --iters 200 --warmup 20 -j seq -q --csv "$TMP/mc.csv" \
    >"$TMP/mc.out" 2>&1 || fail "tc-mcast under srun: $(tail -20 "$TMP/mc.out")"
grep -q '^tree,5,2,1,seq,8,200,' "$TMP/mc.csv" || fail "tc-mcast row: $(cat "$TMP/mc.csv")"

kill_rank "$MCAST -R 2 --ack --iters 100000000" 2 1.5 "$TMP/die" \
    "${srun[@]}" -n 4 "$MCAST" -R 2 --ack --iters 100000000 -q -T 3000
rc=$KILLED_RC
grep -q "rank 2 .*is gone" "$TMP/die" || { cat "$TMP/die"; fail "dead rank not named"; }

mkdir -p "$TMP/defs"
python3 "$TC_SRC/tests/experiments/small-defs.py" "$TC_SRC/scripts/experiments" "$TMP/defs" || fail "defs"
timeout 300 python3 "$TC_SRC/scripts/tc-experiments" --experiments-dir "$TMP/defs" --results "$TMP/res" --rounds 1 \
    --hosts "$node,$node" --launcher srun >"$TMP/exp.out" 2>&1 || fail "tc-experiments --launcher srun: $(tail -10 "$TMP/exp.out")"
grep -q '"launcher": "srun"' "$TMP"/res/pair-*/meta.json || fail "meta.json: no srun launcher"
echo "srun: killed rank 2, srun rc=$rc; $(grep -m1 'rank 2' "$TMP/die")"
echo ok
