"""tc-plot: the paper's figures from results/<platform>/, with gnuplot.

Reads results/<platform>/<experiment>.csv (and .dist.csv), meta.json and the
plot layout of each experiment definition (scripts/experiments/*.json),
writes the data and panel settings under plots/<platform>/data/ and runs the
gnuplot templates in scripts/plots/ (figure.gp, dist.gp) for

  plots/<platform>/figNN-<name>.png and .svg     one per paper figure
  plots/<platform>/fig11-12-dist-p<point>-...    latency distribution per point

usage: scripts/tc-plot [--platform-id ID | --all] [--results DIR] [--plots DIR] [EXPERIMENT ...]

Without --platform-id: this host's platform, or where it has no results every
platform folder in results/ (as --all), saying which and why.

Rounds: a point run in several rounds (the CSV's round column, each round its
own tc-perf invocation) is drawn at the median over its rounds, its error bars
the 95% interval over rounds (Student t: mean -+ t(0.975, n-1) s/sqrt(n), of
the logs where every value is positive, as tc-claims takes it), and
the panel's key says so ("median of 3 rounds, bars: 95% interval over
rounds"); a vs transform divides each round by the same round's reference
row, then takes the median and interval of those. A point of one round (and
every folder without the column) is drawn from its row as it is, its bars
the row's own columns (min..p99 within the run, the key says which). A
distribution figure draws round 1 alone (one invocation's samples; its title
says "round 1 of R").
A panel whose points are the same in every round (a simulation, a tree's
depth) has no bars; its key says "deterministic".

Reading: every panel ticks its measured x values (payloads with their
unit) on a range padded past them; the keys sit right of the panels in a
margin sized for their longest entry; a title is broken to the figure's
width; a reference (raw put) is dashed, in the colour of the series it
serves where the definition says so; a row can set its y range from the
medians and draw a paper's bound (fig13: pause against poll and claim 4a's
+1.5%, event in a row of its own); a figure can set the payload sweep
beside one payload's categories (fig11-12: no load against stress-ng vm by
placement). The keys of scripts/experiments/README.md say how.
Python 3 standard library and gnuplot (pngcairo, svg); no matplotlib.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

from .. import paths, schema
from .dist import plot_dist
from .figure import plot_experiment


def experiment_defs(exp_dir):
    """the experiment definitions (scripts/experiments/*.json), by file name"""
    out = []
    for fn in sorted(os.listdir(exp_dir)):
        if fn.endswith('.json'):
            with open(os.path.join(exp_dir, fn)) as f:
                exp = json.load(f)
            exp.setdefault('name', fn[:-5])
            out.append(exp)
    return out


def drawable(results, defs):
    """the platform folders under results/ that hold a meta.json and at least
    one experiment's CSV"""
    out = []
    for d in sorted(os.listdir(results)) if os.path.isdir(results) else []:
        rd = os.path.join(results, d)
        if os.path.exists(os.path.join(rd, 'meta.json')) and \
                any(os.path.exists(os.path.join(rd, e['name'] + '.csv')) for e in defs):
            out.append(d)
    return out


def load_rows(path, exp_meta):
    """the rows of a results CSV as tc-plot draws them (tcresults.schema.read,
    and an empty cell of a sweep axis column at its point's value)"""
    return schema.fill_from_axes(schema.read(path, exp_meta).rows, exp_meta)


def plot_platform(pid_, opts, defs, formats):
    """every figure of one platform folder; -> (figures drawn, gnuplot's complaints)"""
    resdir = os.path.join(opts.results, pid_)
    meta = schema.load_meta(resdir)
    outdir = os.path.join(opts.plots, pid_)
    datadir = os.path.join(outdir, 'data')
    os.makedirs(datadir, exist_ok=True)
    log, made = [], []
    for exp in defs:
        if opts.experiments and not any(exp['name'].startswith(n) for n in opts.experiments):
            continue
        path = os.path.join(resdir, exp['name'] + '.csv')
        if not os.path.exists(path):
            print('tc-plot: %s: no results (%s)' % (exp['name'], os.path.relpath(path, paths.TOP)), file=sys.stderr)
            continue
        exp_meta = schema.exp_meta(meta, exp['name'])
        rows = load_rows(path, exp_meta)
        if not rows:
            print('tc-plot: %s: no rows (every point skipped or failed; see meta.json)' % exp['name'],
                  file=sys.stderr)
        made += plot_experiment(exp, rows, meta, exp_meta, pid_, outdir, datadir, formats, log)
        dpath = os.path.join(resdir, exp['name'] + '.dist.csv')
        if exp.get('dist') and os.path.exists(dpath):
            made += plot_dist(exp, load_rows(dpath, exp_meta), meta, exp_meta, pid_, outdir, datadir, formats, log,
                              rows)
    return made, log


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('experiments', nargs='*', help='names or prefixes (default: every result present)')
    ap.add_argument('--platform-id', help='default: TC_PLATFORM_ID or scripts/platform-id.sh; where '
                    'results/<that>/ has no meta.json (no run on this host), every platform as --all')
    ap.add_argument('--all', action='store_true',
                    help='every platform folder under --results that holds a meta.json and results')
    ap.add_argument('--results', default=os.path.join(paths.TOP, 'results'))
    ap.add_argument('--plots', default=os.path.join(paths.TOP, 'plots'))
    ap.add_argument('--formats', default='png,svg')
    ap.add_argument('--experiments-dir', default=paths.EXP_DIR, help=argparse.SUPPRESS)
    return ap.parse_args(argv)


def platforms(opts, have):
    """the platform ids to draw: --all, --platform-id, else this host's
    where it has results, else every platform (said so); exits naming what
    is missing"""
    rel = os.path.relpath(opts.results)
    if opts.all:
        if not have:
            sys.exit('tc-plot: no platform folder with a meta.json and results in %s/: '
                     'run make figures (scripts/tc-experiments) first' % rel)
        print('tc-plot: drawing every platform in %s/: %s' % (rel, ', '.join(have)), file=sys.stderr)
        return have
    if opts.platform_id:
        if not os.path.exists(os.path.join(opts.results, opts.platform_id, 'meta.json')):
            sys.exit('tc-plot: no %s/%s/meta.json: run scripts/tc-experiments first%s' % (
                rel, opts.platform_id, ' (present: %s)' % ', '.join(have) if have else ''))
        return [opts.platform_id]
    pid_ = os.environ.get('TC_PLATFORM_ID') or subprocess.run(
        [os.path.join(paths.SCRIPTS, 'platform-id.sh')], capture_output=True, text=True,
        check=True).stdout.strip()
    if os.path.exists(os.path.join(opts.results, pid_, 'meta.json')):
        print('tc-plot: drawing this host\'s platform %s (%s/%s/)' % (pid_, rel, pid_), file=sys.stderr)
        return [pid_]
    if have:
        print('tc-plot: this host is %s and %s/%s/ has no meta.json (no run here): drawing every '
              'platform in %s/ instead: %s' % (pid_, rel, pid_, rel, ', '.join(have)), file=sys.stderr)
        return have
    sys.exit('tc-plot: no %s/%s/meta.json and no other platform\'s results in %s/: '
             'run make figures (scripts/tc-experiments) first' % (rel, pid_, rel))


def main(argv=None):
    opts = parse_args(argv)
    if shutil.which('gnuplot') is None:
        sys.exit('tc-plot: gnuplot missing (scripts/deps.sh installs gnuplot-nox)')
    defs = experiment_defs(opts.experiments_dir)
    pids = platforms(opts, drawable(opts.results, defs))
    formats = [f for f in opts.formats.split(',') if f]
    log, made = [], []
    for pid_ in pids:
        m, lg = plot_platform(pid_, opts, defs, formats)
        made += m
        log += lg
    for m in made:
        print('tc-plot: %s.{%s}' % (os.path.relpath(m, paths.TOP), ','.join(formats)), file=sys.stderr)
    for lg in log:
        print('tc-plot: gnuplot: %s' % lg, file=sys.stderr)
    return 1 if log else 0
