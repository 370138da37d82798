/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caretd's events command over the agents' caches: pages joined by their
 * tokens, filters, hostile strings. Part of check_commands.
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

void add_events_tests(TCase *tc)
{
	tcase_add_test(tc, events_pages);
	tcase_add_test(tc, events_hostile_strings_fit_a_line);
}
