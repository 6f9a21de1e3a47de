"""tc-platforms: the same experiments side by side across platforms.

usage: tc-platforms DIR... [-o OUT_DIR] [--experiment NAME]... [--no-plots] [--emit-gp]

Each DIR is one platform's result folder (results/<platform>/ in the runner's
layout). For every experiment found in at least one of them, writes to OUT_DIR
(default plots/compare/):

  compare.md                  the platforms' reports side by side (CPU, L3,
                              cache ops, wait and placement support, transports;
                              rows that differ marked **differs**), then
                              one table per experiment: a row per point
                              (test, jam, mode, wait, placement, stress, payload),
                              a column per platform
  <experiment>-<test>.png/.svg  gnuplot: the jam_* value relative to the same
                              platform's raw-put reference vs payload, one line
                              per platform and variant

Units differ between platforms (clock speed, network, PMU or none), so every
jam value is shown next to its ratio to the same run's raw-put reference:
latency as p50 / put_lat p50, rate as rate / put_rate (same payload, signal,
wait, placement, prefetch and stress, at the jam's frame size where there is
one; from the same invocation when there is one: tcresults/reduce.py), and where
the run has floor_lat/floor_rate of the same frame size, the framework
efficiency (floor / jam for latency, jam / floor for rate). CPU cost is
shown in the unit each platform has: PMU cycles where counted, otherwise CPU
nanoseconds from thread CPU time, labelled so. tc-mcast files (no put
reference) are shown raw, in microseconds. Repeated points: the median; a
point run in several rounds (the CSV's round column) is the median over its
rounds, each round's ratio taken against the same round's reference (one
invocation); the platforms' table says how many rounds each folder ran (a
folder without the column: one).
Python 3 standard library; gnuplot for the plots (skipped, with a note, when
it is missing).
"""
import os
import shutil
import subprocess
import sys

from . import cli, gnuplot, paths, schema
from .reduce import Point, References, reference_test
from .schema import median, num, sort_key

VARIANT = ["mode", "signal", "wait", "placement", "sw_prefetch", "stress", "gap_us"]
DIFFERS = "**differs**"
NOT_REPORTED = "(not reported)"


class Platform(schema.Folder):
    """One platform's results folder."""

    def __init__(self, d):
        super().__init__(d)
        self.id = self.meta.get("platform_id") or os.path.basename(os.path.normpath(d))

    def loaded(self, exp):
        """(CSV header, rows) of one experiment; (None, []) where the folder has none"""
        t = self.table(exp)
        return (None, []) if t is None else (t.fields, t.rows)

    def rounds_text(self):
        """the rounds per point of this folder's experiments: '3', '1 (no round
        column)', or '1..3' with each experiment's where they differ"""
        per = {e: rounds_of(self, e) for e in self.experiments()}
        vals = sorted({v for v in per.values() if v})
        if not vals:
            return "(no results)"
        if len(vals) == 1:
            old = not any("round" in (self.loaded(e)[0] or []) for e in per)
            return "%d%s" % (vals[0], " (no round column)" if old else "")
        return "%d..%d (%s)" % (vals[0], vals[-1], ", ".join("%s %d" % (e, v) for e, v in sorted(per.items()) if v))


def rounds_of(p, exp):
    """how many rounds each point of one experiment ran: meta.json's rounds,
    else the CSV's distinct round values; 1 for a folder without them"""
    em = p.exp_meta(exp)
    if num(em.get("rounds")):
        return int(num(em["rounds"]))
    fields, rows = p.loaded(exp)
    return max(1, len({r.get("round") for r in rows if r.get("round")})) if fields else None


def short(v):
    """a platform report's value for a table cell: supported -> yes, unsupported: why -> no (why)"""
    if v is None:
        return NOT_REPORTED
    v = str(v)
    if v == "supported":
        return "yes"
    if v.startswith("unsupported"):
        why = v.split(":", 1)[1].strip() if ":" in v else ""
        return "no (%s)" % why if why else "no"
    return v


