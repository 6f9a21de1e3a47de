"""The generated blocks of a markdown file: the text between

  <!-- tc:begin NAME KEY=VALUE ... -->
  <!-- tc:end NAME -->

each marker on a line of its own. parse() splits a file into its text and
its blocks (Block), render() puts them back together."""
import re

BEGIN = re.compile(r"^<!-- tc:begin (?P<name>[a-z0-9-]+)(?P<attrs>(?: [a-z_]+=\S+)*) -->$")
ANY_MARKER = re.compile(r"^<!-- tc:(begin|end)\b")


class Block:
    """One generated block: its name, the begin marker's attributes (in
    order), the text between the markers and the line its begin marker is on
    (1-based)."""

    def __init__(self, name, attrs, body, line):
        self.name, self.attrs, self.body, self.line = name, attrs, body, line

    def begin(self):
        return "<!-- tc:begin %s -->" % " ".join([self.name] + ["%s=%s" % kv for kv in self.attrs.items()])

    def end(self):
        return "<!-- tc:end %s -->" % self.name

    def text(self):
        return "%s\n%s%s\n" % (self.begin(), self.body, self.end())


def parse_attrs(s):
    out = {}
    for part in s.split():
        k, v = part.split("=", 1)
        out[k] = v
    return out


def parse(text, where="text"):
    """[str | Block, ...]: the text outside the blocks and the blocks, in
    order; ValueError naming the line for a marker that does not pair up"""
    pieces, plain, cur, body = [], [], None, []
    for n, line in enumerate(text.splitlines(keepends=True), 1):
        bare = line.rstrip("\n")
        m = BEGIN.match(bare)
        if cur is None:
            if m:
                pieces.append("".join(plain))
                plain = []
                cur = Block(m.group("name"), parse_attrs(m.group("attrs")), "", n)
                body = []
            elif ANY_MARKER.match(bare):
                raise ValueError("%s:%d: %s without a tc:begin before it (or a malformed tc:begin)"
                                 % (where, n, bare))
            else:
                plain.append(line)
        elif bare == cur.end():
            cur.body = "".join(body)
            pieces.append(cur)
            cur = None
        elif ANY_MARKER.match(bare):
            raise ValueError("%s:%d: %s inside block %s (begun at line %d), which has no tc:end %s before it"
                             % (where, n, bare, cur.name, cur.line, cur.name))
        else:
            body.append(line)
    if cur is not None:
        raise ValueError("%s:%d: block %s has no <!-- tc:end %s -->" % (where, cur.line, cur.name, cur.name))
    pieces.append("".join(plain))
    return pieces


def render(pieces):
    return "".join(p if isinstance(p, str) else p.text() for p in pieces)


def blocks(pieces):
    return [p for p in pieces if isinstance(p, Block)]
