/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The relay session another host asks for, made by caretd's LTTng start
 * helper (daemon/bridge/bridge_relay.c over daemon/lttng/lttng_start.c)
 * rather than in line as check_bridge_relay's fake LTTng makes it. The
 * helper is a fake one, this binary in the helper's mode, whose starts
 * end when the test says (a gate file per session: "ok", "fail"); it logs
 * each start it is asked and each session it stopped because caretd
 * cancelled it. lttng_start_async is wrapped at link time (the real one
 * says no to a fake LTTng door), everything else of the start is real.
 *
 * What it covers: a relay start queued behind a start under way, a stop
 * that comes while the relay start is queued or in flight, the order in
 * which the starts end and the sessions are stopped, and a relay request
 * that comes while the helper, dead a moment ago, is not started again
 * yet (refused with EAGAIN: asked again, as caretctl asks a local
 * record's again, rather than lost).
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon/base/log.h"
#include "daemon/bridge/bridge_relay.h"
#include "daemon/lttng/lttng_helper.h"
#include "daemon/lttng/lttng_start.h"
#include "tests/unit/cmd_fixture.h"
#include "tests/unit/helper_fixture.h"
#include "tests/unit/limit_fixture.h"
#include "tests/unit/unit.h"

#define GATES_ENV "CARET_TEST_RELAY_GATES"

/* Every start goes to the helper, whatever the view's door. */
bool __wrap_lttng_start_async(const struct lttng_view *v);
bool __wrap_lttng_start_async(const struct lttng_view *v)
{
	(void)v;
	return true;
}

static void gate_path(char *buf, size_t len, const char *dir, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static void helper_log(const char *dir, const char *what, const char *name)
{
	char p[512], line[300];
	gate_path(p, sizeof(p), dir, "log");
	int fd = open(p, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	int n = snprintf(line, sizeof(line), "%s %s\n", what, name);
	if (fd >= 0 && write(fd, line, (size_t)n) != n)
		_exit(3);
	if (fd >= 0)
		close(fd);
}

/* The gates' directory, in the helper's mode. */
static const char *helper_dir;

/* A start's result once its gate is there; a cancel read meanwhile (a
 * drop finds nothing left). */
static void helper_start(const struct lttng_start_req *req, struct lttng_start_result *res)
{
	const char *dir = helper_dir;
	char p[512], what[16] = "";
	if (!req)
		return;
	gate_path(p, sizeof(p), dir, req->cfg.session);
	helper_log(dir, "start", req->cfg.session);
	bool cancelled = false;
	int fd;
	while ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0) {
		struct pollfd pf = { .fd = LTTNG_HELPER_FD, .events = POLLIN };
		char c[2];
		if (poll(&pf, 1, 2) == 1) {
			ssize_t n = recv(LTTNG_HELPER_FD, c, sizeof(c), MSG_DONTWAIT);
			if (n == 0)
				_exit(0); /* caretd gone */
			cancelled |= n == 1 && c[0] == LTTNG_START_CANCEL;
		}
	}
	ssize_t n = read(fd, what, sizeof(what) - 1);
	close(fd);
	unlink(p);
	what[n > 0 ? n : 0] = '\0';
	snprintf(res->name, sizeof(res->name), "%s", req->cfg.session);
	snprintf(res->path, sizeof(res->path), "%s", req->cfg.url ? req->cfg.url : "-");
	res->r = strcmp(what, "ok") ? -EIO : 0;
	snprintf(res->err, sizeof(res->err), "fake helper: %s", what);
	if (res->r == 0 && cancelled) {
		res->stopped = true;
		helper_log(dir, "stopped", req->cfg.session);
	}
}

/* The helper's mode: dies at once if the test said so (die-young, once). */
static _Noreturn void fake_helper(void)
{
	static char p[512];
	helper_dir = getenv(GATES_ENV);
	gate_path(p, sizeof(p), helper_dir ? helper_dir : "/nonexistent", "die-young");
	if (!helper_dir || unlink(p) == 0)
		_exit(1);
	helper_serve(helper_start);
}

static struct bridge b;
static sd_event *e;
static char gates[64];
/* what the test's own (local) start saw: 'L' its end, 's' when the
 * relay session's stop had already been asked of LTTng by then */
static char trace[16];

static void relay_setup(void)
{
	setup();
	log_init(LOG_ERR);
	memset(&b, 0, sizeof(b));
	b.cfg = (struct bridge_cfg){ .enabled = true, .accept_relay = true,
				     .relay_allow = "relay.lan", .relay_max_s = 60,
				     .relay_max_bytes = 1 << 20 };
	b.reg = &reg;
	b.sched = &scheduler;
	b.lttng = &view;
	b.limit = &fake_limit;
	n_limits = 0;
	memset(trace, 0, sizeof(trace));
	snprintf(gates, sizeof(gates), "/tmp/caret-relay-start-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(gates));
	setenv(GATES_ENV, gates, 1);
	ck_assert_int_ge(sd_event_new(&e), 0);
	ck_assert_int_eq(lttng_start_open(e, NULL), 0);
}

static void relay_teardown(void)
{
	bridge_relay_close(&b);
	lttng_start_abandon();
	e = sd_event_unref(e);
	DIR *d = opendir(gates);
	for (struct dirent *de; d && (de = readdir(d));)
		if (de->d_name[0] != '.')
			unlinkat(dirfd(d), de->d_name, 0);
	if (d)
		closedir(d);
	rmdir(gates);
	teardown();
}

static void gate(const char *session, const char *what)
{
	char p[512];
	gate_path(p, sizeof(p), gates, session);
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(what, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* What the helper logged: "start NAME\n", "stopped NAME\n". */
static const char *helper_saw(void)
{
	static char buf[1024];
	char p[512];
	gate_path(p, sizeof(p), gates, "log");
	buf[0] = '\0';
	FILE *f = fopen(p, "r");
	if (f) {
		buf[fread(buf, 1, sizeof(buf) - 1, f)] = '\0';
		fclose(f);
	}
	return buf;
}

static bool relay_made(void)
{
	return b.relay_session[0];
}

static bool relay_idle(void)
{
	return !b.relay_job;
}

static bool relay_begun(void)
{
	return strstr(helper_saw(), "start rs\n");
}

static bool local_asked(void)
{
	return strstr(helper_saw(), "start loc\n");
}

static bool local_ended(void)
{
	return strchr(trace, 'L');
}

static bool never(void)
{
	return false;
}

/* caretd's loop and the bridge's tick, until pred holds (or ms passed). */
static bool run_until(bool (*pred)(void), int ms)
{
	int64_t until = caret_now_ns() + ms * MS;
	while (!pred() && caret_now_ns() < until) {
		ck_assert_int_ge(sd_event_run(e, 10000), 0);
		bridge_relay_check(&b, caret_now_ns());
	}
	return pred();
}

static void ask_relay(bool stop)
{
	caretd_msgs_msg_dds__RelayRecord_ m = {
		.session_name = "rs", .url = "net://relay.lan", .recording_frequency = 100,
		.stop = stop, .ignore_nodes = "", .ignore_topics = "", .select_nodes = "",
		.select_topics = ""
	};
	bridge_relay_request(&b, &m, "hostA");
}

static void local_done(void *arg, const struct lttng_start_result *res)
{
	(void)arg, (void)res;
	if (fake_call("stop rs"))
		strcat(trace, "s");
	strcat(trace, "L");
}

/* A local record's start, under way until its gate says. */
static void local_start(void)
{
	struct caret_lttng_cfg c = { .session = "loc", .path = "/nonexistent" };
	char err[256];
	ck_assert_msg(lttng_start_begin(&view, &c, local_done, NULL, err, sizeof(err)) == 0, "%s",
		      err);
	ck_assert(run_until(local_asked, 2000));
}

/* Queued behind a local start: the helper is asked once that start
 * ended, not before; the session is made, bounded and active. */
START_TEST(relay_queued_behind_a_start)
{
	local_start();
	ask_relay(false);
	ck_assert_ptr_nonnull(b.relay_job);
	run_until(never, 100);
	ck_assert_str_eq(helper_saw(), "start loc\n");
	gate("loc", "ok");
	ck_assert(run_until(relay_begun, 2000));
	ck_assert_str_eq(trace, "L");
	ck_assert_str_eq(helper_saw(), "start loc\nstart rs\n");
	ck_assert(!relay_made());
	gate("rs", "ok");
	ck_assert(run_until(relay_made, 2000));
	ck_assert_str_eq(b.relay_session, "rs");
	ck_assert_ptr_null(b.relay_job);
	ck_assert_str_eq(limits[0], "size rs 1048576");
	ck_assert(lttng_view_is_active(&view, "rs"));
	/* no start runs: its stop is in line */
	ask_relay(true);
	ck_assert_ptr_nonnull(fake_call("stop rs"));
	ck_assert(!lttng_view_is_active(&view, "rs"));
	ck_assert_str_eq(b.relay_session, "");
}
END_TEST

/* Its stop while it waits for the local start: never asked of the helper. */
START_TEST(relay_stop_while_queued)
{
	local_start();
	ask_relay(false);
	ask_relay(true);
	gate("loc", "ok");
	ck_assert(run_until(local_ended, 2000));
	ck_assert(run_until(relay_idle, 500));
	run_until(never, 100);
	ck_assert_str_eq(helper_saw(), "start loc\n");
	ck_assert(!relay_made());
	ck_assert_int_eq(fake.n_calls, 0);
	ck_assert_int_eq(n_limits, 0);
}
END_TEST

/* Its stop while the helper makes it: the helper stops what it made,
 * caretd neither keeps nor stops it again. */
START_TEST(relay_stop_while_in_flight)
{
	ask_relay(false);
	ck_assert(run_until(relay_begun, 2000));
	ask_relay(true);
	ck_assert_ptr_nonnull(b.relay_job); /* until the start's end */
	gate("rs", "ok");
	ck_assert(run_until(relay_idle, 2000));
	ck_assert_str_eq(helper_saw(), "start rs\nstopped rs\n");
	ck_assert(!relay_made());
	ck_assert(!lttng_view_is_active(&view, "rs"));
	ck_assert_int_eq(fake.n_calls, 0);
	ck_assert_int_eq(n_limits, 0);
	/* the next request is refused only for the gap between them */
	b.relay_try_ns -= 3000 * MS;
	gate("rs", "ok");
	ask_relay(false);
	ck_assert(run_until(relay_made, 2000));
}
END_TEST

/* A running relay session's stop that comes during a local start: asked
 * of LTTng only once that start ended (its done first). */
START_TEST(relay_stop_waits_for_a_start)
{
	gate("rs", "ok");
	ask_relay(false);
	ck_assert(run_until(relay_made, 2000));
	local_start();
	ask_relay(true);
	ck_assert_str_eq(b.relay_session, "");
	run_until(never, 100);
	ck_assert_ptr_null(fake_call("stop rs"));
	ck_assert(lttng_view_is_active(&view, "rs"));
	gate("loc", "ok");
	ck_assert(run_until(local_ended, 2000));
	ck_assert_str_eq(trace, "L"); /* not "sL": the stop came after */
	ck_assert_ptr_nonnull(fake_call("stop rs"));
	ck_assert(!lttng_view_is_active(&view, "rs"));
	ck_assert_str_eq(limits[1], "remove rs");
}
END_TEST

/* The helper dies a moment after its spawn: the start helper is started
 * again only a second after (lttng_start.c), and a start asked meanwhile
 * is refused with EAGAIN. */
static void helper_died_young(void)
{
	char p[512];
	lttng_start_abandon();
	gate_path(p, sizeof(p), gates, "die-young");
	int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(lttng_start_open(e, NULL), 0);
	run_until(never, 150); /* its socket's end seen */
	ck_assert_int_ne(access(p, F_OK), 0);
}

/* A relay request in that second is asked again, not lost. */
START_TEST(relay_retried_after_helper_death)
{
	helper_died_young();
	gate("rs", "ok");
	ask_relay(false);
	ck_assert_ptr_nonnull(b.relay_job);
	ck_assert(run_until(relay_made, 3000));
	ck_assert_str_eq(helper_saw(), "start rs\n");
	ck_assert(lttng_view_is_active(&view, "rs"));
}
END_TEST

/* Its stop while it waits to be asked again: dropped at once, never
 * asked of the helper. */
START_TEST(relay_stop_while_retrying)
{
	helper_died_young();
	ask_relay(false);
	ck_assert_ptr_nonnull(b.relay_job);
	ask_relay(true);
	ck_assert_ptr_null(b.relay_job);
	run_until(never, 1200);
	ck_assert_str_eq(helper_saw(), "");
	ck_assert(!relay_made());
}
END_TEST

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], LTTNG_HELPER_ARG))
		fake_helper();
	Suite *s = suite_create("bridge_relay_start");
	TCase *tc = unit_case(s, "relay_start", relay_queued_behind_a_start,
			      relay_stop_while_queued, relay_stop_while_in_flight,
			      relay_stop_waits_for_a_start, relay_retried_after_helper_death,
			      relay_stop_while_retrying);
	tcase_add_checked_fixture(tc, relay_setup, relay_teardown);
	tcase_set_timeout(tc, 30);
	return unit_run(s);
}
