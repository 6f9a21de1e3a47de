#!/usr/bin/env bash
# tc-pkg's build-time checks and what a package is linked with (issue 15):
# libm linked where jams call it (the package loads in a process without
# libm); every GOT slot name offered by a receiver (unknown ones refused,
# naming jam and symbol; libgcc helpers such as __popcountdi2, __udivti3
# and __udivmodti4 linked into the blob, where they run); aarch64 messages
# naming the user's symbol, not $d or .LANCHOR0; element names that are
# macros (linux, unix, errno) refused; -flto refused for what it is;
# floating point with the same bits on x86-64 and aarch64 (no FMA
# contraction; run under qemu-aarch64-static); stale outputs of a rebuild
# removed and a non-package --out refused; the package id following
# headers, flags, compiler and target; pack results above the slot refused
# with the real numbers; a second ried refused with the reason; the blob
# holding what the run entry reaches and not the pack routine; inspect
# running the checks loading runs (exit 1 with tc-run's reason, each blob
# refusal naming its field).
. "$(dirname "$0")/lib.sh"
TC_SRC=${TC_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
mapfile -t lib_inc < <(lib_includes "$TC_SRC")
TC_PKG="$TC_BUILD/bin/tc-pkg"
RUN="$TC_BUILD/bin/tc-run"
[ -x "$TC_PKG" ] || fail "$TC_PKG not built (make tools)"
[ -x "$RUN" ] || fail "$RUN not built (make tools)"
CC=${CC:-cc}
A64CC=aarch64-linux-gnu-gcc
SYSROOT=/usr/aarch64-linux-gnu
skipped=()
PACK='int64_t TC_JAM_PACK(void *d, size_t c, const void *s, size_t l)
{ if (l > c) return -1; memcpy(d, s, l); return (int64_t)l; }'

jam() { # dir name body: writes dir/jam_name.amc (string.h, tc_jam.h, body, a copying pack)
    mkdir -p "$1"
    printf '#include <string.h>\n#include "tc_jam.h"\n%s\n%s\n' "$3" "$PACK" >"$1/jam_$2.amc"
}
build() { # src out [args...]: tc-pkg build, the log in $TMP/log
    local src=$1 out=$2; shift 2
    "$TC_PKG" build "$src" --name "$(basename "$out" | tr -c 'a-z0-9_\n' _)" --out "$out" \
        "$@" >"$TMP/log" 2>&1
}
refused() { # src want...: the build fails, its output has every want
    local src=$1; shift
    rm -rf "$TMP/refused.out"
    build "$src" "$TMP/refused.out" && fail "$src was built: $(cat "$TMP/log")"
    for w in "$@"; do
        grep -qF -- "$w" "$TMP/log" || fail "$src: no '$w' in: $(cat "$TMP/log")"
    done
    [ -e "$TMP/refused.out/manifest.tcm" ] && fail "$src: a manifest was written"
    sed 's/^/refused as expected: /' "$TMP/log"
    return 0
}
result() { # pkg jam mode text: tc-run's result
    "$RUN" -P "$1" -j "$2" -m "$3" --text "$4" >"$TMP/run.out" 2>"$TMP/run.err" ||
        fail "tc-run $2 $3: $(cat "$TMP/run.err")"
    sed -n 's/^result=//p' "$TMP/run.out"
}
have_a64_run() {
    command -v "$A64CC" >/dev/null && command -v qemu-aarch64-static >/dev/null &&
        [ -e "$SYSROOT/lib/ld-linux-aarch64.so.1" ]
}

# --- 1. libm: linked into the package library where jams call it
jam "$TMP/m" expo 'int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l)
{ (void)x; (void)p; return (int64_t)(1000.0 * exp((double)l / 4.0)); }'
sed -i 's/#include <string.h>/#include <string.h>\n#include <math.h>/' "$TMP/m/jam_expo.amc"
build "$TMP/m" "$TMP/mpkg" || { cat "$TMP/log"; fail "building a jam that calls exp"; }
readelf -dW "$TMP/mpkg/libtc_mpkg.so" | grep -q 'NEEDED.*\[libm\.so' ||
    fail "libtc_mpkg.so does not link libm: $(readelf -dW "$TMP/mpkg/libtc_mpkg.so" | grep NEEDED)"
# a process without libm loads it (before: undefined symbol: exp)
cat >"$TMP/nolibm.c" <<'EOF'
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    void *h = (argc == 2) ? dlopen(argv[1], RTLD_NOW) : NULL;
    if (h == NULL) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    return 0;
}
EOF
"$CC" -Wl,--as-needed -o "$TMP/nolibm" "$TMP/nolibm.c" -ldl || fail "building nolibm"
readelf -dW "$TMP/nolibm" | grep -q 'libm\.so' && fail "nolibm links libm itself"
"$TMP/nolibm" "$TMP/mpkg/libtc_mpkg.so" || fail "a process without libm cannot load the package"
[ "$(result "$TMP/mpkg" expo injected abcd)" = 2718 ] || fail "expo injected: $(cat "$TMP/run.out")"
[ "$(result "$TMP/mpkg" expo local abcd)" = 2718 ] || fail "expo local: $(cat "$TMP/run.out")"
# --ldflags go after the objects: a library named there serves them (an
# option before the objects is dropped by --as-needed)
"$TC_PKG" build "$TMP/m" --name mpkg --out "$TMP/mpkg2" --ldflags "-Wl,--as-needed -lm" \
    >"$TMP/log" 2>&1 || { cat "$TMP/log"; fail "--ldflags '-Wl,--as-needed -lm'"; }
