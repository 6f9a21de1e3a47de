#!/usr/bin/env bash
# Comments say why; figures a machine measured go to docs/THRESHOLDS.md and
# results/, dated (a figure in a comment goes stale unseen: 9d66f0a existed
# to correct one). Fails on a comment in lib/, jams/, bench/ or tools/ that
# quotes a time, a rate or a before -> after figure (timeouts and
# windows in ms are design, not measurement, and pass).
. "$(dirname "$0")/lib.sh"
SRC=${TC_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
command -v python3 >/dev/null || skip "no python3"
python3 - "$SRC" >"$TMP/found" <<'PY'
import re, sys, pathlib
root = pathlib.Path(sys.argv[1])
comment = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
figure = re.compile(r'\b\d+(\.\d+)?(-\d+(\.\d+)?)? ?(us|ns|M/s|GiB/s|MB/s)\b'
                    r'|\b\d+(\.\d+)?(-\d+(\.\d+)?)? -> \d+(\.\d+)?'
                    r'|\b\d+(\.\d+)? instructions a message')
for sub in ('lib', 'jams', 'bench', 'tools'):
    for path in sorted((root / sub).rglob('*')):
        if path.suffix not in ('.c', '.h', '.amc', '.rdc'):
            continue
        text = path.read_text(errors='replace')
        for m in comment.finditer(text):
            for f in figure.finditer(m.group(0)):
                line = text.count('\n', 0, m.start() + f.start()) + 1
                print(f'{path.relative_to(root)}:{line}: {f.group(0)}')
PY
[ -s "$TMP/found" ] && fail "measured figures in comments (move them to docs/THRESHOLDS.md):
$(cat "$TMP/found")"
echo "no measured figure in a comment of lib/, jams/, bench/, tools/"
