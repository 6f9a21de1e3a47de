"""tc-base-count: the counts of another revision, for a gate that holds this
tree against its base in the same job (scripts/bench-ci.sh --base REV, make
bench-ci BASE=REV).

usage: tc-base-count REV OUT [--cost-flags FLAGS] [--cc CC] [--keep]

REV (a branch, tag or commit: origin/main, a merge request's target) is
checked out in a worktree under build/bench-ci-base/, built from scratch
(tc-cost and the bench package) and counted by this tree's
scripts/bench-cost.sh --sweep ci (FLAGS after it: fewer points, for a quick
check), with the pins this tree's counts get: OUT/cost.csv and
OUT/cost-meta.json, and OUT/base.json (the revision). No committed baseline
is read, so it serves a runner of any key. --cc CC builds REV with CC
(make CC=CC: bench-ci.sh --clang's leg, "clang-14 -gdwarf-4").

Exit status: 0 counted, 2 not (REV names no commit, does not build, or its
tc-cost cannot count), with one line saying why.
"""
import json
import os
import shlex

from . import cli, gitwork, history, paths

WORK = os.path.join(paths.TOP, "build", "bench-ci-base")


def parse_args(argv=None):
    ap = cli.parser("tc-base-count", __doc__)
    ap.add_argument("rev", help="the base revision (origin/main, a commit)")
    ap.add_argument("out", help="where its cost.csv goes")
    ap.add_argument("--cost-flags", default="", metavar="FLAGS",
                    help="bench-cost.sh options after --sweep ci (e.g. '-j indirect_put -m local -s 8')")
    ap.add_argument("--cc", default="", metavar="CC", help="build REV with this compiler (make CC=CC)")
    ap.add_argument("--keep", action="store_true", help="leave the worktree (build/bench-ci-base/src)")
    return ap.parse_args(argv)


def fail(why):
    print("tc-base-count: %s" % why, flush=True)
    return 2


def main(argv=None):
    a = parse_args(argv)
    sha = gitwork.commit_of(a.rev)
    if sha is None:
        return fail("BASE %s names no commit here (fetch it: git fetch origin main, or a full clone: "
                    "fetch-depth: 0 / GIT_DEPTH: 0)" % a.rev)
    os.makedirs(a.out, exist_ok=True)
    log = os.path.join(WORK, "%s.log" % gitwork.short(sha))
    os.makedirs(WORK, exist_ok=True)
    with open(log, "w"):
        pass
    with gitwork.Worktree(os.path.join(WORK, "src"), sha, keep=a.keep) as wt:
        ok, secs, why = gitwork.build(wt.path, history.BUILD_TARGETS + (["CC=" + a.cc] if a.cc else []), log)
        if not ok:
            return fail("BASE %s does not build: %s (%s)" % (gitwork.short(sha), why, log))
        rc, why = history.bench_cost(os.path.join(wt.path, "build"), a.out, log, shlex.split(a.cost_flags))
        if rc != 0:
            return fail("BASE %s not counted: %s (%s)" % (gitwork.short(sha), why, log))
    cli.write_whole(os.path.join(a.out, "base.json"), json.dumps(
        {"rev": a.rev, "commit": sha, "subject": gitwork.subject(sha), "build_s": round(secs, 1)}, indent=1) + "\n")
    print("tc-base-count: BASE %s %s (%s) counted -> %s/cost.csv" % (
        gitwork.short(sha), gitwork.subject(sha)[:60], a.rev, a.out), flush=True)
    return 0
