/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What every test of caretd's commands shares: a registry with one agent
 * (this process), a view whose LTTng is the fake below, and `ask`, which
 * runs a request line as the server would and reads the reply back with
 * caretctl's decoders.
 */
#include <check.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/server/commands.h"
#include "lib/lttng/creds.h"
#include "daemon/agents/pacer.h"
#include "daemon/agents/wait.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_dec.h"
#include "proto/caret_ctl_enc.h"
#include "proto/caret_ctl_events.h"
#include "proto/caret_ctl_reply.h"

#include "tests/unit/cmd_fixture.h"
#include "util/caret_err.h"

struct registry reg;
struct sched_cfg cfg = { .pacing = PACING_FREQUENCY, .frequency = 42, .bandwidth = 1 };
struct lttng_view view;
struct sched scheduler;
struct recordings recs;
struct cmd_ctx ctx = { .reg = &reg, .sched = &cfg, .scheduler = &scheduler, .lttng = &view,
		       .ops = &fake_lttng_ops,
		       .recs = &recs, .events = NULL, .bridge = NULL };
struct agent agent;

void sched_tick_now(void)
{
	int64_t now = caret_now_ns();
	struct sched_lttng l;
	pacer_sched_lttng(&view, now, &l);
	sched_tick(&scheduler, &reg, &l, now);
}

void setup(void)
{
	char prefix[48];
	snprintf(prefix, sizeof(prefix), "caret-uc-%d", (int)getpid());
	setenv("CARET_SHM_PREFIX", prefix, 1);
	memset(&agent, 0, sizeof(agent));
	memset(&scheduler, 0, sizeof(scheduler));
	ck_assert_int_eq(caret_seg_create(&agent.seg, 1 << 20, "unit", "jazzy"), 0);
	agent.pid = getpid();
	ck_assert_int_eq(caret_proc_start_time(agent.pid, &agent.start_time), 0);
	agent.nodes_at_records = UINT64_MAX;
	strcpy(agent.procname, "unit");
	caret_own_set_state(&agent.seg, CARET_STATE_WAIT); /* the agent's start */
	reg = (struct registry){ .head = &agent, .count = 1 };
	memset(&view, 0, sizeof(view));
	view.ok = true;
	view.ops = &fake_lttng_ops;
	recordings_init(&recs, &view, recording_features, recording_n_features);
	/* as after caretd's first poll: LTTng answered, no table to load */
	view.polled = true;
	recs.loaded = true;
	memset(&fake, 0, sizeof(fake));
	fake.rules = CARET_LTTNG_RULE_CARET | CARET_LTTNG_RULE_ROS2_INIT |
		     CARET_LTTNG_RULE_ROS2_RUNTIME;
	peer = (struct cmd_peer){ .pid = 1, .n_groups = 0 };
	ctx.events = events_new();
	ck_assert_ptr_nonnull(ctx.events);
}

void teardown(void)
{
	events_free(ctx.events);
	ctx.events = NULL;
	char name[CARET_SHM_NAME_MAX];
	strcpy(name, agent.seg.name);
	agent_state_free(&agent);
	caret_seg_close(&agent.seg);
	caret_seg_unlink(name);
	free(agent.nodes); /* what registry.c's agent_free does */
}

struct cmd_peer peer = { .pid = 1, .n_groups = 0 };

/* The reply to one request line, as caretctl parses it. */
cJSON *ask(const char *line, enum ctl_reply_type want, struct wait_req **w)
{
	struct cmd_out out;
	command_run(&ctx, &peer, line, 1000 * MS, &out);
	if (w) {
		ck_assert_ptr_null(out.reply);
		ck_assert_ptr_nonnull(out.wait);
		*w = out.wait;
		return NULL;
	}
	ck_assert_ptr_null(out.wait);
	char *s = caret_ctl_enc_line(out.reply);
	ck_assert_ptr_nonnull(s);
	cJSON *res;
	enum ctl_reply_type type;
	struct ctl_why why;
	ck_assert_msg(ctl_reply_parse(s, strlen(s), &res, &type, &why) == 0, "%s", why.msg);
	ck_assert_msg(type == want, "%s", s);
	free(s);
	return res;
}

struct wait_req *ask_slow(const char *line, cJSON **first)
{
	struct wait_req *w = NULL;
	ck_assert_ptr_null(ask(line, CTL_REPLY_RESULT, &w));
	ck_assert_ptr_nonnull(w);
	ck_assert(wait_slow(w)); /* it goes on for as long as it holds */
	bool done;
	*first = wait_poll(w, 0, &done);
	ck_assert(!done);
	return w;
}

void expect_quiet(struct wait_req *w)
{
	bool done;
	ck_assert_ptr_null(wait_poll(w, 1, &done));
	ck_assert(!done);
}

