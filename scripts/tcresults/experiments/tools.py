"""The tools a run uses (tc-perf, tc-mcast: present, and the options their
-h lists), the platform report, the platform id and the tree's revision."""
import json
import os
import re
import subprocess
import sys

from .. import paths


def git_rev():
    try:
        rev = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], cwd=paths.TOP, capture_output=True,
                             text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(['git', 'status', '--porcelain', '--untracked-files=no'], cwd=paths.TOP,
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return (rev + ('-dirty' if dirty else '')) if rev else 'unknown'
    except (OSError, subprocess.SubprocessError):
        return 'unknown'


def platform_id(override):
    if override:
        return override
    if os.environ.get('TC_PLATFORM_ID'):
        return os.environ['TC_PLATFORM_ID']
    return subprocess.run([os.path.join(paths.SCRIPTS, 'platform-id.sh')], capture_output=True,
                          text=True, check=True).stdout.strip()


def probe_tool(name, cmd):
    """{'present', 'why', 'options', 'cmd'} from TOOL -h."""
    if cmd is None:
        path = os.path.join(os.environ.get('TC_BUILD') or os.path.join(paths.TOP, 'build'), 'bin', name)
        if not os.access(path, os.X_OK):
            return {'present': False, 'why': '%s not built' % name, 'options': set(), 'cmd': [path]}
        cmd = [path]
    try:
        r = subprocess.run(cmd + ['-h'], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError) as e:
        return {'present': False, 'why': '%s: %s' % (name, e), 'options': set(), 'cmd': cmd}
    text = r.stdout + r.stderr
    return {'present': True, 'options': set(re.findall(r'(--[a-z][a-z0-9-]*)', text)), 'cmd': cmd}


def platform_report(tools, fake):
    if fake:
        with open(fake) as f:
            return json.load(f)
    t = tools['tc-perf']
    if not t['present']:
        sys.exit('tc-experiments: %s: build first (make all)' % t['why'])
    r = subprocess.run(t['cmd'] + ['--platform', '--json', '-'], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        sys.exit('tc-experiments: tc-perf --platform --json - failed: %s' % r.stderr.strip())
    return json.loads(r.stdout)


def topology(tools):
    """sel -> the pairs tc-perf --pairs SEL --json - lists (this host's
    topology, or HWLOC_SYNTHETIC's / HWLOC_XMLFILE's); ValueError with
    tc-perf's reason for a selection it refuses"""
    cache = {}

    def get(sel):
        if sel not in cache:
            r = subprocess.run(tools['tc-perf']['cmd'] + ['--pairs', sel, '--json', '-'],
                               capture_output=True, text=True, timeout=60)
            if r.returncode != 0:
                raise ValueError((r.stderr.strip().split('\n') or ['tc-perf --pairs failed'])[0])
            try:
                cache[sel] = json.loads(r.stdout)
            except ValueError:
                raise ValueError('tc-perf --pairs %s --json - wrote no JSON: %r' % (sel, r.stdout[:80]))
        return cache[sel]
    return get
