#!/usr/bin/env bash
# No two files of lib/ use each other (scripts/lib-imports.py reads the
# objects' symbols). One loop through several files is there by design:
# waiting for a credit runs what arrives (send -> peer_wait -> dispatch).
. "$(dirname "$0")/lib.sh"
objs="$TC_BUILD/obj/lib"
[ -d "$objs" ] || fail "no objects in $objs (build first)"
out=$(python3 "$(dirname "$0")/../scripts/lib-imports.py" "$objs" --src "$(dirname "$0")/../lib") || fail "import circle in lib/: $out"
# the script must see a circle where there is one: two objects that use each other
mkdir -p "$TMP/o"
printf 'int b(void); int a(void) { return b(); }\n' >"$TMP/a.c"
printf 'int a(void); int b(void) { return 0 * a(); }\n' >"$TMP/b.c"
cc -c "$TMP/a.c" -o "$TMP/o/a.o" && cc -c "$TMP/b.c" -o "$TMP/o/b.o" || fail "compiling the probe"
if python3 "$(dirname "$0")/../scripts/lib-imports.py" "$TMP/o" >"$TMP/probe"; then
    fail "lib-imports.py missed a circle"
fi
grep -q "circle: a uses b" "$TMP/probe" || fail "lib-imports.py: $(cat "$TMP/probe")"
echo "no two files of lib/ use each other"
