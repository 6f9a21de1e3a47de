"""Small multiples of the platforms' values: one panel per jam and variant
(or per quantity and jam), one line per platform in every panel, each point
the median over rounds with its 95% interval as error bars; one colour and
marker per platform across every figure of a comparison, the key once,
below the panels. Written as one gnuplot script (script()) and drawn
(draw()); the script is built without gnuplot, so it can be tested."""
import math
import os
import subprocess
import sys

from .. import gnuplot
from ..schema import size_label

POINTS = [7, 5, 9, 11, 13, 15, 4, 6, 8, 10, 12, 14]
# pixels: a panel, the figure's title, the key's lines
PANEL_W, PANEL_H, TITLE_H, KEY_LINE = 300, 240, 58, 19
# inside a panel: room for the y tick labels, the title, the x tick labels
PAD_L, PAD_R, PAD_T, PAD_B = 52, 12, 24, 56
YLABEL_W = 34
# the offset between platforms at one x (log axis: in octaves), so that their
# bars do not hide each other; the ticks stay at the measured x
DODGE_OCTAVES, DODGE_LINEAR = 0.12, 0.012
# a bar is drawn up to this factor beyond its point (log axis) before the
# range stops growing for it: one wild round does not flatten the panel
BAR_REACH = 2.0
# panels share one y range where its highest value is at most this many
# times its lowest (the figure's, else a row's: one quantity), else each
# panel has its own
SHARE_SPAN, SHARE_SPAN_ROW = 32.0, 100.0


class Panel:
    """One panel: its title and {platform index: [(x, median, low, high)]}"""

    def __init__(self, title, series):
        self.title, self.series = title, series

    def points(self):
        return [p for pts in self.series.values() for p in pts]


def x_kind(xcol, xs):
    """how the x axis spaces its values: 'log' (payloads, values over two
    decades), 'ordinal' (0 among values that span a decade and more: even
    steps, each labelled) or 'linear'"""
    xs = sorted(set(xs))
    if xcol == "payload_bytes" or (xs and xs[0] > 0 and xs[-1] / xs[0] > 50):
        return "log"
    nonzero = [x for x in xs if x > 0]
    if len(xs) >= 3 and xs[0] == 0 and nonzero and xs[-1] / nonzero[0] >= 10:
        return "ordinal"
    return "linear"


def x_label(xcol, x):
    return size_label(x) if xcol == "payload_bytes" else "%g" % x


def x_axis(xcol, xs):
    """(kind, the gnuplot lines of the x axis, {x: position}): a range padded
    past the points (none on the border), a tick at every measured x"""
    xs = sorted(set(xs))
    kind = x_kind(xcol, xs)
    pos = {x: (i + 1 if kind == "ordinal" else x) for i, x in enumerate(xs)}
    if kind == "log":
        lo, hi = xs[0] / 1.6, xs[-1] * 1.6
        lines = ["set logscale x 2"]
    elif kind == "ordinal":
        lo, hi = 0.5, len(xs) + 0.5
        lines = ["unset logscale x"]
    else:
        span = (xs[-1] - xs[0]) or max(1.0, abs(xs[0]))
        lo, hi = xs[0] - 0.08 * span, xs[-1] + 0.08 * span
        lines = ["unset logscale x"]
    lines += ["set xrange [%.9g:%.9g]" % (lo, hi),
              "set xtics (%s) rotate by -40 font ',8'" % ", ".join(
                  '"%s" %.9g' % (x_label(xcol, x), pos[x]) for x in xs)]
    return kind, lines, pos


def dodge(kind, pos, pi, n, span):
    """the x at which platform pi of n draws the point at position pos"""
    k = pi - (n - 1) / 2.0
    if kind == "log":
        return pos * 2 ** (DODGE_OCTAVES * k)
    return pos + DODGE_LINEAR * span * k if kind == "linear" else pos + 0.06 * k


