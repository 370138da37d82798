/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Flight-recorder recordings through the commands (daemon/recording/snapshot.h),
 * with LTTng faked (cmd_fixture.c): record makes a snapshot session of the
 * ring's geometry; snapshot begins a pass (a new serial), answers progress
 * until the agent covered it, then records the snapshot; a timeout still
 * writes it, named incomplete; a plain recording, another user's, an
 * unknown one and an output directory the requester cannot write are
 * refused before LTTng is asked. Real snapshots:
 * tests/integration/test_snapshot.py.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/recording/snapshot.h"
#include "daemon/agents/wait.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_recordings.h"
#include "proto/caret_ctl_dec.h"
#include "proto/caret_ctl_snapshot.h"

#include "tests/unit/cmd_fixture.h"

static const cJSON *field(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

static void record_fr(const char *name, bool snapshot)
{
	char line[256];
	snprintf(line, sizeof(line), "{\"v\":1,\"cmd\":\"record\",\"session\":\"%s\","
		 "\"path\":\"/t\"%s}", name, snapshot ? ",\"snapshot_size\":1048576" : "");
	cJSON_Delete(ask(line, CTL_REPLY_RESULT, NULL));
}

/* The agent recording, its last pass covering sessions <= serial. */
static void agent_covers(uint32_t serial)
{
	caret_own_set_state(&agent.seg, CARET_STATE_RECORD);
	struct sched_agent *sa = sched_agent(&agent);
	ck_assert_ptr_nonnull(sa);
	sa->seen = true;
	sa->extra_pass = false;
	sa->covered_serial = serial;
}

START_TEST(snapshot_after_the_pass)
{
	peer.uid = 4242;
	record_fr("fr", true);
	/* 1 MiB per CPU: 8 sub-buffers of 128 KiB, a snapshot session */
	ck_assert_ptr_nonnull(fake_call("record fr path=/t url=- light=0 pre_iron=0 append=0 "
					"armed=0 size=131072 count=8 as=4242 snapshot=1"));
	cJSON *r = ask("{\"v\":1,\"cmd\":\"status\"}", CTL_REPLY_RESULT, NULL);
	const cJSON *list = field(r, CARET_CTL_K_RECORDINGS);
	ck_assert_int_eq(cJSON_GetArraySize(list), 1);
	const cJSON *x = cJSON_GetArrayItem(list, 0);
	ck_assert_str_eq(field(x, CARET_CTL_K_MODE)->valuestring, CARET_CTL_MODE_SNAPSHOT);
	ck_assert_int_eq(field(x, CARET_CTL_K_RING_SIZE)->valueint, 1048576);
	ck_assert_int_eq(field(x, CARET_CTL_K_SNAPSHOTS)->valueint, 0);
	/* the same through proto's decoder, as caretctl reads it */
	struct caret_ctl_recordings rec;
	char why[256] = "";
	ck_assert_msg(caret_ctl_recordings_decode(r, &rec, why, sizeof(why)) == 0, "%s", why);
	ck_assert_uint_eq(rec.n_recordings, 1);
	ck_assert_str_eq(rec.recordings[0].mode, CARET_CTL_MODE_SNAPSHOT);
	ck_assert(rec.recordings[0].have_ring_size && rec.recordings[0].have_snapshots);
	ck_assert_uint_eq(rec.recordings[0].ring_size, 1048576);
	caret_ctl_recordings_free(&rec);
	cJSON_Delete(r);
	/* the wire itself, keys and their order, as caretd wrote it before
	 * its recordings filled proto's struct, a trigger's fields too (the
	 * trigger is set by hand: its LTTng side is not faked here) */
	struct recording *fr = recordings_find(&recs, "fr");
	fr->trig = (struct recording_trigger){ .on = true, .event = "ros2:callback_end",
					       .filter = "x > 1", .fired = 5, .coalesced = 3 };
	r = ask("{\"v\":1,\"cmd\":\"status\"}", CTL_REPLY_RESULT, NULL);
	expect_keys(r, "v,type,host,caretd,lttng,agents,rotations_ended,rotations,recordings");
	expect_text(field(r, CARET_CTL_K_RECORDINGS), "[{\"session\":\"fr\",\"path\":\"/t/fr\",\"mode\":\"snapshot\",\"ring_size\":1048576,"
			"\"snapshots\":0,\"snapshot_on\":\"ros2:callback_end\",\"snapshot_filter\":\"x > 1\","
			"\"triggered\":5,\"coalesced\":3}]");
	expect_text(field(r, CARET_CTL_K_ROTATIONS), "[]");
	cJSON_Delete(r);
	fr->trig.filter[0] = '\0';
	r = ask("{\"v\":1,\"cmd\":\"list\"}", CTL_REPLY_RESULT, NULL);
	expect_keys(r, "v,type,agents,recordings");
	expect_text(field(r, CARET_CTL_K_RECORDINGS), "[{\"session\":\"fr\",\"path\":\"/t/fr\",\"mode\":\"snapshot\",\"ring_size\":1048576,"
			"\"snapshots\":0,\"snapshot_on\":\"ros2:callback_end\",\"triggered\":5,\"coalesced\":3}]");
	cJSON_Delete(r);
	fr->trig = (struct recording_trigger){ 0 };

	/* the member's own process: their recording sees no one else's */
	agent.seg.id.uid = 4242;
	agent_covers(view.last_serial);
	uint32_t before = lttng_view_find(&view, "fr")->serial;
	struct wait_req *w;
	ask("{\"v\":1,\"cmd\":\"snapshot\",\"session\":\"fr\"}", CTL_REPLY_RESULT, &w);
	/* a new pass: the session's serial moved past what the agent covers */
	uint32_t serial = lttng_view_find(&view, "fr")->serial;
	ck_assert_uint_gt(serial, before);
	ck_assert(snapshot_busy(&recs, "fr"));
	bool done;
	cJSON *o = wait_poll(w, 1000 * MS, &done);
	ck_assert(!done);
	ck_assert_str_eq(field(o, CARET_CTL_K_TYPE)->valuestring, "progress");
	expect_text(o, "{\"v\":1,\"type\":\"progress\",\"recording\":0,\"total\":1,\"records_done\":0,\"records_total\":0,\"percent\":100}");
	cJSON_Delete(o);
	ck_assert_ptr_null(fake_call("snapshot"));
	/* a second one meanwhile: refused, nothing asked of LTTng */
	r = ask("{\"v\":1,\"cmd\":\"snapshot\",\"session\":\"fr\"}", CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), EBUSY);
	cJSON_Delete(r);

	agent_covers(serial);
	o = wait_poll(w, 1001 * MS, &done);
	ck_assert(done);
	ck_assert_ptr_nonnull(fake_call("snapshot fr dir=/t/fr name=snapshot-1"));
	ck_assert_str_eq(field(o, CARET_CTL_K_TYPE)->valuestring, "result");
	ck_assert_str_eq(field(o, CARET_CTL_K_PATH)->valuestring,
			 "/t/fr/snapshot-1-20261127-000000-0");
	/* the wire itself, as caretd wrote it before the line was made from
	 * proto's struct */
	expect_text(o, "{\"v\":1,\"type\":\"result\",\"session\":\"fr\",\"path\":\"/t/fr/snapshot-1-20261127-000000-0\",\"complete\":true,\"snapshots\":1,\"pass_ms\":1}");
	ck_assert(cJSON_IsTrue(field(o, CARET_CTL_K_COMPLETE)));
	ck_assert_ptr_null(field(o, CARET_CTL_K_WHY));
	ck_assert_int_eq(field(o, CARET_CTL_K_SNAPSHOTS)->valueint, 1);
	cJSON_Delete(o);
	wait_free(w);
	ck_assert(!snapshot_busy(&recs, "fr"));

	/* the default recording is the caller's latest; -o elsewhere; the
	 * pass times out: written anyway, named incomplete with the process */
	ask("{\"v\":1,\"cmd\":\"snapshot\",\"output\":\"/tmp/\",\"timeout_ms\":5}",
	    CTL_REPLY_RESULT, &w);
	o = wait_poll(w, 1000 * MS + 6 * MS, &done);
	ck_assert(done);
	ck_assert_ptr_nonnull(fake_call("snapshot fr dir=/tmp name=snapshot-2"));
	ck_assert(cJSON_IsFalse(field(o, CARET_CTL_K_COMPLETE)));
	expect_keys(o, "v,type,session,path,complete,why,snapshots,pass_ms");
	char want[64];
	snprintf(want, sizeof(want), "pid %d (unit)", (int)getpid());
	ck_assert_ptr_nonnull(strstr(field(o, CARET_CTL_K_WHY)->valuestring, want));
	cJSON_Delete(o);
	wait_free(w);

	/* stop: writes nothing, says what was written, forgets it */
	fake.n_calls = 0;
	r = ask("{\"v\":1,\"cmd\":\"stop\",\"session\":\"fr\"}", CTL_REPLY_RESULT, NULL);
	ck_assert_str_eq(field(r, CARET_CTL_K_MODE)->valuestring, CARET_CTL_MODE_SNAPSHOT);
	ck_assert_int_eq(field(r, CARET_CTL_K_SNAPSHOTS)->valueint, 2);
	ck_assert_ptr_null(fake_call("snapshot"));
	/* the wire itself, as caretd wrote it before its recording filled
	 * proto's struct */
	expect_keys(r, "v,type,session,path,channels,discarded_total,duplicates,mode,ring_size,snapshots,"
			"last_snapshot,dropped");
	expect_text(r, "{\"v\":1,\"type\":\"result\",\"session\":\"fr\",\"path\":\"/nonexistent/fake/fr\","
			"\"channels\":[{\"name\":\"caret\",\"discarded\":0,\"lost_packets\":0}],\"discarded_total\":0,"
			"\"duplicates\":0,\"mode\":\"snapshot\",\"ring_size\":1048576,\"snapshots\":2,\"last_snapshot\":\"/tmp/snapshot-2-20261127-000000-0\","
			"\"dropped\":0}");
	cJSON_Delete(r);
	struct snapshot_info info;
	snapshot_info(&recs, "fr", &info);
	ck_assert(!info.known);
}
END_TEST