readelf -dW "$TMP/mpkg2/libtc_mpkg.so" | grep -q 'NEEDED.*\[libm\.so' || fail "--ldflags -lm dropped"

# --- 2. GOT slot names a receiver offers; libgcc helpers in the blob
jam "$TMP/u" unknown 'extern int64_t no_such_function(int64_t);
int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l) { (void)x; (void)p; return no_such_function((int64_t)l); }'
refused "$TMP/u" "jam 'unknown': GOT slot 'no_such_function': no receiver offers it" "TC_RIED_EXPORT"
# what the package's ried and libtwochains export is offered
jam "$TMP/k" known 'extern int64_t kn_scale(int64_t);
int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l) { (void)p; return kn_scale((int64_t)l) + (x->state != NULL); }'
cat >"$TMP/k/ried_kn.rdc" <<'EOF'
#include <stdlib.h>
#include "tc_jam.h"
TC_RIED_EXPORT int64_t kn_scale(int64_t v) { return 10 * v; }
TC_RIED_EXPORT int TC_RIED_INIT(void **state_p) { *state_p = calloc(1, 8); return *state_p ? 0 : -1; }
TC_RIED_EXPORT void TC_RIED_FINI(void *state) { free(state); }
EOF
build "$TMP/k" "$TMP/kpkg" || { cat "$TMP/log"; fail "a jam calling its ried"; }
[ "$(result "$TMP/kpkg" known local abc)" = 31 ] || fail "known local: $(cat "$TMP/run.out")"
[ "$(result "$TMP/kpkg" known injected abc)" = 31 ] || fail "known injected: $(cat "$TMP/run.out")"
# (built only: tc-run links libtwochains statically, so only a process with
# libtwochains.so loaded would resolve the slot)
jam "$TMP/t" api 'int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l) { (void)x; (void)p; return (int64_t)strlen(tc_status_str((tc_status_t)l)); }'
build "$TMP/t" "$TMP/tpkg" || { cat "$TMP/log"; fail "a jam calling libtwochains"; }
# libgcc: popcount without -mpopcnt, 128-bit division and remainder
jam "$TMP/g" gcchelp 'int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l)
{
    const uint8_t *b = p; unsigned __int128 v = 0; uint64_t d = (uint64_t)l | 3; size_t i;
    (void)x;
    for (i = 0; i < l; ++i) v = (v << 8) | b[i];
    v = (v << 64) | 0x123456789abcdefull;
    return (int64_t)(__builtin_popcountll((uint64_t)v * 0x9e3779b97f4a7c15ull) +
                     (uint64_t)(v / d) + (uint64_t)(v % d) + (uint64_t)((__int128)v / -7));
}'
build "$TMP/g" "$TMP/gpkg" || { cat "$TMP/log"; fail "a jam calling libgcc helpers"; }
"$TC_PKG" inspect "$TMP/gpkg" >"$TMP/inspect" || fail "inspect gpkg"
grep -E 'got\[[0-9]+\] __(popcount|udiv|umod|div|mod)' "$TMP/inspect" &&
    fail "a libgcc helper is left to a GOT slot"
