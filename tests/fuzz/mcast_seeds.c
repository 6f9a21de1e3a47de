/* Writes the multicast fuzz target's seeds: every target-set form, an
 * envelope with and without ack, an ack, over several node counts.
 * usage: mcast_seeds DIR */
#include <stdio.h>
#include <string.h>

#include "mcast.h"
#include "mcast_env.h"

static int seed_write(const char *dir, const char *name, uint8_t mode, const uint8_t *buf,
                      size_t len)
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
    fwrite(buf, 1, len, f);
    return fclose(f);
}

int main(int argc, char **argv)
{
    /* mode bits 0-2 index {1, 2, 7, 64, 100, 1000, 65536, 2^32-1} */
    static const struct { const char *name; uint8_t n_idx; uint32_t n; } sizes[] = {
        {"n1000", 5, 1000}, {"n64", 3, 64}, {"nmax", 7, UINT32_MAX}};
    uint8_t buf[4096];
    char name[64];
    size_t len, h;
    int rc = 0;

    if (argc != 2) {
        fprintf(stderr, "usage: mcast_seeds DIR\n");
        return 2;
    }
    for (unsigned s = 0; s < 3; ++s) {
        uint32_t n = sizes[s].n;
        tc_mcast_set_t *set;

        if (tc_mcast_set_create(n, &set) != TC_OK) {
            return 1;
        }
        for (unsigned kind = 0; kind < TC_MCAST_KIND_LAST; ++kind) {
            tc_mcast_set_clear(set);
            switch (kind) {
            case TC_MCAST_SINGLE: tc_mcast_set_add(set, n - 1); break;
            case TC_MCAST_SMALL_INLINE:
            case TC_MCAST_DELTA_LIST:
                for (uint32_t i = 0; i < 5; ++i) {
                    tc_mcast_set_add(set, i * (n / 8));
                }
                break;
            case TC_MCAST_RANGES:
            case TC_MCAST_BITMAP:
                tc_mcast_set_add_range(set, 0, (n > 40) ? 10 : 1);
                if (n > 40) {
                    tc_mcast_set_add_range(set, 20, 40);
                }
                break;
            case TC_MCAST_ALL_NODES: tc_mcast_set_add_range(set, 0, n); break;
            case TC_MCAST_ALL_EXCEPT:
                tc_mcast_set_add_range(set, 0, n);
                tc_mcast_set_remove(set, n / 2);
                break;
            default: break;
            }
            if (tc_mcast_encode_kind(set, kind, buf, sizeof(buf), &len) != TC_OK) {
                continue; /* the form cannot hold this set at this N */
            }
            snprintf(name, sizeof(name), "set-%s-%s", sizes[s].name, tc_mcast_kind_str(kind));
            rc |= seed_write(argv[1], name, sizes[s].n_idx, buf, len);
            /* the same slice in an envelope, with and without ack */
            for (unsigned ack = 0; ack < 2; ++ack) {
                tc_mcast_env_t env = {ack ? TC_MCAST_ENV_ACK : 0, n - 1, 4, 2, ack ? 77 : 0};

                h = tc_mcast_env_put_hdr(&env, buf);
                if (tc_mcast_encode_kind(set, kind, buf + h, sizeof(buf) - h, &len) != TC_OK) {
                    continue;
                }
                snprintf(name, sizeof(name), "env%s-%s-%s", ack ? "-ack" : "", sizes[s].name,
                         tc_mcast_kind_str(kind));
                rc |= seed_write(argv[1], name, (uint8_t)(sizes[s].n_idx | 0x08), buf, h + len);
            }
        }
        {
            tc_mcast_ack_t ack = {n - 1, 12345, (n < 64) ? n : 63, 3, 62, 300};

            len = tc_mcast_ack_put(&ack, buf);
            snprintf(name, sizeof(name), "ack-%s", sizes[s].name);
            rc |= seed_write(argv[1], name, (uint8_t)(sizes[s].n_idx | 0x10), buf, len);
        }
        tc_mcast_set_destroy(set);
    }
    return rc ? 1 : 0;
}
