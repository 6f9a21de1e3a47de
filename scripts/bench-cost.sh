#!/usr/bin/env bash
# The framework's own work per message (tc-cost: one thread drives both
# ends of a loopback pair, so no line moves between cores): instructions per
# message under callgrind, which hold from run to run and host to host of
# one architecture (no PMU needed, no placement to drift), beside the
# native nanoseconds of the same loop on one core.
# Writes OUT/cost.csv (one row per jam, mode and payload) and OUT/cost.md.
#
# usage: scripts/bench-cost.sh [-o OUT] [-n ITERS] [-N ITERS] [-j JAMS] [-m MODES] [-s SIZES]
#   -o OUT    default results/<platform>/cost
#   -n ITERS  round trips per point under callgrind (default 20000)
#   -N ITERS  round trips per point natively (default 1000000; 0: skip)
#   -j, -m, -s  tc-cost's (default noop,server_sum; local,injected,cached; 8,64,1024)
# Nothing else should run on the machine meanwhile (for the nanoseconds).
# Exit 77 with "unsupported: why" where callgrind cannot count this build
# (no valgrind, a cross build, a sanitizer build).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out="" iters=20000 native=1000000 jams=noop,server_sum modes=local,injected,cached sizes=8,64,1024
while [ $# -gt 0 ]; do
    case $1 in
        -o) out=$2; shift 2 ;;
        -n) iters=$2; shift 2 ;;
        -N) native=$2; shift 2 ;;
        -j) jams=$2; shift 2 ;;
        -m) modes=$2; shift 2 ;;
        -s) sizes=$2; shift 2 ;;
        -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench-cost.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
cost=${TC_BUILD:-$top/build}/bin/tc-cost
[ -x "$cost" ] || { echo "bench-cost.sh: $cost missing: build first (make)" >&2; exit 1; }
# Where callgrind cannot count this build: one line "unsupported: why", exit 77
# (bench-ci and the tests skip on it)
unsupported() { echo "bench-cost.sh: unsupported: $*" >&2; exit 77; }
command -v valgrind >/dev/null 2>&1 || unsupported "valgrind missing (scripts/deps.sh installs it)"
machine=$(readelf -h "$cost" 2>/dev/null | awk -F: '/Machine:/ { gsub(/^ +/, "", $2); print $2 }')
case "$(uname -m):$machine" in
    x86_64:*X86-64*|aarch64:*AArch64*) ;;
    *) unsupported "tc-cost is built for ${machine:-an unknown machine}: callgrind runs this host's code only" ;;
esac
! ldd "$cost" 2>/dev/null | grep -q libasan || unsupported "sanitizer build: callgrind does not run under ASan"
[ -n "$out" ] || out=$top/results/$("$top/scripts/platform-id.sh")/cost
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args=(-j "$jams" -m "$modes" -s "$sizes")

# Each point's loop is collected alone and dumped with its label
# (CALLGRIND_DUMP_STATS_AT): one file per point, its totals the loop's.
valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$tmp/cg.out" \
    "$cost" "${args[@]}" -n "$iters" > "$tmp/cg.log" 2>&1 ||
    { cat "$tmp/cg.log" >&2; echo "bench-cost.sh: tc-cost failed under callgrind" >&2; exit 1; }
for f in "$tmp"/cg.out.*; do
    awk '/^desc: Trigger: Client Request: tc-cost /{
             for (i = 1; i <= NF; ++i) if (split($i, kv, "=") == 2) v[kv[1]] = kv[2]
         }
         /^(summary|totals):/{ ir = $2 }
         END { if (v["jam"] != "") printf "%s,%s,%s,%s,%s,%s\n", v["jam"], v["mode"],
                   v["payload"], v["frame"], v["messages"], ir }' "$f"
done > "$tmp/ir.csv"
[ -s "$tmp/ir.csv" ] || { echo "bench-cost.sh: callgrind wrote no point" >&2; exit 1; }

if [ "$native" -gt 0 ]; then
    "$cost" "${args[@]}" -n "$native" -c 0 --csv "$tmp/ns.csv" > "$tmp/ns.log" 2>&1 ||
        { cat "$tmp/ns.log" >&2; echo "bench-cost.sh: tc-cost failed" >&2; exit 1; }
else
    echo "jam,mode,payload_bytes,frame_bytes,messages,ns_per_msg" > "$tmp/ns.csv"
fi

python3 - "$tmp/ir.csv" "$tmp/ns.csv" "$out" "$("$top/scripts/platform-id.sh")" \
    "$(git -C "$top" describe --always --dirty --abbrev=7 2>/dev/null || echo unknown)" \
    "$iters" "$native" <<'EOF'
import csv, sys
ir_path, ns_path, out, platform, rev, iters, native = sys.argv[1:]
ns = {}
for r in csv.DictReader(open(ns_path)):
    ns[(r["jam"], r["mode"], r["payload_bytes"])] = float(r["ns_per_msg"])
rows = []
for line in open(ir_path):
    jam, mode, payload, frame, msgs, ir = line.strip().split(",")
    rows.append((jam, mode, int(payload), int(frame), int(msgs), int(ir) / int(msgs),
                 ns.get((jam, mode, payload))))
order = {"local": 0, "injected": 1, "cached": 2}
rows.sort(key=lambda r: (r[0], r[2], order.get(r[1], 9)))
with open(out + "/cost.csv", "w") as f:
    f.write("jam,mode,payload_bytes,frame_bytes,messages,instructions_per_msg,ns_per_msg\n")
    for r in rows:
        f.write("%s,%s,%d,%d,%d,%.1f,%s\n" % (r[0], r[1], r[2], r[3], r[4], r[5],
                                             "" if r[6] is None else "%.2f" % r[6]))
with open(out + "/cost.md", "w") as f:
    f.write("# The framework's own work per message\n\n")
    f.write("Platform `%s`, tree %s. `scripts/bench-cost.sh`: tc-cost, one thread driving both "
            "ends of a loopback pair (a message is one send and the run of it), instructions "
            "per message under callgrind (%s round trips a point, the loop alone collected), "
            "and natively (%s round trips, core 0) the nanoseconds of the same loop, which "
            "include the store-to-load stall of one core writing through one mapping and "
            "reading through another.\n\n" % (platform, rev, iters, native))
    f.write("| jam | payload B | mode | frame B | instructions / msg | ns / msg |\n")
    f.write("|---|---:|---|---:|---:|---:|\n")
    for r in rows:
        f.write("| %s | %d | %s | %d | %.1f | %s |\n" % (r[0], r[2], r[1], r[3], r[5],
                                                      "" if r[6] is None else "%.2f" % r[6]))
EOF
echo "bench-cost: $out/cost.md"