for m in local injected cached; do
    r=$(result "$TMP/gpkg" gcchelp $m "some payload")
    [ -n "$r" ] || fail "gcchelp $m: no result"
    [ "$m" = local ] && r0=$r
    [ "$r" = "$r0" ] || fail "gcchelp $m: $r, local gave $r0"
done
echo "libgcc helpers linked into the blob: gcchelp gives $r0 in every mode"

# --- 3. aarch64: messages name the user's symbol
if command -v "$A64CC" >/dev/null; then
    a64_named() { # name cflags body want
        rm -rf "$TMP/a"; jam "$TMP/a" "$1" "$3"
        rm -rf "$TMP/a.out"
        "$TC_PKG" build "$TMP/a" --name a --out "$TMP/a.out" --arch aarch64 --cflags "$2" \
            >"$TMP/log" 2>&1 && fail "aarch64 $1 was built"
        grep -qF -- "$4" "$TMP/log" || fail "aarch64 $1: no \"$4\" in: $(cat "$TMP/log")"
        grep -qE "'(\\\$[adx]|\.L[A-Za-z0-9_]*)'" "$TMP/log" && fail "aarch64 $1 names a label: $(cat "$TMP/log")"
        sed 's/^/aarch64, as expected: /' "$TMP/log"
    }
    a64_named small -mcmodel=small 'static const int64_t t[4] = {1, 2, 3, 4};
int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l) { (void)x; (void)p; return t[l & 3]; }' \
        "R_AARCH64_ADR_PREL_PG_HI21 against 't'"
    a64_named tls "" '__thread int64_t counter;
int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l) { (void)x; (void)p; counter += l; return counter; }' \
        "against 'counter': it lives in .tbss: thread-local"
    a64_named aligned "" 'static const char t[128] __attribute__((aligned(128))) = {1};
int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l) { (void)x; (void)p; return t[l & 127]; }' \
        ".rodata: symbol 't': alignment 128"
    a64_named ctor "" 'static int64_t base;
__attribute__((constructor)) static void setup(void) { base = 7; }
int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l) { (void)x; (void)p; return base + (int64_t)l; }' \
        ".init_array: symbol 'setup'"
    a64_named second -mcmodel=small 'static int64_t a, b;
int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l) { (void)x; (void)p; a += l; b += a; return b; }' \
        "against 'a'"
else
    skipped+=("aarch64 messages: $A64CC not installed (gcc-aarch64-linux-gnu)")
fi

# --- 4. element names that are macros
for name in linux unix errno; do
    rm -rf "$TMP/n"; jam "$TMP/n" "$name" 'int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l) { (void)x; (void)p; return (int64_t)l; }'
    refused "$TMP/n" "the jam name '$name' is a macro" "rename the file"
    grep -q "error:" "$TMP/log" && fail "$name: the compiler's errors were shown, not the reason"
done
rm -rf "$TMP/n"; mkdir -p "$TMP/n"
printf '#include "tc_jam.h"\nTC_RIED_EXPORT int TC_RIED_INIT(void **s) { *s = 0; return 0; }\nTC_RIED_EXPORT void TC_RIED_FINI(void *s) { (void)s; }\n' >"$TMP/n/ried_stdin.rdc"
refused "$TMP/n" "the ried name 'stdin' is a macro"

# --- 5. -flto
rm -rf "$TMP/l"; jam "$TMP/l" lto 'int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l) { (void)x; (void)p; return (int64_t)l; }'
rm -rf "$TMP/refused.out"
"$TC_PKG" build "$TMP/l" --name l --out "$TMP/refused.out" --cflags -flto >"$TMP/log" 2>&1 &&
    fail "-flto was built"
