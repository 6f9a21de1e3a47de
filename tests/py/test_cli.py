"""tcresults.cli: the tools' parser and whole-file writes."""
import os
import stat
import subprocess
import threading

from helpers import TOP, Case

from tcresults import cli


class Cli(Case):
    def test_parser_help_is_the_docstring(self):
        ap = cli.parser("tc-x", "tc-x: one line.\n\nthe rest\n  as written")
        self.assertEqual(ap.description, "tc-x: one line.")
        self.assertIn("the rest\n  as written", ap.format_help())

    def test_one_usage_and_the_whole_description(self):
        # tc-compare, tc-bisect and tc-platforms --help printed argparse's
        # usage and then the docstring's; tc-bisect's two-line description
        # was cut after its first line
        ap = cli.parser("tc-x", "tc-x: the first line,\ngoes on here.\n\nusage: tc-x A B\n"
                                "            [--c]\n\nthe rest")
        text = ap.format_help()
        self.assertEqual(text.count("usage:"), 1, text)
        self.assertTrue(text.startswith("usage: tc-x A B\n            [--c]\n"), text)
        self.assertIn("tc-x: the first line,\ngoes on here.", text)
        self.assertIn("the rest", text)

    def test_every_tool_help_has_one_usage(self):
        for tool in ("tc-compare", "tc-bisect", "tc-platforms", "tc-history", "tc-ab", "tc-claims",
                     "tc-readme", "tc-report"):
            r = subprocess.run([os.path.join(TOP, "scripts", tool), "--help"], capture_output=True,
                               text=True, timeout=60)
            self.assertEqual(r.returncode, 0, tool + ": " + r.stderr)
            self.assertEqual(r.stdout.count("usage:"), 1, tool + ":\n" + r.stdout)
            first = r.stdout.split("\n\n")[1]         # the description, after the usage
            self.assertTrue(first.startswith(tool + ": ") and first.rstrip().endswith((".", ")")),
                            tool + ": " + first)

    def test_write_whole(self):
        p = self.path("f.md")
        cli.write_whole(p, "a")
        cli.write_whole(p, "b")
        with open(p) as f:
            self.assertEqual(f.read(), "b")
        self.assertEqual(os.listdir(self.tmp), ["f.md"])     # no temporary left
        _, out, _ = self.run_main(lambda a: cli.write_whole("-", "to stdout"), [])
        self.assertEqual(out, "to stdout")

    def test_write_whole_leaves_a_device_or_fifo_in_place(self):
        # `tc-claims -o /dev/null` renamed a plain file over /dev/null (as
        # root): a FIFO stands in for the device here
        fifo = self.path("out.fifo")
        os.mkfifo(fifo)
        got = []
        reader = threading.Thread(target=lambda: got.append(open(fifo).read()), daemon=True)
        reader.start()
        cli.write_whole(fifo, "through the fifo")
        reader.join(10)
        self.assertEqual(got, ["through the fifo"])
        self.assertTrue(stat.S_ISFIFO(os.stat(fifo).st_mode))
        self.assertEqual(sorted(os.listdir(self.tmp)), ["out.fifo"])     # no temporary beside it
