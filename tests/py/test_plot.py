"""tcresults.plot (tc-plot) with gnuplot stubbed: what the figures promise,
checked in the data and settings they are drawn from (plots/<platform>/data/
*.dat and *.set): a point of several rounds at the median over its rounds
with the 95% interval as bars, a vs transform per round, keys that say what
the bars span, distinct colours, percentile axes bounded by the samples,
wrapped y labels. tests/test_plot.sh draws the committed results with the
real gnuplot."""
import argparse
import csv
import glob
import os
import re
import shutil

from helpers import DATA, RESULTS, Case

from tcresults import paths
from tcresults import plot
from tcresults.plot import dist, figure, panel, spec

ROUNDS = os.path.join(DATA, "plot-rounds")


class Drawn(Case):
    """plot_platform into the scratch folder, gnuplot stubbed: its calls kept"""

    def setUp(self):
        super().setUp()
        self.calls = []

        def fake(template, variables, outbase, formats, log):
            self.calls.append((template, variables, outbase))
            return True
        for mod in (figure, dist):
            orig = mod.gnuplot
            mod.gnuplot = fake
            self.addCleanup(setattr, mod, "gnuplot", orig)

    def draw(self, results, pid_, experiments=()):
        opts = argparse.Namespace(results=results, plots=self.path("plots"), experiments=list(experiments))
        return plot.plot_platform(pid_, opts, plot.experiment_defs(paths.EXP_DIR), ["svg"])

    def blocks(self, rel):
        out, cur = {}, None
        with open(self.path("plots", rel)) as f:
            for line in f:
                if line.startswith("# "):
                    cur = out.setdefault(line[2:].strip(), {})
                elif line.strip():
                    v = [float(x) for x in line.split()]
                    cur[v[0]] = tuple(v[1:])
        return out

    def settings(self, rel):
        with open(self.path("plots", rel)) as f:
            return f.read()


class Rounds(Drawn):
    """tests/data/plot-rounds: point 0 in 3 rounds (rows in round order 2, 3,
    1); round1: the same round 1 without the round column. p50 (us) by round:
    local 4 B 1.0 1.2 2.0, injected 4 B 1.3 1.8 2.4, put 4 B 0.5 0.4 0.7,
    local 64 B 3.0 3.3 3.6, injected 64 B 3.3 3.3 3.6. By hand, t(0.975, 2) =
    4.303 on the logs (of 1 + overhead/100 for the overhead)."""

    def setUp(self):
        super().setUp()
        self.draw(ROUNDS, "rounds3", ["fig07", "fig11"])
        self.draw(ROUNDS, "round1", ["fig07", "fig11"])

    def assertPoints(self, rel, want):
        got = self.blocks(rel)
        for title, pts in want.items():
            for x, exp in pts.items():
                g = got.get(title, {}).get(x)
                self.assertIsNotNone(g, "%s: %s at %g" % (rel, title, x))
                for a, b in zip(g, exp):
                    self.assertAlmostEqual(a, b, delta=1e-5 * max(1, abs(b)), msg="%s: %s at %g" % (rel, title, x))

    def test_median_and_interval_over_rounds(self):
        self.assertPoints("rounds3/data/fig07-injected-latency-1.dat", {
            "Local Function": {4: (1.2, 0.548355, 3.268983), 64: (3.3, 2.623748, 4.127651)},
            "Injected Function": {4: (1.8, 0.829565, 3.808620)},
            "raw put (reference)": {4: (0.5, 0.257884, 1.045507)}})

    def test_vs_divides_each_round_by_its_own(self):
        # injected vs local 4 B, per round: 30, 50, 20 % -> median 30 (paired
        # wrongly: a ratio of the medians gives 50, every round against round
        # 1's local 30, 80, 140 -> 80)
        self.assertPoints("rounds3/data/fig07-injected-latency-2.dat", {
            "latency overhead": {4: (30, 0.253991, 75.809458), 64: (0, -9.961831, 18.350057)}})

    def test_one_round_as_the_row_is(self):
        self.assertPoints("round1/data/fig07-injected-latency-1.dat", {
            "Local Function": {4: (1.0, 0.9, 1.5), 64: (3.0, 2.9, 3.5)}, "raw put (reference)": {4: (0.5, 0.4, 1.0)}})
        self.assertPoints("round1/data/fig07-injected-latency-2.dat", {
            "latency overhead": {4: (30, 30, 30), 64: (10, 10, 10)}})

    def test_keys_say_what_the_bars_are(self):
        rkey = 'set key title "median of 3 rounds\\nbars: 95% interval over rounds"'
        for rel, key, barred in (("rounds3/data/fig07-injected-latency-1.set", rkey, 1),
                                 ("rounds3/data/fig07-injected-latency-2.set", rkey, 1),
                                 ("round1/data/fig07-injected-latency-1.set", 'set key title "bars: min..p99"', 1),
                                 ("round1/data/fig07-injected-latency-2.set", None, 0)):
            text = self.settings(rel)
            if key:
                self.assertIn(key, text.splitlines(), rel)
            else:
                self.assertNotIn("rounds", text, rel)
            self.assertRegex(text, r"(?m)^bars = %d$" % barred)

    def test_distribution_round_one(self):
        # round 1's percentiles (round 2's are twice as long), said in the title
        self.assertPoints("rounds3/data/fig11-12-dist-p0-indirect_put-1.dat", {
            "default jam_lat": {2: (0.2,) * 3, 10: (0.3,) * 3, 1000: (1.0,) * 3}})
        titles = {os.path.relpath(c[2], self.path("plots")): c[1]["figtitle"] for c in self.calls if c[0] == "dist.gp"}
        self.assertIn("round 1 of 3", titles["rounds3/fig11-12-dist-p0-indirect_put"])
        self.assertNotIn("round 1 of", titles["round1/fig11-12-dist-p0-indirect_put"])


