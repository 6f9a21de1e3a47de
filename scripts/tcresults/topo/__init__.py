"""tc-topo: jams by core pair, every class of pair hwloc finds on this host.

The sweep is the experiment topo (scripts/experiments/topo.json) run by
tc-experiments: one point per core pair and jam (noop, server_sum), each
pinned sender (tc-perf's client) and receiver (its server), local and
injected, a few payloads, jam_lat and jam_rate with put and floor of the
same pair beside them, the figures' blocks and rounds. Which pairs: --pairs
classes (default: one representative per hwloc class, `tc-perf --pairs
classes` lists them), all, or sender:receiver PUs (0:1,0:8). --dry-run
lists the pairs, their classes and the plan, measuring nothing (on this
host's topology, or HWLOC_SYNTHETIC's or HWLOC_XMLFILE's). Long sweeps
show progress and an estimate; a stopped one continues with --resume.

Then (and alone with --outputs FOLDER) from results/<platform>/topo.csv:
  results/<platform>/topo.pairs.csv    per pair, jam, mode, payload: both
                                       cores, their class and NIC side, each
                                       metric's median over rounds and 95%
                                       interval, jam/floor and jam/put
  results/<platform>/topo.classes.csv  the same per class (pairs pooled)
  results/<platform>/topo.claims.md    each class against the closest one
  plots/<platform>/topo-matrix.png|svg  jam_lat (noop, local, 8 B) per pair
  plots/<platform>/topo-classes.png|svg per class, intervals as bars

usage: scripts/tc-topo [--pairs SEL] [--preset quick|paper] [--rounds N]
                       [--dry-run] [--resume] [--platform-id ID] [--results DIR]
       scripts/tc-topo --outputs results/<platform> [--plots DIR]
Python 3 standard library and gnuplot.
"""
import os
import shutil
import subprocess
import sys
import tempfile

from .. import cli, experiments, gnuplot, paths, schema
from ..plot.panel import gnuplot as draw
from . import table

PLOTS = os.path.join(paths.TOP, "plots")
HEAD = ("noop", "local", "8")     # the matrix's cell: the cheapest jam's
CLASS_METRICS = [("jam_lat_ns", "local"), ("jam_lat_ns", "injected"), ("put_lat_ns", "local"),
                 ("floor_lat_ns", "local"), ("jam_rate_mmps", "local"), ("jam_rate_mmps", "injected"),
                 ("put_rate_mmps", "local"), ("floor_rate_mmps", "local")]


def parse_args(argv):
    ap = cli.parser("tc-topo", __doc__)
    ap.add_argument("--pairs", default=None, help="all, classes (default) or sender:receiver PUs 0:1,0:8")
    ap.add_argument("--preset", default=None, help="quick (default) or paper")
    ap.add_argument("--rounds", type=int, default=None, metavar="N", help="rounds per point (default 5)")
    ap.add_argument("--dry-run", action="store_true", help="list the pairs and the plan; measure nothing")
    ap.add_argument("--resume", action="store_true", help="continue a stopped sweep")
    ap.add_argument("--platform-id", help="results/<ID>/ (default: scripts/platform-id.sh)")
    ap.add_argument("--results", default=os.path.join(paths.TOP, "results"), help="results root")
    ap.add_argument("--outputs", metavar="FOLDER", help="only the tables, claims and figures of FOLDER")
    ap.add_argument("--plots", metavar="DIR", help="figures' folder (default plots/<platform>)")
    ap.add_argument("--experiments-dir", default=paths.EXP_DIR, help="TEST SEAM: the definitions")
    ap.add_argument("--tool-cmd", help="TEST SEAM: command to run instead of build/bin/tc-perf")
    return ap, ap.parse_args(argv)


def list_pairs(opts):
    """tc-perf --pairs: the classes and the pairs to measure, on stderr"""
    tool = experiments.probe_tool("tc-perf", opts.tool_cmd.split() if opts.tool_cmd else None)
    if not tool["present"]:
        return 0
    r = subprocess.run(tool["cmd"] + ["--pairs", opts.pairs or "classes"], capture_output=True, text=True,
                       timeout=60)
    sys.stderr.write(r.stdout + r.stderr)
    return 2 if r.returncode == 2 else 0


def run_sweep(opts):
    argv = ["--experiments-dir", opts.experiments_dir, "--results", opts.results]
    for flag, v in (("--pairs", opts.pairs), ("--preset", opts.preset), ("--platform-id", opts.platform_id),
                    ("--tool-cmd", opts.tool_cmd)):
        if v:
            argv += [flag, v]
    if opts.rounds:
        argv += ["--rounds", str(opts.rounds)]
    argv += ["--resume"] if opts.resume else [table.EXP]
    return experiments.main(argv + (["--dry-run"] if opts.dry_run else []))


def matrix_data(psum):
    """(sender receiver value lines, PU count) of the matrix's cell"""
    lines, n = [], 0
    for k, ms in psum.items():
        if k[4:] == HEAD and "jam_lat_ns" in ms:
            lines.append("%s %s %.6g" % (k[0], k[1], ms["jam_lat_ns"][0]))
            n = max(n, int(k[0]) + 1, int(k[1]) + 1)
    return lines, n


