/*
 * Transitional (issue 12: the harness out of libtwochains). The platform
 * report moved to the harness (bench/harness/platform.h) and the library's
 * CPU probe is cpu.h; lib/peer.c, being split at the same time, still
 * includes "platform.h" for TC_PLATFORM_STATUS_LEN. Nothing else in lib/
 * includes this header and it is not installed: delete it once peer.c's
 * successors include cpu.h instead.
 */
#ifndef TC_LIB_PLATFORM_COMPAT_H
#define TC_LIB_PLATFORM_COMPAT_H

#include "cpu.h"

#define TC_PLATFORM_STATUS_LEN TC_CPU_STATUS_LEN

#endif
