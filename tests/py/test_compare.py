"""tcresults.compare (tc-compare) on a committed real bench-ci result
(tests/data/compare/base) and copies of it scaled here, and on small
hand-made files whose rounds are known."""
import json
import os
import xml.etree.ElementTree as ET

from helpers import DATA, RESULTS, Case, csv_text, edit_rows

from tcresults import compare

BASE = os.path.join(DATA, "compare", "base")
LINES = [("p50", "p50_us"), ("p99.9", "p999_us"), ("rate", "rate_mps")]


class Compare(Case):
    def scaled(self, name, tests, cols, f):
        """a copy of BASE whose cols of the rows of tests are f times slower
        (rate_mps divided: slower is fewer messages per second)"""
        out = self.copy(BASE, name)

        def edit(r):
            for c in cols:
                if r.get(c):
                    v = float(r[c])
                    r[c] = "%.6g" % (v / f if c == "rate_mps" else v * f)
        edit_rows(os.path.join(out, "ci.csv"), edit, lambda r: r["test"] in tests)
        return out

    def cmp(self, *argv):
        return self.run_main(compare.main, list(argv))

    def jam_rows(self, out):
        return [line for line in out.splitlines() if line.startswith("| jam_")]

    def test_identical_inputs_pass_at_ratio_one(self):
        rc, out, _ = self.cmp(BASE, BASE)
        self.assertEqual(rc, 0)
        self.assertIn("\nPASS\n", out)
        self.assertIn("regressed past", out)
        self.assertTrue(self.jam_rows(out))
        for line in self.jam_rows(out):
            self.assertIn("| 1.000 |", line)
            self.assertNotIn("REGRESSION", line)
        rc, _, _ = self.cmp(os.path.join(BASE, "ci.csv"), os.path.join(BASE, "ci.csv"))
        self.assertEqual(rc, 0)

    def test_jam_twice_as_slow_fails(self):
        slow = self.scaled("slow2", ("jam_lat", "jam_rate"), ("p50_us", "p999_us", "rate_mps"), 2)
        rc, out, _ = self.cmp(BASE, slow)
        self.assertEqual(rc, 1)
        self.assertIn("REGRESSION: p50 +100%", out)
        self.assertIn("REGRESSION: rate -50%", out)
        self.assertNotIn("rate +", out)
        self.assertIn("\nFAIL: ", out)

    def test_machine_twice_as_slow_passes(self):
        # jam and put alike: the put reference cancels the machine's speed
        slow = self.scaled("m2", ("jam_lat", "jam_rate", "put_lat", "put_rate"), ("p50_us", "p999_us", "rate_mps"), 2)
        rc, out, _ = self.cmp(BASE, slow)
        self.assertEqual(rc, 0)
        self.assertTrue(self.jam_rows(out))
        self.assertFalse([line for line in self.jam_rows(out) if "REGRESSION" in line])
        # only the put slower: the jam relatively better, not a failure
        putslow = self.scaled("p2", ("put_lat", "put_rate"), ("p50_us", "p999_us", "rate_mps"), 2)
        self.assertEqual(self.cmp(BASE, putslow)[0], 0)

    def test_threshold(self):
        slow12 = self.scaled("s12", ("jam_lat",), ("p50_us",), 1.2)
        rc, out, _ = self.cmp(BASE, slow12, "--threshold", "10", "--gate", "median")
        self.assertEqual(rc, 1)
        self.assertIn("REGRESSION: p50 +20%", out)
        self.assertEqual(self.cmp(BASE, slow12, "--threshold", "30", "--gate", "median")[0], 0)
        slow105 = self.scaled("s105", ("jam_lat",), ("p50_us",), 1.05)
        self.assertEqual(self.cmp(BASE, slow105, "--threshold", "10", "--gate", "median")[0], 0)
        self.assertEqual(self.cmp(BASE, slow105, "--threshold", "2", "--gate", "median")[0], 1)

    def ivl(self, name, *p50s):
        """one jam_lat point per value, each beside a put_lat of 0.1 us"""
        rows = []
        for p, v in enumerate(p50s):
            rows += ["ci,%d,t,jam_lat,noop,local,8,%s,9" % (p, v), "ci,%d,t,put_lat,,raw,8,0.100,1" % p]
        self.write(name + "/ci.csv", csv_text("experiment,point,preset,test,jam,mode,payload_bytes,p50_us,p999_us",
                                              *rows))
        return self.path(name)

    def test_interval_gate(self):
        rb = self.ivl("rb", 0.20, 0.26, 0.30)      # normalised 2.0 .. 3.0, median 2.6
        rn = self.ivl("rn", 0.28, 0.34, 0.40)      # median 3.4 (+31%), 2.8 .. 4.0: overlap
        rs = self.ivl("rs", 0.31, 0.34, 0.40)      # median 3.4 (+31%), 3.1 .. 4.0: all worse
        rc, out, _ = self.cmp(rb, rn)
        self.assertEqual(rc, 0)
        self.assertIn("noise: p50 +31% (rounds overlap)", out)
        self.assertIn("1 moved past it within the rounds' spread", out)
        self.assertEqual(self.cmp(rb, rn, "--gate", "median")[0], 1)
        rc, out, _ = self.cmp(rb, rs)
        self.assertEqual(rc, 1)
        self.assertIn("REGRESSION: p50 +31%", out)
        self.assertEqual(self.cmp(rb, rb)[0], 0)

    def rounds(self, name, j1, p1, j2, p2):
        """tc-experiments' layout: one point, two rounds, each its own put"""
        self.write(name + "/fig.csv", csv_text(
            "experiment,point,round,preset,test,jam,mode,payload_bytes,p50_us,p999_us",
            "fig,0,1,quick,jam_lat,noop,local,8,%s,9" % j1, "fig,0,1,quick,put_lat,,raw,8,%s,1" % p1,
            "fig,0,2,quick,jam_lat,noop,local,8,%s,9" % j2, "fig,0,2,quick,put_lat,,raw,8,%s,1" % p2))
        return self.path(name)

    def test_each_round_divided_by_its_own_put(self):
        pb = self.rounds("pb", 0.20, 0.10, 0.40, 0.20)       # 2.0, 2.0
        self.assertEqual(self.cmp(pb, self.rounds("better", 0.15, 0.10, 0.30, 0.20))[0], 0)   # 1.5, 1.5
        # 3.0, 3.0: +50% with the rounds apart; against the point's pooled puts
        # the rounds would overlap and pass as noise
        rc, out, _ = self.cmp(pb, self.rounds("worse", 0.30, 0.10, 0.60, 0.20))
        self.assertEqual(rc, 1)
        self.assertIn("REGRESSION: p50 +50%", out)

    def test_report_only(self):
        slow15 = self.scaled("s15", ("jam_lat", "jam_rate"), ("p50_us", "rate_mps"), 1.5)
        rc, out, _ = self.cmp(BASE, slow15, "--report-only")
        self.assertEqual(rc, 0)
        self.assertIn("REGRESSION", out)
        self.assertRegex(out, r"\nPASS \(report only: [0-9]+ point\(s\) regressed past the 10% threshold, not gating\)\n")
        slow25 = self.scaled("s25", ("jam_lat",), ("p50_us",), 2.5)
        self.assertEqual(self.cmp(BASE, slow25, "--report-only")[0], 0)
        rc, out, _ = self.cmp(BASE, slow25, "--report-only", "--fail-factor", "2")
        self.assertEqual(rc, 1)
        self.assertIn("(report-only limit)", out)
        self.assertEqual(self.cmp(BASE, slow25, "--report-only", "--fail-factor", "3")[0], 0)

    def test_tail_gates_only_when_asked(self):
        tail = self.scaled("tail", ("jam_lat",), ("p999_us",), 3)
        self.assertEqual(self.cmp(BASE, tail)[0], 0)
        rc, out, _ = self.cmp(BASE, tail, "--gate-tail")
        self.assertEqual(rc, 1)
        self.assertIn("REGRESSION: p99.9", out)

    def test_rate_from_the_median_window(self):
        # the whole-run rate halved (a preemption), the windows not: passes;
        # --rate-from total gates on it
        total = self.scaled("total", ("jam_rate",), ("rate_mps",), 2)
        self.assertEqual(self.cmp(BASE, total)[0], 0)
        self.assertEqual(self.cmp(BASE, total, "--rate-from", "total")[0], 1)

    def test_mcast_raw(self):
        mc = self.copy(BASE, "mc")
        edit_rows(os.path.join(mc, "mcast-scaling.csv"), lambda r: r.update(p50_us="4.0"),
                  lambda r: r["mode"] == "tree")
        rc, out, _ = self.cmp(BASE, mc, "--experiment", "mcast-scaling")
        self.assertEqual(rc, 1)
        self.assertIn("REGRESSION: p50 +100%", out)
        rc, out, _ = self.cmp(BASE, BASE, "--experiment", "mcast-scaling", "--all")
        self.assertIn("info (not gated)", out)      # the simulated row

    GAP = csv_text("experiment,point,preset,test,jam,mode,payload_bytes,p50_us,p999_us,wait,placement,"
                   "sw_prefetch,stress,gap_us",
                   "sparse,0,t,jam_lat,indirect_put,local,64,0.30,1.0,event,default,off,none,0",
                   "sparse,0,t,put_lat,,raw,64,0.20,0.5,event,default,off,none,0",
                   "sparse,1,t,jam_lat,indirect_put,local,64,37.0,90.0,event,default,off,none,1000",
                   "sparse,1,t,put_lat,,raw,64,0.20,0.5,event,default,off,none,0")

    def test_gap_rows_are_points_of_their_own(self):
        gap = os.path.dirname(self.write("gap/sparse.csv", self.GAP))
        rc, out, _ = self.cmp(gap, gap)
        self.assertEqual(rc, 0)
        self.assertIn("points compared (2 gated)", out)
        self.assertIn("max 0.0%", out)
        gap2 = os.path.dirname(self.write("gap2/sparse.csv", self.GAP.replace(",37.0,", ",74.0,")))
        rc, out, _ = self.cmp(gap, gap2)
        self.assertEqual(rc, 1)
        self.assertIn("| 1000 |", [line for line in out.splitlines() if "REGRESSION: p50 +100%" in line][0])

    def test_no_gap_column_compares_with_gap_zero(self):
        lines = self.GAP.splitlines()
        old = [",".join(line.split(",")[:13]) for line in lines[:3]]
        o = os.path.dirname(self.write("old/sparse.csv", "\n".join(old) + "\n"))
        n = os.path.dirname(self.write("new/sparse.csv", "\n".join(lines[:3]) + "\n"))
        rc, out, _ = self.cmp(o, n)
        self.assertEqual(rc, 0)
        self.assertIn("points compared (1 gated)", out)

    def test_bad_input(self):
        empty = self.path("empty")
        os.makedirs(empty)
        rc, out, _ = self.cmp(BASE, empty)
        self.assertEqual(rc, 2)
        self.assertIn("nothing compared: no common rows", out)
        self.assertIn("ci.csv only in BASE", out)
        self.assertEqual(self.cmp(BASE, BASE, "--threshold")[0], 2)
        self.assertEqual(self.cmp(BASE, BASE, "--fail-factor", "0.5")[0], 2)
        # a folder against a file: nothing compared (2), not a regression (1)
        rc, out, _ = self.cmp(BASE, os.path.join(BASE, "ci.csv"))
        self.assertEqual(rc, 2)
        self.assertIn("both be folders or both CSV files", out)

    def test_no_such_folder_is_nothing_compared(self):
        # REGRESSION.md's promise: 2 when nothing is comparable, one line
        # saying why and what to run (it was 1, the regression status)
        for argv in ([BASE, "/no/such/folder", "--report-only"], ["/no/such/folder", BASE]):
            rc, out, _ = self.cmp(*argv)
            self.assertEqual(rc, 2, argv)
            lines = out.strip().splitlines()
            self.assertEqual(len(lines), 1, out)
            self.assertIn("nothing compared: ", lines[0])
            self.assertIn("/no/such/folder: no such folder or file", lines[0])
            self.assertIn("scripts/bench-ci.sh -o", lines[0])

    def test_report_and_gate_count_alike(self):
        # the committed baseline against its own repeat: the gate and report
        # mode count the same regressions, in the same words
        b = os.path.join(RESULTS, "baseline", "x86_64-amd-epyc-2c-7f13995f")
        rc, out, _ = self.cmp(b, os.path.join(b, "repeat"))
        rcr, outr, _ = self.cmp(b, os.path.join(b, "repeat"), "--report-only")
        self.assertEqual((rc, rcr), (1, 0))
        n = out.count("| REGRESSION: ")
        self.assertGreater(n, 0)
        self.assertEqual(n, outr.count("| REGRESSION: "))
        counted = "%d point(s) regressed past the 10%% threshold" % n
        self.assertEqual(out.strip().splitlines()[-1], "FAIL: " + counted)
        self.assertEqual(outr.strip().splitlines()[-1], "PASS (report only: %s, not gating)" % counted)

    def test_summary_leads_with_regressions(self):
        slow = self.scaled("slow2", ("jam_lat",), ("p50_us",), 2)
        rc, out, _ = self.cmp(BASE, slow)
        self.assertEqual(rc, 1)
        lines = out.splitlines()
        self.assertEqual(lines[0], "# tc-compare: FAIL: 8 point(s) regressed past the 10% threshold")
        head = lines[1:lines.index("## ci")]
        regs = [line for line in head if line.startswith("- ci ")]
        self.assertEqual(len(regs), 8)
        self.assertIn("- ci jam_lat indirect_put local 8 B: p50 +100%", regs)
        self.assertTrue(all(line.endswith(": p50 +100%") for line in regs), regs)
        self.assertLess(head.index(regs[-1]), [i for i, line in enumerate(head) if line.startswith("- base:")][0])
        rc, out, _ = self.cmp(BASE, BASE)
        self.assertEqual(out.splitlines()[0], "# tc-compare: PASS")

    def test_json_and_junit(self):
        slow = self.scaled("slow2", ("jam_lat",), ("p50_us",), 2)
        j, x = self.path("v.json"), self.path("v.xml")
        rc, out, _ = self.cmp(BASE, slow, "--json", j, "--junit", x)
        self.assertEqual(rc, 1)
        with open(j) as f:
            v = json.load(f)
        self.assertEqual((v["exit"], v["status"], v["regressions"]), (1, "regression", 8))
        self.assertEqual(v["headline"], out.strip().splitlines()[-1])
        gated = [c for c in v["cases"] if c["suite"] == "ci"]
        self.assertEqual(len(gated), 16)      # every gated point a case: jam_lat and jam_rate, 2 jams, 2 modes, 2 sizes
        root = ET.parse(x).getroot()
        self.assertEqual(root.tag, "testsuites")
        cases = root.findall("./testsuite/testcase")
        self.assertEqual(len(cases), len(v["cases"]))
        failed = [c for c in cases if c.find("failure") is not None]
        self.assertEqual(len(failed), 8)
        self.assertEqual(failed[0].find("failure").get("message"), "p50 +100%")
        # report only: the same cases, no failure elements
        rc, _, _ = self.cmp(BASE, slow, "--report-only", "--junit", x)
        self.assertEqual(rc, 0)
        self.assertEqual(ET.parse(x).getroot().findall(".//failure"), [])
        # nothing compared: said in both files
        rc, _, _ = self.cmp(BASE, "/no/such/folder", "--json", j, "--junit", x)
        self.assertEqual(rc, 2)
        with open(j) as f:
            self.assertEqual(json.load(f)["status"], "nothing-compared")
        self.assertIsNotNone(ET.parse(x).getroot().find(".//skipped"))

    def test_platforms_and_load_said(self):
        other = self.copy(BASE, "other")
        with open(os.path.join(other, "meta.json")) as f:
            m = json.load(f)
        m.update(platform_id="another", loadavg={"start": 0.5, "end": 1.5})
        with open(os.path.join(other, "meta.json"), "w") as f:
            json.dump(m, f)
        rc, out, _ = self.cmp(BASE, other)
        self.assertEqual(rc, 0)
        self.assertIn("WARNING: different platforms", out)
        self.assertIn("load average 0.5 -> 1.5", out)

    def test_cost(self):
        cost = csv_text("jam,mode,payload_bytes,instructions_per_msg", "noop,local,8,100", "noop,local,64,200",
                        "sum,local,8,50")
        a = os.path.dirname(self.write("a/cost.csv", cost))
        self.write("a/ci.csv", open(os.path.join(BASE, "ci.csv")).read())
        b = os.path.dirname(self.write("b/cost.csv", cost.replace(",200", ",210").replace("sum,local,8,50\n", "")))
        self.write("b/ci.csv", open(os.path.join(BASE, "ci.csv")).read())
        rc, out, _ = self.cmp(a, b)
        self.assertEqual(rc, 1)
        self.assertIn("| noop | local | 64 | 200.0 | 210.0 | 1.050 | - | - | - | REGRESSION: instructions +5.0% |", out)
        self.assertIn("only in BASE |", out)
        self.assertEqual(self.cmp(a, b, "--ir-threshold", "6")[0], 0)
        # the timings' report mode leaves the counts gating
        rc, out, _ = self.cmp(a, b, "--report-only")
        self.assertEqual(rc, 1)
        self.assertIn("\nFAIL: 1 point(s) regressed past the 3% threshold on the counts\n", out)
        rc, out, _ = self.cmp(a, b, "--report-only", "--counts-report-only")
        self.assertEqual(rc, 0)
        self.assertIn("PASS (report only: 1 point(s) regressed past the 3% threshold on the counts, not gating)", out)
        os.remove(os.path.join(b, "cost.csv"))
        rc, out, _ = self.cmp(a, b)
        self.assertEqual(rc, 0)
        self.assertIn("cost.csv only in BASE: not compared", out)

    def test_cost_prepared_rows_are_their_own_points(self):
        # bench-cost.sh's api column: a prepared point beside the send point of the same jam,
        # mode and payload is compared with its own; a base without the column is send's
        base = os.path.dirname(self.write("pa/cost.csv", csv_text("jam,mode,payload_bytes,instructions_per_msg",
                                                                   "noop,local,8,100")))
        new = os.path.dirname(self.write("pb/cost.csv", csv_text("jam,mode,payload_bytes,instructions_per_msg,api",
                                                                  "noop,local,8,100,send",
                                                                  "noop,local,8,80,prepared")))
        rc, out, _ = self.cmp(base, new, "--cost-base", base)
        self.assertEqual(rc, 0, out)
        self.assertIn("| noop | local | 8 | 100.0 | 100.0 | 1.000 |", out)
        self.assertIn("| noop [prepared] | local | 8 | - | 80.0 | - | - | - | - | only in NEW |", out)

    def test_cost_send_recv_and_cycles_each_gate(self):
        head = ("jam,mode,payload_bytes,instructions_per_msg,send_instructions_per_msg,"
                "recv_instructions_per_msg,cycles_per_msg")
        a = os.path.dirname(self.write("ca/cost.csv", csv_text(head, "noop,local,8,300,150,150,500")))
        # the same total, work moved from send to receive: the receive path regresses
        moved = os.path.dirname(self.write("cm/cost.csv", csv_text(head, "noop,local,8,300,100,200,500")))
        rc, out, _ = self.cmp(a, moved, "--cost-base", a)
        self.assertEqual(rc, 1)
        self.assertIn("REGRESSION: recv instructions +33.3%", out)
        self.assertNotIn("send instructions +", out)
        # the same instructions, one simulated miss more a message (a layout
        # shift: +20 model cycles, 4%): past the instruction threshold, within
        # the cycles' own; listed, not a regression
        shifted = os.path.dirname(self.write("cs/cost.csv", csv_text(head, "noop,local,8,300,150,150,520")))
        rc, out, _ = self.cmp(a, shifted, "--cost-base", a)
        self.assertEqual(rc, 0, out)
        self.assertIn("| noop | local | 8 | 300.0 | 300.0 | 1.000 | 1.000 | 1.000 | 1.040 | ok |", out)
        # the same instructions, the cache missed: the simulated cycles regress
        missed = os.path.dirname(self.write("cc/cost.csv", csv_text(head, "noop,local,8,300,150,150,560")))
        rc, out, _ = self.cmp(a, missed, "--cost-base", a)
        self.assertEqual(rc, 1)
        self.assertIn("| noop | local | 8 | 300.0 | 300.0 | 1.000 | 1.000 | 1.000 | 1.120 | REGRESSION: cycles +12.0% |",
                      out)
        # --cycles-threshold: the model held as tightly as the instructions
        rc, out, _ = self.cmp(a, shifted, "--cost-base", a, "--cycles-threshold", "3")
        self.assertEqual(rc, 1, out)
        self.assertIn("REGRESSION: cycles +4.0%", out)
        # the instructions stay strict: +4% with the cycles unchanged regresses
        more = os.path.dirname(self.write("ci/cost.csv", csv_text(head, "noop,local,8,312,156,156,500")))
        rc, out, _ = self.cmp(a, more, "--cost-base", a)
        self.assertEqual(rc, 1, out)
        self.assertIn("REGRESSION: instructions +4.0%, send instructions +4.0%, recv instructions +4.0% |", out)
        # under the thresholds: passes
        near = os.path.dirname(self.write("cn/cost.csv", csv_text(head, "noop,local,8,308,154,154,514")))
        self.assertEqual(self.cmp(a, near, "--cost-base", a)[0], 0)

    def test_cost_base_alone_decides_where_no_timings(self):
        # a runner with no timing baseline: the key's committed counts decide
        cost = csv_text("jam,mode,payload_bytes,instructions_per_msg", "noop,local,8,100")
        key = os.path.dirname(self.write("key/cost.csv", cost))
        new = self.copy(BASE, "new")
        self.write("new/cost.csv", cost)
        rc, out, _ = self.cmp(self.path("no-such-platform"), new, "--cost-base", key, "--report-only")
        self.assertEqual(rc, 0)
        self.assertIn("timings: not compared: BASE", out)
        self.assertIn("1 points counted, 0 regressed past 3% on the counts", out)
        self.write("new/cost.csv", cost.replace(",100", ",150"))
        rc, out, _ = self.cmp(self.path("no-such-platform"), new, "--cost-base", key, "--report-only",
                              "--json", self.path("v.json"))
        self.assertEqual(rc, 1)
        v = json.load(open(self.path("v.json")))
        self.assertEqual((v["exit"], v["gating"], v["gating_regressions"]), (1, False, 1))
        # the key has no baseline: nothing compared, exit 2, saying where it looked
        rc, out, _ = self.cmp(self.path("no-such-platform"), new, "--cost-base", self.path("nokey"))
        self.assertEqual(rc, 2)
        self.assertIn("no cost.csv in %s (--cost-base)" % self.path("nokey"), out)
        # and without --cost-base a missing BASE is still nothing compared
        self.assertEqual(self.cmp(self.path("no-such-platform"), new)[0], 2)

    def test_axis_columns_on_one_side(self):
        # NEW's meta.json adds an axis (stash) BASE lacks: matched on the common columns
        a = self.rounds("a", 0.2, 0.1, 0.2, 0.1)
        b = self.rounds("b", 0.2, 0.1, 0.2, 0.1)
        with open(os.path.join(b, "meta.json"), "w") as f:
            json.dump({"experiments": {"fig": {"point_axes": [{"point": 0, "axes": {"stash": "on"}}]}}}, f)
        rc, out, _ = self.cmp(a, b)
        self.assertEqual(rc, 0)
        self.assertIn("2 points compared (1 gated)", out)
        self.assertNotIn("unmatched", out)

    def test_different_tools(self):
        a = os.path.dirname(self.write("a/x.csv", open(os.path.join(BASE, "mcast-scaling.csv")).read()))
        b = self.ivl("b", 0.2)
        os.rename(os.path.join(b, "ci.csv"), os.path.join(b, "x.csv"))
        rc, out, _ = self.cmp(a, b)
        self.assertEqual(rc, 2)
        self.assertIn("x.csv: different tools in BASE and NEW", out)

    def test_unmatched_points(self):
        # points told apart by their payload (the point column is no key:
        # bench-ci numbers every round as a point)
        rows = ["ci,0,t,%s,noop,local,%d,0.2,9" % (t, s) for s in range(1, 26) for t in ("jam_lat", "put_lat")]
        a = os.path.dirname(self.write("a/ci.csv", csv_text(
            "experiment,point,preset,test,jam,mode,payload_bytes,p50_us,p999_us", *rows)))
        b = os.path.dirname(self.write("b/ci.csv", csv_text(
            "experiment,point,preset,test,jam,mode,payload_bytes,p50_us,p999_us", *rows[:4])))
        rc, out, _ = self.cmp(a, b)
        self.assertEqual(rc, 0)
        self.assertIn("- unmatched (only in BASE): ci.csv", out)
        self.assertIn("- ... 26 more unmatched points", out)

    def test_reference_missing(self):
        # a jam without a put reference is compared raw, and said so
        a = os.path.dirname(self.write("a/ci.csv", csv_text("experiment,point,test,jam,mode,payload_bytes,p50_us",
                                                               "ci,0,jam_lat,noop,local,8,0.2")))
        rc, out, _ = self.cmp(a, a)
        self.assertEqual(rc, 0)
        self.assertIn("| raw (no put reference) |", out)
        b = self.ivl("b", 0.2)
        rc, out, _ = self.cmp(a, b)
        self.assertIn("raw (reference missing on one side)", out)
