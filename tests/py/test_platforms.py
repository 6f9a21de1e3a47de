"""tcresults.platforms (tc-platforms): the platforms' table, a row per point
with the value relative to the same run's put, the compare plots' scripts."""
import glob
import json
import os
import re
import shutil

from helpers import DATA, RESULTS, Case

from tcresults import platforms

FULL = os.path.join(DATA, "claims", "full")
NOEXT = os.path.join(DATA, "claims", "noext")
ROUNDS = os.path.join(DATA, "plot-rounds")


def committed():
    """the committed platform folders with a meta.json and fig results"""
    return sorted(d for d in glob.glob(os.path.join(RESULTS, "*"))
                  if os.path.exists(os.path.join(d, "meta.json")) and glob.glob(os.path.join(d, "fig*.csv")))


class Tables(Case):
    def compare_md(self, *dirs, extra=()):
        rc, out, err = self.run_main(platforms.main, list(dirs) + ["-o", self.tmp, "--no-plots"] + list(extra))
        self.assertEqual(rc, 0, err)
        with open(self.path("compare.md")) as f:
            return f.read(), err

    def test_fixtures(self):
        md, _ = self.compare_md(FULL, NOEXT)
        self.assertIn("| fixture-full | fixture-noext |", md)
        self.assertIn("\n## fig09-10-placement\n", md)
        # llc only on full: 0.8 us over put 0.5 us
        self.assertRegex(md, r"\n\| jam_lat \| indirect_put \| 64 \| llc \| 0.8 us \(1.60x put\).* \| - \|\n")
        self.assertRegex(md, r"\n\| jam_lat \| indirect_put \| 64 \| dram \| 1 us \(2.00x put\).* \| 1 us \(2.00x put\)")
        self.assertIn("cycles", md)
        self.assertIn("cpu-ns (thread-cputime)", md)
        # the fixture pair differs in arch, wfe, llc
        for row in ("arch", "wait wfe", "placement llc", "CPU model"):
            self.assertRegex(md, r"\n\| %s \| \*\*differs\*\* \|" % row)
        self.assertIn("\n| placement dram |  | yes | yes |", md)

    def test_each_round_against_its_own_put(self):
        # local 4 B: 2.0, 3.0, 2.857 -> 2.86x (a ratio to the median put, 1.2 / 0.5, would be 2.40x)
        md, _ = self.compare_md(os.path.join(ROUNDS, "rounds3"), os.path.join(ROUNDS, "round1"))
        for want in ("| rounds | **differs** | 3 | 1 (no round column) |",
                     "| jam_lat | indirect_put | 4 | local | 1.2 us (2.86x put) | 1 us (2.00x put) |",
                     "| jam_lat | indirect_put | 4 | injected | 1.8 us (3.43x put) | 1.3 us (2.60x put) |",
                     "Rounds per point (values: the median over rounds; ratios: per round, then the median): "
                     "plot-rounds3 3, plot-round1 1."):
            self.assertIn("\n" + want + "\n", md)

    def test_put_of_the_jams_own_signal(self):
        # two invocations (signals) in one file without a point column: each
        # jam over the put of its own signal (pooled, fenced read 2.00x put)
        md, _ = self.compare_md(os.path.join(DATA, "platforms", "signals"))
        self.assertIn("| jam_lat | indirect_put | 8 | fenced | 1.2 us (1.20x put) |", md)
        self.assertIn("| jam_lat | indirect_put | 8 | store | 0.3 us (1.50x put) |", md)

    def test_emulated_left_out(self):
        emu = self.copy(FULL, "emu")
        with open(os.path.join(emu, "meta.json")) as f:
            m = json.load(f)
        m["platform"]["emulated"] = "qemu-user"
        with open(os.path.join(emu, "meta.json"), "w") as f:
            json.dump(m, f)
        os.makedirs(self.path("o"))
        rc, _, err = self.run_main(platforms.main, [FULL, emu, "-o", self.path("o"), "--no-plots"])
        self.assertEqual(rc, 0)
        self.assertIn("%s left out: emulated: not for timing" % emu, err)
        with open(self.path("o", "compare.md")) as f:
            self.assertNotIn("fixture-full (", f.read())
        rc, _, err = self.run_main(platforms.main, [emu, "-o", self.path("o")])
        self.assertEqual(rc, 2)
        self.assertIn("no platform left to compare", err)

    def test_same_platform_twice(self):
        md, _ = self.compare_md(FULL, self.copy(FULL, "again"))
        self.assertIn("| fixture-full (%s) | fixture-full (%s) |" % (os.path.normpath(FULL), self.path("again")), md)

    def test_nothing_to_compare(self):
        os.makedirs(self.path("empty"))
        rc, _, err = self.run_main(platforms.main, [self.path("empty"), "-o", self.path("o")])
        self.assertEqual(rc, 2)
        self.assertIn("no <experiment>.csv", err)
        rc, _, err = self.run_main(platforms.main, [self.path("nope")])
        self.assertEqual(rc, 2)

    def test_one_experiment_and_mcast(self):
        base = os.path.join(DATA, "compare", "base")
        md, _ = self.compare_md(base, FULL, extra=["--experiment", "mcast-scaling"])
        self.assertIn("\n## mcast-scaling\n", md)
        self.assertNotIn("## fig07", md)
        self.assertIn("Not in: fixture-full.", md)
        self.assertRegex(md, r"\n\| tree \| 4 \| 2 \| 1 \| noop \| 64 \| 2 \| - \|\n")
        self.assertRegex(md, r"\n\| simulate-tree \| 1000 \| 4 \| 0 \| noop \| 64 \| 7.5 \| - \|\n")

    def test_committed_platforms(self):
        dirs = committed()
        if len(dirs) < 2:
            self.skipTest("fewer than two committed platform folders")
        md, _ = self.compare_md(*dirs)
        for row in ("CPU model", "L3 size", "transports", "placement llc", "cache op CLDEMOTE", "wait umwait", "hosts"):
            self.assertIn("\n| %s | " % row, md)
        self.assertRegex(md, r"\n\| [^|]* \| \*\*differs\*\* \|")
        self.assertIn("\n| arch |  | ", md)


