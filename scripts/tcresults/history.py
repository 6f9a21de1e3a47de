"""tc-history: the deterministic counts of the last N commits, their steps
and a plot per metric (make history N=50).

usage: tc-history [-N N] [--rev REV] [--all-parents] [--root DIR | --commit] [--report]
                  [--step-pct PCT] [--step-abs X] [--no-plot] [--json FILE] [--junit FILE]

Where it writes: build/history/<key>/ (history.csv, history.md, the plots),
a view of its own, read together with the committed results/history/<key>/
history.csv (what either holds is not counted again); --commit writes the
committed view, results/history/<key>/, instead (make history
VIEW=committed: a window of N commits there replaces the committed report).

Each of the last N commits up to REV (default HEAD; its first-parent line,
as the branch was merged, unless --all-parents) that history.csv does not
hold yet for this counter is checked out in a worktree under build/,
built from scratch (tc-cost and the bench package) and counted by
scripts/bench-cost.sh --sweep ci, bench-ci's points (noop, indirect_put and
server_sum; local, injected and cached; 8 B - 4 KiB): instructions per message, and
every other count cost.csv carries (simulated cycles, send and receive
paths apart) and the frame size. A commit that does not build, or whose
tc-cost cannot count, is recorded as such with the counter's id, and tried
again once the counter (bench-cost.sh, the points) changes. An older tree's
tc-cost is counted too: one that never starts callgrind's instrumentation
with it on from the start, one whose loop calls neither tc_jam_send nor
tc_peer_wait by name whole, its send/receive split left empty. <key> is
tc-key's: arch-compiler-libc-ucx; the counts hold on every host of a key.
The report goes to stdout and, where it recorded, to history.md beside
history.csv. --report: record nothing, report what history.csv holds.

A step: a count that moves between two consecutive counted commits by more
than --step-pct PCT percent (default 0.5) and --step-abs X (default 1, in
the count's unit); it is named by the later commit (with the commits that
did not build between them, where there were). Counts measured by another
counter (bench-cost.sh changed, or other points) are not compared with
these: the counter column tells them apart.

A plot per metric, results/history/<key>/<metric>.svg and .png: every
point's count over the commits, relative to its first commit's (1.0), the
steps' commits as dashed lines.

Exit status: 1 when the newest counted commit has an instruction or cycle
count above its predecessor's by a step (a regression at the tip), 0 when
not, 2 when fewer than two commits have counts (nothing compared), with one
line saying why and what to run.
"""
import contextlib
import csv
import hashlib
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from . import buildkey, cli, gitwork, gnuplot, paths, verdict
from .schema import num

# bench-cost.sh's CI sweep (--sweep ci, as make bench-ci counts): the counts
# the gate and the history hold
SWEEP = "ci"
# cost.csv columns that name the point, and those that are no count
POINT_COLS = ("jam", "mode", "payload_bytes")
NOT_COUNTS = {"messages", "ns_per_msg"}
FIELDS = ["commit", "date", "status", "counter", "point", "metric", "value", "seconds", "note"]
BUILD_TARGETS = ["build/bin/tc-cost", "pkg"]
RUN_HINT = "make history N=50"


def gated(metric):
    """the counts a step up of is a regression (the frame size is not one)"""
    return "instructions" in metric or "cycles" in metric


def counter_id():
    """what counted: bench-cost.sh's text and the points; a change of either
    starts a new series"""
    h = hashlib.sha1()
    with open(os.path.join(paths.SCRIPTS, "bench-cost.sh"), "rb") as f:
        h.update(f.read())
    h.update(("sweep %s" % SWEEP).encode())
    return h.hexdigest()[:10]


# the committed view, and the one a run writes unless told (--commit)
COMMITTED_ROOT = os.path.join(paths.TOP, "results", "history")
VIEW_ROOT = os.path.join(paths.TOP, "build", "history")


def history_path(root, key):
    return os.path.join(root, key, "history.csv")


def load(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def load_known(path):
    """path's rows after the committed history.csv's of its key, where path
    is another view: counts either holds are known (the later wins)"""
    committed = os.path.join(COMMITTED_ROOT, os.path.basename(os.path.dirname(path)), "history.csv")
    if os.path.abspath(committed) == os.path.abspath(path):
        return load(path)
    return load(committed) + load(path)


def append(path, rows):
    """rows at the end of history.csv (its header first where it is new)"""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    new = not os.path.exists(path) or os.path.getsize(path) == 0
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, restval="", extrasaction="ignore")
        if new:
            w.writeheader()
        w.writerows(rows)


