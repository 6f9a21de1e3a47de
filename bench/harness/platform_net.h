/*
 * The network side of the platform report: the UCX library, the transports
 * and devices it offers on this host (ucp_context_print_info: what a run can
 * choose from; each run's own choice is tc-perf's "transports" column), and
 * the network interfaces with their driver, link rate and whether they
 * speak RDMA (/sys/class/net, /sys/class/infiniband).
 */
#ifndef TC_HARNESS_PLATFORM_NET_H
#define TC_HARNESS_PLATFORM_NET_H

#include <stddef.h>

#define TC_PLATFORM_NICS_MAX 8

typedef struct tc_platform_nic {
    char name[32];
    char driver[32];     /* "virtio_net", "mlx5_core"; "virtual" for one with no device */
    long speed_mbps;     /* -1: the driver does not say */
    unsigned mtu;
    char state[16];      /* operstate: "up", "down", "unknown" */
    char rdma[64];       /* the RDMA device on it and its rate, or "" */
} tc_platform_nic_t;

typedef struct tc_platform_net {
    char              ucx_version[32];
    char              transports[256]; /* "tcp/eth0,posix/memory,..." or why none */
    unsigned          n_nics;
    tc_platform_nic_t nics[TC_PLATFORM_NICS_MAX]; /* lo left out */
} tc_platform_net_t;

/* Fill net with this host's answers; what cannot be read reads "unknown". */
void tc_platform_net_probe(tc_platform_net_t *net);
/* One line a NIC: "eth0: virtio_net, 10000 Mb/s, mtu 1500, up[, rdma ...]". */
void tc_platform_nic_str(const tc_platform_nic_t *nic, char *buf, size_t len);

#endif
