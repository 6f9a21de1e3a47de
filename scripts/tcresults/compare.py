"""tc-compare: hold one result set against another and flag regressions.

usage: tc-compare BASE NEW [--threshold PCT] [--gate interval|median]
                  [--report-only [--fail-factor F]]
                  [--gate-tail] [--rate-from window|total] [--key COL]...
                  [--experiment NAME]... [--all]

BASE and NEW are result folders in the runner's layout (results/<platform>/,
every <experiment>.csv in both is compared; *.dist.csv are skipped) or two CSV
files. Rows are matched by experiment, test, jam, mode, payload_bytes, wait,
placement, sw_prefetch, stress, signal and gap_us (tc-mcast files: experiment, mode, n, radix,
ack, jam, payload_bytes); --key COL adds a column to the match.

Every jam_*/am_* value is first divided by its run's raw-put reference: the
put_lat (latency tests) or put_rate (rate tests) row with the same
payload_bytes, wait, placement, sw_prefetch and stress in the same file, from
the same point and round (one tc-perf invocation) when the file has one there,
otherwise the median of the file's matching reference rows. Machine speed
cancels; what is left is the jam's cost relative to a raw put. When one point
was measured several times (rounds), the median of its normalised values is
used. The ratio NEW/BASE is then taken per metric: p50 and p99.9 for latency
tests, rate for rate tests. The rate is the median window's (1e6 / p50_us of
the rate row: tc-perf times every --window of messages), which one preemption
does not move; the whole-run rate (rate_mps) is shown as "rate total" and
gates instead with --rate-from total. put_* rows are shown raw (the machine's
own drift); tc-mcast rows have no reference and are compared raw.

Gate: a jam_* (or measured tc-mcast) point regresses when its latency ratio is
above 1+PCT/100 or its rate ratio below 1/(1+PCT/100) (default PCT 10) and,
with --gate interval (the default), the rounds of NEW all lie on the worse side
of all the rounds of BASE (their min..max intervals do not overlap): two runs
of one tree whose rounds overlap raise no alarm however far their medians
drift; a point that moved past the threshold within that spread is listed as
"noise". --gate median lets the medians alone decide (one round per point
gives a point interval, the same thing). Verdicts read as changes of NEW:
"p50 +20%" is 20% slower, "rate -14%" is 14% fewer messages per second.
p99.9 is reported but does not gate unless --gate-tail: one preemption moves
it. am_* and put_* rows never gate (UCX's own paths).
Instructions: where both folders hold cost.csv (scripts/bench-cost.sh: each
jam's send and run under callgrind, instructions per message), each point's
NEW/BASE ratio is listed, and a point with more than --ir-threshold PCT
(default 3) more instructions (total, send or receive) regresses like a
gated one. Counts do not move with the machine's speed or placement: what
moves them is the code (or the compiler, or the C library's choice of
routine for the CPU). The simulated cycles beside them are callgrind's
cache and branch model, which a layout shift moves by a miss a message with
no instruction moved: they regress past --cycles-threshold (default 10).

Output: markdown that leads with the verdict and the regressions, one line
each (a pull-request comment's first lines), then the header, the tables and
the closing lines. --json FILE and --junit FILE write the verdicts (one case a
gated point and a counted point; JUnit: a failure for a regression).

Exit status: 1 when any gated point regresses, 0 otherwise; with
--report-only 0 whatever the figures show (the closing line counts the same
regressions), unless --fail-factor F is given (then 1 when a gated point is
worse by more than F: latency ratio > F or rate ratio < 1/F). 2 when nothing
is compared (no such folder, a folder against a file, no common rows), with
one line saying why and what to run.
"""
import glob
import math
import os
import statistics
import sys

from . import cli, schema, verdict
from .reduce import Point, References
from .schema import num

PERF_KEY = ["experiment", "test", "jam", "mode", "payload_bytes", "frame_bytes", "signal", "wait", "placement",
            "sw_prefetch", "stress", "gap_us", "hw_prefetch", "stash"]
