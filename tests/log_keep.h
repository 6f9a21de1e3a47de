/*
 * The library's warnings and errors, kept for a test to search: each one a
 * line of log_kept, "LEVEL: message" (the oldest first, up to its size);
 * errors counted.
 * Any thread may log (a serve thread does).
 */
#ifndef TC_TEST_LOG_KEEP_H
#define TC_TEST_LOG_KEEP_H

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "twochains.h"

static pthread_mutex_t log_kept_lock = PTHREAD_MUTEX_INITIALIZER;
static char            log_kept[16384];
static size_t          log_kept_len;
static unsigned        log_kept_errors;

static void log_keep_line(tc_log_level_t level, const char *msg, void *arg)
{
    size_t n = strlen(msg);

    (void)arg;
    if (level > TC_LOG_WARN) {
        return;
    }
    pthread_mutex_lock(&log_kept_lock);
    log_kept_errors += (level == TC_LOG_ERROR);
    if (log_kept_len + n + 8 <= sizeof(log_kept)) {
        /* each line begins with its level: log_kept_has_at looks there */
        log_kept_len += (size_t)sprintf(log_kept + log_kept_len, "%s: ", tc_log_level_str(level));
        memcpy(log_kept + log_kept_len, msg, n);
        log_kept_len += n;
        log_kept[log_kept_len++] = '\n';
        log_kept[log_kept_len]   = '\0';
    }
    pthread_mutex_unlock(&log_kept_lock);
}

/* Start keeping (what was kept before is dropped). */
static __attribute__((unused)) void log_keep_start(void)
{
    pthread_mutex_lock(&log_kept_lock);
    log_kept[0]     = '\0';
    log_kept_len    = 0;
    log_kept_errors = 0;
    pthread_mutex_unlock(&log_kept_lock);
    tc_log_set_handler(log_keep_line, NULL);
}

/* Back to the default handler. */
static __attribute__((unused)) void log_keep_stop(void)
{
    tc_log_set_handler(NULL, NULL);
}

/* Nonzero when a kept line holds needle. */
static __attribute__((unused)) int log_kept_has(const char *needle)
{
    int found;

    pthread_mutex_lock(&log_kept_lock);
    found = strstr(log_kept, needle) != NULL;
    pthread_mutex_unlock(&log_kept_lock);
    return found;
}

/* Nonzero when a kept line of that level holds needle. */
static __attribute__((unused)) int log_kept_has_at(tc_log_level_t level, const char *needle)
{
    char prefix[16];
    const char *line, *end, *hit;
    int found = 0;

    snprintf(prefix, sizeof(prefix), "%s: ", tc_log_level_str(level));
    pthread_mutex_lock(&log_kept_lock);
    for (line = log_kept; (*line != '\0') && !found; line = end + 1) {
        end = strchr(line, '\n');
        hit = strstr(line, needle);
        found = !strncmp(line, prefix, strlen(prefix)) && (hit != NULL) && (hit < end);
    }
    pthread_mutex_unlock(&log_kept_lock);
    return found;
}

#endif
