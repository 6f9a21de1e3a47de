#!/usr/bin/env bash
# make check-aarch64: the library, the bench package and the tools
# cross-built for aarch64 against Debian's arm64 UCX (multiarch) with
# aarch64-linux-gnu-gcc into BUILD_AARCH64 (default build-aarch64), then run
# under qemu-user: every cmocka program, the loopback, tcp and tc-run scripts,
# and tests/aarch64/ (every mode x wait x placement, exactly-once delivery,
# results equal to the x86-64 build's). Ends with the suite's
# "N passed, N failed, N skipped" line. Emulated: nothing here is timed.
#
# Skipped, with the reason, only where the arm64 packages cannot be installed
# or qemu cannot be registered with binfmt_misc (the tests exec the aarch64
# programs directly, as they do on a real aarch64 host).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
host_build=${BUILD:-build}
a64=${BUILD_AARCH64:-build-aarch64}
cross=aarch64-linux-gnu

if ! scripts/deps.sh aarch64; then
    echo "check-aarch64: skipped: the arm64 multiarch packages cannot be installed here (above)"
    exit 0
fi

binfmt=/proc/sys/fs/binfmt_misc
if [ ! -e "$binfmt/qemu-aarch64" ]; then
    [ -e "$binfmt/register" ] || mount -t binfmt_misc binfmt_misc "$binfmt" 2>/dev/null || true
    conf=/usr/lib/binfmt.d/qemu-aarch64.conf
    if [ -w "$binfmt/register" ] && [ -f "$conf" ]; then
        cat "$conf" >"$binfmt/register"
        echo "check-aarch64: registered qemu-aarch64 with binfmt_misc ($conf)"
    fi
fi
if [ ! -e "$binfmt/qemu-aarch64" ]; then
    echo "check-aarch64: skipped: qemu-aarch64 is not registered with binfmt_misc and cannot be (needs root)"
    exit 0
fi

make --no-print-directory BUILD="$host_build" all
# the host's tc-pkg drives the cross compiler; pkg-config answers for arm64
# (no libpmix-dev:arm64: the aarch64 build says "built without PMIx")
tests=$(ls tests/test_*.c | sed "s|tests/\(.*\)\.c|$a64/tests/\1|")
# shellcheck disable=SC2086 # $tests: the test programs, one word each
make --no-print-directory BUILD="$a64" CC=$cross-gcc TC_PKG_RUN="$top/$host_build/bin/tc-pkg" \
    PKG_CONFIG="env PKG_CONFIG_LIBDIR=/usr/lib/$cross/pkgconfig:/usr/share/pkgconfig pkg-config" \
    all $tests

# Under qemu-user UCX's keepalive declared live endpoints dead after about
# 40 s of a long stream (qemu answers /proc/self/stat itself); the emulated
# suite runs without it. TC_EMULATED tells the tests that clocks and
# scheduling are the emulator's; TC_TEST_QUICK runs the volume tests short.
export UCX_KEEPALIVE_INTERVAL=inf TC_EMULATED=1 TC_TEST_QUICK=1 TC_HOST_BUILD="$top/$host_build"
BUILD="$a64" TC_TESTS="cmocka test_perf_loopback test_perf_tcp test_tc_run" TC_TEST_DIRS="$top/tests/aarch64" \
    tests/run-tests.sh
