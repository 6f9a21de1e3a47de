#!/usr/bin/env bash
# The CI benchmark sweep (make bench-ci): a short, fixed set of tc-perf points
# written in the runner's result layout (OUT/ci.csv + OUT/meta.json, see
# docs/REGRESSION.md), for scripts/tc-compare to hold against this platform's
# baseline, results/baseline/<platform-id>/.
#
# usage: scripts/bench-ci.sh [-o OUT_DIR] [-r ROUNDS] [-n ITERS] [--slow-jam N] [--no-cost] [--clang]
#                            [--against ROOT [--compare-flags "FLAGS"] [--record]] [--baseline]
#        scripts/bench-ci.sh --base REV [-o OUT_DIR] [--compare-flags "FLAGS"] [--cost-flags "FLAGS"] [--clang]
#   -o OUT_DIR    where ci.csv and meta.json go (default build/bench-ci)
#   --base REV    the counts against REV's, both counted here in this job
#                 (REV built in a worktree under build/bench-ci-base/,
#                 scripts/tc-base-count; this tree's bench-cost.sh and pins
#                 for both): no committed baseline is read, so any runner,
#                 any key, gates (3%, tc-compare --ir-threshold). No timing
#                 sweep (time against a base: make bench-ab). OUT_DIR/cost.csv,
#                 OUT_DIR/base/cost.csv. Exit 0 / 1 / 2 as --against's
#   --cost-flags FLAGS  bench-cost.sh options after --sweep ci, for both
#                 trees (default $BENCH_CI_COST_FLAGS): fewer points for a
#                 quick check (tests/test_ci_templates.sh: '-j indirect_put
#                 -m local -s 8'); a gate keeps the sweep's points
#   OUT_DIR/verdict.json  with --against or --base, always: the verdict
#                 (tc-compare --json: "exit" 0 / 1 / 2, "headline"), for a
#                 caller that gets make's 2 for any failure
#   -r ROUNDS     invocations per jam (default 3; tc-compare takes the median
#                 over rounds of each point's reference-normalised value)
#   -n ITERS      measured iterations per (test, size) (default 200000)
#   --slow-jam N  gate self-check: build a copy of the bench package whose
#                 indirect_put jam spins N extra loop iterations per message
#                 (a real, slower jam) and measure with it. Never for a baseline.
#   --no-cost     no instruction counts (tc-ab's blocks: their time only)
#   --against ROOT  then compare (scripts/tc-compare, with --compare-flags;
#                 its exit status: 0 no regression, 1 regression, 2 nothing
#                 compared): the counts with ROOT/cost/<key>/cost.csv, the
#                 committed baseline of this build's key, which serves every
#                 host (they gate even with --report-only, which is for the
#                 timings), and the timings with ROOT/<platform-id>/ where this
#                 platform has one. Where ROOT has neither nothing is compared:
#                 one line says so and what to run, exit 2. A missing timing
#                 baseline is recorded only where --record asks for it (refused
#                 on a busy machine as --baseline is)
#   --clang       then the clang leg: this tree built again with clang-14
#                 ($TC_CLANG_CC, default "clang-14 -gdwarf-4", into
#                 $TC_CLANG_BUILD, default build-clang/), its counts
#                 (OUT_DIR/clang/cost.csv) held by the same rule against its
#                 own key's baseline, ROOT/cost/<clang key>/ (with --base:
#                 against REV built with clang-14 too); each key's verdict in
#                 OUT_DIR/verdict.json ("legs") and a line each at the end;
#                 exit 1 where either leg regressed. No clang-14 here: the
#                 leg is skipped ("unsupported: clang-14 not installed"),
#                 never passed. No timing sweep for it: the counts alone
#   --baseline    the sweep is meant as a baseline: refuse to start while the
#                 machine is busy (1-minute load average above half its cores;
#                 TC_BASELINE_ANY_LOAD=1 overrides; TC_LOADAVG=X judges X
#                 instead of /proc/loadavg), since a baseline taken
#                 beside another job carries that job's noise into every verdict
#
# One tc-perf process per (round, jam), both sides in it (-l), pinned to cores
# 0 and 1: jam_lat, put_lat, jam_rate, put_rate for indirect_put and
# server_sum, local and injected, payloads 8, 64, 1024 and 4096 bytes; then
# the same points' deterministic counts where valgrind runs this build:
# instructions and simulated cycles per message, send and receive apart
# (scripts/bench-cost.sh, pinned: OUT/cost.csv and OUT/cost-meta.json, whose
# key names the architecture, compiler, C library and UCX they hold for).
# TC_BUILD: the build folder (default build/). Each invocation
# carries its own raw-put reference rows, so every point can be normalised by
# the machine's speed at that moment.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
argv=("$@")
out=$top/build/bench-ci rounds=3 iters=200000 slow= against= compare_flags= baseline= record= cost=1 base= clang=
cost_flags=${BENCH_CI_COST_FLAGS:-}
while [ $# -gt 0 ]; do
    case $1 in
        -o) out=$2; shift 2 ;;
        -r) rounds=$2; shift 2 ;;
        -n) iters=$2; shift 2 ;;
        --slow-jam) slow=$2; shift 2 ;;
        --against) against=$2; shift 2 ;;
        --compare-flags) compare_flags=$2; shift 2 ;;
        --base) base=$2; shift 2 ;;
        --cost-flags) cost_flags=$2; shift 2 ;;
        --baseline) baseline=1; shift ;;
        --record) record=1; shift ;;
        --no-cost) cost=; shift ;;
        --clang) clang=1; shift ;;
        -h|--help) sed -n '2,67p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench-ci.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
