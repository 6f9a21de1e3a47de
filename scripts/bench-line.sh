#!/usr/bin/env bash
# A one-line frame against the hardware and against UCX: one tc-perf
# invocation per round, two processes pinned to cores 0 and 1, runs a jam's
# jam_lat beside floor_lat (stores into the peer's mapped ring, no UCX
# call), put_lat (a raw ucp_put) and am_lat (ucp_am_send_nbx) at one
# payload, size by size and in blocks (--order size --blocks B: the rows
# take turns, so a host whose speed switches slows them alike); right
# before it, ucx_perftest -t ucp_put_lat and -t ucp_am_lat at the same
# payload on the same cores and transport. What the ratios mean depends on
# the host: scripts/bench-phase.sh says whether its floor moves smoothly
# with a few ns of receiver work (then jam_lat / floor_lat is the
# framework's share) or jumps between levels (then only jam_lat - floor_lat
# in ns says anything).
# Writes OUT/line.csv (round, source, test, p50_us, min_us), OUT/line.md
# (per round and the median over rounds: each p50, jam - floor in ns,
# jam / floor, jam / put) and OUT/last.json (the last tc-perf JSON).
#
# usage: scripts/bench-line.sh [-o OUT] [-n ITERS] [-s SIZE] [-j JAM] [-m MODE] [-r ROUNDS]
#                              [-b BLOCKS] [-W WAIT] [-a API]
#   -o OUT     default results/<platform>/line
#   -n ITERS   measured round trips per point (default 1000000)
#   -s SIZE    payload bytes (default 8: a one-line frame)
#   -j JAM     default noop
#   -m MODE    local (default), cached or injected
#   -r ROUNDS  invocations (default 3)
#   -b BLOCKS  tc-perf --blocks (default 10)
#   -W WAIT    how every receiver waits (tc-perf -W; default poll)
#   -a API     how jam_lat sends (tc-perf --api): send (default, tc_jam_send)
#              or prepared (tc_jam_init once a point, tc_jam_start each frame)
# Nothing else should run on the machine meanwhile.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out="" iters=1000000 size=8 jam=noop mode=local rounds=3 blocks=10 wait=poll api=send
while [ $# -gt 0 ]; do
    case $1 in
        -o) out=$2; shift 2 ;;
        -n) iters=$2; shift 2 ;;
        -s) size=$2; shift 2 ;;
        -j) jam=$2; shift 2 ;;
        -m) mode=$2; shift 2 ;;
        -r) rounds=$2; shift 2 ;;
        -b) blocks=$2; shift 2 ;;
        -W) wait=$2; shift 2 ;;
        -a) api=$2; shift 2 ;;
        -h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench-line.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
case $api in send|prepared) ;; *) echo "bench-line.sh: bad api '$api' (send, prepared)" >&2; exit 2 ;; esac
perf=${TC_BUILD:-$top/build}/bin/tc-perf
[ -x "$perf" ] || { echo "bench-line.sh: $perf missing: build first (make)" >&2; exit 1; }
[ "$blocks" -le "$iters" ] || blocks=$iters # tc-perf refuses more blocks than iterations
[ -n "$out" ] || out=$top/results/$("$top/scripts/platform-id.sh")/line
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
warm=$(( iters < 10000 ? iters : 10000 ))

echo "round,source,test,p50_us,min_us" >"$tmp/line.csv"
# ucx_perftest's own latency test (one way, as tc-perf's), its typical
# (50th percentile) and its whole run's average taken as given
perftest() { # round test
    local port=$((20000 + RANDOM % 20000))
    taskset -c 1 ucx_perftest -p "$port" >/dev/null 2>&1 &
    sleep 0.5
    if taskset -c 0 ucx_perftest 127.0.0.1 -p "$port" -t "$2" -s "$size" -n "$iters" \
           >"$tmp/perftest.txt" 2>&1; then
        awk -v r="$1" -v t="$2" '$1 == "Final:" { printf "%s,ucx_perftest,%s,%s,\n", r, t, $3 }' \
            "$tmp/perftest.txt" >>"$tmp/line.csv"
    else
        echo "bench-line: ucx_perftest -t $2 failed: $(tail -1 "$tmp/perftest.txt")" >&2
    fi
    wait || true
}
for r in $(seq "$rounds"); do
    echo "bench-line: round $r/$rounds" >&2
    if command -v ucx_perftest >/dev/null 2>&1; then
        perftest "$r" ucp_put_lat
        perftest "$r" ucp_am_lat
    elif [ "$r" = 1 ]; then
        echo "bench-line: unsupported: ucx_perftest is not installed (Debian: ucx-utils)" >&2
    fi
    port=$((20000 + RANDOM % 20000))
    "$perf" -p "$port" -c 1 -T 60000 -q >"$tmp/srv.log" 2>&1 &
    srv=$!
    sleep 0.3
    "$perf" 127.0.0.1 -p "$port" -c 0 -T 60000 -F fixed -t jam_lat,floor_lat,put_lat,am_lat -j "$jam" \
        -m "$mode" -W "$wait" --api "$api" -s "$size" -n "$iters" -w "$warm" --order size --blocks "$blocks" \
        -q --csv "$tmp/p.csv" --json "$tmp/p.json" >"$tmp/cli.log" 2>&1 ||
        { cat "$tmp/cli.log" "$tmp/srv.log" >&2; exit 1; }
    wait "$srv" || { cat "$tmp/srv.log" >&2; exit 1; }
    python3 - "$tmp/p.csv" "$r" >>"$tmp/line.csv" <<'PY'
