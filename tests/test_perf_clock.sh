#!/usr/bin/env bash
# tc-perf says where a point's latencies are off: its ticks at the
# calibrated rate and CLOCK_MONOTONIC over the point disagree by over 5%
# (a counter that jumped, a rate that moved). A preloaded clock_gettime
# moves CLOCK_MONOTONIC a second ahead at 0.6 s after its first read and
# every 0.7 s after that (so that a slow start or a jump between two points
# cannot leave every point unspoiled): a point that spans k jumps must be
# named, once, with CLOCK_MONOTONIC k seconds ahead of its ticks.
. "$(dirname "$0")/lib.sh"
command -v cc >/dev/null || skip "cc missing: cannot build the clock_gettime shim"

cat >"$TMP/shim.c" <<'EOF'
/* CLOCK_MONOTONIC one more second ahead at 600 ms after the first read and
 * every 700 ms after that; every other clock as the kernel has it */
#define _GNU_SOURCE
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static uint64_t first_ns;

int clock_gettime(clockid_t id, struct timespec *ts)
{
    uint64_t now, since;
    int rc = (int)syscall(SYS_clock_gettime, id, ts);

    if ((rc != 0) || (id != CLOCK_MONOTONIC)) {
        return rc;
    }
    now = (uint64_t)ts->tv_sec * 1000000000ull + (uint64_t)ts->tv_nsec;
    if (first_ns == 0) {
        first_ns = now;
    }
    since = now - first_ns;
    if (since >= 600000000ull) {
        ts->tv_sec += (time_t)(1 + (since - 600000000ull) / 700000000ull);
    }
    return 0;
}
EOF
cc -shared -fPIC -O2 -o "$TMP/shim.so" "$TMP/shim.c" || fail "the shim did not build"

# loopback: both sides in one process; eight points of 0.2 s or more each.
# A sanitizer build's runtime wants to be the first library: it comes first
asan=$(ldd "$TC_PERF" 2>/dev/null | awk '/libasan/ { print $3; exit }')
LD_PRELOAD="${asan:+$asan:}$TMP/shim.so" "$TC_PERF" -l -t jam_lat -s 8,16,24,32,40,48,56,64 \
    -n 2000000 -w 1000 -T 60000 -q --csv "$TMP/r.csv" >"$TMP/out" 2>"$TMP/err" \
    || fail "run: $(tail -5 "$TMP/err")"
grep "CLOCK_MONOTONIC says" "$TMP/err" >"$TMP/warned" || true
[ -s "$TMP/warned" ] || fail "no point named for the jumps (stderr: $(tail -5 "$TMP/err"))"
python3 - "$TMP/warned" <<'PY' || fail "the warnings: $(cat "$TMP/warned")"
import re, sys
pat = re.compile(r"test jam_lat, payload (\d+) bytes: the (tsc|tsc-variant|cntvct) counter says "
                 r"([0-9.]+) ms where CLOCK_MONOTONIC says ([0-9.]+) ms: it jumped")
seen = set()
for line in open(sys.argv[1]).read().splitlines():
    m = pat.search(line)
    assert m, line
    size, ticks_ms, mono_ms = int(m.group(1)), float(m.group(3)), float(m.group(4))
    assert size not in seen, ("named twice", line)
    seen.add(size)
    k = round((mono_ms - ticks_ms) / 1000.0)
    assert k >= 1 and abs(mono_ms - ticks_ms - 1000.0 * k) < 0.05 * ticks_ms + 20, line
PY
# the rows are still written (said, not dropped)
[ "$(grep -c "^jam_lat," "$TMP/r.csv")" = 8 ] || fail "rows missing: $(cat "$TMP/r.csv")"
echo ok
