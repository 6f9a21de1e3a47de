#!/usr/bin/env bash
# No import loop of any length between the files of lib/ (scripts/lib-imports.py
# reads the objects' symbols and finds every strongly connected component):
# the script's ALLOWED is empty, as docs/ARCHITECTURE.md quotes it (waiting
# for a credit runs what arrives, send -> peer_wait -> dispatch, and dispatch
# sends what is owed through the context's table). No file uses a file of a folder
# above its own in the script's LAYERS (by symbol or by #include), and the
# PURE folders need no UCX; ARCHITECTURE.md quotes both lists.
. "$(dirname "$0")/lib.sh"
script="$(dirname "$0")/../scripts/lib-imports.py"
objs="$TC_BUILD/obj/lib"
[ -d "$objs" ] || fail "no objects in $objs (build first)"
out=$(python3 "$script" "$objs" --src "$(dirname "$0")/../lib") || fail "import loop in lib/: $out"
# no loop at all, none allowed
[ "$(grep -c '^loop' <<<"$out")" = 0 ] || fail "lib-imports.py: expected no loop: $out"
grep -qx 'ALLOWED = ()' "$script" || fail "lib-imports.py: ALLOWED is not empty"
grep -qx 'ALLOWED = ()' "$(dirname "$0")/../docs/ARCHITECTURE.md" ||
    fail "docs/ARCHITECTURE.md does not quote lib-imports.py's ALLOWED"
# ... and its LAYERS and PURE as the script has them, and lib/'s folders are the layers
for list in LAYERS PURE; do
    line=$(grep "^$list = (" "$script") || fail "lib-imports.py has no $list"
    grep -qxF "$line" "$(dirname "$0")/../docs/ARCHITECTURE.md" ||
        fail "docs/ARCHITECTURE.md does not quote lib-imports.py's $line"
done
layers=$(sed -n 's/^LAYERS = (\(.*\))$/\1/p' "$script" | tr -d '" ' | tr ',' '\n' | sort)
folders=$(cd "$(dirname "$0")/../lib" && ls -d */ | tr -d / | sort)
[ "$layers" = "$folders" ] || fail "lib/'s folders ($(echo $folders)) are not LAYERS ($(echo $layers))"

