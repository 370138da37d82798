/* SPDX-License-Identifier: Apache-2.0 */
/* Requests that call LTTng, queued behind its start (daemon/server/cmd_queue.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/base/log.h"
#include "daemon/lttng/lttng_start.h"
#include "daemon/server/cmd_queue.h"

#define NS_PER_MS 1000000LL
#define PROGRESS_EVERY_NS (1000 * NS_PER_MS)

struct queued {
	struct cmd_ctx ctx;
	struct cmd_peer peer;
	cmd_queue_run_fn run;
	int64_t since_ns, last_progress_ns;
	struct wait_req *inner; /* once run: the request's own wait, if any */
	bool ran;
	char line[]; /* the request, run again once the start ended */
};

static int n_queued;

bool cmd_queue_wanted(const struct caret_ctl_req *q)
{
	switch (q->cmd) {
	case CARET_CTL_STOP:
	case CARET_CTL_PAUSE:
	case CARET_CTL_RESUME:
	case CARET_CTL_SNAPSHOT:
		return true;
	case CARET_CTL_RECORD:
		/* go: LTTng enables its channel; url: a relay's session name
		 * is asked of LTTng before the start (which then waits its
		 * turn as any record does: EAGAIN) */
		return q->u.record.go || q->u.record.url;
	default:
		return false;
	}
}

static int registry_live(const struct registry *reg)
{
	int n = 0;
	for (const struct agent *a = reg ? reg->head : NULL; a; a = a->next)
		n += !a->dead;
	return n;
}

static wait_line *poll_queued(void *arg, int64_t now, bool *done)
{
	struct queued *j = arg;
	*done = false;
	if (j->inner)
		return wait_poll(j->inner, now, done);
	int64_t started;
	if (lttng_start_running(&started)) {
		if (now - j->since_ns >= (int64_t)CMD_QUEUE_MAX_WAIT_S * 1000 * NS_PER_MS) {
			*done = true;
			char m[160];
			snprintf(m, sizeof(m), "LTTng has been starting another session for over "
				 "%d s: not done, try again", CMD_QUEUE_MAX_WAIT_S);
			return wait_line_error(ETIMEDOUT, m);
		}
		if (j->last_progress_ns && now - j->last_progress_ns < PROGRESS_EVERY_NS)
			return NULL;
		j->last_progress_ns = now;
		return wait_line_lttng_start(registry_live(j->ctx.reg), (now - started) / NS_PER_MS);
	}
	j->ran = true;
	log_info("a request that waited %lld ms for LTTng's session start runs now",
		 (long long)((now - j->since_ns) / NS_PER_MS));
	struct wait_req *w = NULL;
	wait_line *l = j->run(&j->ctx, &j->peer, j->line, now, &w);
	if (!w) {
		*done = true;
		return l;
	}
	j->inner = w;
	return wait_poll(w, now, done);
}

static void release_queued(void *arg)
{
	struct queued *j = arg;
	if (j->inner)
		wait_free(j->inner);
	else if (!j->ran)
		log_info("a request waiting for LTTng's session start was left by its requester");
	n_queued--;
	free(j);
}

static const struct wait_custom queued_ops = { poll_queued, release_queued };

int cmd_queue_defer(const struct cmd_ctx *ctx, const struct cmd_peer *peer, const char *line,
		    cmd_queue_run_fn run, int64_t now_ns, struct wait_req **wait,
		    struct cmd_err *e)
{
	if (n_queued >= CMD_QUEUE_MAX)
		return cmd_fail(e, EAGAIN, "LTTng is starting a session and %d requests already "
				"wait for it: try again once it is started", n_queued);
	size_t n = strlen(line);
	struct queued *j = malloc(sizeof(*j) + n + 1);
	if (!j)
		return cmd_fail(e, ENOMEM, "out of memory");
	*j = (struct queued){ .ctx = *ctx, .peer = *peer, .run = run, .since_ns = now_ns };
	memcpy(j->line, line, n + 1);
	n_queued++;
	/* out of memory: release_queued ran */
	*wait = wait_custom(&queued_ops, j);
	return *wait ? 0 : cmd_fail(e, ENOMEM, "out of memory");
}
