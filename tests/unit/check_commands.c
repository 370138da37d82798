/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caretd's commands and wait module as the server drives them: request
 * line in, reply object out, read back with caretctl's decoders. Only
 * requests that do not reach LTTng are exercised here (the integration
 * tests cover record and stop against a real session daemon).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/commands.h"
#include "daemon/pacer.h"
#include "daemon/wait.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_dec.h"
#include "proto/caret_ctl_enc.h"
#include "proto/caret_ctl_reply.h"

#define MS 1000000LL

static struct registry reg;
static struct sched_cfg cfg = { .pacing = PACING_FREQUENCY, .frequency = 42, .bandwidth = 1 };
static struct lttng_view view;
static struct cmd_ctx ctx = { .reg = &reg, .sched = &cfg, .lttng = &view };
static struct agent agent;

static void setup(void)
{
	char prefix[48];
	snprintf(prefix, sizeof(prefix), "caret-uc-%d", (int)getpid());
	setenv("CARET_SHM_PREFIX", prefix, 1);
	memset(&agent, 0, sizeof(agent));
	ck_assert_int_eq(caret_seg_create(&agent.seg, 1 << 20, "unit", "jazzy"), 0);
	agent.pid = getpid();
	agent.nodes_at_records = UINT64_MAX;
	strcpy(agent.procname, "unit");
	caret_ctl_set_state(&agent.seg, CARET_STATE_WAIT);
	reg = (struct registry){ .head = &agent, .count = 1 };
	memset(&view, 0, sizeof(view));
	view.ok = true;
}

static void teardown(void)
{
	char name[CARET_SHM_NAME_MAX];
	strcpy(name, agent.seg.name);
	caret_seg_close(&agent.seg);
	caret_seg_unlink(name);
}

/* Who asks: root unless a test says otherwise. */
static struct cmd_peer peer = { .pid = 1, .n_groups = 0 };

/* The reply to one request line, as caretctl parses it. */
static cJSON *ask(const char *line, enum ctl_reply_type want, struct wait_req **w)
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

static int err_of(const cJSON *r)
{
	return cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_ERRNO)->valueint;
}

START_TEST(status_and_list)
{
	strcpy(view.active[0], "s1");
	view.n_active = 1;
	struct lttng_view_rec rec = { .name = "s1", .path = "/t/s1" };
	ck_assert_int_eq(lttng_view_add_rec(&view, &rec), 0);
	cJSON *r = ask("{\"v\":1,\"cmd\":\"status\"}", CTL_REPLY_RESULT, NULL);
	struct ctl_status st;
	struct ctl_why why;
	ck_assert_msg(ctl_decode_status(r, &st, &why) == 0, "%s", why.msg);
	ck_assert_int_eq(st.pid, getpid());
	ck_assert_str_eq(st.pacing, "frequency");
	ck_assert_int_eq(st.freq, 42);
	ck_assert(st.lttng_reachable);
	ck_assert_str_eq(cJSON_GetArrayItem(st.sessions, 0)->valuestring, "s1");
	ck_assert_uint_eq(st.agents.n, 1);
	ck_assert_int_eq(st.agents.a[0].pid, getpid());
	ck_assert_str_eq(st.agents.a[0].state, "WAIT");
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_LTTNG);
	ck_assert_str_eq(
		cJSON_GetObjectItemCaseSensitive(l, CARET_CTL_K_CARETD_SESSION_PATH)->valuestring,
		"/t/s1");
	ctl_status_free(&st);
	cJSON_Delete(r);

	r = ask("{\"v\":1,\"cmd\":\"list\"}", CTL_REPLY_RESULT, NULL);
	struct ctl_agents ag;
	ck_assert_int_eq(ctl_decode_agents(r, &ag, &why), 0);
	ck_assert_uint_eq(ag.n, 1);
	ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_HOST));
	ctl_agents_free(&ag);
	cJSON_Delete(r);
}
END_TEST

/* No agent waits without a reason that list and status show. */
START_TEST(list_gives_reasons)
{
	caret_ctl_begin_replay(&agent.seg);
	cJSON *r = ask("{\"v\":1,\"cmd\":\"list\"}", CTL_REPLY_RESULT, NULL);
	struct ctl_agents ag;
	struct ctl_why why;
	ck_assert_int_eq(ctl_decode_agents(r, &ag, &why), 0);
	ck_assert_str_eq(ag.a[0].state, "PREPARE");
	ck_assert_ptr_nonnull(ag.a[0].reason);
	ck_assert_ptr_nonnull(strstr(ag.a[0].reason, "replay thread"));
	ctl_agents_free(&ag);
	cJSON_Delete(r);
	caret_ctl_set_state(&agent.seg, CARET_STATE_WAIT);
	r = ask("{\"v\":1,\"cmd\":\"list\"}", CTL_REPLY_RESULT, NULL);
	ck_assert_int_eq(ctl_decode_agents(r, &ag, &why), 0);
	ck_assert_ptr_null(ag.a[0].reason); /* idle: nothing to explain */
	ctl_agents_free(&ag);
	cJSON_Delete(r);
}
END_TEST

