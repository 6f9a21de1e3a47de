"""tc-host-state: how busy the host is, the one judge of it for every tool.

usage: tc-host-state [--why-busy] [--window S] [--proc DIR]

A run's timings carry the noise of whatever else ran beside it, so a run
records its host's state (tc-experiments: meta.json's "host_state") and
bench-ci.sh refuses to take a baseline on a busy host, both judged here:

  load      /proc/loadavg (1, 5 and 15 minutes): runnable tasks, this run's
            own included, so it is judged before the run only
  steal     /proc/stat's steal ticks over all ticks: time the hypervisor
            gave the CPUs to other guests
  others    the CPU time others used: the busy ticks of /proc/stat (user,
            nice, system, irq, softirq) less this run's own CPU time (the
            runner's and its waited-for children's: os.times()), over the
            interval's wall time and cores

A host is busy where the 1-minute load average before the run is above
half its cores, where others used more than a quarter of the cores' time
(before or during the run), or where steal passed a tenth of the ticks
(THRESHOLDS, written beside the verdict).

Without options: one sample over --window seconds (default 1) as JSON.
--why-busy: the load average alone (bench-ci.sh's baseline check, which
must not wait): one line saying why the host is busy, nothing where it is
not; TC_LOADAVG=X judges X instead of /proc/loadavg.

Python 3 standard library only.
"""
import argparse
import json
import os
import sys
import time

from . import cli

THRESHOLDS = {"load1_per_cpu": 0.5, "others_frac": 0.25, "steal_frac": 0.10}
# /proc/stat's cpu line: user nice system idle iowait irq softirq steal
# (guest time is inside user already)
BUSY_FIELDS = (0, 1, 2, 5, 6)
IDLE_FIELDS = (3, 4)
STEAL_FIELD = 7
# at most this many samples during a run: a longer run samples less often
MAX_SAMPLES = 200
# the shortest interval worth a sample: /proc/stat counts in ticks (1/100 s)
MIN_FORCED_S = 1.0


def ncpu():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def read_load(proc="/proc"):
    """[1, 5, 15-minute load average]; TC_LOADAVG=X gives X for the first"""
    with open(os.path.join(proc, "loadavg")) as f:
        load = [float(x) for x in f.read().split()[:3]]
    if os.environ.get("TC_LOADAVG"):
        load[0] = float(os.environ["TC_LOADAVG"])
    return load


def read_ticks(proc="/proc"):
    """(busy, idle, steal) ticks of /proc/stat's cpu line"""
    with open(os.path.join(proc, "stat")) as f:
        for line in f:
            if line.startswith("cpu "):
                v = [int(x) for x in line.split()[1:9]]
                v += [0] * (8 - len(v))
                return (sum(v[i] for i in BUSY_FIELDS), sum(v[i] for i in IDLE_FIELDS), v[STEAL_FIELD])
    raise ValueError("%s/stat: no cpu line" % proc)


def own_cpu_s():
    """this process's CPU seconds and its waited-for children's"""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def sample(proc="/proc"):
    """the counters at one moment"""
    busy, idle, steal = read_ticks(proc)
    return {"t": time.time(), "load": read_load(proc), "busy": busy, "idle": idle, "steal": steal,
            "own_s": own_cpu_s()}


def interval(a, b, cpus, hz=None):
    """what two samples say of the time between them: others' share of the
    cores' time and steal's of the ticks (None where no time passed)"""
    hz = hz or os.sysconf("SC_CLK_TCK")
    dt = b["t"] - a["t"]
    ticks = (b["busy"] - a["busy"]) + (b["idle"] - a["idle"]) + (b["steal"] - a["steal"])
    others = max(0.0, (b["busy"] - a["busy"]) / hz - (b["own_s"] - a["own_s"]))
    return {"window_s": round(dt, 2), "load": b["load"],
            # a tick's rounding can pass the cores' time over a short interval
            "others_frac": round(min(1.0, others / (dt * cpus)), 3) if dt > 0 else None,
            "steal_frac": round((b["steal"] - a["steal"]) / ticks, 3) if ticks > 0 else None}


def reasons(before, summary, cpus, th=THRESHOLDS):
    """why the host was busy: a list of sentences (empty: it was not)"""
    out = []
    load1 = (before or {}).get("load", [None])[0]
    if load1 is not None and load1 > th["load1_per_cpu"] * cpus:
        out.append("load average %g on %d cores before the run (above %g)" % (load1, cpus,
                                                                             th["load1_per_cpu"] * cpus))
    for when, s in (("before", before), ("during", summary)):
        s = s or {}
        if s.get("others_frac") is not None and s["others_frac"] > th["others_frac"]:
            out.append("others used %.0f%% of the cores' time %s the run (above %.0f%%)" % (
                100 * s["others_frac"], when, 100 * th["others_frac"]))
        if s.get("steal_frac") is not None and s["steal_frac"] > th["steal_frac"]:
            out.append("steal %.0f%% of the ticks %s the run (above %.0f%%)" % (
                100 * s["steal_frac"], when, 100 * th["steal_frac"]))
    return out


def why_busy(proc="/proc"):
    """bench-ci.sh's baseline check, without waiting: the load average's
    reason, or '' where the host is idle enough"""
    r = reasons({"load": read_load(proc)}, None, ncpu())
    return r[0] if r else ""


