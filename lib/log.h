/* Internal logging: the function that first decides an error logs it. */
#ifndef TC_LOG_H
#define TC_LOG_H

#include <stdio.h>

#define tc_error(_fmt, ...) \
    fprintf(stderr, "twochains: error: " _fmt "\n", ##__VA_ARGS__)
#define tc_warn(_fmt, ...) \
    fprintf(stderr, "twochains: warning: " _fmt "\n", ##__VA_ARGS__)

#define TC_LIKELY(_x)   __builtin_expect(!!(_x), 1)
#define TC_UNLIKELY(_x) __builtin_expect(!!(_x), 0)
#define TC_ALIGN_UP(_x, _a) (((_x) + (_a) - 1) & ~((__typeof__(_x))(_a) - 1))
#define TC_ARRAY_SIZE(_a) (sizeof(_a) / sizeof((_a)[0]))

#endif
