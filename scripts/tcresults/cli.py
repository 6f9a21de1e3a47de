"""What the tools' commands share: a parser whose help is the tool's
docstring, and a file written whole or not at all."""
import argparse
import os
import sys


def parser(prog, doc):
    """an ArgumentParser: the docstring's first paragraph as the description
    (whole: a description of two lines was cut after the first), its
    "usage: " paragraph as the one usage (argparse's own would be a second),
    the rest as the epilog, as written"""
    paras = doc.strip("\n").split("\n\n")
    usage = None
    if (len(paras) > 1) and paras[1].startswith("usage: "):
        usage = paras.pop(1)[len("usage: "):].replace("%", "%%")
    return argparse.ArgumentParser(prog=prog, usage=usage, description=paras[0],
                                   formatter_class=argparse.RawDescriptionHelpFormatter,
                                   epilog="\n\n".join(paras[1:]))


def write_whole(path, text):
    """text to path through a temporary file beside it (a reader never sees
    half of it); - for stdout. A path that is there and no regular file (a
    device such as /dev/null, a FIFO) is written in place: renaming over it
    would put a plain file where the device was"""
    if path == "-":
        sys.stdout.write(text)
        return
    if os.path.exists(path) and not os.path.isfile(path):
        with open(path, "w") as f:
            f.write(text)
        return
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)
