"""A latency distribution figure per point (an experiment with "dist":
its .dist.csv): percentile against one-way latency, one panel per payload,
drawn up to the percentile the sample count resolves; a point of several
rounds draws round 1 alone (percentiles of different runs do not pool).
Each raw put (a reference) is dashed in the colour of the jam series it
ran beside; the title is broken to the figure's width."""
import math
import os
import re
import sys

from ..gnuplot import enh, gq
from ..schema import num
from .panel import fit_title, gnuplot, key_margin, subtitle, write_panel, y_axis, y_format

# the columns that tie a distribution row to its latency row (and its sample count)
DIST_KEY = ['point', 'test', 'jam', 'mode', 'payload_bytes', 'wait', 'placement', 'sw_prefetch', 'stress']
DIST_TICKS = [('50', 2), ('90', 10), ('99', 100), ('99.9', 1e3), ('99.99', 1e4), ('99.999', 1e5),
              ('99.9999', 1e6), ('99.99999', 1e7), ('99.999999', 1e8)]


def sample_counts(rows, exp_meta):
    """{DIST_KEY values: samples} from the latency rows' iterations, and
    {point: samples} from each point's -n argument (for rows without one)"""
    by_arg = {}
    for pa in exp_meta.get('point_axes', []) or []:
        args = [str(a) for a in pa.get('args', [])]
        for flag in ('-n', '--iterations'):
            if flag in args[:-1] and num(args[args.index(flag) + 1]):
                by_arg[str(pa.get('point'))] = num(args[args.index(flag) + 1])
    counts = {}
    for r in rows:
        n = num(r.get('iterations'))
        if n:
            counts[tuple(r.get(c, '') for c in DIST_KEY)] = n
    return counts, by_arg


def samples_of(r, counts, by_arg):
    return counts.get(tuple(r.get(c, '') for c in DIST_KEY)) or by_arg.get(str(r.get('point')))


def first_round(prow):
    """(the rows of the point's first round, ', round R of N' or '')"""
    rounds = sorted({r.get('round', '') for r in prow}, key=lambda v: (num(v) is None, num(v) or 0, v))
    if len(rounds) < 2:
        return prow, ''
    return [r for r in prow if r.get('round', '') == rounds[0]], ', round %s of %d' % (rounds[0], len(rounds))


def series_points(grp, n):
    """[(x, latency, latency, latency)] of one series, x = 1/(1-p); with n
    samples the highest percentile they resolve is 1 - 1/n (x = n): the
    points past it are not drawn"""
    pts = []
    for r in grp:
        p, lat = num(r.get('percentile')), num(r.get('latency_us'))
        if p is None or lat is None or p >= 100 or lat <= 0:
            continue
        xv = 1.0 / (1.0 - p / 100.0)
        if n and xv > n * (1 + 1e-9):
            continue
        pts.append((xv, lat, lat, lat))
    return sorted(pts)


def dist_panels(prow, spec, counts, by_arg):
    """[(panel title, blocks, sample count of each block)], a panel per value of panels_by"""
    pby = spec.get('panels_by', 'payload_bytes')
    pvals = []
    for r in prow:
        if r.get(pby) not in pvals:
            pvals.append(r.get(pby))
    panels = []
    for pv in pvals:
        groups = {}
        for r in prow:
            if r.get(pby) == pv:
                groups.setdefault(tuple(r.get(c, '') for c in spec.get('split', ['test'])), []).append(r)
        blocks, ns = [], []
        split = spec.get('split', ['test'])
        for key, grp in groups.items():
            n = samples_of(grp[0], counts, by_arg)
            pts = series_points(grp, n)
            if pts:
                # a put (the reference) dashed in the colour of the jam series
                # of its placement: each reference told apart by its series
                ckey = ' '.join(k for c, k in zip(split, key) if c != 'test') or None
                blocks.append((' '.join(key), grp[0].get('test', '').startswith('put'), pts, ckey))
                ns.append(n)
        panels.append(('%s %s' % (pv, 'B' if pby == 'payload_bytes' else ''), blocks, ns))
    return panels


