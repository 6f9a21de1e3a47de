"""tcresults.experiments (tc-experiments) with a fixed definition
(tests/experiments/defs), a fixed platform report and a fake tool
(tests/experiments/fake-tc-perf, the --tool-cmd test seam): expansion,
skipping with reasons, the estimate, result files written whole from one
run, a failing point kept for --resume; the launchers' command lines.
tests/test_experiments.sh stops a run with Ctrl-C and resumes it."""
import csv
import json
import os
import signal
import subprocess
import sys
import time

from helpers import TOP, Case

from tcresults import experiments as ex
from tcresults import schema
from tcresults.experiments import launch, plan, procs, run, state, tools

FX = os.path.join(TOP, "tests", "experiments")
DEFS = os.path.join(FX, "defs")
with open(os.path.join(FX, "platform.json")) as f:
    PLATFORM = json.load(f)
FAKE = [sys.executable, os.path.join(FX, "fake-tc-perf")]


def fake_tools():
    return {"tc-perf": tools.probe_tool("tc-perf", FAKE), "tc-mcast": {"present": False, "why": "tc-mcast not built"}}


class Committed(Case):
    def test_every_tc_perf_experiment_names_its_frame_mode(self):
        # tc-perf's default follows the library's (variable); the committed
        # figures were measured with fixed frames and say so themselves
        exps = plan.load_experiments(os.path.join(TOP, "scripts", "experiments"), [])
        perf = [e for e in exps if e.get("tool") == "tc-perf"]
        self.assertGreaterEqual(len(perf), 5)
        for e in perf:
            args = [a for a in e["args"] if isinstance(a, str)]
            self.assertIn("-F", args, e["name"])
            self.assertEqual(args[args.index("-F") + 1], "fixed", e["name"])


