/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Flight-recorder recordings (issue 23, item 3; protocol:
 * proto/caret_ctl_snapshot.h). The recording is an LTTng snapshot-mode
 * session whose channel overwrites its oldest packets: the runtime events
 * of the last moments stay in memory, nothing is written. The
 * initialization records every process emitted long ago were overwritten
 * with the rest, so a snapshot taken as is would not load in CARET.
 *
 * The design: a replay just before the snapshot. On `snapshot`, the
 * session gets a new serial in the LTTng view (as a rotation's new chunk
 * does: daemon/recording/rotation_verdict.c), so the scheduler makes every live
 * agent replay its whole cache into the ring again while it stays in
 * RECORD (registry.h extra_pass: runtime events keep flowing); the
 * request polls until every live agent finished that pass (a bounded wait,
 * with progress lines), then LTTng writes the rings
 * (lttng_snapshot_record): the newest packets, which hold the pass and
 * what ran during it. For that, the pass must fit in the ring: overwrite
 * mode would eat its start. `record` refuses a ring whose room
 * (caret_ctl_snapshot_room) is smaller than what one pass of every cache
 * known then takes, with a quarter more for the runtime events written
 * meanwhile, and names the least size that fits; each snapshot checks
 * again (processes may have come since) and says when it may be
 * incomplete. Another session enabling ros2_caret events gets that pass
 * too (LTTng cannot target one session): duplicates, which the analyzer
 * ignores.
 *
 * A flight recorder's ring and the snapshots written are its recording's
 * (struct recording's ring), kept across a restart with it (saved after
 * every snapshot); snapshot_feature is its part of a recording's
 * features (daemon/recording/features.h). A recording of a caretd before
 * the ring was saved is asked of LTTng (snapshot_mode) after a restart
 * (daemon/recording/snapshot_trigger.c).
 */
#ifndef CARETD_SNAPSHOT_H
#define CARETD_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/lttng/session.h"
#include "daemon/agents/registry.h"
#include "daemon/agents/wait.h"
#include "daemon/recording/recordings.h"

/* Bytes one replay pass of every live agent's cache writes (the
 * scheduler's estimate per record, saturating). */
uint64_t snapshot_pass_bytes(const struct registry *r);
/* total with the share of one agent whose status is st (saturating):
 * snapshot_pass_bytes's sum, for whoever reads each agent's status
 * already. */
uint64_t snapshot_pass_add(uint64_t total, const struct caret_seg_status *st);
/* Whether a pass of need bytes fits a ring of that geometry (a quarter
 * more for runtime events written during the pass). */
bool snapshot_fits(uint64_t need, uint64_t subbuf_size, uint32_t subbuf_count);
/* The least ring size (bytes per CPU, as --snapshot-size takes it) that
 * fits a pass of need bytes. */
uint64_t snapshot_min_size(uint64_t need);

/* `record` of a flight recorder of about size bytes per CPU: cfg gets the
 * snapshot mode and the ring's geometry; -ENOSPC with why in err when a
 * pass of need bytes (snapshot_pass_bytes) would not fit in it. */
int snapshot_plan(uint64_t need, uint64_t size, struct caret_lttng_cfg *cfg, char *err,
		  size_t errlen);
/* A ring of ring_bytes per CPU for uid, against the host's memory and
 * the flight recorders of t already running (daemon/recording/snapshot_mem.h): 0,
 * or -ENOMEM with the least (least_size: one pass fits) and largest sizes
 * allowed in err. */
int snapshot_admit_memory(const struct registry *r, struct recordings *t, uid_t uid,
			  uint64_t ring_bytes, uint64_t least_size, char *err, size_t errlen);

/* `record` of a flight recorder, planned and admitted at once for a pass
 * of need bytes (snapshot_pass_bytes): its ring (snapshot_plan) and the
 * memory it takes (snapshot_admit_memory, the least size being the one a
 * pass fits in): 0, or the first refusal. */
int snapshot_admit(const struct registry *r, struct recordings *t, uid_t uid, uint64_t need,
		   uint64_t size, struct caret_lttng_cfg *cfg, char *err, size_t errlen);

struct snapshot_info {
	bool known; /* a flight recorder of this caretd's table */
	uint64_t subbuf_size;
	uint32_t subbuf_count;
	uint64_t written;
	char last[4096];
	char path[4096];
};
/* What t knows of the flight recorder session (info->known false: none). */
void snapshot_info(struct recordings *t, const char *session, struct snapshot_info *info);
/* Whether a snapshot of session is being taken. */
bool snapshot_busy(struct recordings *t, const char *session);

/*
 * The long-running part of `snapshot`: a new pass for the flight recorder
 * rec now, then (from wait_poll) progress lines until every live agent
 * covered it or timeout_ms passed, then the snapshot into dir and its
 * result. t and r must outlive the request (the daemon's). NULL when out
 * of memory (or rec is not active).
 */
struct wait_req *snapshot_begin(struct recordings *t, struct registry *r,
				struct recording *rec, const char *dir, int64_t timeout_ms,
				int64_t now_ns);

extern const struct recording_feature_ops snapshot_feature;

#endif
