/* SPDX-License-Identifier: Apache-2.0 */
/*
 * daemon/lttng/lttng_start: lttng_start_after, the work run once the
 * running start ended (a held recording's stop when its holder left).
 * Against a fake start helper (this binary again, in the helper's mode:
 * it answers each start after START_MS), each work must run not before
 * the start's end (its done first), not never, and not twice; in the
 * order asked; one a work begins keeps the rest waiting for its own end;
 * at once when no start runs; and caretd's exit hands it run=false, once.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon/base/log.h"
#include "daemon/lttng/lttng_helper.h"
#include "daemon/lttng/lttng_start.h"
#include "tests/unit/helper_fixture.h"
#include "tests/unit/unit.h"
#include "util/caret_util.h"

#define START_MS 150

/* lttng_start.c's only use of them: a result of r >= 0 at caretd's exit
 * is stopped through them (the fake helper's results are all r < 0). */
const struct caret_lttng_ops caret_lttng_ops_real;
const struct caret_lttng_ops *lttng_view_ops(const struct lttng_view *v)
{
	(void)v;
	return &caret_lttng_ops_real;
}

/* The helper's replies: every start fails after START_MS (what the work
 * after it sees is the end, whatever the result), every drop finds none. */
static void fake_reply(const struct lttng_start_req *req, struct lttng_start_result *res)
{
	if (req)
		snprintf(res->name, sizeof(res->name), "%s", req->cfg.session);
	snprintf(res->err, sizeof(res->err), "fake helper");
	usleep(START_MS * 1000);
}

static sd_event *e;
static struct lttng_view view;
/* what happened, in order: 'D' a start's done, 'a'.. a work run, 'A'..
 * a work dropped (run=false) */
static char trace[64];

static void note(char c)
{
	size_t n = strlen(trace);
	ck_assert_uint_lt(n + 1, sizeof(trace));
	trace[n] = c;
	trace[n + 1] = '\0';
}

static void on_done(void *arg, const struct lttng_start_result *res)
{
	(void)arg;
	ck_assert_int_lt(res->r, 0);
	note('D');
}

static void begin(const char *name)
{
	struct caret_lttng_cfg cfg = { .session = name, .path = "/nonexistent" };
	char err[256];
	ck_assert_msg(lttng_start_begin(&view, &cfg, on_done, NULL, err, sizeof(err)) == 0, "%s",
		      err);
	ck_assert(lttng_start_running(NULL));
}

static void work(void *arg, bool run)
{
	/* once no start runs, or at exit */
	ck_assert(!run || !lttng_start_running(NULL));
	note((char)((run ? 'a' : 'A') + (int)(intptr_t)arg));
}

/* A work that begins another start: those after it wait for that one. */
static void work_begins(void *arg, bool run)
{
	work(arg, run);
	if (run)
		begin("second");
}

/* The loop run until no start runs (bounded). */
static void run_until_idle(void)
{
	int64_t until = caret_now_ns() + 10 * 1000000000LL;
	while (lttng_start_running(NULL) && caret_now_ns() < until)
		ck_assert_int_ge(sd_event_run(e, 100000), 0);
	ck_assert(!lttng_start_running(NULL));
}

/* The loop run for ms, whatever happens. */
static void run_for(int ms)
{
	int64_t until = caret_now_ns() + (int64_t)ms * 1000000;
	while (caret_now_ns() < until)
		ck_assert_int_ge(sd_event_run(e, 20000), 0);
}

static void setup(void)
{
	log_init(LOG_ERR);
	memset(trace, 0, sizeof(trace));
	ck_assert_int_ge(sd_event_new(&e), 0);
	ck_assert_int_eq(lttng_start_open(e, NULL), 0);
}

static void teardown(void)
{
	lttng_start_abandon();
	e = sd_event_unref(e);
}

START_TEST(idle_runs_at_once)
{
	ck_assert_int_eq(lttng_start_after(work, (void *)0), 0);
	ck_assert_str_eq(trace, "a");
	run_for(50);
	ck_assert_str_eq(trace, "a");
	begin("next"); /* its end runs nothing already run */
	run_until_idle();
	ck_assert_str_eq(trace, "aD");
}
END_TEST

START_TEST(runs_once_after_the_end_in_order)
{
	begin("first");
	ck_assert_int_eq(lttng_start_after(work, (void *)0), 0);
	ck_assert_int_eq(lttng_start_after(work, (void *)1), 0);
	ck_assert_str_eq(trace, ""); /* not before the start's end */
	run_for(START_MS / 3);
	ck_assert_str_eq(trace, "");
	run_until_idle();
	ck_assert_str_eq(trace, "Dab"); /* its done first, then each once */
	run_for(START_MS * 2);
	ck_assert_str_eq(trace, "Dab"); /* never again */
	/* the next start's end runs nothing left from the one before */
	begin("next");
	run_until_idle();
	ck_assert_str_eq(trace, "DabD");
}
END_TEST

START_TEST(a_start_a_work_begins_holds_the_rest)
{
	begin("first");
	ck_assert_int_eq(lttng_start_after(work_begins, (void *)0), 0);
	ck_assert_int_eq(lttng_start_after(work, (void *)1), 0);
	/* a ran at the first start's end and began the second: b waits for
	 * that one's end (work() asserts no start runs) */
	run_until_idle();
	ck_assert_str_eq(trace, "DaDb");
	run_for(START_MS * 2);
	ck_assert_str_eq(trace, "DaDb");
}
END_TEST

START_TEST(exit_drops_what_waits_once)
{
	begin("first");
	ck_assert_int_eq(lttng_start_after(work, (void *)0), 0);
	ck_assert_int_eq(lttng_start_after(work, (void *)1), 0);
	lttng_start_abandon(); /* caretd exits during the start */
	ck_assert_str_eq(trace, "DAB");
	ck_assert(!lttng_start_running(NULL));
	lttng_start_abandon(); /* teardown's again: nothing twice */
	ck_assert_str_eq(trace, "DAB");
}
END_TEST

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], LTTNG_HELPER_ARG))
		helper_serve(fake_reply);
	Suite *s = suite_create("start_after");
	TCase *tc = unit_case(s, "after", idle_runs_at_once, runs_once_after_the_end_in_order,
			      a_start_a_work_begins_holds_the_rest, exit_drops_what_waits_once);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	return unit_run(s);
}
