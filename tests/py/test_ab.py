"""tcresults.ab (tc-ab): the alternation's order and the rank test's
verdicts on small blocks written here (each block a bench-ci round: jam_lat
and jam_rate points beside their put references), whose values are known.
The blocks' run itself (a worktree built, bench-ci.sh per block) is checked
end to end by hand: docs/REGRESSION.md."""
import json
import os
import random
import xml.etree.ElementTree as ET

from helpers import Case, csv_text

from tcresults import ab

HEADER = "experiment,point,preset,test,jam,mode,payload_bytes,p50_us,p999_us,rate_mps"


class AB(Case):
    def block(self, out, side, r, lat, rate, put_lat=0.1, put_rate=10.0):
        """one block: jam_lat p50 = lat, jam_rate's window rate 1e6/p50 = rate
        (put references put_lat, put_rate), for noop local at 8 and 64 B"""
        rows = []
        for size in (8, 64):
            rows += ["ci,0,ci,jam_lat,noop,local,%d,%.6f,9,0" % (size, lat),
                     "ci,0,ci,put_lat,,raw,%d,%.6f,1,0" % (size, put_lat),
                     "ci,0,ci,jam_rate,noop,local,%d,%.6f,0,%.6f" % (size, 1 / rate, rate),
                     "ci,0,ci,put_rate,,raw,%d,%.6f,0,%.6f" % (size, 1 / put_rate, put_rate)]
        self.write(os.path.join(out, side, "r%d" % r, "ci.csv"), csv_text(HEADER, *rows))

    def blocks(self, name, rounds, lat_b=1.0, rate_b=1.0, seed=1, spread=0.05, drift=None):
        """rounds blocks a side: A's jam_lat 0.2 us and rate 5 per us times
        noise factors spread evenly over 1 -+ spread, in an order of their
        own on each side (so both sides have the same median); B's the same
        times lat_b, rate_b; drift(r): the machine's speed in round r (jam
        and put alike)"""
        out = self.path(name)
        rnd = random.Random(seed)
        fac = [1 + spread * (2 * i / max(1, rounds - 1) - 1) for i in range(rounds)]
        perm = {s: rnd.sample(fac, rounds) for s in ab.SIDES}
        for side, r in ab.order(rounds):
            k = drift(r) if drift else 1.0
            f = perm[side][r - 1]
            lb, rb = (lat_b, rate_b) if side == "b" else (1.0, 1.0)
            self.block(out, side, r, 0.2 * f * lb * k, 5.0 / f * rb / k, 0.1 * k, 10.0 / k)
        return out

    def analyse(self, out, *argv):
        return self.run_main(ab.main, ["--analyse", out] + list(argv))

    def test_order_alternates_and_takes_turns_first(self):
        self.assertEqual(ab.order(3), [("a", 1), ("b", 1), ("b", 2), ("a", 2), ("a", 3), ("b", 3)])
        self.assertEqual(len(ab.order(10)), 20)

    def test_identical_builds_pass(self):
        for seed in range(5):
            rc, out, _ = self.analyse(self.blocks("same%d" % seed, 10, seed=seed))
            self.assertEqual(rc, 0, out)
            self.assertEqual(out.splitlines()[0], "# tc-ab: PASS")
            self.assertIn("4 points tested, 0 regressed", out)

    def test_slower_b_fails(self):
        out = self.blocks("slow", 10, lat_b=1.2, rate_b=1 / 1.2, spread=0.05)
        rc, text, _ = self.analyse(out)
        self.assertEqual(rc, 1)
        lines = text.splitlines()
        self.assertTrue(lines[0].startswith("# tc-ab: FAIL: 4 point(s) regressed"), lines[0])
        self.assertIn("- time jam_lat noop local 8 B: p50 +20.0%", lines)
        self.assertIn("- time jam_rate noop local 64 B: rate -16.7%", lines)
        self.assertEqual(lines[-1], lines[0][len("# tc-ab: "):])
        with open(os.path.join(out, "ab.md")) as f:
            self.assertEqual(f.read(), text)           # the report kept beside the blocks
        # the exact p of ten rounds apart from ten: 1 / C(20, 10)
        self.assertIn("| 100 | 5.4e-06 | REGRESSION: p50 +20.0% |", text)
        rc, text, _ = self.analyse(out, "--report-only")
        self.assertEqual(rc, 0)
        self.assertIn("PASS (report only: 4 point(s) regressed", text)

    def test_faster_b_passes(self):
        rc, _, _ = self.analyse(self.blocks("fast", 10, lat_b=0.8, rate_b=1.25))
        self.assertEqual(rc, 0)

    def test_small_effect_is_no_regression(self):
        # 1% slower in every round (p tiny), under --min-effect 3: ok; under 0.5 a regression
        out = self.blocks("small", 10, lat_b=1.01, spread=0.001)
        rc, text, _ = self.analyse(out)
        self.assertEqual(rc, 0, text)
        self.assertEqual(self.analyse(out, "--min-effect", "0.5")[0], 1)

    def test_moved_median_within_the_spread_is_noise(self):
        # B's median +8% but the rounds spread +-30%: not below the per-point alpha
        out = self.blocks("wide", 10, lat_b=1.08, spread=0.3, seed=3)
        rc, text, _ = self.analyse(out)
        self.assertEqual(rc, 0, text)
        self.assertIn("noise: p50 +", text)
        self.assertIn("not below 0.0025)", text)

    def test_drift_hits_both_alike(self):
        # the machine twice as slow from round 5 on, jam and put alike: the
        # put reference and the alternation cancel it
        rc, text, _ = self.analyse(self.blocks("drift", 10, drift=lambda r: 1 if r < 5 else 2))
        self.assertEqual(rc, 0, text)

    def test_too_few_rounds_is_nothing_compared(self):
        rc, text, _ = self.analyse(self.blocks("few", 3, lat_b=2))
        self.assertEqual(rc, 2)
        self.assertEqual(text.strip(), "tc-ab: nothing compared: 3 and 3 rounds: the smallest p the test "
                                       "can give, 0.05, is not below the per-point alpha 0.0025 "
                                       "(make bench-ab AB_ROUNDS=6, at least)")
        # a looser alpha decides with them
        self.assertEqual(self.analyse(self.blocks("few", 3, lat_b=2), "--alpha", "0.5")[0], 1)

    def test_no_blocks_is_nothing_compared(self):
        rc, text, _ = self.analyse(self.path("none"))
        self.assertEqual(rc, 2)
        self.assertIn("nothing compared: no blocks of A and B in", text)
        out = self.blocks("onlya", 4)
        os.rename(os.path.join(out, "b"), os.path.join(out, "x"))
        self.assertIn("no blocks of B in", self.analyse(out)[1])

    def test_json_and_junit(self):
        out = self.blocks("slowj", 10, lat_b=1.2)
        j, x = self.path("v.json"), self.path("v.xml")
        rc, _, _ = self.analyse(out, "--json", j, "--junit", x)
        self.assertEqual(rc, 1)
        with open(j) as f:
            v = json.load(f)
        self.assertEqual((v["tool"], v["exit"], v["regressions"], len(v["cases"])), ("tc-ab", 1, 2, 4))
        cases = ET.parse(x).getroot().findall(".//testcase")
        self.assertEqual(len(cases), 4)
        self.assertEqual(sum(1 for c in cases if c.find("failure") is not None), 2)

    def test_run_refuses_before_building(self):
        # no tc-perf in B's build, BASE naming no commit: nothing compared,
        # before any worktree is made
        old = os.environ.get("TC_BUILD")
        try:
            os.environ["TC_BUILD"] = self.path("nobuild")
            rc, out, _ = self.run_main(ab.main, ["-o", self.path("o")])
            self.assertEqual(rc, 2)
            self.assertIn("tc-ab: nothing compared: no tc-perf in %s" % self.path("nobuild"), out)
            os.makedirs(self.path("fake", "bin"))
            perf = self.write("fake/bin/tc-perf", "")
            os.chmod(perf, 0o755)
            os.environ["TC_BUILD"] = self.path("fake")
            rc, out, _ = self.run_main(ab.main, ["--base", "no-such-rev", "-o", self.path("o")])
            self.assertEqual(rc, 2)
            self.assertIn("BASE no-such-rev names no commit", out)
        finally:
            if old is None:
                os.environ.pop("TC_BUILD", None)
            else:
                os.environ["TC_BUILD"] = old

    def test_bad_flags(self):
        for argv in (["-r", "0"], ["--alpha", "1"], ["--min-effect", "-1"], ["--slow-jam", "-2"]):
            rc, _, err = self.run_main(ab.main, argv)
            self.assertEqual(rc, 2, argv)
            self.assertIn("tc-ab: error:", err)