/* issue 8: `record -f` paces its own recording's replay, never the
 * daemon's defaults nor a newer session's (e.g. one of the lttng CLI). */
START_TEST(recording_options_are_its_own)
{
	struct sched_cfg defaults = { .pacing = PACING_ADAPTIVE, .frequency = 100,
				      .bandwidth = 1000 }, eff;
	strcpy(view.active[0], "rec");
	strcpy(view.active[1], "cli");
	view.n_active = 2;
	view.sess[0] = (struct lttng_view_session){ .rules = CARET_LTTNG_RULE_CARET, .serial = 1 };
	view.sess[1] = (struct lttng_view_session){ .rules = CARET_LTTNG_RULE_CARET, .serial = 2 };
	struct lttng_view_rec rec = { .name = "rec", .pacing = PACING_FREQUENCY, .frequency = 2 };
	ck_assert_int_eq(lttng_view_add_rec(&view, &rec), 0);
	pacer_effective_cfg(&view, &defaults, &eff);
	ck_assert_int_eq(eff.pacing, PACING_ADAPTIVE); /* the CLI session is newer */
	ck_assert_uint_eq(eff.frequency, 100);
	view.sess[1].serial = 0; /* now the recording is the newest */
	pacer_effective_cfg(&view, &defaults, &eff);
	ck_assert_int_eq(eff.pacing, PACING_FREQUENCY);
	ck_assert_uint_eq(eff.frequency, 2);
	ck_assert_uint_eq(eff.bandwidth, 1000);
	ck_assert_uint_eq(defaults.frequency, 100); /* untouched */
}
END_TEST

START_TEST(bad_requests)
{
	static const struct {
		const char *line;
		int err;
	} cases[] = {
		{ "not json", EPROTO },
		{ "[1]", EPROTO },
		{ "{\"v\":1}", EPROTO },
		{ "{\"v\":2,\"cmd\":\"status\"}", EPROTO },
		{ "{\"v\":1,\"cmd\":7}", EPROTO },
		{ "{\"v\":1,\"cmd\":\"nope\"}", EINVAL },
		{ "{\"v\":1,\"cmd\":\"record\",\"subbuf_size\":3,\"path\":\"/tmp\"}", EINVAL },
		{ "{\"v\":1,\"cmd\":\"record\",\"subbuf_count\":-1,\"path\":\"/tmp\"}", EINVAL },
		{ "{\"v\":1,\"cmd\":\"record\",\"recording_frequency\":0,\"path\":\"/tmp\"}", EINVAL },
		{ "{\"v\":1,\"cmd\":\"record\",\"pacing\":\"fast\",\"path\":\"/tmp\"}", EINVAL },
		{ "{\"v\":1,\"cmd\":\"record\",\"path\":\"relative\"}", EINVAL },
		{ "{\"v\":1,\"cmd\":\"record\",\"path\":7}", EINVAL },
		{ "{\"v\":1,\"cmd\":\"stop\",\"session\":[]}", EINVAL },
		{ "{\"v\":1,\"cmd\":\"stop\"}", ENOENT }, /* no session active */
		{ "{\"v\":1,\"cmd\":\"wait\"}", ENOENT },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cJSON *r = ask(cases[i].line, CTL_REPLY_ERROR, NULL);
		ck_assert_msg(err_of(r) == cases[i].err, "%s: errno %d", cases[i].line, err_of(r));
		cJSON_Delete(r);
	}
	/* a refused record leaves the pacing alone */
	ck_assert_int_eq(cfg.pacing, PACING_FREQUENCY);
	ck_assert_uint_eq(cfg.frequency, 42);
}
END_TEST

/* Without a name, stop means the caller's own latest recording: never a
 * session of the lttng CLI or of another user. Named, another user's
 * recording or a CLI session is refused to a non-root caller. */
START_TEST(stop_is_the_callers_own)
{
	strcpy(view.active[0], "a");
	strcpy(view.active[1], "b");
	view.n_active = 2;
	struct lttng_view_rec rec = { .name = "b", .path = "/t/b", .uid = 4242, .gid = 4242 };
	ck_assert_int_eq(lttng_view_add_rec(&view, &rec), 0);
	peer.uid = 4343;
	cJSON *r = ask("{\"v\":1,\"cmd\":\"stop\"}", CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), ENOENT);
	ck_assert_ptr_nonnull(strstr(
		cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_ERROR)->valuestring, "a, b"));
	cJSON_Delete(r);
	r = ask("{\"v\":1,\"cmd\":\"stop\",\"session\":\"b\"}", CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), EPERM);
	cJSON_Delete(r);
	r = ask("{\"v\":1,\"cmd\":\"stop\",\"session\":\"a\"}", CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), EPERM);
	cJSON_Delete(r);
	peer.uid = 0;
}
END_TEST

