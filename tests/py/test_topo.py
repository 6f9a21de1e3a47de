"""tcresults.topo (tc-topo) and the topology axis of tc-experiments: the
pair axis expanded from a topology (one point per pair, pinned sender and
receiver, the classes as axes), skipped between hosts or without tc-perf;
each jam row reduced with its own invocation's put and floor; per pair and
per class the median and 95% interval over rounds; the claims-style lines
(one class: said so; several: each against the closest, with a verdict);
the folder's outputs end to end; derived tables are no experiments.
The classification itself: tests/test_topo.c (C, on hwloc's synthetic and
saved XML topologies)."""
import csv
import json
import os

from helpers import TOP, Case
from tcresults import schema, topo
from tcresults.experiments import plan, run
from tcresults.topo import table

DEF = os.path.join(TOP, "scripts", "experiments", "topo.json")
TOPOLOGY = {"pairs": [{"a": 2, "b": 3, "class": "smt", "nic": "none"},
                      {"a": 1, "b": 32, "class": "machine", "nic": "none"}]}
COLS = "experiment,point,round,preset,test,jam,mode,payload_bytes,p50_us,rate_mps,frame_of"


def tools(present=True, topology=TOPOLOGY):
    t = {"tc-perf": {"present": present, "why": "tc-perf not built", "options": {"--order", "--blocks"},
                     "cmd": ["tc-perf"]}}
    if topology is not None:
        t["topology"] = lambda sel: topology
    return t


def definition():
    with open(DEF) as f:
        return json.load(f)


class Axis(Case):
    def test_pairs_expand_pinned_with_classes(self):
        asked = []
        t = tools()
        t["topology"] = lambda sel: asked.append(sel) or TOPOLOGY
        pts = plan.expand(definition(), "quick", {}, t)
        self.assertEqual(asked, ["classes"])           # the preset's selection
        self.assertEqual([(p["axes"]["pair"], p["axes"]["jam"], p["axes"]["class"]) for p in pts],
                         [("2:3", "noop", "smt"), ("2:3", "server_sum", "smt"),
                          ("1:32", "noop", "machine"), ("1:32", "server_sum", "machine")])
        self.assertEqual([p["cores"] for p in pts], [[2, 3], [2, 3], [1, 32], [1, 32]])
        self.assertTrue(all(p["skip"] is None for p in pts))
        # the figures' blocks, both modes, noop and server_sum, the six tests
        a = pts[0]["args"]
        self.assertEqual(plan.opt_value(a, "--blocks"), "10")
        self.assertEqual(plan.opt_value(a, "-m"), "local,injected")
        self.assertEqual(plan.opt_value(a, "-t"), "jam_lat,put_lat,floor_lat,jam_rate,put_rate,floor_rate")
        self.assertTrue(plan.opt_value(a, "-s").startswith("8,"))
        plan.expand(definition(), "quick", {}, t, pairs="0:1")
        self.assertEqual(asked[-1], "0:1")             # tc-experiments --pairs

    def test_server_on_receiver_client_on_sender(self):
        p = plan.expand(definition(), "quick", {}, tools())[2]
        bg, cli, _ = run.point_argv(definition(), dict(p), {"cmd": ["tc-perf"]}, ["-q"],
                                    type("O", (), {"launcher": None})(), self.tmp)
        self.assertEqual(bg[0][bg[0].index("-c") + 1], "32")
        self.assertEqual(cli[cli.index("-c") + 1], "1")

    def test_skips_said_why(self):
        pts = plan.expand(definition(), "quick", {}, tools(), hosts=True)
        self.assertTrue(all("one host" in p["skip"] for p in pts))
        pts = plan.expand(definition(), "quick", {}, tools(present=False, topology=None))
        self.assertTrue(pts and all("tc-perf not built" in p["skip"] for p in pts))
        t = tools()

        def refuse(sel):
            raise ValueError("tc-perf: bad --pairs '%s'" % sel)
        pts = plan.expand(definition(), "quick", {}, tools(topology={"pus": 1, "pairs": []}))
        self.assertTrue(pts and all("no pair of PUs" in p["skip"] for p in pts))
        t["topology"] = refuse
        with self.assertRaises(ValueError):
            plan.expand(definition(), "quick", {}, t, pairs="x")


def rows_of(point, rnd, jam_ns, put_ns, floor_ns, jam_rate=2e6, payload="8"):
    """one invocation's rows: noop local, its put and floor (and another
    frame's floor that must not be taken)"""
    return ["topo,%d,%d,quick,jam_lat,noop,local,%s,%g,," % (point, rnd, payload, jam_ns / 1e3),
            "topo,%d,%d,quick,put_lat,,raw,%s,%g,,local" % (point, rnd, payload, put_ns / 1e3),
            "topo,%d,%d,quick,floor_lat,,raw,%s,%g,,local" % (point, rnd, payload, floor_ns / 1e3),
            "topo,%d,%d,quick,floor_lat,,raw,%s,999,,injected" % (point, rnd, payload),
            "topo,%d,%d,quick,jam_rate,noop,local,%s,,%g," % (point, rnd, payload, jam_rate)]


