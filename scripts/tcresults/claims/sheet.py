"""The sheet the claims are written on (Sheet): a row per claim, and the
steps every claim shares: its quantity per round, the payload a "max over
payloads" picks once for all rounds, and the verdict with its tail checks."""
import statistics

from ..schema import size_label
from .verdict import PREEMPT_US, TAIL_MIN, judge


class Sheet:
    """The claims of one results folder as they are judged: one row each
    (id, claim, figure, paper, rule, this platform's value, verdict, the
    per-round detail and the interval's width, and the numbers behind
    them for --json)."""

    def __init__(self, res):
        self.r = res
        self.rows = []      # dicts: id, claim, figure, paper, rule, here, verdict, detail, width, stat...

    def add(self, cid, claim, figure, paper, rule, here, verdict, detail="", st=None, width="-",
            samples=None):
        self.rows.append(dict(id=cid, claim=claim, figure=figure, paper=paper, rule=rule,
                              here=here, verdict=verdict, detail=detail, width=width,
                              median=st.med if st else None, lo=st.lo if st else None,
                              hi=st.hi if st else None, rounds=st.n if st else 0, samples=samples))

    def picked(self, E, fn, pick=max, label=size_label):
        """[(round, value, where)] of the one key (a payload) whose median over
        rounds is the largest (pick=max) or smallest: chosen once for all
        rounds, so a "max over payloads" claim judges one payload's rounds,
        not each round's own max, which leans high and hops between payloads
        with the noise (and so flips verdicts between identical runs)."""
        per = {k: fn(k) or {} for k in self.r.rounds(E)}
        have = [set(d) for d in per.values() if d]
        keys = set.intersection(*have) if have else set()
        if not keys:
            return []
        med = {key: statistics.median(d[key] for d in per.values() if key in d) for key in keys}
        best = pick(sorted(med), key=lambda key: med[key])
        return [(k, d[best], label(best)) for k, d in per.items() if best in d]

    def per_round(self, E, fn):
        """[(round, value, where)] over the rounds where fn(round) gives (value, where)."""
        out = []
        for k in self.r.rounds(E):
            v = fn(k)
            if v is not None:
                out.append((k, v[0], v[1]))
        return out

    def judged(self, cid, claim, fig, paper, rule, st, f, detail, verdict=None, samples=None, preempted=None,
               **rule_args):
        if verdict is None:
            verdict = judge(st, **rule_args)
        if samples is not None and samples < TAIL_MIN:
            verdict = ("inconclusive (too few samples: %d per round; p99.9 needs >= %d)" % (samples, TAIL_MIN))
        elif preempted:
            n, total, worst = preempted
            verdict = ("inconclusive (scheduler-bound: a p99.9 of %s in %d of %d rounds, past a scheduler time "
                       "slice (%.0f ms): the threads were descheduled; the tail measures the scheduler, not the "
                       "placement)" % ("%.0f ms" % (worst / 1000) if worst >= 1000 else "%.0f us" % worst,
                                       n, total, PREEMPT_US / 1000))
        here = st.cell(f)
        if samples is not None:
            here += ", %d samples per row per round" % samples
        self.add(cid, claim, fig, paper, rule, here, verdict,
                 "%s; %s" % (st.rounds_text(f), detail) if detail else st.rounds_text(f),
                 st=st, width=st.width(f), samples=samples)
