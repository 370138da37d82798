/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A rotating recording through the commands (daemon/rotation.h), with
 * rotation's lttng-ctl calls faked (struct rotation_lttng_ops of
 * daemon/rotation_lttng.h): the recording that starts at once, and one
 * whose schedule LTTng refuses. The armed path is in check_commands.c;
 * real rotations in tests/integration/test_rotation.py.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon/loop.h"
#include "daemon/rotation.h"
#include "daemon/rotation_lttng.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_dec.h"
#include "proto/caret_ctl_rotation.h"

#include "tests/unit/cmd_fixture.h"

/* Rotation's lttng-ctl calls, faked (struct rotation_lttng_ops): what each
 * was asked; schedule fails when frot.fail_schedule. */
static struct {
	int registered, scheduled, subscribed, unsubscribed;
	uint64_t every_ms;
	bool fail_schedule;
} frot;

static int frot_register(const char *session, char *err, size_t errlen)
{
	(void)session;
	(void)err;
	(void)errlen;
	frot.registered++;
	return 0;
}

static void frot_ensure(void)
{
	for (int i = 0; i < MAX_ROT; i++) {
		struct rot *t = rot_at(i);
		if (t->used && !t->armed && !t->subscribed) {
			t->subscribed = true;
			frot.subscribed++;
		}
	}
}

static void frot_close(void)
{
}

static int frot_subscribe(struct rot *t, bool on)
{
	t->subscribed = on;
	if (on)
		frot.subscribed++;
	else
		frot.unsubscribed++;
	return 0;
}

static int frot_schedule(const char *session, const struct rotation_opts *o, char *err,
			 size_t errlen)
{
	frot.scheduled++;
	frot.every_ms = o->every_ms;
	if (frot.fail_schedule) {
		snprintf(err, errlen, "fake: no schedule for %s", session);
		return -EIO;
	}
	return 0;
}

static void frot_read(rotl_on_event *cb, void *arg)
{
	(void)cb;
	(void)arg;
}

static const struct rotation_lttng_ops frot_ops = {
	.register_triggers = frot_register,
	.ensure_channel = frot_ensure,
	.close_channel = frot_close,
	.subscribe = frot_subscribe,
	.schedule = frot_schedule,
	.read_notifications = frot_read,
};

/* A rotating recording that records at once: triggers, subscription, then
 * schedules, before the reply; status lists it; its stop reports it (its
 * triggers go once the session is gone). One whose schedule LTTng refuses
 * is not started at all, and nothing of it stays. */