def hardware_rows(pl):
    """[(attribute, value)] of the CPU and its caches, from the platform report"""
    cpu = pl.get("cpu") or {}
    topo = pl.get("topology") or {}
    out = [("arch", pl.get("arch", NOT_REPORTED))]
    model = cpu.get("model_name")
    if model and cpu.get("family") is not None:
        model = "%s (family %s model %s stepping %s)" % (model, cpu.get("family"), cpu.get("model"), cpu.get("stepping"))
    out.append(("CPU model", model or NOT_REPORTED))
    out.append(("hypervisor", cpu.get("hypervisor") or ("none" if cpu.get("vendor") else NOT_REPORTED)))
    out.append(("cores", "%s cores, %s PUs, %s NUMA node(s)" % (topo.get("cores"), topo.get("pus"), topo.get("numa_nodes"))
                if topo.get("cores") else NOT_REPORTED))
    l3 = topo.get("l3_bytes")
    out.append(("L3 size", ("%g MiB x%s" % (l3 / 1048576.0, topo.get("l3_count", 1))) if l3 else NOT_REPORTED))
    out.append(("cache line", "%s B" % topo["line_bytes"] if topo.get("line_bytes") else NOT_REPORTED))
    out.append(("PMU", short(pl.get("pmu"))))
    for group, label in (("cache_op", "cache op"), ("wait", "wait"), ("placement", "placement"), ("control", "control")):
        for k, v in (pl.get(group) or {}).items():
            if k.endswith("_sequence"):
                continue
            out.append(("%s %s" % (label, k.upper() if group == "cache_op" else k), short(v)))
    return out


def transport_rows(p):
    """[(attribute, value)] of the transports and UCX its runs recorded"""
    tr, tls, ucx = set(), set(), set()
    for e in (p.meta.get("experiments") or {}).values():
        for j in e.get("tool_json") or []:
            if isinstance(j, dict):
                if j.get("transports"):
                    tr.add(str(j["transports"]))
                if j.get("ucx_tls"):
                    tls.add(str(j["ucx_tls"]))
                if j.get("ucx_version"):
                    ucx.add(str(j["ucx_version"]))
    for f in p.experiments():   # the CSVs' transports column, by name
        for r in p.loaded(f)[1]:
            if r.get("transports"):
                tr.add(r["transports"])
    return [("transports", "; ".join(sorted(tr)) or "(not recorded)"),
            ("UCX_TLS", "; ".join(sorted(tls)) or "(not recorded)"),
            ("UCX version", "; ".join(sorted(ucx)) or "(not recorded)")]


def platform_rows(p):
    """[(attribute, value)] from a platform's report (meta.json's platform: what
    tc-perf --platform reported) and from what its runs recorded (transports)"""
    out = hardware_rows(p.platform) + transport_rows(p)
    pair = p.meta.get("pair") or {}
    out.append(("hosts", "two hosts (%s, %s, %s)" % (pair.get("client"), pair.get("server"), pair.get("launcher"))
                if pair else "one host"))
    out.append(("rounds", p.rounds_text()))
    out.append(("preset", p.meta.get("preset", "?")))
    out.append(("git", p.meta.get("git_rev", "?")))
    return out


def platform_table(plats):
    """the markdown table of the platforms' reports: a row per attribute, a
    column per platform; rows whose values are not all equal marked DIFFERS"""
    per = [platform_rows(p) for p in plats]
    rows = [dict(r) for r in per]
    attrs = []
    for r in per:
        for a, _ in r:
            if a not in attrs:
                attrs.append(a)
    md = ["| attribute | | " + " | ".join(p.id for p in plats) + " |", "|---|---|" + "---|" * len(plats)]
    ndiff = 0
    for a in attrs:
        vals = [str(r.get(a, NOT_REPORTED)).replace("|", "/") for r in rows]
        diff = len(set(vals)) > 1
        ndiff += diff
        md.append("| %s | %s | %s |" % (a, DIFFERS if diff else "", " | ".join(vals)))
    return md, ndiff


def reduce_perf(rows):
    """({key: {...}}, key columns) for jam_* rows: p50 or rate raw, relative
    to put and as framework efficiency against the floor, cycles and cpu;
    each ratio per invocation, then the median over rounds."""
    refs = References(rows, ("put_lat", "put_rate", "floor_lat", "floor_rate"))
    extra = sorted({k for r in rows for k in r if k and k.startswith(schema.AXIS_PREFIX)})
    groups = {}
    for r in rows:
        t = r.get("test", "")
        if not t.startswith("jam_"):
            continue
        key = (t, r.get("jam", ""), int(num(r.get("payload_bytes")) or 0)) + tuple(r.get(k, "") for k in VARIANT + extra)
        lat = t.endswith("_lat")
        col = "p50_us" if lat else "rate_mps"
        v = num(r.get(col))
        if v is None or v <= 0:
            continue
        pt, src = groups.setdefault(key, (Point(), set()))
        pt.add("raw", v)
        value = lambda c: num(c.get(col))  # noqa: E731
        ref = refs.median(reference_test(t), r, value)
        if ref is not None:
            pt.add("rel", v / ref)
        # the floor of the same frame size only (never another size's)
        f = refs.median(reference_test(t, "floor"), r, value, keys=1)
        if f is not None:
            # framework efficiency: the fraction of the hardware's pace the jam
            # keeps (latency floor/jam, rate jam/floor; 1 = at the floor)
            pt.add("eff", f / v if lat else v / f)
        for m, c in (("cyc", "cycles"), ("cpu", "cpu_ns_per_msg")):
            if num(r.get(c)):
                pt.add(m, num(r.get(c)))
        if r.get("cycles_source"):
            src.add(r["cycles_source"])
    out = {k: dict({m: pt.median(m) for m in ("raw", "rel", "eff", "cyc", "cpu")}, src=",".join(sorted(src)))
           for k, (pt, src) in groups.items()}
    return out, ["test", "jam", "payload_bytes"] + VARIANT + extra


