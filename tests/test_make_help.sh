#!/usr/bin/env bash
# make help: lists every target the Makefile declares phony (but FORCE) and
# names only variables the Makefile reads; exit 0, nothing built.
. "$(dirname "$0")/lib.sh"
SRC=${TC_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
make -s -C "$SRC" --no-print-directory help >"$TMP/help" 2>"$TMP/err" || fail "make help: $(cat "$TMP/err")"
[ -s "$TMP/help" ] || fail "make help printed nothing"
targets=$(sed -n 's/^\.PHONY: *//p' "$SRC/Makefile" | tr ' ' '\n' | grep -v '^FORCE$' | grep -v '^$' | sort -u)
[ "$(echo "$targets" | wc -l)" -ge 20 ] || fail "too few phony targets read from the Makefile: $targets"
for t in $targets; do
    grep -qE "(^|[ (])$t([ ,:)]|$)" "$TMP/help" || fail "make help does not list target '$t'"
done
vars=$(sed -n '/^Variables/,/^Docs:/p' "$TMP/help" | grep -v -e '^Docs:' -e '^Variables' | grep -oE '\b[A-Z][A-Z_]{1,}\b' | sort -u)
[ -n "$vars" ] || fail "make help names no variable"
for v in $vars; do
    grep -qE "\\\$[({]$v\\b|\\\$\\(if \\\$\\($v\\)|^$v +[?:]?=|\b$v=\\\$\\(" "$SRC/Makefile" "$SRC/tests/run-tests.sh" ||
        fail "make help names $v, which neither the Makefile nor tests/run-tests.sh reads"
done
echo "make help: $(echo "$targets" | wc -l) targets, $(echo "$vars" | wc -w) variables"
