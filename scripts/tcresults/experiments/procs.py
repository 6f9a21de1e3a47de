"""The processes a run starts: each point's tool invocations, every one the
leader of its own session (so a Ctrl-C is the runner's to pass on), killed
with all they started (stress-ng's process groups included), and the swap
files stress-ng leaves active."""
import os
import signal
import socket
import subprocess
import sys
import time

_children = []          # live Popen objects, each the leader of its own session
STOP = {'sig': None}


def session_members(sid):
    """pids whose session id is sid (everything a child started, including
    process groups it made with setpgid, e.g. tc-perf's stress-ng)."""
    pids = []
    for d in os.listdir('/proc'):
        if not d.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % d) as f:
                st = f.read()
        except OSError:
            continue
        fields = st[st.rfind(')') + 2:].split()
        # fields[0] is state, [1] ppid, [2] pgrp, [3] session
        if len(fields) > 3 and int(fields[3]) == sid:
            pids.append(int(d))
    return pids


def signal_session(sid, sig):
    try:
        os.killpg(sid, sig)
    except OSError:
        pass
    for pid in session_members(sid):
        try:
            os.kill(pid, sig)
        except OSError:
            pass


def kill_children(grace=2.0):
    """SIGTERM every session we started, SIGKILL what is left after grace."""
    procs = list(_children)
    for p in procs:
        signal_session(p.pid, signal.SIGTERM)
    deadline = time.time() + grace
    for p in procs:
        while time.time() < deadline and (p.poll() is None or session_members(p.pid)):
            time.sleep(0.05)
        if p.poll() is None or session_members(p.pid):
            signal_session(p.pid, signal.SIGKILL)
        try:
            p.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass
        # reap what is left of the session (SIGKILL is not refusable)
        end = time.time() + 2
        while session_members(p.pid) and time.time() < end:
            time.sleep(0.05)
        if p in _children:
            _children.remove(p)


def release_swaps(folder):
    """stress-ng's swap stressor, killed, leaves its swap file active (swapon)
    in its working folder: ours, the run's scratch folder. Turn those off."""
    try:
        with open('/proc/swaps') as f:
            lines = f.read().splitlines()[1:]
    except OSError:
        return
    folder = os.path.realpath(folder) + os.sep
    for line in lines:
        path = line.split()[0] if line.split() else ''
        if path.startswith(folder):
            r = subprocess.run(['swapoff', path], capture_output=True, text=True)
            if r.returncode != 0:
                print('tc-experiments: stress-ng left swap file %s active; swapoff: %s' % (
                    path, (r.stderr or '').strip()), file=sys.stderr)


def spawn(argv, log, cwd, env=None):
    # own session (Ctrl-C is ours to pass on); cwd in the run's scratch folder,
    # where stress-ng leaves its temporary files
    p = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                         start_new_session=True, cwd=cwd, env=env)
    _children.append(p)
    return p


def reap(p):
    if p in _children:
        _children.remove(p)


def on_signal(signum, frame):
    STOP['sig'] = signum
    raise KeyboardInterrupt


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port
