#!/usr/bin/env bash
# Bad inputs to the tools get one line naming what was wrong, then "try
# 'TOOL --help'" (not the usage, which would scroll that line away), and
# exit 2, with nothing run: unknown options, unknown jams and unwritable
# outputs in every tool, a second tc-run payload, empty list items, cores
# that are not there, options that would be ignored, an option's value that
# is an option, two outputs to one file, a stress class stress-ng lacks.
# --help (the usage, exit 0) and --version (revision and UCX version) in
# every tool; what this host lacks exits 77 ("unsupported: why"). And what
# the tools offer instead: size ranges, tc-run --list and the payload a jam
# needs.
. "$(dirname "$0")/lib.sh"
SOAK="$TC_BUILD/bin/tc-soak" MCAST="$TC_BUILD/bin/tc-mcast" RUN="$TC_BUILD/bin/tc-run"
COST="$TC_BUILD/bin/tc-cost" PKG="$TC_BUILD/bin/tc-pkg"

bad() { # tool expected-first-line-substring args...
    local tool=$1 want=$2; shift 2
    "$tool" "$@" >"$TMP/out" 2>"$TMP/err"; rc=$?
    [ "$rc" = 2 ] || fail "$(basename "$tool") $*: exit $rc, expected 2: $(head -1 "$TMP/err")"
    head -1 "$TMP/err" | grep -qF -- "$want" || fail "$(basename "$tool") $*: first line '$(head -1 "$TMP/err")' lacks '$want'"
    [ "$(sed -n 2p "$TMP/err")" = "try '$(basename "$tool") --help'" ] && [ "$(wc -l <"$TMP/err")" = 2 ] ||
        fail "$(basename "$tool") $*: not one line and \"try '$(basename "$tool") --help'\": $(head -c 300 "$TMP/err")"
    [ ! -s "$TMP/out" ] || fail "$(basename "$tool") $*: something ran: $(head -3 "$TMP/out")"
}

# every tool: a usage error exits 2 (an unknown option here)
for t in "$TC_PERF" "$SOAK" "$MCAST" "$RUN" "$COST"; do
    bad "$t" "unknown option '--bogus'" --bogus
done
bad "$PKG" "unknown command '--bogus'" --bogus
bad "$PKG" "unknown option '--bogus'" build jams --bogus

# --help: the usage on stdout, exit 0, with the exit codes; --version: the
# tool, the git revision the Makefile passed and UCX's version, exit 0
rev=$(cat "$TC_BUILD/git-rev" 2>/dev/null || echo unknown)
ucx=$("$TC_PERF" --platform --json - | python3 -c 'import json,sys; print(json.load(sys.stdin)["network"]["ucx_version"])')
for t in "$TC_PERF" "$SOAK" "$MCAST" "$RUN" "$COST" "$PKG"; do
    n=$(basename "$t")
    "$t" --help >"$TMP/out" 2>"$TMP/err"; rc=$?
    [ "$rc" = 0 ] && grep -q "^usage: $n" "$TMP/out" && [ ! -s "$TMP/err" ] || fail "$n --help: exit $rc: $(head -2 "$TMP/out" "$TMP/err")"
    [ "$n" = tc-pkg ] || grep -q "77 unsupported here" "$TMP/out" || fail "$n --help does not say exit 77"
    "$t" --version >"$TMP/out" 2>"$TMP/err"; rc=$?
    [ "$rc" = 0 ] && [ "$(cat "$TMP/out")" = "$n (Two-Chains) rev $rev, UCX $ucx" ] && [ ! -s "$TMP/err" ] ||
        fail "$n --version: exit $rc: '$(cat "$TMP/out" "$TMP/err")', expected '$n (Two-Chains) rev $rev, UCX $ucx'"
done
# and the Python tools of scripts/ (argparse's 2; tc-floor-table's own)
for t in tc-claims tc-compare tc-experiments tc-platforms tc-plot tc-floor-table tc-host-state; do
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

