#!/usr/bin/env bash
# A real slowdown for checking a gate: a copy of the bench package whose
# indirect_put jam spins N iterations of an empty volatile loop after its
# work, built into OUT (OUT/libtc_bench.so; TC_PKG=OUT/libtc_bench.so or
# tc-perf -P OUT use it). Used by scripts/bench-ci.sh --slow-jam and the
# tests of the deterministic counts.
#
# usage: scripts/slow-jam-pkg.sh N OUT
# TC_BUILD: the build folder (default build/); CC: the compiler (default gcc)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
[ $# = 2 ] || { echo "usage: scripts/slow-jam-pkg.sh N OUT" >&2; exit 2; }
spins=$1 out=$2
[[ $spins =~ ^[0-9]+$ ]] || { echo "slow-jam-pkg.sh: N '$spins' is not a count" >&2; exit 2; }
bin=${TC_BUILD:-$top/build}/bin
[ -x "$bin/tc-pkg" ] || { echo "slow-jam-pkg.sh: $bin/tc-pkg missing: build first (make)" >&2; exit 1; }
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
cp -r "$top/jams/." "$src/"
python3 - "$src/jam_indirect_put.amc" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
anchor = "    st->calls++;\n"
if anchor not in s:
    sys.exit("slow-jam-pkg.sh: jam_indirect_put.amc changed; cannot place the spin loop")
s = s.replace(anchor, anchor + "    for (volatile int k = 0; k < TC_CI_SLOW; ++k) {\n    }\n", 1)
open(p, "w").write(s)
PY
mkdir -p "$out"
"$bin/tc-pkg" build "$src" --name bench --out "$out" --cc "${CC:-gcc}" \
    --include "$top/lib" --include "$src" \
    --cflags "-g -Wall -Wextra -Werror -DTC_CI_SLOW=$spins" >"$src/pkg.log" 2>&1 ||
    { cat "$src/pkg.log" >&2; echo "slow-jam-pkg.sh: the slowed package did not build" >&2; exit 1; }
