"""Revisions built apart from the working tree, for tc-ab, tc-history and
tc-bisect: a detached git worktree under build/, checked out clean and built
from scratch for each revision (no object of another revision reused), and
removed after."""
import os
import re
import shutil
import subprocess
import time

from . import paths

# make's variables of an outer make (make history N=50 BUILD=x): not passed
# to the build of another revision, which builds into its own build/
MAKE_ENV = ("MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES", "MAKELEVEL", "MAKE_TERMOUT", "MAKE_TERMERR")


class GitError(Exception):
    pass


def git(*args, cwd=paths.TOP):
    """git's stdout, stripped; GitError with its message when it fails"""
    r = subprocess.run(("git",) + args, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        raise GitError("git %s: %s" % (" ".join(args), (r.stderr.strip() or r.stdout.strip()).splitlines()[-1:]))
    return r.stdout.strip()


def commit_of(rev, cwd=paths.TOP):
    """the full hash of rev's commit, None where rev names none"""
    try:
        return git("rev-parse", "--verify", "--quiet", rev + "^{commit}", cwd=cwd)
    except GitError:
        return None


def subject(rev, cwd=paths.TOP):
    try:
        return git("log", "-1", "--format=%s", rev, cwd=cwd)
    except GitError:
        return ""


def short(sha):
    return sha[:7]


def default_base(cwd=paths.TOP, main="main"):
    """what bench-ab compares with: the merge-base of HEAD with main, or
    HEAD~1 where HEAD is on main (the merge-base is HEAD itself); (rev, why)"""
    head = commit_of("HEAD", cwd)
    if commit_of(main, cwd) is None:
        return "HEAD~1", "no branch %s: HEAD~1" % main
    mb = git("merge-base", "HEAD", main, cwd=cwd)
    if mb == head:
        return "HEAD~1", "HEAD is on %s: HEAD~1" % main
    return mb, "the merge-base of HEAD with %s" % main


def dirty(cwd=paths.TOP):
    """whether tracked files differ from HEAD (the measured tree is then not HEAD)"""
    return subprocess.run(["git", "diff", "--quiet", "HEAD", "--"], cwd=cwd).returncode != 0


def uncommitted(path, cwd=paths.TOP):
    """whether git has not committed path as it is: nothing of it tracked
    (new, ignored, or outside the repository) or changed since"""
    try:
        if not git("ls-files", "--", path, cwd=cwd):
            return True
        return bool(git("status", "--porcelain", "--untracked-files=all", "--", path, cwd=cwd))
    except (GitError, OSError):
        return True


def clean_env():
    return {k: v for k, v in os.environ.items() if k not in MAKE_ENV}


class Worktree:
    """A detached worktree at path (under build/): with Worktree(path, rev) as
    w: ... checks rev out; w.checkout(other) moves it, clean; left, it is
    removed (keep=True: left in place)."""

    def __init__(self, path, rev, keep=False, repo=paths.TOP):
        self.path, self.rev, self.keep, self.repo = os.path.abspath(path), rev, keep, repo

    def remove(self):
        if os.path.exists(self.path):
            subprocess.run(["git", "worktree", "remove", "--force", self.path], cwd=self.repo,
                           capture_output=True)
        shutil.rmtree(self.path, ignore_errors=True)
        subprocess.run(["git", "worktree", "prune"], cwd=self.repo, capture_output=True)

    def __enter__(self):
        self.remove()       # one left by a run that was killed
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        git("worktree", "add", "--detach", "--force", self.path, self.rev, cwd=self.repo)
        return self

    def checkout(self, rev):
        """rev checked out, every file not in it gone (its build too)"""
        git("checkout", "--quiet", "--detach", "--force", rev, cwd=self.path)
        git("clean", "-fdxq", cwd=self.path)

    def head(self):
        return git("rev-parse", "HEAD", cwd=self.path)

    def __exit__(self, *exc):
        if not self.keep:
            self.remove()
        return False


def build(src, targets, log_path, timeout=1800, jobs=None):
    """make -jJOBS TARGETS in src into src/build; (ok, seconds, why): why is
    the log's last line where it failed"""
    jobs = jobs or os.cpu_count() or 2
    t0 = time.time()
    with open(log_path, "w") as log:
        try:
            r = subprocess.run(["make", "-C", src, "-j%d" % jobs] + list(targets), stdout=log,
                               stderr=subprocess.STDOUT, env=clean_env(), timeout=timeout)
            rc = r.returncode
        except subprocess.TimeoutExpired:
            rc = None
    secs = time.time() - t0
    if rc == 0:
        return True, secs, ""
    return False, secs, ("timed out after %d s" % timeout) if rc is None else why_failed(log_path)


def why_failed(log_path):
    """the line of a build log that says why: the compiler's first error,
    else the last line that is not make changing directory"""
    with open(log_path, errors="replace") as f:
        lines = [x.strip() for x in f if x.strip() and not re.match(r"make(\[\d+\])?: (Entering|Leaving) directory",
                                                                     x.strip())]
    errs = [x for x in lines if ": error:" in x or ": fatal error:" in x]
    return ((errs or lines[-1:] or [""])[0])[:200]
