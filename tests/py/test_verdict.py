"""tcresults.verdict: the exit status, headline, summary, JSON and JUnit XML
every gating tool gives the same way."""
import json
import xml.etree.ElementTree as ET

from helpers import Case

from tcresults import verdict


class Verdict(Case):
    def made(self, gating=True):
        v = verdict.Verdict("tc-x", gating=gating)
        v.threshold = " past the 3% threshold"
        v.add("cost", "noop local 8 B", "ok")
        v.add("cost", "noop injected 8 B", "regression", "instructions +5.0%")
        v.add("ci", "jam_lat noop local 8 B", "noise", "p50 +12% (rounds overlap)")
        return v

    def test_exit_status(self):
        self.assertEqual(self.made().status(), verdict.REGRESSION)
        self.assertEqual(self.made(gating=False).status(), verdict.OK)
        v = verdict.Verdict("tc-x")
        self.assertEqual(v.status(), verdict.NOTHING)          # no case: nothing compared
        v.add("a", "b", "ok")
        self.assertEqual(v.status(), verdict.OK)
        v.nothing("no baseline", "make it")
        self.assertEqual(v.status(), verdict.NOTHING)
        v = self.made(gating=False)
        v.forced = (verdict.REGRESSION, "FAIL: past the limit")
        self.assertEqual((v.status(), v.headline()), (1, "FAIL: past the limit"))
        with self.assertRaises(ValueError):
            v.add("a", "b", "bad")

    def test_headline_counts_alike_in_both_modes(self):
        self.assertEqual(self.made().headline(), "FAIL: 1 point(s) regressed past the 3% threshold")
        self.assertEqual(self.made(gating=False).headline(),
                         "PASS (report only: 1 point(s) regressed past the 3% threshold, not gating)")
        v = verdict.Verdict("tc-x", gating=False)
        v.add("a", "b", "ok")
        self.assertEqual(v.headline(), "PASS (report only)")
        v = verdict.Verdict("tc-x")
        v.nothing("no baseline for platform p in results/baseline/", "make bench-ci-baseline")
        self.assertEqual(v.headline(), "tc-x: nothing compared: no baseline for platform p in results/baseline/ "
                                       "(make bench-ci-baseline)")

    def test_cases_that_gate_in_report_mode(self):
        # tc-compare --report-only: the timings report, the counts still gate
        v = verdict.Verdict("tc-x", gating=False)
        v.threshold = " past the 10% threshold"
        v.thresholds["cost"] = " past the 3% threshold on the counts"
        v.add("ci", "jam_lat noop local 8 B", "regression", "p50 +20%")
        self.assertEqual(v.status(), verdict.OK)
        v.add("cost", "noop local 8 B", "ok", gates=True)
        self.assertEqual(v.status(), verdict.OK)
        v.add("cost", "noop injected 8 B", "regression", "instructions +5.0%", gates=True)
        self.assertEqual(v.status(), verdict.REGRESSION)
        self.assertEqual(v.headline(), "FAIL: 1 point(s) regressed past the 3% threshold on the counts "
                                       "(report only: 1 point(s) regressed past the 10% threshold, not gating)")
        top = ET.fromstring(v.junit())
        self.assertEqual(top.get("failures"), "1")
        self.assertEqual(len(top.findall(".//failure")), 1)
        self.assertEqual(json.loads(json.dumps(v.as_dict()))["gating_regressions"], 1)

    def test_summary_leads_with_the_regressions(self):
        self.assertEqual(self.made().summary(), ["**FAIL: 1 point(s) regressed past the 3% threshold**", "",
                                                 "- cost noop injected 8 B: instructions +5.0%"])
        v = verdict.Verdict("tc-x")
        v.add("a", "b", "ok")
        self.assertEqual(v.summary(), ["**PASS**"])

    def test_json(self):
        p = self.path("v.json")
        self.made().write(json_path=p)
        with open(p) as f:
            d = json.load(f)
        self.assertEqual((d["tool"], d["status"], d["exit"], d["regressions"]), ("tc-x", "regression", 1, 1))
        self.assertEqual(len(d["cases"]), 3)
        v = verdict.Verdict("tc-x")
        v.nothing("why", "run")
        v.write(json_path=p)
        with open(p) as f:
            d = json.load(f)
        self.assertEqual((d["status"], d["exit"], d["reason"]), ("nothing-compared", 2, "tc-x: nothing compared: why (run)"))

    def test_junit(self):
        p = self.path("v.xml")
        self.made().write(junit_path=p)
        root = ET.parse(p).getroot()
        self.assertEqual((root.tag, root.get("tests"), root.get("failures")), ("testsuites", "3", "1"))
        suites = root.findall("testsuite")
        self.assertEqual([s.get("name") for s in suites], ["tc-x.cost", "tc-x.ci"])
        self.assertEqual([s.get("failures") for s in suites], ["1", "0"])
        f = suites[0].findall("testcase")[1].find("failure")
        self.assertEqual((f.get("message"), f.get("type")), ("instructions +5.0%", "regression"))
        self.assertEqual(suites[0].findall("testcase")[0].find("failure"), None)
        # report only: no failure, the regression said in its output
        self.made(gating=False).write(junit_path=p)
        root = ET.parse(p).getroot()
        self.assertEqual(root.findall(".//failure"), [])
        self.assertIn("(report only)", root.findall(".//testcase")[1].find("system-out").text)
        # names with XML's specials stay well formed
        v = verdict.Verdict("tc-x")
        v.add("a<b", 'c "d" & e', "regression", "<+5%>")
        v.write(junit_path=p)
        self.assertEqual(ET.parse(p).getroot().find(".//testcase").get("name"), 'c "d" & e')
        v = verdict.Verdict("tc-x")
        v.nothing("why", "run")
        v.write(junit_path=p)
        sk = ET.parse(p).getroot().find(".//skipped")
        self.assertEqual(sk.get("message"), "tc-x: nothing compared: why (run)")
