/* SPDX-License-Identifier: Apache-2.0 */
#include <stdio.h>
#include <string.h>
#include <systemd/sd-daemon.h>

#include "daemon/base/log.h"
#include "daemon/base/loop.h"
#include "daemon/server/notify.h"
#include "daemon/agents/scheduler.h"

#define STATUS_USEC (50 * USEC_PER_MS)
#define STATUS_IDLE_USEC (1000 * USEC_PER_MS)

static void status(struct notify *n)
{
	char s[640];
	struct progress p;
	const struct lttng_view *v = n->lttng;
	sched_progress(n->reg, &p);
	if (!v->ok)
		snprintf(s, sizeof(s), "STATUS=waiting for lttng-sessiond (%.200s); %d agents",
			 v->err, p.total);
	else if (v->n_active == 0)
		snprintf(s, sizeof(s), "STATUS=idle: %d agents, no active LTTng session", p.total);
	else if (p.recording < p.total)
		snprintf(s, sizeof(s), "STATUS=replaying: %d/%d processes recording", p.recording,
			 p.total);
	else
		snprintf(s, sizeof(s), "STATUS=recording: %d processes, session %.200s", p.total,
			 v->active[0]);
	if (strcmp(s, n->last)) {
		sd_notify(0, s);
		memcpy(n->last, s, sizeof(n->last));
	}
}

static uint64_t on_timer(void *arg)
{
	struct notify *n = arg;
	status(n);
	/* READY means "can tell Start from End", which needs the session
	 * daemon; the control socket answers before that. */
	if (!n->ready && n->lttng->ok) {
		sd_notify(0, "READY=1");
		n->ready = true;
		log_info("ready");
	}
	/* idle, the status line changes with the agents' number alone */
	return n->ready && n->lttng->n_active == 0 ? STATUS_IDLE_USEC : STATUS_USEC;
}

int notify_start(struct notify *n, struct loop *loop, const struct notify_ops *ops)
{
	n->reg = ops->reg;
	n->lttng = ops->lttng;
	n->job = LOOP_JOB("notify", LOOP_REPORT, on_timer, n);
	return loop_add(loop, &n->job);
}

void notify_stopping(struct notify *n)
{
	loop_remove(&n->job);
	sd_notify(0, "STOPPING=1");
}
