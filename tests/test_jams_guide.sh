#!/usr/bin/env bash
# docs/JAMS.md's worked example, from an installed tree: make install
# PREFIX=<tmp>, the guide's files (its ```c file=NAME blocks) into demo/, the
# guide's commands (its ```sh example block) run as written with that
# PREFIX, and what the guide says they print: inspect lists the GOT slots it
# names, each tc-run prints the result it states. Also the guide's largest
# injected payload, slot_size - 72 - roundup8(code bytes), against the cap
# the runtime gives a pack routine (its overrun message).
. "$(dirname "$0")/lib.sh"
TC_SRC=${TC_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
GUIDE="$TC_SRC/docs/JAMS.md"
[ -f "$GUIDE" ] || fail "no $GUIDE"

# --- install (the build tree the suite runs on, into a fresh prefix)
build_rel=${TC_BUILD#"$TC_SRC"/}
PREFIX="$TMP/prefix"
make -C "$TC_SRC" --no-print-directory install BUILD="$build_rel" PREFIX="$PREFIX" \
    >"$TMP/install.log" 2>&1 || { tail -20 "$TMP/install.log"; fail "make install PREFIX=$PREFIX"; }
for f in bin/tc-pkg bin/tc-run include/twochains.h include/twochains/tc_jam.h lib/libtwochains.so; do
    [ -e "$PREFIX/$f" ] || fail "make install did not install $f"
done

# --- the guide's files and commands
mkdir -p "$TMP/work/demo"
awk -v dir="$TMP/work/demo" '
    /^```c file=/ { name = $0; sub(/^```c file=/, "", name); out = dir "/" name; n++; next }
    /^```/ && out != "" { close(out); out = ""; next }
    out != "" { print > out }
    END { if (n < 2) exit 1 }' "$GUIDE" || fail "the guide has fewer than two \`\`\`c file= blocks"
ls "$TMP/work/demo" | grep -q '^jam_.*\.amc$' || fail "the guide's files hold no jam: $(ls "$TMP/work/demo")"
awk '/^```sh example$/ { on = 1; next } /^```/ { on = 0 } on' "$GUIDE" >"$TMP/commands.sh"
[ -s "$TMP/commands.sh" ] || fail "the guide has no \`\`\`sh example block"
grep -q '^PREFIX=' "$TMP/commands.sh" || fail "the guide's commands do not set PREFIX first"
# the guide's PREFIX is the reader's; here it is the tree just installed
sed -i "s|^PREFIX=.*|PREFIX='$PREFIX'|" "$TMP/commands.sh"
grep -q 'tc-pkg" build' "$TMP/commands.sh" && grep -q 'tc-run"' "$TMP/commands.sh" ||
    fail "the guide's commands do not build with tc-pkg and run with tc-run"
# nothing of the source tree on the way: the installed tools and headers only
(cd "$TMP/work" && env -u TC_PKG PATH=/usr/bin:/bin bash -e "$TMP/commands.sh") >"$TMP/out" 2>"$TMP/err" ||
    { cat "$TMP/out" "$TMP/err"; fail "the guide's commands failed"; }

# --- what the guide says they print
want=$(sed -n 's/.*each tc-run prints `result=\([0-9-]*\)`.*/\1/p' "$GUIDE")
[ -n "$want" ] || fail "the guide states no result (\"each tc-run prints \`result=N\`\")"
runs=$(grep -c 'tc-run"' "$TMP/commands.sh")
[ "$(grep -c "^result=$want$" "$TMP/out")" = "$runs" ] ||
    fail "the guide says result=$want from each of $runs tc-runs; they printed: $(grep '^result=' "$TMP/out" | tr '\n' ' ')"
jam=$(sed -n 's/.*`inspect` lists jam `\([a-z_0-9]*\)`.*/\1/p' "$GUIDE")
[ -n "$jam" ] || fail "the guide names no jam for inspect"
for slot in $(sed -n '/`inspect` lists jam/,/each tc-run/p' "$GUIDE" | grep -o '`[a-z_0-9]*` (' | tr -d '`( '); do
    grep -A4 "^element [0-9]* jam $jam:" "$TMP/out" | grep -q "got\[[0-9]*\] $slot$" ||
        fail "inspect does not list GOT slot '$slot' the guide names for $jam: $(cat "$TMP/out")"
done
grep -q "^element [0-9]* jam $jam: .*, 1 GOT slots" "$TMP/out" || fail "the guide says one GOT slot: $(cat "$TMP/out")"
# the pack's memcpy is the library's, not the blob's
grep -A4 "^element [0-9]* jam $jam:" "$TMP/out" | grep -q "got\[[0-9]*\] memcpy$" &&
    fail "the pack's memcpy is a GOT slot of the blob: $(cat "$TMP/out")"
# the jam describes itself (TC_JAM_DESCRIBE): inspect shows the payload
# text the guide quotes, and the installed tc-run --list the same
grep -q '^TC_JAM_DESCRIBE(' "$TMP/work/demo/jam_$jam.amc" || fail "the guide's jam does not describe itself"
said=$(sed -n '/`inspect` lists jam/,/each tc-run/p' "$GUIDE" | tr '\n' ' ' | sed -n 's/.*(`payload: \([^`]*\)`).*/\1/p')
[ -n "$said" ] || fail "the guide quotes no payload text (\"(\`payload: ...\`)\")"
grep -A8 "^element [0-9]* jam $jam:" "$TMP/out" | grep -qxF "    payload: $said" ||
    fail "inspect does not show the payload text the guide quotes, '$said': $(cat "$TMP/out")"
"$PREFIX/bin/tc-run" -P "$TMP/work/demo-pkg" --list >"$TMP/list" 2>&1 || fail "tc-run --list: $(cat "$TMP/list")"
grep -qxF "      payload: $said" "$TMP/list" || fail "tc-run --list: $(cat "$TMP/list")"
echo "the guide's example: built with $PREFIX/bin/tc-pkg, $runs runs of tc-run gave result=$want"

# --- the guide's program side: every call it names is the installed API's,
# and the jam by name is the element and build the package header gives
calls=$(sed -n '/A program of one.s own takes the jam by name/,/inspect` also runs/p' "$GUIDE" |
    grep -o 'tc_[a-z_]*(' | tr -d '(' | sort -u)
[ -n "$calls" ] || fail "the guide names no call for a program of one's own"
for c in $calls; do
    grep -q "[ *]$c(" "$PREFIX/include/twochains.h" || fail "the guide names $c, which twochains.h does not declare"
done
up=$(echo "$jam" | tr a-z A-Z)
cat >"$TMP/work/byname.c" <<EOF
#include <twochains.h>
#include <stdio.h>
#include "demo-pkg/demo.h"
int main(void)
{
    tc_pkg_t *pkg;
    tc_jam_t jam;
    if ((tc_pkg_open("demo-pkg", &pkg) != TC_OK) || (tc_pkg_jam(pkg, "$jam", &jam) != TC_OK)) {
        return 1;
    }
    int same = (jam.element == TC_PKG_DEMO_$up) && (tc_pkg_desc(pkg)->id == TC_PKG_DEMO_ID);
    printf("element %u/%u id %#x/%#x\n", (unsigned)jam.element, (unsigned)TC_PKG_DEMO_$up,
           (unsigned)tc_pkg_desc(pkg)->id, (unsigned)TC_PKG_DEMO_ID);
    tc_pkg_close(pkg);
    return !same;
}
EOF
# an installed sanitizer build (make check SAN=...) wants its runtime first
(cd "$TMP/work" && cc ${SAN:+-fsanitize=$SAN} -o byname byname.c -I"$PREFIX/include" -L"$PREFIX/lib" -Wl,-rpath,"$PREFIX/lib" -ltwochains &&
    ./byname) >"$TMP/byname" 2>&1 || fail "a jam by name against demo.h's ids: $(cat "$TMP/byname")"
echo "by name: $(cat "$TMP/byname")"

# --- the guide's payload arithmetic: the cap a pack routine is given
pkg="$TMP/work/demo-pkg"
code=$(sed -n "s/^element [0-9]* jam $jam: .*code \([0-9]*\) bytes.*/\1/p" "$TMP/out")
mkdir -p "$TMP/cap"
cp "$TMP/work/demo"/* "$TMP/cap/"
# the same jam, but its pack claims one byte more than it may: the runtime's
# refusal names the cap it gave
sed -i 's/^    if (len > cap) {$/    if (len > 0) { return (int64_t)cap + 1; } if (len > cap) {/' "$TMP/cap/jam_$jam.amc"
grep -q 'return (int64_t)cap + 1' "$TMP/cap/jam_$jam.amc" || fail "the guide's pack changed: cannot make it overrun"
"$PREFIX/bin/tc-pkg" build "$TMP/cap" --name demo --out "$TMP/cap-pkg" >"$TMP/log" 2>&1 ||
    { cat "$TMP/log"; fail "the overrunning copy"; }
code2=$(sed -n "s/^  jam  $jam *\([0-9]*\) code bytes.*/\1/p" "$TMP/log")
for m in local injected cached; do
    "$PREFIX/bin/tc-run" -P "$TMP/cap-pkg" -j "$jam" -m $m --text x >/dev/null 2>"$TMP/err" &&
        fail "$m: an overrunning pack was sent"
    read -r cap slot < <(sed -n 's/.*more than the \([0-9]*\) it was given (cap; slots are \([0-9]*\) bytes).*/\1 \2/p' "$TMP/err")
    [ -n "${slot:-}" ] || fail "$m: no cap in: $(cat "$TMP/err")"
    case $m in
    injected) want_cap=$((slot - 72 - (code2 + 7) / 8 * 8)) ;;
    *)        want_cap=$((slot - 56)) ;;
    esac
    [ "$cap" = "$want_cap" ] || fail "$m: cap $cap, the guide's arithmetic says $want_cap (slot $slot, code $code2)"
    echo "$m: cap $cap = the guide's $want_cap (slot $slot${code2:+, code $code2})"
done
[ -n "$code" ] || fail "no code bytes for $jam in inspect"
echo ok
