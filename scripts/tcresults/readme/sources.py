"""What a block is generated from: the registry of generators (one per
block name), the context they read through (results folders, their claims,
the build), and the formats the generated text shares."""
import glob
import json
import os

from .. import schema
from ..claims import judge_all
from ..claims.results import Results
from ..claims.verdict import vclass

GENERATORS = {}
# what a generator writes into its begin marker (the rest of it is input)
OUTPUT_KEYS = ("rev", "cc", "arch")


class Skip(Exception):
    """a block that cannot be generated here (the reason), e.g. a build by
    another compiler than the one the block was generated from"""


class Out:
    """A generated block: its text, the attributes its begin marker takes
    (rev=...), and what the closing note names as its source."""

    def __init__(self, body, attrs, note):
        self.body, self.attrs, self.note = body, attrs, note


def generator(name):
    """registers fn(ctx, srcs, attrs) -> Out as the generator of blocks NAME;
    its docstring's first line is what tc-readme --list prints"""
    def deco(fn):
        GENERATORS[name] = fn
        return fn
    return deco


class Context:
    """The repository (top) and the build folder a run reads, each results
    folder and its claims read once."""

    def __init__(self, top, build):
        self.top, self.build = top, build
        self._folders, self._sheets = {}, {}

    def path(self, rel):
        return os.path.join(self.top, rel)

    def folder(self, rel):
        """the results folder rel (claims.results.Results); FileNotFoundError where it is none"""
        if rel not in self._folders:
            if not os.path.isdir(self.path(rel)):
                raise FileNotFoundError("%s: no such results folder" % rel)
            self._folders[rel] = Results(self.path(rel))
        return self._folders[rel]

    def sheet(self, rel):
        """the claims judged on rel, as tc-claims judges them"""
        if rel not in self._sheets:
            self.folder(rel)
            self._sheets[rel] = judge_all(self.path(rel))
        return self._sheets[rel]

    def claims(self, rel):
        """{claim id: its row}"""
        return {r["id"]: r for r in self.sheet(rel).rows}


def rev_of(ctx, rel):
    """the git revision a results folder (or file) was measured at: a
    folder's meta.json's, else the first tc-perf JSON record's in it; a
    file's JSON record beside it (the same name); else 'unrecorded'"""
    p = ctx.path(rel)
    if os.path.isdir(p):
        meta = schema.load_meta(p)
        if meta.get("git_rev"):
            return meta["git_rev"]
        cands = sorted(glob.glob(os.path.join(p, "*.json")))
    else:
        cands = [os.path.splitext(p)[0] + ".json"]
    for j in cands:
        try:
            with open(j) as f:
                rev = json.load(f).get("git_rev")
        except (OSError, ValueError, AttributeError):
            continue
        if rev:
            return rev
    return "unrecorded"


def results_out(ctx, srcs, body):
    """an Out for a block read from the results srcs (folders or files):
    rev= and the note name each and its revision"""
    revs = [rev_of(ctx, s) for s in srcs]
    note = ", ".join("`%s%s` (%s)" % (s.rstrip("/"), "/" if os.path.isdir(ctx.path(s)) else "",
                                       "git " + r if r != "unrecorded" else "its revision not recorded")
                     for s, r in zip(srcs, revs))
    return Out(body, {"rev": ",".join(revs)}, note)


# --- formats
def pct(x):
    return "%+.0f%%" % (x * 100)


def pct_abs(x):
    return "%.0f%%" % (x * 100)


def times(x):
    return "%.2fx" % x if x < 10 else "%.1fx" % x if x < 100 else "%.0fx" % x


def us(x):
    """a latency in microseconds (milliseconds, seconds) to three figures"""
    if x >= 1e6:
        return "%.3g s" % (x / 1e6)
    if x >= 1000:
        return "%.3g ms" % (x / 1000) if x < 100000 else "%.0f ms" % (x / 1000)
    return "%.3f us" % x if x < 1 else "%.3g us" % x if x < 100 else "%.0f us" % x


def span(vals, f):
    """'a..b' (or 'a' when they are equal) of a list of values in the format f"""
    lo, hi = f(min(vals)), f(max(vals))
    return lo if lo == hi else "%s..%s" % (lo, hi)


def duration(s):
    """seconds as '6 min 57 s' (or '38 s', or '139 h')"""
    s = int(round(s))
    if s >= 36000:
        return "%d h" % round(s / 3600)
    if s >= 3600:
        return "%d h %d min" % (s // 3600, s % 3600 // 60)
    if s >= 60:
        return "%d min %d s" % (s // 60, s % 60)
    return "%d s" % s


def verdict(row):
    """a claim's verdict class, for prose"""
    return vclass(row["verdict"]) if row else "absent"


def claim_value(row, f):
    """'median (95% interval lo..hi)' of a claim row in the format f"""
    if row is None or row.get("median") is None:
        return "-"
    if row.get("lo") is None:
        return "%s (1 round)" % f(row["median"])
    return "%s (95%% interval %s..%s)" % (f(row["median"]), f(row["lo"]), f(row["hi"]))
