#!/usr/bin/env bash
# The framework's own work per message (tc-cost: one thread drives both
# ends of a loopback pair, so no line moves between cores), counted under
# callgrind with a fixed cache and branch model: instructions and simulated
# cycles per message, all and for the send and the receive path apart. The
# counts repeat from run to run and, pinned (below), from host to host of
# one key: architecture, compiler, C library, UCX (docs/REGRESSION.md,
# "Deterministic counts"). Beside them, the native nanoseconds of the same
# loop on one core (not pinned: the host's own choices).
# Writes OUT/cost.csv (one row per jam, mode, payload and api: send for
# tc_jam_send, prepared for a prepared jam's tc_jam_start; a cost.csv
# without the api column is send's), OUT/cost.md and OUT/cost-meta.json (the
# key, the versions, the pins, the cycle formula).
#
# usage: scripts/bench-cost.sh [-o OUT] [-n ITERS] [-N ITERS] [-j JAMS] [-m MODES] [-s SIZES]
#                              [--api APIS] [--sweep ci] [--unpinned] [--same-as DIR] [--key]
#                              [--anchor]
#   -o OUT    default results/<platform>/cost
#   -n ITERS  round trips per point under callgrind (default 20000)
#   -N ITERS  round trips per point natively (default 1000000; 0: skip)
#   -j, -m, -s, --api  tc-cost's (default noop,server_sum; local,injected,cached;
#             8,64,1024; send)
#   --sweep ci  the points CI holds (make bench-ci, make cost-baseline,
#             make cost-host, make history): noop, indirect_put and
#             server_sum; local, injected and cached; 8, 64, 1024 and 4096
#             bytes; 2000 round trips, no native run; and the prepared
#             api's points: noop and server_sum, local, injected and
#             cached, 8 bytes (their own rows, api prepared)
#   --unpinned  keep the caller's environment and this host's choices (C
#             library routines, CPU vendor, UCX transports): to show what the
#             pins remove. Never for a baseline.
#   --same-as DIR  then hold the counts against DIR/cost.csv: exit 1 naming
#             every point whose counts differ, 2 where DIR has none
#   --key     print this build's key (e.g. x86_64-gcc12-glibc2.36-ucx1.13.1), exit
#   --anchor  the anchor too (--sweep ci counts it): beside the jams
#             (OUT/anchor.csv, cost.md's last table), UCX's own work for
#             an 8-byte message under the same pins and cache model,
#             ucx_perftest -l ucp_put_lat and ucp_am_lat, counted in UCX's
#             calls alone (ucp_put_nbx; ucp_am_send_nbx and ucp_am_handler)
#             as the difference of two run lengths over the messages
#             between them. Not the whole perftest loop: its two threads
#             spin on each other, which callgrind serialises at its own
#             moments, so their polls differ from run to run. Skipped
#             (said) where ucx_perftest is missing.
# Nothing else should run on the machine meanwhile (for the nanoseconds).
# Exit 77 with "unsupported: why" where callgrind cannot count this build
# (no valgrind, a cross build, a sanitizer build, no setarch -R).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out="" iters=20000 native=1000000 jams=noop,server_sum modes=local,injected,cached sizes=8,64,1024
pinned=1 same_as="" print_key="" prepared=() anchor_on="" api=send
while [ $# -gt 0 ]; do
    case $1 in
        -o) out=$2; shift 2 ;;
        -n) iters=$2; shift 2 ;;
        -N) native=$2; shift 2 ;;
        -j) jams=$2; shift 2 ;;
        -m) modes=$2; shift 2 ;;
        -s) sizes=$2; shift 2 ;;
        --api) api=$2; shift 2 ;;
        --unpinned) pinned=""; shift ;;
        --same-as) same_as=$2; shift 2 ;;
        --key) print_key=1; shift ;;
        --anchor) anchor_on=1; shift ;;
        --sweep)
            [ "$2" = ci ] || { echo "bench-cost.sh: unknown sweep $2 (ci)" >&2; exit 2; }
            jams=noop,indirect_put,server_sum modes=local,injected,cached sizes=8,64,1024,4096
            iters=2000 native=0 prepared=(-j noop,server_sum -m local,injected,cached -s 8) anchor_on=1
            shift 2 ;;
        -h|--help) sed -n '2,47p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench-cost.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
