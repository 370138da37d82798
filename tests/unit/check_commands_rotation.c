/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A rotating recording through the commands (daemon/recording/rotation.h), with
 * rotation's lttng-ctl calls faked (struct rotation_lttng_ops of
 * daemon/recording/rotation_lttng.h): the recording that starts at once, and one
 * whose schedule LTTng refuses. The armed path is in check_commands.c;
 * the passes a rotation begins in check_commands_rotation_passes.c; real
 * rotations in tests/integration/test_rotation.py.
 */
#include <check.h>
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/base/loop.h"
#include "daemon/agents/pacer.h"
#include "daemon/recording/rotation.h"
#include "daemon/recording/rotation_lttng.h"
#include "daemon/recording/rotation_report.h"
#include "daemon/recording/rotation_verdict.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_recordings.h"
#include "proto/caret_ctl_dec.h"
#include "proto/caret_ctl_rotation.h"

#include "tests/unit/cmd_fixture.h"
#include "tests/unit/rot_fixture.h"

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
	ck_assert_int_ge(rotation_start(&l, &rot_ops), 0);
	rotation_lttng_set_ops(&frot_ops);
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
	ck_assert(rotation_is_rotating(&recs, "r2"));
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

	/* the chunk being written lacks this process's replay (no tick ran):
	 * the stop is refused, to be asked again, its schedule already gone
	 * (a rotation just before a stop must not leave the last chunk
	 * without its replay) */
	r = ask("{\"v\":1,\"cmd\":\"stop\",\"session\":\"r2\"}", CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), EAGAIN);
	ck_assert_ptr_nonnull(strstr(msg_of(r), "lacks part of its replay"));
	cJSON_Delete(r);
	ck_assert_ptr_null(fake_call("stop r2"));
	ck_assert(rotation_is_rotating(&recs, "r2"));
	ck_assert_int_eq(frot.unscheduled, 1);
	/* its only process gone: nothing is missing, the stop goes */
	agent.dead = true;
	r = ask("{\"v\":1,\"cmd\":\"stop\",\"session\":\"r2\"}", CTL_REPLY_RESULT, NULL);
	agent.dead = false;
	x = cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_ROTATION);
	ck_assert(cJSON_IsObject(x));
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(x, "session")->valuestring, "r2");
	ck_assert(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(x, "chunks")));
	struct caret_ctl_recordings rec2;
	ck_assert_msg(caret_ctl_recordings_decode(r, &rec2, why.msg, sizeof(why.msg)) == 0, "%s",
		      why.msg);
	ck_assert_ptr_nonnull(rec2.rotation);
	ck_assert_str_eq(rec2.rotation->session, "r2");
	ck_assert_uint_eq(rec2.rotation->keep, 3);
	ck_assert_uint_eq(rec2.rotation->rotate_every_ms, 60000);
	caret_ctl_recordings_free(&rec2);
	/* the wire itself, as caretd wrote it before its recording filled
	 * proto's struct */
	expect_keys(r, "v,type,session,path,channels,discarded_total,duplicates,rotation,dropped");
	expect_text(x, "{\"chunks\":[],\"incomplete\":[],\"session\":\"r2\",\"mode\":\"rotating\",\"rotate_size\":0,"
			"\"rotate_every_ms\":60000,\"keep\":3,\"max_size\":0,\"rotations\":0,\"removed\":0,"
			"\"chunks_bytes\":0,\"pass_complete\":true,\"error\":\"/t/r2: No such file or directory\"}");
	cJSON_Delete(r);
	ck_assert_ptr_nonnull(fake_call("stop r2"));
	ck_assert(!rotation_is_rotating(&recs, "r2"));
	ck_assert_int_eq(frot.unsubscribed, 1);
	ck_assert_int_ge(frot.unscheduled, 1); /* before the stop: no empty last chunk */

	/* LTTng refuses the schedule: the recording is stopped, not kept */
	frot.fail_schedule = true;
	r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"r3\",\"path\":\"/t\","
		"\"rotate_size\":1048576}", CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), EIO);
	ck_assert_ptr_nonnull(strstr(msg_of(r), "fake: no schedule for r3"));
	cJSON_Delete(r);
	ck_assert_ptr_nonnull(fake_call("stop r3"));
	ck_assert(!rotation_is_rotating(&recs, "r3"));
	ck_assert_ptr_null(recordings_find(&recs, "r3"));
	ck_assert_int_eq(frot.unsubscribed, 2);

	rotation_stop();
	rotation_lttng_set_ops(NULL);
	loop_close(&l);
	sd_event_unref(ev);
}
END_TEST

