"""Figs. 9-12: LLC stashing (claims 2a-2c, 3a-3c): stash on against off
where the host has the control, else the closest placements it has
(llc vs dram and default, or default vs dram), each labelled a proxy."""
from collections import namedtuple

from ..schema import size_label
from .verdict import (BAND, BOUND, LLC_EMULATED, LOSS, PREEMPT_US, RATIO, SPREAD, Stat, combine, judge,
                      per_size, pct, ratio_series, spread, xfmt)

# kind: lower (latency gain), higher (rate ratio), higher-any (and no size
# below 0.95x), lower-x (p99.9 ratio), bound (the stashing side's tail
# spread); eff: the paper's effect (or bound); lim: payloads up to (from, for
# a bound) this size
Spec = namedtuple("Spec", "cid claim fig paper jam test metric kind eff lim stress")
EXPERIMENTS = (
    ("fig09-10-placement", [
        Spec("2a", "LLC stashing lowers latency", "Fig. 9", "up to 31% lower latency (Indirect Put)",
             "indirect_put", "jam_lat", "p50_us", "lower", 0.31, None, "none"),
        Spec("2b", "LLC stashing raises Indirect Put message rate at small sizes", "Fig. 10",
             "up to 1.9x (+92%) rate at small put counts", "indirect_put", "jam_rate", "rate_mps", "higher",
             0.92, 1024, "none"),
        Spec("2c", "LLC stashing raises Server-Side Sum message rate at any size", "Fig. 10 (text)",
             "up to +28% rate, at any size", "server_sum", "jam_rate", "rate_mps", "higher-any", 0.28, None,
             "none")]),
    ("fig11-12-load", [
        Spec("3a", "Under stress-ng vm, stashing improves the p99.9 tail", "Fig. 11",
             "p99.9 up to 2.4x better (Indirect Put)", "indirect_put", "jam_lat", "p999_us", "lower-x",
             1.4, None, "vm"),
        Spec("3b", "Under stress-ng vm, the tail spread with stashing peaks at 182%", "Fig. 11",
             "tail spread peak 182% with stashing", "indirect_put", "jam_lat", "tail_spread_pct", "bound",
             182.0, None, "vm"),
        Spec("3c", "Under stress-ng vm, Server-Side Sum tail spread <= 137% from 2 KB with stashing",
             "Fig. 12", "tail spread <= 137% from 2 KB", "server_sum", "jam_lat", "tail_spread_pct", "bound",
             137.0, 2048, "vm")]))
PICK = "(the payload picked by its median over rounds, then that payload's value per round)"


def stash_pairs(sh, E):
    """How to compare 'stashing on' vs 'off' here: a list of
    (id suffix, label, on_where, off_where, proxy claim prefix), or a reason string."""
    rows = sh.r.rows(E) or []
    st = sh.r.support("control.stash")
    llc = sh.r.support("placement.llc")
    def have(**w):
        return any(all(r.get(k) == v for k, v in w.items()) for r in rows)
    if st == "supported" and have(**{"axis:stash": "on"}) and have(**{"axis:stash": "off"}):
        return [("", "stash on vs off", {"axis:stash": "on"}, {"axis:stash": "off"}, None)]
    if llc == "supported" and have(placement="llc") and have(placement="dram"):
        out = [("", "llc vs dram placement", {"placement": "llc"}, {"placement": "dram"},
                "proxy: %s; against dram placement (non-temporal stores, whose cost falls on the sender)"
                % LLC_EMULATED)]
        if have(placement="default"):
            out.append(("-def", "llc vs default placement", {"placement": "llc"}, {"placement": "default"},
                        "proxy: %s; against default placement (the transport's put)" % LLC_EMULATED))
        return out
    why = []
    if st != "supported":
        why.append("stash control %s" % st)
    if llc != "supported":
        why.append("llc placement %s" % llc)
    if not why:
        why.append("no stash on/off or llc/dram rows in %s.csv" % E)
    return "; ".join(why)


def proxy_pair(sh, E):
    rows = sh.r.rows(E) or []
    if any(r.get("placement") == "dram" for r in rows) and any(r.get("placement") == "default" for r in rows):
        return ("proxy: default (in-cache arrival: the transport's put) vs dram placement (non-temporal "
                "stores) instead of stash on/off", {"placement": "default"}, {"placement": "dram"})
    return None


