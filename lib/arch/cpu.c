/*
 * The library's CPU probe (see cpu.h): CPUID and the architecture, nothing
 * with side effects. lib/arch/place.c asks it whether a placement can run and
 * lib/core/context.c whether a wait strategy can; the harness's platform report
 * prints the same answers.
 */
#define _GNU_SOURCE

#include "cpu.h"
#include "log.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

void tc_cpu_feature_yes(tc_cpu_feature_t *feature)
{
    feature->supported = 1;
    snprintf(feature->status, sizeof(feature->status), "supported");
}

void tc_cpu_feature_no(tc_cpu_feature_t *feature, const char *fmt, ...)
                       {
    va_list ap;
    int     n;

    feature->supported = 0;
    n = snprintf(feature->status, sizeof(feature->status), "unsupported: ");
    va_start(ap, fmt);
    vsnprintf(feature->status + n, sizeof(feature->status) - (size_t)n, fmt, ap);
    va_end(ap);
}

__attribute__((unused)) /* users are x86-only */
static int tc_path_exists(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0;
}

#if !defined(__x86_64__) && !defined(__aarch64__)
/* The machine uname reports, for "... known on <arch>". */
static const char *tc_cpu_arch(struct utsname *u)
{
    return uname(u) == 0 ? u->machine : "unknown";
}
#endif

/* ------------------------------------------------------------ CPU ident */

#if defined(__x86_64__)
static void tc_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
    __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}
#endif

void tc_cpu_ident(tc_cpu_ident_t *id)
{
    memset(id, 0, sizeof(*id));
#if defined(__x86_64__)
    {
        uint32_t r[4], max, emax;

        tc_cpuid(0, 0, r);
        max = r[0];
        memcpy(id->vendor + 0, &r[1], 4);
        memcpy(id->vendor + 4, &r[3], 4);
        memcpy(id->vendor + 8, &r[2], 4);
        id->vendor[12] = '\0';
        if (max >= 1) {
            unsigned base_family, base_model;

            tc_cpuid(1, 0, r);
            base_family  = (r[0] >> 8) & 0xf;
            base_model   = (r[0] >> 4) & 0xf;
            id->stepping = r[0] & 0xf;
            id->family   = base_family == 0xf ? base_family + ((r[0] >> 20) & 0xff)
                                              : base_family;
            id->model    = (base_family == 0x6 || base_family == 0xf)
                               ? base_model + (((r[0] >> 16) & 0xf) << 4) : base_model;
            id->l1_ecx   = r[2];
            id->l1_edx   = r[3];
            id->in_vm    = (int)((r[2] >> 31) & 1);
        }
        if (max >= 7) {
            tc_cpuid(7, 0, r);
            id->l7_ebx = r[1];
            id->l7_ecx = r[2];
        }
        tc_cpuid(0x80000000u, 0, r);
        emax = r[0];
        if (emax >= 0x80000001u) {
            tc_cpuid(0x80000001u, 0, r);
            id->e1_ecx = r[2];
        }
        if (id->in_vm) {
            tc_cpuid(0x40000000u, 0, r);
            memcpy(id->hypervisor + 0, &r[1], 4);
            memcpy(id->hypervisor + 4, &r[2], 4);
            memcpy(id->hypervisor + 8, &r[3], 4);
            id->hypervisor[12] = '\0';
            if (id->hypervisor[0] == '\0') {
                snprintf(id->hypervisor, sizeof(id->hypervisor), "unknown");
            }
        }
    }
#endif
}

void tc_cpu_tune_ident(tc_cpu_ident_t *id)
{
    static int warned;
    const char *tune = getenv(TC_CPU_TUNE_ENV);
    char shown[48];
    const char *vendor;

    tc_cpu_ident(id);
    if ((tune == NULL) || (*tune == '\0') || (strcmp(tune, "auto") == 0)) {
        return;
    }
    vendor = (strcmp(tune, "generic") == 0) ? "" :
             (strcmp(tune, "intel") == 0)   ? "GenuineIntel" :
             (strcmp(tune, "amd") == 0)     ? "AuthenticAMD" : NULL;
    if (vendor == NULL) {
        if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED)) {
            tc_warn("%s='%s' is not auto, generic, intel or amd: tuning for this CPU",
                    TC_CPU_TUNE_ENV, tc_log_text(tune, SIZE_MAX, shown, sizeof(shown)));
        }
        return;
    }
    snprintf(id->vendor, sizeof(id->vendor), "%s", vendor);
}

