"""tcresults.report (tc-report, make report): the HTML of a results folder's
page and of a comparison's, on the hand-made folder tests/data/claims/full
with figures made here: self-contained (a policy that loads nothing from
outside, every figure a data: URI, no script), the claims table, every
figure, the platform report with its network group, the run; the markdown
subset the tools write. tests/test_report.sh opens the pages in a browser."""
import base64
import os
import re
import struct
import zlib

from helpers import DATA, Case, edit_meta

from tcresults import report
from tcresults.report import markdown, page

FULL = os.path.join(DATA, "claims", "full")


def png(w=3, h=2):
    """a valid PNG of w x h grey pixels"""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
    raw = b"".join(b"\0" + b"\x80" * w for _ in range(h))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>'
# what a page may point at: its own data: URIs, anchors, the other pages beside it
OWN = re.compile(r'(?:src|href)="(?!data:|#|[\w.-]+\.html")([^"]*)"')


class FolderPage(Case):
    def setUp(self):
        super().setUp()
        self.res = self.copy(FULL, "fixture-full")
        def edit(m):
            m["platform"]["network"] = {"ucx_version": "1.13.1", "nics": [{"name": "eth0", "driver": "virtio_net",
                                                                          "rate": "unknown"}]}
            m["experiments"] = {"fig07-08-injected": {
                "title": "Injected vs Local", "tool": "tc-perf", "points": 2, "rounds": 3, "ran": 1, "elapsed_s": 65.2,
                "failed": [], "skipped": [{"point": 1, "reason": "stash=on: unsupported"}]}}
        edit_meta(self.res, edit)
        figs = self.path("plots", "fixture-full")
        os.makedirs(figs)
        for n in ("fig07-injected-latency", "fig08-injected-rate"):
            with open(os.path.join(figs, n + ".png"), "wb") as f:
                f.write(png())
            self.write("plots/fixture-full/%s.svg" % n, SVG)       # the PNG is the one shown
        self.write("plots/fixture-full/only-svg.svg", SVG)
        os.makedirs(os.path.join(figs, "data"))
        rc, out, err = self.run_main(report.main, ["-o", self.path("out"), "--plots", self.path("plots"), self.res])
        self.assertEqual(rc, 0, err)
        with open(self.path("out", "fixture-full.html")) as f:
            self.html = f.read()

    def test_self_contained(self):
        self.assertIn('<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; img-src data:; '
                      "style-src 'unsafe-inline'\">", self.html)
        self.assertEqual(OWN.findall(self.html), [])
        self.assertNotIn("<script", self.html)
        self.assertNotRegex(self.html, r"url\(")

    def test_every_figure_inlined_once(self):
        imgs = re.findall(r'<img src="data:(image/[a-z+]+);base64,([A-Za-z0-9+/=]+)" alt="([^"]+)"', self.html)
        self.assertEqual([(t, a) for t, _, a in imgs], [("image/png", "fig07-injected-latency.png"),
                                                         ("image/png", "fig08-injected-rate.png"),
                                                         ("image/svg+xml", "only-svg.svg")])
        self.assertEqual(base64.b64decode(imgs[0][1]), png())
        self.assertIn("<h2 id=\"figures\">Figures (3)</h2>", self.html)

    def test_claims_platform_and_run(self):
        self.assertIn("<h3>The paper&#x27;s experiments</h3>", self.html)
        self.assertRegex(self.html, r"<tr><td>1a</td><td>injected latency cost</td><td>~40% higher</td>"
                                    r"<td>\+50% \[\+50%..\+50%\] at 4 B</td><td class=\"v-holds\">holds</td></tr>")
        self.assertIn('<td class="v-not">does not hold</td>', self.html)
        # the platform report, every group: the network one too
        self.assertRegex(self.html, r"<td>network</td><td><table class=\"kv\"><tr><td>ucx_version</td><td>1.13.1")
        self.assertIn("<td>driver</td><td>virtio_net</td>", self.html)
        # what each experiment ran and skipped, and the run's metadata
        self.assertIn("<td>fig07-08-injected</td><td>Injected vs Local</td>", self.html)
        self.assertIn("fig07-08-injected #1: stash=on: unsupported", self.html)
        self.assertIn('<td class="num">1 min 5 s</td>', self.html)
        self.assertIn("<td>git_rev</td><td>fixture</td>", self.html)

    def test_index(self):
        with open(self.path("out", "index.html")) as f:
            idx = f.read()
        # the folder's row: its link, CPU, cores, date, preset, verdict counts, host; a scratch copy is not committed
        self.assertRegex(idx, r'<tr class="newest"><td><a href="fixture-full.html">fixture-full</a><br>'
                              r'<span class="badge">newest</span> <span class="badge">not committed</span></td>')
        self.assertIn('<td class="num" title="16 claims: 7 hold, 4 fail, 5 inconclusive">16</td>'
                      '<td class="num c-hold">7</td><td class="num c-fail">4</td><td class="num c-much-larger"></td>'
                      '<td class="num c-inconclusive">5</td><td class="num c-not-measurable"></td>', idx)
        self.assertIn('<td class="host-not-recorded" title="not recorded">not recorded</td>', idx)

    def test_index_newest_first_and_busy(self):
        old, new = self.copy(FULL, "old-run"), self.copy(FULL, "new-run")
        edit_meta(old, lambda m: m.update(date="2026-01-01T00:00:00Z"))
        edit_meta(new, lambda m: m.update(date="2026-12-06T23:00:00Z", host_state={
            "busy": True, "reasons": ["load average 75 on 2 cores before the run (above 1)"],
            "before": {"load": [75, 0, 0]}, "summary": {"others_frac": 0.74, "steal_frac": 0.0}}))
        rc, _, err = self.run_main(report.main, ["-o", self.path("o2"), "--plots", self.path("plots"), old, new])
        self.assertEqual(rc, 0, err)
        with open(self.path("o2", "index.html")) as f:
            idx = f.read()
        self.assertLess(idx.index(">new-run<"), idx.index(">old-run<"))
        self.assertRegex(idx, r'<tr class="newest"><td><a href="new-run.html">new-run</a><br><span class="badge">newest')
        self.assertEqual(idx.count('class="newest"'), 1)
        self.assertIn('<td class="host-busy" title="busy: load average 75 on 2 cores', idx)
        self.assertIn('busy<br><span class="note">load 75 before, others 74% during</span></td>', idx)
        with open(self.path("o2", "new-run.html")) as f:
            self.assertIn('<p class="busy"><strong>Host busy during this run</strong>: load average 75', f.read())
        with open(self.path("o2", "old-run.html")) as f:
            self.assertIn('<p class="note">Host: not recorded.</p>', f.read())

    def test_compare_runs(self):
        # --compare-runs: the folders reported, side by side, written under the output folder
        other = self.copy(FULL, "other-run")
        rc, out, err = self.run_main(report.main, ["-o", self.path("o3"), "--plots", self.path("plots"),
                                                    "--compare-runs", self.res, other])
        self.assertEqual(rc, 0, err)
        self.assertTrue(os.path.isfile(self.path("o3", "compare-runs", "compare.md")))
        with open(self.path("o3", "compare-runs.html")) as f:
            cmp_ = f.read()
        self.assertIn("fixture-full", cmp_)
        self.assertIn("other-run", cmp_)
        with open(self.path("o3", "index.html")) as f:
            self.assertIn('<a href="compare-runs.html">These 2 results folders side by side', f.read())

    def test_emulated_judges_nothing(self):
        d = self.copy(FULL, "emu")
        edit_meta(d, lambda m: m["platform"].update(emulated="qemu-user"))
        title, body = report.folder_page(d, self.path("nowhere"))
        self.assertIn("No claims judged: emulated (qemu-user)", body)
        self.assertIn("No figures in", body)

    def test_not_a_results_folder(self):
        rc, _, err = self.run_main(report.main, ["-o", self.path("o"), self.path("plots")])
        self.assertEqual(rc, 2)
        self.assertIn("not a results folder (no meta.json)", err)