def recorded(rows, counter):
    """{commit: status} of the commits history.csv holds for this counter"""
    out = {}
    for r in rows:
        if r.get("counter") == counter:
            out[r["commit"]] = r["status"]
    return out


def commits(rev, n, first_parent=True, cwd=paths.TOP):
    """the last n commits up to rev, oldest first"""
    args = ["rev-list", "-n", str(n)] + (["--first-parent"] if first_parent else []) + [rev]
    return gitwork.git(*args, cwd=cwd).split()[::-1]


def parse_cost(path):
    """{(point, metric): value} of a cost.csv: a point is jam/mode/payload
    (and any other text column, e.g. a path); a metric every other numeric
    column, less messages and nanoseconds"""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    out = {}
    for r in rows:
        # api send is the point as it was before the column (tc_jam_send's)
        extra = [k for k in r if k not in POINT_COLS and k not in NOT_COUNTS and r[k] and num(r[k]) is None
                 and not (k == "api" and r[k] == "send")]
        point = "/".join([r.get(k, "") for k in POINT_COLS] + [r[k] for k in extra])
        for k, v in r.items():
            if k in POINT_COLS or k in NOT_COUNTS or k in extra or num(v) is None:
                continue
            out[(point, k)] = num(v)
    return out


def bench_cost(build_dir, out, log, flags=()):
    """this tree's bench-cost.sh (the one counter, whatever tree built
    build_dir) over bench-ci's points (flags: other points after them) with
    build_dir's tc-cost and package into out: (exit status, why) where why
    is the log's last line when it did not count"""
    env = dict(gitwork.clean_env(), TC_BUILD=build_dir)
    env.pop("TC_PKG", None)
    with open(log, "a") as f:
        r = subprocess.run([os.path.join(paths.SCRIPTS, "bench-cost.sh"), "-o", out, "--sweep", SWEEP] + list(flags),
                           stdout=f, stderr=subprocess.STDOUT, env=env)
    if r.returncode == 0 and os.path.exists(os.path.join(out, "cost.csv")):
        return 0, ""
    with open(log, errors="replace") as f:
        last = [x.strip() for x in f if x.strip()][-1:] or [""]
    return r.returncode or 1, "bench-cost.sh exit %d: %s" % (r.returncode, last[0][:200])


def how_counted(meta_path):
    """what a row's note says of how an older tree was counted (cost-meta.json:
    instrumentation on from the start, points whose split is n/a); '' where
    as today's"""
    try:
        with open(meta_path) as f:
            meta = json.load(f)
    except (OSError, ValueError):
        return ""
    notes = []
    if not str(meta.get("instrumentation", "tc-cost")).startswith("tc-cost"):
        notes.append("instrumentation at start (an older tc-cost)")
    if meta.get("split_na"):
        notes.append("send/receive split n/a at %d point(s)" % len(meta["split_na"]))
    return "; ".join(notes)


def count(build_dir, log):
    """bench-cost.sh over bench-ci's points with build_dir's tc-cost and
    package: ({(point, metric): value}, note) or (None, why)"""
    with tempfile.TemporaryDirectory(prefix="tc-history-") as tmp:
        rc, why = bench_cost(build_dir, tmp, log)
        if rc != 0:
            return None, why
        return parse_cost(os.path.join(tmp, "cost.csv")), how_counted(os.path.join(tmp, "cost-meta.json"))


def measure(src, sha, counter, log):
    """src (a worktree at sha) built and counted: the history rows of sha"""
    date = gitwork.git("log", "-1", "--format=%cI", sha, cwd=src)
    t0 = time.time()
    ok, build_s, why = gitwork.build(src, BUILD_TARGETS, log)
    base = {"commit": sha, "date": date, "counter": counter}
    if not ok:
        return [dict(base, status="build-failed", seconds="%.1f" % (time.time() - t0), note=why)]
    vals, why = count(os.path.join(src, "build"), log)
    secs = "%.1f" % (time.time() - t0)
    if vals is None:
        return [dict(base, status="count-failed", seconds=secs, note=why)]
    return [dict(base, status="ok", point=p, metric=m, value="%g" % v, seconds=secs, note=why)
            for (p, m), v in sorted(vals.items())]


