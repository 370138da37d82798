/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/caret_ctl.h"
#include "util/caret_util.h"
#include "proto/caret_ctl_req.h"
#include "proto/caret_ctl_enc.h"
#include "proto/caret_ctl_dec.h"
#include "proto/caret_ctl_snapshot_res.h"
#include "proto/caret_ctl_version.h"
#include "json_out.h"
#include "rpc.h"
#include "sock_access.h"

static int send_request(struct cli_conn *c, const struct caret_ctl_req *q, int64_t deadline_ms)
{
	cJSON *req = caret_ctl_enc_req(q);
	char *s = req ? cJSON_PrintUnformatted(req) : NULL;
	cJSON_Delete(req);
	if (!s)
		return -ENOMEM;
	size_t n = strlen(s);
	char *line = realloc(s, n + 2);
	if (!line) {
		free(s);
		return -ENOMEM;
	}
	line[n] = '\n';
	line[n + 1] = '\0';
	int r = cli_conn_send(c, line, n + 1, deadline_ms);
	free(line);
	return r;
}

/* A progress line, decoded, for fn; the line itself for --json. */
static int progress(cJSON *root, cli_progress_fn fn, void *arg, struct ctl_why *why)
{
	struct ctl_progress p;
	if (!fn)
		return 0;
	if (ctl_decode_progress(root, &p, why) < 0)
		return -EPROTO;
	struct cli_reply line = { .root = root, .type = CTL_REPLY_PROGRESS };
	return fn(&p, &line, arg, why);
}

/* A request caretd queued behind LTTng's session start (its progress says
 * so once a second) is not given up while caretd says it still waits:
 * each such line leaves it at least this long again. */
#define LTTNG_WAIT_GRACE_MS (CLI_QUICK_MS + CLI_SLACK_MS)

static bool waits_for_lttng(cJSON *root)
{
	struct ctl_progress p;
	struct ctl_why why;
	return ctl_decode_progress(root, &p, &why) == 0 && p.lttng_start_ms >= 0;
}

/* quiet_ms > 0: each line read moves the deadline to quiet_ms from then */
static int exchange(struct cli_conn *c, const struct caret_ctl_req *q, int64_t deadline_ms,
		    int64_t quiet_ms, bool interruptible, cli_progress_fn fn, void *arg,
		    struct cli_reply *out, struct ctl_why *why)
{
	memset(out, 0, sizeof(*out));
	int r = send_request(c, q, deadline_ms);
	/*
	 * caretd may refuse a client (permissions, too many clients) with an
	 * error line and close before reading: that line is the answer.
	 */
	bool refused = r == -EPIPE || r == -ECONNRESET;
	if (r < 0 && !refused)
		return r;
	bool said = false; /* a wait behind LTTng's start, told once */
	for (;;) {
		char *line;
		size_t len;
		cJSON *root;
		enum ctl_reply_type type;
		r = cli_conn_read_line(c, deadline_ms, interruptible, &line, &len);
		if (r < 0)
			return refused ? -EPIPE : r;
		r = ctl_reply_parse(line, len, &root, &type, why);
		if (r < 0)
			return r;
		if (quiet_ms > 0)
			deadline_ms = cli_now_ms() + quiet_ms;
		bool lttng_wait = type == CTL_REPLY_PROGRESS && waits_for_lttng(root);
		if (lttng_wait && deadline_ms < cli_now_ms() + LTTNG_WAIT_GRACE_MS)
			deadline_ms = cli_now_ms() + LTTNG_WAIT_GRACE_MS;
		/* a caller with no progress of its own (stop, pause, resume)
		 * would otherwise sit silent for as long as the start runs */
		if (lttng_wait && !fn && !said)
			fprintf(stderr, "caretctl: LTTng is starting another session; the %s "
				"waits for it\n", caret_ctl_cmd_name(q->cmd));
		said = said || lttng_wait;
		if (type == CTL_REPLY_PROGRESS) {
			r = progress(root, fn, arg, why);
			cJSON_Delete(root);
			if (r < 0)
				return r;
			continue;
		}
		out->raw = strdup(line);
		if (!out->raw) {
			cJSON_Delete(root);
			return -ENOMEM;
		}
		out->root = root;
		out->type = type;
		return 0;
	}
}

int cli_exchange(struct cli_conn *c, const struct caret_ctl_req *q, int64_t deadline_ms,
		 bool interruptible, cli_progress_fn fn, void *arg,
		 struct cli_reply *out, struct ctl_why *why)
{
	return exchange(c, q, deadline_ms, 0, interruptible, fn, arg, out, why);
}

int cli_exchange_live(struct cli_conn *c, const struct caret_ctl_req *q, int64_t quiet_ms,
		      bool interruptible, cli_progress_fn fn, void *arg, struct cli_reply *out,
		      struct ctl_why *why)
{
	return exchange(c, q, cli_now_ms() + quiet_ms, quiet_ms, interruptible, fn, arg, out,
			why);
}

