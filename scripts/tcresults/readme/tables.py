"""docs/MEASUREMENTS.md's tables of measurements other than make figures: jams
against the physical floor (bench-floor.sh), the foundation (make bench),
the soak, Local against Injected and Cached (bench-modes.sh), and the
platforms side by side; each from the files of one results folder."""
import json
import os
import statistics

from .. import floor_table, schema
from ..reduce import References
from ..schema import num, size_label
from .sources import generator, results_out, span, times, us

MEDIAN = statistics.median


@generator("floor")
def floor(ctx, srcs, attrs):
    """jam_lat / floor_lat per jam, mode and payload, from bench-floor.sh's folder (src: .../floor)"""
    src = srcs[0]
    top = ctx.path(src)
    jams = [j for j in ("noop", "server_sum") if os.path.exists(os.path.join(top, j + ".csv"))]
    data = {j: floor_table.ratio_rows(schema.read(os.path.join(top, j + ".csv")).rows) for j in jams}
    sizes = sorted({k[2] for d in data.values() for k in d})
    nround = max(len(v) for d in data.values() for v in d.values())
    waits = sorted({r["wait"] for j in jams for r in schema.read(os.path.join(top, j + ".csv")).rows})
    out = ["p50 one-way jam_lat / floor_lat (each against its own invocation's floor at the same frame size), "
           "median of %d invocation%s per jam, every receiver waiting with %s:" % (
               nround, "" if nround == 1 else "s", ", ".join(waits)), "",
           "| jam | mode | %s |" % " | ".join(size_label(s) for s in sizes),
           "|---|---|%s|" % "|".join("---:" for _ in sizes)]
    within, total, over = 0, 0, []
    for j in jams:
        for mode in floor_table.MODES:
            cells = []
            for s in sizes:
                x = floor_table.med(data[j].get(("jam_lat", mode, s)) or [], "floor")
                cells.append("-" if x is None else "%.2f" % x)
                if x is not None:
                    total += 1
                    if x <= floor_table.floor_limit(s):
                        within += 1
                    else:
                        over.append((j, mode, s, x))
            if any(c != "-" for c in cells):
                out.append("| %s | %s | %s |" % (j, mode, " | ".join(cells)))
    groups = {}
    for j, mode, s, x in over:
        groups.setdefault((j, s), []).append(x)
    out += ["", "%d of %d (jam, mode, size) latency points are within 1.25x of the floor%s." % (
        within, total, "" if not over else "; over: " + ", ".join(
            "%s at %s (%s)" % (j, size_label(s), span(v, lambda x: "%.2fx" % x))
            for (j, s), v in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1]))))]
    goals = []
    for j in jams:
        L = data[j].get(("jam_lat", "local", 8))
        R = data[j].get(("jam_rate", "local", 8))
        if not L:
            continue
        pts = [floor_table.perftest_lat(os.path.join(top, "ucx_perftest.%s.r%s.txt" % (j, r["round"]))) for r in L]
        vs_pt = [r["value"] / p for r, p in zip(L, pts) if p]
        goals.append("%s %s of put_lat%s%s" % (
            j, times(floor_table.med(L, "put")),
            ", %s of ucx_perftest `ucp_put_lat -s 64` run before each invocation" % times(MEDIAN(vs_pt))
            if vs_pt else "", ", jam_rate %s of put_rate" % times(floor_table.med(R, "put")) if R else ""))
    if goals:
        out.append("At 8 B the local jam is: %s." % "; ".join(goals))
    return results_out(ctx, srcs, "\n".join(out) + "\n")


def per_round(rows, key):
    """{invocation (the run's jam and round): {test: row}} of rows whose key matches"""
    out = {}
    for r in rows:
        if key(r):
            out.setdefault((r.get("run_jam", ""), r["round"]), {})[r["test"]] = r
    return out