def record(shas, path, counter, log_dir, keep=False, out=sys.stderr):
    """every commit of shas history.csv lacks (for this counter) measured in
    one worktree and appended as it is done; -> [(sha, status, seconds)]"""
    have = recorded(load_known(path), counter)
    todo = [s for s in shas if s not in have]
    done = []
    if not todo:
        return done
    os.makedirs(log_dir, exist_ok=True)
    with gitwork.Worktree(os.path.join(paths.TOP, "build", "history", "src"), todo[0], keep=keep) as wt:
        for i, sha in enumerate(todo):
            print("tc-history: %d/%d %s %s" % (i + 1, len(todo), gitwork.short(sha), gitwork.subject(sha)[:60]),
                  file=out, flush=True)
            wt.checkout(sha)
            rows = measure(wt.path, sha, counter, os.path.join(log_dir, "%s.log" % gitwork.short(sha)))
            append(path, rows)
            done.append((sha, rows[0]["status"], float(rows[0]["seconds"])))
    return done


def series(rows, order, counter):
    """{(point, metric): [(index in order, value)]} of the ok rows of this
    counter, and {commit: status} of order's commits (a commit recorded twice:
    its later rows)"""
    idx = {sha: i for i, sha in enumerate(order)}
    vals, status = {}, {}
    for r in rows:
        if r.get("counter") != counter or r["commit"] not in idx:
            continue
        status[r["commit"]] = r["status"]
        v = num(r.get("value"))
        if r["status"] == "ok" and v is not None:
            vals[(r["point"], r["metric"], r["commit"])] = v
    out = {}
    for (point, metric, sha), v in vals.items():
        if status[sha] == "ok":
            out.setdefault((point, metric), []).append((idx[sha], v))
    for k in out:
        out[k].sort()
    return out, status


def steps(ser, pct, abs_min):
    """[(index of the later commit, index of the earlier, point, metric,
    before, after)]: consecutive counted commits whose count moved past both
    thresholds"""
    out = []
    for (point, metric), pts in sorted(ser.items()):
        for (i0, v0), (i1, v1) in zip(pts, pts[1:]):
            d = v1 - v0
            if abs(d) > abs_min and abs(d) > abs(v0) * pct / 100:
                out.append((i1, i0, point, metric, v0, v1))
    return out


def point_words(point):
    """'indirect_put/injected/8' -> 'indirect_put injected 8 B'"""
    p = point.split("/")
    return " ".join(p[:2] + ["%s B" % p[2]] + p[3:]) if len(p) >= 3 else point


def change(before, after):
    return "%g -> %g (%+.1f%%)" % (before, after, (after / before - 1) * 100 if before else 0)


def plot_script(base, metric, order, ser, stp, key):
    """(the data file's text, the gnuplot lines after terminal and output)
    of one metric's plot: a panel per jam (its first word), stacked, each
    with its key beside it, so many series leave the plot its width and the
    title whole; None where no point has two counts"""
    pts = {k: v for k, v in ser.items() if k[1] == metric and len(v) > 1}
    if not pts:
        return None
    pal = gnuplot.palette()
    text, panels = "", {}
    for i, (point, _) in enumerate(sorted(pts)):
        vals = pts[(point, metric)]
        first = vals[0][1]
        text += "# %s\n" % point
        for x, v in vals:
            text += "%d %.6g %g\n" % (x, v / first if first else 1.0, v)
        text += "\n\n"
        words = point_words(point).split(" ")
        panels.setdefault(words[0], []).append((i, " ".join(words[1:]) or words[0]))
    xt = ", ".join("%s %d" % (gnuplot.gq(gitwork.short(sha)), i) for i, sha in enumerate(order))
    cmds = ["set multiplot layout %d,1 title %s" % (len(panels), gnuplot.gq(
                "%s over commits, each point relative to its first commit (dashed: a step)\n%s" % (metric, key))),
            "set ylabel %s" % gnuplot.gq(metric + " / first"),
            "set xtics (%s) rotate by 90 right font ',8'" % xt, "set xrange [-0.5:%d.5]" % (len(order) - 1),
            "set key outside right top vertical font ',9' samplen 2", "set grid y", "set lmargin 12", "set rmargin 24"]
    for i in sorted({s[0] for s in stp if s[3] == metric}):
        cmds.append("set arrow from %g, graph 0 to %g, graph 1 nohead dt 2 lc rgb '#888888'" % (i - 0.5, i - 0.5))
    for n, (jam, series) in enumerate(sorted(panels.items())):
        # a mode and payload keep their colour in every panel
        cmds += ["set title %s" % gnuplot.gq(jam)]
        if n == len(panels) - 1:
            cmds.append("set xlabel 'commit (oldest left)'")
        cmds.append("plot " + ", \\\n  ".join(
            "'%s.dat' index %d using 1:2 with linespoints lc rgb '%s' pt %d title %s" % (
                base, i, gnuplot.colour(j, pal), 4 + j % 10, gnuplot.gq(words)) for j, (i, words) in enumerate(series)))
    return text, cmds + ["unset multiplot"]