static void put_be64(FILE *f, uint64_t v)
{
	v = htobe64(v);
	fwrite(&v, 8, 1, f);
}

/* <chunk>/ust/uid/0/64-bit/index/caret_0.idx as lttng-tools writes it
 * (CTF index 1.1): an opening packet (no event, begin = end) carrying the
 * stream's discarded count so far, then a packet whose count is last. */
static void chunk_index(const char *chunk, uint64_t opening, uint64_t last)
{
	char p[512];
	snprintf(p, sizeof(p), "mkdir -p %s/ust/uid/0/64-bit/index", chunk);
	ck_assert_int_eq(system(p), 0);
	snprintf(p, sizeof(p), "%s/ust/uid/0/64-bit/index/caret_0.idx", chunk);
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	uint32_t h[4] = { htobe32(0xC1F1DCC1), htobe32(1), htobe32(1), htobe32(72) };
	fwrite(h, sizeof(h), 1, f);
	for (int i = 0; i < 2; i++) {
		uint64_t e[9] = { (uint64_t)i * 4096, 4096 * 8, (i ? 4000 : 84) * 8,
				  2000, 2000 + (uint64_t)i * 1000, i ? last : opening,
				  0, 1, (uint64_t)i };
		for (int k = 0; k < 9; k++)
			put_be64(f, e[k]);
	}
	fclose(f);
}

/* A chunk whose packets report events the tracer discarded is not
 * complete, whatever its replay pass reached (issue 23: bench P11 once
 * had 14,749 discarded in a chunk caretd called complete): the log says
 * how many, status and stop say why. LTTng's counts are the streams'
 * totals since the session began, so a chunk after it, with nothing
 * discarded, stays complete. */