bin=${TC_BUILD:-$top/build}/bin
perf=$bin/tc-perf
[ -x "$perf" ] || { echo "bench-ci.sh: $perf missing: build first (make)" >&2; exit 1; }
[ -n "$slow" ] && [ -n "$baseline" ] && { echo "bench-ci.sh: --slow-jam never makes a baseline" >&2; exit 2; }
[ -z "$clang" ] || [ -z "$baseline$record" ] ||
    { echo "bench-ci.sh: --clang holds counts only: not with --baseline or --record" >&2; exit 2; }
if [ -n "$clang" ]; then
    # This key's leg (this script without --clang), then the clang leg, then
    # the one verdict of both (scripts/bench-ci-legs.sh).
    own=()
    for a in "${argv[@]}"; do [ "$a" = --clang ] || own+=("$a"); done
    rc=0
    "$0" "${own[@]}" || rc=$?
    exec "$top/scripts/bench-ci-legs.sh" "$rc" "$out" "$against" "$base" "$slow" "$compare_flags" "$cost_flags"
fi
platform_id=${TC_PLATFORM_ID:-$("$top/scripts/platform-id.sh")}
# why a baseline may not be taken now (empty: it may): the machine is busy
busy() {
    [ "${TC_BASELINE_ANY_LOAD:-}" != 1 ] || return 0
    local why
    # the one judge of a busy host (tcresults/hoststate.py), as make figures' runs are judged
    why=$(python3 "$top/scripts/tc-host-state" --why-busy) || exit 2
    [ -z "$why" ] || echo "$why: a baseline must be taken on an idle machine" \
                          "(stop the other work, or TC_BASELINE_ANY_LOAD=1)"
}
# the verdict a caller reads where make's exit status is 2 for any failure
verdict=$out/verdict.json
# nothing compared (exit 2): one line, why and what to run (and the verdict)
nothing() {
    echo "bench-ci: nothing compared: $*" >&2
    if [ -n "$against$base" ]; then
        mkdir -p "$out"
        python3 -c 'import json, sys; print(json.dumps({"tool": "bench-ci", "status": "nothing-compared",
            "exit": 2, "headline": sys.argv[1], "reason": sys.argv[1], "cases": []}, indent=1))' \
            "bench-ci: nothing compared: $*" >"$verdict.tmp" && mv "$verdict.tmp" "$verdict"
    fi
    exit 2
}
# a --json FILE of the caller's (in --compare-flags) wins over ours: the
# verdict file is then its copy
keep_verdict() {
    local f
    [ ! -f "$verdict" ] || return 0
    f=$(sed -n 's/.*--json[= ]\([^ ]*\).*/\1/p' <<<"$compare_flags")
    [ -z "$f" ] || [ ! -f "$f" ] || cp "$f" "$verdict"
}
[ -z "$base" ] || [ -z "$against$slow$baseline$record" ] ||
    { echo "bench-ci.sh: --base compares with REV's counts: not with --against, --slow-jam, --baseline or --record" >&2; exit 2; }
