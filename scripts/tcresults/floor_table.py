"""Tables of bench-floor.sh's results: one per payload size, each jam x mode
with p50 one-way latency and rate, and the ratio of each to floor_*,
put_read_* and put_* of the same frame size from the same invocation
(median over rounds where there are several). Then the goals of the issue,
each with its measured value and whether it is met.

usage: tc-floor-table DIR JAM...   (reads DIR/JAM.csv, DIR/ucx_perftest.JAM.rN.txt)
"""
import json
import os
import re
import statistics
import sys

from . import schema
from .reduce import References
from .schema import median

USAGE = __doc__.strip().splitlines()[-1]
REF_NAMES = ("floor", "put_read", "put")
MODES = ("local", "injected", "cached")
# each payload's references ran beside its jam rows: prefer those (8 B
# injected and 64 B local frames can be of one size), else the first of the
# frame size; only from the jam's own invocation (round)
REF_KEYS = [["frame_bytes", "payload_bytes"], ["frame_bytes"]]


def ratio_rows(rows):
    """{(jam_test, mode, payload): [per-round dicts: frame, value, round, and
    per reference name its ratio and its value]}"""
    refs = References(rows, {n + s for n in REF_NAMES for s in ("_lat", "_rate")}, REF_KEYS, ("invocation",))
    out = {}
    for r in rows:
        if not r["test"].startswith("jam_"):
            continue
        lat = r["test"] == "jam_lat"
        col = "p50_us" if lat else "rate_mps"
        v = float(r[col])
        d = {"frame": int(r["frame_bytes"]), "value": v, "round": r["round"]}
        for name in REF_NAMES:
            x = (refs.rows(name + ("_lat" if lat else "_rate"), r) or [None])[0]
            d[name] = (v / float(x[col])) if x and float(x[col]) > 0 else None
            d[name + "_value"] = float(x[col]) if x else None
        out.setdefault((r["test"], r["mode"], int(r["payload_bytes"])), []).append(d)
    return out


def run_meta(path):
    """(tc-perf --blocks, clock.resolution_ns) of the invocation that wrote
    path; (1, None) for a JSON from before either."""
    try:
        with open(path) as f:
            meta = json.load(f)
    except (OSError, ValueError):
        return 1, None
    step = meta.get("clock", {}).get("resolution_ns")
    return int(meta.get("options", {}).get("blocks", 1)), (float(step) if step else None)


def clock_step_said(steps):
    """Where the clock counts in steps (tc-perf's clock.resolution_ns), say so."""
    wide = sorted({s for s in steps if s and s > 2.0})
    if not wide:
        return ""
    return (" The clock moves in steps of %s ns; percentiles spread each step's samples over it"
            " (docs/EXPERIMENTS.md, \"The clock's steps\")." % "/".join("%.2f" % s for s in wide))


def blocks_said(blocks):
    if blocks == [1]:
        return "each point ran whole, a payload's points back to back"
    return ("each point's iterations ran in %s blocks, a payload's points taking turns"
            " block by block (tc-perf --blocks)" % "/".join(str(b) for b in blocks))


def med(ds, key):
    return median([d[key] for d in ds if d.get(key) is not None])


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def print_intro(n_rounds, waits, metas):
    print("# Jams against the floor\n")
    print("Each row: one tc-perf invocation per jam (two processes, cores 0 and 1),"
          " references at the row's frame size from the same invocation; %d round(s),"
          " ratios are medians over rounds; every receiver, jam and reference, waits with"
          " %s; %s. Latency: p50 one-way, ratio = jam / reference"
          " (above 1: slower). Rate: messages/s, ratio = jam / reference (below 1: fewer).%s\n"
          % (n_rounds, ", ".join(waits), blocks_said(sorted({b for b, _ in metas})),
             clock_step_said(step for _, step in metas)))


