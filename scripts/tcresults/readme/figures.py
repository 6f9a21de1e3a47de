"""The paragraphs docs/FIGURES.md writes about each figure of `make figures`,
from one results folder: its CSVs, as tc-claims reads them, and its claims."""
import statistics

from ..claims.injected import E as INJ, inj_over_local
from ..reduce import References
from ..schema import num, size_label
from .sources import (claim_value, generator, pct, pct_abs, results_out, span, times, us, verdict)

PLAIN = dict(wait="poll", placement="default", stress="none")


def rounds_of(r, E, metric, **where):
    """{round: median metric} of the rows matching where, per round"""
    out = {}
    for rnd in r.rounds(E):
        vals = [num(x.get(metric)) for x in r.match(E, rnd, **where)]
        vals = [v for v in vals if v is not None]
        if vals:
            out[rnd] = statistics.median(vals)
    return out


def ref_share(r, E, ref_test, **where):
    """the median over rounds of reference / jam (p50) for the rows matching
    where, each against its own invocation's reference (the floor's pace)"""
    rows = r.rows(E) or []
    refs = References(rows, {ref_test})
    vals = []
    for x in r.match(E, None, **where):
        ref, v = refs.median(ref_test, x, lambda c: num(c.get("p50_us"))), num(x.get("p50_us"))
        if ref and v:
            vals.append(ref / v)
    return statistics.median(vals) if vals else None


@generator("fig07-08")
def fig07_08(ctx, srcs, attrs):
    """Figs. 7-8: injected against local per payload, claims 1a-1d"""
    src = srcs[0]
    r, sh, c = ctx.folder(src), ctx.sheet(src), ctx.claims(src)
    E = INJ
    out = []
    for jam, label in (("indirect_put", "Indirect Put"), ("server_sum", "Server-Side Sum")):
        over = inj_over_local(sh, None, "jam_lat", "p50_us", jam)
        if not over:
            out.append("- **%s:** no local and injected rows in %s.csv." % (label, E))
            continue
        loc = r.series(E, "p50_us", None, test="jam_lat", jam=jam, mode="local", **PLAIN)
        inj = r.series(E, "p50_us", None, test="jam_lat", jam=jam, mode="injected", **PLAIN)
        s0 = min(over)
        out.append("- **%s:** injected p50 over local, per payload: %s (at %s: %s against %s)." % (
            label, ", ".join("%s at %s" % (pct(v - 1), size_label(s)) for s, v in sorted(over.items())),
            size_label(s0), us(inj[s0]), us(loc[s0])))
    out.append("- **Rate, Indirect Put:** 1 - injected/local at the smallest payload is %s (claim 1b)."
               % claim_value(c.get("1b"), pct))
    out.append("- **Claims:** 1a (latency, smallest payload: %s) %s; 1b %s; 1c (Indirect Put converged "
               "from 4 KiB) %s; 1d (Server-Side Sum converged from 256 B) %s." % (
                   claim_value(c.get("1a"), pct), verdict(c.get("1a")), verdict(c.get("1b")),
                   verdict(c.get("1c")), verdict(c.get("1d"))))
    loc = r.series(E, "p50_us", None, test="jam_lat", jam="indirect_put", mode="local", **PLAIN)
    if loc:
        s0 = min(loc)
        share = ref_share(r, E, "floor_lat", test="jam_lat", jam="indirect_put", mode="local",
                          payload_bytes=str(s0), **PLAIN)
        if share:
            out.append("- **Against the floor:** a local %s Indirect Put runs at %.2f of the floor's pace "
                       "(floor_lat / jam_lat within each invocation, median over rounds)." % (size_label(s0), share))
    return results_out(ctx, srcs, "\n".join(out) + "\n")