def percentile_axis(panels, name):
    """(the x axis' gnuplot lines, the key's title): up to the most samples of a series"""
    known = [n for p in panels for n in p[2] if n]
    if len(known) < sum(len(p[2]) for p in panels):
        print('tc-plot: %s: no sample count for some series (no iterations column, no -n): '
              'their percentile axis is not bounded by it' % name, file=sys.stderr)
    xmax = max(known) if known else DIST_TICKS[-1][1]
    ticks = [t for t in DIST_TICKS if t[1] <= xmax * (1 + 1e-9)]
    lo_n = min(known) if known else None
    ktitle = ('n = %d per series' % lo_n if lo_n == xmax else 'n = %d..%d per series' % (lo_n, xmax)) \
        if known else 'n unknown'
    return ['set xrange [1:%.9g]' % xmax,
            'set xtics (%s)' % ', '.join('%s %g' % (gq(t), v) for t, v in ticks),
            'set key title %s' % gq(ktitle)], ktitle


def plot_dist(exp, drows, meta, exp_meta, platform_id, outdir, datadir, formats, log, rows=()):
    """a distribution figure per point of drows (the .dist.csv); rows: the
    latency rows (their sample counts); -> the figures drawn"""
    spec = exp.get('dist_plots') or {}
    if not drows:
        return []
    counts, by_arg = sample_counts(rows, exp_meta)
    made = []
    # a figure per point: drop the previous run's, whose points may differ
    stem = spec.get('file', exp['name'] + '-dist') + '-p'
    for d in (outdir, datadir):
        for fn in os.listdir(d):
            if fn.startswith(stem):
                os.remove(os.path.join(d, fn))
    axes = {str(p['point']): p['axes'] for p in exp_meta.get('point_axes', [])}
    points = []
    for r in drows:
        if r['point'] not in points:
            points.append(r['point'])
    for pt in points:
        prow, rtag = first_round([r for r in drows if r['point'] == pt])
        ax = axes.get(pt, {})
        tag = '-'.join(str(v) for v in ax.values() if v not in (None, False, '')) or 'p'
        name = '%s-p%s-%s' % (spec.get('file', exp['name'] + '-dist'), pt, re.sub(r'[^A-Za-z0-9_.-]+', '_', tag))
        prefix = os.path.join(datadir, name)
        panels = dist_panels(prow, spec, counts, by_arg)
        extra, ktitle = percentile_axis(panels, name)
        margin = key_margin([b[0] for p in panels for b in p[1]], [ktitle])
        colormap = {}
        for k, (ptitle, blocks, ns) in enumerate(panels, 1):
            write_panel(prefix, k, ptitle, 'one-way latency (us)', 10, blocks, False, colormap,
                        extra + y_format(blocks, 10) + y_axis(blocks, 10))
        ncols = min(3, len(panels))
        nrows = int(math.ceil(len(panels) / float(ncols)))
        title = '%s, point %s (%s)%s' % (
            spec.get('title', exp['name'] + ': latency distribution'), pt,
            ', '.join('%s=%s' % (a, 'none' if v is None else v) for a, v in ax.items()), rtag)
        width = (460 + 6 * margin) * ncols + 80
        title = fit_title(title, width)
        variables = {'data': prefix, 'npanels': len(panels), 'nrows': nrows, 'ncols': ncols,
                     'figtitle': enh(title), 'subtitle': subtitle(meta, exp_meta, platform_id),
                     'xlabel': 'percentile (x = 1/(1-p), log)', 'logx': 10, 'xfmt': '%g',
                     'keymargin': margin, 'width': width, 'height': 300 * nrows + 90 + 16 * title.count('\n')}
        outbase = os.path.join(outdir, name)
        if gnuplot('dist.gp', variables, outbase, formats, log):
            made.append(outbase)
    return made
