"""tcresults.platforms (tc-platforms): platforms named by what they are,
one page per comparison (efficiency, jam / put, injected / local, what
differs between the hosts, each experiment), small-multiple figures with
the interval over rounds, their scripts checked without gnuplot."""
import glob
import json
import os
import re
import shutil

from helpers import DATA, RESULTS, Case, csv_text, edit_meta

from tcresults import platforms
from tcresults.platforms import label, multiples, page, report, values

FULL = os.path.join(DATA, "claims", "full")
NOEXT = os.path.join(DATA, "claims", "noext")
ROUNDS = os.path.join(DATA, "plot-rounds")
# the committed comparison (plots/compare/compare.md)
COMPARED = ["x86_64-intel-xeon-2c-91afb010", "x86_64-intel-xeon-2c-c8907d5e", "x86_64-amd-epyc-2c-7f13995f",
            "x86_64-amd-epyc-2c-33bbf912"]
NETWORK = {"ucx_version": "1.13.1", "ucx_transports": "tcp/eth0,tcp/lo,sysv/memory,posix/memory,cma/memory",
           "nic_eth0": "virtio_net, rate not reported, mtu 1400, up"}


def committed():
    """the committed platform folders with a meta.json and fig results"""
    return sorted(d for d in glob.glob(os.path.join(RESULTS, "*"))
                  if os.path.exists(os.path.join(d, "meta.json")) and glob.glob(os.path.join(d, "fig*.csv")))


def compared():
    dirs = [os.path.join(RESULTS, d) for d in COMPARED]
    return dirs if all(os.path.isdir(d) for d in dirs) else []


class Base(Case):
    def compare_md(self, *dirs, extra=()):
        rc, out, err = self.run_main(platforms.main, list(dirs) + ["-o", self.tmp, "--no-plots"] + list(extra))
        self.assertEqual(rc, 0, err)
        with open(self.path("compare.md")) as f:
            return f.read(), err

    def with_meta(self, src, name, edit):
        d = self.copy(src, name)
        with open(os.path.join(d, "meta.json")) as f:
            m = json.load(f)
        edit(m)
        with open(os.path.join(d, "meta.json"), "w") as f:
            json.dump(m, f)
        return d