MCAST_KEY = ["experiment", "mode", "n", "radix", "ack", "jam", "payload_bytes"]
LAT_METRICS = [("p50", "p50_us"), ("p99.9", "p999_us")]
# rate: "window" is the median window's rate, 1e6 / p50_us of the rate test
# (p50_us there is the per-message time of the median histogram sample of
# --window messages); "rate total" is rate_mps, messages / whole run.
RATE_METRICS = {"window": [("rate", "1/p50"), ("rate total", "rate_mps")],
                "total": [("rate", "rate_mps")]}
METRIC_ORDER = ["p50", "p99.9", "rate", "rate total", "modelled"]
COST_FILE = "cost.csv"  # instructions per message, compared on their own (compare_cost)


def value(r, col):
    if col == "1/p50":
        v = num(r.get("p50_us"))
        return 1e6 / v if v and v > 0 else None
    return num(r.get(col))


def reduced(role, norm, point):
    return {"role": role, "norm": norm, "vals": point.medians(), "span": point.spans()}


def reduce_mcast(rows, keycols):
    """{key: reduced point} of a tc-mcast file: raw values (no reference);
    a simulated row's modelled time is shown, not gated."""
    groups = {}
    for r in rows:
        key = tuple(r.get(k, "") or "" for k in keycols)
        measured = not (r.get("mode", "").startswith("simulate"))
        metrics = LAT_METRICS if measured else [("modelled", "modelled_us")]
        role, pt = groups.setdefault(key, ("gate" if measured else "info", Point()))
        for name, col in metrics:
            v = num(r.get(col))
            if v is not None and v > 0:
                pt.add(name, v)
    return {key: reduced(role, "raw", pt) for key, (role, pt) in groups.items()}


def reduce_perf(rows, keycols, rate_from):
    """{key: reduced point} of a tc-perf file: jam_* and am_* values divided
    by their invocation's put reference; put_* raw."""
    refs = References(rows, ("put_lat", "put_rate"))
    groups = {}
    for r in rows:
        t = r.get("test", "")
        if not t:
            continue
        key = tuple(r.get(k, "") or "" for k in keycols)
        metrics = LAT_METRICS if t.endswith("_lat") else RATE_METRICS[rate_from]
        role = "ref" if t.startswith("put_") else "gate" if t.startswith("jam_") else "info"
        g = groups.setdefault(key, {"role": role, "raw": Point(), "rel": Point(), "missing_ref": False})
        reft = "put_lat" if t.endswith("_lat") else "put_rate"
        for name, col in metrics:
            v = value(r, col)
            if v is None or v <= 0:
                continue
            g["raw"].add(name, v)
            if role != "ref":
                ref = refs.median(reft, r, lambda c, col=col: value(c, col))
                if ref is None:
                    g["missing_ref"] = True
                else:
                    g["rel"].add(name, v / ref)
    out = {}
    for key, g in groups.items():
        if g["role"] == "ref":
            out[key] = reduced("ref", "raw", g["raw"])
        elif g["missing_ref"]:
            out[key] = reduced(g["role"], "raw (no put reference)", g["raw"])
        else:
            out[key] = reduced(g["role"], "/put", g["rel"])
    return out


def reduce_file(path, extra_key, meta=None, rate_from="window"):
    """-> (kind, {key: {"role", "norm", "vals": {metric: median value},
    "span": {metric: (min, max, rounds)}}}, key columns)."""
    # sweep axes the tool's CSV has no column for (e.g. the runner's stash
    # axis): from meta.json's point_axes, as axis:NAME key columns
    exp_name = os.path.basename(path)[:-4]
    t = schema.read(path, schema.exp_meta(meta or {}, exp_name))
    extra_key = list(extra_key) + [c for c in t.axes if c not in extra_key]
    exp_default = os.path.basename(path)[:-len(".csv")] if path.endswith(".csv") else path
    for r in t.rows:
        if not r.get("experiment"):
            r["experiment"] = exp_default
    if t.kind == schema.MCAST:
        keycols = MCAST_KEY + [k for k in extra_key if k not in MCAST_KEY]
        return "mcast", reduce_mcast(t.rows, keycols), keycols
    keycols = PERF_KEY + [k for k in extra_key if k not in PERF_KEY]
    return "perf", reduce_perf(t.rows, keycols, rate_from), keycols


