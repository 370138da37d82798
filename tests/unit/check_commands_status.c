/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caretd's commands on what they read (the recordings table, the agents)
 * and the wait module: status, list, wait. Part of check_commands.
 */
#include <check.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/server/commands.h"
#include "daemon/agents/pacer.h"
#include "daemon/agents/wait.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_dec.h"
#include "proto/caret_ctl_enc.h"
#include "proto/caret_ctl_events.h"
#include "proto/caret_ctl_reply.h"

#include "tests/unit/cmd_fixture.h"


START_TEST(recording_shares)
{
	/* B17: users' shares of the table, and root's reserve */
	char err[256];
	struct recording rec = { .uid = 1000, .armed = true };
	for (int i = 0; i < RECORDINGS_USER_ARMED; i++) {
		ck_assert_int_eq(recordings_admit(&recs, 1000, true, err, sizeof(err)), 0);
		snprintf(rec.name, sizeof(rec.name), "a%d", i);
		ck_assert_int_eq(recordings_add(&recs, &rec), 0);
	}
	ck_assert_int_eq(recordings_admit(&recs, 1000, true, err, sizeof(err)), -EDQUOT);
	ck_assert_ptr_nonnull(strstr(err, "armed"));
	ck_assert_int_eq(recordings_admit(&recs, 1001, true, err, sizeof(err)), 0);
	rec.armed = false;
	for (int i = RECORDINGS_USER_ARMED; i < RECORDINGS_USER; i++) {
		ck_assert_int_eq(recordings_admit(&recs, 1000, false, err, sizeof(err)), 0);
		snprintf(rec.name, sizeof(rec.name), "a%d", i);
		ck_assert_int_eq(recordings_add(&recs, &rec), 0);
	}
	ck_assert_int_eq(recordings_admit(&recs, 1000, false, err, sizeof(err)), -EDQUOT);
	/* other users fill what is left to users */
	int users = RECORDINGS_USER;
	for (uid_t u = 2000; users < RECORDINGS_MAX - RECORDINGS_ROOT_RESERVE; u++)
		for (int i = 0; i < RECORDINGS_USER &&
				users < RECORDINGS_MAX - RECORDINGS_ROOT_RESERVE; i++, users++) {
			ck_assert_int_eq(recordings_admit(&recs, u, false, err, sizeof(err)), 0);
			rec.uid = u;
			snprintf(rec.name, sizeof(rec.name), "u%d-%d", (int)u, i);
			ck_assert_int_eq(recordings_add(&recs, &rec), 0);
		}
	ck_assert_int_eq(recordings_admit(&recs, 3999, false, err, sizeof(err)), -ENOSPC);
	ck_assert_ptr_nonnull(strstr(err, "root"));
	/* root's reserve */
	rec.uid = 0;
	for (int i = 0; i < RECORDINGS_ROOT_RESERVE; i++) {
		ck_assert_int_eq(recordings_admit(&recs, 0, true, err, sizeof(err)), 0);
		snprintf(rec.name, sizeof(rec.name), "r%d", i);
		ck_assert_int_eq(recordings_add(&recs, &rec), 0);
	}
	ck_assert_int_eq(recordings_admit(&recs, 0, false, err, sizeof(err)), -ENOSPC);
	/* a full table refuses a record before any session exists: nothing
	 * runs unremembered */
	cJSON *r = ask("{\"v\":1,\"cmd\":\"record\",\"path\":\"/nonexistent/x\"}",
		       CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), ENOSPC);
	cJSON_Delete(r);
}
END_TEST