int err_of(const cJSON *r)
{
	return cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_ERRNO)->valueint;
}

const char *msg_of(const cJSON *r)
{
	return cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_ERROR)->valuestring;
}

void expect_text(const cJSON *x, const char *want)
{
	ck_assert_ptr_nonnull(x);
	char *got = cJSON_PrintUnformatted(x);
	ck_assert_ptr_nonnull(got);
	ck_assert_msg(!strcmp(got, want), "wire:\n  got  %s\n  want %s", got, want);
	free(got);
}

void expect_keys(const cJSON *o, const char *want)
{
	char got[1024] = "";
	size_t n = 0;
	const cJSON *k;
	cJSON_ArrayForEach(k, o)
		n += (size_t)snprintf(got + n, n < sizeof(got) ? sizeof(got) - n : 0, "%s%s",
				      n ? "," : "", k->string);
	ck_assert_msg(n < sizeof(got) && !strcmp(got, want), "keys:\n  got  %s\n  want %s", got,
		      want);
}

void expect_refusals(const struct refusal *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		cJSON *r = ask(cases[i].line, CTL_REPLY_ERROR, NULL);
		ck_assert_msg(err_of(r) == cases[i].err, "%s: errno %d", cases[i].line, err_of(r));
		ck_assert_msg(strstr(msg_of(r), cases[i].says), "%s: %s", cases[i].line, msg_of(r));
		cJSON_Delete(r);
	}
}

/* ---- the fake session daemon ---- */

struct fake_lttng fake;

