#!/usr/bin/env bash
# docs/USING.md's program, as a user gets it: make install into a prefix,
# the program taken from the guide (and equal to docs/examples/using.c),
# built with pkg-config alone, the bench package found through
# benchpkgdir, then a server and a client as two processes with variable
# frames, fixed frames, frames forced too small on either side, and package
# paths that are and are not packages. Every result is checked exactly.
. "$(dirname "$0")/lib.sh"
SRC=${TC_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
command -v pkg-config >/dev/null || skip "no pkg-config"
pkg-config --exists ucx || skip "UCX has no ucx.pc here (twochains.pc requires it)"

# the guide's code block is the program (so the guide cannot drift from it)
awk '/^<!-- using.c begin/ { on = 1; next } /^<!-- using.c end/ { on = 0 }
     on && !/^```/' "$SRC/docs/USING.md" >"$TMP/using.c"
[ -s "$TMP/using.c" ] || fail "no program between the using.c markers in docs/USING.md"
diff -u "$SRC/docs/examples/using.c" "$TMP/using.c" >"$TMP/diff" ||
    fail "docs/USING.md's program differs from docs/examples/using.c: $(cat "$TMP/diff")"

prefix="$TMP/prefix"
# the tree make check just built (BUILD as make knows it: its dependency files name it so)
build=$(realpath --relative-to="$SRC" "$TC_BUILD")
make -C "$SRC" --no-print-directory install BUILD="$build" PREFIX="$prefix" SAN="${SAN:-}" \
    >"$TMP/install.log" 2>&1 || fail "make install: $(tail -20 "$TMP/install.log")"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
pkg=$(pkg-config --variable=benchpkgdir twochains) || fail "pkg-config: no twochains.pc in $prefix"
[ "$pkg" = "$prefix/share/twochains/pkg/bench" ] || fail "benchpkgdir is '$pkg'"
[ -f "$pkg/manifest.tcm" ] && [ -f "$pkg/libtc_bench.so" ] || fail "no bench package in $pkg"
libdir=$(pkg-config --variable=libdir twochains)
# a sanitized library needs its runtime in the program too
cc -std=c11 -Wall -Wextra -Werror ${SAN:+-fsanitize=$SAN} "$TMP/using.c" -o "$TMP/using" \
    $(pkg-config --cflags --libs twochains) -Wl,-rpath,"$libdir" 2>"$TMP/cc.err" ||
    fail "building the guide's program: $(cat "$TMP/cc.err")"

# run_pair NAME SERVER_PKG SERVER_FRAMES CLIENT_FRAMES: both processes, each
# bounded; $TMP/NAME.{s,c}.{out,err}, and their exit codes in src and crc
run_pair() {
    local n=$1 spid port
    timeout 300 "$TMP/using" server "$2" 0 "$3" >"$TMP/$n.s.out" 2>"$TMP/$n.s.err" &
    spid=$!
    for _ in $(seq 1200); do # the server binds before it waits: up to 120 s
        grep -q "^server: listening on port" "$TMP/$n.s.out" && break
        kill -0 "$spid" 2>/dev/null || break
        sleep 0.1
    done
    port=$(sed -n 's/^server: listening on port \([0-9]*\)$/\1/p' "$TMP/$n.s.out")
    [ -n "$port" ] || { kill "$spid" 2>/dev/null; wait "$spid"
                        fail "$n: the server printed no port: $(cat "$TMP/$n.s.out" "$TMP/$n.s.err")"; }
    timeout 300 "$TMP/using" client "$pkg" localhost "$port" "$4" >"$TMP/$n.c.out" 2>"$TMP/$n.c.err"
    crc=$?
    wait "$spid"; src=$?
}

cat >"$TMP/expect" <<'EOF'
local    server_sum(1, 2, 3, 4) = 10
injected server_sum(5, 6, 7, 8) = 36
cached   server_sum(100, -50, 0, 1) = 87
sent     server_sum(1000), no reply
local    server_sum(0) = 1087
ried     libried_bench.so shipped: exports tc_ried_init_bench tc_ried_fini_bench
error    tc_pkg_jam(no_such_jam): not found
error    server_sum of 8192 bytes: out of range
client: done
EOF
check_run() { # name: both exited 0, the client printed exactly the expected lines
    local n=$1
    [ "$crc" = 0 ] && [ "$src" = 0 ] ||
        fail "$n: client rc=$crc, server rc=$src: $(cat "$TMP/$n.c.out" "$TMP/$n.c.err" "$TMP/$n.s.err")"
    grep -v '^client: fixed [0-9]*-byte frames$' "$TMP/$n.c.out" | diff -u "$TMP/expect" - >"$TMP/diff" ||
        fail "$n: the client's output: $(cat "$TMP/diff")"
    grep -q "jam 'server_sum' refused to pack 8192 bytes: a frame to this peer holds at most 4040 payload bytes (its slots are 4096 bytes)" "$TMP/$n.c.err" ||
        fail "$n: no reason logged for the 8192-byte call: $(cat "$TMP/$n.c.err")"
    grep -qx "server: the client said goodbye; rejected 0 frames" "$TMP/$n.s.out" ||
        fail "$n: the server's end: $(cat "$TMP/$n.s.out" "$TMP/$n.s.err")"
    ! grep -q "warning\|rejected frame" "$TMP/$n.s.err" ||
        fail "$n: the server complained: $(cat "$TMP/$n.s.err")"
}

# variable frames, the package by its directory on both sides
run_pair variable "$pkg" variable variable
check_run variable
# fixed frames, each side sized for what it sends; the server's package by its .so
run_pair fixed "$pkg/libtc_bench.so" fixed fixed
check_run fixed
grep -q '^client: fixed [0-9]*-byte frames$' "$TMP/fixed.c.out" || fail "fixed: frame size not shown"

# the client's frames forced to 64 bytes: the first call says what to set
run_pair small_client "$pkg" fixed fixed:64
[ "$crc" = 1 ] && [ "$src" = 0 ] || fail "small_client: client rc=$crc, server rc=$src"
grep -q "jam 'server_sum' local with 16 payload bytes needs a 128-byte frame; frames are fixed at 64 bytes: use variable frames (tc_context_params_t.frames = TC_FRAMES_VARIABLE, set on both sides; tc-perf -F variable) or a fixed frame size of at least 128 (tc_peer_params_t.frame_size at connect, or tc_peer_set_frame_size) on this side" \
    "$TMP/small_client.c.err" || fail "small_client: $(cat "$TMP/small_client.c.err")"
grep -q "^using: local server_sum(1, 2, 3, 4): out of range$" "$TMP/small_client.c.err" ||
    fail "small_client: status: $(cat "$TMP/small_client.c.err")"
[ "$(cat "$TMP/small_client.c.out")" = "client: fixed 64-byte frames" ] ||
    fail "small_client: a call went through: $(cat "$TMP/small_client.c.out")"

# the server's: it cannot answer the client's ried (server_sum's injected
# run calls nothing, so its sync's answer is one 64-byte frame: the ried's
# answer is the first that does not fit), so it refuses the ried's frames
# with a NACK and keeps serving; the client's tc_ried_ship returns at once,
# saying what to set on the server
run_pair small_server "$pkg" fixed:64 fixed
[ "$crc" = 1 ] && [ "$src" = 0 ] || fail "small_server: client rc=$crc, server rc=$src"
grep -q "rejected frame in slot [0-9]* (expected seq [0-9]*): the ried's answer needs 192-byte frames; this side's are fixed at 64 bytes$" \
    "$TMP/small_server.s.err" || fail "small_server: $(cat "$TMP/small_server.s.err")"
grep -q "^server: the client said goodbye; rejected [1-9][0-9]* frames$" "$TMP/small_server.s.out" ||
    fail "small_server: the server's end: $(cat "$TMP/small_server.s.out" "$TMP/small_server.s.err")"
grep -q "^injected server_sum(5, 6, 7, 8) = 36$" "$TMP/small_server.c.out" &&
    grep -q "the answer to a ried frame needs 192-byte frames from it; its frames are fixed at 64 bytes: give it a fixed frame size of at least 192 .* on that side" \
        "$TMP/small_server.c.err" &&
    grep -q "^using: tc_ried_ship(.*libried_bench.so): out of range$" \
        "$TMP/small_server.c.err" || fail "small_server: client: $(cat "$TMP/small_server.c.out" "$TMP/small_server.c.err")"

# a directory that holds no package, and a file that is not one
mkdir "$TMP/empty"
"$TMP/using" client "$TMP/empty" localhost 1 >/dev/null 2>"$TMP/empty.err"; rc=$?
[ "$rc" = 1 ] || fail "empty directory: rc=$rc"
grep -q "twochains: error: $TMP/empty is a directory but holds no package: no manifest.tcm in it" \
    "$TMP/empty.err" && grep -q "^using: tc_pkg_open($TMP/empty): not found$" "$TMP/empty.err" ||
    fail "empty directory: $(cat "$TMP/empty.err")"
"$TMP/using" client "$pkg/manifest.tcm" localhost 1 >/dev/null 2>"$TMP/notlib.err"; rc=$?
[ "$rc" = 1 ] && grep -q "^using: tc_pkg_open($pkg/manifest.tcm): " "$TMP/notlib.err" ||
    fail "a manifest as the package: rc=$rc $(cat "$TMP/notlib.err")"
echo "ok: the guide's program from $prefix: variable, fixed, too-small frames, bad package paths"
