#include "tool.h"
#include "log.h"

#include <errno.h>
#include <hwloc.h>
#include <stdlib.h>
#include <string.h>

int tc_tool_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *val_p)
{
    unsigned long long v;
    char *end;

    if ((s == NULL) || (*s < '0') || (*s > '9')) {
        return -1; /* strtoull would take "-5" and " 5" */
    }
    errno = 0;
    v     = strtoull(s, &end, 10);
    if ((errno != 0) || (*end != '\0') || (v < min) || (v > max)) {
        return -1;
    }
    *val_p = v;
    return 0;
}

tc_status_t tc_tool_pin(int cpu)
{
    hwloc_topology_t topo;
    hwloc_bitmap_t set;
    int rc;

    if (cpu < 0) {
        return TC_OK;
    }
    if (hwloc_topology_init(&topo) || hwloc_topology_load(topo)) {
        tc_error("hwloc topology failed");
        return TC_ERR_IO;
    }
    set = hwloc_bitmap_alloc();
    hwloc_bitmap_only(set, (unsigned)cpu);
    rc = hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD | HWLOC_CPUBIND_STRICT);
    if (rc != 0) {
        rc = hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD);
    }
    hwloc_bitmap_free(set);
    hwloc_topology_destroy(topo);
    if (rc != 0) {
        tc_error("cannot pin to cpu %d: %s", cpu, strerror(errno));
        return TC_ERR_INVALID_PARAM;
    }
    return TC_OK;
}
