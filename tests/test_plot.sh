#!/usr/bin/env bash
# scripts/tc-plot and scripts/tc-platforms on the committed results
# (results/*/ with a meta.json): what the figures promise, checked in the
# gnuplot settings they were drawn from (plots/<platform>/data/*.set, and the
# compare plots' scripts from tc-platforms --emit-gp):
# - a panel with error bars says in its key what they span ("bars: min..p99");
# - keys sit outside the plot (common.gp), so they cover no data;
# - no two series of a panel (of a compare plot) share a colour;
# - a latency distribution's percentile axis stops at what its sample count
#   resolves (x = 1/(1-p) <= n: 20,000 samples -> 99.99 at most);
# - long y labels are wrapped to fit the panel;
# - tc-plot without a result for this host draws every platform and says so;
# - tc-platforms' table of the platforms marks the rows that differ.
# Each checker is also run on a doctored copy, which it must reject.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
command -v python3 >/dev/null || skip "python3 missing"
command -v gnuplot >/dev/null || skip "gnuplot missing (scripts/deps.sh installs gnuplot-nox)"

plats=$(cd "$top/results" && for d in */; do d=${d%/}; [ -f "$d/meta.json" ] && ls "$d"/fig*.csv >/dev/null 2>&1 && echo "$d"; done)
[ -n "$plats" ] || skip "no committed results with a meta.json"

# --- no result for this host: every platform, said so (what make plots does on a fresh clone)
TC_PLATFORM_ID=no-such-platform "$top/scripts/tc-plot" --plots "$TMP/plots" --formats png \
    >"$TMP/plot.out" 2>&1 || fail "tc-plot without a local run: $(tail -5 "$TMP/plot.out")"
grep -q "this host is no-such-platform .*no meta.json.*drawing every platform" "$TMP/plot.out" \
    || fail "tc-plot did not say which platforms it draws and why: $(head -3 "$TMP/plot.out")"
for p in $plats; do
    ls "$TMP/plots/$p/"fig*.png >/dev/null 2>&1 || fail "tc-plot drew nothing for $p"
done
mkdir "$TMP/empty"
"$top/scripts/tc-plot" --all --results "$TMP/empty" --plots "$TMP/plots2" >"$TMP/plot2.out" 2>&1 \
    && fail "tc-plot --all on an empty results folder exited 0"
grep -q "no platform folder" "$TMP/plot2.out" || fail "empty results: $(cat "$TMP/plot2.out")"
grep -q "set key outside" "$top/scripts/plots/common.gp" || fail "common.gp: the key is not outside the plot"

cat >"$TMP/check.py" <<'PY'
"""check.py PLOTS RESULTS: the .set files tc-plot wrote; exit 1 naming each problem"""
import csv, glob, os, re, sys
plots, results = sys.argv[1], sys.argv[2]
bad, nbars, ndist = [], 0, 0
for setf in sorted(glob.glob(os.path.join(plots, '*', 'data', '*.set'))):
    text = open(setf).read()
    name = os.path.relpath(setf, plots)
    cols = re.findall(r'^set style line \d+ lc rgb "(#[0-9a-fA-F]{6})"', text, re.M)
    if len(cols) != len(set(cols)):
        bad.append('%s: two series share a colour: %s' % (name, cols))
    nblocks = int(re.search(r'^nblocks = (\d+)', text, re.M).group(1))
    if len(cols) != nblocks:
        bad.append('%s: %d series, %d colours' % (name, nblocks, len(cols)))
    if re.search(r'^bars = 1', text, re.M) and nblocks:
        nbars += 1
        if not re.search(r'^set key title "bars: [a-z0-9]+\.\.[a-z0-9]+"', text, re.M):
            bad.append('%s: error bars, but the key does not say what they span' % name)
    yl = re.search(r'^ylabel = "(.*)"', text, re.M).group(1)
    for line in yl.split('\\n'):
        if len(line) > 42:
            bad.append('%s: y label line of %d characters (clipped): %s' % (name, len(line), line))
    m = re.match(r'(.*)-dist-p(\d+)-.*-\d+\.set$', os.path.basename(setf))
    if m and nblocks:
        ndist += 1
        pid, point = setf.split(os.sep)[-3], m.group(2)
        exp = [e for e in glob.glob(os.path.join(results, pid, '*.dist.csv'))]
        n = max(float(r['iterations']) for e in exp for r in csv.DictReader(open(e[:-9] + '.csv'))
                if r.get('point') == point and r.get('iterations'))
        xr = re.search(r'^set xrange \[1:([0-9.e+]+)\]', text, re.M)
        if not xr or float(xr.group(1)) > n * 1.000001:
            bad.append('%s: percentile axis %s past the sample count %g' % (name, xr and xr.group(1), n))
        ticks = [float(v) for v in re.findall(r'"[0-9.]+" ([0-9.e+]+)', re.search(r'^set xtics .*', text, re.M).group(0))]
        if not ticks or max(ticks) > n * 1.000001:
            bad.append('%s: a percentile tick past the sample count %g: %s' % (name, n, ticks))
        for line in open(setf[:-4] + '.dat'):
            if line[:1] not in '#\n' and float(line.split()[0]) > n * 1.000001:
                bad.append('%s: a point at x = %s past the sample count %g' % (name, line.split()[0], n))
                break
