/*
 * Seeds for the UCX-blob fuzzer (tests/fuzz/ucxblob_target.c): real worker
 * addresses and packed rkeys from UCX itself (ucp_worker_get_address,
 * ucp_rkey_pack of a mapped buffer), one pair for each transport set this
 * library runs over (posix, sysv, cma, tcp, and all of them), in UCX's
 * address versions v1 and v2, written in the target's three input forms
 * (address, rkey, address + rkey). Usage: ucxblob_seeds DIR.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ucp/api/ucp.h>

static void put_file(const char *dir, const char *name, uint8_t kind, const void *a,
                     size_t alen, const void *b, size_t blen)
{
    char path[4096], *c;
    uint16_t len16 = (uint16_t)alen;
    FILE *f;

    snprintf(path, sizeof(path), "%s/seed-%s", dir, name);
    for (c = path + strlen(dir); *c != '\0'; ++c) {
        *c = (*c == ',') ? '+' : *c; /* "cma,tcp": a file name without a comma */
    }
    f = fopen(path, "wb");
    if ((f == NULL) || (fwrite(&kind, 1, 1, f) != 1) ||
        ((kind == 2) && (fwrite(&len16, sizeof(len16), 1, f) != 1)) ||
        (fwrite(a, 1, alen, f) != alen) || ((b != NULL) && (fwrite(b, 1, blen, f) != blen))) {
        perror(path);
        exit(1);
    }
    fclose(f);
}

static int seed_one(const char *dir, const char *tls, const char *version)
{
    ucp_params_t params;
    ucp_config_t *config;
    ucp_context_h ucp;
    ucp_worker_h worker;
    ucp_worker_params_t wp;
    ucp_mem_map_params_t mp;
    ucp_mem_h memh;
    ucp_address_t *addr;
    size_t addr_len, rkey_len;
    void *rkey;
    char name[128];

    if ((ucp_config_read(NULL, NULL, &config) != UCS_OK) ||
        (ucp_config_modify(config, "TLS", tls) != UCS_OK) ||
        (ucp_config_modify(config, "ADDRESS_VERSION", version) != UCS_OK)) {
        return -1;
    }
    memset(&params, 0, sizeof(params));
    params.field_mask = UCP_PARAM_FIELD_FEATURES;
    params.features   = UCP_FEATURE_RMA | UCP_FEATURE_AM;
    if (ucp_init(&params, config, &ucp) != UCS_OK) {
        ucp_config_release(config);
        fprintf(stderr, "%s: no such transports here, no seed\n", tls);
        return 0;
    }
    ucp_config_release(config);
    memset(&wp, 0, sizeof(wp));
    if (ucp_worker_create(ucp, &wp, &worker) != UCS_OK) {
        return -1;
    }
    memset(&mp, 0, sizeof(mp));
    mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_LENGTH | UCP_MEM_MAP_PARAM_FIELD_FLAGS;
    mp.length     = 1 << 16;
    mp.flags      = UCP_MEM_MAP_ALLOCATE;
    if ((ucp_mem_map(ucp, &mp, &memh) != UCS_OK) ||
        (ucp_worker_get_address(worker, &addr, &addr_len) != UCS_OK) ||
        (ucp_rkey_pack(ucp, memh, &rkey, &rkey_len) != UCS_OK)) {
        return -1;
    }
    snprintf(name, sizeof(name), "addr-%s-%s", tls, version);
    put_file(dir, name, 0, addr, addr_len, NULL, 0);
    snprintf(name, sizeof(name), "rkey-%s-%s", tls, version);
    put_file(dir, name, 1, rkey, rkey_len, NULL, 0);
    snprintf(name, sizeof(name), "pair-%s-%s", tls, version);
    put_file(dir, name, 2, addr, addr_len, rkey, rkey_len);
    printf("%-14s %s: address %zu bytes, rkey %zu bytes\n", tls, version, addr_len, rkey_len);
    ucp_rkey_buffer_release(rkey);
    ucp_worker_release_address(worker, addr);
    ucp_mem_unmap(ucp, memh);
    ucp_worker_destroy(worker);
    ucp_cleanup(ucp);
    return 0;
}

int main(int argc, char **argv)
{
    static const char *const tls[] = {"posix", "sysv", "cma", "tcp", "cma,tcp",
                                      "posix,sysv,cma,tcp"};
    static const char *const versions[] = {"v1", "v2"};
    unsigned t, v;

    if (argc != 2) {
        fprintf(stderr, "usage: ucxblob_seeds DIR\n");
        return 2;
    }
    for (t = 0; t < sizeof(tls) / sizeof(tls[0]); ++t) {
        for (v = 0; v < 2; ++v) {
            if (seed_one(argv[1], tls[t], versions[v]) != 0) {
                fprintf(stderr, "%s %s: UCX failed\n", tls[t], versions[v]);
                return 1;
            }
        }
    }
    return 0;
}
