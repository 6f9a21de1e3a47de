#!/usr/bin/env bash
# make check-aarch64: the aarch64 build (TC_BUILD) under qemu-user, against
# the host's x86-64 build (TC_HOST_BUILD). The platform report says it is
# emulated and offers WFE and DC CVAC/CIVAC; tc-perf -l runs every invocation
# mode with every wait strategy an aarch64 core has (poll, pause = yield,
# wfe) and every placement (default, llc = DC CVAC, dram = DC CIVAC), each
# row complete; tc-soak streams frames in every mode and signalling and
# checks each ran exactly once, in order; tc-run gives the same result and
# effect as the x86-64 build for every bench jam. Timings are not looked at
# (emulated: not for timing).
. "$(dirname "$0")/../lib.sh"
host=${TC_HOST_BUILD:-}
[ -n "$host" ] && [ -x "$host/bin/tc-run" ] || skip "run by make check-aarch64 (needs TC_HOST_BUILD, the x86-64 build)"
elf_machine() { od -An -tu2 -j18 -N2 "$1" | tr -d ' '; }
[ "$(elf_machine "$TC_PERF")" = 183 ] || fail "$TC_PERF is not an aarch64 program (ELF machine $(elf_machine "$TC_PERF"))"

# 1. the platform report of an emulated aarch64 process
"$TC_PERF" --platform --json - >"$TMP/platform.json" 2>"$TMP/err" || fail "tc-perf --platform: $(cat "$TMP/err")"
python3 - "$TMP/platform.json" <<'PY' || fail "platform report: $(cat "$TMP/platform.json")"
import json, sys
p = json.load(open(sys.argv[1]))
def sup(group, key):
    v = p[group][key]
    return (v.get("status") if isinstance(v, dict) else v) == "supported"
assert p["arch"] == "aarch64", p["arch"]
assert p["emulated"].startswith("aarch64 code on a") and "not for timing" in p["emulated"], p["emulated"]
for g, k in (("wait", "wfe"), ("wait", "pause"), ("cache_op", "dc_cvac"), ("cache_op", "dc_civac"),
             ("placement", "llc"), ("placement", "dram")):
    assert sup(g, k), (g, k, p[g][k])
PY

# 2. every mode x wait x placement through tc-perf -l: every row there, every
#    iteration measured
for mode in local injected cached; do
    "$TC_PERF" -l -c 0,1 -T 120000 -j server_sum -m "$mode" -W poll,pause,wfe --placement default,llc,dram \
        -t jam_lat,jam_rate -s 8,200 -n 300 -w 10 --csv "$TMP/$mode.csv" --json "$TMP/$mode.json" \
        >"$TMP/out" 2>"$TMP/err" || fail "tc-perf -l -m $mode: $(tail -5 "$TMP/err")"
    # its timings are the emulator's, and the run says so
    grep -q "EMULATED   aarch64 code on a .* (qemu-user): not for timing" "$TMP/out" \
        || fail "tc-perf -m $mode: the header does not say it ran emulated: $(head -20 "$TMP/out")"
    grep -q '"emulated": "aarch64 code on a .*not for timing"' "$TMP/$mode.json" \
        || fail "tc-perf -m $mode: the JSON does not say it ran emulated"
    python3 - "$TMP/$mode.csv" "$mode" <<'PY' || fail "tc-perf -m $mode rows: $(cat "$TMP/$mode.csv")"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["test"].startswith("jam_")]
want = {(t, w, pl, s) for t in ("jam_lat", "jam_rate") for w in ("poll", "pause", "wfe")
        for pl in ("default", "llc", "dram") for s in ("8", "200")}
got = {(r["test"], r["wait"], r["placement"], r["payload_bytes"]) for r in rows}
assert got == want, sorted(want - got)
for r in rows:
    assert r["mode"] == sys.argv[2], r
    assert int(r["iterations"]) == 300, r
PY
done

# 3. exactly once, in order: tc-soak checks every frame's sequence number,
#    the count and a checksum of what ran, per mode and signalling
for mode in local injected cached; do
    for sig in store fenced ordered single-put; do
        "$TC_BUILD/bin/tc-soak" -n 3000 -m "$mode" --signal "$sig" -T 120000 --json "$TMP/soak.json" \
            >"$TMP/out" 2>&1 || fail "tc-soak -m $mode --signal $sig: $(tail -5 "$TMP/out")"
    done
done

# 4. the same results as the x86-64 build, jam by jam
while read -r jam args; do
    for mode in local injected cached; do
        for b in "$host" "$TC_BUILD"; do
            # shellcheck disable=SC2086 # args: tc-run's payload options
            "$b/bin/tc-run" -P "$b/pkg/bench" -j "$jam" -m "$mode" $args >"$TMP/run" 2>"$TMP/err" \
                || fail "$b tc-run -j $jam -m $mode $args: $(cat "$TMP/err")"
            grep -v '^code_bytes=' "$TMP/run" >"$TMP/run.$(basename "$b")"
        done
        cmp -s "$TMP/run.$(basename "$host")" "$TMP/run.$(basename "$TC_BUILD")" \
            || fail "tc-run -j $jam -m $mode $args: x86-64 and aarch64 differ: $(diff "$TMP/run.$(basename "$host")" "$TMP/run.$(basename "$TC_BUILD")")"
    done
done <<'EOF_JAMS'
server_sum --ints 5,-2,40,2147483647,-2147483648
seq --u64 0
noop
EOF_JAMS
echo ok