grep -q "jam 'lto': the object is LTO intermediate code .*drop -flto" "$TMP/log" ||
    fail "-flto: $(cat "$TMP/log")"
grep -q "COMMON" "$TMP/log" && fail "-flto reported as a COMMON symbol: $(cat "$TMP/log")"

# --- 6. floating point: the same bits on x86-64 and aarch64
# x * x - y is exactly (l + 1)^2 * 2^-60 when fused into one fma, and 0
# when the product is rounded first; a loop of a * b + c likewise.
jam "$TMP/f" fp 'int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l)
{
    const uint8_t *b = p; double v = 1.0 + (double)(l + 1) * 0x1p-30, y = 1.0 + (double)(l + 1) * 0x1p-29;
    double acc = v * v - y, s = 0.1; size_t i; union { double d; int64_t i; } u;
    (void)x;
    for (i = 0; i < l; ++i) s = s * (1.0 + b[i] * 0x1p-9) + 0.3;
    u.d = acc + s * 0x1p-40;
    return u.i;
}'
build "$TMP/f" "$TMP/fpkg" || { cat "$TMP/log"; fail "building the fp jam"; }
if [ "$(uname -m)" != x86_64 ]; then
    skipped+=("fp across architectures: written for an x86-64 host with an aarch64 cross compiler")
elif ! have_a64_run; then
    skipped+=("fp across architectures: needs $A64CC, qemu-aarch64-static and $SYSROOT")
else
    "$TC_PKG" build "$TMP/f" --name fpkg --out "$TMP/fpkg.a64" --arch aarch64 >"$TMP/log" 2>&1 ||
        { cat "$TMP/log"; fail "aarch64 fp build"; }
    flags=(-std=gnu11 -O2 "${lib_inc[@]}" -I"$TC_SRC/jams" "$TC_SRC/tests/blob_run.c" "$TC_SRC/lib/codec/blob.c"
           "$TC_SRC/lib/codec/manifest.c" "$TC_SRC/lib/base/log.c" "$TC_SRC/lib/base/names.c" "$TC_SRC/lib/base/status.c" -ldl)
    "$CC" "${flags[@]}" -o "$TMP/blob_run" || fail "building blob_run"
    "$A64CC" "${flags[@]}" -o "$TMP/blob_run.a64" || fail "building blob_run for aarch64"
    "$TMP/blob_run" "$TMP/fpkg" | grep -v ' code=' >"$TMP/fp.x86" || fail "fp blobs here"
    qemu-aarch64-static -L "$SYSROOT" "$TMP/blob_run.a64" "$TMP/fpkg.a64" | grep -v ' code=' \
        >"$TMP/fp.a64" || fail "fp blobs under qemu"
    [ -s "$TMP/fp.x86" ] || fail "blob_run printed nothing"
    diff "$TMP/fp.x86" "$TMP/fp.a64" || fail "fp: aarch64's bits differ from x86-64's"
    echo "fp: x86-64 and aarch64 (qemu) agree bit for bit on $(wc -l <"$TMP/fp.x86") runs"
fi
# the libgcc jam runs under qemu too (aarch64 has its own helpers: __udivti3, __umodti3)
if have_a64_run; then
    "$TC_PKG" build "$TMP/g" --name gpkg --out "$TMP/gpkg.a64" --arch aarch64 >"$TMP/log" 2>&1 ||
        { cat "$TMP/log"; fail "aarch64 gcchelp build"; }
    "$TC_PKG" inspect "$TMP/gpkg.a64" | grep -E 'got\[[0-9]+\] __' && fail "aarch64: a libgcc slot"
    if [ -x "$TMP/blob_run.a64" ]; then
        "$TMP/blob_run" "$TMP/gpkg" | grep -v ' code=' >"$TMP/g.x86" || fail "gcchelp blobs here"
        qemu-aarch64-static -L "$SYSROOT" "$TMP/blob_run.a64" "$TMP/gpkg.a64" | grep -v ' code=' \
            >"$TMP/g.a64" || fail "gcchelp blobs under qemu"
        diff "$TMP/g.x86" "$TMP/g.a64" || fail "gcchelp: aarch64 differs"
    fi
