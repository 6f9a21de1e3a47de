#!/usr/bin/env bash
# make soak: tc-soak streams COUNT jams while STRESS loads the machine; the
# result goes to results/<platform>/soak.json. stress-ng is always stopped.
# usage: scripts/soak.sh COUNT "STRESS COMMAND"
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
count=${1:-10000000} stress=${2:-stress-ng --class vm --all 1}
out="$top/results/$("$top/scripts/platform-id.sh")"
mkdir -p "$out"
stress_pid=
cleanup() { [ -n "$stress_pid" ] && kill -- -"$stress_pid" 2>/dev/null; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM
if [ -n "$stress" ]; then
    # its own process group, so every stressor it forks goes with it
    setsid $stress --timeout 3600s >/dev/null 2>&1 &
    stress_pid=$!
    sleep 2
    kill -0 "$stress_pid" 2>/dev/null || { echo "soak: '$stress' did not start" >&2; exit 1; }
fi
"$top/build/bin/tc-soak" -n "$count" -T 60000 -L "$stress" --json "$out/soak.json"
echo "wrote $out/soak.json"
