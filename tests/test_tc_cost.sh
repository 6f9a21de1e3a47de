#!/usr/bin/env bash
# tc-cost: every point runs each side's frames exactly once and prints a
# row; bad command lines exit 2 with one line and "try 'tc-cost --help'"; under callgrind
# (scripts/bench-cost.sh) each point's loop is counted alone, so an injected
# noop (its code compared on arrival) costs more instructions than a local
# one, and server_sum (it sums and copies its payload) more than noop.
# The deterministic counts: instructions and simulated cycles, all and send
# and receive apart, the same twice; the pins set and effective (a caller's
# environment that moves the counts unpinned - another vendor's thresholds,
# a C library without AVX2, another UCX transport - moves nothing pinned);
# a slower indirect_put jam (scripts/slow-jam-pkg.sh) raises its counts and
# not server_sum's instructions.
. "$(dirname "$0")/lib.sh"
COST="$TC_BUILD/bin/tc-cost"
"$COST" -n 2000 --csv "$TMP/c.csv" >"$TMP/out" 2>"$TMP/err" || fail "tc-cost: $(cat "$TMP/err")"
python3 - "$TMP/c.csv" >"$TMP/py.err" 2>&1 <<'PY' || fail "tc-cost CSV: $(tail -1 "$TMP/py.err")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
points = {(r["jam"], r["mode"], r["payload_bytes"]) for r in rows}
want = {(j, m, s) for j in ("noop", "server_sum") for m in ("local", "injected", "cached")
        for s in ("8", "64", "1024")}
assert points == want and len(rows) == len(want), sorted(points ^ want)
assert all(r["messages"] == "4000" and float(r["ns_per_msg"]) > 0 for r in rows), rows
PY
[ "$(grep -c " a message " "$TMP/out")" = 18 ] || fail "table: $(cat "$TMP/out")"
"$COST" -n 10 -j nosuch >"$TMP/out" 2>"$TMP/err"; rc=$?
[ "$rc" = 2 ] && grep -q "^tc-cost: package 'bench' has no jam 'nosuch'" "$TMP/err" ||
    fail "unknown jam: exit $rc, $(cat "$TMP/err")"
for args in "-m remote" "-n 0" "-s 8,,64" "-j noop," "-j noop,nosuch" "-c 99999" "--bogus" "extra"; do
    "$COST" $args >"$TMP/out" 2>"$TMP/err"; rc=$?
    [ "$rc" = 2 ] || fail "tc-cost $args exited $rc"
    [ "$(grep -c "^tc-cost: " "$TMP/err")" = 1 ] || fail "tc-cost $args: not one error line: $(cat "$TMP/err")"
    [ "$(tail -n +2 "$TMP/err")" = "try 'tc-cost --help'" ] || fail "tc-cost $args: no hint: $(head -c 300 "$TMP/err")"
done

# callgrind counts this host's architecture only, and not through a
# sanitizer's runtime: bench-cost.sh says so (exit 77)
"$(dirname "$0")/../scripts/bench-cost.sh" -n 300 -N 0 -s 8 -o "$TMP/cost" >"$TMP/out" 2>"$TMP/err"; rc=$?
[ "$rc" = 77 ] && skip "$(grep -m1 unsupported "$TMP/err")"
[ "$rc" = 0 ] || fail "bench-cost.sh exited $rc: $(tail -5 "$TMP/err")"
python3 - "$TMP/cost/cost.csv" >"$TMP/py.err" 2>&1 <<'PY' || fail "instructions: $(tail -1 "$TMP/py.err")"
import csv, sys
ir = {(r["jam"], r["mode"]): float(r["instructions_per_msg"])
      for r in csv.DictReader(open(sys.argv[1]))}
assert len(ir) == 6 and all(v > 50 for v in ir.values()), ir
assert ir[("noop", "injected")] > ir[("noop", "local")], ir
assert ir[("server_sum", "local")] > ir[("noop", "local")], ir
PY
grep -q "| noop | 8 | injected |" "$TMP/cost/cost.md" || fail "cost.md: $(cat "$TMP/cost/cost.md")"

counts() { # out [env...] -- bench-cost flags...: the counts of a small sweep
    local out=$1; shift
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    env "${envs[@]}" "$top/scripts/bench-cost.sh" -N 0 -n 300 -j indirect_put,server_sum \
        -m local -s 8,1024 -o "$out" "$@" >"$out.log" 2>&1
}
top=$(cd "$(dirname "$0")/.." && pwd)
counts "$TMP/a" -- || fail "pinned counts: $(tail -3 "$TMP/a.log")"
python3 - "$TMP/a/cost.csv" "$TMP/a/cost-meta.json" >"$TMP/py.err" 2>&1 <<'PY' || fail "counts: $(tail -1 "$TMP/py.err")"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 4, rows
for r in rows:
    ir, cyc = float(r["instructions_per_msg"]), float(r["cycles_per_msg"])
    s, rv = float(r["send_instructions_per_msg"]), float(r["recv_instructions_per_msg"])
    # cycles: instructions plus the misses' penalties; send and receive
    # within the loop's total, the loop's own few instructions the rest
    assert cyc >= ir > 0 and s > 0 and rv > 0 and ir - 40 < s + rv <= ir, r
    assert float(r["send_cycles_per_msg"]) >= s and float(r["recv_cycles_per_msg"]) >= rv, r