def value_range(points):
    """(low, high) that holds every median and each bar up to BAR_REACH
    times its median; None without positive values"""
    vals = []
    for _, med, lo, hi in points:
        if med is None or med <= 0:
            continue
        vals += [med, max(lo, med / BAR_REACH) if lo > 0 else med / BAR_REACH, min(hi, med * BAR_REACH)]
    return (min(vals), max(vals)) if vals else None


def padded(r):
    """(low, high, log) of a value range: a log axis where it spans over 4x, padded"""
    if r is None:
        return None
    lo, hi = r
    if hi / lo > 4:
        return lo / 1.15, hi * 1.15, True
    pad = 0.08 * ((hi - lo) or hi)
    return max(0.0, lo - pad), hi + pad, False


def y_ranges(grid):
    """{id(panel): (low, high, log)}: one range for the whole figure where
    it spans at most SHARE_SPAN (small multiples compare by position), else
    one per row of panels (a row is one quantity) where that row's spans at
    most SHARE_SPAN_ROW, else each panel's own"""
    own = {id(p): value_range(p.points()) for row in grid for p in row if p is not None}

    def union(rs):
        rs = [r for r in rs if r]
        return (min(r[0] for r in rs), max(r[1] for r in rs)) if rs else None

    def fits(r, span):
        return r is not None and r[1] / r[0] <= span

    whole = union(own.values())
    out = {}
    for row in grid:
        ids = [id(p) for p in row if p is not None]
        row_r = union(own[i] for i in ids)
        for i in ids:
            out[i] = padded(whole if fits(whole, SHARE_SPAN) else row_r if fits(row_r, SHARE_SPAN_ROW) else own[i])
    return out


