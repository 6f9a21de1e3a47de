/*
 * This process's memory map (/proc/self/maps), read into a table: which
 * ranges are mapped, shared or private, and what object backs each. Pure:
 * no UCX, no runtime state. Wireup uses it to tell where a peer's rkey lets
 * this side write (lib/wireup/wire_extent.c).
 */
#ifndef TC_MAPS_H
#define TC_MAPS_H

#include "twochains.h"

#include <stddef.h>
#include <stdint.h>

typedef struct tc_map_range {
    uintptr_t start, end;   /* [start, end) */
    uint64_t  offset;       /* of start in the object */
    uint64_t  inode;        /* 0: anonymous */
    uint32_t  dev;          /* major << 20 | minor */
    int       shared;       /* MAP_SHARED ('s') */
    int       shm;          /* backed by a shared-memory object: /dev/shm, SysV, memfd */
    int       named;        /* a /dev/shm object's path that still names it (path) */
    char      path[96];     /* of a named object, else "" */
} tc_map_range_t;

typedef struct tc_maps {
    tc_map_range_t *ranges; /* in address order, as the kernel lists them */
    size_t          count;
} tc_maps_t;

/* Parse the text of a maps file (NUL-terminated). TC_ERR_BAD_FRAME, logged
 * with the line, for text that is not one (ranges overlapping or out of
 * address order included: the kernel lists them in order). */
tc_status_t tc_maps_parse(const char *text, tc_maps_t *maps);
/* Read and parse /proc/self/maps. */
tc_status_t tc_maps_read(tc_maps_t *maps);
void        tc_maps_free(tc_maps_t *maps);

/* The range holding addr, NULL if none. */
const tc_map_range_t *tc_maps_find(const tc_maps_t *maps, uintptr_t addr);
/* Whether maps holds this very range (same bounds and object). */
int tc_maps_has_range(const tc_maps_t *maps, const tc_map_range_t *range);
/* Whether maps maps the object (dev, inode) anywhere; anonymous never matches. */
int tc_maps_has_object(const tc_maps_t *maps, uint32_t dev, uint64_t inode);

#endif
