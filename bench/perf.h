/*
 * tc-perf: point-to-point harness modelled on ucx_perftest. Jam tests and
 * raw UCX reference tests run on one connection in one invocation, so their
 * ratios come from the same run.
 */
#ifndef TC_PERF_H
#define TC_PERF_H

#include "twochains.h"
#include "clock.h"
#include "hist.h"

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define PERF_MAX_SIZES    64
#define PERF_MAX_TESTS    16
#define PERF_NAME_LEN     32
#define PERF_DEFAULT_PORT 13337
#define PERF_OPTS_MAGIC   0x54435046u /* "TCPF" */
/* --dist: percentiles where 1/(1-p) = 10^(k/4), k = 0..24 (1 .. 10^6) */
#define PERF_DIST_POINTS  25

typedef enum {
    PERF_SHAPE_PINGPONG, /* one-way latency = RTT / 2 */
    PERF_SHAPE_STREAM    /* windowed stream, rate until the last credit returns */
} perf_shape_t;

/* Options both sides must agree on: the client sends them to the server. */
typedef struct perf_opts {
    uint32_t magic;
    uint32_t proto;
    uint32_t n_tests;
    uint32_t tests[PERF_MAX_TESTS];     /* indexes into perf_tests[] */
    uint32_t n_sizes;
    uint32_t sizes[PERF_MAX_SIZES];     /* payload bytes */
    uint64_t iters;
    uint64_t warmup;
    char     jam[PERF_NAME_LEN];
    char     pkg_name[64];              /* the package the jam is in, and its id: the */
    uint32_t pkg_id;                    /* server serves it from that build alone */
    uint32_t slots;
    uint32_t slot_size;                 /* 0: smallest that fits the largest size */
    uint32_t signal;                    /* tc_signal_mode_t */
    uint32_t frames;                    /* tc_frame_mode_t */
    uint32_t progress;                  /* tc_progress_mode_t */
    uint32_t window;                    /* stream tests: histogram window */
    uint32_t wx;                        /* receivers run injected code W^X */
    uint32_t exec;                      /* tc_exec_policy_t of the receivers */
    uint32_t in_place;                  /* policy any: injected code runs in the slot */
    uint32_t n_waits;
    uint32_t waits[7];                  /* tc_wait_t, each run in turn */
    uint32_t n_modes;
    uint32_t modes[3];                  /* tc_mode_t, for the jam tests */
    uint32_t n_places;
    uint32_t places[3];                 /* tc_place_t of the senders, each in turn */
    uint32_t sw_prefetch;               /* receivers prefetch a frame on arrival */
    int32_t  hw_prefetch;               /* -1: leave as is; 0 off, 1 on (each host) */
    int32_t  stash;                     /* the same for I/O cache stashing */
    char     stress[32];                /* the initiator's load ("" none), recorded */
    uint64_t gap_ns;                    /* jam_lat: client idles this long between
                                         * round trips (sparse traffic) */
    uint32_t ref_work;                  /* --ref-work: dependent steps a latency
                                         * reference's receiver takes before it
                                         * answers (a probe, scripts/bench-phase.sh) */
    uint32_t size_major;                /* --order size: each payload's tests and
                                         * modes back to back (else test by test) */
    uint32_t blocks;                    /* --blocks: each point's iterations in this
                                         * many blocks, the points taking turns */
    uint32_t api;                       /* tc_tool_api_t: how the jam tests send (both
                                         * sides: the server's answers too) */
    char     host[64];                  /* the sender's host name, for the record */
} perf_opts_t;

/* Options that stay local to one side. */
typedef struct perf_local {
    const char *host;        /* NULL: server */
    tc_boot_kind_t boot;     /* --boot: never auto once parsed */
    struct tc_job *job;      /* --boot pmix: the launcher's job */
    char        peer_host[64]; /* the other side's host name (its options) */
    uint16_t    port;
    int         loopback;
    int         cpu[2];      /* -1: not pinned; loopback uses both */
    int         timeout_ms;
    const char *csv_path;
    const char *json_path;
    const char *pkg_path;    /* -k: the package library */
    const char *pkg_dir;     /* -P: a tc-pkg install directory */
    tc_pkg_t   *pkg;         /* opened once, shared by both sides of -l */
    int         quiet;
    int         wide;        /* --wide: the table with every column */
    int         platform;    /* --platform: report and exit */
    const char *pairs;       /* --pairs: list the topology's pairs and exit */
    const char *stress_cpus; /* --stress-cpus: cores the load is pinned to */
    const char *dist_path;   /* --dist: latency distribution of latency rows */
    struct tc_stress *stress; /* the running load, NULL if none */
    FILE       *table;       /* the table: stdout, or stderr when an output is "-" */
    int         report_final; /* --report final: no progress lines within a point */
    uint64_t    report_ms;   /* --report periodic: a progress line this often */
    int         warmup_set;  /* -w given (else the default is clamped to -n) */
    int         argc;
    char      **argv;
} perf_local_t;

