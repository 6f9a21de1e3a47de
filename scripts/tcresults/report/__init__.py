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
results/baseline/) and every plots/compare/**/*.md. DIR/index.html lists
the results folders newest first, each with its CPU, cores, date, preset,
claim verdict counts and how busy its host was (meta.json's host_state),
the newest and those git has not committed marked; then the comparisons.
--compare-runs: also compare the folders reported with each other
(scripts/tc-platforms into DIR/compare-runs/, not plots/compare/), so a run
just made stands beside the committed ones (make report). -o DIR: where
the pages go (default build/report).

Python 3 standard library only.
"""
import contextlib
import glob
import io
import os
import sys

from .. import cli, gitwork, hoststate, paths, platforms, schema
from ..claims import judge_all
from ..claims.report import COUNT_WORDS, counts, counts_text, short_claim, short_value, short_verdict, tally
from ..platforms.label import cpu_name, hypervisor_name
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


def host_section(meta):
    """a paragraph on how busy the host was during the run (a busy one stands out)"""
    hs = meta.get("host_state")
    if hs and hs.get("busy"):
        return ('<p class="busy"><strong>Host busy during this run</strong>: %s. Its timings carry that work\'s '
                "noise; rerun on an idle host before trusting a verdict.</p>" % esc("; ".join(hs.get("reasons") or [])))
    return '<p class="note">Host: %s.</p>' % esc(hoststate.describe(hs))


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
            host_section(meta),
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


def index_row(folder, page):
    """what the index says of one results folder: a dict of its cells"""
    meta = schema.load_meta(folder)
    pl = meta.get("platform") if isinstance(meta.get("platform"), dict) else {}
    cpu = pl.get("cpu") or {}
    emulated = pl.get("emulated") or "no"
    judged, n = None, 0
    if emulated != "no":
        verdicts = "not judged: emulated"
    else:
        try:
            rows = judge_all(folder).rows
            verdicts, judged, n = counts_text(rows), dict(counts(rows)), len(rows)
        except (OSError, ValueError, KeyError) as err:
            verdicts = "not judged: %s" % err
    hs = meta.get("host_state")
    host = ", ".join(x for x in (hypervisor_name(cpu), "host pair" if meta.get("pair") else None) if x)
    return {"page": page, "folder": os.path.basename(os.path.normpath(folder)), "date": str(meta.get("date") or ""),
            "cpu": cpu_name(cpu) or "?", "cores": (pl.get("topology") or {}).get("cores") or "?",
            "machine": host or "?", "preset": meta.get("preset", "?"), "verdicts": verdicts,
            "counts": judged, "claims": n,
            "busy": hoststate.word(hs), "busy_why": hoststate.describe(hs), "busy_brief": hoststate.brief(hs),
            "uncommitted": gitwork.uncommitted(folder)}


def index_table(rows):
    """the results folders, newest first (the newest marked; so is what git
    has not committed), a column per verdict"""
    rows = sorted(rows, key=lambda r: r["date"], reverse=True)
    words = [w for _, w in COUNT_WORDS]
    out = ['<table class="index">', "<tr>%s</tr>" % "".join(
        "<th>%s</th>" % h for h in ["results folder", "CPU", "cores", "machine", "date", "preset", "claims"] +
        words + ["host while it ran"])]
    for i, r in enumerate(rows):
        marks = (["newest"] if i == 0 else []) + (["not committed"] if r["uncommitted"] else [])
        badge = "<br>" + " ".join('<span class="badge">%s</span>' % m for m in marks) if marks else ""
        if r["counts"] is None:
            verdicts = '<td colspan="%d">%s</td>' % (len(words) + 1, esc(r["verdicts"]))
        else:
            verdicts = '<td class="num" title="%s">%d</td>' % (esc(r["verdicts"]), r["claims"]) + "".join(
                '<td class="num c-%s">%s</td>' % (w.replace(" ", "-"), r["counts"].get(w, "")) for w in words)
        out.append('<tr%s><td><a href="%s">%s</a>%s</td><td>%s</td><td class="num">%s</td><td>%s</td><td>%s</td>'
                   '<td>%s</td>%s<td class="host-%s" title="%s">%s%s</td></tr>' % (
                       ' class="newest"' if i == 0 else "", esc(r["page"]), esc(r["folder"]), badge, esc(r["cpu"]),
                       esc(r["cores"]), esc(r["machine"]), esc(r["date"].replace("T", " ")[:16]), esc(r["preset"]),
                       verdicts, esc(r["busy"].replace(" ", "-")), esc(r["busy_why"]), esc(r["busy"]),
                       '<br><span class="note">%s</span>' % esc(r["busy_brief"]) if r["busy_brief"] else ""))
    out.append("</table>")
    return "\n".join(out)


def index_page(rows, links):
    """index.html's body: the results folders' table, then the other pages"""
    body = ["<h1>Two-Chains: the results</h1>",
            '<p class="note">Generated by <code>scripts/tc-report</code>; every page stands alone. '
            "Each results folder is one run of <code>make figures</code> on one host (its id hashes what the host "
            "is); claims: the paper's claims judged on it (<code>claims.md</code>); host: whether other work ran "
            "beside the run (meta.json <code>host_state</code>; hover for the figures).</p>",
            "<h2>Results folders, newest first (%d)</h2>" % len(rows), index_table(rows)]
    if links:
        body += ["<h2>Comparisons (%d)</h2>" % len(links),
                 "<ul>%s</ul>" % "".join('<li><a href="%s">%s</a></li>' % (esc(h), esc(t)) for h, t in links)]
    return "\n".join(body)


def compare_runs(folders, out):
    """scripts/tc-platforms over the folders into out/; -> its compare.md, or None (its output on stderr)"""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        rc = platforms.main(list(folders) + ["-o", out])
    md = os.path.join(out, "compare.md")
    if rc != 0 or not os.path.isfile(md):
        print("tc-report: no comparison of the runs: %s" % buf.getvalue().strip(), file=sys.stderr)
        return None
    return md


def parse_args(argv):
    ap = cli.parser("tc-report", __doc__)
    ap.add_argument("folders", nargs="*", metavar="RESULTS_DIR")
    ap.add_argument("--compare", nargs="+", default=[], metavar="MD", help="comparison pages (markdown files)")
    ap.add_argument("-o", dest="out", default=os.path.join(paths.TOP, "build", "report"), help="output folder")
    ap.add_argument("--compare-runs", action="store_true",
                    help="compare the folders with each other too (tc-platforms into DIR/compare-runs/)")
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
    links, rows = [], []
    for d in a.folders:
        d = os.path.abspath(d)
        name = os.path.basename(d.rstrip("/"))
        title, body = folder_page(d, os.path.join(a.plots, name))
        out = os.path.join(a.out, name + ".html")
        cli.write_whole(out, document(title, body))
        rows.append(index_row(d, name + ".html"))
        print("tc-report: %s -> %s" % (os.path.relpath(d), out))
    if a.compare_runs and a.folders:
        md = compare_runs([os.path.abspath(d) for d in a.folders], os.path.join(a.out, "compare-runs"))
        if md:
            title, body = compare_page(md)
            cli.write_whole(os.path.join(a.out, "compare-runs.html"), document(title, body))
            links.append(("compare-runs.html", "These %d results folders side by side, the newest included "
                          "(tc-platforms under %s)" % (len(a.folders), shown(os.path.dirname(md)))))
            print("tc-report: the runs side by side -> %s" % os.path.join(a.out, "compare-runs.html"))
    croot = os.path.join(a.plots, "compare")
    for m in a.compare:
        m = os.path.abspath(m)
        title, body = compare_page(m)
        name = compare_name(m, croot if m.startswith(os.path.abspath(croot) + os.sep) else os.path.dirname(m))
        out = os.path.join(a.out, name)
        cli.write_whole(out, document(title, body))
        links.append((name, "%s (committed: %s)" % (title, shown(m))))
        print("tc-report: %s -> %s" % (os.path.relpath(m), out))
    cli.write_whole(os.path.join(a.out, "index.html"), document("Two-Chains: the results", index_page(rows, links)))
    print("tc-report: %d page(s), index -> %s" % (len(rows) + len(links), os.path.join(a.out, "index.html")))
    return 0