def problems(plots, results):
    """what is wrong in the .set files tc-plot wrote (tests/test_plot.sh's checker)"""
    bad, nbars, ndist = [], 0, 0
    for setf in sorted(glob.glob(os.path.join(plots, "*", "data", "*.set"))):
        with open(setf) as f:
            text = f.read()
        name = os.path.relpath(setf, plots)
        cols = re.findall(r'^set style line \d+ lc rgb "(#[0-9a-fA-F]{6})" dt (\d+)', text, re.M)
        if len(cols) != len(set(cols)):
            bad.append("%s: two series share a colour and a dash: %s" % (name, cols))
        refs = [c for c, dt in cols if dt != "1"]
        if len(refs) != len(set(refs)):
            bad.append("%s: two references (dashed) share a colour: %s" % (name, refs))
        nblocks = int(re.search(r"^nblocks = (\d+)", text, re.M).group(1))
        if len(cols) != nblocks:
            bad.append("%s: %d series, %d colours" % (name, nblocks, len(cols)))
        xr = re.search(r"^set xrange \[([-0-9.e+]+):([-0-9.e+]+)\]", text, re.M)
        if nblocks and not xr:
            bad.append("%s: no x range (a point may sit on the border)" % name)
        if nblocks and xr:
            lo, hi = float(xr.group(1)), float(xr.group(2))
            with open(setf[:-4] + ".dat") as f:
                xs = [float(line.split()[0]) for line in f if line[:1] not in "#\n"]
            # a distribution's x runs from p = 0 (x = 1) to its sample count
            if any(not lo < x < hi for x in xs) and not (lo == 1 and all(lo <= x <= hi for x in xs)):
                bad.append("%s: a point on or past the x range [%g:%g]" % (name, lo, hi))
        yr = re.search(r"^set yrange \[([-0-9.e+]+):([-0-9.e+]+)\]", text, re.M)
        if nblocks and not yr:
            bad.append("%s: no y range (a point may sit on the border)" % name)
        if nblocks and yr:
            lo, hi = float(yr.group(1)), float(yr.group(2))
            with open(setf[:-4] + ".dat") as f:
                ys = [float(line.split()[1]) for line in f if line[:1] not in "#\n"]
            if any(not lo < y < hi for y in ys):
                bad.append("%s: a point on or past the y range [%g:%g]" % (name, lo, hi))
        if re.search(r"^bars = 1", text, re.M) and nblocks:
            nbars += 1
            if not re.search(r'^set key title "(bars: [a-z0-9]+\.\.[a-z0-9]+|median of [0-9.]+ rounds\\nbars: '
                             r'95% interval over rounds)(\\n[^"]*)?"', text, re.M):
                bad.append("%s: error bars, but the key does not say what they span" % name)
        yl = re.search(r'^ylabel = "(.*)"', text, re.M).group(1)
        for line in yl.split("\\n"):
            if len(line) > 42:
                bad.append("%s: y label line of %d characters (clipped): %s" % (name, len(line), line))
        m = re.match(r"(.*)-dist-p(\d+)-.*-\d+\.set$", os.path.basename(setf))
        if m and nblocks:
            ndist += 1
            pid, point = setf.split(os.sep)[-3], m.group(2)
            n = max(float(r["iterations"]) for e in glob.glob(os.path.join(results, pid, "*.dist.csv"))
                    for r in csv.DictReader(open(e[:-9] + ".csv")) if r.get("point") == point and r.get("iterations"))
            xr = re.search(r"^set xrange \[1:([0-9.e+]+)\]", text, re.M)
            if not xr or float(xr.group(1)) > n * 1.000001:
                bad.append("%s: percentile axis %s past the sample count %g" % (name, xr and xr.group(1), n))
            ticks = [float(v) for v in re.findall(r'"[0-9.]+" ([0-9.e+]+)', re.search(r"^set xtics .*", text,
                                                                                        re.M).group(0))]
            if not ticks or max(ticks) > n * 1.000001:
                bad.append("%s: a percentile tick past the sample count %g: %s" % (name, n, ticks))
            with open(setf[:-4] + ".dat") as f:
                for line in f:
                    if line[:1] not in "#\n" and float(line.split()[0]) > n * 1.000001:
                        bad.append("%s: a point at x = %s past the sample count %g" % (name, line.split()[0], n))
                        break
    return bad, nbars, ndist