class Labels(Base):
    """a platform by what it is: CPU, cores, hypervisor, date of the run"""

    def test_parts(self):
        self.assertEqual(label.hypervisor_name({"hypervisor": "KVMKVMKVM"}), "KVM")
        self.assertEqual(label.hypervisor_name({"hypervisor": "bhyve bhyve "}), "bhyve")
        self.assertEqual(label.hypervisor_name({"hypervisor": "Microsoft Hv"}), "Hyper-V")
        self.assertEqual(label.hypervisor_name({"hypervisor": "NewHV  x"}), "NewHV")
        self.assertEqual(label.hypervisor_name({"vendor": "GenuineIntel"}), "bare metal")
        self.assertIsNone(label.hypervisor_name({}))
        self.assertEqual(label.cpu_name({"model_name": "Intel(R) Xeon(R) Processor", "family": 6, "model": 207}),
                         "Intel Xeon 6/207")
        self.assertEqual(label.cpu_name({"model_name": "AMD EPYC 9R14 96-Core Processor"}), "AMD EPYC 9R14")
        self.assertEqual(label.cpu_name({"model_name": "Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz"}),
                         "Intel Core i7-8650U")
        self.assertIsNone(label.cpu_name({}))
        self.assertEqual(label.run_date({"date": "2026-12-02T05:23:19Z"}), "2026-12-02")
        self.assertEqual(label.run_date({"date": "fixture"}), "fixture")
        self.assertIsNone(label.run_date({}))

    def test_label(self):
        meta = {"date": "2026-12-02T05:23:19Z", "platform": {
            "cpu": {"vendor": "GenuineIntel", "model_name": "Intel(R) Xeon(R) Processor", "family": 6, "model": 207,
                    "hypervisor": "KVMKVMKVM"}, "topology": {"cores": 2}}}
        self.assertEqual(label.label(meta, "id"), "Intel Xeon 6/207, 2 cores, KVM, 2026-12-02")
        meta["pair"] = {"launcher": "mpirun"}
        self.assertEqual(label.label(meta, "id"), "host pair (mpirun): Intel Xeon 6/207, 2 cores, KVM, 2026-12-02")
        self.assertEqual(label.label({}, "some-id"), "some-id")
        self.assertEqual(label.unique(["a", "b", "a"], ["1", "2", "3"]), ["a (1)", "b", "a (3)"])

    def test_committed_labels(self):
        dirs = compared()
        if not dirs:
            self.skipTest("the committed comparison's folders are not all here")
        self.assertEqual([p.label for p in platforms.load_platforms(dirs)],
                         ["Intel Xeon 6/207, 2 cores, KVM, 2026-12-02", "Intel Xeon 6/167, 2 cores, KVM, 2026-12-03",
                          "AMD EPYC 26/2, 2 cores, bhyve, 2026-12-02", "AMD EPYC 26/2, 2 cores, KVM, 2026-12-04"])

    def test_host_state_column(self):
        """each platform's row says how busy its host was while the run measured"""
        busy = self.copy(FULL, "busy-run")
        edit_meta(busy, lambda m: m.update(host_state={"busy": True, "reasons": ["x"], "before": {"load": [75, 0, 0]},
                                                       "summary": {"others_frac": 0.74}}))
        md, _ = self.compare_md(busy, NOEXT)
        self.assertIn("| rounds | host while it ran |", md)
        rows = [ln for ln in md.splitlines() if ln.startswith("| fixture-arm, fixture | fixture-full |")]
        self.assertEqual(len(rows), 1, md[:2000])
        self.assertTrue(rows[0].endswith("| **busy** (load 75 before, others 74% during) |"), rows[0])
        self.assertTrue([ln for ln in md.splitlines() if ln.startswith("|") and ln.endswith("| not recorded |")])

    def test_labels_head_the_columns(self):
        """the tables and the figures' keys name platforms by their labels,
        the folder (hash id) only in the platforms' table"""
        md, _ = self.compare_md(os.path.join(ROUNDS, "rounds3"), os.path.join(ROUNDS, "round1"))
        # one label for both fixtures ("fixture CPU": the word CPU tells nothing apart): each gets its id
        a, b = "fixture, 2026-12-01 (plot-rounds3)", "fixture, 2026-12-01 (plot-round1)"
        self.assertIn("\n| %s | plot-rounds3 | fixture CPU |" % a, md)
        self.assertIn("| test | jam | payload_bytes | mode | %s | %s |\n" % (a, b), md)
        self.assertNotIn("| mode | plot-rounds3 |", md)
        self.assertIn("| folder | **differs** | plot-rounds3 | plot-round1 |", md)


