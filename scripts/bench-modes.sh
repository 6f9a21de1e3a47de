#!/usr/bin/env bash
# Local vs Injected vs Cached Function (paper Figs. 7-8 shape): jam_lat and
# jam_rate for payloads of 1 to 4096 integers, all modes on one connection
# per round, two processes pinned to two cores; the median over rounds of
# each mode's ratio to local. Writes results/<platform>/modes-<jam>.{csv,md}.
# usage: scripts/bench-modes.sh [ROUNDS] [ITERS] [JAM]   (defaults 3, 200000, indirect_put)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-3} iters=${2:-200000} jam=${3:-indirect_put}
perf="$top/build/bin/tc-perf"
out="$top/results/$("$top/scripts/platform-id.sh")"
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
mkdir -p "$out"
sizes=4,16,64,256,1024,4096,16384
for r in $(seq "$rounds"); do
    port=$((20000 + RANDOM % 20000))
    "$perf" -p "$port" -c 1 -T 60000 >/dev/null 2>&1 &
    sleep 0.3
    "$perf" 127.0.0.1 -p "$port" -c 0 -T 60000 -F fixed -j "$jam" -m local,injected,cached \
        -t jam_lat,jam_rate -s "$sizes" -n "$iters" -w 2000 -q --csv "$tmp/r$r.csv"
    wait
done
# the table on stdout and in modes-<jam>.md
python3 - "$tmp" "$out" "$jam" "$rounds" "$iters" <<'PY' | tee "$out/modes-$jam.md"
import csv, glob, os, statistics, sys
tmp, out, jam, rounds, iters = sys.argv[1:6]
rows = []
for p in sorted(glob.glob(os.path.join(tmp, 'r*.csv'))):
    r = os.path.basename(p)[1:-4]
    for row in csv.DictReader(open(p)):
        row['round'] = r
        rows.append(row)
with open(os.path.join(out, 'modes-%s.csv' % jam), 'w', newline='') as f:
    w = csv.DictWriter(f, fieldnames=['round'] + [k for k in rows[0] if k != 'round'])
    w.writeheader(); w.writerows(rows)
def val(test, mode, size, col, rnd):
    for x in rows:
        if x['test'] == test and x['mode'] == mode and int(x['payload_bytes']) == size and x['round'] == rnd:
            return float(x[col])
sizes = sorted({int(x['payload_bytes']) for x in rows})
rnds = sorted({x['round'] for x in rows})
code = [x for x in rows if x['mode'] == 'injected'][0]
print('# Local vs Injected vs Cached: jam %s\n' % jam)
print('`scripts/bench-modes.sh %s %s %s`; code %s bytes, %s GOT slots; p50 one-way latency (us) '
      'and rate (M msg/s), medians over rounds; overhead = mode / local - 1, per round then median.\n'
      % (rounds, iters, jam, code['code_bytes'], code['got_slots']))
print('| payload B | local lat | injected lat | cached lat | injected overhead | cached overhead | local rate | injected rate | cached rate | injected rate loss | cached rate loss |')
print('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
for s in sizes:
    lat = {m: statistics.median(val('jam_lat', m, s, 'p50_us', r) for r in rnds) for m in ('local', 'injected', 'cached')}
    rate = {m: statistics.median(val('jam_rate', m, s, 'rate_mps', r) for r in rnds) / 1e6 for m in ('local', 'injected', 'cached')}
    ov = {m: statistics.median(val('jam_lat', m, s, 'p50_us', r) / val('jam_lat', 'local', s, 'p50_us', r) - 1 for r in rnds) for m in ('injected', 'cached')}
    rl = {m: statistics.median(1 - val('jam_rate', m, s, 'rate_mps', r) / val('jam_rate', 'local', s, 'rate_mps', r) for r in rnds) for m in ('injected', 'cached')}
    print('| %d | %.3f | %.3f | %.3f | %+.0f%% | %+.0f%% | %.2f | %.2f | %.2f | %.0f%% | %.0f%% |' % (
        s, lat['local'], lat['injected'], lat['cached'], 100 * ov['injected'], 100 * ov['cached'],
        rate['local'], rate['injected'], rate['cached'], 100 * rl['injected'], 100 * rl['cached']))
PY
