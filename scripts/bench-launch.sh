#!/usr/bin/env bash
# tc-perf between two hosts started by mpirun (PMIx bootstrap) vs started by
# hand (TCP bootstrap), the hosts being two network namespaces on one bridge
# (scripts/tc-netns), UCX_TLS=tcp; ROUNDS rounds in alternating order (by
# hand, mpirun, by hand, ...) so that drift of the host shows as spread.
# Needs root and mpirun. Writes results/<platform>/launch/{launch.csv,launch.md}.
# usage: scripts/bench-launch.sh [ITERS] [ROUNDS]   (default 50000, 2)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
iters=${1:-50000} rounds=${2:-2}
perf="$top/build/bin/tc-perf"
out="$top/results/$("$top/scripts/platform-id.sh")/launch"
pre=bl$(( $$ % 100000 ))
tmp=$(mktemp -d)
cleanup() { kill $(jobs -p) 2>/dev/null || true; "$top/scripts/tc-netns" down "$pre"; rm -rf "$tmp"; }
trap cleanup EXIT
mkdir -p "$out"
"$top/scripts/tc-netns" up "$pre" 2 >"$tmp/hosts"
addr2=$(awk -v h="${pre}2" '$1 == "host" && $2 == h { print $3 }' "$tmp/hosts")
args=(-F fixed -t jam_lat,jam_rate,put_lat -s 8,4096 -n "$iters" -w 1000 -T 30000 -q)
export UCX_TLS=tcp
for r in $(seq "$rounds"); do
    port=$((20000 + RANDOM % 20000))
    "$top/scripts/tc-netns" rsh "${pre}2" "$perf" -p "$port" -c 1 -T 30000 >/dev/null 2>&1 &
    "$top/scripts/tc-netns" rsh "${pre}1" "$perf" "$addr2" -p "$port" -c 0 "${args[@]}" \
        --csv "$tmp/hand.$r.csv"
    wait
    # shellcheck disable=SC2046
    mpirun --allow-run-as-root --oversubscribe --bind-to none --host "${pre}2:1,${pre}1:1" -n 2 \
        $("$top/scripts/tc-netns" mpirun "$pre") -x UCX_TLS "$perf" -c 0,1 "${args[@]}" \
        --csv "$tmp/mpirun.$r.csv" 2> >(grep -v setpgid >&2)
done
python3 - "$tmp" "$rounds" "$out" "$iters" <<'PY'
import csv, statistics, sys
tmp, rounds, out, iters = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
rows = []
for how in ('hand', 'mpirun'):
    for r in range(1, rounds + 1):
        for row in csv.DictReader(open('%s/%s.%d.csv' % (tmp, how, r))):
            row.update(started=how, round=r)
            rows.append(row)
cols = ['started', 'round'] + [c for c in rows[0] if c not in ('started', 'round')]
with open(out + '/launch.csv', 'w', newline='') as f:
    w = csv.DictWriter(f, fieldnames=cols)
    w.writeheader()
    w.writerows(rows)
def val(r):
    return float(r['p50_us'] if r['test'].endswith('lat') else r['rate_mps'])
with open(out + '/launch.md', 'w') as f:
    f.write('# tc-perf between two hosts (network namespaces, UCX_TLS=tcp): mpirun vs by hand\n\n')
    f.write('`scripts/bench-launch.sh %s %d`: rounds in alternating order; p50 one-way latency '
            'in us, rate in messages/s; each cell lists the rounds.\n\n' % (iters, rounds))
    f.write('| test | payload B | by hand (tcp bootstrap) | mpirun (PMIx) | mpirun / by hand (medians) |\n')
    f.write('|---|---:|---|---|---:|\n')
    keys = []
    for r in rows:
        k = (r['test'], r['payload_bytes'])
        if k not in keys:
            keys.append(k)
    for k in keys:
        h = [val(r) for r in rows if (r['test'], r['payload_bytes']) == k and r['started'] == 'hand']
        m = [val(r) for r in rows if (r['test'], r['payload_bytes']) == k and r['started'] == 'mpirun']
        fmt = (lambda v: '%.2f' % v) if k[0].endswith('lat') else (lambda v: '%.0f' % v)
        f.write('| %s | %s | %s | %s | %.2f |\n' % (k[0], k[1], ', '.join(map(fmt, h)), ', '.join(map(fmt, m)),
                                                  statistics.median(m) / statistics.median(h)))
print(open(out + '/launch.md').read())
PY
