/*
 * The library's one way out for messages (see twochains.h, log): a level
 * filter and a handler. Global by nature, like UCX's log handlers: the
 * level is one atomic word; the handler and its argument are read together
 * under a spinlock held for two loads (never while a handler runs, so a
 * handler may log, and one replaced may still be finishing a call in
 * another thread). errno is kept across a call, so callers may log before
 * they read it; "%m" prints the caller's errno. Text from a peer goes
 * through tc_log_text before it reaches a message.
 */
#include "log.h"
#include "names.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define TC_LOG_UNSET (-1) /* not yet read from TC_LOG_LEVEL */

static atomic_int       tc_log_level_v = TC_LOG_UNSET;
static atomic_flag      tc_log_lock    = ATOMIC_FLAG_INIT;
static tc_log_handler_t tc_log_handler_fn;  /* NULL: tc_log_default */
static void            *tc_log_handler_arg;

/* What the default handler puts before a message (the words the library
 * has always printed). */
static const char *const tc_log_prefix[] = {
    [TC_LOG_ERROR] = "error",
    [TC_LOG_WARN]  = "warning",
    [TC_LOG_INFO]  = "info",
    [TC_LOG_DEBUG] = "debug",
};

static void tc_log_default(tc_log_level_t level, const char *msg)
{
    /* one call: a line is not interleaved with another thread's */
    fprintf(stderr, "twochains: %s: %s\n", tc_log_prefix[level], msg);
}

static tc_log_level_t tc_log_clamp(int level)
{
    return (level < TC_LOG_ERROR) ? TC_LOG_ERROR :
           (level > TC_LOG_DEBUG) ? TC_LOG_DEBUG : (tc_log_level_t)level;
}

tc_log_level_t tc_log_get_level(void)
{
    int level = atomic_load_explicit(&tc_log_level_v, memory_order_relaxed);
    const char *env;
    tc_log_level_t want = TC_LOG_WARN;
    int unset = TC_LOG_UNSET, bad;

    if (TC_LIKELY(level != TC_LOG_UNSET)) {
        return (tc_log_level_t)level;
    }
    env = getenv("TC_LOG_LEVEL");
    bad = (env != NULL) && (tc_log_level_parse(env, &want) != TC_OK);
    /* a tc_log_set_level that came first wins */
    if (atomic_compare_exchange_strong(&tc_log_level_v, &unset, (int)want) && bad) {
        tc_warn("TC_LOG_LEVEL=%s is not a log level (error, warn, info, debug): using warn",
                env);
    }
    return (tc_log_level_t)atomic_load_explicit(&tc_log_level_v, memory_order_relaxed);
}

void tc_log_set_level(tc_log_level_t level)
{
    atomic_store_explicit(&tc_log_level_v, (int)tc_log_clamp((int)level),
                          memory_order_relaxed);
}

static void tc_log_lock_take(void)
{
    while (atomic_flag_test_and_set_explicit(&tc_log_lock, memory_order_acquire)) {
    }
}

static void tc_log_lock_give(void)
{
    atomic_flag_clear_explicit(&tc_log_lock, memory_order_release);
}

tc_status_t tc_log_set_handler(tc_log_handler_t handler, void *arg)
{
    tc_log_lock_take();
    tc_log_handler_fn  = handler;
    tc_log_handler_arg = (handler != NULL) ? arg : NULL;
    tc_log_lock_give();
    return TC_OK;
}

int tc_log_enabled(tc_log_level_t level)
{
    return ((int)level >= TC_LOG_ERROR) && ((int)level <= (int)tc_log_get_level());
}

void tc_log(tc_log_level_t level, const char *fmt, ...)
{
    int saved_errno = errno;
    char buf[1024], *big = NULL;
    const char *msg = buf;
    tc_log_handler_t handler;
    void *arg;
    va_list ap;
    int n;

    if (!tc_log_enabled(level)) {
        return;
    }
    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (n < 0) {
        msg = fmt; /* cannot format: say at least what was meant */
    } else if ((size_t)n >= sizeof(buf)) {
        big = malloc((size_t)n + 1); /* else the truncated message */
        if (big != NULL) {
            errno = saved_errno;
            va_start(ap, fmt);
            vsnprintf(big, (size_t)n + 1, fmt, ap);
            va_end(ap);
            msg = big;
        }
    }

    tc_log_lock_take();
    handler = tc_log_handler_fn;
    arg     = tc_log_handler_arg;
    tc_log_lock_give();
    if (handler != NULL) {
        handler(level, msg, arg);
    } else {
        tc_log_default(level, msg);
    }
    free(big);
    errno = saved_errno;
}

/* c as it goes into a log line: itself, or its escape; returns the length. */
static size_t tc_log_text_char(unsigned char c, char esc[5])
{
    static const char hex[] = "0123456789abcdef";

    switch (c) {
    case '\n': memcpy(esc, "\\n", 2); return 2;
    case '\r': memcpy(esc, "\\r", 2); return 2;
    case '\t': memcpy(esc, "\\t", 2); return 2;
    case '\\': memcpy(esc, "\\\\", 2); return 2;
    default:
        break;
    }
    if ((c >= 0x20) && (c < 0x7f)) {
        esc[0] = (char)c;
        return 1;
    }
    esc[0] = '\\';
    esc[1] = 'x';
    esc[2] = hex[c >> 4];
    esc[3] = hex[c & 0xf];
    return 4;
}

const char *tc_log_text(const char *text, size_t len, char *out, size_t out_len)
{
    size_t i, n = 0, need = 0, room, limit, w;
    char esc[5];

    if (out_len == 0) {
        return out;
    }
    room = out_len - 1;
    len  = (text != NULL) ? strnlen(text, len) : 0;
    for (i = 0; (i < len) && (need <= room); ++i) {
        need += tc_log_text_char((unsigned char)text[i], esc);
    }
    /* cut: whole escapes only, and room for the "..." that says so */
    limit = (need <= room) ? room : (room >= 3) ? room - 3 : 0;
    for (i = 0; i < len; ++i) {
        w = tc_log_text_char((unsigned char)text[i], esc);
        if (n + w > limit) {
            break;
        }
        memcpy(out + n, esc, w);
        n += w;
    }
    if (need > room) {
        for (w = 0; (w < 3) && (n < room); ++w) {
            out[n++] = '.';
        }
    }
    out[n] = '\0';
    return out;
}
