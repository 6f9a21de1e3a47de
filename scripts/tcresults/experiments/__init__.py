"""tc-experiments: the paper's experiments as data, run with the real tools.

Each file in scripts/experiments/*.json defines one experiment (one or two
paper figures): its sweep axes, the tc-perf or tc-mcast arguments, the
presets and the plot layout. This runner expands every sweep into the
cartesian product of its axes (one point per tool invocation; the comma
lists tc-perf takes in one invocation - sizes, -m, -W, --placement - stay
inside it, so every jam row has its raw-put reference from the same run),
skips with the reason what the platform cannot run (tc-perf --platform
--json -), runs the rest, and writes

  results/<platform>/<experiment>.csv       experiment,point,round,preset + tool columns
  results/<platform>/<experiment>.dist.csv  the same for --dist (when asked)
  results/<platform>/meta.json              platform report, preset, skips, tool JSON,
                                            how busy the host was (host_state: hoststate.py)

Every point runs R rounds (quick 5, paper 5;
--rounds N overrides), each its own tool invocation with its own references;
the rounds of an experiment run one after the other over all its points
(round 1 of every point, then round 2, ...), so a drift of the machine
spreads over the points instead of landing on one. Every round is kept
(the `round` column, 1..R).

A result file is written whole, from one run, when its experiment has
finished; a stopped run (Ctrl-C) keeps its finished points in
results/<platform>/.partial/ and --resume continues it.

Between two hosts (--hosts A,B --launcher mpirun|srun|ssh): every point's
server side runs on B and its client on A (tc-mcast: the ranks spread over
the hosts), started by the launcher; results go under a platform id for the
pair, with both hosts, the launcher and the transports in meta.json. The
results directory must be at the same path on A (a shared file system, or A
being this machine). Points the pair cannot run are skipped with the reason.

usage: scripts/tc-experiments [--preset quick|paper] [--rounds N] [--resume] [--dry-run]
                              [--hosts A,B --launcher L] [--list] [EXPERIMENT ...]
Python 3 standard library only.
"""
import argparse
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time

from .. import hoststate, paths
from . import procs
from .launch import Launcher, pair_platform
from .plan import expand, load_experiments, render
from .run import finish_experiment, point_label, run_point
from .state import Progress, State, atomic_write, fmt_s, short
from .tools import git_rev, platform_id, platform_report, probe_tool, topology

RESULTS = os.path.join(paths.TOP, 'results')
# rounds per point of each preset (--rounds overrides). Measured here: two
# quick runs of one tree gave the same claim verdict on 19 of 25 rows with 3
# rounds (t(0.975, 2) = 4.30 and a 2-df spread: intervals that swing between
# runs) and on 24-25 of 25 with 5 (results/<platform>/stability.md); 5 rounds of
# the quick preset take about 7 minutes on 2 cores, inside make figures' 10.
PRESET_ROUNDS = {'quick': 5, 'paper': 5}


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('experiments', nargs='*', help='names or prefixes (default: all)')
    ap.add_argument('--preset', default=None, help='quick (default) or paper')
    ap.add_argument('--rounds', type=int, default=None, metavar='N',
                    help='rounds per point (default: 5 in both presets)')
    ap.add_argument('--resume', action='store_true', help='continue the stopped run of this platform')
    ap.add_argument('--dry-run', action='store_true', help='print the plan (points, skips, estimate); run nothing')
    ap.add_argument('--plan-json', metavar='FILE', help='write the expanded plan as JSON (- for stdout)')
    ap.add_argument('--list', action='store_true', help='list the experiments and exit')
    ap.add_argument('--pairs', metavar='SEL', help='a topology sweep\'s pairs (scripts/tc-topo): all, '
                    'classes (one per hwloc class; the presets\' default) or sender:receiver PUs 0:1,0:8')
    ap.add_argument('--platform-id', help='results/<ID>/ (default: TC_PLATFORM_ID or scripts/platform-id.sh)')
    ap.add_argument('--results', default=RESULTS, help='results root (default results/)')
    ap.add_argument('--hosts', metavar='A,B', help='run between two hosts: the client on A, the server '
                    'on B (NAME or NAME=ADDR, ADDR where the others reach it); tc-mcast ranks spread over all')
    ap.add_argument('--launcher', help='with --hosts: mpirun, srun (--mpi=pmix) or ssh')
    ap.add_argument('--mpirun-args', default=os.environ.get('MPIRUN_ARGS', ''),
                    help='more mpirun options (default: MPIRUN_ARGS), e.g. an rsh agent')
    ap.add_argument('--rsh', default=os.environ.get('TC_RSH', 'ssh'),
                    help='--launcher ssh: the remote shell command (default: TC_RSH or ssh)')
    ap.add_argument('--print-platform-id', action='store_true', help='print the results id (of the pair '
                    'with --hosts) and exit')
    ap.add_argument('--experiments-dir', default=paths.EXP_DIR, help=argparse.SUPPRESS)
    # test seams: a fake tool and a fixed platform report instead of the real ones
    ap.add_argument('--tool-cmd', help='TEST SEAM: command to run instead of build/bin/tc-perf')
    ap.add_argument('--mcast-cmd', help='TEST SEAM: command to run instead of build/bin/tc-mcast')
    ap.add_argument('--platform-json', help='TEST SEAM: platform report file instead of tc-perf --platform')
    ap.add_argument('--proc', default='/proc', help='TEST SEAM: a folder with loadavg and stat instead of /proc')
    ap.add_argument('--host-window', type=float, default=2.0, help=argparse.SUPPRESS)
    return ap, ap.parse_args(argv)


