#!/usr/bin/env bash
# tc-soak in miniature: a short stream must run every counter exactly once,
# in order; bad command lines exit 2 with one line and "try 'tc-soak --help'".
. "$(dirname "$0")/lib.sh"
SOAK="$TC_BUILD/bin/tc-soak"
"$SOAK" -n 200000 -S 8 --json "$TMP/s.json" >"$TMP/out" 2>"$TMP/err" || fail "tc-soak: $(cat "$TMP/err")"
grep -q "in order: yes" "$TMP/out" || fail "$(cat "$TMP/out")"
python3 -c "import json; d=json.load(open('$TMP/s.json')); assert d['in_order_exactly_once'] and d['count'] == 200000 and d['p9999_us'] > 0, d" \
    >"$TMP/py.err" 2>&1 || fail "JSON summary: $(tail -1 "$TMP/py.err")"
for m in injected cached; do
    "$SOAK" -n 50000 -S 8 -m "$m" >"$TMP/out" 2>"$TMP/err" || fail "tc-soak -m $m: $(cat "$TMP/err")"
    grep -q "in order: yes" "$TMP/out" || fail "$m: $(cat "$TMP/out")"
done
for args in "-m remote" "-n 0" "-S 6" "--signal sometimes" "-c 1" "--bogus" "extra"; do
    "$SOAK" $args >"$TMP/out" 2>"$TMP/err"; rc=$?
    [ "$rc" = 2 ] || fail "tc-soak $args exited $rc"
    [ "$(tail -n +2 "$TMP/err")" = "try 'tc-soak --help'" ] && [ "$(wc -l <"$TMP/err")" = 2 ] ||
        fail "tc-soak $args: not one line and the hint: $(head -c 300 "$TMP/err")"
done
echo ok
