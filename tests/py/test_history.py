"""tcresults.history (tc-history), bisect (tc-bisect), gitwork and buildkey:
cost.csv read with the columns it may gain, steps named by commit, the tip's
verdict, the plot's script, history.csv kept and skipped, the bisect's
decision; on small files written here, this repository's own commits (no
build: their counts written as history.csv rows) and a throwaway git
repository. The builds and counts themselves run end to end by hand
(docs/REGRESSION.md: make history, tc-bisect on 281f831)."""
import json
import os
import subprocess
import xml.etree.ElementTree as ET

from helpers import TOP, Case, csv_text

from tcresults import bisect, buildkey, gitwork, history

COST = csv_text("jam,mode,payload_bytes,frame_bytes,messages,instructions_per_msg,ns_per_msg",
                "noop,local,8,64,4000,298.5,", "noop,injected,8,256,4000,454.5,12.5")


class Cost(Case):
    def test_today(self):
        v = history.parse_cost(self.write("c.csv", COST))
        self.assertEqual(v, {("noop/local/8", "frame_bytes"): 64, ("noop/local/8", "instructions_per_msg"): 298.5,
                             ("noop/injected/8", "frame_bytes"): 256,
                             ("noop/injected/8", "instructions_per_msg"): 454.5})

    def test_more_columns(self):
        # simulated cycles and the send and receive paths apart, as columns,
        # or a path column naming the row: each a count, each point its own
        v = history.parse_cost(self.write("c.csv", csv_text(
            "jam,mode,payload_bytes,frame_bytes,messages,instructions_per_msg,cycles_per_msg,"
            "send_instructions_per_msg,ns_per_msg",
            "noop,local,8,64,4000,298.5,410.25,120,")))
        self.assertEqual(v[("noop/local/8", "cycles_per_msg")], 410.25)
        self.assertEqual(v[("noop/local/8", "send_instructions_per_msg")], 120)
        self.assertNotIn(("noop/local/8", "messages"), v)
        v = history.parse_cost(self.write("d.csv", csv_text(
            "jam,mode,payload_bytes,path,instructions_per_msg", "noop,local,8,send,120", "noop,local,8,run,178.5")))
        self.assertEqual(v, {("noop/local/8/send", "instructions_per_msg"): 120,
                             ("noop/local/8/run", "instructions_per_msg"): 178.5})
        self.assertEqual(history.point_words("noop/local/8/send"), "noop local 8 B send")

    def test_gated_metrics(self):
        self.assertTrue(history.gated("instructions_per_msg"))
        self.assertTrue(history.gated("recv_cycles_per_msg"))
        self.assertFalse(history.gated("frame_bytes"))


def rows(sha, status="ok", counter="c1", **vals):
    """history.csv rows of one commit: vals metric__point=value"""
    if status != "ok":
        return [{"commit": sha, "date": "", "status": status, "counter": counter, "note": "why"}]
    return [{"commit": sha, "date": "", "status": "ok", "counter": counter, "point": k.split("__")[1].replace("_", "/"),
             "metric": k.split("__")[0], "value": str(v), "seconds": "10", "note": ""} for k, v in vals.items()]


ORDER = ["c0", "c1", "c2", "c3", "c4"]