def between_hosts(ap, opts, tools):
    """With --hosts and --launcher: opts.launcher set, and (the pair's
    meta.json entry, its platform report); (None, None) on one host."""
    kind, opts.launcher = opts.launcher, None
    if not (opts.hosts or kind):
        return None, None
    if not (opts.hosts and kind):
        ap.error('--hosts and --launcher go together (make figures HOSTS=a,b LAUNCHER=mpirun)')
    try:
        opts.launcher = Launcher(opts.hosts.split(','), kind, opts.mpirun_args, opts.rsh)
    except ValueError as err:
        ap.error(str(err))
    if not tools['tc-perf']['present']:
        sys.exit('tc-experiments: %s: build first (make all)' % tools['tc-perf']['why'])
    try:
        pair_id, pair_report, per_host = pair_platform(opts.launcher, tools)
    except (RuntimeError, ValueError, subprocess.SubprocessError, OSError) as err:
        sys.exit('tc-experiments: cannot reach the hosts through %s: %s' % (opts.launcher.kind, err))
    if not opts.platform_id:
        opts.platform_id = pair_id
    return dict(opts.launcher.describe(), per_host=per_host), pair_report


def resume_options(opts, st, outdir):
    """--resume: the stopped run's preset, rounds and experiments (what
    contradicts them refused); -> the experiment names or None"""
    if not opts.resume:
        return None
    if not st.exists():
        sys.exit('tc-experiments: nothing to resume in %s' % outdir)
    st.load()
    if opts.preset and opts.preset != st.data['preset']:
        sys.exit('tc-experiments: the stopped run used preset %s, not %s' % (st.data['preset'], opts.preset))
    if opts.experiments:
        print('tc-experiments: --resume continues the stopped run\'s experiments; ignoring %s' % (
            ' '.join(opts.experiments)), file=sys.stderr)
    opts.preset = st.data['preset']
    if opts.rounds and opts.rounds != st.data.get('rounds', 1):
        sys.exit('tc-experiments: the stopped run has %d round(s) per point, not %d' % (
            st.data.get('rounds', 1), opts.rounds))
    opts.rounds = st.data.get('rounds', 1)
    return st.data['experiments']


def print_plan(plan, opts, pid_, est):
    """the plan on stderr: per experiment its points, skips and dropped values"""
    R = opts.rounds
    npts = sum(len(pts) for _, pts in plan)
    nskip = sum(1 for _, pts in plan for p in pts if p['skip'])
    print('tc-experiments: preset %s, platform %s: %d experiment(s), %d points (%d skipped) x %d round(s), '
          'estimated %s' % (opts.preset, pid_, len(plan), npts, nskip, R, fmt_s(est)), file=sys.stderr)
    for e, pts in plan:
        run = [p for p in pts if not p['skip']]
        print('  %-22s %3d points, %3d to run, about %s' % (
            e['name'], len(pts), len(run), fmt_s(R * sum(p['estimate_s'] for p in pts))), file=sys.stderr)
        for p in pts:
            if p['skip']:
                print('    skip #%d %s: %s' % (p['point'], ' '.join('%s=%s' % (k, render(v)) for k, v in
                                                                   p['axes'].items()), short(p['skip'])),
                      file=sys.stderr)
        drops = {}
        for p in pts:
            for d in p['dropped']:
                drops.setdefault((d['var'], str(d['value'])), d['reason'])
        for (var, val), why in drops.items():
            print('    not run: %s=%s (every point): %s' % (var, val, short(why)), file=sys.stderr)


def write_plan_json(plan, opts, pid_, est):
    doc = {'preset': opts.preset, 'platform_id': pid_, 'points': sum(len(pts) for _, pts in plan),
           'rounds': opts.rounds, 'skipped': sum(1 for _, pts in plan for p in pts if p['skip']),
           'estimate_s': round(est, 1),
           'experiments': [{'name': e['name'], 'points': pts} for e, pts in plan]}
    text = json.dumps(doc, indent=1, default=list)
    if opts.plan_json == '-':
        print(text)
    else:
        atomic_write(opts.plan_json, text)


