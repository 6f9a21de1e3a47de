#!/usr/bin/env bash
# docs/REGRESSION.md's tc-bisect example, as written there (the command and
# the commit it names), run against this repository's history: it builds
# and counts the commits it needs (the documented GOOD and BAD, then git
# bisect run's) and must name the documented first commit, exit 0. Only
# --root is added, so its counts go to this test's folder, not build/history/.
# The example's commits must be in this clone (a shallow one: skipped).
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
[ -z "${SAN:-}" ] || skip "SAN=$SAN: the commits are built plain and counted under callgrind; nothing here runs sanitized"
command -v valgrind >/dev/null || skip "valgrind missing: nothing can be counted (scripts/deps.sh)"
line=$(grep -m1 '^scripts/tc-bisect instructions_per_msg -1 ' "$top/docs/REGRESSION.md") ||
    fail "docs/REGRESSION.md: no tc-bisect example with -1"
cmd=${line%%#*}
want=$(sed -n 's/.*# the first more than 1% below: \([0-9a-f]\{7,\}\).*/\1/p' <<<"$line")
[ -n "$want" ] || fail "the example names no commit: $line"
read -r _ metric pct good bad <<<"$cmd"
for c in "$good" "$bad" "$want"; do
    git -C "$top" cat-file -e "$c^{commit}" 2>/dev/null || skip "commit $c of the example is not in this clone (shallow?)"
done
echo "running: $cmd--root $TMP/root"
(cd "$top" && env -u TC_BUILD -u MAKEFLAGS -u MAKELEVEL -u MFLAGS \
    scripts/tc-bisect "$metric" "$pct" "$good" "$bad" --root "$TMP/root") >"$TMP/out" 2>&1
rc=$?
cat "$TMP/out"
[ "$rc" = 0 ] || fail "the example exited $rc, expected 0"
grep -q "^tc-bisect: first commit past -1% of ${good:0:7} on $metric: ${want:0:7} " "$TMP/out" ||
    fail "the example did not name $want"
echo "PASS: $cmd-> $want, as documented"
