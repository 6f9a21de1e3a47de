/*
 * Dispatch: run whatever has arrived from the peer.
 */
#ifndef TC_DISPATCH_H
#define TC_DISPATCH_H

#include "runtime.h"

/* Record why a frame was rejected (and log the first few). */
void tc_peer_reject(tc_peer_t *peer, const char *reason);

#endif
