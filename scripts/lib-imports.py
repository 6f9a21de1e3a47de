#!/usr/bin/env python3
"""Which files of lib/ use which (from the objects' defined and undefined
symbols, so inline helpers in headers do not count), and whether two of them
use each other. Usage: lib-imports.py OBJDIR [--edges]. Exit 1 on a circle
between two files."""
import glob
import os
import subprocess
import sys


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TDRB":
            defined.add(f[2])
        elif len(f) == 2 and f[0] == "U":
            undefined.add(f[1])
    return defined, undefined


def main():
    if len(sys.argv) < 2:
        print("usage: lib-imports.py OBJDIR [--src DIR] [--edges]", file=sys.stderr)
        return 2
    objdir = sys.argv[1]
    src = sys.argv[sys.argv.index("--src") + 1] if "--src" in sys.argv[:-1] else None
    defs, undefs = {}, {}
    for obj in sorted(glob.glob(os.path.join(objdir, "*.o"))):
        name = os.path.basename(obj)[:-2]
        if src is not None and not os.path.exists(os.path.join(src, name + ".c")):
            continue
        defs[name], undefs[name] = symbols(obj)
    if not defs:
        print(f"lib-imports: no objects in {objdir}", file=sys.stderr)
        return 2
    owner = {s: n for n, ss in defs.items() for s in ss}
    uses = {n: {owner[s] for s in undefs[n] if s in owner and owner[s] != n} for n in defs}
    if "--edges" in sys.argv:
        for a in sorted(uses):
            print(f"{a}: {' '.join(sorted(uses[a]))}")
    circles = [(a, b) for a in sorted(uses) for b in sorted(uses[a]) if a < b and a in uses[b]]
    for a, b in circles:
        why_a = sorted(s for s in undefs[a] if owner.get(s) == b)
        why_b = sorted(s for s in undefs[b] if owner.get(s) == a)
        print(f"circle: {a} uses {b} ({', '.join(why_a)}) and {b} uses {a} ({', '.join(why_b)})")
    return 1 if circles else 0


if __name__ == "__main__":
    sys.exit(main())