START_TEST(chunk_with_discards_is_incomplete)
{
	sd_event *ev = NULL;
	struct loop l = { 0 };
	ck_assert_int_ge(sd_event_new(&ev), 0);
	ck_assert_int_ge(loop_open(&l, ev), 0);
	ck_assert_int_ge(rotation_start(&l, &rot_ops), 0);
	rotation_lttng_set_ops(&frot_ops);
	char dir[64], p[256];
	snprintf(dir, sizeof(dir), "/tmp/caret-ut-rotdisc-%d", (int)getpid());
	static const char *const names[] = { "20261127T034538+0000-20261127T034543+0000-0",
					     "20261127T034543+0000-20261127T034548+0000-1",
					     "20261127T034548+0000-20261127T034553+0000-2" };
	static const uint64_t opening[] = { 0, 0, 14749 }, last[] = { 0, 14749, 14749 };
	for (int i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s/archives/%s", dir, names[i]);
		chunk_index(p, opening[i], last[i]);
	}
	struct stat st;
	ck_assert_int_eq(stat(dir, &st), 0);
	/* a rotating recording's state is its recording's */
	struct recording rd = { .name = "rd", .uid = getuid(), .gid = getgid() };
	snprintf(rd.path, sizeof(rd.path), "%s", dir);
	ck_assert_int_eq(recordings_add(&recs, &rd), 0);
	struct rotation *t = &recordings_find(&recs, "rd")->rot;
	*t = (struct rotation){ .used = true, .uid = getuid(), .gid = getgid(), .dev = st.st_dev,
			   .ino = st.st_ino, .cur_index = 3, .verdict_upto = 3 };
	snprintf(t->name, sizeof(t->name), "rd");
	snprintf(t->path, sizeof(t->path), "%s", dir);
	rotation_scan(t);
	ck_assert_ptr_nonnull(t->list);
	ck_assert_int_eq(t->list->n, 3);
	char buf[96];
	ck_assert_ptr_null(rotation_chunk_why(t, &t->list->c[0], buf, sizeof(buf)));
	const char *why = rotation_chunk_why(t, &t->list->c[1], buf, sizeof(buf));
	ck_assert_ptr_nonnull(why);
	ck_assert_str_eq(why, "14749 events discarded by the tracer");
	ck_assert_ptr_null(rotation_chunk_why(t, &t->list->c[2], buf, sizeof(buf)));
	uint64_t n = 0;
	ck_assert(rotation_has_discards(t, 1, &n));
	ck_assert_uint_eq(n, 14749);

	/* status: the chunk is INCOMPLETE, and why */
	cJSON *r = ask("{\"v\":1,\"cmd\":\"status\"}", CTL_REPLY_RESULT, NULL);
	const cJSON *x = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r,
									   CARET_CTL_K_ROTATIONS), 0);
	ck_assert_ptr_nonnull(x);
	const cJSON *inc = cJSON_GetObjectItemCaseSensitive(x, "incomplete");
	ck_assert_int_eq(cJSON_GetArraySize(inc), 1);
	ck_assert_str_eq(cJSON_GetArrayItem(inc, 0)->valuestring, names[1]);
	const cJSON *c1 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(x, "chunks"), 1);
	ck_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(c1, "complete")));
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(c1, "why")->valuestring,
			 "14749 events discarded by the tracer");
	/* the same through proto's decoder, as caretctl reads it */
	struct caret_ctl_recordings rec;
	char cwhy[256] = "";
	ck_assert_msg(caret_ctl_recordings_decode(r, &rec, cwhy, sizeof(cwhy)) == 0, "%s", cwhy);
	ck_assert(rec.have_rotations && rec.have_ended);
	ck_assert_uint_eq(rec.rotations[0].n_incomplete, 1);
	ck_assert_str_eq(rec.rotations[0].incomplete[0], names[1]);
	ck_assert(!rec.rotations[0].chunks[1].complete);
	ck_assert_str_eq(rec.rotations[0].chunks[1].why, "14749 events discarded by the tracer");
	caret_ctl_recordings_free(&rec);
	cJSON_Delete(r);
	/* the wire itself, keys and their order, as caretd wrote it before
	 * its recordings filled proto's struct (older caretctls parse it) */
	recordings_ended_add(&recs, "old", "disk full");
	struct recording pl = { .name = "pl", .path = "/t/pl" };
	ck_assert_int_eq(recordings_add(&recs, &pl), 0);
	r = ask("{\"v\":1,\"cmd\":\"status\"}", CTL_REPLY_RESULT, NULL);
	expect_keys(r, "v,type,host,caretd,lttng,agents,rotations_ended,rotations,recordings");
	expect_text(cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_ROTATIONS_ENDED), "[{\"session\":\"old\",\"error\":\"disk full\"}]");
	char want[2048];
	snprintf(want, sizeof(want), "[{\"chunks\":[{\"name\":\"20261127T034538+0000-20261127T034543+0000-0\",\"index\":0,"
			"\"bytes\":160,\"complete\":true},{\"name\":\"20261127T034543+0000-20261127T034548+0000-1\","
			"\"index\":1,\"bytes\":160,\"complete\":false,\"why\":\"14749 events discarded by the tracer\"},"
			"{\"name\":\"20261127T034548+0000-20261127T034553+0000-2\",\"index\":2,\"bytes\":160,"
			"\"complete\":true}],\"incomplete\":[\"20261127T034543+0000-20261127T034548+0000-1\"],"
			"\"session\":\"rd\",\"mode\":\"rotating\",\"rotate_size\":0,\"rotate_every_ms\":0,"
			"\"keep\":0,\"max_size\":0,\"rotations\":0,\"removed\":0,\"chunks_bytes\":480,\"pass_complete\":false}]");
	expect_text(cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_ROTATIONS), want);
	snprintf(want, sizeof(want), "[{\"session\":\"rd\",\"path\":\"%s\",\"mode\":\"rotating\"},"
		 "{\"session\":\"pl\",\"path\":\"/t/pl\",\"mode\":\"plain\"}]", dir);
	expect_text(cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_RECORDINGS), want);
	cJSON_Delete(r);

	/* counted once; a later scan keeps the verdict, and an index that
	 * cannot be read is not called complete */
	snprintf(p, sizeof(p), "%s/archives/20261127T034553+0000-20261127T034558+0000-3", dir);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/archives/20261127T034553+0000-20261127T034558+0000-3/ust", dir);
	ck_assert_int_eq(symlink("/", p), 0); /* its owner's link: never followed */
	t->verdict_upto = 4;
	rotation_scan(t);
	ck_assert_int_eq(t->list->n, 4);
	ck_assert_str_eq(rotation_chunk_why(t, &t->list->c[1], buf, sizeof(buf)),
			 "14749 events discarded by the tracer");
	ck_assert_str_eq(rotation_chunk_why(t, &t->list->c[3], buf, sizeof(buf)),
			 "its discarded events could not be counted");
	ck_assert_uint_eq(t->disc_upto, 4);

	free(t->list);
	free(t->base);
	memset(t, 0, sizeof(*t));
	rotation_stop();
	rotation_lttng_set_ops(NULL);
	loop_close(&l);
	sd_event_unref(ev);
	snprintf(p, sizeof(p), "rm -rf %s", dir);
	ck_assert_int_eq(system(p), 0);
}
END_TEST