class Plan(Case):
    def tiny(self):
        return plan.load_experiments(DEFS, ["tiny"])[0]

    def test_expansion_and_skips(self):
        # 2 jams x 2 stash values = 4 points; stash=on skipped with the
        # platform's reason; wfe dropped from every -W list
        pts = plan.expand(self.tiny(), "quick", PLATFORM, fake_tools())
        self.assertEqual([(p["axes"]["jam"], p["axes"]["stash"]) for p in pts],
                         [("alpha", None), ("alpha", "on"), ("beta", None), ("beta", "on")])
        self.assertEqual(pts[0]["args"], ["-t", "jam_lat,put_lat", "-j", "alpha", "-W", "poll,pause", "-s", "64,1024",
                                          "-n", "100"])
        self.assertEqual(pts[1]["args"][6:8], ["--stash", "on"])
        self.assertIsNone(pts[0]["skip"])
        self.assertIsNone(pts[2]["skip"])
        self.assertIn("fake: no stash control", pts[1]["skip"])
        self.assertIn("fake: no stash control", pts[3]["skip"])
        for p in pts:
            self.assertEqual(p["dropped"], [{"var": "waits", "value": "wfe",
                                             "reason": "wait.wfe unsupported: fake: no wfe here"}])
        self.assertEqual(pts[1]["estimate_s"], 0.0)
        self.assertGreater(pts[0]["estimate_s"], plan.START_S)

    def test_option_the_tool_lacks(self):
        (p,) = plan.expand(plan.load_experiments(DEFS, ["needs-opt"])[0], "quick", PLATFORM, fake_tools())
        self.assertEqual(p["skip"], "tc-perf has no --placement (a build older than the option? make all)")

    def test_tool_missing_and_hosts(self):
        t = {"tc-perf": {"present": False, "why": "tc-perf not built"}}
        pts = plan.expand(self.tiny(), "paper", PLATFORM, t)
        self.assertTrue(all(p["skip"].startswith("tc-perf not built") for p in pts))
        e = dict(self.tiny(), connection="loopback")
        pts = plan.expand(e, "paper", PLATFORM, fake_tools(), hosts=True)
        self.assertIn("a loopback experiment runs in one process, not between hosts", pts[0]["skip"])
        with self.assertRaises(ValueError):
            plan.expand(self.tiny(), "nope", PLATFORM, fake_tools())

    def test_every_value_dropped_skips(self):
        pf = json.loads(json.dumps(PLATFORM))
        pf["wait"] = {"poll": "unsupported: a", "pause": "unsupported: b", "wfe": "unsupported: c"}
        p = plan.expand(self.tiny(), "paper", pf, fake_tools())[0]
        self.assertTrue(p["skip"].startswith("no waits this platform runs (poll: wait.poll unsupported: a;"), p["skip"])

    def test_load_by_prefix_and_errors(self):
        self.assertEqual([e["name"] for e in plan.load_experiments(DEFS, ["ti", "tiny"])], ["tiny"])
        self.assertEqual(len(plan.load_experiments(DEFS, [])), 2)
        with self.assertRaises(SystemExit):
            plan.load_experiments(DEFS, ["nope"])
        self.write("d/x.json", json.dumps({"name": "y"}))
        with self.assertRaises(SystemExit):
            plan.load_experiments(self.path("d"), [])
        self.write("e/x.json", "{")
        with self.assertRaises(SystemExit):
            plan.load_experiments(self.path("e"), [])

    def test_arguments(self):
        env = {"a": [1, 2], "b": None, "c": True, "d": "x", "e": False}
        self.assertEqual(plan.build_args(["-x", "{a}", ["--b", "{b}"], ["--d", "{d}"], {"if": "c", "args": ["-c"]},
                                          {"if": "e", "args": ["-e"]}], env), ["-x", "1,2", "--d", "x", "-c"])
        with self.assertRaises(ValueError):
            plan.build_args(["{b}"], env)
        with self.assertRaises(ValueError):
            plan.build_args([3], env)
        self.assertEqual([plan.render(v) for v in (None, True, False, [1, "a"], 3)], ["-", "on", "off", "1,a", "3"])

    def test_requirements(self):
        t = {"tc-mcast": {"present": False, "why": "tc-mcast not built"}}
        self.assertIsNone(plan.check_requirement(None, "x", PLATFORM, t))
        self.assertIsNone(plan.check_requirement("wait.{}", "poll", PLATFORM, t))
        self.assertEqual(plan.check_requirement("wait.{}", "wfe", PLATFORM, t), "wait.wfe unsupported: fake: no wfe here")
        self.assertEqual(plan.check_requirement("no.{}", "x", PLATFORM, t), "platform report has no no.x")
        self.assertEqual(plan.check_requirement("command:no-such-command-here", 1, PLATFORM, t),
                         "no-such-command-here not installed (scripts/deps.sh)")
        self.assertIsNone(plan.check_requirement("command:sh", 1, PLATFORM, t))
        self.assertEqual(plan.check_requirement("tool:tc-mcast", 1, PLATFORM, t), "tc-mcast not built")
        self.assertIsNone(plan.check_requirement({"vm": "command:sh", "*": None}, "vm", PLATFORM, t))
        self.assertIsNone(plan.check_requirement({"vm": "command:nope-x"}, "none", PLATFORM, t))
        # a plan for another host's report: the commands it has, not this PATH's
        t["commands"] = {"no-such-command-here"}
        self.assertIsNone(plan.check_requirement("command:no-such-command-here", 1, PLATFORM, t))
        self.assertEqual(plan.check_requirement("command:sh", 1, PLATFORM, t), "sh not installed (scripts/deps.sh)")

    def test_preset_hosts_overrides(self):
        e = {"name": "m", "presets": {"quick": {"n": 1, "sweeps": {"0": {"axes": {"a": [1]}}},
                                                "hosts": {"n": 2, "sweeps": {"0": {"axes": {"a": [8]}}}}}}}
        self.assertEqual(plan.preset_vars(e, "quick", False), {"n": 1, "sweeps": {"0": {"axes": {"a": [1]}}}})
        self.assertEqual(plan.preset_vars(e, "quick", True), {"n": 2, "sweeps": {"0": {"axes": {"a": [8]}}}})

    def test_estimate(self):
        p = {"skip": None, "args": ["-t", "jam_lat,put_lat", "-s", "8,64", "-n", "1000", "-w", "0", "-m", "local,injected"]}
        want = plan.START_S + sum(2 * 1000 * (1.5e-6 + 6e-9 * s) for s in (8, 64)) + sum(
            1000 * (1.0e-6 + 1.5e-10 * s) for s in (8, 64))
        self.assertAlmostEqual(plan.estimate({}, p, {}), want)
        self.assertEqual(plan.estimate({}, p, {"estimate_s": 7}), 7.0)
        stress = dict(p, args=p["args"] + ["--stress", "vm", "--gap-us", "10"])
        self.assertGreater(plan.estimate({}, stress, {"load_factor": 3, "stress_start_s": 5}), want + 5)
        self.assertEqual(plan.opt_value(["-n", "3"], "-s", "9"), "9")