def reduce_mcast(rows):
    groups = schema.group([r for r in rows if num(r.get("p50_us")) or num(r.get("modelled_us"))],
                          lambda r: tuple(r.get(k, "") for k in ("mode", "n", "radix", "ack", "jam", "payload_bytes")))
    return {k: median([num(r.get("p50_us")) or num(r.get("modelled_us")) for r in g]) for k, g in groups.items()}


def fmt_val(test, d):
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


def plot_axes(keys, keycols):
    """(x column index, [shown variant column indexes]) of a compare plot:
    x is the payload or, where every point has one payload, the numeric
    variant that varies (e.g. gap_us)"""
    varying = [i for i in range(3, len(keycols)) if len({k[i] for k in keys}) > 1]
    xi = 2
    if len({k[2] for k in keys}) <= 1:
        num_vary = [i for i in varying if all(num(k[i]) is not None for k in keys)]
        if num_vary:
            xi = num_vary[0]
    # an axis:X column that only repeats another column (axis:gap = gap_us) adds nothing
    shown = []
    for i in varying:
        if i == xi:
            continue
        col = [k[i] for k in keys]
        if keycols[i].startswith(schema.AXIS_PREFIX) and any(
                j != i and len({(k[i], k[j]) for k in keys}) == len({k[j] for k in keys}) == len(set(col))
                for j in varying + [xi]):
            continue
        shown.append(i)
    return xi, shown


def plot_series(test, data, keycols, xi, shown):
    """{(label, platform index): [(x, value / put)]}"""
    series = {}
    for pi, dd in enumerate(data):
        for key, d in dd.items():
            if key[0] != test or d["rel"] is None or num(key[xi]) is None:
                continue
            var = ["%s=%s" % (keycols[i], key[i]) for i in shown]
            label = "%s %s" % (key[1], " ".join(var))
            series.setdefault((label.strip(), pi), []).append((num(key[xi]), d["rel"]))
    return series


def plot_settings(exp, test, xlabel, xs, ys, logx):
    """the gnuplot settings of a compare plot, before its terminal and plot lines"""
    ylabel = "p50 latency / put_lat p50 (same platform, same run)" if test.endswith("_lat") else \
        "message rate / put_rate (same platform, same run)"
    # ranges padded past the data (a point or tick label on the border is
    # clipped), a right margin for the last rotated x tick, a key below that
    # grows the figure instead of squeezing the plot
    if logx:
        xr = "set xrange [%.9g:%.9g]" % (xs[0] / 1.5, xs[-1] * 1.5)
    else:
        span = (xs[-1] - xs[0]) or 1.0
        xr = "set xrange [%.9g:%.9g]" % (xs[0] - 0.05 * span, xs[-1] + 0.05 * span)
    yr = "set yrange [%.9g:%.9g]" % (min(ys) / 1.25, max(ys) * 1.25)
    ticks = ("set xtics (%s)" % ", ".join('"%g" %.9g' % (x, x) for x in xs)) if len(xs) <= 16 else ""
    return ["set title '%s: %s relative to the raw-put reference, by platform'" % (exp, test),
            "set xlabel '%s'" % xlabel, "set ylabel '%s'" % ylabel,
            "set logscale x 2" if logx else "unset logscale x",
            "set key below", "set grid", "set format x '%g'", "set xtics rotate by -45", "set logscale y 2",
            "set rmargin 8", "set tmargin 3", xr, yr, ticks]