def summarize(during):
    """the intervals of a run as one: their shares weighted by their time"""
    def mean(key):
        got = [(s[key], s["window_s"]) for s in during if s.get(key) is not None and s["window_s"] > 0]
        total = sum(w for _, w in got)
        return round(sum(v * w for v, w in got) / total, 3) if total else None
    others = [s["others_frac"] for s in during if s.get("others_frac") is not None]
    return {"window_s": round(sum(s["window_s"] for s in during), 1), "samples": len(during),
            "others_frac": mean("others_frac"), "others_frac_max": max(others) if others else None,
            "steal_frac": mean("steal_frac"),
            "load1_max": max((s["load"][0] for s in during), default=None)}


def verdict(doc):
    """doc (a host_state) with its summary, busy verdict, reasons and thresholds filled in"""
    cpus = doc.get("cpus") or ncpu()
    doc["summary"] = summarize(doc.get("during") or [])
    doc["reasons"] = reasons(doc.get("before"), doc["summary"] if doc["summary"]["samples"] else None, cpus)
    doc["busy"] = bool(doc["reasons"])
    doc["thresholds"] = dict(THRESHOLDS)
    return doc


def describe(hs):
    """one line for a page: 'busy: REASONS' / 'idle: ...' / 'not recorded'"""
    if not hs:
        return "not recorded"
    if hs.get("busy"):
        return "busy: " + "; ".join(hs.get("reasons") or [])
    s = hs.get("summary") or {}
    b = hs.get("before") or {}
    parts = []
    if b.get("load"):
        parts.append("load average %g before" % b["load"][0])
    if s.get("others_frac") is not None:
        parts.append("others used %.0f%% of the cores during" % (100 * s["others_frac"]))
    if s.get("steal_frac") is not None:
        parts.append("steal %.0f%%" % (100 * s["steal_frac"]))
    return "idle: " + ", ".join(parts) if parts else "idle"


def brief(hs):
    """the figures in a few words: 'load 13.9 before, others 74% during'"""
    if not hs:
        return ""
    b, s = hs.get("before") or {}, hs.get("summary") or {}
    parts = ["load %g before" % b["load"][0]] if b.get("load") else []
    if s.get("others_frac") is not None:
        parts.append("others %.0f%% during" % (100 * s["others_frac"]))
    if (s.get("steal_frac") or 0) >= 0.01:
        parts.append("steal %.0f%%" % (100 * s["steal_frac"]))
    return ", ".join(parts)


def word(hs):
    """busy / idle / not recorded: the index's column"""
    return "not recorded" if not hs else "busy" if hs.get("busy") else "idle"


class Recorder:
    """A run's host state: a sample before it, intervals during it (taken
    between points, where every child has been waited for, so the run's own
    CPU time is counted whole), kept in doc (a dict the caller may persist
    and hand back to continue a stopped run)."""

    def __init__(self, doc=None, proc="/proc", min_interval=10.0):
        self.proc = proc
        self.min_interval = min_interval
        self.doc = doc if doc is not None else {}
        self.doc.setdefault("cpus", ncpu())
        self.doc.setdefault("during", [])
        self.doc["source"] = ("/proc/loadavg, /proc/stat (busy and steal ticks); own CPU: the runner's and its "
                              "waited-for children's (os.times())")
        self.last = None

    def before(self, window_s=1.0):
        """the host before the run: its load and, over window_s, others' share"""
        a = sample(self.proc)
        if window_s > 0:
            time.sleep(window_s)
            b = sample(self.proc)
            self.doc["before"] = dict(interval(a, b, self.doc["cpus"]), load=a["load"])
            self.last = b
        else:
            self.doc["before"] = {"load": a["load"], "window_s": 0}
            self.last = a
        return self.doc["before"]

    def tick(self, label=None, force=False):
        """an interval since the last sample, where min_interval has passed
        (or force); a long run's interval grows so the samples stay few"""
        b = sample(self.proc)
        if self.last is None:
            self.last = b
            return None
        span = max(self.min_interval, (b["t"] - self.doc.get("t0", b["t"])) / MAX_SAMPLES)
        # forced: an experiment's end, unless it is too close to the last
        # sample for the ticks to say anything (an experiment gets one at least)
        first = force and not any(s.get("experiment") == label for s in self.doc["during"])
        if b["t"] - self.last["t"] < (MIN_FORCED_S if force else span) and not first:
            return None
        self.doc.setdefault("t0", self.last["t"])
        s = interval(self.last, b, self.doc["cpus"])
        s["at_s"] = round(b["t"] - self.doc["t0"], 1)
        if label:
            s["experiment"] = label
        self.doc["during"].append(s)
        self.last = b
        return s

    def result(self):
        return verdict(self.doc)


def main(argv=None):
    ap = cli.parser("tc-host-state", __doc__)
    ap.add_argument("--why-busy", action="store_true", help="one line where the load average says busy")
    ap.add_argument("--window", type=float, default=1.0, metavar="S", help="seconds between two samples")
    ap.add_argument("--proc", default="/proc", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    try:
        if a.why_busy:
            why = why_busy(a.proc)
            if why:
                print(why)
            return 0
        r = Recorder(proc=a.proc)
        r.before(max(0.0, a.window))
    except (OSError, ValueError) as err:
        print("tc-host-state: %s" % err, file=sys.stderr)
        return 2
    print(json.dumps(r.result(), indent=1))
    return 0