class Steps(Case):
    def hist(self, *commits, counter="c1"):
        out = []
        for sha, status, v, f in commits:
            out += rows(sha, status, counter, **({"instructions_per_msg__n_l_8": v, "frame_bytes__n_l_8": f}
                                                 if status == "ok" else {}))
        return out

    def test_step_named_by_the_later_commit(self):
        h = self.hist(("c0", "ok", 466.5, 192), ("c1", "ok", 466.5, 192), ("c2", "ok", 454.5, 192),
                      ("c3", "ok", 454.8, 192), ("c4", "ok", 454.8, 256))
        ser, status = history.series(h, ORDER, "c1")
        st = history.steps(ser, 0.5, 1.0)
        # 466.5 -> 454.5 at c2; 454.5 -> 454.8 (0.3) is under both thresholds; the frame at c4
        self.assertEqual(st, [(4, 3, "n/l/8", "frame_bytes", 192, 256),
                              (2, 1, "n/l/8", "instructions_per_msg", 466.5, 454.5)])
        self.assertEqual(history.steps(ser, 0.01, 0.1)[1:], [(2, 1, "n/l/8", "instructions_per_msg", 466.5, 454.5),
                                                             (3, 2, "n/l/8", "instructions_per_msg", 454.5, 454.8)])
        # a step of 4 (1.3%) at 298.5 passes the defaults; one of 1.0 does not (abs not above 1)
        ser2, _ = history.series(self.hist(("c0", "ok", 298.5, 64), ("c1", "ok", 294.5, 64), ("c2", "ok", 293.5, 64)),
                                 ORDER, "c1")
        self.assertEqual([s[0] for s in history.steps(ser2, 0.5, 1.0)], [1])

    def test_failed_commits_between(self):
        h = self.hist(("c0", "ok", 300, 64), ("c1", "build-failed", 0, 0), ("c2", "ok", 330, 64))
        ser, status = history.series(h, ORDER, "c1")
        self.assertEqual(status, {"c0": "ok", "c1": "build-failed", "c2": "ok"})
        self.assertEqual(history.steps(ser, 0.5, 1), [(2, 0, "n/l/8", "instructions_per_msg", 300, 330)])

    def test_recorded_twice_the_later_rows(self):
        h = self.hist(("c0", "ok", 300, 64), ("c1", "ok", 300, 64), ("c1", "ok", 330, 64))
        ser, _ = history.series(h, ORDER, "c1")
        self.assertEqual(ser[("n/l/8", "instructions_per_msg")], [(0, 300), (1, 330)])
        ser, status = history.series(h + self.hist(("c1", "count-failed", 0, 0)), ORDER, "c1")
        self.assertEqual((status["c1"], ser[("n/l/8", "instructions_per_msg")]), ("count-failed", [(0, 300)]))

    def test_other_counter_not_compared(self):
        h = self.hist(("c0", "ok", 300, 64)) + self.hist(("c1", "ok", 400, 64), counter="other")
        ser, status = history.series(h, ORDER, "c1")
        self.assertEqual(status, {"c0": "ok"})
        self.assertEqual(history.steps(ser, 0.5, 1), [])

    def judge(self, *commits):
        ser, status = history.series(self.hist(*commits), ORDER, "c1")
        return history.judge(ORDER, ser, status, history.steps(ser, 0.5, 1))

    def test_tip_verdict(self):
        up = self.judge(("c3", "ok", 300, 64), ("c4", "ok", 330, 64))
        self.assertEqual(up.status(), 1)
        self.assertEqual(up.regressions()[0]["message"], "300 -> 330 (+10.0%) at c4")
        self.assertEqual(up.headline(), "FAIL: 1 count(s) regressed at the newest counted commit")
        self.assertEqual(self.judge(("c3", "ok", 330, 64), ("c4", "ok", 300, 64)).status(), 0)   # a saving
        self.assertEqual(self.judge(("c2", "ok", 300, 64), ("c3", "ok", 330, 64), ("c4", "ok", 330, 64)).status(), 0)
        self.assertEqual(self.judge(("c3", "ok", 300, 64), ("c4", "ok", 300, 128)).status(), 0)  # frame: not gated
        # the newest counted commit is the tip: c4 did not build
        self.assertEqual(self.judge(("c2", "ok", 300, 64), ("c3", "ok", 330, 64), ("c4", "build-failed", 0, 0))
                         .status(), 1)

    def test_nothing_compared(self):
        v = self.judge(("c3", "ok", 300, 64), ("c4", "build-failed", 0, 0))
        self.assertEqual(v.status(), 2)
        self.assertIn("nothing compared: 1 of the 5 commits counted with this counter", v.headline())
        self.assertIn("c4 build-failed", v.headline())
        self.assertIn("(make history N=50)", v.headline())

    def test_plot_script(self):
        h = self.hist(("c0", "ok", 400, 64), ("c1", "ok", 400, 64), ("c2", "ok", 300, 64))
        ser, _ = history.series(h, ORDER[:3], "c1")
        st = history.steps(ser, 0.5, 1)
        text, cmds = history.plot_script("/x/instructions_per_msg", "instructions_per_msg", ORDER[:3], ser, st, "k")
        self.assertEqual(text, "# n/l/8\n0 1 400\n1 1 400\n2 0.75 300\n\n\n")
        self.assertIn('set xtics ("c0" 0, "c1" 1, "c2" 2) rotate by 90 right font \',8\'', cmds)
        self.assertIn("set arrow from 1.5, graph 0 to 1.5, graph 1 nohead dt 2 lc rgb '#888888'", cmds)
        self.assertIn("'/x/instructions_per_msg.dat' index 0 using 1:2", cmds[-2])
        self.assertIn('title "l 8 B"', cmds[-2])               # the jam names the panel
        self.assertEqual((cmds[0][:22], cmds[-1]), ("set multiplot layout 1", "unset multiplot"))
        self.assertIn('set title "n"', cmds)
        # many series: a panel per jam, each key beside its own panel
        many = {("%s/%s/%d" % (j, m, b), "instructions_per_msg"): [(0, 10), (1, 11)]
                for j in ("a", "b", "c") for m in ("local", "injected") for b in (8, 64, 1024, 4096)}
        _, cmds = history.plot_script("/x/i", "instructions_per_msg", ORDER[:2], many, [], "k")
        plots = [c for c in cmds if c.startswith("plot ")]
        self.assertEqual(len(plots), 3)
        self.assertEqual([p.count(" title ") for p in plots], [8, 8, 8])
        self.assertTrue(cmds[0].startswith("set multiplot layout 3,1 title"))
        self.assertIsNone(history.plot_script("/x/f", "frame_bytes", ["c2"], {("p", "frame_bytes"): [(0, 1)]}, [], "k"))