/* An armed rotating recording the view reaps (nobody pressed Enter within
 * --arm-timeout) leaves no rotation slot behind: otherwise a group member
 * arming and abandoning rotating recordings fills the table for everyone
 * (each of its RECORDINGS_MAX slots, 2 at a time). */
START_TEST(reaped_armed_recording_frees_its_rotation)
{
	sd_event *ev = NULL;
	struct loop l = { 0 };
	ck_assert_int_ge(sd_event_new(&ev), 0);
	ck_assert_int_ge(loop_open(&l, ev), 0);
	ck_assert_int_ge(rotation_start(&l, &rot_ops), 0);
	rotation_lttng_set_ops(&frot_ops);
	memset(&frot, 0, sizeof(frot));
	peer.uid = 4242;
	peer.pid = getpid();

	cJSON *r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"ra\",\"path\":\"/t\","
		       "\"arm\":true,\"rotate_every_ms\":60000}", CTL_REPLY_RESULT, NULL);
	cJSON_Delete(r);
	ck_assert(rotation_is_rotating(&recs, "ra"));
	ck_assert_int_eq(frot.registered, 0); /* armed: nothing registered yet */

	/* still armed: a tick keeps it */
	loop_tick(&l, loop_now(&l) + 10 * 1000000ull);
	ck_assert(rotation_is_rotating(&recs, "ra"));

	/* armed long ago: the view's next look destroys it */
	/* (not armed_ns = 1: on a machine up for less than the arm timeout,
	 * CLOCK_MONOTONIC is below it and 1 was not long ago) */
	recordings_find(&recs, "ra")->armed_ns =
		caret_now_ns() - (int64_t)(RECORDINGS_ARM_TIMEOUT_S + 1) * 1000000000;
	lttng_view_refresh(&view);
	ck_assert_ptr_null(recordings_find(&recs, "ra"));
	loop_tick(&l, loop_now(&l) + 20 * 1000000ull);
	ck_assert(!rotation_is_rotating(&recs, "ra"));
	ck_assert_int_eq(frot.registered, 0);

	rotation_stop();
	rotation_lttng_set_ops(NULL);
	loop_close(&l);
	sd_event_unref(ev);
}
END_TEST

END_TEST

/* A feature refused after others began (issue 32: one reverse unwind):
 * -c refused here, after the rotation began; the rotation's schedules go
 * before the session stops (no empty last chunk), then the session, then
 * the recording with its rotation. */
START_TEST(refused_feature_undoes_those_begun)
{
	sd_event *ev = NULL;
	struct loop l = { 0 };
	ck_assert_int_ge(sd_event_new(&ev), 0);
	ck_assert_int_ge(loop_open(&l, ev), 0);
	ck_assert_int_ge(rotation_start(&l, &rot_ops), 0);
	rotation_lttng_set_ops(&frot_ops);
	memset(&frot, 0, sizeof(frot));
	cJSON *r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"rc\",\"path\":\"/t\","
		       "\"rotate_every_ms\":60000,\"record_clock\":true,\"clock_domain\":7}",
		       CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), ENOTSUP);
	cJSON_Delete(r);
	ck_assert_int_eq(frot.scheduled, 1);
	ck_assert_int_eq(frot.unscheduled, 1);
	ck_assert_int_eq(frot.unsubscribed, 1);
	ck_assert_ptr_nonnull(fake_call("stop rc"));
	ck_assert_ptr_null(recordings_find(&recs, "rc"));
	ck_assert(!rotation_is_rotating(&recs, "rc"));
	rotation_stop();
	rotation_lttng_set_ops(NULL);
	loop_close(&l);
	sd_event_unref(ev);
}
END_TEST


void add_rotation_tests(TCase *tc)
{
	tcase_add_test(tc, reaped_armed_recording_frees_its_rotation);
	tcase_add_test(tc, record_rotation_at_once_then_stop);
	tcase_add_test(tc, chunk_with_discards_is_incomplete);
	tcase_add_test(tc, refused_feature_undoes_those_begun);
}
