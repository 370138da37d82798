/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CycloneDDS's own log lines (a malformed datagram, a bad locator, ...)
 * into caretd's log, through the bridge's one limiter of the lines other
 * hosts can cause (bridge_rlog_ok): CycloneDDS writes them to stderr by
 * itself, unlimited, at every --log-level, and a peer sending RTPS-headed
 * junk gets one line of hex per datagram (H4: 195,972 lines in 4 s).
 * Its tracing (Tracing/Verbosity of CYCLONEDDS_URI, off by default) stays
 * where that configuration sends it: the administrator's choice.
 */
#ifndef CARETD_BRIDGE_DDSLOG_H
#define CARETD_BRIDGE_DDSLOG_H

#include "daemon/bridge/bridge.h"

/* Once libddsc is loaded, before its domain is created: its log goes to
 * caretd's, within b's limiter. A fatal line always goes (CycloneDDS
 * aborts right after it). */
void bridge_ddslog_attach(struct bridge *b);
/* The bridge is gone: CycloneDDS's last lines (its shutdown) go to
 * caretd's log without the limiter, no peer reaching it any more. */
void bridge_ddslog_detach(void);

#endif
