#!/usr/bin/env bash
# A jam of one's own describes itself (TC_JAM_DESCRIBE, jams/tc_jam.h):
# tc-pkg carries the three texts into the manifest, inspect and tc-run
# --list show them, a payload the pack refuses is told what the jam takes;
# the blob is the same bytes with or without them (the texts are in a
# section nothing the run entry reaches); a text that is not one printable
# line of at most 255 bytes, or not three string literals, is refused
# naming the source and the rule. Also for aarch64 where a cross compiler
# is installed.
. "$(dirname "$0")/lib.sh"
TC_PKG="$TC_BUILD/bin/tc-pkg"
RUN="$TC_BUILD/bin/tc-run"
A64CC=aarch64-linux-gnu-gcc

body='int64_t TC_JAM_RUN(tc_jam_ctx_t *ctx, void *payload, size_t len)
{ const uint32_t *v = payload; (void)ctx; return (len == 8) ? (int64_t)v[0] * v[1] : -1; }
int64_t TC_JAM_PACK(void *d, size_t c, const void *s, size_t l)
{ if ((l != 8) || (l > c)) return -1; memcpy(d, s, l); return (int64_t)l; }'
jam() { # dir describe-line: dir/jam_mul.amc with that line (empty: none) before the body
    mkdir -p "$1"
    printf '#include <string.h>\n#include "tc_jam.h"\n%s\n%s\n' "$2" "$body" >"$1/jam_mul.amc"
}
build() { # src out [args]: the log in $TMP/log
    local src=$1 out=$2; shift 2
    rm -rf "$out"
    "$TC_PKG" build "$src" --name mine --out "$out" --cflags "-Wall -Wextra -Werror" "$@" \
        >"$TMP/log" 2>&1
}
refused() { # describe-line want...: the build fails saying every want, writes no manifest
    local line=$1; shift
    rm -rf "$TMP/bad"
    jam "$TMP/bad" "$line"
    build "$TMP/bad" "$TMP/bad.out" && fail "built with $line: $(cat "$TMP/log")"
    for w in "$@"; do
        grep -qF -- "$w" "$TMP/log" || fail "$line: no '$w' in: $(cat "$TMP/log")"
    done
    [ -e "$TMP/bad.out/manifest.tcm" ] && fail "$line: a manifest was written"
    echo "refused as expected: $(grep -m1 -e 'tc-pkg:' -e 'error:' "$TMP/log")"
}

what="multiplies two uint32s | a jam of one's own"
payload="two uint32s, A then B (exactly 8 bytes)"
result="A x B, or -1 for another size"
described="TC_JAM_DESCRIBE(\"$what\", \"two uint32s, \" \"A then B (exactly 8 bytes)\", \"$result\");"

# --- carried and shown
jam "$TMP/d" "$described"
build "$TMP/d" "$TMP/d.out" || { cat "$TMP/log"; fail "building a described jam"; }
for k in what payload result; do
    eval want=\$$k
    grep -qxF "describe 0 $k $want" "$TMP/d.out/manifest.tcm" ||
        fail "manifest: no 'describe 0 $k $want': $(cat "$TMP/d.out/manifest.tcm")"
done
head -1 "$TMP/d.out/manifest.tcm" | grep -qx "twochains-package 3" || fail "manifest version"
"$TC_PKG" inspect "$TMP/d.out" >"$TMP/inspect" 2>&1 || fail "inspect: $(cat "$TMP/inspect")"
grep -A3 "^element 0 jam mul:" "$TMP/inspect" | grep -qxF "    payload: $payload" ||
    fail "inspect does not show the payload: $(cat "$TMP/inspect")"
"$RUN" -P "$TMP/d.out" --list >"$TMP/list" 2>&1 || fail "tc-run --list: $(cat "$TMP/list")"
grep -qxF "  mul: $what" "$TMP/list" && grep -qxF "      payload: $payload" "$TMP/list" &&
    grep -qxF "      result:  $result" "$TMP/list" || fail "tc-run --list: $(cat "$TMP/list")"
"$RUN" -P "$TMP/d.out" -j mul --u32 6,7 | grep -qx "result=42" || fail "mul 6,7"
"$RUN" -P "$TMP/d.out" -j mul --u32 6 >/dev/null 2>"$TMP/err"; rc=$?
[ "$rc" = 2 ] && head -1 "$TMP/err" | grep -qxF "tc-run: mul does not take a 4-byte payload; it takes: $payload" ||
    fail "mul with 4 bytes: exit $rc: $(head -1 "$TMP/err")"