def stashing(sh):
    for E, specs in EXPERIMENTS:
        rows = sh.r.rows(E)
        for sp in specs:
            if not rows:
                sh.add(sp.cid, sp.claim, sp.fig, sp.paper, "-", "-", "not measurable here: " + sh.r.missing_reason(E))
                continue
            pairs = stash_pairs(sh, E)
            if sp.stress != "none" and not any(r.get("stress") == sp.stress for r in rows):
                sh.add(sp.cid, sp.claim, sp.fig, sp.paper, "-", "-",
                       "not measurable here: no --stress %s rows in %s.csv (%s)"
                       % (sp.stress, E, sh.r.axis_reasons(E, "stress", sp.stress) or "those points were not run"))
            elif isinstance(pairs, str):
                sh.add(sp.cid, sp.claim, sp.fig, sp.paper, "-", "-", "not measurable here: " + pairs)
                px = proxy_pair(sh, E)
                if px and sp.kind == "bound":
                    bound_claim(sh, Sides(sh, E, sp), sp.cid + "p", px[0] + ": " + sp.claim, "default vs dram",
                                px[1], ())
                elif px:
                    stash_claim(sh, E, sp, sp.cid + "p", px[0] + ": " + sp.claim, "default vs dram", px[1], px[2])
            elif sp.kind == "bound":
                # a bound on the stashing side alone: the other sides are shown, not judged
                suf, label, on, _, pre = pairs[0]
                offs = [(p[1].split(" vs ")[1], p[3]) for p in pairs]
                bound_claim(sh, Sides(sh, E, sp), sp.cid, (pre + ": " if pre else "") + sp.claim, label, on, offs)
            else:
                for suf, label, on, off, pre in pairs:
                    stash_claim(sh, E, sp, sp.cid + suf, (pre + ": " if pre else "") + sp.claim, label, on, off)


class Sides:
    """One claim's rows on either side of a comparison (where: the columns
    that make a side), per round."""

    def __init__(self, sh, E, sp):
        self.r, self.E, self.sp = sh.r, E, sp
        self.base = dict(test=sp.test, jam=sp.jam, stress=sp.stress, wait="poll")
        self.tail = sp.metric in ("p999_us", "tail_spread_pct")

    def side(self, rnd, where):
        """{payload: the claim's metric} of one side (within the claim's payloads)"""
        s = self.r.series(self.E, self.sp.metric, rnd, **dict(self.base, **where))
        if self.sp.lim is not None:
            lim = self.sp.lim
            s = {k: v for k, v in s.items() if (k >= lim if self.sp.kind == "bound" else k <= lim)}
        return s

    def samples(self, rnd, sizes, *wheres):
        """the fewest iterations per row of the sides at these payloads in round rnd"""
        n = [self.r.iterations(self.E, rnd, sizes, **dict(self.base, **w)) for w in wheres]
        n = [x for x in n if x is not None]
        return min(n) if n else None

    def fewest_samples(self, per_round, *wheres):
        """the fewest samples over the rounds, per_round: {round: payloads}"""
        n_s = [self.samples(rnd, set(v), *wheres) for rnd, v in per_round.items() if v]
        n_s = [x for x in n_s if x is not None]
        return min(n_s) if n_s else None

    def preempted(self, sizes, *wheres):
        """(rounds whose judged rows reach a preemption's p99.9, rounds, worst p99.9 in us)"""
        if not self.tail or self.sp.stress in (None, "", "none"):
            return None
        hit, total, worst = 0, 0, 0.0
        for rnd in self.r.rounds(self.E):
            vals = [v for w in wheres
                    for s, v in self.r.series(self.E, "p999_us", rnd, **dict(self.base, **w)).items()
                    if s in sizes]
            if not vals:
                continue
            total += 1
            worst = max(worst, max(vals))
            hit += max(vals) > PREEMPT_US
        return (hit, total, worst) if hit else None

    def gains(self, rnd, on, off):
        """{payload: on's gain over off}, > 0 (lower) or > 1 better"""
        r = ratio_series(self.side(rnd, on), self.side(rnd, off))   # on/off
        if self.sp.kind == "lower":                    # latency: 1 - on/off, > 0 is better
            return {s: 1 - v for s, v in r.items()}
        if self.sp.kind == "lower-x":                  # p99.9: off/on, > 1 is better
            return {s: 1 / v for s, v in r.items() if v > 0}
        return r                                       # rate: on/off, > 1 is better


def bound_claim(sh, sd, cid, claim, label, on, offs):
    """3b, 3c: the stashing side's largest tail spread within twice the paper's bound"""
    sp, E = sd.sp, sd.E
    on_name = label.split(" vs ")[0]
    st = Stat(sh.picked(E, lambda rnd: sd.side(rnd, on)), SPREAD)
    if not st.n:
        sh.add(cid, claim, sp.fig, sp.paper, "-", "-",
               "not measurable here: no %s rows (%s) for %s" % (sp.test, label, sp.jam))
        return
    rule = ("max over payloads%s of tail spread (p99.9-p50)/p50, %s side, under --stress %s %s; "
            "the whole 95%% interval <= %.0f%% (%s; a bound on the %s side alone: the other placements "
            "are shown, not judged)" % ("" if sp.lim is None else " >= %s" % size_label(sp.lim), on_name, sp.stress,
                                        PICK, 2 * sp.eff, BOUND, on_name))
    detail = ["spread %s (median over rounds): %s" % (on_name, per_size(sd.side(None, on), spread))]
    shown = []
    for name, w in offs:
        if w == on:
            continue
        ov = sd.side(None, w)
        if ov:
            s2, m2 = max(ov.items(), key=lambda kv: kv[1])
            shown.append("%s side: %.0f%% at %s" % (name, m2, size_label(s2)))
            detail.append("%s: %s" % (name, per_size(ov, spread)))
    samples = sd.fewest_samples({k: sd.side(k, on) for k in sh.r.rounds(E)}, on)
    sh.judged(cid, claim, sp.fig, sp.paper, rule, st, spread, "; ".join(detail),
              samples=samples, preempted=sd.preempted(set(sd.side(None, on)), on), hi_ok=2 * sp.eff)
    if shown:
        sh.rows[-1]["here"] += " (%s)" % "; ".join(shown)


