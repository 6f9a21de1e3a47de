#!/usr/bin/env bash
# The bench jams as the docs list them, made from a package's manifest (its
# describe lines: tc-pkg's record of each jam's TC_JAM_DESCRIBE), so the
# docs say what the build says:
#   jam-docs.sh table PKG_DIR            a markdown table: jam, what it does, payload, result
#   jam-docs.sh names PKG_DIR            the jams' names: `a`, `b`, ...
#   jam-docs.sh update PKG_DIR FILE...   rewrite each FILE's generated blocks
#   jam-docs.sh check PKG_DIR FILE...    exit 1 with a diff where a FILE's block differs
# A block is the lines between a line holding "<!-- bench-jams table begin"
# (or "names begin") and the next holding "<!-- bench-jams end -->"; what
# goes between them is indented as the begin line is. make docs-jams runs
# update on docs/JAMS.md and README.md; tests/test_jam_docs.sh runs check.
set -euo pipefail
me=jam-docs.sh
usage() { echo "usage: $me table|names PKG_DIR | $me update|check PKG_DIR FILE..." >&2; exit 2; }
[ $# -ge 2 ] || usage
cmd=$1 pkg=$2
shift 2
manifest="$pkg/manifest.tcm"
[ -r "$manifest" ] || { echo "$me: no manifest at $manifest (build the package: make pkg)" >&2; exit 1; }

# the manifest's jams in element order, each with its three texts
jams() { # -> lines "name<TAB>what<TAB>payload<TAB>result" (texts are tab-free: tc_manifest_doc_check)
    awk '
        $1 == "element" && $3 == "jam" { n++; id[n] = $2; name[$2] = $4 }
        $1 == "describe" { t = $0; sub(/^describe [0-9]+ [a-z]+ /, "", t); doc[$2, $3] = t }
        END {
            for (i = 1; i <= n; i++) {
                k = id[i]
                printf "%s\t%s\t%s\t%s\n", name[k],
                    ((k, "what") in doc) ? doc[k, "what"] : "(not described)",
                    ((k, "payload") in doc) ? doc[k, "payload"] : "",
                    ((k, "result") in doc) ? doc[k, "result"] : ""
            }
        }' "$manifest"
}

table() {
    echo "| jam | what it does | payload | result |"
    echo "|---|---|---|---|"
    jams | awk -F '\t' '{
        for (i = 2; i <= 4; i++) gsub(/\|/, "\\|", $i)
        printf "| `%s` | %s | %s | %s |\n", $1, $2, $3, $4
    }'
}

names() {
    jams | awk -F '\t' '{ printf "%s`%s`", (NR > 1) ? ", " : "", $1 } END { print "" }'
}

# FILE with its blocks made anew, to stdout
rewrite() {
    local file=$1
    table >"$tmp/table"
    names >"$tmp/names"
    awk -v tablef="$tmp/table" -v namesf="$tmp/names" -v file="$file" '
        function emit(f, indent,   line) {
            while ((getline line < f) > 0) print indent line
            close(f)
        }
        inside && /<!-- bench-jams end -->/ { inside = 0; print; next }
        inside { next }
        /<!-- bench-jams (table|names) begin/ {
            print
            match($0, /^[ \t]*/)
            indent = substr($0, 1, RLENGTH)
            emit(($0 ~ /bench-jams table begin/) ? tablef : namesf, indent)
            inside = 1; blocks++
            next
        }
        /<!-- bench-jams end -->/ { printf "%s: an end marker without a begin\n", file > "/dev/stderr"; bad = 1 }
        { print }
        END {
            if (inside) { printf "%s: a bench-jams block is not closed\n", file > "/dev/stderr"; bad = 1 }
            if (blocks == 0) { printf "%s: no bench-jams block\n", file > "/dev/stderr"; bad = 1 }
            exit bad
        }' "$file"
}

case $cmd in
table) table ;;
names) names ;;
update|check)
    [ $# -ge 1 ] || usage
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    rc=0
    for f in "$@"; do
        rewrite "$f" >"$tmp/new" || exit 1
        if cmp -s "$f" "$tmp/new"; then
            continue
        fi
        if [ "$cmd" = update ]; then
            cat "$tmp/new" >"$f"
            echo "$me: $f: the bench jams rewritten from $manifest"
        else
            echo "$f: the bench jams differ from what the build's package says ($manifest);" \
                 "make docs-jams rewrites them:"
            diff -u "$f" "$tmp/new" || true
            rc=1
        fi
    done
    exit $rc
    ;;
*) usage ;;
esac
