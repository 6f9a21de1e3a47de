#!/usr/bin/env bash
# The aarch64 wait and placement primitives (lib/arch/aarch64.h), built with
# the cross compiler and run under qemu-aarch64-static:
#   - one thread sleeps in tc_arch_wfe_wait_u64 while another writes the word
#     (with a payload written before it, which the waiter must see);
#   - two threads ping-pong 2000 times through WFE waits (no lost wake-up);
#   - tc_arch_wfe_wait_u64_until gives up at its CNTVCT deadline;
#   - dc cvac/civac/cvau, stnp, dmb/dsb/isb and clear_icache run;
#   - lib/arch/place.c writes llc and dram frames byte for byte (signal last);
#   - lib/arch/cpu.c says both placements are supported (tc_place_check);
#   - bench/harness/cycles.c (with clock.h's cntvct path) runs, and
#     bench/harness/platform.c compiles for aarch64 with -Werror.
# qemu-user does not model the exclusive monitor's power states, so this
# checks the code's logic and encodings, not the wake-up latency.
# Exit 77 (skipped) with the reason when the cross compiler or qemu is missing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=${TC_SRC:-$(cd "$here/.." && pwd)}
# lib/ and its folders by layer (docs/ARCHITECTURE.md, "Layers")
lib_inc=(-I"$top/lib")
for d in "$top"/lib/*/; do lib_inc+=(-I"${d%/}"); done
CROSS_CC=${CROSS_CC:-aarch64-linux-gnu-gcc}
QEMU=${QEMU_AARCH64:-}
SYSROOT=${AARCH64_SYSROOT:-/usr/aarch64-linux-gnu}

if ! command -v "$CROSS_CC" >/dev/null 2>&1; then
    echo "skipped: $CROSS_CC missing (apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross)"
    exit 77
fi
if [ -z "$QEMU" ]; then
    for q in qemu-aarch64-static qemu-aarch64; do
        if command -v "$q" >/dev/null 2>&1; then QEMU=$q; break; fi
    done
fi
if [ -z "$QEMU" ]; then
    echo "skipped: qemu-aarch64-static missing (apt-get install qemu-user-static)"
    exit 77
fi
if [ ! -d "$SYSROOT/lib" ]; then
    echo "skipped: no aarch64 libc at $SYSROOT (apt-get install libc6-dev-arm64-cross)"
    exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Static: once Debian's arm64 multiarch libc is installed too (make
# check-aarch64), the host's ld.so.cache names its libc, and the cross
# sysroot's loader under -L would load that foreign libc and hang.
CFLAGS="-std=gnu11 -O2 -Wall -Wextra -Werror -pthread"
LINK_STATIC=-static

cat >"$tmp/wfe.c" <<'EOF'
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wait_arch.h"

#if !defined(__aarch64__) || !TC_ARCH_HAVE_WFE
#error "expected the aarch64 header"
#endif

/* plain words, read and written once (lib/base/barrier.h), as the library's */
static uint64_t word, payload, seen_payload, woke_with;

static void *waiter(void *arg)
{
    (void)arg;
    woke_with    = tc_arch_wfe_wait_u64(&word, 0);
    seen_payload = tc_read_once(&payload); /* ordered after the acquire load */
    return NULL;
}

#define ROUNDS 2000
static uint64_t ping, pong;

static void *ponger(void *arg)
{
    (void)arg;
    for (uint64_t i = 1; i <= ROUNDS; ++i) {
        while (tc_arch_wfe_wait_u64(&ping, i - 1) != i) {
        }
        __atomic_store_n(&pong, i, __ATOMIC_RELEASE);
    }
    return NULL;
}

static void fail(const char *what)
{
    printf("FAIL: %s\n", what);
    exit(1);
}

int main(void)
{
    pthread_t       th;
    struct timespec ts = { 0, 50 * 1000000L };
    uint64_t        freq, t0, r;
    static uint8_t  buf[256] __attribute__((aligned(64)));
    static uint8_t  src[64] __attribute__((aligned(64)));

    alarm(60); /* a lost wake-up must not hang make check */

    /* 1. wake-up by a write from another thread */
    if (pthread_create(&th, NULL, waiter, NULL) != 0) fail("pthread_create");
    nanosleep(&ts, NULL);
    tc_write_once(&payload, 42);
    tc_store_release(&word, 7);
    pthread_join(th, NULL);
    if (woke_with != 7) fail("waiter returned the wrong value");
    if (seen_payload != 42) fail("payload not visible after the wake-up");
    printf("wfe wait: woken with %llu, payload %llu\n", (unsigned long long)woke_with,
           (unsigned long long)seen_payload);

    /* 2. ping-pong */
    if (pthread_create(&th, NULL, ponger, NULL) != 0) fail("pthread_create");
    for (uint64_t i = 1; i <= ROUNDS; ++i) {
        __atomic_store_n(&ping, i, __ATOMIC_RELEASE);
        while (tc_arch_wfe_wait_u64(&pong, i - 1) != i) {
        }
    }
    pthread_join(th, NULL);
    printf("wfe ping-pong: %d rounds\n", ROUNDS);

    /* 3. deadline */
    __asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(freq));
    if (freq == 0) fail("cntfrq_el0 is 0");
    t0 = tc_arch_cntvct();
    r  = tc_arch_wfe_wait_u64_until(&ping, ping, t0 + freq / 50); /* 20 ms */
    if (r != ping) fail("timed wait returned a different value");
    if (tc_arch_cntvct() - t0 < freq / 50) fail("timed wait returned before its deadline");
    printf("wfe deadline: %.1f ms\n", (double)(tc_arch_cntvct() - t0) * 1e3 / (double)freq);

    /* 4. placement primitives */
    for (int i = 0; i < 64; ++i) src[i] = (uint8_t)(i * 3 + 1);
    tc_arch_nt_store_64B(buf, src);
    tc_arch_store_fence();
    if (memcmp(buf, src, 64) != 0) fail("stnp copy differs");
    memcpy(buf + 64, src, 64);
    tc_arch_dc_cvac(buf + 64);
    tc_arch_dc_civac(buf + 128);
    tc_arch_dc_cvau(buf + 192);
    tc_arch_dmb_ish();
    tc_arch_dmb_ishst();
    tc_arch_dsb_ish();
    tc_arch_isb();
    tc_arch_pause();
    tc_arch_clear_icache(buf, buf + sizeof(buf));
    if (memcmp(buf + 64, src, 64) != 0) fail("data changed by cache maintenance");
    printf("placement primitives ran\n");
    return 0;
}
EOF

