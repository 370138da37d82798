/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caretd's only door to LTTng: creates, starts, stops and inspects tracing
 * sessions through liblttng-ctl (never the `lttng` CLI).
 *
 * Conventions: functions return >= 0 on success and a negative errno on
 * failure; those taking (err, errlen) then write one human-readable line
 * there (err may be NULL). Mapping of LTTng errors:
 *   no session daemon / cannot connect    -ECONNREFUSED
 *   session exists                         -EEXIST
 *   no such session                        -ENOENT
 *   bad name, path or buffer geometry      -EINVAL
 *   permission denied                      -EPERM
 *   anything else                          -EIO (message has lttng_strerror())
 *
 * liblttng-ctl keeps process-global connection state and is not safe to
 * call from several threads at once: callers serialise all calls into this
 * module. A session daemon dying mid-call raises SIGPIPE in the caller,
 * which must ignore it; the call then fails with -ECONNREFUSED or -EIO.
 *
 * Session names: 1..254 bytes (LTTng's own limit, below
 * CARET_LTTNG_NAME_MAX), no '/', no control characters, not "." or ".."
 * (the name becomes a directory under the output path).
 */
#ifndef CARET_DAEMON_LTTNG_H
#define CARET_DAEMON_LTTNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/lttng/creds.h"

#define CARET_LTTNG_NAME_MAX 256

struct caret_ctl_sel;
struct caret_lttng_cfg {
	/* NULL/"" => "caret-YYYYMMDD-HHMMSS" (local time). */
	const char *session;
	/*
	 * Absolute parent directory of the trace; the trace goes to
	 * path/<session>. Created (mkdir -p, 0755) if missing. Relative paths
	 * are refused: the daemon's working directory is not the client's.
	 */
	const char *path;
	/*
	 * Network output instead of path (as `lttng create --set-url`):
	 * net://HOST[:CTRL[:DATA]], net6://..., or tcp://... for the control
	 * and data URL at once; the trace lands under lttng-relayd's output
	 * directory on HOST, in <hostname>/<session>-<date>. NULL for local.
	 */
	const char *url;
	bool light;            /* light event list, see caret_lttng_events() */
	bool light_pre_iron;   /* every known process is pre-Iron: no rcl_publish */
	/* path/<session> may exist and hold traces: the new one goes into
	 * path/<session>/append-N (see caret_lttng_record()). */
	bool append;
	/* Armed: started with its channel disabled, so that it records
	 * nothing until caret_lttng_go() (see there). */
	bool armed;
	/* Armed open (with armed): started with its channel enabled, so that
	 * Enter sends no command to any application. What keeps it empty
	 * until Enter is the agents' gate: every process with the agent is in
	 * WAIT and forwards nothing, and caretd moves none out of WAIT while
	 * the recording is armed open (caret_lttng_hold() closes it first;
	 * recordings_hold_armed()). A process without the agent records into
	 * it from its start. */
	bool armed_open;
	/* A flight recorder: a snapshot-mode session (its default snapshot
	 * output is the trace directory), its channel in overwrite mode;
	 * nothing is written until caret_lttng_snapshot(). */
	bool snapshot;
	uint64_t subbuf_size;  /* bytes, power of two; 0 => default */
	uint32_t subbuf_count; /* power of two; 0 => default */
	/*
	 * The requester (NULL: caretd itself). Local output: the directories
	 * of path are created and judged with their rights in a helper
	 * process (creds_run_as()), never with root's, the trace directory
	 * must be theirs, and the session is created with them as its owner:
	 * lttng-sessiond and its consumer create every directory and file of
	 * the trace as that uid (run-as), so a path swapped for a symlink
	 * mid-way leads only where the requester could write anyway.
	 */
	const struct creds_id *as;
	/* if set: the (st_dev, st_ino) of the trace directory, as created */
	/* parents_made: how many directories above it (its parent first)
	 * were created for it too */
	struct caret_lttng_dir_id { uint64_t dev, ino; bool made; int parents_made; } *dir_out;
	/* ros2 trace's -u, --context, -k, --syscall (proto/caret_ctl_sel.h,
	 * lib/lttng/lttng_sel.h); NULL: CARET's lists only */
	const struct caret_ctl_sel *sel;
};

struct caret_ctl_plan;
/*
 * The session caret_lttng_record() makes of cfg, nothing made: its
 * channels (mode, buffers, sub-buffer geometry, output, whether enabled),
 * each channel's event rules and contexts, the session's mode
 * (proto/caret_ctl_plan.h; the recording's own settings are left 0 for
 * the caller). caret_lttng_record() creates the session from it. Strings
 * point into cfg and static lists. 0, or -EINVAL (a geometry out of
 * proto/caret_ctl_limits.h's range) / -E2BIG with err.
 */
