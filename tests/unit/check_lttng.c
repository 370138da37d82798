/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of lib/lttng/session.c against a real root lttng-sessiond: the one
 * tools/isolated.sh starts in private namespaces (`make unit-check` runs
 * the suite there), never the machine's own. A daemon that does not answer
 * is a failure, not a skip: a skipped suite would hide a broken machine.
 */
#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <lttng/lttng.h>

#include "lib/lttng/session.h"

/* Every session this run creates starts with this, so that cleanup can
 * find them even after a crashed test. */
static char prefix[64];
static char tmpdir[] = "/tmp/caret-ut-lttng-XXXXXX";
static char err[512];

static void session_name(char *buf, size_t len, const char *tag)
{
	snprintf(buf, len, "%s-%s", prefix, tag);
}

static void destroy_ours(void)
{
	struct lttng_session *s = NULL;
	int n = lttng_list_sessions(&s);
	for (int i = 0; i < n; i++)
		if (!strncmp(s[i].name, prefix, strlen(prefix)))
			lttng_destroy_session(s[i].name);
	free(s);
}

static bool is_active(const char *name)
{
	char names[64][CARET_LTTNG_NAME_MAX];
	int n = caret_lttng_active_sessions(names, 64, err, sizeof(err));
	ck_assert_msg(n >= 0, "active_sessions: %d %s", n, err);
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* Whether the session's caret channel enables the event `ev` (as listed
 * by the session daemon). */
static bool session_has_event(const char *session, const char *ev)
{
	struct lttng_domain dom = { .type = LTTNG_DOMAIN_UST };
	struct lttng_handle *h = lttng_create_handle(session, &dom);
	ck_assert_ptr_nonnull(h);
	struct lttng_event *list = NULL;
	int n = lttng_list_events(h, "caret", &list);
	ck_assert_int_gt(n, 0);
	bool found = false;
	for (int i = 0; i < n; i++)
		found |= !strcmp(list[i].name, ev) && list[i].enabled;
	free(list);
	lttng_destroy_handle(h);
	return found;
}

static int record(const char *name, const char *path, char *path_out,
		  size_t path_len)
{
	struct caret_lttng_cfg cfg = { .session = name, .path = path };
	char name_out[CARET_LTTNG_NAME_MAX];
	err[0] = '\0';
	return caret_lttng_record(&cfg, name_out, sizeof(name_out), path_out,
				  path_len, err, sizeof(err));
}

START_TEST(test_ping)
{
	int rc = caret_lttng_ping(err, sizeof(err));
	ck_assert_msg(rc == 0,
		      "session daemon does not answer (run under tools/isolated.sh): "
		      "%d %s", rc, err);
}
END_TEST

START_TEST(test_record_stop)
{
	char name[CARET_LTTNG_NAME_MAX], parent[512], path[4096], want[4096];
	session_name(name, sizeof(name), "rs");
	/* Two missing levels: record must mkdir -p the parent. */
	snprintf(parent, sizeof(parent), "%s/a/b/", tmpdir);
	snprintf(want, sizeof(want), "%s/a/b/%s", tmpdir, name);

	int rc = record(name, parent, path, sizeof(path));
	ck_assert_msg(rc == 0, "record: %d %s", rc, err);
	ck_assert_str_eq(path, want);
	struct stat st;
	ck_assert_msg(stat(path, &st) == 0 && S_ISDIR(st.st_mode),
		      "trace directory %s missing", path);
	ck_assert(is_active(name));

	char sp[4096];
	ck_assert_int_eq(caret_lttng_session_path(name, sp, sizeof(sp)), 0);
	ck_assert_str_eq(sp, want);
	ck_assert_int_eq(caret_lttng_session_path(name, sp, 4), -ENAMETOOLONG);

	/* Same name again: refused, and the running session is untouched. */
	char path2[4096];
	rc = record(name, parent, path2, sizeof(path2));
	ck_assert_msg(rc == -EEXIST, "second record: %d %s", rc, err);
	ck_assert(is_active(name));

	struct caret_lttng_chan_stats st8[8];
	char stop_path[4096];
	rc = caret_lttng_stop(name, st8, 8, stop_path, sizeof(stop_path), err,
			      sizeof(err));
	ck_assert_msg(rc >= 1, "stop: %d %s", rc, err);
	ck_assert_str_eq(stop_path, want);
	bool found = false;
	for (int i = 0; i < rc && i < 8; i++) {
		if (strcmp(st8[i].name, "caret"))
			continue;
		found = true;
		ck_assert_msg(st8[i].discarded_known, "discarded count unknown");
		ck_assert_uint_eq(st8[i].discarded, 0);
		ck_assert(st8[i].lost_known);
		ck_assert_uint_eq(st8[i].lost_packets, 0);
	}
	ck_assert_msg(found, "no channel named caret");
	ck_assert(!is_active(name));
	ck_assert_int_eq(caret_lttng_session_path(name, sp, sizeof(sp)),
			 -ENOENT);

	rc = caret_lttng_stop(name, st8, 8, stop_path, sizeof(stop_path), err,
			      sizeof(err));
	ck_assert_msg(rc == -ENOENT, "second stop: %d %s", rc, err);
	ck_assert_str_eq(stop_path, "");
}
END_TEST