class File(Case):
    def test_append_and_recorded(self):
        p = self.path("k", "history.csv")
        history.append(p, rows("c0", counter="c1", instructions_per_msg__n_l_8=1))
        history.append(p, rows("c1", "build-failed", counter="c1"))
        history.append(p, rows("c2", counter="old", instructions_per_msg__n_l_8=1))
        with open(p) as f:
            text = f.read()
        self.assertEqual(text.count("commit,date,status"), 1)
        self.assertEqual(history.recorded(history.load(p), "c1"), {"c0": "ok", "c1": "build-failed"})
        self.assertEqual(history.load(self.path("none.csv")), [])

    def test_recorded_commits_are_not_measured_again(self):
        # every commit already there (a failed one too): no worktree, nothing measured
        shas = history.commits("HEAD", 2)
        p = self.path("k", "history.csv")
        for s in shas:
            history.append(p, rows(s, "build-failed", counter=history.counter_id()))
        self.assertEqual(history.record(shas, p, history.counter_id(), self.path("logs")), [])
        self.assertFalse(os.path.exists(self.path("logs")))

    def test_failed_commit_retried_when_the_counter_changes(self):
        # a failure recorded by another counter is no verdict of this one's
        p = self.path("k", "history.csv")
        history.append(p, rows("c0", "count-failed", counter="old"))
        self.assertEqual(history.recorded(history.load(p), "old"), {"c0": "count-failed"})
        self.assertEqual(history.recorded(history.load(p), history.counter_id()), {})

    def test_how_an_older_tree_was_counted(self):
        m = self.path("cost-meta.json")
        with open(m, "w") as f:
            json.dump({"instrumentation": "tc-cost", "split_na": []}, f)
        self.assertEqual(history.how_counted(m), "")
        with open(m, "w") as f:
            json.dump({"instrumentation": "atstart (valgrind_args + --instr-atstart=yes)",
                       "split_na": ["noop local 8 B"]}, f)
        self.assertEqual(history.how_counted(m), "instrumentation at start (an older tc-cost); "
                                                 "send/receive split n/a at 1 point(s)")
        self.assertEqual(history.how_counted(self.path("none.json")), "")

    def test_view_reads_the_committed_history(self):
        # a view under build/ knows the committed rows of its key (the later
        # wins), and writes only its own file
        saved = history.COMMITTED_ROOT
        history.COMMITTED_ROOT = self.path("committed")
        try:
            committed = history.history_path(history.COMMITTED_ROOT, "k")
            view = history.history_path(self.path("view"), "k")
            history.append(committed, rows("c0", counter="c1", instructions_per_msg__n_l_8=1))
            history.append(committed, rows("c1", "build-failed", counter="c1"))
            history.append(view, rows("c1", counter="c1", instructions_per_msg__n_l_8=2))
            known = history.load_known(view)
            self.assertEqual(history.recorded(known, "c1"), {"c0": "ok", "c1": "ok"})
            self.assertEqual(len(history.load(view)), 1)
            self.assertEqual(history.load_known(committed), history.load(committed))
        finally:
            history.COMMITTED_ROOT = saved

    def test_writes_under_build_unless_told(self):
        self.assertEqual(history.parse_args([]).root, os.path.join(TOP, "build", "history"))
        self.assertEqual(history.parse_args(["--commit"]).root, os.path.join(TOP, "results", "history"))
        self.assertEqual(bisect.parse_args(["m", "1", "a", "b"]).root, os.path.join(TOP, "build", "history"))

    def test_commits_oldest_first(self):
        shas = history.commits("HEAD", 3)
        self.assertEqual(len(shas), 3)
        self.assertEqual(shas[-1], gitwork.commit_of("HEAD"))
        self.assertEqual(shas[1], gitwork.commit_of("HEAD~1"))

    def test_counter_follows_the_counting_script(self):
        c = history.counter_id()
        self.assertRegex(c, "^[0-9a-f]{10}$")
        self.assertEqual(c, history.counter_id())

    def report(self, vals, *argv):
        """main --report over HEAD~2..HEAD with their counts written here"""
        root = self.path("root")
        if os.path.exists(root):
            subprocess.run(["rm", "-rf", root], check=True)
        p = history.history_path(root, buildkey.key())
        for sha, v in zip(history.commits("HEAD", 3), vals):
            history.append(p, rows(sha, counter=history.counter_id(), instructions_per_msg__noop_local_8=v)
                           if v is not None else rows(sha, "build-failed", counter=history.counter_id()))
        return self.run_main(history.main, ["--report", "-N", "3", "--root", root] + list(argv))

    def test_main_report(self):
        rc, out, _ = self.report([300, 300, 330], "--no-plot")
        self.assertEqual(rc, 1)
        lines = out.splitlines()
        self.assertEqual(lines[0], "# tc-history: FAIL: 1 count(s) regressed at the newest counted commit")
        head = gitwork.short(gitwork.commit_of("HEAD"))
        self.assertEqual(lines[2], "- instructions_per_msg noop local 8 B: 300 -> 330 (+10.0%%) at %s" % head)
        self.assertIn("- %s %s" % (head, gitwork.subject("HEAD")[:40]), out)
        self.assertIn(": 1 count(s) moved; noop local 8 B instructions_per_msg 300 -> 330 (+10.0%)", out)
        rc, out, _ = self.report([330, 300, 300], "--no-plot")
        self.assertEqual(rc, 0)
        self.assertIn("\n## Steps\n", out)
        rc, out, _ = self.report([300, None, 300], "--no-plot")
        self.assertEqual(rc, 0)
        self.assertIn("## Not counted", out)
        self.assertIn("build-failed (why)", out)

    def test_main_nothing_compared(self):
        j, x = self.path("v.json"), self.path("v.xml")
        rc, out, _ = self.report([None, None, 300], "--json", j, "--junit", x)
        self.assertEqual(rc, 2)
        self.assertEqual(len(out.strip().splitlines()), 1)
        self.assertTrue(out.startswith("tc-history: nothing compared: 1 of the 3 commits counted"))
        with open(j) as f:
            self.assertEqual(json.load(f)["status"], "nothing-compared")
        self.assertIsNotNone(ET.parse(x).getroot().find(".//skipped"))
        rc, out, _ = self.run_main(history.main, ["--report", "--rev", "no-such-rev", "--root", self.path("r")])
        self.assertEqual(rc, 2)
        self.assertIn("--rev no-such-rev names no commit", out)
        self.assertEqual(self.run_main(history.main, ["-N", "0"])[0], 2)

    def test_main_plots(self):
        rc, out, _ = self.report([300, 300, 290])
        self.assertEqual(rc, 0)
        d = os.path.join(self.path("root"), buildkey.key())
        if not any(os.access(os.path.join(p, "gnuplot"), os.X_OK) for p in os.environ["PATH"].split(":")):
            self.skipTest("gnuplot missing")
        self.assertTrue(os.path.getsize(os.path.join(d, "instructions_per_msg.svg")) > 0)
        self.assertIn("instructions_per_msg.svg", out)
        self.assertFalse(os.path.exists(os.path.join(d, "instructions_per_msg.dat")))