START_TEST(start_end)
{
	struct ctl_accept a;
	struct ctl_why why;
	cJSON *r = ask("{\"v\":1,\"cmd\":\"start\"}", CTL_REPLY_RESULT, NULL);
	ck_assert_int_eq(ctl_decode_accept(r, &a, &why), 0);
	ck_assert(!a.accepted); /* no session */
	ck_assert_ptr_nonnull(a.reason);
	cJSON_Delete(r);
	r = ask("{\"v\":1,\"cmd\":\"end\"}", CTL_REPLY_RESULT, NULL);
	ck_assert_int_eq(ctl_decode_accept(r, &a, &why), 0);
	ck_assert(a.accepted);
	ck_assert_ptr_null(a.reason);
	cJSON_Delete(r);
}
END_TEST

/* The wait reply due at `now`, decoded; NULL when none is due. */
static cJSON *poll_at(struct wait_req *w, int64_t now, bool *done, enum ctl_reply_type want)
{
	cJSON *o = wait_poll(w, now, done);
	if (!o)
		return NULL;
	char *s = caret_ctl_enc_line(o);
	cJSON *root;
	enum ctl_reply_type type;
	struct ctl_why why;
	ck_assert_int_eq(ctl_reply_parse(s, strlen(s), &root, &type, &why), 0);
	ck_assert_int_eq(type, want);
	free(s);
	return root;
}

START_TEST(wait_progress_then_result)
{
	strcpy(view.active[0], "s1");
	view.n_active = 1;
	caret_ctl_begin_replay(&agent.seg);
	struct wait_req *w;
	ask("{\"v\":1,\"cmd\":\"wait\",\"timeout_ms\":500}", CTL_REPLY_RESULT, &w);
	bool done;
	int64_t t = 1000 * MS;
	cJSON *r = poll_at(w, t, &done, CTL_REPLY_PROGRESS);
	ck_assert(!done);
	ck_assert_ptr_nonnull(r);
	struct ctl_progress p;
	struct ctl_why why;
	ck_assert_int_eq(ctl_decode_progress(r, &p, &why), 0);
	ck_assert_int_eq(p.total, 1);
	ck_assert_int_eq(p.recording, 0);
	cJSON_Delete(r);
	/* progress about every 100 ms, not at every poll */
	ck_assert_ptr_null(poll_at(w, t + 10 * MS, &done, CTL_REPLY_PROGRESS));
	ck_assert(!done);
	r = poll_at(w, t + 100 * MS, &done, CTL_REPLY_PROGRESS);
	ck_assert_ptr_nonnull(r);
	cJSON_Delete(r);
	/* the deadline: a failed result naming the laggard */
	r = poll_at(w, t + 500 * MS, &done, CTL_REPLY_RESULT);
	ck_assert(done);
	struct ctl_wait_result res;
	ck_assert_msg(ctl_decode_wait(r, &res, &why) == 0, "%s", why.msg);
	ck_assert(!res.ok);
	ck_assert_uint_eq(res.n, 1);
	ck_assert_int_eq(res.lag[0].pid, getpid());
	ck_assert_str_eq(res.lag[0].state, "PREPARE");
	ctl_wait_result_free(&res);
	cJSON_Delete(r);
	wait_free(w);

	/* everyone recording: done before the deadline */
	caret_ctl_set_state(&agent.seg, CARET_STATE_RECORD);
	ask("{\"v\":1,\"cmd\":\"wait\"}", CTL_REPLY_RESULT, &w);
	r = poll_at(w, t, &done, CTL_REPLY_RESULT);
	ck_assert(done);
	ck_assert_int_eq(ctl_decode_wait(r, &res, &why), 0);
	ck_assert(res.ok);
	ck_assert_uint_eq(res.n, 0);
	ctl_wait_result_free(&res);
	cJSON_Delete(r);
	wait_free(w);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("commands");
	TCase *tc = tcase_create("commands");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, status_and_list);
	tcase_add_test(tc, bad_requests);
	tcase_add_test(tc, stop_is_the_callers_own);
	tcase_add_test(tc, list_gives_reasons);
	tcase_add_test(tc, recording_options_are_its_own);
	tcase_add_test(tc, start_end);
	tcase_add_test(tc, wait_progress_then_result);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
