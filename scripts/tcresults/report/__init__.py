"""tc-report: the results as static HTML pages, one per results folder and one per comparison.

usage: tc-report [-o DIR] [RESULTS_DIR ...] [--compare MD ...]

Each page is one self-contained HTML file: its figures inlined as data:
URIs, its style inline, no script, and a Content-Security-Policy that lets
it load nothing else, so it reads the same from file:// (no server) as
anywhere it is copied to.

A results folder's page (results/<platform>/ -> DIR/<platform>.html): the
claims (the compact table of claims.md, the paper's experiments and the
proxies apart), every figure of plots/<platform>/, what each experiment ran
and skipped, the platform report from meta.json (every group, the network
included where the report has it) and the run's metadata.

A comparison's page (a markdown file under plots/compare/, as
scripts/tc-platforms writes it -> DIR/compare-<name>.html): the markdown as
HTML, its images inlined, then every other figure of its folder.

Without arguments: every results/<platform>/ with a meta.json (not
results/baseline/) and every plots/compare/**/*.md; DIR/index.html links
them. -o DIR: where the pages go (default build/report).

Python 3 standard library only.
"""
import glob
import os
import sys

from .. import cli, paths, schema
from ..claims import judge_all
from ..claims.report import short_claim, short_value, short_verdict, tally
from ..readme.sources import duration
from . import markdown
from .page import document, esc, figure, figures_of, nested, table

VERDICT_CLASS = (("holds", "v-holds"), ("does not hold", "v-not"), ("much larger", "v-larger"),
                 ("not measurable", "v-na"))


def verdict_class(row):
    v = row[-1]
    for start, c in VERDICT_CLASS:
        if v.startswith(start):
            return c
    return "v-inconclusive"


def claims_section(folder, meta):
    """the compact claims tables (or why there are none)"""
    emulated = ((meta.get("platform") or {}).get("emulated") or "no")
    if emulated != "no":
        return "<p>No claims judged: emulated (%s); its timings say nothing about the CPU.</p>" % esc(emulated)
    sh = judge_all(folder)
    out = []
    for title, proxy in (("The paper's experiments", False),
                         ("Proxies: the closest thing this host has, not the paper's experiment", True)):
        rows = [r for r in sh.rows if r["claim"].startswith("proxy:") == proxy]
        if not rows:
            continue
        cells = []
        for r in rows:
            claim, paper = short_claim(r)
            cells.append([r["id"], claim, paper, short_value(r), short_verdict(r["verdict"])])
        out += ["<h3>%s</h3>" % esc(title),
                table(["#", "claim", "paper", "this platform", "verdict"], cells, cls="claims",
                      last_cls=verdict_class),
                "<p>Verdicts: %s</p>" % esc(tally(sh.rows, proxy))]
    out.append('<p class="note">From <code>scripts/tc-claims</code> on this folder: the rules, every claim in '
               "full and each round's values are in its <code>claims.md</code>.</p>")
    return "\n".join(out)


def experiments_section(meta):
    rows, skips = [], []
    for name, e in (meta.get("experiments") or {}).items():
        sk = e.get("skipped") or []
        fl = e.get("failed") or []
        n_sk = len(sk) if isinstance(sk, list) else sk
        n_fl = len(fl) if isinstance(fl, list) else fl
        rows.append([name, e.get("title", ""), e.get("tool", ""), e.get("points", ""), e.get("rounds", ""),
                     e.get("ran", ""), n_sk, n_fl,
                     duration(e["elapsed_s"]) if isinstance(e.get("elapsed_s"), (int, float)) else "-"])
        for s in (sk if isinstance(sk, list) else []) + (fl if isinstance(fl, list) else []):
            skips.append("%s #%s: %s" % (name, s.get("point", "?"), s.get("reason", "")))
    out = [table(["experiment", "title", "tool", "points", "rounds", "ran", "skipped", "failed", "measuring"],
                 rows, num=(3, 4, 5, 6, 7, 8))]
    if skips:
        uniq = sorted(set(skips), key=skips.index)
        out.append("<details><summary>Skipped or failed points, each with its reason (%d)</summary><ul>%s</ul>"
                   "</details>" % (len(uniq), "".join("<li>%s</li>" % esc(s) for s in uniq)))
    return "\n".join(out)


def shown(p):
    """a path as the page names it: from the repository where it is inside"""
    rel = os.path.relpath(p, paths.TOP)
    return p if rel.startswith("..") else rel


def topo_section(folder):
    """the topology sweep's claims (scripts/tc-topo's topo.claims.md), where
    the folder has them; its figures are among the folder's"""
    path = os.path.join(folder, "topo.claims.md")
    if not os.path.isfile(path):
        return []
    with open(path) as f:
        html_, _ = markdown.to_html(f.read(), folder)
    return ['<h2 id="topology">Classes of core pair</h2>', html_]


