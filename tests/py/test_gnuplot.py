"""tcresults.gnuplot: the palette and gnuplot's quoting."""
from helpers import Case

from tcresults import gnuplot


class Palette(Case):
    def test_palette_then_distinct_hues(self):
        pal = gnuplot.palette()
        self.assertGreaterEqual(len(pal), 8)
        self.assertEqual(len(set(pal)), len(pal))
        cols = [gnuplot.colour(i, pal) for i in range(len(pal) + 40)]
        self.assertEqual(cols[:len(pal)], pal)
        self.assertEqual(len(set(cols)), len(cols))
        for c in cols:
            self.assertRegex(c, r"^#[0-9a-f]{6}$")

    def test_a_generated_hue_never_repeats_the_palette(self):
        g = gnuplot.colour(1, ["#000000"])          # the first generated hue
        self.assertNotEqual(gnuplot.colour(1, [g]), g)
        self.assertEqual(int(gnuplot.colour(1, [g])[1:], 16), int(g[1:], 16) + 1)

    def test_quoting(self):
        self.assertEqual(gnuplot.gq('a "b"\\c\nd'), '"a \\"b\\"\\\\c\\nd"')
        self.assertEqual(gnuplot.enh("p_50 {x}^2 @&"), "p\\_50 \\{x\\}\\^2 \\@\\&")
