"""A run's state (results/<platform>/.partial/state.json: what --resume
continues), its progress line, and the small helpers both use."""
import datetime
import json
import os
import shutil
import sys
import time
import uuid

from .. import cli


def now_iso():
    return datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')


def fmt_s(s):
    s = int(round(max(0, s)))
    if s >= 3600:
        return '%dh%02dm' % (s // 3600, s % 3600 // 60)
    if s >= 60:
        return '%dm%02ds' % (s // 60, s % 60)
    return '%ds' % s


def short(text, n=110):
    return text if len(text) <= n else text[:n - 3] + '...'


atomic_write = cli.write_whole


class State:
    """results/<platform>/.partial/state.json: the run in progress."""

    def __init__(self, outdir):
        self.dir = os.path.join(outdir, '.partial')
        self.path = os.path.join(self.dir, 'state.json')
        self.data = None

    def exists(self):
        return os.path.exists(self.path)

    def load(self):
        with open(self.path) as f:
            self.data = json.load(f)
        return self.data

    def new(self, preset, names, rev):
        if os.path.isdir(self.dir):
            shutil.rmtree(self.dir)
        os.makedirs(self.dir)
        self.data = {'run_id': uuid.uuid4().hex[:12], 'preset': preset, 'experiments': names,
                     'started': now_iso(), 'git_rev': rev, 'elapsed_s': 0.0, 'points': {}}
        self.save()

    def save(self):
        atomic_write(self.path, json.dumps(self.data, indent=1))

    @staticmethod
    def key(i, r):
        return '%d.r%d' % (i, r)

    def entry(self, exp, i, r):
        return self.data['points'].get(exp, {}).get(self.key(i, r), {})

    def done(self, exp, i, r):
        return self.entry(exp, i, r).get('status') in ('ran', 'skipped')

    def record(self, exp, i, r, entry):
        self.data['points'].setdefault(exp, {})[self.key(i, r)] = entry
        self.save()

    def file(self, exp, i, r, kind):
        return os.path.join(self.dir, '%s.%d.r%d.%s' % (exp, i, r, kind))


class Progress:
    def __init__(self, total_points, total_est):
        self.n = total_points
        self.total_est = total_est
        self.done_est = 0.0
        self.done_real = 0.0
        self.i = 0
        self.t0 = time.time()
        self.tty = sys.stderr.isatty()
        self.last = 0.0

    def left(self, cur_est, cur_elapsed):
        # measured / estimated so far, damped (60 s of prior at 1.0) and bounded
        scale = (self.done_real + 60.0) / (self.done_est + 60.0)
        scale = min(max(scale, 0.3), 5.0)
        return max(0.0, (self.total_est - self.done_est) * scale - cur_elapsed)

    def show(self, label, cur_est, cur_elapsed, force=False):
        t = time.time()
        if not force and (not self.tty or t - self.last < 1.0):
            return
        self.last = t
        line = 'point %d of %d: %s | elapsed %s, about %s left' % (
            self.i, self.n, label, fmt_s(t - self.t0), fmt_s(self.left(cur_est, cur_elapsed)))
        if self.tty:
            cols = shutil.get_terminal_size((120, 20)).columns
            sys.stderr.write('\r' + line[:cols - 1].ljust(cols - 1))
        else:
            sys.stderr.write(line + '\n')
        sys.stderr.flush()

    def finish_point(self, est, real):
        self.done_est += est
        self.done_real += real

    def newline(self):
        if self.tty:
            sys.stderr.write('\n')
