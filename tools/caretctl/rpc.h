/* SPDX-License-Identifier: Apache-2.0 */
/* One request, one result: building requests, collecting replies, and
 * telling the user why an exchange failed. */
#ifndef CARETCTL_RPC_H
#define CARETCTL_RPC_H

#include "caretctl.h"
#include "conn.h"
#include "proto/caret_ctl_enc.h"
#include "proto/caret_ctl_reply.h"

struct ctl_reply {
	cJSON *root;
	char *raw;	/* the line as received, printed verbatim by --json */
	enum ctl_reply_type type;	/* CTL_REPLY_RESULT or CTL_REPLY_ERROR */
};

/* Called for every progress line; returns 0 or -EPROTO (why filled). */
typedef int (*ctl_progress_fn)(const cJSON *msg, void *arg, struct ctl_why *why);

/*
 * Sends req on c and reads until a result or error reply (into *out).
 * Progress lines go to fn (or are skipped when fn is NULL). Returns 0 or
 * the transport error (see ctl_conn_read_line), -EPROTO, -ENOMEM.
 */
int ctl_exchange(struct ctl_conn *c, const cJSON *req, int64_t deadline_ms,
		 bool interruptible, ctl_progress_fn fn, void *arg,
		 struct ctl_reply *out, struct ctl_why *why);

/*
 * Connects, exchanges, closes. caretd gets timeout_ms (plus slack) to
 * answer. Returns an exit status: CTL_EXIT_OK with a result in *out, or
 * the failure (error reply included) already reported. -EINTR is passed
 * through as CTL_EXIT_INTERRUPTED when interruptible.
 */
#define CTL_EXIT_INTERRUPTED (-1)
int ctl_call(const struct ctl_opts *g, const cJSON *req, int64_t timeout_ms,
	     bool interruptible, struct ctl_reply *out);

/*
 * A command that sends only {"v", "cmd"} and takes only the common
 * options: parses argv, asks caretd. Returns -1 with the result in *out,
 * else the exit status (help shown, usage error or failure reported).
 */
int ctl_simple_call(struct ctl_opts *g, const char *cmd, int argc, char **argv,
		    void (*usage)(FILE *, const char *), struct ctl_reply *out);

/*
 * --json output of a reply or progress object: as caretd sent it, plus
 * "cmd" naming the request it answers ("record", "wait", "stop"...).
 */
void ctl_print_json(cJSON *o, const char *cmd);

/* Whether caretd answers (a status request): an exit status, reported. */
int ctl_ping(const struct ctl_opts *g);

void ctl_reply_free(struct ctl_reply *r);

/* Report a failed connect or exchange; return the exit status for it. */
int ctl_report_connect(const char *path, int err);
int ctl_report_exchange(const char *cmd, int err, const struct ctl_why *why,
			int64_t waited_ms);
/* An error reply: prints caretd's message, returns CTL_EXIT_FAILED. */
int ctl_report_error_reply(const char *cmd, const struct ctl_reply *r);

#endif
