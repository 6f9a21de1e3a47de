/* Writes the fuzz target's seed corpus: valid frames of every kind, in fixed
 * and variable mode. usage: frame_seeds DIR */
#include <stdio.h>
#include <string.h>

#include "frame.h"

static int write_seed(const char *dir, const char *name, uint8_t mode, const void *frame,
                      uint32_t len)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s/seed-%s", dir, name);
    f = fopen(path, "wb");
    if (f == NULL) {
        perror(path);
        return -1;
    }
    fwrite(&mode, 1, 1, f);
    fwrite(frame, 1, len, f);
    return fclose(f);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        uint8_t     kind, flags, fixed;
        uint32_t    args, got, code, payload;
    } seeds[] = {
        {"local-8", TC_KIND_LOCAL, 0, 1, 0, 0, 0, 8},
        {"local-args", TC_KIND_LOCAL, TC_FRAME_F_WANT_REPLY, 0, 12, 0, 0, 100},
        {"local-var-600", TC_KIND_LOCAL, TC_FRAME_F_HAS_RET, 0, 0, 0, 0, 600},
        {"injected", TC_KIND_INJECTED, 0, 0, 0, 3, 200, 64},
        {"cached", TC_KIND_CACHED, 0, 0, 0, 0, 0, 32},
        {"injected-cache", TC_KIND_INJECTED, TC_FRAME_F_CACHE, 0, 0, 1, 120, 8},
        {"sync-request", TC_KIND_SYNC_REQ, 0, 1, 0, 0, 0, 0},
        {"sync-reply", TC_KIND_SYNC_REP, TC_FRAME_F_HAS_RET, 0, 0, 0, 0, 16},
        {"reply", TC_KIND_REPLY, TC_FRAME_F_HAS_RET, 1, 0, 0, 0, 0},
        {"nop", TC_KIND_NOP, 0, 0, 0, 0, 0, 0},
        /* a prepared one-way start's frame; and one that contradicts itself */
        {"local-no-ret", TC_KIND_LOCAL, TC_FRAME_F_NO_RET, 1, 0, 0, 0, 8},
        {"cached-no-ret-has-ret", TC_KIND_CACHED, TC_FRAME_F_NO_RET | TC_FRAME_F_HAS_RET, 0, 0,
         0, 0, 16},
        {"local-no-ret-reply", TC_KIND_LOCAL, TC_FRAME_F_NO_RET | TC_FRAME_F_WANT_REPLY, 0, 0, 0,
         0, 8},
    };
    uint8_t frame[1024];
    unsigned i;

    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    for (i = 0; i < sizeof(seeds) / sizeof(seeds[0]); ++i) {
        tc_frame_layout_t layout = {seeds[i].args, seeds[i].got, seeds[i].code,
                                    seeds[i].payload};
        tc_frame_offsets_t off;
        memset(frame, 0, sizeof(frame));
        if (tc_frame_layout(&layout, sizeof(frame), &off) != TC_OK) {
            return 1;
        }
        if (seeds[i].fixed) {
            off.frame_size = 128;
        }
        tc_frame_write_hdr(frame, &off, &layout, seeds[i].kind, seeds[i].flags,
                           (seeds[i].kind == TC_KIND_REPLY || seeds[i].kind == TC_KIND_NOP ||
                            seeds[i].kind == TC_KIND_SYNC_REP) ?
                               0 : 0x40a180b8u,
                           (uint16_t)(i % 4), 7);
        memset(frame + off.payload_off, 0x5a, seeds[i].payload);
        tc_frame_seal(frame);
        if (write_seed(argv[1], seeds[i].name, seeds[i].fixed, frame, off.frame_size) != 0) {
            return 1;
        }
    }
    return 0;
}