if not nbars:
    bad.append('no panel with error bars at all')
if not ndist:
    bad.append('no distribution panel at all')
print('\n'.join(bad) if bad else 'checked: %d panels with bars, %d distribution panels' % (nbars, ndist))
sys.exit(1 if bad else 0)
PY
python3 "$TMP/check.py" "$TMP/plots" "$top/results" >"$TMP/check.out" 2>&1 || fail "$(head -20 "$TMP/check.out")"
cat "$TMP/check.out"

# the checker rejects what it should: a shared colour, a bar panel without
# its key title, a percentile axis past the samples, an unwrapped label
p1=$(echo "$plats" | head -1)
doctor() { # sed-expression file-glob: a copy of the plots with one .set changed -> checker must fail
    rm -rf "$TMP/doc"; cp -r "$TMP/plots" "$TMP/doc"
    local f; f=$(ls $TMP/doc/$p1/data/$2 | head -1)
    sed -i "$1" "$f"
    python3 "$TMP/check.py" "$TMP/doc" "$top/results" >/dev/null 2>&1 && fail "checker accepted: $1 on $(basename "$f")"
    return 0
}
doctor '0,/^set style line 102 lc rgb "#[0-9a-f]*"/s//set style line 102 lc rgb "#1f77b4"/' 'fig10-placement-rate-1.set'
doctor '/^set key title "bars/d' 'fig07-injected-latency-1.set'
doctor 's/^set xrange \[1:.*\]/set xrange [1:1e6]/' 'fig11-12-dist-p0-*-1.set'
doctor 's/^ylabel = .*/ylabel = "server CPU time per message (ns, thread-cputime: no PMU) and more"/' 'fig13-14-wait-sparse-2.set'

# --- tc-platforms: the platforms' table marks what differs; compare plots' colours
set -- $(for p in $plats; do echo "$top/results/$p"; done)
[ $# -ge 2 ] || set -- "$top/tests/data/claims/full" "$top/tests/data/claims/noext"
"$top/scripts/tc-platforms" "$@" -o "$TMP/cmp" --emit-gp >"$TMP/cmp.out" 2>&1 || fail "tc-platforms: $(cat "$TMP/cmp.out")"
m="$TMP/cmp/compare.md"
for row in "CPU model" "L3 size" "transports" "placement llc" "cache op CLDEMOTE" "wait umwait" "hosts"; do
    grep -q "^| $row | " "$m" || fail "tc-platforms: no '$row' row in the platforms' table"
done
grep -q '^| [^|]* | \*\*differs\*\* |' "$m" || fail "tc-platforms: no row marked as differing"
grep -q '^| arch |  | ' "$m" || fail "tc-platforms: arch (the same on both) not shown as equal"
# a platform differing in its report: the fixture pair differs in arch, wfe, llc
"$top/scripts/tc-platforms" "$top/tests/data/claims/full" "$top/tests/data/claims/noext" -o "$TMP/cmp2" --no-plots \
    >/dev/null || fail "tc-platforms on the fixtures"
for row in "arch" "wait wfe" "placement llc" "CPU model"; do
    grep -q "^| $row | \*\*differs\*\* |" "$TMP/cmp2/compare.md" || fail "tc-platforms: fixtures' '$row' not marked as differing"
done
grep -q "^| placement dram |  | yes | yes |" "$TMP/cmp2/compare.md" || fail "tc-platforms: an equal row marked as differing"
cat >"$TMP/cmpcheck.py" <<'PY'
"""cmpcheck.py DIR: no two series of a compare plot share colour and dash; one colour per variant"""
import glob, re, sys
bad, n = [], 0
for gp in sorted(glob.glob(sys.argv[1] + '/*.gp')):
    n += 1
    s = re.findall(r"lc rgb '(#[0-9a-fA-F]{6})' dt (\d+) pt \d+ title '[^:']*: ([^']*)'", open(gp).read())
    if len({(c, d) for c, d, _ in s}) != len(s):
        bad.append('%s: two series share colour and dash' % gp)
    if len({c for c, _, _ in s}) != len({l for _, _, l in s}):
        bad.append('%s: colours are not one per variant: %s' % (gp, s))
    if re.search(r"set xrange \[", open(gp).read()) is None or 'set rmargin' not in open(gp).read():
        bad.append('%s: no padded x range or right margin (the last tick is clipped)' % gp)
print('\n'.join(bad) or 'checked %d scripts' % n)
sys.exit(1 if bad or not n else 0)
PY
python3 "$TMP/cmpcheck.py" "$TMP/cmp" >"$TMP/cc.out" || fail "$(cat "$TMP/cc.out")"
f=$(ls "$TMP/cmp/"*-jam_lat.png.gp | head -1)
sed -i "0,/lc rgb '#[0-9a-f]*' dt 2/s//lc rgb '#1f77b4' dt 1/" "$f"
sed -i "0,/lc rgb '#[0-9a-f]*' dt 2/s//lc rgb '#1f77b4' dt 1/" "$f"
python3 "$TMP/cmpcheck.py" "$TMP/cmp" >/dev/null && fail "compare checker accepted shared colours in $(basename "$f")"
echo ok