def print_sizes(jams, data, sizes):
    """one table per payload size: each jam x mode against its references"""
    for size in sizes:
        print("## %d B payload\n" % size)
        print("| jam | mode | frame B | jam_lat us | floor_lat us | x floor | x put_read | x put |"
              " jam_rate M/s | floor_rate M/s | x floor | x put_read | x put |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for jam in jams:
            for mode in MODES:
                L = data[jam].get(("jam_lat", mode, size)) or []
                R = data[jam].get(("jam_rate", mode, size)) or []
                if not L and not R:
                    continue
                rate, floor_rate = med(R, "value"), med(R, "floor_value")
                print("| %s | %s | %d | %s |" % (jam, mode, (L or R)[0]["frame"], " | ".join([
                    fmt(med(L, "value"), ".3f"), fmt(med(L, "floor_value"), ".3f"),
                    fmt(med(L, "floor"), ".2f"), fmt(med(L, "put_read"), ".2f"), fmt(med(L, "put"), ".2f"),
                    fmt(rate and rate / 1e6, ".2f"), fmt(floor_rate and floor_rate / 1e6, ".2f"),
                    fmt(med(R, "floor"), ".2f"), fmt(med(R, "put_read"), ".2f"), fmt(med(R, "put"), ".2f")])))
        print()


def print_rounds(jams, data, sizes):
    """Each round's own jam_lat / floor_lat: a host that moves its cores
    between invocations (the AMD guest) makes a median over rounds mix
    placements; the one-line floor of each round says which it was in."""
    rounds = sorted({d["round"] for j in jams for ds in data[j].values() for d in ds}, key=int)
    if len(rounds) < 2:
        return
    print("## Each round\n")
    print("jam_lat / floor_lat of each invocation (round); the first row is that invocation's"
          " floor_lat at the smallest payload's local frame, which shows where the host had"
          " placed the two cores.\n")
    print("| jam | mode | payload B | %s |" % " | ".join("r%s" % r for r in rounds))
    print("|---|---|---:|%s|" % "|".join("---:" for _ in rounds))
    for jam in jams:
        first = data[jam].get(("jam_lat", "local", sizes[0])) or []
        byr = {d["round"]: d for d in first}
        print("| %s | floor_lat us | %d | %s |" % (jam, sizes[0], " | ".join(
            fmt(byr[r]["floor_value"] if r in byr else None, ".3f") for r in rounds)))
        for mode in MODES:
            for size in sizes:
                ds = data[jam].get(("jam_lat", mode, size))
                if not ds:
                    continue
                byr = {d["round"]: d for d in ds}
                print("| %s | %s | %d | %s |" % (jam, mode, size, " | ".join(
                    fmt(byr[r]["floor"] if r in byr else None, ".2f") for r in rounds)))
    print()


def floor_limit(size):
    """the goal for jam_lat / floor_lat: 1.25x up to 32 KiB, 1.10x above"""
    return 1.25 if size <= 32768 else 1.10


def goal_floor(jams, data):
    """the goal every jam_lat <= its limit x floor_lat: the count and the worst point"""
    worst, ok, total = None, 0, 0
    for jam in jams:
        for (t, mode, size), ds in data[jam].items():
            x = med(ds, "floor") if t == "jam_lat" else None
            if x is None:
                continue
            lim = floor_limit(size)
            total += 1
            ok += x <= lim
            if worst is None or x / lim > worst[0]:
                worst = (x / lim, jam, mode, size, x, lim)
    if worst:
        print("| every jam_lat <= 1.25 x floor_lat | %d of %d points; worst %s %s %d B: %.2fx |"
              " %s |" % (ok, total, worst[1], worst[2], worst[3], worst[4], "yes" if ok == total else "no"))


def goals_of_jam(top, jam, d):
    """the goals of one jam: 8 B latency against put and ucx_perftest,
    injected/local against the floor's, the rate against put"""
    L = d.get(("jam_lat", "local", 8))
    if L:
        x = med(L, "put")
        print("| %s local 8 B jam_lat <= 1.05 x put_lat | %.2fx | %s |" % (jam, x, "yes" if x <= 1.05 else "no"))
        # each round's jam_lat over the ucx_perftest run just before it
        xs, pts = [], []
        for r in L:
            pt = perftest_lat(os.path.join(top, "ucx_perftest.%s.r%s.txt" % (jam, r["round"])))
            if pt:
                xs.append(r["value"] / pt)
                pts.append(pt)
        if xs:
            x = statistics.median(xs)
            print("| %s local 8 B jam_lat <= 1.10 x ucx_perftest ucp_put_lat -s 64 (run just "
                  "before each invocation: %s us) | %.2fx | %s |"
                  % (jam, ", ".join("%.3f" % p for p in pts), x, "yes" if x <= 1.10 else "no"))
    for size in (4, 8, 16, 32, 64):
        Li, Ll = d.get(("jam_lat", "injected", size)), d.get(("jam_lat", "local", size))
        if not Li or not Ll:
            continue
        jr = med(Li, "value") / med(Ll, "value")
        fr = med(Li, "floor_value") / med(Ll, "floor_value")
        print("| %s injected/local at %d B <= 1.1 x the floor's ratio (%.2f) | %.2f (%.2fx) | %s |"
              % (jam, size, fr, jr, jr / fr, "yes" if jr <= 1.1 * fr else "no"))
    for size in (8, 64):
        R = d.get(("jam_rate", "local", size))
        if R:
            x = med(R, "put")
            print("| %s local %d B jam_rate >= 0.9 x put_rate | %.2fx | %s |"
                  % (jam, size, x, "yes" if x >= 0.9 else "no"))


def perftest_lat(path):
    """ucx_perftest's typical latency (us) from its final line, or None."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return None
    last = None
    for line in text.splitlines():
        m = re.match(r"\s*Final:\s+\d+\s+([\d.]+)\s+([\d.]+)", line)
        if m:
            last = float(m.group(1))
        elif re.match(r"\s*Final:", line):
            parts = line.split()
            try:
                last = float(parts[2])
            except (IndexError, ValueError):
                pass
    return last


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    opts = [a for a in argv if a.startswith("-")]
    if opts or len(argv) < 2:
        # a bad command line: one line and the usage, exit 2, as every tool
        why = "unknown option '%s'" % opts[0] if opts else "needs DIR and at least one JAM"
        sys.stderr.write("tc-floor-table: %s\n%s\n" % (why, USAGE))
        sys.exit(2)
    top, jams = argv[0], argv[1:]
    rows = {j: schema.read(os.path.join(top, j + ".csv")).rows for j in jams}
    data = {j: ratio_rows(rows[j]) for j in jams}
    sizes = sorted({k[2] for d in data.values() for k in d})
    print_intro(max(len(v) for d in data.values() for v in d.values()),
                sorted({r["wait"] for j in jams for r in rows[j]}),
                [run_meta(os.path.join(top, j + ".json")) for j in jams])
    print_sizes(jams, data, sizes)
    print_rounds(jams, data, sizes)
    print("## Goals\n")
    print("| goal | measured | met |")
    print("|---|---|---|")
    goal_floor(jams, data)
    for jam in jams:
        goals_of_jam(top, jam, data[jam])
    return 0
