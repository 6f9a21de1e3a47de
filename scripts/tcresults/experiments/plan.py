"""An experiment definition (scripts/experiments/*.json) expanded into its
points: the cartesian product of its sweep axes, one tool invocation each,
its arguments built from the preset's variables, what the platform cannot
run skipped (a point) or dropped (a list value) with the reason, and each
point's time estimated."""
import itertools
import json
import os
import re
import shutil
import sys


def lookup(tree, path):
    """platform JSON value at a dotted path, or None."""
    cur = tree
    for part in path.split('.'):
        if not isinstance(cur, dict) or part not in cur:
            return None
        cur = cur[part]
    return cur


def load_experiments(exp_dir, names):
    files = sorted(f for f in os.listdir(exp_dir) if f.endswith('.json'))
    exps = []
    for f in files:
        with open(os.path.join(exp_dir, f)) as fh:
            try:
                e = json.load(fh)
            except ValueError as err:
                sys.exit('tc-experiments: %s: %s' % (f, err))
        e.setdefault('name', f[:-5])
        if e['name'] != f[:-5]:
            sys.exit('tc-experiments: %s: name %r differs from the file name' % (f, e['name']))
        exps.append(e)
    if not names:
        return exps
    chosen = []
    for n in names:
        m = [e for e in exps if e['name'] == n] or [e for e in exps if e['name'].startswith(n)]
        if not m:
            sys.exit('tc-experiments: no experiment %r (have: %s)' % (n, ', '.join(e['name'] for e in exps)))
        for e in m:
            if e not in chosen:
                chosen.append(e)
    return chosen


_PH = re.compile(r'\{([A-Za-z_][A-Za-z0-9_]*)\}')


def render(value):
    if value is None:
        return '-'
    if isinstance(value, list):
        return ','.join(str(v) for v in value)
    if value is True:
        return 'on'
    if value is False:
        return 'off'
    return str(value)


def subst(token, env):
    def rep(m):
        return render(env[m.group(1)])
    return _PH.sub(rep, token)


def placeholders(tokens):
    names = []
    for t in tokens:
        names += _PH.findall(t)
    return names


def is_set(v):
    return v is not None and v is not False and v != [] and v != ''


def build_args(spec, env):
    """spec: strings (always), lists (only when every placeholder is set),
    {"if": var, "args": [...]} (only when var is set)."""
    out = []
    for el in spec:
        if isinstance(el, str):
            missing = [n for n in placeholders([el]) if not is_set(env.get(n))]
            if missing:
                raise ValueError('argument %r needs %s' % (el, ', '.join(missing)))
            out.append(subst(el, env))
        elif isinstance(el, list):
            if all(is_set(env.get(n)) for n in placeholders(el)):
                out += [subst(t, env) for t in el]
        elif isinstance(el, dict):
            if is_set(env.get(el['if'])):
                out += build_args(el['args'], env)
        else:
            raise ValueError('bad argument element %r' % (el,))
    return out


def check_requirement(req, value, platform, tools):
    """None when value is runnable, else the reason."""
    if isinstance(req, dict):
        req = req.get(str(value), req.get('*'))
    if not req:
        return None
    for r in ([req] if isinstance(req, str) else req):
        r = r.replace('{}', str(value))
        if r.startswith('command:'):
            cmd = r.split(':', 1)[1]
            # tools['commands']: the commands taken as installed (a plan
            # for another host's report); else what this host's PATH has
            known = tools.get('commands')
            if (cmd not in known) if known is not None else shutil.which(cmd) is None:
                return '%s not installed (scripts/deps.sh)' % cmd
            continue
        if r.startswith('tool:'):
            name = r.split(':', 1)[1]
            if not tools.get(name, {}).get('present'):
                return tools.get(name, {}).get('why', '%s not built' % name)
            continue
        v = lookup(platform, r)
        if v is None:
            return 'platform report has no %s' % r
        if v != 'supported':
            return '%s %s' % (r, v)
    return None


def preset_vars(exp, preset, hosts):
    """The preset's variables; between hosts, with its "hosts" overrides
    (variables, axes, per-sweep axes) on top."""
    pvars = dict(exp['presets'][preset])
    over = pvars.pop('hosts', {})
    if hosts:
        for k, v in over.items():
            if k == 'sweeps':
                sw = json.loads(json.dumps(pvars.get('sweeps', {})))
                for si, sv in v.items():
                    sw.setdefault(si, {}).update(sv)
                pvars['sweeps'] = sw
            else:
                pvars[k] = v
    return pvars


