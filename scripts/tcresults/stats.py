"""The 95% interval over rounds, one definition for tc-claims and tc-plot;
the rank test of two builds' rounds, for tc-ab.

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


# --- Mann-Whitney U (the Wilcoxon rank-sum test), for tc-ab

def ranks(vals):
    """1-based ranks of vals, ties given the mean of the ranks they span"""
    order = sorted(range(len(vals)), key=lambda i: vals[i])
    r = [0.0] * len(vals)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and vals[order[j + 1]] == vals[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def u_statistic(x, y):
    """U of x against y: the pairs (x_i, y_j) with x_i > y_j, a tie counting
    half (the rank sum of x less its least value, n(n+1)/2)"""
    r = ranks(list(x) + list(y))
    n = len(x)
    return sum(r[:n]) - n * (n + 1) / 2


def u_counts(n, m):
    """[c_0 .. c_nm]: of the C(n+m, n) orders of n x's among m y's with no
    ties, how many give U = u (the exact null distribution)"""
    # f(n, m, u) = f(n - 1, m, u - m) + f(n, m - 1, u): the largest value is
    # an x (above all m y's) or a y
    prev = [[1] for _ in range(m + 1)]          # n = 0: U = 0 in one way
    for i in range(1, n + 1):
        cur = [[1]]                             # m = 0: U = 0 in one way
        for j in range(1, m + 1):
            a, b = prev[j], cur[j - 1]
            c = [0] * (i * j + 1)
            for u, v in enumerate(a):
                c[u + j] += v
            for u, v in enumerate(b):
                c[u] += v
            cur.append(c)
        prev = cur
    return prev[m]


def normal_sf(z):
    return 0.5 * math.erfc(z / math.sqrt(2))


# exact below this many orders; the normal approximation above (or with ties)
EXACT_MAX = 1 << 20


def mann_whitney(x, y, alternative="greater", method="auto"):
    """(U, p) of the Mann-Whitney U test of x against y, as scipy.stats's
    mannwhitneyu computes them: U = u_statistic(x, y); alternative "greater"
    (x tends to be larger: p = P(U >= u)), "less", or "two-sided". method
    "exact" counts the orders of the pooled rounds (no ties only);
    "asymptotic" is the normal approximation with the tie correction and a
    continuity correction of 1/2; "auto" is exact where there are no ties and
    at most EXACT_MAX orders."""
    n, m = len(x), len(y)
    if n == 0 or m == 0:
        raise ValueError("mann_whitney: both samples need a value")
    u = u_statistic(x, y)
    pooled = list(x) + list(y)
    ties = len(set(pooled)) < len(pooled)
    if method == "auto":
        method = "exact" if not ties and math.comb(n + m, n) <= EXACT_MAX else "asymptotic"
    if method == "exact":
        if ties:
            raise ValueError("mann_whitney: the exact test takes no ties")
        c = u_counts(n, m)
        total = math.comb(n + m, n)
        ge = sum(c[math.ceil(u):]) / total          # P(U >= u)
        le = sum(c[:math.floor(u) + 1]) / total     # P(U <= u)
        p = {"greater": ge, "less": le, "two-sided": 2 * min(ge, le)}[alternative]
        return u, min(p, 1.0)
    N = n + m
    tie = sum(t ** 3 - t for t in (pooled.count(v) for v in set(pooled)))
    sigma = math.sqrt(n * m / 12 * ((N + 1) - tie / (N * (N - 1))))
    mu = n * m / 2
    if sigma == 0:
        return u, 1.0
    if alternative == "greater":
        p = normal_sf((u - mu - 0.5) / sigma)
    elif alternative == "less":
        p = normal_sf((mu - u - 0.5) / sigma)
    else:
        p = 2 * normal_sf((abs(u - mu) - 0.5) / sigma)
    return u, min(p, 1.0)


def min_p(n, m):
    """the smallest one-sided p the exact test can give n against m rounds
    (every round of one side beyond every round of the other): 1 / C(n+m, n)"""
    return 1 / math.comb(n + m, n)