fi

# --- 7. rebuilding into --out
rm -rf "$TMP/s"; for j in one two; do
    jam "$TMP/s" $j 'int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l) { (void)x; (void)p; return (int64_t)l; }'
done
"$TC_PKG" build "$TMP/s" --name st --out "$TMP/st" >"$TMP/log" 2>&1 || { cat "$TMP/log"; fail "st"; }
[ -f "$TMP/st/jam_two.blob" ] || fail "no jam_two.blob"
rm "$TMP/s/jam_two.amc"
"$TC_PKG" build "$TMP/s" --name st --out "$TMP/st" >"$TMP/log" 2>&1 || { cat "$TMP/log"; fail "st again"; }
[ -e "$TMP/st/jam_two.blob" ] && fail "a stale jam_two.blob was left in --out"
grep -q "removed .*jam_two.blob" "$TMP/log" || fail "the removal was not said: $(cat "$TMP/log")"
# another package name in the same directory: the old library and header go
"$TC_PKG" build "$TMP/s" --name st2 --out "$TMP/st" >"$TMP/log" 2>&1 || { cat "$TMP/log"; fail "st2"; }
[ -e "$TMP/st/libtc_st.so" ] || [ -e "$TMP/st/st.h" ] && fail "the old package's library or header stayed"
[ "$(ls "$TMP/st" | sort | tr '\n' ' ')" = "jam_one.blob libtc_st2.so manifest.tcm st2.h " ] ||
    fail "--out holds: $(ls "$TMP/st")"
# a directory that is not a package is not built into (nor emptied)
mkdir -p "$TMP/mine"; echo notes >"$TMP/mine/notes.txt"
"$TC_PKG" build "$TMP/s" --name st --out "$TMP/mine" >"$TMP/log" 2>&1 && fail "built into a non-package dir"
grep -q "is not empty and holds no package" "$TMP/log" || fail "non-package --out: $(cat "$TMP/log")"
[ "$(ls "$TMP/mine")" = notes.txt ] || fail "the non-package dir was changed"

# --- 8. the package id follows everything that shapes the code
pid() { sed -n 's/^id //p' "$1/manifest.tcm"; }
rm -rf "$TMP/h"; mkdir -p "$TMP/h"
echo '#define SCALE 3' >"$TMP/h/scale.h"
jam "$TMP/h" scaled '#include "scale.h"
int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l) { (void)x; (void)p; return SCALE * (int64_t)l; }'
idb() { rm -rf "$TMP/hid"; "$TC_PKG" build "$TMP/h" --name hid --out "$TMP/hid" "$@" >"$TMP/log" 2>&1 ||
        { cat "$TMP/log"; fail "hid $*"; }; pid "$TMP/hid"; }
base=$(idb); [ -n "$base" ] || fail "no id"
[ "$(idb)" = "$base" ] || fail "the same build gave another id"
echo '#define SCALE 4' >"$TMP/h/scale.h"
[ "$(idb)" != "$base" ] || fail "the id ignores an included header"
echo '#define SCALE 3' >"$TMP/h/scale.h"
[ "$(idb)" = "$base" ] || fail "the header back: another id"
[ "$(idb --cflags -DUNUSED=1)" != "$base" ] || fail "the id ignores --cflags"
printf '#!/bin/sh\n[ "$1" = --version ] && { %s --version; echo "patched build"; exit 0; }\nexec %s "$@"\n' \
    "$CC" "$CC" >"$TMP/othercc"; chmod +x "$TMP/othercc"
[ "$(idb --cc "$TMP/othercc")" != "$base" ] || fail "the id ignores the compiler's identity"
if command -v "$A64CC" >/dev/null; then
    [ "$(idb --arch aarch64)" != "$base" ] || fail "the id ignores the target"
fi

