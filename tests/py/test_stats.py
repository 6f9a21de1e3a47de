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


class MannWhitney(Case):
    # scipy.stats.mannwhitneyu's documented example (Conover's ages):
    # U1 = 17, exact two-sided p = 0.1111, asymptotic 0.11134688653314041
    MALES = [19, 22, 16, 29, 24]
    FEMALES = [20, 11, 17, 12]

    def test_ranks_with_ties(self):
        self.assertEqual(stats.ranks([3, 1, 2, 2]), [4.0, 1.0, 2.5, 2.5])
        self.assertEqual(stats.ranks([]), [])

    def test_u(self):
        self.assertEqual(stats.u_statistic(self.MALES, self.FEMALES), 17)
        self.assertEqual(stats.u_statistic(self.FEMALES, self.MALES), 3)      # n m - U1
        self.assertEqual(stats.u_statistic([1, 2], [2, 3]), 0.5)             # the tie counts half

    def test_exact_null_distribution(self):
        # n = 5, m = 4: 126 orders; counted by hand from the recurrence
        c = stats.u_counts(5, 4)
        self.assertEqual(len(c), 21)
        self.assertEqual(sum(c), math.comb(9, 4))
        self.assertEqual(c, c[::-1])                                          # symmetric
        self.assertEqual(c[:5], [1, 1, 2, 3, 5])
        self.assertEqual(stats.u_counts(3, 3), [1, 1, 2, 3, 3, 3, 3, 2, 1, 1])

    def test_scipy_example(self):
        u, p = stats.mann_whitney(self.MALES, self.FEMALES, "two-sided", "exact")
        self.assertEqual(u, 17)
        self.assertAlmostEqual(p, 14 / 126)                                   # 0.1111
        self.assertAlmostEqual(stats.mann_whitney(self.MALES, self.FEMALES, "two-sided")[1], 14 / 126)  # auto: exact
        u, p = stats.mann_whitney(self.MALES, self.FEMALES, "two-sided", "asymptotic")
        self.assertAlmostEqual(p, 0.11134688653314041, places=12)
        self.assertAlmostEqual(stats.mann_whitney(self.MALES, self.FEMALES, "greater", "exact")[1], 7 / 126)
        self.assertAlmostEqual(stats.mann_whitney(self.MALES, self.FEMALES, "less", "exact")[1], 1 - 4 / 126)

    def test_separated(self):
        # every x above every y: one order of C(6, 3) = 20
        self.assertEqual(stats.mann_whitney([4, 5, 6], [1, 2, 3]), (9, 0.05))
        self.assertEqual(stats.mann_whitney([1, 2, 3], [4, 5, 6], "less"), (0, 0.05))
        self.assertEqual(stats.mann_whitney([1, 2, 3], [4, 5, 6]), (0, 1.0))
        self.assertAlmostEqual(stats.min_p(10, 10), 1 / 184756)

    def test_ties_take_the_normal_approximation(self):
        # [1,2,2,3] against [2,3,4,4]: ranks 1, 3, 3, 5.5 -> U 2.5; tie term
        # 24 + 6 + 6; sigma^2 = 16/12 (9 - 36/56); z = (2.5 - 8 - 0.5) / sigma
        u, p = stats.mann_whitney([1, 2, 2, 3], [2, 3, 4, 4])
        self.assertEqual(u, 2.5)
        z = (2.5 - 8 - 0.5) / math.sqrt(16 / 12 * (9 - 36 / 56))
        self.assertAlmostEqual(p, 0.5 * math.erfc(z / math.sqrt(2)))
        self.assertAlmostEqual(p, 0.963867, places=5)
        with self.assertRaises(ValueError):
            stats.mann_whitney([1, 2], [2, 3], method="exact")
        with self.assertRaises(ValueError):
            stats.mann_whitney([], [1])
        self.assertEqual(stats.mann_whitney([1, 1], [1, 1]), (2.0, 1.0))    # no spread at all
