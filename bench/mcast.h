/*
 * tc-mcast: multicast of jams over a process group (tree vs naive), and a
 * one-process model of the same tree for up to millions of nodes.
 * mcast_main.c: CLI; mcast_sim.c: --simulate and --shapes; mcast_run.c: real
 * runs (N processes, UCX puts); mcast_csv.c: the CSV both write.
 */
#ifndef TC_BENCH_MCAST_H
#define TC_BENCH_MCAST_H

#include "twochains.h"

#include <stdint.h>
#include <stdio.h>

#define MCAST_MAX_RADICES 16

typedef struct mcast_opts {
    uint32_t    n;             /* -n: processes (real runs) */
    uint32_t    radices[MCAST_MAX_RADICES];
    unsigned    n_radices;     /* 0: the mode's default */
    int         ack;           /* --ack: completion through the ack tree */
    int         naive;         /* --naive: N - 1 unicasts from the origin */
    const char *jam;           /* -j */
    int         jam_set;       /* -j was given */
    uint32_t    size;          /* -s: payload bytes */
    uint32_t    iters;         /* --iters */
    uint32_t    warmup;        /* --warmup */
    tc_wait_t   wait;          /* -W */
    int         wait_set;
    const char *csv_path;      /* --csv */
    uint64_t    simulate;      /* --simulate N (0: real run) */
    const char *shape;         /* --shape: target set for --simulate */
    int         shape_set;     /* --shape was given */
    double      hop_us;        /* --hop-us */
    double      send_us;       /* --send-us */
    int         shapes;        /* --shapes: encoded bytes of the PR's shapes */
    int         timeout_ms;    /* -T */
    uint32_t    slots;         /* -S */
    int         quiet;         /* -q */
    int         verify;        /* --verify: codec round trip on every envelope */
    int         n_set;         /* -n was given */
    tc_boot_kind_t boot;       /* --boot: tcp (-n N here, or TC_RANK...) or pmix */
} mcast_opts_t;

/* One CSV row; NaN / negative fields are written empty. */
typedef struct mcast_row {
    const char *mode;          /* tree, naive, simulate-tree, simulate-naive */
    uint64_t    n;
    int64_t     radix;         /* < 0: empty */
    int         ack;
    const char *jam;           /* NULL: empty */
    int64_t     payload_bytes; /* < 0: empty */
    int64_t     iterations;    /* < 0: empty */
    double      p50_us, p99_us, p999_us; /* NaN: empty */
    uint64_t    origin_sends, depth, edges, max_fanout;
    double      target_bytes_per_hop;
    double      modelled_us, hop_us, send_us; /* NaN: empty */
} mcast_row_t;

/* The CSV header, exactly as the plotting scripts expect it. */
#define MCAST_CSV_HEADER                                                              \
    "mode,n,radix,ack,jam,payload_bytes,iterations,p50_us,p99_us,p999_us,origin_sends," \
    "depth,edges,max_fanout,target_bytes_per_hop,modelled_us,hop_us,send_us,host,timestamp," \
    "schema_version"

FILE *mcast_csv_open(const char *path);
void  mcast_csv_row(FILE *f, const mcast_row_t *row);

int   mcast_simulate(const mcast_opts_t *opts, FILE *csv);
int   mcast_shapes(const mcast_opts_t *opts);
int   mcast_run(const mcast_opts_t *opts, FILE *csv, int argc, char **argv);

#endif
