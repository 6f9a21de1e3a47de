"""tc-claims: the paper's headline claims, tested against this platform's results.

usage: tc-claims RESULTS_DIR [-o FILE] [--json FILE]
       tc-claims --diff A.json B.json

RESULTS_DIR is one platform's folder in the runner's layout
(results/<platform>/: fig07-08-injected.csv, fig09-10-placement.csv,
fig11-12-load.csv, fig13-14-wait.csv, meta.json). Writes RESULTS_DIR/claims.md
(or FILE; - for stdout): first a compact table (claim, paper, this platform,
verdict; within 120 columns), the paper's experiments and the proxies apart;
then the rules and, for every headline claim, the figure, the paper's number,
the rule applied, this platform's number with its 95% interval over rounds
and the verdict, and each round's values; all computed from the CSVs and
meta.json's platform report; nothing is typed in.

Rounds. Every experiment point runs R rounds (the CSV column `round`, 1..R;
a folder without it is one round). Each claim's quantity is computed within
one round (a ratio pairs rows of the same round; a "max over payloads" picks
its payload once, by the median over rounds), then over rounds: the median,
and a 95% Student-t interval, taken on the log of the ratio the quantity comes
from (exp(mean +- t(0.975, n-1) s/sqrt(n)) of log(ratio), mapped back): the
noise of a ratio is multiplicative, so an interval of a ratio stays above 0
and one wild round widens it upwards, not into negative ratios. A claim `holds` only
when the whole interval clears its rule, `does not hold` when the whole
interval fails it, and is `inconclusive (noise)` otherwise; with one round
there is no interval: `inconclusive (1 round: no interval)`.

Rules. The paper measured two Arm servers over 200 Gb/s InfiniBand with
hardware LLC stashing; other hosts differ in every constant. A magnitude
("up to X", "X better") is judged against a band around the paper's effect
(effect = ratio - 1): half to twice the paper's effect holds; the whole
interval above twice is `much larger than the paper`, which is not the
paper's magnitude either. A bound (a tail spread peak, a latency penalty)
holds within twice the paper's bound. Tail claims (p99.9) need at least 10
samples beyond the percentile per round (>= 10000 iterations per row), else
`inconclusive (too few samples)`; under --stress, a judged row whose p99.9
passes 1 ms (a scheduler time slice) in any round was descheduled, and the
claim reads `inconclusive (scheduler-bound)`: such a tail measures the
scheduler, and whether a round was hit is a lottery between runs. Where the host lacks the feature (NIC
stashing, WFE, a PMU) the claim is `not measurable here` with the platform
report's reason, followed by rows marked `proxy:` that measure the closest
thing the host has, named as such and counted apart.

--json FILE (- for stdout) writes every claim's id, verdict, median, lo, hi,
rounds and samples; --diff A.json B.json prints two such files' verdicts side
by side per claim with `same`/`differs` (exit 0 either way: it is a report).

Python 3 standard library only.
"""
import json
import os
import sys

from .. import cli
from . import report
from .injected import injected
from .results import Results
from .sheet import Sheet
from .stashing import stashing
from .wait import wait, wait_sparse


def judge_all(results_dir):
    """every claim judged on one results folder: the Sheet"""
    sh = Sheet(Results(results_dir))
    injected(sh)
    stashing(sh)
    wait(sh)
    wait_sparse(sh)
    return sh


def parse_args(argv=None):
    ap = cli.parser("tc-claims", __doc__)
    ap.add_argument("results_dir", nargs="?")
    ap.add_argument("-o", dest="out", help="output file (default RESULTS_DIR/claims.md; - for stdout)")
    ap.add_argument("--json", dest="json_out", metavar="FILE",
                    help="also write every claim's id, verdict, median, lo, hi, rounds, samples (- for stdout)")
    ap.add_argument("--diff", nargs=2, metavar=("A.json", "B.json"),
                    help="print two --json files' verdicts side by side, per claim")
    a = ap.parse_args(argv)
    if not a.diff and not a.results_dir:
        ap.error("RESULTS_DIR or --diff A.json B.json")
    if not a.diff and not os.path.isdir(a.results_dir):
        ap.error("%s: not a folder" % a.results_dir)
    return a


def main(argv=None):
    a = parse_args(argv)
    if a.diff:
        return report.diff(*a.diff)
    r = Results(a.results_dir)
    emulated = r.platform.get("emulated")
    if emulated and emulated != "no":
        # an instruction emulator's timings say nothing about the CPU it emulates
        print("tc-claims: %s: emulated: not for timing (%s); no claims judged" % (a.results_dir, emulated),
              file=sys.stderr)
        return 0
    sh = judge_all(a.results_dir)
    md = report.markdown(sh)
    if a.json_out:
        cli.write_whole(a.json_out, json.dumps(report.as_json(sh), indent=1) + "\n")
    if a.out == "-":
        cli.write_whole("-", md)
        return 0
    out = a.out or os.path.join(a.results_dir, "claims.md")
    cli.write_whole(out, md)
    busy = (r.meta.get("host_state") or {}).get("busy")
    print("tc-claims: %s -> %s%s" % (report.counts_text(sh.rows), out,
                                     " (the host was busy during the run: claims.md says so)" if busy else ""),
          file=sys.stderr if a.json_out == "-" else sys.stdout)
    return 0
