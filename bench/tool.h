/* What the command-line tools (tc-perf, tc-soak, tc-run, tc-mcast) share:
 * the parsing of their common flags, composed once (like fabtests'
 * common/shared.c), and pinning the calling thread to a core.
 *
 * Every tc_tool_opt_* parser reads one option argument; on a bad one it
 * prints "<tool>: <what was wrong>" and "try '<tool> --help'" to stderr
 * (the usage itself would scroll that line away) and returns 2, else 0. Its
 * output is written only on success.
 *
 * Exit codes, the same in every tool: 0 done, 1 the run failed, 2 a bad
 * command line, 77 something this host, build or transport cannot do
 * ("<tool>: unsupported: <why>"; automake's and ctest's "skipped"), 130
 * interrupted (SIGINT). */
#ifndef TC_TOOL_H
#define TC_TOOL_H

#include "twochains.h"
#include "names.h"

#include <stdint.h>
#include <stdio.h>
#include <time.h>

/* The schema of the results the tools write (a schema_version column in
 * every CSV row; scripts/tcresults/schema.py SCHEMA_VERSION reads it and
 * migrates older rows, which have none: version 0). */
#define TC_TOOL_SCHEMA_VERSION 2

/* How a tool's jam loop sends (tc-perf and tc-cost --api): tc_jam_send, or a
 * prepared jam's start (tc_jam_init once a point, tc_jam_start each frame). */
typedef enum tc_tool_api { TC_TOOL_API_SEND, TC_TOOL_API_PREPARED, TC_TOOL_API_LAST } tc_tool_api_t;
extern const tc_names_t tc_tool_names_api; /* tc_tool_api_t */

#define TC_TOOL_EXIT_FAILED      1
#define TC_TOOL_EXIT_USAGE       2
#define TC_TOOL_EXIT_UNSUPPORTED 77
#define TC_TOOL_EXIT_INTERRUPTED 130

/* getopt_long's value for --version, above every short option's */
#define TC_TOOL_OPT_VERSION 0x100
/* The exit codes as the tools' --help says them (after the options). */
#define TC_TOOL_EXIT_HELP \
    "exit status: 0 done, 1 failed, 2 bad command line, 77 unsupported here (a wait,\n" \
    "placement or control this host, build or transport lacks: \"unsupported: why\")\n"

typedef struct tc_tool {
    const char *name;               /* "tc-perf": prefix of every error */
    void      (*usage)(FILE *out);  /* --help */
} tc_tool_t;

/* Digits only, no overflow, within [min, max]: 0, else -1. */
int         tc_tool_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *val_p);
/* Pin the calling thread to cpu with hwloc (cpu < 0: leave it). */
tc_status_t tc_tool_pin(int cpu);

