#!/usr/bin/env bash
# libtwochains.so exports its API and nothing else: the functions and
# objects the installed headers declare (make install into a prefix, every
# header there), the globals of lib/twochains.map and the dynamic symbols
# the library defines are the same three sets; then a program that includes
# every installed header, built -fvisibility=hidden against the installed
# tree alone, links and runs a call from each header.
. "$(dirname "$0")/lib.sh"
SRC=${TC_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
[ -n "${SAN:-}" ] && skip "sanitizer build: the runtime adds its own symbols to every link"

prefix="$TMP/prefix"
build=$(realpath --relative-to="$SRC" "$TC_BUILD")
make -C "$SRC" --no-print-directory install BUILD="$build" PREFIX="$prefix" \
    >"$TMP/install.log" 2>&1 || fail "make install: $(tail -20 "$TMP/install.log")"
so="$prefix/lib/libtwochains.so.0"
[ -f "$so" ] || fail "no $so after make install"

# every installed header, included by one translation unit
headers=$(cd "$prefix/include" && find . -name '*.h' | sed 's|^\./||' | sort)
[ -n "$headers" ] || fail "no headers under $prefix/include"
for h in $headers; do echo "#include <$h>"; done >"$TMP/all.c"
echo 'int main(void) { return 0; }' >>"$TMP/all.c"

# declared: gcc's own list of every function prototype (-aux-info), less
# the static inline ones, plus the objects declared extern
cc -std=gnu11 -I"$prefix/include" -I"$prefix/include/twochains" -aux-info "$TMP/aux" \
    -c "$TMP/all.c" -o "$TMP/all.o" 2>"$TMP/aux.err" || fail "headers do not compile: $(cat "$TMP/aux.err")"
grep -F "$prefix/include" "$TMP/aux" | grep -v ' static ' |
    sed -E 's/^.*\*\/ //; s/ \(.*//; s/.*[ *]//' >"$TMP/declared"
cat $(for h in $headers; do echo "$prefix/include/$h"; done) |
    sed -nE 's/^extern [^(]*[ *]([A-Za-z_][A-Za-z0-9_]*)( *\[[^]]*\])? *;.*/\1/p' >>"$TMP/declared"
sort -u "$TMP/declared" -o "$TMP/declared"
[ "$(wc -l <"$TMP/declared")" -ge 100 ] || fail "only $(wc -l <"$TMP/declared") declarations found: the scan is broken"

# exported: what the library defines in its dynamic symbol table
nm -D --defined-only "$so" | awk '$2 ~ /^[TDBRVW]$/ { sub(/@.*/, "", $3); print $3 }' |
    sort -u >"$TMP/exported"
# the version script's globals
sed -n '/global:/,/local:/p' "$SRC/lib/twochains.map" | grep -oE '^ +[A-Za-z_][A-Za-z0-9_]*;' |
    tr -d ' ;' | sort -u >"$TMP/mapped"

diff "$TMP/declared" "$TMP/exported" >"$TMP/d1"
[ -s "$TMP/d1" ] && fail "installed headers (<) and exported symbols (>) differ:
$(cat "$TMP/d1")"
diff "$TMP/declared" "$TMP/mapped" >"$TMP/d2"
[ -s "$TMP/d2" ] && fail "installed headers (<) and lib/twochains.map (>) differ:
$(cat "$TMP/d2")"
n=$(wc -l <"$TMP/exported")

# every exported symbol carries the version node
nm -D --defined-only "$so" | awk '$2 ~ /^[TDBR]$/' | grep -v '@@TWOCHAINS_' >"$TMP/unversioned"
[ -s "$TMP/unversioned" ] && fail "exported without a version: $(head -5 "$TMP/unversioned")"

# a program on the installed tree alone, built as strictly as a user might
cat >"$TMP/user.c" <<'C'
#include <twochains.h>
#include <twochains/tc_jam.h>
#include <twochains/group.h>
#include <twochains/mcast.h>
#include <twochains/mcast_env.h>
#include <twochains/mcast_fwd.h>
#include <string.h>
int main(void)
{
    tc_context_params_t params;
    tc_group_params_t gp;
    tc_context_params_init(&params);
    if (strcmp(tc_status_str(TC_ERR_TIMEOUT), "timed out") != 0) return 1;
    if (tc_mcast_ops_tree.name == NULL) return 2;
    memset(&gp, 0, sizeof(gp));
    return (params.slots > 0) ? 0 : 3;
}
C
cc -std=gnu11 -Wall -Wextra -Werror -fvisibility=hidden -I"$prefix/include" "$TMP/user.c" \
    -o "$TMP/user" -L"$prefix/lib" -ltwochains -Wl,-rpath,"$prefix/lib" 2>"$TMP/user.err" ||
    fail "a program on the installed headers: $(cat "$TMP/user.err")"
"$TMP/user" || fail "the program on the installed library exited $?"
echo "exports: $n symbols, each declared in an installed header and named in lib/twochains.map"
