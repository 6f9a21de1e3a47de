/*
 * The network side of the platform report (platform_net.h).
 */
#define _GNU_SOURCE
#include "platform_net.h"

#include <dirent.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ucp/api/ucp.h>

/* The first line of a sysfs file, without its newline; 0 if unreadable. */
static int tc_net_read(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    int ok;

    if (f == NULL) {
        return 0;
    }
    ok = (fgets(buf, (int)len, f) != NULL);
    fclose(f);
    if (ok) {
        buf[strcspn(buf, "\n")] = '\0';
    }
    return ok;
}

/* "tl/dev" of every resource UCX offers here, from its own report. */
static void tc_net_transports(tc_platform_net_t *net)
{
    ucp_params_t params = {.field_mask = UCP_PARAM_FIELD_FEATURES,
                           .features   = UCP_FEATURE_RMA | UCP_FEATURE_AM};
    char *info = NULL, *line, *save = NULL, *p;
    size_t info_len = 0, used = 0;
    ucp_config_t *config;
    ucp_context_h ucp;
    FILE *stream;

    snprintf(net->transports, sizeof(net->transports), "unknown (UCX did not start)");
    if (ucp_config_read(NULL, NULL, &config) != UCS_OK) {
        return;
    }
    if (ucp_init(&params, config, &ucp) != UCS_OK) {
        ucp_config_release(config);
        return;
    }
    ucp_config_release(config);
    stream = open_memstream(&info, &info_len);
    if (stream != NULL) {
        ucp_context_print_info(ucp, stream);
        fclose(stream);
    }
    ucp_cleanup(ucp);
    net->transports[0] = '\0';
    /* "#      resource 1  :  md 1  dev 1  flags -- tcp/eth0" */
    for (line = (info != NULL) ? strtok_r(info, "\n", &save) : NULL; line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        if ((strstr(line, "resource") == NULL) || ((p = strstr(line, "-- ")) == NULL) ||
            (strncmp(p + 3, "self/", 5) == 0)) {
            continue;
        }
        used += (size_t)snprintf(net->transports + used,
                                 (used < sizeof(net->transports)) ? sizeof(net->transports) - used : 0,
                                 "%s%s", (used > 0) ? "," : "", p + 3);
    }
    free(info);
    if (net->transports[0] == '\0') {
        snprintf(net->transports, sizeof(net->transports), "none");
    }
}

/* The RDMA device whose netdev is nic, with its first port's rate. */
static void tc_net_rdma(const char *nic, char *buf, size_t len)
{
    char path[PATH_MAX], val[64];
    struct dirent *de;
    DIR *d = opendir("/sys/class/infiniband");

    buf[0] = '\0';
    if (d == NULL) {
        return;
    }
    while ((de = readdir(d)) != NULL) {
        char dir[PATH_MAX];
        DIR *nd;
        struct dirent *ne;
        int match = 0;

        if (de->d_name[0] == '.') {
            continue;
        }
        snprintf(dir, sizeof(dir), "/sys/class/infiniband/%s/device/net", de->d_name);
        nd = opendir(dir);
        while ((nd != NULL) && ((ne = readdir(nd)) != NULL)) {
            match |= (strcmp(ne->d_name, nic) == 0);
        }
        if (nd != NULL) {
            closedir(nd);
        }
        if (!match) {
            continue;
        }
        snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/rate", de->d_name);
        if (!tc_net_read(path, val, sizeof(val))) {
            snprintf(val, sizeof(val), "rate not reported");
        }
        snprintf(buf, len, "rdma %.24s %.32s", de->d_name, val);
        break;
    }
    closedir(d);
}

static int tc_net_nic_cmp(const void *a, const void *b)
{
    return strcmp(((const tc_platform_nic_t *)a)->name, ((const tc_platform_nic_t *)b)->name);
}

static void tc_net_nics(tc_platform_net_t *net)
{
    char path[PATH_MAX], link[PATH_MAX], val[64];
    struct dirent *de;
    DIR *d = opendir("/sys/class/net");
    ssize_t n;

    net->n_nics = 0;
    if (d == NULL) {
        return;
    }
    while (((de = readdir(d)) != NULL) && (net->n_nics < TC_PLATFORM_NICS_MAX)) {
        tc_platform_nic_t *nic = &net->nics[net->n_nics];

        if ((de->d_name[0] == '.') || (strcmp(de->d_name, "lo") == 0)) {
            continue;
        }
        memset(nic, 0, sizeof(*nic));
        snprintf(nic->name, sizeof(nic->name), "%.31s", de->d_name);
        snprintf(path, sizeof(path), "/sys/class/net/%s/device/driver", de->d_name);
        n = readlink(path, link, sizeof(link) - 1);
        if (n > 0) {
            link[n] = '\0';
            snprintf(nic->driver, sizeof(nic->driver), "%s", basename(link));
        } else {
            snprintf(nic->driver, sizeof(nic->driver), "virtual");
        }
        snprintf(path, sizeof(path), "/sys/class/net/%s/speed", de->d_name);
        nic->speed_mbps = tc_net_read(path, val, sizeof(val)) ? strtol(val, NULL, 10) : -1;
        if (nic->speed_mbps <= 0) {
            nic->speed_mbps = -1;
        }
        snprintf(path, sizeof(path), "/sys/class/net/%s/mtu", de->d_name);
        nic->mtu = tc_net_read(path, val, sizeof(val)) ? (unsigned)strtoul(val, NULL, 10) : 0;
        snprintf(path, sizeof(path), "/sys/class/net/%s/operstate", de->d_name);
        if (!tc_net_read(path, nic->state, sizeof(nic->state))) {
            snprintf(nic->state, sizeof(nic->state), "unknown");
        }
        tc_net_rdma(de->d_name, nic->rdma, sizeof(nic->rdma));
        ++net->n_nics;
    }
    closedir(d);
    qsort(net->nics, net->n_nics, sizeof(net->nics[0]), tc_net_nic_cmp);
}

void tc_platform_nic_str(const tc_platform_nic_t *nic, char *buf, size_t len)
{
    char speed[32];

    if (nic->speed_mbps > 0) {
        snprintf(speed, sizeof(speed), "%ld Mb/s", nic->speed_mbps);
    } else {
        snprintf(speed, sizeof(speed), "rate not reported");
    }
    snprintf(buf, len, "%s: %s, %s, mtu %u, %s%s%s", nic->name, nic->driver, speed, nic->mtu,
             nic->state, (nic->rdma[0] != '\0') ? ", " : "", nic->rdma);
}

void tc_platform_net_probe(tc_platform_net_t *net)
{
    memset(net, 0, sizeof(*net));
    snprintf(net->ucx_version, sizeof(net->ucx_version), "%s", ucp_get_version_string());
    tc_net_transports(net);
    tc_net_nics(net);
}
