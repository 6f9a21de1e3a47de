"""A platform's values per point, each ratio taken within one invocation
(tcresults/reduce.py) and then over rounds: the median and the 95% interval
(tcresults/stats.py).

- jam / put: the jam's p50 over put_lat's (rate: rate over put_rate), the
  put of the same payload, signal, wait, placement, prefetch and stress.
- framework efficiency: the floor (floor_lat, floor_rate: stores into the
  peer's mapped ring, every line read; the jam's own frame size) over the
  jam for latency, the jam over the floor for rate: the share of the
  hardware's pace the framework keeps (1 = at the floor).
- injected / local: an injected row over the local row of its invocation
  (latency: above 1 is a cost; rate: below 1 is a loss).
"""
from .. import schema, stats
from ..reduce import Point, References, reference_test
from ..schema import median, num

VARIANT = ["mode", "signal", "wait", "placement", "sw_prefetch", "stress", "gap_us"]
# the metrics of a point: raw value, jam / put, efficiency, cycles, cpu ns
METRICS = ("raw", "rel", "eff", "cyc", "cpu")
KEY_HEAD = ["test", "jam", "payload_bytes"]


def summary(vals):
    """(median, low, high) over rounds; None without values"""
    return stats.median_interval(vals) if vals else None


def perf_key(r, extra):
    return (r.get("test", ""), r.get("jam", ""), int(num(r.get("payload_bytes")) or 0)) + \
        tuple(r.get(k, "") for k in VARIANT + extra)


def reduce_perf(rows):
    """({key: {metric: median, 'iv': {metric: (median, low, high)}, 'src': ...}},
    key columns) for the jam_* rows; each ratio per invocation, then over rounds"""
    refs = References(rows, ("put_lat", "put_rate", "floor_lat", "floor_rate"))
    extra = sorted({k for r in rows for k in r if k and k.startswith(schema.AXIS_PREFIX)})
    groups = {}
    for r in rows:
        t = r.get("test", "")
        if not t.startswith("jam_"):
            continue
        lat = t.endswith("_lat")
        col = "p50_us" if lat else "rate_mps"
        v = num(r.get(col))
        if v is None or v <= 0:
            continue
        pt, src = groups.setdefault(perf_key(r, extra), (Point(), set()))
        pt.add("raw", v)
        value = lambda c: num(c.get(col))  # noqa: E731
        ref = refs.median(reference_test(t), r, value)
        if ref is not None:
            pt.add("rel", v / ref)
        # the floor of the same frame size only (never another size's)
        f = refs.median(reference_test(t, "floor"), r, value, keys=1)
        if f is not None:
            pt.add("eff", f / v if lat else v / f)
        for m, c in (("cyc", "cycles"), ("cpu", "cpu_ns_per_msg")):
            if num(r.get(c)):
                pt.add(m, num(r.get(c)))
        if r.get("cycles_source"):
            src.add(r["cycles_source"])
    out = {}
    for k, (pt, src) in groups.items():
        d = {m: pt.median(m) for m in METRICS}
        d["iv"] = {m: summary(pt.vals.get(m)) for m in ("rel", "eff")}
        d["src"] = ",".join(sorted(src))
        out[k] = d
    return out, KEY_HEAD + VARIANT + extra


def injected_vs_local(rows):
    """{(test, jam, payload, variant without mode...): (median, low, high)}:
    each injected row over the local row of its invocation (the same
    payload and variant), then over rounds"""
    extra = sorted({k for r in rows for k in r if k and k.startswith(schema.AXIS_PREFIX)})
    per_inv = {}
    for r in rows:
        t = r.get("test", "")
        mode = r.get("mode", "")
        if not t.startswith("jam_") or mode not in ("local", "injected"):
            continue
        v = num(r.get("p50_us" if t.endswith("_lat") else "rate_mps"))
        if v is None or v <= 0:
            continue
        k = perf_key(r, extra)
        key = k[:3] + k[4:]     # the mode left out
        per_inv.setdefault((key, schema.invocation(r)), {}).setdefault(mode, []).append(v)
    ratios = {}
    for (key, _), modes in per_inv.items():
        if modes.get("local") and modes.get("injected"):
            ratios.setdefault(key, []).append(median(modes["injected"]) / median(modes["local"]))
    return {k: summary(v) for k, v in ratios.items()}


def reduce_mcast(rows):
    """{(mode, n, radix, ack, jam, payload): median p50 (or modelled) us}"""
    groups = schema.group([r for r in rows if num(r.get("p50_us")) or num(r.get("modelled_us"))],
                          lambda r: tuple(r.get(k, "") for k in ("mode", "n", "radix", "ack", "jam", "payload_bytes")))
    return {k: median([num(r.get("p50_us")) or num(r.get("modelled_us")) for r in g]) for k, g in groups.items()}


def fmt_interval(s, fmt="%.2f"):
    """'0.84 [0.80..0.88]' (median [95% interval over rounds]); '0.84' of one
    round; '-' without a value"""
    if s is None:
        return "-"
    med, lo, hi = s
    if lo == hi:
        return fmt % med
    return ("%s [%s..%s]" % (fmt, fmt, fmt)) % (med, lo, hi)


def fmt_val(test, d):
    """a per-experiment cell: the value, x put, efficiency, CPU cost"""
    if d is None:
        return "-"
    if test.endswith("_lat"):
        s = "%.3g us" % d["raw"]
    else:
        s = "%.3g M/s" % (d["raw"] / 1e6)
    if d["rel"] is not None:
        s += " (%.2fx put)" % d["rel"]
    if d.get("eff") is not None:
        s += "; efficiency %.2f" % d["eff"]
    if test.endswith("_lat"):
        if d["cyc"]:
            s += "; %.0f cycles" % d["cyc"]
        elif d["cpu"]:
            s += "; %.0f cpu-ns (%s)" % (d["cpu"], d["src"] or "cpu time")
    return s