meta = json.load(open(sys.argv[2]))
assert meta["pinned"] and "TC_CPU_TUNE=generic" in meta["pins"] and "UCX_TLS=posix" in meta["pins"], meta
assert any(p.startswith("GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX,-AVX2") for p in meta["pins"]) or \
    meta["arch"] != "x86_64", meta["pins"]
assert meta["key"].startswith(meta["arch"] + "-") and "-ucx" in meta["key"], meta["key"]
assert "--cache-sim=yes" in meta["valgrind_args"] and "--D1=32768,8,64" in meta["valgrind_args"]
PY
# one key, whichever tool names it: bench-cost.sh from the build (the
# baseline's folder), tc-key for make history and tc-bisect
k1=$(TC_BUILD=$TC_BUILD "$top/scripts/bench-cost.sh" --key) k2=$("$top/scripts/tc-key")
[ "$k1" = "$k2" ] || fail "bench-cost.sh --key says $k1, scripts/tc-key $k2"
# the same numbers twice, even where the caller's environment asks for
# another vendor's thresholds, a C library without AVX2 and TCP
hostile=(TC_CPU_TUNE=amd GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2 UCX_TLS=sysv)
counts "$TMP/b" "${hostile[@]}" -- --same-as "$TMP/a" ||
    fail "pinned counts moved from run to run or with the caller's environment: $(grep -v '^==' "$TMP/b.log" | tail -5)"
grep -q "4 of 4 points identical" "$TMP/b.log" || fail "same-as: $(cat "$TMP/b.log")"
# unpinned, that environment moves them (so the pins are what held them)
counts "$TMP/c" -- --unpinned || fail "unpinned counts: $(tail -3 "$TMP/c.log")"
counts "$TMP/d" "${hostile[@]}" -- --unpinned --same-as "$TMP/c"; rc=$?
[ "$rc" = 1 ] || fail "unpinned, the hostile environment moved no count (exit $rc): $(tail -3 "$TMP/d.log")"
grep -q "differs: indirect_put local 1024 B" "$TMP/d.log" || fail "unpinned: $(cat "$TMP/d.log")"

# a slower jam raises its own counts (on the receive path, where it runs)
# and not the other jam's instructions
TC_BUILD=$TC_BUILD "$top/scripts/slow-jam-pkg.sh" 50 "$TMP/slowpkg" >"$TMP/pkg.log" 2>&1 ||
    fail "slow package: $(tail -3 "$TMP/pkg.log")"
counts "$TMP/s" TC_PKG="$TMP/slowpkg/libtc_bench.so" -- --same-as "$TMP/a"; rc=$?
[ "$rc" = 1 ] || fail "the slowed jam moved no count (exit $rc)"
python3 - "$TMP/a/cost.csv" "$TMP/s/cost.csv" >"$TMP/py.err" 2>&1 <<'PY' || fail "slow jam: $(tail -1 "$TMP/py.err")"
import csv, sys
a, s = ({(r["jam"], r["payload_bytes"]): r for r in csv.DictReader(open(p))} for p in sys.argv[1:])
for k in a:
    cols = ("instructions_per_msg", "cycles_per_msg", "recv_instructions_per_msg", "recv_cycles_per_msg")
    if k[0] == "indirect_put":
        # 50 spins: a few hundred instructions more per message, on the receive path
        for c in cols:
            assert float(s[k][c]) > float(a[k][c]) + 100, (k, c, a[k][c], s[k][c])
    else:
        # the other jam runs the same instructions; its code moved in the
        # package, so its simulated branches and lines may differ a little:
        # 5%, or one simulated miss a message (10 cycles in the formula: on a
        # path of under 200 cycles one aliased branch alone is over 5%)
        assert all(s[k][c] == a[k][c] for c in cols if "instructions" in c), (k, a[k], s[k])
        assert all(abs(float(s[k][c]) - float(a[k][c])) <= max(0.05 * float(a[k][c]), 10.0 + 0.01)
                   for c in cols if "cycles" in c), (k, a[k], s[k])
    assert s[k]["send_instructions_per_msg"] == a[k]["send_instructions_per_msg"], k
PY
echo ok
