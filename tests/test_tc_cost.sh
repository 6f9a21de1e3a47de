#!/usr/bin/env bash
# tc-cost: every point runs each side's frames exactly once and prints a
# row; bad command lines exit 2 with one line and "try 'tc-cost --help'"; under callgrind
# (scripts/bench-cost.sh) each point's loop is counted alone, so an injected
# noop (its code compared on arrival) costs more instructions than a local
# one, and server_sum (it sums and copies its payload) more than noop.
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
echo ok