@generator("fig09-10")
def fig09_10(ctx, srcs, attrs):
    """Figs. 9-10: placement at the smallest payload, claims 2a-2c"""
    src = srcs[0]
    r, c = ctx.folder(src), ctx.claims(src)
    E = "fig09-10-placement"
    base = dict(test="jam_lat", jam="indirect_put", wait="poll", stress="none")
    p50 = {pl: r.series(E, "p50_us", None, placement=pl, **base) for pl in ("llc", "default", "dram")}
    rate = {pl: r.series(E, "rate_mps", None, placement=pl, **dict(base, test="jam_rate"))
            for pl in ("llc", "default", "dram")}
    have = [pl for pl in ("llc", "default", "dram") if p50[pl]]
    if not p50["default"]:
        return results_out(ctx, srcs, "No Indirect Put rows in %s.csv.\n" % E)
    s0 = min(p50["default"])
    out = ["Indirect Put at %s:" % size_label(s0),
           "- p50 is %s;" % ", ".join("%s with `%s`" % (us(p50[pl][s0]), pl) for pl in have if s0 in p50[pl])]
    if "llc" in have:
        out.append("- so `llc` is %s below `dram` (claim 2a, median over rounds: %s) and %s below "
                   "`default` (2a-def: %s, 95%% interval %s..%s);" % (
                       pct_abs(1 - p50["llc"][s0] / p50["dram"][s0]), verdict(c.get("2a")),
                       pct_abs(1 - p50["llc"][s0] / p50["default"][s0]), verdict(c.get("2a-def")),
                       pct(c["2a-def"]["lo"]) if c.get("2a-def") and c["2a-def"]["lo"] is not None else "-",
                       pct(c["2a-def"]["hi"]) if c.get("2a-def") and c["2a-def"]["hi"] is not None else "-"))
        big = sorted(s for s in p50["llc"] if s > s0 and s in p50["default"])
        if big:
            out.append("- above %s, `llc` / `default` p50: %s (the sender demotes every line itself);" % (
                size_label(s0), ", ".join("%s at %s" % (times(p50["llc"][s] / p50["default"][s]), size_label(s))
                                          for s in big)))
        if s0 in rate["llc"] and s0 in rate["dram"] and s0 in rate["default"]:
            out.append("- rate with `llc` is %s `dram`'s at %s (2b: %s) and %s `default`'s (2b-def: %s)." % (
                times(rate["llc"][s0] / rate["dram"][s0]), size_label(s0), verdict(c.get("2b")),
                times(rate["llc"][s0] / rate["default"][s0]), verdict(c.get("2b-def"))))
    return results_out(ctx, srcs, "\n".join(out) + "\n")