bin=${TC_BUILD:-$top/build}/bin
cost=$bin/tc-cost
[ -x "$cost" ] || { echo "bench-cost.sh: $cost missing: build first (make)" >&2; exit 1; }

# --- the key: what the counts depend on besides the code ------------------
# The compiler is the build's own (its .comment: clang's where both are, as
# clang links gcc's start files); the C library and UCX are the ones it runs
# on (UCX as the library reports it, tc-perf --platform).
cc_full=$(readelf -p .comment "$cost" 2>/dev/null | sed -n 's/^ *\[ *[0-9a-f]*\] *//p' |
          grep -m1 -i 'clang version' || true)
[ -n "$cc_full" ] || cc_full=$(readelf -p .comment "$cost" 2>/dev/null |
                               sed -n 's/^ *\[ *[0-9a-f]*\] *//p' | grep -m1 '^GCC:' || true)
case $cc_full in
    *clang\ version*) cc_key=clang$(sed -n 's/.*clang version \([0-9]*\).*/\1/p' <<<"$cc_full") ;;
    GCC:*) cc_key=gcc$(sed -n 's/.* \([0-9][0-9]*\)\.[0-9.]*$/\1/p' <<<"$cc_full") ;;
    *) cc_key=cc-unknown ;;
esac
libc_full=$(getconf GNU_LIBC_VERSION 2>/dev/null || echo "")
libc_key=$(sed -n 's/^glibc \([0-9]*\.[0-9]*\).*/glibc\1/p' <<<"$libc_full")
libc_key=${libc_key:-libc-unknown}
ucx_ver=$("$bin/tc-perf" --platform --json - 2>/dev/null |
          sed -n 's/.*"ucx_version": *"\([^"]*\)".*/\1/p' | head -1 || true)
[ -n "$ucx_ver" ] || ucx_ver=$(ucx_info -v 2>/dev/null | sed -n 's/^# Version //p' | head -1 || true)
key="$(uname -m)-${cc_key}-${libc_key}-ucx${ucx_ver:-unknown}"
if [ -n "$print_key" ]; then
    echo "$key"
    exit 0
fi

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
setarch "$(uname -m)" -R true 2>/dev/null ||
    unsupported "setarch -R (address randomisation off) is refused here: the simulated cache would see other addresses on every run"
platform_id=$("$top/scripts/platform-id.sh")
[ -n "$out" ] || out=$top/results/$platform_id/cost
mkdir -p "$out"

# --- the pins -------------------------------------------------------------
# The C library picks string routines by the CPU it sees (under valgrind:
# valgrind's model of the host, which follows the host's features): masking
# everything above the architecture's baseline makes it pick the baseline
# routines on every host (a host that lacks a feature ends in the same
# state), and the cache sizes it sizes copies by are fixed. The caller's
# GLIBC_TUNABLES do not reach the run.
case $(uname -m) in
    x86_64)
        hwcaps="-AVX,-AVX2,-AVX512F,-AVX512CD,-AVX512BW,-AVX512DQ,-AVX512VL,-AVX512ER,-AVX512PF"
        hwcaps+=",-FMA,-FMA4,-BMI1,-BMI2,-LZCNT,-MOVBE,-SSSE3,-SSE4_1,-SSE4_2,-POPCNT,-ERMS,-RTM"
        hwcaps+=",-Fast_Rep_String,-Fast_Copy_Backward,-Slow_BSF,-Fast_Unaligned_Load"
        hwcaps+=",-Fast_Unaligned_Copy,-Prefer_PMINUB_for_stringop,-Slow_SSE4_2"
        hwcaps+=",-AVX_Fast_Unaligned_Load,-Prefer_No_VZEROUPPER,-Prefer_ERMS,-Prefer_FSRM"
        hwcaps+=",-Prefer_No_AVX512,-MathVec_Prefer_No_AVX512"
        tunables="glibc.cpu.hwcaps=$hwcaps"
        tunables+=":glibc.cpu.x86_data_cache_size=32768:glibc.cpu.x86_shared_cache_size=1048576"
        tunables+=":glibc.cpu.x86_non_temporal_threshold=786432"
        tunables+=":glibc.cpu.x86_rep_movsb_threshold=2048:glibc.cpu.x86_rep_stosb_threshold=2048"
        ;;
    *) tunables="glibc.cpu.name=generic" ;;
