"""tc-ab: the bench-ci sweep of two builds in one job, alternating block by
block, judged by a rank test over the rounds (make bench-ab).

usage: tc-ab [--base REV] [-o OUT] [-r ROUNDS] [-n ITERS] [--slow-jam N]
             [--alpha A] [--min-effect PCT] [--report-only] [--keep]
             [--json FILE] [--junit FILE]
       tc-ab --analyse OUT [--alpha A] [--min-effect PCT] [--report-only] ...

A is BASE (default: the merge-base of HEAD with main, or HEAD~1 where HEAD
is on main), built from scratch in a git worktree under build/ (removed
after, unless --keep); B is this tree's build (TC_BUILD, default build/).
Each block is one round of the bench-ci sweep (scripts/bench-ci.sh -r 1: one
tc-perf invocation per jam, its own raw-put references) of one build; the
blocks alternate A B, B A, A B, ... (ROUNDS of each), so whatever drifts on
the host, slowly or in steps, falls on both builds alike, and neither always
runs first. --slow-jam N slows B's indirect_put by N spin iterations a message
(bench-ci.sh's self-check) to measure what the test detects.

The test, per gated point (jam_* rows: p50 of the latency tests, the median
window's rate of the rate tests, each divided by its own invocation's put
reference, as tc-compare does): the Mann-Whitney U test of B's ROUNDS values
against A's, one-sided (B slower), exact where no value repeats. A point
regresses when its p is below ALPHA / (the number of gated points)
(Bonferroni: an A/B of two identical trees, whose rounds are exchangeable,
raises a false alarm on any point in at most ALPHA of runs) and B's median is
worse than A's by more than --min-effect PCT. A point whose median moved past
PCT without a small enough p is listed as noise. The rounds must be enough
for the exact test to reach that p at all (10 a build gives 1/184756).
Instructions per message (bench-cost.sh, once a build, in the first round)
are listed beside, not gated here (make bench-ci gates on them).

The report goes to stdout and OUT/ab.md. --analyse OUT judges the blocks a
run left in OUT again (other --alpha,
--min-effect), without running anything.

Exit status: 0 no regression, 1 regression (0 with --report-only), 2 nothing
compared (BASE does not build, no block, too few rounds for ALPHA), with one
line saying why and what to run.
"""
import contextlib
import io
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time

from . import cli, gitwork, paths, stats, verdict
from .compare import COST_FILE, compare_cost, point_name, reduce_file, varying

SIDES = ("a", "b")
GATED = {"p50": "lat", "rate": "rate"}     # the metric a gated test is judged by
RUN_HINT = "make bench-ab BASE=REV [AB_ROUNDS=10]"


def order(rounds):
    """the blocks in the order they run: [(side, round)], A B, B A, ..."""
    out = []
    for r in range(1, rounds + 1):
        out += [(s, r) for s in (SIDES if r % 2 else SIDES[::-1])]
    return out


def block_dir(out, side, r):
    return os.path.join(out, side, "r%d" % r)


def read_blocks(out):
    """{side: {round: {key: reduced point}}} of OUT's blocks, and the key
    columns (tc-compare's reduction of each block's ci.csv)"""
    blocks, kcols = {s: {} for s in SIDES}, None
    for s in SIDES:
        d = os.path.join(out, s)
        for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            p = os.path.join(d, name, "ci.csv")
            if not (name.startswith("r") and name[1:].isdigit() and os.path.exists(p)):
                continue
            kind, pts, kc = reduce_file(p, [], {})
            if kind != "perf":
                continue
            blocks[s][int(name[1:])] = pts
            kcols = kcols or kc
    return blocks, kcols


def samples(blocks):
    """{(key, metric): {side: [value per round]}} of the gated points (jam_*
    rows normalised by their put reference; the metric GATED names for the
    test)"""
    out = {}
    for s in SIDES:
        for r in sorted(blocks[s]):
            for key, pt in blocks[s][r].items():
                if pt["role"] != "gate" or pt["norm"] != "/put":
                    continue
                for m, v in pt["vals"].items():
                    if m in GATED:
                        out.setdefault((key, m), {a: [] for a in SIDES})[s].append(v)
    return out