typedef struct perf_result {
    const char       *test;
    const char       *api;          /* jam rows: send or prepared; "" else */
    const char       *mode;         /* jam tests: local, injected, cached; else raw */
    const char       *wait;         /* how both sides waited */
    double            cpu_ns_per_msg;  /* this side's thread CPU time per message */
    double            polls_per_msg;   /* this side's wait-loop iterations per message */
    const char       *place;           /* how the senders' frames landed */
    /* per message over the test, warm-up included; < 0: not counted (no PMU) */
    double            cycles_per_msg, instr_per_msg, ref_cycles_per_msg;
    double            peer_cpu_ns_per_msg, peer_polls_per_msg, peer_cycles_per_msg;
    int               has_dist;        /* ping-pong tests: dist[] is filled */
    uint64_t          dist_ns[PERF_DIST_POINTS];
    uint32_t          code_bytes;   /* injected image (0: none) */
    uint32_t          got_slots;
    uint32_t          payload;
    uint32_t          frame_bytes;
    uint64_t          iters;
    tc_hist_summary_t lat;          /* ns; stream tests: per-message time per window */
    double            rate_mps;     /* messages per second; a ping-pong moves two
                                     * per iteration (one each way) */
    double            bw_mbs;       /* rate_mps x payload, in MB/s (10^6 B/s) */
    time_t            when;         /* the point's end (CSV timestamp) */
    double            elapsed_s;
    uint64_t          rejected;     /* frames rejected on the measuring side */
    /* jam rows: the jam's value over the reference's of the same frame size,
     * wait and placement (latency: p50; streams: the rate); < 0: no such
     * reference row in this run */
    double            floor_ratio, put_read_ratio;
    const char       *floor_ref, *put_read_ref; /* the reference rows' tests */
    uint32_t          floor_ref_payload, put_read_ref_payload; /* and their payloads */
    const char       *frame_of;     /* reference rows: the jam mode whose frame size they
                                     * move (the first of the run's modes with it); "" else */
} perf_result_t;

/* One side of a run. */
typedef struct perf_run {
    const perf_opts_t  *opts;
    const perf_local_t *local;
    int                 initiator;  /* measures and reports */
    tc_boot_t          *boot;
    tc_context_t       *ctx;
    tc_peer_t          *peer;
    tc_pkg_t           *pkg;
    tc_jam_t            jam;
    tc_mode_t           mode;       /* of the jam test running now */
    uint64_t            iters, warmup; /* of the block running now (--blocks) */
    uint32_t            ref_frame;  /* reference tests: the frame size to move (that of
                                     * a jam frame of the payload in some mode) */
    char                refused[160 + TC_JAM_DOC_MAX]; /* a test that cannot run here: why
                                                        * (a jam's payload text with it) */
    int                 prepared[3]; /* namespace sync done, per mode */
    tc_jam_req_t       *req;        /* --api prepared: the jam test's request, made
                                     * per point outside its timed loop; else NULL */
    tc_clock_t          clock;
    tc_hist_t          *hist;
    char               *src;        /* payload source, slot_size bytes */
    int                *am_count;   /* reference AM tests: arrivals */
    char               *am_buf;     /* rendezvous AM landing buffer */
    struct tc_cycles   *cycles;     /* this side's thread: PMU or thread-cputime */
    /* progress within a point (initiator, --report periodic): a line on
     * stderr when the clock passes report_next; report_every 0: none */
    uint64_t            report_every, report_next, point_start; /* ticks */
    const char         *point_test;
    uint32_t            point_payload;
    uint32_t            point_block;    /* --blocks: which of them (0-based) */
    int                 interrupted; /* SIGINT: the run stopped between points */
} perf_run_t;

typedef tc_status_t (*perf_test_fn)(perf_run_t *run, uint32_t payload,
                                    perf_result_t *result);