def plot_script(base, exp, test, plats, data, keycols):
    """(the data file's text, the gnuplot lines after the terminal and output,
    the number of series) of one figure: jam value relative to put vs payload
    (or, where every point has one payload, vs the numeric variant that
    varies, e.g. gap_us); one colour per variant (none shared), one dash and
    point type per platform. None where there is nothing to draw."""
    keys = [k for dd in data for k in dd if k[0] == test]
    xi, shown = plot_axes(keys, keycols)
    series = plot_series(test, data, keycols, xi, shown)
    if not series:
        return None
    labels = sorted({lab for lab, _ in series})
    pal = gnuplot.palette()
    xs = sorted({x for pts in series.values() for x, _ in pts})
    ys = [y for pts in series.values() for _, y in pts]
    logx = xi == 2 or (xs[0] > 0 and len(xs) > 2 and xs[-1] / xs[0] > 100)
    blocks = sorted(series, key=lambda s: (labels.index(s[0]), s[1]))
    text = ""
    for lab, pi in blocks:
        text += "# %s | %s\n" % (plats[pi].id, lab)
        for x, y in sorted(series[(lab, pi)]):
            text += "%.9g %.6g\n" % (x, y)
        text += "\n\n"
    parts = ["'%s.dat' index %d using 1:2 with linespoints lc rgb '%s' dt %d pt %d title '%s'" % (
        base, i, gnuplot.colour(labels.index(lab), pal), pi + 1, pi + 4,
        ("%s: %s" % (plats[pi].id, lab)).replace("'", "")) for i, (lab, pi) in enumerate(blocks)]
    cmds = plot_settings(exp, test, "payload (bytes)" if xi == 2 else keycols[xi], xs, ys, logx)
    return text, cmds + ["plot " + ", \\\n  ".join(parts)], len(blocks)


def plot(out, exp, test, plats, data, keycols, gp, emit_gp=False):
    """plot_script drawn with gnuplot into out/<exp>-<test>.png and .svg
    (emit_gp: each script kept beside its figure); -> the files drawn"""
    base = os.path.join(out, "%s-%s" % (exp, test))
    job = plot_script(base, exp, test, plats, data, keycols)
    if job is None:
        return []
    text, script, nblocks = job
    with open(base + ".dat", "w") as f:
        f.write(text)
    height = 800 + 17 * max(0, nblocks - 8)
    made = []
    for term, ext in (("pngcairo size 1000,%d noenhanced" % height, "png"),
                      ("svg size 1000,%d noenhanced" % height, "svg")):
        cmds = ["set terminal %s" % term, "set output '%s.%s'" % (base, ext)] + script
        r = subprocess.run([gp], input="\n".join(cmds) + "\n", text=True, capture_output=True)
        if r.returncode != 0:
            print("tc-platforms: gnuplot failed for %s: %s" % (base, r.stderr.strip()[:300]), file=sys.stderr)
            continue
        made.append("%s.%s" % (base, ext))
        if emit_gp:   # the script as run, for tests/test_plot.sh
            with open("%s.%s.gp" % (base, ext), "w") as f:
                f.write("\n".join(cmds) + "\n")
    os.remove(base + ".dat")
    return made


def mcast_section(plats, loaded):
    """the table of a tc-mcast experiment: raw p50 (or modelled) per platform"""
    data = [reduce_mcast(rows) if f else {} for f, rows in loaded]
    keys = sorted(set().union(*data), key=sort_key)
    md = ["| mode | n | radix | ack | jam | payload | " + " | ".join("%s p50 us (raw)" % p.id for p in plats) + " |",
          "|---|---:|---:|---|---|---:|" + "---:|" * len(plats)]
    for k in keys:
        md.append("| %s | %s |" % (" | ".join(k), " | ".join("%.3g" % d[k] if k in d else "-" for d in data)))
    return md + [""]


def perf_section(plats, loaded):
    """(markdown, per-platform data, key columns, keys) of a tc-perf experiment"""
    red = [reduce_perf(rows) if f else ({}, []) for f, rows in loaded]
    data = [r[0] for r in red]
    keycols = next((r[1] for r in red if r[1]), ["test", "jam", "payload_bytes"] + VARIANT)
    # align key lengths (axis columns may differ between platforms)
    n = max(len(k) for d in data for k in d) if any(data) else 0
    data = [{k + ("",) * (n - len(k)): v for k, v in d.items()} for d in data]
    keycols = keycols + ["axis:?"] * (n - len(keycols))
    keys = sorted(set().union(*data), key=sort_key)
    if not keys:
        return ["(no jam rows)", ""], data, keycols, keys
    vary = [i for i in range(len(keycols)) if len({k[i] for k in keys}) > 1 or i < 3]
    md = ["| " + " | ".join(keycols[i] for i in vary) + " | " + " | ".join(p.id for p in plats) + " |",
          "|" + "---|" * len(vary) + "---:|" * len(plats)]
    for k in keys:
        md.append("| " + " | ".join(str(k[i]) for i in vary) + " | " + " | ".join(
            fmt_val(k[0], d.get(k)) for d in data) + " |")
    return md + [""], data, keycols, keys