int cli_read_reply(struct cli_conn *c, int64_t deadline_ms, struct cli_reply *out,
		   struct ctl_why *why)
{
	char *line;
	size_t len;
	cJSON *root;
	enum ctl_reply_type type;
	memset(out, 0, sizeof(*out));
	int r = cli_conn_read_line(c, deadline_ms, false, &line, &len);
	if (r == 0)
		r = ctl_reply_parse(line, len, &root, &type, why);
	if (r < 0)
		return r;
	out->root = root;
	out->type = type;
	return 0;
}

void cli_reply_free(struct cli_reply *r)
{
	cJSON_Delete(r->root);
	free(r->raw);
	r->root = NULL;
	r->raw = NULL;
}

int cli_report_connect(const char *path, int err)
{
	cli_set_errno(-err);
	switch (err) {
	case -ENOENT:
	case -ECONNREFUSED:
		/* The unit only serves the default socket. */
		if (strcmp(path, CARET_CTL_DEFAULT_SOCKET) != 0)
			return cli_fail(CLI_EXIT_UNREACHABLE,
					"caretd is not running at %s (%s)", path,
					strerror(-err));
		return cli_fail(CLI_EXIT_UNREACHABLE,
				"caretd is not running (cannot connect to %s: %s); "
				"start it with: systemctl start caretd",
				path, strerror(-err));
	case -EACCES:
	case -EPERM: {
		/* who may connect is the socket's (or its directory's)
		 * business, whatever caretd's --group is today */
		char who[PATH_MAX + 160];
		cli_socket_access(path, who, sizeof(who));
		return cli_fail(CLI_EXIT_UNREACHABLE,
				"permission denied connecting to caretd at %s: %s", path, who);
	}
	case -ENAMETOOLONG:
		return cli_fail(CLI_EXIT_USAGE, "socket path too long: %s", path);
	case -ETIMEDOUT:
		return cli_fail(CLI_EXIT_UNREACHABLE,
				"caretd at %s is not accepting connections (queue full)",
				path);
	case -ENOMEM:
		return cli_fail(CLI_EXIT_FAILED, "out of memory");
	default:
		return cli_fail(CLI_EXIT_UNREACHABLE, "cannot connect to caretd at %s: %s",
				path, strerror(-err));
	}
}

int cli_report_exchange(const char *cmd, int err, const struct ctl_why *why,
			int64_t waited_ms)
{
	cli_set_errno(-err);
	switch (err) {
	case -ETIMEDOUT:
		return cli_fail(CLI_EXIT_UNREACHABLE,
				"caretd did not answer within %.1f s (waiting for the "
				"result of \"%s\")",
				(double)waited_ms / 1000.0, cmd);
	case -ECONNRESET:
	case -EPIPE:
		return cli_fail(CLI_EXIT_UNREACHABLE,
				"caretd closed the connection before answering \"%s\"", cmd);
	case -EMSGSIZE:
		return cli_fail(CLI_EXIT_PROTOCOL,
				"malformed reply from caretd to \"%s\": line longer than %u "
				"bytes",
				cmd, CARET_CTL_MAX_REPLY);
	case -EPROTO:
		/* a reply of another release is no malformed one: the why says
		 * which to upgrade (caret_ctl_version_reply) */
		if (!strncmp(why->msg, "caretd speaks protocol ", 23))
			return cli_fail(CLI_EXIT_PROTOCOL, "%s", why->msg);
		return cli_fail(CLI_EXIT_PROTOCOL, "malformed reply from caretd to \"%s\": %s",
				cmd, why->msg);
	case -ENOMEM:
		return cli_fail(CLI_EXIT_FAILED, "out of memory");
	default:
		return cli_fail(CLI_EXIT_UNREACHABLE,
				"lost the connection to caretd (\"%s\"): %s", cmd,
				strerror(-err));
	}
}

/* An error reply's message (ctl_reply_parse checked it is there) and its
 * errno when it is a sane positive number, else 0: errno is advisory. */
static int reply_errno(const struct cli_reply *r, const char **msg)
{
	struct caret_ctl_error e;
	char why[160];
	int rc = caret_ctl_error_decode(r->root, &e, why, sizeof(why));
	*msg = e.error ? e.error : "(no message)";
	return rc == 0 && e.err >= 1 ? (int)e.err : 0;
}

int cli_report_error_reply(const char *cmd, const struct cli_reply *r)
{
	const char *msg;
	int err = reply_errno(r, &msg);
	char hint[256];
	if (caret_ctl_version_hint(cmd, err, msg, hint, sizeof(hint))) {
		cli_set_errno(err);
		return cli_fail(CLI_EXIT_FAILED, "%s", hint);
	}
	/* errno shown only if caretd's message does not say it already */
	if (err) {
		const char *text = strerror(err);
		cli_set_errno(err);
		if (!strstr(msg, text))
			return cli_fail(CLI_EXIT_FAILED, "%s failed: %s (%s)", cmd, msg, text);
	}
	return cli_fail(CLI_EXIT_FAILED, "%s failed: %s", cmd, msg);
}

int cli_call(const struct cli_opts *g, const struct caret_ctl_req *q, int64_t timeout_ms,
	     bool interruptible, struct cli_reply *out)
{
	return cli_call_unless(g, q, timeout_ms, interruptible, 0, out);
}