int tc_cpu_is_intel(const tc_cpu_ident_t *id)
{
    return strcmp(id->vendor, "GenuineIntel") == 0;
}

int tc_cpu_is_amd(const tc_cpu_ident_t *id)
{
    return strcmp(id->vendor, "AuthenticAMD") == 0 || strcmp(id->vendor, "HygonGenuine") == 0;
}

/* ---------------------------------------------------------- wait / ops */

static void tc_cpu_waits(tc_cpu_features_t *f, const tc_cpu_ident_t *id)
{
    tc_cpu_feature_t *w = f->wait;

    (void)id;
    tc_cpu_feature_yes(&w[TC_WAIT_POLL]);
    /* The receiver blocks in the UCX worker's wake-up fd; needs nothing
     * from the CPU. */
    tc_cpu_feature_yes(&w[TC_WAIT_EVENT]);
    tc_cpu_feature_yes(&w[TC_WAIT_ADAPTIVE]);

#if defined(__x86_64__)
    tc_cpu_feature_yes(&w[TC_WAIT_PAUSE]);
    tc_cpu_feature_no(&w[TC_WAIT_WFE], "not aarch64");
    if (!((id->l7_ecx >> 5) & 1)) {
        tc_cpu_feature_no(&w[TC_WAIT_UMWAIT], "CPUID.(EAX=7,ECX=0):ECX[5] WAITPKG is 0%s",
                          id->in_vm ? " (as the hypervisor reports it)" : "");
    } else if (!tc_path_exists("/sys/devices/system/cpu/umwait_control")) {
        tc_cpu_feature_no(&w[TC_WAIT_UMWAIT], "the CPU has WAITPKG but "
                          "/sys/devices/system/cpu/umwait_control is missing (kernel without "
                   "UMWAIT support, or disabled)");
    } else {
        tc_cpu_feature_yes(&w[TC_WAIT_UMWAIT]);
    }
    if ((id->e1_ecx >> 29) & 1) {
        tc_cpu_feature_yes(&w[TC_WAIT_MWAITX]);
    } else {
        tc_cpu_feature_no(&w[TC_WAIT_MWAITX], "CPUID 0x80000001:ECX[29] MONITORX is 0%s",
                          tc_cpu_is_amd(id) ? "" : " (an AMD instruction)");
    }
#elif defined(__aarch64__)
    tc_cpu_feature_yes(&w[TC_WAIT_PAUSE]);
    tc_cpu_feature_yes(&w[TC_WAIT_WFE]);
    tc_cpu_feature_no(&w[TC_WAIT_UMWAIT], "not x86_64");
    tc_cpu_feature_no(&w[TC_WAIT_MWAITX], "not x86_64 (an AMD instruction)");
#else
    struct utsname u;

    tc_cpu_feature_no(&w[TC_WAIT_PAUSE], "no spin-wait hint known on %s", tc_cpu_arch(&u));
    tc_cpu_feature_no(&w[TC_WAIT_WFE], "not aarch64");
    tc_cpu_feature_no(&w[TC_WAIT_UMWAIT], "not x86_64");
    tc_cpu_feature_no(&w[TC_WAIT_MWAITX], "not x86_64");
#endif
}

#if defined(__x86_64__)
static void tc_x86_bit(tc_cpu_feature_t *f, uint32_t word, unsigned bit,
                       const char *where, const char *what)
{
    if ((word >> bit) & 1) {
        tc_cpu_feature_yes(f);
    } else {
        tc_cpu_feature_no(f, "%s[%u] %s is 0", where, bit, what);
    }
}
#endif

