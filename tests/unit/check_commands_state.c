/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caretd's commands on what they read (the recordings table, the agents,
 * their caches) and the wait module: status, list, wait, events.
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

/* The events request, paged with its tokens: every page joined equals one
 * big read; filters; bad requests. */
static cJSON *ask_events(const char *extra, enum ctl_reply_type want)
{
	char line[512];
	snprintf(line, sizeof(line), "{\"v\":1,\"cmd\":\"events\"%s}", extra);
	return ask(line, want, NULL);
}

struct ev_key {
	int64_t ts, index;
};

/* Pages of size k joined, following the "next" tokens; returns the count. */
static int pages_of(int k, struct ev_key *out, int max)
{
	char extra[256], next[128] = "";
	struct ctl_why why;
	int got = 0;
	for (;;) {
		int off = snprintf(extra, sizeof(extra), ",\"count\":%d", k);
		if (next[0])
			snprintf(extra + off, sizeof(extra) - off, ",\"after\":\"%s\"", next);
		cJSON *r = ask_events(extra, CTL_REPLY_RESULT);
		struct ctl_events_page p;
		ck_assert_int_eq(ctl_decode_events(r, &p, &why), 0);
		int n = cJSON_GetArraySize(p.events);
		for (int i = 0; i < n; i++) {
			struct ctl_event a;
			ck_assert_int_eq(ctl_decode_event(cJSON_GetArrayItem(p.events, i), i, &a, &why),
					 0);
			ck_assert_int_lt(got, max);
			out[got++] = (struct ev_key){ a.ts, a.index };
		}
		snprintf(next, sizeof(next), "%s", p.next);
		bool more = p.more;
		cJSON_Delete(r);
		if (!more)
			return got;
		/* a page is cut short only by the line-size budget */
		ck_assert_int_ge(n, k < 80 ? k : 80);
	}
}

START_TEST(events_pages)
{
	for (int i = 0; i < 120; i++) {
		char name[32];
		snprintf(name, sizeof(name), "node%d", i);
		union caret_arg n[] = { CARET_P(0x1000 + i), CARET_P(0x2000), CARET_S(name),
					CARET_S("/ns") };
		union caret_arg c[] = { CARET_P(0x3000 + i) };
		/* timestamps long past (outside caretd's reorder window), with ties */
		ck_assert_int_eq(caret_seg_append(&agent.seg,
						  i % 2 ? CARET_KIND_rcl_node_init : CARET_KIND_rcl_init,
						  1000 + i / 3, i % 2 ? n : c),
				 0);
	}
	cJSON *one = ask_events(",\"count\":1000", CTL_REPLY_RESULT);
	struct ctl_events_page p1;
	struct ctl_why why;
	ck_assert_int_eq(ctl_decode_events(one, &p1, &why), 0);
	/* the line-size budget cuts this page, and says so */
	ck_assert_int_gt(cJSON_GetArraySize(p1.events), 40);
	ck_assert(p1.more == (cJSON_GetArraySize(p1.events) < 120));
	struct ctl_event e;
	ck_assert_int_eq(ctl_decode_event(cJSON_GetArrayItem(p1.events, 1), 1, &e, &why), 0);
	ck_assert_str_eq(e.kind, "rcl_node_init");
	ck_assert_int_eq(e.ts, 1000);
	ck_assert_int_eq(e.pid, getpid());
	ck_assert_str_eq(ctl_event_str(&e, "node_name"), "node1");
	uint64_t h;
	ck_assert_int_eq(ctl_event_u64(&e, "node_handle", &h), 0);
	ck_assert_uint_eq(h, 0x1001);
	struct ev_key all[200], pg[200];
	ck_assert_int_eq(pages_of(10000, all, 200), 120);
	for (int i = 1; i < 120; i++)
		ck_assert(all[i - 1].ts < all[i].ts ||
			  (all[i - 1].ts == all[i].ts && all[i - 1].index < all[i].index));
	for (int k = 1; k <= 8; k++) {
		ck_assert_int_eq(pages_of(k, pg, 200), 120);
		ck_assert_mem_eq(pg, all, sizeof(all[0]) * 120);
	}
	/* filters: kind, pid, interval */
	cJSON *r = ask_events(",\"count\":1000,\"kinds\":[\"rcl_init\"],\"since\":1010,\"until\":1020",
			      CTL_REPLY_RESULT);
	struct ctl_events_page p;
	ck_assert_int_eq(ctl_decode_events(r, &p, &why), 0);
	ck_assert_int_eq(cJSON_GetArraySize(p.events), 15);
	cJSON_Delete(r);
	r = ask_events(",\"pids\":[1]", CTL_REPLY_RESULT);
	ck_assert_int_eq(ctl_decode_events(r, &p, &why), 0);
	ck_assert_int_eq(cJSON_GetArraySize(p.events), 0);
	cJSON_Delete(r);
	static const char *const bad[] = { ",\"kinds\":[\"nope\"]", ",\"count\":0",
					   ",\"after\":\"Bxyz\"", ",\"pids\":[\"x\"]",
					   ",\"since\":\"x\"" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		r = ask_events(bad[i], CTL_REPLY_ERROR);
		ck_assert_int_eq(err_of(r), EINVAL);
		cJSON_Delete(r);
	}
	cJSON_Delete(one);
}
END_TEST