class CommittedDrawn(Case):
    """every committed platform folder drawn once for the module (gnuplot
    stubbed, its calls kept), removed at exit"""
    DRAWN = None

    @classmethod
    def setUpClass(cls):
        if CommittedDrawn.DRAWN is None:
            import atexit
            import tempfile
            plots = tempfile.mkdtemp(prefix="tcpy-plots-")
            atexit.register(shutil.rmtree, plots, True)
            pids = plot.drawable(RESULTS, plot.experiment_defs(paths.EXP_DIR))
            calls = {}

            def fake(template, variables, outbase, formats, log):
                calls[os.path.relpath(outbase, plots)] = variables
                return True
            saved = figure.gnuplot, dist.gnuplot
            figure.gnuplot = dist.gnuplot = fake
            try:
                opts = argparse.Namespace(results=RESULTS, plots=plots, experiments=[])
                drawn = {p: plot.plot_platform(p, opts, plot.experiment_defs(paths.EXP_DIR), ["svg"]) for p in pids}
            finally:
                figure.gnuplot, dist.gnuplot = saved
            CommittedDrawn.DRAWN = (plots, pids, calls, drawn)
        cls.plots, cls.pids, cls.calls, cls.drawn = CommittedDrawn.DRAWN

    def setUp(self):
        super().setUp()
        if not self.pids:
            self.skipTest("no committed results with a meta.json")


class Committed(CommittedDrawn):
    """the promises hold in every figure of the committed results"""

    def test_every_platform_drawn(self):
        for pid_, (made, log) in self.drawn.items():
            self.assertTrue(made, pid_)
            self.assertEqual(log, [])

    def test_promises(self):
        bad, nbars, ndist = problems(self.plots, RESULTS)
        self.assertEqual(bad, [])
        self.assertGreater(nbars, 0, "no panel with error bars at all")
        self.assertGreater(ndist, 0, "no distribution panel at all")

    def test_checker_rejects(self):
        """a shared colour, a bar panel without its key title, a percentile
        axis past the samples, an unwrapped label, a point on the border:
        each one is found"""
        p1 = self.pids[0]
        for pattern, glob_, repl in (
                (r"two solid series", "fig07-injected-latency-1.set", None),
                (r"^set key title.*\n", "fig07-injected-latency-1.set", ""),
                (r"^set xrange \[1:.*\]", "fig11-12-dist-p0-*-1.set", "set xrange [1:1e6]"),
                (r"^ylabel = .*", "fig13-14-wait-sparse-2.set",
                 'ylabel = "server CPU time per message (ns, thread-cputime: no PMU) and more"'),
                (r"^set xrange \[.*\]", "fig07-injected-latency-1.set", "set xrange [4:32768]"),
                (r"^set yrange \[.*\]", "fig07-injected-latency-1.set", "set yrange [0.2:10]")):
            doc = self.path("doc")
            shutil.rmtree(doc, True)
            shutil.copytree(self.plots, doc)
            f = sorted(glob.glob(os.path.join(doc, p1, "data", glob_)))[0]
            with open(f) as fh:
                text = fh.read()
            if repl is None:    # the first measured series' colour on the second (both solid)
                solid = re.findall(r'^set style line (\d+) lc rgb ("#[0-9a-f]*") dt 1', text, re.M)
                text = re.sub(r'^(set style line %s lc rgb )"#[0-9a-f]*"' % solid[1][0], r"\g<1>" + solid[0][1],
                              text, count=1, flags=re.M)
            else:
                text = re.sub(pattern, repl, text, count=1, flags=re.M)
            with open(f, "w") as fh:
                fh.write(text)
            self.assertTrue(problems(doc, RESULTS)[0], "checker accepted %s on %s" % (pattern, f))