/* "<tool>: " fmt "\n" and "try '<tool> --help'" to stderr; returns 2. */
int tc_tool_bad(const tc_tool_t *tool, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "<tool>: unsupported: " fmt "\n" to stderr; returns 77. A reason that
 * already starts with "unsupported: " (the platform report's) is not said
 * twice. */
int tc_tool_unsupported(const tc_tool_t *tool, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* --version: "<tool> (Two-Chains) rev <git revision>, UCX <version>" on
 * stdout; returns 0. */
int tc_tool_version(const tc_tool_t *tool);
/* An option's value that is the next argument and looks like an option
 * ("--csv -q": getopt_long takes -q as the file) is refused: "<tool>: OPT
 * takes a value, and '-q' is an option (OPT=-q if that is meant)"; 2. A
 * lone "-" (stdout, where an option says so) and negative numbers pass, as
 * does any value written OPT=VALUE or attached (-c-1). Call it right after
 * getopt_long returned an option with a value. */
int tc_tool_check_value(const tc_tool_t *tool, int argc, char **argv);
/* What getopt_long returned for an option it did not take (':' a missing
 * value, anything else unknown) as tc_tool_bad. */
int tc_tool_bad_opt(const tc_tool_t *tool, int c, char **argv);

/* -j names a jam pkg lacks: "<tool>: package 'P' has no jam 'J' (its
 * jams: a, b, ...)" and the usage; returns 2, as every usage error. */
int tc_tool_bad_jam(const tc_tool_t *tool, const tc_pkg_t *pkg, const char *jam);
/* The package's jams, "a, b, ..." (cut with "..." where they do not fit in
 * len bytes; "none" where it has none): buf, or that literal. */
const char *tc_tool_jam_list(const tc_pkg_t *pkg, char *buf, size_t len);

/* A number in [min, max]; bad: fmt with the argument (e.g. "bad count '%s' (1..2^40)"). */
int tc_tool_opt_u64(const tc_tool_t *tool, const char *arg, uint64_t min, uint64_t max,
                    const char *bad_fmt, uint64_t *val_p);
/* -S: a power of two in [min, max]. */
int tc_tool_opt_pow2(const tc_tool_t *tool, const char *arg, uint64_t min, uint64_t max,
                     const char *bad_fmt, uint32_t *val_p);
/* -z: a multiple of 64 in [min, max]. */
int tc_tool_opt_mult64(const tc_tool_t *tool, const char *arg, uint64_t min, uint64_t max,
                       const char *bad_fmt, uint32_t *val_p);
/* -T: milliseconds, 1..3600000. */
int tc_tool_opt_timeout(const tc_tool_t *tool, const char *arg, int *ms_p);

/* True when a comma list has an empty item ("", "8,,16", "jam_lat,"): the
 * lists refuse those rather than guess what was meant. */
int tc_tool_list_has_empty(const char *arg);
/* "<tool>: empty item in 'ARG' (OPT takes a comma list)" and the usage; 2. */
int tc_tool_bad_empty(const tc_tool_t *tool, const char *opt, const char *arg);

/* An output file (--csv, --json, ...) checked before anything runs, so an
 * unwritable one is a usage error and not a lost run: opened for writing
 * without truncating a file that is there (a run that fails keeps the old
 * one); *created_p: made here. "-" (stdout) and NULL pass. Bad: "<tool>:
 * OPT PATH: cannot write it: <why>" and the usage; 2. */
int  tc_tool_check_output(const tc_tool_t *tool, const char *opt, const char *path,
                          int *created_p);
/* A file tc_tool_check_output created and the run left empty is removed. */
void tc_tool_drop_output(const char *path, int created);

/* A tool's output files, checked together before anything runs: at most
 * one is "-" (stdout), no two are one file (the second would overwrite the
 * first: compared by name and, where both exist, by device and inode), and
 * each is writable (tc_tool_check_output). opts[i] names paths[i] (NULL:
 * not asked for); created[i] as tc_tool_check_output's. 0, or 2 said. */
int tc_tool_check_outputs(const tc_tool_t *tool, const char *const *opts,
                          const char *const *paths, unsigned n, int *created);

/* ISO 8601 in UTC ("2026-12-01T10:00:00Z"): the tools' CSV timestamp. */
void tc_tool_iso_time(time_t t, char *buf, size_t len);

/* A comma list of numbers; an empty item is refused ("8,,16" is bad). */
typedef struct tc_tool_list {
    const char *opt;        /* "-s": named when an item is empty */
    uint64_t    min, max;   /* each number */
    unsigned    max_n;      /* at most this many */
    int         ranges;     /* items may be A:B, A doubled up to B (OSU's -m
                             * min:max; 0:B is 0, 1, 2, 4, ...) */
    const char *bad_fmt;    /* a bad number or one too many: %s the item ... */
    int         bad_whole;  /* ... or, when set, the whole argument */
    const char *none_fmt;   /* no number at all: %s the argument */
} tc_tool_list_t;

int tc_tool_opt_list(const tc_tool_t *tool, const char *arg, const tc_tool_list_t *list,
                     uint64_t *vals, unsigned *n_p);

/* Each of cpus[0..n-1] must be a core this process may run on (its
 * affinity mask, which excludes cores that do not exist); else "<tool>: cpu
 * N is not available here (allowed: 0-1)" and the usage; 2. */
int tc_tool_check_cpus(const tc_tool_t *tool, const int *cpus, unsigned n);

/* -c: n_min..n_max cores "A[,B...]", each 0..4095, no empty item; roles
 * says what they are ("CPU, or CLIENT,SERVER"). Bad: the line says which
 * item is wrong or how many were given, what opt takes and which cores this
 * process may use ("-c 0,1,2: 3 cores; -c takes 1 or 2 (CPU, or
 * CLIENT,SERVER); cores here: 0-1"). Writes cpus[0..n-1]. */
int tc_tool_opt_cpus(const tc_tool_t *tool, const char *opt, const char *arg, unsigned n_min,
                     unsigned n_max, const char *roles, int *cpus, unsigned *n_p);

/* One name of a table (names.h), among those whose bit is set in allowed
 * (TC_TOOL_NAMES_ALL: any); bad: bad_fmt with the argument (e.g. "bad frame
 * mode '%s' (fixed, variable)"). */
#define TC_TOOL_NAMES_ALL UINT32_MAX
int tc_tool_opt_name(const tc_tool_t *tool, const tc_names_t *names, uint32_t allowed,
                     const char *arg, const char *bad_fmt, unsigned *val_p);
/* -W, -m, --placement: a comma list of names of a table into their values
 * (at most max); errors name the table's what and list its names:
 * "unknown wait strategy 'nap' (poll, pause, ...)", "no mode in ','". */
int tc_tool_opt_names(const tc_tool_t *tool, const tc_names_t *names, const char *arg,
                      uint32_t *vals, uint32_t max, uint32_t *n_p);
/* on or off into 1 or 0; bad: "<opt> takes on or off, not '<arg>'". */
int tc_tool_opt_onoff(const tc_tool_t *tool, const char *opt, const char *arg, int32_t *val_p);

#endif