/* Hostile strings (longest allowed, every byte a control character) in
 * many records: each page still fits one protocol line, and paging goes on
 * until every record was served. */
START_TEST(events_hostile_strings_fit_a_line)
{
	char big[CARET_STR_MAX + 1];
	for (size_t i = 0; i < CARET_STR_MAX; i++)
		big[i] = (char)(1 + i % 31);
	big[CARET_STR_MAX] = '\0';
	for (int i = 0; i < 40; i++) {
		union caret_arg n[] = { CARET_P(i), CARET_P(0), CARET_S(big), CARET_S(big) };
		ck_assert_int_eq(caret_seg_append(&agent.seg, CARET_KIND_rcl_node_init, 5000 + i, n),
				 0);
	}
	char extra[256], next[128] = "";
	int got = 0, pages = 0;
	for (;;) {
		int off = snprintf(extra, sizeof(extra), "{\"v\":1,\"cmd\":\"events\",\"count\":10000");
		if (next[0])
			off += snprintf(extra + off, sizeof(extra) - off, ",\"after\":\"%s\"", next);
		snprintf(extra + off, sizeof(extra) - off, "}");
		struct cmd_out out;
		command_run(&ctx, &peer, extra, 1000 * MS, &out);
		char *line = caret_ctl_enc_line(out.reply);
		ck_assert_ptr_nonnull(line);
		ck_assert_uint_le(strlen(line), CARET_CTL_MAX_LINE);
		cJSON *r = cJSON_Parse(line);
		free(line);
		struct ctl_events_page p;
		struct ctl_why why;
		ck_assert_int_eq(ctl_decode_events(r, &p, &why), 0);
		int n = cJSON_GetArraySize(p.events);
		ck_assert_int_gt(n + !p.more, 0);
		got += n;
		pages++;
		snprintf(next, sizeof(next), "%s", p.next);
		bool more = p.more;
		cJSON_Delete(r);
		if (!more)
			break;
	}
	ck_assert_int_eq(got, 40);
	ck_assert_int_gt(pages, 2);
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

/* issue 32: a recording is saved whole after every change, and comes
 * back whole at start-up: every option of its own, its filter, its
 * flight recorder's ring, trigger and count, -c, its arming (the
 * directory a relay's: no path, so no check against LTTng's). */
START_TEST(recording_saved_and_restored_whole)
{
	char dir[64], file[128];
	snprintf(dir, sizeof(dir), "/tmp/caret-ut-whole-%d", (int)getpid());
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	snprintf(file, sizeof(file), "%s/caretd.recordings", dir);
	snprintf(recs.state_file, sizeof(recs.state_file), "%s", file);
	struct recording r = { .name = "whole", .uid = 4242, .gid = 4343, .pacing = PACING_FREQUENCY,
			       .frequency = 77, .subbuf_size = 131072, .subbuf_count = 8,
			       .dir_dev = 12, .dir_ino = 34, .armed = true, .armed_open = true,
			       .all_hosts = true, .armer_pid = 99, .armer_start = 1234,
			       .ring = { .on = true, .written = 5 },
			       .trig = { .wanted = true, .on = true, .event = "my_provider:ev",
					 .filter = "x > 3 && y == \"a b\"", .fired = 9, .coalesced = 2 },
			       .clock = { .wanted = true, .domain = 17 } };
	struct caret_filter_lists lists = { { "/talker\\d", "", "/chatter", "" } };
	ck_assert_int_eq(caret_filter_encode(&lists, &r.filter), 0);
	ck_assert_int_eq(recordings_add(&recs, &r), 0);

	static struct recordings back;
	recordings_init(&back, NULL, recording_features, recording_n_features);
	snprintf(back.state_file, sizeof(back.state_file), "%s", file);
	char names[1][CARET_LTTNG_NAME_MAX] = { "whole" };
	recordings_load(&back, names, 1);
	const struct recording *b = recordings_find(&back, "whole");
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(b->uid, 4242);
	ck_assert_uint_eq(b->gid, 4343);
	ck_assert_int_eq(b->pacing, PACING_FREQUENCY);
	ck_assert_uint_eq(b->frequency, 77);
	ck_assert_uint_eq(b->subbuf_size, 131072);
	ck_assert_uint_eq(b->subbuf_count, 8);
	ck_assert_uint_eq(b->dir_dev, 12);
	ck_assert_uint_eq(b->dir_ino, 34);
	ck_assert(b->armed && b->armed_open && b->all_hosts);
	ck_assert_int_eq(b->armer_pid, 99);
	ck_assert_uint_eq(b->armer_start, 1234);
	struct caret_filter_text ft;
	ck_assert_int_eq(caret_filter_decode(&b->filter, &ft), 0);
	ck_assert_str_eq(ft.f.list[CARET_FILTER_SELECT_NODES], "/talker\\d");
	ck_assert_str_eq(ft.f.list[2], "/chatter");
	ck_assert(b->ring.on);
	ck_assert_uint_eq(b->ring.written, 5);
	ck_assert(b->trig.on && b->trig.wanted);
	ck_assert_str_eq(b->trig.event, "my_provider:ev");
	ck_assert_str_eq(b->trig.filter, "x > 3 && y == \"a b\"");
	ck_assert_uint_eq(b->trig.fired, 9);
	ck_assert_uint_eq(b->trig.coalesced, 2);
	ck_assert(b->clock.wanted && b->clock.respawn);
	ck_assert_uint_eq(b->clock.domain, 17);
	/* what the view's entry of its session will show the scheduling */
	ck_assert_ptr_eq(b->pub.filter, &b->filter);
	ck_assert_uint_eq(b->pub.frequency, 77);
	unlink(file);
	rmdir(dir);
}
END_TEST

/* The state file's text ("" when there is none). */
static const char *state_text(const char *file, char *buf, size_t len)
{
	buf[0] = '\0';
	FILE *f = fopen(file, "r");
	if (f) {
		buf[fread(buf, 1, len - 1, f)] = '\0';
		fclose(f);
	}
	return buf;
}

/* What `record` makes is saved once it is whole (recordings_make_finish), and an
 * armed one's `go` too (recordings_go): a caretd killed right after either
 * finds it as the command left it. (Read back as text: restoring checks the
 * trace directory against LTTng's, which the fake session daemon has not.) */
START_TEST(record_and_go_saved)
{
	char dir[64], file[128];
	snprintf(dir, sizeof(dir), "/tmp/caret-ut-made-%d", (int)getpid());
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	snprintf(file, sizeof(file), "%s/caretd.recordings", dir);
	snprintf(recs.state_file, sizeof(recs.state_file), "%s", file);
	peer.uid = 4242;
	cJSON *r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"m1\",\"path\":\"/t\","
		       "\"arm\":true}", CTL_REPLY_RESULT, NULL);
	cJSON_Delete(r);
	static char armed[8192], went[8192];
	/* the session's name, hex-encoded, on its line */
	ck_assert_ptr_nonnull(strstr(state_text(file, armed, sizeof(armed)), " 6d31 "));
	r = ask("{\"v\":1,\"cmd\":\"record\",\"go\":\"m1\"}", CTL_REPLY_RESULT, NULL);
	cJSON_Delete(r);
	ck_assert(!recordings_find(&recs, "m1")->armed);
	ck_assert_ptr_nonnull(strstr(state_text(file, went, sizeof(went)), " 6d31 "));
	ck_assert_str_ne(went, armed); /* no longer saved as armed */
	recs.state_file[0] = '\0';
	unlink(file);
	rmdir(dir);
}
END_TEST