# what to run to have something to compare, in the nothing-compared line
RUN_HINT = "make bench-ci, or scripts/bench-ci.sh -o DIR for a result folder"


def missing(base, new):
    """why BASE and NEW cannot be compared as files or folders; None when they can"""
    for label, p in (("BASE", base), ("NEW", new)):
        if not os.path.exists(p):
            return "%s %s: no such folder or file" % (label, p)
    if os.path.isfile(base) != os.path.isfile(new):
        return "BASE and NEW must both be folders or both CSV files (%s, %s)" % (base, new)
    return None


def pairs(base, new, only):
    """[(BASE csv, NEW csv)] to compare; what one side lacks is said"""
    if os.path.isfile(base) and os.path.isfile(new):
        return [(base, new)]

    def wanted(name):
        return not name.endswith(".dist.csv") and name != COST_FILE and (not only or name[:-4] in only)
    out = []
    for b in sorted(glob.glob(os.path.join(base, "*.csv"))):
        name = os.path.basename(b)
        if not wanted(name):
            continue
        n = os.path.join(new, name)
        if os.path.exists(n):
            out.append((b, n))
        else:
            print("tc-compare: %s only in BASE (not compared)" % name)
    for n in sorted(glob.glob(os.path.join(new, "*.csv"))):
        name = os.path.basename(n)
        if wanted(name) and not os.path.exists(os.path.join(base, name)):
            print("tc-compare: %s only in NEW (not compared)" % name)
    return out


COST_KEY = ("jam", "mode", "payload_bytes")
# The counts held, each against its threshold on its own: a change that
# moves work from the send to the receive path, or that keeps the
# instructions and misses the cache, shows in one of them.
COST_METRICS = [("instructions", "instructions_per_msg"), ("send instructions", "send_instructions_per_msg"),
                ("recv instructions", "recv_instructions_per_msg"), ("cycles", "cycles_per_msg")]
# The simulated cycles are callgrind's cache and branch model, not a count
# of work: a layout change of the code that moves no instruction can move
# one simulated miss a message (10 cycles, 3-4% of the smallest points), so
# they gate at their own, wider threshold (--cycles-threshold).
MODELLED = {"cycles"}
CYCLES_THRESHOLD = 10.0


def cost_rows(path):
    """{(jam, mode, payload): {metric: count per message}} of a cost.csv
    (a point without its instructions is left out; the jam of another api
    than send, tc_jam_send's, as "noop [prepared]")"""
    out = {}
    for r in schema.read(path).rows:
        vals = {m: num(r.get(col)) for m, col in COST_METRICS}
        if vals["instructions"] is not None:
            key = [r[k] for k in COST_KEY]
            if (r.get("api") or "send") != "send":  # a prepared jam's point: its own row
                key[0] = "%s [%s]" % (key[0], r["api"])
            out[tuple(key)] = vals
    return out


def cost_verdict(b, n, threshold, cycles_threshold=CYCLES_THRESHOLD):
    """(instructions ratio, 'ok' or 'REGRESSION: instructions +5.0%, ...')
    of one point's counts: the instructions past threshold, the simulated
    cycles past cycles_threshold"""
    worse = []
    for m, _ in COST_METRICS:
        lim = 1 + (cycles_threshold if m in MODELLED else threshold) / 100.0
        if b.get(m) and n.get(m) is not None and n[m] / b[m] > lim:
            worse.append("%s %+.1f%%" % (m, (n[m] / b[m] - 1) * 100))
    r = n["instructions"] / b["instructions"] if b["instructions"] > 0 else None
    return r, ("REGRESSION: " + ", ".join(worse)) if worse else "ok"


