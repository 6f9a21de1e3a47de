"""How long the runs take and what they hold: make figures' recorded time
per results folder and the runner's estimate, the bench-ci sweep's size
(from its definition) and time (from a baseline's meta.json), and what
the committed tc-compare reports of a baseline found."""
import os
import re

from .. import paths, schema
from ..experiments import plan
from .sources import Out, duration, generator, results_out


def recorded_s(meta):
    """the seconds a run's experiments took (the runner's elapsed_s of each),
    None where none is recorded"""
    el = [e.get("elapsed_s") for e in (meta.get("experiments") or {}).values()]
    el = [x for x in el if isinstance(x, (int, float))]
    return sum(el) if el else None


@generator("figures-time")
def figures_time(ctx, srcs, attrs):
    """make figures' recorded time on each results folder (meta.json's elapsed_s)"""
    out = []
    for s in srcs:
        m = schema.load_meta(ctx.path(s))
        t = recorded_s(m)
        rounds = max([e.get("rounds", 1) for e in (m.get("experiments") or {}).values()] or [1])
        out.append("- `%s`: %s (preset %s, %d round%s per point, %s)" % (
            m.get("platform_id") or os.path.basename(s), duration(t) if t is not None else "no time recorded",
            m.get("preset", "?"), rounds, "" if rounds == 1 else "s", (m.get("date") or "?")[:10]))
    body = ("The measuring alone (the runner's `elapsed_s` per experiment in `meta.json`; the build and the "
            "drawing of the figures come on top):\n\n" + ";\n".join(out) + ".\n")
    return results_out(ctx, srcs, body)


class _Every(set):
    """the options a plan assumes every tool has"""

    def __contains__(self, item):
        return True


def estimate(exps, preset, platform, rounds):
    """(seconds, seconds of the points under --stress) the runner estimates
    for a preset on a platform report, the tools built and stress-ng there"""
    tool = {"present": True, "options": _Every(), "cmd": []}
    tools = {"tc-perf": tool, "tc-mcast": tool, "commands": {"stress-ng"}}
    total = stress = 0.0
    for e in exps:
        for p in plan.expand(e, preset, platform, tools):
            total += rounds * p["estimate_s"]
            if "--stress" in p["args"]:
                stress += rounds * p["estimate_s"]
    return total, stress


@generator("figures-estimate")
def figures_estimate(ctx, srcs, attrs):
    """tc-experiments' estimate of both presets for a results folder's platform report, beside its recorded time"""
    src = srcs[0]
    m = schema.load_meta(ctx.path(src))
    exps = plan.load_experiments(ctx.path(os.path.relpath(paths.EXP_DIR, paths.TOP)), [])
    rounds = max([e.get("rounds", 1) for e in (m.get("experiments") or {}).values()] or [1])
    quick, _ = estimate(exps, "quick", m.get("platform") or {}, rounds)
    paper, stress = estimate(exps, "paper", m.get("platform") or {}, rounds)
    loaded = sorted({float(v["stress_iter_s"]) for e in exps
                     for v in (e.get("presets") or {}).values() if isinstance(v, dict) and "stress_iter_s" in v})
    t = recorded_s(m)
    body = ("`scripts/tc-experiments --dry-run` prints the plan and the runner's estimate (a cost per "
            "iteration, `scripts/tcresults/experiments/plan.py`): for this host's platform report and %d rounds, "
            "%s for the quick preset (measured: %s) and %s for the paper's, %s of it the stress-ng points, "
            "which it counts at %s per loaded round trip.\n" % (
                rounds, duration(quick), duration(t) if t is not None else "not recorded", duration(paper),
                duration(stress), " or ".join("%g ms" % (x * 1000) for x in loaded) or "-"))
    return results_out(ctx, srcs, body)


def bench_ci_definition(top):
    """the bench-ci sweep as scripts/bench-ci.sh defines it: {rounds, jams,
    tests, modes, sizes, iters, invocations, rows}"""
    with open(os.path.join(top, "scripts", "bench-ci.sh")) as f:
        text = f.read()

    def var(name, quoted=False):
        m = re.search(r'^%s=%s' % (name, r'"([^"]*)"' if quoted else r"(\S+)"), text, re.M)
        if not m:
            raise ValueError("scripts/bench-ci.sh: no %s= line" % name)
        return m.group(1)
    d = {"jams": var("jams", True).split(), "tests": var("tests").split(","), "modes": var("modes").split(","),
         "sizes": [int(s) for s in var("sizes").split(",")]}
    m = re.search(r"\brounds=(\d+) iters=(\d+)", text)
    if not m:
        raise ValueError("scripts/bench-ci.sh: no default rounds= iters=")
    d["rounds"], d["iters"] = int(m.group(1)), int(m.group(2))
    d["invocations"] = d["rounds"] * len(d["jams"])
    # every test runs per mode: the references at each mode's frame size
    d["rows"] = d["invocations"] * len(d["tests"]) * len(d["modes"]) * len(d["sizes"])
    return d


def sizes_text(sizes):
    return ", ".join(str(s) for s in sizes[:-1]) + " and %d" % sizes[-1] if len(sizes) > 1 else str(sizes[0])