/* The recording ends while its pass runs: an error, no snapshot. */
START_TEST(snapshot_of_a_recording_stopped_meanwhile)
{
	record_fr("gone", true);
	const struct recording *gone = recordings_find(&recs, "gone");
	struct wait_req *w;
	ask("{\"v\":1,\"cmd\":\"snapshot\",\"session\":\"gone\"}", CTL_REPLY_RESULT, &w);
	cJSON_Delete(ask("{\"v\":1,\"cmd\":\"stop\",\"session\":\"gone\"}", CTL_REPLY_RESULT,
			 NULL));
	/* a new flight recorder in the very slot the stopped one left (the
	 * ring is its recording's now): the job must not take it for its own */
	record_fr("new", true);
	struct recording *nw = recordings_find(&recs, "new");
	ck_assert_ptr_eq(nw, gone);
	struct snapshot_info info;
	snapshot_info(&recs, "new", &info);
	ck_assert(info.known);
	ck_assert(!nw->ring.busy);
	bool done;
	cJSON *o = wait_poll(w, 1000 * MS, &done);
	ck_assert(done);
	ck_assert_int_eq(err_of(o), ENOENT);
	ck_assert_ptr_nonnull(strstr(msg_of(o), "ended before its snapshot"));
	cJSON_Delete(o);
	wait_free(w);
	ck_assert_ptr_null(fake_call("snapshot"));
	/* the job touched nothing of the new one */
	snapshot_info(&recs, "new", &info);
	ck_assert(info.known);
	ck_assert(!nw->ring.busy);
	ck_assert_uint_eq(info.written, 0);
	ck_assert_str_eq(info.path, "/t/new");
}
END_TEST

