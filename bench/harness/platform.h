/*
 * What this host can do: architecture, CPU, cache topology, PMU, wait
 * strategies, cache operations for arrival placement, and the hardware
 * controls (CPU prefetchers, I/O stashing). Every capability is either
 * "supported" or "unsupported: <reason>", so an experiment that needs one
 * can refuse to run with the reason instead of producing mislabelled data.
 *
 * Hardware controls have query, set and guaranteed restore: the first set
 * saves the original per-unit values, and restore (explicit, at exit, or
 * from a SIGINT/SIGTERM/SIGHUP handler) writes them back. Controls sit
 * behind a backend table (tc_hwctl_ops_t) so tests can drive the
 * save/set/restore machinery with a fake.
 *
 * The only global mutable state is the restore registry (see platform.c):
 * a signal handler gets no argument, so what it must restore has to be
 * reachable from a global.
 */
#ifndef TC_PLATFORM_H
#define TC_PLATFORM_H

#include "platform_net.h"
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "twochains.h"
#include "cpu.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TC_PLATFORM_STATUS_LEN TC_CPU_STATUS_LEN

/* One capability. status is "supported" or "unsupported: <reason>". The
 * CPU's answers (wait, op, place) are lib/arch/cpu's. */
typedef tc_cpu_feature_t tc_platform_feature_t;

typedef enum {
    TC_PLATFORM_WAIT_POLL = 0,  /* plain loads */
    TC_PLATFORM_WAIT_PAUSE,     /* x86 PAUSE / aarch64 YIELD */
    TC_PLATFORM_WAIT_WFE,       /* aarch64 LDAXR + WFE */
    TC_PLATFORM_WAIT_UMWAIT,    /* x86 WAITPKG */
    TC_PLATFORM_WAIT_MWAITX,    /* AMD MONITORX/MWAITX */
    TC_PLATFORM_WAIT_EVENT,     /* block on the UCX worker's fd */
    TC_PLATFORM_WAIT_ADAPTIVE,  /* spin a while, then as event */
    TC_PLATFORM_WAIT_COUNT
} tc_platform_wait_t;

typedef enum {
    TC_PLATFORM_OP_CLFLUSH = 0,
    TC_PLATFORM_OP_CLFLUSHOPT,
    TC_PLATFORM_OP_CLWB,
    TC_PLATFORM_OP_CLDEMOTE,
    TC_PLATFORM_OP_NT_STORE,    /* x86 MOVNT (SSE2), aarch64 STNP (a hint) */
    TC_PLATFORM_OP_MOVDIR64B,
    TC_PLATFORM_OP_DC_CVAC,
    TC_PLATFORM_OP_DC_CIVAC,
    TC_PLATFORM_OP_COUNT
} tc_platform_op_t;

typedef enum {
    TC_PLATFORM_PLACE_DEFAULT = 0, /* the transport's own put */
    TC_PLATFORM_PLACE_LLC,         /* write, then push lines to the shared cache */
    TC_PLATFORM_PLACE_DRAM,        /* write so the lines land in memory */
    TC_PLATFORM_PLACE_COUNT
} tc_platform_place_t;

typedef struct tc_platform {
    char     arch[16];        /* "x86_64", "aarch64", ... */
    char     vendor[16];      /* "GenuineIntel", "AuthenticAMD", "ARM", ... */
    char     cpu_model[128];  /* /proc/cpuinfo model name (or part number) */
    char     hypervisor[16];  /* CPUID 0x40000000 signature; "" if none seen */
    unsigned family, model, stepping; /* x86 CPUID; aarch64: 0, part, variant */
    char     emulated[96];    /* tc_platform_emulation's answer */

    tc_platform_feature_t topology;   /* hwloc loaded */
    uint64_t l1d_bytes, l2_bytes, l3_bytes; /* per instance; 0: none / unknown */
    unsigned l1d_count, l2_count, l3_count;
    unsigned line_bytes;
    unsigned packages, cores, pus, numa_nodes;

    tc_platform_feature_t pmu;
    tc_platform_feature_t wait[TC_PLATFORM_WAIT_COUNT];
    tc_platform_feature_t op[TC_PLATFORM_OP_COUNT];
    tc_platform_feature_t place[TC_PLATFORM_PLACE_COUNT];
    /* The instruction sequence each placement mode uses on this host. */
    char                  place_seq[TC_PLATFORM_PLACE_COUNT][96];
    tc_platform_feature_t hw_prefetch; /* control: on/off */
    tc_platform_feature_t stash;       /* control: I/O stashing on/off */
    tc_platform_net_t     net;         /* UCX, its transports, the NICs */
} tc_platform_t;

