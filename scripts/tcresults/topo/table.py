"""The topology sweep's numbers (experiment topo, scripts/experiments/topo.json):
each jam row with its own invocation's references (put and floor of the same
pair, the same round, payload and frame), per pair and per class over the
rounds: the median and the 95% interval (stats.py), and the claims-style
lines between classes."""
import os

from .. import schema, stats

EXP = "topo"
# hwloc's classes, closest first (bench/harness/topo.c's tc_names_topo_class)
CLASSES = ["smt", "l2", "l3", "numa", "package", "machine"]
TITLES = {"smt": "SMT siblings", "l2": "shared L2", "l3": "shared L3", "numa": "same NUMA node",
          "package": "same package", "machine": "across packages"}
NICS = ["none", "local", "package", "remote"]
# per metric: the test, the tool's column and its scale (latencies in ns,
# rates in M msg/s)
METRICS = [("jam_lat_ns", "jam_lat", "p50_us", 1e3), ("put_lat_ns", "put_lat", "p50_us", 1e3),
           ("floor_lat_ns", "floor_lat", "p50_us", 1e3), ("jam_rate_mmps", "jam_rate", "rate_mps", 1e-6),
           ("put_rate_mmps", "put_rate", "rate_mps", 1e-6),
           ("floor_rate_mmps", "floor_rate", "rate_mps", 1e-6)]
RATIOS = [("jam_over_floor_lat", "jam_lat_ns", "floor_lat_ns"), ("jam_over_put_lat", "jam_lat_ns", "put_lat_ns")]
KEY = ["sender", "receiver", "class", "nic", "jam", "mode", "payload_bytes"]
CLASS_KEY = ["class", "nic", "jam", "mode", "payload_bytes"]


def class_order(c, n):
    """a (class, nic) key's place: closest class first, the NIC's side next"""
    return (CLASSES.index(c) if c in CLASSES else len(CLASSES), NICS.index(n) if n in NICS else len(NICS))


def class_label(c, n):
    t = TITLES.get(c, c)
    return t if n in ("none", "") else "%s, NIC %s" % (t, n)


def load(folder):
    """(rows of the topo CSV, {point: its meta.json point_axes entry}), or
    (None, reason) where the folder has no topology sweep"""
    path = os.path.join(folder, EXP + ".csv")
    if not os.path.exists(path):
        return None, "no %s.csv in %s (scripts/tc-topo runs the sweep)" % (EXP, folder)
    em = schema.exp_meta(schema.load_meta(folder), EXP)
    pts = {str(pa.get("point")): pa for pa in em.get("point_axes", []) or []}
    return schema.read(path, em).rows, pts


def per_round(rows, pts):
    """{key tuple: {metric: [one value per round]}}: every jam row with the
    put and floor rows of its own invocation at its payload, the frame its
    mode sends (frame_of) first"""
    refs = {}
    for r in rows:
        if r.get("test", "").split("_")[0] in ("put", "floor"):
            refs.setdefault((r["point"], r["round"], r["test"], r["payload_bytes"]), []).append(r)
    out = {}
    for r in rows:
        if r.get("test") not in ("jam_lat", "jam_rate"):
            continue
        pa = pts.get(str(r.get("point")))
        if not pa or "cores" not in pa:
            continue
        ax = pa.get("axes") or {}
        key = (str(pa["cores"][0]), str(pa["cores"][1]), ax.get("class", ""), ax.get("nic", ""),
               r.get("jam", ""), r.get("mode", ""), r.get("payload_bytes", ""))
        kind = r["test"].split("_")[1]
        got = {"jam": schema.num(r.get("p50_us" if kind == "lat" else "rate_mps"))}
        for ref in ("put", "floor"):
            cand = refs.get((r["point"], r["round"], "%s_%s" % (ref, kind), r["payload_bytes"]), [])
            same = [c for c in cand if c.get("frame_of") == r.get("mode")] or \
                   [c for c in cand if not c.get("frame_of")]
            got[ref] = schema.num(same[0].get("p50_us" if kind == "lat" else "rate_mps")) if same else None
        m = out.setdefault(key, {})
        for name, test, _col, scale in METRICS:
            if test.endswith(kind) and got.get(test.split("_")[0]) is not None:
                m.setdefault(name, []).append(got[test.split("_")[0]] * scale)
        if kind == "lat" and got["jam"]:
            for name, num, den in RATIOS:
                if got.get(den.split("_")[0]):
                    m.setdefault(name, []).append(got["jam"] / got[den.split("_")[0]])
    return out


