"""tcresults.cli: the tools' parser and whole-file writes."""
import os
import stat
import threading

from helpers import Case

from tcresults import cli


class Cli(Case):
    def test_parser_help_is_the_docstring(self):
        ap = cli.parser("tc-x", "tc-x: one line.\n\nthe rest\n  as written")
        self.assertEqual(ap.description, "tc-x: one line.")
        self.assertIn("the rest\n  as written", ap.format_help())

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