class Figures(CommittedDrawn):
    """the figures the issue found wrong, drawn from the committed results
    (gnuplot stubbed): each defect checked where a reader saw it"""
    PID = "x86_64-intel-xeon-2c-91afb010"

    def setUp(self):
        super().setUp()
        if self.PID not in self.pids:
            self.skipTest("results/%s is not committed here" % self.PID)

    def settings_of(self, name):
        with open(os.path.join(self.plots, self.PID, "data", name)) as f:
            return f.read()

    def blocks_of(self, name):
        out, cur = {}, None
        with open(os.path.join(self.plots, self.PID, "data", name)) as f:
            for line in f:
                if line.startswith("# "):
                    cur = out.setdefault(line[2:].strip(), [])
                elif line.strip():
                    cur.append([float(x) for x in line.split()])
        return out

    def test_fig13_spinning_waits_have_their_own_range(self):
        """fig13's middle panel: pause (claim 4a: +1.5% at most) against poll
        on a range its medians set; event (+17,000%) in a panel of its own.
        Before, one panel held both: its y range ran to +30,000% and pause
        was a flat line at 0."""
        text = self.settings_of("fig13-wait-indirect_put-2.set")
        self.assertIn('array titles[2] = ["pause", "adaptive"]', text)
        lo, hi = [float(v) for v in re.search(r"^set yrange \[(.*):(.*)\]", text, re.M).groups()]
        self.assertTrue(-50 < lo < 0 and 1.5 < hi < 50, (lo, hi))
        self.assertIn('array reftitles[1] = ["paper: WFE +1.5% at most (claim 4a)"]', text)
        self.assertIn("longer bars clipped", text)
        pause = self.blocks_of("fig13-wait-indirect_put-2.dat")["pause"]
        self.assertAlmostEqual(pause[0][1], 1.6, delta=0.1)     # claims.md 4ap1: +1.6% at 64 B
        self.assertTrue(all(lo < p[1] < hi for p in pause))
        event = self.settings_of("fig13-wait-indirect_put-3.set")
        self.assertIn('array titles[1] = ["event"]', event)
        self.assertRegex(event, r"(?m)^logy = 10$")
        self.assertGreater(self.blocks_of("fig13-wait-indirect_put-3.dat")["event"][0][1], 100)

    def test_fig11_loaded_series_beside_the_sweep(self):
        """fig11: a series measured at one payload (stress-ng vm: 2 KiB only
        in the quick preset) is no lone dot among the payload sweep's lines:
        the sweep's column leaves it out, the right column sets no load
        against vm at that payload, one category per placement"""
        for k in (1, 3, 5):
            blocks = self.blocks_of("fig11-load-indirect_put-%d.dat" % k)
            self.assertTrue(blocks)
            self.assertTrue(all(len({p[0] for p in pts}) >= 2 for pts in blocks.values()), k)
            self.assertFalse([t for t in blocks if t.startswith("vm")], k)
        for k in (2, 4, 6):
            text = self.settings_of("fig11-load-indirect_put-%d.set" % k)
            self.assertIn('set xtics ("default" 1, "llc" 2, "dram" 3)', text)
            self.assertIn("lines = 0", text)
            blocks = self.blocks_of("fig11-load-indirect_put-%d.dat" % k)
            self.assertIn("vm", blocks)
            self.assertIn("no load", blocks)
            # side by side about each category, not on top of each other
            near = [p[0] for pts in blocks.values() for p in pts if round(p[0]) == 1]
            self.assertEqual(len(near), len(set(near)))
            self.assertTrue(all(0.5 < x < 1.5 for x in near))

    def test_mcast_deterministic_panels_and_ticks(self):
        """mcast-scaling: the simulation and the tree depth are the same in
        every round: no interval key on them (before: '95% interval over
        rounds' on all three); the log x axis ticks the measured N (before:
        only 1 and 10)"""
        measured = self.settings_of("mcast-scaling-1.set")
        self.assertIn("bars: 95% interval over rounds", measured)
        self.assertIn('set xtics ("2" 2, "4" 4, "8" 8)', measured)
        for k in (2, 3):
            text = self.settings_of("mcast-scaling-%d.set" % k)
            self.assertRegex(text, r"(?m)^bars = 0$")
            self.assertNotIn("interval over rounds", text)
            self.assertIn("deterministic: the same\\nin all 5 rounds", text)
            self.assertIn('set xtics ("1k" 1000, "10k" 10000, "100k" 100000, "1M" 1000000)', text)

    def test_dist_title_fits_and_references_apart(self):
        """fig11-12-dist-p3 (the one README shows): its title fits the
        figure (before: 110 characters on 700 pixels, clipped at both ends);
        each raw put is dashed in the colour of its placement's jam (before:
        red, orange and dark red dashes, alike)"""
        v = self.calls[os.path.join(self.PID, "fig11-12-dist-p3-indirect_put-vm")]
        for line in v["figtitle"].split("\n"):
            self.assertLessEqual(len(line) * 8, v["width"], line)
        self.assertIn("round 1 of 5", v["figtitle"])
        text = self.settings_of("fig11-12-dist-p3-indirect_put-vm-1.set")
        titles = re.search(r"^array titles\[\d+\] = \[(.*)\]", text, re.M).group(1)
        titles = titles.replace('"', "").replace("\\\\_", "_").split(", ")
        styles = re.findall(r'^set style line \d+ lc rgb "(#[0-9a-f]{6})" dt (\d)', text, re.M)
        colour = dict(zip(titles, styles))
        for placement in ("default", "llc", "dram"):
            self.assertEqual(colour[placement + " put_lat"], (colour[placement + " jam_lat"][0], "2"))
        self.assertEqual(len({colour[p + " put_lat"][0] for p in ("default", "llc", "dram")}), 3)

    def test_ticks_at_the_payloads(self):
        text = self.settings_of("fig07-injected-latency-1.set")
        self.assertIn('set xtics ("4 B" 4, "64 B" 64, "256 B" 256, "1 KiB" 1024, "4 KiB" 4096, "32 KiB" 32768)',
                      text)
        lo, hi = [float(v) for v in re.search(r"^set xrange \[(.*):(.*)\]", text, re.M).groups()]
        self.assertTrue(lo < 4 and hi > 32768)