def folder_page(folder, plots):
    """(title, HTML) of one results folder's page"""
    meta = schema.load_meta(folder)
    pid = meta.get("platform_id") or os.path.basename(os.path.abspath(folder))
    figs = figures_of(plots)
    run = {k: v for k, v in meta.items() if k not in ("experiments", "platform")}
    body = ['<nav><a href="index.html">all pages</a></nav>',
            "<h1>Two-Chains results: %s</h1>" % esc(pid),
            '<p class="note">Generated by <code>scripts/tc-report</code> from <code>%s/</code> and <code>%s/</code>: '
            "preset %s, git %s, %s.</p>" % (esc(shown(folder)), esc(shown(plots)),
                                            esc(meta.get("preset", "?")), esc(meta.get("git_rev", "?")),
                                            esc(meta.get("date", "?"))),
            '<h2 id="claims">Claims</h2>', claims_section(folder, meta),
            '<h2 id="figures">Figures (%d)</h2>' % len(figs)]
    body += [figure(f) for f in figs] or ['<p>No figures in <code>%s/</code> (make plots).</p>' % esc(shown(plots))]
    body += topo_section(folder)
    body += ['<h2 id="experiments">Experiments</h2>', experiments_section(meta),
             '<h2 id="platform">Platform report</h2>', nested(meta.get("platform") or {}),
             '<h2 id="run">The run</h2>', nested(run)]
    return "Two-Chains results: %s" % pid, "\n".join(body)


def compare_page(md_path):
    """(title, HTML) of one comparison: its markdown, then its folder's other figures"""
    with open(md_path) as f:
        text = f.read()
    base = os.path.dirname(md_path)
    html_, used = markdown.to_html(text, base)
    rest = [f for f in figures_of(base) if f not in used
            and os.path.splitext(f)[0] not in {os.path.splitext(u)[0] for u in used}]
    title = next((ln.lstrip("# ").strip() for ln in text.splitlines() if ln.startswith("#")),
                 os.path.basename(md_path))
    body = ['<nav><a href="index.html">all pages</a></nav>',
            '<p class="note">Generated by <code>scripts/tc-report</code> from <code>%s</code>.</p>'
            % esc(shown(md_path)), html_]
    if rest:
        body += ['<h2 id="figures">Figures (%d)</h2>' % len(rest)] + [figure(f) for f in rest]
    return title, "\n".join(body)


def compare_name(md_path, root):
    rel = os.path.splitext(os.path.relpath(md_path, root))[0]
    return "compare-%s.html" % rel.replace(os.sep, "-")


def default_inputs():
    res = os.path.join(paths.TOP, "results")
    folders = sorted(d for d in glob.glob(os.path.join(res, "*")) if os.path.basename(d) != "baseline"
                     and os.path.isfile(os.path.join(d, "meta.json")))
    mds = sorted(glob.glob(os.path.join(paths.TOP, "plots", "compare", "**", "*.md"), recursive=True))
    return folders, mds


def parse_args(argv):
    ap = cli.parser("tc-report", __doc__)
    ap.add_argument("folders", nargs="*", metavar="RESULTS_DIR")
    ap.add_argument("--compare", nargs="+", default=[], metavar="MD", help="comparison pages (markdown files)")
    ap.add_argument("-o", dest="out", default=os.path.join(paths.TOP, "build", "report"), help="output folder")
    ap.add_argument("--plots", default=os.path.join(paths.TOP, "plots"),
                    help="where each folder's figures are (PLOTS/<folder name>/; default plots/)")
    a = ap.parse_args(argv)
    if not a.folders and not a.compare:
        a.folders, a.compare = default_inputs()
    for d in a.folders:
        if not os.path.isfile(os.path.join(d, "meta.json")):
            ap.error("%s: not a results folder (no meta.json)" % d)
    for m in a.compare:
        if not os.path.isfile(m):
            ap.error("%s: no such markdown file" % m)
    return a


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    os.makedirs(a.out, exist_ok=True)
    links = []
    for d in a.folders:
        d = os.path.abspath(d)
        name = os.path.basename(d.rstrip("/"))
        title, body = folder_page(d, os.path.join(a.plots, name))
        out = os.path.join(a.out, name + ".html")
        cli.write_whole(out, document(title, body))
        links.append((name + ".html", title))
        print("tc-report: %s -> %s" % (os.path.relpath(d), out))
    croot = os.path.join(a.plots, "compare")
    for m in a.compare:
        m = os.path.abspath(m)
        title, body = compare_page(m)
        name = compare_name(m, croot if m.startswith(os.path.abspath(croot) + os.sep) else os.path.dirname(m))
        out = os.path.join(a.out, name)
        cli.write_whole(out, document(title, body))
        links.append((name, title))
        print("tc-report: %s -> %s" % (os.path.relpath(m), out))
    index = ["<h1>Two-Chains: the results</h1>",
             "<p class=\"note\">Generated by <code>scripts/tc-report</code>; every page stands alone.</p>",
             "<ul>%s</ul>" % "".join('<li><a href="%s">%s</a></li>' % (esc(h), esc(t)) for h, t in links)]
    cli.write_whole(os.path.join(a.out, "index.html"), document("Two-Chains: the results", "\n".join(index)))
    print("tc-report: %d page(s), index -> %s" % (len(links), os.path.join(a.out, "index.html")))
    return 0