START_TEST(snapshot_refusals_never_reach_lttng)
{
	peer.uid = 4242;
	record_fr("fr", true);
	record_fr("plain", false);
	ck_assert_ptr_nonnull(fake_call("record plain path=/t"));
	cJSON *r = ask("{\"v\":1,\"cmd\":\"status\"}", CTL_REPLY_RESULT, NULL);
	const cJSON *x, *list = field(r, CARET_CTL_K_RECORDINGS);
	cJSON_ArrayForEach(x, list)
		if (!strcmp(field(x, CARET_CTL_K_SESSION)->valuestring, "plain"))
			ck_assert_str_eq(field(x, CARET_CTL_K_MODE)->valuestring,
					 CARET_CTL_MODE_PLAIN);
	cJSON_Delete(r);
	uint32_t serial = lttng_view_find(&view, "fr")->serial;
	static const struct {
		const char *line;
		int err;
		const char *text;
	} no[] = {
		{ "{\"v\":1,\"cmd\":\"snapshot\",\"session\":\"nosuch\"}", ENOENT,
		  "no recording named nosuch" },
		{ "{\"v\":1,\"cmd\":\"snapshot\",\"session\":\"plain\"}", EINVAL,
		  "not a flight recorder" },
		{ "{\"v\":1,\"cmd\":\"snapshot\",\"session\":\"fr\",\"output\":\"rel\"}", EINVAL,
		  "output must be an absolute directory" },
		{ "{\"v\":1,\"cmd\":\"snapshot\",\"session\":\"fr\",\"timeout_ms\":0}", EINVAL,
		  "timeout_ms" },
		/* every host's, without a bridge (caretd --no-bridge): refused
		 * before this host's pass too */
		{ "{\"v\":1,\"cmd\":\"snapshot\",\"session\":\"fr\",\"all_hosts\":true}",
		  ENOTCONN, "--all-hosts: the DDS bridge is off" },
		{ "{\"v\":1,\"cmd\":\"snapshot\",\"session\":\"fr\",\"all_hosts\":1}",
		  EINVAL, "all_hosts" },
		/* uid 4242 cannot write under a root-only directory: refused as
		 * the requester, before any pass */
		{ "{\"v\":1,\"cmd\":\"snapshot\",\"session\":\"fr\",\"output\":"
		  "\"/root/caret-snap-unit/x\"}", EACCES, "refused output directory: uid 4242" },
	};
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		r = ask(no[i].line, CTL_REPLY_ERROR, NULL);
		ck_assert_int_eq(err_of(r), no[i].err);
		ck_assert_msg(strstr(msg_of(r), no[i].text), "%s: %s", no[i].line, msg_of(r));
		cJSON_Delete(r);
	}
	/* an output path too long for caretd: refused, never cut */
	char *line = malloc(5000);
	ck_assert_ptr_nonnull(line);
	int n = snprintf(line, 5000, "{\"v\":1,\"cmd\":\"snapshot\",\"session\":\"fr\","
			 "\"output\":\"/");
	memset(line + n, 'a', 4090);
	snprintf(line + n + 4090, 5000 - (size_t)n - 4090, "\"}");
	r = ask(line, CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), ENAMETOOLONG);
	cJSON_Delete(r);
	free(line);
	/* another user's flight recorder */
	peer.uid = 5151;
	r = ask("{\"v\":1,\"cmd\":\"snapshot\",\"session\":\"fr\"}", CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), EPERM);
	cJSON_Delete(r);
	/* no pass began, nothing was recorded */
	ck_assert_uint_eq(lttng_view_find(&view, "fr")->serial, serial);
	ck_assert_ptr_null(fake_call("snapshot"));
	ck_assert_int_ne(access("/root/caret-snap-unit", F_OK), 0);
}
END_TEST