# --- 9. pack results above the slot
jam "$TMP/p" big 'int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l) { (void)x; (void)p; return (int64_t)l; }'
sed -i '/memcpy(d, s, l)/s/return (int64_t)l; }$/return (int64_t)l + ((int64_t)1 << 32); }/' "$TMP/p/jam_big.amc"
grep -q '1 << 32' "$TMP/p/jam_big.amc" || fail "editing big's pack"
jam "$TMP/p" over 'int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l) { (void)x; (void)p; return (int64_t)l; }'
sed -i '/memcpy(d, s, l)/s/return (int64_t)l; }$/return (int64_t)c + 8; }/' "$TMP/p/jam_over.amc"
build "$TMP/p" "$TMP/ppkg" || { cat "$TMP/log"; fail "building the pack jams"; }
for m in local injected; do
    "$RUN" -P "$TMP/ppkg" -j big -m $m --text abc >"$TMP/out" 2>"$TMP/err" &&
        fail "big $m: a pack result of 2^32 + 3 was sent: $(cat "$TMP/out")"
    grep -q "jam 'big': its pack routine returned 4294967299 bytes, more than the [0-9]* it was given" \
        "$TMP/err" || fail "big $m: $(cat "$TMP/err")"
    "$RUN" -P "$TMP/ppkg" -j over -m $m --text abc >"$TMP/out" 2>"$TMP/err" && fail "over $m was sent"
    cap=$(sed -n "s/.*jam 'over': its pack routine returned \([0-9]*\) bytes, more than the \([0-9]*\) it.*/\1 \2/p" "$TMP/err")
    read -r got given <<<"$cap"
    [ -n "${given:-}" ] && [ "$got" = $((given + 8)) ] || fail "over $m: $(cat "$TMP/err")"
    sed -n "s/.*\(jam 'over'.*\)/refused as expected ($m): \1/p" "$TMP/err" | head -1
done

# --- 10. one ried per package
rm -rf "$TMP/r"; jam "$TMP/r" j 'int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l) { (void)x; (void)p; return (int64_t)l; }'
for r in alpha beta; do
    printf '#include "tc_jam.h"\nTC_RIED_EXPORT int TC_RIED_INIT(void **s) { *s = 0; return 0; }\nTC_RIED_EXPORT void TC_RIED_FINI(void *s) { (void)s; }\n' >"$TMP/r/ried_$r.rdc"
done
refused "$TMP/r" "rieds 'alpha'" "'beta'" "at most one ried" "ctx->state"

# --- 11. the blob carries what the run entry reaches, not the pack
# run calls a helper of its own (another section under -ffunction-sections)
# and reads a table; the pack alone calls strlen and memcpy (GOT slots), a
# helper of its own, its own string and .data: none of that may be in the
# image or its GOT, and the run must still work injected and cached.
rm -rf "$TMP/k"; mkdir -p "$TMP/k"
cat >"$TMP/k/jam_keep.amc" <<'EOF'
#include <string.h>
#include "tc_jam.h"
static const int64_t run_table[4] = {3, 5, 7, 11};
static const char pack_text[] = "only the pack reads this string, all of it";
static int64_t pack_count = 1;
static __attribute__((noinline)) int64_t run_helper(const unsigned char *p, size_t l)
{ int64_t s = 0; for (size_t i = 0; i < l; ++i) s += p[i] * run_table[i & 3]; return s; }
static __attribute__((noinline)) size_t pack_helper(size_t l)
{ const char *volatile t = pack_text; pack_count += (int64_t)strlen(t); return l; }
int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l) { (void)x; return run_helper(p, l); }
int64_t TC_JAM_PACK(void *d, size_t c, const void *s, size_t l)
{ l = pack_helper(l); if (l > c) return -1; memcpy(d, s, l); return (int64_t)l; }
EOF
keep_check() { # out arch: the image has none of the pack's parts
    "$TC_PKG" inspect "$1" >"$TMP/inspect.k" || fail "inspect $1"
    grep -q 'jam keep: .* 0 GOT slots' "$TMP/inspect.k" ||
        fail "$2: the pack's GOT slots (memcpy, strlen) are in the blob: $(grep -A3 'jam keep' "$TMP/inspect.k")"
    grep -aq 'only the pack reads' "$1/jam_keep.blob" && fail "$2: the pack's string is in the blob"
    grep -aq 'only the pack reads' "$1/libtc_kpkg.so" || fail "$2: the library lost the pack's string"
    return 0
}
build "$TMP/k" "$TMP/kpkg" || { cat "$TMP/log"; fail "building jam keep"; }
keep_check "$TMP/kpkg" x86_64
# 'abcde' = 97..101 weighted 3, 5, 7, 11, 3: 291 + 490 + 693 + 1100 + 303
for m in local injected cached; do
    [ "$(result "$TMP/kpkg" keep $m abcde)" = 2877 ] || fail "keep $m: $(cat "$TMP/run.out")"
