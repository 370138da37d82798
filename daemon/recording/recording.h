/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A recording: what one `caretctl record` made, described and owned in one
 * place. Who asked (their credentials), where the trace goes (and which
 * directory that is), the channel's layout, how its replays are paced, its
 * node/topic filter, whether it is armed and by whom, and the state of
 * each feature it uses: rotation, a flight recorder's ring and snapshots,
 * a snapshot trigger, the simulation-clock helper. Each lives in its
 * recording, in the recordings table (daemon/recording/recordings.h),
 * never in a table of its own keyed by the session's name.
 *
 * The features plug in through struct recording_feature_ops, listed once
 * (daemon/recording/features.c): `record` begins each in order and undoes
 * what began in reverse on a failure; `go` starts each of an armed
 * recording; `stop` quiesces each, stops the session, ends each in
 * reverse (daemon/server/cmd_stop.c); the table saves each with its
 * recording after every change and restores it at start-up.
 */
#ifndef CARETD_RECORDING_H
#define CARETD_RECORDING_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "daemon/lttng/lttng_view.h"
#include "daemon/recording/rotation_types.h"
#include "proto/caret_ctl_recordings.h"
#include "proto/caret_ctl_snapshot.h"
#include "shm/caret_shm.h"

struct wait_req;
struct recordings;

/* A flight recorder (`record --snapshot-size`): its ring is the channel's
 * sub-buffers (struct recording's geometry), overwritten in a loop. */
struct recording_ring {
	bool on;
	bool busy;        /* a snapshot is being taken (daemon/recording/snapshot.c) */
	uint64_t written; /* snapshots written: snapshot-N names go on from it */
	char last[4096];  /* the last one's path */
};

/* A flight recorder's trigger (`--snapshot-on EVENT [--snapshot-filter
 * EXPR]`, daemon/recording/snapshot_trigger.h). */
struct recording_trigger {
	bool wanted; /* asked for: event and filter hold it */
	bool on;     /* registered in the session daemon */
	char event[CARET_CTL_SNAPSHOT_ON_MAX + 1];
	char filter[CARET_CTL_SNAPSHOT_FILTER_MAX + 1];
	bool subscribed;
	uint64_t fired, coalesced;
	int64_t last_ns;      /* when its last snapshot began */
	struct wait_req *job; /* the snapshot being taken */
};

/* `record -c`: its caret-simclock helper (daemon/recording/simclock.h). */
struct recording_clock {
	bool wanted;
	uint32_t domain;  /* the ROS domain it reads /clock on */
	bool on;          /* begun: a helper runs, or ran, for it */
	bool respawn;     /* restored after a restart: its helper starts again */
	pid_t pid;        /* 0: not running */
	int64_t term_ns;  /* CLOCK_MONOTONIC of its SIGTERM; 0: not told */
};

struct recording {
	bool used;
	uint64_t seq; /* creation order (a slot used again gets a new one) */
	char name[CARET_LTTNG_NAME_MAX];
	char path[4096];
	/* path's directory as created (0, 0: not known) */
	uint64_t dir_dev, dir_ino;
	/* directories above path caretd created for it too (its parent
	 * first; not kept across a restart): an armed recording stopped
	 * before Enter removes them while empty (issue 22 D8) */
	int parents_made;
	bool dir_made; /* caretd created it for this recording (not kept
			* across a restart) */
	uid_t uid; /* the requester's (SO_PEERCRED): the trace is theirs */
	gid_t gid;
	/* the channel's layout: overwrite (a flight recorder: ring.on) or
	 * discard, its sub-buffers' size and count (0: not known) */
	uint64_t subbuf_size;
	uint32_t subbuf_count;
	int pacing;         /* -1: the daemon's default, else enum pacing */
	uint32_t frequency; /* 0: the daemon's default */
	/* CARET's four lists, encoded as in a segment (epoch unused; every
	 * list empty: none), which every replay pass for it alone carries */
	struct caret_shm_filter filter;
	bool all_hosts; /* --all-hosts: its Start (at `go` when armed) and its End go to every host */
	bool armed;     /* started with its channel disabled, until `go` */
	/* armed with its channel enabled (caret_lttng_cfg.armed_open): `go`
	 * sends LTTng nothing; held (disabled) before any process may leave
	 * WAIT for another session (recordings_hold_armed) */
	bool armed_open;
	/* the caretctl that armed it (0: none known): if it dies before `go`
	 * (SIGKILL while waiting for Enter), no one will ever start or stop it */
	pid_t armer_pid;
	uint64_t armer_start; /* its start time: the pid is not reused */
	int64_t armed_ns;     /* CLOCK_MONOTONIC when it was armed */
	/* `pause` stopped its tracing (daemon/server/cmd_pause.c): not active,
	 * kept while its session exists; `resume` makes it active again, as a
	 * new session (a new serial). Not kept across a restart. */
	bool paused;
	int64_t paused_ns; /* CLOCK_MONOTONIC of the pause */
	/* its session's serial and copies when paused (dups_resume) */
	uint32_t paused_serial;
	uint64_t paused_dups;
	bool paused_dups_bound;
	/* the features' state */
	struct rotation rot;
	struct recording_ring ring;
	struct recording_trigger trig;
	struct recording_clock clock;
	/* what the view's entry of its session shows the agents' scheduling
	 * (recordings.c publishes it) */
	struct lttng_view_pub pub;
};

