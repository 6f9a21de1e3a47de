"""What tc-claims writes: claims.md (a compact table of the verdicts first,
then the rules, the full table and the per-round detail, the tallies), the
--json summary, and --diff of two such summaries."""
import json
import os
import re

from .. import hoststate
from .verdict import LLC_EMULATED, TAIL_MIN, vclass


def tally(rows, proxy):
    counts, inc = {}, {}
    for r in rows:
        if r["claim"].startswith("proxy:") != proxy:
            continue
        c = vclass(r["verdict"])
        key = "inconclusive" if c.startswith("inconclusive") else c
        counts[key] = counts.get(key, 0) + 1
        if key == "inconclusive":
            sub = c[len("inconclusive ("):-1]
            inc[sub] = inc.get(sub, 0) + 1
    parts = []
    for v, n in sorted(counts.items()):
        if v == "inconclusive":
            parts.append("%d inconclusive (%s)" % (n, "; ".join("%s: %d" % kv for kv in sorted(inc.items()))))
        else:
            parts.append("%d %s" % (n, v))
    return ", ".join(parts)


# a verdict class's word in a count ("27 claims: 20 hold, 3 fail, ..."), in the counts' order
COUNT_WORDS = (("holds", "hold"), ("does not hold", "fail"), ("much larger than the paper", "much larger"),
               ("inconclusive", "inconclusive"), ("not measurable here", "not measurable"))


def counts(rows):
    """[(word, n)] of rows' verdicts, the paper's and the proxies together"""
    n = {}
    for r in rows:
        c = vclass(r["verdict"])
        w = next((w for start, w in COUNT_WORDS if c.startswith(start)), "other")
        n[w] = n.get(w, 0) + 1
    return [(w, n[w]) for _, w in COUNT_WORDS + (("", "other"),) if n.get(w)]


def counts_text(rows):
    """'27 claims: 20 hold, 3 fail, 4 not measurable'"""
    c = counts(rows)
    return "%d claims%s" % (len(rows), ": " + ", ".join("%d %s" % (n, w) for w, n in c) if c else "")


def host_note(meta):
    """claims.md's line on how busy the host was while the run measured"""
    hs = meta.get("host_state")
    if not hs:
        return ("Host state: not recorded (a run from before tc-experiments recorded it); "
                "nothing says whether other work ran beside it.")
    if hs.get("busy"):
        return ("**Host busy during the run**: %s. Its timings carry that work's noise: the verdicts below may "
                "be the neighbours', not the code's; rerun on an idle host (meta.json `host_state`)."
                % "; ".join(hs.get("reasons") or []))
    return "Host state: %s (meta.json `host_state`; thresholds %s)." % (
        hoststate.describe(hs), ", ".join("%s %g" % kv for kv in sorted((hs.get("thresholds") or {}).items())))


# The compact table's words per claim (its id without a proxy's suffix):
# what is measured, and the paper's number, short enough that a row of the
# table fits WIDTH columns; the full claim and rule are in the table below it.
SHORT = {
    "1a": ("injected latency cost", "~40% higher"),
    "1b": ("injected rate loss", "~40% lower"),
    "1c": ("injected = local (Ind. Put)", "~0% from 4 KiB"),
    "1d": ("injected = local (Sum)", "~0% from 256 B"),
    "2a": ("latency gain", "up to 31% lower"),
    "2b": ("rate, Ind. Put <= 1 KiB", "up to 1.9x"),
    "2c": ("Sum rate", "+28%, any size"),
    "3a": ("p99.9 gain under load", "up to 2.4x better"),
    "3b": ("tail spread under load", "peak 182%"),
    "3c": ("Sum tail spread >= 2 KB", "<= 137%"),
    "4a": ("latency cost", "<= 1.5%"),
    "4b": ("CPU saving (Ind. Put)", "2.5x-3.8x fewer"),
    "4c": ("CPU saving (Sum)", "1.84x-3.6x fewer"),
}
WIDTH = 120
VERDICT_SHORT = (("not measurable here", "not measurable"), ("much larger than the paper", "much larger"),
                 ("inconclusive (noise)", "inconclusive: noise"), ("inconclusive (1 round", "1 round: no interval"),
                 ("inconclusive (too few samples", "too few samples"),
                 ("inconclusive (scheduler-bound", "scheduler-bound"))


def short_verdict(v):
    for long_, short in VERDICT_SHORT:
        if v.startswith(long_):
            return short
    return v


def proxy_label(r):
    """what a proxy row compares, in a few words: 'llc/dram', 'pause', ..."""
    c = r["claim"]
    if r["id"][:2] in ("3b", "3c"):        # a bound on the stashing side alone
        return "llc" if c.startswith("proxy: llc") else "default" if c.startswith("proxy: default") else "proxy"
    if c.startswith("proxy: llc"):
        return "llc/default" if r["id"].endswith("-def") else "llc/dram"
    if c.startswith("proxy: default"):
        return "default/dram"
    m = re.match(r"proxy: (\w+)", c)
    w = m.group(1) if m else "proxy"
    return w + ", sparse" if " under sparse traffic" in c else w