class Tables(Base):
    def test_fixtures(self):
        md, _ = self.compare_md(FULL, NOEXT)
        self.assertIn("| fixture-arm, fixture | fixture-x86, fixture |\n", md)
        self.assertIn("\n### fig09-10-placement\n", md)
        # llc only on full: 0.8 us over put 0.5 us
        self.assertRegex(md, r"\n\| jam_lat \| indirect_put \| 64 \| llc \| 0.8 us \(1.60x put\).* \| - \|\n")
        self.assertRegex(md, r"\n\| jam_lat \| indirect_put \| 64 \| dram \| 1 us \(2.00x put\).* \| 1 us \(2.00x put\)")
        self.assertIn("cycles", md)
        self.assertIn("cpu-ns (thread-cputime)", md)
        # the fixture pair differs in arch, wfe, llc: in the differences and the full report
        diff = md[md.index("## What differs"):md.index("## Each experiment")]
        for row in ("arch", "wait wfe", "placement llc", "CPU model"):
            self.assertRegex(diff, r"\n\| %s \| " % row)
            self.assertRegex(md, r"\n\| %s \| \*\*differs\*\* \|" % row)
        self.assertNotIn("| placement dram |", diff)
        self.assertIn("\n| placement dram |  | yes | yes |", md)

    def test_each_round_against_its_own_put(self):
        # local 4 B: 2.0, 3.0, 2.857 -> 2.86x (a ratio to the median put, 1.2 / 0.5, would be 2.40x)
        md, _ = self.compare_md(os.path.join(ROUNDS, "rounds3"), os.path.join(ROUNDS, "round1"))
        for want in ("| rounds | **differs** | 3 | 1 (no round column) |",
                     "| jam_lat | indirect_put | 4 | local | 1.2 us (2.86x put) | 1 us (2.00x put) |",
                     "| jam_lat | indirect_put | 4 | injected | 1.8 us (3.43x put) | 1.3 us (2.60x put) |",
                     "Rounds per point: fixture, 2026-12-01 (plot-rounds3) 3, "
                     "fixture, 2026-12-01 (plot-round1) 1."):
            self.assertIn("\n" + want + "\n", md)

    def test_put_of_the_jams_own_signal(self):
        # two invocations (signals) in one file without a point column: each
        # jam over the put of its own signal (pooled, fenced read 2.00x put)
        md, _ = self.compare_md(os.path.join(DATA, "platforms", "signals"))
        self.assertIn("| jam_lat | indirect_put | 8 | fenced | 1.2 us (1.20x put) |", md)
        self.assertIn("| jam_lat | indirect_put | 8 | store | 0.3 us (1.50x put) |", md)

    def test_emulated_left_out(self):
        emu = self.with_meta(FULL, "emu", lambda m: m["platform"].update(emulated="qemu-user"))
        os.makedirs(self.path("o"))
        rc, _, err = self.run_main(platforms.main, [FULL, emu, "-o", self.path("o"), "--no-plots"])
        self.assertEqual(rc, 0)
        self.assertIn("%s left out: emulated: not for timing" % emu, err)
        with open(self.path("o", "compare.md")) as f:
            self.assertNotIn("fixture-arm, fixture (", f.read())
        rc, _, err = self.run_main(platforms.main, [emu, "-o", self.path("o")])
        self.assertEqual(rc, 2)
        self.assertIn("no platform left to compare", err)

    def test_same_platform_twice(self):
        md, _ = self.compare_md(FULL, self.copy(FULL, "again"))
        self.assertIn("| fixture-arm, fixture (fixture-full (%s)) | fixture-arm, fixture (fixture-full (%s)) |"
                      % (os.path.normpath(FULL), self.path("again")), md)

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
        self.assertIn("\n### mcast-scaling\n", md)
        self.assertNotIn("### fig07", md)
        self.assertNotIn("## Framework efficiency", md)
        self.assertIn("Not in: fixture-arm, fixture.", md)
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
        # the page leads with what compares the platforms, then what differs between them
        order = [md.index(h) for h in ("## The platforms", "## Framework efficiency", "## Jam / put",
                                       "## Injected / local", "## What differs", "## Each experiment",
                                       "## The platform reports in full")]
        self.assertEqual(order, sorted(order))


