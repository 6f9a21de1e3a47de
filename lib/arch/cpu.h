/*
 * What the running CPU can do, as far as the library needs to know: which
 * wait strategies (tc_wait_t) and arrival placements (tc_place_t) it has the
 * instructions for, and the cache operations those placements use. Every
 * answer is "supported" or "unsupported: <reason>".
 *
 * CPUID (x86), the architecture (aarch64) and one sysfs look (UMWAIT's
 * umwait_control): no signal handlers, no MSRs, no hwloc, no global state.
 * The harness's platform report (bench/harness/platform.h) is built on these
 * answers, so the library's refusals and the report say the same thing.
 */
#ifndef TC_CPU_H
#define TC_CPU_H

#include "twochains.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TC_CPU_STATUS_LEN 320

/* One capability. status is "supported" or "unsupported: <reason>". */
typedef struct tc_cpu_feature {
    int  supported;
    char status[TC_CPU_STATUS_LEN];
} tc_cpu_feature_t;

/* Cache operations (the building blocks of the placements). */
typedef enum {
    TC_CPU_OP_CLFLUSH = 0,
    TC_CPU_OP_CLFLUSHOPT,
    TC_CPU_OP_CLWB,
    TC_CPU_OP_CLDEMOTE,
    TC_CPU_OP_NT_STORE,    /* x86 MOVNT (SSE2), aarch64 STNP (a hint) */
    TC_CPU_OP_MOVDIR64B,
    TC_CPU_OP_DC_CVAC,
    TC_CPU_OP_DC_CIVAC,
    TC_CPU_OP_COUNT
} tc_cpu_op_t;

#define TC_CPU_WAIT_COUNT  (TC_WAIT_ADAPTIVE + 1)
#define TC_CPU_PLACE_COUNT (TC_PLACE_DRAM + 1)

/* Who made the CPU and which x86 feature words it reports. */
typedef struct tc_cpu_ident {
    char     vendor[16];            /* x86: CPUID 0 ("GenuineIntel"); else "" */
    char     hypervisor[16];        /* CPUID 0x40000000; "" if none seen */
    unsigned family, model, stepping;
    uint32_t l1_ecx, l1_edx;        /* CPUID 1 */
    uint32_t l7_ebx, l7_ecx;        /* CPUID (7, 0) */
    uint32_t e1_ecx;                /* CPUID 0x80000001 */
    int      in_vm;                 /* CPUID.1:ECX[31] */
} tc_cpu_ident_t;

typedef struct tc_cpu_features {
    tc_cpu_feature_t wait[TC_CPU_WAIT_COUNT];   /* by tc_wait_t */
    tc_cpu_feature_t op[TC_CPU_OP_COUNT];       /* by tc_cpu_op_t */
    tc_cpu_feature_t place[TC_CPU_PLACE_COUNT]; /* by tc_place_t */
} tc_cpu_features_t;

/* CPUID of the running CPU (all zero but vendor "" off x86). */
void tc_cpu_ident(tc_cpu_ident_t *ident_p);

/* The CPU the library's vendor-tuned thresholds (lib/arch/place.h: line-wise
 * copies, packing in place) are chosen for: the running one, unless
 * TC_CPU_TUNE names another: "generic" (no vendor: the defaults a CPU not
 * measured gets), "intel" or "amd"; "auto" or unset: the running CPU. So a
 * deterministic count (scripts/bench-cost.sh) takes one path on every host
 * of an architecture, and one host can try the other vendor's choice.
 * Another value is warned about once and means auto. */
#define TC_CPU_TUNE_ENV "TC_CPU_TUNE"
void tc_cpu_tune_ident(tc_cpu_ident_t *ident_p);
int  tc_cpu_is_intel(const tc_cpu_ident_t *ident);
int  tc_cpu_is_amd(const tc_cpu_ident_t *ident);

/* The answers for the CPU ident describes. */
void tc_cpu_features(const tc_cpu_ident_t *ident, tc_cpu_features_t *features_p);
/* Ident and features of the running CPU. Never fails. */
void tc_cpu_probe(tc_cpu_features_t *features_p);

/* Comma list of the supported wait strategies, e.g. "poll,pause,event,adaptive"
 * (for error messages). */
void tc_cpu_wait_available(const tc_cpu_features_t *features, char *buf, size_t len);

/* Build a feature: "supported", or "unsupported: " and the reason. */
void tc_cpu_feature_yes(tc_cpu_feature_t *feature);
void tc_cpu_feature_no(tc_cpu_feature_t *feature, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#ifdef __cplusplus
}
#endif
#endif
