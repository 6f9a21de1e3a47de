#!/usr/bin/env bash
# scripts/tc-plot and scripts/tc-platforms end to end with the real gnuplot:
# the committed results (results/*/ with a meta.json) drawn where this host
# has no run of its own (every platform, said so), an empty results folder
# refused, points run in rounds (tests/data/plot-rounds) drawn, and
# tc-platforms' compare plots with their scripts (--emit-gp). What the
# figures promise (bars and their keys, colours, percentile axes, labels,
# the medians and intervals over rounds) is checked in the data and
# settings by the unit tests: tests/py/test_plot.py, test_platforms.py.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
command -v python3 >/dev/null || skip "python3 missing"
command -v gnuplot >/dev/null || skip "gnuplot missing (scripts/deps.sh installs gnuplot-nox)"

plats=$(cd "$top/results" && for d in */; do d=${d%/}; [ -f "$d/meta.json" ] && ls "$d"/fig*.csv >/dev/null 2>&1 && echo "$d"; done)
[ -n "$plats" ] || skip "no committed results with a meta.json"

# no result for this host: every platform, said so (what make plots does on a fresh clone)
TC_PLATFORM_ID=no-such-platform "$top/scripts/tc-plot" --plots "$TMP/plots" --formats png \
    >"$TMP/plot.out" 2>&1 || fail "tc-plot without a local run: $(tail -5 "$TMP/plot.out")"
grep -q "this host is no-such-platform .*no meta.json.*drawing every platform" "$TMP/plot.out" \
    || fail "tc-plot did not say which platforms it draws and why: $(head -3 "$TMP/plot.out")"
for p in $plats; do
    ls "$TMP/plots/$p/"fig*.png >/dev/null 2>&1 || fail "tc-plot drew nothing for $p"
    ls "$TMP/plots/$p/data/"fig*.set >/dev/null 2>&1 || fail "tc-plot kept no panel settings for $p"
done
mkdir "$TMP/empty"
"$top/scripts/tc-plot" --all --results "$TMP/empty" --plots "$TMP/plots2" >"$TMP/plot2.out" 2>&1 \
    && fail "tc-plot --all on an empty results folder exited 0"
grep -q "no platform folder" "$TMP/plot2.out" || fail "empty results: $(cat "$TMP/plot2.out")"
grep -q "set key outside" "$top/scripts/plots/common.gp" || fail "common.gp: the key is not outside the plot"

# points in rounds: a distribution of round 1, titled so
"$top/scripts/tc-plot" --all --results "$top/tests/data/plot-rounds" --plots "$TMP/fx" --formats svg fig07 fig11 \
    >"$TMP/fx.out" 2>&1 || fail "tc-plot on tests/data/plot-rounds: $(tail -5 "$TMP/fx.out")"
grep -q "round 1 of 3" "$TMP/fx/rounds3/fig11-12-dist-p0-indirect_put.svg" || fail "rounds3: the title lacks 'round 1 of 3'"
grep -q "round 1 of 3" "$TMP/fx/round1/fig11-12-dist-p0-indirect_put.svg" && fail "round1: a one-round title speaks of rounds"

# tc-platforms: the platforms side by side, each compare plot with its script
set -- $(for p in $plats; do echo "$top/results/$p"; done)
[ $# -ge 2 ] || set -- "$top/tests/data/claims/full" "$top/tests/data/claims/noext"
"$top/scripts/tc-platforms" "$@" -o "$TMP/cmp" --emit-gp >"$TMP/cmp.out" 2>&1 || fail "tc-platforms: $(cat "$TMP/cmp.out")"
grep -q '^| [^|]* | \*\*differs\*\* |' "$TMP/cmp/compare.md" || fail "tc-platforms: no row marked as differing"
for f in "$TMP/cmp/"*.png; do
    [ -s "$f.gp" ] || fail "tc-platforms --emit-gp: no script beside $(basename "$f")"
done
ls "$TMP/cmp/"*.dat >/dev/null 2>&1 && fail "tc-platforms left its data files"
echo ok
