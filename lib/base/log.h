/* Internal logging: the function that first decides an error logs it.
 * Every message goes through tc_log (lib/base/log.c): level filter, then the
 * handler an application installed (twochains.h), else stderr. */
#ifndef TC_LOG_H
#define TC_LOG_H

#include "twochains.h"

#include <stdio.h>

void tc_log(tc_log_level_t level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Whether a message of level would be passed on (to skip costly formatting). */
int  tc_log_enabled(tc_log_level_t level);

/* Text a peer sent (a NACK reason, a ried's name, a ried answer), made fit
 * for one log line: printable ASCII stays (a backslash doubled), every other
 * byte - newline, ANSI escape, UTF-8 - is written as \n, \r, \t or \xHH, so
 * a peer cannot start a line of its own or steer a terminal. Reads len
 * bytes or up to the first NUL; writes at most out_len - 1 characters and a
 * NUL, ending in "..." where the text was cut (never inside an escape).
 * Returns out, for use as a printf argument. */
const char *tc_log_text(const char *text, size_t len, char *out, size_t out_len);
/* What a log line shows of one peer text, at most (an out_len). */
#define TC_LOG_TEXT_SIZE 256

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