class State(Case):
    def test_state(self):
        st = state.State(self.tmp)
        self.assertFalse(st.exists())
        st.new("quick", ["tiny"], "abc")
        self.assertTrue(st.exists())
        self.assertFalse(st.done("tiny", 0, 1))
        st.record("tiny", 0, 1, {"status": "ran"})
        st.record("tiny", 1, 1, {"status": "failed"})
        again = state.State(self.tmp)
        again.load()
        self.assertTrue(again.done("tiny", 0, 1))
        self.assertFalse(again.done("tiny", 1, 1))
        self.assertEqual(again.data["git_rev"], "abc")
        self.assertEqual(len(again.data["run_id"]), 12)
        self.assertTrue(st.file("tiny", 2, 3, "csv").endswith(".partial/tiny.2.r3.csv"))

    def test_helpers(self):
        self.assertEqual([state.fmt_s(s) for s in (-1, 59.4, 61, 3725)], ["0s", "59s", "1m01s", "1h02m"])
        self.assertEqual(state.short("x" * 200, 10), "xxxxxxx...")
        self.assertRegex(state.now_iso(), r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")

    def test_progress(self):
        prog = state.Progress(4, 100.0)
        prog.finish_point(10, 20)
        self.assertGreater(prog.left(0, 0), 90.0)        # measured twice the estimate: more left
        _, _, err = self.run_main(lambda a: prog.show("label", 1, 0, force=True), [])
        self.assertIn("point 0 of 4: label | elapsed", err)


class Launchers(Case):
    def test_ssh(self):
        os.environ["UCX_TLS"] = "tcp"
        self.addCleanup(os.environ.pop, "UCX_TLS")
        # the launcher forwards TC_TEST_QUICK too (a sanitizer build's make
        # check exports it): this test names exactly what it forwards
        quick = os.environ.pop("TC_TEST_QUICK", None)
        if quick is not None:
            self.addCleanup(os.environ.__setitem__, "TC_TEST_QUICK", quick)
        ln = launch.Launcher(["a=10.0.0.1", "b"], "ssh", rsh="sh -c")
        bg, cli, env = ln.perf(["tc-perf"], ["-t", "jam_lat"], 500, self.tmp)
        self.assertIsNone(env)
        self.assertEqual(bg[0][:3], ["sh", "-c", "b"])
        # env carries UCX_TLS (and whatever else the run exports, e.g.
        # TC_TEST_QUICK under a sanitizer build)
        self.assertRegex(bg[0][3], r"^env (\S+=\S+ )*UCX_TLS=tcp (\S+=\S+ )*tc-perf --boot tcp -p")
        self.assertIn("tc-perf b --boot tcp", cli[3])
        self.assertTrue(cli[3].endswith("-T 500 -t jam_lat"))
        ranks, r0, _ = ln.mcast(["tc-mcast"], ["-n", "3"], self.tmp)
        self.assertEqual(len(ranks), 2)
        self.assertIn("TC_RANK=0 TC_SIZE=3 TC_BOOT=10.0.0.1:", r0[3])
        self.assertEqual(ranks[0][2], "b")
        self.assertEqual(ln.describe()["addresses"], {"a": "10.0.0.1", "b": "b"})
        self.assertEqual(ln.one("b", ["x"]), ["sh", "-c", "b", "env UCX_TLS=tcp x"])

    def test_mpirun_and_srun_argv(self):
        ln = launch.Launcher(["a", "b"], "ssh", rsh="sh")
        ln.kind = "mpirun"      # the argv alone: mpirun need not be here
        _, argv, _ = ln.perf(["tc-perf"], ["-q"], 100, self.tmp)
        self.assertEqual(argv[argv.index("--host") + 1], "b:1,a:1")
        self.assertIn("--boot", argv)
        self.assertEqual(ln.one("a", ["x"])[-1], "x")
        _, argv, _ = ln.mcast(["tc-mcast"], ["-n", "4"], self.tmp)
        self.assertIn("a:4,b:4", argv)
        ln.kind = "srun"
        _, argv, env = ln.perf(["tc-perf"], ["-q"], 100, self.tmp)
        self.assertIn("--distribution=arbitrary", argv)
        with open(env["SLURM_HOSTFILE"]) as f:
            self.assertEqual(f.read(), "b\na\n")
        _, argv, _ = ln.mcast(["tc-mcast"], ["-n", "4"], self.tmp)
        self.assertIn("--distribution=cyclic", argv)
        self.assertEqual(ln.one("a", ["x"])[:2], ["srun", "--mpi=pmix"])

    def test_bad(self):
        for hosts, kind, rsh in ((["a"], "ssh", "sh"), (["a", "b"], "telnet", "sh"), (["=x", "b"], "ssh", "sh"),
                                 (["a", "b"], "ssh", "no-such-rsh-here")):
            with self.assertRaises(ValueError):
                launch.Launcher(hosts, kind, rsh=rsh)


class Tools(Case):
    def test_probe(self):
        t = tools.probe_tool("tc-perf", FAKE)
        self.assertTrue(t["present"])
        self.assertIn("--stash", t["options"])
        os.environ["TC_BUILD"] = self.tmp
        self.addCleanup(os.environ.pop, "TC_BUILD")
        self.assertEqual(tools.probe_tool("tc-perf", None)["why"], "tc-perf not built")
        self.assertFalse(tools.probe_tool("x", [self.path("nope")])["present"])

    def test_platform(self):
        self.assertEqual(tools.platform_report({}, os.path.join(FX, "platform.json"))["arch"], "fake")
        with self.assertRaises(SystemExit):
            tools.platform_report({"tc-perf": {"present": False, "why": "tc-perf not built"}}, None)
        self.assertEqual(tools.platform_id("given"), "given")
        os.environ["TC_PLATFORM_ID"] = "env-id"
        self.addCleanup(os.environ.pop, "TC_PLATFORM_ID")
        self.assertEqual(tools.platform_id(None), "env-id")
        self.assertRegex(tools.git_rev(), r"^([0-9a-f]+(-dirty)?|unknown)$")


class Procs(Case):
    def test_kill_children_and_their_groups(self):
        with open(os.devnull, "w") as log:
            p = procs.spawn(["sh", "-c", "sleep 30 & sleep 30"], log, self.tmp)
        for _ in range(100):
            if len(procs.session_members(p.pid)) >= 2:
                break
            time.sleep(0.02)
        self.assertGreaterEqual(len(procs.session_members(p.pid)), 2)
        procs.kill_children(grace=0.5)
        self.assertEqual(procs.session_members(p.pid), [])
        self.assertNotIn(p, procs._children)
        procs.release_swaps(self.tmp)     # none of ours: nothing to turn off

    def test_free_port(self):
        self.assertGreater(procs.free_port(), 0)


class Runs(Case):
    """tc-experiments' main with the seams: the runs are the fake tool's"""

    def setUp(self):
        super().setUp()
        for s in (signal.SIGINT, signal.SIGTERM):
            self.addCleanup(signal.signal, s, signal.getsignal(s))
        os.environ["FAKE_LOG"] = self.path("calls.log")
        self.addCleanup(os.environ.pop, "FAKE_LOG")

    def runner(self, *argv):
        return self.run_main(ex.main, ["--experiments-dir", DEFS, "--platform-json", os.path.join(FX, "platform.json"),
                                       "--tool-cmd", " ".join(FAKE), "--platform-id", "fake",
                                       "--results", self.path("res"), "--host-window", "0"] + list(argv))

    def fake_proc(self, load1):
        """a /proc of two files: loadavg with load1, a stat whose ticks stand still"""
        d = self.path("proc")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "loadavg"), "w") as f:
            f.write("%s 0.50 0.25 1/100 4242\n" % load1)
        with open(os.path.join(d, "stat"), "w") as f:
            f.write("cpu  100 0 50 1000 10 0 0 5 0 0\ncpu0 50 0 25 500 5 0 0 2 0 0\n")
        return d

    def test_host_state_recorded(self):
        # a busy host: meta.json says so, with the reason and thresholds, and the run ends warning
        rc, _, err = self.runner("--rounds", "1", "--proc", self.fake_proc(99), "tiny")
        self.assertEqual(rc, 0, err)
        hs = self.meta()["host_state"]
        self.assertTrue(hs["busy"])
        self.assertIn("load average 99 on", hs["reasons"][0])
        self.assertEqual(hs["thresholds"]["load1_per_cpu"], 0.5)
        self.assertEqual(hs["before"]["load"], [99.0, 0.5, 0.25])
        self.assertGreaterEqual(hs["summary"]["samples"], 1)
        self.assertEqual(hs["run_id"], self.meta()["run_id"])
        self.assertEqual({s["experiment"] for s in hs["during"]}, {"tiny"})
        self.assertTrue(self.meta()["experiments"]["tiny"]["host_state"]["busy"])
        self.assertIn("WARNING: the host is busy now: load average 99 on", err)       # at the start
        self.assertIn("WARNING: the host was busy: load average 99 on", err)           # and the end
        # an idle one: no reason, no warning
        rc, _, err = self.runner("--rounds", "1", "--proc", self.fake_proc("0.00"), "tiny")
        hs = self.meta()["host_state"]
        self.assertEqual((rc, hs["busy"], hs["reasons"]), (0, False, []), err)
        self.assertEqual(hs["summary"]["others_frac"], 0.0)
        self.assertNotIn("WARNING", err)

    def calls(self):
        with open(self.path("calls.log")) as f:
            return [line.split()[line.split().index("-j") + 1] for line in f]

    def rows(self, name="tiny.csv"):
        with open(self.path("res", "fake", name)) as f:
            return list(csv.DictReader(f))

    def meta(self):
        with open(self.path("res", "fake", "meta.json")) as f:
            return json.load(f)

    def test_dry_run(self):
        rc, out, err = self.runner("--dry-run", "tiny")
        self.assertEqual(rc, 0)
        self.assertIn("4 points (2 skipped) x 5 round(s)", err)       # the quick preset: 5 rounds
        self.assertIn("not run: waits=wfe (every point): wait.wfe unsupported", err)
        self.assertIn("tiny #1 -t jam_lat,put_lat -j alpha -W poll,pause --stash on", out)
        self.assertIn("[skip: stash=on: control.stash unsupported", out)
        rc, out, _ = self.runner("--dry-run", "--preset", "paper", "--plan-json", "-", "tiny")
        d = json.loads(out)
        self.assertEqual((d["points"], d["skipped"], d["rounds"]), (4, 2, 5))
        self.assertFalse(os.path.exists(self.path("res")))

    def test_list_and_id(self):
        rc, out, _ = self.runner("--list")
        self.assertEqual(out.split("\n")[1].split()[0], "tiny")
        rc, out, _ = self.runner("--print-platform-id")
        self.assertEqual(out, "fake\n")
        self.assertEqual(self.runner("--rounds", "0", "tiny")[0], 2)
        self.assertEqual(self.runner("--hosts", "a,b")[0], 2)       # no --launcher

    def test_run_round_major_whole_files(self):
        rc, _, err = self.runner("--rounds", "3", "tiny")
        self.assertEqual(rc, 0, err)
        self.assertIn("(2 skipped) x 3 round(s)", err)
        # 2 points x 3 rounds, round-major: every point's round 1 first
        self.assertEqual(self.calls(), ["alpha", "beta"] * 3)
        rows = self.rows()
        self.assertEqual(list(rows[0])[:7], ["experiment", "point", "round", "preset", "test", "jam", "mode"])
        self.assertEqual(len(rows), 3 * 2 * 2 * 2 * 2)   # rounds x points x tests x waits x sizes
        self.assertEqual({r["point"] for r in rows}, {"0", "2"})
        self.assertEqual({r["round"] for r in rows}, {"1", "2", "3"})
        self.assertEqual({r["wait"] for r in rows}, {"poll", "pause"})
        dist = self.rows("tiny.dist.csv")
        self.assertEqual(list(dist[0])[:4], ["experiment", "point", "round", "preset"])
        self.assertEqual({r["round"] for r in dist}, {"1", "2", "3"})
        m = self.meta()
        e = m["experiments"]["tiny"]
        self.assertEqual((m["platform_id"], m["preset"], m["platform"]["arch"]), ("fake", "quick", "fake"))
        self.assertEqual(m["schema_version"], schema.SCHEMA_VERSION)     # the runner stamps meta.json
        self.assertEqual((e["points"], e["ran"], e["rounds"], len(e["tool_json"])), (4, 2, 3, 6))
        self.assertEqual(sorted((t["point"], t["round"]) for t in e["tool_json"]),
                         [(p, r) for p in (0, 2) for r in (1, 2, 3)])
        sk = {(s["point"], s["reason"]) for s in e["skipped"]}
        self.assertTrue(any(p == 1 and "no stash control" in r for p, r in sk))
        self.assertTrue(any("no wfe here" in r for p, r in sk))
        self.assertFalse(os.path.exists(self.path("res", "fake", ".partial")))
        # a re-run replaces, never appends; the paper preset has one size
        os.remove(self.path("calls.log"))
        rc, _, _ = self.runner("--preset", "paper", "--rounds", "1", "tiny")
        self.assertEqual(rc, 0)
        self.assertEqual(len(self.calls()), 2)
        rows = self.rows()
        self.assertEqual((len(rows), {r["preset"] for r in rows}, {r["round"] for r in rows}), (8, {"paper"}, {"1"}))
        self.assertEqual(self.meta()["experiments"]["tiny"]["preset"], "paper")

    def test_failed_point_kept_and_resumed(self):
        os.environ["FAKE_FAIL_JAM"] = "beta"
        try:
            rc, _, err = self.runner("--rounds", "2", "tiny")
        finally:
            del os.environ["FAKE_FAIL_JAM"]
        self.assertEqual(rc, 1)
        self.assertRegex(err, r"failed: exit 2: .*unknown option")
        e = self.meta()["experiments"]["tiny"]
        self.assertEqual((e["ran"], [(f["point"], f["round"]) for f in e["failed"]]), (1, [(2, 1), (2, 2)]))
        with open(self.path("res", "fake", ".partial", "state.json")) as f:
            run_id = json.load(f)["run_id"]
        # --resume: the failed runs again, nothing else; one run id; what
        # contradicts the stopped run is refused
        self.assertEqual(self.runner("--resume", "--rounds", "3")[0], 1)
        self.assertEqual(self.runner("--resume", "--preset", "paper")[0], 1)
        os.remove(self.path("calls.log"))
        rc, _, err = self.runner("--resume", "tiny")
        self.assertEqual(rc, 0, err)
        self.assertIn("resuming run %s" % run_id, err)
        self.assertIn("ignoring tiny", err)
        self.assertEqual(self.calls(), ["beta", "beta"])
        self.assertEqual({(r["point"], r["round"]) for r in self.rows()}, {(p, k) for p in "02" for k in "12"})
        self.assertEqual(self.meta()["run_id"], run_id)
        rc, _, err = self.runner("--resume")
        self.assertEqual(rc, 1)
        self.assertIn("nothing to resume", err)

    def test_changed_plan_not_resumed(self):
        os.environ["FAKE_FAIL_JAM"] = "beta"
        try:
            self.runner("--rounds", "1", "tiny")
        finally:
            del os.environ["FAKE_FAIL_JAM"]
        pf = json.loads(json.dumps(PLATFORM))
        pf["wait"]["wfe"] = "supported"
        p = self.write("wfe.json", json.dumps(pf))
        rc, _, err = self.run_main(ex.main, ["--experiments-dir", DEFS, "--platform-json", p, "--tool-cmd",
                                             " ".join(FAKE), "--platform-id", "fake", "--results", self.path("res"),
                                             "--resume"])
        self.assertEqual(rc, 1)
        self.assertIn("the plan of tiny changed", err)