class Report(Base):
    def test_short(self):
        self.assertEqual(platforms.short("supported"), "yes")
        self.assertEqual(platforms.short("unsupported: no cldemote"), "no (no cldemote)")
        self.assertEqual(platforms.short("unsupported"), "no")
        self.assertEqual(platforms.short(None), "(not reported)")
        self.assertEqual(platforms.short(3), "3")

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

    def test_network_rows(self):
        self.assertEqual(platforms.network_rows({}), [])
        rows = dict(platforms.network_rows({"network": dict(NETWORK, nics="none (no /sys/class/net entry but lo)")}))
        self.assertEqual(rows["network: UCX version"], "1.13.1")
        self.assertEqual(rows["network: UCX transports"], "tcp/eth0, tcp/lo, sysv/memory, posix/memory, cma/memory")
        self.assertEqual(rows["network: NIC eth0"], "virtio_net, rate not reported, mtu 1400, up")
        self.assertIn("none", rows["network: NICs"])

    def test_network_differences(self):
        """the report's network group: a transport or NIC one host has and
        the other not is among the differences; rows alike are not"""
        a = self.with_meta(FULL, "a", lambda m: m["platform"].update(network=NETWORK))
        b = self.with_meta(FULL, "b", lambda m: m["platform"].update(network=dict(
            NETWORK, ucx_transports="rc_mlx5/mlx5_0:1,tcp/eth0", nic_ib0="mlx5_core, 200000 Mb/s, mtu 4092, up, "
                                                                          "rdma mlx5_0")))
        md, _ = self.compare_md(a, b)
        diff = md[md.index("## What differs"):md.index("## Each experiment")]
        self.assertIn("| network: UCX transports | tcp/eth0, tcp/lo, sysv/memory, posix/memory, cma/memory | "
                      "rc_mlx5/mlx5_0:1, tcp/eth0 |", diff)
        self.assertIn("| network: NIC ib0 | (not reported) | mlx5_core, 200000 Mb/s", diff)
        self.assertNotIn("network: UCX version", diff)
        self.assertNotIn("| folder |", diff)
        self.assertIn("| network: UCX version |  | 1.13.1 | 1.13.1 |", md)

    def test_nothing_differs(self):
        md, _ = self.compare_md(FULL, self.copy(FULL, "again"))
        self.assertIn("(nothing: the reports are alike)", md)

    def test_rounds_text(self):
        class P:
            def __init__(self, per, cols=("round",)):
                self.per, self.cols = per, cols

            def experiments(self):
                return list(self.per)

            def exp_meta(self, e):
                return {"rounds": self.per[e]}

            def loaded(self, e):
                return list(self.cols), []
        self.assertEqual(report.rounds_text(P({"a": 5, "b": 5, "c": 1})), "5 (c 1)")
        self.assertEqual(report.rounds_text(P({"a": 3})), "3")
        self.assertEqual(report.rounds_text(P({"a": 1}, cols=())), "1 (no round column)")
        self.assertEqual(report.rounds_text(P({})), "(no results)")


