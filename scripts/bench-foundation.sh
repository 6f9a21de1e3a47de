#!/usr/bin/env bash
# The foundation measurement: jams vs raw UCX puts and active messages, two
# processes pinned to two cores, all tests in one tc-perf invocation per
# round, ROUNDS rounds; writes every row and the median ratios to
# results/<platform>/foundation.{csv,md,json}.
# usage: scripts/bench-foundation.sh [ROUNDS] [ITERS]   (defaults 5, 1000000)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-5} iters=${2:-1000000}
perf="$top/build/bin/tc-perf"
[ -x "$perf" ] || { echo "build first: make" >&2; exit 1; }
platform=$("$top/scripts/platform-id.sh")
out="$top/results/$platform"
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
mkdir -p "$out"
port=$((20000 + RANDOM % 20000))
ncpu=$(nproc)
srv_cpu=$((ncpu > 1 ? 1 : 0))

sizes=8,64,1024,16384
tests=jam_lat,put_lat,am_lat,jam_rate,put_rate,am_rate
for signal in fenced ordered; do
  for jam in indirect_put noop; do
    for r in $(seq "$rounds"); do
      echo "round $r/$rounds: signalling $signal, jam $jam" >&2
      "$perf" -p "$port" -c "$srv_cpu" -T 60000 >"$tmp/srv.log" 2>&1 &
      srv=$!
      "$perf" 127.0.0.1 -p "$port" -c 0 -T 60000 -F fixed --signal "$signal" -j "$jam" -t "$tests" -s "$sizes" \
          -n "$iters" -w 10000 -q --csv "$tmp/$signal-$jam-$r.csv" --json "$tmp/$signal-$jam-$r.json" \
          || { cat "$tmp/srv.log" >&2; exit 1; }
      wait "$srv"
    done
  done
done

python3 - "$tmp" "$out" "$rounds" "$iters" <<'PY'
import csv, glob, json, os, statistics, sys
tmp, out, rounds, iters = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
# the jam each file ran is in its name: signal-jam-round.csv
rows = []
for path in sorted(glob.glob(os.path.join(tmp, '*.csv'))):
    signal, rest = os.path.basename(path).split('-', 1)
    jam, rnd = rest.rsplit('-', 1)
    with open(path) as f:
        for row in csv.DictReader(f):
            row.update(round=int(rnd.split('.')[0]), signalling=signal, run_jam=jam)
            rows.append(row)
fields = ['signalling', 'run_jam', 'round'] + [k for k in rows[0] if k not in ('signalling', 'run_jam', 'round')]
with open(os.path.join(out, 'foundation.csv'), 'w', newline='') as f:
    w = csv.DictWriter(f, fieldnames=fields)
    w.writeheader()
    w.writerows(rows)

def med(signal, jam, test, size, col):
    v = [float(r[col]) for r in rows if r['signalling'] == signal and r['run_jam'] == jam
         and r['test'] == test and int(r['payload_bytes']) == size]
    return statistics.median(v) if v else float('nan')

def ratios(signal, jam, size, col, a, b):
    # per-round ratio (same invocation), then the median over rounds
    v = []
    for rnd in range(1, rounds + 1):
        x = [float(r[col]) for r in rows if r['signalling'] == signal and r['run_jam'] == jam and
             int(r['round']) == rnd and int(r['payload_bytes']) == size and r['test'] == a]
        y = [float(r[col]) for r in rows if r['signalling'] == signal and r['run_jam'] == jam and
             int(r['round']) == rnd and int(r['payload_bytes']) == size and r['test'] == b]
        if x and y and y[0] > 0:
            v.append(x[0] / y[0])
    return statistics.median(v) if v else float('nan')

meta = json.load(open(sorted(glob.glob(os.path.join(tmp, '*.json')))[0]))
lines = ['# Foundation: jams vs raw UCX on %s' % os.path.basename(out), '',
         'CPU: %s; %s; UCX %s; transports %s; %d rounds of `%s` (%d iterations, 10000 warm-up), '
         'two processes pinned to cores 0 and 1. Each ratio is taken within one invocation, then '
         'the median over rounds. Latencies are p50 one-way (RTT/2) in microseconds; rates in '
         'million messages per second.' % (meta['cpu_model'], meta['topology'], meta['ucx_version'],
                                          meta['transports'], rounds, 'scripts/bench-foundation.sh', iters), '']
targets = {'jam/put lat': '<= 1.15', 'jam/am lat': '<= 0.5', 'jam/put rate': '>= 0.8'}
for signal in ('fenced', 'ordered'):
    for jam in ('indirect_put', 'noop'):
        lines += ['## signalling %s, jam %s' % (signal, jam), '',
                  '| payload B | jam_lat | put_lat | am_lat | jam/put lat | jam/am lat | jam_rate M/s | put_rate M/s | am_rate M/s | jam/put rate |',
                  '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|']
        for size in (8, 64, 1024, 16384):
            lines.append('| %d | %.3f | %.3f | %.3f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |' % (
                size, med(signal, jam, 'jam_lat', size, 'p50_us'), med(signal, jam, 'put_lat', size, 'p50_us'),
                med(signal, jam, 'am_lat', size, 'p50_us'),
                ratios(signal, jam, size, 'p50_us', 'jam_lat', 'put_lat'),
                ratios(signal, jam, size, 'p50_us', 'jam_lat', 'am_lat'),
                med(signal, jam, 'jam_rate', size, 'rate_mps') / 1e6, med(signal, jam, 'put_rate', size, 'rate_mps') / 1e6,
                med(signal, jam, 'am_rate', size, 'rate_mps') / 1e6,
                ratios(signal, jam, size, 'rate_mps', 'jam_rate', 'put_rate')))
        lines.append('')
lines += ['Targets (issue 2, 8-byte payload): jam/put lat %s, jam/am lat %s, jam/put rate %s.' % (
    targets['jam/put lat'], targets['jam/am lat'], targets['jam/put rate']), '']
open(os.path.join(out, 'foundation.md'), 'w').write('\n'.join(lines))
meta['rounds'] = rounds
json.dump(meta, open(os.path.join(out, 'foundation.json'), 'w'), indent=2)
print('\n'.join(lines))
PY
echo "wrote $out/foundation.{csv,md,json}" >&2
