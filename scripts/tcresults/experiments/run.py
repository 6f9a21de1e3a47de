"""Running one round of one point (the tool's processes, here or through a
launcher, watched to their timeout), and writing an experiment's results
whole once every point has run: <experiment>.csv, .dist.csv and its entry
in meta.json."""
import csv
import json
import os
import shlex
import signal
import subprocess
import time

from .. import hoststate
from ..schema import PREFIX_COLS, SCHEMA_VERSION, read_csv
from .plan import preset_vars, render
from .procs import free_port, kill_children, reap, release_swaps, signal_session, spawn
from .state import atomic_write, now_iso


def point_label(exp, p, r=None, rounds=1):
    ax = ' '.join('%s=%s' % (k, render(v)) for k, v in p['axes'].items())
    return '%s #%d%s %s' % (exp['name'], p['point'],
                            ' round %d/%d' % (r, rounds) if r is not None and rounds > 1 else '', ax)


def point_argv(exp, p, tool, targs, opts, tmpdir):
    """(background argv lists, the measuring side's argv, env) of one point:
    through the launcher between hosts, else here: a server and a client
    on cores 1 and 0 (tc-perf two-process), one process (tc-perf -l,
    tc-mcast)"""
    is_perf = exp.get('tool', 'tc-perf') == 'tc-perf'
    if opts.launcher and is_perf:
        return opts.launcher.perf(tool['cmd'], targs, p['silence_ms'], tmpdir)
    if opts.launcher and '--simulate' not in p['args']:
        return opts.launcher.mcast(tool['cmd'], targs, tmpdir)
    ncpu = os.cpu_count() or 1
    # a topology sweep's point: its pair (sender: the client, receiver: the server)
    cli_cpu, srv_cpu = (str(c) for c in p.get('cores') or (0, 1 if ncpu > 1 else 0))
    if is_perf and exp.get('connection', 'two-process') == 'two-process':
        port = str(free_port())
        return ([tool['cmd'] + ['-p', port, '-c', srv_cpu, '-T', str(p['silence_ms'])]],
                tool['cmd'] + ['127.0.0.1', '-p', port, '-c', cli_cpu, '-T', str(p['silence_ms'])] + targs, None)
    if is_perf:
        return [], tool['cmd'] + ['-l', '-c', '%s,%s' % (cli_cpu, srv_cpu)] + targs, None
    return [], tool['cmd'] + targs, None


def wait_client(cli, timeout, t0, show, rundir):
    """the client's exit status, or 'timeout after Ns' (everything killed)"""
    rc = None
    while rc is None:
        try:
            rc = cli.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            el = time.time() - t0
            show(el)
            if el > timeout:
                kill_children()
                release_swaps(rundir)
                rc = 'timeout after %ds' % int(el)
    reap(cli)
    return rc


def stop_servers(bgs):
    """the background sides, given 15 s to exit after the client, then killed"""
    for srv in bgs:
        try:
            srv_rc = srv.wait(timeout=15)
        except subprocess.TimeoutExpired:
            srv_rc = 'server still running'
        if srv_rc not in (0,):
            signal_session(srv.pid, signal.SIGKILL)
            try:
                srv.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        reap(srv)


def run_point(exp, p, r, tools, st, prog, opts):
    """Runs round r of one point; returns the state entry."""
    name = exp['name']
    tool = tools[exp.get('tool', 'tc-perf')]
    csvf, jsonf, distf, logf = (st.file(name, p['point'], r, k) for k in ('csv', 'json', 'dist.csv', 'log'))
    for f in (csvf, jsonf, distf):
        if os.path.exists(f):
            os.remove(f)
    pvars = preset_vars(exp, opts.preset, opts.launcher is not None)
    timeout = max(float(pvars.get('timeout_s', 0)) or 0, 120.0, 10 * p['estimate_s'])
    t0 = time.time()
    targs = p['args'] + ['-q', '--csv', csvf]
    if exp.get('tool', 'tc-perf') == 'tc-perf':
        targs += ['--json', jsonf]
        if exp.get('dist'):
            targs += ['--dist', distf]
    with open(logf, 'w') as log:
        bg_argvs, argv, env = point_argv(exp, p, tool, targs, opts, st.dir)
        bgs = []
        for a in bg_argvs:
            log.write('$ %s &\n' % ' '.join(shlex.quote(x) for x in a))
            log.flush()
            bgs.append(spawn(a, log, st.dir, env))
        log.write('$ %s\n' % ' '.join(shlex.quote(a) for a in argv))
        log.flush()
        cli = spawn(argv, log, st.dir, env)
        rc = wait_client(cli, timeout, t0, lambda el: prog.show(point_label(exp, p, r, opts.rounds),
                                                                p['estimate_s'], el), st.dir)
        stop_servers(bgs)
    elapsed = time.time() - t0
    entry = {'status': 'ran', 'elapsed_s': round(elapsed, 3), 'args': p['args'], 'axes': p['axes'], 'round': r}
    if rc != 0 or not os.path.exists(csvf):
        with open(logf) as f:
            tail = [line.rstrip() for line in f.readlines() if line.strip()][-6:]
        entry.update(status='failed', reason='%s: %s' % (
            'exit %s' % rc if isinstance(rc, int) else rc, ' | '.join(tail) or 'no output'))
    return entry