class Outputs(Case):
    def folder(self, classes=2):
        lines = [COLS]
        for rnd in (1, 2, 3):
            lines += rows_of(0, rnd, 100 + rnd, 80 + rnd, 60 + rnd)
            if classes > 1:
                lines += rows_of(1, rnd, 400 + 2 * rnd, 300, 200 + rnd, jam_rate=1e6)
        pa = [{"point": 0, "axes": {"pair": "2:3", "jam": "noop", "class": "smt", "nic": "none"}, "cores": [2, 3]},
              {"point": 1, "axes": {"pair": "1:32", "jam": "noop", "class": "machine", "nic": "none"},
               "cores": [1, 32]}]
        self.write("res/p/topo.csv", "\n".join(lines) + "\n")
        self.write("res/p/meta.json", json.dumps({"experiments": {"topo": {
            "point_axes": pa[:classes], "preset": "quick", "rounds": 3, "git_rev": "abc"}}}))
        return self.path("res", "p")

    def test_reduction_per_pair_and_class(self):
        rows, pts = table.load(self.folder())
        rounds = table.per_round(rows, pts)
        k = ("2", "3", "smt", "none", "noop", "local", "8")
        self.assertEqual(rounds[k]["jam_lat_ns"], [101, 102, 103])
        self.assertEqual(rounds[k]["floor_lat_ns"], [61, 62, 63])   # the local frame's floor only
        self.assertAlmostEqual(rounds[k]["jam_over_floor_lat"][0], 101 / 61)
        self.assertEqual(rounds[k]["jam_rate_mmps"], [2.0, 2.0, 2.0])
        s = table.summarize(rounds)[k]["jam_lat_ns"]
        self.assertEqual(s[0], 102)
        self.assertTrue(s[1] < 102 < s[2])
        self.assertEqual(s[3], 3)
        lines = table.claims(table.summarize(table.by_class(rounds)), table.pairs_per_class(rounds))
        self.assertIn("- across packages vs SMT siblings (noop, local, 8 B): jam_lat +302 ns (higher), "
                      "floor +140 ns, put +218 ns; jam_rate 2 -> 1 M msg/s (lower)", lines)
        self.assertIn("SMT siblings 1, across packages 1", lines[-1])

    def test_one_class_said_so(self):
        rows, pts = table.load(self.folder(classes=1))
        rounds = table.per_round(rows, pts)
        lines = table.claims(table.summarize(table.by_class(rounds)), table.pairs_per_class(rounds))
        self.assertEqual(len(lines), 1)
        self.assertIn("one class on this host (SMT siblings)", lines[0])

    def test_folder_outputs(self):
        d = self.folder()
        rc, _, err = self.run_main(topo.main, ["--outputs", d, "--plots", self.path("plots")])
        self.assertEqual(rc, 0, err)
        with open(os.path.join(d, "topo.pairs.csv")) as f:
            pairs = list(csv.DictReader(f))
        self.assertEqual([(r["sender"], r["receiver"], r["class"]) for r in pairs],
                         [("2", "3", "smt"), ("1", "32", "machine")])
        self.assertEqual(pairs[1]["jam_lat_ns_n"], "3")
        with open(os.path.join(d, "topo.classes.csv")) as f:
            cls = list(csv.DictReader(f))
        self.assertEqual([(r["class"], r["title"], r["pairs"]) for r in cls],
                         [("smt", "SMT siblings", "1"), ("machine", "across packages", "1")])
        with open(os.path.join(d, "topo.claims.md")) as f:
            self.assertIn("across packages vs SMT siblings", f.read())
        for fig in ("topo-matrix.png", "topo-classes.png", "topo-matrix.svg"):
            self.assertTrue(os.path.getsize(self.path("plots", fig)) > 0, fig)
        # the derived tables are not experiments of the folder
        self.assertEqual(schema.experiments(d), ["topo"])

    def test_nothing_measured(self):
        self.write("res/e/topo.csv", COLS + "\n")
        rc, _, err = self.run_main(topo.main, ["--outputs", self.path("res", "e")])
        self.assertEqual(rc, 0, err)
        self.assertIn("measured nothing", err)

    def test_no_sweep(self):
        self.write("res/q/meta.json", "{}")
        rc, _, err = self.run_main(topo.main, ["--outputs", self.path("res", "q")])
        self.assertEqual(rc, 1)
        self.assertIn("no topo.csv", err)

    def test_platforms_class_by_class(self):
        from tcresults import platforms
        a = self.folder()
        self.write("res/b/topo.csv", "\n".join([COLS] + rows_of(0, 1, 150, 90, 70) + rows_of(0, 2, 160, 90, 70))
                   + "\n")
        self.write("res/b/meta.json", json.dumps({"platform_id": "b", "experiments": {"topo": {"point_axes": [
            {"point": 0, "axes": {"pair": "0:1", "jam": "noop", "class": "l3", "nic": "local"}, "cores": [0, 1]}]}}}))
        rc, out, err = self.run_main(platforms.main, [a, self.path("res", "b"), "-o", self.path("cmp"), "--no-plots"])
        self.assertEqual(rc, 0, err)
        with open(self.path("cmp", "compare.md")) as f:
            md = f.read()
        sec = md[md.index("## Classes of core pair"):md.index("## Each experiment")]
        rows = [line for line in sec.split("\n") if line.startswith("| ")]
        # per mode: the header, then a row per class of either platform, closest first
        self.assertEqual([r.split(" | ")[0] for r in rows[:4]],
                         ["| class (local)", "| SMT siblings", "| shared L3, NIC local", "| across packages"])
        self.assertIn("| SMT siblings | 102 [", rows[1])
        self.assertTrue(rows[1].endswith("| - |"), rows[1])          # b has no SMT pair
        self.assertIn("155 [", rows[2])
        self.assertIn("jam/floor", rows[2])