int cli_call_simple(const struct cli_opts *g, enum caret_ctl_cmd cmd, int64_t timeout_ms,
		    struct cli_reply *out)
{
	struct caret_ctl_req q = { .v = CARET_CTL_VERSION, .cmd = cmd };
	return cli_call(g, &q, timeout_ms, false, out);
}

int cli_call_unless(const struct cli_opts *g, const struct caret_ctl_req *q, int64_t timeout_ms,
		    bool interruptible, int quiet, struct cli_reply *out)
{
	const char *cmd = caret_ctl_cmd_name(q->cmd);
	int64_t wait_ms = timeout_ms + CLI_SLACK_MS;
	int64_t deadline = cli_now_ms() + wait_ms;
	struct cli_conn c;
	struct ctl_why why = { "" };

	memset(out, 0, sizeof(*out));
	int r = cli_conn_open(&c, g->socket, deadline);
	if (r < 0)
		return cli_report_connect(g->socket, r);
	r = cli_exchange(&c, q, deadline, interruptible, NULL, NULL, out, &why);
	cli_conn_close(&c);
	if (r == -EINTR)
		return CLI_EXIT_INTERRUPTED;
	if (r < 0)
		return cli_report_exchange(cmd, r, &why, wait_ms);
	if (out->type == CTL_REPLY_ERROR) {
		const char *msg;
		if (quiet && reply_errno(out, &msg) == quiet) {
			cli_reply_free(out);
			return CLI_EXIT_AGAIN;
		}
		int code = cli_report_error_reply(cmd, out);
		cli_reply_free(out);
		return code;
	}
	return CLI_EXIT_OK;
}

int cli_simple_call(struct cli_opts *g, const char *cmd, int argc, char **argv,
		    void (*usage)(FILE *, const char *), struct cli_reply *out)
{
	int early = cli_simple_args(g, cmd, argc, argv, usage);
	if (early >= 0)
		return early;
	int c = caret_ctl_cmd_by_name(cmd);
	if (c < 0)
		return cli_fail(CLI_EXIT_FAILED, "unknown command %s", cmd);
	int code = cli_call_simple(g, (enum caret_ctl_cmd)c, CLI_QUICK_MS, out);
	return code == CLI_EXIT_OK ? -1 : code;
}

int cli_ping(const struct cli_opts *g)
{
	struct cli_reply r;
	int code = cli_call_simple(g, CARET_CTL_STATUS, CLI_QUICK_MS, &r);
	if (code == CLI_EXIT_OK)
		cli_reply_free(&r);
	return code;
}

void cli_print_json(cJSON *o, const char *cmd)
{
	/* caretd's result objects do not say which request they answer;
	 * `record` prints three of them. */
	if (cli_json_print(o, CARET_CTL_T_RESULT, cmd) < 0)
		cli_fail(CLI_EXIT_FAILED, "out of memory");
}

static int set(struct cli_reply *r, const char *key, cJSON *v)
{
	if (!v || !r->root)
		goto fail;
	if (cJSON_GetObjectItemCaseSensitive(r->root, key)) {
		if (cJSON_ReplaceItemInObjectCaseSensitive(r->root, key, v))
			return 0;
	} else if (cJSON_AddItemToObject(r->root, key, v)) {
		return 0;
	}
fail:
	cJSON_Delete(v);
	return -ENOMEM;
}

int cli_reply_set_u64(struct cli_reply *r, const char *key, uint64_t v)
{
	return set(r, key, cJSON_CreateNumber((double)v));
}

int cli_reply_set_bool(struct cli_reply *r, const char *key, bool v)
{
	return set(r, key, cJSON_CreateBool(v));
}

int cli_reply_set_strings(struct cli_reply *r, const char *key, char *const *s, size_t n)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; a && i < n; i++) {
		cJSON *x = cJSON_CreateString(s[i]);
		if (!x || !cJSON_AddItemToArray(a, x)) {
			cJSON_Delete(x);
			cJSON_Delete(a);
			return -ENOMEM;
		}
	}
	return set(r, key, a);
}

int cli_reply_stop(struct cli_reply *r, const char *session, const char *path,
		   const struct caret_ctl_channel *ch, size_t n)
{
	memset(r, 0, sizeof(*r));
	r->type = CTL_REPLY_RESULT;
	r->root = caret_ctl_enc_stop(session, path, ch, n, 0);
	return r->root ? 0 : -ENOMEM;
}

int cli_keep_add(struct cli_keep *k, struct cli_reply *r)
{
	if (caret_grow((void **)&k->v, &k->cap, k->n + 1, sizeof(*k->v)) < 0)
		return -ENOMEM;
	k->v[k->n++] = *r;
	memset(r, 0, sizeof(*r));
	return 0;
}

void cli_keep_free(struct cli_keep *k)
{
	for (size_t i = 0; i < k->n; i++)
		cli_reply_free(&k->v[i]);
	free(k->v);
	memset(k, 0, sizeof(*k));
}
