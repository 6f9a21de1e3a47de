#!/usr/bin/env bash
# The bench jams as the docs list them (docs/JAMS.md's table, README.md's
# names) are what the build's package says: scripts/jam-docs.sh check, the
# blocks made from the manifest's describe lines (each jam's
# TC_JAM_DESCRIBE), against the committed docs; make docs-jams rewrites
# them. Then that the check can fail: a copy with one cell changed, a jam
# missing, an unclosed block, no block at all; and a '|' in a text kept
# inside its cell.
. "$(dirname "$0")/lib.sh"
TC_SRC=${TC_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
GEN="$TC_SRC/scripts/jam-docs.sh"
PKG="$TC_BUILD/pkg/bench"
[ -f "$PKG/manifest.tcm" ] || fail "no bench package at $PKG (make pkg)"

# --- the committed docs hold what the build gives
"$GEN" check "$PKG" "$TC_SRC/docs/JAMS.md" "$TC_SRC/README.md" >"$TMP/check" 2>&1 ||
    fail "the docs' bench jams differ from the build's package (run make docs-jams): $(cat "$TMP/check")"
jams=$(awk '$1 == "element" && $3 == "jam" { print $4 }' "$PKG/manifest.tcm")
[ "$(echo "$jams" | wc -l)" -ge 9 ] || fail "the bench package lists $(echo "$jams" | wc -l) jams"
for j in $jams; do
    payload=$(awk -v j="$j" '$1 == "element" && $4 == j { id = $2 }
                             $1 == "describe" && $2 == id && $3 == "payload" { sub(/^describe [0-9]+ payload /, ""); print }' \
              "$PKG/manifest.tcm")
    [ -n "$payload" ] || fail "bench jam $j is not described in the manifest"
    grep -qF "| \`$j\` | " "$TC_SRC/docs/JAMS.md" || fail "docs/JAMS.md's table has no row for $j"
    grep -F "| \`$j\` | " "$TC_SRC/docs/JAMS.md" | grep -qF "| $payload |" ||
        fail "docs/JAMS.md: $j's payload is not '$payload'"
    grep -qF "\`$j\`" "$TC_SRC/README.md" || fail "README.md does not name $j"
done

# --- the check fails where the docs drift, naming the file
cp "$TC_SRC/docs/JAMS.md" "$TMP/JAMS.md"
sed -i 's/| one uint32 key (exactly 4 bytes) |/| a key |/' "$TMP/JAMS.md"
cmp -s "$TC_SRC/docs/JAMS.md" "$TMP/JAMS.md" && fail "could not change kv_get's cell in the copy"
"$GEN" check "$PKG" "$TMP/JAMS.md" >"$TMP/out" 2>&1 && fail "check passed a changed cell"
grep -q "^$TMP/JAMS.md: the bench jams differ" "$TMP/out" && grep -q "^-| \`kv_get\` .*| a key |" "$TMP/out" ||
    fail "check, changed cell: $(cat "$TMP/out")"
"$GEN" update "$PKG" "$TMP/JAMS.md" >/dev/null || fail "update"
cmp -s "$TC_SRC/docs/JAMS.md" "$TMP/JAMS.md" || fail "update did not restore the table"
grep -v '`seq`' "$TC_SRC/README.md" >"$TMP/README.md" || true
sed -i 's/`append`, `copy`,/`append`,/' "$TMP/README.md"
"$GEN" check "$PKG" "$TMP/README.md" >"$TMP/out" 2>&1 && fail "check passed a README missing jams"
printf 'x\n<!-- bench-jams table begin -->\n| stale |\n' >"$TMP/open.md"
"$GEN" check "$PKG" "$TMP/open.md" >"$TMP/out" 2>&1 && fail "check passed an unclosed block"
grep -q "a bench-jams block is not closed" "$TMP/out" || fail "unclosed: $(cat "$TMP/out")"
printf 'no markers here\n' >"$TMP/none.md"
"$GEN" check "$PKG" "$TMP/none.md" >"$TMP/out" 2>&1 && fail "check passed a file without a block"
grep -q "no bench-jams block" "$TMP/out" || fail "no block: $(cat "$TMP/out")"

# --- a '|' in a text stays in its cell; an undescribed jam says so
mkdir -p "$TMP/pkg"
cat >"$TMP/pkg/manifest.tcm" <<'EOF'
twochains-package 3
name p
id 0x00000001
arch x86_64
library libtc_p.so
element 0 jam a blob jam_a.blob hash 0x0000000000000001 code 64 got 0 entry 0 writable 0
describe 0 what either | or
describe 0 payload x
describe 0 result y
element 1 jam b blob jam_b.blob hash 0x0000000000000002 code 64 got 0 entry 0 writable 0
EOF
"$GEN" table "$TMP/pkg" >"$TMP/table" || fail "table of a small manifest"
grep -qxF '| `a` | either \| or | x | y |' "$TMP/table" || fail "the '|' cell: $(cat "$TMP/table")"
grep -qxF '| `b` | (not described) |  |  |' "$TMP/table" || fail "undescribed row: $(cat "$TMP/table")"
[ "$("$GEN" names "$TMP/pkg")" = '`a`, `b`' ] || fail "names: $("$GEN" names "$TMP/pkg")"
"$GEN" table "$TMP/nowhere" >/dev/null 2>&1 && fail "table of no package"
echo ok
