"""The key of a deterministic count: the architecture, compiler, C library
and UCX it was counted with, e.g. x86_64-gcc12-glibc2.36-ucx1.13.1 (the
compiler by its major version, as scripts/bench-cost.sh --key names it from
the build's own .comment: the two must agree, tests/test_tc_cost.sh holds them).

Instruction and cycle counts under callgrind do not depend on the host's
speed or neighbours, only on the code run: the tree, and what builds and
runs it. One count per key then serves every runner of that key
(results/baseline/cost/<key>/, results/history/<key>/); computed here only
(scripts/tc-key prints it for the shell)."""
import os
import platform
import re
import shutil
import subprocess


def run(argv):
    """the program's stdout, or '' where it is missing or fails"""
    if not shutil.which(argv[0]):
        return ""
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    return r.stdout if r.returncode == 0 else ""


def arch():
    return platform.machine() or "unknown"


def compiler(cc=None):
    """the compiler's name and major version (gcc12, clang14): $CC, the
    Makefile's default gcc"""
    cc = (cc or os.environ.get("CC") or "gcc").split()[0]
    ver = run([cc, "-dumpfullversion"]).strip() or run([cc, "-dumpversion"]).strip()
    name = "clang" if "clang" in os.path.basename(cc) else os.path.basename(cc)
    name = re.sub(r"^.*-(gcc|clang)$", r"\1", re.sub(r"-[0-9.]+$", "", name))
    return "%s%s" % (name, ver.split(".")[0] if ver else "-unknown")


def libc():
    """glibc2.36; the C library's name alone where it says no version"""
    try:
        v = os.confstr("CS_GNU_LIBC_VERSION")     # "glibc 2.36"
    except (ValueError, OSError, AttributeError):
        v = None
    if v:
        return v.replace(" ", "")
    name, ver = platform.libc_ver()
    return "%s%s" % (name or "libc", ver)


def ucx():
    """ucx1.13.1: pkg-config's, else ucx_info's version"""
    v = run(["pkg-config", "--modversion", "ucx"]).strip()
    if not v:
        m = re.search(r"Version ([0-9][0-9.]*)", run(["ucx_info", "-v"]))
        v = m.group(1) if m else ""
    return "ucx%s" % (v or "-unknown")


def parts(cc=None):
    return {"arch": arch(), "compiler": compiler(cc), "libc": libc(), "ucx": ucx()}


def key(cc=None):
    p = parts(cc)
    return "-".join(p[k] for k in ("arch", "compiler", "libc", "ucx"))


def main(argv=None):
    """tc-key [-v]: the key; -v its parts, one a line"""
    import sys
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ("-h", "--help"):
        print("usage: tc-key [-v]\n\n" + __doc__)
        return 0
    if argv and argv[0] != "-v":
        print("tc-key: unknown option %s (tc-key -h)" % argv[0], file=sys.stderr)
        return 2
    print(key())
    if argv:
        for k, v in parts().items():
            print("%s %s" % (k, v))
    return 0
