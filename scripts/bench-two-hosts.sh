#!/usr/bin/env bash
# Two hosts on one machine: network namespaces joined by a veth pair, tc-perf
# server in one and client in the other over UCX_TLS=tcp, next to the same
# tests between two local processes over shared memory. Needs root.
# Writes results/<platform>/two-hosts.{csv,md}.
# usage: scripts/bench-two-hosts.sh [ITERS]   (default 100000)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
iters=${1:-100000}
perf="$top/build/bin/tc-perf"
out="$top/results/$("$top/scripts/platform-id.sh")"
tmp=$(mktemp -d)
tag=$$ nsA=tbA$$ nsB=tbB$$ vA=tbva$$ vB=tbvb$$ net=10.234.$(( $$ % 250 )).
cleanup() { kill $(jobs -p) 2>/dev/null || true; ip netns del "$nsA" 2>/dev/null || true
            ip netns del "$nsB" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
mkdir -p "$out"
ip netns add "$nsA"; ip netns add "$nsB"
ip link add "$vA" type veth peer name "$vB"
ip link set "$vA" netns "$nsA"; ip link set "$vB" netns "$nsB"
ip -n "$nsA" addr add "${net}1/24" dev "$vA"; ip -n "$nsB" addr add "${net}2/24" dev "$vB"
for ns in "$nsA" "$nsB"; do ip -n "$ns" link set lo up; done
ip -n "$nsA" link set "$vA" up; ip -n "$nsB" link set "$vB" up
args=(-F fixed -t jam_lat,put_lat,am_lat,jam_rate,put_rate,am_rate -s 8,1024 -n "$iters" -w 1000 -T 30000 -q)
port=$((20000 + RANDOM % 20000))
ip netns exec "$nsA" env UCX_TLS=tcp "$perf" -p "$port" -c 1 -T 30000 >/dev/null 2>&1 &
sleep 0.3
ip netns exec "$nsB" env UCX_TLS=tcp "$perf" "${net}1" -p "$port" -c 0 "${args[@]}" --csv "$tmp/tcp.csv"
wait
port=$((port + 1))
"$perf" -p "$port" -c 1 -T 30000 >/dev/null 2>&1 &
sleep 0.3
"$perf" 127.0.0.1 -p "$port" -c 0 "${args[@]}" --csv "$tmp/shm.csv"
wait
{ head -1 "$tmp/tcp.csv" | sed 's/^/path,/'; sed 1d "$tmp/tcp.csv" | sed 's/^/veth-tcp,/'
  sed 1d "$tmp/shm.csv" | sed 's/^/local-shm,/'; } > "$out/two-hosts.csv"
python3 - "$out/two-hosts.csv" "$iters" > "$out/two-hosts.md" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print('# Two hosts (veth, UCX_TLS=tcp) vs two local processes (shared memory)\n')
print('`scripts/bench-two-hosts.sh %s`: p50 one-way latency in us, rate in messages/s.\n' % sys.argv[2])
print('| test | payload B | veth-tcp | local-shm |')
print('|---|---:|---:|---:|')
for r in rows:
    if r['path'] != 'veth-tcp':
        continue
    o = [x for x in rows if x['path'] == 'local-shm' and x['test'] == r['test'] and x['payload_bytes'] == r['payload_bytes']][0]
    col = 'p50_us' if r['test'].endswith('lat') else 'rate_mps'
    print('| %s | %s | %s | %s |' % (r['test'], r['payload_bytes'], r[col], o[col]))
PY
cat "$out/two-hosts.md"
