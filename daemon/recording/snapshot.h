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
 * The table of flight recorders (mode, ring, snapshots written) is this
 * module's, in memory: after a caretd restart, the recordings the view
 * took over are asked of LTTng (snapshot_mode) and put back
 * (daemon/recording/snapshot_trigger.c, with their triggers), with the count of
 * snapshots written, which the recordings' file keeps
 * (lttng_view_rec.snapshots, saved after every snapshot).
 */
#ifndef CARETD_SNAPSHOT_H
#define CARETD_SNAPSHOT_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/lttng/lttng.h"
#include "daemon/lttng/lttng_view.h"
#include "daemon/agents/registry.h"
#include "daemon/agents/wait.h"

/* Bytes one replay pass of every live agent's cache writes (the
 * scheduler's estimate per record, saturating). */
uint64_t snapshot_pass_bytes(const struct registry *r);
/* Whether a pass of need bytes fits a ring of that geometry (a quarter
 * more for runtime events written during the pass). */
bool snapshot_fits(uint64_t need, uint64_t subbuf_size, uint32_t subbuf_count);
/* The least ring size (bytes per CPU, as --snapshot-size takes it) that
 * fits a pass of need bytes. */
uint64_t snapshot_min_size(uint64_t need);

/* `record` of a flight recorder of about size bytes per CPU: cfg gets the
 * snapshot mode and the ring's geometry; -ENOSPC with why in err when the
 * caches known now would not fit in it. */
int snapshot_plan(const struct registry *r, uint64_t size, struct caret_lttng_cfg *cfg,
		  char *err, size_t errlen);
/* A ring of ring_bytes per CPU for uid, against the host's memory and
 * the flight recorders of v already running (daemon/recording/snapshot_mem.h): 0,
 * or -ENOMEM with the least (least_size: one pass fits) and largest sizes
 * allowed in err. */
int snapshot_admit_memory(const struct registry *r, struct lttng_view *v, uid_t uid,
			  uint64_t ring_bytes, uint64_t least_size, char *err, size_t errlen);
/* The recording session is a flight recorder (its geometry, 0: unknown). */
void snapshot_added(const char *session, const char *path, uint64_t subbuf_size,
		    uint32_t subbuf_count);

/* A flight recorder taken over after a restart: its count so far. */
void snapshot_set_written(const char *session, uint64_t written);

struct snapshot_info {
	bool known; /* a flight recorder of this caretd's table */
	uint64_t subbuf_size;
	uint32_t subbuf_count;
	uint64_t written;
	char last[4096];
	char path[4096];
};
/* What the table knows of session (info->known false: nothing). */
void snapshot_info(const char *session, struct snapshot_info *info);
/* The session ended (or was stopped): it goes from the table. */
void snapshot_forget(const char *session);
/* Whether a snapshot of session is being taken. */
bool snapshot_busy(const char *session);

/*
 * The long-running part of `snapshot`: a new pass for session now, then
 * (from wait_poll) progress lines until every live agent covered it or
 * timeout_ms passed, then the snapshot into dir and its result. v and r
 * must outlive the request (the daemon's). NULL when out of memory.
 */
struct wait_req *snapshot_begin(struct lttng_view *v, struct registry *r, const char *session,
				const char *dir, int64_t timeout_ms, int64_t now_ns);

/* "recordings" of a status result: every recording caretd made, with its
 * mode (rotating: `rotating` true for it). 0 or -ENOMEM. */
int snapshot_add_status(cJSON *o, const struct lttng_view *v,
			bool (*rotating)(const char *session));
/* A stop result's snapshot fields for session (nothing when it is not a
 * flight recorder). 0 or -ENOMEM. */
int snapshot_add_stop(cJSON *o, const char *session);

#endif