static void called(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void called(const char *fmt, ...)
{
	ck_assert_int_lt(fake.n_calls, FAKE_CALLS);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(fake.calls[fake.n_calls++], sizeof(fake.calls[0]), fmt, ap);
	va_end(ap);
}

const char *fake_call(const char *prefix)
{
	for (int i = 0; i < fake.n_calls; i++)
		if (!strncmp(fake.calls[i], prefix, strlen(prefix)))
			return fake.calls[i];
	return NULL;
}

int fake_stops(void)
{
	int n = 0;
	for (int i = 0; i < fake.n_calls; i++)
		n += !strncmp(fake.calls[i], "stop ", 5);
	return n;
}

static int find(const char *s)
{
	for (int i = 0; i < fake.n_sessions; i++)
		if (!strcmp(fake.sessions[i], s))
			return i;
	return -1;
}

/* A failure asked for, once, with LTTng's cause in the message. */
static int failing(int *f, char *err, size_t errlen, const char *what)
{
	int r = *f;
	*f = 0;
	return caret_errf(err, errlen, r, "lttng: %s failed: fake cause", what);
}

static int f_active(char (*names)[CARET_LTTNG_NAME_MAX], int max, char *err, size_t errlen)
{
	fake.n_lists++;
	if (fake.fail_list)
		return failing(&fake.fail_list, err, errlen, "listing sessions");
	int n = 0;
	for (int i = 0; i < fake.n_sessions && n < max; i++)
		if (!fake.stopped[i])
			snprintf(names[n++], CARET_LTTNG_NAME_MAX, "%s", fake.sessions[i]);
	return n;
}

static int f_rules(const char *session, unsigned *rules, char *err, size_t errlen)
{
	if (find(session) < 0)
		return caret_errf(err, errlen, -ENOENT, "no session %s", session);
	*rules = fake.rules;
	return 0;
}

/* A session the fake did not record is root's (the lttng CLI's). */
static int f_theirs(const char *session, const struct creds_id *as)
{
	if (find(session) < 0)
		return -ENOENT;
	return as->uid == 0;
}

static int f_name(const char *wanted, const char *parent, char *out, size_t len, char *err,
		  size_t errlen)
{
	(void)err;
	(void)errlen;
	called("name %s parent=%s", wanted ? wanted : "-", parent ? parent : "-");
	snprintf(out, len, "%s", wanted && *wanted ? wanted : "caret-fake");
	return 0;
}

static int f_record(const struct caret_lttng_cfg *c, char *name_out, size_t name_len,
		    char *path_out, size_t path_len, char *err, size_t errlen)
{
	called("record %s path=%s url=%s light=%d pre_iron=%d append=%d armed=%d size=%llu "
	       "count=%u as=%d%s%s",
	       c->session ? c->session : "-", c->path ? c->path : "-", c->url ? c->url : "-",
	       c->light, c->light_pre_iron, c->append, c->armed,
	       (unsigned long long)c->subbuf_size, c->subbuf_count, c->as ? (int)c->as->uid : -1,
	       c->snapshot ? " snapshot=1" : "", c->armed_open ? " open=1" : "");
	if (fake.fail_record)
		return failing(&fake.fail_record, err, errlen, "creating the session");
	const char *name = c->session ? c->session : "caret-fake";
	if (find(name) >= 0)
		return caret_errf(err, errlen, -EEXIST, "lttng: session %s exists", name);
	ck_assert_int_lt(fake.n_sessions, FAKE_SESSIONS);
	fake.snapshot_mode[fake.n_sessions] = c->snapshot;
	fake.stopped[fake.n_sessions] = false;
	snprintf(fake.sessions[fake.n_sessions++], CARET_LTTNG_NAME_MAX, "%s", name);
	snprintf(name_out, name_len, "%s", name);
	snprintf(path_out, path_len, "%s/%s", c->url ? "/relay" : c->path, name);
	if (c->dir_out)
		*c->dir_out = fake.dir;
	return 0;
}

static int f_go(const char *session, char *err, size_t errlen)
{
	called("go %s", session);
	if (fake.fail_go)
		return failing(&fake.fail_go, err, errlen, "enabling the channel");
	return find(session) < 0 ? caret_errf(err, errlen, -ENOENT, "no session %s", session) : 0;
}

static int f_hold(const char *session, char *err, size_t errlen)
{
	called("hold %s", session);
	return find(session) < 0 ? caret_errf(err, errlen, -ENOENT, "no session %s", session) : 0;
}

static int f_stop(const char *session, struct caret_lttng_chan_stats *out, int max,
		  char *path_out, size_t path_len, char *err, size_t errlen)
{
	called("stop %s", session);
	if (fake.fail_stop)
		return failing(&fake.fail_stop, err, errlen, "stopping the session");
	int i = find(session);
	if (i < 0)
		return caret_errf(err, errlen, -ENOENT, "lttng: no session %s", session);
	memmove(fake.sessions[i], fake.sessions[i + 1],
		sizeof(fake.sessions[0]) * (size_t)(fake.n_sessions - i - 1));
	memmove(&fake.snapshot_mode[i], &fake.snapshot_mode[i + 1],
		sizeof(fake.snapshot_mode[0]) * (size_t)(fake.n_sessions - i - 1));
	memmove(&fake.stopped[i], &fake.stopped[i + 1],
		sizeof(fake.stopped[0]) * (size_t)(fake.n_sessions - i - 1));
	fake.n_sessions--;
	if (path_out)
		snprintf(path_out, path_len, "/nonexistent/fake/%s", session);
	if (max > 0 && out)
		out[0] = (struct caret_lttng_chan_stats){ .name = "caret",
							  .discarded = fake.discarded,
							  .discarded_known = !fake.discarded_unknown,
							  .lost_known = true };
	return 1;
}

static int f_snapshot_mode(const char *session, char *err, size_t errlen)
{
	int i = find(session);
	return i < 0 ? caret_errf(err, errlen, -ENOENT, "lttng: no session %s", session)
		     : fake.snapshot_mode[i];
}

static int f_snapshot(const char *session, const char *dir, const char *name,
		      const struct creds_id *as, char *path_out, size_t path_len, char *err,
		      size_t errlen)
{
	(void)as;
	called("snapshot %s dir=%s name=%s", session, dir, name);
	if (fake.fail_snapshot)
		return failing(&fake.fail_snapshot, err, errlen, "recording a snapshot");
	if (find(session) < 0)
		return caret_errf(err, errlen, -ENOENT, "lttng: no session %s", session);
	snprintf(path_out, path_len, "%s/%s-20261127-000000-0", dir, name);
	return 0;
}

static int f_pause(const char *session, bool resume, char *err, size_t errlen)
{
	called("%s %s", resume ? "resume" : "pause", session);
	int i = find(session);
	if (i < 0)
		return caret_errf(err, errlen, -ENOENT, "lttng: no session %s", session);
	if (fake.stopped[i] != resume)
		return caret_errf(err, errlen, -EALREADY, "lttng: session %s is %s already", session,
				  resume ? "tracing" : "stopped");
	fake.stopped[i] = !resume;
	return 0;
}

static int f_exists(const char *session, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return find(session) >= 0;
}

const struct caret_lttng_ops fake_lttng_ops = {
	.active_sessions = f_active,
	.session_rules = f_rules,
	.session_theirs = f_theirs,
	.session_name = f_name,
	.record = f_record,
	.go = f_go,
	.hold = f_hold,
	.stop = f_stop,
	.pause = f_pause,
	.exists = f_exists,
	.snapshot_mode = f_snapshot_mode,
	.snapshot = f_snapshot,
};

/* The session record created, as status shows it, decoded. */
void assert_record_reply(cJSON *r, const char *session, const char *path)
{
	struct ctl_record_result rec;
	struct ctl_why why;
	ck_assert_msg(ctl_decode_record(r, &rec, &why) == 0, "%s", why.msg);
	ck_assert_str_eq(rec.session, session);
	ck_assert_str_eq(rec.path, path);
}
