#!/usr/bin/env bash
# The CI templates kept in the repository (.github/workflows/perf.yml: a
# job on ubuntu-latest and one in a debian:12 container; .gitlab-ci.yml)
# parse, and their jobs' commands, run as written (tests/ci_jobs.py) in a
# fresh clone of this tree, gate against the base whatever the runner's key:
# BASELINES is an empty folder and the platform a foreign one, so no
# committed baseline serves. An unchanged tree passes every job (exit 0); a
# pull request whose commit adds work to the indirect_put jam fails every
# job at its gate with exit 1, the verdict naming indirect_put. The old
# committed-baseline gate exits 2 there (nothing compared), and make
# bench-ci BASE=... exits 2 for the regression too (make's own status) while
# its verdict file says 1.
# Fewer points than the gate's (BENCH_CI_COST_FLAGS: indirect_put and noop,
# local, 8 B): counting both trees of three jobs twice stays a few minutes.
# The jobs' clang legs (--clang) are skipped here (TC_CLANG_CC names no
# compiler: building both trees twice more per job would triple this
# test), and each job must say so; tests/test_bench_ci.sh runs that leg.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
[ -z "${SAN:-}" ] || skip "SAN=$SAN: the templates build their clone plain; nothing here runs sanitized"
python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml missing (scripts/deps.sh installs it)"
command -v valgrind >/dev/null || skip "valgrind missing: nothing can be counted (scripts/deps.sh)"
templates=(.github/workflows/perf.yml .gitlab-ci.yml)
for t in "${templates[@]}"; do
    [ -f "$top/$t" ] || fail "$t missing"
    python3 -c 'import sys, yaml; yaml.safe_load(open(sys.argv[1]))' "$top/$t" || fail "$t does not parse"
    grep -q 'scripts/bench-ci.sh --base' "$top/$t" || fail "$t: no base-compare gate"
done

# The tree as it is (committed or not) as the base branch main of an
# "origin", and a pull request branch slow on top of it
src=$TMP/origin
mkdir -p "$src"
(cd "$top" && git ls-files -co --exclude-standard -z | tar cf - --null -T -) | tar xf - -C "$src"
git -C "$src" init -q -b main
git -C "$src" -c user.name=t -c user.email=t@t add -A
git -C "$src" -c user.name=t -c user.email=t@t commit -qm "base" || fail "no base commit"
git -C "$src" checkout -q -b slow
python3 - "$src/jams/jam_indirect_put.amc" <<'PY' || fail "could not slow the jam"
import sys
p = sys.argv[1]
s = open(p).read()
anchor = "    st->calls++;\n"
assert anchor in s, "jam_indirect_put.amc changed: no place for the added work"
open(p, "w").write(s.replace(anchor, anchor + "    for (volatile int k = 0; k < 50; ++k) {\n    }\n", 1))
PY
git -C "$src" -c user.name=t -c user.email=t@t commit -qam "indirect_put: 50 more loop iterations a message"
git -C "$src" checkout -q main

# What a CI job sees: its own HOME, no variable of this test run or an outer
# make, the base branch named as GitHub and GitLab name it; a foreign runner
mkdir -p "$TMP/home" "$TMP/empty" "$TMP/bin"
printf '#!/bin/sh\n[ "$(id -u)" = 0 ] || exit 1\nexec "$@"\n' >"$TMP/bin/sudo"   # root here: sudo as on a runner
chmod +x "$TMP/bin/sudo"
job_env=(env -u TC_BUILD -u TC_SRC -u BUILD -u SAN -u TC_TESTS -u MAKEFLAGS -u MAKELEVEL -u MFLAGS
         HOME="$TMP/home" PATH="$(command -v sudo >/dev/null || echo "$TMP/bin:")$PATH"
         GITHUB_BASE_REF=main CI_MERGE_REQUEST_TARGET_BRANCH_NAME=main
         BASELINES="$TMP/empty" TC_PLATFORM_ID=foreign-runner-1
         BENCH_CI_COST_FLAGS="-j indirect_put,noop -m local -s 8" TC_CLANG_CC=no-clang-here)

