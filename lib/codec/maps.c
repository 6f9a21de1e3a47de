/*
 * /proc/self/maps into a table (lib/codec/maps.h).
 */
#define _GNU_SOURCE
#include "maps.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A shared-memory object's name as the kernel shows it: a POSIX object
 * under /dev/shm, a SysV segment, or a memfd. */
static int tc_maps_path_is_shm(const char *path)
{
    return (strncmp(path, "/dev/shm/", 9) == 0) || (strncmp(path, "/SYSV", 5) == 0) ||
           (strncmp(path, "/memfd:", 7) == 0);
}

/* "start-end perms offset major:minor inode [path]" */
static int tc_maps_parse_line(const char *line, tc_map_range_t *r)
{
    unsigned long long start, end, offset, inode;
    unsigned major, minor;
    char perms[5];
    int used = 0;

    if ((sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &start, &end, perms, &offset, &major,
                &minor, &inode, &used) < 7) ||
        (used == 0) || (start >= end) || (strlen(perms) != 4) || (minor >= (1u << 20))) {
        return 0;
    }
    r->start  = (uintptr_t)start;
    r->end    = (uintptr_t)end;
    r->offset = offset;
    r->inode  = inode;
    r->dev    = (major << 20) | minor;
    r->shared = (perms[3] == 's');
    r->shm    = r->shared && (inode != 0) && tc_maps_path_is_shm(line + used);
    /* a removed object's path ends " (deleted)": only its mappings reach it */
    r->named  = r->shm && (strncmp(line + used, "/dev/shm/", 9) == 0) &&
                (strstr(line + used, " (deleted)") == NULL) &&
                (strlen(line + used) < sizeof(r->path));
    r->path[0] = '\0';
    if (r->named) {
        snprintf(r->path, sizeof(r->path), "%s", line + used);
    }
    return 1;
}

/* Parse text; a line that is not one is logged only where quiet is 0. */
static tc_status_t tc_maps_parse_text(const char *text, int quiet, tc_maps_t *maps)
{
    size_t count = 0, cap = 0;
    tc_map_range_t *ranges = NULL, *grown;
    const char *line = text, *nl;
    char buf[4096 + 256];

    for (; *line != '\0'; line = (*nl == '\n') ? nl + 1 : nl) {
        size_t len;

        nl  = strchrnul(line, '\n');
        len = (size_t)(nl - line);
        if (len == 0) {
            continue;
        }
        if (count == cap) {
            cap   = (cap == 0) ? 128 : 2 * cap;
            grown = realloc(ranges, cap * sizeof(*ranges));
            if (grown == NULL) {
                free(ranges);
                return TC_ERR_NO_MEMORY;
            }
            ranges = grown;
        }
        snprintf(buf, sizeof(buf), "%.*s", (int)((len < sizeof(buf)) ? len : sizeof(buf) - 1),
                 line);
        if (!tc_maps_parse_line(buf, &ranges[count]) ||
            ((count > 0) && (ranges[count].start < ranges[count - 1].end))) {
            if (!quiet) {
                tc_error("memory map: cannot read the line '%.80s' (or it is out of order)",
                         buf);
            }
            free(ranges);
            return TC_ERR_BAD_FRAME;
        }
        ++count;
    }
    maps->ranges = ranges;
    maps->count  = count;
    return TC_OK;
}

tc_status_t tc_maps_parse(const char *text, tc_maps_t *maps)
{
    return tc_maps_parse_text(text, 0, maps);
}

/* One read of /proc/self/maps, start to end, parsed; quiet as above. */
static tc_status_t tc_maps_read_once(int quiet, tc_maps_t *maps)
{
    size_t len = 0, cap = 1 << 16;
    char *text = malloc(cap), *grown;
    tc_status_t status;
    ssize_t got;
    int fd;

    if (text == NULL) {
        return TC_ERR_NO_MEMORY;
    }
    fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        tc_error("memory map: open /proc/self/maps: %m");
        free(text);
        return TC_ERR_IO;
    }
    /* read to the end in one open: the kernel's view of one moment */
    while ((got = read(fd, text + len, cap - len - 1)) != 0) {
        if (got < 0) {
            if (errno == EINTR) {
                continue;
            }
            tc_error("memory map: read /proc/self/maps: %m");
            status = TC_ERR_IO;
            goto out;
        }
        len += (size_t)got;
        if (len + 1 == cap) {
            grown = realloc(text, 2 * cap);
            if (grown == NULL) {
                status = TC_ERR_NO_MEMORY;
                goto out;
            }
            text = grown;
            cap *= 2;
        }
    }
    text[len] = '\0';
    status    = tc_maps_parse_text(text, quiet, maps);
out:
    close(fd);
    free(text);
    return status;
}

void tc_maps_free(tc_maps_t *maps)
{
    free(maps->ranges);
    maps->ranges = NULL;
    maps->count  = 0;
}

const tc_map_range_t *tc_maps_find(const tc_maps_t *maps, uintptr_t addr)
{
    size_t lo = 0, hi = maps->count;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (addr < maps->ranges[mid].start) {
            hi = mid;
        } else if (addr >= maps->ranges[mid].end) {
            lo = mid + 1;
        } else {
            return &maps->ranges[mid];
        }
    }
    return NULL;
}

int tc_maps_has_range(const tc_maps_t *maps, const tc_map_range_t *range)
{
    const tc_map_range_t *r = tc_maps_find(maps, range->start);

    return (r != NULL) && (r->start == range->start) && (r->end == range->end) &&
           (r->dev == range->dev) && (r->inode == range->inode) && (r->shared == range->shared);
}

int tc_maps_has_object(const tc_maps_t *maps, uint32_t dev, uint64_t inode)
{
    size_t i;

    if (inode == 0) {
        return 0;
    }
    for (i = 0; i < maps->count; ++i) {
        if ((maps->ranges[i].inode == inode) && (maps->ranges[i].dev == dev)) {
            return 1;
        }
    }
    return 0;
}

tc_status_t tc_maps_read(tc_maps_t *maps)
{
    tc_status_t status = TC_ERR_BAD_FRAME;
    int attempt;

    /* the kernel writes the file a piece per read(): a thread mapping or
     * unmapping meanwhile can leave two pieces out of order, so a view that
     * does not parse is read again (the last try says why) */
    for (attempt = 0; (attempt < 8) && (status == TC_ERR_BAD_FRAME); ++attempt) {
        status = tc_maps_read_once(attempt < 7, maps);
    }
    return status;
}
