"""tc-bisect: the first commit whose count moved past a threshold from GOOD's,
found by git bisect run.

usage: tc-bisect METRIC PCT GOOD BAD [--point JAM/MODE/SIZE]... [--first-parent]
                 [--root DIR] [--keep]

METRIC is a count of tc-history's (instructions_per_msg, and whatever else
bench-cost.sh's cost.csv carries: simulated cycles, send and receive paths);
PCT the threshold in percent: a commit is bad where any point's METRIC lies
above GOOD's by more than PCT percent (PCT > 0, a regression) or below it by
more than -PCT percent (PCT < 0, e.g. -2 for the commit that saved 2%).
--point limits the points (jam/mode/payload, e.g. server_sum/injected/8).

GOOD's and BAD's counts come from history.csv where it holds them
(build/history/<key>/ or the committed results/history/<key>/; --root DIR:
DIR/<key>/), else they are built and counted (and recorded in the first,
or DIR's); then in
a worktree under build/bisect/, git bisect start BAD GOOD and git bisect run
this command's --step, which builds the commit checked out and counts it (a
commit already in history.csv is not built again): exit 0 good, 1 bad, 125
where it does not build or count (git bisect skips it). Every commit counted
is recorded in history.csv.

Exit status: 0 the first bad commit found (printed, with its counts), 2 nothing
to bisect (GOOD or BAD not counted, BAD not past the threshold, only
commits that do not count left), with one line saying why.
"""
import argparse
import json
import os
import re
import subprocess
import sys

from . import buildkey, cli, gitwork, history, paths


def counts_of(sha, path, counter, src=None, keep=False):
    """{(point, metric): value} of sha: from history.csv, else built and
    counted (in src, a worktree checked out at sha, or one of our own) and
    recorded; (None, why) where it does not build or count"""
    rows = [r for r in history.load_known(path) if r["commit"] == sha and r.get("counter") == counter]
    if not rows:
        log = os.path.join(paths.TOP, "build", "bisect", "%s.log" % gitwork.short(sha))
        os.makedirs(os.path.dirname(log), exist_ok=True)
        if src is None:
            with gitwork.Worktree(os.path.join(paths.TOP, "build", "bisect", "ref"), sha, keep=keep) as wt:
                rows = history.measure(wt.path, sha, counter, log)
        else:
            subprocess.run(["git", "clean", "-fdxq"], cwd=src, check=True)
            rows = history.measure(src, sha, counter, log)
        history.append(path, rows)
    if rows[0]["status"] != "ok":
        return None, "%s %s (%s)" % (gitwork.short(sha), rows[0]["status"], rows[0].get("note", ""))
    return {(r["point"], r["metric"]): float(r["value"]) for r in rows}, None


def past(good, vals, metric, pct, points):
    """[(point, good, value)] of the points whose metric moved past pct from GOOD's"""
    out = []
    for (point, m), g in sorted(good.items()):
        if m != metric or (points and point not in points) or (point, m) not in vals or g == 0:
            continue
        v = vals[(point, m)]
        if (pct >= 0 and v > g * (1 + pct / 100)) or (pct < 0 and v < g * (1 + pct / 100)):
            out.append((point, g, v))
    return out


def describe(moved, metric):
    return "; ".join("%s %s %s" % (history.point_words(p), metric, history.change(g, v)) for p, g, v in moved)


def step(a):
    """git bisect run's command: the commit checked out in the current
    directory, 0 good, 1 bad, 125 skip"""
    with open(a.ref) as f:
        ref = json.load(f)
    good = {tuple(k.split("\t")): v for k, v in ref["good"].items()}
    sha = gitwork.git("rev-parse", "HEAD", cwd=os.getcwd())
    vals, why = counts_of(sha, ref["path"], ref["counter"], src=os.getcwd())
    if vals is None:
        print("tc-bisect: %s: skipped (%s)" % (gitwork.short(sha), why), flush=True)
        return 125
    moved = past(good, vals, a.metric, a.pct, set(a.point))
    print("tc-bisect: %s: %s" % (gitwork.short(sha), ("bad: " + describe(moved, a.metric)) if moved else "good"),
          flush=True)
    return 1 if moved else 0


