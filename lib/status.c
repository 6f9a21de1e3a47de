#include "twochains.h"

const char *tc_status_str(tc_status_t status)
{
    switch (status) {
    case TC_OK:                   return "success";
    case TC_ERR_INVALID_PARAM:    return "invalid parameter";
    case TC_ERR_NO_MEMORY:        return "out of memory";
    case TC_ERR_IO:               return "input/output error";
    case TC_ERR_TIMEOUT:          return "timed out";
    case TC_ERR_PEER_NOT_FOUND:   return "peer not found";
    case TC_ERR_PORT_BUSY:        return "port busy";
    case TC_ERR_VERSION_MISMATCH: return "protocol version mismatch";
    case TC_ERR_PEER_FAILED:      return "peer failed";
    case TC_ERR_UCX:              return "UCX error";
    case TC_ERR_NO_RESOURCE:      return "no resource";
    case TC_ERR_BAD_FRAME:        return "malformed frame";
    case TC_ERR_NOT_FOUND:        return "not found";
    case TC_ERR_UNSUPPORTED:      return "unsupported";
    case TC_ERR_PROTOCOL:         return "protocol error";
    case TC_ERR_OUT_OF_RANGE:     return "out of range";
    case TC_ERR_INTERRUPTED:      return "interrupted";
    case TC_ERR_REFUSED:          return "refused by policy";
    case TC_ERR_CLOSED:           return "peer closed";
    case TC_ERR_LAST:             break;
    }
    return "unknown status";
}
