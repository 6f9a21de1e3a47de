# Shared by the shell tests: paths, a free port, and assertions.
set -u
TC_BUILD=${TC_BUILD:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build}
TC_PERF="$TC_BUILD/bin/tc-perf"
TMP=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"' EXIT

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }

free_port() { # a TCP port no socket uses, below the kernel's ephemeral range
    # (a port an outgoing connection holds as its local end is not listening,
    # yet a bind to it fails: "Address already in use")
    local p low
    low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
    [ "$low" -gt 12000 ] 2>/dev/null || low=32768
    for _ in $(seq 50); do
        p=$((10000 + RANDOM % (low - 10000)))
        ss -tan 2>/dev/null | awk '{ print $4 }' | grep -q ":$p\$" || { echo "$p"; return; }
    done
    echo 23456
}

now_ms() { date +%s%3N; }

lib_includes() { # src: the -I flags of lib/ and of each of its folders by layer, one a line
    local d
    printf -- '-I%s\n' "$1/lib"
    for d in "$1"/lib/*/; do printf -- '-I%s\n' "${d%/}"; done
}

wait_listening() { # port seconds: until something listens on TCP port, at most seconds
    local deadline=$(( $(date +%s) + $2 ))
    until ss -ltn 2>/dev/null | grep -q ":$1 "; do
        [ "$(date +%s)" -lt "$deadline" ] || return 1
        sleep 0.05
    done
}

pmix_rank_pid() { # pattern rank: the pid of the process matching pattern whose PMIX_RANK is rank (waits up to 10 s)
    local p
    for _ in $(seq 100); do
        for p in $(pgrep -f "$1" || true); do
            tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "PMIX_RANK=$2" && { echo "$p"; return 0; }
        done
        sleep 0.1
    done
    return 1
}

# kill_rank pattern rank delay out cmd...: start the launcher command cmd in the
# background (output to out), SIGKILL the rank whose command line matches
# pattern after delay seconds, and wait for the launcher; it must exit
# non-zero and not time out (124). Its status is left in KILLED_RC.
kill_rank() {
    local pattern=$1 rank=$2 delay=$3 out=$4 launcher victim
    shift 4
    "$@" >"$out" 2>&1 &
    launcher=$!
    victim=$(pmix_rank_pid "$pattern" "$rank") || fail "rank $rank never started: $(cat "$out")"
    sleep "$delay"
    kill -9 "$victim"
    wait "$launcher"; KILLED_RC=$?
    [ "$KILLED_RC" != 0 ] && [ "$KILLED_RC" != 124 ] ||
        { cat "$out"; fail "the launcher exited $KILLED_RC after rank $rank died (want non-zero, no timeout)"; }
}