def short_claim(r):
    """(claim, paper) of a row for the compact table"""
    cid = r["id"]
    base = re.match(r"\d[a-z]", cid)
    claim, paper = SHORT.get(base.group(0) if base else cid, (r["claim"], r["paper"]))
    if not r["claim"].startswith("proxy:"):
        return claim, paper
    if cid.startswith("4bs"):
        claim = "server CPU"
    elif " counted as wait-loop iterations" in r["claim"]:
        claim = "polls/msg" + claim[len("CPU saving"):]
    return "%s: %s" % (proxy_label(r), claim), paper


def fold(text):
    """a part whose percentages pass FOLD_PCT, each as the x-fold it means
    (1 + p/100: '10595155%' -> '105,953x'); a part keeps one unit"""
    pcts = [float(m) for m in re.findall(r"([+-]?\d+(?:\.\d+)?)%", text)]
    if not pcts or max(abs(p) for p in pcts) < FOLD_PCT:
        return text

    def fx(m):
        x = 1 + float(m.group(1)) / 100
        return "{:,.0f}x".format(x) if x >= 100 else ("%.1fx" if x >= 10 else "%.2fx") % x
    return re.sub(r"([+-]?\d+(?:\.\d+)?)%", fx, text)


# a percentage from here on reads better as a ratio (past 10x)
FOLD_PCT = 1000


def short_value(r, level=0):
    """this platform's value without the rounds, samples, units and other
    sides the full table states; numbers past 100 without decimals,
    percentages past FOLD_PCT as x-fold; a claim not measurable here: the
    reason. level 1 drops where each part was measured (the payload),
    level 2 the intervals too: the steps a row takes until it fits WIDTH."""
    if r["here"] == "-":
        v = r["verdict"]
        why = v[len("not measurable here: "):] if v.startswith("not measurable here: ") else "-"
        why = why.split("; ")[0] if level >= 1 else why
        return why[:45] + "..." if level >= 2 and len(why) > 48 else why
    parts = []
    for part in re.sub(r" \([^()]* side: [^()]*\)", "", r["here"]).split("; "):
        part = re.sub(r", \d+ rounds?( \(no interval\))?(, \d+ samples per row per round)?( \[.*\])?$", "", part)
        if level >= 1:
            part = re.sub(r" at .*$", "", part)
        if level >= 2:
            part = re.sub(r" \[.*\]", "", part)
        parts.append(fold(part))
    text = re.sub(r"([+-]?\d+\.\d+)(?=[%x])", lambda m: ("%+.0f" if m.group(1)[0] in "+-" else "%.0f")
                  % float(m.group(1)) if abs(float(m.group(1))) >= 100 else m.group(1), "; ".join(parts))
    # thousands apart in a ratio: 105953x -> 105,953x
    return re.sub(r"(?<![\d,])(?<!\d\.)(\d{4,})(?=x)", lambda m: "{:,}".format(int(m.group(1))), text)


def compact(rows):
    """the compact table of rows: claim, paper, this platform, verdict; a
    row's value shorter (short_value's levels) until the row fits WIDTH"""
    esc = lambda s: str(s).replace("|", "\\|")
    out = ["| # | claim | paper | this platform | verdict |", "|---|---|---|---|---|"]
    for r in rows:
        claim, paper = short_claim(r)
        for level in range(3):
            line = "| %s |" % " | ".join(esc(x) for x in (r["id"], claim, paper, short_value(r, level),
                                                          short_verdict(r["verdict"])))
            if len(line) <= WIDTH:
                break
        out.append(line)
    return out


