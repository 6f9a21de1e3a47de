#!/usr/bin/env bash
# Bad inputs to the tools get one line naming what was wrong and exit 2,
# with nothing run: unknown options, unknown jams and unwritable outputs in
# every tool, a second tc-run payload, empty list items, cores that are not there, options that
# would be ignored, a stress class stress-ng lacks; and what the tools offer
# instead: size ranges, tc-run --list and the payload a jam needs.
. "$(dirname "$0")/lib.sh"
SOAK="$TC_BUILD/bin/tc-soak" MCAST="$TC_BUILD/bin/tc-mcast" RUN="$TC_BUILD/bin/tc-run"
COST="$TC_BUILD/bin/tc-cost" PKG="$TC_BUILD/bin/tc-pkg"

bad() { # tool expected-first-line-substring args...
    local tool=$1 want=$2; shift 2
    "$tool" "$@" >"$TMP/out" 2>"$TMP/err"; rc=$?
    [ "$rc" = 2 ] || fail "$(basename "$tool") $*: exit $rc, expected 2: $(head -1 "$TMP/err")"
    head -1 "$TMP/err" | grep -qF -- "$want" || fail "$(basename "$tool") $*: first line '$(head -1 "$TMP/err")' lacks '$want'"
    grep -q "^usage: " "$TMP/err" || fail "$(basename "$tool") $*: no usage"
    [ ! -s "$TMP/out" ] || fail "$(basename "$tool") $*: something ran: $(head -3 "$TMP/out")"
    [ "$(grep -c "^$(basename "$tool"): " "$TMP/err")" = 1 ] ||
        fail "$(basename "$tool") $*: not one error line: $(cat "$TMP/err")"
}

# every tool: a usage error exits 2 (an unknown option here)
for t in "$TC_PERF" "$SOAK" "$MCAST" "$RUN" "$COST"; do
    bad "$t" "unknown option '--bogus'" --bogus
done
"$PKG" --bogus >"$TMP/out" 2>"$TMP/err"; rc=$?
[ "$rc" = 2 ] || fail "tc-pkg --bogus: exit $rc, expected 2"
# and the Python tools of scripts/ (argparse's 2; tc-floor-table's own)
for t in tc-claims tc-compare tc-experiments tc-platforms tc-plot tc-floor-table; do
    python3 "$(dirname "$0")/../scripts/$t" --bogus >"$TMP/out" 2>"$TMP/err"; rc=$?
    [ "$rc" = 2 ] || fail "$t --bogus: exit $rc, expected 2: $(head -1 "$TMP/err")"
done
python3 "$(dirname "$0")/../scripts/tc-floor-table" >"$TMP/out" 2>"$TMP/err"; rc=$?
[ "$rc" = 2 ] && [ "$(head -1 "$TMP/err")" = "tc-floor-table: needs DIR and at least one JAM" ] ||
    fail "tc-floor-table with no arguments: exit $rc: $(cat "$TMP/err")"

# an unknown jam named on the command line is a usage error in every tool
# that takes one: one line naming the jam, the package and its jams; said
# once by tc-mcast, not once per rank
nojam="package 'bench' has no jam 'nosuch' (its jams: append, copy, "
bad "$TC_PERF" "$nojam" -l -j nosuch
bad "$RUN" "$nojam" -j nosuch
bad "$COST" "$nojam" -j nosuch
bad "$MCAST" "$nojam" -n 2 -j nosuch
bad "$COST" "package 'bench' has no jam 'nosuch'" -j noop,nosuch
bad "$MCAST" "-j nosuch: --simulate models the tree and runs no jam" --simulate 100 -j nosuch

