#!/usr/bin/env bash
# make uninstall takes back exactly what make install put, with PREFIX and
# DESTDIR as install had them: the prefix then holds nothing of ours (no
# file, no twochains directory), and what else was there stays.
. "$(dirname "$0")/lib.sh"
SRC=${TC_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
# the tree make check just built (BUILD as make knows it: its dependency files name it so)
build=$(realpath --relative-to="$SRC" "$TC_BUILD")
mk() { make -C "$SRC" --no-print-directory BUILD="$build" SAN="${SAN:-}" "$@"; }

for dest in "" "$TMP/dest"; do
    prefix="$TMP/prefix"
    root="$dest$prefix"
    rm -rf "$TMP/dest" "$prefix"
    mkdir -p "$root/bin" "$root/share/doc"
    echo theirs >"$root/bin/someone-elses-tool"
    echo theirs >"$root/share/doc/README"
    mk install PREFIX="$prefix" DESTDIR="$dest" >"$TMP/install.log" 2>&1 ||
        fail "make install DESTDIR=$dest: $(tail -20 "$TMP/install.log")"
    n=$(find "$root" \( -type f -o -type l \) | grep -vc -e someone-elses-tool -e share/doc/README)
    [ "$n" -ge 20 ] || fail "make install DESTDIR=$dest put only $n files: $(find "$root")"
    [ -e "$root/share/twochains/pkg/bench/manifest.tcm" ] && [ -L "$root/lib/libtwochains.so" ] &&
        [ -e "$root/include/twochains/tc_jam.h" ] || fail "make install DESTDIR=$dest: $(find "$root")"

    mk uninstall PREFIX="$prefix" DESTDIR="$dest" >"$TMP/uninstall.log" 2>&1 ||
        fail "make uninstall DESTDIR=$dest: $(tail -20 "$TMP/uninstall.log")"
    left=$(find "$root" \( -type f -o -type l -o -name '*twochains*' \) | grep -v -e someone-elses-tool -e share/doc/README)
    [ -z "$left" ] || fail "make uninstall DESTDIR=$dest left: $left"
    [ "$(cat "$root/bin/someone-elses-tool" "$root/share/doc/README")" = "theirs
theirs" ] || fail "make uninstall DESTDIR=$dest took what was not ours"
    ! grep -q "kept" "$TMP/uninstall.log" || fail "make uninstall: $(grep kept "$TMP/uninstall.log")"
    mk uninstall PREFIX="$prefix" DESTDIR="$dest" >"$TMP/uninstall.log" 2>&1 ||
        fail "a second make uninstall: $(tail -5 "$TMP/uninstall.log")"
done

# a file of someone else's in a directory of ours keeps it (said, not removed)
prefix="$TMP/prefix2"
mk install PREFIX="$prefix" >"$TMP/install.log" 2>&1 || fail "make install: $(tail -20 "$TMP/install.log")"
echo mine >"$prefix/share/twochains/pkg/bench/my-notes.txt"
mk uninstall PREFIX="$prefix" >"$TMP/uninstall.log" 2>&1 || fail "make uninstall: $(tail -20 "$TMP/uninstall.log")"
[ "$(find "$prefix" -type f)" = "$prefix/share/twochains/pkg/bench/my-notes.txt" ] ||
    fail "make uninstall with a foreign file: $(find "$prefix" -type f)"
grep -q "share/twochains/pkg/bench kept: it holds files not installed here" "$TMP/uninstall.log" ||
    fail "make uninstall did not say why it kept the package directory: $(cat "$TMP/uninstall.log")"
echo ok