/* The file's inode: each save writes a new file and renames it over. */
static ino_t state_ino(const char *file)
{
	struct stat st;
	return stat(file, &st) == 0 ? st.st_ino : 0;
}

/* One save per command, and only for a command that changed the table:
 * `record` saves (once, at its end), `status` changes nothing and leaves
 * the file as it was, a refused `go` neither. */
START_TEST(saved_only_after_a_change)
{
	char dir[64], file[128];
	snprintf(dir, sizeof(dir), "/tmp/caret-ut-once-%d", (int)getpid());
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	snprintf(file, sizeof(file), "%s/caretd.recordings", dir);
	snprintf(recs.state_file, sizeof(recs.state_file), "%s", file);
	peer.uid = 4242;
	cJSON_Delete(ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"o1\",\"path\":\"/t\","
			 "\"arm\":true}", CTL_REPLY_RESULT, NULL));
	ino_t made = state_ino(file);
	ck_assert_uint_ne(made, 0);
	ck_assert(!recs.dirty);
	cJSON_Delete(ask("{\"v\":1,\"cmd\":\"status\"}", CTL_REPLY_RESULT, NULL));
	ck_assert_uint_eq(state_ino(file), made);
	cJSON_Delete(ask("{\"v\":1,\"cmd\":\"record\",\"go\":\"nosuch\"}", CTL_REPLY_ERROR,
			 NULL));
	ck_assert_uint_eq(state_ino(file), made);
	cJSON_Delete(ask("{\"v\":1,\"cmd\":\"record\",\"go\":\"o1\"}", CTL_REPLY_RESULT, NULL));
	ck_assert_uint_ne(state_ino(file), made);
	ck_assert(!recs.dirty);
	recs.state_file[0] = '\0';
	unlink(file);
	rmdir(dir);
}
END_TEST

