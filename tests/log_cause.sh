#!/usr/bin/env bash
# The cause of a failed test, from its log (tests/run-tests.sh prints it
# before the log's tail, which for a sanitizer holds only the shadow legend
# and the summary): the first sanitizer report's ERROR: line (ASan, LSan,
# TSan) or UBSan's "runtime error:" line with the frames under it, up to
# MAX lines (default 40) and its SUMMARY line; else UCX's fatal line (an assertion, a caught
# signal) with its backtrace; else cmocka's first failing assertion with
# the test it ran in. Prints nothing when the log names none.
# Usage: log_cause.sh LOG [MAX]
set -u
log=$1 max=${2:-40}
[ -r "$log" ] || exit 0
awk -v max="$max" '
    function flush() { for (i = 1; i <= n; ++i) print buf[i]; n = 0 }
    # a sanitizer report: its ERROR or runtime error line and what follows
    # (frames, "freed by", "created by" ...) up to max lines
    !san && (/==[0-9]+==ERROR: [A-Za-z]+Sanitizer/ || /: runtime error: /) {
        san = 1; left = max
    }
    san && /^SUMMARY: / { print; exit }   # the shadow map after it says nothing
    san && left > 0 { print; --left; if (left == 0) exit; next }
    san { exit }
    # UCX: its assertion or caught signal, then the backtrace block
    !ucx && (/Assertion `.*failed/ || /Caught signal [0-9]+/) { ucx = 1; uleft = 25 }
    ucx && uleft > 0 { ubuf[++un] = $0; --uleft; next }
    # cmocka: the test that ran, its first failure and where
    /^\[ RUN      \]/ { run = $0 }
    !cm && /^\[  ERROR   \] --- / { cm = 1; buf[++n] = run; buf[++n] = $0; next }
    cm == 1 && /^\[   LINE   \] --- / { buf[++n] = $0; cm = 2 }
    END {
        if (san) exit
        if (ucx) { for (i = 1; i <= un; ++i) print ubuf[i]; exit }
        flush()
    }
' "$log"