class Cells(Case):
    def test_short(self):
        self.assertEqual(platforms.short("supported"), "yes")
        self.assertEqual(platforms.short("unsupported: no cldemote"), "no (no cldemote)")
        self.assertEqual(platforms.short("unsupported"), "no")
        self.assertEqual(platforms.short(None), "(not reported)")
        self.assertEqual(platforms.short(3), "3")

    def test_fmt_val(self):
        d = {"raw": 2e6, "rel": 0.5, "eff": 0.8, "cyc": None, "cpu": None, "src": ""}
        self.assertEqual(platforms.fmt_val("jam_rate", d), "2 M/s (0.50x put); efficiency 0.80")
        d = {"raw": 1.234, "rel": None, "eff": None, "cyc": None, "cpu": 812.0, "src": ""}
        self.assertEqual(platforms.fmt_val("jam_lat", d), "1.23 us; 812 cpu-ns (cpu time)")
        self.assertEqual(platforms.fmt_val("jam_lat", None), "-")

    def test_hardware_rows(self):
        rows = dict(platforms.hardware_rows({"arch": "x86_64", "cpu": {"model_name": "M", "family": 6, "model": 1,
                                                                         "stepping": 2, "vendor": "V"},
                                             "topology": {"cores": 2, "pus": 4, "numa_nodes": 1,
                                                          "l3_bytes": 2 * 1048576, "line_bytes": 64},
                                             "cache_op": {"cldemote": "supported", "x_sequence": "a"}}))
        self.assertEqual(rows["CPU model"], "M (family 6 model 1 stepping 2)")
        self.assertEqual(rows["hypervisor"], "none")
        self.assertEqual(rows["L3 size"], "2 MiB x1")
        self.assertEqual(rows["cache op CLDEMOTE"], "yes")
        self.assertNotIn("cache op X_SEQUENCE", rows)
        self.assertEqual(dict(platforms.hardware_rows({}))["cores"], "(not reported)")


