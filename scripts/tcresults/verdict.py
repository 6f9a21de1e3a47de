"""The verdict of a gating tool, given the same way by all of them (tc-compare,
tc-ab, tc-history; make bench-ci and make bench-ab through them).

Exit status: 0 no regression, 1 regression, 2 nothing compared (no baseline,
no such folder, no common rows), the last with one line saying why and what
to run. The markdown summary leads with the regressions, one line each (a
pull-request comment's first lines); --json FILE and --junit FILE write the
same verdicts for a CI system: JSON, and JUnit XML with one testcase per
point, a failure for a regression."""
import json
import xml.etree.ElementTree as ET

from . import cli

OK, REGRESSION, NOTHING = 0, 1, 2
# a case's status: regression fails (when gating), the others pass
STATUSES = ("ok", "regression", "noise", "info")


class Verdict:
    """The cases one run of a tool judged, and how it ends."""

    def __init__(self, tool, gating=True):
        self.tool = tool
        self.gating = gating        # False: report only, a regression does not fail
        self.cases = []             # {"suite", "name", "status", "message", "gates"}
        self.reason = None          # nothing compared: why, and what to run
        self.forced = None          # (status, line): e.g. past --fail-factor in report mode
        self.what = "point(s)"      # what a case is, for the headline
        self.threshold = ""         # e.g. " past the 10% threshold", for the headline
        self.thresholds = {}        # suite: its own threshold text, where it has one

    def add(self, suite, name, status, message="", gates=None):
        """gates: whether this case's regression fails the run (None: as the
        verdict's gating; True: even in report-only mode, as the counts do)"""
        if status not in STATUSES:
            raise ValueError("verdict: unknown status %r" % status)
        self.cases.append({"suite": suite, "name": name, "status": status, "message": message,
                           "gates": self.gating if gates is None else bool(gates)})

    def nothing(self, why, run):
        """nothing was compared: why, and the command that gives something to compare"""
        self.reason = "%s: nothing compared: %s (%s)" % (self.tool, why, run)

    def regressions(self):
        return [c for c in self.cases if c["status"] == "regression"]

    def gating_regressions(self):
        """the regressions that fail the run"""
        return [c for c in self.regressions() if c["gates"]]

    def status(self):
        if self.reason is not None or not self.cases:
            return NOTHING
        if self.forced is not None:
            return self.forced[0]
        return REGRESSION if self.gating_regressions() else OK

    def counted(self, cases):
        """'2 point(s) regressed past the 10% threshold', per threshold"""
        by = {}
        for c in cases:
            t = self.thresholds.get(c["suite"], self.threshold)
            by[t] = by.get(t, 0) + 1
        return ", ".join("%d %s regressed%s" % (n, self.what, t) for t, n in by.items())

    def headline(self):
        """one line: the verdict and what it counted, the same count in
        either mode ('FAIL: 2 point(s) regressed past the 10% threshold',
        'PASS (report only: 2 point(s) regressed past the 10% threshold, not
        gating'); where some cases gate and others report (the counts and
        the timings of tc-compare --report-only), both are said"""
        if self.status() == NOTHING:
            return self.reason or "%s: nothing compared" % self.tool
        if self.forced is not None:
            return self.forced[1]
        gate = self.gating_regressions()
        report = [c for c in self.regressions() if not c["gates"]]
        more = (" (report only: %s, not gating)" % self.counted(report) if report
                else " (report only)" if not self.gating and not gate else "")
        if gate:
            return "FAIL: %s%s" % (self.counted(gate), more)
        return "PASS%s" % more

    def summary(self):
        """the markdown lines a pull-request comment starts with: the
        headline, then one line per regression"""
        lines = ["**%s**" % self.headline()]
        regs = self.regressions()
        if regs:
            lines.append("")
            lines += ["- %s %s: %s" % (c["suite"], c["name"], c["message"]) for c in regs]
        return lines

    def as_dict(self):
        st = self.status()
        return {"tool": self.tool, "status": ["pass", "regression", "nothing-compared"][st], "exit": st,
                "gating": self.gating, "headline": self.headline(), "reason": self.reason,
                "regressions": len(self.regressions()),
                "gating_regressions": len(self.gating_regressions()), "cases": self.cases}

    def junit(self):
        """JUnit XML: a testsuite per suite, a testcase per point, a failure
        for a regression that gates (a skipped testcase, why, when nothing was compared)"""
        top = ET.Element("testsuites", name=self.tool, tests=str(max(1, len(self.cases))),
                         failures=str(len(self.gating_regressions())))
        if self.status() == NOTHING:
            s = ET.SubElement(top, "testsuite", name=self.tool, tests="1", failures="0", skipped="1")
            tc = ET.SubElement(s, "testcase", classname=self.tool, name="comparison")
            ET.SubElement(tc, "skipped", message=self.headline())
        suites = []
        for c in self.cases:
            if c["suite"] not in suites:
                suites.append(c["suite"])
        for name in suites:
            cs = [c for c in self.cases if c["suite"] == name]
            nf = sum(1 for c in cs if c["status"] == "regression" and c["gates"])
            s = ET.SubElement(top, "testsuite", name="%s.%s" % (self.tool, name), tests=str(len(cs)),
                              failures=str(nf), skipped="0")
            for c in cs:
                tc = ET.SubElement(s, "testcase", classname="%s.%s" % (self.tool, name), name=c["name"])
                if c["status"] == "regression":
                    ET.SubElement(tc, "failure" if c["gates"] else "system-out",
                                  **({"message": c["message"], "type": "regression"} if c["gates"] else {})
                                  ).text = c["message"] + ("" if c["gates"] else " (report only)")
                elif c["message"]:
                    ET.SubElement(tc, "system-out").text = "%s: %s" % (c["status"], c["message"])
        ET.indent(top)
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(top, encoding="unicode") + "\n"

    def write(self, json_path=None, junit_path=None):
        if json_path:
            cli.write_whole(json_path, json.dumps(self.as_dict(), indent=1) + "\n")
        if junit_path:
            cli.write_whole(junit_path, self.junit())


def add_args(ap):
    """--json FILE and --junit FILE on a tool's parser"""
    ap.add_argument("--json", metavar="FILE", help="write the verdicts as JSON to FILE")
    ap.add_argument("--junit", metavar="FILE", help="write the verdicts as JUnit XML to FILE (one testcase a point)")
