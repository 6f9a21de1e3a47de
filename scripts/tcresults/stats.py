"""The 95% interval over rounds, one definition for tc-claims and tc-plot.

A point (or a claim's quantity) measured in n rounds, each its own tool
invocation: the Student-t interval, mean -+ t(0.975, n-1) s/sqrt(n), taken on
the log of the positive ratio behind the values (a latency, a rate, a ratio
of two rows of one round: the noise of such a value is multiplicative, so
one wild round widens the interval upwards instead of into negative
ratios); on the values themselves where a ratio is not positive.
Python 3 standard library only; no scipy.
"""
import math
import statistics

# t(0.975, df), df = 1..30 (two-sided 95%)
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]

# a value -> the positive ratio behind it, and back
RATIO = (lambda v: v, lambda x: x)                         # a ratio, a latency, a rate
OVER = (lambda v: 1 + v, lambda x: x - 1)                  # ratio - 1 (a cost)
LOSS = (lambda v: 1 - v, lambda x: 1 - x)                  # 1 - ratio (a loss, a gain)
OVER_PCT = (lambda v: 1 + v / 100, lambda x: (x - 1) * 100)  # (ratio - 1) in %: an overhead, a tail spread
LOSS_PCT = (lambda v: 1 - v / 100, lambda x: (1 - x) * 100)  # (1 - ratio) in %


def t975(df):
    if df <= len(T975):
        return T975[df - 1]
    return 1.960 + 2.5 / df   # within 0.002 of the table beyond df 30


def interval(vals, scale=RATIO):
    """(low, high): the 95% interval of vals over rounds (see above); None
    with fewer than two values."""
    n = len(vals)
    if n < 2:
        return None
    to, back = scale
    r = [to(v) for v in vals]
    if all(x > 0 for x in r):
        lg = [math.log(x) for x in r]
        m, h = statistics.mean(lg), t975(n - 1) * statistics.stdev(lg) / math.sqrt(n)
        return tuple(sorted((back(math.exp(m - h)), back(math.exp(m + h)))))
    m, h = statistics.mean(vals), t975(n - 1) * statistics.stdev(vals) / math.sqrt(n)
    return m - h, m + h


def median_interval(vals, scale=RATIO):
    """(median, low, high) of one point's values over its rounds: the median
    and interval() (low = high = the median with fewer than two values)"""
    med = statistics.median(vals)
    iv = interval(vals, scale)
    return (med,) + (iv if iv else (med, med))
