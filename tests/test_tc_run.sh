#!/usr/bin/env bash
# tc-run runs one jam once in each mode with the same result and effect;
# bad command lines (an unknown jam, a second payload among them) exit 2
# with one error line and "try 'tc-run --help'".
. "$(dirname "$0")/lib.sh"
RUN="$TC_BUILD/bin/tc-run"
for m in local injected cached; do
    "$RUN" -P "$TC_BUILD/pkg/bench" -j server_sum -m "$m" --ints 5,-2,40 >"$TMP/$m" 2>"$TMP/err" \
        || fail "tc-run $m: $(cat "$TMP/err")"
    grep -q "^result=43$" "$TMP/$m" || fail "tc-run $m: $(cat "$TMP/$m")"
    grep -q "effect: calls=1 sum=43" "$TMP/$m" || fail "tc-run $m effect: $(cat "$TMP/$m")"
done
grep -q "code_bytes=[1-9]" "$TMP/injected" || fail "no code size shown"
"$RUN" -j seq --u64 0 >"$TMP/seq" 2>"$TMP/err" || fail "tc-run seq: $(cat "$TMP/err")"
grep -q "^result=0$" "$TMP/seq" || fail "seq: $(cat "$TMP/seq")"
for args in "-j server_sum -m remote" "-j server_sum --ints 1,x" "-j server_sum --bogus" "--ints 1" \
            "-j server_sum extra" "-j no_such_jam" "-j server_sum --ints 1 --u64 2" \
            "-j server_sum --u64 2 --ints 1" "-j append --text a --text b" "-j kv_get --u32 1 --u32 2"; do
    "$RUN" $args >"$TMP/out" 2>"$TMP/err"; rc=$?
    [ "$rc" = 2 ] || fail "tc-run $args exited $rc: $(head -1 "$TMP/err")"
    [ "$(grep -c "^tc-run: " "$TMP/err")" = 1 ] || fail "tc-run $args: not one error line: $(cat "$TMP/err")"
    [ "$(tail -n +2 "$TMP/err")" = "try 'tc-run --help'" ] || fail "tc-run $args: no hint: $(head -c 300 "$TMP/err")"
    [ ! -s "$TMP/out" ] || fail "tc-run $args ran: $(cat "$TMP/out")"
done
grep -q "^tc-run: --u32 2: the payload is already --u32 1" "$TMP/err" || fail "two --u32: $(head -1 "$TMP/err")"
"$RUN" -j no_such_jam >/dev/null 2>"$TMP/err"
grep -q "^tc-run: package 'bench' has no jam 'no_such_jam' (its jams: .*server_sum" "$TMP/err" ||
    fail "unknown jam: $(cat "$TMP/err")"
echo ok