def start_state(opts, st, plan):
    """a new run's state, or the stopped run's checked against this plan
    (a resumed run continues only the same plan)"""
    rev = git_rev()
    # what each point runs
    fingerprint = {e['name']: [' '.join(p['args'] + (['@%s:%s' % tuple(p['cores'])] if 'cores' in p else []))
                               if not p['skip'] else 'skip' for p in pts] for e, pts in plan}
    fingerprint['(rounds)'] = opts.rounds
    if not opts.resume:
        st.new(opts.preset, [e['name'] for e, _ in plan], rev)
        st.data['plan'], st.data['rounds'] = fingerprint, opts.rounds
        st.save()
        return
    old = st.data.get('plan')
    if old is not None and old != fingerprint:
        changed = sorted(n for n in set(old) | set(fingerprint) if old.get(n) != fingerprint.get(n))
        sys.exit('tc-experiments: cannot resume run %s: the plan of %s changed since it stopped '
                 '(definitions, tool options or platform); start afresh without --resume' % (
                     st.data['run_id'], ', '.join(changed)))
    if st.data.get('git_rev') != rev:
        print('tc-experiments: note: the stopped run was at %s, the tree is now %s' % (
            st.data.get('git_rev'), rev), file=sys.stderr)
    print('tc-experiments: resuming run %s' % st.data['run_id'], file=sys.stderr)


def run_plan(plan, runs, st, prog, tools, opts, outdir, platform, pid_, pair, host):
    """every round of every point not done yet, round-major (every point's
    round 1, then every point's round 2, ...); each experiment written when
    its points are done, with the host's state so far; -> the failed runs"""
    R = opts.rounds
    failed = 0
    for e, pts in plan:
        for r in range(1, R + 1):
            for p in pts:
                if st.done(e['name'], p['point'], r):
                    continue
                prog.i += 1
                if p['skip']:
                    st.record(e['name'], p['point'], r, {'status': 'skipped', 'reason': p['skip'],
                                                         'args': p['args'], 'axes': p['axes']})
                    continue
                prog.show(point_label(e, p, r, R), p['estimate_s'], 0, force=True)
                entry = run_point(e, p, r, tools, st, prog, opts)
                host.tick(e['name'])
                st.record(e['name'], p['point'], r, entry)
                prog.finish_point(p['estimate_s'], entry['elapsed_s'])
                if entry['status'] == 'failed':
                    failed += 1
                    prog.newline()
                    print('tc-experiments: %s failed: %s' % (point_label(e, p, r, R), entry['reason']),
                          file=sys.stderr)
        prog.newline()
        host.tick(e['name'], force=True)
        ran, sk, fl = finish_experiment(e, pts, st, outdir, opts, platform, pid_, pair, host.result())
        print('tc-experiments: %s: %d ran, %d skipped, %d failed -> %s' % (
            e['name'], ran, sk, fl, os.path.relpath(os.path.join(outdir, e['name'] + '.csv'), paths.TOP)),
            file=sys.stderr)
    return failed


def stopped(opts, st, prog, runs, t_start, pid_):
    """Ctrl-C (or SIGTERM): the state kept, how to continue said; -> 130"""
    procs.kill_children()
    procs.release_swaps(st.dir)
    st.data['elapsed_s'] = st.data.get('elapsed_s', 0.0) + time.time() - t_start
    st.save()
    prog.newline()
    done = sum(1 for e, p, r in runs if st.done(e['name'], p['point'], r))
    print('tc-experiments: stopped (%s); %d of %d runs (points x rounds) done, kept in %s; '
          'continue with: scripts/tc-experiments --resume%s' % (
              signal.Signals(procs.STOP['sig']).name if procs.STOP['sig'] else 'interrupted', done, len(runs),
              os.path.relpath(st.dir, paths.TOP),
              ((' --platform-id ' + pid_) if opts.platform_id else '') +
              ((' --hosts %s --launcher %s' % (opts.hosts, opts.launcher.kind)) if opts.launcher else '') +
              ((' --results ' + opts.results) if opts.results != RESULTS else '')),
          file=sys.stderr)
    return 130


