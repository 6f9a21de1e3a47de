#!/usr/bin/env bash
# scripts/tc-claims and scripts/tc-platforms end to end, as commands, on the
# fixed result folders tests/data/claims (hand-made numbers): claims.md
# written in the folder (or to stdout), --json and --diff, an emulated folder
# judged nothing; tc-platforms' table and plots. Every verdict, reason and
# label is checked by the unit tests (tests/py/test_claims.py,
# test_platforms.py).
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
command -v python3 >/dev/null || skip "python3 missing"
data="$top/tests/data/claims"
claims="$top/scripts/tc-claims"

cp -r "$data/full" "$TMP/full"
"$claims" "$TMP/full" >"$TMP/log" 2>&1 || { cat "$TMP/log"; fail "tc-claims full exited non-zero"; }
grep -q "^tc-claims: 16 claims: 7 hold, 4 fail, 5 inconclusive -> $TMP/full/claims.md" "$TMP/log" || fail "tc-claims: $(cat "$TMP/log")"
grep -q "^| 1a | Injected Function costs latency at small payloads |.*| holds |" "$TMP/full/claims.md" \
    || fail "claims.md: no 1a row that holds"
"$claims" "$data/full" -o - | cmp -s - "$TMP/full/claims.md" || fail "-o -: not the claims.md written"
"$claims" "$data/noext" -o "$TMP/noext.md" --json "$TMP/noext.json" >/dev/null || fail "tc-claims noext --json"
grep -q '"verdict_class": "not measurable here"' "$TMP/noext.json" || fail "--json: no verdict classes"
"$claims" "$data/full" -o /dev/null --json "$TMP/full.json" >/dev/null || fail "tc-claims full --json"
"$claims" --diff "$TMP/full.json" "$TMP/noext.json" >"$TMP/diff" || fail "--diff exited non-zero"
grep -q "^| 2a | inconclusive (noise) | not measurable here | differs |$" "$TMP/diff" || fail "--diff: $(head -5 "$TMP/diff")"
"$claims" >/dev/null 2>&1 && fail "tc-claims without a folder exited 0"

# results measured under an instruction emulator judge nothing
cp -r "$data/full" "$TMP/emu"
rm -f "$TMP/emu/claims.md"
sed -i 's/"platform": {/"platform": {"emulated": "qemu-user: not for timing", /' "$TMP/emu/meta.json"
"$claims" "$TMP/emu" >"$TMP/log" 2>&1 || { cat "$TMP/log"; fail "tc-claims on emulated results exited non-zero"; }
grep -q "emulated: not for timing" "$TMP/log" || { cat "$TMP/log"; fail "emulated results: not said"; }
[ -e "$TMP/emu/claims.md" ] && fail "emulated results: claims.md written"

# tc-platforms: the two fixture folders side by side, the emulated one left out
"$top/scripts/tc-platforms" "$data/full" "$data/noext" "$TMP/emu" -o "$TMP/cmp" >"$TMP/plog" 2>&1 \
    || { cat "$TMP/plog"; fail "tc-platforms exited non-zero"; }
grep -q "$TMP/emu left out: emulated: not for timing" "$TMP/plog" || fail "tc-platforms: emulated folder not said"
grep -q "| fixture-arm, fixture | fixture-x86, fixture |$" "$TMP/cmp/compare.md" || fail "tc-platforms: no column per platform (by its label)"
if command -v gnuplot >/dev/null; then
    for e in png svg; do
        [ -s "$TMP/cmp/fig09-10-placement-jam_lat.$e" ] || fail "tc-platforms: no fig09-10-placement-jam_lat.$e"
    done
fi
echo ok
