"""A paper figure: the panels of one "plots" entry of an experiment
definition, each panel's series from the rows (a point over its rounds:
the median and the 95% interval over rounds; of one round: the row itself
with its own bars columns), written for scripts/plots/figure.gp.

A figure is a grid: a row of panels per row spec, a column per value of
panels_by, or per entry of "columns" (each its own x axis, filter and
series over the same rows: e.g. the payload sweep beside one payload's
placements, no load against stress-ng). An x axis is numeric (linear or
log), "ordinal" (numeric values at even steps) or categorical (a column of
names, in "x_order")."""
import os

from .. import stats
from ..gnuplot import enh, gq
from ..schema import num
from .panel import (bars_title, fit_title, gnuplot, key_margin, ref_lines, subtitle, wrap_label, write_panel,
                    x_axis, y_axis, y_format, y_from_medians)
from .spec import CONTEXT, POINT_KEY, fmt_title, match, series_of

# a vs transform's value -> the positive ratio behind it, and back
TO_RATIO = {'overhead_pct': stats.OVER_PCT, 'loss_pct': stats.LOSS_PCT}
IDENTITY = stats.RATIO
TRANSFORMS = {'overhead_pct': lambda y, b: (y / b - 1) * 100, 'loss_pct': lambda y, b: (1 - y / b) * 100,
              'ratio': lambda y, b: y / b}
# the offset between the series of a categorical panel (in steps), so that
# their bars do not hide each other
DODGE, DODGE_OCTAVES = 0.09, 0.12


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


class XSpec:
    """A panel's x: its column, label, log base, and for an ordinal or
    categorical axis each value's position (1, 2, ...) and tick label."""

    def __init__(self, spec, rows):
        self.col = spec.get('x', 'payload_bytes')
        self.spec = dict(spec, x=self.col)
        self.pos = None
        if spec.get('x_order') is not None or spec.get('xscale') == 'ordinal':
            if spec.get('x_order') is not None:   # the categories these rows have, in this order
                vals = [str(v) for v in spec['x_order'] if any(r.get(self.col, '') == str(v) for r in rows)]
            else:
                vals = sorted({r.get(self.col, '') for r in rows if num(r.get(self.col)) is not None}, key=num)
            self.pos = {v: i + 1 for i, v in enumerate(vals)}
            self.spec['labels'] = {i + 1: v for i, v in enumerate(vals)}

    def value(self, r):
        """row r's x (its position on an ordinal or categorical axis); None: not on this axis"""
        if self.pos is not None:
            return self.pos.get(str(r.get(self.col, '')))
        return num(r.get(self.col))


def row_values(grp, spec, xs, ycol, bars, scale, all_rows):
    """[(row, x, y, low, high)] of one series' rows, y transformed: divided
    by the reference row of the same invocation (vs: the same point and
    round, and context), so a round is divided by itself"""
    vals = []
    vs = spec.get('vs')
    for r in grp:
        xv, yv = xs.value(r), num(r.get(ycol))
        if xv is None or yv is None:
            continue
        if vs:
            if spec.get('skip_same') and match(r, vs):
                continue
            ctx = [c for c in CONTEXT + [xs.col, 'round'] if c not in vs]
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


def spread(blocks):
    """whether any point's rounds differ (a deterministic quantity, a
    simulation or a tree's depth, is the same in every round: no interval)"""
    return any(abs(p[2] - p[1]) > 1e-9 * max(1.0, abs(p[1])) or abs(p[3] - p[1]) > 1e-9 * max(1.0, abs(p[1]))
               for b in blocks for p in b[2])


def dodged(blocks, logx=0):
    """the blocks with each series offset a little from the measured x (on
    a categorical or ordinal axis, or where a row spec asks: "dodge"), so
    that their bars stand side by side instead of hiding each other; on a
    log axis by a factor, else by a fraction of a step"""
    n = len(blocks)
    out = []
    for i, b in enumerate(blocks):
        k = i - (n - 1) / 2.0
        move = (lambda x: x * 2 ** (DODGE_OCTAVES * k)) if logx else (lambda x: x + DODGE * k)
        out.append((b[0], b[1], [(move(p[0]),) + tuple(p[1:]) for p in b[2]]) + tuple(b[3:]))
    return out


def panel_data(rows, row_spec, xs, all_rows, min_points=1):
    """blocks for one panel: [(title, ref, [(x, y, lo, hi)], ckey)], the key's
    title (what y and the bars are; None: no bars) and the y label.

    A point measured in several rounds (the round column: each round its own
    invocation) is drawn at the median over its rounds, with the 95% interval
    over rounds as its bars (the same value in every round: no bars, the key
    says so); a point of one round (or a folder without the column) as the
    row it is, with the row's own bars columns. A series of fewer than
    min_points x values is left out (a column of the payload sweep leaves
    out what was measured at one payload: another column shows it)."""
    if not isinstance(xs, XSpec):
        xs = XSpec({'x': xs}, rows)
    ycol, ylabel = y_column(rows, row_spec)
    scale = float(row_spec.get('scale', 1.0))
    bars = row_spec.get('bars')
    blocks, nrounds = [], set()
    for spec in row_spec['series']:
        for title, ref, grp, ckey in series_of(rows, spec):
            pts = points_over_rounds(row_values(grp, spec, xs, ycol, bars, scale, all_rows), spec, nrounds)
            if pts and len({p[0] for p in pts}) >= min_points:
                blocks.append((title, ref, pts, ckey))
    if nrounds:
        r = '%d' % min(nrounds) if len(nrounds) == 1 else '%d..%d' % (min(nrounds), max(nrounds))
        if not spread(blocks):
            return blocks, None, ylabel, 'deterministic: the same\nin all %s rounds (no interval)' % r
        return blocks, 'median of %s rounds\nbars: 95%% interval over rounds' % r, ylabel, None
    has_bars = bool(bars) and not any(s.get('vs') for s in row_spec['series'])
    return blocks, bars_title(bars) if has_bars else None, ylabel, None