def judge(smp, alpha, min_effect):
    """[(key, metric, a values, b values, change, U, p, status, word)]; the
    per-point alpha. change: B's median over A's, read as worse when > 1
    (latency up, rate down)"""
    tested = {k: v for k, v in smp.items() if v["a"] and v["b"]}
    per = alpha / max(1, len(tested))
    rows = []
    for (key, m), v in sorted(tested.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        a, b = v["a"], v["b"]
        ma, mb = statistics.median(a), statistics.median(b)
        higher_is_worse = GATED[m] == "lat"
        u, p = stats.mann_whitney(b, a, "greater" if higher_is_worse else "less")
        worse = (mb / ma if higher_is_worse else ma / mb) if ma > 0 and mb > 0 else 1.0
        word = "%s %+.1f%%" % (m, (mb / ma - 1) * 100 if ma > 0 else 0)
        past = worse > 1 + min_effect / 100
        if p < per and past:
            status = "regression"
        elif past:
            status = "noise"
            word += " (p %.2g, not below %.2g)" % (p, per)
        else:
            status = "ok"
        rows.append((key, m, a, b, worse, u, p, status, word))
    return rows, per


def too_few(smp, per):
    """(why the rounds cannot decide at the per-point alpha, the rounds a
    build that can); None when they can"""
    ns = [(len(v["a"]), len(v["b"])) for v in smp.values() if v["a"] and v["b"]]
    n, m = min(ns)
    if stats.min_p(n, m) < per:
        return None
    need = next(k for k in range(2, 200) if stats.min_p(k, k) < per)
    return ("%d and %d rounds: the smallest p the test can give, %.2g, is not below the per-point "
            "alpha %.2g" % (n, m, stats.min_p(n, m), per), need)


def analyse(out, alpha, min_effect, report_only):
    """(Verdict, markdown lines) of the blocks in OUT"""
    v = verdict.Verdict("tc-ab", gating=not report_only)
    v.threshold = " (p < %g over the points, worse by more than %g%%)" % (alpha, min_effect)
    blocks, kcols = read_blocks(out)
    if not blocks["a"] or not blocks["b"]:
        v.nothing("no blocks of %s in %s" % ("A and B" if not (blocks["a"] or blocks["b"])
                                             else "A" if not blocks["a"] else "B", out), RUN_HINT)
        return v, []
    smp = samples(blocks)
    rows, per = judge(smp, alpha, min_effect)
    if not rows:
        v.nothing("no gated point in both builds' blocks in %s" % out, RUN_HINT)
        return v, []
    few = too_few(smp, per)
    if few:
        v.nothing(few[0], "make bench-ab AB_ROUNDS=%d, at least" % few[1])
        return v, []
    results = [("ci", dict(zip(kcols, key)), "gate", "/put", {}) for key, *_ in rows]
    shown = varying(results, "ci") if results else []
    lines = ["| point | A median | B median | B / A | U | p | verdict |", "|---|---:|---:|---:|---:|---:|---|"]
    for (key, m, a, b, worse, u, p, status, word), res in zip(rows, results):
        name = point_name(res[1], shown)
        v.add("time", name, status, word if status != "ok" else "")
        ma, mb = statistics.median(a), statistics.median(b)
        lines.append("| %s | %.4g | %.4g | %.3f | %g | %.2g | %s |" % (
            name, ma, mb, mb / ma if ma else math.nan, u, p,
            "REGRESSION: " + word if status == "regression" else "noise: " + word if status == "noise" else "ok"))
    return v, lines


def meta_of(out):
    try:
        with open(os.path.join(out, "ab.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def report(a, v, lines, out):
    """the markdown: the verdict and its regressions first, then how it was
    judged, the table, the instruction counts and the closing line"""
    m = meta_of(out)
    if v.status() == verdict.NOTHING:
        print(v.headline())
        return
    print("# tc-ab: %s\n" % v.headline())
    if v.regressions():
        print("\n".join(v.summary()[2:]) + "\n")
    print("- A: %s\n- B: %s" % (m.get("a", {}).get("label", "?"), m.get("b", {}).get("label", "?")))
    if m:
        print("- blocks: %s rounds a build, alternating A B, B A, ... (%s iterations a point), %s" % (
            m.get("rounds", "?"), m.get("iters", "?"), m.get("elapsed", "")))
        if m.get("slow_jam"):
            print("- B's indirect_put slowed by %s spin iterations a message (--slow-jam)" % m["slow_jam"])
    print("- test: Mann-Whitney U over the rounds, one-sided (B slower), per gated point (jam_* p50 and the "
          "median window's rate, each divided by its invocation's put reference)")
    print("- gate: p < %g / %d points = %.2g (Bonferroni: at most %g of identical A/Bs raise a false alarm) "
          "and B worse than A by more than %g%%" % (a.alpha, len(v.cases), a.alpha / max(1, len(v.cases)),
                                                     a.alpha, a.min_effect))
    print()
    print("\n".join(lines))
    cost_lines, _ = compare_cost(os.path.join(out, "a", "r1"), os.path.join(out, "b", "r1"), 3.0)
    if cost_lines:
        print("\n".join("tc-cost under callgrind (scripts/bench-cost.sh), once a build: listed, not gated here "
                        "(make bench-ci gates on the counts)" if x.startswith("tc-cost under") else x
                        for x in cost_lines))
    n = len(v.cases)
    print("\n%d points tested, %d regressed, %d moved past %g%% without a small enough p (noise)"
          % (n, len(v.regressions()), sum(1 for c in v.cases if c["status"] == "noise"), a.min_effect))
    print(v.headline())


def run_blocks(a, out, builds, rev_labels):
    """the alternation: every block one bench-ci.sh round of one build"""
    meta = {"rounds": a.rounds, "iters": a.iters, "slow_jam": a.slow_jam,
            "a": {"label": rev_labels[0], "build": builds[0]}, "b": {"label": rev_labels[1], "build": builds[1]},
            "blocks": [], "rounds_done": {"a": [], "b": []}}
    t0 = time.time()
    for side, r in order(a.rounds):
        d = block_dir(out, side, r)
        cmd = [os.path.join(paths.SCRIPTS, "bench-ci.sh"), "-o", d, "-r", "1", "-n", str(a.iters)]
        if r > 1:
            cmd.append("--no-cost")         # one count a build is enough: it does not vary
        if side == "b" and a.slow_jam:
            cmd += ["--slow-jam", str(a.slow_jam)]
        env = dict(gitwork.clean_env(), TC_BUILD=builds[SIDES.index(side)])
        print("tc-ab: round %d/%d, %s" % (r, a.rounds, side.upper()), file=sys.stderr, flush=True)
        b0 = time.time()
        log = d + ".log"
        os.makedirs(os.path.dirname(d), exist_ok=True)
        with open(log, "w") as f:
            rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=env).returncode
        if rc != 0:
            with open(log) as f:
                last = [x.strip() for x in f if x.strip()][-1:] or [""]
            return meta, ("round %d of %s failed (bench-ci.sh exit %d: %s; %s)" % (r, side.upper(), rc, last[0], log),
                          RUN_HINT)
        meta["blocks"].append({"side": side, "round": r, "start_s": round(b0 - t0, 1),
                               "seconds": round(time.time() - b0, 1)})
        meta["rounds_done"][side].append(r)
        if len(meta["blocks"]) == 1:
            # the first block tells how many points are tested: stop here
            # where the rounds could not decide at alpha anyway
            blocks, _ = read_blocks(out)
            first = samples(blocks)
            few = too_few({k: {"a": [1] * a.rounds, "b": [1] * a.rounds} for k in first},
                          a.alpha / max(1, len(first))) if first else None
            if few:
                return meta, (few[0], "make bench-ab AB_ROUNDS=%d, at least" % few[1])
    meta["elapsed"] = "%.0f s" % (time.time() - t0)
    return meta, None


def run(a):
    """build BASE, alternate the blocks into a.out; -> None, or (why nothing
    was compared, what to run)"""
    new_build = os.path.abspath(os.environ.get("TC_BUILD") or os.path.join(paths.TOP, "build"))
    if not os.access(os.path.join(new_build, "bin", "tc-perf"), os.X_OK):
        return "no tc-perf in %s" % new_build, "make, then tc-ab; or make bench-ab"
    rev, why = (a.base, "BASE") if a.base else gitwork.default_base()
    sha = gitwork.commit_of(rev)
    if sha is None:
        return "BASE %s names no commit" % rev, RUN_HINT
    head = gitwork.commit_of("HEAD")
    labels = ["%s %s (%s)" % (gitwork.short(sha), gitwork.subject(sha)[:72], why),
              "this tree, HEAD %s%s" % (gitwork.short(head or "?"), " with uncommitted changes"
                                        if gitwork.dirty() else "")]
    os.makedirs(a.out, exist_ok=True)
    for s in SIDES:
        shutil.rmtree(os.path.join(a.out, s), ignore_errors=True)
    print("tc-ab: A = %s\ntc-ab: B = %s" % tuple(labels), file=sys.stderr, flush=True)
    wt = gitwork.Worktree(os.path.join(paths.TOP, "build", "ab", "base"), sha, keep=a.keep)
    with wt:
        log = os.path.join(a.out, "base-build.log")
        print("tc-ab: building A in %s" % wt.path, file=sys.stderr, flush=True)
        ok, secs, last = gitwork.build(wt.path, ["all"], log)
        if not ok:
            return "BASE %s does not build (%s; %s)" % (gitwork.short(sha), last, log), RUN_HINT
        meta, err = run_blocks(a, a.out, [os.path.join(wt.path, "build"), new_build], labels)
        meta["base"], meta["base_build_s"] = sha, round(secs, 1)
        cli.write_whole(os.path.join(a.out, "ab.json"), json.dumps(meta, indent=1) + "\n")
    return err


def parse_args(argv=None):
    ap = cli.parser("tc-ab", __doc__)
    ap.add_argument("--base", metavar="REV", help="A's revision (default: the merge-base with main, or HEAD~1 on main)")
    ap.add_argument("-o", dest="out", default=os.path.join(paths.TOP, "build", "bench-ab"),
                    help="where the blocks and ab.json go (default build/bench-ab)")
    ap.add_argument("-r", dest="rounds", type=int, default=10, help="rounds a build (default 10)")
    ap.add_argument("-n", dest="iters", type=int, default=100000, help="iterations a point (default 100000)")
    ap.add_argument("--slow-jam", type=int, default=0, metavar="N",
                    help="B's indirect_put slowed by N spin iterations a message (the detection limit)")
    ap.add_argument("--alpha", type=float, default=0.01,
                    help="false-alarm rate over all points of one A/B of identical trees (default 0.01)")
    ap.add_argument("--min-effect", type=float, default=3.0, metavar="PCT",
                    help="a regression is worse by more than PCT%% too (default 3)")
    ap.add_argument("--report-only", action="store_true", help="exit 0 on a regression (the verdict printed)")
    ap.add_argument("--keep", action="store_true", help="leave BASE's worktree (build/ab/base)")
    ap.add_argument("--analyse", metavar="OUT", help="judge the blocks in OUT again; run nothing")
    verdict.add_args(ap)
    a = ap.parse_args(argv)
    if a.rounds < 1 or a.iters < 1 or a.slow_jam < 0:
        ap.error("-r and -n must be >= 1, --slow-jam >= 0")
    if not 0 < a.alpha < 1 or a.min_effect < 0:
        ap.error("--alpha must lie in (0, 1), --min-effect >= 0")
    return a


def main(argv=None):
    a = parse_args(argv)
    if a.analyse:
        a.out = a.analyse
    else:
        err = run(a)
        if err:
            v = verdict.Verdict("tc-ab", gating=not a.report_only)
            v.nothing(*err)
            print(v.headline())
            v.write(a.json, a.junit)
            return v.status()
    v, lines = analyse(a.out, a.alpha, a.min_effect, a.report_only)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        report(a, v, lines, a.out)
    sys.stdout.write(buf.getvalue())
    if os.path.isdir(a.out):
        cli.write_whole(os.path.join(a.out, "ab.md"), buf.getvalue())
    v.write(a.json, a.junit)
    return v.status()