def sweep_env(exp, pvars, si, sw):
    """(variables, axis names, axis values) of one sweep under the preset"""
    env0 = dict(exp.get('vars', {}))
    env0.update(sw.get('vars', {}))
    env0.update({k: v for k, v in pvars.items() if k not in ('axes', 'sweeps')})
    env0.update(pvars.get('sweeps', {}).get(str(si), {}))
    axes = list(exp.get('axes', [])) + list(sw.get('axes', []))
    over = dict(pvars.get('axes', {}))
    over.update(pvars.get('sweeps', {}).get(str(si), {}).get('axes', {}))
    return env0, [a['name'] for a in axes], [over.get(a['name'], a['values']) for a in axes]


def point_env(env0, names, combo):
    """the variables of one point: the sweep's, and its axis values"""
    env = dict(env0)
    for n, v in zip(names, combo):
        # {"value": V, "vars": {...}}: V, with variables for this value
        # (e.g. fewer iterations under --stress)
        if isinstance(v, dict):
            env.update(v.get('vars', {}))
            v = v.get('value')
        env[n] = v
    return env


def requirements(requires, env, platform, tools):
    """(skip reasons, dropped list values) of one point's variables against
    what the platform runs; a list variable in env keeps what it can run"""
    skip, dropped = [], []
    for var, req in requires.items():
        if var not in env or not is_set(env[var]):
            continue
        val = env[var]
        if isinstance(val, list):
            keep = []
            for v in val:
                why = check_requirement(req, v, platform, tools)
                if why:
                    dropped.append({'var': var, 'value': v, 'reason': why})
                else:
                    keep.append(v)
            if not keep:
                skip.append('no %s this platform runs (%s)' % (
                    var, '; '.join('%s: %s' % (d['value'], d['reason']) for d in dropped
                                   if d['var'] == var)))
            env[var] = keep
        else:
            why = check_requirement(req, val, platform, tools)
            if why:
                skip.append('%s=%s: %s' % (var, render(val), why))
    return skip, dropped


# An axis whose values are "topology": the core pairs of this host that
# `tc-perf --pairs SEL` lists (SEL: the variable "pairs", tc-experiments
# --pairs), one point each, its server pinned to the receiver, its client to
# the sender (scripts/tc-topo).
TOPOLOGY = 'topology'


def pair_values(sel, tools, hosts):
    """the values of a topology axis: (values, skip reason or None)"""
    if hosts:
        return [None], 'a topology sweep pairs the cores of one host, not two hosts'
    if not tools.get('tc-perf', {}).get('present'):
        return [None], tools.get('tc-perf', {}).get('why', 'tc-perf not built')
    if 'topology' not in tools:     # a plan for another host's report: its pairs are unknown here
        return [None], 'no topology to pair (tc-perf --pairs on the host itself)'
    doc = tools['topology'](sel)     # ValueError: a bad selection, said why
    if not doc['pairs']:
        return [None], 'no pair of PUs to measure (%d PU)' % doc.get('pus', 0)
    return [{'value': '%d:%d' % (p['a'], p['b']),
             'vars': {'sender': p['a'], 'receiver': p['b'], 'pair_class': p['class'],
                      'pair_nic': p['nic']}} for p in doc['pairs']], None