def parse_args(argv=None):
    ap = cli.parser("tc-bisect", __doc__)
    ap.add_argument("metric")
    ap.add_argument("pct", type=float)
    ap.add_argument("good", nargs="?")
    ap.add_argument("bad", nargs="?")
    ap.add_argument("--point", action="append", default=[], metavar="JAM/MODE/SIZE",
                    help="only this point (repeatable; default every point)")
    ap.add_argument("--first-parent", action="store_true", help="bisect the first-parent line only")
    ap.add_argument("--root", default=history.VIEW_ROOT,
                    help="where <key>/history.csv is recorded (default build/history; the committed "
                         "results/history is read beside it)")
    ap.add_argument("--keep", action="store_true", help="leave the worktrees under build/bisect/")
    ap.add_argument("--step", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--ref", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.pct == 0:
        ap.error("PCT must not be 0: > 0 for a rise past it, < 0 for a fall")
    if not a.step and not (a.good and a.bad):
        ap.error("GOOD and BAD are needed")
    if a.step and not a.ref:
        ap.error("--step needs --ref")
    return a


def nothing(why):
    print("tc-bisect: nothing to bisect: %s" % why)
    return 2


def main(argv=None):
    a = parse_args(argv)
    if a.step:
        try:
            return step(a)
        except Exception as e:      # a fault of ours is no verdict on the commit: stop the bisection
            print("tc-bisect: --step failed: %r" % e, file=sys.stderr)
            return 128
    path = history.history_path(a.root, buildkey.key())
    counter = history.counter_id()
    shas = [gitwork.commit_of(r) for r in (a.good, a.bad)]
    for rev, sha in zip((a.good, a.bad), shas):
        if sha is None:
            return nothing("%s names no commit" % rev)
    good_sha, bad_sha = shas
    if subprocess.run(["git", "merge-base", "--is-ancestor", good_sha, bad_sha], cwd=paths.TOP).returncode != 0:
        return nothing("GOOD %s is no ancestor of BAD %s" % (a.good, a.bad))
    good, why = counts_of(good_sha, path, counter, keep=a.keep)
    if good is None:
        return nothing("GOOD does not count: %s" % why)
    if not any(m == a.metric for _, m in good):
        return nothing("GOOD has no %s (it has: %s)" % (a.metric, ", ".join(sorted({m for _, m in good}))))
    bad, why = counts_of(bad_sha, path, counter, keep=a.keep)
    if bad is None:
        return nothing("BAD does not count: %s" % why)
    moved = past(good, bad, a.metric, a.pct, set(a.point))
    if not moved:
        return nothing("BAD %s is not past %+g%% of GOOD %s on %s%s" % (
            gitwork.short(bad_sha), a.pct, gitwork.short(good_sha), a.metric,
            " at " + ", ".join(a.point) if a.point else ""))
    print("tc-bisect: GOOD %s, BAD %s: %s" % (gitwork.short(good_sha), gitwork.short(bad_sha),
                                             describe(moved, a.metric)), flush=True)
    base = os.path.join(paths.TOP, "build", "bisect")
    os.makedirs(base, exist_ok=True)
    ref = os.path.join(base, "ref.json")
    with open(ref, "w") as f:
        json.dump({"path": path, "counter": counter,
                   "good": {"\t".join(k): v for k, v in good.items()}}, f)
    cmd = [sys.executable, os.path.join(paths.SCRIPTS, "tc-bisect"), a.metric, str(a.pct), "--step", "--ref", ref,
           "--root", a.root] + [x for p in a.point for x in ("--point", p)]
    with gitwork.Worktree(os.path.join(base, "src"), bad_sha, keep=a.keep) as wt:
        gitwork.git("bisect", "start", *(["--first-parent"] if a.first_parent else []), bad_sha, good_sha,
                    cwd=wt.path)
        r = subprocess.run(["git", "bisect", "run"] + cmd, cwd=wt.path, capture_output=True, text=True,
                           env=gitwork.clean_env())
        for line in r.stdout.splitlines():
            if line.startswith("tc-bisect: "):
                print(line, flush=True)
        subprocess.run(["git", "bisect", "reset"], cwd=wt.path, capture_output=True)
    m = re.search(r"^([0-9a-f]{40}) is the first bad commit", r.stdout, re.M)
    if not m:
        last = (r.stdout.strip().splitlines() or r.stderr.strip().splitlines() or [""])[-3:]
        return nothing("git bisect run found no first bad commit (%s)" % " / ".join(last))
    first = m.group(1)
    vals, _ = counts_of(first, path, counter)
    print("tc-bisect: first commit past %+g%% of %s on %s: %s %s" % (
        a.pct, gitwork.short(good_sha), a.metric, gitwork.short(first), gitwork.subject(first)))
    print("tc-bisect: %s" % describe(past(good, vals or {}, a.metric, a.pct, set(a.point)), a.metric))
    return 0
