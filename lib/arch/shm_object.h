/*
 * A shared-memory object another process owns and this one maps, held
 * open by what the kernel says backs the mapping (/proc/self/map_files,
 * else the object's /dev/shm path), so that its size can be checked after
 * connect: an owner may shrink it (stores past the end fault: the SIGBUS
 * guard, lib/arch/shm_guard.h) or grow it (which no honest owner does).
 * Pure: no UCX.
 */
#ifndef TC_SHM_OBJECT_H
#define TC_SHM_OBJECT_H

#include "twochains.h"
#include "maps.h"

#include <stddef.h>
#include <stdint.h>

typedef struct tc_shm_object {
    int      fd;    /* -1: not open (the object could not be opened here) */
    uint32_t dev;   /* as /proc/self/maps shows it (major << 20 | minor) */
    uint64_t inode;
    uint64_t size;  /* at open */
} tc_shm_object_t;

#define TC_SHM_OBJECT_NONE ((tc_shm_object_t){-1, 0, 0, 0})

/* Open the object behind range r (a shm range of this process's map) and
 * check it is that object (device, inode). TC_ERR_UNSUPPORTED where
 * neither /proc/self/map_files (CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE)
 * nor a path reaches it (obj_p untouched); TC_ERR_PROTOCOL, with why
 * (len bytes), where what opens is another object. */
tc_status_t tc_shm_object_open(const tc_map_range_t *r, char *why, size_t len,
                               tc_shm_object_t *obj_p);
/* NULL while the object has the size it had at open; else why not (into
 * buf, which it returns; an object that can no longer be read says so). */
const char *tc_shm_object_changed(const tc_shm_object_t *obj, char *buf, size_t len);
void        tc_shm_object_close(tc_shm_object_t *obj);

#endif
