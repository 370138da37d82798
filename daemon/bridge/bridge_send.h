/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What this host publishes over the bridge: its processes' Status, the
 * replies to snapshots other hosts asked of it, and the broadcasts of its
 * --all-hosts commands (bridge_send_* and bridge_snapshot_ask in bridge.h),
 * held while a lazy bridge wakes (bridge_pending.h).
 */
#ifndef CARETD_BRIDGE_SEND_H
#define CARETD_BRIDGE_SEND_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/bridge/bridge.h"

/* every process's Status goes out at least this often */
#define BRIDGE_BEAT_NS (1000LL * 1000000)

/* Publishes the Status of each process that changed, or of all at the
 * heartbeat; whether every process is in WAIT. */
bool bridge_send_status(struct bridge *b, int64_t now);
/* The replies of the snapshots other hosts asked for that are over. */
void bridge_send_snap_replies(struct bridge *b, int64_t now);
/* The broadcasts held while the bridge woke, once it settled. */
void bridge_send_flush(struct bridge *b, int64_t now);

#endif
