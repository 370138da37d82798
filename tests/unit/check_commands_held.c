/* SPDX-License-Identifier: Apache-2.0 */
/*
 * record's "hold" (daemon/server/cmd_hold.c, cmd_hold_record): the record
 * request's own connection holds the recording from its result on, with
 * LTTng faked (cmd_fixture.c); status's "held"; and a recording's
 * --all-hosts kept across a restart when it is not armed
 * (daemon/recording/recordings_state.c). A real session daemon and
 * caretctl: tests/integration/test_record_hold.py.
 */
#include <check.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/recording/features.h"
#include "daemon/recording/recordings.h"
#include "daemon/server/cmd_hold.h"
#include "proto/caret_ctl_dec.h"
#include "proto/caret_ctl_recordings.h"
#include "cmd_fixture.h"

/* A record of name asking for its hold: its request goes on, its first
 * line the result, held. */
static struct wait_req *record_held(const char *name)
{
	char line[200];
	snprintf(line, sizeof(line), "{\"v\":1,\"cmd\":\"record\",\"session\":\"%s\",\"path\":\"/t\","
		 "\"hold\":true}", name);
	cJSON *o;
	struct wait_req *w = ask_slow(line, &o);
	struct ctl_record_result rec;
	struct ctl_why why;
	ck_assert_msg(ctl_decode_record(o, &rec, &why) == 0, "%s", why.msg);
	ck_assert_str_eq(rec.session, name);
	ck_assert(rec.held);
	cJSON_Delete(o);
	expect_quiet(w);
	return w;
}

/* status's "held" of session: -1 when status does not list it. */
static int held_in_status(const char *session)
{
	cJSON *r = ask("{\"v\":1,\"cmd\":\"status\"}", CTL_REPLY_RESULT, NULL);
	struct caret_ctl_recordings recs_out;
	char why[160];
	ck_assert_int_eq(caret_ctl_recordings_decode(r, &recs_out, why, sizeof(why)), 0);
	int held = -1;
	for (size_t i = 0; i < recs_out.n_recordings; i++)
		if (!strcmp(recs_out.recordings[i].session, session))
			held = recs_out.recordings[i].held;
	caret_ctl_recordings_free(&recs_out);
	cJSON_Delete(r);
	return held;
}

/* The requester gone right after the result (caretctl killed before it
 * could ask for a hold of its own): stopped, as a hold's close stops. */
START_TEST(record_held_from_its_result)
{
	struct wait_req *w = record_held("s1");
	ck_assert_ptr_nonnull(recordings_find(&recs, "s1"));
	ck_assert_int_eq(held_in_status("s1"), 1);
	wait_free(w);
	ck_assert_ptr_nonnull(fake_call("stop s1"));
	ck_assert_int_eq(fake_stops(), 1);
	ck_assert_ptr_null(recordings_find(&recs, "s1"));
}
END_TEST

/* An older caretctl asks no hold: the result alone, as before, and the
 * recording runs on unheld when that connection closes. */
START_TEST(record_without_hold_as_before)
{
	cJSON *r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"old\",\"path\":\"/t\"}",
		       CTL_REPLY_RESULT, NULL);
	expect_keys(r, "v,type,session,path");
	cJSON_Delete(r);
	ck_assert_int_eq(held_in_status("old"), 0);
	ck_assert_int_eq(fake_stops(), 0);
}
END_TEST

/* A release on another connection (caretctl's exit 4): its last line,
 * and the recording runs on, shown unheld. */
START_TEST(record_held_released)
{
	struct wait_req *w = record_held("s1");
	cJSON_Delete(ask("{\"v\":1,\"cmd\":\"hold\",\"session\":\"s1\",\"release\":true}",
			 CTL_REPLY_RESULT, NULL));
	ck_assert_int_eq(held_in_status("s1"), 0);
	bool done;
	cJSON *o = wait_poll(w, 2, &done);
	ck_assert(done);
	struct ctl_hold_result h;
	struct ctl_why why;
	ck_assert_msg(ctl_decode_hold(o, &h, &why) == 0, "%s", why.msg);
	ck_assert(!h.held);
	cJSON_Delete(o);
	wait_free(w);
	ck_assert_int_eq(fake_stops(), 0);
	ck_assert_ptr_nonnull(recordings_find(&recs, "s1"));
}
END_TEST

START_TEST(hold_not_with_arm_or_plan)
{
	static const char *const lines[] = {
		"{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\",\"arm\":true,\"hold\":true}",
		"{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\",\"plan\":true,\"hold\":true}",
		"{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\",\"hold\":1}",
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		cJSON *r = ask(lines[i], CTL_REPLY_ERROR, NULL);
		ck_assert_msg(err_of(r) == EINVAL, "%s: errno %d", lines[i], err_of(r));
		ck_assert_msg(strstr(msg_of(r), "hold"), "%s: %s", lines[i], msg_of(r));
		cJSON_Delete(r);
	}
	ck_assert_ptr_null(fake_call("record"));
}
END_TEST

/* A deferred record (LTTng's start off the loop, cmd_record_start.c),
 * faked: its lines until its result, then "held" is added. */
struct deferred {
	const char *session; /* NULL: it fails */
	int polls;	     /* before its result */
	bool released;
};