[ -z "$against$base" ] || rm -f "$verdict"
if [ -n "$base" ]; then
    # The counts of this tree and of BASE, counted here by one counter with
    # one set of pins: deterministic, so one count of each is the comparison.
    git -C "$top" rev-parse --verify -q "$base^{commit}" >/dev/null ||
        nothing "BASE $base names no commit here (fetch it: git fetch origin main, or a full clone:" \
                "fetch-depth: 0 / GIT_DEPTH: 0)"
    mkdir -p "$out"
    rm -rf "$out/base" "$out/ci.csv" "$out/meta.json" "$out/cost.csv" "$out/cost-meta.json"
    log=$out/cost.log
    # shellcheck disable=SC2086 # FLAGS are bench-cost.sh options, split on purpose
    TC_BUILD=${TC_BUILD:-$top/build} "$top/scripts/bench-cost.sh" -o "$out" --sweep ci $cost_flags \
        >"$log" 2>&1 || nothing "this tree not counted: $(tail -1 "$log") ($log)"
    echo "bench-ci: this tree counted -> $out/cost.csv" >&2
    "$top/scripts/tc-base-count" "$base" "$out/base" --cost-flags "$cost_flags" >"$out/base.log" 2>&1 ||
        nothing "$(tail -1 "$out/base.log")"
    tail -1 "$out/base.log" >&2
    rc=0
    # shellcheck disable=SC2086 # FLAGS are tc-compare options, split on purpose
    "$top/scripts/tc-compare" "$out/base" "$out" --cost-base "$out/base" --json "$verdict" $compare_flags || rc=$?
    keep_verdict
    echo "bench-ci: exit $rc (0 pass, 1 regression, 2 nothing compared; $verdict)" >&2
    exit "$rc"
fi
mine= known= cost_base=
if [ -n "$against" ]; then
    mine=$against/$platform_id
    known=$(cd "$against" 2>/dev/null && ls -d -- */ 2>/dev/null | grep -vx 'cost/' | tr -d / | tr '\n' ' ') || known=""
    # the counts' baseline: one per key (architecture, compiler, C library,
    # UCX), whatever the host
    if [ -n "$cost" ]; then
        cost_key=$(TC_BUILD=${TC_BUILD:-$top/build} "$top/scripts/bench-cost.sh" --key 2>/dev/null || true)
        [ -z "$cost_key" ] || cost_base=$against/cost/$cost_key
    fi
fi
no_baseline="no baseline for platform $platform_id (scripts/platform-id.sh, or TC_PLATFORM_ID) in $against/ (it has: ${known:-none})"
have_counts_base() { [ -n "$cost_base" ] && [ -f "$cost_base/cost.csv" ]; }
if [ -n "$mine" ] && [ ! -f "$mine/ci.csv" ] && ! have_counts_base; then
    no_counts="nor counts for key ${cost_key:-unknown} in ${cost_base:-$against/cost/KEY}/ (make cost-baseline)"
    [ -z "$slow" ] || nothing "$no_baseline, $no_counts, to hold the slow jam against"
    [ -n "$record" ] || nothing "$no_baseline, $no_counts; record one on an idle machine (make bench-ci-baseline," \
        "or make bench-ci RECORD=1) or name a platform that has one (TC_PLATFORM_ID=ID)"
fi
if [ -n "$record" ] && [ -n "$mine" ] && [ ! -f "$mine/ci.csv" ]; then
    why=$(busy)
    [ -z "$why" ] || nothing "$no_baseline, and --record refused: $why"
fi
if [ -n "$baseline" ]; then
    why=$(busy)
    [ -z "$why" ] || { echo "bench-ci.sh: $why" >&2; exit 1; }
fi

jams="indirect_put server_sum"
tests=jam_lat,put_lat,jam_rate,put_rate
modes=local,injected
sizes=8,64,1024,4096
ncpu=$(nproc)
cpus=0,$((ncpu > 1 ? 1 : 0))

