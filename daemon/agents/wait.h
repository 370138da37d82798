/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The `wait` request, which outlives its request line: progress lines until
 * every agent records or the deadline passes, then the result. The server
 * polls it; it never writes anywhere itself.
 */
#ifndef CARETD_WAIT_H
#define CARETD_WAIT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "daemon/agents/registry.h"

struct wait_req;
struct caret_ctl_snapshot_result;

/*
 * A reply line of a long-running request: a progress, result or error
 * object made by proto/'s encoders, which the server writes. Outside the
 * reply layer it is made by the constructors below, read only through
 * proto/'s decoders (caret_ctl_*_decode take it as it is) and freed with
 * wait_line_free.
 */
typedef cJSON wait_line;
void wait_line_free(wait_line *l);
/* The result of a snapshot (proto/caret_ctl_snapshot_res.h), or an error
 * line when out of memory. NULL only when not even that fits. */
wait_line *wait_line_snapshot(const struct caret_ctl_snapshot_result *s);
/* An error line (proto's caret_ctl_enc_error); NULL when out of memory. */
wait_line *wait_line_error(int err, const char *msg);
/* A progress line (proto's caret_ctl_enc_progress); NULL when out of
 * memory. */
struct caret_ctl_progress;
wait_line *wait_line_progress(const struct caret_ctl_progress *p);
/* `record`'s progress line while LTTng starts its session (proto's
 * caret_ctl_enc_progress_lttng_start); NULL when out of memory. */
wait_line *wait_line_lttng_start(int total, int64_t start_ms);

/* `record`'s result (proto's caret_ctl_enc_record), with what its
 * broadcast to the other hosts did when one was asked (why: NULL or the
 * reason). NULL when out of memory. */
struct wait_bc {
	bool asked, ok;
	const char *why;
};
wait_line *wait_line_record(const char *session, const char *path, const struct wait_bc *bc);
/* The session a `record` result line names (into l), NULL when l is not
 * one (an error line). */
const char *wait_line_record_session(const wait_line *l);
/* That result saying its connection holds the recording from now on
 * (proto's caret_ctl_enc_record_held). 0 or -ENOMEM. */
int wait_line_record_held(wait_line *l);

/* `hold`'s line (proto's caret_ctl_enc_hold): the recording, and whether
 * it is held from now on; NULL when out of memory. */
wait_line *wait_line_hold(const char *session, bool held);

/* A wait of only uid's processes when only (a member's: their recording
 * traces no one else's, caretd(8)); NULL when out of memory. */
struct wait_req *wait_begin(const struct registry *r, int64_t timeout_ms, int64_t now_ns,
			    bool only, uid_t uid);
/*
 * The next reply line due at now_ns, or NULL if none is. *done is set
 * when that reply is the result: the request is over, free it.
 */
wait_line *wait_poll(struct wait_req *w, int64_t now_ns, bool *done);
void wait_free(struct wait_req *w);

/*
 * Another long-running request, polled as a wait is (daemon/recording/snapshot.h):
 * poll returns the next reply line due or NULL, and sets *done with the
 * last one; release frees arg. NULL when out of memory (arg is then
 * released).
 */
struct wait_custom {
	wait_line *(*poll)(void *arg, int64_t now_ns, bool *done);
	void (*release)(void *arg);
};
struct wait_req *wait_custom(const struct wait_custom *ops, void *arg);
/* The same for one with nothing urgent to say (a hold, which may last for
 * days): the server polls it once a second, not every 10 ms. */
struct wait_req *wait_custom_slow(const struct wait_custom *ops, void *arg);
/* Whether w is a slow one. */
bool wait_slow(const struct wait_req *w);
/* w polled once a second from now on (a record become a hold). */
void wait_set_slow(struct wait_req *w);

/*
 * Adds "dropped" (every agent's records its cache could not hold) and
 * "drops" (per process, at most CARET_CTL_MAX_DROPS) to a wait or stop
 * result, and logs each process once per call when log is set. 0 or
 * -ENOMEM.
 */
int wait_add_drops(const struct registry *r, cJSON *o, bool log);

#endif
