"""The results schema: what tc-perf and tc-mcast write and the runner adds,
read in one place.

A results folder (results/<platform>/, the runner's layout) holds one
<experiment>.csv per experiment (and <experiment>.dist.csv with --dist) and
meta.json: the platform report, and per experiment its points' sweep axes
(point_axes), rounds, skips and failures. A CSV row is one test of one
tool invocation; the runner prefixes experiment, point, round and preset.
An invocation is one (point, round): its rows ran in one process pair and
carry their own references (put_lat, put_rate, floor_*).

- num(): the one number parser: a finite float, else None (an empty cell,
  text, inf and nan alike are "no value").
- SCHEMA_VERSION and migrate(): every CSV row tc-perf and tc-mcast write
  carries the schema_version it was written in (bench/tool.h
  TC_TOOL_SCHEMA_VERSION), and tc-experiments' meta.json its own; a row or
  meta.json without one is version 0. migrate() is the one place an older
  version is brought to this one (docs/RESULTS.md, "Schema versions").
- read(): the one reader: the CSV's header and rows, each row migrated,
  and every sweep axis meta.json records for the row's point that the CSV
  has no column of as an axis:NAME column.
- invocation() and group(): rows by the tool invocation that ran them, and
  by any key (a point over its rounds).
"""
import csv
import json
import math
import os
import statistics

PERF, MCAST = "perf", "mcast"
# the columns the runner (tc-experiments) puts before the tool's own
PREFIX_COLS = ["experiment", "point", "round", "preset"]
# The version the tools write now, and migrate() brings older ones to.
# 0: no schema_version (every file before it); 1: the version column, and
# every axis column tc-perf has written out in every row. 2: tc-perf's api
# column (--api), "send" or "prepared" on jam rows.
SCHEMA_VERSION = 2
# What an absent or empty axis column of a version-0 row means (older
# tc-perf builds had no placement, prefetch, stress, gap or signal control,
# and polled): migrate() fills them in.
AXIS_DEFAULTS_V0 = {"wait": "poll", "placement": "default", "sw_prefetch": "off", "stress": "none",
                    "gap_us": "0", "signal": "fenced"}
# the round of a row that has none (a file from before rounds, or not the
# runner's: bench-floor.sh, bench-ci.sh): there was one
ROUND_DEFAULT = "1"
# how a jam row (test jam_*) of a version < 2 sent: tc_jam_send, all that
# tc-perf had before --api
API_DEFAULT = "send"
AXIS_PREFIX = "axis:"


def num(s):
    """s as a finite float; None for an empty cell, text, inf or nan."""
    try:
        v = float(s)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def median(vals):
    """the median of vals, None when there are none"""
    return statistics.median(vals) if vals else None


def axis_text(v):
    """a sweep axis value as a cell: '' for an unset (null) axis"""
    return "" if v is None else str(v)


def version(rec):
    """the schema_version of a CSV row or meta.json (0 where it has none);
    ValueError for one that is not a whole number, or newer than this
    reader (a newer tool wrote it: read it with that tree's scripts)"""
    v = rec.get("schema_version")
    if v in (None, ""):
        return 0
    n = num(v)
    if n is None or n != int(n) or n < 0:
        raise ValueError("schema_version %r is not a version" % (v,))
    if n > SCHEMA_VERSION:
        raise ValueError("schema_version %d is newer than this reader's %d" % (n, SCHEMA_VERSION))
    return int(n)


def migrate(rec, what="row"):
    """The one migration: rec, a CSV row (what="row") or a meta.json
    (what="meta") of any version, brought to SCHEMA_VERSION in place, and
    returned. 0 -> 1: a row's empty or absent axis cells take what they
    meant then (AXIS_DEFAULTS_V0); meta.json changed nothing but its
    version. 1 -> 2: a jam row (test jam_*) takes api API_DEFAULT. A row
    without a round gets ROUND_DEFAULT at every version."""
    if what not in ("row", "meta"):
        raise ValueError("migrate: what=%r (row or meta)" % (what,))
    v = version(rec)
    if what == "row":
        if v < 1:
            for k, d in AXIS_DEFAULTS_V0.items():
                if not rec.get(k):
                    rec[k] = d
        if v < 2 and not rec.get("api") and str(rec.get("test") or "").startswith("jam_"):
            rec["api"] = API_DEFAULT
        if not rec.get("round"):
            rec["round"] = ROUND_DEFAULT
    rec["schema_version"] = SCHEMA_VERSION if what == "meta" else str(SCHEMA_VERSION)
    return rec


def load_meta(folder):
    """folder/meta.json as a dict, migrated; {} where folder is a file, has
    none, or it does not parse."""
    p = os.path.join(folder, "meta.json") if os.path.isdir(folder) else None
    if not p or not os.path.exists(p):
        return {}
    try:
        with open(p) as f:
            meta = json.load(f)
    except (OSError, ValueError):
        return {}
    return migrate(meta, "meta") if isinstance(meta, dict) else {}


