/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `record`'s making through the commands, with LTTng faked
 * (tests/unit/cmd_fixture.c): admitted before LTTng is asked anything, a
 * refusal once the session exists unwound whole (the empty trace directory
 * of an armed one removed), and the view reading what a recording
 * publishes from the table, never a copy the table left behind.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/lttng/lttng_view.h"
#include "proto/caret_ctl.h"

#include "tests/unit/cmd_fixture.h"

/* A user whose share of the table is used up is refused before any
 * session exists: LTTng makes nothing that no one would own. */
START_TEST(record_refused_before_lttng_is_asked)
{
	struct recording rec = { .uid = 4242 };
	for (int i = 0; i < RECORDINGS_USER; i++) {
		snprintf(rec.name, sizeof(rec.name), "q%d", i);
		ck_assert_int_eq(recordings_add(&recs, &rec), 0);
	}
	peer.uid = 4242;
	cJSON *r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"q9\",\"path\":\"/t\"}",
		       CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), EDQUOT);
	cJSON_Delete(r);
	ck_assert_ptr_null(fake_call("record"));
	ck_assert_ptr_null(recordings_find(&recs, "q9"));
}
END_TEST

/* An armed recording refused by a feature once its session exists (-c,
 * which cannot run here): the session stops, and the trace directory made
 * for it, which holds nothing, goes with it. */
START_TEST(armed_refused_once_made_leaves_no_directory)
{
	char base[] = "/tmp/caret-make-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(base));
	char dir[64];
	snprintf(dir, sizeof(dir), "%s/a9", base);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	struct stat sb;
	ck_assert_int_eq(stat(dir, &sb), 0);
	fake.dir = (struct caret_lttng_dir_id){ .dev = sb.st_dev, .ino = sb.st_ino, .made = true };
	peer.uid = getuid();
	peer.gid = getgid();
	char line[256];
	snprintf(line, sizeof(line), "{\"v\":1,\"cmd\":\"record\",\"session\":\"a9\",\"path\":"
		 "\"%s\",\"arm\":true,\"record_clock\":true}", base);
	cJSON *r = ask(line, CTL_REPLY_ERROR, NULL);
	cJSON_Delete(r);
	ck_assert_ptr_nonnull(fake_call("stop a9"));
	ck_assert_ptr_null(recordings_find(&recs, "a9"));
	ck_assert_int_eq(stat(dir, &sb), -1);
	ck_assert_int_eq(errno, ENOENT);
	rmdir(base);
}
END_TEST

static int active_index(const char *session)
{
	for (int i = 0; i < view.n_active; i++)
		if (strcmp(view.active[i], session) == 0)
			return i;
	return -1;
}

/* The view reads a session's recording from the table at each use: what
 * it publishes while it is there, nothing once the table forgot it (even
 * while LTTng still lists the session). */
START_TEST(view_reads_the_recording_from_the_table)
{
	peer.uid = 4242;
	cJSON *r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"p1\",\"path\":\"/t\","
		       "\"recording_frequency\":77}", CTL_REPLY_RESULT, NULL);
	cJSON_Delete(r);
	int i = active_index("p1");
	ck_assert_int_ge(i, 0);
	const struct lttng_view_pub *pub = lttng_view_pub(&view, i);
	ck_assert_ptr_nonnull(pub);
	ck_assert_int_eq(pub->uid, 4242);
	ck_assert_uint_eq(pub->frequency, 77);
	ck_assert_str_eq(pub->path, "/t/p1");
	recordings_forget(&recs, recordings_find(&recs, "p1"));
	ck_assert_int_eq(active_index("p1"), i);
	ck_assert_ptr_null(lttng_view_pub(&view, i));
}
END_TEST

void add_make_tests(TCase *tc)
{
	tcase_add_test(tc, record_refused_before_lttng_is_asked);
	tcase_add_test(tc, armed_refused_once_made_leaves_no_directory);
	tcase_add_test(tc, view_reads_the_recording_from_the_table);
}