@generator("foundation")
def foundation(ctx, srcs, attrs):
    """make bench's headline at 8 B (foundation.csv): jam against raw put and AM, per signalling"""
    src = srcs[0]
    _, rows = schema.read_csv(ctx.path(src + "/foundation.csv"))
    sigs = [s for s in ("fenced", "ordered") if any(r["signalling"] == s for r in rows)]

    def cell(sig, jam, f):
        inv = per_round(rows, lambda r: r["signalling"] == sig and r.get("run_jam") == jam
                        and r["payload_bytes"] == "8")
        vals = [f(t) for t in inv.values()]
        vals = [v for v in vals if v is not None]
        return MEDIAN(vals) if vals else None

    def val(test, col):
        return lambda t: num(t[test][col]) if test in t else None

    def ratio(a, b, col):
        return lambda t: num(t[a][col]) / num(t[b][col]) if a in t and b in t and num(t[b][col]) else None
    lines = [("jam_lat p50, one-way", val("jam_lat", "p50_us"), lambda v: us(v)),
             ("put_lat p50 (raw `ucp_put_nbx`, same frame)", val("put_lat", "p50_us"), lambda v: us(v)),
             ("am_lat p50 (`ucp_am_send_nbx`)", val("am_lat", "p50_us"), lambda v: us(v)),
             ("jam_lat / put_lat", ratio("jam_lat", "put_lat", "p50_us"), lambda v: "%.2f" % v),
             ("jam_lat / am_lat", ratio("jam_lat", "am_lat", "p50_us"), lambda v: "%.2f" % v),
             ("jam_rate", val("jam_rate", "rate_mps"), lambda v: "%.3g M/s" % (v / 1e6)),
             ("put_rate (raw ring, same credits)", val("put_rate", "rate_mps"), lambda v: "%.3g M/s" % (v / 1e6)),
             ("jam_rate / put_rate", ratio("jam_rate", "put_rate", "rate_mps"), lambda v: "%.2f" % v)]
    nround = len({r["round"] for r in rows})
    out = ["| 8-byte payload, `indirect_put` (median of %d rounds) | %s |" % (nround, " | ".join(sigs)),
           "|---|%s|" % "|".join("---:" for _ in sigs)]
    for label, f, fmt in lines:
        out.append("| %s | %s |" % (label, " | ".join(
            "-" if cell(s, "indirect_put", f) is None else fmt(cell(s, "indirect_put", f)) for s in sigs)))
    noop = []
    for what, ref in (("put", "put_lat"), ("am", "am_lat")):
        v = [cell(sig, "noop", ratio("jam_lat", ref, "p50_us")) for sig in sigs]
        if all(x is not None for x in v):
            noop.append("jam/%s latency %s" % (what, ", ".join("%.2f (%s)" % (x, sig) for x, sig in zip(v, sigs))))
    if noop:
        out += ["", "With the `noop` jam (the framework alone): %s." % "; ".join(noop)]
    return results_out(ctx, srcs, "\n".join(out) + "\n")


@generator("soak")
def soak(ctx, srcs, attrs):
    """make soak's runs (soak-<mode>.json): rate and latency percentiles per mode"""
    src = srcs[0]
    out = ["| mode | jams | jams/s | p50 | p99 | p99.99 | max | exactly once, in order |",
           "|---|---:|---:|---:|---:|---:|---:|---|"]
    beside = set()
    for mode in ("local", "injected", "cached"):
        p = ctx.path("%s/soak-%s.json" % (src, mode))
        if not os.path.exists(p):
            continue
        with open(p) as f:
            s = json.load(f)
        beside.add(s.get("beside", ""))
        out.append("| %s | %s | %.0f k | %s | %s | %s | %s | %s |" % (
            mode, "{:,}".format(s["count"]), s["rate_mps"] / 1e3, us(s["p50_us"]), us(s["p99_us"]),
            us(s["p9999_us"]), us(s["max_us"]),
            "yes" if s.get("in_order_exactly_once") else "NO"))
    out.insert(0, "Beside `%s`:\n" % "`, `".join(sorted(b for b in beside if b)) if beside - {""} else "")
    return results_out(ctx, srcs, "\n".join(x for x in out if x) + "\n")