class PointArgv(Case):
    def test_here(self):
        class Opts:
            launcher = None
        tool = {"cmd": ["tc"]}
        p = {"args": ["-t", "x"], "silence_ms": 100}
        bg, cli, env = run.point_argv({"tool": "tc-perf"}, p, tool, ["-q"], Opts, self.tmp)
        self.assertEqual(bg[0][:3], ["tc", "-p", cli[3]])
        self.assertEqual(cli[:2], ["tc", "127.0.0.1"])
        _, cli, _ = run.point_argv({"tool": "tc-perf", "connection": "loopback"}, p, tool, ["-q"], Opts, self.tmp)
        self.assertEqual(cli[:2], ["tc", "-l"])
        self.assertEqual(run.point_argv({"tool": "tc-mcast"}, p, tool, ["-q"], Opts, self.tmp), ([], ["tc", "-q"], None))
        self.assertEqual(run.point_label({"name": "e"}, {"point": 3, "axes": {"a": None}}, 2, 5), "e #3 round 2/5 a=-")

    def test_timeout(self):
        with open(os.devnull, "w") as log:
            cli = procs.spawn(["sleep", "30"], log, self.tmp)
        t0 = time.time()
        rc = run.wait_client(cli, 0.2, t0, lambda el: None, self.tmp)
        self.assertTrue(rc.startswith("timeout after"), rc)
        self.assertLess(time.time() - t0, 10)
        with open(os.devnull, "w") as log:
            srv = procs.spawn(["sh", "-c", "exit 3"], log, self.tmp)
        run.stop_servers([srv])
        self.assertIsNotNone(srv.poll())

    def test_fake_tool_seam_works(self):
        r = subprocess.run(FAKE + ["-h"], capture_output=True, text=True)
        self.assertIn("--stash", r.stdout)


