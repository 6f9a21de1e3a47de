/*
 * One name table per enum of the public API (wait, mode, placement,
 * signalling, frames, exec policy, progress, log level, bootstrap): what tc_*_str prints and
 * tc_*_parse reads, and what the tools list in their help and errors. The
 * library, bench/ and tests/ all take the names from here.
 */
#ifndef TC_NAMES_H
#define TC_NAMES_H

#include "twochains.h"

typedef struct tc_names {
    const char        *what;   /* what a name is, for messages: "wait strategy" */
    const char *const *names;  /* names[value], value in [0, count) */
    unsigned           count;
} tc_names_t;

extern const tc_names_t tc_names_wait;     /* tc_wait_t */
extern const tc_names_t tc_names_mode;     /* tc_mode_t */
extern const tc_names_t tc_names_place;    /* tc_place_t */
extern const tc_names_t tc_names_signal;   /* tc_signal_mode_t */
extern const tc_names_t tc_names_frames;   /* tc_frame_mode_t */
extern const tc_names_t tc_names_exec;     /* tc_exec_policy_t */
extern const tc_names_t tc_names_progress; /* tc_progress_mode_t */
extern const tc_names_t tc_names_log_level; /* tc_log_level_t */
extern const tc_names_t tc_names_boot;     /* tc_boot_kind_t */

/* The name of value; NULL when out of range. */
const char *tc_names_str(const tc_names_t *table, unsigned value);
/* The value named name (exact match). TC_ERR_NOT_FOUND for an unknown name,
 * TC_ERR_INVALID_PARAM for NULL; quiet: the caller reports it. value_p is
 * written only on success. */
tc_status_t tc_names_parse(const tc_names_t *table, const char *name, unsigned *value_p);

#endif
