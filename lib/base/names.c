/* The name tables of the public enums (see names.h) and the tc_*_str and
 * tc_*_parse functions of twochains.h built on them. */
#include "names.h"
#include "log.h"

#include <string.h>

#define TC_NAMES_TABLE(_var, _what, ...) \
    static const char *const _var##_list[] = {__VA_ARGS__}; \
    const tc_names_t _var = {_what, _var##_list, TC_ARRAY_SIZE(_var##_list)}

TC_NAMES_TABLE(tc_names_wait, "wait strategy",
               [TC_WAIT_POLL] = "poll", [TC_WAIT_PAUSE] = "pause", [TC_WAIT_WFE] = "wfe",
               [TC_WAIT_UMWAIT] = "umwait", [TC_WAIT_MWAITX] = "mwaitx",
               [TC_WAIT_EVENT] = "event", [TC_WAIT_ADAPTIVE] = "adaptive");
TC_NAMES_TABLE(tc_names_mode, "mode",
               [TC_MODE_LOCAL] = "local", [TC_MODE_INJECTED] = "injected",
               [TC_MODE_CACHED] = "cached");
TC_NAMES_TABLE(tc_names_place, "placement",
               [TC_PLACE_DEFAULT] = "default", [TC_PLACE_LLC] = "llc",
               [TC_PLACE_DRAM] = "dram");
TC_NAMES_TABLE(tc_names_signal, "signalling mode",
               [TC_SIGNAL_FENCED] = "fenced", [TC_SIGNAL_SINGLE_PUT] = "single-put",
               [TC_SIGNAL_ORDERED] = "ordered", [TC_SIGNAL_STORE] = "store",
               [TC_SIGNAL_AUTO] = "auto");
TC_NAMES_TABLE(tc_names_frames, "frame mode",
               [TC_FRAMES_FIXED] = "fixed", [TC_FRAMES_VARIABLE] = "variable");
TC_NAMES_TABLE(tc_names_exec, "exec policy",
               [TC_EXEC_ALLOWLIST] = "allowlist", [TC_EXEC_ANY] = "any",
               [TC_EXEC_LOCAL_ONLY] = "local-only");
TC_NAMES_TABLE(tc_names_progress, "progress mode",
               [TC_PROGRESS_AUTO] = "auto", [TC_PROGRESS_ALWAYS] = "on",
               [TC_PROGRESS_NEVER] = "off");
TC_NAMES_TABLE(tc_names_boot, "bootstrap",
               [TC_BOOT_AUTO] = "auto", [TC_BOOT_TCP] = "tcp", [TC_BOOT_PMIX] = "pmix",
               [TC_BOOT_LOOPBACK] = "loopback");
TC_NAMES_TABLE(tc_names_log_level, "log level",
               [TC_LOG_ERROR] = "error", [TC_LOG_WARN] = "warn", [TC_LOG_INFO] = "info",
               [TC_LOG_DEBUG] = "debug");

const char *tc_names_str(const tc_names_t *table, unsigned value)
{
    return (value < table->count) ? table->names[value] : NULL;
}

tc_status_t tc_names_parse(const tc_names_t *table, const char *name, unsigned *value_p)
{
    unsigned i;

    if (name == NULL) {
        return TC_ERR_INVALID_PARAM;
    }
    for (i = 0; i < table->count; ++i) {
        if (strcmp(name, table->names[i]) == 0) {
            *value_p = i;
            return TC_OK;
        }
    }
    return TC_ERR_NOT_FOUND;
}

static const char *tc_names_str_or(const tc_names_t *table, unsigned value)
{
    const char *name = tc_names_str(table, value);

    return (name != NULL) ? name : "unknown";
}

/* tc_<enum>_str and tc_<enum>_parse for one table. */
#define TC_NAMES_API(_prefix, _table, _type) \
    const char *_prefix##_str(_type value) \
    { \
        return tc_names_str_or(&_table, (unsigned)value); \
    } \
    tc_status_t _prefix##_parse(const char *name, _type *value_p) \
    { \
        unsigned value; \
        tc_status_t status = tc_names_parse(&_table, name, &value); \
        if (status == TC_OK) { \
            *value_p = (_type)value; \
        } \
        return status; \
    }

TC_NAMES_API(tc_wait, tc_names_wait, tc_wait_t)
TC_NAMES_API(tc_mode, tc_names_mode, tc_mode_t)
TC_NAMES_API(tc_signal, tc_names_signal, tc_signal_mode_t)
TC_NAMES_API(tc_frames, tc_names_frames, tc_frame_mode_t)
TC_NAMES_API(tc_exec, tc_names_exec, tc_exec_policy_t)
TC_NAMES_API(tc_progress, tc_names_progress, tc_progress_mode_t)
TC_NAMES_API(tc_log_level, tc_names_log_level, tc_log_level_t)
TC_NAMES_API(tc_boot_kind, tc_names_boot, tc_boot_kind_t)

TC_NAMES_API(tc_place, tc_names_place, tc_place_t)