class Choice(Drawn):
    def opts(self, **kw):
        d = dict(results=RESULTS, platform_id=None, all=False)
        d.update(kw)
        return argparse.Namespace(**d)

    def test_every_platform_when_this_host_has_none(self):
        os.environ["TC_PLATFORM_ID"] = "no-such-platform"
        self.addCleanup(os.environ.pop, "TC_PLATFORM_ID")
        rc, _, err = self.run_main(lambda a: plot.platforms(self.opts(), ["a", "b"]), [])
        self.assertEqual(rc, ["a", "b"])
        self.assertRegex(err, r"this host is no-such-platform .*no meta.json.*drawing every platform")
        rc, _, err = self.run_main(lambda a: plot.platforms(self.opts(), []), [])
        self.assertEqual(rc, 1)
        self.assertIn("no other platform's results", err)

    def test_all_and_named(self):
        rc, _, err = self.run_main(lambda a: plot.platforms(self.opts(all=True), []), [])
        self.assertEqual(rc, 1)
        self.assertIn("no platform folder", err)
        rc, _, err = self.run_main(lambda a: plot.platforms(self.opts(platform_id="nope"), ["x"]), [])
        self.assertEqual(rc, 1)
        self.assertIn("no %s/nope/meta.json: run scripts/tc-experiments first (present: x)"
                      % os.path.relpath(RESULTS), err)
        self.assertEqual(plot.platforms(self.opts(results=ROUNDS, platform_id="round1"), []), ["round1"])

    def test_drawable(self):
        defs = plot.experiment_defs(paths.EXP_DIR)
        self.assertEqual(plot.drawable(ROUNDS, defs), ["round1", "rounds3"])
        self.assertEqual(plot.drawable(self.path("none"), defs), [])

    def test_missing_experiment_said(self):
        os.makedirs(self.path("res", "p"))
        shutil.copy(os.path.join(ROUNDS, "round1", "meta.json"), self.path("res", "p"))
        (made, log), _, err = self.run_main(lambda a: self.draw(self.path("res"), "p", ["fig07"]), [])
        self.assertEqual(made, [])
        self.assertIn("fig07-08-injected: no results", err)


class Spec(Case):
    def test_titles(self):
        row = {"stress": "", "placement": "llc", "axis:stash": "on", "wait": "pause"}
        self.assertEqual(spec.fmt_title("{stress|no load} {placement}{axis:stash?, stash }", row), "no load llc, stash on")
        self.assertEqual(spec.fmt_title("{wait} {absent}", row), "pause")
        self.assertEqual(spec.fmt_title("{stress?under }x", {"stress": "vm"}), "under vmx")

    def test_match(self):
        self.assertTrue(spec.match({"a": "1", "b": "x"}, {"a": 1, "b": ["x", "y"]}))
        self.assertFalse(spec.match({"a": "1"}, {"a": ["2"]}))
        self.assertTrue(spec.match({"a": "1"}, None))

    def test_series(self):
        rows = [{"test": "jam_lat", "wait": w} for w in ("poll", "pause", "poll")]
        s = spec.series_of(rows, {"where": {"test": "jam_lat"}, "split": ["wait"], "title": "{wait}",
                                  "color_key": "w {wait}"})
        self.assertEqual([(t, ref, len(g), ck) for t, ref, g, ck in s],
                         [("poll", False, 2, "w poll"), ("pause", False, 1, "w pause")])