/* What a recording's end leaves for the stop's reply: rep, as the reply
 * layer encodes it (proto/caret_ctl_recordings.h), its strings pointing
 * into this struct and into rotation. recording_end_free
 * (daemon/recording/features.h) frees what it holds. */
struct recording_end {
	struct caret_ctl_recordings rep;
	int err; /* -ENOMEM: a part of rep could not be made, the reply fails */
	/* a rotating recording's chunks when it stopped (NULL: it did not
	 * rotate), which rep.rotation names (daemon/recording/rotation_report.h) */
	struct rotation_report *rotation;
	bool ring; /* a flight recorder: rep.self holds its ring and snapshots */
	char last[4096]; /* its last snapshot's path, rep.self's */
};

/*
 * A feature of recordings. Every function may be NULL (nothing to do);
 * each looks at its own part of the recording and does nothing for a
 * recording that does not use it.
 */
struct recording_feature_ops {
	const char *name; /* also its key in the recordings' file */
	/* `record`, after the session exists and the recording is in the
	 * table: 0, or -errno with why in err (the recording is not
	 * started: what began before it is undone) */
	int (*begin)(struct recordings *t, struct recording *r, char *err, size_t errlen);
	/* `go` of an armed recording: it records already, so a failure is
	 * logged by the caller and the recording goes on without it */
	int (*go)(struct recordings *t, struct recording *r, char *err, size_t errlen);
	/* just before the session stops: 0, or -EAGAIN with why in err
	 * when the stop must be asked again (nothing stopped yet) */
	int (*quiesce)(struct recordings *t, struct recording *r, int64_t now_ns, char *err,
		       size_t errlen);
	/* after the session stopped (out: what the stop replies), or went
	 * without a stop of caretd's (out NULL: reaped, destroyed outside
	 * caretd, refused): what the feature holds goes */
	void (*end)(struct recordings *t, struct recording *r, struct recording_end *out);
	/* its fields on the recording's entry of a status or list result,
	 * and its own lists in result (result->rotations has room for one
	 * per recording; status only: have_rotations). Strings may point
	 * into r: the result is encoded before r changes. 0 or -ENOMEM */
	int (*status)(const struct recording *r, struct caret_ctl_recording_status *entry,
		      struct caret_ctl_recordings *result);
	/* its part of the recording's line in the recordings' file: one
	 * token without spaces, or nothing when it is not used */
	void (*save)(const struct recording *r, FILE *f);
	/* that token back, at start-up: 0, or -EINVAL (the recording is
	 * not taken over) */
	int (*restore)(struct recordings *t, struct recording *r, const char *token);
};

static inline bool recording_filtered(const struct recording *r)
{
	for (int k = 0; k < CARET_FILTER_LISTS; k++)
		if (r->filter.len[k])
			return true;
	return false;
}

#endif