@generator("bench-ci-sweep")
def bench_ci_sweep(ctx, srcs, attrs):
    """the bench-ci sweep as scripts/bench-ci.sh defines it (src=scripts/bench-ci.sh)"""
    d = bench_ci_definition(ctx.top)
    body = ("`scripts/bench-ci.sh [-o DIR] [-r ROUNDS] [-n ITERS]` runs, per round and per jam (%s), one "
            "`tc-perf -l -c 0,1` invocation with `%s`, %s, payloads %s bytes, %s iterations (%d rounds by "
            "default: %d invocations, %d rows). Both sides run in one process on two pinned cores; no port, no "
            "server to clean up. Each invocation carries its own raw-put rows.\n" % (
                ", ".join("`%s`" % j for j in d["jams"]), ",".join(d["tests"]),
                " and ".join({"local": "Local", "injected": "Injected", "cached": "Cached"}.get(m, m)
                             for m in d["modes"]) + " Function", sizes_text(d["sizes"]),
                "{:,}".format(d["iters"]), d["rounds"], d["invocations"], d["rows"]))
    return Out(body, {}, "`scripts/bench-ci.sh` (the sweep's definition)")


@generator("bench-ci-time")
def bench_ci_time(ctx, srcs, attrs):
    """the sweep's size (its definition) and its measured time in a baseline (src: a baseline folder)"""
    src = srcs[0]
    d = bench_ci_definition(ctx.top)
    m = schema.load_meta(ctx.path(src))
    ci = (m.get("experiments") or {}).get("ci") or {}
    t = ci.get("elapsed_s")
    cost = (m.get("cost") or {}).get("elapsed_s")
    body = ("The sweep is %d tc-perf invocations, %d rows. On `%s` (the baseline's `meta.json`, %s) its "
            "measuring took %s; %s; the build check comes on top.\n" % (
                d["invocations"], d["rows"], m.get("platform_id") or os.path.basename(src),
                (m.get("date") or "?")[:10], duration(t) if t is not None else "no recorded time",
                "the instruction counts under callgrind %s" % duration(cost) if cost is not None else
                "that baseline did not time the instruction counts under callgrind"))
    return results_out(ctx, srcs, body)


def compare_rows(path):
    """(the gate's threshold in %, [{column: cell}]) of a tc-compare report (markdown)"""
    with open(path) as f:
        text = f.read()
    m = re.search(r"\(threshold ([\d.]+)%\)", text)
    thr = float(m.group(1)) if m else None
    rows, head = [], None
    for line in text.splitlines():
        if not line.startswith("| "):
            head = None if not line.startswith("|") else head
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if head is None:
            head = cells
        else:
            rows.append(dict(zip(head, cells)))
    # the jams' points (a report may hold other tables: instruction counts)
    return thr, [r for r in rows if r.get("test", "").startswith("jam_") and "verdict" in r]


@generator("bench-ci-noise")
def bench_ci_noise(ctx, srcs, attrs):
    """what the committed tc-compare reports of a baseline folder found (noise.md, slow-jam.md)"""
    src = srcs[0]
    thr, rows = compare_rows(ctx.path(src + "/noise.md"))
    lat = [abs(schema.num(r["p50 ratio"]) - 1) for r in rows if schema.num(r.get("p50 ratio")) is not None]
    lat.sort()
    noise = [r for r in rows if r.get("verdict", "").startswith("noise")]
    reg = [r for r in rows if r.get("verdict", "").startswith("REGRESSION")]
    med = (lat[len(lat) // 2] if len(lat) % 2 else (lat[len(lat) // 2 - 1] + lat[len(lat) // 2]) / 2) if lat else 0
    out = ("Two identical sweeps on this platform, idle (`%s/noise.md`): p50 ratios differ by %.1f%% (median) and "
           "%.1f%% (max), %d of %d points move past %g%% within the rounds' spread, %s." % (
               src, med * 100, (max(lat) if lat else 0) * 100, len(noise), len(rows), thr or 0,
               "none regresses" if not reg else "%d regress" % len(reg)))
    slow = ctx.path(src + "/slow-jam.md")
    if os.path.exists(slow):
        _, srows = compare_rows(slow)
        with open(slow) as f:
            m = re.search(r"preset ci-slow-jam-(\d+)", f.read())
        flagged = [r["verdict"][len("REGRESSION: "):] for r in srows if r.get("verdict", "").startswith("REGRESSION")]
        out += (" A jam made slower on purpose (`--slow-jam %s`, `slow-jam.md`) is flagged at %d point%s (%s)." % (
            m.group(1) if m else "N", len(flagged), "" if len(flagged) == 1 else "s", "; ".join(flagged)))
    return results_out(ctx, srcs, out + "\n")


@generator("cost-budgets")
def cost_budgets(ctx, srcs, attrs):
    """the framework's instructions per message at 8 B, as the committed count baseline of a key holds them
    (src: results/baseline/cost/<key>)"""
    src = srcs[0]
    rows = {(r["jam"], r["mode"], r["payload_bytes"]): r
            for r in schema.read(os.path.join(ctx.path(src), "cost.csv")).rows
            if (r.get("api") or "send") == "send"}
    lines = ["| 8 B payload | instructions | send | receive | simulated cycles |", "|---|---:|---:|---:|---:|"]
    for jam in ("noop", "server_sum", "indirect_put"):
        for mode in ("local", "cached", "injected"):
            r = rows.get((jam, mode, "8"))
            if r is None:
                continue
            lines.append("| %s %s | %s | %.0f | %.0f | %.0f |" % (
                jam, mode, r["instructions_per_msg"], float(r["send_instructions_per_msg"]),
                float(r["recv_instructions_per_msg"]), float(r["cycles_per_msg"])))
    body = ("Per message, a send and the run of it, under callgrind (`scripts/bench-cost.sh --sweep ci`: %d "
            "points; the key `%s`), as `make bench-ci` holds them at 3%%:\n\n%s\n" % (
                len(rows), os.path.basename(src.rstrip("/")), "\n".join(lines)))
    return results_out(ctx, srcs, body)
