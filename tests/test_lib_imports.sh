#!/usr/bin/env bash
# No import loop of any length between the files of lib/ (scripts/lib-imports.py
# reads the objects' symbols and finds every strongly connected component)
# but the one by design that the script's ALLOWED names and
# docs/ARCHITECTURE.md quotes: waiting for a credit runs what arrives
# (send -> peer_wait -> dispatch -> send).
. "$(dirname "$0")/lib.sh"
script="$(dirname "$0")/../scripts/lib-imports.py"
objs="$TC_BUILD/obj/lib"
[ -d "$objs" ] || fail "no objects in $objs (build first)"
out=$(python3 "$script" "$objs" --src "$(dirname "$0")/../lib") || fail "import loop in lib/: $out"
# the allowed loop is there, and is the only one (one loop line, allowed)
[ "$(grep -c '^loop' <<<"$out")" = 1 ] && grep -q '^loop (allowed) of 3 files: dispatch peer_wait send;' <<<"$out" ||
    fail "lib-imports.py: expected only the allowed loop: $out"
# docs/ARCHITECTURE.md quotes the allowed loop as the script names it
allowed=$(sed -n 's/^ALLOWED = (\(.*\))$/\1/p' "$script" | tr -d '" ' | tr ',' ' ')
[ "$allowed" = "dispatch peer_wait send" ] || fail "lib-imports.py: ALLOWED is '$allowed'"
grep -q 'ALLOWED = ("dispatch", "peer_wait", "send")' "$(dirname "$0")/../docs/ARCHITECTURE.md" ||
    fail "docs/ARCHITECTURE.md does not quote lib-imports.py's ALLOWED"

# The script must see the loops that are there: probes of 2 and 3 files
# (a -> b -> a; a -> b -> c -> a), a 3-file loop beside a 2-file one (two
# loops), and none in a chain (a -> b -> c).
probe() { # dir name calls...: an object dir/name.o defining name() that calls the others
    local dir=$1 name=$2 body="" decl="" c
    shift 2
    for c in "$@"; do
        decl+="int $c(void); "
        body+=" + $c()"
    done
    printf '%sint %s(void) { return 0%s; }\n' "$decl" "$name" "$body" >"$TMP/$name.c"
    mkdir -p "$dir"
    cc -c "$TMP/$name.c" -o "$dir/$name.o" || fail "compiling the probe $name"
}
probe "$TMP/two" a b
probe "$TMP/two" b a
probe "$TMP/three" a b
probe "$TMP/three" b c
probe "$TMP/three" c a
probe "$TMP/both" a b
probe "$TMP/both" b c
probe "$TMP/both" c a
probe "$TMP/both" d e
probe "$TMP/both" e d
probe "$TMP/chain" a b
probe "$TMP/chain" b c
probe "$TMP/chain" c

expect_loops() { # dir allow lines...: the script exits 1 and prints exactly these loop lines
    local dir=$1 allow=$2 got
    shift 2
    if python3 "$script" "$dir" --allow "$allow" >"$TMP/probe"; then
        fail "lib-imports.py missed a loop in $(basename "$dir"): $(cat "$TMP/probe")"
    fi
    got=$(grep '^loop' "$TMP/probe")
    [ "$got" = "$(printf '%s\n' "$@")" ] || fail "lib-imports.py on $(basename "$dir"): $got"
}
expect_loops "$TMP/two" "" "loop of 2 files: a b; e.g. a -> b -> a"
expect_loops "$TMP/three" "" "loop of 3 files: a b c; e.g. a -> b -> c -> a"
# allowing one loop does not allow another, nor a part of it
expect_loops "$TMP/both" "a,b,c" "loop (allowed) of 3 files: a b c; e.g. a -> b -> c -> a" \
    "loop of 2 files: d e; e.g. d -> e -> d"
expect_loops "$TMP/three" "a,b" "loop of 3 files: a b c; e.g. a -> b -> c -> a"
grep -q '^  c uses a: a$' "$TMP/probe" || fail "lib-imports.py names no symbol: $(cat "$TMP/probe")"
# the allowed loop alone passes; a chain has none
python3 "$script" "$TMP/three" --allow a,b,c >"$TMP/probe" || fail "lib-imports.py: $(cat "$TMP/probe")"
python3 "$script" "$TMP/chain" --allow "" >"$TMP/probe" || fail "lib-imports.py: a chain: $(cat "$TMP/probe")"
[ ! -s "$TMP/probe" ] || fail "lib-imports.py: a chain: $(cat "$TMP/probe")"
echo "no import loop in lib/ but the allowed one (dispatch peer_wait send)"