@generator("fig11-12")
def fig11_12(ctx, srcs, attrs):
    """Figs. 11-12: the loaded points' median and tail, claims 3a-3c"""
    src = srcs[0]
    r, c = ctx.folder(src), ctx.claims(src)
    E = "fig11-12-load"
    loaded = r.match(E, None, test="jam_lat", stress="vm")
    if not loaded:
        return results_out(ctx, srcs, "No loaded rows (stress vm) in %s.csv.\n" % E)
    sizes = sorted({int(num(x["payload_bytes"])) for x in loaded})
    iters = min(int(num(x["iterations"])) for x in loaded)
    s = sizes[0]
    base = dict(test="jam_lat", jam="indirect_put", payload_bytes=str(s), wait="poll")
    unl = r.series(E, "p50_us", None, placement="default", stress="none", **base).get(s)
    lod = r.series(E, "p50_us", None, placement="default", stress="vm", **base).get(s)
    out = ["- **Setup:** the loaded points run at %s with {:,} iterations, so %d samples lie beyond p99.9.".format(
        iters) % ("/".join(size_label(x) for x in sizes), iters // 1000)]
    if unl and lod:
        out.append("- **The median:** Indirect Put with `default` placement reads %s loaded against %s unloaded."
                   % (us(lod), us(unl)))
    tails = []
    for pl in ("default", "llc", "dram"):
        per = rounds_of(r, E, "p999_us", placement=pl, stress="vm", **base)
        if per:
            tails.append("`%s` %s" % (pl, span(list(per.values()), us)))
    out.append("- **The p99.9 tail** of Indirect Put over the rounds, per placement: %s." % "; ".join(tails))
    sum_llc = rounds_of(r, E, "p999_us", placement="llc", stress="vm", **dict(base, jam="server_sum"))
    out.append("- **The claims:** 3a %s, 3a-def %s, 3b %s; 3c (Server-Side Sum's `llc` tail spread, %s; its p99.9 "
               "over the rounds %s) %s." % (
                   verdict(c.get("3a")), verdict(c.get("3a-def")), verdict(c.get("3b")),
                   claim_value(c.get("3c"), lambda v: "%.0f%%" % v),
                   span(list(sum_llc.values()), us) if sum_llc else "-", verdict(c.get("3c"))))
    return results_out(ctx, srcs, "\n".join(out) + "\n")


@generator("fig13-14")
def fig13_14(ctx, srcs, attrs):
    """Figs. 13-14: wait strategies at 64 B and under sparse traffic, claims 4a-4c"""
    src = srcs[0]
    r, c = ctx.folder(src), ctx.claims(src)
    E, ES = "fig13-14-wait", "fig13-14-wait-sparse"
    base = dict(test="jam_lat", jam="indirect_put", placement="default", stress="none")
    p50 = {w: r.series(E, "p50_us", None, wait=w, **base) for w in ("poll", "pause", "event")}
    out = []
    if c.get("4ap1") and c["4ap1"].get("median") is not None:
        out.append("- **pause:** p50 against `poll` at 64 B: %s, claim 4ap1 %s. The wait loop runs %s fewer "
                   "iterations per message than `poll` (4bp1, %s): pause stretches each spin; with thread CPU "
                   "time in place of cycles that cannot show as a CPU saving." % (
                       claim_value(c["4ap1"], lambda v: "%+.1f%%" % (v * 100)), verdict(c["4ap1"]),
                       times(c["4bp1"]["median"]) if c.get("4bp1") and c["4bp1"]["median"] else "-",
                       verdict(c.get("4bp1"))))
    if p50["event"] and p50["poll"]:
        s0 = min(set(p50["event"]) & set(p50["poll"]))
        cpu = c.get("4bp2")
        out.append("- **event:** %s the latency of `poll` at %s (%s against %s, a kernel wake-up per message); "
                   "CPU per message, poll / event: %s (4bp2 %s)." % (
                       times(p50["event"][s0] / p50["poll"][s0]), size_label(s0), us(p50["event"][s0]),
                       us(p50["poll"][s0]), times(cpu["median"]) if cpu and cpu["median"] else "-", verdict(cpu)))
    gaps = sorted({int(num(x["gap_us"]) or 0) for x in r.rows(ES) or []})
    if gaps:
        g = gaps[-1]
        lat = {w: r.series(ES, "p50_us", None, wait=w, gap_us=str(g), **base) for w in ("poll", "event", "adaptive")}
        lat = {w: statistics.median(v.values()) for w, v in lat.items() if v}
        out.append("- **Sparse traffic** (`fig13-14-wait-sparse`, the client idles `--gap-us` between round "
                   "trips): at a %d us gap the server's CPU time per message is %s lower with `event` (4bs1 %s) "
                   "and %s lower with `adaptive` (4bs2 %s) than with `poll`, at %s of latency against %s." % (
                       g, times(c["4bs1"]["median"]) if c.get("4bs1") else "-", verdict(c.get("4bs1")),
                       times(c["4bs2"]["median"]) if c.get("4bs2") else "-", verdict(c.get("4bs2")),
                       us(lat["event"]) if "event" in lat else "-", us(lat["poll"]) if "poll" in lat else "-"))
    return results_out(ctx, srcs, "\n".join(out) + "\n")


@generator("mcast")
def mcast(ctx, srcs, attrs):
    """multicast: the simulation, and the tree against naive unicasts as measured

    (src: a folder of make figures, then optionally one with mcast-single-host.csv)"""
    src = srcs[0]
    r = ctx.folder(src)
    rows = r.rows("mcast-scaling") or []
    sim = [x for x in rows if x["mode"] == "simulate-tree" and x["round"] == "1"]
    out = []
    if sim:
        n = max(int(x["n"]) for x in sim)
        at = {int(x["radix"]): x for x in sim if int(x["n"]) == n}
        naive = [x for x in rows if x["mode"] == "simulate-naive" and int(x["n"]) == n and x["round"] == "1"]
        hop = at[min(at)]
        out.append("- **Simulation:** it runs the real plan and codec for up to {:,} nodes: depth %s at R = %d "
                   "(%s at R = %d), {:,} edges, %s B of encoded targets per hop on average (the most over N and R). "
                   "The modelled completion is %s at R = %d, against %s for N naive unicasts (%s us per hop, %s us "
                   "per send).".format(n, int(at[min(at)]["edges"])) % (
                       at[max(at)]["depth"] if 8 not in at else at[8]["depth"], 8 if 8 in at else max(at),
                       at[min(at)]["depth"], min(at),
                       "%.1f" % max(num(x["target_bytes_per_hop"]) for x in sim),
                       us(num((at.get(8) or at[max(at)])["modelled_us"])), 8 if 8 in at else max(at),
                       us(num(naive[0]["modelled_us"])) if naive else "-",
                       "%g" % num(hop["hop_us"]), "%g" % num(hop["send_us"])))
    meas = [x for x in rows if x["mode"] in ("tree", "naive")]
    if meas:
        ns = sorted({int(x["n"]) for x in meas})
        ratio = []
        for n in ns:
            tree = [num(x["p50_us"]) for x in meas if x["mode"] == "tree" and int(x["n"]) == n]
            nv = [num(x["p50_us"]) for x in meas if x["mode"] == "naive" and int(x["n"]) == n]
            if tree and nv:
                ratio.append("%s at N = %d" % (times(statistics.median(nv) / min(tree)), n))
        out.append("- **Measured** (N = %d to %d processes, `--ack`, median over rounds): naive p50 / the best "
                   "radix's tree p50: %s (below 1: the tree is slower; with more processes than cores, every "
                   "tree level is a process wake-up)." % (ns[0], ns[-1], ", ".join(ratio)))
    if len(srcs) > 1:
        p = ctx.path(srcs[1] + "/mcast-single-host.csv")
        from ..schema import read_csv
        _, one = read_csv(p)
        n = max(int(x["n"]) for x in one)
        top = [x for x in one if int(x["n"]) == n]
        nv = [x for x in top if x["mode"] == "naive"]
        tr = [x for x in top if x["mode"] == "tree"]
        if nv and tr:
            out.append("- **Up to N = %d** on one host (`%s/`): the tree's p50 is %s below naive over the radices "
                       "and its p99 %s below (naive's origin serialises %d sends and %d acks)." % (
                           n, srcs[1], span([num(nv[0]["p50_us"]) / num(x["p50_us"]) for x in tr], times),
                           span([num(nv[0]["p99_us"]) / num(x["p99_us"]) for x in tr], times), n - 1, n - 1))
    return results_out(ctx, srcs, "\n".join(out) + "\n")


@generator("claims-summary")
def claims_summary(ctx, srcs, attrs):
    """the claims' tallies, the paper's rows and the proxies apart"""
    from ..claims.report import tally
    src = srcs[0]
    sh = ctx.sheet(src)
    rounds = sorted({x["rounds"] for x in sh.rows if x["rounds"]})
    body = ("On %s (%s round%s per point): the paper's rows read %s; the proxies %s (`%s/claims.md`).\n" % (
        sh.r.id, "-".join(str(n) for n in sorted({rounds[0], rounds[-1]})) if rounds else "no",
        "" if rounds == [1] else "s", tally(sh.rows, False) or "none", tally(sh.rows, True) or "none",
        src.rstrip("/")))
    return results_out(ctx, srcs, body)


@generator("host")
def host(ctx, srcs, attrs):
    """what the host of a results folder has and lacks, from its platform report"""
    r = ctx.folder(srcs[0])
    p = r.platform
    tj = [t for e in (r.meta.get("experiments") or {}).values() for t in e.get("tool_json") or []]
    tls = sorted({t.get("transports") for t in tj if t.get("transports")})
    out = ["- %s, %s;" % ((p.get("cpu") or {}).get("model_name", "?"), (p.get("topology") or {}).get("summary", "?"))]
    if tls:
        out.append("- UCX's `%s` carry the puts;" % "`, `".join(tls))
    pmu = p.get("pmu", "?")
    out.append("- %s;" % ("a PMU (cycles per message)" if pmu == "supported" else
                          "no PMU (CPU time per message stands in for cycles): %s" % pmu))
    waits = p.get("wait") or {}
    out.append("- wait strategies: %s; not: %s;" % (
        ", ".join(w for w, v in waits.items() if v == "supported") or "none",
        ", ".join(w for w, v in waits.items() if v != "supported") or "none"))
    ctl = p.get("control") or {}
    out.append("- %s;" % "; ".join("%s control %s" % (k, "supported" if v == "supported" else v.split(":")[0])
                                   for k, v in sorted(ctl.items())))
    llc = (p.get("placement") or {}).get("llc", "?")
    out.append("- `llc` placement %s." % ("runs (%s)" % (p.get("placement") or {}).get("llc_sequence", "")
                                          if llc == "supported" else llc))
    return results_out(ctx, srcs, "\n".join(out) + "\n")
