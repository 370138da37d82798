/* SPDX-License-Identifier: Apache-2.0 */
/* The control protocol's parsers, both ends: caretd's request handling
 * (command_run: envelope, fields, every command's reply) and caretctl's
 * reply parsing and decoders. LTTng is a fake behind the view's ops table
 * (lib/lttng/session.h): "record" and "stop" run too, with nothing created. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/server/commands.h"
#include "daemon/server/top.h"
#include "daemon/base/log.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_dec.h"
#include "proto/caret_ctl_enc.h"
#include "proto/caret_ctl_plan.h"
#include "proto/caret_ctl_reply.h"
#include "proto/caret_ctl_graph.h"
#include "proto/caret_ctl_hosts.h"
#include "proto/caret_ctl_recordings.h"
#include "proto/caret_ctl_snapshot_res.h"
#include "proto/caret_ctl_top.h"
#include "tests/fuzz/fuzz.h"

static void decode_all(const char *line, size_t len)
{
	cJSON *root = NULL;
	enum ctl_reply_type type;
	struct ctl_why why;
	if (ctl_reply_parse(line, len, &root, &type, &why) < 0)
		return;
	struct ctl_progress p;
	ctl_decode_progress(root, &p, &why);
	struct ctl_wait_result w;
	if (ctl_decode_wait(root, &w, &why) == 0)
		ctl_wait_result_free(&w);
	struct ctl_stop_result s;
	if (ctl_decode_stop(root, &s, &why) == 0)
		ctl_stop_result_free(&s);
	struct ctl_record_result rec;
	ctl_decode_record(root, &rec, &why);
	struct ctl_agents ag;
	if (ctl_decode_agents(root, &ag, &why) == 0)
		ctl_agents_free(&ag);
	struct ctl_status st;
	if (ctl_decode_status(root, &st, &why) == 0)
		ctl_status_free(&st);
	struct ctl_hold_result hold;
	ctl_decode_hold(root, &hold, &why);
	struct ctl_accept acc;
	ctl_decode_accept(root, &acc, &why);
	static struct caret_ctl_plan plan; /* record -l's reply */
	caret_ctl_dec_plan(root, &plan, &why);
	/* the typed results (proto/caret_ctl_*.h): each frees what it made
	 * when it fails, the caller when it succeeds */
	char msg[256];
	struct ctl_broadcast bc;
	caret_ctl_broadcast_decode(root, &bc, msg, sizeof(msg));
	struct caret_ctl_error err;
	caret_ctl_error_decode(root, &err, msg, sizeof(msg));
	struct caret_ctl_hosts hs;
	if (caret_ctl_hosts_decode(root, &hs, msg, sizeof(msg)) == 0)
		caret_ctl_hosts_free(&hs);
	struct caret_ctl_snapshot_result sr;
	if (caret_ctl_snapshot_result_decode(root, &sr, msg, sizeof(msg)) == 0)
		caret_ctl_snapshot_result_free(&sr);
	struct caret_ctl_recordings recs;
	if (caret_ctl_recordings_decode(root, &recs, msg, sizeof(msg)) == 0)
		caret_ctl_recordings_free(&recs);
	struct caret_ctl_graph gr;
	if (caret_ctl_graph_decode(root, &gr, msg, sizeof(msg)) == 0)
		caret_ctl_graph_free(&gr);
	struct caret_ctl_top top; /* caretctl top's reply */
	if (caret_ctl_dec_top(root, &top, &why) == 0)
		caret_ctl_top_free(&top);
	cJSON_Delete(root);
}

/* A session daemon that says yes: the commands' own checks are what is
 * fuzzed, not LTTng. */
static int f_active(char (*names)[CARET_LTTNG_NAME_MAX], int max, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	if (max < 1)
		return 0;
	snprintf(names[0], CARET_LTTNG_NAME_MAX, "fuzz");
	return 1;
}

static int f_rules(const char *session, unsigned *rules, char *err, size_t errlen)
{
	(void)session;
	(void)err;
	(void)errlen;
	*rules = CARET_LTTNG_RULE_CARET;
	return 0;
}

static int f_theirs(const char *session, const struct creds_id *as)
{
	(void)session;
	(void)as;
	return 0;
}

