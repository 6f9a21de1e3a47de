"""What the unit tests of scripts/tcresults share: the paths (and the
package on sys.path), a scratch folder per test, a copy of a fixture, CSV
edits, a tool's main run with its output captured."""
import contextlib
import csv
import io
import json
import os
import shutil
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "scripts"))
DATA = os.path.join(TOP, "tests", "data")
RESULTS = os.path.join(TOP, "results")


def read_csv(path):
    with open(path, newline="") as f:
        rd = csv.DictReader(f)
        return list(rd.fieldnames), list(rd)


def write_csv(path, fields, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)


def edit_rows(path, edit, where=lambda r: True):
    """edit(row) on every row of the CSV at path where where(row) holds"""
    fields, rows = read_csv(path)
    n = 0
    for r in rows:
        if where(r):
            edit(r)
            n += 1
    write_csv(path, fields, rows)
    return n


def edit_meta(folder, edit):
    """edit(meta) on folder/meta.json, written back"""
    p = os.path.join(folder, "meta.json")
    with open(p) as f:
        m = json.load(f)
    edit(m)
    with open(p, "w") as f:
        json.dump(m, f)


def csv_text(header, *rows):
    return "\n".join([header] + list(rows)) + "\n"


class Case(unittest.TestCase):
    """a test with its own scratch folder (self.tmp)"""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tcpy-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def path(self, *parts):
        return os.path.join(self.tmp, *parts)

    def copy(self, src, name=None):
        """a copy of a fixture folder (or file) in the scratch folder"""
        dst = self.path(name or os.path.basename(os.path.normpath(src)))
        if os.path.isdir(src):
            shutil.copytree(src, dst)
        else:
            shutil.copy(src, dst)
        return dst

    def write(self, rel, text):
        p = self.path(rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)
        return p

    def run_main(self, main, argv):
        """(exit status, stdout, stderr) of a tool's main(argv); a sys.exit
        (argparse's usage error) is its status"""
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main(argv)
            except SystemExit as e:
                rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
                if not isinstance(e.code, int) and e.code is not None:
                    err.write(str(e.code))
        return rc, out.getvalue(), err.getvalue()
