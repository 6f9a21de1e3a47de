"""The platforms' reports side by side: a row per attribute (CPU, caches,
cache ops, wait and placement support, controls, the network group: UCX
version, transports and NICs; what the runs recorded), a column per
platform; the rows where they differ."""
from ..schema import num

DIFFERS = "**differs**"
NOT_REPORTED = "(not reported)"
# the rows of a platform's column that are about its run, not its host
RUN_ROWS = ("folder", "date", "rounds", "preset", "git")


def short(v):
    """a platform report's value for a table cell: supported -> yes, unsupported: why -> no (why)"""
    if v is None:
        return NOT_REPORTED
    v = str(v)
    if v == "supported":
        return "yes"
    if v.startswith("unsupported"):
        why = v.split(":", 1)[1].strip() if ":" in v else ""
        return "no (%s)" % why if why else "no"
    return v


def hardware_rows(pl):
    """[(attribute, value)] of the CPU and its caches, from the platform report"""
    cpu = pl.get("cpu") or {}
    topo = pl.get("topology") or {}
    out = [("arch", pl.get("arch", NOT_REPORTED))]
    model = cpu.get("model_name")
    if model and cpu.get("family") is not None:
        model = "%s (family %s model %s stepping %s)" % (model, cpu.get("family"), cpu.get("model"), cpu.get("stepping"))
    out.append(("CPU model", model or NOT_REPORTED))
    out.append(("hypervisor", cpu.get("hypervisor") or ("none" if cpu.get("vendor") else NOT_REPORTED)))
    out.append(("cores", "%s cores, %s PUs, %s NUMA node(s)" % (topo.get("cores"), topo.get("pus"), topo.get("numa_nodes"))
                if topo.get("cores") else NOT_REPORTED))
    l3 = topo.get("l3_bytes")
    out.append(("L3 size", ("%g MiB x%s" % (l3 / 1048576.0, topo.get("l3_count", 1))) if l3 else NOT_REPORTED))
    out.append(("cache line", "%s B" % topo["line_bytes"] if topo.get("line_bytes") else NOT_REPORTED))
    out.append(("PMU", short(pl.get("pmu"))))
    for group, label in (("cache_op", "cache op"), ("wait", "wait"), ("placement", "placement"), ("control", "control")):
        for k, v in (pl.get(group) or {}).items():
            if k.endswith("_sequence"):
                continue
            out.append(("%s %s" % (label, k.upper() if group == "cache_op" else k), short(v)))
    return out


def network_rows(pl):
    """[(attribute, value)] of the report's network group (tc-perf --platform
    since it has one): UCX version, the transports UCX offers, each NIC
    (driver, rate, MTU, state, RDMA device); [] where the report has none"""
    net = pl.get("network")
    if not isinstance(net, dict):
        return []
    out = [("network: UCX version", net.get("ucx_version") or NOT_REPORTED),
           ("network: UCX transports", (net.get("ucx_transports") or NOT_REPORTED).replace(",", ", "))]
    for k in sorted(net):
        if k.startswith("nic_"):
            out.append(("network: NIC %s" % k[4:], net[k]))
    if net.get("nics"):
        out.append(("network: NICs", net["nics"]))
    return out


def transport_rows(p):
    """[(attribute, value)] of the transports and UCX its runs recorded"""
    tr, tls, ucx = set(), set(), set()
    for e in (p.meta.get("experiments") or {}).values():
        for j in e.get("tool_json") or []:
            if isinstance(j, dict):
                if j.get("transports"):
                    tr.add(str(j["transports"]))
                if j.get("ucx_tls"):
                    tls.add(str(j["ucx_tls"]))
                if j.get("ucx_version"):
                    ucx.add(str(j["ucx_version"]))
    for f in p.experiments():   # the CSVs' transports column, by name
        for r in p.loaded(f)[1]:
            if r.get("transports"):
                tr.add(r["transports"])
    return [("transports", "; ".join(sorted(tr)) or "(not recorded)"),
            ("UCX_TLS", "; ".join(sorted(tls)) or "(not recorded)"),
            ("UCX version", "; ".join(sorted(ucx)) or "(not recorded)")]


def rounds_of(p, exp):
    """how many rounds each point of one experiment ran: meta.json's rounds,
    else the CSV's distinct round values; 1 for a folder without them"""
    em = p.exp_meta(exp)
    if num(em.get("rounds")):
        return int(num(em["rounds"]))
    fields, rows = p.loaded(exp)
    return max(1, len({r.get("round") for r in rows if r.get("round")})) if fields else None


def rounds_text(p):
    """the rounds per point of a folder's experiments: '3', '1 (no round
    column)', or the most common count with the experiments that ran
    another ('5 (two-hosts 1)')"""
    per = {e: rounds_of(p, e) for e in p.experiments()}
    vals = [v for v in per.values() if v]
    if not vals:
        return "(no results)"
    if len(set(vals)) == 1:
        old = not any("round" in (p.loaded(e)[0] or []) for e in per)
        return "%d%s" % (vals[0], " (no round column)" if old else "")
    common = max(sorted(set(vals)), key=vals.count)
    return "%d (%s)" % (common, ", ".join("%s %d" % (e, v) for e, v in sorted(per.items()) if v and v != common))


def platform_rows(p):
    """[(attribute, value)] from a platform's report (meta.json's platform: what
    tc-perf --platform reported) and from what its runs recorded (transports)"""
    out = [("folder", p.id)] + hardware_rows(p.platform) + network_rows(p.platform) + transport_rows(p)
    pair = p.meta.get("pair") or {}
    out.append(("hosts", "two hosts (%s, %s, %s)" % (pair.get("client"), pair.get("server"), pair.get("launcher"))
                if pair else "one host"))
    out.append(("date", p.meta.get("date", "?")))
    out.append(("rounds", rounds_text(p)))
    out.append(("preset", p.meta.get("preset", "?")))
    out.append(("git", p.meta.get("git_rev", "?")))
    return out


def compared(plats):
    """(attributes in order, [{attribute: cell}] per platform, {attribute:
    True where the platforms' cells differ})"""
    per = [platform_rows(p) for p in plats]
    rows = [dict(r) for r in per]
    attrs = []
    for r in per:
        for a, _ in r:
            if a not in attrs:
                attrs.append(a)
    cells = [{a: str(r.get(a, NOT_REPORTED)).replace("|", "/") for a in attrs} for r in rows]
    differs = {a: len({c[a] for c in cells}) > 1 for a in attrs}
    return attrs, cells, differs


def table(plats, attrs, cells, marks=None):
    """a markdown table: a row per attribute, a column per platform (by its
    label); marks: {attribute: text} in a second column"""
    head = ["attribute"] + ([""] if marks is not None else []) + [p.label for p in plats]
    md = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for a in attrs:
        row = [a] + ([marks.get(a, "")] if marks is not None else []) + [c[a] for c in cells]
        md.append("| " + " | ".join(row) + " |")
    return md


def platform_table(plats):
    """(the markdown table of the platforms' reports, every row, those that
    differ marked DIFFERS, the number that differ)"""
    attrs, cells, differs = compared(plats)
    md = table(plats, attrs, cells, {a: DIFFERS if d else "" for a, d in differs.items()})
    return md, sum(differs.values())


def differences(plats):
    """(the markdown table of only the rows where the platforms differ, the
    number of rows alike)"""
    attrs, cells, differs = compared(plats)
    # what is about the run, not the host: the platforms' table says it
    keep = [a for a in attrs if differs[a] and a not in RUN_ROWS]
    return (table(plats, keep, cells) if keep else []), sum(1 for a in attrs if not differs[a])
