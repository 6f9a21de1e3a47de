#!/usr/bin/env bash
# struct tc_peer's cold parts (lib/core/runtime.h) are each written only by
# the module that owns it, and jam.c writes none of dispatch's fields: a
# write (=, op=, ++, --, or a string or memory call into it) through
# peer->wireup, ->reject, ->control, ->injs or ->ried in lib/ outside the
# owner's files fails, naming file and line. The one shared buffer,
# reject->why (a refusing handler formats its reason there), is allowed to
# the receive handlers. A probe file with a foreign write must be caught.
. "$(dirname "$0")/lib.sh"
SRC=${TC_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
command -v python3 >/dev/null || skip "no python3"
cat >"$TMP/owners.py" <<'PY'
import re, sys, pathlib
root = pathlib.Path(sys.argv[1])
OWNERS = {
    'wireup':  {'wireup/wireup.c'},
    'reject':  {'core/reject.c'},
    'control': {'core/control.c'},
    'injs':    {'core/inj_table.c', 'core/inject.c'},
    'ried':    {'core/ried.c'},
}
# the refusing handlers' buffer (tc_peer_reject copies it)
SHARED = {('reject', 'why'): {'core/dispatch.c', 'core/ried.c', 'core/inject.c',
                              'group/mcast_queue.c'}}
DISPATCH = r'(disp_\w+|fast_run|fast_state|fast_shape)'
write = re.compile(r'->(wireup|reject|control|injs|ried)->(\w+)[\w.\[\]>-]*\s*'
                   r'(=(?!=)|[-+|&^]=|\+\+|--)'
                   r'|(?:snprintf|vsnprintf|memcpy|memset|strncpy|strcpy)\(\s*&?\w+->'
                   r'(wireup|reject|control|injs|ried)->(\w+)')
files = sys.argv[2:] or [str(p) for p in sorted((root / 'lib').rglob('*.[ch]'))]
bad = 0
for name in files:
    path = pathlib.Path(name)
    rel = str(path.relative_to(root / 'lib')) if path.is_relative_to(root / 'lib') else path.name
    text = path.read_text(errors='replace')
    for m in write.finditer(text):
        part, field = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(5))
        if rel in OWNERS[part] or rel in SHARED.get((part, field), ()):
            continue
        line = text.count('\n', 0, m.start()) + 1
        print(f'{rel}:{line}: writes peer->{part}->{field} (owned by {", ".join(sorted(OWNERS[part]))})')
        bad += 1
    if rel == 'jam/jam.c':
        for m in re.finditer(r'->' + DISPATCH + r'\s*=(?!=)', text):
            line = text.count('\n', 0, m.start()) + 1
            print(f'{rel}:{line}: jam.c writes dispatch\'s {m.group(1)} (tc_peer_invalidate does)')
            bad += 1
sys.exit(1 if bad else 0)
PY
# the check sees a foreign write (a probe that is not an owner)
printf 'void f(tc_peer_t *peer) { peer->ried->rx.id = 1; snprintf(peer->wireup->name, 4, "x"); }\n' \
    >"$TMP/probe.c"
python3 "$TMP/owners.py" "$SRC" "$TMP/probe.c" >"$TMP/probe.out" && fail "a foreign write passed: $TMP/probe.c"
[ "$(grep -c 'writes peer->' "$TMP/probe.out")" = 2 ] || fail "probe: expected 2 writes: $(cat "$TMP/probe.out")"
python3 "$TMP/owners.py" "$SRC" >"$TMP/found" || fail "a cold part of struct tc_peer written outside its owner:
$(cat "$TMP/found")"
echo "struct tc_peer's cold parts written only by their owners; jam.c writes no dispatch field"
