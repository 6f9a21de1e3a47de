"""One platform's results as the claims read them: a results folder
(tcresults.schema.Folder) with the queries the claims make of it."""
import statistics

from .. import schema
from ..schema import num


class Results(schema.Folder):

    def missing_reason(self, name):
        """Why an experiment's CSV is absent or empty."""
        em = self.exp_meta(name)
        sk = em.get("skipped") or []
        if sk:
            reasons = sorted({s.get("reason", "") for s in sk if s.get("reason")})
            return "%s skipped (%s)" % (name, "; ".join(reasons)[:300])
        return "%s.csv absent (experiment not run: scripts/tc-experiments %s)" % (name, name)

    def axis_reasons(self, name, axis, value):
        """Why the points of an experiment with axes[axis] == value have no rows (failed or skipped)."""
        em = self.exp_meta(name)
        pts = {pa.get("point") for pa in em.get("point_axes", []) or [] if (pa.get("axes") or {}).get(axis) == value}
        out = []
        for kind in ("failed", "skipped"):
            for e in em.get(kind) or []:
                if e.get("point") in pts and e.get("reason"):
                    why = "%s: %s" % (kind, e["reason"][:160])
                    if why not in out:
                        out.append(why)
        return "; ".join(out[:2])

    def match(self, name, rnd=None, **where):
        """the rows of an experiment (in round rnd; None: every round) whose
        columns have the values of where (a list, tuple or set: any of them)"""
        out = []
        for r in self.rows(name) or []:
            if rnd is not None and int(num(r["round"]) or 1) != rnd:
                continue
            if all(r.get(k, "") in v if isinstance(v, (list, tuple, set)) else r.get(k, "") == v
                   for k, v in where.items()):
                out.append(r)
        return out

    def series(self, name, metric, rnd=None, **where):
        """{payload_bytes: median metric} over rows matching where (values may be lists),
        within round rnd (None: every round's rows pooled)."""
        acc = {}
        for r in self.match(name, rnd, **where):
            x = num(r.get(metric))
            p = num(r.get("payload_bytes"))
            if x is None or p is None:
                continue
            acc.setdefault(int(p), []).append(x)
        return {p: statistics.median(v) for p, v in sorted(acc.items())}

    def iterations(self, name, rnd, sizes=None, **where):
        """The fewest iterations of the matching rows in round rnd (None when none say)."""
        its = [num(r.get("iterations")) for r in self.match(name, rnd, **where)
               if sizes is None or int(num(r.get("payload_bytes")) or -1) in sizes]
        its = [i for i in its if i is not None]
        return int(min(its)) if its else None
