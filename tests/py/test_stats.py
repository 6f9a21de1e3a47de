"""tcresults.stats: the 95% interval over rounds."""
import math
import statistics

from helpers import Case

from tcresults import stats


class Interval(Case):
    def test_t975(self):
        self.assertEqual(stats.t975(1), 12.706)
        self.assertEqual(stats.t975(2), 4.303)
        self.assertEqual(stats.t975(30), 2.042)
        self.assertAlmostEqual(stats.t975(100), 1.985)
        self.assertLess(abs(stats.t975(31) - 2.040), 0.002)

    def test_too_few(self):
        self.assertIsNone(stats.interval([]))
        self.assertIsNone(stats.interval([1.0]))

    def test_on_the_logs(self):
        # tests/data/plot-rounds: local 4 B p50 1.0, 1.2, 2.0 -> 0.548355 .. 3.268983
        # (a linear interval of the values would read 0.085 .. 2.715)
        lo, hi = stats.interval([1.0, 1.2, 2.0])
        self.assertAlmostEqual(lo, 0.548355, places=5)
        self.assertAlmostEqual(hi, 3.268983, places=5)
        lg = [math.log(v) for v in (1.0, 1.2, 2.0)]
        h = 4.303 * statistics.stdev(lg) / math.sqrt(3)
        self.assertAlmostEqual(hi, math.exp(statistics.mean(lg) + h))

    def test_scales(self):
        # an overhead in percent: 30, 50, 20 % -> 0.253991 .. 75.809458
        lo, hi = stats.interval([30, 50, 20], stats.OVER_PCT)
        self.assertAlmostEqual(lo, 0.253991, places=5)
        self.assertAlmostEqual(hi, 75.809458, places=5)
        # 10, 0, 0 % -> -9.961831 .. 18.350057
        lo, hi = stats.interval([10, 0, 0], stats.OVER_PCT)
        self.assertAlmostEqual(lo, -9.961831, places=5)
        self.assertAlmostEqual(hi, 18.350057, places=5)
        lo, hi = stats.interval([0.2, 0.3, 0.25], stats.LOSS)
        self.assertLess(lo, 0.25)
        self.assertGreater(hi, 0.25)
        self.assertLess(hi, 1.0)

    def test_linear_where_no_positive_ratio(self):
        vals = [-1.0, 0.5, 2.0]
        lo, hi = stats.interval(vals)
        h = 4.303 * statistics.stdev(vals) / math.sqrt(3)
        self.assertAlmostEqual(lo, statistics.mean(vals) - h)
        self.assertAlmostEqual(hi, statistics.mean(vals) + h)

    def test_median_interval(self):
        self.assertEqual(stats.median_interval([2.0]), (2.0, 2.0, 2.0))
        med, lo, hi = stats.median_interval([1.0, 1.2, 2.0])
        self.assertEqual(med, 1.2)
        self.assertLess(lo, med)
        self.assertGreater(hi, med)