START_TEST(status_and_list)
{
	strcpy(view.active[0], "s1");
	view.n_active = 1;
	struct recording rec = { .name = "s1", .path = "/t/s1" };
	ck_assert_int_eq(recordings_add(&recs, &rec), 0);
	cJSON *r = ask("{\"v\":1,\"cmd\":\"status\"}", CTL_REPLY_RESULT, NULL);
	struct ctl_status st;
	struct ctl_why why;
	ck_assert_msg(ctl_decode_status(r, &st, &why) == 0, "%s", why.msg);
	ck_assert_int_eq(st.pid, getpid());
	ck_assert_str_eq(st.pacing, "frequency");
	ck_assert_int_eq(st.freq, 42);
	ck_assert(st.lttng_reachable);
	ck_assert_str_eq(st.sessions[0], "s1");
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
	caret_drive_begin_replay(&agent.seg, CARET_STATE_WAIT);
	cJSON *r = ask("{\"v\":1,\"cmd\":\"list\"}", CTL_REPLY_RESULT, NULL);
	struct ctl_agents ag;
	struct ctl_why why;
	ck_assert_int_eq(ctl_decode_agents(r, &ag, &why), 0);
	ck_assert_str_eq(ag.a[0].state, "PREPARE");
	ck_assert_ptr_nonnull(ag.a[0].reason);
	ck_assert_ptr_nonnull(strstr(ag.a[0].reason, "replay thread"));
	ctl_agents_free(&ag);
	cJSON_Delete(r);
	caret_drive_set_state(&agent.seg, CARET_STATE_PREPARE, CARET_STATE_WAIT);
	r = ask("{\"v\":1,\"cmd\":\"list\"}", CTL_REPLY_RESULT, NULL);
	ck_assert_int_eq(ctl_decode_agents(r, &ag, &why), 0);
	ck_assert_ptr_null(ag.a[0].reason); /* idle: nothing to explain */
	ctl_agents_free(&ag);
	cJSON_Delete(r);
}
END_TEST

/* list names a process's nodes from its cache, "namespace/name", up to
 * AGENT_NODES_MAX bytes of names (registry.c allocates them as they
 * come), and again when the cache grows. */
static int listed_nodes(char names[][160], int max)
{
	cJSON *r = ask("{\"v\":1,\"cmd\":\"list\"}", CTL_REPLY_RESULT, NULL);
	struct ctl_agents ag;
	struct ctl_why why;
	ck_assert_int_eq(ctl_decode_agents(r, &ag, &why), 0);
	int n = (int)ag.a[0].n_nodes;
	for (int i = 0; i < n && i < max; i++)
		snprintf(names[i], 160, "%s", ag.a[0].nodes[i]);
	ctl_agents_free(&ag);
	cJSON_Delete(r);
	return n;
}

