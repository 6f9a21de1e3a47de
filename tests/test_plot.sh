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
# - tc-platforms' table of the platforms marks the rows that differ;
# - rounds (tests/data/plot-rounds): a point run in 3 rounds is drawn at the
#   median over rounds with the 95% interval over rounds as bars, its key
#   says so, a vs transform divides each round by its own round's reference,
#   a distribution draws round 1; a folder without the round column draws
#   its rows as they are (bars: the row's min..p99); tc-platforms takes the
#   median over rounds of per-round ratios and says the rounds per platform.
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
        if not re.search(r'^set key title "(bars: [a-z0-9]+\.\.[a-z0-9]+|median of [0-9.]+ rounds\\nbars: 95% interval over rounds)"',
                         text, re.M):
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
doctor '/^set key title/d' 'fig07-injected-latency-1.set'
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

# --- rounds. rounds3: point 0 of fig07-08-injected and fig11-12-load in 3
# rounds (rows in the file in round order 2, 3, 1); round1: the same round 1
# without the round column (as results/ older than rounds). p50 (us) by round:
#   local 4 B 1.0 1.2 2.0, injected 4 B 1.3 1.8 2.4, put 4 B 0.5 0.4 0.7
#   local 64 B 3.0 3.3 3.6, injected 64 B 3.3 3.3 3.6, put 64 B 0.8 0.9 1.3
# By hand, t(0.975, 2) = 4.303, bounds exp(m -+ 4.303 s/sqrt(3)) with m and s
# the mean and stdev of the logs (of 1 + overhead/100 for the overhead; a
# linear interval of the values would read 0.085 .. 2.715 for local 4 B):
#   local 4 B: median 1.2 -> 0.548355 .. 3.268983
#   local 64 B: median 3.3 -> 2.623748 .. 4.127651
#   injected 4 B: median 1.8 -> 0.829565 .. 3.808620
#   put 4 B: median 0.5 -> 0.257884 .. 1.045507
#   injected vs local 4 B, per round: 30, 50, 20 % -> median 30 -> 0.253991 ..
#     75.809458 (paired wrongly: a ratio of the medians gives 50, every round
#     against round 1's local 30, 80, 140 -> 80)
#   64 B: 10, 0, 0 % -> median 0 -> -9.961831 .. 18.350057
fx="$top/tests/data/plot-rounds"
"$top/scripts/tc-plot" --all --results "$fx" --plots "$TMP/fx" --formats svg fig07 fig11 >"$TMP/fx.out" 2>&1 \
    || fail "tc-plot on tests/data/plot-rounds: $(tail -5 "$TMP/fx.out")"
cat >"$TMP/rounds.py" <<'PY'
"""rounds.py PLOTS: the drawn points and keys of tests/data/plot-rounds against the values by hand"""
import os, re, sys
plots, bad = sys.argv[1], []
def blocks(path):
    out, cur = {}, None
    for line in open(path):
        if line.startswith('# '):
            cur = out.setdefault(line[2:].strip(), {})
        elif line.strip():
            v = [float(x) for x in line.split()]
            cur[v[0]] = tuple(v[1:])
    return out
want = {
    'rounds3/data/fig07-injected-latency-1.dat': {
        'Local Function': {4: (1.2, 0.548355, 3.268983), 64: (3.3, 2.623748, 4.127651)},
        'Injected Function': {4: (1.8, 0.829565, 3.808620)},
        'raw put (reference)': {4: (0.5, 0.257884, 1.045507)}},
    'rounds3/data/fig07-injected-latency-2.dat': {
        'latency overhead': {4: (30, 0.253991, 75.809458), 64: (0, -9.961831, 18.350057)}},
    # one round, no round column: the row itself, bars its min_us..p99_us; the vs row unbarred
    'round1/data/fig07-injected-latency-1.dat': {
        'Local Function': {4: (1.0, 0.9, 1.5), 64: (3.0, 2.9, 3.5)}, 'raw put (reference)': {4: (0.5, 0.4, 1.0)}},
    'round1/data/fig07-injected-latency-2.dat': {'latency overhead': {4: (30, 30, 30), 64: (10, 10, 10)}},
    # a distribution: round 1's percentiles (round 2's are twice as long)
    'rounds3/data/fig11-12-dist-p0-indirect_put-1.dat': {'default jam_lat': {2: (0.2,) * 3, 10: (0.3,) * 3, 1000: (1.0,) * 3}},
}
for f, series in want.items():
    got = blocks(os.path.join(plots, f))
    for title, pts in series.items():
        for x, exp in pts.items():
            g = got.get(title, {}).get(x)
            if g is None or any(abs(a - b) > 1e-5 * max(1, abs(b)) for a, b in zip(g, exp)):
                bad.append('%s: %s at x=%g: drawn %s, by hand %s' % (f, title, x, g, exp))