class ComparePage(Case):
    def test_markdown_and_the_other_figures(self):
        with open(self.write("cmp/f1.png", ""), "wb") as f:
            f.write(png())
        with open(self.path("cmp", "f2.png"), "wb") as f:
            f.write(png(5, 5))
        md = self.write("cmp/compare.md", "# Platforms side by side\n\nsee ![one](f1.png) and [up](../x.md)\n")
        rc, out, err = self.run_main(report.main, ["-o", self.path("out"), "--plots", self.path("plots"),
                                                   "--compare", md])
        self.assertEqual(rc, 0, err)
        with open(self.path("out", "compare-compare.html")) as f:
            html = f.read()
        self.assertIn("<title>Platforms side by side</title>", html)
        self.assertEqual(re.findall(r'alt="([^"]+)"', html), ["one", "f2.png"])
        self.assertIn("up (<code>../x.md</code>)", html)
        self.assertEqual(OWN.findall(html), [])


class Markdown(Case):
    def test_subset(self):
        text = ("# Title\n\nA `code` and **bold** line\nwrapped.\n\n- one\n  more\n- two\n\n"
                "| a | b |\n|---|---:|\n| x \\| y | 2 |\n\n```\n<raw>\n```\n![gone](nope.png)\n")
        html, used = markdown.to_html(text, self.tmp)
        self.assertEqual(used, set())
        self.assertIn("<h2>Title</h2>", html)
        self.assertIn("<p>A <code>code</code> and <strong>bold</strong> line wrapped.</p>", html)
        self.assertIn("<ul><li>one more</li><li>two</li></ul>", html)
        self.assertIn('<tr><th>a</th><th class="num">b</th></tr>', html)
        self.assertIn('<tr><td>x | y</td><td class="num">2</td></tr>', html)
        self.assertIn("<pre>&lt;raw&gt;</pre>", html)
        self.assertIn("<em>[gone: nope.png not here]</em>", html)

    def test_folded_table(self):
        # tc-platforms folds its long tables; the page shows them folded,
        # the summary's words escaped, nothing else of the line passed raw
        text = ("<details><summary>Jam / put per **payload** <b></summary>\n\n"
                "| a | b |\n|---|---|\n| 1 | 2 |\n\n</details>\n<details>\n")
        html, _ = markdown.to_html(text, self.tmp)
        self.assertIn("<details><summary>Jam / put per <strong>payload</strong> &lt;b&gt;</summary>",
                      html)
        self.assertIn("</table>\n</details>", html)
        self.assertNotIn("&lt;details&gt;&lt;summary&gt;", html)
        self.assertIn("<p>&lt;details&gt;</p>", html)  # a bare tag is text

    def test_escapes(self):
        self.assertEqual(page.esc('<a href="x">'), "&lt;a href=&quot;x&quot;&gt;")
        self.assertIn('<span class="unsupported">unsupported: no</span>', page.nested({"k": "unsupported: no"}))
        self.assertIn('<span class="supported">supported</span>', page.nested("supported"))
        self.assertEqual(page.nested([1, 2]), "1, 2")