class Plots(Case):
    def scripts(self, dirs):
        """{name: (data, script)} of every compare plot of dirs"""
        plats = platforms.load_platforms(dirs)
        out = {}
        for exp in sorted({e for p in plats for e in p.experiments()}):
            loaded = [p.loaded(exp) for p in plats]
            if {platforms.schema.kind(f) for f, _ in loaded if f} == {platforms.schema.MCAST}:
                continue
            _, data, keycols, keys = platforms.perf_section(plats, loaded)
            for test in sorted({k[0] for k in keys}):
                job = platforms.plot_script(self.path(exp), exp, test, plats, data, keycols)
                if job:
                    out["%s-%s" % (exp, test)] = job
        return out

    def check(self, script):
        """no two series share colour and dash; one colour per variant; a
        padded x range and a right margin (else the last tick is clipped)"""
        text = "\n".join(script)
        s = re.findall(r"lc rgb '(#[0-9a-fA-F]{6})' dt (\d+) pt \d+ title '[^:']*: ([^']*)'", text)
        bad = []
        if len({(c, d) for c, d, _ in s}) != len(s):
            bad.append("two series share colour and dash")
        if len({c for c, _, _ in s}) != len({lab for _, _, lab in s}):
            bad.append("colours are not one per variant")
        if "set xrange [" not in text or "set rmargin" not in text:
            bad.append("no padded x range or right margin")
        return bad

    def test_committed_scripts(self):
        dirs = committed() or [FULL, NOEXT]
        jobs = self.scripts(dirs)
        self.assertTrue(jobs)
        for name, (data, script, n) in jobs.items():
            self.assertEqual(self.check(script), [], name)
            self.assertEqual(data.count("# "), n)

    def test_checker_rejects_shared_colours(self):
        name, (_, script, _) = next(iter(self.scripts([FULL, NOEXT]).items()))
        doctored = [re.sub(r"lc rgb '#[0-9a-f]*' dt 2", "lc rgb '#1f77b4' dt 1", x) for x in script]
        self.assertIn("two series share colour and dash", self.check(doctored), name)

    def test_gap_on_x(self):
        # one payload, gap_us varies: x is the gap, linear
        d = self.path("sparse")
        os.makedirs(d)
        rows = ["test,jam,mode,payload_bytes,frame_bytes,p50_us,gap_us,point"]
        for i, g in enumerate((0, 20, 200)):
            rows += ["jam_lat,indirect_put,local,64,128,%g,%d,%d" % (0.3 + g / 100.0, g, i),
                     "put_lat,,raw,64,128,0.2,%d,%d" % (g, i)]
        with open(os.path.join(d, "sparse.csv"), "w") as f:
            f.write("\n".join(rows) + "\n")
        (data, script, n), = self.scripts([d]).values()
        self.assertIn("set xlabel 'gap_us'", script)
        self.assertIn("unset logscale x", script)
        self.assertEqual(n, 1)

    def test_drawn(self):
        gp = shutil.which("gnuplot")
        if not gp:
            self.skipTest("gnuplot missing (scripts/deps.sh installs gnuplot-nox)")
        rc, out, err = self.run_main(platforms.main, [FULL, NOEXT, "-o", self.tmp, "--emit-gp",
                                                      "--experiment", "fig09-10-placement"])
        self.assertEqual(rc, 0, err)
        for ext in ("png", "svg", "png.gp", "svg.gp"):
            self.assertGreater(os.path.getsize(self.path("fig09-10-placement-jam_lat." + ext)), 0)
        self.assertFalse(glob.glob(self.path("*.dat")))
        with open(self.path("compare.md")) as f:
            self.assertIn("Plots: `fig09-10-placement-jam_lat.png`", f.read())