def cost_ratio(b, n, m):
    return fmt_ratio(n[m] / b[m] if b.get(m) and n.get(m) is not None else None)


def compare_cost(base, new, threshold, cycles_threshold=CYCLES_THRESHOLD):
    """The counts of BASE and NEW (cost.csv in both folders): (the table's
    markdown lines, [(key, base instructions, new instructions, ratio,
    verdict)]); the lines say why where one side has none; ([], []) where
    neither has"""
    paths = [os.path.join(d, COST_FILE) if os.path.isdir(d) else "" for d in (base, new)]
    have = [bool(p) and os.path.exists(p) for p in paths]
    if not any(have):
        return [], []
    if not all(have):
        return ["", "## instructions per message", "",
                "%s only in %s: not compared" % (COST_FILE, "BASE" if have[0] else "NEW"), ""], []
    side = [cost_rows(p) for p in paths]
    lines = ["", "## instructions per message", "",
             "tc-cost under callgrind (scripts/bench-cost.sh): a send and the run of it, per message, "
             "against %s; a point whose instructions, send or receive instructions are more than %g%% "
             "above it (--ir-threshold), or whose simulated cycles (callgrind's cache and branch model) "
             "are more than %g%% above it (--cycles-threshold), regresses"
             % (paths[0], threshold, cycles_threshold), "",
             "| jam | mode | payload_bytes | base | new | ratio | send | recv | cycles | verdict |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    points = []
    for k in sorted(set(side[0]) | set(side[1]), key=lambda k: (k[0], k[1], int(k[2]))):
        if k not in side[0] or k not in side[1]:
            only = side[0].get(k) or side[1].get(k)
            lines.append("| %s | %s | %s | %s | %s | - | - | - | - | only in %s |" % (
                k + (("%.1f" % only["instructions"]) if k in side[0] else "-",
                     ("%.1f" % only["instructions"]) if k in side[1] else "-", "BASE" if k in side[0] else "NEW")))
            continue
        b, n = side[0][k], side[1][k]
        r, v = cost_verdict(b, n, threshold, cycles_threshold)
        points.append((k, b["instructions"], n["instructions"], r, v))
        lines.append("| %s | %s | %s | %.1f | %.1f | %s | %s | %s | %s | %s |" % (
            k + (b["instructions"], n["instructions"], fmt_ratio(r), cost_ratio(b, n, "send instructions"),
                 cost_ratio(b, n, "recv instructions"), cost_ratio(b, n, "cycles"), v)))
    return lines + [""], points


def separation(bspan, nspan, higher_is_better):
    """How far NEW's rounds lie on the worse side of all of BASE's: > 1 when
    even NEW's best round is worse than BASE's worst (the intervals do not
    overlap), the factor between those two ends; <= 1 when they overlap."""
    (blo, bhi, _), (nlo, nhi, _) = bspan, nspan
    if higher_is_better:
        return blo / nhi if nhi > 0 else math.inf
    return nlo / bhi if bhi > 0 else math.inf


def change(metric, ratio):
    """'p50 +20%' (latency up = slower), 'rate -14%' (rate down = slower)."""
    return "%s %+.0f%%" % (metric, (ratio - 1) * 100)


def fmt_ratio(r):
    return "-" if r is None else "%.3f" % r


def show(v, m):
    if v is None:
        return "-"
    if m == "rate" and v > 1000:  # raw rate in messages/s
        return "%.3g" % v
    return "%.4g" % v


def parse_args(argv=None):
    ap = cli.parser("tc-compare", __doc__)
    ap.add_argument("base")
    ap.add_argument("new")
    ap.add_argument("--threshold", type=float, default=10.0, metavar="PCT",
                    help="regression threshold in percent (default 10)")
    ap.add_argument("--report-only", action="store_true",
                    help="the timings: print the table and exit 0 whatever it shows (unless --fail-factor); "
                         "the counts (cost.csv) still gate")
    ap.add_argument("--counts-report-only", action="store_true",
                    help="the counts too: list them, never fail on them")
    ap.add_argument("--cost-base", metavar="DIR",
                    help="hold NEW's cost.csv against DIR/cost.csv (default BASE's): the committed baseline of "
                         "the build's key, results/baseline/cost/KEY/; where BASE has no timings to compare, "
                         "the counts alone decide")
    ap.add_argument("--fail-factor", type=float, default=None, metavar="F",
                    help="with --report-only: still fail when a gated point is worse by more than F")
    ap.add_argument("--gate", choices=["interval", "median"], default="interval",
                    help="interval (default): a point regresses when its median moved past the threshold "
                         "and its rounds do not overlap BASE's; median: the median alone decides")
    ap.add_argument("--gate-tail", action="store_true", help="let p99.9 gate too")
    ap.add_argument("--rate-from", choices=["window", "total"], default="window",
                    help="the gated rate: the median window's (1/p50 of the rate test, default; robust to "
                         "preemption) or total messages / run time (rate_mps; reported as 'rate total')")
    ap.add_argument("--key", action="append", default=[], metavar="COL",
                    help="add a column to the row match (repeatable)")
    ap.add_argument("--experiment", action="append", default=[], metavar="NAME",
                    help="compare only this experiment (repeatable)")
    ap.add_argument("--ir-threshold", type=float, default=3.0, metavar="PCT",
                    help="counts per message (cost.csv: instructions, send and receive instructions, simulated "
                         "cycles: see --cycles-threshold) more than PCT%% above BASE's regress (default 3)")
    ap.add_argument("--cycles-threshold", type=float, default=CYCLES_THRESHOLD, metavar="PCT",
                    help="simulated cycles per message (cost.csv, callgrind's cache and branch model) more than "
                         "PCT%% above BASE's regress (default %(default)g: one simulated miss a message moves the "
                         "smallest points 3-4%%)")
    ap.add_argument("--all", action="store_true", help="list every point, not only gated ones and regressions")
    verdict.add_args(ap)
    a = ap.parse_args(argv)
    if a.threshold < 0 or (a.fail_factor is not None and a.fail_factor <= 1):
        ap.error("--threshold must be >= 0 and --fail-factor > 1")
    a.lim = 1 + a.threshold / 100.0
    a.gate_metrics = {"p50", "rate"} | ({"p99.9"} if a.gate_tail else set())
    return a


def print_header(a, bm, nm):
    for label, path, m in (("base", a.base, bm), ("new", a.new, nm)):
        la = m.get("loadavg") or {}
        print("- %s: `%s` (platform %s, preset %s, rev %s, %s%s)" % (
            label, path, m.get("platform_id", "?"), m.get("preset", "?"), m.get("git_rev", "?"), m.get("date", "?"),
            "; load average %s -> %s" % (la.get("start", "?"), la.get("end", "?")) if la else ""))
    if bm.get("platform_id") and nm.get("platform_id") and bm["platform_id"] != nm["platform_id"]:
        print("- WARNING: different platforms; the put reference cancels the machine's speed only in part. "
              "Compare against a baseline from the same runner (docs/REGRESSION.md).")
    if a.report_only:
        print("- mode: report only; %s" % ("fails only when a gated metric is worse by more than %.2fx"
                                           % a.fail_factor if a.fail_factor else "never fails on the figures"))
    print("- gate: latency ratio > %.3f or rate ratio < %.3f (threshold %g%%)%s" % (
        a.lim, 1 / a.lim, a.threshold, ", and every round of NEW worse than every round of BASE (--gate interval)"
        if a.gate == "interval" else " of the medians (--gate median)"))
    print("- gated metrics: %s of jam_* rows, each divided by its run's raw-put reference first; p99.9 %s"
          % (", ".join(sorted(a.gate_metrics)), "gates (--gate-tail)" if a.gate_tail else "reported only"))
    print("- rate: %s" % ("the median window's rate (1/p50 of the rate test's per-message window time); "
                          "'rate total' (messages / run time, hit by every preemption) is reported only"
                          if a.rate_from == "window" else "messages / run time (rate_mps), --rate-from total"))
    print("- ratio = NEW / BASE (latency: > 1 is slower; rate: < 1 is slower)\n")


def key_order(k):
    return tuple((0, float(x)) if num(x) is not None else (1, x) for x in k)


def match_file(bpath, npath, a, bm, nm):
    """(results, unmatched) of one pair of files: results are (exp, key dict,
    role, norm, {metric: (base, new, ratio, separation)})"""
    kb, B, kcols = reduce_file(bpath, a.key, bm, a.rate_from)
    kn, N, kcols_n = reduce_file(npath, a.key, nm, a.rate_from)
    if kcols != kcols_n:  # axis columns on one side only: match on the common ones
        common = [k for k in kcols if k in kcols_n]
        B = {tuple(k[kcols.index(c)] for c in common): v for k, v in B.items()}
        N = {tuple(k[kcols_n.index(c)] for c in common): v for k, v in N.items()}
        kcols = common
    name = os.path.basename(bpath)
    if kb != kn:
        print("tc-compare: %s: different tools in BASE and NEW" % name)
        return [], []
    results, unmatched = [], []
    for key in sorted(set(B) | set(N), key=key_order):
        if key not in B or key not in N:
            unmatched.append((name, dict(zip(kcols, key)), "BASE" if key in B else "NEW"))
            continue
        b, n = B[key], N[key]
        # one side lacks its reference: both are compared raw
        norm = b["norm"] if b["norm"] == n["norm"] else "raw (reference missing on one side)"
        met = {}
        for m in sorted(set(b["vals"]) & set(n["vals"]), key=METRIC_ORDER.index):
            bv, nv = b["vals"][m], n["vals"][m]
            met[m] = (bv, nv, nv / bv if bv > 0 else None,
                      separation(b["span"][m], n["span"][m], m.startswith("rate")))
        results.append((name[:-4], dict(zip(kcols, key)), b["role"], norm, met))
    return results, unmatched


def judge(results, a):
    """Sets each result's met["_verdict"]; -> (regressions, past --fail-factor, noise)"""
    regress, hard, noisy = [], [], []
    for exp, key, role, norm, met in results:
        verdicts, within = [], []
        for m, (bv, nv, r, sep) in met.items():
            if r is None:
                continue
            worse = r if not m.startswith("rate") else (1 / r if r > 0 else math.inf)
            if role == "gate" and m in a.gate_metrics:
                # interval gate: the medians moved past the threshold and no
                # round of NEW is as good as the worst round of BASE
                apart = a.gate == "median" or sep > 1
                if worse > a.lim and apart:
                    verdicts.append(change(m, r))
                elif worse > a.lim:
                    within.append(change(m, r))
                if a.fail_factor and worse > a.fail_factor and apart:
                    hard.append((exp, key, m, r))
        if verdicts:
            regress.append((exp, key, verdicts))
        elif within:
            noisy.append((exp, key, within))
        met["_verdict"] = ("REGRESSION: " + ", ".join(verdicts)) if verdicts else (
            ("noise: " + ", ".join(within) + " (rounds overlap)") if within else
            "ok" if role == "gate" else ("reference (raw)" if role == "ref" else "info (not gated)"))
    return regress, hard, noisy


def print_tables(results, show_all):
    """one table per experiment; key columns that vary are columns, the rest a line"""
    for exp in sorted({r[0] for r in results}):
        res = [r for r in results if r[0] == exp]
        shown = [r for r in res if show_all or r[2] == "gate" or r[4]["_verdict"].startswith("REG")]
        allkeys = [k for k in res[0][1].keys() if k != "experiment"]
        varying = [k for k in allkeys if len({r[1].get(k, "") for r in res}) > 1]
        constant = {k: res[0][1].get(k, "") for k in allkeys if k not in varying and res[0][1].get(k, "")}
        print("## %s\n" % exp)
        if constant:
            print("Same in every row: " + ", ".join("%s=%s" % kv for kv in constant.items()) + "\n")
        hdr = varying + ["norm", "p50 base", "p50 new", "p50 ratio", "p99.9 ratio", "rate base",
                         "rate new", "rate ratio", "rate total ratio", "verdict"]
        print("| " + " | ".join(hdr) + " |")
        print("|" + "|".join("---" if i < len(varying) + 1 else "---:" for i in range(len(hdr) - 1)) + "|---|")
        for _, key, role, norm, met in shown:
            print("| " + " | ".join([key.get(k, "") for k in varying] + [norm] + cells(met)) + " |")
        print()
    if not show_all:
        print("(gated rows and regressions only; --all lists references and am_* rows too; "
              "norm /put: values are multiples of the run's raw-put reference)")


def cells(met):
    """a result row's value cells, from p50 base to the verdict"""
    p50 = met.get("p50", met.get("modelled"))
    rate = met.get("rate")
    return [show(p50[0], "p50") if p50 else "-", show(p50[1], "p50") if p50 else "-",
            fmt_ratio(p50[2]) if p50 else "-",
            fmt_ratio(met["p99.9"][2]) if "p99.9" in met else "-",
            show(rate[0], "rate") if rate else "-", show(rate[1], "rate") if rate else "-",
            fmt_ratio(rate[2]) if rate else "-",
            fmt_ratio(met["rate total"][2]) if "rate total" in met else "-",
            met["_verdict"]]


def print_drift(results, unmatched):
    """noise / drift summary: |ratio - 1| per metric over gated rows; the unmatched points"""
    print("\nPer metric over gated points: median and max |ratio - 1|")
    for m in METRIC_ORDER:
        d = [abs(met[m][2] - 1) for _, _, role, _, met in results if role == "gate" and m in met and met[m][2]]
        if d:
            print("- %s: %d points, median %.1f%%, max %.1f%%" % (m, len(d), statistics.median(d) * 100, max(d) * 100))
    refs = [abs(met[m][2] - 1) for _, _, role, _, met in results if role == "ref" for m in ("p50", "rate")
            if m in met and met[m][2]]
    if refs:
        print("- raw put references (machine drift): median %.1f%%, max %.1f%%" % (
            statistics.median(refs) * 100, max(refs) * 100))
    for f, key, side in unmatched[:20]:
        print("- unmatched (only in %s): %s %s" % (side, f, " ".join("%s=%s" % kv for kv in key.items() if kv[1])))
    if len(unmatched) > 20:
        print("- ... %d more unmatched points" % (len(unmatched) - 20))


def point_name(key, shown):
    """a gated point in a line: 'jam_lat indirect_put local 8 B' and the
    values of its other shown key columns (those that vary), name=value"""
    words = [key.get(k, "") for k in ("test", "jam", "mode") if key.get(k)]
    if key.get("payload_bytes"):
        words.append("%s B" % key["payload_bytes"])
    named = {"experiment", "test", "jam", "mode", "payload_bytes"}
    words += ["%s=%s" % (k, key[k]) for k in shown if k not in named and key.get(k)]
    return " ".join(words)


def varying(results, exp):
    """the key columns whose values differ between the rows of exp, less
    frame_bytes (it follows the payload and the mode)"""
    keys = [r[1] for r in results if r[0] == exp]
    return [k for k in keys[0] if k != "frame_bytes" and len({key.get(k, "") for key in keys}) > 1]


def make_verdict(a, results, cost_points, hard):
    """the Verdict: a case per gated point and per counted point"""
    v = verdict.Verdict("tc-compare", gating=not a.report_only)
    v.threshold = " past the %g%% threshold" % a.threshold
    shown = {exp: varying(results, exp) for exp in {r[0] for r in results}}
    for exp, key, role, _, met in results:
        if role != "gate":
            continue
        word = met["_verdict"]
        status = ("regression" if word.startswith("REGRESSION") else "noise" if word.startswith("noise")
                  else "ok")
        v.add(exp, point_name(key, shown[exp]), status, word.split(": ", 1)[1] if status != "ok" else "")
    v.thresholds[COST_FILE[:-4]] = " past the %g%% threshold on the counts" % a.ir_threshold
    for k, b, n, r, word in cost_points:
        v.add(COST_FILE[:-4], "%s %s %s B" % k, "regression" if word != "ok" else "ok",
              "%s (%.1f -> %.1f instructions a message)" % (word.split(": ", 1)[1], b, n) if word != "ok" else "",
              gates=not a.counts_report_only)
    if a.report_only and hard:
        v.forced = (verdict.REGRESSION, "FAIL: %d gated metric(s) worse than %.2fx (report-only limit)"
                    % (len(hard), a.fail_factor))
    return v


def closing(a, v, results, noisy, hard):
    """the closing lines: what was compared, then the verdict's headline"""
    ngate = sum(1 for r in results if r[2] == "gate")
    flim = a.fail_factor
    timed = [c for c in v.regressions() if c["suite"] != COST_FILE[:-4]]
    counted = [c for c in v.cases if c["suite"] == COST_FILE[:-4]]
    print("")
    if results:
        print("%d points compared (%d gated), %d regressed past %g%%, %d moved past it within the rounds' "
              "spread (noise)%s%s" % (len(results), ngate, len(timed), a.threshold, len(noisy),
                                      ", %d worse than %.2fx" % (len(hard), flim) if flim else "",
                                      " (timings: report only)" if a.report_only else ""))
    if counted:
        print("%d points counted, %d regressed past %g%% on the counts (simulated cycles: %g%%)%s" % (
            len(counted), sum(1 for c in counted if c["status"] == "regression"), a.ir_threshold,
            a.cycles_threshold, " (report only)" if a.counts_report_only else ""))
    print(v.headline())


def nothing(a, why):
    v = verdict.Verdict("tc-compare", gating=not a.report_only)
    v.nothing(why, RUN_HINT)
    print(v.headline())
    v.write(a.json, a.junit)
    return v.status()


def main(argv=None):
    a = parse_args(argv)
    cost_lines, cost_points = compare_cost(a.cost_base or a.base, a.new, a.ir_threshold, a.cycles_threshold)
    if a.cost_base and not os.path.exists(os.path.join(a.cost_base, COST_FILE)):
        return nothing(a, "no %s in %s (--cost-base)" % (COST_FILE, a.cost_base))
    why = missing(a.base, a.new)
    results, unmatched = [], []
    if not why:
        bm, nm = schema.load_meta(a.base), schema.load_meta(a.new)
        for bpath, npath in pairs(a.base, a.new, set(a.experiment)):
            res, un = match_file(bpath, npath, a, bm, nm)
            results += res
            unmatched += un
        if not results:
            why = "no common rows between %s and %s" % (a.base, a.new)
    if why and not (a.cost_base and cost_points):
        return nothing(a, why)
    regress, hard, noisy = judge(results, a) if results else ([], [], [])
    v = make_verdict(a, results, cost_points, hard)
    print("# tc-compare: %s\n" % v.headline())
    if v.regressions():
        print("\n".join(v.summary()[2:]) + "\n")
    if why:
        print("timings: not compared: %s (the counts alone decide)" % why)
    else:
        print_header(a, bm, nm)
        print_tables(results, a.all)
        print_drift(results, unmatched)
    if cost_lines:
        print("\n".join(cost_lines))
    closing(a, v, results, noisy, hard)
    v.write(a.json, a.junit)
    return v.status()