class Pair(Case):
    """--hosts through a remote shell that runs the command here (a fake
    rsh): the pair's id and report, without a second host"""

    def setUp(self):
        super().setUp()
        self.rsh = self.write("rsh", '#!/bin/sh\nshift\nexec sh -c "$*"\n')
        self.tool = self.write("tool", "#!/bin/sh\n[ \"$1\" = -h ] && echo '--stash --platform' && exit 0\n"
                                       "cat %s\n" % os.path.join(FX, "platform.json"))
        for p in (self.rsh, self.tool):
            os.chmod(p, 0o755)
        os.environ["TC_PLATFORM_ID"] = "host-x"
        self.addCleanup(os.environ.pop, "TC_PLATFORM_ID")

    def test_pair_report(self):
        ln = launch.Launcher(["a", "b"], "ssh", rsh=self.rsh)
        pid_, report, per = launch.pair_platform(ln, {"tc-perf": {"cmd": [self.tool]}})
        self.assertRegex(pid_, r"^pair-.*-x2$")
        self.assertEqual(sorted(per), ["a", "b"])
        self.assertEqual(report["placement"]["dram"][:12], "unsupported:")
        self.assertEqual(report["placement"]["default"], "supported")
        with self.assertRaises(RuntimeError):
            launch.run_on_host(ln, "a", ["false"])

    def test_print_pair_id(self):
        rc, out, err = self.run_main(ex.main, ["--experiments-dir", DEFS, "--hosts", "a,b", "--launcher", "ssh",
                                               "--rsh", self.rsh, "--tool-cmd", self.tool, "--print-platform-id"])
        self.assertEqual(rc, 0, err)
        self.assertRegex(out, r"^pair-.*-x2\n$")
        rc, _, err = self.run_main(ex.main, ["--experiments-dir", DEFS, "--hosts", "a,b", "--launcher", "ssh",
                                             "--rsh", self.rsh, "--tool-cmd", self.path("none"), "--dry-run"])
        self.assertEqual(rc, 1)
        self.assertIn("build first", err)
