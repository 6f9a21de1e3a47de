#!/usr/bin/env python3
"""Runs the unit tests of scripts/tcresults (tests/py/test_*.py, Python's
unittest) and prints each test case and the closing lines the way cmocka
does, so tests/run-tests.sh counts every case in make check's tally (a
skipped case names its reason on the line before its SKIPPED line).

usage: tests/py/run.py [MODULE ...]   (e.g. test_schema; default: all)
Exit status 1 when a case failed."""
import os
import sys
import time
import traceback
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True


class CmockaResult(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.passed = 0

    @staticmethod
    def name(test):
        return test.id()

    def startTest(self, test):
        super().startTest(test)
        print("[ RUN      ] %s" % self.name(test), flush=True)

    def addSuccess(self, test):
        self.passed += 1
        print("[       OK ] %s" % self.name(test), flush=True)

    def _failed(self, test, err):
        print("".join(traceback.format_exception(*err)).rstrip(), flush=True)
        print("[  FAILED  ] %s" % self.name(test), flush=True)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._failed(test, err)

    def addError(self, test, err):
        super().addError(test, err)
        self._failed(test, err)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        print(reason, flush=True)
        print("[  SKIPPED ] %s" % self.name(test), flush=True)


def main(argv):
    loader = unittest.TestLoader()
    if argv:
        sys.path.insert(0, HERE)
        suite = unittest.TestSuite(loader.loadTestsFromName(m) for m in argv)
    else:
        suite = loader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)
    res = CmockaResult()
    t0 = time.time()
    suite.run(res)
    nfail = len(res.failures) + len(res.errors)
    print("tests/py: %d test cases in %.1f s" % (res.testsRun, time.time() - t0))
    print("[  PASSED  ] %d test(s)." % res.passed)
    if res.skipped:
        print("[  SKIPPED ] %d test(s)" % len(res.skipped))
    if nfail:
        print("[  FAILED  ] %d test(s)" % nfail)
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
