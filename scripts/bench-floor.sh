#!/usr/bin/env bash
# How far every jam is from the hardware (issue "arrival at the hardware's
# pace"): per jam, one tc-perf invocation, two processes pinned to cores 0
# and 1, that runs jam_lat/jam_rate in every mode beside floor_*, put_read_*
# and put_* at the same frame sizes, so each ratio comes from one run, each
# invocation right after ucx_perftest -t ucp_put_lat -s 64 on the same cores.
# Size by size (tc-perf --order size) and in blocks (--blocks): a payload's
# jam rows and references take turns every ITERS/BLOCKS iterations, so a
# host whose speed switches (the AMD guest's placements) slows them alike;
# test by test they ran minutes apart and the host drifted in between.
# Writes OUT/<jam>.csv, OUT/<jam>.json, OUT/ucx_perftest.<jam>.r<N>.txt and
# OUT/tables.md (one table per payload size: p50 one-way and rate, each
# with its ratio to floor_*, put_read_* and put_*).
#
# usage: scripts/bench-floor.sh [-o OUT] [-n ITERS] [-s SIZES] [-j JAMS] [-r ROUNDS] [-W WAIT]
#                               [-b BLOCKS]
#   -o OUT     default results/<platform>/floor
#   -n ITERS   measured iterations per point (default 1000000)
#   -s SIZES   payload bytes (default 8,64,256,1024,4096,16384,32768)
#   -j JAMS    default noop,server_sum
#   -r ROUNDS  invocations per jam (default 1); tables take the median ratio
#              over rounds, each ratio from its own invocation
#   -W WAIT    how every receiver waits, jams and references alike (tc-perf
#              -W; default poll). Where plain loads are the slow way to spin
#              (this AMD guest), pause is what the hardware needs
#   -b BLOCKS  tc-perf --blocks (default 100: 10^4 iterations a turn at the
#              default -n); 1 runs each point whole
# Nothing else should run on the machine meanwhile.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out="" iters=1000000 sizes=8,64,256,1024,4096,16384,32768 jams=noop,server_sum rounds=1 wait=poll
blocks=100
while [ $# -gt 0 ]; do
    case $1 in
        -o) out=$2; shift 2 ;;
        -n) iters=$2; shift 2 ;;
        -s) sizes=$2; shift 2 ;;
        -j) jams=$2; shift 2 ;;
        -r) rounds=$2; shift 2 ;;
        -W) wait=$2; shift 2 ;;
        -b) blocks=$2; shift 2 ;;
        -h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench-floor.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
perf=${TC_BUILD:-$top/build}/bin/tc-perf
[ "$blocks" -le "$iters" ] || blocks=$iters # tc-perf refuses more blocks than iterations
[ -x "$perf" ] || { echo "bench-floor.sh: $perf missing: build first (make)" >&2; exit 1; }
[ -n "$out" ] || out=$top/results/$("$top/scripts/platform-id.sh")/floor
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
tests=jam_lat,floor_lat,put_read_lat,put_lat,jam_rate,floor_rate,put_read_rate,put_rate

# ucx_perftest -t ucp_put_lat -s 64 on the same cores and transport, right
# before each tc-perf invocation (the host's speed drifts over minutes, so
# each invocation gets its own transport reference)
perftest() {
    local port=$((20000 + RANDOM % 20000)) n=$(( iters < 1000000 ? iters : 1000000 ))
    if ! command -v ucx_perftest >/dev/null 2>&1; then
        echo "unsupported: ucx_perftest is not installed (Debian: ucx-utils)" >"$1"
        return
    fi
    taskset -c 1 ucx_perftest -p "$port" >/dev/null 2>&1 &
    sleep 0.5
    taskset -c 0 ucx_perftest 127.0.0.1 -p "$port" -t ucp_put_lat -s 64 -n "$n" >"$1" 2>&1 \
        || echo "bench-floor: ucx_perftest failed" >&2
    wait || true
}

for r in $(seq "$rounds"); do
    for jam in ${jams//,/ }; do
        perftest "$out/ucx_perftest.$jam.r$r.txt"
        port=$((20000 + RANDOM % 20000))
        "$perf" -p "$port" -c 1 -T 60000 -q >"$tmp/srv.log" 2>&1 &
        srv=$!
        sleep 0.3
        echo "bench-floor: round $r/$rounds, jam $jam" >&2
        "$perf" 127.0.0.1 -p "$port" -c 0 -T 60000 -F fixed -j "$jam" -m local,injected,cached \
            -W "$wait" -t "$tests" -s "$sizes" -n "$iters" -w 10000 --order size --blocks "$blocks" -q \
            --csv "$tmp/$jam.r$r.csv" --json "$tmp/$jam.r$r.json" \
            || { cat "$tmp/srv.log" >&2; exit 1; }
        wait "$srv" || { cat "$tmp/srv.log" >&2; exit 1; }
    done
done
for jam in ${jams//,/ }; do
    cp "$tmp/$jam.r1.json" "$out/$jam.json"
    python3 - "$out/$jam.csv" "$tmp"/$jam.r*.csv <<'PY'
import csv, sys
rows = []
for p in sys.argv[2:]:
    rnd = p.rsplit(".r", 1)[1][:-4]
    for row in csv.DictReader(open(p)):
        rows.append(dict(round=rnd, **row))
with open(sys.argv[1], "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
PY
done

"$top/scripts/tc-floor-table" "$out" ${jams//,/ } >"$out/tables.md"
echo "bench-floor: $out/tables.md" >&2
