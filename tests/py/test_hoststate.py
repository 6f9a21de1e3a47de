"""tcresults/hoststate.py: the samples, an interval's shares, the busy
verdict and its reasons, bench-ci.sh's --why-busy, the recorder."""
import os

from helpers import Case
from tcresults import hoststate as hs


def snap(t, busy, idle, steal, own, load1=0.1):
    return {"t": t, "load": [load1, 0.0, 0.0], "busy": busy, "idle": idle, "steal": steal, "own_s": own}


class HostState(Case):
    def proc(self, load="0.10 0.20 0.30 1/99 7", stat="cpu  10 2 3 100 5 1 1 4 0 0\n"):
        d = self.path("proc")
        os.makedirs(d, exist_ok=True)
        for name, text in (("loadavg", load), ("stat", stat)):
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        return d

    def test_reads(self):
        d = self.proc()
        self.assertEqual(hs.read_load(d), [0.1, 0.2, 0.3])
        self.assertEqual(hs.read_ticks(d), (10 + 2 + 3 + 1 + 1, 105, 4))
        os.environ["TC_LOADAVG"] = "7.5"
        self.addCleanup(os.environ.pop, "TC_LOADAVG")
        self.assertEqual(hs.read_load(d)[0], 7.5)
        self.assertRaises(ValueError, hs.read_ticks, self.proc(stat="intr 1\n"))

    def test_interval_others_less_own(self):
        # 10 s on 2 cores at 100 Hz: 1500 busy ticks = 15 CPU s, 5 of them the run's own
        a, b = snap(0, 0, 0, 0, 0.0), snap(10, 1500, 400, 100, 5.0)
        i = hs.interval(a, b, 2, hz=100)
        self.assertEqual((i["others_frac"], i["steal_frac"], i["window_s"]), (0.5, 0.05, 10))
        # own time above the busy ticks (rounding): never negative
        self.assertEqual(hs.interval(a, snap(10, 100, 0, 0, 3.0), 2, hz=100)["others_frac"], 0.0)
        # a tick's rounding over a short interval: never above the cores' time
        self.assertEqual(hs.interval(a, snap(0.01, 3, 0, 0, 0.0), 2, hz=100)["others_frac"], 1.0)
        self.assertIsNone(hs.interval(a, snap(0, 0, 0, 0, 0), 2, hz=100)["others_frac"])

    def test_verdict_and_reasons(self):
        idle = hs.verdict({"cpus": 2, "before": {"load": [0.4, 0, 0], "others_frac": 0.1},
                           "during": [{"window_s": 10, "load": [2.0, 0, 0], "others_frac": 0.1, "steal_frac": 0}]})
        self.assertEqual((idle["busy"], idle["reasons"]), (False, []))
        self.assertEqual(hs.word(idle), "idle")
        self.assertTrue(hs.describe(idle).startswith("idle: load average 0.4 before"))
        busy = hs.verdict({"cpus": 2, "before": {"load": [1.5, 0, 0]},
                           "during": [{"window_s": 30, "load": [3, 0, 0], "others_frac": 0.1, "steal_frac": 0.2},
                                      {"window_s": 10, "load": [4, 0, 0], "others_frac": 0.9, "steal_frac": 0.2}]})
        s = busy["summary"]
        self.assertEqual((s["samples"], s["others_frac"], s["others_frac_max"], s["load1_max"]), (2, 0.3, 0.9, 4))
        self.assertEqual(busy["reasons"], ["load average 1.5 on 2 cores before the run (above 1)",
                                           "others used 30% of the cores' time during the run (above 25%)",
                                           "steal 20% of the ticks during the run (above 10%)"])
        self.assertEqual(hs.word(busy), "busy")
        self.assertTrue(hs.describe(busy).startswith("busy: load average 1.5"))
        self.assertEqual((hs.word(None), hs.describe({})), ("not recorded", "not recorded"))
        self.assertEqual(hs.brief(busy), "load 1.5 before, others 30% during, steal 20%")
        self.assertEqual((hs.brief(idle), hs.brief(None)), ("load 0.4 before, others 10% during", ""))

    def test_why_busy_and_main(self):
        os.environ["TC_LOADAVG"] = "99"
        self.addCleanup(os.environ.pop, "TC_LOADAVG")
        d = self.proc()
        self.assertIn("load average 99 on", hs.why_busy(d))
        os.environ["TC_LOADAVG"] = "0"
        self.assertEqual(hs.why_busy(d), "")
        rc, out, _ = self.run_main(hs.main, ["--why-busy", "--proc", d])
        self.assertEqual((rc, out), (0, ""))
        rc, out, _ = self.run_main(hs.main, ["--window", "0", "--proc", d])
        self.assertEqual(rc, 0)
        self.assertIn('"busy": false', out)
        rc, _, err = self.run_main(hs.main, ["--proc", self.path("none")])
        self.assertEqual(rc, 2)
        self.assertIn("tc-host-state:", err)

    def test_recorder_sparse_samples(self):
        d = self.proc()
        r = hs.Recorder(proc=d, min_interval=3600)
        r.before(0)
        self.assertIsNone(r.tick("a"))            # too soon
        self.assertEqual(r.tick("a", force=True)["experiment"], "a")     # an experiment's first
        self.assertIsNone(r.tick("a", force=True))   # too soon for the ticks to say anything
        doc = r.result()
        self.assertEqual((doc["summary"]["samples"], doc["busy"]), (1, False))
        # a resumed run hands the doc back and goes on
        r2 = hs.Recorder(doc, proc=d, min_interval=0)
        r2.tick()
        r2.last["t"] -= 2
        r2.tick("b", force=True)
        self.assertEqual([s.get("experiment") for s in r2.result()["during"]], ["a", "b"])