static int f_name(const char *wanted, const char *parent, char *out, size_t len, char *err,
		  size_t errlen)
{
	(void)parent;
	(void)err;
	(void)errlen;
	snprintf(out, len, "%s", wanted && *wanted ? wanted : "fuzz-rec");
	return 0;
}

static int f_record(const struct caret_lttng_cfg *c, char *name_out, size_t name_len,
		    char *path_out, size_t path_len, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	snprintf(name_out, name_len, "%s", c->session ? c->session : "fuzz-rec");
	snprintf(path_out, path_len, "/nonexistent/%s", name_out);
	return 0;
}

static int f_go(const char *session, char *err, size_t errlen)
{
	(void)session;
	(void)err;
	(void)errlen;
	return 0;
}

static int f_stop(const char *session, struct caret_lttng_chan_stats *out, int max,
		  char *path_out, size_t path_len, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	if (path_out)
		snprintf(path_out, path_len, "/nonexistent/%s", session);
	if (out && max > 0)
		out[0] = (struct caret_lttng_chan_stats){ .name = "caret", .discarded_known = true };
	return 1;
}

static int f_snapshot_mode(const char *session, char *err, size_t errlen)
{
	(void)session;
	(void)err;
	(void)errlen;
	return 1;
}

static int f_snapshot(const char *session, const char *dir, const char *name,
		      const struct creds_id *as, char *path_out, size_t path_len, char *err,
		      size_t errlen)
{
	(void)as;
	(void)session;
	(void)err;
	(void)errlen;
	snprintf(path_out, path_len, "%s/%s-20260101-000000-0", dir, name);
	return 0;
}

static const struct caret_lttng_ops yes_ops = {
	.active_sessions = f_active, .session_rules = f_rules, .session_theirs = f_theirs,
	.session_name = f_name, .record = f_record, .go = f_go, .hold = f_go, .stop = f_stop,
	.snapshot_mode = f_snapshot_mode, .snapshot = f_snapshot,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct registry reg;
	static struct sched_cfg sched = { PACING_ADAPTIVE, 100, 1 << 20 };
	static struct lttng_view view = { .ok = true, .polled = true,
					  .n_active = 1, .active = { "fuzz" }, .ops = &yes_ops };
	static struct recordings recs;
	/* Start and End are posted to it (no tick runs here: each input
	 * dropped after its command) */
	static struct sched scheduler;
	static bool once;
	static struct top *top; /* no agent: the request's checks and the reply */
	if (!once) {
		recordings_init(&recs, &view, recording_features, recording_n_features);
		recs.loaded = true;
		log_init(LOG_CRIT); /* Start/End messages would flood */
		reg.inotify_fd = -1;
		if (top_start(&top, NULL, &reg) < 0)
			top = NULL;
		once = true;
	}
	if (size > CARET_CTL_MAX_LINE)
		return 0;
	char *line = malloc(size + 1);
	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	decode_all(line, strlen(line));
	{
		struct cmd_ctx ctx = { .reg = &reg, .sched = &sched, .scheduler = &scheduler,
				       .lttng = &view, .ops = &yes_ops, .recs = &recs, .top = top };
		/* a local member of caretd's group, not root */
		struct cmd_peer peer = { .pid = 1, .uid = 1000, .gid = 1000, .n_groups = 0 };
		struct cmd_out out;
		command_run(&ctx, &peer, line, 0, &out);
		scheduler.n_in = 0;
		char *reply = caret_ctl_enc_line(out.reply);
		/* every reply caretd sends is one it can parse back */
		if (reply) {
			cJSON *root = NULL;
			enum ctl_reply_type type;
			struct ctl_why why;
			if (ctl_reply_parse(reply, strlen(reply), &root, &type, &why) < 0)
				__builtin_trap();
			cJSON_Delete(root);
		}
		free(reply);
		/* a long-running request's first lines parse back too */
		for (int i = 0; out.wait && i < 2; i++) {
			bool done;
			cJSON *o = wait_poll(out.wait, (int64_t)i * 1000000000LL, &done);
			char *l = caret_ctl_enc_line(o); /* frees o */
			if (l) {
				cJSON *root = NULL;
				enum ctl_reply_type type;
				struct ctl_why why;
				if (ctl_reply_parse(l, strlen(l), &root, &type, &why) < 0)
					__builtin_trap();
				cJSON_Delete(root);
			}
			free(l);
			if (done)
				break;
		}
		wait_free(out.wait);
	}
	free(line);
	return 0;
}
