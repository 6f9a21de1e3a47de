"""What docs/JAMS.md quotes from the build: each jam's code bytes and GOT
slots (the bench package's manifest.tcm, as tc-pkg wrote it) and the largest
payload an injected frame of it carries in a default slot."""
import os
import re
import subprocess

from .sources import Out, Skip, generator

# an injected frame: a 64-byte header, the image (code and GOT vector,
# rounded up to 8 bytes), the payload, and an 8-byte signal word (lib/codec/frame.c)
HEADER, SIGNAL = 64, 8


def compiler():
    """the C compiler the build uses, as NAME-VERSION (CC, else gcc as the Makefile's default)"""
    cc = os.environ.get("CC") or "gcc"
    try:
        ver = subprocess.run([cc, "-dumpfullversion"], capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        ver = ""
    return "%s-%s" % (os.path.basename(cc.split()[0]), ver or "unknown")


def manifest(path):
    """(arch, [(jam, code bytes, GOT slots)]) of a package's manifest.tcm"""
    arch, jams = None, []
    with open(path) as f:
        for line in f:
            w = line.split()
            if w[:1] == ["arch"]:
                arch = w[1]
            elif len(w) > 3 and w[0] == "element" and w[2] == "jam":
                kv = dict(zip(w[4::2], w[5::2]))
                jams.append((w[3], int(kv["code"]), int(kv["got"])))
    return arch, jams


def slot_size(top):
    """the default slot size (tc_context_params_init, lib/core/context.c)"""
    with open(os.path.join(top, "lib", "core", "context.c")) as f:
        m = re.search(r"slot_size\s*=\s*(\d+)", f.read())
    return int(m.group(1))


@generator("jam-sizes")
def jam_sizes(ctx, srcs, attrs):
    """each bench jam's code bytes, GOT slots and largest injected payload (the build's manifest.tcm)"""
    path = os.path.join(ctx.build, "pkg", "bench", "manifest.tcm")
    if not os.path.exists(path):
        raise Skip("no build at %s (make)" % ctx.build)
    arch, jams = manifest(path)
    cc = compiler()
    want = (attrs.get("arch"), attrs.get("cc"))
    if ctx.checking and want != (None, None) and want != (arch, cc):
        raise Skip("built for %s with %s, the block by %s with %s" % (arch, cc, want[0], want[1]))
    slot = slot_size(ctx.top)
    out = ["| jam | code bytes | GOT slots | largest injected payload in a %d-byte slot |" % slot,
           "|---|---:|---:|---:|"]
    for name, code, got in jams:
        img = (code + 7) // 8 * 8
        out.append("| `%s` | %d | %d | %d - %d - %d = %d |" % (name, code, got, slot, HEADER + SIGNAL, img,
                                                             slot - HEADER - SIGNAL - img))
    return Out("\n".join(out) + "\n", {"arch": arch, "cc": cc},
               "the build's `pkg/bench/manifest.tcm` (%s, %s)" % (arch, cc))
