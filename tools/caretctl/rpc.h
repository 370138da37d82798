/* SPDX-License-Identifier: Apache-2.0 */
/* One request, one result: building requests, collecting replies, and
 * telling the user why an exchange failed. */
#ifndef CARETCTL_RPC_H
#define CARETCTL_RPC_H

#include "caretctl.h"
#include "conn.h"
#include "proto/caret_ctl_enc.h"
#include "proto/caret_ctl_reply.h"
#include "proto/caret_ctl_dec.h"
#include "proto/caret_ctl_req.h"

struct cli_reply {
	cJSON *root;
	char *raw;	/* the line as received, printed verbatim by --json */
	enum ctl_reply_type type;	/* CTL_REPLY_RESULT or CTL_REPLY_ERROR */
};

/* Called for every progress line, decoded (line: as sent, for --json);
 * returns 0 or -EPROTO (why filled). */
typedef int (*cli_progress_fn)(const struct ctl_progress *p, struct cli_reply *line, void *arg,
			       struct ctl_why *why);

/*
 * Sends req on c and reads until a result or error reply (into *out).
 * Progress lines go to fn (or are skipped when fn is NULL). Returns 0 or
 * the transport error (see cli_conn_read_line), -EPROTO, -ENOMEM.
 */
int cli_exchange(struct cli_conn *c, const struct caret_ctl_req *q, int64_t deadline_ms,
		 bool interruptible, cli_progress_fn fn, void *arg,
		 struct cli_reply *out, struct ctl_why *why);

/*
 * The same for a request caretd answers when it can (record while LTTng
 * starts its session): no deadline as long as caretd sends a line at
 * least every quiet_ms (-ETIMEDOUT once it stays silent that long).
 */
int cli_exchange_live(struct cli_conn *c, const struct caret_ctl_req *q, int64_t quiet_ms,
		      bool interruptible, cli_progress_fn fn, void *arg, struct cli_reply *out,
		      struct ctl_why *why);

/* One reply line already sent on c (a request in progress, such as a
 * hold), waiting until deadline_ms at most: 0 with it in *out, or the
 * transport error (-ETIMEDOUT: none yet), -EPROTO, -ENOMEM. */
int cli_read_reply(struct cli_conn *c, int64_t deadline_ms, struct cli_reply *out,
		   struct ctl_why *why);
/*
 * Connects, exchanges, closes. caretd gets timeout_ms (plus slack) to
 * answer. Returns an exit status: CLI_EXIT_OK with a result in *out, or
 * the failure (error reply included) already reported. -EINTR is passed
 * through as CLI_EXIT_INTERRUPTED when interruptible.
 */
#define CLI_EXIT_INTERRUPTED (-1)
int cli_call(const struct cli_opts *g, const struct caret_ctl_req *q, int64_t timeout_ms,
	     bool interruptible, struct cli_reply *out);
/* A request of the envelope only ("status", "list", "hosts"). */
int cli_call_simple(const struct cli_opts *g, enum caret_ctl_cmd cmd, int64_t timeout_ms,
		    struct cli_reply *out);
/* The same, except that an error reply carrying errno `quiet` is not
 * reported: CLI_EXIT_AGAIN then (a request the caller repeats). */
#define CLI_EXIT_AGAIN (-2)
int cli_call_unless(const struct cli_opts *g, const struct caret_ctl_req *q, int64_t timeout_ms,
		    bool interruptible, int quiet, struct cli_reply *out);

/*
 * A command that sends only {"v", "cmd"} and takes only the common
 * options: parses argv, asks caretd. Returns -1 with the result in *out,
 * else the exit status (help shown, usage error or failure reported).
 */
int cli_simple_call(struct cli_opts *g, const char *cmd, int argc, char **argv,
		    void (*usage)(FILE *, const char *), struct cli_reply *out);

/*
 * --json output of a reply or progress object: as caretd sent it, plus
 * "cmd" naming the request it answers ("record", "wait", "stop"...).
 */
void cli_print_json(cJSON *o, const char *cmd);

/* Whether caretd answers (a status request): an exit status, reported. */
int cli_ping(const struct cli_opts *g);

void cli_reply_free(struct cli_reply *r);

/* Replies kept while what was decoded from them is in use (the events of
 * several pages). cli_keep_add takes r over: 0, or -ENOMEM (r untouched). */
struct cli_keep {
	struct cli_reply *v;
	size_t n, cap;
};
int cli_keep_add(struct cli_keep *k, struct cli_reply *r);
void cli_keep_free(struct cli_keep *k);

/* What caretctl adds to a result before --json prints it (stop's count of
 * the trace's copies, its missing init records, "direct"): key set to the
 * value, replacing any. 0 or -ENOMEM. */
int cli_reply_set_u64(struct cli_reply *r, const char *key, uint64_t v);
int cli_reply_set_bool(struct cli_reply *r, const char *key, bool v);
int cli_reply_set_strings(struct cli_reply *r, const char *key, char *const *s, size_t n);

/* A stop result caretctl made itself while caretd is away (stop_direct),
 * as caretd sends one: r->root set, r->raw NULL. 0 or -ENOMEM. */
int cli_reply_stop(struct cli_reply *r, const char *session, const char *path,
		   const struct caret_ctl_channel *ch, size_t n);

/* Report a failed connect or exchange; return the exit status for it. */
int cli_report_connect(const char *path, int err);
int cli_report_exchange(const char *cmd, int err, const struct ctl_why *why,
			int64_t waited_ms);
/* An error reply: prints caretd's message, returns CLI_EXIT_FAILED. */
int cli_report_error_reply(const char *cmd, const struct cli_reply *r);

#endif