def class_data(csum):
    """lines of topo.gp's classes data: i "class" then CLASS_METRICS' median low high"""
    keys = sorted({k[:2] for k in csum}, key=lambda k: table.class_order(*k))
    lines = []
    for i, ck in enumerate(keys):
        cells = [str(i), gnuplot.gq(table.class_label(*ck))]
        for m, mode in CLASS_METRICS:
            v = csum.get(ck + (HEAD[0], mode, HEAD[2]), {}).get(m)
            cells += ["%.6g" % x for x in v[:3]] if v else ["NaN"] * 3
        lines.append(" ".join(cells))
    return lines


def figures(psum, csum, meta, pid_, plotdir, log):
    """topo-matrix and topo-classes (png, svg) in plotdir; -> drawn or not"""
    if shutil.which("gnuplot") is None:
        log.append("gnuplot not installed: no figures (scripts/deps.sh)")
        return False
    os.makedirs(plotdir, exist_ok=True)
    em = schema.exp_meta(meta, table.EXP)
    sub = gnuplot.enh("%s | preset %s | %s round(s) | rev %s" % (pid_, em.get("preset", "?"),
                                                                 em.get("rounds", "?"), em.get("git_rev", "?")))
    pal = gnuplot.palette()
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        mlines, n = matrix_data(psum)
        if mlines:
            dat = os.path.join(tmp, "matrix.dat")
            with open(dat, "w") as f:
                f.write("\n".join(mlines) + "\n")
            ok &= draw("topo.gp", {"kind": "matrix", "data": dat, "n": n, "labels": int(n <= 16),
                                   "width": 760, "height": 680, "subtitle": sub,
                                   "figtitle": "jam\\_lat by core pair: noop, local, 8 B (ns, median)",
                                   "cblabel": "p50 one-way latency (ns)"},
                       os.path.join(plotdir, "topo-matrix"), ("png", "svg"), log)
        clines = class_data(csum)
        if clines:
            dat = os.path.join(tmp, "classes.dat")
            with open(dat, "w") as f:
                f.write("\n".join(clines) + "\n")
            ok &= draw("topo.gp", dict({"kind": "classes", "data": dat, "nclass": len(clines),
                                        "width": 900, "height": 760, "subtitle": sub,
                                        "figtitle": "jams by class of core pair: noop, 8 B"},
                                       **{"c%d" % (i + 1): gnuplot.colour(i, pal) for i in range(4)}),
                       os.path.join(plotdir, "topo-classes"), ("png", "svg"), log)
    return ok


def outputs(folder, plotdir):
    """the tables, claims and figures of a results folder; -> exit status"""
    rows, pts = table.load(folder)
    if rows is None:
        print("tc-topo: %s" % pts, file=sys.stderr)
        return 1
    meta = schema.load_meta(folder)
    pid_ = os.path.basename(os.path.normpath(folder))
    rounds = table.per_round(rows, pts)
    if not rows:    # every point skipped (one PU, between hosts): meta.json says why
        print("tc-topo: %s: the sweep measured nothing (its skips: meta.json)" % folder, file=sys.stderr)
        return 0
    if not rounds:
        print("tc-topo: %s: no jam rows of a pinned pair (a topo.csv from tc-topo?)" % folder, file=sys.stderr)
        return 1
    psum = table.summarize(rounds)
    csum = table.summarize(table.by_class(rounds))
    npairs = table.pairs_per_class(rounds)
    cli.write_whole(os.path.join(folder, "topo.pairs.csv"), table.csv_text(psum, table.KEY))
    cli.write_whole(os.path.join(folder, "topo.classes.csv"), table.csv_text(
        csum, table.CLASS_KEY, (lambda k: (table.TITLES.get(k[0], k[0]), str(npairs.get(k[:2], 0))),
                                ("title", "pairs"))))
    em = schema.exp_meta(meta, table.EXP)
    claims = ["# Topology sweep: classes of core pair (%s)" % pid_, "",
              "From topo.csv (scripts/tc-topo; preset %s, %s round(s), rev %s): p50 one-way latency, "
              "each class against the closest class measured here." % (
                  em.get("preset", "?"), em.get("rounds", "?"), em.get("git_rev", "?")), ""]
    claims += table.claims(csum, npairs)
    cli.write_whole(os.path.join(folder, "topo.claims.md"), "\n".join(claims) + "\n")
    log = []
    ok = figures(psum, csum, meta, pid_, plotdir or os.path.join(PLOTS, pid_), log)
    for line in log:
        print("tc-topo: %s" % line, file=sys.stderr)
    print("tc-topo: %s: %d pair(s) in %d class(es) -> topo.pairs.csv, topo.classes.csv, topo.claims.md%s" % (
        os.path.relpath(folder, paths.TOP), len({k[:2] for k in rounds}), len(npairs),
        ", figures" if ok else ""), file=sys.stderr)
    return 0 if ok else 1


def main(argv=None):
    ap, opts = parse_args(argv)
    if opts.outputs:
        return outputs(opts.outputs, opts.plots)
    if not opts.resume and list_pairs(opts) == 2:
        return 2
    rc = run_sweep(opts)
    if opts.dry_run or rc not in (0, 1):
        return rc
    pid_ = opts.platform_id or experiments.platform_id(None)
    folder = os.path.join(opts.results, pid_)
    orc = outputs(folder, opts.plots)
    return rc or orc


if __name__ == "__main__":      # pragma: no cover
    sys.exit(main())