verdict_exit() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["exit"])' "$1" 2>/dev/null || echo none; }

for branch in main slow; do
    clone=$TMP/clone-$branch
    git clone -q -b "$branch" "file://$src" "$clone" || fail "clone $branch"
    want=0
    [ "$branch" = main ] || want=1
    "${job_env[@]}" python3 "$top/tests/ci_jobs.py" "$clone" "${templates[@]/#/$clone/}" >"$TMP/$branch.log" 2>&1 ||
        { cat "$TMP/$branch.log"; fail "$branch: a template has no job"; }
    grep '^job \|skipped: \|^    \$ \|^    exit ' "$TMP/$branch.log" | sed "s/^/$branch: /"
    jobs=$(grep -c '^job .*: exit ' "$TMP/$branch.log")
    [ "$jobs" = 3 ] || { cat "$TMP/$branch.log"; fail "$branch: $jobs jobs ran, expected 3 (2 GitHub, 1 GitLab)"; }
    bad=$(grep '^job .*: exit ' "$TMP/$branch.log" | grep -v ": exit $want\$" || true)
    nclang=$(grep -c '^bench-ci: clang leg: unsupported: no-clang-here not installed' "$TMP/$branch.log" || true)
    [ "$nclang" = 3 ] || { cat "$TMP/$branch.log"; fail "$branch: $nclang of 3 jobs ran the clang leg (--clang)"; }
    [ -z "$bad" ] || { cat "$TMP/$branch.log"; fail "$branch: expected every job to exit $want: $bad"; }
    v=$(verdict_exit "$clone/build/bench-ci/verdict.json")
    [ "$v" = "$want" ] || { cat "$TMP/$branch.log"; fail "$branch: verdict.json exit $v, expected $want"; }
    if [ "$branch" = slow ]; then
        grep -q '"name": "indirect_put local 8 B"' "$clone/build/bench-ci/verdict.json" &&
            python3 - "$clone/build/bench-ci/verdict.json" <<'PY' || fail "slow: the verdict does not name indirect_put as the regression"
import json, sys
v = json.load(open(sys.argv[1]))
reg = [c["name"] for c in v["cases"] if c["status"] == "regression"]
assert reg == ["indirect_put local 8 B"], reg
PY
        grep -q '<failure' "$clone/build/bench-ci.xml" || fail "slow: no JUnit failure in build/bench-ci.xml"
        # make: 2 for any failure, the verdict file says which
        (cd "$clone" && "${job_env[@]}" make bench-ci BASE=origin/main >"$TMP/make.log" 2>&1); rc=$?
        [ "$rc" = 2 ] || { cat "$TMP/make.log"; fail "make bench-ci BASE=origin/main: exit $rc, expected make's 2"; }
        v=$(verdict_exit "$clone/build/bench-ci/verdict.json")
        [ "$v" = 1 ] || { cat "$TMP/make.log"; fail "make bench-ci BASE=...: verdict.json exit $v, expected 1"; }
        echo "slow: make bench-ci BASE=origin/main: exit $rc, build/bench-ci/verdict.json exit $v"
    else
        # the committed-baseline gate on this runner: no baseline for its
        # key or platform, nothing compared
        (cd "$clone" && "${job_env[@]}" scripts/bench-ci.sh --against "$TMP/empty" >"$TMP/against.log" 2>&1); rc=$?
        [ "$rc" = 2 ] || { cat "$TMP/against.log"; fail "--against an empty BASELINES: exit $rc, expected 2"; }
        v=$(verdict_exit "$clone/build/bench-ci/verdict.json")
        [ "$v" = 2 ] || fail "--against an empty BASELINES: verdict.json exit $v, expected 2"
        echo "main: scripts/bench-ci.sh --against EMPTY: exit $rc (nothing compared), verdict.json exit $v"
    fi
done
echo "PASS: every job of ${templates[*]} passes an unchanged tree and fails a slowed jam with exit 1, on a foreign key"