class Panels(Case):
    def test_y_fallback(self):
        rs = {"y": "cycles", "y_fallback": "cpu_ns_per_msg", "ylabel_fallback": "cpu ns ({cycles_source})",
              "series": []}
        self.assertEqual(figure.y_column([{"cycles": "", "cycles_source": "thread-cputime"}], rs),
                         ("cpu_ns_per_msg", "cpu ns (thread-cputime)"))
        self.assertEqual(figure.y_column([{"cycles": "5"}], rs), ("cycles", "cycles"))

    def test_labels_and_margins(self):
        self.assertEqual(panel.bars_title(["min_us", "p99_us"]), "bars: min..p99")
        self.assertEqual(panel.wrap_label("short", 38), "short")
        w = panel.wrap_label("server CPU time per message (ns, thread-cputime: no PMU)", 38)
        self.assertEqual(w.split("\n")[0], "server CPU time per message")
        self.assertTrue(all(len(x) <= 38 for x in w.split("\n")))
        self.assertEqual(panel.key_margin([]), 14)
        # an entry takes its characters, the sample and gaps at the terminal's font (fig09's
        # "floor (stores, every line read)" covered the plot at 0.8 a character)
        self.assertEqual(panel.key_margin(["a" * 20, "b\n" + "c" * 31]), 38)
        self.assertEqual(panel.key_margin(["a"], ["median of 5 rounds\nbars: 95% interval over rounds"]), 29)

    def test_colours_distinct_per_panel(self):
        cm = {}
        blocks = [("a", False, [(1, 2, 2, 2)], "same"), ("b", False, [(1, 3, 3, 3)], "same"),
                  ("put", True, [(1, 1, 1, 1)])]
        d = self.path("p")
        panel.write_panel(d, 1, "t", "y", 10, blocks, "bars: min..max", cm)
        with open(d + "-1.set") as f:
            text = f.read()
        cols = re.findall(r'lc rgb "(#[0-9a-f]{6})" dt (\d)', text)
        self.assertEqual(len({c for c, _ in cols}), 3)
        self.assertEqual([dt for _, dt in cols], ["1", "1", "2"])      # the reference dashed
        # a reference with the colour key of its series: that colour, dashed
        panel.write_panel(d, 2, "t", "y", 10, [("jam", False, [(1, 2, 2, 2)], "llc"),
                                                ("put", True, [(1, 1, 1, 1)], "llc"),
                                                ("put2", True, [(1, 1, 1, 1)], "llc")], None, {})
        with open(d + "-2.set") as f:
            cols = re.findall(r'lc rgb "(#[0-9a-f]{6})" dt (\d)', f.read())
        self.assertEqual(cols[0][0], cols[1][0])
        self.assertNotEqual(cols[1][0], cols[2][0])   # two references alike: two colours
        self.assertIn('set key title "bars: min..max"', text)
        with open(d + "-1.dat") as f:
            self.assertEqual(f.read().count("# "), 3)


