/* What the command-line tools (tc-perf, tc-soak) share: strict number
 * parsing and pinning the calling thread to a core. */
#ifndef TC_TOOL_H
#define TC_TOOL_H

#include "twochains.h"

#include <stdint.h>

/* Digits only, no overflow, within [min, max]: 0, else -1. */
int         tc_tool_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *val_p);
/* Pin the calling thread to cpu with hwloc (cpu < 0: leave it). */
tc_status_t tc_tool_pin(int cpu);

#endif