@generator("modes")
def modes(ctx, srcs, attrs):
    """Local against Injected and Cached per payload (bench-modes.sh's modes-<jam>.csv; src: the CSV)"""
    src = srcs[0]
    _, rows = schema.read_csv(ctx.path(src))
    jam = rows[0]["jam"] if rows else "?"
    sizes = sorted({int(r["payload_bytes"]) for r in rows})
    nround = len({r["round"] for r in rows})

    def over(mode, test, col, loss):
        """{size: the median over rounds of mode / local (a cost: - 1; a loss: 1 -)}"""
        out = {}
        for s in sizes:
            vals = []
            for rnd in sorted({r["round"] for r in rows}):
                pick = {r["mode"]: num(r[col]) for r in rows if r["round"] == rnd and r["test"] == test
                        and int(r["payload_bytes"]) == s}
                if pick.get(mode) and pick.get("local"):
                    x = pick[mode] / pick["local"]
                    vals.append(1 - x if loss else x - 1)
            if vals:
                out[s] = MEDIAN(vals)
        return out
    inj = [r for r in rows if r["mode"] == "injected" and num(r.get("code_bytes"))]
    got = int(num(inj[0]["got_slots"]) or 0) if inj else 0
    code = ("%d bytes of code and %d GOT slot%s" % (int(num(inj[0]["code_bytes"])), got, "" if got == 1 else "s")
            if inj else "?")
    s0 = sizes[0] if sizes else None
    frames = {m: r["frame_bytes"] for r in rows for m in ("local", "injected")
              if r["mode"] == m and r["test"] == "jam_lat" and int(r["payload_bytes"]) == s0}
    out = ["Jam `%s` (%s in the injected frames; at %s a local frame is %s B, an injected one %s B), p50 "
           "one-way latency and rate against local, median of %d rounds (`%s`, measured %s):" % (
               jam, code, size_label(s0) if sizes else "-", frames.get("local", "?"), frames.get("injected", "?"),
               nround, os.path.basename(src),
               min(r["timestamp"] for r in rows if r.get("timestamp"))[:10]
               if any(r.get("timestamp") for r in rows) else "on a date it does not record"), "",
           "| payload | %s |" % " | ".join(size_label(s) for s in sizes), "|---|%s|" % "|".join("---:" for _ in sizes)]
    for label, mode, test, col, loss in (("injected latency", "injected", "jam_lat", "p50_us", False),
                                         ("cached latency", "cached", "jam_lat", "p50_us", False),
                                         ("injected rate loss", "injected", "jam_rate", "rate_mps", True),
                                         ("cached rate loss", "cached", "jam_rate", "rate_mps", True)):
        v = over(mode, test, col, loss)
        out.append("| %s | %s |" % (label, " | ".join(
            ("%+.0f%%" if not loss else "%.0f%%") % (v[s] * 100) if s in v else "-" for s in sizes)))
    return results_out(ctx, srcs, "\n".join(out) + "\n")


def label_of(f):
    """a platform as a reader knows it: vendor model, family/model, hypervisor"""
    cpu = f.platform.get("cpu") or {}
    hv = (cpu.get("hypervisor") or "").strip()
    hv = {"KVMKVMKVM": "KVM", "bhyve bhyve": "bhyve"}.get(hv, hv) or "bare metal"
    return "%s (family %s model %s, %s)" % (cpu.get("model_name", "?"), cpu.get("family", "?"),
                                             cpu.get("model", "?"), hv)


def inv_ratio(f, E, ref_test, col, inverse=False, **where):
    """the median over invocations of row / its reference (reference / row if inverse)"""
    refs = References(f.rows(E) or [], {ref_test})
    vals = []
    for r in f.match(E, None, **where):
        ref, v = refs.median(ref_test, r, lambda c: num(c.get(col))), num(r.get(col))
        if ref and v:
            vals.append(ref / v if inverse else v / ref)
    return MEDIAN(vals) if vals else None


@generator("compare-hosts")
def compare_hosts(ctx, srcs, attrs):
    """results folders side by side: the smallest local Server-Side Sum and the waits at 64 B

    (fig07-08: its p50, against put and the floor; fig13-14: pause / poll, event)"""
    out = ["| platform | CPU | Server-Side Sum local p50 | x put | efficiency (floor / jam) | pause / poll p50, "
           "64 B | event p50, 64 B |", "|---|---|---:|---:|---:|---:|---:|"]
    for s in srcs:
        f = ctx.folder(s)
        E = "fig07-08-injected"
        base = dict(test="jam_lat", jam="server_sum", mode="local", wait="poll", placement="default", stress="none")
        lat = f.series(E, "p50_us", None, **base)
        s0 = min(lat) if lat else None
        W = "fig13-14-wait"
        wb = dict(test="jam_lat", jam="indirect_put", placement="default", stress="none", payload_bytes="64")
        w = {x: f.series(W, "p50_us", None, wait=x, **wb).get(64) for x in ("poll", "pause", "event")}
        cells = [
            "%s at %s" % (us(lat[s0]), size_label(s0)) if s0 else "-",
            times(inv_ratio(f, E, "put_lat", "p50_us", payload_bytes=str(s0), **base)) if s0 else "-",
            "%.2f" % inv_ratio(f, E, "floor_lat", "p50_us", inverse=True, payload_bytes=str(s0), **base)
            if s0 and inv_ratio(f, E, "floor_lat", "p50_us", inverse=True, payload_bytes=str(s0), **base) else "-",
            times(w["pause"] / w["poll"]) if w["pause"] and w["poll"] else "-",
            us(w["event"]) if w["event"] else "-"]
        out.append("| %s | %s | %s |" % (f.id, label_of(f), " | ".join(cells)))
    return results_out(ctx, srcs, "\n".join(out) + "\n")