# an output that cannot be written is refused before anything runs (tc-soak
# used to run the whole soak first and then exit 1)
nodir="$TMP/no/such/dir"
bad "$TC_PERF" "--csv $nodir/r.csv: cannot write it: " -l -n 10 --csv "$nodir/r.csv"
bad "$SOAK" "--json $nodir/s.json: cannot write it: " -n 10 --json "$nodir/s.json"
bad "$COST" "--csv $nodir/c.csv: cannot write it: " -n 10 --csv "$nodir/c.csv"
bad "$MCAST" "--csv $nodir/m.csv: cannot write it: " -n 2 --csv "$nodir/m.csv"
bad "$MCAST" "--csv $nodir/m.csv: cannot write it: " --simulate 100 --csv "$nodir/m.csv"

# tc-run takes one payload: a second is refused, not silently taken
bad "$RUN" "--u64 2: the payload is already --ints 1 (one of --ints, --u32, --u64, --text)" \
    -j server_sum --ints 1 --u64 2
bad "$RUN" "--ints 1: the payload is already --text a" -j server_sum --text a --ints=1
bad "$RUN" "--u32 2: the payload is already --u32 1" -j kv_get --u32 1 --u32 2

# empty list items
bad "$TC_PERF" "empty item in '8,,16' (-s takes a comma list)" -l -s 8,,16
bad "$TC_PERF" "empty item in 'jam_lat,' (-t takes a comma list)" -l -t jam_lat,
bad "$TC_PERF" "empty item in ',8'" -l -s ,8
bad "$TC_PERF" "empty wait strategy in 'poll,'" -l -W poll,
bad "$TC_PERF" "empty mode in 'local,,injected'" -l -m local,,injected
bad "$RUN" "empty item in '' (--ints takes a comma list)" -j server_sum --ints ""
bad "$RUN" "empty item in '1,,2'" -j server_sum --u32 1,,2
bad "$MCAST" "empty item in '2,,4' (-R takes a comma list)" -R 2,,4

# size ranges, OSU's -m MIN:MAX: doubling, mixed with single sizes
"$TC_PERF" -l -t jam_lat -s 0:4,100 -n 20 -w 0 --csv "$TMP/s.csv" -q 2>"$TMP/err" || fail "-s 0:4,100: $(cat "$TMP/err")"
[ "$(cut -d, -f4 "$TMP/s.csv" | tail -n +2 | tr '\n' ' ')" = "0 1 2 4 100 " ] \
    || fail "-s 0:4,100 ran sizes $(cut -d, -f4 "$TMP/s.csv" | tail -n +2 | tr '\n' ' ')"
"$TC_PERF" -l -t jam_lat -s 8:32768 -n 2 -w 0 --csv "$TMP/s.csv" -q 2>"$TMP/err" || fail "-s 8:32768: $(cat "$TMP/err")"
[ "$(tail -n +2 "$TMP/s.csv" | wc -l)" = 13 ] || fail "-s 8:32768: not 13 sizes"
bad "$TC_PERF" "bad payload size '64:8'" -l -s 64:8
bad "$TC_PERF" "bad payload size '1:1073741824:2'" -l -s 1:1073741824:2

# --gap-us only where it does something
bad "$TC_PERF" "--gap-us applies to jam_lat, not to jam_rate" -l --gap-us 10 -t jam_lat,jam_rate
"$TC_PERF" -l --gap-us 1 -t jam_lat,put_lat -n 20 -w 0 -q 2>"$TMP/err" || fail "--gap-us with jam_lat,put_lat: $(cat "$TMP/err")"

# a stress spec stress-ng would refuse is refused here, naming the class
bad "$TC_PERF" "--stress vm:0: N must be 1..4096" -l --stress vm:0
if command -v stress-ng >/dev/null; then
    bad "$TC_PERF" "--stress bogus: stress-ng refuses it" -l --stress bogus
    grep -q "bogus" "$TMP/err" && ! grep -q "died" "$TMP/err" || fail "--stress bogus: $(cat "$TMP/err")"
fi