def markdown(sh):
    m = sh.r.meta
    out = ["# The paper's headline claims on %s" % (m.get("platform_id") or os.path.basename(os.path.abspath(sh.r.dir))), ""]
    p = sh.r.platform
    cpu = (p.get("cpu") or {}).get("model_name", "?")
    topo = (p.get("topology") or {}).get("summary", "?")
    rounds = sorted({r["rounds"] for r in sh.rows if r["rounds"]})
    rounds_text = "-".join(str(n) for n in sorted({rounds[0], rounds[-1]})) if rounds else "0"
    out += ["Generated by `scripts/tc-claims` from the CSVs in this folder and `meta.json` "
            "(preset %s, git %s, %s). Host: %s, %s; arch %s." % (
                m.get("preset", "?"), m.get("git_rev", "?"), m.get("date", "?"), cpu, topo, p.get("arch", "?")), "",
            host_note(m), "",
            "This platform's value is the median over %s round%s with its 95%% interval; the rules, the "
            "full claims and each round's values follow the tables." % (rounds_text, "" if rounds == [1] else "s")]
    # the paper's experiments and the proxies apart: a proxy measures
    # something close, never the paper's claim itself
    for title, label, proxy in (("The paper's experiments", "Verdicts (the paper's experiment)", False),
                                ("Proxies", "Proxies (the closest thing this host has; not the paper's experiment)",
                                 True)):
        rows = [r for r in sh.rows if r["claim"].startswith("proxy:") == proxy]
        if rows:
            out += ["", "## %s" % title, ""] + compact(rows) + ["", "%s: %s" % (label, tally(sh.rows, proxy))]
    out += ["", "## Rules", "",
            "The paper ran on two Arm servers over 200 Gb/s InfiniBand (ConnectX-6) with hardware LLC "
            "stashing; every constant differs here. Each claim's quantity is computed within one round "
            "(rows of one tc-perf invocation; a folder without a `round` column is one round), then over "
            "rounds: the median and a 95%% Student-t interval on the log of the ratio behind it (multiplicative noise; a max or min over payloads picks its payload by the median over rounds). A claim **holds** only when the "
            "whole interval clears its rule, **does not hold** when the whole interval fails it, and is "
            "`inconclusive (noise)` otherwise; one round gives no interval: `inconclusive (1 round)`, its "
            "value still shown. A magnitude holds from half to twice the paper's effect "
            "(effect = ratio - 1; the whole interval above twice: `much larger than the paper`, not the "
            "paper's magnitude either), a bound within twice the paper's bound; p99.9 claims need "
            ">= %d iterations per row (10 samples beyond the percentile), and under --stress are "
            "`scheduler-bound` (inconclusive) where a round's p99.9 passes 1 ms, a preemption. "
            "Each row states its rule. "
            "`not measurable here` gives the platform report's reason; rows marked `proxy:` measure the "
            "closest thing this host has and are not the paper's experiment; `llc` placement here is %s."
            % (TAIL_MIN, LLC_EMULATED), "",
            "`much larger than the paper` is counted as its own verdict: the effect is there, but not "
            "the paper's magnitude, so it does not hold the paper's number.", "",
            "The compact tables show a percentage past %d%% as the x-fold it means (1 + p/100: a latency "
            "cost as the ratio of the two latencies, a tail spread as p99.9 / p50), and a claim not "
            "measurable here with its reason; the full table below keeps the percentages." % FOLD_PCT, "",
            "## Every claim: its rule, value and verdict", "",
            "| # | claim | figure | paper | rule | this platform: median [95% interval] | verdict | "
            "interval |",
            "|---|---|---|---|---|---|---|---|"]
    esc = lambda s: str(s).replace("|", "\\|")
    for r in sh.rows:
        out.append("| %s |" % " | ".join(esc(r[k]) for k in
                                        ("id", "claim", "figure", "paper", "rule", "here", "verdict", "width")))
    out += ["", "## Per-round and per-payload values", ""]
    for r in sh.rows:
        if r["detail"]:
            out.append("- %s: interval %s; %s" % (r["id"], esc(r["width"]), esc(r["detail"])))
    out.append("")
    return "\n".join(out)


def as_json(sh):
    return {"platform_id": sh.r.meta.get("platform_id") or os.path.basename(os.path.abspath(sh.r.dir)),
            "git_rev": sh.r.meta.get("git_rev"), "date": sh.r.meta.get("date"),
            "claims": [dict(id=r["id"], proxy=r["claim"].startswith("proxy:"), verdict=r["verdict"],
                            verdict_class=vclass(r["verdict"]), median=r["median"], lo=r["lo"],
                            hi=r["hi"], rounds=r["rounds"], samples=r["samples"]) for r in sh.rows]}


def diff(a, b):
    """Two --json files' verdicts side by side, per claim."""
    ja, jb = (json.load(open(p)) for p in (a, b))
    ca = {c["id"]: c for c in ja.get("claims", [])}
    cb = {c["id"]: c for c in jb.get("claims", [])}
    ids = [c["id"] for c in ja.get("claims", [])] + [c["id"] for c in jb.get("claims", []) if c["id"] not in ca]
    cls = lambda c: "(absent)" if c is None else c.get("verdict_class") or vclass(c.get("verdict", ""))
    print("| # | %s | %s | |" % (a, b))
    print("|---|---|---|---|")
    same = 0
    for i in ids:
        va, vb = cls(ca.get(i)), cls(cb.get(i))
        s = "same" if va == vb else "differs"
        same += s == "same"
        print("| %s | %s | %s | %s |" % (i, va, vb, s))
    print("\n%d of %d claims: same verdict" % (same, len(ids)))
    return 0
