"""One reduction: a point's values over its rounds, each value first divided
by its own invocation's reference.

Every tc-perf invocation runs its references beside the jam (put_lat and
put_rate: a raw UCX put; floor_lat and floor_rate: stores into the peer's
mapped ring), so a jam row's ratio to them cancels the machine's speed at
that moment. References finds a row's reference rows nearest first: in the
row's own invocation (point and round), else the same round, the same
point, the whole file; at the row's frame size before any frame size of its
payload. A point measured in several rounds (several invocations) is then
the median over its rounds of those per-invocation ratios (Point).
"""
from .schema import invocation, median

# the columns a reference shares with the row it serves
REF_AXES = ["experiment", "payload_bytes", "signal", "wait", "placement", "sw_prefetch", "stress",
            "hw_prefetch", "stash"]
# the row's frame size first (tc-perf runs references per mode's frame), then any
REF_KEYS = [REF_AXES + ["frame_bytes"], REF_AXES]
# where a reference is looked for, nearest first
SCOPES = ("invocation", "round", "point", "file")


def _scope(s, r):
    point, rnd = invocation(r)
    if s == "invocation":
        return (s, point, rnd)
    if s == "round":
        return (s, rnd)
    if s == "point":
        return (s, point)
    return (s,)


class References:
    """The reference rows of one file (tests: their test names), found for a
    measured row. keys: the column lists a reference must share with the
    row, tried in order; scopes: where, nearest first (SCOPES)."""

    def __init__(self, rows, tests, keys=REF_KEYS, scopes=SCOPES):
        self.keys, self.scopes = keys, scopes
        self.index = {}
        for r in rows:
            t = r.get("test", "")
            if t not in tests:
                continue
            for ki, cols in enumerate(keys):
                m = tuple(r.get(k, "") or "" for k in cols)
                for s in scopes:
                    self.index.setdefault((t, ki, _scope(s, r), m), []).append(r)

    def rows(self, test, row, keys=None):
        """the reference rows of test for row ([] when none); keys: how many
        of the key lists to try (None: all)"""
        for ki, cols in enumerate(self.keys[:keys]):
            m = tuple(row.get(k, "") or "" for k in cols)
            for s in self.scopes:
                c = self.index.get((test, ki, _scope(s, row), m))
                if c:
                    return c
        return []

    def median(self, test, row, value, keys=None):
        """the median of value(reference row) over row's references, the
        values that are positive; None when there is none"""
        vals = [v for v in (value(c) for c in self.rows(test, row, keys)) if v is not None and v > 0]
        return median(vals)


def reference_test(test, kind="put"):
    """the reference of a test: jam_lat -> put_lat (kind put) or floor_lat"""
    return "%s_%s" % (kind, "lat" if test.endswith("_lat") else "rate")


class Point:
    """One point's values per metric, over its rounds (each round a value)."""

    def __init__(self):
        self.vals = {}

    def add(self, metric, v):
        self.vals.setdefault(metric, []).append(v)

    def median(self, metric):
        return median(self.vals.get(metric))

    def medians(self):
        return {m: median(v) for m, v in self.vals.items() if v}

    def spans(self):
        """{metric: (min, max, rounds)}"""
        return {m: (min(v), max(v), len(v)) for m, v in self.vals.items() if v}
