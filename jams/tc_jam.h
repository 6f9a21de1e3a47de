/*
 * What a jam or ried source includes. The build compiles each
 * jam_<name>.amc with -DTC_JAM_NAME=<name> (and each ried_<name>.rdc with
 * -DTC_RIED_NAME=<name>), so every element has its own entry symbols and
 * one source serves both the Local Function vector and, later, the
 * injectable blob.
 */
#ifndef TC_JAM_H
#define TC_JAM_H

/* An installed header: what it declares is the library's API, exported
 * from libtwochains.so (built -fvisibility=hidden; lib/twochains.map). */
#pragma GCC visibility push(default)

#include <stddef.h>
#include <stdint.h>

#include "twochains.h"

#define TC_JAM_CAT2(_a, _b) _a##_b
#define TC_JAM_CAT(_a, _b)  TC_JAM_CAT2(_a, _b)

#ifdef TC_JAM_NAME
/* int64_t TC_JAM_RUN(tc_jam_ctx_t *ctx, void *payload, size_t len) */
#define TC_JAM_RUN  TC_JAM_CAT(tc_jam_run_, TC_JAM_NAME)
/* int64_t TC_JAM_PACK(void *dst, size_t cap, const void *src, size_t len) */
#define TC_JAM_PACK TC_JAM_CAT(tc_jam_pack_, TC_JAM_NAME)
#endif

/* A jam says what it does, what payload it takes and what it returns,
 * once, at file scope in its source:
 *     TC_JAM_DESCRIBE("what it does", "the payload it takes", "what it returns");
 * three string literals, each one line of printable ASCII (space to '~'),
 * 1 to TC_JAM_DOC_MAX - 1 bytes, no space first or last. The compiler keeps
 * them in an object's section that the blob never carries (nothing the run
 * entry reaches); tc-pkg reads them from there, refuses a text that breaks
 * those rules, and records them in the manifest: tc-pkg inspect and tc-run
 * --list show them, tc_jam_doc returns them, and a payload the jam's pack
 * refuses is reported with its payload text. */
#ifdef TC_JAM_NAME
#define TC_JAM_DESCRIBE(_what, _payload, _result)                                  \
    __attribute__((section(TC_JAM_DOC_SECTION), used)) static const char          \
        tc_jam_description[] = TC_JAM_DOC_MAGIC "\0" _what "\0" _payload "\0" _result
#endif

/* A jam that reads every line of its payload says so with
 *     #define TC_JAM_READS_PAYLOAD 1
 * in its source: tc-pkg records it (TC_JAM_HINT_READS_PAYLOAD), and a
 * receiver that has just run it asks for the next frame's lines as soon as
 * that frame arrives. One that does not read its payload leaves it out. */

/* Packages build with -fvisibility=hidden: what a ried offers to the
 * process it is shipped to (its init and fini, and anything jams call
 * through GOT slots) is marked TC_RIED_EXPORT. */
#define TC_RIED_EXPORT __attribute__((visibility("default")))

#ifdef TC_RIED_NAME
/* TC_RIED_EXPORT int TC_RIED_INIT(void **state_p);
 * TC_RIED_EXPORT void TC_RIED_FINI(void *state) */
#define TC_RIED_INIT TC_JAM_CAT(tc_ried_init_, TC_RIED_NAME)
#define TC_RIED_FINI TC_JAM_CAT(tc_ried_fini_, TC_RIED_NAME)
#endif

#pragma GCC visibility pop
#endif