START_TEST(list_names_nodes_up_to_the_cap)
{
	static char names[200][160];
	ck_assert_int_eq(listed_nodes(names, 200), 0);
	union caret_arg a[] = { CARET_P(1), CARET_P(0), CARET_S("talker"), CARET_S("/") };
	ck_assert_int_eq(caret_seg_append(&agent.seg, CARET_KIND_rcl_node_init, 1, a), 0);
	union caret_arg b[] = { CARET_P(2), CARET_P(0), CARET_S("listener"), CARET_S("/ns") };
	ck_assert_int_eq(caret_seg_append(&agent.seg, CARET_KIND_rcl_node_init, 2, b), 0);
	ck_assert_int_eq(listed_nodes(names, 200), 2);
	ck_assert_str_eq(names[0], "/talker");
	ck_assert_str_eq(names[1], "/ns/listener");
	/* 100-byte names: "/" + 100 + NUL each; 7 + 13 bytes used so far */
	char name[101];
	memset(name, 'n', 100);
	name[100] = '\0';
	for (int i = 0; i < 60; i++) {
		union caret_arg n[] = { CARET_P(10 + i), CARET_P(0), CARET_S(name), CARET_S("/") };
		ck_assert_int_eq(caret_seg_append(&agent.seg, CARET_KIND_rcl_node_init, 10 + i, n),
				 0);
	}
	int want = 2 + (AGENT_NODES_MAX - 20) / 102;
	ck_assert_int_eq(listed_nodes(names, 200), want);
	ck_assert_uint_eq(strlen(names[want - 1]), 101);
	ck_assert_uint_le(agent.nodes_cap, AGENT_NODES_MAX);
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
	struct recording rec = { .name = "rec", .pacing = PACING_FREQUENCY, .frequency = 2 };
	ck_assert_int_eq(recordings_add(&recs, &rec), 0);
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
	caret_drive_begin_replay(&agent.seg, CARET_STATE_WAIT);
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
	caret_drive_set_state(&agent.seg, CARET_STATE_PREPARE, CARET_STATE_RECORD);
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

/* A member's wait counts and names only their own processes, as their
 * recording traces only those (caretd(8)): whether root's session makes
 * root's process seen must not change their count. */
START_TEST(wait_of_member_counts_theirs)
{
	if (geteuid() != 0)
		return; /* only root's caretd scopes a member's recording */
	strcpy(view.active[0], "s1");
	view.n_active = 1;
	caret_drive_begin_replay(&agent.seg, CARET_STATE_WAIT); /* root's, replaying */
	const char *line = "{\"v\":1,\"cmd\":\"wait\",\"timeout_ms\":500}";
	struct wait_req *mine, *roots;
	peer.uid = 1000;
	ask(line, CTL_REPLY_RESULT, &mine);
	peer.uid = 0;
	ask(line, CTL_REPLY_RESULT, &roots);
	registry_note_exit(&reg, &agent, CARET_STATE_PREPARE); /* one of root's gone meanwhile */

	bool done;
	struct ctl_wait_result res;
	struct ctl_why why;
	cJSON *r = poll_at(mine, 1000 * MS, &done, CTL_REPLY_RESULT);
	ck_assert(done);
	ck_assert_msg(ctl_decode_wait(r, &res, &why) == 0, "%s", why.msg);
	ck_assert(res.ok);
	ck_assert_int_eq(res.total, 0);
	ck_assert_uint_eq(res.n, 0); /* neither root's laggard nor root's exit named */
	ctl_wait_result_free(&res);
	cJSON_Delete(r);
	wait_free(mine);

	/* root's wait: the same process counted, and both named */
	r = poll_at(roots, 10000 * MS, &done, CTL_REPLY_RESULT);
	ck_assert(done);
	ck_assert_msg(ctl_decode_wait(r, &res, &why) == 0, "%s", why.msg);
	ck_assert(!res.ok);
	ck_assert_int_eq(res.total, 1);
	ck_assert_uint_eq(res.n, 2);
	ctl_wait_result_free(&res);
	cJSON_Delete(r);
	wait_free(roots);
}
END_TEST

/* A process whose cache was complete before the request is among the
 * agents of every request that reads them, though caretd's loop has not
 * yet seen its segment (the CI failure: `record` right after "ready"
 * counted 0/0 processes). */
START_TEST(complete_segment_seen_before_its_event)
{
	int go[2];
	ck_assert_int_eq(pipe(go), 0);
	pid_t child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		struct caret_seg s;
		char c = caret_seg_create(&s, 1 << 20, "late", "jazzy") == 0 ? 'y' : 'n';
		if (write(go[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(go[1]);
	char c = 0;
	ck_assert_int_eq(read(go[0], &c, 1), 1);
	close(go[0]);
	ck_assert_int_eq(c, 'y');
	const char *cmds[] = { "list", "status", "list" };
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char line[64];
		snprintf(line, sizeof(line), "{\"v\":1,\"cmd\":\"%s\"}", cmds[i]);
		cJSON *r = ask(line, CTL_REPLY_RESULT, NULL);
		struct ctl_agents ag;
		struct ctl_why why;
		ck_assert_int_eq(ctl_decode_agents(r, &ag, &why), 0);
		ck_assert_uint_eq(ag.n, 2); /* once, however often it is asked */
		ck_assert(ag.a[0].pid == child || ag.a[1].pid == child);
		ctl_agents_free(&ag);
		cJSON_Delete(r);
	}
	kill(child, SIGKILL);
	ck_assert_int_eq(waitpid(child, NULL, 0), child);
	registry_sweep(&reg); /* reclaims the dead child's segment and entry */
	ck_assert_ptr_eq(reg.head, &agent);
	ck_assert_ptr_null(agent.next);
}
END_TEST

void add_status_tests(TCase *tc)
{
	tcase_add_test(tc, status_and_list);
	tcase_add_test(tc, complete_segment_seen_before_its_event);
	tcase_add_test(tc, recording_shares);
	tcase_add_test(tc, list_gives_reasons);
	tcase_add_test(tc, list_names_nodes_up_to_the_cap);
	tcase_add_test(tc, recording_options_are_its_own);
	tcase_add_test(tc, wait_progress_then_result);
	tcase_add_test(tc, wait_of_member_counts_theirs);
}
