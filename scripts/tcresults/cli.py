"""What the tools' commands share: a parser whose help is the tool's
docstring, and a file written whole or not at all."""
import argparse
import os
import sys


def parser(prog, doc):
    """an ArgumentParser: the docstring's first line as the description, the
    rest as the epilog, as written"""
    return argparse.ArgumentParser(prog=prog, description=doc.split("\n")[0],
                                   formatter_class=argparse.RawDescriptionHelpFormatter,
                                   epilog="\n".join(doc.split("\n")[2:]))


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