def stash_claim(sh, E, sp, cid, claim, label, on, off):
    """2a-2c, 3a: on's largest gain over off within the band around the paper's"""
    sd = Sides(sh, E, sp)
    on_name, off_name = label.split(" vs ")
    eff = sp.eff
    gains = lambda rnd: sd.gains(rnd, on, off)  # noqa: E731
    samp = sd.fewest_samples({k: gains(k) for k in sh.r.rounds(E)}, on, off) if sd.tail else None
    scale = LOSS if sp.kind == "lower" else RATIO
    st = Stat(sh.picked(E, gains, max), scale)
    if not st.n:
        sh.add(cid, claim, sp.fig, sp.paper, "-", "-",
               "not measurable here: no %s rows for both sides of %s (%s)" % (sp.test, label, sp.jam))
        return
    where = "" if sp.lim is None else " <= %s" % size_label(sp.lim)
    pooled = gains(None)
    band = dict(lo_ok=1 + eff / 2, hi_ok=1 + 2 * eff, big=1 + 2 * eff)
    if sp.kind == "lower":
        rule = ("max over payloads%s of 1 - p50(%s)/p50(%s) %s; the whole 95%% interval within "
                "%.1f%%..%.1f%% (%s)" % (where, on_name, off_name, PICK, eff * 50, eff * 200, BAND))
        f = lambda v: "%.1f%%" % (v * 100)  # noqa: E731
        sh.judged(cid, claim, sp.fig, sp.paper, rule, st, f,
                  "%s gain (median over rounds): %s" % (label, per_size(pooled, pct)),
                  lo_ok=eff / 2, hi_ok=2 * eff, big=2 * eff,
                  vs="median %s lower against up to %.0f%%" % (f(st.med), eff * 100))
    elif sp.kind == "lower-x":
        rule = ("max over payloads of p99.9(%s)/p99.9(%s) under --stress %s %s; the whole 95%% "
                "interval within %.2fx..%.2fx (%s)" % (off_name, on_name, sp.stress, PICK, 1 + eff / 2, 1 + 2 * eff,
                                                       BAND))
        sh.judged(cid, claim, sp.fig, sp.paper, rule, st, xfmt,
                  "%s p99.9 ratio (median over rounds): %s" % (label, per_size(pooled, xfmt)),
                  samples=samp, preempted=sd.preempted(set(pooled), on, off),
                  vs="median %s against up to %.1fx" % (xfmt(st.med), 1 + eff), **band)
    elif sp.kind == "higher":
        rule = ("max over payloads%s of rate(%s)/rate(%s) %s; the whole 95%% interval within "
                "%.2fx..%.2fx (%s)" % (where, on_name, off_name, PICK, 1 + eff / 2, 1 + 2 * eff, BAND))
        sh.judged(cid, claim, sp.fig, sp.paper, rule, st, xfmt,
                  "%s rate ratio (median over rounds): %s" % (label, per_size(pooled, xfmt)),
                  vs="median %s against up to %.2fx" % (xfmt(st.med), 1 + eff), **band)
    else:  # higher-any: the max within the band and no payload below 0.95x
        smin = Stat(sh.picked(E, gains, min), scale)
        vmax = judge(st, vs="median %s against up to %.2fx" % (xfmt(st.med), 1 + eff), **band)
        vmin = judge(smin, 0.95, None, None)
        rule = ("max over payloads of rate(%s)/rate(%s) %s, the whole 95%% interval within "
                "%.2fx..%.2fx (%s), and the min over payloads' interval >= 0.95x (at any size; the same pick)"
                % (on_name, off_name, PICK, 1 + eff / 2, 1 + 2 * eff, BAND))
        sh.judged(cid, claim, sp.fig, sp.paper, rule, st, xfmt,
                  "%s rate ratio (median over rounds): %s; min over payloads %s; max: %s, min: %s" % (
                      label, per_size(pooled, xfmt), smin.rounds_text(xfmt), vmax, vmin),
                  verdict=combine([vmax, vmin]))
        sh.rows[-1]["here"] = "max %s; min %s" % (st.cell(xfmt), smin.cell(xfmt))
