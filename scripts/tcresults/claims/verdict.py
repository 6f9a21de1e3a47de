"""The claims' rules: a quantity over rounds (Stat: its median and 95%
interval), the verdict of an interval against a rule (judge), several
sub-verdicts in one (combine), a verdict's class (vclass), and the cells'
number formats."""
import statistics

from .. import stats
from ..schema import size_label

BAND = "half to twice the paper's effect; above: much larger than the paper"
BOUND = "within 2x of the paper's bound"
LLC_EMULATED = ("llc: emulated by the sending CPU (store + cldemote through the mapped segment), "
                "not stashing by the NIC")
TAIL_MIN = 10000       # iterations per row: 10 samples beyond p99.9
# A p99.9 past a scheduler time slice (Linux hands out ~1-4 ms) for a
# microsecond operation is the thread being descheduled, not where the bytes
# landed: a tail claim under --stress whose rows reach it measures the
# scheduler, and whether a round was preempted is a lottery between runs.
PREEMPT_US = 1000.0


def pct(x):
    return "%+.0f%%" % (x * 100)


def pct1(x):
    return "%+.1f%%" % (x * 100)


def xfmt(x):
    return "%.2fx" % x


def spread(x):
    return "%.0f%%" % x


def ratio_series(a, b, inv=False):
    """{size: a/b} over sizes both have (b/a if inv)."""
    out = {}
    for s in sorted(set(a) & set(b)):
        if a[s] > 0 and b[s] > 0:
            out[s] = (b[s] / a[s]) if inv else (a[s] / b[s])
    return out


def per_size(d, f=lambda v: "%.2f" % v):
    return ", ".join("%s %s" % (size_label(s), f(v)) for s, v in sorted(d.items()))


# how a "max/min over payloads" claim picks its payload (Sheet.picked)
PICKED = "the payload picked by its median over rounds, then that payload's value per round"


# How a claim's quantity maps to the positive ratio it comes from (to, back):
# the interval is taken on log(ratio) (tcresults/stats.py).
RATIO, OVER, LOSS, SPREAD = stats.RATIO, stats.OVER, stats.LOSS, stats.OVER_PCT


class Stat:
    """One claim's quantity over rounds: per-round values, median, and the
    95% t interval on the log of the ratio behind it (scale: RATIO, OVER,
    LOSS, SPREAD); linear where a ratio is not positive."""

    def __init__(self, per, scale=RATIO):
        self.per = per                      # [(round, value, where)]
        v = [x for _, x, _ in per]
        self.n = len(v)
        self.med = statistics.median(v) if v else None
        self.lo = self.hi = None
        if self.n >= 2:
            self.lo, self.hi = stats.interval(v, scale)

    def where(self):
        w = []
        for _, _, x in self.per:
            if x and x not in w:
                w.append(x)
        return " at " + "/".join(w) if w else ""

    def cell(self, f):
        rounds = "%d round%s" % (self.n, "" if self.n == 1 else "s")
        if self.n < 2:
            return "%s%s, %s (no interval)" % (f(self.med), self.where(), rounds)
        return "%s [%s..%s]%s, %s" % (f(self.med), f(self.lo), f(self.hi), self.where(), rounds)

    def width(self, f):
        if self.n < 2:
            return "- (1 round)"
        return "%s..%s (width %s)" % (f(self.lo), f(self.hi), f(self.hi - self.lo).lstrip("+"))

    def rounds_text(self, f):
        return "per round: " + ", ".join("r%d %s%s" % (k, f(x), " at " + w if w else "") for k, x, w in self.per)


def passes(x, lo_ok, hi_ok):
    return (lo_ok is None or x >= lo_ok) and (hi_ok is None or x <= hi_ok)


def judge_range(a, b, lo_ok, hi_ok, big, paper):
    """Verdict for the interval [a, b] against the rule lo_ok <= x <= hi_ok (None: open);
    big: above it the effect is much larger than the paper's."""
    if passes(a, lo_ok, hi_ok) and passes(b, lo_ok, hi_ok):
        return "holds"
    if big is not None and a > big:
        return "much larger than the paper (%s)" % paper
    if (lo_ok is not None and b < lo_ok) or (hi_ok is not None and a > hi_ok):
        return "does not hold"
    return "inconclusive (noise)"


def judge(st, lo_ok=None, hi_ok=None, big=None, vs=""):
    if st.n < 2:
        one = judge_range(st.med, st.med, lo_ok, hi_ok, big, vs)
        return "inconclusive (1 round: no interval; the one round alone reads: %s)" % one
    return judge_range(st.lo, st.hi, lo_ok, hi_ok, big, vs)


def combine(verdicts):
    """Several sub-rules of one claim: any failure fails, then noise, then magnitude."""
    for key in ("does not hold", "inconclusive (1", "inconclusive (noise)", "much larger"):
        for v in verdicts:
            if v.startswith(key):
                return v
    return "holds"


def vclass(v):
    """A verdict's class, without its numbers: what two runs must agree on."""
    for c in ("not measurable here", "much larger than the paper", "inconclusive (noise)",
              "inconclusive (1 round", "inconclusive (too few samples", "inconclusive (scheduler-bound"):
        if v.startswith(c):
            return c + (")" if c.startswith("inconclusive (") and not c.endswith(")") else "")
    return v