class Bisect(Case):
    GOOD = {("a/l/8", "instructions_per_msg"): 100.0, ("b/l/8", "instructions_per_msg"): 200.0,
            ("a/l/8", "frame_bytes"): 64.0}

    def test_past(self):
        new = {("a/l/8", "instructions_per_msg"): 103.0, ("b/l/8", "instructions_per_msg"): 190.0,
               ("a/l/8", "frame_bytes"): 128.0}
        self.assertEqual(bisect.past(self.GOOD, new, "instructions_per_msg", 2, set()), [("a/l/8", 100.0, 103.0)])
        self.assertEqual(bisect.past(self.GOOD, new, "instructions_per_msg", 3, set()), [])
        self.assertEqual(bisect.past(self.GOOD, new, "instructions_per_msg", -2, set()), [("b/l/8", 200.0, 190.0)])
        self.assertEqual(bisect.past(self.GOOD, new, "instructions_per_msg", 2, {"b/l/8"}), [])
        self.assertEqual(bisect.past(self.GOOD, new, "frame_bytes", 50, set()), [("a/l/8", 64.0, 128.0)])

    def recorded_root(self, vals):
        """history.csv holding HEAD~1 and HEAD with instructions vals"""
        root = self.path("root")
        p = history.history_path(root, buildkey.key())
        for sha, v in zip(history.commits("HEAD", 2, False), vals):
            history.append(p, rows(sha, counter=history.counter_id(), instructions_per_msg__a_l_8=v))
        return root, p

    def test_step_decides_from_history(self):
        root, p = self.recorded_root([100, 110])
        ref = self.write("ref.json", json.dumps({"path": p, "counter": history.counter_id(),
                                                 "good": {"a/l/8\tinstructions_per_msg": 100}}))
        cwd = os.getcwd()
        os.chdir(TOP)       # the commit checked out: this tree's HEAD, recorded at 110
        try:
            self.assertEqual(self.run_main(bisect.main, ["instructions_per_msg", "5", "--step", "--ref", ref])[0], 1)
            self.assertEqual(self.run_main(bisect.main, ["instructions_per_msg", "20", "--step", "--ref", ref])[0], 0)
            rc, _, err = self.run_main(bisect.main, ["instructions_per_msg", "5", "--step", "--ref", self.path("no")])
            self.assertEqual(rc, 128)       # our fault: git bisect run stops, no commit judged
        finally:
            os.chdir(cwd)

    def test_nothing_to_bisect(self):
        root, _ = self.recorded_root([100, 101])
        good, bad = history.commits("HEAD", 2, False)
        rc, out, _ = self.run_main(bisect.main, ["instructions_per_msg", "5", good, bad, "--root", root])
        self.assertEqual(rc, 2)
        self.assertIn("tc-bisect: nothing to bisect: BAD %s is not past +5%% of GOOD %s on instructions_per_msg"
                      % (bad[:7], good[:7]), out)
        rc, out, _ = self.run_main(bisect.main, ["cycles", "5", good, bad, "--root", root])
        self.assertIn("GOOD has no cycles (it has: instructions_per_msg)", out)
        rc, out, _ = self.run_main(bisect.main, ["instructions_per_msg", "5", bad, good, "--root", root])
        self.assertIn("is no ancestor of BAD", out)
        rc, out, _ = self.run_main(bisect.main, ["instructions_per_msg", "5", "no-such", bad, "--root", root])
        self.assertIn("no-such names no commit", out)
        self.assertEqual(self.run_main(bisect.main, ["instructions_per_msg", "0", good, bad])[0], 2)
        self.assertEqual(self.run_main(bisect.main, ["instructions_per_msg", "5", good])[0], 2)


    def test_git_bisect_run_on_recorded_counts(self):
        # every commit of HEAD~4..HEAD recorded (no build): git bisect run in
        # a worktree, its steps deciding from history.csv, names the first
        # commit past the threshold, and leaves no worktree behind
        shas = history.commits("HEAD", 5)
        root = self.path("root")
        p = history.history_path(root, buildkey.key())
        for sha, v in zip(shas, [100, 100, 101, 110, 111]):
            history.append(p, rows(sha, counter=history.counter_id(), instructions_per_msg__a_l_8=v))
        rc, out, _ = self.run_main(bisect.main, ["instructions_per_msg", "5", shas[0], shas[-1], "--root", root,
                                                 "--first-parent"])
        self.assertEqual(rc, 0, out)
        self.assertIn("tc-bisect: first commit past +5%% of %s on instructions_per_msg: %s " % (
            shas[0][:7], shas[3][:7]), out)
        self.assertIn("tc-bisect: a l 8 B instructions_per_msg 100 -> 110 (+10.0%)", out)
        self.assertIn("tc-bisect: %s: bad: " % shas[3][:7], out)
        self.assertNotIn("bisect", gitwork.git("worktree", "list"))
        # the history is all it read: nothing was built or recorded again
        self.assertEqual(len(history.load(p)), 5)


