#!/usr/bin/env bash
# make soak: tc-soak streams COUNT jams in each mode (local, injected,
# cached) while STRESS loads the machine; results go to
# results/<platform>/soak-<mode>.json. stress-ng is always stopped.
# usage: scripts/soak.sh COUNT "STRESS COMMAND"
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
count=${1:-10000000} stress=${2:-stress-ng --class vm --all 1}
out="$top/results/$("$top/scripts/platform-id.sh")"
mkdir -p "$out"
stress_pid=
cleanup() {
    if [ -n "$stress_pid" ]; then kill -- -"$stress_pid" 2>/dev/null || true; fi
    wait 2>/dev/null || true
}
trap cleanup EXIT INT TERM
if [ -n "$stress" ]; then
    # its own process group, so every stressor it forks goes with it
    setsid $stress --timeout 3600s >/dev/null 2>&1 &
    stress_pid=$!
    sleep 2
    kill -0 "$stress_pid" 2>/dev/null || { echo "soak: '$stress' did not start" >&2; exit 1; }
fi
# every invocation mode under the same load
for mode in local injected cached; do
    "$top/build/bin/tc-soak" -n "$count" -m "$mode" -T 60000 -L "$stress" --json "$out/soak-$mode.json"
done
echo "wrote $out/soak-{local,injected,cached}.json"
