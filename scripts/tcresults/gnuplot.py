"""What tc-plot and tc-platforms share to draw with gnuplot: the palette
(scripts/plots/palette) and its generated continuation, and gnuplot's
quoting."""
import colorsys
import re

from . import paths


def palette(path=paths.PALETTE):
    """the colours of scripts/plots/palette, in order"""
    with open(path) as f:
        return [m.group(0) for m in (re.match(r"#[0-9a-fA-F]{6}\b", line) for line in f) if m]


def colour(i, pal):
    """the i-th series colour: the palette's, then distinct generated hues"""
    if i < len(pal):
        return pal[i]
    h = ((i - len(pal)) * 0.618033988749895 + 0.07) % 1.0
    v = 0.55 + 0.3 * (((i - len(pal)) // 5) % 2)
    rgb = colorsys.hsv_to_rgb(h, 0.8, v)
    c = "#%02x%02x%02x" % tuple(int(round(x * 255)) for x in rgb)
    return c if c not in pal else "#%06x" % ((int(c[1:], 16) + 1) % 0x1000000)


def gq(s):
    """a gnuplot string literal"""
    return '"%s"' % str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def enh(s):
    """escape gnuplot enhanced-text specials in a label"""
    return re.sub(r"([_^@&{}])", r"\\\1", str(s))