class Collected:
    """An experiment's results gathered from its points' rounds: rows (and
    columns) of the CSV and the .dist.csv, each tool JSON, skips, failures."""

    def __init__(self):
        self.rows, self.cols, self.drows, self.dcols = [], [], [], []
        self.tool_json, self.skipped, self.failed, self.ran = [], [], [], 0
        self.elapsed = 0.0

    def add_csv(self, path, tag, rows, cols):
        fcols, frows = read_csv(path)
        cols += [c for c in fcols if c not in cols]
        for r in frows:
            r.update(tag)
            rows.append(r)

    def add_round(self, exp, st, p, rnd):
        """one round of a point that ran: its rows tagged with the prefix columns"""
        name = exp['name']
        tag = dict(experiment=name, point=p['point'], round=rnd, preset=st.data['preset'])
        self.add_csv(st.file(name, p['point'], rnd, 'csv'), tag, self.rows, self.cols)
        jf = st.file(name, p['point'], rnd, 'json')
        if os.path.exists(jf):
            with open(jf) as f:
                tj = json.load(f)
            tj['point'], tj['round'] = p['point'], rnd
            self.tool_json.append(tj)
        df = st.file(name, p['point'], rnd, 'dist.csv')
        if exp.get('dist') and os.path.exists(df):
            self.add_csv(df, tag, self.drows, self.dcols)

    def add_point(self, exp, st, p, rounds):
        for d in p['dropped']:
            self.skipped.append({'point': p['point'], 'args': '%s=%s' % (d['var'], d['value']),
                                 'reason': d['reason']})
        if p['skip']:
            self.skipped.append({'point': p['point'], 'args': ' '.join(p['args']), 'reason': p['skip']})
            return
        all_ran = True
        for rnd in range(1, rounds + 1):
            e = st.entry(exp['name'], p['point'], rnd)
            self.elapsed += e.get('elapsed_s', 0.0)
            if e.get('status') != 'ran':
                all_ran = False
                self.failed.append({'point': p['point'], 'round': rnd, 'args': ' '.join(p['args']),
                                    'reason': e.get('reason', 'not run')})
                continue
            self.add_round(exp, st, p, rnd)
        self.ran += all_ran


def write_csv(path, fields, data):
    tmp = path + '.tmp.%d' % os.getpid()
    with open(tmp, 'w', newline='') as f:
        w = csv.DictWriter(f, fieldnames=PREFIX_COLS + fields, restval='', extrasaction='ignore')
        w.writeheader()
        w.writerows(data)
    os.replace(tmp, path)


def write_meta(outdir, exp, points, st, c, platform, pid_, pair, host=None):
    """meta.json with this experiment's entry (the others kept) and the
    host's state over the run so far (host: a hoststate verdict)"""
    meta_path = os.path.join(outdir, 'meta.json')
    meta = {}
    if os.path.exists(meta_path):
        try:
            with open(meta_path) as f:
                meta = json.load(f)
        except ValueError:
            meta = {}
    meta.update(schema_version=SCHEMA_VERSION, platform_id=pid_, preset=st.data['preset'],
                git_rev=st.data['git_rev'], date=now_iso(), run_id=st.data['run_id'], platform=platform)
    if pair:
        # the pair's hosts, launcher and each host's own report; the network
        # device and UCX transports each point chose are in its tool_json
        meta['pair'] = pair
    else:
        meta.pop('pair', None)
    if host is not None:
        meta['host_state'] = dict(host, run_id=st.data['run_id'])
    meta.setdefault('experiments', {})[exp['name']] = {
        'title': exp.get('title', ''), 'paper': exp.get('paper', ''), 'tool': exp.get('tool', 'tc-perf'),
        'preset': st.data['preset'], 'run_id': st.data['run_id'], 'git_rev': st.data['git_rev'],
        'date': now_iso(), 'points': len(points), 'rounds': st.data.get('rounds', 1), 'ran': c.ran,
        'skipped': c.skipped, 'failed': c.failed,
        'point_axes': [dict({'point': p['point'], 'axes': p['axes'], 'args': p['args']},
                            **({'cores': p['cores']} if 'cores' in p else {})) for p in points],
        'tool_json': c.tool_json, 'elapsed_s': round(c.elapsed, 2)}
    if host is not None:
        # this experiment's share of the run: its own intervals judged
        mine = hoststate.verdict({'cpus': host.get('cpus'), 'before': host.get('before'),
                                  'during': [s for s in host.get('during', []) if s.get('experiment') == exp['name']]})
        meta['experiments'][exp['name']]['host_state'] = {k: mine[k] for k in ('busy', 'reasons', 'summary')}
    # experiments whose definition is gone keep no entry
    atomic_write(meta_path, json.dumps(meta, indent=1))


def finish_experiment(exp, points, st, outdir, opts, platform, pid_, pair=None, host=None):
    """Writes results/<platform>/<exp>.csv (and .dist.csv) whole, and its meta entry."""
    name = exp['name']
    c = Collected()
    for p in points:
        c.add_point(exp, st, p, st.data.get('rounds', 1))
    write_csv(os.path.join(outdir, name + '.csv'), c.cols, c.rows)
    dpath = os.path.join(outdir, name + '.dist.csv')
    if exp.get('dist'):
        write_csv(dpath, c.dcols, c.drows)
    elif os.path.exists(dpath):
        os.remove(dpath)           # stale: this run asked for no distribution
    write_meta(outdir, exp, points, st, c, platform, pid_, pair, host)
    return c.ran, len(c.skipped), len(c.failed)
