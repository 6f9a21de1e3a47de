"""tc-platforms: the same experiments side by side across platforms.

usage: tc-platforms DIR... [-o OUT_DIR | --commit] [--experiment NAME]... [--no-plots] [--emit-gp]

Each DIR is one platform's result folder (results/<platform>/ in the runner's
layout). Writes one page per comparison to OUT_DIR (default build/compare/;
--commit: the committed view, plots/compare/):

  compare.md                  the platforms, each named by what it is (CPU
                              model, cores, hypervisor, date of the run: from
                              its meta.json) beside its folder; then what
                              compares them, per payload: framework efficiency
                              (floor / jam), jam / put and injected / local (a
                              table each, the median over rounds [95% interval]);
                              what differs between the hosts (the rows of their
                              platform reports that differ: CPU, caches, wait,
                              placement, controls, network: UCX version,
                              transports, NICs); the classes of core pair of
                              the topology sweep (scripts/tc-topo), class by
                              class; each experiment side by side (a
                              row per point, a column per platform); the
                              reports in full
  headline-<quantity>.png/.svg  small multiples of the lead quantities
                              (efficiency, vs-put, injected-local): a panel per
                              jam and mode (or per jam), a line per platform
  <experiment>-<test>.png/.svg  small multiples of jam / put: a panel per jam
                              and variant (placement, wait, stress, signal, ...),
                              a line per platform

Every point of a figure is the median over rounds with the 95% interval over
rounds as its bars (tcresults/stats.py); each platform keeps its colour and
marker in every figure; the key is below the panels.

Units differ between platforms (clock speed, network, PMU or none), so every
jam value is shown next to its ratio to the same run's raw-put reference:
latency as p50 / put_lat p50, rate as rate / put_rate (same payload, signal,
wait, placement, prefetch and stress, at the jam's frame size where there is
one; from the same invocation when there is one: tcresults/reduce.py), and where
the run has floor_lat/floor_rate of the same frame size, the framework
efficiency (floor / jam for latency, jam / floor for rate). CPU cost is
shown in the unit each platform has: PMU cycles where counted, otherwise CPU
nanoseconds from thread CPU time, labelled so. tc-mcast files (no put
reference) are shown raw, in microseconds. A point run in several rounds
(the CSV's round column) is the median over its rounds, each round's ratio
taken against the same round's reference (one invocation); the platforms'
table says how many rounds each folder ran (a folder without the column: one).
Python 3 standard library; gnuplot for the figures (skipped, with a note,
when it is missing).
"""
import os
import shutil
import sys

from .. import cli, paths, schema
from . import classes, label, page, report
from .report import DIFFERS, NOT_REPORTED, hardware_rows, network_rows, short  # noqa: F401 (the module's API)
from .values import fmt_interval, fmt_val, injected_vs_local, reduce_mcast, reduce_perf  # noqa: F401


class Platform(schema.Folder):
    """One platform's results folder, named by what it is (label)."""

    def __init__(self, d):
        super().__init__(d)
        self.id = self.meta.get("platform_id") or os.path.basename(os.path.normpath(d))
        self.label = label.label(self.meta, self.id)

    def loaded(self, exp):
        """(CSV header, rows) of one experiment; (None, []) where the folder has none"""
        t = self.table(exp)
        return (None, []) if t is None else (t.fields, t.rows)


def load_platforms(dirs):
    """the Platforms of dirs, emulated ones left out (and said so); two of
    one label told apart by their ids, two of one id by their folders"""
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
    for p, lab in zip(plats, label.unique([p.label for p in plats], [p.id for p in plats])):
        p.label = lab
    return plats


def parse_args(argv=None):
    ap = cli.parser("tc-platforms", __doc__)
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("-o", dest="out", default=os.path.join(paths.TOP, "build", "compare"),
                    help="where the page goes (default build/compare/)")
    ap.add_argument("--commit", dest="out", action="store_const", const=os.path.join(paths.TOP, "plots", "compare"),
                    help="write the committed view, plots/compare/ (to commit with its results)")
    ap.add_argument("--experiment", action="append", default=[])
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--emit-gp", action="store_true", help="keep each plot's gnuplot script beside it (<plot>.<png|svg>.gp)")
    a = ap.parse_args(argv)
    for d in a.dirs:
        if not os.path.isdir(d):
            ap.error("%s: not a folder" % d)
    return a


def stale(out):
    """the figures a previous comparison left in out (this one redraws its own)"""
    return [os.path.join(out, f) for f in os.listdir(out)
            if f.endswith((".png", ".svg", ".png.gp", ".svg.gp")) and not f.startswith(".")]


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
    if gp:
        for f in stale(a.out):
            os.remove(f)
    md = page.platforms_section(plats, a.dirs)
    made = []
    if not a.experiment or page.HEADLINE in a.experiment:
        sec, drawn = page.headline_sections(plats, a.out, gp, a.emit_gp)
        md += sec
        made += drawn
    md += page.differences_section(plats)
    md += classes.section(plats)
    md += ["## Each experiment side by side", ""]
    for exp in exps:
        sec, drawn = page.experiment_section(exp, plats, a.out, gp, a.emit_gp)
        md += sec
        made += drawn
    if not a.no_plots and not gp:
        md += ["(gnuplot not installed: no figures; scripts/deps.sh installs it)", ""]
    md += page.full_report(plats)
    mdp = os.path.join(a.out, "compare.md")
    cli.write_whole(mdp, "\n".join(md))
    print("tc-platforms: %d experiment(s), %d platform(s) -> %s (%d plot files)" % (len(exps), len(plats), mdp, len(made)))
    return 0