/* A stopped session's directory holds a trace: a new one must not mix in. */
START_TEST(test_nonempty_dir)
{
	char name[CARET_LTTNG_NAME_MAX], path[4096], file[4200];
	session_name(name, sizeof(name), "ne");
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(file, sizeof(file), "%s/x", path);
	FILE *f = fopen(file, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	char out[4096];
	int rc = record(name, tmpdir, out, sizeof(out));
	ck_assert_msg(rc == -EEXIST, "record: %d %s", rc, err);
	ck_assert(!is_active(name));
}
END_TEST

START_TEST(test_light_and_geometry)
{
	char name[CARET_LTTNG_NAME_MAX], path[4096], name_out[256];
	session_name(name, sizeof(name), "lg");
	struct caret_lttng_cfg cfg = { .session = name, .path = tmpdir,
				       .light = true, .subbuf_size = 1u << 20,
				       .subbuf_count = 4 };
	int rc = caret_lttng_record(&cfg, name_out, sizeof(name_out), path,
				    sizeof(path), err, sizeof(err));
	ck_assert_msg(rc == 0, "record: %d %s", rc, err);

	struct lttng_domain dom = { .type = LTTNG_DOMAIN_UST };
	struct lttng_handle *h = lttng_create_handle(name, &dom);
	ck_assert_ptr_nonnull(h);
	struct lttng_channel *ch = NULL;
	int n = lttng_list_channels(h, &ch);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(ch[0].name, "caret");
	ck_assert_uint_eq(ch[0].attr.subbuf_size, 1u << 20);
	ck_assert_uint_eq(ch[0].attr.num_subbuf, 4);
	ck_assert_int_eq(ch[0].attr.overwrite, 0);
	free(ch);
	struct lttng_event *ev = NULL;
	n = lttng_list_events(h, "caret", &ev);
	int want = 0;
	for (const char *const *e = caret_lttng_events(true, true); *e; e++)
		want++;
	ck_assert_int_eq(n, want);
	free(ev);
	lttng_destroy_handle(h);
	/* what the session really enables, not what our table says */
	ck_assert(session_has_event(name, "ros2:*callback*"));
	ck_assert(session_has_event(name, "ros2_caret:dds_bind*"));
	ck_assert(session_has_event(name, "ros2:rmw_take"));
	ck_assert(session_has_event(name, "ros2:rcl_publish")); /* Iron+ default */
	ck_assert(!session_has_event(name, "ros2_caret:*"));
	ck_assert(!session_has_event(name, "ros2:*"));

	struct caret_lttng_chan_stats st[1];
	rc = caret_lttng_stop(name, st, 1, NULL, 0, err, sizeof(err));
	ck_assert_msg(rc == 1, "stop: %d %s", rc, err);
}
END_TEST

START_TEST(test_full_events)
{
	char name[CARET_LTTNG_NAME_MAX], path[4096], name_out[256];
	session_name(name, sizeof(name), "full");
	struct caret_lttng_cfg cfg = { .session = name, .path = tmpdir };
	int rc = caret_lttng_record(&cfg, name_out, sizeof(name_out), path,
				    sizeof(path), err, sizeof(err));
	ck_assert_msg(rc == 0, "record: %d %s", rc, err);
	/* ros2caret's verb/record.py without --light: ros* (ros2:* and ros2_caret:*) and agnocast* */
	bool all = session_has_event(name, "ros*"), caret = session_has_event(name, "agnocast*");
	struct caret_lttng_chan_stats st[1];
	rc = caret_lttng_stop(name, st, 1, NULL, 0, err, sizeof(err));
	ck_assert_msg(rc == 1, "stop: %d %s", rc, err);
	ck_assert(all && caret);
}
END_TEST

START_TEST(test_generated_name)
{
	char name[CARET_LTTNG_NAME_MAX], path[4096];
	struct caret_lttng_cfg cfg = { .path = tmpdir };
	/* The name is the time to the second: another caret session started
	 * in the same second takes it (-EEXIST), so try again in the next
	 * one. Three seconds in a row taken is a failure, not a skip. */
	int rc;
	for (int attempt = 0;; attempt++) {
		rc = caret_lttng_record(&cfg, name, sizeof(name), path, sizeof(path), err,
					sizeof(err));
		if (rc != -EEXIST || attempt == 2)
			break;
		usleep(1100 * 1000);
	}
	ck_assert_msg(rc == 0, "record: %d %s", rc, err);
	/* Stop before asserting so a failed check leaves nothing running. */
	struct caret_lttng_chan_stats st[4];
	int src = caret_lttng_stop(name, st, 4, NULL, 0, err, sizeof(err));
	ck_assert_msg(src == 1, "stop %s: %d %s", name, src, err);
	ck_assert_int_eq(strlen(name), strlen("caret-YYYYMMDD-HHMMSS"));
	ck_assert(!strncmp(name, "caret-", 6));
}
END_TEST

START_TEST(test_invalid)
{
	char path[4096], long_name[300];
	const char *bad[] = { "a/b", ".", "..", "tab\there" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = record(bad[i], tmpdir, path, sizeof(path));
		ck_assert_msg(rc == -EINVAL, "record(%s): %d %s", bad[i], rc, err);
	}
	memset(long_name, 'x', 255);
	long_name[255] = '\0';
	ck_assert_int_eq(record(long_name, tmpdir, path, sizeof(path)), -EINVAL);
	ck_assert_int_eq(record("ok", "relative/dir", path, sizeof(path)),
			 -EINVAL);

	char name[CARET_LTTNG_NAME_MAX];
	session_name(name, sizeof(name), "inv");
	struct caret_lttng_cfg cfg = { .session = name, .path = tmpdir,
				       .subbuf_size = 3000 };
	ck_assert_int_eq(caret_lttng_record(&cfg, name, sizeof(name), path,
					    sizeof(path), err, sizeof(err)),
			 -EINVAL);
	cfg.subbuf_size = 0;
	cfg.subbuf_count = 3;
	ck_assert_int_eq(caret_lttng_record(&cfg, name, sizeof(name), path,
					    sizeof(path), err, sizeof(err)),
			 -EINVAL);
	/* path_out too small fails before creating anything */
	cfg.subbuf_count = 0;
	ck_assert_int_eq(caret_lttng_record(&cfg, name, sizeof(name), path, 8,
					    err, sizeof(err)),
			 -ENAMETOOLONG);
	ck_assert(!is_active(name));

	struct caret_lttng_chan_stats st[1];
	ck_assert_int_eq(caret_lttng_stop("", st, 1, NULL, 0, err, sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(caret_lttng_stop("x/y", st, 1, NULL, 0, err,
					  sizeof(err)),
			 -EINVAL);
}
END_TEST

/* The daemon's refusal must be caught before any half-made session. */
START_TEST(test_daemon_rejects)
{
	char name[CARET_LTTNG_NAME_MAX], path[4096];
	session_name(name, sizeof(name), "rej");
	/* Within our limits (proto/caret_ctl_limits.h), but 1 TiB per CPU:
	 * LTTng refuses the channel (liblttng-ctl's check against
	 * /proc/meminfo: not enough memory). */
	struct caret_lttng_cfg cfg = { .session = name, .path = tmpdir,
				       .subbuf_size = 1ull << 30, .subbuf_count = 1024 };
	int rc = caret_lttng_record(&cfg, name, sizeof(name), path,
				    sizeof(path), err, sizeof(err));
	ck_assert_msg(rc < 0, "record with 1 TiB buffers succeeded");
	ck_assert_msg(strstr(err, "channel"), "message: %s", err);
	struct lttng_session *s = NULL;
	int n = lttng_list_sessions(&s);
	for (int i = 0; i < n; i++)
		ck_assert_str_ne(s[i].name, name);
	free(s);
	char dir[4200];
	snprintf(dir, sizeof(dir), "%s/%s", tmpdir, name);
	ck_assert_int_ne(access(dir, F_OK), 0);
}
END_TEST

START_TEST(test_events)
{
	const char *const *full = caret_lttng_events(false, true);
	const char *const *light = caret_lttng_events(true, false);
	ck_assert_ptr_ne(full, light);
	/* CARET's light list (tier4/ros2caret record.py). */
	bool cb = false, bind = false, init = false, rcl_publish = false, all_ros2 = false;
	for (const char *const *e = light; *e; e++) {
		cb |= !strcmp(*e, "ros2:*callback*");
		bind |= !strcmp(*e, "ros2_caret:dds_bind*");
		init |= !strcmp(*e, "ros2_caret:rcl_*init");
		rcl_publish |= !strcmp(*e, "ros2:rcl_publish");
		all_ros2 |= !strcmp(*e, "ros2:*") || !strcmp(*e, "ros2_caret:*");
	}
	ck_assert(cb && bind && init && !rcl_publish && !all_ros2);
	/* Iron and later: plus ros2:rcl_publish. */
	rcl_publish = false;
	for (const char *const *e = caret_lttng_events(true, true); *e; e++)
		rcl_publish |= !strcmp(*e, "ros2:rcl_publish");
	ck_assert(rcl_publish);
	bool all = false;
	for (const char *const *e = full; *e; e++)
		all |= !strcmp(*e, "ros*");
	ck_assert(all);
}
END_TEST

/*
 * No daemon: hide the root daemon's sockets behind an empty tmpfs in a
 * private mount namespace of a child, so the shared daemon keeps running.
 */
START_TEST(test_no_daemon)
{
	if (geteuid() != 0)
		ck_abort_msg("test_no_daemon needs root (mount namespace)");
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (unshare(CLONE_NEWNS) < 0 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
		    mount("none", "/run/lttng", "tmpfs", 0, NULL) < 0)
			_exit(2);
		char e[256] = "";
		char names[4][CARET_LTTNG_NAME_MAX], path[256], nm[256];
		struct caret_lttng_chan_stats st[1];
		struct caret_lttng_cfg cfg = { .session = "x", .path = "/tmp" };
		if (caret_lttng_ping(e, sizeof(e)) != -ECONNREFUSED || !e[0])
			_exit(3);
		if (caret_lttng_active_sessions(names, 4, e, sizeof(e)) !=
		    -ECONNREFUSED)
			_exit(4);
		if (caret_lttng_record(&cfg, nm, sizeof(nm), path, sizeof(path),
				       e, sizeof(e)) != -ECONNREFUSED)
			_exit(5);
		if (caret_lttng_stop("x", st, 1, path, sizeof(path), e,
				     sizeof(e)) != -ECONNREFUSED)
			_exit(6);
		if (caret_lttng_session_path("x", path, sizeof(path)) !=
		    -ECONNREFUSED)
			_exit(7);
		_exit(0);
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "child status %#x (exit code = failing step)", status);
}
END_TEST

static int rm_one(const char *p, const struct stat *sb, int flag,
		  struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(p);
	return 0;
}

int main(void)
{
	snprintf(prefix, sizeof(prefix), "caret-ut-%d", (int)getpid());
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	Suite *s = suite_create("lttng");
	TCase *tc = tcase_create("sessiond");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_ping);
	tcase_add_test(tc, test_record_stop);
	tcase_add_test(tc, test_nonempty_dir);
	tcase_add_test(tc, test_light_and_geometry);
	tcase_add_test(tc, test_generated_name);
	tcase_add_test(tc, test_invalid);
	tcase_add_test(tc, test_daemon_rejects);
	tcase_add_test(tc, test_full_events);
	tcase_add_test(tc, test_events);
	tcase_add_test(tc, test_no_daemon);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	/* After a failed check the session may still be there. */
	destroy_ours();
	nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return failed ? 1 : 0;
}