cat >"$tmp/cyc.c" <<'EOF'
#include <stdio.h>
#include "harness/cycles.h"
int main(void)
{
    tc_cycles_t       *c;
    tc_cycles_sample_t s;
    volatile unsigned long x = 0;

    if (tc_cycles_open(&c) != TC_OK) return 1;
    tc_cycles_start(c);
    for (unsigned long i = 0; i < 20000000ul; ++i) x += i;
    tc_cycles_add_polls(c, 3);
    tc_cycles_stop(c);
    tc_cycles_read(c, &s);
    printf("cycles under qemu: source %s (%s), cpu %llu ns, ticks %llu, polls %llu\n",
           s.source, tc_cycles_pmu_status(c), (unsigned long long)s.cpu_ns,
           (unsigned long long)s.tsc_ticks, (unsigned long long)s.polls);
    if (s.polls != 3 || s.tsc_ticks == 0 || s.elapsed_ns == 0) return 2;
    if (!s.pmu && s.cycles != TC_CYCLES_NONE) return 3;
    tc_cycles_close(c);
    return 0;
}
EOF

# lib/arch/place.c on aarch64: every placement writes the frame byte for byte
# and the signal last, after lib/arch/cpu.c's check said it can (the real
# modules: place, cpu, names, log, status; none needs UCX).
cat >"$tmp/place.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include "place.h"
int main(void)
{
    static _Alignas(64) char frame[1024], slot[1024];
    for (unsigned size = 64; size <= sizeof(frame); size += 64) {
        for (int place = TC_PLACE_LLC; place <= TC_PLACE_DRAM; ++place) {
            for (unsigned i = 0; i < size; ++i) frame[i] = (char)(i * 7 + size + place);
            memset(slot, 0, sizeof(slot));
            if (tc_place_check((tc_place_t)place, NULL, 0) != TC_OK) return 1;
            tc_place_frame((tc_place_t)place, slot, frame, size);
            if (memcmp(slot, frame, size) != 0) {
                printf("placement %s, %u bytes: slot differs\n", tc_place_str((tc_place_t)place), size);
                return 2;
            }
        }
    }
    printf("placement llc (%s), dram (%s): frames byte-identical\n",
           tc_place_sequence(TC_PLACE_LLC), tc_place_sequence(TC_PLACE_DRAM));
    return 0;
}
EOF

rc=0
echo "== build (aarch64)"
"$CROSS_CC" $CFLAGS "${lib_inc[@]}" "$tmp/place.c" "$top/lib/arch/place.c" "$top/lib/arch/cpu.c" \
    "$top/lib/base/names.c" "$top/lib/base/log.c" "$top/lib/base/status.c" $LINK_STATIC -o "$tmp/place" || exit 1
"$CROSS_CC" $CFLAGS "${lib_inc[@]}" "$tmp/wfe.c" $LINK_STATIC -o "$tmp/wfe" || exit 1
"$CROSS_CC" $CFLAGS "${lib_inc[@]}" -I"$top/bench" "$tmp/cyc.c" "$top/bench/harness/cycles.c" "$top/lib/arch/clock.c" \
    "$top/lib/base/names.c" "$top/lib/base/log.c" "$top/lib/base/status.c" $LINK_STATIC -o "$tmp/cyc" || exit 1

# the harness's platform.c for aarch64: hwloc's headers are architecture-neutral except its
# autogen config, which only the host's multiarch directory has.
hwcfg=$(ls /usr/include/*-linux-gnu/hwloc/autogen/config.h 2>/dev/null | head -1)
if [ -f /usr/include/hwloc.h ] && [ -n "$hwcfg" ]; then
    mkdir -p "$tmp/inc/hwloc/autogen"
    ln -s /usr/include/hwloc.h "$tmp/inc/hwloc.h"
    for h in /usr/include/hwloc/*.h; do ln -s "$h" "$tmp/inc/hwloc/"; done
    ln -s "$hwcfg" "$tmp/inc/hwloc/autogen/config.h"
    "$CROSS_CC" $CFLAGS "${lib_inc[@]}" -isystem "$tmp/inc" -c "$top/bench/harness/platform.c" \
        -o "$tmp/platform.o" || exit 1
    echo "bench/harness/platform.c builds for aarch64"
else
    echo "hwloc headers missing: bench/harness/platform.c not cross-built"
fi

echo "== run under $QEMU"
"$QEMU" -L "$SYSROOT" "$tmp/wfe" || { echo "wfe program failed"; rc=1; }
"$QEMU" -L "$SYSROOT" "$tmp/cyc" || { echo "cycles program failed"; rc=1; }
"$QEMU" -L "$SYSROOT" "$tmp/place" || { echo "placement program failed"; rc=1; }
[ "$rc" = 0 ] && echo "aarch64 WFE path ok"
exit $rc
