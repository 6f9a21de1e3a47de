#!/usr/bin/env bash
# How far a few nanoseconds of receiver work move this host's ping-pong:
# floor_lat (no UCX call, no framework: stores into the peer's mapped ring,
# the receiver reads every line) with tc-perf --ref-work N, both receivers
# taking N dependent steps before they answer, one invocation per (round, N),
# two processes pinned to cores 0 and 1. On a host whose round trip settles
# at one of a few levels by the phase of the receiver's polls against the
# sender's stores, the floor itself jumps between them as N grows by a few
# steps, and a ratio of two ping-pongs (a jam over its floor) is then a ratio
# of two levels. Where the floor moves smoothly with N, a jam's excess over
# its floor is the framework's own time. results/<platform>/phase/ keeps it.
# Writes OUT/phase.csv (round, ref_work, ref_work_ns, p50_us, min_us),
# OUT/phase.md (p50 per work and round, the work's time, the spread) and
# OUT/last.json (the last invocation's tc-perf JSON: host, build, options).
#
# usage: scripts/bench-phase.sh [-o OUT] [-n ITERS] [-s SIZE] [-w WORKS] [-r ROUNDS] [-W WAIT]
#   -o OUT     default results/<platform>/phase
#   -n ITERS   measured iterations per point (default 100000)
#   -s SIZE    payload bytes (default 8: a one-line frame)
#   -w WORKS   --ref-work values (default 0,4,8,12,16,24,32,48,64)
#   -r ROUNDS  sweeps (default 3)
#   -W WAIT    how the receivers wait (tc-perf -W; default pause)
# Nothing else should run on the machine meanwhile.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out="" iters=100000 size=8 works=0,4,8,12,16,24,32,48,64 rounds=3 wait=pause
while [ $# -gt 0 ]; do
    case $1 in
        -o) out=$2; shift 2 ;;
        -n) iters=$2; shift 2 ;;
        -s) size=$2; shift 2 ;;
        -w) works=$2; shift 2 ;;
        -r) rounds=$2; shift 2 ;;
        -W) wait=$2; shift 2 ;;
        -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench-phase.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
perf=${TC_BUILD:-$top/build}/bin/tc-perf
[ -x "$perf" ] || { echo "bench-phase.sh: $perf missing: build first (make)" >&2; exit 1; }
[ -n "$out" ] || out=$top/results/$("$top/scripts/platform-id.sh")/phase
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
warm=$(( iters < 10000 ? iters : 10000 ))

echo "round,ref_work,ref_work_ns,p50_us,min_us" >"$tmp/phase.csv"
for r in $(seq "$rounds"); do
    echo "bench-phase: round $r/$rounds" >&2
    for n in ${works//,/ }; do
        port=$((20000 + RANDOM % 20000))
        "$perf" -p "$port" -c 1 -T 60000 -q >"$tmp/srv.log" 2>&1 &
        srv=$!
        sleep 0.3
        "$perf" 127.0.0.1 -p "$port" -c 0 -T 60000 -F fixed -t floor_lat -W "$wait" -s "$size" \
            -n "$iters" -w "$warm" --ref-work "$n" -q --csv "$tmp/p.csv" --json "$tmp/p.json" \
            >"$tmp/cli.log" 2>&1 || { cat "$tmp/cli.log" "$tmp/srv.log" >&2; exit 1; }
        wait "$srv" || { cat "$tmp/srv.log" >&2; exit 1; }
        python3 - "$tmp/p.csv" "$tmp/p.json" "$r" "$n" >>"$tmp/phase.csv" <<'PY'
import csv, json, sys
(row,) = [x for x in csv.DictReader(open(sys.argv[1])) if x["test"] == "floor_lat"]
ns = json.load(open(sys.argv[2]))["options"]["ref_work_ns"]
print("%s,%s,%.2f,%s,%s" % (sys.argv[3], sys.argv[4], ns, row["p50_us"], row["min_us"]))
PY
    done
done
cp "$tmp/p.json" "$out/last.json"
cp "$tmp/phase.csv" "$out/phase.csv"

python3 - "$out" "$("$top/scripts/platform-id.sh")" \
    "$(git -C "$top" describe --always --dirty --abbrev=7 2>/dev/null || echo unknown)" \
    "$size" "$wait" "$iters" <<'PY'
import csv, statistics, sys
out, platform, rev, size, wait, iters = sys.argv[1:]
rows = list(csv.DictReader(open(out + "/phase.csv")))
works = sorted({int(r["ref_work"]) for r in rows})
rounds = sorted({int(r["round"]) for r in rows})
p50 = {(int(r["round"]), int(r["ref_work"])): float(r["p50_us"]) for r in rows}
ns = {}
for r in rows:
    ns.setdefault(int(r["ref_work"]), []).append(float(r["ref_work_ns"]))
allp = [p50[k] for k in p50]
lo, hi = min(allp), max(allp)
with open(out + "/phase.md", "w") as f:
    f.write("# The floor against a few ns of receiver work\n\n")
    f.write("Platform `%s`, tree %s. `scripts/bench-phase.sh`: floor_lat of a %s B payload, "
            "two processes (cores 0 and 1), receivers waiting with %s, %s iterations a point, "
            "one invocation per (round, work); `--ref-work N`: both receivers take N dependent "
            "steps before they answer (their time here: the JSON's ref_work_ns, the median over "
            "rounds). p50 one-way, us.\n\n" % (platform, rev, size, wait, iters))
    f.write("| work steps | work ns | " + " | ".join("round %d" % r for r in rounds) +
            " | median |\n")
    f.write("|---:|---:|" + "---:|" * (len(rounds) + 1) + "\n")
    for w in works:
        vals = [p50[(r, w)] for r in rounds if (r, w) in p50]
        f.write("| %d | %.1f | %s | %.3f |\n" % (w, statistics.median(ns[w]),
                " | ".join("%.3f" % v for v in vals), statistics.median(vals)))
    at0 = [p50[(r, works[0])] for r in rounds if (r, works[0]) in p50]
    f.write("\nOver the sweep the floor read %.3f-%.3f us (%.2fx); at %d steps, across "
            "rounds, %.3f-%.3f us (%.2fx). The work itself adds at most %.1f ns one way.\n"
            % (lo, hi, hi / lo, works[0], min(at0), max(at0), max(at0) / min(at0),
               statistics.median(ns[works[-1]])))
PY
echo "bench-phase: $out/phase.md" >&2