rkey = 'set key title "median of 3 rounds\\nbars: 95% interval over rounds"'
for f, key, barred in (('rounds3/data/fig07-injected-latency-1.set', rkey, 1),
                       ('rounds3/data/fig07-injected-latency-2.set', rkey, 1),
                       ('round1/data/fig07-injected-latency-1.set', 'set key title "bars: min..p99"', 1),
                       ('round1/data/fig07-injected-latency-2.set', None, 0)):
    text = open(os.path.join(plots, f)).read()
    if key and key not in text.splitlines():
        bad.append('%s: no key line %s' % (f, key))
    if not key and 'rounds' in text:
        bad.append('%s: a one-round panel speaks of rounds' % f)
    if not re.search(r'^bars = %d$' % barred, text, re.M):
        bad.append('%s: not bars = %d' % (f, barred))
for f, title in (('rounds3/fig11-12-dist-p0-indirect_put.svg', True), ('round1/fig11-12-dist-p0-indirect_put.svg', False)):
    if ('round 1 of 3' in open(os.path.join(plots, f)).read()) != title:
        bad.append('%s: the title %s "round 1 of 3"' % (f, 'lacks' if title else 'has'))
print('\n'.join(bad) if bad else 'rounds: the medians, intervals and keys as by hand')
sys.exit(1 if bad else 0)
PY
python3 "$TMP/rounds.py" "$TMP/fx" >"$TMP/rounds.out" 2>&1 || fail "$(head -20 "$TMP/rounds.out")"
cat "$TMP/rounds.out"
# the rounds checker rejects: a mean for the median, a lost bound, a round-blind key, round 2's distribution
doctor_rounds() { # sed-expression file
    rm -rf "$TMP/fxd"; cp -r "$TMP/fx" "$TMP/fxd"
    sed -i "$1" "$TMP/fxd/$2"
    python3 "$TMP/rounds.py" "$TMP/fxd" >/dev/null 2>&1 && fail "rounds checker accepted: $1 on $2"
    return 0
}
doctor_rounds 's/^4 1.2 /4 1.4 /' rounds3/data/fig07-injected-latency-1.dat
doctor_rounds 's/^4 30 0.25[0-9]* /4 30 30 /' rounds3/data/fig07-injected-latency-2.dat
doctor_rounds 's/^4 30 /4 80 /' rounds3/data/fig07-injected-latency-2.dat
doctor_rounds 's/^set key title .*/set key title "bars: min..p99"/' rounds3/data/fig07-injected-latency-2.set
doctor_rounds 's/^2 0.2 0.2 0.2/2 0.4 0.4 0.4/' rounds3/data/fig11-12-dist-p0-indirect_put-1.dat
doctor_rounds 's/round 1 of 3//' rounds3/fig11-12-dist-p0-indirect_put.svg
# the whole-results checker takes a rounds panel's key as saying what the bars span
python3 "$TMP/check.py" "$TMP/fx" "$fx" >"$TMP/fxcheck.out" 2>&1 || fail "check.py on the rounds fixture: $(head -5 "$TMP/fxcheck.out")"

# tc-platforms: the median over rounds, each round's ratio to its own round's
# put (local 4 B: 2.0, 3.0, 2.857 -> 2.86x; a ratio to the median put, 1.2 / 0.5, would be 2.40x)
"$top/scripts/tc-platforms" "$fx/rounds3" "$fx/round1" -o "$TMP/fxc" --no-plots >"$TMP/fxc.out" 2>&1 \
    || fail "tc-platforms on tests/data/plot-rounds: $(cat "$TMP/fxc.out")"
for line in '| rounds | **differs** | 3 | 1 (no round column) |' \
            '| jam_lat | indirect_put | 4 | local | 1.2 us (2.86x put) | 1 us (2.00x put) |' \
            '| jam_lat | indirect_put | 4 | injected | 1.8 us (3.43x put) | 1.3 us (2.60x put) |' \
            'Rounds per point (values: the median over rounds; ratios: per round, then the median): plot-rounds3 3, plot-round1 1.'; do
    grep -qxF "$line" "$TMP/fxc/compare.md" || fail "tc-platforms on the rounds fixture: no line: $line"
done
echo ok