/* A rotation's part of its recording's line, and back (the chunks named
 * incomplete or holding copies included). */
START_TEST(rotation_saved_and_restored_whole)
{
	struct recording a = { .name = "rw", .path = "/x/rw", .uid = 5, .gid = 6, .dir_dev = 7,
			       .dir_ino = 8 };
	a.rot = (struct rotation){ .used = true, .o = { .every_ms = 1000, .keep = 3, .max_size = 1 << 30 },
			      .verdict_upto = 5, .rotations = 4, .removed = 1,
			      .incomplete = { 2, 3 }, .n_incomplete = 2, .dups = { 4 },
			      .n_dups = 1 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	rotation_feature.save(&a, f);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, " rot="));
	static struct recording b = { .name = "rw", .path = "/x/rw", .uid = 5, .gid = 6,
				      .dir_dev = 7, .dir_ino = 8 };
	ck_assert_int_eq(rotation_feature.restore(&recs, &b, strstr(buf, "rot=") + 4), 0);
	free(buf);
	ck_assert(b.rot.used && !b.rot.armed && b.rot.adopting);
	ck_assert_uint_eq(b.rot.o.every_ms, 1000);
	ck_assert_uint_eq(b.rot.o.keep, 3);
	ck_assert_uint_eq(b.rot.o.max_size, 1 << 30);
	ck_assert_uint_eq(b.rot.verdict_upto, 5);
	ck_assert_uint_eq(b.rot.rotations, 4);
	ck_assert_uint_eq(b.rot.removed, 1);
	ck_assert_uint_eq(b.rot.n_incomplete, 2);
	ck_assert_uint_eq(b.rot.incomplete[1], 3);
	ck_assert_uint_eq(b.rot.n_dups, 1);
	ck_assert_uint_eq(b.rot.dups[0], 4);
	ck_assert_uint_eq(b.rot.dev, 7);
	ck_assert_str_eq(b.rot.path, "/x/rw");
	/* an armed one's options only, and only for a recording still armed */
	a.armed = a.rot.armed = true;
	f = open_memstream(&buf, &len);
	rotation_feature.save(&a, f);
	fclose(f);
	b = (struct recording){ .name = "rw", .path = "/x/rw" };
	ck_assert_int_lt(rotation_feature.restore(&recs, &b, strstr(buf, "rot=") + 4), 0);
	b.armed = true;
	ck_assert_int_eq(rotation_feature.restore(&recs, &b, strstr(buf, "rot=") + 4), 0);
	ck_assert(b.rot.armed && !b.rot.adopting);
	free(buf);
}
END_TEST

void add_state_tests(TCase *tc)
{
	tcase_add_test(tc, recording_saved_and_restored_whole);
	tcase_add_test(tc, rotation_saved_and_restored_whole);
	tcase_add_test(tc, record_and_go_saved);
	tcase_add_test(tc, saved_only_after_a_change);
	tcase_add_test(tc, status_and_list);
	tcase_add_test(tc, complete_segment_seen_before_its_event);
	tcase_add_test(tc, recording_shares);
	tcase_add_test(tc, list_gives_reasons);
	tcase_add_test(tc, list_names_nodes_up_to_the_cap);
	tcase_add_test(tc, recording_options_are_its_own);
	tcase_add_test(tc, wait_progress_then_result);
	tcase_add_test(tc, wait_of_member_counts_theirs);
	tcase_add_test(tc, events_pages);
	tcase_add_test(tc, events_hostile_strings_fit_a_line);
}
