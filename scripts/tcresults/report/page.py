"""The parts every report page is made of: the document (its style inline,
a Content-Security-Policy that lets it load nothing but its own data: URIs),
escaped text, tables, a nested report as nested tables, and figures inlined
as data: URIs."""
import base64
import html
import os

# nothing from outside: images only as data: URIs, the style inline, no script
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 1200px; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; margin-bottom: .2em; } h2 { margin-top: 1.6em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: .6em 0; } td, th { border: 1px solid #ccc; padding: .2em .5em;
  vertical-align: top; text-align: left; } th { background: #f2f2f2; } td.num { text-align: right; }
table.kv td:first-child { font-weight: 600; white-space: nowrap; background: #fafafa; }
code, pre { font: 13px/1.4 ui-monospace, monospace; background: #f6f6f6; } pre { padding: .5em; overflow-x: auto; }
figure { margin: 1em 0; } figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { font-size: .9em; color: #555; } .note { color: #555; font-size: .9em; }
.v-holds { background: #d9f2d9; } .v-not { background: #f8d7d7; } .v-larger { background: #fde9c8; }
.v-inconclusive { background: #ececec; } .v-na { color: #777; }
.unsupported { color: #8a4b00; } .supported { color: #1b6e1b; }
nav a { margin-right: 1em; }
.busy { background: #fde2c8; border-left: 4px solid #c25e00; padding: .4em .7em; }
table.index tr.newest td { background: #eef6ff; } table.index td:first-child { white-space: nowrap; }
table.index tr td.host-busy { background: #fde2c8; font-weight: 600; } table.index td.host-idle { color: #1b6e1b; }
table.index td.host-not-recorded { color: #777; } table.index td:nth-child(2), table.index td:nth-child(5) { white-space: nowrap; }
table.index td .note { font-weight: normal; } table.index td.c-hold { color: #1b6e1b; font-weight: 600; }
table.index td.c-fail { color: #a11; font-weight: 600; } table.index { font-size: 13px; }
table.index td, table.index th { padding: .2em .3em; }
table.index td.host-busy, table.index td.host-idle, table.index td.host-not-recorded { min-width: 9em; }
.badge { font-size: .75em; background: #2a6bb8; color: #fff; border-radius: 3px; padding: 0 .35em; white-space: nowrap; }
"""


def esc(s):
    return html.escape(str(s), quote=True)


def document(title, body):
    """a whole page: the head (charset, CSP, style) and body, as a string"""
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            "<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n%s\n</body>\n</html>\n"
            % (CSP, esc(title), STYLE, body))


def table(head, rows, cls=None, last_cls=None, num=()):
    """<table>: head (cells), rows (lists of cells, each escaped); num: the
    columns aligned right; last_cls(row): a class for a row's last cell (a
    verdict's colour), or None"""
    out = ["<table%s>" % (' class="%s"' % cls if cls else "")]
    if head:
        out.append("<tr>%s</tr>" % "".join("<th>%s</th>" % esc(h) for h in head))
    for r in rows:
        k = last_cls(r) if last_cls else None
        cells = []
        for i, c in enumerate(r):
            classes = [x for x in ("num" if i in num else None, k if i == len(r) - 1 else None) if x]
            cells.append("<td%s>%s</td>" % (' class="%s"' % " ".join(classes) if classes else "", esc(c)))
        out.append("<tr>%s</tr>" % "".join(cells))
    out.append("</table>")
    return "\n".join(out)


def support_class(v):
    if v == "supported":
        return "supported"
    if isinstance(v, str) and v.startswith("unsupported"):
        return "unsupported"
    return None


def nested(value, depth=0):
    """a report (dicts, lists, scalars) as nested key/value tables"""
    if isinstance(value, dict):
        if not value:
            return "<span class=\"note\">(empty)</span>"
        rows = []
        for k, v in value.items():
            rows.append("<tr><td>%s</td><td>%s</td></tr>" % (esc(k), nested(v, depth + 1)))
        return '<table class="kv">%s</table>' % "".join(rows)
    if isinstance(value, list):
        if not value:
            return "<span class=\"note\">(none)</span>"
        if all(not isinstance(x, (dict, list)) for x in value):
            return esc(", ".join(str(x) for x in value))
        return "<ol>%s</ol>" % "".join("<li>%s</li>" % nested(x, depth + 1) for x in value)
    if value is None:
        return '<span class="note">null</span>'
    c = support_class(value)
    return '<span class="%s">%s</span>' % (c, esc(value)) if c else esc(value)


MIME = {".png": "image/png", ".svg": "image/svg+xml", ".jpg": "image/jpeg", ".gif": "image/gif"}


def data_uri(path):
    """a figure file as a data: URI"""
    with open(path, "rb") as f:
        data = f.read()
    return "data:%s;base64,%s" % (MIME[os.path.splitext(path)[1].lower()], base64.b64encode(data).decode("ascii"))


def figures_of(folder):
    """the figures of a folder, one per name: the PNG where there is one,
    else the SVG; sorted by name"""
    if not os.path.isdir(folder):
        return []
    by = {}
    for n in sorted(os.listdir(folder)):
        stem, ext = os.path.splitext(n)
        if ext.lower() in (".png", ".svg") and os.path.isfile(os.path.join(folder, n)):
            if stem not in by or ext.lower() == ".png":
                by[stem] = os.path.join(folder, n)
    return [by[k] for k in sorted(by)]


def figure(path, caption=None):
    name = os.path.basename(path)
    return ('<figure id="%s"><img src="%s" alt="%s"><figcaption>%s</figcaption></figure>'
            % (esc(os.path.splitext(name)[0]), data_uri(path), esc(name), esc(caption or name)))