static wait_line *deferred_poll(void *arg, int64_t now, bool *done)
{
	(void)now;
	struct deferred *d = arg;
	*done = d->polls-- <= 0;
	if (!*done)
		return wait_line_lttng_start(1, 1500);
	return d->session ? wait_line_record(d->session, "/t/x", NULL)
			  : wait_line_error(EIO, "fake start failed");
}

static void deferred_release(void *arg)
{
	((struct deferred *)arg)->released = true;
}

static const struct wait_custom deferred_ops = { deferred_poll, deferred_release };

START_TEST(deferred_record_held_at_its_result)
{
	cJSON_Delete(ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"d1\",\"path\":\"/t\"}",
			 CTL_REPLY_RESULT, NULL));
	static struct deferred d = { .session = "d1", .polls = 1 };
	d.released = false;
	wait_line *none = NULL;
	struct wait_req *w = cmd_hold_record(&ctx, &peer, "", wait_custom(&deferred_ops, &d),
					     &none);
	ck_assert_ptr_nonnull(w);
	ck_assert(!wait_slow(w)); /* its progress, its result soon */
	bool done;
	cJSON *o = wait_poll(w, 0, &done);
	ck_assert(!done);
	ck_assert_ptr_null(cJSON_GetObjectItem(o, "session")); /* progress */
	cJSON_Delete(o);
	ck_assert_int_eq(held_in_status("d1"), 0);
	o = wait_poll(w, 1, &done);
	ck_assert(!done);
	struct ctl_record_result rec;
	struct ctl_why why;
	ck_assert_msg(ctl_decode_record(o, &rec, &why) == 0, "%s", why.msg);
	ck_assert(rec.held);
	cJSON_Delete(o);
	ck_assert(d.released); /* answered: its own release stops nothing */
	ck_assert(wait_slow(w));
	ck_assert_int_eq(held_in_status("d1"), 1);
	wait_free(w);
	ck_assert_ptr_nonnull(fake_call("stop d1"));
	ck_assert_ptr_null(recordings_find(&recs, "d1"));
}
END_TEST

/* Failed, or its requester gone before its result: the record's own
 * ends (nothing held, nothing stopped by the hold). */
START_TEST(deferred_record_failed_or_left)
{
	static struct deferred fail = { .session = NULL, .polls = 0 };
	wait_line *none = NULL;
	struct wait_req *w = cmd_hold_record(&ctx, &peer, "", wait_custom(&deferred_ops, &fail),
					     &none);
	bool done;
	cJSON *o = wait_poll(w, 0, &done);
	ck_assert(done);
	ck_assert_int_eq(err_of(o), EIO);
	cJSON_Delete(o);
	wait_free(w);
	ck_assert(fail.released);

	static struct deferred left = { .session = "d2", .polls = 5 };
	w = cmd_hold_record(&ctx, &peer, "", wait_custom(&deferred_ops, &left), &none);
	cJSON_Delete(wait_poll(w, 0, &done));
	wait_free(w);
	ck_assert(left.released);
	ck_assert_int_eq(fake_stops(), 0);
}
END_TEST

/* issue 34: a recording made with --all-hosts, not armed, is still one
 * after a restart (its holder killed then sends End to every host). */
START_TEST(all_hosts_kept_when_not_armed)
{
	char dir[64], file[128];
	snprintf(dir, sizeof(dir), "/tmp/caret-ut-hosts-%d", (int)getpid());
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	snprintf(file, sizeof(file), "%s/caretd.recordings", dir);
	snprintf(recs.state_file, sizeof(recs.state_file), "%s", file);
	struct recording r = { .name = "every", .uid = 4242, .gid = 4343, .pacing = -1,
			       .frequency = 0, .subbuf_size = 131072, .subbuf_count = 4,
			       .all_hosts = true };
	struct recording one = r;
	snprintf(one.name, sizeof(one.name), "one");
	one.all_hosts = false;
	ck_assert_int_eq(recordings_add(&recs, &r), 0);
	ck_assert_int_eq(recordings_add(&recs, &one), 0);

	static struct recordings back;
	recordings_init(&back, NULL, recording_features, recording_n_features);
	snprintf(back.state_file, sizeof(back.state_file), "%s", file);
	char names[2][CARET_LTTNG_NAME_MAX] = { "every", "one" };
	recordings_load(&back, names, 2);
	const struct recording *b = recordings_find(&back, "every");
	ck_assert_ptr_nonnull(b);
	ck_assert(!b->armed && b->all_hosts);
	b = recordings_find(&back, "one");
	ck_assert_ptr_nonnull(b);
	ck_assert(!b->armed && !b->all_hosts);
	unlink(file);
	rmdir(dir);
}
END_TEST

void add_held_tests(TCase *tc)
{
	tcase_add_test(tc, record_held_from_its_result);
	tcase_add_test(tc, record_without_hold_as_before);
	tcase_add_test(tc, record_held_released);
	tcase_add_test(tc, hold_not_with_arm_or_plan);
	tcase_add_test(tc, deferred_record_held_at_its_result);
	tcase_add_test(tc, deferred_record_failed_or_left);
	tcase_add_test(tc, all_hosts_kept_when_not_armed);
}