def layout(grid, nplats):
    """(width, height, key height, key columns) in pixels of a grid of panels"""
    ncols = max(len(r) for r in grid)
    width = max(760, YLABEL_W + PANEL_W * ncols + 20)
    keycols = max(1, min(nplats, width // 380))
    keyh = KEY_LINE * int(math.ceil(nplats / float(keycols))) + 14
    return width, TITLE_H + PANEL_H * len(grid) + keyh, keyh, keycols


def script(base, title, ylabel, grid, labels, xcol, xlabel, ref=1.0):
    """(the data file's text, the gnuplot lines after the terminal and
    output, (width, height)) of a figure: grid, rows of Panels (None: an
    empty cell); ylabel, one or one per row; labels, the platforms' in
    colour order; ref: a dotted line at that y (1: at the reference); each
    panel's x axis ticks its own measured values (the payload's ticks carry
    their unit: no x label). None where no panel has a point."""
    if not any(p.points() for row in grid for p in row if p is not None):
        return None
    ylabels = ylabel if isinstance(ylabel, list) else [ylabel] * len(grid)
    pal = gnuplot.palette()
    width, height, keyh, keycols = layout(grid, len({pi for row in grid for p in row if p is not None
                                                      for pi, pts in p.series.items() if pts}))
    ranges = y_ranges(grid)
    text, index = "", 0
    lines = ["set multiplot title %s font ',13'" % gnuplot.gq(title),
             "set grid xtics ytics lc rgb '#dddddd' lw 1", "set border 3 lw 1", "set tics nomirror out scale 0.6",
             "set pointsize 0.7", "set bars small", "set format y '%g'", "unset key"]
    lines += ["set style line %d lc rgb '%s' lw 1.5 pt %d" % (101 + i, gnuplot.colour(i, pal), POINTS[i % len(POINTS)])
              for i in range(len(labels))]
    for r, row in enumerate(grid):
        for c, p in enumerate(row):
            if p is None or not p.points():
                continue
            kind, xlines, pos = x_axis(xcol, [pt[0] for pt in p.points()])
            xspan = (max(pos.values()) - min(pos.values())) or 1.0
            x0 = (YLABEL_W + c * PANEL_W + PAD_L) / float(width)
            x1 = (YLABEL_W + (c + 1) * PANEL_W - PAD_R) / float(width)
            y1 = 1 - (TITLE_H + r * PANEL_H + PAD_T) / float(height)
            y0 = 1 - (TITLE_H + (r + 1) * PANEL_H - PAD_B) / float(height)
            lines += ["set lmargin at screen %.5f" % x0, "set rmargin at screen %.5f" % x1,
                      "set tmargin at screen %.5f" % y1, "set bmargin at screen %.5f" % y0,
                      "set title %s font ',10'" % gnuplot.gq(p.title)] + xlines
            lines.append("unset xlabel" if xcol == "payload_bytes" else
                         "set xlabel %s font ',9' offset 0,0.3" % gnuplot.gq(xlabel))
            lines += [("set ylabel %s font ',9'" % gnuplot.gq(ylabels[r])) if c == 0 else "unset ylabel",
                      "unset arrow"]
            yr = ranges[id(p)]
            lines += ["set logscale y 2" if yr[2] else "unset logscale y", "set yrange [%.9g:%.9g]" % yr[:2]]
            if ref is not None and yr[0] < ref < yr[1]:
                lines.append("set arrow from graph 0, first %g to graph 1, first %g nohead dt 3 lc rgb '#777777'"
                             % (ref, ref))
            parts = []
            for pi in sorted(p.series):
                pts = sorted(p.series[pi])
                if not pts:
                    continue
                text += "# %s | %s\n" % (labels[pi], p.title)
                for x, med, lo, hi in pts:
                    text += "%.9g %.6g %.6g %.6g\n" % (dodge(kind, pos[x], pi, len(labels), xspan), med, lo, hi)
                text += "\n\n"
                parts.append("'%s.dat' index %d using 1:2:3:4 with yerrorlines ls %d notitle" % (base, index, 101 + pi))
                index += 1
            lines.append("plot " + ", \\\n  ".join(parts))
    # the key: once, below the panels, a line per platform drawn in it
    present = sorted({pi for row in grid for p in row if p is not None for pi, pts in p.series.items() if pts})
    lines += ["unset arrow", "unset title", "unset xlabel", "unset ylabel", "unset logscale", "unset border",
              "unset tics", "unset grid", "set xrange [0:1]", "set yrange [0:1]",
              "set lmargin at screen 0.02", "set rmargin at screen 0.98",
              "set bmargin at screen 0", "set tmargin at screen %.5f" % (keyh / float(height)),
              "set key center center horizontal Left reverse maxcols %d samplen 2.5 font ',9' noautotitle" % keycols,
              "plot " + ", \\\n  ".join("NaN with linespoints ls %d title %s" % (101 + i, gnuplot.gq(labels[i]))
                                        for i in present),
              "unset multiplot"]
    return text, lines, (width, height)


def draw(base, job, gp, emit_gp=False):
    """a script() drawn with gnuplot into base.png and base.svg (emit_gp:
    each script kept beside its figure); -> the files drawn"""
    text, lines, (width, height) = job
    with open(base + ".dat", "w") as f:
        f.write(text)
    made = []
    for term, ext in (("pngcairo size %d,%d noenhanced font 'Helvetica,10'" % (width, height), "png"),
                      ("svg size %d,%d noenhanced font 'Helvetica,10' background rgb 'white'" % (width, height),
                       "svg")):
        cmds = ["set terminal %s" % term, "set output '%s.%s'" % (base, ext)] + lines
        r = subprocess.run([gp], input="\n".join(cmds) + "\n", text=True, capture_output=True)
        if r.returncode != 0:
            print("tc-platforms: gnuplot failed for %s: %s" % (base, r.stderr.strip()[:300]), file=sys.stderr)
            continue
        made.append("%s.%s" % (base, ext))
        if emit_gp:   # the script as run
            with open("%s.%s.gp" % (base, ext), "w") as f:
                f.write("\n".join(cmds) + "\n")
    os.remove(base + ".dat")
    return made
