#!/usr/bin/env python3
"""Which files of lib/ use which (from the objects' defined and undefined
symbols, so inline helpers in headers do not count), and the import loops
among them: every strongly connected component of that graph (Tarjan), of
any length. One loop is there by design (ALLOWED below, which
docs/ARCHITECTURE.md quotes); any other is an error.

Usage: lib-imports.py OBJDIR [--src DIR] [--edges] [--allow A,B,...]
  --src DIR    only the objects with a DIR/<folder>/<name>.c (lib/'s own)
  --edges      print each file's uses first
  --allow ...  the allowed loop instead of ALLOWED ('' : none)
Prints one line per loop ("loop: a -> b -> c -> a", then what each step
uses), "allowed" or not. Exit 1 on a loop that is not the allowed one, 2 on
bad usage."""
import glob
import os
import subprocess
import sys

# The one loop lib/ has by design: a send that waits for a credit runs what
# arrives meanwhile (send -> peer_wait -> dispatch), and what ran may owe the
# peer a frame (dispatch -> send). docs/ARCHITECTURE.md, "Layers", quotes it.
ALLOWED = ("dispatch", "peer_wait", "send")


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


def loops(uses):
    """The strongly connected components of more than one file, each sorted
    (Tarjan's algorithm, iterative: no recursion limit on a long chain)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for root in sorted(uses):
        if root in index:
            continue
        work = [(root, iter(sorted(uses[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(uses[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def cycle_in(component, uses):
    """The shortest cycle from the component's first file back to it, as a
    path to print (a -> b -> ... -> a): an example, the loop is the whole
    component."""
    members = set(component)
    start = component[0]
    # breadth-first from start back to start, inside the component
    prev, frontier, seen = {}, [start], {start}
    while frontier:
        nxt = []
        for node in frontier:
            for child in sorted(uses[node] & members):
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(prev[path[-1]])
                    return list(reversed(path)) + [start]
                if child not in seen:
                    seen.add(child)
                    prev[child] = node
                    nxt.append(child)
        frontier = nxt
    return [start, start]


def main():
    argv = sys.argv[1:]
    if not argv or argv[0].startswith("-"):
        print("usage: lib-imports.py OBJDIR [--src DIR] [--edges] [--allow A,B,...]",
              file=sys.stderr)
        return 2
    objdir = argv[0]

    def value(flag):
        if flag not in argv:
            return None
        i = argv.index(flag)
        if i + 1 >= len(argv):
            print(f"lib-imports.py: {flag} needs a value", file=sys.stderr)
            sys.exit(2)
        return argv[i + 1]

    src = value("--src")
    allow = value("--allow")
    allowed = sorted(ALLOWED) if allow is None else sorted(a for a in allow.split(",") if a)
    defs, undefs = {}, {}
    for obj in sorted(glob.glob(os.path.join(objdir, "**", "*.o"), recursive=True)):
        name = os.path.basename(obj)[:-2]
        rel = os.path.relpath(obj, objdir)[:-2]
        if src is not None and not os.path.exists(os.path.join(src, rel + ".c")):
            continue
        defs[name], undefs[name] = symbols(obj)
    if not defs:
        print(f"lib-imports: no objects in {objdir}", file=sys.stderr)
        return 2
    owner = {s: n for n, ss in defs.items() for s in ss}
    uses = {n: {owner[s] for s in undefs[n] if s in owner and owner[s] != n} for n in defs}
    if "--edges" in argv:
        for a in sorted(uses):
            print(f"{a}: {' '.join(sorted(uses[a]))}")
    bad = 0
    for component in loops(uses):
        ok = component == allowed
        bad += not ok
        path = cycle_in(component, uses)
        print(f"loop{' (allowed)' if ok else ''} of {len(component)} files: "
              f"{' '.join(component)}; e.g. {' -> '.join(path)}")
        for a in component:
            for b in sorted(uses[a] & set(component)):
                why = sorted(s for s in undefs[a] if owner.get(s) == b)
                print(f"  {a} uses {b}: {', '.join(why)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