/* A ring smaller than a pass of the caches is refused with the least
 * size that fits; the rules of the record fields. */
START_TEST(record_snapshot_ring_checks)
{
	/* the agent's cache: 3,000 node records with 100-byte names */
	char name[101];
	memset(name, 'n', 100);
	name[100] = '\0';
	for (int i = 0; i < 3000; i++) {
		union caret_arg n[] = { CARET_P(i), CARET_P(0), CARET_S(name), CARET_S(name) };
		ck_assert_int_eq(caret_seg_append(&agent.seg, CARET_KIND_rcl_node_init, i, n), 0);
	}
	uint64_t need = snapshot_pass_bytes(&reg);
	ck_assert_uint_gt(need, 3000 * 200);
	cJSON *r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"tiny\",\"path\":\"/t\","
		       "\"snapshot_size\":65536}", CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), ENOSPC);
	char want[64];
	snprintf(want, sizeof(want), "at least --snapshot-size %lluK",
		 (unsigned long long)(snapshot_min_size(need) >> 10));
	ck_assert_msg(strstr(msg_of(r), want), "%s", msg_of(r));
	cJSON_Delete(r);
	ck_assert_ptr_null(fake_call("record tiny"));
	/* the least size fits */
	char line[384];
	snprintf(line, sizeof(line), "{\"v\":1,\"cmd\":\"record\",\"session\":\"ok\","
		 "\"path\":\"/t\",\"snapshot_size\":%llu}",
		 (unsigned long long)snapshot_min_size(need));
	cJSON_Delete(ask(line, CTL_REPLY_RESULT, NULL));

	static const char *const bad[] = {
		"\"snapshot_size\":1024", "\"snapshot_size\":1e12",
		"\"snapshot_size\":1048576,\"rotate_size\":1048576",
		"\"snapshot_size\":1048576,\"subbuf_count\":8",
		/* a trigger: one event's full name, only on a flight recorder */
		"\"snapshot_size\":1048576,\"snapshot_on\":\"ros2:*\"",
		"\"snapshot_size\":1048576,\"snapshot_on\":\"callback_end\"",
		"\"snapshot_size\":1048576,\"snapshot_on\":\"ros2:a b\"",
		"\"snapshot_on\":\"ros2:callback_end\"",
		"\"snapshot_size\":1048576,\"snapshot_filter\":\"x == 1\"",
		"\"snapshot_size\":1048576,\"snapshot_on\":\"ros2:x\",\"snapshot_filter\":\"\\u0001\"",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(line, sizeof(line), "{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\",%s}",
			 bad[i]);
		r = ask(line, CTL_REPLY_ERROR, NULL);
		ck_assert_msg(err_of(r) == EINVAL, "%s: %s", line, msg_of(r));
		cJSON_Delete(r);
		ck_assert_ptr_null(fake_call("record -"));
	}
	r = ask("{\"v\":1,\"cmd\":\"record\",\"url\":\"net://h\",\"snapshot_size\":1048576}",
		CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), EINVAL);
	cJSON_Delete(r);
}
END_TEST

