"""compare.md's classes of core pair: the topology sweep (experiment topo,
scripts/tc-topo) of each platform that ran it, class by class: a row per
class of pair (and the receiver's side of the NIC), a column per platform,
jam_lat and the floor of the same pairs (noop, 8 B; median over rounds and
pairs [95% interval]) and their ratio, so a class on one machine sits
beside the same class on another."""
from ..topo import table

HEAD = ("noop", "8")


def cell(s, mode):
    j, f = s.get("jam_lat_ns"), s.get("floor_lat_ns")
    if not j:
        return "-"
    out = "%.0f [%.0f, %.0f] ns" % j[:3]
    if f:
        out += ", floor %.0f ns, jam/floor %.2f" % (f[0], s["jam_over_floor_lat"][0]) \
            if "jam_over_floor_lat" in s else ", floor %.0f ns" % f[0]
    return out


def section(plats):
    """(markdown lines) of the classes, [] where no platform ran the sweep"""
    per = []
    for p in plats:
        rows, pts = table.load(p.dir)
        per.append(table.summarize(table.by_class(table.per_round(rows, pts))) if rows else None)
    if not any(per):
        return []
    keys = sorted({k[:2] for s in per if s for k in s}, key=lambda k: table.class_order(*k))
    md = ["## Classes of core pair", "",
          "The topology sweep (scripts/tc-topo) class by class: jam_lat p50 of %s at %s B, the median over "
          "rounds and pairs [95%% interval], beside the floor of the same pairs. A class a platform does "
          "not have is '-'." % HEAD, ""]
    for mode in ("local", "injected"):
        md += ["| class (%s) | %s |" % (mode, " | ".join(p.label for p in plats)),
               "|---|%s" % ("---|" * len(plats))]
        for k in keys:
            md.append("| %s | %s |" % (table.class_label(*k), " | ".join(
                cell(s.get(k + (HEAD[0], mode, HEAD[1]), {}), mode) if s else "(no sweep)" for s in per)))
        md.append("")
    return md