mkdir -p "$out"
tmp=$(mktemp -d "$out/.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

pkgopt=()
if [ -n "$slow" ]; then
    # A real slowdown for checking the gate: the same jam source with N
    # iterations of an empty volatile loop after its work, in its own package.
    TC_BUILD=${TC_BUILD:-$top/build} "$top/scripts/slow-jam-pkg.sh" "$slow" "$tmp/pkg"
    pkgopt=(-P "$tmp/pkg")
    echo "bench-ci: indirect_put slowed by $slow spin iterations per message (package $tmp/pkg)" >&2
fi

load0=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "")
start=$(date +%s.%N)
point=0
args_list=()
for r in $(seq "$rounds"); do
    for jam in $jams; do
        args=(-l -c "$cpus" -T 60000 -F fixed "${pkgopt[@]}" -j "$jam" -m "$modes" -t "$tests" -s "$sizes" -n "$iters" -w 10000)
        echo "bench-ci: point $point (round $r/$rounds, jam $jam)" >&2
        "$perf" "${args[@]}" -q --csv "$tmp/p$point.csv" --json "$tmp/p$point.json"
        args_list+=("${args[*]}")
        point=$((point + 1))
    done
done
end=$(date +%s.%N)
load1=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "")

# The framework's own instructions and simulated cycles per message (tc-cost
# under callgrind, pinned; bench-cost.sh's CI sweep: these jams and noop,
# local, injected and cached): the figures no placement, neighbour or host
# of the key moves, so a change of the data path shows in them even where
# the latencies drift more than it.
cost_note=
rm -f "$out/cost.csv" "$out/cost-meta.json"
cost_rc=0
cost_start=$(date +%s.%N)
if [ -z "$cost" ]; then
    cost_rc=77
    echo "bench-cost.sh: unsupported: not asked for (--no-cost)" >"$tmp/cost.log"
else
    # shellcheck disable=SC2086 # FLAGS are bench-cost.sh options, split on purpose
    TC_PKG=${pkgopt[1]:+${pkgopt[1]}/libtc_bench.so} TC_BUILD=${TC_BUILD:-$top/build} \
        "$top/scripts/bench-cost.sh" -o "$tmp/cost" --sweep ci $cost_flags >"$tmp/cost.log" 2>&1 || cost_rc=$?
fi
cost_end=$(date +%s.%N)
if [ "$cost_rc" = 0 ]; then
    cp "$tmp/cost/cost.csv" "$tmp/cost/cost-meta.json" "$out/"
    cost_key=$(sed -n 's/^ *"key": *"\([^"]*\)".*/\1/p' "$out/cost-meta.json")
    echo "bench-ci: instructions and simulated cycles per message (tc-cost under callgrind," \
         "key $cost_key) -> $out/cost.csv" >&2
elif [ "$cost_rc" = 77 ]; then
    cost_note=$(sed -n 's/^bench-cost.sh: unsupported: //p' "$tmp/cost.log" | head -1)
else
    cost_note="scripts/bench-cost.sh failed: $(tail -1 "$tmp/cost.log")"
fi
[ -z "$cost_note" ] || echo "bench-ci: no instruction counts: $cost_note" >&2

"$perf" --platform --json - >"$tmp/platform.json" 2>/dev/null || echo '{}' >"$tmp/platform.json"
git_rev=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
# uncommitted changes to tracked files: the measured code is not that revision
git -C "$top" diff --quiet HEAD -- 2>/dev/null || git_rev="$git_rev-dirty"
printf '%s\n' "${args_list[@]}" >"$tmp/args.txt"

python3 - "$tmp" "$out" "$point" "$platform_id" "$git_rev" "$start" "$end" "${slow:-}" "$load0" "$load1" \
    "$cost_note" "$cost_start" "$cost_end" <<'PY'