# The script must see the loops that are there: probes of 2 and 3 files
# (a -> b -> a; a -> b -> c -> a), a 3-file loop beside a 2-file one (two
# loops), and none in a chain (a -> b -> c).
probe_src() { # src obj name calls...: a source src defining name() that calls the others, built to obj
    local src=$1 obj=$2 name=$3 body="" decl="" c
    shift 3
    for c in "$@"; do
        decl+="int $c(void); "
        body+=" + $c()"
    done
    mkdir -p "$(dirname "$src")" "$(dirname "$obj")"
    printf '%sint %s(void) { return 0%s; }\n' "$decl" "$name" "$body" >"$src"
    cc -c "$src" -o "$obj" || fail "compiling the probe $name"
}
probe() { # dir name calls...: an object dir/name.o defining name() that calls the others
    probe_src "$TMP/$2.c" "$1/$2.o" "$2" "${@:3}"
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
    if python3 "$script" "$dir" --allow "$allow" --layers "" >"$TMP/probe"; then
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
python3 "$script" "$TMP/three" --allow a,b,c --layers "" >"$TMP/probe" || fail "lib-imports.py: $(cat "$TMP/probe")"
python3 "$script" "$TMP/chain" --allow "" --layers "" >"$TMP/probe" || fail "lib-imports.py: a chain: $(cat "$TMP/probe")"
[ ! -s "$TMP/probe" ] || fail "lib-imports.py: a chain: $(cat "$TMP/probe")"

# The layer check must see what it forbids. Probes in folders low < high
# (--layers low,high; --src: their sources' #include lines):
#  - a file of low that calls one of high (a use from below: an error),
#    next to high calling low and low calling low (both fine);
#  - a source outside the folders, and an object in a folder not a layer;
#  - a low header that includes a high one (an inline use: no symbol shows);
#  - UCX in the pure folder low: a ucp_ symbol, an #include <ucp/...>.
layered() { # root folder/name calls...: root/src/folder/name.c and its object root/obj/folder/name.o
    probe_src "$1/src/$2.c" "$1/obj/$2.o" "$(basename "$2")" "${@:3}"
}
expect_layer() { # root layers lines...: the script exits 1 and prints exactly these layer and pure lines
    local root=$1 order=$2 got
    shift 2
    if python3 "$script" "$root/obj" --src "$root/src" --layers "$order" --allow "" >"$TMP/probe"; then
        fail "lib-imports.py missed a layer fault in $(basename "$root"): $(cat "$TMP/probe")"
    fi
    got=$(grep -E '^(layer|pure):' "$TMP/probe")
    [ "$got" = "$(printf '%s\n' "$@")" ] || fail "lib-imports.py on $(basename "$root"): $got"
}
layered "$TMP/down" high/h l
layered "$TMP/down" low/l m
layered "$TMP/down" low/m
python3 "$script" "$TMP/down/obj" --src "$TMP/down/src" --layers low,high --allow "" >"$TMP/probe" ||
    fail "lib-imports.py: uses downward and within a folder: $(cat "$TMP/probe")"
[ ! -s "$TMP/probe" ] || fail "lib-imports.py: uses downward and within a folder: $(cat "$TMP/probe")"
layered "$TMP/up" high/h
layered "$TMP/up" low/l h
expect_layer "$TMP/up" low,high "layer: low/l uses high/h, a folder above it: h"
# the order is the list's: the same files pass with the folders swapped
python3 "$script" "$TMP/up/obj" --src "$TMP/up/src" --layers high,low --allow "" >"$TMP/probe" ||
    fail "lib-imports.py: high,low: $(cat "$TMP/probe")"
layered "$TMP/odd" low/l
layered "$TMP/odd" stray/s
layered "$TMP/odd" top
expect_layer "$TMP/odd" low,high "layer: stray/s is in no folder of the layers (low, high)" \
    "layer: top is in no folder of the layers (low, high)" \
    "layer: top.c is in no folder of the layers (low, high)"
layered "$TMP/inc" low/l
layered "$TMP/inc" high/h
printf 'static inline int hi(void) { return 1; }\n' >"$TMP/inc/src/high/h.h"
printf '#include "h.h"\nstatic inline int lo(void) { return hi(); }\n' >"$TMP/inc/src/low/l.h"
expect_layer "$TMP/inc" low,high "layer: low/l.h includes high/h.h, a folder above it"
# UCX in a pure folder (PURE names base, codec, arch, boot); in core it is fine
layered "$TMP/ucx" base/b ucp_worker_progress
layered "$TMP/ucx" core/c ucp_worker_progress
mkdir -p "$TMP/ucx/src/codec"
printf '#include <ucp/api/ucp.h>\n' >"$TMP/ucx/src/codec/u.h"
expect_layer "$TMP/ucx" base,codec,core "pure: base/b uses UCX: ucp_worker_progress" \
    "pure: codec/u.h includes <ucp/api/ucp.h>"
# <name> finds a lib/ header too (every folder is on the include path), and
# a quoted UCX header is UCX all the same
layered "$TMP/angle" base/l
layered "$TMP/angle" core/h
printf 'static inline int hi(void) { return 1; }\n' >"$TMP/angle/src/core/h.h"
printf '#include <h.h>\nstatic inline int lo(void) { return hi(); }\n' >"$TMP/angle/src/base/l.h"
printf '#include "ucs/sys/compiler_def.h"\n' >"$TMP/angle/src/base/q.h"
expect_layer "$TMP/angle" base,core "layer: base/l.h includes core/h.h, a folder above it" \
    "pure: base/q.h includes \"ucs/sys/compiler_def.h\""
# two files of one name in two folders: objects are known by name, so one
# hides the other's uses (here a/x's call of b/h, a folder above it)
layered "$TMP/same" a/x h
layered "$TMP/same" b/h
layered "$TMP/same" b/x
expect_layer "$TMP/same" a,b \
    "layer: a/x.c and b/x.c share a name (every folder is on the include path, and objects are known by name)"
echo "no import loop in lib/ (none allowed); no use of a folder above; no UCX in $(sed -n 's/^PURE = (\(.*\))$/\1/p' "$script" | tr -d '"')"
