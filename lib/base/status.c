/* tc_status_str: the strings of TC_STATUS_TABLE (twochains.h); tc_status_why
 * (log.h). */
#include "twochains.h"
#include "log.h"

#include <stdarg.h>

const char *tc_status_str(tc_status_t status)
{
#define TC_STATUS_STR_CASE(_code, _value, _str) case _code: return _str;
    switch (status) {
    TC_STATUS_TABLE(TC_STATUS_STR_CASE)
    case TC_ERR_LAST: break;
    }
#undef TC_STATUS_STR_CASE
    return "unknown status";
}

tc_status_t tc_status_why(char *why, size_t why_len, tc_status_t status, const char *fmt, ...)
{
    va_list ap;

    if ((why != NULL) && (why_len > 0)) {
        va_start(ap, fmt);
        vsnprintf(why, why_len, fmt, ap);
        va_end(ap);
    }
    return status;
}