# a wait strategy this host lacks: "unsupported: why", said once, before
# anything runs, exit 77 (automake's and ctest's "skipped"); no -w: the
# default warm-up clamped to -n is a run's line, not the refusal's
for w in wfe umwait mwaitx; do
    "$TC_PERF" --platform | grep -q "^wait.$w: supported" && continue
    "$TC_PERF" -l -W poll,$w -n 10 >"$TMP/out" 2>"$TMP/err"; rc=$?
    [ "$rc" = 77 ] || fail "-W $w: exit $rc, expected 77: $(cat "$TMP/err")"
    [ "$(cat "$TMP/err")" = "tc-perf: unsupported: -W $w: $("$TC_PERF" --platform | sed -n "s/^wait.$w: unsupported: //p") (this host has: $("$TC_PERF" --platform | sed -n 's/^wait.\([a-z]*\): supported$/\1/p' | paste -sd,))" ] ||
        fail "-W $w: $(cat "$TMP/err")"
    [ ! -s "$TMP/out" ] || fail "-W $w: something ran: $(head -3 "$TMP/out")"
done
# a placement the transport cannot do (tcp maps no peer memory): 77 too,
# before any point is measured
if "$TC_PERF" --platform | grep -q "^placement.llc: supported"; then
    UCX_TLS=tcp "$TC_PERF" -l --placement default,llc -n 10 -w 0 -q --csv "$TMP/p.csv" >"$TMP/out" 2>"$TMP/err"; rc=$?
    [ "$rc" = 77 ] || fail "--placement llc over tcp: exit $rc, expected 77: $(cat "$TMP/err")"
    grep -q "placement llc: unsupported: ucp_rkey_ptr cannot map the peer's mailbox" "$TMP/err" ||
        fail "--placement llc over tcp: $(cat "$TMP/err")"
    [ ! -e "$TMP/p.csv" ] || fail "--placement llc over tcp measured something: $(cat "$TMP/p.csv")"
fi

# --boot pmix with no launcher (or no PMIx in this build): 77 as well
for t in "$TC_PERF" "$MCAST"; do
    env -u PMIX_NAMESPACE -u PMIX_RANK "$t" --boot pmix -n 10 >"$TMP/out" 2>"$TMP/err"; rc=$?
    [ "$rc" = 77 ] && grep -q "unsupported: " "$TMP/err" ||
        fail "$(basename "$t") --boot pmix without a launcher: exit $rc: $(cat "$TMP/err")"
done

# -c says how many cores it takes, which item is wrong and the cores here
here=$(python3 -c 'import os; s=sorted(os.sched_getaffinity(0)); r=[]
for c in s:
    if r and r[-1][1] == c - 1: r[-1][1] = c
    else: r.append([c, c])
print(",".join(str(a) if a == b else "%d-%d" % (a, b) for a, b in r))')
bad "$TC_PERF" "-c 0,1,2: 3 cores; -c takes 1 or 2 (CPU; with -l or --boot pmix CLIENT,SERVER); cores here: $here" -l -c 0,1,2
bad "$TC_PERF" "-c 0,x: 'x' is not a core number (0..4095); cores here: $here" -l -c 0,x
bad "$SOAK" "-c 0: 1 core; -c takes 2 (SENDER,RECEIVER); cores here: $here" -c 0

# an option's value that is another option is refused ("--csv -q" wrote a
# file named -q); a lone - (stdout) and negative numbers pass
( cd "$TMP" && bad "$TC_PERF" "--csv takes a value, and '-q' is an option (--csv=-q if that is meant)" -l --csv -q ) || exit 1
[ ! -e "$TMP/-q" ] || fail "--csv -q wrote a file named -q"
bad "$TC_PERF" "-P takes a value, and '--wx' is an option" -l -P --wx
bad "$SOAK" "--json takes a value, and '-n' is an option" --json -n 10
bad "$COST" "--csv takes a value, and '-q' is an option" --csv -q
bad "$MCAST" "--csv takes a value, and '-q' is an option" --csv -q
bad "$RUN" "-j takes a value, and '--list' is an option" -j --list
bad "$PKG" "--out takes a value, and '-q' is an option" build jams --name x --out -q
"$RUN" -j server_sum --ints -5,3 >"$TMP/out" 2>"$TMP/err" && grep -q "^result=-2$" "$TMP/out" ||
    fail "tc-run --ints -5,3: $(cat "$TMP/out" "$TMP/err")"

# two outputs to one file: refused, whatever the spelling, and nothing left
bad "$TC_PERF" "--csv $TMP/one and --json $TMP/one are one file: two outputs to one path" \
    -l -n 10 -w 0 --csv "$TMP/one" --json "$TMP/one"
bad "$TC_PERF" "--csv $TMP/one and --dist $TMP/../$(basename "$TMP")/one are one file" \
    -l -n 10 -w 0 --csv "$TMP/one" --dist "$TMP/../$(basename "$TMP")/one"
[ ! -e "$TMP/one" ] || fail "a refused run left $TMP/one"

# --platform --json FILE writes FILE (it wrote stdout), nothing on stdout
"$TC_PERF" --platform --json "$TMP/plat.json" >"$TMP/out" 2>"$TMP/err" || fail "--platform --json FILE: $(cat "$TMP/err")"
[ ! -s "$TMP/out" ] || fail "--platform --json FILE wrote stdout: $(head -c 200 "$TMP/out")"
has_arch='import json,sys; assert json.load(open(sys.argv[1]))["arch"]'
python3 -c "$has_arch" "$TMP/plat.json" || fail "--platform --json FILE: not the JSON report: $(head -c 200 "$TMP/plat.json")"

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
