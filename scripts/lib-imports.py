#!/usr/bin/env python3
"""Which files of lib/ use which (from the objects' defined and undefined
symbols, so inline helpers in headers do not count; with --src also every
#include "..." line, which does count them), and what may not be:

- an import loop among them: every strongly connected component of the
  symbol graph (Tarjan), of any length, is an error (but one ALLOWED
  below names; none is).
- a use of a file in a folder above the user's: lib/ is in folders by
  layer, LAYERS below, bottom up; a file uses files of its own folder, of
  a folder below it, and lib/'s own top (the public header). A folder not
  in LAYERS is an error, and so, with --src, is a source outside a folder.
- UCX in a pure folder (PURE below): an undefined ucp_/ucs_/uct_ symbol in
  its objects, or with --src an #include <ucp|ucs|uct/...> in its files.
docs/ARCHITECTURE.md, "Layers", quotes ALLOWED, LAYERS and PURE.

Usage: lib-imports.py OBJDIR [--src DIR] [--edges] [--allow A,B,...] [--layers A,B,...]
  --src DIR     only the objects with a DIR/<folder>/<name>.c (lib/'s own);
                the #include lines of DIR's files are checked too
  --edges       print each file's uses first
  --allow ...   the allowed loop instead of ALLOWED ('' : none)
  --layers ...  the folders' order instead of LAYERS ('' : no layer check)
Prints one line per loop ("loop: a -> b -> c -> a", then what each step
uses), "allowed" or not, one "layer: ..." line per use of a folder above,
one "pure: ..." line per use of UCX in a pure folder. Exit 1 on any of
them but the allowed loop, 2 on bad usage."""
import glob
import os
import re
import subprocess
import sys

# No loop is allowed: a send that waits for a credit runs what arrives
# meanwhile (send -> peer_wait -> dispatch), and what ran may owe the peer a
# frame, which dispatch sends through the step send.c registered in the
# context's table (tc_rx_register_owed), not by name. docs/ARCHITECTURE.md,
# "Layers", quotes it.
ALLOWED = ()

# lib/'s folders, bottom up: a file may use its own folder and those before
# it (and lib/twochains.h, the API every folder includes). The pure ones
# use no UCX. docs/ARCHITECTURE.md, "Layers", quotes both.
LAYERS = ("base", "codec", "arch", "boot", "core", "wireup", "jam", "group")
PURE = ("base", "codec", "arch", "boot")
UCX_PREFIXES = ("ucp_", "ucs_", "uct_")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


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
        print("usage: lib-imports.py OBJDIR [--src DIR] [--edges] [--allow A,B,...] "
              "[--layers A,B,...]",
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
    order = value("--layers")
    layers = LAYERS if order is None else tuple(a for a in order.split(",") if a)
    defs, undefs, folder = {}, {}, {}
    for obj in sorted(glob.glob(os.path.join(objdir, "**", "*.o"), recursive=True)):
        name = os.path.basename(obj)[:-2]
        rel = os.path.relpath(obj, objdir)[:-2]
        if src is not None and not os.path.exists(os.path.join(src, rel + ".c")):
            continue
        defs[name], undefs[name] = symbols(obj)
        folder[name] = os.path.dirname(rel)
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
    if layers:
        bad += check_layers(layers, folder, uses, undefs, owner)
        if src is not None:
            bad += check_includes(layers, src)
    return 1 if bad else 0


def rank_of(layers, where):
    """A folder's place in layers: -1 for lib/'s top (the API), None for a
    folder that is in no layer."""
    if where == "":
        return -1
    return layers.index(where) if where in layers else None


def check_layers(layers, folder, uses, undefs, owner):
    """Every use of a file in a folder above the user's, every object
    outside the layers, every UCX symbol a pure folder's object needs."""
    bad = 0
    for a in sorted(folder):
        if rank_of(layers, folder[a]) in (None, -1):
            print(f"layer: {os.path.join(folder[a], a)} is in no folder of the layers "
                  f"({', '.join(layers)})")
            bad += 1
    for a in sorted(uses):
        ra = rank_of(layers, folder[a])
        for b in sorted(uses[a]):
            rb = rank_of(layers, folder[b])
            if ra is not None and rb is not None and rb > ra:
                why = sorted(s for s in undefs[a] if owner.get(s) == b)
                print(f"layer: {folder[a]}/{a} uses {folder[b]}/{b}, a folder above it: "
                      f"{', '.join(why)}")
                bad += 1
        ucx = sorted(s for s in undefs[a] if s.startswith(UCX_PREFIXES))
        if folder[a] in PURE and ucx:
            print(f"pure: {folder[a]}/{a} uses UCX: {', '.join(ucx)}")
            bad += 1
    return bad


def check_includes(layers, src):
    """The #include lines of src's files: a header of a folder above the
    includer's (a header's inline code is a use the objects do not show), a
    UCX header in a pure folder, a source outside the folders. A quoted
    name is looked up as the compiler does: beside the includer, then in
    src and each of its folders (the Makefile's -I list)."""
    files = sorted(os.path.relpath(f, src) for f in glob.glob(os.path.join(src, "**", "*.[ch]"),
                                                              recursive=True))
    dirs = [""] + sorted({os.path.dirname(f) for f in files if os.path.dirname(f)})
    bad = 0
    # every folder is on the include path, and objects are known by their
    # file's name: two files of one name would make both ambiguous
    seen = {}
    for f in files:
        seen.setdefault(os.path.basename(f), []).append(f)
    for name, where in sorted(seen.items()):
        if len(where) > 1:
            print(f"layer: {' and '.join(where)} share a name (every folder is on the "
                  f"include path, and objects are known by name)")
            bad += 1
    for f in files:
        where = f.split(os.sep)[0] if os.sep in f else ""
        rf = rank_of(layers, where)
        if where == "" and f.endswith(".c"):
            print(f"layer: {f} is in no folder of the layers ({', '.join(layers)})")
            bad += 1
        with open(os.path.join(src, f), errors="replace") as fh:
            text = fh.read()
        for kind, name in INCLUDE.findall(text):
            if where in PURE and name.split("/")[0] in ("ucp", "ucs", "uct"):
                print(f"pure: {f} includes {kind}{name}{'>' if kind == '<' else kind}")
                bad += 1
                continue
            # <name> is looked up on the include path alone, which holds
            # every folder: a lib/ header so named is a use like any other
            for d in ([os.path.dirname(f)] if kind == '"' else []) + dirs:
                target = os.path.normpath(os.path.join(d, name))
                if target in files:
                    break
            else:
                continue
            there = target.split(os.sep)[0] if os.sep in target else ""
            rt = rank_of(layers, there)
            if rf is not None and rt is not None and rt > rf:
                print(f"layer: {f} includes {target}, a folder above it")
                bad += 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
