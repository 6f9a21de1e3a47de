#!/usr/bin/env bash
# tc-pkg as a user drives it: usage errors, the jams/ package (inspect,
# header, blobs that run), jams using string literals, a switch jump table,
# a static const table, a static helper, libc calls, pointer tables and a
# ried function (built, injected and compared with the Local Function
# library), jams that cannot be injected (TLS, COMMON, large code model,
# hidden undefined symbol, constructor, ifunc, target_clones, weak
# definition, weak reference: each error names the jam, the symbol and the
# fix), the manifest's writable bytes (0 for every bench jam, > 0 for jams
# with .data or .bss), packages refused when opened (a truncated or non-ELF
# library: tc-run and tc-perf exit non-zero naming the file, not on a
# signal; a .bss larger than the manifest's writable), and --arch aarch64
# (blobs run under qemu-aarch64-static with the same results as here, where
# the cross tools are installed).
. "$(dirname "$0")/lib.sh"
TC_SRC=${TC_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
mapfile -t lib_inc < <(lib_includes "$TC_SRC")
TC_PKG="$TC_BUILD/bin/tc-pkg"
[ -x "$TC_PKG" ] || fail "$TC_PKG not built (make tools)"
CC=${CC:-cc}
skipped=()

# --- usage: one line saying what is wrong, "try 'tc-pkg --help'", exit 2
usage_case() { # expected-text args...
    local want=$1; shift
    "$TC_PKG" "$@" >"$TMP/out" 2>"$TMP/err"; rc=$?
    [ "$rc" = 2 ] || fail "tc-pkg $*: exit $rc, expected 2"
    head -1 "$TMP/err" | grep -q "^tc-pkg: .*$want" ||
        fail "tc-pkg $*: first line '$(head -1 "$TMP/err")' lacks '$want'"
    [ "$(tail -n +2 "$TMP/err")" = "try 'tc-pkg --help'" ] || fail "tc-pkg $*: not one line and the hint: $(cat "$TMP/err")"
}
usage_case "command is needed"
usage_case "unknown command 'frob'" frob
usage_case "needs SRC_DIR" build --name x --out "$TMP/x"
usage_case "needs --name" build jams --out "$TMP/x"
usage_case "needs --out" build jams --name x
usage_case "unknown option '--frob'" build jams --name x --out "$TMP/x" --frob
usage_case "needs a value" build jams --name x --out
usage_case "unknown --arch 'sparc'" build jams --name x --out "$TMP/x" --arch sparc
usage_case "extra argument" build jams more --name x --out "$TMP/x"
usage_case "one INSTALL_DIR" inspect
usage_case "one INSTALL_DIR" inspect a b
"$TC_PKG" --help >"$TMP/out" 2>"$TMP/err" || fail "--help exited non-zero: $(cat "$TMP/err")"
grep -q "^inspect" "$TMP/out" || fail "--help: no inspect line"

# --- one spelling for the build tree and an install: <twochains/tc_jam.h>
# (the installed layout) and "tc_jam.h" both build with the default header
# directories (the build tree's include/ mirrors the install as links)
mkdir -p "$TMP/spell"
for how in '<twochains/tc_jam.h>' '"tc_jam.h"'; do
    sed "s|#include \"tc_jam.h\"|#include $how|" "$TC_SRC/jams/jam_noop.amc" >"$TMP/spell/jam_noop.amc"
    grep -qF "#include $how" "$TMP/spell/jam_noop.amc" || fail "jam_noop.amc includes tc_jam.h otherwise"
    rm -rf "$TMP/spell.out"
    "$TC_PKG" build "$TMP/spell" --name spell --out "$TMP/spell.out" >"$TMP/log" 2>&1 ||
        fail "the build tree's tc-pkg does not take #include $how: $(cat "$TMP/log")"
done
[ "$(readlink -f "$TC_BUILD/include/twochains/tc_jam.h")" = "$(readlink -f "$TC_SRC/jams/tc_jam.h")" ] ||
    fail "$TC_BUILD/include/twochains/tc_jam.h is not jams/tc_jam.h"

# --- the jams/ package, built the way the Makefile does but elsewhere
# (default header directories: the source tree next to the binary)
"$TC_PKG" build "$TC_SRC/jams" --name bench --out "$TMP/bench" >"$TMP/build.log" 2>&1 ||
    { cat "$TMP/build.log"; fail "building jams/"; }
for f in bench.h libtc_bench.so libried_bench.so manifest.tcm; do
    [ -s "$TMP/bench/$f" ] || fail "no $f"
done
"$TC_PKG" inspect "$TMP/bench" >"$TMP/inspect" 2>&1 || { cat "$TMP/inspect"; fail "inspect"; }
for src in "$TC_SRC"/jams/jam_*.amc; do
    j=$(basename "$src" .amc); j=${j#jam_}
    said=$(grep -c "^#define TC_JAM_READS_PAYLOAD 1" "$src")
    got=$(grep -c "^  jam  $j .*, reads its payload$" "$TMP/build.log")
    [ "$said" = "$got" ] || fail "jam $j: its source says reads-payload $said time(s), the build $got"
done
grep -q "^package bench: id 0x[0-9a-f]\{8\}, arch x86_64, library libtc_bench.so" "$TMP/inspect" ||
    [ "$(uname -m)" != x86_64 ] || fail "inspect header line: $(head -1 "$TMP/inspect")"
njams=0
for src in "$TC_SRC"/jams/jam_*.amc; do
    j=$(basename "$src" .amc); j=${j#jam_}
    grep -Eq "^element [0-9]+ jam $j: blob jam_$j.blob, code [0-9]+ bytes, [0-9]+ GOT slots, [0-9]+ fixups" \
        "$TMP/inspect" || fail "inspect does not list jam $j"
    [ -s "$TMP/bench/jam_$j.blob" ] || fail "no blob for $j"
    njams=$((njams + 1))
done
grep -q "^element [0-9]* ried bench: lib libried_bench.so" "$TMP/inspect" || fail "inspect: ried"
grep -A1 "jam copy:" "$TMP/inspect" | grep -q "got\[0\] memcpy" ||
    fail "copy's GOT slot (its run's memcpy) is not memcpy"
code=$(sed -n 's/^element [0-9]* jam indirect_put: .*code \([0-9]*\) bytes.*/\1/p' "$TMP/inspect")
echo "indirect_put: $code code bytes (the paper: 1408)"

# the header: same ids as the manifest, and the same as the Makefile's build
while read -r _ id kind name _; do
    up=$(echo "$name" | tr '[:lower:]' '[:upper:]')
    grep -qx "#define TC_PKG_BENCH_$up $id" "$TMP/bench/bench.h" || fail "bench.h: $name is not $id"
done < <(grep '^element ' "$TMP/bench/manifest.tcm")
pid=$(sed -n 's/^id //p' "$TMP/bench/manifest.tcm")
grep -qx "#define TC_PKG_BENCH_ID $pid" "$TMP/bench/bench.h" || fail "bench.h: package id"
grep -qx "#define TC_PKG_BENCH_N_ELEMENTS $(grep -c '^element ' "$TMP/bench/manifest.tcm")" \
    "$TMP/bench/bench.h" || fail "bench.h: element count"
grep -q "^#define TC_PKG_BENCH_INDIRECT_PUT_CODE_BYTES $code$" "$TMP/bench/bench.h" ||
    fail "bench.h: code bytes"
if [ -f "$TC_BUILD/pkg/bench/bench.h" ]; then
    # (but for the package id, which hashes the flags too: the Makefile's differ)
    cmp -s <(grep -v '_ID 0x' "$TMP/bench/bench.h") <(grep -v '_ID 0x' "$TC_BUILD/pkg/bench/bench.h") ||
        fail "the same sources gave another header than build/pkg/bench's"
fi

# a corrupted blob is caught by inspect
cp -r "$TMP/bench" "$TMP/bad"
printf '\x01' | dd of="$TMP/bad/jam_noop.blob" bs=1 seek=70 conv=notrunc status=none
"$TC_PKG" inspect "$TMP/bad" >/dev/null 2>"$TMP/err" && fail "inspect accepted a corrupted blob"
# (the reason names the check: here the byte past the end, trailing)
grep -q "jam_noop.blob: not a valid blob: .*: trailing bytes" "$TMP/err" ||
    fail "corrupted blob: $(cat "$TMP/err")"

# every bench jam keeps its state in the ried: nothing writable in an image
grep '^element [0-9]* jam ' "$TMP/bench/manifest.tcm" | grep -v ' writable 0$' &&
    fail "a bench jam has writable data (W^X receivers would refuse it)"
[ "$(grep -c '^element [0-9]* jam .* writable 0$' "$TMP/bench/manifest.tcm")" = "$njams" ] ||
    fail "not every bench jam has 'writable 0' in its manifest line"

# a truncated or non-ELF library is refused before dlopen, naming the file:
# tc-run and tc-perf exit 1 with the message, not on SIGBUS inside dlopen
RUN="$TC_BUILD/bin/tc-run"
lib_refused() { # what-to-grep
    local tool rc
    for tool in run perf; do
        if [ "$tool" = run ]; then
            "$RUN" -P "$TMP/cut" -j noop >"$TMP/out" 2>"$TMP/err"; rc=$?
        else
            "$TC_PERF" -l -P "$TMP/cut" -t jam_lat -n 10 -w 1 >"$TMP/out" 2>"$TMP/err"; rc=$?
        fi
        [ "$rc" != 0 ] && [ "$rc" -lt 128 ] ||
            fail "tc-$tool on a bad library ($1): exit $rc: $(head -3 "$TMP/err")"
        grep -qF "package library $TMP/cut/libtc_bench.so: $1" "$TMP/err" ||
            fail "tc-$tool on a bad library: no '$1' naming the file in: $(head -3 "$TMP/err")"
    done
    sed -n 1p "$TMP/err" | sed 's/^/refused as expected: /'
}
rm -rf "$TMP/cut"; cp -r "$TMP/bench" "$TMP/cut"
size=$(stat -c %s "$TMP/cut/libtc_bench.so")
truncate -s $((size / 2)) "$TMP/cut/libtc_bench.so"
lib_refused "truncated: "
if command -v readelf >/dev/null; then
    # one byte short of the last loaded byte: the cut that used to be SIGBUS
    end=0
    while read -r type off _ _ filesz _; do
        [ "$type" = LOAD ] && [ $((off + filesz)) -gt "$end" ] && end=$((off + filesz))
    done < <(readelf -lW "$TMP/bench/libtc_bench.so")
    [ "$end" -gt 0 ] || fail "readelf shows no LOAD segment in libtc_bench.so"
    cp "$TMP/bench/libtc_bench.so" "$TMP/cut/"
    truncate -s $((end - 1)) "$TMP/cut/libtc_bench.so"
    lib_refused "truncated: segment"
else
    skipped+=("cut inside the loaded segments: readelf not installed (binutils)")
fi
printf 'not a library\n' >"$TMP/cut/libtc_bench.so"
lib_refused "not an ELF file"

# the blobs run, injected, with the Local Function library's results
"$CC" -std=gnu11 -O2 -Wall -Wextra -Werror "${lib_inc[@]}" -I"$TC_SRC/jams" \
    "$TC_SRC/tests/blob_run.c" "$TC_SRC/lib/codec/blob.c" "$TC_SRC/lib/codec/manifest.c" \
    "$TC_SRC/lib/base/log.c" "$TC_SRC/lib/base/names.c" "$TC_SRC/lib/base/status.c" -ldl -o "$TMP/blob_run" || fail "building blob_run"
"$TMP/blob_run" "$TMP/bench" >"$TMP/run.native" 2>&1 || { cat "$TMP/run.native"; fail "bench blobs"; }
[ "$(grep -c ' ok$' "$TMP/run.native")" = "$njams" ] || fail "not every jam ran"

# --- jams that use what C programs use
mkdir -p "$TMP/extra/sub"
cat >"$TMP/extra/jam_strings.amc" <<'EOF'
#include <string.h>
#include "tc_jam.h"
#define TC_JAM_READS_PAYLOAD 1
int64_t TC_JAM_RUN(tc_jam_ctx_t *ctx, void *payload, size_t len)
{
    static const char greet[] = "hello from an injected jam";
    const char *msg = (len & 4) ? "four is set" : "four is clear, and this is longer";
    (void)ctx; (void)payload;
    return msg[len % 11] * 1000 + greet[len % (sizeof(greet) - 1)];
}
int64_t TC_JAM_PACK(void *dst, size_t cap, const void *src, size_t len)
{ if (len > cap) return -1; memcpy(dst, src, len); return (int64_t)len; }
EOF
cat >"$TMP/extra/jam_switch.amc" <<'EOF'
#include <string.h>
#include "tc_jam.h"
#if 0 /* not said: the preprocessor decides, not a text search */
#define TC_JAM_READS_PAYLOAD 1
#endif
__attribute__((noinline)) static int64_t op(unsigned k, int64_t v)
{
    switch (k) { /* dense: a jump table */
    case 0: return v + 11;      case 1: return v * 7;     case 2: return v - 5;
    case 3: return v ^ 0x55;    case 4: return v << 2;    case 5: return v / 3;
    case 6: return -v;          case 7: return v * v;     case 8: return v | 0x100;
    case 9: return v & 0xff;    default: return 0;
    }
}
int64_t TC_JAM_RUN(tc_jam_ctx_t *ctx, void *payload, size_t len)
{
    const uint8_t *p = payload; int64_t acc = 1; size_t i;
    (void)ctx;
    for (i = 0; i < len; ++i) acc = op(p[i] % 11, acc) & 0xffffff;
    return acc;
}
int64_t TC_JAM_PACK(void *dst, size_t cap, const void *src, size_t len)
{ if (len > cap) return -1; memcpy(dst, src, len); return (int64_t)len; }
EOF
cat >"$TMP/extra/sub/jam_table.amc" <<'EOF'
#include <string.h>
#include "tc_jam.h"
static const uint32_t weights[16] __attribute__((aligned(64))) = {
    3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3 };
int64_t TC_JAM_RUN(tc_jam_ctx_t *ctx, void *payload, size_t len)
{
    const uint8_t *p = payload; int64_t s = 0; size_t i;
    (void)ctx;
    for (i = 0; i < len; ++i) s += weights[p[i] & 15] * (int64_t)(i + 1);
    return s;
}
int64_t TC_JAM_PACK(void *dst, size_t cap, const void *src, size_t len)
{ if (len > cap) return -1; memcpy(dst, src, len); return (int64_t)len; }
EOF
cat >"$TMP/extra/jam_helper.amc" <<'EOF'
#include <string.h>
#include "tc_jam.h"
static uint64_t scratch[8]; /* .bss, in the image */
__attribute__((noinline)) static uint64_t mix(uint64_t h, uint8_t b)
{ return (h ^ b) * 0x100000001b3ull; }
int64_t TC_JAM_RUN(tc_jam_ctx_t *ctx, void *payload, size_t len)
{
    const uint8_t *p = payload; uint64_t h = 0xcbf29ce484222325ull; size_t i;
    (void)ctx;
    for (i = 0; i < len; ++i) h = mix(h, p[i]);
    scratch[len & 7] += h; /* lives as long as the image does */
    return (int64_t)(scratch[0] >> 2) + (int64_t)(h & 0xffff);
}
int64_t TC_JAM_PACK(void *dst, size_t cap, const void *src, size_t len)
{ if (len > cap) return -1; memcpy(dst, src, len); return (int64_t)len; }
EOF
cat >"$TMP/extra/jam_libc.amc" <<'EOF'
#include <string.h>
#include "tc_jam.h"
int64_t TC_JAM_RUN(tc_jam_ctx_t *ctx, void *payload, size_t len)
{
    char buf[64]; size_t n = (len < sizeof(buf) - 1) ? len : sizeof(buf) - 1;
    (void)ctx;
    memset(buf, 0, sizeof(buf));
    memcpy(buf, payload, n);
    return (int64_t)strlen(buf) * 100 + (int64_t)n;
}
int64_t TC_JAM_PACK(void *dst, size_t cap, const void *src, size_t len)
{ if (len > cap) return -1; memcpy(dst, src, len); return (int64_t)len; }
EOF
cat >"$TMP/extra/jam_ptrtab.amc" <<'EOF'
#include <string.h>
#include "tc_jam.h"
static int64_t add(int64_t a) { return a + 100; }
static int64_t dbl(int64_t a) { return a * 2; }
static int64_t neg(int64_t a) { return -a; }
static int64_t (*const ops[])(int64_t) = { add, dbl, neg, add };   /* code pointers */
static const char *const words[] = { "alpha", "be", "gam", "delta" }; /* data pointers */
int64_t TC_JAM_RUN(tc_jam_ctx_t *ctx, void *payload, size_t len)
{
    const uint8_t *p = payload; int64_t v = (int64_t)len; size_t i;
    (void)ctx;
    for (i = 0; i < len; ++i) v = ops[p[i] & 3](v) + words[(p[i] >> 2) & 3][0];
    return v;
}
int64_t TC_JAM_PACK(void *dst, size_t cap, const void *src, size_t len)
{ if (len > cap) return -1; memcpy(dst, src, len); return (int64_t)len; }
EOF
cat >"$TMP/extra/jam_riedcall.amc" <<'EOF'
#include <string.h>
#include "tc_jam.h"
extern int64_t demo_scale(int64_t v); /* the package's ried exports it */
int64_t TC_JAM_RUN(tc_jam_ctx_t *ctx, void *payload, size_t len)
{
    int64_t *acc = ctx->state;
    (void)payload;
    *acc += demo_scale((int64_t)len);
    return *acc;
}
int64_t TC_JAM_PACK(void *dst, size_t cap, const void *src, size_t len)
{ if (len > cap) return -1; memcpy(dst, src, len); return (int64_t)len; }
EOF
# GOT references to what the jam itself defines (default visibility):
# relaxed to PC-relative at build time, no slot
cat >"$TMP/extra/jam_exported.amc" <<'EOF'
#include <string.h>
#include "tc_jam.h"
__attribute__((visibility("default"))) int64_t exported_base = 40;
__attribute__((visibility("default"), noinline)) int64_t exported_twice(int64_t v)
{ return 2 * v; }
int64_t TC_JAM_RUN(tc_jam_ctx_t *ctx, void *payload, size_t len)
{
    (void)ctx; (void)payload;
    exported_base += 1;
    return exported_twice((int64_t)len) + exported_base;
}
int64_t TC_JAM_PACK(void *dst, size_t cap, const void *src, size_t len)
{ if (len > cap) return -1; memcpy(dst, src, len); return (int64_t)len; }
EOF
cat >"$TMP/extra/sub/ried_demo.rdc" <<'EOF'
#include <stdlib.h>
#include "tc_jam.h"
__attribute__((visibility("default"))) int64_t demo_scale(int64_t v) { return 3 * v + 1; }
int TC_RIED_INIT(void **state_p)
{ int64_t *s = calloc(1, sizeof(*s)); if (s == NULL) return -1; *state_p = s; return 0; }
void TC_RIED_FINI(void *state) { free(state); }
EOF
"$TC_PKG" build "$TMP/extra" --name extra --out "$TMP/extra.out" --cflags "-Wall -Wextra -Werror" \
    >"$TMP/build.log" 2>&1 || { cat "$TMP/build.log"; fail "building the extra jams"; }
"$TC_PKG" inspect "$TMP/extra.out" >"$TMP/inspect" 2>&1 || { cat "$TMP/inspect"; fail "inspect extra"; }
# TC_JAM_READS_PAYLOAD where the preprocessor sees it, and only there
grep -q "^  jam  strings .*, reads its payload$" "$TMP/build.log" || fail "strings: no 'reads its payload'"
grep "^  jam  " "$TMP/build.log" | grep -v "^  jam  strings " | grep -q "reads its payload" &&
    fail "'reads its payload' for a jam that does not say so: $(grep 'reads its payload' "$TMP/build.log")"
# ids: jams sorted by name, then the ried
[ "$(grep '^element' "$TMP/extra.out/manifest.tcm" | awk '{print $4}' | tr '\n' ' ')" = \
  "exported helper libc ptrtab riedcall strings switch table demo " ] || fail "element order"
grep -A3 "jam libc:" "$TMP/inspect" | grep -q "got\[.\] strlen" || fail "libc: no strlen slot"
grep -A3 "jam riedcall:" "$TMP/inspect" | grep -q "got\[0\] demo_scale" || fail "riedcall: no demo_scale slot"
grep -Eq "jam ptrtab: .*, [1-9][0-9]* fixups" "$TMP/inspect" || fail "ptrtab: no fixups"
grep -Eq "jam helper: .*, bss [1-9]" "$TMP/inspect" || fail "helper: no .bss"
"$TMP/blob_run" "$TMP/extra.out" >"$TMP/extra.native" 2>&1 || { cat "$TMP/extra.native"; fail "extra blobs"; }
[ "$(grep -c ' ok$' "$TMP/extra.native")" = 8 ] || fail "not every extra jam ran"
grep -A1 "jam exported:" "$TMP/inspect" | grep -q "got\[.\] exported_" &&
    fail "exported: a GOT slot for a symbol the jam defines"
# writable bytes: .bss and .data count, pointer tables in .data.rel.ro do not
writable() { sed -n "s/^element [0-9]* jam $1 .* writable \([0-9]*\)$/\1/p" "$TMP/extra.out/manifest.tcm"; }
[ "$(writable helper)" = 64 ] || fail "helper (uint64_t scratch[8] in .bss): writable '$(writable helper)', expected 64"
[ "$(writable exported)" = 8 ] || fail "exported (int64_t in .data): writable '$(writable exported)', expected 8"
for j in strings switch table libc ptrtab riedcall; do
    [ "$(writable $j)" = 0 ] || fail "$j writes nothing of its image: writable '$(writable $j)'"
done
grep -q "jam helper: .*, writable 64$" "$TMP/inspect" || fail "inspect does not show helper's writable"
# a W^X receiver refuses, at sync, a jam that writes its own image (its RX
# view is read-only: the first store would kill the receiver); the sender
# hears why. Without W^X, and for a jam that writes nothing, it runs.
for m in injected cached; do
    "$RUN" -P "$TMP/extra.out" -j helper -m $m --text abc >"$TMP/out" 2>"$TMP/err" ||
        { cat "$TMP/err"; fail "helper $m without W^X"; }
    "$RUN" -P "$TMP/extra.out" -j helper -m $m --wx --text abc >"$TMP/out" 2>"$TMP/err"
    rc=$?
    [ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] || fail "helper $m under W^X: exit $rc (refusal expected)"
    grep -q "refuses jam 'helper': it writes its own .data or .bss (64 bytes)" "$TMP/err" ||
        { cat "$TMP/err"; fail "helper $m under W^X: no refusal naming the jam"; }
    "$RUN" -P "$TMP/extra.out" -j exported -m $m --wx --text abc >"$TMP/out" 2>"$TMP/err" &&
        fail "exported (.data) $m ran under W^X"
    grep -q "refuses jam 'exported': .* (8 bytes)" "$TMP/err" ||
        { cat "$TMP/err"; fail "exported $m under W^X: no refusal"; }
    "$RUN" -P "$TMP/extra.out" -j ptrtab -m $m --wx --text abc >"$TMP/out" 2>"$TMP/err" ||
        { cat "$TMP/err"; fail "ptrtab (writes nothing) $m under W^X"; }
done
# the runtime checks the manifest's writable covers the blob's .bss
rm -rf "$TMP/lie"; cp -r "$TMP/extra.out" "$TMP/lie"
sed -i 's/^\(element [0-9]* jam helper .*\) writable 64$/\1 writable 0/' "$TMP/lie/manifest.tcm"
grep -q "jam helper .* writable 0$" "$TMP/lie/manifest.tcm" || fail "editing helper's writable"
"$RUN" -P "$TMP/lie" -j helper >"$TMP/out" 2>"$TMP/err" && fail "tc-run: a manifest hiding .bss was accepted"
grep -qF "$TMP/lie/jam_helper.blob: 64 bytes of .bss, but the manifest's jam 'helper' has writable 0" \
    "$TMP/err" || fail "hidden .bss: $(cat "$TMP/err")"
"$TC_PKG" inspect "$TMP/lie" >/dev/null 2>"$TMP/err" && fail "inspect: a manifest hiding .bss was accepted"
grep -qF "$TMP/lie/jam_helper.blob: 64 bytes of .bss, but the manifest's jam 'helper' has writable 0" "$TMP/err" ||
    fail "inspect, hidden .bss: $(cat "$TMP/err")"

# --- jams that cannot be injected
reject() { # name cflags source want...
    local name=$1 flags=$2 src=$3; shift 3
    rm -rf "$TMP/rej"; mkdir -p "$TMP/rej"
    printf '%s\n' "$src" >"$TMP/rej/jam_$name.amc"
    "$TC_PKG" build "$TMP/rej" --name rej --out "$TMP/rej.out" --cflags "$flags" \
        >"$TMP/out" 2>"$TMP/err" && fail "jam '$name' was accepted"
    for w in "jam '$name'" "$@"; do
        grep -qF -- "$w" "$TMP/err" || fail "jam '$name': no '$w' in: $(cat "$TMP/err")"
    done
    [ -e "$TMP/rej.out/manifest.tcm" ] && fail "jam '$name': a manifest was written"
    sed 's/^/rejected as expected: /' "$TMP/err"
    return 0
}
PACK='int64_t TC_JAM_PACK(void *d, size_t c, const void *s, size_t l) { (void)d; (void)s; return l <= c ? (int64_t)l : -1; }'
reject tls "" "#include \"tc_jam.h\"
__thread int64_t counter;
int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l) { (void)x; (void)p; counter += l; return counter; }
$PACK" ".text:" "'counter'" "thread-local" "keep state in a ried"
reject common "-fcommon" "#include \"tc_jam.h\"
int64_t total;
int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l) { (void)x; (void)p; total += l; return total; }
$PACK" ".text:" "'total'" "common symbol" "-fno-common"
reject large "-mcmodel=large" "#include <string.h>
#include \"tc_jam.h\"
static const char *const w[] = {\"a\", \"bb\"};
int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l) { (void)x; (void)p; return (int64_t)strlen(w[l & 1]); }
$PACK" ".text:" "against '" "large code model" "-mcmodel=large"
reject hidden "" "#include \"tc_jam.h\"
extern int64_t secret __attribute__((visibility(\"hidden\")));
int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l) { (void)x; (void)p; return secret + (int64_t)l; }
$PACK" ".text:" "'secret'" "non-GOT reference to an undefined symbol" "-fno-plt"
reject ctor "" "#include \"tc_jam.h\"
static int64_t base;
__attribute__((constructor)) static void setup(void) { base = 7; }
int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l) { (void)x; (void)p; return base + (int64_t)l; }
$PACK" ".init_array:" "'setup'" "ried's init"
reject big "" "#include \"tc_jam.h\"
static const char big[70000] = {1};
int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l) { (void)x; (void)p; return big[l % sizeof(big)]; }
$PACK" ".rodata:" "'big'" "65535 bytes" "move data into a ried"
reject aligned "" "#include \"tc_jam.h\"
static const char t[128] __attribute__((aligned(128))) = {1};
int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l) { (void)x; (void)p; return t[l & 127]; }
$PACK" ".rodata:" "'t'" "at most 64-byte alignment"
reject norun "" "#include \"tc_jam.h\"
$PACK" "tc_jam_run_norun" "TC_JAM_RUN"
# a call would reach the resolver, not the function; a weak symbol is bound
# one way in the blob and maybe another in the Local Function library
reject ifunc "" "#include \"tc_jam.h\"
static int64_t plus1(int64_t v) { return v + 1; }
static int64_t (*pick(void))(int64_t) { return plus1; }
int64_t fast(int64_t v) __attribute__((ifunc(\"pick\")));
int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l) { (void)x; (void)p; return fast((int64_t)l); }
$PACK" "symbol 'fast' is an ifunc (target_clones or __attribute__((ifunc)))" \
    "injected code cannot call a resolver: drop the attribute"
if [ "$(uname -m)" = x86_64 ]; then
    reject clones "" "#include \"tc_jam.h\"
__attribute__((target_clones(\"avx2\", \"default\"))) static int64_t sum(const uint8_t *p, size_t l)
{ int64_t s = 0; size_t i; for (i = 0; i < l; ++i) s += p[i]; return s; }
int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l) { (void)x; return sum(p, l); }
$PACK" "symbol 'sum' is an ifunc (target_clones" "cannot call a resolver: drop the attribute"
else
    skipped+=("target_clones: written for x86-64 targets (avx2), this is $(uname -m)")
fi
reject weakdef "" "#include \"tc_jam.h\"
__attribute__((weak)) int64_t hook(int64_t v) { return v; }
int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l) { (void)x; (void)p; return hook((int64_t)l); }
$PACK" "symbol 'hook' is a weak definition" "drop __attribute__((weak))"
reject weakref "" "#include \"tc_jam.h\"
extern int64_t maybe(int64_t) __attribute__((weak));
int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l) { (void)x; (void)p; return maybe ? maybe((int64_t)l) : 0; }
$PACK" "symbol 'maybe' is a weak undefined reference" "drop the weak attribute"

# source tree mistakes
rm -rf "$TMP/dup"; mkdir -p "$TMP/dup/a" "$TMP/dup/b"
cp "$TMP/extra/jam_libc.amc" "$TMP/dup/a/"; cp "$TMP/extra/jam_libc.amc" "$TMP/dup/b/"
"$TC_PKG" build "$TMP/dup" --name d --out "$TMP/d" 2>"$TMP/err" && fail "duplicate names accepted"
grep -q "'libc' used twice" "$TMP/err" || fail "duplicates: $(cat "$TMP/err")"
rm -rf "$TMP/dup/b"; cp "$TMP/extra/jam_libc.amc" "$TMP/dup/a/jam_bad-name.amc"
"$TC_PKG" build "$TMP/dup" --name d --out "$TMP/d" 2>"$TMP/err" && fail "bad name accepted"
grep -q "'bad-name' is not a C identifier" "$TMP/err" || fail "bad name: $(cat "$TMP/err")"
mkdir -p "$TMP/empty"
"$TC_PKG" build "$TMP/empty" --name e --out "$TMP/e" 2>"$TMP/err" && fail "empty tree accepted"
"$TC_PKG" build "$TMP/extra" --name 9x --out "$TMP/e" 2>"$TMP/err" && fail "bad package name accepted"
"$TC_PKG" build "$TMP/extra" --name e --out "$TMP/e" --cc /nonexistent/cc 2>"$TMP/err" &&
    fail "missing compiler accepted"
grep -q "compiler '/nonexistent/cc' for .* not found" "$TMP/err" || fail "missing cc: $(cat "$TMP/err")"

# --- aarch64
A64CC=aarch64-linux-gnu-gcc
if ! command -v "$A64CC" >/dev/null; then
    skipped+=("aarch64: $A64CC not installed (scripts/deps.sh installs gcc-aarch64-linux-gnu)")
else
    for pkg in bench extra; do
        src="$TC_SRC/jams"; [ "$pkg" = extra ] && src="$TMP/extra"
        "$TC_PKG" build "$src" --name "$pkg" --out "$TMP/$pkg.a64" --arch aarch64 \
            --cflags "-Wall -Wextra -Werror" >"$TMP/build.log" 2>&1 ||
            { cat "$TMP/build.log"; fail "aarch64 build of $pkg"; }
        grep "jam " "$TMP/build.log" | sed 's/^ */aarch64 /'
        "$TC_PKG" inspect "$TMP/$pkg.a64" >"$TMP/inspect" 2>&1 || fail "aarch64 inspect $pkg"
        grep -q "arch aarch64" "$TMP/inspect" || fail "aarch64 manifest arch"
        for b in "$TMP/$pkg.a64"/jam_*.blob; do
            arch=$(od -An -tu4 -j12 -N4 "$b" | tr -d ' ')
            [ "$arch" = 183 ] || fail "$b: arch $arch, expected 183"
        done
        file "$TMP/$pkg.a64/libtc_$pkg.so" 2>/dev/null | grep -q "aarch64" ||
            ! command -v file >/dev/null || fail "libtc_$pkg.so is not aarch64"
    done
    # the small code model is refused with the fix
    rm -rf "$TMP/rej"; mkdir -p "$TMP/rej"
    printf '%s\n' "#include \"tc_jam.h\"
static const int64_t t[4] = {1, 2, 3, 4};
int64_t TC_JAM_RUN(tc_jam_ctx_t *x, void *p, size_t l) { (void)x; (void)p; return t[l & 3]; }
$PACK" >"$TMP/rej/jam_small.amc"
    "$TC_PKG" build "$TMP/rej" --name r --out "$TMP/r" --arch aarch64 --cflags -mcmodel=small \
        2>"$TMP/err" && fail "aarch64 small code model accepted"
    grep -q "jam 'small': .text: relocation R_AARCH64_ADR_PREL_PG_HI21 against .*-mcmodel=tiny" \
        "$TMP/err" || fail "aarch64 small model: $(cat "$TMP/err")"

    # run them: a receiver-side executor for aarch64 under qemu
    SYSROOT=/usr/aarch64-linux-gnu
    if ! command -v qemu-aarch64-static >/dev/null; then
        skipped+=("aarch64 run: qemu-aarch64-static not installed (qemu-user-static)")
    elif [ ! -e "$SYSROOT/lib/ld-linux-aarch64.so.1" ]; then
        skipped+=("aarch64 run: no aarch64 libc in $SYSROOT (libc6-dev-arm64-cross)")
    else
        "$A64CC" -std=gnu11 -O2 -Wall -Wextra -Werror "${lib_inc[@]}" -I"$TC_SRC/jams" \
            "$TC_SRC/tests/blob_run.c" "$TC_SRC/lib/codec/blob.c" "$TC_SRC/lib/codec/manifest.c" \
            "$TC_SRC/lib/base/log.c" "$TC_SRC/lib/base/names.c" "$TC_SRC/lib/base/status.c" -ldl -o "$TMP/blob_run.a64" || fail "building blob_run for aarch64"
        for pkg in bench extra; do
            native="$TMP/run.native"; [ "$pkg" = extra ] && native="$TMP/extra.native"
            qemu-aarch64-static -L "$SYSROOT" "$TMP/blob_run.a64" "$TMP/$pkg.a64" \
                >"$TMP/run.a64" 2>&1 || { cat "$TMP/run.a64"; fail "aarch64 $pkg blobs under qemu"; }
            # same results on both architectures (code sizes differ)
            diff <(grep -v ' code=' "$native") <(grep -v ' code=' "$TMP/run.a64") >"$TMP/diff" ||
                { cat "$TMP/diff"; fail "aarch64 $pkg results differ from $(uname -m)'s"; }
        done
        echo "aarch64: every blob ran under qemu-aarch64-static with this machine's results"
    fi
fi

for s in "${skipped[@]}"; do echo "skipped: $s"; done
echo "ok"