import csv, datetime, json, os, sys
tmp, out, npoints, platform_id, git_rev, start, end, slow, load0, load1, cost_note, cost0, cost1 = sys.argv[1:14]
npoints = int(npoints)
args = open(os.path.join(tmp, "args.txt")).read().splitlines()
fields, rows, tool_json = ["experiment", "point", "preset"], [], []
for p in range(npoints):
    with open(os.path.join(tmp, "p%d.csv" % p), newline="") as f:
        rd = csv.DictReader(f)
        for c in rd.fieldnames:
            if c not in fields:
                fields.append(c)
        for row in rd:
            row.update(experiment="ci", point=p, preset="ci")
            rows.append(row)
    tool_json.append(json.load(open(os.path.join(tmp, "p%d.json" % p))))
part = os.path.join(out, ".ci.csv.part")
with open(part, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=fields, restval="")
    w.writeheader()
    w.writerows(rows)
os.replace(part, os.path.join(out, "ci.csv"))
meta = {
    "platform_id": platform_id,
    "preset": "ci" + ("-slow-jam-%s" % slow if slow else ""),
    "git_rev": git_rev,
    "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    "platform": json.load(open(os.path.join(tmp, "platform.json"))),
    "experiments": {"ci": {"points": npoints, "ran": npoints, "skipped": [],
                           "args": args, "tool_json": tool_json,
                           "elapsed_s": round(float(end) - float(start), 1)}},
    # the host's load average (1, 5, 15 min) before and after: a busy machine explains noise
    "loadavg": {"start": load0, "end": load1},
    # cost.csv: instructions and simulated cycles per message of the same
    # jams and the key they hold for (cost-meta.json), or why not, and how
    # long counting them took (docs/REGRESSION.md quotes the sweep's time)
    "cost": dict({"file": "cost.csv", "meta": "cost-meta.json",
                  "key": json.load(open(os.path.join(out, "cost-meta.json")))["key"]}
                 if not cost_note else {"skipped": cost_note},
                 elapsed_s=round(float(cost1) - float(cost0), 1)),
}
if slow:
    meta["slow_jam"] = {"jam": "indirect_put", "spin_iterations": int(slow)}
part = os.path.join(out, ".meta.json.part")
with open(part, "w") as f:
    json.dump(meta, f, indent=1)
    f.write("\n")
os.replace(part, os.path.join(out, "meta.json"))
print("bench-ci: %d points, %d rows in %.1f s -> %s/ci.csv" % (npoints, len(rows), float(end) - float(start), out),
      file=sys.stderr)
PY

[ -n "$against" ] || exit 0
# The counts against the key's committed baseline (they gate wherever
# they were counted), the timings against this platform's (where it has
# one); tc-compare gives the one verdict.
cost_args=()
if [ -f "$out/cost.csv" ] && have_counts_base; then
    cost_args=(--cost-base "$cost_base")
elif have_counts_base; then
    echo "bench-ci: the counts were not compared with $cost_base/: ${cost_note:-none counted}" >&2
fi
if [ ! -f "$mine/ci.csv" ] && [ ${#cost_args[@]} -gt 0 ] && [ -z "$record" ]; then
    echo "bench-ci: timings not compared: $no_baseline (make bench-ci-baseline on an idle machine gates them" \
         "here); the counts decide, against $cost_base/" >&2
fi
if [ -f "$mine/ci.csv" ] || [ ${#cost_args[@]} -gt 0 ]; then
    rc=0
    # shellcheck disable=SC2086 # FLAGS are tc-compare options, split on purpose
    "$top/scripts/tc-compare" "$mine" "$out" "${cost_args[@]}" --json "$verdict" $compare_flags || rc=$?
    keep_verdict
    [ -z "$record" ] || [ -f "$mine/ci.csv" ] || {
        mkdir -p "$mine"
        cp "$out/ci.csv" "$out/meta.json" "$mine/"
        echo "bench-ci: recorded this sweep as $mine/ (--record, load average $load0 -> $load1): commit it" \
             "to gate later timings on this machine" >&2
    }
    exit "$rc"
fi
# --record (checked above): this sweep becomes the platform's baseline
mkdir -p "$mine"
cp "$out/ci.csv" "$out/meta.json" "$mine/"
[ ! -f "$out/cost.csv" ] || cp "$out/cost.csv" "$out/cost-meta.json" "$mine/"
nothing "$no_baseline; recorded this sweep as $mine/ (--record, load average $load0 -> $load1)." \
        "Commit it to gate later runs on this machine, or re-record it idle with make bench-ci-baseline"