done
echo "the blob keeps the run's helper and table, not the pack's (x86_64)"
if command -v "$A64CC" >/dev/null; then
    "$TC_PKG" build "$TMP/k" --name kpkg --out "$TMP/kpkg.a64" --arch aarch64 >"$TMP/log" 2>&1 ||
        fail "aarch64 keep: $(cat "$TMP/log")"
    keep_check "$TMP/kpkg.a64" aarch64
    echo "the blob keeps the run's helper and table, not the pack's (aarch64)"
else
    skipped+=("aarch64 blob contents: $A64CC missing")
fi

# --- 12. inspect runs the checks loading runs, and every refusal names the
# check: a package tc-run refuses, inspect refuses (exit 1) with the same
# reason; one tc-run loads, inspect passes (exit 0)
"$TC_PKG" --help | grep -q "^exit status: 0 done, 1 the build failed or the package is bad, 2 bad usage" ||
    fail "tc-pkg --help does not document its exit status"
rm -rf "$TMP/x"; jam "$TMP/x" ptr 'static int64_t one(int64_t v) { return v + 1; }
static int64_t two(int64_t v) { return v + 2; }
static int64_t (*const fns[])(int64_t) = { one, two };
int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l) { (void)x; (void)p; return fns[l & 1]((int64_t)l); }'
printf '#include "tc_jam.h"\nTC_RIED_EXPORT int TC_RIED_INIT(void **s) { *s = 0; return 0; }\nTC_RIED_EXPORT void TC_RIED_FINI(void *s) { (void)s; }\n' >"$TMP/x/ried_xr.rdc"
build "$TMP/x" "$TMP/xpkg" || { cat "$TMP/log"; fail "building jam ptr"; }
"$TC_PKG" inspect "$TMP/xpkg" >"$TMP/inspect" 2>"$TMP/err" || fail "inspect xpkg: $(cat "$TMP/err")"
grep -Eq "jam ptr: .*, [1-9][0-9]* fixups" "$TMP/inspect" || fail "jam ptr has no fixups: $(cat "$TMP/inspect")"
[ "$(result "$TMP/xpkg" ptr local ab)" = 3 ] || fail "ptr local: $(cat "$TMP/run.out")"
blob_u32() { # file offset value: write a little-endian uint32 at offset
    python3 -c 'import struct, sys
p, at, v = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
d = bytearray(open(p, "rb").read()); struct.pack_into("<I", d, at, v); open(p, "wb").write(d)' "$@"
}
blob_field() { # file offset: a uint32 of the blob
    python3 -c 'import struct, sys; print(struct.unpack_from("<I", open(sys.argv[1], "rb").read(), int(sys.argv[2]))[0])' "$@"
}
refused_alike() { # dir jam want: tc-run and inspect refuse it, naming want, inspect as tc-run
    local dir=$1 j=$2 want=$3 rc why
    "$RUN" -P "$dir" -j "$j" >"$TMP/out" 2>"$TMP/err"; rc=$?
    [ "$rc" = 1 ] || fail "tc-run on $dir: exit $rc: $(cat "$TMP/err")"
    why=$(sed -n '1s/^twochains: error: //p' "$TMP/err")
    [ -n "$why" ] || fail "tc-run on $dir: no error line: $(cat "$TMP/err")"
    "$TC_PKG" inspect "$dir" >"$TMP/out" 2>"$TMP/ierr"; rc=$?
    [ "$rc" = 1 ] || fail "inspect on $dir: exit $rc (tc-run refused it: $why)"
    grep -qF -- "$why" "$TMP/ierr" || fail "inspect on $dir does not say '$why': $(cat "$TMP/ierr")"
    grep -qF -- "$want" "$TMP/ierr" || fail "inspect on $dir: no '$want' in: $(cat "$TMP/ierr")"
    echo "refused alike: $(head -1 "$TMP/ierr")"
}
fresh() { rm -rf "$TMP/c"; cp -r "$TMP/xpkg" "$TMP/c"; }
# header (names_size at 40, image_size at 16, entry_offset at 24), names,
# fixups, image: the first fixup's offset is at 56 + names_size
names=$(blob_field "$TMP/xpkg/jam_ptr.blob" 40); img=$(blob_field "$TMP/xpkg/jam_ptr.blob" 16)
fresh; blob_u32 "$TMP/c/jam_ptr.blob" $((56 + names)) $((img + 64))
refused_alike "$TMP/c" ptr "jam_ptr.blob: not a valid blob: fixup 0: the word at offset $((img + 64)) points past the image's data"
fresh; blob_u32 "$TMP/c/jam_ptr.blob" 24 "$img"
refused_alike "$TMP/c" ptr "jam_ptr.blob: not a valid blob: entry offset $img is outside the code"
fresh; printf 'x' >>"$TMP/c/jam_ptr.blob"
refused_alike "$TMP/c" ptr "jam_ptr.blob: not a valid blob: $(( $(stat -c %s "$TMP/xpkg/jam_ptr.blob") + 1 )) bytes, but"
# what inspect did not check before: the libraries and the descriptor
fresh; truncate -s 1000 "$TMP/c/libtc_xpkg.so"
refused_alike "$TMP/c" ptr "package library $TMP/c/libtc_xpkg.so: truncated: "
fresh; sed -i 's/^id 0x.*/id 0x00000001/' "$TMP/c/manifest.tcm"
refused_alike "$TMP/c" ptr "(id 0x00000001, 2 elements) does not describe"
fresh; truncate -s 1000 "$TMP/c/libried_xr.so"
refused_alike "$TMP/c" ptr "ried library $TMP/c/libried_xr.so: truncated: "
# a jam calling libtwochains' API: tc-run (libtwochains linked in, not
# exported) cannot bind it, a program using libtwochains.so can; the
# package itself is sound, and inspect says so
"$TC_PKG" inspect "$TMP/tpkg" >"$TMP/out" 2>"$TMP/err" || fail "inspect tpkg: $(cat "$TMP/err")"
# a package for another arch: checked as far as this host can, and said
if command -v "$A64CC" >/dev/null; then
    "$TC_PKG" build "$TMP/x" --name xpkg --out "$TMP/xpkg.a64" --arch aarch64 >"$TMP/log" 2>&1 ||
        { cat "$TMP/log"; fail "aarch64 xpkg"; }
    "$TC_PKG" inspect "$TMP/xpkg.a64" >"$TMP/out" 2>"$TMP/err" || fail "inspect xpkg.a64: $(cat "$TMP/err")"
    grep -q "^library libtc_xpkg.so not loaded: an aarch64 package is checked against its library on an aarch64 host" \
        "$TMP/out" || fail "inspect xpkg.a64 does not say the library was not loaded: $(cat "$TMP/out")"
    blob_u32 "$TMP/xpkg.a64/jam_ptr.blob" 24 "$(blob_field "$TMP/xpkg.a64/jam_ptr.blob" 16)"
    "$TC_PKG" inspect "$TMP/xpkg.a64" >"$TMP/out" 2>"$TMP/err" && fail "inspect: a bad aarch64 blob passed"
    grep -q "jam_ptr.blob: not a valid blob: entry offset" "$TMP/err" || fail "aarch64 blob: $(cat "$TMP/err")"
fi

for s in "${skipped[@]}"; do echo "skipped: $s"; done
echo "ok"