class Git(Case):
    def repo(self):
        r = self.path("repo")
        os.makedirs(r)
        env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
                   GIT_COMMITTER_EMAIL="t@t")
        for cmd in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "one"],
                    ["commit", "-q", "--allow-empty", "-m", "two"]):
            subprocess.run(["git"] + cmd, cwd=r, check=True, env=env)
        with open(os.path.join(r, "Makefile"), "w") as f:
            f.write("ok:\n\t@echo built > built\nbad:\n\t@echo no such thing; false\n"
                    "cc:\n\t@echo 'x.c:1:1: error: expected'; echo 'make: *** [x.o] Error 1'; false\n")
        subprocess.run(["git", "add", "Makefile"], cwd=r, check=True)
        subprocess.run(["git", "commit", "-q", "-m", "three"], cwd=r, check=True, env=env)
        return r, env

    def test_default_base(self):
        r, env = self.repo()
        self.assertEqual(gitwork.default_base(r), ("HEAD~1", "HEAD is on main: HEAD~1"))
        subprocess.run(["git", "checkout", "-q", "-b", "topic"], cwd=r, check=True)
        subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "four"], cwd=r, check=True, env=env)
        mb = gitwork.git("rev-parse", "main", cwd=r)
        self.assertEqual(gitwork.default_base(r), (mb, "the merge-base of HEAD with main"))
        self.assertEqual(gitwork.default_base(r, main="trunk"), ("HEAD~1", "no branch trunk: HEAD~1"))
        self.assertIsNone(gitwork.commit_of("nothing", r))

    def test_worktree_built_clean_and_removed(self):
        r, _ = self.repo()
        wt = gitwork.Worktree(os.path.join(r, "build", "wt"), "HEAD", repo=r)
        with wt:
            ok, secs, why = gitwork.build(wt.path, ["ok"], self.path("log"))
            self.assertEqual((ok, why), (True, ""))
            self.assertTrue(os.path.exists(os.path.join(wt.path, "built")))
            ok, _, why = gitwork.build(wt.path, ["bad"], self.path("log"))
            self.assertFalse(ok)
            self.assertIn("Error 1", why)      # make's line, not its leaving the directory
            self.assertEqual(gitwork.build(wt.path, ["cc"], self.path("log"))[2], "x.c:1:1: error: expected")
            wt.checkout("HEAD~1")
            self.assertFalse(os.path.exists(os.path.join(wt.path, "built")))   # clean: nothing of the last build
            self.assertEqual(wt.head(), gitwork.git("rev-parse", "HEAD~1", cwd=r))
        self.assertFalse(os.path.exists(wt.path))
        self.assertEqual(len(gitwork.git("worktree", "list", cwd=r).splitlines()), 1)


class Key(Case):
    def test_key(self):
        k = buildkey.key()
        self.assertEqual(k.count("-"), 3, k)
        p = buildkey.parts()
        self.assertEqual(k, "%(arch)s-%(compiler)s-%(libc)s-%(ucx)s" % p)
        self.assertRegex(p["compiler"], r"^(gcc|clang|cc)[0-9]")
        self.assertRegex(p["ucx"], r"^ucx")
        self.assertEqual(buildkey.compiler("/no/such/cc"), "cc-unknown")
        rc, out, _ = self.run_main(buildkey.main, ["-v"])
        self.assertEqual((rc, out.splitlines()[0]), (0, k))
        self.assertEqual(self.run_main(buildkey.main, ["-x"])[0], 2)
