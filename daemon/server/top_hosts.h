/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `top --all-hosts` (proto/caret_ctl_top.h): this host's rows named with
 * its host, and the latest summary of every other host the bridge heard
 * (daemon/bridge/bridge_top.h) appended, each host listed with its counts;
 * and what this host tells a peer that asks: every process's rows, as the
 * Status it already publishes names every process (proto/caret_msgs.idl).
 */
#ifndef CARETD_TOP_HOSTS_H
#define CARETD_TOP_HOSTS_H

#include "daemon/bridge/bridge.h"
#include "proto/caret_ctl_top.h"

/* Asks the other hosts again (waking a bridge asleep) and adds their rows
 * to res (strings pointing into b's summaries: encode before the next
 * tick); 0 or -ENOMEM. b NULL: this host only. */
int top_hosts_add(struct bridge *b, int64_t lease_ms, int64_t now_ns, struct caret_ctl_top *res);

/* The bridge's source of this host's summaries (struct top of top.h). */
extern const struct bridge_top_source top_hosts_source;
#define TOP_HOSTS_SOURCE(top) \
	((struct bridge_top_source){ top_hosts_source.rows, top_hosts_source.free_rows, (top) })

#endif
