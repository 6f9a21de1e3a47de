#!/usr/bin/env bash
# bench-ci.sh --clang's second leg and the verdict of both (not run by
# hand): the counts of this tree built with clang-14 (TC_CLANG_CC, default
# "clang-14 -gdwarf-4", into TC_CLANG_BUILD, default build-clang/) held by
# the first leg's rule against their own key's baseline, ROOT/cost/<key>/
# (--against ROOT), or against BASE built with clang-14 as well (--base):
# OUT/clang/ (cost.csv, verdict.json, build.log). Then OUT/verdict.json
# holds both keys: "legs" (key, status, exit, headline), the clang leg's
# cases beside the first's (suite "cost:<key>"), "exit" 1 where either
# leg regressed, else the first leg's; a line per key closes the output.
# Where clang-14 is missing the leg is skipped, saying why, never passed;
# where it is there and the tree does not build with it, the leg fails.
#
# usage: bench-ci-legs.sh RC OUT ROOT BASE SLOW COMPARE_FLAGS COST_FLAGS
#   RC: the first leg's exit status; ROOT, BASE, SLOW: bench-ci.sh's
#   --against, --base, --slow-jam (empty: not given)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
[ $# = 7 ] || { echo "usage: bench-ci-legs.sh RC OUT ROOT BASE SLOW COMPARE_FLAGS COST_FLAGS" >&2; exit 2; }
rc1=$1 out=$2 against=$3 base=$4 slow=$5 compare_flags=$6 cost_flags=$7
cc=${TC_CLANG_CC:-clang-14 -gdwarf-4}
cbuild=${TC_CLANG_BUILD:-$top/build-clang}
dir=$out/clang
# the caller's --json / --junit FILE are the verdict of both legs: this
# leg's tc-compare gets the other flags
leg_flags=$(sed 's/--\(json\|junit\)[= ][^ ]*//g' <<<"$compare_flags")
mkdir -p "$dir"
rm -f "$dir/cost.csv" "$dir/cost-meta.json" "$dir/verdict.json"
rm -rf "$dir/base"
start=$(date +%s.%N)
key="" rc2=2 why=""
# the leg: rc2 0 / 1 / 2 as tc-compare's, 77 skipped; why: a line where
# nothing was compared
leg() {
    local log=$dir/build.log pkg=() jobs
    command -v "${cc%% *}" >/dev/null 2>&1 || { rc2=77 why="unsupported: ${cc%% *} not installed"; return; }
    jobs=$(nproc 2>/dev/null || echo 2)
    # tc-cost and the bench package: what the counts need; plain whatever
    # an outer make's variables say (a sanitizer build cannot be counted)
    env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -C "$top" --no-print-directory -j"$jobs" CC="$cc" \
        BUILD="$cbuild" SAN= "$cbuild/bin/tc-cost" pkg \
        >"$log" 2>&1 || { rc2=1 why="FAIL: this tree does not build with $cc: $(tail -1 "$log") ($log)"; return; }
    key=$(TC_BUILD=$cbuild "$top/scripts/bench-cost.sh" --key 2>/dev/null) ||
        { why="no key for $cbuild (scripts/bench-cost.sh --key)"; return; }
    local kbase=$against/cost/$key
    if [ -n "$slow" ]; then
        TC_BUILD=$cbuild CC=$cc "$top/scripts/slow-jam-pkg.sh" "$slow" "$dir/pkg" >>"$log" 2>&1 ||
            { why="the slowed package does not build with $cc ($log)"; return; }
        pkg=(TC_PKG="$dir/pkg/libtc_bench.so")
    fi
    # shellcheck disable=SC2086 # FLAGS are bench-cost.sh options, split on purpose
    env "${pkg[@]}" TC_BUILD="$cbuild" "$top/scripts/bench-cost.sh" -o "$dir" --sweep ci $cost_flags \
        >"$dir/cost.log" 2>&1 || { why="not counted: $(tail -1 "$dir/cost.log") ($dir/cost.log)"; return; }
    echo "bench-ci: clang leg: counted (key $key) -> $dir/cost.csv" >&2
    if [ -z "$base" ] && [ -n "$against" ] && [ ! -f "$kbase/cost.csv" ]; then
        why="no counts for key $key in $kbase/ (make CC=\"$cc\" BUILD=build-clang cost-baseline)"
        return
    fi
    if [ -n "$base" ]; then
        "$top/scripts/tc-base-count" "$base" "$dir/base" --cost-flags "$cost_flags" --cc "$cc" \
            >"$dir/base.log" 2>&1 || { why="$(tail -1 "$dir/base.log")"; return; }
        kbase=$dir/base
    elif [ -z "$against" ]; then
        rc2=0 why="counted, not compared (no --against or --base)"
        return
    fi
    rc2=0
    # shellcheck disable=SC2086 # FLAGS are tc-compare options, split on purpose
    "$top/scripts/tc-compare" "$kbase" "$dir" --cost-base "$kbase" --json "$dir/verdict.json" $leg_flags || rc2=$?
}
echo "bench-ci: clang leg ($cc, $cbuild)" >&2
leg
end=$(date +%s.%N)
[ -z "$why" ] || echo "bench-ci: clang leg: $why" >&2

# the verdict of both legs (where the first wrote one: --against, --base)
json=$(sed -n 's/.*--json[= ]\([^ ]*\).*/\1/p' <<<"$compare_flags")
junit=$(sed -n 's/.*--junit[= ]\([^ ]*\).*/\1/p' <<<"$compare_flags")
key1=$(TC_BUILD=${TC_BUILD:-$top/build} "$top/scripts/bench-cost.sh" --key 2>/dev/null) || key1="this build's key"
PYTHONPATH=$top/scripts python3 - "$out" "$rc1" "$rc2" "$key1" "$key" "$why" "$cc" "$start" "$end" "$json" "$junit" <<'PY'
import json, os, sys
from tcresults import verdict
out, rc1, rc2, key1, key, why, cc, t0, t1, json_path, junit_path = sys.argv[1:12]
rc1, rc2 = int(rc1), int(rc2)
vpath = os.path.join(out, "verdict.json")
first = json.load(open(vpath)) if os.path.exists(vpath) else None
cpath = os.path.join(out, "clang", "verdict.json")
second = json.load(open(cpath)) if rc2 in (0, 1) and os.path.exists(cpath) else None
if rc2 == 77:
    status2 = "skipped"
elif second:
    status2 = second["status"]
else:
    status2 = "counted" if rc2 == 0 else "build-failed" if rc2 == 1 else "nothing-compared"
head2 = second["headline"] if second else ("SKIP: " + why) if rc2 == 77 else why
legs = [{"leg": "cc", "key": key1, "status": first["status"] if first else "counted", "exit": rc1,
         "headline": first["headline"] if first else ""},
        {"leg": cc, "key": key or None, "status": status2, "exit": rc2, "headline": head2,
         "elapsed_s": round(float(t1) - float(t0), 1)}]
for lg in legs:
    print("bench-ci: %s: %s" % ("key " + lg["key"] if lg["key"] else "the %s leg" % lg["leg"],
                                lg["headline"] or lg["status"]), file=sys.stderr)
if first is None:  # a sweep without --against or --base: nothing judged
    sys.exit(rc1)
exit_ = 1 if 1 in (rc1, rc2) else rc1
v = verdict.Verdict(first["tool"], gating=first.get("gating", True))
v.cases = first.get("cases", []) + [dict(c, suite="%s:%s" % (c["suite"], key)) for c in
                                    (second or {}).get("cases", [])]
v.reason = first.get("reason")
d = dict(first, exit=exit_, status=["pass", "regression", "nothing-compared"][exit_], legs=legs,
         cases=v.cases, regressions=len(v.regressions()), gating_regressions=len(v.gating_regressions()),
         headline="%s (%s); %s (%s)" % (first["headline"], key1, head2, key or "clang leg"))
for path in filter(None, (vpath, json_path)):
    with open(path + ".tmp", "w") as f:
        json.dump(d, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)
if junit_path:
    v.write(None, junit_path)
print("bench-ci: exit %d (both keys; 0 pass, 1 regression, 2 nothing compared; %s)" % (exit_, vpath),
      file=sys.stderr)
sys.exit(exit_)
PY
