/*
 * A mapped shared-memory object, held open (lib/arch/shm_object.h).
 */
#define _GNU_SOURCE
#include "shm_object.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

tc_status_t tc_shm_object_open(const tc_map_range_t *r, char *why, size_t len,
                               tc_shm_object_t *obj_p)
{
    char path[64];
    struct stat st;
    uint32_t dev;
    int fd;

    /* the mapping's own link reaches an object already removed (UCX's
     * posix segments are), but only with a capability; a path any process
     * may reach, where the object still has one */
    snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx", (unsigned long)r->start,
             (unsigned long)r->end);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if ((fd < 0) && r->named) {
        fd = open(r->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    }
    if (fd < 0) {
        return TC_ERR_UNSUPPORTED;
    }
    if (fstat(fd, &st) != 0) {
        close(fd);
        return TC_ERR_UNSUPPORTED;
    }
    dev = (major(st.st_dev) << 20) | minor(st.st_dev);
    if (!S_ISREG(st.st_mode) || (dev != r->dev) || ((uint64_t)st.st_ino != r->inode)) {
        snprintf(why, len, "the object that backs the mapping (inode %llu) is not the one the "
                 "memory map names (inode %llu)", (unsigned long long)st.st_ino,
                 (unsigned long long)r->inode);
        close(fd);
        return TC_ERR_PROTOCOL;
    }
    obj_p->fd    = fd;
    obj_p->dev   = dev;
    obj_p->inode = r->inode;
    obj_p->size  = (uint64_t)st.st_size;
    return TC_OK;
}

const char *tc_shm_object_changed(const tc_shm_object_t *obj, char *buf, size_t len)
{
    struct stat st;

    if (obj->fd < 0) {
        return NULL;
    }
    if (fstat(obj->fd, &st) != 0) {
        snprintf(buf, len, "its shared-memory object cannot be read: %s", strerror(errno));
        return buf;
    }
    if ((uint64_t)st.st_size != obj->size) {
        snprintf(buf, len, "its shared-memory object %s from %llu to %llu bytes after connect",
                 ((uint64_t)st.st_size < obj->size) ? "shrank" : "grew",
                 (unsigned long long)obj->size, (unsigned long long)st.st_size);
        return buf;
    }
    return NULL;
}

void tc_shm_object_close(tc_shm_object_t *obj)
{
    if (obj->fd >= 0) {
        close(obj->fd);
    }
    obj->fd = -1;
}
