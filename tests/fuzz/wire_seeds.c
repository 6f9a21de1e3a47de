/*
 * Seeds for the connect fuzzer (tests/fuzz/wire_target.c): genuine blobs for
 * each of the target's four configurations of this side, verdicts that go
 * on and that refuse, and a memory map (this program's own and a short
 * synthetic one). Usage: wire_seeds DIR.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"
#include "frame.h"

static void put_file(const char *dir, const char *name, const void *a, size_t alen)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s/seed-%s", dir, name);
    f = fopen(path, "wb");
    if ((f == NULL) || (fwrite(a, 1, alen, f) != alen)) {
        perror(path);
        exit(1);
    }
    fclose(f);
}

static void blob_seed(const char *dir, uint8_t cfg, uint32_t slots, uint32_t slot_size,
                      uint32_t frames, uint32_t frame_size)
{
    uint8_t buf[1 + sizeof(tc_peer_wire_t) + 40 + 2 * sizeof(tc_wire_pkg_t)];
    tc_wire_pkg_t pkgs[2];
    uint64_t ring = (uint64_t)slots * slot_size;
    tc_peer_wire_t w;
    char name[64];

    memset(&w, 0, sizeof(w));
    w.proto           = TC_PROTO_VERSION;
    w.rank            = 1;
    w.slots           = slots;
    w.slot_size       = slot_size;
    w.mbox_base       = 0x7f0000000000ull;
    w.ring_off        = sizeof(tc_mbox_ctrl_t);
    w.raw_off         = w.ring_off + ring;
    w.mbox_len        = (tc_wire_mbox_need(slots, slot_size) + 4095) & ~4095ull;
    w.worker_addr_len = 24;
    w.rkey_len        = 16;
    w.frame_size      = frame_size;
    w.frames          = frames;
    w.n_pkgs          = 2;
    memset(pkgs, 0, sizeof(pkgs));
    pkgs[0].id         = 0x07d41ed4;
    pkgs[0].n_elements = 10;
    strcpy(pkgs[0].name, "bench");
    pkgs[1].id         = 0x3da7daea;
    pkgs[1].n_elements = 2;
    strcpy(pkgs[1].name, "mystats");
    buf[0] = cfg;
    memcpy(buf + 1, &w, sizeof(w));
    memset(buf + 1 + sizeof(w), 0x5a, 40);
    memcpy(buf + 1 + sizeof(w) + 40, pkgs, sizeof(pkgs));
    snprintf(name, sizeof(name), "blob-%u-%ux%u", cfg, slots, slot_size);
    put_file(dir, name, buf, sizeof(buf));
}

static void verdict_seed(const char *dir, const char *name, tc_status_t status, const char *why)
{
    uint8_t buf[1 + sizeof(tc_wire_verdict_t)];
    tc_wire_verdict_t v;

    tc_wire_verdict_init(&v, status, why);
    buf[0] = 0x80;
    memcpy(buf + 1, &v, sizeof(v));
    put_file(dir, name, buf, sizeof(buf));
}

static void maps_seed(const char *dir)
{
    static const char synthetic[] =
        "\xc0" "55d0c0a00000-55d0c0a02000 r--p 00000000 08:01 131 /usr/bin/cat\n"
        "7f9d88c46000-7f9d88d46000 rw-s 00000000 00:1b 9469 /dev/shm/ucx_shm_posix_3b18eed8 (deleted)\n"
        "7f114dc9f000-7f114dd9f000 rw-s 00000000 00:01 1343508 /SYSV00000000 (deleted)\n"
        "7ffd1c5e1000-7ffd1c602000 rw-p 00000000 00:00 0 [stack]\n";
    char own[1 << 15];
    size_t len;
    FILE *f;

    put_file(dir, "maps-synthetic", synthetic, sizeof(synthetic) - 1);
    f = fopen("/proc/self/maps", "r");
    if (f == NULL) {
        return;
    }
    own[0] = (char)0xc0;
    len    = fread(own + 1, 1, sizeof(own) - 1, f);
    fclose(f);
    put_file(dir, "maps-own", own, len + 1);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: wire_seeds DIR\n");
        return 2;
    }
    blob_seed(argv[1], 0, 64, 4096, TC_FRAMES_FIXED, 64);
    blob_seed(argv[1], 1, 64, 65536, TC_FRAMES_VARIABLE, 64);
    blob_seed(argv[1], 2, 1024, 1u << 20, TC_FRAMES_FIXED, 4096);
    blob_seed(argv[1], 3, 2, 64, TC_FRAMES_VARIABLE, 64);
    verdict_seed(argv[1], "verdict-ok", TC_OK, NULL);
    verdict_seed(argv[1], "verdict-refused", TC_ERR_PROTOCOL,
                 "mailbox 0x7f0000000000 + 69632 bytes: byte 0 lands where this side maps nothing");
    maps_seed(argv[1]);
    return 0;
}