/* Armed (caretctl record waiting for Enter): a snapshot session from the
 * start, no snapshot before `go`, one after. */
START_TEST(snapshot_of_an_armed_recording_after_go)
{
	peer.uid = 4242;
	peer.pid = getpid();
	cJSON_Delete(ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"ar\",\"path\":\"/t\","
			 "\"arm\":true,\"snapshot_size\":262144}", CTL_REPLY_RESULT, NULL));
	ck_assert_ptr_nonnull(fake_call("record ar path=/t url=- light=0 pre_iron=0 append=0 "
					"armed=1 size=32768 count=8 as=4242 snapshot=1"));
	cJSON *r = ask("{\"v\":1,\"cmd\":\"snapshot\",\"session\":\"ar\"}", CTL_REPLY_ERROR,
		       NULL);
	ck_assert_int_eq(err_of(r), EAGAIN);
	cJSON_Delete(r);
	cJSON_Delete(ask("{\"v\":1,\"cmd\":\"record\",\"go\":\"ar\"}", CTL_REPLY_RESULT, NULL));
	struct wait_req *w;
	ask("{\"v\":1,\"cmd\":\"snapshot\",\"session\":\"ar\"}", CTL_REPLY_RESULT, &w);
	agent_covers(lttng_view_find(&view, "ar")->serial);
	bool done;
	cJSON *o = wait_poll(w, 1000 * MS, &done);
	ck_assert(done);
	ck_assert(cJSON_IsTrue(field(o, CARET_CTL_K_COMPLETE)));
	ck_assert_ptr_nonnull(fake_call("snapshot ar dir=/t/ar name=snapshot-1"));
	cJSON_Delete(o);
	wait_free(w);
}
END_TEST

/* Caches that grew past the ring after record (processes started since):
 * the snapshot is still written, named incomplete with the least size. */
START_TEST(snapshot_of_caches_grown_past_the_ring)
{
	record_fr("grow", true); /* 1 MiB per CPU: 896 KiB of room */
	char name[201];
	memset(name, 'n', 200);
	name[200] = '\0';
	for (int i = 0; i < 2000; i++) {
		union caret_arg n[] = { CARET_P(i), CARET_P(0), CARET_S(name), CARET_S(name) };
		ck_assert_int_eq(caret_seg_append(&agent.seg, CARET_KIND_rcl_node_init, i, n), 0);
	}
	uint64_t need = snapshot_pass_bytes(&reg);
	ck_assert(!snapshot_fits(need, 131072, 8));
	struct wait_req *w;
	ask("{\"v\":1,\"cmd\":\"snapshot\",\"session\":\"grow\"}", CTL_REPLY_RESULT, &w);
	agent_covers(lttng_view_find(&view, "grow")->serial);
	bool done;
	cJSON *o = wait_poll(w, 1000 * MS, &done);
	ck_assert(done);
	ck_assert_ptr_nonnull(fake_call("snapshot grow"));
	ck_assert(cJSON_IsFalse(field(o, CARET_CTL_K_COMPLETE)));
	char want[96];
	snprintf(want, sizeof(want), "record with --snapshot-size %lluK",
		 (unsigned long long)(snapshot_min_size(need) >> 10));
	ck_assert_msg(strstr(field(o, CARET_CTL_K_WHY)->valuestring, want), "%s",
		      field(o, CARET_CTL_K_WHY)->valuestring);
	cJSON_Delete(o);
	wait_free(w);
}
END_TEST

void add_snapshot_tests(TCase *tc)
{
	tcase_add_test(tc, snapshot_of_caches_grown_past_the_ring);
	tcase_add_test(tc, snapshot_of_an_armed_recording_after_go);
	tcase_add_test(tc, snapshot_after_the_pass);
	tcase_add_test(tc, snapshot_of_a_recording_stopped_meanwhile);
	tcase_add_test(tc, snapshot_refusals_never_reach_lttng);
	tcase_add_test(tc, record_snapshot_ring_checks);
}