esac
# TC_CPU_TUNE=generic: the library's vendor-tuned thresholds (lib/place.h)
# as for a CPU not measured, whatever vendor the CPU (or valgrind) reports.
# UCX: shared memory through posix only, whatever devices the host has, and
# none of the loadable modules a host may or may not have (ib, rdmacm, cma,
# cuda, ...); no adaptive progress and no memory hooks, whose work in UCX's
# own thread would otherwise land at a different moment on every run.
pins=(LC_ALL=C "GLIBC_TUNABLES=$tunables" TC_CPU_TUNE=generic UCX_TLS=posix "UCX_MODULES=^*"
      UCX_ADAPTIVE_PROGRESS=n UCX_MEM_EVENTS=n)

# A fixed cache and branch model (not the host's, which callgrind would
# read from CPUID): 32 KiB 8-way L1s, an 8 MiB 16-way last level, 64 B lines.
vg_args=(--tool=callgrind --instr-atstart=no --collect-atstart=no --cache-sim=yes
         --branch-sim=yes --I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64)
args=(-j "$jams" -m "$modes" -s "$sizes")
# a tree before prepared jams has a tc-cost without --api: its send points
# are counted as they were, and the prepared ones are not asked of it
if "$cost" --help 2>&1 | grep -q -- '--api'; then
    args+=(--api "$api")
