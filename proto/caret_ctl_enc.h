/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Building control replies (proto/caret_ctl.h): every reply caretd sends
 * is made here, so a field is spelled and typed in one place (requests:
 * proto/caret_ctl_req.h). Constructors return a new cJSON object, NULL when
 * out of memory; the add_* functions return 0 or -ENOMEM.
 */
#ifndef CARET_PROTO_CTL_ENC_H
#define CARET_PROTO_CTL_ENC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* 64-bit counts and nanoseconds as JSON integers, never through a double
 * (cJSON's numbers are doubles: 2^53 and up would be rounded). False when
 * out of memory. */
bool ctl_add_u64(cJSON *o, const char *k, uint64_t v);
bool ctl_add_i64(cJSON *o, const char *k, int64_t v);

/* An empty result envelope, for the typed encoders (caret_ctl_X_encode)
 * to fill. */
cJSON *caret_ctl_enc_result(void);

/* err: an errno, either sign; sent positive. */
cJSON *caret_ctl_enc_error(int err, const char *msg);

struct caret_ctl_progress {
	int recording, total;
	uint64_t records_done, records_total;
};
cJSON *caret_ctl_enc_progress(const struct caret_ctl_progress *p);
/* `record`'s progress while LTTng starts its session: total processes
 * with the agent, none recording yet, for how long (ms) it has started. */
cJSON *caret_ctl_enc_progress_lttng_start(int total, int64_t start_ms);

struct caret_ctl_daemon_info {
	const char *host;
	int pid;
	const char *version, *pacing;
	uint32_t recording_frequency;
	uint64_t replay_bandwidth;
};

struct caret_ctl_lttng_info {
	bool reachable;
	const char *error;             /* NULL when reachable */
	const char *const *active;     /* n_active names */
	int n_active;
	const char *caretd_session;    /* NULL: none */
	const char *caretd_session_path;
};

/* "status" (info and lt given) or "list" (both NULL), with no agent yet. */
cJSON *caret_ctl_enc_agents_result(const struct caret_ctl_daemon_info *info,
				   const struct caret_ctl_lttng_info *lt);

struct caret_ctl_agent {
	int pid;
	const char *procname, *state, *segment;
	const char *reason; /* NULL when the agent records completely */
	uint64_t records, replayed, replay_done, replay_total, dropped;
	const char *nodes; /* n_nodes NUL-terminated strings, back to back */
	int n_nodes;
};
int caret_ctl_add_agent(cJSON *result, const struct caret_ctl_agent *a);

cJSON *caret_ctl_enc_record(const char *session, const char *path);
/* A record result o whose connection holds its recording from now on
 * ("held": true). 0 or -ENOMEM (o unchanged). */
int caret_ctl_enc_record_held(cJSON *o);
/* "pause" and "resume": the recording and whether it is paused now. */
cJSON *caret_ctl_enc_pause(const char *session, const char *path, bool paused);
/* "hold": the recording and whether this answer leaves it held. */
cJSON *caret_ctl_enc_hold(const char *session, bool held);

cJSON *caret_ctl_enc_wait(bool ok, int recording, int total);
int caret_ctl_add_not_recording(cJSON *wait, int pid, const char *procname,
				const char *state, const char *reason);
int caret_ctl_add_exited(cJSON *wait, int pid, const char *procname, const char *state);

struct caret_ctl_channel {
	const char *name;
	uint64_t discarded, lost_packets;
	bool discarded_known, lost_known;
};
/* discarded_total is derived: the sum, or null if any count is unknown.
 * duplicates: replayed records the session got more than once (passes for
 * sessions that started after it). */
cJSON *caret_ctl_enc_stop(const char *session, const char *path,
			  const struct caret_ctl_channel *ch, size_t n, uint64_t duplicates);

/* reason: NULL when accepted. */
cJSON *caret_ctl_enc_accept(bool accepted, const char *reason);

/* Adds "broadcast" and, with why, "broadcast_error" to a result: why it
 * was not sent, or (ok) how it is held while the bridge wakes. */
int caret_ctl_add_broadcast(cJSON *result, bool ok, const char *why);

/* "hosts": proto/caret_ctl_hosts.h. */
struct caret_ctl_bridge_counts {
	uint64_t start, end, status, relay, rejected, sent;
	uint64_t foreign; /* samples of caretds of another bridge version */
};

/* One line without its '\n' (malloc'd), o deleted; NULL when out of memory. */
char *caret_ctl_enc_line(cJSON *o);

/* Adds "dropped" (init records the agents could not cache, clamped) to a
 * wait or stop result. 0 or -ENOMEM. */
int caret_ctl_add_dropped(cJSON *result, uint64_t dropped);
/* Adds one process's entry to "drops" (created at the first). */
int caret_ctl_add_drop(cJSON *result, int pid, const char *procname, uint64_t dropped);

#endif
