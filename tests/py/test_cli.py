"""tcresults.cli: the tools' parser and whole-file writes."""
import os

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