def expand(exp, preset, platform, tools, hosts=False, pairs=None):
    """The experiment's points: dicts with point, sweep, axes, args, skip,
    dropped (in-run list values the platform cannot run, with reasons);
    a topology axis's points have cores (sender, receiver). pairs: the
    selection of a topology axis (default: the preset's "pairs")."""
    if preset not in exp.get('presets', {}):
        raise ValueError('%s: no preset %r' % (exp['name'], preset))
    pvars = preset_vars(exp, preset, hosts)
    tool = exp.get('tool', 'tc-perf')
    tinfo = tools.get(tool, {})
    points = []
    for si, sw in enumerate(exp.get('sweeps') or [{}]):
        env0, names, values = sweep_env(exp, pvars, si, sw)
        topo_skip = None
        if TOPOLOGY in values:
            env0['pairs'] = pairs or env0.get('pairs') or 'classes'
            vals, topo_skip = pair_values(env0['pairs'], tools, hosts)
            values = [vals if v == TOPOLOGY else v for v in values]
        spec = sw.get('args', exp.get('args', []))
        for combo in itertools.product(*values):
            env = point_env(env0, names, combo)
            skip = [] if tinfo.get('present') else [tinfo.get('why', '%s not built' % tool)]
            if topo_skip and topo_skip not in skip:
                skip.append(topo_skip)
            if hosts and tool == 'tc-perf' and exp.get('connection', 'two-process') != 'two-process':
                skip.append('a %s experiment runs in one process, not between hosts' %
                            exp.get('connection'))
            wanted = dict(env)
            why, dropped = requirements(exp.get('requires', {}), env, platform, tools)
            skip += why
            try:
                args = build_args(spec, env)
            except ValueError:
                if not why:
                    raise
                # a list the platform runs no value of: the point is skipped
                # (said why), its arguments are what it would have run
                args = build_args(spec, wanted)
            if tinfo.get('present') and not skip:
                lacking = [o for o in args if o.startswith('--') and o not in tinfo.get('options', set())]
                if lacking:
                    skip.append('%s has no %s (a build older than the option? make all)' % (
                        tool, ', '.join(lacking)))
            axes = {n: env[n] for n in names}
            pt = {'point': len(points), 'sweep': si, 'axes': axes,
                  'args': args, 'skip': '; '.join(skip) or None, 'dropped': dropped,
                  'silence_ms': int(env.get('silence_ms', 60000)), 'estimate_s': 0.0}
            if env.get('sender') is not None:
                # the pair's classes as axes: the CSV's rows get them (axis:class)
                axes.update({'class': env['pair_class'], 'nic': env['pair_nic']})
                pt['cores'] = [env['sender'], env['receiver']]
            points.append(pt)
    for p in points:
        p['estimate_s'] = estimate(exp, p, pvars)
    return points


# seconds per iteration = a + b * payload bytes, measured on a 2-core KVM guest
# (jam rows are indirect_put, the slower jam); an invocation costs START_S more.
COST = {'jam_lat': (1.5e-6, 6e-9), 'put_lat': (1.0e-6, 1.5e-10), 'am_lat': (2.0e-6, 3e-10),
        'jam_rate': (0.2e-6, 1e-9), 'put_rate': (0.1e-6, 3e-10), 'am_rate': (0.5e-6, 3e-10)}
START_S = 2.0


def opt_value(args, name, default=None):
    """the value after option name in args, else default"""
    for i, a in enumerate(args[:-1]):
        if a == name:
            return args[i + 1]
    return default


def estimate(exp, p, pvars):
    if p['skip']:
        return 0.0
    if 'estimate_s' in pvars:          # a fixed per-point guess (tc-mcast)
        return float(pvars['estimate_s'])
    a = p['args']
    tests = opt_value(a, '-t', 'jam_lat').split(',')
    sizes = [int(s) for s in opt_value(a, '-s', '8').split(',')]
    n = int(opt_value(a, '-n', '1000000')) + int(opt_value(a, '-w', '10000'))
    modes = len(opt_value(a, '-m', 'local').split(','))
    lists = len(opt_value(a, '-W', 'poll').split(',')) * len(opt_value(a, '--placement', 'default').split(','))
    stress = opt_value(a, '--stress') is not None
    load = float(pvars.get('load_factor', 1.0)) if stress else 1.0
    # under stress-ng the two sides wait for the scheduler: a floor per iteration
    floor = float(pvars.get('stress_iter_s', 0.0)) if stress else 0.0
    t = float(pvars.get('stress_start_s', 0.0)) if stress else 0.0   # stress-ng start and stop
    # --gap-us: the client idles that long before every iteration, warm-up included
    gap = float(opt_value(a, '--gap-us', '0')) * 1e-6
    for test in tests:
        ca, cb = COST.get(test, (2e-6, 1e-9))
        reps = lists * (modes if test.startswith('jam') else 1)
        t += sum(reps * n * (gap + max(floor, (ca + cb * s) * load)) for s in sizes)
    return START_S + t