class Values(Base):
    def test_injected_over_local_per_round(self):
        # 4 B by round: 1.3/1.0, 1.8/1.2, 2.4/2.0 -> 1.3, 1.5, 1.2: median 1.3
        # (the ratio of the medians would be 1.8/1.2 = 1.5)
        p = platforms.Platform(os.path.join(ROUNDS, "rounds3"))
        got = values.injected_vs_local(p.loaded("fig07-08-injected")[1])
        med, lo, hi = got[("jam_lat", "indirect_put", 4, "fenced", "poll", "default", "off", "none", "0")]
        self.assertAlmostEqual(med, 1.3)
        self.assertLess(lo, med)
        self.assertGreater(hi, med)
        self.assertAlmostEqual(got[("jam_lat", "indirect_put", 64, "fenced", "poll", "default", "off", "none",
                                    "0")][0], 1.0)

    def test_efficiency_with_interval(self):
        rows = []
        for rnd, (jam, floor) in enumerate(((1.0, 0.8), (1.0, 0.9), (2.0, 1.4)), 1):
            rows += ["%d,jam_lat,noop,local,8,64,%g" % (rnd, jam), "%d,floor_lat,,raw,8,64,%g" % (rnd, floor),
                     "%d,put_lat,,raw,8,64,0.5" % rnd]
        d = self.write("e/fig07-08-injected.csv", csv_text("round,test,jam,mode,payload_bytes,frame_bytes,p50_us",
                                                           *rows))
        p = platforms.Platform(os.path.dirname(d))
        data, _ = values.reduce_perf(p.loaded("fig07-08-injected")[1])
        (d,) = data.values()
        self.assertAlmostEqual(d["eff"], 0.8)     # 0.8, 0.9, 0.7
        med, lo, hi = d["iv"]["eff"]
        self.assertAlmostEqual(med, 0.8)
        self.assertTrue(lo < 0.8 < hi)
        self.assertEqual(d["iv"]["rel"][0], 2.0)

    def test_formats(self):
        self.assertEqual(values.fmt_interval((0.84, 0.8, 0.88)), "0.84 [0.80..0.88]")
        self.assertEqual(values.fmt_interval((0.84, 0.84, 0.84)), "0.84")
        self.assertEqual(values.fmt_interval(None), "-")
        d = {"raw": 2e6, "rel": 0.5, "eff": 0.8, "cyc": None, "cpu": None, "src": ""}
        self.assertEqual(platforms.fmt_val("jam_rate", d), "2 M/s (0.50x put); efficiency 0.80")
        d = {"raw": 1.234, "rel": None, "eff": None, "cyc": None, "cpu": 812.0, "src": ""}
        self.assertEqual(platforms.fmt_val("jam_lat", d), "1.23 us; 812 cpu-ns (cpu time)")
        self.assertEqual(platforms.fmt_val("jam_lat", None), "-")


def panel(title, series):
    return multiples.Panel(title, series)


