"""A panel as tc-plot hands it to gnuplot (scripts/plots/*.gp): its data
(<prefix>-<k>.dat: one block per series, x y low high) and settings
(<prefix>-<k>.set: titles, one palette colour per series, a reference
dashed in the colour of the series it serves, the x axis: ticks at the
measured values, a range padded past them; a y range from the medians
where asked; horizontal reference lines), the key's margin, a title that
fits the figure, and the run of a template."""
import math
import os
import re
import subprocess
import textwrap

from .. import paths
from ..gnuplot import colour, enh, gq, palette
from ..schema import size_label

POINTS = [7, 5, 9, 11, 13, 15, 4, 6, 8, 10, 12, 14]
PALETTE = palette()


def bars_title(bars):
    """what a panel's error bars span, for its key: ['min_us', 'p99_us'] -> 'bars: min..p99'"""
    short = [re.sub(r'_(us|ns|mps)$', '', c) for c in bars]
    return 'bars: %s..%s' % (short[0], short[1])


def wrap_label(s, width):
    """a long axis label on two or more lines (before a parenthesis, else at spaces)"""
    if len(s) <= width:
        return s
    i = s.find(' (')
    parts = [s[:i], s[i + 1:]] if 0 < i else [s]
    out = []
    for part in parts:
        out += textwrap.wrap(part, width) or ['']
    return '\n'.join(out)


def write_panel(prefix, k, ptitle, ylabel, logy, blocks, bars, colormap=None, extra=()):
    """<prefix>-<k>.dat and .set; colormap (shared by a figure's panels) gives
    every colour key one palette colour: the same series keeps its colour
    across panels and no two series of a panel share colour and dash (a
    reference may share its series' colour, dashed). extra: more gnuplot
    lines for the .set (key title, ranges, tics)."""
    colormap = {} if colormap is None else colormap
    with open('%s-%d.dat' % (prefix, k), 'w') as f:
        for i, b in enumerate(blocks):
            title, pts = b[0], b[2]
            if i:
                f.write('\n\n')
            f.write('# %s\n' % title)
            for p in pts:
                f.write('%.9g %.9g %.9g %.9g\n' % p)
    lines = ['ptitle = %s' % gq(enh(ptitle)), 'ylabel = %s' % gq(enh(ylabel)),
             'logy = %d' % (logy or 0), 'nblocks = %d' % len(blocks), 'bars = %d' % (1 if bars else 0)]
    if blocks:
        lines.append('array titles[%d] = [%s]' % (len(blocks), ', '.join(gq(enh(b[0])) for b in blocks)))
    nonref, used = 0, set()
    for i, b in enumerate(blocks):
        title, ref = b[0], b[1]
        # a colour key of its own (b[3]) puts a reference in the colour of
        # the series it serves (dashed, so the two stay apart); without one
        # a reference never shares a measured series' colour
        ckey = b[3] if len(b) > 3 and b[3] else ('ref:' if ref else '') + b[0]
        ci = colormap.setdefault(ckey, len(colormap))   # indices are never reused: distinct
        while (ci, ref) in used:   # two series of this panel alike in colour and dash: still two colours
            ckey += '+'
            ci = colormap.setdefault(ckey, len(colormap))
        used.add((ci, ref))
        # dashed with a plain point: a reference; solid with a marker: a measured series
        lines.append('set style line %d lc rgb %s dt %d lw 1.5 pt %d' % (
            101 + i, gq(colour(ci, PALETTE)), 2 if ref else 1, 1 if ref else POINTS[nonref % len(POINTS)]))
        if not ref:
            nonref += 1
    if bars and blocks:
        lines.append('set key title %s' % gq(bars if isinstance(bars, str) else 'bars: min..max'))
    lines += list(extra)
    with open('%s-%d.set' % (prefix, k), 'w') as f:
        f.write('\n'.join(lines) + '\n')


