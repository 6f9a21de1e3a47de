#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages Two-Chains needs, when any is missing.
set -euo pipefail
# usage: deps.sh [check|fuzz|aarch64|coverage]
#   check    adds, where it can, Debian's chromium: tests/test_report.sh opens
#            make report's pages in it (headless); where it cannot be
#            installed (no root, no such package) it says so and goes on, and
#            that test is skipped with the reason
#   fuzz     adds clang, for make fuzz
#   coverage adds python3-coverage, for make coverage-py (the unit tests of
#            scripts/tcresults need only python3's standard library)
#   aarch64  adds Debian's arm64 UCX, libelf, hwloc and cmocka (multiarch:
#            dpkg --add-architecture arm64), for make check-aarch64
# git: bench-ci --base, history and bisect build other revisions in worktrees
# (a debian:12 container has none); python3-yaml: tests/test_ci_templates.sh
# parses the CI templates; clang-14: make bench-ci's clang leg (the counts
# of the clang-14 key, bench-ci.sh --clang)
pkgs=(build-essential libpmix-dev openmpi-bin pkg-config libucx-dev ucx-utils libelf-dev stress-ng gnuplot-nox
      hwloc libhwloc-dev libcmocka-dev valgrind iproute2 procps psmisc python3 python3-yaml git clang-14
      gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static)
[ "${1:-}" = fuzz ] && pkgs+=(clang)
[ "${1:-}" = coverage ] && pkgs+=(python3-coverage)
optional=()
[ "${1:-}" = check ] && optional+=(chromium)
if [ "${1:-}" = aarch64 ]; then
    pkgs+=(libucx-dev:arm64 libelf-dev:arm64 libhwloc-dev:arm64 libcmocka-dev:arm64)
    if ! dpkg --print-foreign-architectures | grep -qx arm64; then
        [ "$(id -u)" = 0 ] || { echo "deps: arm64 is not a dpkg architecture here; as root run: dpkg --add-architecture arm64"; exit 1; }
        echo "deps: dpkg --add-architecture arm64"
        dpkg --add-architecture arm64
    fi
fi
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
# optional packages: installed where this host can, else one line and on
install_optional() {
    local p
    for p in "${optional[@]}"; do
        installed "$p" && continue
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
            echo "deps: installing $p (optional)"
            DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$p" >/dev/null 2>&1 || {
                apt-get update -qq >/dev/null 2>&1
                DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$p" >/dev/null 2>&1; } ||
                echo "deps: $p could not be installed (apt-get install $p failed); the tests that need it are skipped"
        elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
            sudo DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$p" >/dev/null 2>&1 ||
                echo "deps: $p could not be installed; the tests that need it are skipped"
        else
            echo "deps: $p missing (optional; as root: apt-get install $p); the tests that need it are skipped"
        fi
    done
}
missing=()
for p in "${pkgs[@]}"; do
    installed "$p" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "deps: all ${#pkgs[@]} packages present"
    install_optional
    exit 0
fi
cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "deps: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    $cmd
    install_optional
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo apt-get update -qq
    sudo DEBIAN_FRONTEND=noninteractive $cmd
    install_optional
else
    echo "deps: missing ${missing[*]}; as root run:"
    echo "  apt-get update && $cmd"
    exit 1
fi
