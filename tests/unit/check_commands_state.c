/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The recordings caretd saves and restores (daemon/recording/
 * recordings_state.h): each saved whole once per change, and back whole at
 * start-up. Part of check_commands.
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
}