def key_margin(entries, key_titles=()):
    """the right margin (characters of the terminal's font) that holds a key
    outside the plot: gnuplot sizes an entry as its title, the sample and
    gaps in the terminal font's characters (not the key's smaller font);
    the key's title lines (bars, rounds) are at the key's font"""
    longest = max([len(line) for t in entries for line in t.split('\n')] + [1])
    ktitle = max([len(line) for t in key_titles if t for line in t.split('\n')] + [1])
    return int(math.ceil(max(longest + 7, ktitle * 0.8 + 5, 14)))


def gnuplot(template, variables, outbase, formats, log):
    """draws outbase.<format> for each format with the template
    (scripts/plots/TEMPLATE) and variables; what gnuplot said goes to log;
    False where it failed"""
    ok = True
    for fmt in formats:
        v = dict(variables, term=fmt, out='%s.%s' % (outbase, fmt), plotdir=paths.PLOT_DIR)
        expr = '; '.join('%s=%s' % (k, gq(val) if isinstance(val, str) else repr(val)) for k, val in v.items())
        r = subprocess.run(['gnuplot', '-e', expr, os.path.join(paths.PLOT_DIR, template)],
                           capture_output=True, text=True)
        if r.returncode != 0 or (r.stderr.strip() and 'warning' not in r.stderr.lower()):
            ok = r.returncode == 0
            log.append('%s.%s: %s' % (os.path.basename(outbase), fmt, r.stderr.strip()[-800:]))
    return ok


def subtitle(meta, exp_meta, platform_id):
    """a figure's second title line: platform, preset, date, revision"""
    return enh('%s | preset %s | %s | rev %s' % (platform_id, exp_meta.get('preset', meta.get('preset', '?')),
                                                exp_meta.get('date', meta.get('date', '')),
                                                exp_meta.get('git_rev', meta.get('git_rev', '?'))))



# ticks at every measured x up to this many values, else gnuplot's own
MAX_XTICKS = 12