/* 1, and why in why, when this process runs under an instruction emulator
 * (qemu-user): its timings say nothing about the CPU it emulates; else 0
 * and "no". Cheap: one read of /proc/cpuinfo, no probing. */
int         tc_platform_emulation(char *why, size_t len);

/* Fill platform_p with this host's answers. Never fails for a missing
 * capability (that is an "unsupported" entry); TC_ERR_INVALID_PARAM only. */
tc_status_t tc_platform_probe(tc_platform_t *platform_p);

/* Print the report: text lines "name: value" (capabilities read
 * "name: supported" or "name: unsupported: <reason>"), or, with json, one
 * JSON object with the same content. */
void        tc_platform_print(const tc_platform_t *platform, FILE *f, int json);
/* Probe and print. */
tc_status_t tc_platform_report(FILE *f, int json);

/* Names: "poll", "pause", "wfe", "umwait", "mwaitx", "event", "adaptive";
 * "clflush", "clflushopt", "clwb", "cldemote", "nt_store", "movdir64b",
 * "dc_cvac", "dc_civac"; "default", "llc", "dram". NULL if out of range. */
const char *tc_platform_wait_name(tc_platform_wait_t wait);
const char *tc_platform_op_name(tc_platform_op_t op);
const char *tc_platform_place_name(tc_platform_place_t place);
/* Name -> enum: TC_OK or TC_ERR_NOT_FOUND. */
tc_status_t tc_platform_wait_lookup(const char *name, tc_platform_wait_t *wait_p);
tc_status_t tc_platform_place_lookup(const char *name, tc_platform_place_t *place_p);
/* Comma list of the wait strategies this host supports, e.g.
 * "poll,pause,event,adaptive" (for error messages). */
void        tc_platform_wait_available(const tc_platform_t *platform, char *buf,
                                       size_t len);

/* ------------------------------------------------------ hardware controls */

typedef enum {
    TC_HWCTL_OFF   = 0,
    TC_HWCTL_ON    = 1,
    TC_HWCTL_MIXED = 2  /* units disagree */
} tc_hwctl_state_t;

/*
 * A control backend. A control is a set of units (CPUs, root ports) each
 * holding a 64-bit register; the control owns the bits in mask, which read
 * on_bits when the feature is on and off_bits when off.
 */
typedef struct tc_hwctl_ops {
    const char *name;       /* "prefetch", "stash" */
    const char *mechanism;  /* e.g. "intel msr 0x1a4" */
    uint64_t    mask, on_bits, off_bits;
    /* Can the control be used here? TC_OK with a malloc'd list of unit ids
     * (the registry frees it), or TC_ERR_UNSUPPORTED with
     * why = "unsupported: <reason>". */
    tc_status_t (*probe)(void *ctx, unsigned **units_p, unsigned *n_units_p,
                         char *why, size_t len);
    tc_status_t (*read)(void *ctx, unsigned unit, uint64_t *value_p);
    /* Called from signal handlers too: async-signal-safe calls only. */
    tc_status_t (*write)(void *ctx, unsigned unit, uint64_t value);
} tc_hwctl_ops_t;

/* The control's state over all units. */
tc_status_t tc_hwctl_get(const tc_hwctl_ops_t *ops, void *ctx, char *why, size_t len,
                         tc_hwctl_state_t *state_p);
/* Turn the control on or off on every unit. The first set of a control
 * saves every unit's original value and arms restore at exit and on
 * SIGINT/SIGTERM/SIGHUP; a failed write rolls back the units already
 * written. ctx must stay valid until the control is restored. */
tc_status_t tc_hwctl_set(const tc_hwctl_ops_t *ops, void *ctx, int on, char *why,
                         size_t len);
/* Write the saved values back (no-op if the control was never set). */
tc_status_t tc_hwctl_restore(const tc_hwctl_ops_t *ops, void *ctx);
/* Restore every control that was set (what the exit and signal paths run). */
void        tc_hwctl_restore_all(void);

/* The real backends. */
extern const tc_hwctl_ops_t tc_hwctl_prefetch_ops;
extern const tc_hwctl_ops_t tc_hwctl_stash_ops;

/* Shorthands over the real backends (ctx NULL). */
tc_status_t tc_platform_prefetch_get(char *why, size_t len, tc_hwctl_state_t *state_p);
tc_status_t tc_platform_prefetch_set(int on, char *why, size_t len);
tc_status_t tc_platform_prefetch_restore(void);
tc_status_t tc_platform_stash_get(char *why, size_t len, tc_hwctl_state_t *state_p);
tc_status_t tc_platform_stash_set(int on, char *why, size_t len);
tc_status_t tc_platform_stash_restore(void);

/* s as a JSON string literal, escaped (the platform report's, the pairs'). */
void tc_json_string(FILE *f, const char *s);

#ifdef __cplusplus
}
#endif
#endif
