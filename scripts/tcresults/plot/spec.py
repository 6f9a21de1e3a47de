"""The plot layout of an experiment definition (scripts/experiments/*.json,
"plots"): which rows a panel's series take (where, split), their titles
({col}, {col|default}, {col?prefix}) and colour keys."""
import re

# columns that identify "the same measurement" when a series is divided by its reference
CONTEXT = ['point', 'jam', 'mode', 'wait', 'placement', 'sw_prefetch', 'stress', 'radix', 'ack']
# the columns that make rows one measurement point of a series (its rounds
# apart): the context, and what else can tell two rows of one invocation apart
POINT_KEY = CONTEXT + ['test', 'frame_of', 'payload_bytes', 'gap_us', 'signal', 'frame_bytes']


def blank(v):
    return v is None or v == '' or v == 'none' or v == '-'


def fmt_title(tpl, row):
    """{col} value; {col|default} value or default when blank; {col?prefix}
    prefix+value when set, else nothing."""
    def rep(m):
        key, op, arg = m.group(1), m.group(2), m.group(3)
        v = row.get(key, '')
        if op == '|':
            return arg if blank(v) else str(v)
        if op == '?':
            return '' if blank(v) else arg + str(v)
        return '' if v is None else str(v)
    return re.sub(r'\{([A-Za-z0-9_:]+)(?:([|?])([^}]*))?\}', rep, tpl).strip()


def match(row, where):
    for k, v in (where or {}).items():
        rv = row.get(k, '')
        if isinstance(v, list):
            if rv not in [str(x) for x in v]:
                return False
        elif str(rv) != str(v):
            return False
    return True


def series_of(rows, spec):
    """[(title, ref, rows, colour key)] for one series spec of one panel: the
    rows it takes (where), one series per value of its split columns."""
    cand = [r for r in rows if match(r, spec.get('where'))]
    split = spec.get('split', [])
    groups = {}
    for r in cand:
        key = tuple(r.get(c, '') for c in split)
        groups.setdefault(key, []).append(r)
    out = []
    for key, grp in groups.items():
        title = fmt_title(spec.get('title', ' '.join(key)), grp[0])
        ckey = fmt_title(spec['color_key'], grp[0]) if spec.get('color_key') else title
        out.append((title, bool(spec.get('ref')), grp, ckey))
    return out

