#!/usr/bin/env bash
# The figures between two hosts, the hosts being network namespaces
# (scripts/tc-netns), end to end with the real tools: a small Figs. 7-8
# experiment through mpirun and a small multicast one through the ssh
# launcher (an rsh agent that enters the namespace), into results under the
# pair's platform id (both hosts, the launcher and the transports recorded;
# the floor, which needs shared memory, refused by tc-perf), then tc-plot
# and tc-claims on them.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root for network namespaces"
command -v ip >/dev/null || skip "iproute2 missing (make deps)"
command -v mpirun >/dev/null || skip "mpirun missing (make deps installs openmpi-bin)"
command -v gnuplot >/dev/null || skip "gnuplot missing (make deps)"
NETNS="$TC_SRC/scripts/tc-netns"
pre=tf$(( $$ % 100000 ))
trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; "$NETNS" down "$pre"; rm -rf "$TMP"' EXIT
"$NETNS" up "$pre" 2 >"$TMP/hosts" 2>"$TMP/ns.err" ||
    skip "cannot create network namespaces: $(cat "$TMP/ns.err")"
addr() { awk -v h="$1" '$1 == "host" && $2 == h { print $3 }' "$TMP/hosts"; }

# two small experiments from the real definitions: fewer sizes and iterations
mkdir -p "$TMP/defs"
python3 "$TC_SRC/tests/experiments/small-defs.py" "$TC_SRC/scripts/experiments" "$TMP/defs" mcast ||
    fail "defs"
export UCX_TLS=tcp TC_BUILD
# one round: this test is about the launch path; tests/test_experiments.sh covers rounds
runner=(python3 "$TC_SRC/scripts/tc-experiments" --experiments-dir "$TMP/defs" --results "$TMP/res" --rounds 1)

t0=$(now_ms)
MPIRUN_ARGS="$("$NETNS" mpirun "$pre")" timeout 300 "${runner[@]}" --hosts "${pre}1,${pre}2" \
    --launcher mpirun fig07 >"$TMP/mpi.out" 2>&1 || fail "fig07 through mpirun: $(tail -20 "$TMP/mpi.out")"
t1=$(now_ms)
TC_RSH="$TC_SRC/scripts/tc-netns-rsh" timeout 300 "${runner[@]}" \
    --hosts "${pre}1=$(addr "${pre}1"),${pre}2=$(addr "${pre}2")" --launcher ssh mcast \
    >"$TMP/ssh.out" 2>&1 || fail "mcast through ssh: $(tail -20 "$TMP/ssh.out")"
t2=$(now_ms)
res=$(ls -d "$TMP"/res/pair-*)
[ "$(echo "$res" | wc -l)" = 1 ] || fail "one pair results folder expected: $res"
id=$(basename "$res")
python3 - "$res" "$pre" <<'PY' || fail "results: $(ls "$res")"
import csv, json, sys
res, pre = sys.argv[1:]
m = json.load(open(res + '/meta.json'))
assert m['pair']['hosts'][:2] == [pre + '1', pre + '2'], m['pair']['hosts']
assert m['pair']['launcher'] in ('mpirun', 'ssh'), m['pair']['launcher']
assert set(m['pair']['per_host']) == {pre + '1', pre + '2'}, m['pair']['per_host'].keys()
assert 'unsupported' in m['platform']['placement']['llc'], m['platform']['placement']
for tj in m['experiments']['fig07-08-injected']['tool_json']:
    assert tj['hosts'] == {'client': pre + '1', 'server': pre + '2'}, tj['hosts']
    assert tj['boot'] == 'pmix' and 'tcp' in tj['transports'], (tj['boot'], tj['transports'])
rows = list(csv.DictReader(open(res + '/fig07-08-injected.csv')))
got = {(r['test'], r['mode'], r['payload_bytes']) for r in rows}
for s in ('8', '4096'):
    for t in ('jam_lat', 'jam_rate'):
        for mode in ('local', 'injected'):
            assert (t, mode, s) in got, (t, mode, s, sorted(got))
    assert ('put_lat', 'raw', s) in got, sorted(got)
assert not any(r['test'].startswith('floor') for r in rows), 'floor rows over tcp'
mc = list(csv.DictReader(open(res + '/mcast-scaling.csv')))
assert [r['mode'] for r in mc] == ['tree'] * 3 and all(r['n'] == '4' for r in mc), mc
PY
python3 "$TC_SRC/scripts/tc-plot" --platform-id "$id" --results "$TMP/res" --plots "$TMP/plots" \
    fig07 mcast >"$TMP/plot.out" 2>&1 || fail "tc-plot: $(tail -5 "$TMP/plot.out")"
ls "$TMP/plots/$id"/fig07-injected-latency.png "$TMP/plots/$id"/mcast-scaling.png >/dev/null ||
    fail "plots: $(ls -R "$TMP/plots")"
python3 "$TC_SRC/scripts/tc-claims" "$res" -o "$TMP/claims.md" >"$TMP/claims.out" 2>&1 ||
    fail "tc-claims: $(tail -5 "$TMP/claims.out")"
grep -q "1a" "$TMP/claims.md" || fail "claims: $(head -20 "$TMP/claims.md")"
echo "between namespaces: fig07 (mpirun) $(( (t1 - t0) / 1000 )) s, mcast (ssh) $(( (t2 - t1) / 1000 )) s -> $id"
echo ok