/* A tests table, not a switch. */
typedef struct perf_test {
    const char   *name;
    perf_shape_t  shape;
    int           uses_jam;
    const char   *measures;
    perf_test_fn  fn;
} perf_test_t;

extern const perf_test_t perf_tests[];
extern const unsigned    perf_n_tests;

tc_status_t perf_am_setup(perf_run_t *run);
/* bench/perf_refs.c: the raw references (put, put_read, floor) */
tc_status_t perf_put_lat(perf_run_t *run, uint32_t payload, perf_result_t *r);
tc_status_t perf_put_rate(perf_run_t *run, uint32_t payload, perf_result_t *r);
tc_status_t perf_put_read_lat(perf_run_t *run, uint32_t payload, perf_result_t *r);
tc_status_t perf_put_read_rate(perf_run_t *run, uint32_t payload, perf_result_t *r);
tc_status_t perf_floor_lat(perf_run_t *run, uint32_t payload, perf_result_t *r);
/* What one --ref-work of the latency references takes here, ns (0: none). */
double      perf_ref_work_ns(const perf_run_t *run);
tc_status_t perf_floor_rate(perf_run_t *run, uint32_t payload, perf_result_t *r);
/* Fill the result from the histogram, the elapsed ticks and the side's
 * counters; one_way: a ping-pong, whose message rate counts each direction. */
void        perf_finish(perf_run_t *run, perf_result_t *r, uint32_t payload,
                        uint32_t frame_bytes, uint64_t total_ticks, int one_way);

/* Progress within a point: done of total iterations at tick now, the
 * first warmup of them warm-up (said apart: the line counts what -n and -w
 * asked for, not their sum). */
void perf_progress_line(perf_run_t *run, uint64_t done, uint64_t total, uint64_t warmup,
                        uint64_t now);
static inline void perf_progress(perf_run_t *run, uint64_t done, uint64_t total, uint64_t warmup,
                                 uint64_t now)
{
    if ((run->report_every != 0) && (now >= run->report_next)) {
        perf_progress_line(run, done, total, warmup, now);
    }
}

/* report: the table goes to run->local->table */
void perf_print_header(const perf_run_t *run);
/* wide: every column (169); else the compact table (test, mode, wait,
 * placement, payload, p50, p99, rate, MB/s: under 100) */
void perf_print_table_head(FILE *out, int wide);
void perf_print_row(FILE *out, const perf_result_t *r, int wide);
/* Fill the jam rows' floor and put_read ratios from the reference rows. */
void perf_fill_ratios(perf_result_t *results, unsigned n);
void perf_print_ratios(FILE *out, const perf_result_t *results, unsigned n);
/* fopen(path, "w"), or stdout for "-" (closed by perf_close_out). */
FILE       *perf_open_out(const char *path);
tc_status_t perf_close_out(FILE *f, const char *path);
tc_status_t perf_write_csv(const char *path, const perf_run_t *run,
                           const perf_result_t *results, unsigned n);
tc_status_t perf_write_json(const char *path, const perf_run_t *run,
                            const perf_result_t *results, unsigned n);
tc_status_t perf_write_dist(const char *path, const perf_run_t *run,
                            const perf_result_t *results, unsigned n);
double      perf_dist_percentile(unsigned k);

/* One side of tc-perf (perf_main.c): the options both sides run with (the
 * client's, sent to the server), this process's own, the bootstrap. */
typedef struct perf_side {
    perf_opts_t   opts;
    perf_local_t *local;
    tc_boot_t    *boot;
    int           cpu;
    int           initiator;
    int           exit_code;
    int           refused;  /* the server refused the client's options (perf_agree) */
} perf_side_t;

/* cli (perf_cli.c): the usage text; parse argv into opts and local: 0,
 * else 2 with one line said (bad flag) or 1 (-h: usage printed). */
struct tc_tool;
extern const struct tc_tool perf_tool;
void perf_usage(FILE *out);
int  perf_parse(int argc, char **argv, perf_opts_t *opts, perf_local_t *local);

/* sweep (perf_sweep.c): every point of side's options over run's
 * connection, in blocks and order asked; rows into results. */
tc_status_t perf_sweep(perf_side_t *side, perf_run_t *run, perf_result_t *results,
                       unsigned *n_results_p);
/* rows 0..n-1 are final: a SIGINT from now on writes them (perf_main.c) */
void        perf_live_publish(unsigned n);

#endif
