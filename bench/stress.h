/*
 * Background load for a measurement: stress-ng started for the run, pinned
 * to the given cores, and stopped afterwards whatever happens - a normal
 * stop, an error path, a signal, or tc-perf killed with SIGKILL.
 *
 * The guarantee comes from a watchdog process between tc-perf and
 * stress-ng: it holds the read end of a pipe whose write end only tc-perf
 * holds, and when the pipe reads end-of-file (tc-perf stopped it, exited or
 * died) it terminates stress-ng's whole process group (SIGTERM, then
 * SIGKILL after a grace period) and exits.
 */
#ifndef TC_STRESS_H
#define TC_STRESS_H

#include "twochains.h"

#include <stddef.h>

typedef struct tc_stress tc_stress_t;

/* spec: CLASS[:N] -> stress-ng --class CLASS --all N (N default 1; "vm"
 * gives the paper's `stress-ng --class vm --all 1`). cpus: a list like
 * "0,1" or "0-3" the load is pinned to (NULL: every online core). Fails
 * with a message naming the problem: a bad spec or cpu list, stress-ng
 * missing from PATH, or stress-ng exiting at once. */
tc_status_t tc_stress_start(const char *spec, const char *cpus, tc_stress_t **stress_p);
/* Before the run: the spec's form, and (where stress-ng is installed)
 * whether stress-ng takes it, by a dry run; else why names what is wrong. */
tc_status_t tc_stress_check(const char *spec, char *why, size_t why_len);
/* Stop the load and wait until every stress-ng process is gone; TC_ERR_IO
 * when stress-ng had died during the run (the load was not there). */
tc_status_t tc_stress_stop(tc_stress_t *stress);

const char *tc_stress_spec(const tc_stress_t *stress);    /* "vm" */
const char *tc_stress_argv(const tc_stress_t *stress);    /* "stress-ng --class vm --all 1" */
const char *tc_stress_cpus(const tc_stress_t *stress);    /* "0,1" or "all" */
const char *tc_stress_version(const tc_stress_t *stress); /* stress-ng --version */
int         tc_stress_pgid(const tc_stress_t *stress);    /* stress-ng's process group */

#endif
