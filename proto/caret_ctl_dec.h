/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The result of each command, checked field by field and turned into C.
 * Strings point into the cJSON tree they came from: keep it alive.
 */
#ifndef CARET_PROTO_CTL_DEC_H
#define CARET_PROTO_CTL_DEC_H

#include "proto/caret_ctl_reply.h"

struct ctl_progress {
	int64_t recording, total, records_done, records_total;
	double percent;
	/* `record`'s progress while LTTng starts its session (ms); -1: not */
	int64_t lttng_start_ms;
};

struct ctl_laggard {
	int64_t pid;
	const char *procname, *state, *reason;
};

/* Init records an agent's cache could not hold (B11b). */
struct ctl_drop {
	int64_t pid, dropped;
	const char *procname;
};

struct ctl_drops {
	int64_t total; /* "dropped": every agent's, listed or not */
	size_t n;
	struct ctl_drop *d;
};

struct ctl_wait_result {
	bool ok;
	int64_t recording, total;
	size_t n;
	struct ctl_laggard *lag;
	struct ctl_drops drops;
};

struct ctl_channel {
	const char *name;
	uint64_t discarded, lost;
	bool discarded_known, lost_known;
};

struct ctl_stop_result {
	const char *session, *path;
	uint64_t discarded_total;
	bool total_known;
	uint64_t duplicates; /* replayed records this session got twice or more */
	size_t n;
	struct ctl_channel *ch;
	struct ctl_drops drops;
};

struct ctl_record_result {
	const char *session, *path;
	/* the request's connection holds the recording ("hold"; false from
	 * a caretd before it) */
	bool held;
};

/* "pause" and "resume" */
struct ctl_pause_result {
	const char *session, *path;
	bool paused;
};

/* "hold" */
struct ctl_hold_result {
	const char *session;
	bool held;
};

struct ctl_agent {
	int64_t pid;
	const char *procname, *state;
	const char *reason; /* why it does not record completely; NULL: it does */
	int64_t records, replayed, replay_total, dropped;
	const char **nodes;	/* n_nodes node names */
	size_t n_nodes;
};

struct ctl_agents {
	size_t n;
	struct ctl_agent *a;
};

struct ctl_status {
	const char *host;
	int64_t pid;
	const char *version, *pacing;
	bool have_freq, have_bandwidth;
	int64_t freq, bandwidth;
	bool lttng_reachable;
	const char *lttng_error;	/* NULL when reachable */
	const char *caretd_session, *caretd_session_path;	/* NULL: none */
	const char **sessions;	/* n_sessions names of LTTng's active sessions */
	size_t n_sessions;
	struct ctl_agents agents;
};

struct ctl_accept {
	bool accepted;
	const char *reason;	/* may be NULL */
};

/* "broadcast" and "broadcast_error" of a record, stop, start or end
 * result (caret_ctl_add_broadcast). */
struct ctl_broadcast {
	bool present; /* absent: no broadcast was asked for */
	bool ok;
	const char *error; /* why not sent, or (ok) how it is held; may be NULL */
};
int caret_ctl_broadcast_decode(const cJSON *r, struct ctl_broadcast *b, char *why, size_t len);

/* Each returns 0 or -EPROTO (why filled), -ENOMEM. */
int ctl_decode_progress(const cJSON *r, struct ctl_progress *p, struct ctl_why *why);
int ctl_decode_wait(const cJSON *r, struct ctl_wait_result *w, struct ctl_why *why);
void ctl_wait_result_free(struct ctl_wait_result *w);
int ctl_decode_stop(const cJSON *r, struct ctl_stop_result *s, struct ctl_why *why);
void ctl_stop_result_free(struct ctl_stop_result *s);
int ctl_decode_record(const cJSON *r, struct ctl_record_result *rec, struct ctl_why *why);
int ctl_decode_pause(const cJSON *r, struct ctl_pause_result *p, struct ctl_why *why);
int ctl_decode_hold(const cJSON *r, struct ctl_hold_result *h, struct ctl_why *why);
int ctl_decode_agents(const cJSON *r, struct ctl_agents *ag, struct ctl_why *why);
void ctl_agents_free(struct ctl_agents *ag);
int ctl_decode_status(const cJSON *r, struct ctl_status *st, struct ctl_why *why);
void ctl_status_free(struct ctl_status *st);
int ctl_decode_accept(const cJSON *r, struct ctl_accept *a, struct ctl_why *why);

#endif