def plot(out_dir, metric, order, ser, stp, key, gp="gnuplot"):
    """plot_script drawn into out_dir/<metric>.svg and .png; -> the files drawn"""
    base = os.path.join(out_dir, metric)
    job = plot_script(base, metric, order, ser, stp, key)
    if job is None:
        return []
    text, script = job
    with open(base + ".dat", "w") as f:
        f.write(text)
    made = []
    # a panel's height fits its key (a line per series)
    h = 120 + sum(max(260, 40 + 18 * c.count(" title ")) for c in script if c.startswith("plot "))
    for term, ext in (("svg size 1100,%d noenhanced" % h, "svg"), ("pngcairo size 1100,%d noenhanced" % h, "png")):
        cmds = ["set terminal %s" % term, "set output '%s.%s'" % (base, ext)] + script
        r = subprocess.run([gp], input="\n".join(cmds) + "\n", text=True, capture_output=True)
        if r.returncode == 0:
            made.append("%s.%s" % (base, ext))
        else:
            print("tc-history: gnuplot failed for %s: %s" % (base, r.stderr.strip()[:300]), file=sys.stderr)
    os.remove(base + ".dat")
    return made


def judge(order, ser, status, stp):
    """the Verdict: one case a gated series, a regression where the newest
    counted commit stepped up"""
    v = verdict.Verdict("tc-history")
    v.what = "count(s)"
    v.threshold = " at the newest counted commit"
    ok = [i for i, sha in enumerate(order) if status.get(sha) == "ok"]
    if len(ok) < 2:
        v.nothing("%d of the %d commits counted with this counter (%s)" % (len(ok), len(order), ", ".join(
            "%s %s" % (gitwork.short(s), status.get(s, "not recorded")) for s in order[-5:])), RUN_HINT)
        return v
    tip = ok[-1]
    at_tip = {(s[2], s[3]): s for s in stp if s[0] == tip}
    for (point, metric) in sorted(ser):
        if not gated(metric):
            continue
        s = at_tip.get((point, metric))
        if s and s[5] > s[4]:
            v.add(metric, point_words(point), "regression", "%s at %s" % (change(s[4], s[5]),
                                                                         gitwork.short(order[tip])))
        else:
            v.add(metric, point_words(point), "ok", change(s[4], s[5]) if s else "")
    return v


