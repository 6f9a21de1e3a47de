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
    half of it); - for stdout"""
    if path == "-":
        sys.stdout.write(text)
        return
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)