int caret_lttng_layout(const struct caret_lttng_cfg *cfg, struct caret_ctl_plan *p, char *err,
		       size_t errlen);

struct caret_lttng_chan_stats {
	char name[CARET_LTTNG_NAME_MAX];
	uint64_t discarded, lost_packets; /* 0 when not known */
	/* false when LTTng reported >= 2^63 (seen with per-UID buffers and
	 * several writers) or could not tell */
	bool discarded_known, lost_known;
};

/* 0 if the session daemon answers a request, else -errno + message. */
int caret_lttng_ping(char *err, size_t errlen);

/*
 * Copies the names of sessions that are currently tracing (started) into
 * names[0..max-1]; returns how many were copied (at most max) or -errno.
 */
int caret_lttng_active_sessions(char (*names)[CARET_LTTNG_NAME_MAX], int max,
				char *err, size_t errlen);

/* What an active session's UST event rules record (enum caret_lttng_rule). */
enum caret_lttng_rule {
	/* an enabled rule of an enabled UST channel matches
	 * ros2_caret:caret_init (and no exclusion removes it) */
	CARET_LTTNG_RULE_CARET = 1u << 0,
	/* the same for ros2:rcl_node_init, a tracetools init event */
	CARET_LTTNG_RULE_ROS2_INIT = 1u << 1,
	/* the same for ros2:callback_start, a tracetools runtime event */
	CARET_LTTNG_RULE_ROS2_RUNTIME = 1u << 2,
};

/*
 * The enum caret_lttng_rule bits of a session's UST event rules, from
 * lttng_list_channels/lttng_list_events (names are LTTng globs: '*'
 * matches any run of characters). -ENOENT if no such session.
 */
int caret_lttng_session_rules(const char *session, unsigned *rules, char *err, size_t errlen);

/*
 * The session name `record` uses: `wanted` if it is a valid name, else
 * (NULL or "") "caret-YYYYMMDD-HHMMSS" in local time, with "-2", "-3"...
 * when a session or a non-empty directory parent/<name> has it (parent
 * NULL: a network output, sessions only). 0 or -errno.
 */
int caret_lttng_session_name(const char *wanted, const char *parent, char *out, size_t len,
			     char *err, size_t errlen);

/*
 * Creates a session (local output to cfg->path/<name>, or cfg->url), with
 * the channels, contexts and event rules caret_lttng_layout() describes
 * for cfg and nothing else (a UST channel CARET_CTL_DEFAULT_CHANNEL with
 * per-UID buffers, discard mode or a flight recorder's overwrite, cfg's
 * sub-buffer geometry, the vpid, vtid and procname contexts and the
 * selection's; a kernel channel for -k), and starts tracing.
 * On failure everything created is destroyed and the message names the
 * failing step and lttng_strerror(). -EEXIST if a session with that name
 * exists, or if path/<name> exists and is not empty (a second trace in the
 * same directory would corrupt both) unless cfg->append, which puts the
 * trace into the first free path/<name>/append-N; path_out says where. Writes the session name to name_out
 * and the trace directory to path_out (-ENAMETOOLONG, before anything is
 * created, if they do not fit).
 */
int caret_lttng_record(const struct caret_lttng_cfg *cfg, char *name_out,
		       size_t name_len, char *path_out, size_t path_len,
		       char *err, size_t errlen);

/*
 * Enables the channel of a session caret_lttng_record() armed: what
 * `caretctl record` does at Enter. The costly part of a start (the session
 * daemon setting up every registered application: session, channel,
 * streams, events, contexts, about 70 commands per application, one
 * application after the other) was paid when it was armed; this is one
 * command per application. lttng-ust enables an application's
 * tracepoints before its channel (lttng_channel_enable(): the enablers'
 * sync, then chan->enabled), so nothing may replay into it before this
 * returns.
 */
int caret_lttng_go(const char *session, char *err, size_t errlen);

/*
 * Disables the channel of a session armed open: from then on it is armed
 * as caret_lttng_go() expects (one command per application, returning once
 * every application has the channel disabled). A channel already disabled
 * is no error.
 */
int caret_lttng_hold(const char *session, char *err, size_t errlen);

/*
 * Stops the session (waiting until its data is flushed), reads the
 * discarded-event and lost-packet counts of each of its UST channels, then
 * destroys it. Fills out[0..min(n,max)-1] and returns n, the number of UST
 * channels (may exceed max), or -errno. -ENOENT if no such session.
 * On error the session has not been destroyed (it may have been stopped),
 * so calling again retries. Writes the session's output path to path_out
 * ("" if not known or too long for path_len).
 */