elif [ "$api" != send ] || [ ${#prepared[@]} -gt 0 ]; then
    [ "$api" != send ] && { echo "bench-cost.sh: this tree's tc-cost has no --api: only the send points can be counted" >&2; exit 2; }
    echo "bench-cost.sh: this tree's tc-cost has no --api (before prepared jams): its send points alone" >&2
    prepared=()
fi

# The binary and the package run from one fresh folder of a fixed-length
# name: the client's stack holds its path and environment, and the heap
# the package's path, so their lengths would shift what the cache sees.
stage=$(mktemp -d /tmp/tc-cost.XXXXXXXXXX)
trap 'rm -rf "$stage"' EXIT
pkg=${TC_PKG:-$(dirname "$bin")/pkg/bench/libtc_bench.so}
[ -f "$pkg" ] || { echo "bench-cost.sh: no bench package at $pkg (make)" >&2; exit 1; }
cp "$cost" "$stage/tc-cost"
cp -r "$(dirname "$pkg")" "$stage/pkg"
# Pinned, the client's environment is the pins alone (and a fixed PATH):
# nothing of the runner's (its UCX_*, its GLIBC_TUNABLES, the length of
# its variables) reaches what is counted.
# And it runs in a network namespace of its own where it may (unshare,
# user namespaces): UCX lists the host's network devices whatever it uses,
# and how many there are moves its allocations, hence where the library's
# land (the instructions do not move; the simulated misses do).
vg=$(command -v valgrind) sa=$(command -v setarch)
env_cmd=(env) netns=""
if [ -n "$pinned" ]; then
    env_cmd=(env -i PATH=/usr/bin:/bin ${VALGRIND_LIB:+"VALGRIND_LIB=$VALGRIND_LIB"} "${pins[@]}")
    if unshare --net --map-root-user true 2>/dev/null; then
        env_cmd=(unshare --net --map-root-user "${env_cmd[@]}") netns=1
    elif unshare --net true 2>/dev/null; then
        env_cmd=(unshare --net "${env_cmd[@]}") netns=1
    else
        echo "bench-cost.sh: warning: no network namespace of its own here (unshare refused):" \
             "simulated cycles may carry this host's network devices; instructions do not" >&2
    fi
fi

# Each point runs instrumented from an empty simulated cache (tc-cost's
# CALLGRIND_START_INSTRUMENTATION), its loop alone collected and dumped
# with its label (CALLGRIND_DUMP_STATS_AT): one file per point.
callgrind() { # extra valgrind options: one dump per point in $stage
    rm -f "$stage"/cg.out*
    (cd "$stage" && "${env_cmd[@]}" TC_PKG="$stage/pkg/$(basename "$pkg")" \
        "$sa" "$(uname -m)" -R "$vg" "${vg_args[@]}" "$@" --callgrind-out-file="$stage/cg.out" \
        ./tc-cost "${args[@]}" -n "$iters") > "$stage/cg.log" 2>&1 ||
        { cat "$stage/cg.log" >&2; echo "bench-cost.sh: tc-cost failed under callgrind" >&2; exit 1; }
    ls "$stage"/cg.out.* >/dev/null 2>&1 || { echo "bench-cost.sh: callgrind wrote no point" >&2; exit 1; }
}
start=$(date +%s.%N)
instr=tc-cost
callgrind
# A tc-cost of an older tree (before 44fb0bd) toggles collection but never
# starts the instrumentation: every dump is empty. Such a tree is counted
# with the instrumentation on from the start (the instructions are the
# loop's alone all the same; the simulated cache is not emptied before
# each point, so its cycles are marked in cost-meta.json).
if ! grep -q '^totals: *[1-9]' "$stage"/cg.out.*; then
    instr=atstart
    callgrind --instr-atstart=yes
fi
# the prepared api's points: a run of their own (the send points' run stays
# as it was, its counts comparable with baselines before these)
if [ ${#prepared[@]} -gt 0 ]; then
    (cd "$stage" && "${env_cmd[@]}" TC_PKG="$stage/pkg/$(basename "$pkg")" \
        "$sa" "$(uname -m)" -R "$vg" "${vg_args[@]}" --callgrind-out-file="$stage/cgp.out" \
        ./tc-cost "${prepared[@]}" --api prepared -n "$iters") > "$stage/cgp.log" 2>&1 ||
        { cat "$stage/cgp.log" >&2; echo "bench-cost.sh: tc-cost --api prepared failed under callgrind" >&2; exit 1; }
fi
# the anchor: each test at two lengths, warm-up alike; messages = 2 x
# iterations (both threads send each)
anchor_lens=(1000 3000)
: > "$stage/anchor.txt"
if [ -z "$anchor_on" ]; then
    :
elif command -v ucx_perftest >/dev/null 2>&1; then
    for t in "ucp_put_lat ucp_put_nbx" "ucp_am_lat ucp_am_send_nbx,ucp_am_handler*"; do
        read -r test fns <<<"$t"
        toggles=()
        IFS=, read -r -a fn_list <<<"$fns"
        for f in "${fn_list[@]}"; do toggles+=("--toggle-collect=$f"); done
        for n in "${anchor_lens[@]}"; do
            (cd "$stage" && "${env_cmd[@]}" "$sa" "$(uname -m)" -R "$vg" --tool=callgrind \
                --cache-sim=yes --branch-sim=yes --I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64 \
                "${toggles[@]}" --callgrind-out-file="$stage/anchor.$test.$n" \
                "$(command -v ucx_perftest)" -l -t "$test" -s 8 -n "$n" -w 100) \
                > "$stage/anchor.$test.$n.log" 2>&1 ||
                { tail -5 "$stage/anchor.$test.$n.log" >&2; echo "bench-cost.sh: ucx_perftest $test failed under callgrind" >&2; exit 1; }
        done
        echo "$test $fns ${anchor_lens[*]}" >> "$stage/anchor.txt"
    done
else
    echo "bench-cost.sh: no ucx_perftest here: no anchor (UCX's put and AM) beside the jams" >&2
fi
end=$(date +%s.%N)

if [ "$native" -gt 0 ]; then
    "$cost" "${args[@]}" -n "$native" -c 0 --csv "$stage/ns.csv" > "$stage/ns.log" 2>&1 ||
        { cat "$stage/ns.log" >&2; echo "bench-cost.sh: tc-cost failed" >&2; exit 1; }
else
    echo "jam,mode,payload_bytes,frame_bytes,messages,ns_per_msg" > "$stage/ns.csv"
fi

python3 - "$stage" "$out" "$platform_id" \
    "$(git -C "$top" describe --always --dirty --abbrev=7 2>/dev/null || echo unknown)" \
    "$iters" "$native" "$key" "$cc_full" "$libc_full" "${ucx_ver:-unknown}" \
    "$(valgrind --version 2>/dev/null)" "${pinned:+1}" "$netns" "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')" \
    "${vg_args[*]}" "$instr" "${pins[@]}" <<'EOF'
import csv, glob, json, os, re, sys
(stage, out, platform, rev, iters, native, key, cc_full, libc_full, ucx, vg_version,
 pinned, netns, elapsed, vg_args, instr) = sys.argv[1:17]
pins = sys.argv[17:] if pinned else []

# Simulated cycles, with the weights of KCachegrind's cycle estimate: an
# instruction 1, an L1 miss 10, a last-level miss 100, a mispredicted branch
# 10 (docs/REGRESSION.md says why these).
def cycles(e):
    g = lambda k: e.get(k, 0)
    return (g("Ir") + 10 * (g("I1mr") + g("D1mr") + g("D1mw"))
            + 100 * (g("ILmr") + g("DLmr") + g("DLmw")) + 10 * (g("Bcm") + g("Bim")))

def parse(path):
    """A point's dump: its label, its totals, and the inclusive costs of the
    calls the measured loop (cost_loop) made: tc_jam_send (tc_jam_start for
    the prepared api) is the send path, tc_peer_wait the receive path (finding the frame, checking it, running
    the jam, the credits)."""
    names, label, events, totals = {}, {}, [], None
    fn = cfn = None
    pending = False
    calls = {}
    def name(spec):
        m = re.match(r"\((\d+)\)(?: (.*))?$", spec)
        if not m:
            return spec
        if m.group(2) is not None:
            names[m.group(1)] = m.group(2)
        return names.get(m.group(1), "?")
    for line in open(path):
        line = line.rstrip("\n")
        if pending:
            pending = False
            acc = calls.setdefault(cfn, [0] * len(events))
            for i, x in enumerate(line.split()[1:]):
                acc[i] += int(x)
        elif line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("desc: Trigger: Client Request: tc-cost "):
            label = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
        elif line.startswith("totals:"):
            totals = [int(x) for x in line.split()[1:]]
        elif line.startswith("fn="):
            fn, cfn = name(line[3:]), None
        elif line.startswith("cfn="):
            cfn = name(line[4:])
        elif line.startswith("calls=") and fn and fn.startswith("cost_loop"):
            pending = True
    if not label or totals is None:
        return None
    ev = lambda v: dict(zip(events, v + [0] * (len(events) - len(v))))
    sender = "tc_jam_start" if label.get("api") == "prepared" else "tc_jam_send"
    send, recv = calls.get(sender), calls.get("tc_peer_wait")
    if send is None or recv is None:
        # a loop that calls neither by name (another tree's harness, or
        # inlined): the whole loop still counts; the split is n/a
        split_na.add("%s %s %s B" % (label.get("jam"), label.get("mode"), label.get("payload")))
        return label, ev(totals), None, None
    return label, ev(totals), ev(send), ev(recv)

split_na = set()
ns = {}
for r in csv.DictReader(open(os.path.join(stage, "ns.csv"))):
    ns[(r["jam"], r["mode"], r["payload_bytes"], r.get("api") or "send")] = float(r["ns_per_msg"])
rows = []
for p in glob.glob(os.path.join(stage, "cg.out.*")) + glob.glob(os.path.join(stage, "cgp.out.*")):
    got = parse(p)
    if got is None:
        continue
    label, tot, send, recv = got
    n = int(label["messages"])
    per = lambda x: None if x is None else x / n
    send = send or {"Ir": None}
    recv = recv or {"Ir": None}
    cyc = lambda e: None if e["Ir"] is None else cycles(e)
    rows.append({
        "jam": label["jam"], "mode": label["mode"], "payload_bytes": int(label["payload"]),
        "frame_bytes": int(label["frame"]), "messages": n,
        "instructions_per_msg": per(tot["Ir"]),
        "ns_per_msg": ns.get((label["jam"], label["mode"], label["payload"], label.get("api", "send"))),
        "cycles_per_msg": per(cycles(tot)),
        "send_instructions_per_msg": per(send["Ir"]), "send_cycles_per_msg": per(cyc(send)),
        "recv_instructions_per_msg": per(recv["Ir"]), "recv_cycles_per_msg": per(cyc(recv)),
        "l1_misses_per_msg": per(tot.get("I1mr", 0) + tot.get("D1mr", 0) + tot.get("D1mw", 0)),
        "ll_misses_per_msg": per(tot.get("ILmr", 0) + tot.get("DLmr", 0) + tot.get("DLmw", 0)),
        "branch_misses_per_msg": per(tot.get("Bcm", 0) + tot.get("Bim", 0)),
        "api": label.get("api", "send"),
    })
if not rows:
    sys.exit("bench-cost.sh: callgrind wrote no point")
order = {"local": 0, "injected": 1, "cached": 2}
rows.sort(key=lambda r: (r["api"] != "send", r["jam"], r["payload_bytes"], order.get(r["mode"], 9)))
# the first seven columns as before (old readers), the rest after them, api last
cols = ["jam", "mode", "payload_bytes", "frame_bytes", "messages", "instructions_per_msg",
        "ns_per_msg", "cycles_per_msg", "send_instructions_per_msg", "send_cycles_per_msg",
        "recv_instructions_per_msg", "recv_cycles_per_msg", "l1_misses_per_msg",
        "ll_misses_per_msg", "branch_misses_per_msg", "api"]
def fmt(c, v):
    if v is None:
        return ""
    if isinstance(v, str):
        return v
    if c in ("payload_bytes", "frame_bytes", "messages"):
        return "%d" % v
    return "%.1f" % v if c == "instructions_per_msg" else "%.2f" % v
with open(os.path.join(out, "cost.csv"), "w") as f:
    f.write(",".join(cols) + "\n")
    for r in rows:
        f.write(",".join(fmt(c, r[c]) for c in cols) + "\n")

# The anchor: UCX's calls per message, (long run - short run) / messages
def totals(path):
    events, tot = [], None
    for line in open(path):
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("totals:"):
            tot = [int(x) for x in line.split()[1:]]
    return dict(zip(events, tot + [0] * (len(events) - len(tot))))
anchor = []
for line in open(os.path.join(stage, "anchor.txt")):
    test, fns, n1, n2 = line.split()
    a, b = (totals(os.path.join(stage, "anchor.%s.%s" % (test, n))) for n in (n1, n2))
    msgs = 2 * (int(n2) - int(n1))
    anchor.append({"test": test, "functions": fns.replace(",", " "), "payload_bytes": 8,
                   "messages": msgs,
                   "instructions_per_msg": (b["Ir"] - a["Ir"]) / msgs,
                   "cycles_per_msg": (cycles(b) - cycles(a)) / msgs})
if anchor:
    with open(os.path.join(out, "anchor.csv"), "w") as f:
        f.write("test,functions,payload_bytes,messages,instructions_per_msg,cycles_per_msg\n")
        for r in anchor:
            f.write("%s,%s,%d,%d,%.1f,%.2f\n" % (r["test"], r["functions"], r["payload_bytes"],
                                                r["messages"], r["instructions_per_msg"],
                                                r["cycles_per_msg"]))
formula = "Ir + 10*(I1mr + D1mr + D1mw) + 100*(ILmr + DLmr + DLmw) + 10*(Bcm + Bim)"
meta = {
    "key": key, "arch": key.split("-")[0], "compiler": cc_full, "libc": libc_full,
    "ucx": ucx, "valgrind": vg_version, "platform_id": platform, "git_rev": rev,
    "pinned": bool(pinned), "pins": pins, "own_netns": bool(netns),
    "valgrind_args": vg_args.split(),
    "cycles_formula": formula, "round_trips_per_point": int(iters),
    "callgrind_s": float(elapsed),
    "anchor": {r["test"]: r["instructions_per_msg"] for r in anchor},
    # how this tree's tc-cost was counted: "tc-cost" (it starts the
    # instrumentation itself, from an empty simulated cache, as the
    # baselines were), or "atstart" (an older tree's: on from the start,
    # cycles not comparable with tc-cost's)
    "instrumentation": instr + ("" if instr == "tc-cost" else " (valgrind_args + --instr-atstart=yes)"),
    # the points whose send and receive paths could not be told apart
    # (empty send_/recv_ columns): their loop calls neither tc_jam_send nor
    # tc_peer_wait by name
    "split_na": sorted(split_na),
}
with open(os.path.join(out, "cost-meta.json"), "w") as f:
    json.dump(meta, f, indent=1)
    f.write("\n")
na = lambda v: "n/a" if v is None else "%.2f" % v
with open(os.path.join(out, "cost.md"), "w") as f:
    f.write("# The framework's own work per message\n\n")
    f.write("Key `%s`, platform `%s`, tree %s%s. `scripts/bench-cost.sh`: tc-cost, one thread "
            "driving both ends of a loopback pair (a message is one send and the run of it), "
            "under callgrind (%s round trips a point, the loop alone collected, from an empty "
            "simulated cache: 32 KiB 8-way L1s, 8 MiB 16-way LL, 64 B lines, branch "
            "prediction): instructions and simulated cycles (`%s`) per message, all and the "
            "send and receive paths apart; %s.\n\n" % (
                key, platform, rev, "" if pinned else " (NOT pinned)", iters, formula,
                "natively (%s round trips, core 0) the nanoseconds of the same loop" % native
                if int(native) > 0 else "no native run"))
    f.write("| jam | payload B | mode | api | frame B | instr / msg | cycles / msg | send instr | "
            "send cycles | recv instr | recv cycles | ns / msg |\n")
    f.write("|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
    for r in rows:
        f.write("| %s | %d | %s | %s | %d | %.1f | %.2f | %s | %s | %s | %s | %s |\n" % (
            r["jam"], r["payload_bytes"], r["mode"], r["api"], r["frame_bytes"], r["instructions_per_msg"],
            r["cycles_per_msg"], *(na(r[c]) for c in ("send_instructions_per_msg", "send_cycles_per_msg",
                                                      "recv_instructions_per_msg", "recv_cycles_per_msg")),
            "" if r["ns_per_msg"] is None else "%.2f" % r["ns_per_msg"]))
    if anchor:
        by = {r["test"]: r["instructions_per_msg"] for r in anchor}
        put, am = by.get("ucp_put_lat"), by.get("ucp_am_lat")
        f.write("\nThe anchor: UCX's own calls for an 8-byte message under the same pins "
                "(`ucx_perftest -l -s 8`, callgrind collecting only in the functions named, "
                "the difference of two run lengths): %s. jam / put: a jam's send path "
                "against ucp_put_nbx; jam / AM: a whole jam message (send and run) against "
                "an AM's send and its handler.\n\n" % "; ".join(
                    "%s %s %.1f" % (r["test"], r["functions"], r["instructions_per_msg"])
                    for r in anchor))
        f.write("| jam 8 B | mode | api | send instr | jam / put | instr / msg | jam / AM |\n")
        f.write("|---|---|---|---:|---:|---:|---:|\n")
        for r in rows:
            if r["payload_bytes"] != 8:
                continue
            f.write("| %s | %s | %s | %.1f | %s | %.1f | %s |\n" % (
                r["jam"], r["mode"], r["api"], r["send_instructions_per_msg"],
                "%.2f" % (r["send_instructions_per_msg"] / put) if put else "-",
                r["instructions_per_msg"], "%.2f" % (r["instructions_per_msg"] / am) if am else "-"))
EOF
echo "bench-cost: $out/cost.md (key $key, callgrind $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", b - a }') s)"

[ -n "$same_as" ] || exit 0
# The counts (every column but the nanoseconds) of each point, against DIR's
[ -f "$same_as/cost.csv" ] ||
    { echo "bench-cost.sh: no cost.csv in $same_as to hold the counts against" >&2; exit 2; }
python3 - "$same_as/cost.csv" "$out/cost.csv" <<'EOF'
import csv, sys
key = ("jam", "mode", "payload_bytes")
def load(p):
    # a point is its jam, mode, payload and api (none: send, as before the column)
    return {tuple(r[k] for k in key) + (r.get("api") or "send",): r for r in csv.DictReader(open(p))}
base, new = load(sys.argv[1]), load(sys.argv[2])
common = sorted(set(base) & set(new))
if not common:
    print("bench-cost.sh: no point in common with %s" % sys.argv[1], file=sys.stderr)
    sys.exit(2)
differ = []
for k in common:
    cols = [c for c in base[k] if c not in ("ns_per_msg", "api") and c in new[k]]
    d = ["%s %s -> %s" % (c, base[k][c], new[k][c]) for c in cols if base[k][c] != new[k][c]]
    if d:
        differ.append("%s %s %s B %s: %s" % (k + ("; ".join(d),)))
for line in differ:
    print("bench-cost: differs: " + line, file=sys.stderr)
print("bench-cost: %d of %d points identical to %s" % (len(common) - len(differ), len(common),
                                                      sys.argv[1]), file=sys.stderr)
sys.exit(1 if differ else 0)
EOF
