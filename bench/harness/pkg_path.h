/*
 * Where the bench package is: what tc-perf, tc-mcast, tc-run, tc-soak and
 * the tests open when not told otherwise. A harness concern (it knows the
 * build tree's and the install's layout), not the library's.
 */
#ifndef TC_HARNESS_PKG_PATH_H
#define TC_HARNESS_PKG_PATH_H

#include "twochains.h"

#include <stddef.h>

/* The bench package's library: $TC_PKG if set, else libtc_bench.so in
 * ../pkg/bench (build/bin, build/tests) or ../share/twochains/pkg/bench (an
 * installed PREFIX/bin) relative to the running binary. TC_OK and the path
 * in buf; TC_ERR_OUT_OF_RANGE if it does not fit in len bytes,
 * TC_ERR_NOT_FOUND, TC_ERR_IO; buf is written only on success. */
tc_status_t tc_pkg_default_path(char *buf, size_t len);

#endif