int caret_lttng_stop(const char *session, struct caret_lttng_chan_stats *out,
		     int max, char *path_out, size_t path_len, char *err,
		     size_t errlen);

/*
 * `pause` (resume false): stops the session's tracing without waiting for
 * its data (lttng_stop_tracing_no_wait; the consumer flushes it
 * meanwhile), the session kept; `resume`: starts it again
 * (lttng_start_tracing). 0, -ENOENT (no such session), -EALREADY (it was
 * stopped, or tracing, already), or -errno, with err.
 */
int caret_lttng_pause(const char *session, bool resume, char *err, size_t errlen);

/* Whether the session exists, tracing or not: 1, 0, or -errno with err. */
int caret_lttng_session_exists(const char *session, char *err, size_t errlen);

/*
 * Whether session is a snapshot-mode session: 1, 0, or -errno (-ENOENT:
 * no such session).
 */
int caret_lttng_snapshot_mode(const char *session, char *err, size_t errlen);

/*
 * Records a snapshot of session (lttng_snapshot_record, every sub-buffer
 * of its rings) into dir, as a trace directory LTTng names
 * <name>-<YYYYMMDD-HHMMSS>-<N> (lttng-sessiond's consumer writes it as the
 * session's owner); the newest such directory of dir afterwards, one of
 * the owner's, goes to path_out, listed as as (the session's owner; NULL:
 * caretd itself), never as root: dir is a path they named. Waits until it
 * is written. 0 or -errno.
 */
int caret_lttng_snapshot(const char *session, const char *dir, const char *name,
			 const struct creds_id *as, char *path_out, size_t path_len, char *err,
			 size_t errlen);

/*
 * The UST event rules `record` enables, NULL-terminated, static.
 *
 * full (CARET's `ros2 caret record` default):
 *   ros2:*  ros2_caret:*
 *   (the agent already silences what CARET does not use). Wildcards on
 *   purpose: LTTng's session start cost grows with the number of event
 *   rules times registered processes, and a list of the 14 rules the agent
 *   needs started slower with 100 processes than these two.
 *
 * light (`ros2 caret record --light`): CARET's own rule list (tier4/ros2caret
 * record.py), ros2:rcl_publish included when `rcl_publish` (CARET adds it
 * on Iron and later; caretd passes false only when every process it knows
 * reports a pre-Iron distribution). Not recorded: ros2_caret:dds_write,
 * ros2:rcl_publish before Iron, the lifecycle transitions.
 */
const char *const *caret_lttng_events(bool light, bool rcl_publish);

/*
 * Copies the output path of an existing session into path_out: 0, -ENOENT
 * if there is no such session, -ENAMETOOLONG if path_len is too small,
 * other -errno (e.g. -ECONNREFUSED) if the daemon cannot be asked.
 */
int caret_lttng_session_path(const char *session, char *path_out,
			     size_t path_len);

/*
 * Whether the session daemon counts session as as's (its owner, or as is
 * root), by asking it with as as its client: 1, 0, or -errno. Never from
 * the session's output path, whose parents its writers may rename.
 */
int caret_lttng_session_theirs(const char *session, const struct creds_id *as);

/*
 * The calls caretd's commands and its view of LTTng make, as a table: the
 * real one calls the functions above (liblttng-ctl); the unit tests give a
 * fake that records the calls and answers what a test wants, so that every
 * command, record and stop included, runs without a session daemon.
 */
struct caret_lttng_ops {
	int (*active_sessions)(char (*names)[CARET_LTTNG_NAME_MAX], int max, char *err,
			       size_t errlen);
	int (*session_rules)(const char *session, unsigned *rules, char *err, size_t errlen);
	int (*session_theirs)(const char *session, const struct creds_id *as);
	int (*session_name)(const char *wanted, const char *parent, char *out, size_t len,
			    char *err, size_t errlen);
	int (*record)(const struct caret_lttng_cfg *cfg, char *name_out, size_t name_len,
		      char *path_out, size_t path_len, char *err, size_t errlen);
	int (*go)(const char *session, char *err, size_t errlen);
	int (*hold)(const char *session, char *err, size_t errlen);
	int (*stop)(const char *session, struct caret_lttng_chan_stats *out, int max,
		    char *path_out, size_t path_len, char *err, size_t errlen);
	int (*snapshot_mode)(const char *session, char *err, size_t errlen);
	int (*pause)(const char *session, bool resume, char *err, size_t errlen);
	int (*exists)(const char *session, char *err, size_t errlen);
	int (*snapshot)(const char *session, const char *dir, const char *name,
			const struct creds_id *as, char *path_out, size_t path_len, char *err,
			size_t errlen);
};
extern const struct caret_lttng_ops caret_lttng_ops_real;

#endif