def summarize(groups):
    """{key: {metric: (median, low, high, n)}} over each metric's values"""
    return {k: {m: stats.median_interval(v) + (len(v),) for m, v in ms.items() if v}
            for k, ms in groups.items()}


def by_class(rounds):
    """the per-pair, per-round values pooled by class: {class key: {metric: values}}"""
    out = {}
    for key, ms in rounds.items():
        ck = key[2:]
        for m, v in ms.items():
            out.setdefault(ck, {}).setdefault(m, []).extend(v)
    return out


def pairs_per_class(rounds):
    out = {}
    for key in rounds:
        out.setdefault(key[2:4], set()).add(key[:2])
    return {k: len(v) for k, v in out.items()}


def csv_text(summary, key_cols, extra=None):
    """the summary as CSV: the key columns, then per metric its median, low
    and high and the values' count"""
    names = [m[0] for m in METRICS] + [r[0] for r in RATIOS]
    cols = key_cols + (list(extra[1]) if extra else []) + \
        [c for m in names for c in (m, m + "_lo", m + "_hi", m + "_n")]
    lines = [",".join(cols)]

    def order(k):
        pair = (int(k[0]), int(k[1])) if len(k) == len(KEY) else ()
        return (class_order(k[-5], k[-4]),) + pair + (k[-3], k[-2], int(k[-1] or 0))
    for k in sorted(summary, key=order):
        cells = list(k) + (list(extra[0](k)) if extra else [])
        for m in names:
            v = summary[k].get(m)
            cells += (["%.6g" % x for x in v[:3]] + [str(v[3])]) if v else ["", "", "", "0"]
        lines.append(",".join(cells))
    return "\n".join(lines) + "\n"


def claims(csum, npairs, jams=("noop", "server_sum"), modes=("local", "injected"), payload="8"):
    """claims-style lines: every class against the closest class the host
    has, at payload: jam_lat's and the floor's change in ns, the jam rate's;
    'higher'/'lower' where the two classes' 95% intervals do not overlap,
    else 'within the noise'"""
    keys = sorted({k[:2] for k in csum}, key=lambda k: class_order(*k))
    if len(keys) < 2:
        only = ", ".join(class_label(*k) for k in keys) or "none measured"
        return ["- one class on this host (%s): no class comparison; a host with more classes "
                "compares them (docs/EXPERIMENTS.md)" % only]
    base = keys[0]
    lines = []
    for jam in jams:
        for mode in modes:
            b = csum.get(base + (jam, mode, payload))
            if not b or "jam_lat_ns" not in b:
                continue
            for k in keys[1:]:
                c = csum.get(k + (jam, mode, payload))
                if not c or "jam_lat_ns" not in c:
                    continue
                lines.append("- %s vs %s (%s, %s, %s B): jam_lat %+.0f ns (%s)%s%s%s" % (
                    class_label(*k), class_label(*base), jam, mode, payload,
                    c["jam_lat_ns"][0] - b["jam_lat_ns"][0], verdict(b["jam_lat_ns"], c["jam_lat_ns"]),
                    delta(", floor", b, c, "floor_lat_ns"), delta(", put", b, c, "put_lat_ns"),
                    rate(b, c)))
    return lines + ["", "Pairs measured per class: " + ", ".join(
        "%s %d" % (class_label(*k), npairs.get(k, 0)) for k in keys) + ". Median over rounds (and pairs); "
        "verdict on the two classes' 95% intervals."]


def verdict(b, c):
    if c[1] > b[2]:
        return "higher"
    if c[2] < b[1]:
        return "lower"
    return "within the noise"


def delta(label, b, c, m):
    if m not in b or m not in c:
        return ""
    return "%s %+.0f ns" % (label, c[m][0] - b[m][0])


def rate(b, c):
    m = "jam_rate_mmps"
    if m not in b or m not in c:
        return ""
    return "; jam_rate %.3g -> %.3g M msg/s (%s)" % (b[m][0], c[m][0], verdict(b[m], c[m]))
