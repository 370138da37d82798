/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A session's making (caret_lttng_record()) off caretd's loop. With many
 * registered processes lttng_start_tracing() blocks for tens of seconds
 * (lttng-sessiond sets every application up, one after the other: 26-36 s
 * with 50 real rclcpp processes, issue 34); run in the loop, it stalled
 * every request, tick and replay. It runs in a child process instead,
 * which writes its result to a pipe the loop watches.
 *
 * One start at a time: lttng-sessiond serialises its clients anyway, and
 * while a start runs the view reads no session (lttng_view.h, starting).
 *
 * Nothing is left running with no owner: the child stops the session it
 * made when its result cannot be delivered (caretd died or abandoned the
 * start: the pipe's reader is gone), and a caller that no longer wants the
 * session it gets stops it (daemon/server/cmd_record_start.h).
 */
#ifndef CARETD_LTTNG_START_H
#define CARETD_LTTNG_START_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "daemon/lttng/lttng_view.h"
#include "lib/lttng/session.h"

struct lttng_start_result {
	int r; /* caret_lttng_record()'s, or -errno of the child itself */
	char name[CARET_LTTNG_NAME_MAX];
	char path[PATH_MAX];
	struct caret_lttng_dir_id dir; /* cfg->dir_out's, when r >= 0 */
	char err[512];                 /* why, when r < 0 */
	bool stopped; /* r >= 0, and the child stopped it: cancelled before */
};

/* Told once, from the loop: the start ended (or was abandoned: r is
 * -ECANCELED, and the child stops what it made). */
typedef void (*lttng_start_fn)(void *arg, const struct lttng_start_result *res);

/* Whether v's starts run off the loop: a view started on a loop, with
 * LTTng's real door (a test's fake records its calls in this process, so
 * its starts stay in line). */
bool lttng_start_async(const struct lttng_view *v);

/*
 * Forks the child that makes the session cfg describes through v's ops,
 * and watches its pipe on v's loop; done is called once with the result
 * (cfg is the child's copy: nothing of it is read after this returns).
 * 0, -EAGAIN when a start runs already (caretctl asks again), or -errno,
 * with err.
 */
int lttng_start_begin(struct lttng_view *v, const struct caret_lttng_cfg *cfg,
		      lttng_start_fn done, void *arg, char *err, size_t errlen);

/* The session the running start makes is not wanted: the child stops it
 * itself once made (off the loop), and says so (res->stopped); done is
 * still called at its end. */
void lttng_start_cancel(void);

/* Whether a start runs, and since when (CLOCK_MONOTONIC ns). */
bool lttng_start_running(int64_t *since_ns);

/*
 * caretd exits: a start still running is left to its child, which stops
 * the session it makes (its result has no reader); a result already
 * written is read and its session stopped here. done is called with
 * -ECANCELED.
 */
void lttng_start_abandon(void);

#endif