START_TEST(record_rotation_at_once_then_stop)
{
	sd_event *ev = NULL;
	struct loop l = { 0 };
	ck_assert_int_ge(sd_event_new(&ev), 0);
	ck_assert_int_ge(loop_open(&l, ev), 0);
	ck_assert_int_ge(rotation_start(&l, &view, &reg), 0);
	rotl_set_ops(&frot_ops);
	memset(&frot, 0, sizeof(frot));
	peer.uid = 4242;
	peer.pid = getpid();

	cJSON *r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"r2\",\"path\":\"/t\","
		       "\"rotate_every_ms\":60000,\"keep\":3}", CTL_REPLY_RESULT, NULL);
	struct ctl_record_result rec;
	struct ctl_why why;
	ck_assert_msg(ctl_decode_record(r, &rec, &why) == 0, "%s", why.msg);
	ck_assert_str_eq(rec.session, "r2");
	ck_assert_str_eq(rec.path, "/t/r2");
	cJSON_Delete(r);
	ck_assert_ptr_nonnull(fake_call("record r2"));
	ck_assert(rotation_is_rotating("r2"));
	ck_assert_int_eq(frot.registered, 1);
	ck_assert_int_eq(frot.subscribed, 1);
	ck_assert_int_eq(frot.scheduled, 1);
	ck_assert_uint_eq(frot.every_ms, 60000);

	r = ask("{\"v\":1,\"cmd\":\"status\"}", CTL_REPLY_RESULT, NULL);
	const cJSON *rots = cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_ROTATIONS);
	ck_assert(cJSON_IsArray(rots));
	ck_assert_int_eq(cJSON_GetArraySize(rots), 1);
	const cJSON *x = cJSON_GetArrayItem(rots, 0);
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(x, "session")->valuestring, "r2");
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(x, "mode")->valuestring, "rotating");
	ck_assert_int_eq(cJSON_GetObjectItemCaseSensitive(x, CARET_CTL_K_KEEP)->valueint, 3);
	cJSON_Delete(r);

	r = ask("{\"v\":1,\"cmd\":\"stop\",\"session\":\"r2\"}", CTL_REPLY_RESULT, NULL);
	x = cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_ROTATION);
	ck_assert(cJSON_IsObject(x));
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(x, "session")->valuestring, "r2");
	ck_assert(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(x, "chunks")));
	cJSON_Delete(r);
	ck_assert_ptr_nonnull(fake_call("stop r2"));
	ck_assert(!rotation_is_rotating("r2"));
	ck_assert_int_eq(frot.unsubscribed, 1);

	/* LTTng refuses the schedule: the recording is stopped, not kept */
	frot.fail_schedule = true;
	r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"r3\",\"path\":\"/t\","
		"\"rotate_size\":1048576}", CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), EIO);
	ck_assert_ptr_nonnull(strstr(msg_of(r), "fake: no schedule for r3"));
	cJSON_Delete(r);
	ck_assert_ptr_nonnull(fake_call("stop r3"));
	ck_assert(!rotation_is_rotating("r3"));
	ck_assert_ptr_null(lttng_view_find_rec(&view, "r3"));
	ck_assert_int_eq(frot.unsubscribed, 2);

	rotation_stop();
	rotl_set_ops(NULL);
	loop_close(&l);
	sd_event_unref(ev);
}
END_TEST

/* An armed rotating recording the view reaps (nobody pressed Enter within
 * --arm-timeout) leaves no rotation slot behind: otherwise a group member
 * arming and abandoning rotating recordings fills the table for everyone
 * (each of its LTTNG_VIEW_MAX_RECORDINGS slots, 2 at a time). */
START_TEST(reaped_armed_recording_frees_its_rotation)
{
	sd_event *ev = NULL;
	struct loop l = { 0 };
	ck_assert_int_ge(sd_event_new(&ev), 0);
	ck_assert_int_ge(loop_open(&l, ev), 0);
	ck_assert_int_ge(rotation_start(&l, &view, &reg), 0);
	rotl_set_ops(&frot_ops);
	memset(&frot, 0, sizeof(frot));
	peer.uid = 4242;
	peer.pid = getpid();

	cJSON *r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"ra\",\"path\":\"/t\","
		       "\"arm\":true,\"rotate_every_ms\":60000}", CTL_REPLY_RESULT, NULL);
	cJSON_Delete(r);
	ck_assert(rotation_is_rotating("ra"));
	ck_assert_int_eq(frot.registered, 0); /* armed: nothing registered yet */

	/* still armed: a tick keeps it */
	loop_tick(&l, loop_now(&l) + 10 * 1000000ull);
	ck_assert(rotation_is_rotating("ra"));

	/* armed long ago: the view's next look destroys it */
	lttng_view_find_rec(&view, "ra")->armed_ns = 1;
	lttng_view_refresh(&view);
	ck_assert_ptr_null(lttng_view_find_rec(&view, "ra"));
	loop_tick(&l, loop_now(&l) + 20 * 1000000ull);
	ck_assert(!rotation_is_rotating("ra"));
	ck_assert_int_eq(frot.registered, 0);

	rotation_stop();
	rotl_set_ops(NULL);
	loop_close(&l);
	sd_event_unref(ev);
}
END_TEST

void add_rotation_tests(TCase *tc)
{
	tcase_add_test(tc, record_rotation_at_once_then_stop);
	tcase_add_test(tc, reaped_armed_recording_frees_its_rotation);
}
