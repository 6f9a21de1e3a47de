"""A panel as tc-plot hands it to gnuplot (scripts/plots/*.gp): its data
(<prefix>-<k>.dat: one block per series, x y low high) and settings
(<prefix>-<k>.set: titles, one palette colour per series, a reference
dashed), the key's margin, and the run of a template."""
import math
import os
import re
import subprocess
import textwrap

from .. import paths
from ..gnuplot import colour, enh, gq, palette

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
    every series title one palette colour: the same series keeps its colour
    across panels and no two series of a panel share one. extra: more gnuplot
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
        ckey = ('ref:' if ref else '') + (b[3] if len(b) > 3 else b[0])
        ci = colormap.setdefault(ckey, len(colormap))   # indices are never reused: distinct
        while ci in used:   # two series of this panel with one color_key: still two colours
            ckey += '+'
            ci = colormap.setdefault(ckey, len(colormap))
        used.add(ci)
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


def key_margin(titles):
    """the right margin (characters of the terminal's font) that holds a key
    of these titles outside the plot, at the key's smaller font"""
    longest = max([len(line) for t in titles for line in t.split('\n')] + [8])
    return int(math.ceil(longest * 0.8 + 7))


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