for m in injected cached; do
    "$RUN" -P "$TMP/d.out" -j mul -m $m --u32 5,9 | grep -qx "result=45" || fail "mul $m"
done

# --- the same jam undescribed: the same blob, said to be undescribed
jam "$TMP/u" ""
build "$TMP/u" "$TMP/u.out" || { cat "$TMP/log"; fail "building the undescribed jam"; }
cmp -s "$TMP/d.out/jam_mul.blob" "$TMP/u.out/jam_mul.blob" ||
    fail "the description changed the blob ($(stat -c %s "$TMP/d.out/jam_mul.blob") vs $(stat -c %s "$TMP/u.out/jam_mul.blob") bytes)"
grep -q "^describe" "$TMP/u.out/manifest.tcm" && fail "an undescribed jam has describe lines"
"$RUN" -P "$TMP/u.out" --list | grep -qx "  mul: not described (its source has no TC_JAM_DESCRIBE)" ||
    fail "tc-run --list, undescribed"
"$TC_PKG" inspect "$TMP/u.out" | grep -qx "    not described (its source has no TC_JAM_DESCRIBE)" ||
    fail "inspect, undescribed"
"$RUN" -P "$TMP/u.out" -j mul --u32 6 >/dev/null 2>"$TMP/err"; rc=$?
[ "$rc" = 2 ] && head -1 "$TMP/err" | grep -qxF "tc-run: mul does not take a 4-byte payload (its pack routine refused it; its source does not say what it takes: TC_JAM_DESCRIBE)" ||
    fail "undescribed mul with 4 bytes: exit $rc: $(head -1 "$TMP/err")"

# --- what is refused: the rules of the manifest's parser, at build time
refused 'TC_JAM_DESCRIBE("a\tb", "p", "r");' "jam_mul.amc: TC_JAM_DESCRIBE's what text: byte 0x09 at 1 is not printable ASCII"
refused 'TC_JAM_DESCRIBE("w", "two\nlines", "r");' "TC_JAM_DESCRIBE's payload text: byte 0x0a at 3"
refused 'TC_JAM_DESCRIBE("w", "p", "caf\xc3\xa9");' "TC_JAM_DESCRIBE's result text: byte 0xc3 at 3"
refused 'TC_JAM_DESCRIBE("w", "", "r");' "TC_JAM_DESCRIBE's payload text: empty"
refused 'TC_JAM_DESCRIBE(" w", "p", "r");' "TC_JAM_DESCRIBE's what text: a space first"
refused "TC_JAM_DESCRIBE(\"$(printf 'x%.0s' $(seq 256))\", \"p\", \"r\");" "TC_JAM_DESCRIBE's what text: 256 bytes, more than 255"
refused 'TC_JAM_DESCRIBE("w", "p\0q", "r");' "section .rodata.tc_jam_doc is not one TC_JAM_DESCRIBE(what, payload, result)"
# not string literals, or twice: the compiler says so
refused 'static const char w[] = "w"; TC_JAM_DESCRIBE(w, "p", "r");' "jam_mul.amc"
refused 'TC_JAM_DESCRIBE("w", "p", "r"); TC_JAM_DESCRIBE("w", "p", "r");' "tc_jam_description"
# 255 bytes is the most
jam "$TMP/max" "TC_JAM_DESCRIBE(\"$(printf 'x%.0s' $(seq 255))\", \"p\", \"r\");"
build "$TMP/max" "$TMP/max.out" || fail "255 bytes refused: $(cat "$TMP/log")"

# --- aarch64: the same section, the same texts
if command -v "$A64CC" >/dev/null; then
    build "$TMP/d" "$TMP/d.a64" --arch aarch64 || { cat "$TMP/log"; fail "aarch64 build"; }
    grep -qxF "describe 0 payload $payload" "$TMP/d.a64/manifest.tcm" || fail "aarch64: no payload text"
    build "$TMP/u" "$TMP/u.a64" --arch aarch64 || { cat "$TMP/log"; fail "aarch64 build, undescribed"; }
    cmp -s "$TMP/d.a64/jam_mul.blob" "$TMP/u.a64/jam_mul.blob" || fail "aarch64: the description changed the blob"
else
    echo "aarch64 part skipped: no $A64CC"
fi
echo ok