static void tc_cpu_ops(tc_cpu_features_t *f, const tc_cpu_ident_t *id)
{
    tc_cpu_feature_t *o = f->op;

    (void)id;
#if defined(__x86_64__)
    tc_x86_bit(&o[TC_CPU_OP_CLFLUSH], id->l1_edx, 19, "CPUID.1:EDX", "CLFSH");
    tc_x86_bit(&o[TC_CPU_OP_CLFLUSHOPT], id->l7_ebx, 23, "CPUID.(EAX=7,ECX=0):EBX",
               "CLFLUSHOPT");
    tc_x86_bit(&o[TC_CPU_OP_CLWB], id->l7_ebx, 24, "CPUID.(EAX=7,ECX=0):EBX", "CLWB");
    tc_x86_bit(&o[TC_CPU_OP_CLDEMOTE], id->l7_ecx, 25, "CPUID.(EAX=7,ECX=0):ECX",
               "CLDEMOTE");
    tc_cpu_feature_yes(&o[TC_CPU_OP_NT_STORE]); /* MOVNTDQ/MOVNTI: SSE2, x86-64 baseline */
    tc_x86_bit(&o[TC_CPU_OP_MOVDIR64B], id->l7_ecx, 28, "CPUID.(EAX=7,ECX=0):ECX",
               "MOVDIR64B");
    tc_cpu_feature_no(&o[TC_CPU_OP_DC_CVAC], "not aarch64");
    tc_cpu_feature_no(&o[TC_CPU_OP_DC_CIVAC], "not aarch64");
#elif defined(__aarch64__)
    tc_cpu_feature_no(&o[TC_CPU_OP_CLFLUSH], "not x86_64");
    tc_cpu_feature_no(&o[TC_CPU_OP_CLFLUSHOPT], "not x86_64");
    tc_cpu_feature_no(&o[TC_CPU_OP_CLWB], "not x86_64");
    tc_cpu_feature_no(&o[TC_CPU_OP_CLDEMOTE], "not x86_64");
    tc_cpu_feature_yes(&o[TC_CPU_OP_NT_STORE]); /* STNP: base ISA, a hint */
    tc_cpu_feature_no(&o[TC_CPU_OP_MOVDIR64B], "not x86_64");
    /* Assumed: Linux sets SCTLR_EL1.UCI, so EL0 may issue DC CVAC/CIVAC
     * (kernels with a cache erratum trap and emulate them). */
    tc_cpu_feature_yes(&o[TC_CPU_OP_DC_CVAC]);
    tc_cpu_feature_yes(&o[TC_CPU_OP_DC_CIVAC]);
#else
    {
        struct utsname u;
        unsigned       i;

        for (i = 0; i < TC_CPU_OP_COUNT; ++i) {
            tc_cpu_feature_no(&o[i], "no cache operations known on %s", tc_cpu_arch(&u));
        }
    }
#endif
}

static void tc_cpu_places(tc_cpu_features_t *f)
{
    tc_cpu_feature_t *pl = f->place;

    tc_cpu_feature_yes(&pl[TC_PLACE_DEFAULT]);
#if defined(__x86_64__)
    if (f->op[TC_CPU_OP_CLDEMOTE].supported) {
        tc_cpu_feature_yes(&pl[TC_PLACE_LLC]);
    } else {
        tc_cpu_feature_no(&pl[TC_PLACE_LLC], "needs CLDEMOTE (%s)",
                          f->op[TC_CPU_OP_CLDEMOTE].status + strlen("unsupported: "));
    }
    /* non-temporal stores are always there */
    tc_cpu_feature_yes(&pl[TC_PLACE_DRAM]);
#elif defined(__aarch64__)
    /* Arm has no user-mode demote to the shared cache: the closest is a
     * clean to the point of coherency, which writes the line back and may
     * leave it cached; DRAM is a clean and invalidate. */
    tc_cpu_feature_yes(&pl[TC_PLACE_LLC]);
    tc_cpu_feature_yes(&pl[TC_PLACE_DRAM]);
#else
    struct utsname u;

    tc_cpu_feature_no(&pl[TC_PLACE_LLC], "no cache operations known on %s", tc_cpu_arch(&u));
    tc_cpu_feature_no(&pl[TC_PLACE_DRAM], "no cache operations known on %s", tc_cpu_arch(&u));
#endif
}

void tc_cpu_features(const tc_cpu_ident_t *ident, tc_cpu_features_t *features_p)
{
    tc_cpu_waits(features_p, ident);
    tc_cpu_ops(features_p, ident);
    tc_cpu_places(features_p);
}

void tc_cpu_probe(tc_cpu_features_t *features_p)
{
    tc_cpu_ident_t ident;

    tc_cpu_ident(&ident);
    tc_cpu_features(&ident, features_p);
}

void tc_cpu_wait_available(const tc_cpu_features_t *features, char *buf, size_t len)
{
    size_t   used = 0;
    unsigned i;
    int      n;

    if (buf == NULL || len == 0) {
        return;
    }
    buf[0] = '\0';
    for (i = 0; i < TC_CPU_WAIT_COUNT; ++i) {
        if (!features->wait[i].supported) {
            continue;
        }
        n = snprintf(buf + used, len - used, "%s%s", used ? "," : "",
                     tc_wait_str((tc_wait_t)i));
        if (n < 0 || (size_t)n >= len - used) {
            return;
        }
        used += (size_t)n;
    }
}
