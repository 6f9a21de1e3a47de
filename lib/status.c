/* tc_status_str: the strings of TC_STATUS_TABLE (twochains.h). */
#include "twochains.h"

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