def report(a, order, ser, status, stp, v, done, made, key, path):
    print(v.headline() if v.status() == verdict.NOTHING else "# tc-history: %s\n" % v.headline())
    if v.status() == verdict.NOTHING:
        return
    if v.regressions():
        print("\n".join(v.summary()[2:]) + "\n")
    failed = [sha for sha in order if status.get(sha, "ok") != "ok"]
    print("- key: %s; %s" % (key, os.path.relpath(path, paths.TOP) if path.startswith(paths.TOP + os.sep) else path))
    print("- commits: %d, %s to %s (%s), %d counted, %d did not build or count" % (
        len(order), gitwork.short(order[0]), gitwork.short(order[-1]),
        "every parent" if a.all_parents else "first-parent line", sum(1 for s in order if status.get(s) == "ok"),
        len(failed)))
    if done:
        secs = [s for _, _, s in done]
        print("- recorded now: %d commits, %.0f s a commit (median; %.0f - %.0f s: a clean build and a count)"
              % (len(done), statistics.median(secs), min(secs), max(secs)))
    print("- a step: a count moved by more than %g%% and %g between consecutive counted commits"
          % (a.step_pct, a.step_abs))
    print("\n## Steps\n")
    if not stp:
        print("None in this range.")
    by = {}
    for s in stp:
        by.setdefault(s[0], []).append(s)
    for i in sorted(by):
        sha = order[i]
        skipped = [gitwork.short(order[j]) for j in range(by[i][0][1] + 1, i)]
        moved = sorted(by[i], key=lambda s: (-abs(s[5] / s[4] - 1) if s[4] else 0))
        print("- %s %s%s: %d count(s) moved; %s" % (
            gitwork.short(sha), gitwork.subject(sha)[:100],
            " (or one of %s, which did not count)" % ", ".join(skipped) if skipped else "", len(moved),
            "; ".join("%s %s %s" % (point_words(s[2]), s[3], change(s[4], s[5])) for s in moved[:4])
            + ("; ..." if len(moved) > 4 else "")))
    if failed:
        print("\n## Not counted\n")
        for sha in failed:
            notes = [r.get("note", "") for r in load_known(path) if r["commit"] == sha][-1:]
            print("- %s %s: %s (%s)" % (gitwork.short(sha), gitwork.subject(sha)[:60], status.get(sha),
                                        notes[0] if notes else ""))
    if made:
        print("\n## Plots\n")
        for m in made:
            print("- %s" % (os.path.relpath(m, paths.TOP) if m.startswith(paths.TOP + os.sep) else m))
    print("\n" + v.headline())


def parse_args(argv=None):
    ap = cli.parser("tc-history", __doc__)
    ap.add_argument("-N", dest="n", type=int, default=50, help="the last N commits (default 50)")
    ap.add_argument("--rev", default="HEAD", help="the newest commit (default HEAD)")
    ap.add_argument("--all-parents", action="store_true", help="every ancestor, not the first-parent line")
    ap.add_argument("--root", default=VIEW_ROOT,
                    help="where <key>/history.csv, history.md and the plots go (default build/history; "
                         "the committed results/history/<key>/history.csv is read beside it)")
    ap.add_argument("--commit", dest="root", action="store_const", const=COMMITTED_ROOT,
                    help="write the committed view, results/history/<key>/")
    ap.add_argument("--report", action="store_true", help="record nothing; report what history.csv holds")
    ap.add_argument("--step-pct", type=float, default=0.5, metavar="PCT", help="a step moves by more than PCT%%")
    ap.add_argument("--step-abs", type=float, default=1.0, metavar="X", help="and by more than X (default 1)")
    ap.add_argument("--no-plot", action="store_true", help="draw no plot")
    ap.add_argument("--keep", action="store_true", help="leave the worktree (build/history/src)")
    verdict.add_args(ap)
    a = ap.parse_args(argv)
    if a.n < 1 or a.step_pct < 0 or a.step_abs < 0:
        ap.error("-N must be >= 1, --step-pct and --step-abs >= 0")
    return a


def main(argv=None):
    a = parse_args(argv)
    key = buildkey.key()
    path = history_path(a.root, key)
    counter = counter_id()
    if gitwork.commit_of(a.rev) is None:
        v = verdict.Verdict("tc-history")
        v.nothing("--rev %s names no commit" % a.rev, RUN_HINT)
        print(v.headline())
        v.write(a.json, a.junit)
        return v.status()
    order = commits(a.rev, a.n, not a.all_parents)
    done = [] if a.report else record(order, path, counter, os.path.join(paths.TOP, "build", "history", "logs"),
                                      a.keep)
    ser, status = series(load_known(path), order, counter)
    stp = steps(ser, a.step_pct, a.step_abs)
    v = judge(order, ser, status, stp)
    made = []
    if not a.no_plot and v.status() != verdict.NOTHING:
        for metric in sorted({m for _, m in ser}):
            made += plot(os.path.dirname(path), metric, order, ser, stp, key)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        report(a, order, ser, status, stp, v, done, made, key, path)
    sys.stdout.write(buf.getvalue())
    if v.status() != verdict.NOTHING and not a.report:
        cli.write_whole(os.path.join(os.path.dirname(path), "history.md"), buf.getvalue())
    v.write(a.json, a.junit)
    return v.status()
