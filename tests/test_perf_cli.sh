#!/usr/bin/env bash
# Every bad command line: one line naming what was wrong, then "try 'tc-perf
# --help'" (the usage would scroll it away), exit 2. What this host lacks:
# "unsupported: why", exit 77.
. "$(dirname "$0")/lib.sh"
check() { # expected-substring args...
    local want=$1; shift
    "$TC_PERF" "$@" >"$TMP/out" 2>"$TMP/err"; rc=$?
    [ "$rc" = 2 ] || fail "tc-perf $* exited $rc, expected 2"
    head -1 "$TMP/err" | grep -q -- "$want" || fail "tc-perf $*: first line '$(head -1 "$TMP/err")' lacks '$want'"
    [ "$(tail -n +2 "$TMP/err")" = "try 'tc-perf --help'" ] || fail "tc-perf $*: not one line and the hint: $(head -c 300 "$TMP/err")"
}
check "unknown option '--bogus'" --bogus
check "unknown option '-x'" -x
check "unknown test 'jam_foo'" -t jam_lat,jam_foo
check "unknown wait strategy 'nap'" -W poll,nap
check "unknown mode 'remote'" -m local,remote
check "bad iteration count '0'" -n 0
check "bad iteration count '-5'" -n -5
check "bad iteration count '99999999999999999999999'" -n 99999999999999999999999
check "bad warm-up count 'ten'" -w ten
check "bad payload size '-1'" -s 8,-1
check "bad payload size '8x'" -s 8x
check "bad slot count '3'" -S 3
check "bad slot size '100'" -z 100
check "bad port '70000'" -p 70000
check "bad signalling mode 'maybe'" --signal maybe
check "bad frame mode 'odd'" -F odd
check "bad progress mode 'sometimes'" --progress sometimes
check "bad timeout '0'" -T 0
check "needs a value" -t
check "-l takes no HOST" -l somehost
check "slot size 64 is below" -l -z 64 -s 1024
check "unexpected argument 'b'" a b
check "unknown placement 'l3'" --placement default,l3
check "--sw-prefetch takes on or off" --sw-prefetch maybe
check "--hw-prefetch takes on or off" --hw-prefetch 1
check "--stash takes on or off" --stash yes
check "--stress-cpus 0 needs --stress" -l --stress-cpus 0
check "--stress vm goes on the client" --stress vm
check "bad gap '2000000'" --gap-us 2000000
check "bad --ref-work '100001'" --ref-work 100001
check "bad --ref-work 'some'" --ref-work some
check "--ref-work applies to floor_lat, put_read_lat and put_lat" -l -t jam_lat,floor_rate --ref-work 8
check "--order takes test or size, not 'mode'" --order mode
check "bad --blocks '0'" --blocks 0
check "bad api 'bogus' (send, prepared)" --api bogus
check "--api prepared applies to the jam tests" -l -t put_lat,floor_lat --api prepared
check "--blocks 8 needs at least as many iterations (-n 4)" -n 4 --blocks 8
# an unknown jam, caught once the package is loaded, is a bad command line too
check "package 'bench' has no jam 'no_such_jam' (its jams: " -l -j no_such_jam -n 10 -w 0
"$TC_PERF" -h >"$TMP/out" 2>"$TMP/err" || fail "-h exited non-zero: $(cat "$TMP/err")"
grep -q "^usage: tc-perf" "$TMP/out" || fail "-h prints no usage"
"$TC_PERF" -h | grep -q "77 unsupported here" || fail "-h does not say exit 77"
# a strategy this host lacks: the reason and what it has, nothing run, 77
if ! "$TC_PERF" --platform | grep -q "^wait.wfe: supported"; then
    "$TC_PERF" -l -W wfe -n 10 -w 0 >"$TMP/out" 2>"$TMP/err"; rc=$?
    [ "$rc" = 77 ] || fail "-W wfe: exit $rc on a host without WFE, expected 77"
    grep -q "^tc-perf: unsupported: -W wfe: " "$TMP/err" || fail "-W wfe: $(cat "$TMP/err")"
    grep -q "this host has: poll" "$TMP/err" || fail "-W wfe: no list of what the host has"
fi
# a placement this host lacks: the reason and what it has, nothing run, 77
for p in llc dram; do
    if ! "$TC_PERF" --platform | grep -q "^placement.$p: supported"; then
        "$TC_PERF" -l --placement default,$p -n 10 -w 0 >"$TMP/out" 2>"$TMP/err"; rc=$?
        [ "$rc" = 77 ] || fail "--placement $p on a host without it: exit $rc, expected 77"
        grep -q -- "^tc-perf: unsupported: --placement $p: " "$TMP/err" || fail "--placement $p: $(cat "$TMP/err")"
        grep -q "this host has: default" "$TMP/err" || fail "--placement $p: no list of what the host has"
        [ ! -s "$TMP/out" ] || fail "--placement $p: something ran: $(cat "$TMP/out")"
    fi
done
# controls that cannot be set: the reason, nothing run (a mislabelled
# experiment is worse than none)
for c in hw-prefetch stash; do
    key=$( [ $c = stash ] && echo stash || echo hw_prefetch )
    if "$TC_PERF" --platform | grep -q "^control.$key: unsupported"; then
        "$TC_PERF" -l --$c off -n 10 -w 0 >"$TMP/out" 2>"$TMP/err"; rc=$?
        [ "$rc" = 77 ] || fail "--$c off with the control unsupported: exit $rc, expected 77"
        grep -q -- "^tc-perf: unsupported: --$c off: " "$TMP/err" || fail "--$c: $(cat "$TMP/err")"
        [ ! -s "$TMP/out" ] || fail "--$c: something ran"
    fi
done
echo ok