# a wait strategy this host lacks: said once, before anything runs
if ! "$TC_PERF" --platform | grep -q "^wait.wfe: supported"; then
    "$TC_PERF" -l -W wfe -n 10 -w 0 >"$TMP/out" 2>"$TMP/err"; rc=$?
    [ "$rc" = 1 ] || fail "-W wfe: exit $rc"
    [ "$(grep -c "wait strategy wfe" "$TMP/err")" = 1 ] || fail "-W wfe said $(grep -c "wait strategy wfe" "$TMP/err") times: $(cat "$TMP/err")"
    [ ! -s "$TMP/out" ] || fail "-W wfe: something ran: $(head -3 "$TMP/out")"
fi

# -T also bounds how long a server waits for its client: said in -h and when
# it starts
"$TC_PERF" -h | grep -q "also waits 6 x MS for its client" || fail "-h does not say -T bounds the server's wait"
port=$(free_port)
"$TC_PERF" -p "$port" -T 100 >"$TMP/out" 2>"$TMP/err"; rc=$?
[ "$rc" != 0 ] || fail "a server with no client exited 0"
grep -q "server waiting on port $port, at most 6 x -T = 600 ms" "$TMP/err" || fail "server: $(head -1 "$TMP/err")"

# cores that are not there, or not this process's to use
nope=$(( $(nproc --all) + 7 ))
bad "$SOAK" "cpu $nope is not available here (allowed: " -c 0,$nope -n 1000
bad "$TC_PERF" "cpu $nope is not available here" -l -c 0,$nope -n 10
if [ "$(nproc)" -ge 2 ]; then
    "$SOAK" -c 1,0 -n 20000 -S 8 >"$TMP/out" 2>"$TMP/err" || fail "tc-soak -c 1,0: $(cat "$TMP/err")"
fi

# tc-mcast: -n as its usage says, --shape only where it is used
bad "$MCAST" "bad process count '1' (2..4096)" -n 1
"$MCAST" -h | grep -q -- "-n N  *processes in the group, 2..4096" || fail "tc-mcast -h: -n range"
bad "$MCAST" "--shape block needs --simulate" --shape block
"$MCAST" --simulate 1000 --shape block -R 4 -q >/dev/null 2>"$TMP/err" || fail "--simulate --shape: $(cat "$TMP/err")"

# tc-run: --list says what each jam does, takes and returns, in the jam's
# own words (its source's TC_JAM_DESCRIBE, through the manifest); a jam
# given a payload its pack refuses is told what it takes
"$RUN" --list >"$TMP/list" 2>"$TMP/err" || fail "tc-run --list: $(cat "$TMP/err")"
for j in indirect_put server_sum seq noop stamp append kv_get pointer_chase copy; do
    grep -q "^  $j: [a-z]" "$TMP/list" || fail "--list lacks $j: $(cat "$TMP/list")"
done
kv_payload=$(sed -n 's/^describe [0-9]* payload //p' "$TC_BUILD/pkg/bench/manifest.tcm" |
             grep -m1 "uint32 key") || fail "the manifest has no kv_get payload text"
grep -A2 "^  kv_get: " "$TMP/list" | grep -qF "payload: $kv_payload" || fail "--list: kv_get's payload"
grep -A2 "^  kv_get: " "$TMP/list" | grep -q "result:  the key's value, or -1" || fail "--list: kv_get's result"
! grep -q "not described" "$TMP/list" || fail "a bench jam is not described: $(cat "$TMP/list")"
bad "$RUN" "kv_get needs a payload; it takes: one uint32 key (exactly 4 bytes)" -j kv_get
bad "$RUN" "seq does not take a 4-byte payload; it takes: the sender's uint64 message counter" \
    -j seq --u32 1
bad "$RUN" "--list lists every jam: no -j" --list -j kv_get
"$RUN" -j kv_get --u32 7 >"$TMP/out" 2>"$TMP/err" || fail "kv_get --u32 7: $(cat "$TMP/err")"
grep -q "^result=" "$TMP/out" || fail "kv_get: $(cat "$TMP/out")"
echo ok
