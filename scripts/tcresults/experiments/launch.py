"""Points between two hosts: how a launcher (mpirun, srun, ssh) starts a
point's processes on them, and the pair's platform report."""
import json
import os
import re
import shlex
import shutil
import subprocess

from .. import paths
from .plan import opt_value
from .procs import free_port

FORWARD_ENV = re.compile(r'^(UCX_[A-Z0-9_]+|TC_LOG_LEVEL|TC_TEST_QUICK)$')


class Launcher:
    """Starts a point's processes on other hosts. hosts: 'NAME[=ADDR]', the
    first the client's (tc-mcast: rank 0's), the second the server's; ADDR
    is where the others reach it (default NAME)."""

    def __init__(self, hosts, kind, mpirun_args='', rsh='ssh'):
        self.kind = kind
        self.hosts, self.addr = [], {}
        for h in hosts:
            name, _, addr = h.partition('=')
            if not name:
                raise ValueError('empty host name in --hosts')
            self.hosts.append(name)
            self.addr[name] = addr or name
        if len(self.hosts) < 2:
            raise ValueError('--hosts needs two hosts (client, server), got %s' % ','.join(hosts))
        if kind not in ('mpirun', 'srun', 'ssh'):
            raise ValueError('--launcher %r: mpirun, srun or ssh' % kind)
        need = {'mpirun': 'mpirun', 'srun': 'srun'}.get(kind, shlex.split(rsh)[0] if rsh else 'ssh')
        if shutil.which(need) is None and not os.path.exists(need):
            raise ValueError('--launcher %s: %s not found' % (kind, need))
        self.mpirun_args = shlex.split(mpirun_args or '')
        self.rsh = shlex.split(rsh or 'ssh')
        self.env = {k: v for k, v in os.environ.items() if FORWARD_ENV.match(k)}

    def _mpirun(self, hostlist, n, extra=()):
        argv = ['mpirun'] + (['--allow-run-as-root'] if os.geteuid() == 0 else [])
        argv += ['--oversubscribe', '--bind-to', 'none', '--host', hostlist, '-n', str(n)]
        argv += list(extra) + self.mpirun_args
        for k in sorted(self.env):
            argv += ['-x', k]
        return argv

    def _srun(self, nodes, n, hostfile=None):
        # --overcommit: more ranks than the allocation has cores (a small host)
        argv = ['srun', '--mpi=pmix', '--overcommit', '-n', str(n)]
        if hostfile:   # task r on line r of SLURM_HOSTFILE, which also names the nodes
            return argv + ['--distribution=arbitrary']
        return argv + ['-w', ','.join(dict.fromkeys(nodes))]

    def _ssh(self, host, argv):
        env = ['env'] + ['%s=%s' % kv for kv in sorted(self.env.items())]
        return self.rsh + [host, ' '.join(shlex.quote(a) for a in env + argv)]

    def one(self, host, argv):
        """argv run once on host."""
        if self.kind == 'mpirun':
            return self._mpirun(host + ':1', 1) + argv
        if self.kind == 'srun':
            return self._srun([host], 1) + argv
        return self._ssh(host, argv)

    def perf(self, cmd, args, silence_ms, tmpdir):
        """(background argv lists, client argv, env) for one tc-perf point."""
        cli, srv = self.hosts[0], self.hosts[1]
        if self.kind == 'mpirun':   # rank 0 serves on the second host, rank 1 measures on the first
            return [], self._mpirun('%s:1,%s:1' % (srv, cli), 2) + cmd + [
                '--boot', 'pmix', '-c', '0,1', '-T', str(silence_ms)] + args, None
        if self.kind == 'srun':
            hf = os.path.join(tmpdir, 'srun-hosts')
            with open(hf, 'w') as f:
                f.write('%s\n%s\n' % (srv, cli))
            env = dict(os.environ, SLURM_HOSTFILE=hf)
            return [], self._srun([srv, cli], 2, hf) + cmd + [
                '--boot', 'pmix', '-c', '0,1', '-T', str(silence_ms)] + args, env
        port = str(free_port())
        server = self._ssh(srv, cmd + ['--boot', 'tcp', '-p', port, '-c', '1', '-T', str(silence_ms)])
        client = self._ssh(cli, cmd + [self.addr[srv], '--boot', 'tcp', '-p', port, '-c', '0',
                                       '-T', str(silence_ms)] + args)
        return [server], client, None

    def mcast(self, cmd, args, tmpdir):
        """(background argv lists, rank 0's argv, env) for one tc-mcast point; the
        ranks go round-robin over the hosts."""
        n = int(opt_value(args, '-n', '4'))
        if self.kind == 'mpirun':
            hl = ','.join('%s:%d' % (h, n) for h in self.hosts)
            return [], self._mpirun(hl, n, ['--map-by', 'node']) + cmd + ['--boot', 'pmix'] + args, None
        if self.kind == 'srun':   # round-robin over the nodes (Slurm orders them by name)
            nodes = list(dict.fromkeys(self.hosts))
            return [], self._srun(nodes, n) + ['-N', str(len(nodes)), '--distribution=cyclic'] + cmd + [
                '--boot', 'pmix'] + args, None
        boot = '%s:%d' % (self.addr[self.hosts[0]], free_port())
        ranks = []
        for r in range(n):
            h = self.hosts[r % len(self.hosts)]
            ranks.append(self.rsh + [h, ' '.join(shlex.quote(a) for a in
                         ['env'] + ['%s=%s' % kv for kv in sorted(self.env.items())] +
                         ['TC_RANK=%d' % r, 'TC_SIZE=%d' % n, 'TC_BOOT=' + boot] + cmd +
                         ['--boot', 'tcp'] + args)])
        return ranks[1:], ranks[0], None

    def describe(self):
        return {'launcher': self.kind, 'client': self.hosts[0], 'server': self.hosts[1],
                'hosts': self.hosts, 'addresses': self.addr,
                'mpirun_args': self.mpirun_args if self.kind == 'mpirun' else [],
                'rsh': self.rsh if self.kind == 'ssh' else [], 'env': self.env}


def run_on_host(launcher, host, argv, timeout=120):
    r = subprocess.run(launcher.one(host, argv), capture_output=True, text=True, timeout=timeout,
                       stdin=subprocess.DEVNULL)
    if r.returncode != 0:
        raise RuntimeError('%s on %s: exit %d: %s' % (' '.join(argv), host, r.returncode,
                                                      (r.stderr or r.stdout).strip()[-300:]))
    return r.stdout


def pair_platform(launcher, tools):
    """(platform id of the pair, the client host's platform report with what a
    pair cannot do marked so, per-host {id, report})."""
    per = {}
    for h in launcher.hosts[:2]:
        pid_ = run_on_host(launcher, h, [os.path.join(paths.SCRIPTS, 'platform-id.sh')]).strip().split('\n')[-1]
        rep = json.loads(run_on_host(launcher, h, tools['tc-perf']['cmd'] + ['--platform', '--json', '-']))
        per[h] = {'platform_id': pid_, 'platform': rep}
    a, b = (per[h]['platform_id'] for h in launcher.hosts[:2])
    pair_id = 'pair-%s-x2' % a if a == b else 'pair-%s--%s' % (a, b)
    report = json.loads(json.dumps(per[launcher.hosts[0]]['platform']))
    why = ('unsupported: between two hosts the peer\'s mailbox is not mapped '
           '(llc and dram need same-host shared memory)')
    for place in ('llc', 'dram'):
        if isinstance(report.get('placement'), dict) and place in report['placement']:
            report['placement'][place] = why
    return pair_id, report, per
