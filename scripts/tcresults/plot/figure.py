"""A paper figure: the panels of one "plots" entry of an experiment
definition, each panel's series from the rows (a point over its rounds:
the median and the 95% interval over rounds; of one round: the row itself
with its own bars columns), written for scripts/plots/figure.gp."""
import os

from .. import stats
from ..gnuplot import enh
from ..schema import num
from .panel import bars_title, gnuplot, key_margin, subtitle, wrap_label, write_panel
from .spec import CONTEXT, POINT_KEY, fmt_title, match, series_of

# a vs transform's value -> the positive ratio behind it, and back
TO_RATIO = {'overhead_pct': stats.OVER_PCT, 'loss_pct': stats.LOSS_PCT}
IDENTITY = stats.RATIO
TRANSFORMS = {'overhead_pct': lambda y, b: (y / b - 1) * 100, 'loss_pct': lambda y, b: (1 - y / b) * 100,
              'ratio': lambda y, b: y / b}


def y_column(rows, row_spec):
    """(y column, y label): cycles where a PMU counted, else the honest
    fallback column and its label"""
    ycol = row_spec['y']
    ylabel = row_spec.get('ylabel', ycol)
    if row_spec.get('y_fallback') and not any(num(r.get(ycol)) is not None for r in rows):
        ycol = row_spec['y_fallback']
        src = next((r.get('cycles_source') for r in rows if r.get('cycles_source')), 'no PMU')
        ylabel = fmt_title(row_spec.get('ylabel_fallback', ycol), {'cycles_source': src})
    return ycol, ylabel


def row_values(grp, spec, x, ycol, bars, scale, all_rows):
    """[(row, x, y, low, high)] of one series' rows, y transformed: divided
    by the reference row of the same invocation (vs: the same point and
    round, and context), so a round is divided by itself"""
    vals = []
    vs = spec.get('vs')
    for r in grp:
        xv, yv = num(r.get(x)), num(r.get(ycol))
        if xv is None or yv is None:
            continue
        if vs:
            if spec.get('skip_same') and match(r, vs):
                continue
            ctx = [c for c in CONTEXT + [x, 'round'] if c not in vs]
            base = [b for b in all_rows if match(b, vs) and all(b.get(c, '') == r.get(c, '') for c in ctx)]
            bv = num(base[0].get(ycol)) if base else None
            if not bv:
                continue
            yv = TRANSFORMS[spec.get('transform', 'ratio')](yv, bv)
            vals.append((r, xv, yv, yv, yv))
            continue
        lo = hi = yv
        if bars:
            lo, hi = num(r.get(bars[0])), num(r.get(bars[1]))
            lo = yv if lo is None else lo
            hi = yv if hi is None else hi
        vals.append((r, xv, yv * scale, lo * scale, hi * scale))
    return vals


def points_over_rounds(vals, spec, nrounds):
    """[(x, y, low, high)]: a point of several rounds at the median over
    them with the 95% interval (nrounds gets its round count), a point of
    one round as its rows are"""
    points = {}
    for v in vals:
        points.setdefault((v[1],) + tuple(v[0].get(c, '') for c in POINT_KEY), []).append(v)
    scale = TO_RATIO.get(spec.get('transform'), IDENTITY) if spec.get('vs') else IDENTITY
    pts = []
    for key, pv in points.items():
        rounds = {v[0].get('round', '') for v in pv}
        if len(rounds) > 1:
            nrounds.add(len(rounds))
            pts.append((key[0],) + stats.median_interval([v[2] for v in pv], scale))
        else:
            pts += [v[1:] for v in pv]
    return sorted(pts)


def panel_data(rows, row_spec, x, all_rows):
    """blocks for one panel: [(title, ref, [(x, y, lo, hi)], ckey)], the key's
    title (what y and the bars are; None: no bars) and the y label.

    A point measured in several rounds (the round column: each round its own
    invocation) is drawn at the median over its rounds, with the 95% interval
    over rounds as its bars; a point of one round (or a folder without the
    column) as the row it is, with the row's own bars columns."""
    ycol, ylabel = y_column(rows, row_spec)
    scale = float(row_spec.get('scale', 1.0))
    bars = row_spec.get('bars')
    blocks, nrounds = [], set()
    for spec in row_spec['series']:
        for title, ref, grp, ckey in series_of(rows, spec):
            pts = points_over_rounds(row_values(grp, spec, x, ycol, bars, scale, all_rows), spec, nrounds)
            if pts:
                blocks.append((title, ref, pts, ckey))
    if nrounds:
        r = '%d' % min(nrounds) if len(nrounds) == 1 else '%d..%d' % (min(nrounds), max(nrounds))
        return blocks, 'median of %s rounds\nbars: 95%% interval over rounds' % r, ylabel
    has_bars = bool(bars) and not any(s.get('vs') for s in row_spec['series'])
    return blocks, bars_title(bars) if has_bars else None, ylabel


def panels_of(pl, base, x):
    """(panels: [(title, y label, logy, blocks, bars)], columns) of one
    figure: a row of panels per row spec, a column per value of panels_by"""
    pby = pl.get('panels_by')
    pvals = []
    if pby:
        for r in base:
            if r.get(pby, '') not in pvals and r.get(pby, ''):
                pvals.append(r.get(pby, ''))
    cols = pvals or [None]
    panels = []
    for ri, rs in enumerate(pl['rows']):
        for cv in cols:
            prow = [r for r in base if cv is None or r.get(pby) == cv]
            blocks, bars, ylabel = panel_data(prow, rs, x, base)
            ptitle = ('%s' % cv) if cv is not None and ri == 0 else ''
            panels.append((ptitle, ylabel, rs.get('logy', 0), blocks, bars))
    return panels, cols


def plot_experiment(exp, rows, meta, exp_meta, platform_id, outdir, datadir, formats, log):
    """every figure of one experiment; -> the figures drawn (paths without extension)"""
    made = []
    for pl in exp.get('plots', []):
        base = [r for r in rows if match(r, pl.get('filter'))]
        x = pl.get('x', 'payload_bytes')
        panels, cols = panels_of(pl, base, x)
        prefix = os.path.join(datadir, pl['file'])
        # every key outside its panel, right of it (it covers no data), in one
        # right margin for the whole figure so the panels of a column align
        margin = key_margin([b[0] for p in panels for b in p[3]] + [p[4] for p in panels if p[4]])
        colormap = {}
        for k, (ptitle, ylabel, logy, blocks, bars) in enumerate(panels, 1):
            # a y label longer than the panel is tall goes on two lines
            write_panel(prefix, k, ptitle, wrap_label(ylabel, 38), logy, blocks, bars, colormap)
        nrows = len(pl['rows'])
        variables = {'data': prefix, 'npanels': len(panels), 'nrows': nrows, 'ncols': len(cols),
                     'figtitle': enh(pl.get('title', pl['file'])),
                     'subtitle': subtitle(meta, exp_meta, platform_id),
                     'xlabel': enh(pl.get('xlabel', x)), 'logx': int(pl.get('logx', 0)),
                     'xfmt': '%.0b%BB' if x == 'payload_bytes' else '%g', 'keymargin': margin,
                     'width': max(760, (540 + 6 * margin) * len(cols) + 60), 'height': 300 * nrows + 90}
        outbase = os.path.join(outdir, pl['file'])
        if gnuplot('figure.gp', variables, outbase, formats, log):
            made.append(outbase)
    return made