class Axes(Case):
    """the x axis, the y range, the title and the layout a panel is written with"""

    def test_x_axis(self):
        blocks = [("a", False, [(64, 1, 1, 1), (32768, 2, 2, 2)]), ("b", False, [(2048, 1, 1, 1)])]
        lines = panel.x_axis({"x": "payload_bytes", "xlabel": "payload (bytes)", "logx": 2}, blocks)
        self.assertIn('set xtics ("64 B" 64, "2 KiB" 2048, "32 KiB" 32768)', lines)
        self.assertIn("plogx = 2", lines)
        lo, hi = [float(v) for v in re.search(r"\[(.*):(.*)\]", [x for x in lines if "xrange" in x][0]).groups()]
        self.assertTrue(lo < 64 and hi > 32768)
        lines = panel.x_axis({"x": "gap_us", "labels": {1: "0", 2: "20"}, "points": True}, blocks)
        self.assertEqual(lines[1:], ["lines = 0", "plogx = 0", "set xrange [0.5:2.5]", 'set xtics ("0" 1, "20" 2)'])
        many = [("a", False, [(x, 1, 1, 1) for x in range(20)])]
        self.assertFalse([x for x in panel.x_axis({"x": "n"}, many) if x.startswith("set xtics")])
        self.assertEqual([panel.x_tick_label("n", v) for v in (8, 1000, 250000, 2000000, 1.5)],
                         ["8", "1k", "250k", "2M", "1.5"])

    def test_y_from_medians(self):
        # event's +17,000% and a round's -27..+93% bar do not set the range: the medians and the bound do
        blocks = [("pause", False, [(64, 1.6, -27, 93), (512, 7.1, -10, 20)])]
        lo, hi = panel.y_from_medians(blocks, [{"y": 1.5, "title": "paper"}])
        self.assertTrue(-1 < lo < 1.5 and 7.1 < hi < 9, (lo, hi))
        self.assertIsNone(panel.y_from_medians([]))
        self.assertEqual(panel.ref_lines([]), [])
        self.assertEqual(panel.ref_lines([{"y": 1.5, "title": "a_b"}]),
                         ["nrefs = 1", "array refy[1] = [1.5]", 'array reftitles[1] = ["a\\\\_b"]'])
        self.assertEqual(panel.y_format([("a", False, [(1, 2e5, 1, 3e5)])], 10), ["pyfmt = '10^{%T}'"])
        self.assertEqual(panel.y_format([("a", False, [(1, 2e3, 1, 3e3)])], 10), [])
        self.assertEqual(panel.y_format([("a", False, [(1, 2e5, 1, 3e5)])], 0), [])

    def test_y_axis(self):
        """a log axis from a 1-2-5 value below the lowest point to one above
        the highest: the pair's raw put at 10.0 us sat on the border of
        gnuplot's 10..100"""
        self.assertEqual(panel.y_axis([("p", True, [(1, 10.0, 10.0, 10.0), (2, 15.0, 14.0, 16.0)])], 10),
                         ["set yrange [5:20]", 'set ytics ("5" 5, "10" 10, "20" 20)'])
        wide = panel.y_axis([("p", False, [(1, 0.2, 0.1, 0.3), (2, 2e5, 1e5, 3e5)])], 10)
        self.assertEqual(wide, ["set yrange [0.05:500000]"])   # decades: gnuplot's own ticks
        self.assertEqual(panel.y_axis([("p", False, [(1, -5.0, -6.0, 4.0)])], 0), ["set yrange [-6.6:4.6]"])
        self.assertEqual(panel.y_axis([], 10), [])
        self.assertEqual([panel.nice(v, True) for v in (0.7, 1, 3, 60)], [1, 1, 5, 100])
        self.assertEqual([panel.nice(v, False) for v in (0.7, 1, 3, 60)], [0.5, 1, 2, 50])

    def test_fit_title(self):
        t = "Figs. 11-12: latency distribution, point 3 (jam=indirect_put, stress=vm, stash=none), round 1 of 5"
        lines = panel.fit_title(t, 700).split("\n")
        self.assertGreater(len(lines), 1)
        self.assertTrue(all(len(x) * 8 <= 700 for x in lines))
        self.assertEqual(" ".join(lines), t)
        self.assertEqual(panel.fit_title("short", 700), "short")

    def test_x_spec(self):
        rows = [{"placement": p, "gap_us": g} for p, g in (("llc", "200"), ("default", "0"), ("dram", "20"))]
        xs = figure.XSpec({"x": "placement", "x_order": ["default", "llc", "dram", "other"]}, rows)
        self.assertEqual([xs.value(r) for r in rows], [2, 1, 3])
        self.assertEqual(xs.spec["labels"], {1: "default", 2: "llc", 3: "dram"})   # no row of "other": no category
        xs = figure.XSpec({"x": "gap_us", "xscale": "ordinal"}, rows)
        self.assertEqual([xs.value(r) for r in rows], [3, 1, 2])
        self.assertIsNone(xs.value({"gap_us": "5"}))
        self.assertEqual(figure.XSpec({"x": "gap_us"}, rows).value(rows[0]), 200)

    def test_dodge_and_spread(self):
        blocks = [("a", False, [(2, 1, 1, 1)]), ("b", False, [(2, 1, 1, 1)]), ("c", True, [(2, 1, 1, 1)], "k")]
        xs = [b[2][0][0] for b in figure.dodged(blocks)]
        self.assertAlmostEqual(xs[1], 2)
        self.assertAlmostEqual(xs[0] - 2, 2 - xs[2])
        self.assertEqual(figure.dodged(blocks)[2][3], "k")
        lx = [b[2][0][0] for b in figure.dodged(blocks, 2)]
        self.assertAlmostEqual(lx[0] * lx[2], 4)    # about the measured x, by a factor
        self.assertFalse(figure.spread([("a", False, [(1, 5.0, 5.0, 5.0 + 1e-12)])]))
        self.assertTrue(figure.spread([("a", False, [(1, 5.0, 4.0, 6.0)])]))

    def test_columns_of(self):
        pl = {"x": "payload_bytes", "logx": 2, "rows": [{"y": "p50_us", "series": [{"title": "s"}]}],
              "columns": [{"title": "sweep", "min_points": 2},
                          {"title": "cut", "x": "placement", "x_order": ["default"], "logx": 0,
                           "filter": {"payload_bytes": "2048"}, "rows": [{"ylabel": "other"}]}]}
        base = [{"payload_bytes": "64", "placement": "default"}, {"payload_bytes": "2048", "placement": "default"}]
        cols = figure.columns_of(pl, base)
        self.assertEqual([c[0] for c in cols], ["sweep", "cut"])
        self.assertEqual(cols[0][1].col, "payload_bytes")
        self.assertEqual(cols[0][1].spec["min_points"], 2)
        self.assertEqual(cols[1][1].col, "placement")
        self.assertEqual(len(cols[1][2]), 1)
        self.assertEqual(cols[1][3][0]["ylabel"], "other")
        self.assertEqual(cols[1][3][0]["y"], "p50_us")
        pl2 = {"x": "payload_bytes", "panels_by": "jam", "rows": []}
        self.assertEqual([c[0] for c in figure.columns_of(pl2, [{"jam": "a"}, {"jam": "b"}, {"jam": ""}])],
                         ["a", "b"])

    def test_min_points(self):
        rows = [{"test": "t", "stress": s, "payload_bytes": p, "p50_us": "1", "round": "1"}
                for s, p in (("none", "64"), ("none", "2048"), ("vm", "2048"))]
        rs = {"y": "p50_us", "series": [{"split": ["stress"], "title": "{stress}"}]}
        blocks, _, _, _ = figure.panel_data(rows, rs, "payload_bytes", rows, min_points=2)
        self.assertEqual([b[0] for b in blocks], ["none"])
        blocks, _, _, _ = figure.panel_data(rows, rs, "payload_bytes", rows)
        self.assertEqual([b[0] for b in blocks], ["none", "vm"])