import csv, sys
for row in csv.DictReader(open(sys.argv[1])):
    print("%s,tc-perf,%s,%s,%s" % (sys.argv[2], row["test"], row["p50_us"], row["min_us"]))
PY
done
cp "$tmp/p.json" "$out/last.json"
cp "$tmp/line.csv" "$out/line.csv"

python3 - "$out" "$("$top/scripts/platform-id.sh")" \
    "$(git -C "$top" describe --always --dirty --abbrev=7 2>/dev/null || echo unknown)" \
    "$jam" "$mode" "$size" "$wait" "$iters" "$blocks" "$api" <<'PY'
import csv, statistics, sys
out, platform, rev, jam, mode, size, wait, iters, blocks, api = sys.argv[1:]
rows = list(csv.DictReader(open(out + "/line.csv")))
rounds = sorted({int(r["round"]) for r in rows})
cols = [("tc-perf", "jam_lat"), ("tc-perf", "floor_lat"), ("tc-perf", "put_lat"),
        ("tc-perf", "am_lat"), ("ucx_perftest", "ucp_put_lat"), ("ucx_perftest", "ucp_am_lat")]
p50 = {(int(r["round"]), r["source"], r["test"]): float(r["p50_us"]) for r in rows}
cols = [c for c in cols if any((k, c[0], c[1]) in p50 for k in rounds)]

def derived(get):
    """jam - floor in ns, jam / floor, jam / put of one round (None: a row missing)."""
    jam, floor, put = get("jam_lat"), get("floor_lat"), get("put_lat")
    return [(jam - floor) * 1000 if None not in (jam, floor) else None,
            jam / floor if None not in (jam, floor) and floor > 0 else None,
            jam / put if None not in (jam, put) and put > 0 else None]

def fmt_derived(vals):
    return ["-" if v is None else ("%.0f" if i == 0 else "%.2f") % v for i, v in enumerate(vals)]

head = [t for _, t in cols] + ["jam - floor ns", "jam / floor", "jam / put"]
lines = ["# A one-line frame against the floor, a raw put and UCX's active message", "",
         "Platform `%s`, tree %s. `scripts/bench-line.sh`: %s %s, api %s, %s B payload, two processes"
         " (cores 0 and 1), receivers waiting with %s, %s round trips a point, `--order size"
         " --blocks %s`, one tc-perf invocation a round, each right after ucx_perftest"
         " `-t ucp_put_lat` and `-t ucp_am_lat` at the same payload on the same cores. p50 one-way,"
         " us (ucx_perftest: its typical latency)." % (platform, rev, jam, mode, api, size, wait,
                                                       iters, blocks), "",
         "| round | " + " | ".join(head) + " |", "|---" * (len(head) + 1) + "|"]
for k in rounds:
    get = lambda t, k=k: p50.get((k, "tc-perf", t))
    cells = ["%.3f" % p50[(k,) + c] if (k,) + c in p50 else "-" for c in cols]
    lines.append("| %d | " % k + " | ".join(cells + fmt_derived(derived(get))) + " |")

def med(c):
    vals = [p50[(k,) + c] for k in rounds if (k,) + c in p50]
    return statistics.median(vals) if vals else None

medians = {c: med(c) for c in cols}
cells = ["%.3f" % medians[c] if medians[c] is not None else "-" for c in cols]
# the ratios of the medians' row come from each round's own ratio (one run each)
per_round = [derived(lambda t, k=k: p50.get((k, "tc-perf", t))) for k in rounds]
agg = []
for i in range(3):
    vals = [p[i] for p in per_round if p[i] is not None]
    agg.append(statistics.median(vals) if vals else None)
agg = fmt_derived(agg)
lines.append("| median | " + " | ".join(cells + agg) + " |")
lines += ["", "The median row's last three columns are the medians of each round's own value."]
open(out + "/line.md", "w").write("\n".join(lines) + "\n")
PY
echo "bench-line: $out/line.md" >&2