def x_tick_label(xcol, v):
    """a tick's label: a payload with its unit (64 B, 4 KiB), a count of
    thousands as 1k, 10k, 1M, else the number"""
    if xcol == 'payload_bytes':
        return size_label(v)
    if v >= 1000 and v == int(v):
        for div, suffix in ((1000000, 'M'), (1000, 'k')):
            if int(v) % div == 0:
                return '%d%s' % (int(v) // div, suffix)
    return '%g' % v


def x_axis(xspec, blocks):
    """the .set lines of a panel's x axis: its label and log base (plogx,
    pxlabel), lines or points (lines), a range padded past the points so
    none sits on the border, and a tick at every measured x (a categorical
    or ordinal axis: its values at even steps)"""
    xs = sorted({p[0] for b in blocks for p in b[2]})
    out = ['pxlabel = %s' % gq(enh(xspec.get('xlabel', xspec['x']))), 'lines = %d' % (0 if xspec.get('points') else 1)]
    labels = xspec.get('labels')   # {position: label} of an ordinal or categorical axis
    if labels:
        out += ['plogx = 0', 'set xrange [0.5:%g]' % (max(labels) + 0.5),
                'set xtics (%s)' % ', '.join('%s %g' % (gq(labels[k]), k) for k in sorted(labels))]
        return out
    logx = int(xspec.get('logx', 0) or 0)
    out.append('plogx = %d' % logx)
    if not xs:
        return out
    if logx > 0 and xs[0] > 0:
        out.append('set xrange [%.9g:%.9g]' % (xs[0] / 1.3, xs[-1] * 1.3))
    else:
        span = (xs[-1] - xs[0]) or max(1.0, abs(xs[0]))
        out.append('set xrange [%.9g:%.9g]' % (xs[0] - 0.05 * span, xs[-1] + 0.05 * span))
    if len(xs) <= MAX_XTICKS:
        out.append('set xtics (%s)' % ', '.join('%s %.9g' % (gq(x_tick_label(xspec['x'], x)), x) for x in xs))
    return out


def y_from_medians(blocks, refs=()):
    """(low, high) of a y axis that the medians (and the reference lines)
    set, not the bars: one series far off, or one round's wide interval,
    would flatten what the panel is about (bars past it are clipped)"""
    ys = [p[1] for b in blocks for p in b[2]] + [r['y'] for r in refs]
    if not ys:
        return None
    lo, hi = min(ys), max(ys)
    pad = 0.15 * ((hi - lo) or max(1.0, abs(hi)))
    return lo - pad, hi + pad


def ref_lines(refs):
    """the .set lines of a panel's horizontal reference lines (a bound the
    paper gives: [{"y": 1.5, "title": ...}])"""
    if not refs:
        return []
    return ['nrefs = %d' % len(refs),
            'array refy[%d] = [%s]' % (len(refs), ', '.join('%.9g' % r['y'] for r in refs)),
            'array reftitles[%d] = [%s]' % (len(refs), ', '.join(gq(enh(r['title'])) for r in refs))]


def fit_title(title, width_px, char_px=8.0):
    """a figure's title on as many lines as the figure's width needs (at
    the title font's width per character), broken at ', ' or spaces"""
    width = max(20, int(width_px / char_px))
    if len(title) <= width:
        return title
    lines, cur = [], ''
    for word in re.split(r'(?<=,) ', title):
        for piece in ([word] if len(word) <= width else textwrap.wrap(word, width)):
            if cur and len(cur) + 1 + len(piece) > width:
                lines.append(cur)
                cur = piece
            else:
                cur = (cur + ' ' + piece) if cur else piece
    return '\n'.join(lines + [cur])


def y_format(blocks, logy):
    """the .set line of a log y axis' tick format: powers of ten (10^6)
    where values reach 10^5, whose %g would read 1e+06"""
    ys = [v for b in blocks for p in b[2] for v in p[1:] if v and v > 0]
    if logy and ys and (max(ys) >= 1e5 or min(ys) < 1e-3):
        return ["pyfmt = '10^{%T}'"]
    return []


def nice(v, up):
    """the 1-2-5 value (x 10^k) at or below v (up: at or above)"""
    k = math.floor(math.log10(v))
    steps = [m * 10 ** e for e in (k - 1, k, k + 1) for m in (1, 2, 5)]
    return min(x for x in steps if x >= v * (1 - 1e-9)) if up else max(x for x in steps if x <= v * (1 + 1e-9))


def y_axis(blocks, logy):
    """the .set lines of a panel's y range: past its points and bars (none
    on the border, which gnuplot's autoscale leaves where a value is on a
    tick); a log axis from a 1-2-5 value to one, ticked at each where it
    spans under two decades (gnuplot's own: a tick per decade, often one)"""
    vals = [v for b in blocks for p in b[2] for v in p[1:] if v is not None]
    if logy:
        vals = [v for v in vals if v > 0]
        if not vals:
            return []
        lo, hi = nice(min(vals) / 1.2, False), nice(max(vals) * 1.2, True)
        out = ['set yrange [%.9g:%.9g]' % (lo, hi)]
        if hi / lo < 100:
            ticks = [m * 10 ** e for e in range(int(math.floor(math.log10(lo))), int(math.ceil(math.log10(hi))) + 1)
                     for m in (1, 2, 5) if lo * (1 - 1e-9) <= m * 10 ** e <= hi * (1 + 1e-9)]
            out.append('set ytics (%s)' % ', '.join('%s %.9g' % (gq('%g' % t), t) for t in ticks))
        return out
    if not vals:
        return []
    lo, hi = min(vals), max(vals)
    pad = 0.06 * ((hi - lo) or max(1.0, abs(hi)))
    return ['set yrange [%.9g:%.9g]' % (lo - pad, hi + pad)]
