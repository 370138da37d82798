/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Flight-recorder recordings (issue 23, item 3): `record`'s snapshot
 * field, the "snapshot" request, and their limits, checked by caretctl (a
 * usage error) and caretd (any client may send anything). Every name here
 * is part of the control protocol.
 *
 *  "record" {..., "snapshot_size"? bytes}
 *     An LTTng snapshot-mode session: its channel in overwrite mode, a
 *     ring of about snapshot_size bytes per CPU (rounded down to a power
 *     of two: caret_ctl_snapshot_geometry), nothing written to disk until
 *     a "snapshot". Not with "url", a rotation, "subbuf_size" or
 *     "subbuf_count".
 *  "record" {..., "snapshot_on"? event name, "snapshot_filter"? expression}
 *     (only with snapshot_size): an LTTng trigger on that user-space event
 *     (a full name, no wildcard; the filter in LTTng's filter syntax)
 *     whose notifications make caretd take a snapshot as "snapshot" does
 *     (pass first), into the trace directory; firings while one is being
 *     taken, or within CARET_CTL_SNAPSHOT_HOLDOFF_MS of the last, are
 *     counted and coalesced.
 *  "snapshot" {"session"?, "output"? (absolute directory), "timeout_ms"?}
 *     Every live process replays its init records into the ring (a new
 *     pass, as a rotation's chunk gets), caretd waits until each one
 *     finished it (progress lines as "wait" sends, at most timeout_ms),
 *     then records a snapshot into the recording's trace directory, or
 *     into output (created and checked with the requester's rights).
 *     session: default the requester's latest recording.
 *     → result {"session", "path" (the snapshot's directory), "complete":
 *               bool, "why"? (when not complete), "snapshots" (written by
 *               this recording so far), "pass_ms"}
 *  "snapshot" {..., "all_hosts": true}
 *     Also every other host's flight recorder of the same name, over the
 *     DDS bridge (daemon/bridge/bridge.h; output is this host's only).
 *     → result {"session", "complete" (every host's), "hosts": [{"host",
 *               "self", "bridge_version"? (others), "path", "complete",
 *               "why"?} or {"host", "self", "bridge_version"?, "error",
 *               "errno"}, ...] (this host first), and this host's "path",
 *               "snapshots", "pass_ms" when it wrote one}
 *  "status" and "list" results: "recordings": [{"session", "path", "mode": "plain" |
 *     "rotating" | "snapshot", "ring_size"? (snapshot: bytes per CPU),
 *     "snapshots"? (written), "last_snapshot"? (its directory),
 *     "snapshot_on"?, "snapshot_filter"?, "triggered"? (firings seen),
 *     "coalesced"? (firings that took no snapshot of their own),
 *     "paused"? true (caretctl pause: its tracing stopped; proto/caret_ctl.h)}]
 */
#ifndef CARET_CTL_SNAPSHOT_H
#define CARET_CTL_SNAPSHOT_H

#include <stdint.h>
#include <stdio.h>

#include "proto/caret_ctl_rotation.h"

#define CARET_CTL_CMD_SNAPSHOT "snapshot"
#define CARET_CTL_K_SNAPSHOT_SIZE "snapshot_size"
#define CARET_CTL_K_OUTPUT "output"
#define CARET_CTL_K_COMPLETE "complete"
#define CARET_CTL_K_WHY "why"
#define CARET_CTL_K_SNAPSHOTS "snapshots"
#define CARET_CTL_K_PASS_MS "pass_ms"
#define CARET_CTL_K_RECORDINGS "recordings"
#define CARET_CTL_K_MODE "mode"
#define CARET_CTL_K_RING_SIZE "ring_size"
#define CARET_CTL_K_LAST_SNAPSHOT "last_snapshot"
#define CARET_CTL_K_SNAPSHOT_ON "snapshot_on"
#define CARET_CTL_K_SNAPSHOT_FILTER "snapshot_filter"
#define CARET_CTL_K_TRIGGERED "triggered"
#define CARET_CTL_K_COALESCED "coalesced"

#define CARET_CTL_MODE_PLAIN "plain"
#define CARET_CTL_MODE_ROTATING "rotating"
#define CARET_CTL_MODE_SNAPSHOT "snapshot"

/* The ring per CPU: SNAPSHOT_SUBBUFS sub-buffers of at least 8 KiB, at
 * most 1 GiB each (CARET_CTL_SUBBUF_SIZE_MAX). */
#define CARET_CTL_SNAPSHOT_SUBBUFS 8u
#define CARET_CTL_SNAPSHOT_SIZE_MIN (64ull << 10)
#define CARET_CTL_SNAPSHOT_SIZE_MAX (8ull << 30)
#define CARET_CTL_SNAPSHOT_SIZE_DEFAULT (32ull << 20)

static inline int caret_ctl_check_snapshot_size(uint64_t v, char *why, size_t len)
{
	return caret_ctl_check_range(v, CARET_CTL_SNAPSHOT_SIZE_MIN, CARET_CTL_SNAPSHOT_SIZE_MAX,
				     "bytes", why, len);
}

/* A trigger's event: a full provider:event name (LTTng's symbol length),
 * printable, no blank and no wildcard (one event, not every one); its
 * filter: printable, at most this long. */
#define CARET_CTL_SNAPSHOT_ON_MAX 255
#define CARET_CTL_SNAPSHOT_FILTER_MAX 1024
/* A trigger takes at most one snapshot in this long. */
#define CARET_CTL_SNAPSHOT_HOLDOFF_MS 1000

static inline int caret_ctl_check_snapshot_on(const char *s, char *why, size_t len)
{
	size_t n = 0;
	int colon = 0;
	for (const char *p = s; *p; p++, n++) {
		if (*p == ':')
			colon++;
		if (*p <= ' ' || *p > '~' || *p == '*' || *p == '"' || *p == '\\') {
			if (why && len)
				snprintf(why, len, "must be one event's full name (provider:event), "
					 "without blanks, quotes or wildcards");
			return -22;
		}
	}
	if (n == 0 || n > CARET_CTL_SNAPSHOT_ON_MAX || colon != 1 || s[0] == ':' ||
	    s[n - 1] == ':') {
		if (why && len)
			snprintf(why, len, "must be provider:event, 3 to %d characters",
				 CARET_CTL_SNAPSHOT_ON_MAX);
		return -22;
	}
	return 0;
}

static inline int caret_ctl_check_snapshot_filter(const char *s, char *why, size_t len)
{
	size_t n = 0;
	for (const char *p = s; *p; p++, n++)
		if ((unsigned char)*p < ' ' || *p == 0x7f) {
			if (why && len)
				snprintf(why, len, "must be printable");
			return -22;
		}
	if (n == 0 || n > CARET_CTL_SNAPSHOT_FILTER_MAX) {
		if (why && len)
			snprintf(why, len, "must be 1 to %d characters",
				 CARET_CTL_SNAPSHOT_FILTER_MAX);
		return -22;
	}
	return 0;
}

/* The sub-buffers of a ring of about size bytes per CPU (size in range):
 * CARET_CTL_SNAPSHOT_SUBBUFS of the largest power of two that fits. */
static inline void caret_ctl_snapshot_geometry(uint64_t size, uint64_t *subbuf_size,
					       uint32_t *subbuf_count)
{
	uint64_t per = size / CARET_CTL_SNAPSHOT_SUBBUFS, p = 1;
	while (p * 2 <= per)
		p *= 2;
	*subbuf_size = p;
	*subbuf_count = CARET_CTL_SNAPSHOT_SUBBUFS;
}

/* What a replay pass may fill of a ring without the overwrite mode
 * eating its start: every sub-buffer but the one being written. */
static inline uint64_t caret_ctl_snapshot_room(uint64_t subbuf_size, uint32_t subbuf_count)
{
	return subbuf_count > 1 ? subbuf_size * (subbuf_count - 1) : 0;
}

#endif
