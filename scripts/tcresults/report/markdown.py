"""The markdown the tools write (tc-platforms' comparison pages, claims.md),
as HTML: headings, paragraphs, bullet lists, tables, fenced code, folded
sections (a `<details><summary>TEXT</summary>` line, `</details>`), and inline
code, bold, links and images; an image is inlined (a data: URI) where its
file is there, else its text. Only that subset: it renders what the tools
write, not every markdown."""
import os
import re

from .page import MIME, data_uri, esc

INLINE = re.compile(r"(`[^`]+`)|(\*\*[^*]+\*\*)|(!?\[[^\]]*\]\([^)\s]+\))")


def inline(text, base, used):
    """one line's inline markup; base: the folder image paths are relative to;
    used: the image files inlined (added to)"""
    out, pos = [], 0
    for m in INLINE.finditer(text):
        out.append(esc(text[pos:m.start()]))
        tok = m.group(0)
        if m.group(1):
            out.append("<code>%s</code>" % esc(tok[1:-1]))
        elif m.group(2):
            out.append("<strong>%s</strong>" % inline(tok[2:-2], base, used))
        else:
            img = tok.startswith("!")
            label, target = re.match(r"!?\[([^\]]*)\]\(([^)\s]+)\)", tok).groups()
            path = os.path.normpath(os.path.join(base, target))
            if img and os.path.splitext(path)[1].lower() in MIME and os.path.isfile(path):
                used.add(path)
                out.append('<img src="%s" alt="%s">' % (data_uri(path), esc(label or os.path.basename(path))))
            elif img:
                out.append("<em>[%s: %s not here]</em>" % (esc(label), esc(target)))
            elif target.startswith("#"):
                out.append('<a href="%s">%s</a>' % (esc(target), inline(label, base, used)))
            else:
                # a link elsewhere: named, not followed (the page loads nothing)
                out.append("%s (<code>%s</code>)" % (inline(label, base, used), esc(target)))
        pos = m.end()
    out.append(esc(text[pos:]))
    return "".join(out)


def cells(line):
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def to_html(text, base):
    """(HTML, the image files it inlined) of a markdown text whose images are
    relative to base"""
    lines = text.splitlines()
    out, used, i = [], set(), 0
    para = []

    def flush():
        if para:
            out.append("<p>%s</p>" % " ".join(inline(x, base, used) for x in para))
            para.clear()
    while i < len(lines):
        ln = lines[i]
        if ln.startswith("```"):
            flush()
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            out.append("<pre>%s</pre>" % esc("\n".join(lines[i + 1:j])))
            i = j + 1
            continue
        fold = re.match(r"^<details><summary>(.*)</summary>\s*$", ln)
        if fold or ln.strip() == "</details>":
            flush()
            # the tools fold long tables: the summary's text is markdown, escaped
            out.append("<details><summary>%s</summary>" % inline(fold.group(1), base, used)
                       if fold else "</details>")
            i += 1
            continue
        m = re.match(r"^(#{1,6}) +(.*)$", ln)
        if m:
            flush()
            n = len(m.group(1))
            out.append("<h%d>%s</h%d>" % (n + 1 if n < 6 else 6, inline(m.group(2), base, used), n + 1 if n < 6 else 6))
        elif ln.startswith("|") and i + 1 < len(lines) and re.match(r"^\|[\s:|-]+\|?$", lines[i + 1]):
            flush()
            head = cells(ln)
            align = ["right" if c.endswith(":") else None for c in cells(lines[i + 1])]
            rows = []
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(cells(lines[i]))
                i += 1
            td = lambda k, c, tag: "<%s%s>%s</%s>" % (tag, ' class="num"' if k < len(align) and align[k] else "",
                                                        inline(c.replace("\\|", "|"), base, used), tag)
            out.append("<table>\n<tr>%s</tr>\n%s\n</table>" % (
                "".join(td(k, c, "th") for k, c in enumerate(head)),
                "\n".join("<tr>%s</tr>" % "".join(td(k, c, "td") for k, c in enumerate(r)) for r in rows)))
            continue
        elif re.match(r"^\s*[-*] ", ln):
            flush()
            items = []
            while i < len(lines) and (re.match(r"^\s*[-*] ", lines[i]) or (lines[i].startswith("  ") and items)):
                if re.match(r"^\s*[-*] ", lines[i]):
                    items.append(re.sub(r"^\s*[-*] ", "", lines[i]))
                else:
                    items[-1] += " " + lines[i].strip()
                i += 1
            out.append("<ul>%s</ul>" % "".join("<li>%s</li>" % inline(x, base, used) for x in items))
            continue
        elif not ln.strip():
            flush()
        else:
            para.append(ln)
        i += 1
    flush()
    return "\n".join(out), used
