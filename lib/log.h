/* Internal logging: the function that first decides an error logs it.
 * Every message goes through tc_log (lib/log.c): level filter, then the
 * handler an application installed (twochains.h), else stderr. */
#ifndef TC_LOG_H
#define TC_LOG_H

#include "twochains.h"

#include <stdio.h>

void tc_log(tc_log_level_t level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Whether a message of level would be passed on (to skip costly formatting). */
int  tc_log_enabled(tc_log_level_t level);

#define tc_error(_fmt, ...) tc_log(TC_LOG_ERROR, _fmt, ##__VA_ARGS__)
#define tc_warn(_fmt, ...)  tc_log(TC_LOG_WARN, _fmt, ##__VA_ARGS__)
#define tc_info(_fmt, ...)  tc_log(TC_LOG_INFO, _fmt, ##__VA_ARGS__)
#define tc_debug(_fmt, ...) tc_log(TC_LOG_DEBUG, _fmt, ##__VA_ARGS__)

/* A refusal's reason, fmt, into why (why_len bytes; NULL: not wanted);
 * returns status. What the pure checkers (blob, ELF, frame) say with. */
tc_status_t tc_status_why(char *why, size_t why_len, tc_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#define TC_LIKELY(_x)   __builtin_expect(!!(_x), 1)
#define TC_UNLIKELY(_x) __builtin_expect(!!(_x), 0)
#define TC_ALIGN_UP(_x, _a) (((_x) + (_a) - 1) & ~((__typeof__(_x))(_a) - 1))
#define TC_ARRAY_SIZE(_a) (sizeof(_a) / sizeof((_a)[0]))

#endif
