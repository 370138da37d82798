/* SPDX-License-Identifier: Apache-2.0 */
/*
 * This host's broadcasts held while a lazy bridge wakes (bridge.h,
 * BRIDGE_SETTLE_NS): copies, in the order they were asked, sent by
 * bridge_dds.c once the bridge settled, dropped with a warning after
 * BRIDGE_PENDING_TTL_NS (DDS could not start).
 */
#ifndef CARETD_BRIDGE_PENDING_H
#define CARETD_BRIDGE_PENDING_H

#include "daemon/bridge/bridge.h"

/* 0, -EBUSY (BRIDGE_PENDING held already) or -ENOMEM. */
int bridge_pending_add(struct bridge *b, enum bridge_pending_kind kind, uint32_t frequency,
		       const struct caret_filter_lists *filter, const char *session,
		       const char *url, bool stop, int64_t now);
/* The oldest held one, or NULL; expired ones are dropped first (logged). */
struct bridge_pending *bridge_pending_first(struct bridge *b, int64_t now);
/* Drops the oldest (after it was sent). */
void bridge_pending_pop(struct bridge *b);
void bridge_pending_clear(struct bridge *b);
/* "Start", "End" or "RelayRecord", for the log. */
const char *bridge_pending_name(enum bridge_pending_kind kind);
/* The filter lists of a held Start or RelayRecord. */
void bridge_pending_filter(const struct bridge_pending *p, struct caret_filter_lists *out);

#endif