def execute(plan, est, st, tools, opts, outdir, platform, pid_, pair):
    """runs the plan; -> the exit status (1 when a point failed, 130 when stopped)"""
    signal.signal(signal.SIGINT, procs.on_signal)
    signal.signal(signal.SIGTERM, procs.on_signal)
    runs = [(e, p, r) for e, pts in plan for r in range(1, opts.rounds + 1) for p in pts]
    prog = Progress(len(runs), est)
    prog.i = sum(1 for e, p, r in runs if st.done(e['name'], p['point'], r))
    prog.done_est = sum(p['estimate_s'] for e, p, r in runs if st.done(e['name'], p['point'], r))
    prog.done_real = prog.done_est
    # the host before the run (a resumed run keeps its first run's and goes on sampling)
    host = hoststate.Recorder(st.data.setdefault('host_state', {}), proc=opts.proc)
    t_start = time.time()
    try:
        if 'before' not in host.doc:
            host.before(opts.host_window)
            st.save()
            warn_busy(hoststate.verdict(dict(host.doc, during=[])), 'is busy now', 'the run goes on, marked')
        else:
            host.tick()
        failed = run_plan(plan, runs, st, prog, tools, opts, outdir, platform, pid_, pair, host)
    except KeyboardInterrupt:
        return stopped(opts, st, prog, runs, t_start, pid_)
    finally:
        procs.kill_children()
        procs.release_swaps(st.dir)
    total = st.data.get('elapsed_s', 0.0) + time.time() - t_start
    if failed:   # keep the run: --resume retries the failed points
        st.data['elapsed_s'] = total
        st.save()
    else:
        shutil.rmtree(st.dir, ignore_errors=True)
    print('tc-experiments: done in %s (%d points x %d round(s), %d failed); results in %s' % (
        fmt_s(total), sum(len(pts) for _, pts in plan), opts.rounds, failed, os.path.relpath(outdir, paths.TOP)),
        file=sys.stderr)
    warn_busy(host.result(), 'was busy', 'rerun on an idle host')
    return 1 if failed else 0


def warn_busy(hs, when, then):
    """a busy host said when the run starts and where it ends (its timings carry others' noise)"""
    if hs.get('busy'):
        print('tc-experiments: WARNING: the host %s: %s; the timings carry that work\'s noise '
              '(meta.json host_state; claims.md and make report mark the run); %s'
              % (when, '; '.join(hs['reasons']), then), file=sys.stderr)


def main(argv=None):
    ap, opts = parse_args(argv)
    exps = load_experiments(opts.experiments_dir, opts.experiments)
    if opts.list:
        for e in exps:
            print('%-22s %s' % (e['name'], e.get('title', '')))
        return 0
    tools = {'tc-perf': probe_tool('tc-perf', shlex.split(opts.tool_cmd) if opts.tool_cmd else None),
             'tc-mcast': probe_tool('tc-mcast', shlex.split(opts.mcast_cmd) if opts.mcast_cmd else None)}
    tools['topology'] = topology(tools)
    pair, pair_report = between_hosts(ap, opts, tools)
    pid_ = platform_id(opts.platform_id)
    if opts.print_platform_id:
        print(pid_)
        return 0
    outdir = os.path.join(opts.results, pid_)
    st = State(outdir)
    names = resume_options(opts, st, outdir)
    if names is not None:
        exps = [e for e in load_experiments(opts.experiments_dir, []) if e['name'] in names]
    opts.preset = opts.preset or 'quick'
    if opts.rounds is None:
        opts.rounds = PRESET_ROUNDS.get(opts.preset, 1)
    if opts.rounds < 1:
        ap.error('--rounds %d: at least 1' % opts.rounds)

    if opts.pairs and tools['tc-perf']['present']:
        try:    # a bad selection is a bad flag: said before anything runs
            tools['topology'](opts.pairs)
        except ValueError as err:
            ap.error('--pairs %s: %s' % (opts.pairs, err))
    platform = pair_report if pair else platform_report(tools, opts.platform_json)
    plan = []
    for e in exps:
        try:
            plan.append((e, expand(e, opts.preset, platform, tools, pair is not None, opts.pairs)))
        except ValueError as err:
            sys.exit('tc-experiments: %s: %s' % (e['name'], err))
    est = opts.rounds * sum(p['estimate_s'] for _, pts in plan for p in pts)
    if opts.plan_json:
        write_plan_json(plan, opts, pid_, est)
    print_plan(plan, opts, pid_, est)
    if opts.dry_run:
        if not opts.plan_json:
            for e, pts in plan:
                for p in pts:
                    print('%s #%d %s%s%s' % (e['name'], p['point'], ' '.join(p['args']),
                                             ' (sender:receiver %s:%s)' % tuple(p['cores']) if 'cores' in p else '',
                                           '   [skip: %s]' % p['skip'] if p['skip'] else ''))
        return 0
    os.makedirs(outdir, exist_ok=True)
    start_state(opts, st, plan)
    return execute(plan, est, st, tools, opts, outdir, platform, pid_, pair)
