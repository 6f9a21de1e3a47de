/* The bench package's default path (see pkg_path.h). */
#include "pkg_path.h"
#include "log.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* path into buf if it fits. */
static tc_status_t tc_pkg_path_copy(const char *path, char *buf, size_t len)
{
    size_t n = strlen(path);

    if (n >= len) {
        return TC_ERR_OUT_OF_RANGE;
    }
    memcpy(buf, path, n + 1);
    return TC_OK;
}

tc_status_t tc_pkg_default_path(char *buf, size_t len)
{
    static const char *const rel[] = {"../pkg/bench", "../share/twochains/pkg/bench"};
    char exe[PATH_MAX], path[PATH_MAX];
    const char *env = getenv("TC_PKG");
    const char *dir;
    unsigned i;
    ssize_t n;
    int rc;

    if ((env != NULL) && (*env != '\0')) {
        return tc_pkg_path_copy(env, buf, len);
    }

    /* build/bin/tc-perf and build/tests/x find build/pkg/bench; an
     * installed PREFIX/bin/tc-perf finds PREFIX/share/twochains/pkg/bench */
    n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n < 0) {
        return TC_ERR_IO;
    }
    exe[n] = '\0';
    dir = dirname(exe);
    for (i = 0; i < TC_ARRAY_SIZE(rel); ++i) {
        rc = snprintf(path, sizeof(path), "%s/%s/libtc_bench.so", dir, rel[i]);
        if ((rc < 0) || ((size_t)rc >= sizeof(path)) || ((size_t)rc >= len)) {
            return TC_ERR_OUT_OF_RANGE;
        }
        if (access(path, R_OK) == 0) {
            return tc_pkg_path_copy(path, buf, len);
        }
    }
    return TC_ERR_NOT_FOUND;
}