def intro(dirs):
    return ["# Platforms side by side", "",
            "Generated by `scripts/tc-platforms %s`. Each cell: the jam's value on that platform and, in "
            "parentheses, the same value relative to that platform's raw-put reference from the same run "
            "(latency: p50 / put_lat p50; rate: rate / put_rate) - the ratio is what compares across "
            "machines. Where the run has the physical floor (floor_lat/floor_rate: stores into the peer's "
            "mapped ring, every line read), \"efficiency\" is floor / jam (latency) or jam / floor (rate) "
            "of the same frame size: how much of the hardware's pace the framework keeps, which compares "
            "platforms on what the framework adds rather than on their cache latency. CPU cost per message is PMU cycles where the platform counts them, otherwise CPU "
            "nanoseconds from thread CPU time (labelled)." % " ".join(dirs), "",
            "The platforms, from each folder's meta.json (the platform report of `tc-perf --platform` "
            "and what the runs recorded); rows marked %s are where they differ:" % DIFFERS, ""]


def load_platforms(dirs):
    """the Platforms of dirs, emulated ones left out (and said so); the same
    platform twice told apart by its folder"""
    plats = []
    for d in dirs:
        p = Platform(d)
        emu = p.platform.get("emulated")
        if emu and emu != "no":
            # an instruction emulator's timings say nothing about the CPU it emulates
            print("tc-platforms: %s left out: emulated: not for timing (%s)" % (d, emu), file=sys.stderr)
            continue
        plats.append(p)
    ids = [p.id for p in plats]
    for p in plats:
        if ids.count(p.id) > 1:
            p.id = "%s (%s)" % (p.id, os.path.normpath(p.dir))
    return plats


def parse_args(argv=None):
    ap = cli.parser("tc-platforms", __doc__)
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("-o", dest="out", default=os.path.join(paths.TOP, "plots", "compare"))
    ap.add_argument("--experiment", action="append", default=[])
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--emit-gp", action="store_true", help="keep each plot's gnuplot script beside it (<plot>.<png|svg>.gp)")
    a = ap.parse_args(argv)
    for d in a.dirs:
        if not os.path.isdir(d):
            ap.error("%s: not a folder" % d)
    return a


def main(argv=None):
    a = parse_args(argv)
    plats = load_platforms(a.dirs)
    if not plats:
        print("tc-platforms: no platform left to compare", file=sys.stderr)
        return 2
    exps = []
    for p in plats:
        exps += [e for e in p.experiments() if e not in exps and (not a.experiment or e in a.experiment)]
    if not exps:
        print("tc-platforms: no <experiment>.csv in %s" % ", ".join(a.dirs), file=sys.stderr)
        return 2
    os.makedirs(a.out, exist_ok=True)
    gp = None if a.no_plots else shutil.which("gnuplot")
    ptab, ndiff = platform_table(plats)
    md = intro(a.dirs) + ptab + ["", "%d row(s) differ." % ndiff, ""]
    made = []
    for exp in exps:
        loaded = [p.loaded(exp) for p in plats]
        md += ["## %s" % exp, ""]
        missing = [p.id for p, (f, _) in zip(plats, loaded) if f is None]
        if missing:
            md += ["Not in: %s." % ", ".join(missing), ""]
        md += ["Rounds per point (values: the median over rounds; ratios: per round, then the median): %s." % ", ".join(
            "%s %s" % (p.id, rounds_of(p, exp)) for p, (f, _) in zip(plats, loaded) if f), ""]
        if {schema.kind(f) for f, _ in loaded if f} == {schema.MCAST}:
            md += mcast_section(plats, loaded)
            continue
        sec, data, keycols, keys = perf_section(plats, loaded)
        md += sec
        if gp and keys:
            for test in sorted({k[0] for k in keys}):
                made += plot(a.out, exp, test, plats, data, keycols, gp, a.emit_gp)
    if not a.no_plots and not gp:
        md += ["(gnuplot not installed: no plots; scripts/deps.sh installs it)", ""]
    elif made:
        md += ["Plots: " + ", ".join("`%s`" % os.path.relpath(m, a.out) for m in made if m.endswith(".png")), ""]
    mdp = os.path.join(a.out, "compare.md")
    cli.write_whole(mdp, "\n".join(md))
    print("tc-platforms: %d experiment(s), %d platform(s) -> %s (%d plot files)" % (len(exps), len(plats), mdp, len(made)))
    return 0