class Multiples(Case):
    def test_x_axis(self):
        self.assertEqual(multiples.x_kind("payload_bytes", [64]), "log")
        self.assertEqual(multiples.x_kind("gap_us", [0, 20, 200, 1000]), "ordinal")
        self.assertEqual(multiples.x_kind("n", [1000, 10000, 1000000]), "log")
        self.assertEqual(multiples.x_kind("gap_us", [0, 5, 10]), "linear")
        kind, lines, pos = multiples.x_axis("payload_bytes", [64, 2048, 64, 32768])
        self.assertEqual(kind, "log")
        # a tick at every measured size, labelled with its unit; the range padded past them
        self.assertIn('set xtics ("64 B" 64, "2 KiB" 2048, "32 KiB" 32768) rotate by -40 font \',8\'', lines)
        self.assertIn("set xrange [40:52428.8]", lines)
        kind, lines, pos = multiples.x_axis("gap_us", [0, 20, 200, 1000])
        self.assertEqual(pos, {0: 1, 20: 2, 200: 3, 1000: 4})
        self.assertIn("set xrange [0.5:4.5]", lines)
        self.assertIn('"1000" 4', lines[-1])

    def test_dodge(self):
        xs = [multiples.dodge("log", 64, pi, 4, 1) for pi in range(4)]
        self.assertEqual(xs, sorted(xs))
        self.assertAlmostEqual(xs[0] * xs[3], 64 * 64)     # symmetric about the measured x
        self.assertEqual(multiples.dodge("ordinal", 2, 1, 3, 1), 2)

    def test_value_range_reach(self):
        # one wild bar (0.01..100 about 1) reaches 2x at most: the range stays readable
        self.assertEqual(multiples.value_range([(8, 1.0, 0.01, 100), (8, 1.5, 1.4, 1.6)]), (0.5, 2.0))
        self.assertIsNone(multiples.value_range([(8, 0, 0, 0)]))

    def test_y_ranges(self):
        a, b = panel("a", {0: [(4, 1.0, 0.9, 1.1)]}), panel("b", {0: [(4, 2.0, 1.9, 2.1)]})
        c = panel("c", {0: [(4, 500.0, 490, 510)]})
        d = panel("d", {0: [(4, 600.0, 590, 610)]})
        r = multiples.y_ranges([[a, b], [c, d]])
        # rows of one quantity share their range, the figure does not (1..610: over SHARE_SPAN)
        self.assertEqual(r[id(a)], r[id(b)])
        self.assertEqual(r[id(c)], r[id(d)])
        self.assertNotEqual(r[id(a)], r[id(c)])
        self.assertFalse(r[id(a)][2])     # 0.9..2.1: linear
        whole = multiples.y_ranges([[a], [b]])
        self.assertEqual(whole[id(a)], whole[id(b)])
        own = multiples.y_ranges([[a, c]])
        self.assertTrue(own[id(a)][1] < 3 < 400 < own[id(c)][0])

    def test_script(self):
        grid = [[panel("indirect_put: placement default", {0: [(64, 1.0, 0.9, 1.1), (2048, 2.0, 1.8, 2.2)],
                                                           2: [(64, 1.2, 1.1, 1.3)]}),
                 None,
                 panel("indirect_put: placement dram", {0: [(2048, 3.0, 2.5, 3.5)]})]]
        text, lines, (w, h) = multiples.script(self.path("f"), "T", "jam / put", grid, ["A", "B", "C"],
                                               "payload_bytes", "payload")
        script = "\n".join(lines)
        # one block per panel and platform, each point with its bars
        self.assertEqual(text.count("# "), 3)
        self.assertEqual(script.count("with yerrorlines"), 3)
        # a colour per platform, the same in every panel; the key only names the platforms drawn
        self.assertEqual(re.findall(r"ls (\d+) notitle", script), ["101", "103", "101"])
        self.assertIn('NaN with linespoints ls 101 title "A"', script)
        self.assertIn('NaN with linespoints ls 103 title "C"', script)
        self.assertNotIn('title "B"', script)
        # each panel ticks its own sizes; a payload axis needs no label
        self.assertIn('set xtics ("2 KiB" 2048)', script)
        self.assertIn("unset xlabel", script)
        self.assertIn("set arrow from graph 0, first 1 to graph 1, first 1", script)
        self.assertEqual(len(re.findall(r"(?m)^set multiplot", script)), 1)
        self.assertEqual((w, h), (multiples.layout(grid, 2)[0], multiples.layout(grid, 2)[1]))
        self.assertIsNone(multiples.script(self.path("f"), "T", "y", [[panel("p", {})]], ["A"], "payload_bytes", ""))

    def test_layout(self):
        w, h, keyh, keycols = multiples.layout([[1, 2, 3, 4], [1]], 4)
        self.assertEqual(w, multiples.YLABEL_W + 4 * multiples.PANEL_W + 20)
        self.assertEqual(keycols, w // 380)
        self.assertEqual(h, multiples.TITLE_H + 2 * multiples.PANEL_H + keyh)


class Page(Case):
    def test_experiment_grid(self):
        """a row per jam (and value of the other variants), a column per
        value of the first variant, in the order the experiment ran them"""
        dirs = compared()
        if not dirs:
            self.skipTest("the committed comparison's folders are not all here")
        plats = platforms.load_platforms(dirs)
        _, data, keycols, _ = page.perf_section(plats, [p.loaded("fig11-12-load") for p in plats])
        grid, xcol = page.experiment_grid("jam_lat", data, keycols)
        self.assertEqual(xcol, "payload_bytes")
        self.assertEqual([[p.title for p in row] for row in grid][:2], [
            ["indirect_put: placement default, stress none", "indirect_put: placement llc, stress none",
             "indirect_put: placement dram, stress none"],
            ["indirect_put: placement default, stress vm", "indirect_put: placement llc, stress vm",
             "indirect_put: placement dram, stress vm"]])
        self.assertEqual(len(grid), 4)
        # llc: only the Xeon guests (CLDEMOTE)
        self.assertEqual(sorted(grid[0][1].series), [0, 1])

    def test_headline_grid(self):
        dirs = compared()
        if not dirs:
            self.skipTest("the committed comparison's folders are not all here")
        plats = platforms.load_platforms(dirs)
        hd = page.headline_data(plats)
        grid, tests, table = page.headline_grid(hd, "eff", True, [p.label for p in plats])
        self.assertEqual(tests, ["jam_lat", "jam_rate"])
        self.assertEqual([p.title for p in grid[0]], ["indirect_put, local: latency", "indirect_put, injected: latency",
                                                     "server_sum, local: latency", "server_sum, injected: latency"])
        self.assertEqual(sorted(grid[0][0].series), [0, 1, 2, 3])
        self.assertEqual(table[0][:4], ["latency", "indirect_put", "local", "4 B"])
        grid, tests, table = page.headline_grid(hd, None, False, [p.label for p in plats])
        self.assertEqual([p.title for p in grid[0]], ["indirect_put: latency", "server_sum: latency"])
        # claim 1a's quantity on the 91afb010 guest: +35% [+25%..+47%] at 4 B
        self.assertEqual(table[0][:4], ["latency", "indirect_put", "4 B", "1.35 [1.25..1.47]"])


class Drawn(Base):
    def setUp(self):
        super().setUp()
        self.gp = shutil.which("gnuplot")
        if not self.gp:
            self.skipTest("gnuplot missing (scripts/deps.sh installs gnuplot-nox)")

    def test_drawn(self):
        with open(self.path("old-figure.png"), "w") as f:
            f.write("a figure of an earlier comparison")
        rc, out, err = self.run_main(platforms.main, [os.path.join(ROUNDS, "rounds3"), FULL, "-o", self.tmp,
                                                      "--emit-gp"])
        self.assertEqual(rc, 0, err)
        # no floor rows in these fixtures: no efficiency figure, said so
        for name in ("fig09-10-placement-jam_lat", "headline-vs-put", "headline-injected-local"):
            for ext in ("png", "svg", "png.gp", "svg.gp"):
                self.assertGreater(os.path.getsize(self.path(name + "." + ext)), 0, name + "." + ext)
        self.assertFalse(glob.glob(self.path("*.dat")))
        self.assertFalse(os.path.exists(self.path("old-figure.png")))
        with open(self.path("compare.md")) as f:
            md = f.read()
        self.assertIn("![fig09-10-placement jam_lat](fig09-10-placement-jam_lat.png)", md)
        self.assertIn("![Injected / local](headline-injected-local.png)", md)
        self.assertFalse(os.path.exists(self.path("headline-efficiency.png")))
        self.assertIn("## Framework efficiency: floor / jam\n\nThe physical floor", md)
        self.assertRegex(md, r"From fig07-08-injected\.\n\n\(no values\)")
        with open(self.path("headline-vs-put.svg")) as f:
            self.assertIn("fixture-arm, fixture", f.read())

    def test_no_put_no_figure_said(self):
        self.write("np/modes.csv", csv_text("test,jam,mode,payload_bytes,p50_us", "jam_lat,noop,local,8,1.0",
                                            "jam_lat,noop,cached,8,0.9"))
        rc, _, err = self.run_main(platforms.main, [self.path("np"), "-o", self.path("o")])
        self.assertEqual(rc, 0, err)
        with open(self.path("o", "compare.md")) as f:
            md = f.read()
        self.assertIn("(no jam_lat figure: no run of it has a put reference to divide by)", md)
        self.assertIn("| jam_lat | noop | 8 | cached | 0.9 us |", md)


class Where(Case):
    def test_writes_under_build_unless_told(self):
        top = os.path.dirname(os.path.dirname(DATA))
        self.assertEqual(platforms.parse_args([FULL]).out, os.path.join(top, "build", "compare"))
        self.assertEqual(platforms.parse_args([FULL, "--commit"]).out, os.path.join(top, "plots", "compare"))
        self.assertEqual(platforms.parse_args([FULL, "-o", self.tmp]).out, self.tmp)