def columns_of(pl, base):
    """[(column title, x spec, rows, row specs)] of a figure: one per entry
    of "columns" (its own x and filter, its row specs laid over the
    figure's), else one per value of panels_by (or one)"""
    if pl.get('columns'):
        out = []
        for col in pl['columns']:
            spec = dict(pl, **{k: v for k, v in col.items() if k not in ('rows', 'filter')})
            crows = [r for r in base if match(r, col.get('filter'))]
            rspecs = [dict(rs, **over) for rs, over in zip(pl['rows'], col.get('rows') or [{}] * len(pl['rows']))]
            out.append((col.get('title', ''), XSpec(spec, crows), crows, rspecs))
        return out
    pby = pl.get('panels_by')
    pvals = []
    if pby:
        for r in base:
            if r.get(pby, '') not in pvals and r.get(pby, ''):
                pvals.append(r.get(pby, ''))
    xs = XSpec(pl, base)
    return [(cv or '', xs, [r for r in base if r.get(pby) == cv], pl['rows']) for cv in pvals] or \
        [('', xs, base, pl['rows'])]


def panels_of(pl, base):
    """(panels: [(title, y label, logy, blocks, bars, .set lines, the key's
    entries, the key's title)], columns) of one figure: a row of panels per
    row spec, a column per columns_of"""
    cols = columns_of(pl, base)
    panels = []
    for ri in range(len(pl['rows'])):
        for ctitle, xs, crows, rspecs in cols:
            rs = rspecs[ri]
            blocks, bars, ylabel, same = panel_data(crows, rs, xs, base, int(xs.spec.get('min_points', 1)))
            # ticks at the measured x (before any dodge)
            extra = x_axis(xs.spec, blocks) + ref_lines(rs.get('yrefs')) + y_format(blocks, rs.get('logy', 0))
            if (xs.pos is not None and xs.spec.get('points')) or rs.get('dodge'):
                blocks = dodged(blocks, 0 if xs.pos is not None else int(xs.spec.get('logx', 0) or 0))
            if same:
                extra.append('set key title %s' % gq(same))
            if rs.get('yrange') == 'medians' and blocks:
                lo, hi = y_from_medians(blocks, rs.get('yrefs') or ())
                extra.append('set yrange [%.9g:%.9g]' % (lo, hi))
                if bars:
                    bars += '\n(y range: the medians; longer bars clipped)'
            else:
                extra += y_axis(blocks + [('', True, [(0, r['y'], r['y'], r['y'])]) for r in rs.get('yrefs') or ()],
                                rs.get('logy', 0))
            refs = [r['title'] for r in rs.get('yrefs') or ()]
            panels.append((ctitle if ri == 0 else '', ylabel, rs.get('logy', 0), blocks, bars, extra,
                           [b[0] for b in blocks] + refs, bars or same))
    return panels, cols


def plot_experiment(exp, rows, meta, exp_meta, platform_id, outdir, datadir, formats, log):
    """every figure of one experiment; -> the figures drawn (paths without extension)"""
    made = []
    for pl in exp.get('plots', []):
        base = [r for r in rows if match(r, pl.get('filter'))]
        panels, cols = panels_of(pl, base)
        prefix = os.path.join(datadir, pl['file'])
        # every key outside its panel, right of it (it covers no data), in one
        # right margin for the whole figure so the panels of a column align
        margin = key_margin([e for p in panels for e in p[6]], [p[7] for p in panels])
        colormap = {}
        for k, (ptitle, ylabel, logy, blocks, bars, extra, _, _) in enumerate(panels, 1):
            # a y label longer than the panel is tall goes on two lines
            write_panel(prefix, k, ptitle, wrap_label(ylabel, 38), logy, blocks, bars, colormap, extra)
        nrows = len(pl['rows'])
        xs = cols[0][1].spec
        width = max(760, (540 + 6 * margin) * len(cols) + 60)
        title = fit_title(pl.get('title', pl['file']), width)
        variables = {'data': prefix, 'npanels': len(panels), 'nrows': nrows, 'ncols': len(cols),
                     'figtitle': enh(title),
                     'subtitle': subtitle(meta, exp_meta, platform_id),
                     'xlabel': enh(xs.get('xlabel', xs['x'])), 'logx': int(xs.get('logx', 0) or 0),
                     'xfmt': '%.0b%BB' if xs['x'] == 'payload_bytes' else '%g', 'keymargin': margin,
                     'width': width, 'height': 300 * nrows + 90 + 16 * title.count('\n')}
        outbase = os.path.join(outdir, pl['file'])
        if gnuplot('figure.gp', variables, outbase, formats, log):
            made.append(outbase)
    return made
