#!/usr/bin/env python3
"""Small copies of the real experiment definitions, for tests that run them
end to end with the real tools: fig07-08 with server_sum at 8 B and 4 KiB,
2,000 iterations; with 'mcast', mcast-scaling's measured sweep at N = 4 (tree)
between hosts.
usage: small-defs.py SCRIPTS_EXPERIMENTS_DIR OUT_DIR [mcast]"""
import json
import sys

src, dst = sys.argv[1], sys.argv[2]
e = json.load(open(src + '/fig07-08-injected.json'))
e['axes'] = [{'name': 'jam', 'values': ['server_sum']}]
e['presets']['quick'].update(sizes=[8, 4096], iters=2000, warmup=100)
json.dump(e, open(dst + '/fig07-08-injected.json', 'w'))
if 'mcast' in sys.argv[3:]:
    m = json.load(open(src + '/mcast-scaling.json'))
    m['sweeps'] = m['sweeps'][:1]
    m['presets']['quick']['hosts'] = {'iters': 100, 'warmup': 10,
                                      'sweeps': {'0': {'axes': {'n': [4], 'naive': [False]}}}}
    json.dump(m, open(dst + '/mcast-scaling.json', 'w'))