class Dist(Case):
    def test_first_round(self):
        rows = [{"round": r} for r in ("2", "10", "1")]
        self.assertEqual(dist.first_round(rows), ([{"round": "1"}], ", round 1 of 3"))
        self.assertEqual(dist.first_round(rows[:1]), (rows[:1], ""))

    def test_points_stop_at_the_samples(self):
        grp = [{"percentile": p, "latency_us": "1.0"} for p in ("50", "99.9", "99.99", "100", "x")]
        xs = [x for x, _, _, _ in dist.series_points(grp, 1000)]
        self.assertEqual(len(xs), 2)
        self.assertAlmostEqual(xs[1], 1000.0, places=6)
        self.assertEqual(len(dist.series_points(grp, None)), 3)

    def test_axis_without_counts(self):
        (extra, ktitle), _, err = self.run_main(lambda a: dist.percentile_axis([("t", [], [None])], "n"), [])
        self.assertEqual(ktitle, "n unknown")
        self.assertIn("no sample count for some series", err)
        extra, ktitle = dist.percentile_axis([("t", [], [1000, 20000])], "n")
        self.assertEqual(ktitle, "n = 1000..20000 per series")
        self.assertEqual(extra[0], "set xrange [1:20000]")

    def test_sample_counts(self):
        em = {"point_axes": [{"point": 3, "args": ["-t", "jam_lat", "-n", "5000"]}]}
        counts, by_arg = dist.sample_counts([dict.fromkeys(dist.DIST_KEY, "a"), {"iterations": "7"}], em)
        self.assertEqual(by_arg, {"3": 5000.0})
        self.assertEqual(dist.samples_of({"point": 3}, counts, by_arg), 5000.0)


class Gnuplot(Case):
    def test_drawn(self):
        if not shutil.which("gnuplot"):
            self.skipTest("gnuplot missing (scripts/deps.sh installs gnuplot-nox)")
        rc, _, err = self.run_main(plot.main, ["--all", "--results", ROUNDS, "--plots", self.tmp, "--formats", "svg",
                                               "fig07"])
        self.assertEqual(rc, 0, err)
        self.assertIn("tc-plot: drawing every platform in", err)
        for pid_ in ("round1", "rounds3"):
            self.assertGreater(os.path.getsize(self.path(pid_, "fig07-injected-latency.svg")), 1000)
        # gnuplot's complaint is the figure's failure, said
        log = []
        self.assertFalse(panel.gnuplot("no-such.gp", {"data": "x"}, self.path("f"), ["svg"], log))
        self.assertIn("f.svg: ", log[0])