def exp_meta(meta, name):
    """meta.json's entry for one experiment ({} when it has none)"""
    return (meta.get("experiments") or {}).get(name, {}) or {}


def point_axes(em):
    """{point (str): {axis: value}} from an experiment's meta entry"""
    return {str(pa.get("point")): pa.get("axes") or {} for pa in em.get("point_axes", []) or []}


def kind(fields):
    """PERF (tc-perf: a test column) or MCAST (tc-mcast: n and radix, no test)"""
    return MCAST if "test" not in fields and "n" in fields and "radix" in fields else PERF


class Table:
    """One CSV as read: fields (its header), rows (dicts), axes (the
    axis:NAME columns added from meta.json, sorted) and kind."""

    def __init__(self, fields, rows, axes):
        self.fields, self.rows, self.axes = fields, rows, axes
        self.kind = kind(fields)


def read_csv(path):
    """(header, rows) of a CSV as written, nothing filled in"""
    with open(path, newline="") as f:
        rd = csv.DictReader(f)
        rows = list(rd)
    return list(rd.fieldnames or []), rows


def read(path, em=None, defaults=True):
    """path's Table: every row migrated to SCHEMA_VERSION (defaults=False:
    as written), and the point's sweep axes from em (meta.json's entry for
    the experiment) that the CSV has no column of as axis:NAME columns."""
    fields, rows = read_csv(path)
    axes = point_axes(em or {})
    added = set()
    for i, r in enumerate(rows):
        if defaults:
            try:
                migrate(r)
            except ValueError as e:
                raise ValueError("%s:%d: %s" % (path, i + 2, e)) from None
        for k, v in axes.get(str(r.get("point", "")), {}).items():
            if k not in fields:
                r[AXIS_PREFIX + k] = axis_text(v)
                added.add(AXIS_PREFIX + k)
    return Table(fields, rows, sorted(added))


def fill_from_axes(rows, em):
    """a row's empty cell in a column that is also its point's sweep axis
    takes the axis value (a put_lat row's jam: the jam its invocation ran)"""
    axes = point_axes(em or {})
    for r in rows:
        for k, v in axes.get(str(r.get("point", "")), {}).items():
            if r.get(k) == "" and v not in (None, False, ""):
                r[k] = str(v)
    return rows


def invocation(r):
    """the tool invocation that wrote row r: its point and round (the
    runner's layout; bench-ci numbers every round as a point)"""
    return (r.get("point", ""), r.get("round", "") or "")


def group(rows, key):
    """{key(row): [rows]} in the order the keys first appear"""
    out = {}
    for r in rows:
        out.setdefault(key(r), []).append(r)
    return out


def experiments(folder):
    """the experiment names of a folder: its <name>.csv (in the order of the
    file names), not a table derived from one, <name>.<what>.csv (the
    .dist.csv, tc-topo's .pairs.csv and .classes.csv)"""
    if not os.path.isdir(folder):
        return []
    return [n[:-4] for n in sorted(os.listdir(folder)) if n.endswith(".csv") and "." not in n[:-4]]


def size_label(b):
    """4 -> '4 B', 4096 -> '4 KiB'"""
    b = int(b)
    if b >= 1024 and b % 1024 == 0:
        return "%d KiB" % (b // 1024)
    return "%d B" % b


def sort_key(k):
    """a key tuple's order: numbers by value before text"""
    return tuple((0, float(x)) if num(x) is not None else (1, str(x)) for x in k)


class Folder:
    """One results folder: its meta.json and its experiments' Tables (read
    once each)."""

    def __init__(self, d):
        self.dir = d
        self.meta = load_meta(d)
        pl = self.meta.get("platform")
        self.platform = pl if isinstance(pl, dict) else {}
        self.id = self.meta.get("platform_id") or os.path.basename(os.path.abspath(d))
        self._tables = {}

    def exp_meta(self, name):
        return exp_meta(self.meta, name)

    def experiments(self):
        return experiments(self.dir)

    def table(self, name):
        """name's Table, None when the folder has no name.csv"""
        if name not in self._tables:
            p = os.path.join(self.dir, name + ".csv")
            self._tables[name] = read(p, self.exp_meta(name)) if os.path.exists(p) else None
        return self._tables[name]

    def rows(self, name):
        t = self.table(name)
        return None if t is None else t.rows

    def rounds(self, name):
        """the rounds (ints) of an experiment's rows"""
        return sorted({int(num(r["round"]) or 1) for r in self.rows(name) or []})

    def support(self, path):
        """'supported' or the reason string from the platform report (a.b.c path)."""
        cur = self.platform
        for part in path.split("."):
            if not isinstance(cur, dict) or part not in cur:
                return "platform report has no %s" % path
            cur = cur[part]
        return cur if isinstance(cur, str) else "supported"
