#!/usr/bin/env bash
# The tc-perf server serves whatever jam the client asks for from its own
# package (no -j on the server: the client's options travel to it), and
# refuses only what it lacks, telling the client why: two processes, a
# second package built here by tc-pkg (as tests/test_jams_guide.sh builds
# one). A jam the server's package lacks, a package it did not load and
# another build of its package: the client prints the server's reason in
# one line and exits 2, the server says the same and exits 1. A jam both
# have runs: one the server's default -j does not name, and a server on a
# package without the default jam (it used to exit "has no jam
# 'indirect_put'" before any client came).
. "$(dirname "$0")/lib.sh"
TC_SRC=${TC_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
TC_PKG="$TC_BUILD/bin/tc-pkg"

mkdir -p "$TMP/mine"
cat >"$TMP/mine/jam_dot.amc" <<'EOF'
/* dot: the sum of the products of int32 pairs */
#include <string.h>
#include "tc_jam.h"
TC_JAM_DESCRIBE("sums the products of int32 pairs", "int32 pairs (a multiple of 8 bytes)",
                "the sum of the products");
int64_t TC_JAM_RUN(tc_jam_ctx_t *ctx, void *payload, size_t len)
{
    const int32_t *v = payload; int64_t s = 0; size_t i;
    (void)ctx;
    for (i = 0; i + 1 < len / 4; i += 2) s += (int64_t)v[i] * v[i + 1];
    return s;
}
int64_t TC_JAM_PACK(void *dst, size_t cap, const void *src, size_t len)
{ if ((len > cap) || (len % 8)) return -1; memcpy(dst, src, len); return (int64_t)len; }
EOF
cp "$TC_SRC/jams/jam_noop.amc" "$TMP/mine/"
"$TC_PKG" build "$TMP/mine" --name mystats --out "$TMP/mine.pkg" >"$TMP/log" 2>&1 ||
    { cat "$TMP/log"; fail "building mystats"; }
# the same sources, another build (other flags: another package id)
"$TC_PKG" build "$TMP/mine" --name mystats --out "$TMP/mine2.pkg" --cflags "-DTC_OTHER_BUILD=1" \
    >"$TMP/log" 2>&1 || { cat "$TMP/log"; fail "building mystats again"; }
id1=$(sed -n 's/^id //p' "$TMP/mine.pkg/manifest.tcm")
id2=$(sed -n 's/^id //p' "$TMP/mine2.pkg/manifest.tcm")
[ "$id1" != "$id2" ] || fail "two builds with other flags have one id ($id1)"

# pair NAME "SERVER ARGS" CLIENT ARGS...: both processes, bounded; their
# output in $TMP/NAME.{s,c}.{out,err}, their exit codes in src and crc
pair() {
    local n=$1 sargs=$2 port spid
    shift 2
    port=$(free_port)
    # shellcheck disable=SC2086 # the server's arguments are words
    timeout 120 "$TC_PERF" -p "$port" -T 20000 $sargs >"$TMP/$n.s.out" 2>"$TMP/$n.s.err" &
    spid=$!
    wait_listening "$port" 60 || { kill "$spid"; fail "$n: the server never listened: $(cat "$TMP/$n.s.err")"; }
    # shellcheck disable=SC2086 # PAIR_W: the warm-up option, or none
    timeout 120 "$TC_PERF" 127.0.0.1 -p "$port" -T 20000 -n 200 ${PAIR_W--w 20} -s 8 "$@" \
        >"$TMP/$n.c.out" 2>"$TMP/$n.c.err"
    crc=$?
    wait "$spid"; src=$?
}
refused() { # name want "server args" client args...: exit 2 and 1, the reason on both sides
    local n=$1 want=$2 sargs=$3
    shift 3
    pair "$n" "$sargs" "$@"
    [ "$crc" = 2 ] || fail "$n: the client exited $crc, expected 2: $(cat "$TMP/$n.c.err")"
    [ "$(wc -l <"$TMP/$n.c.err")" = 1 ] || fail "$n: the client said more than one line: $(cat "$TMP/$n.c.err")"
    grep -q "^tc-perf: the server 127.0.0.1:[0-9]* refuses this run: " "$TMP/$n.c.err" &&
        grep -qF -- "$want" "$TMP/$n.c.err" || fail "$n: the client's line lacks '$want': $(cat "$TMP/$n.c.err")"
    [ "$src" = 1 ] || fail "$n: the server exited $src, expected 1: $(cat "$TMP/$n.s.err")"
    grep -qF -- "refusing the client's run (it is told why): " "$TMP/$n.s.err" &&
        grep -qF -- "$want" "$TMP/$n.s.err" || fail "$n: the server's log lacks '$want': $(cat "$TMP/$n.s.err")"
    echo "$n: $(cat "$TMP/$n.c.err")"
}
ran() { # name: both sides exit 0, the client's CSV has a jam row
    [ "$crc" = 0 ] || fail "$1: the client exited $crc: $(cat "$TMP/$1.c.err")"
    [ "$src" = 0 ] || fail "$1: the server exited $src: $(cat "$TMP/$1.s.err")"
    grep -q "^jam_lat," "$TMP/$1.csv" || fail "$1: no jam_lat row: $(cat "$TMP/$1.csv")"
    echo "$1: ran"
}

# --- refused, with the reason on the client
# (no -w: the default warm-up clamped to -n is the run's to say, not a refusal's)
PAIR_W= refused lacks "its package 'bench' 0x" "" -P "$TMP/mine.pkg" -j dot
grep -qF "has no jam 'dot' (its jams: append, copy, " "$TMP/lacks.c.err" &&
    grep -qF "the client's 'dot' is in package 'mystats' $id1: start the server with that package (-P DIR)" \
        "$TMP/lacks.c.err" || fail "lacks: $(cat "$TMP/lacks.c.err")"
refused other_pkg "the client's jam 'noop' is in package 'mystats' $id1, which it did not load" \
    "" -P "$TMP/mine.pkg" -j noop
refused other_build "it loaded package 'mystats' $id1; the client's is $id2, another build of it" \
    "-P $TMP/mine.pkg" -P "$TMP/mine2.pkg" -j dot

# --- served: whatever jam of its package the client asks for
pair seq "" -j seq -m local,injected --csv "$TMP/seq.csv"
ran seq
pair mine "-P $TMP/mine.pkg" -P "$TMP/mine.pkg" -j dot -m local,injected,cached --csv "$TMP/mine.csv"
ran mine
[ "$(grep -c "^jam_lat," "$TMP/mine.csv")" = 3 ] || fail "mine: not one row per mode: $(cat "$TMP/mine.csv")"
echo ok
