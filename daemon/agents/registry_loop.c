/* SPDX-License-Identifier: Apache-2.0 */
#include <sys/epoll.h>

#include "daemon/base/loop.h"
#include "daemon/agents/registry_loop.h"

/* An agent writes its identity through the mapping after creating the
 * file, which inotify does not report: look again this often. */
#define RETRY_USEC (50 * USEC_PER_MS)
/* With nothing pending the retry timer only wakes caretd; it is brought
 * forward when a segment becomes pending. */
#define RETRY_IDLE_USEC (5000 * USEC_PER_MS)
/* A dead process's segment is reclaimed within this time. */
#define SWEEP_USEC (1000 * USEC_PER_MS)

static int on_inotify(sd_event_source *s, int fd, uint32_t events, void *arg)
{
	(void)s, (void)fd, (void)events;
	struct registry_loop *l = arg;
	registry_on_inotify(l->ops.reg);
	if (registry_has_pending())
		loop_job_soon(&l->retry, RETRY_USEC);
	if (l->ops.reg->lttng_hints != l->hints_seen) {
		l->hints_seen = l->ops.reg->lttng_hints;
		if (l->ops.on_hint)
			l->ops.on_hint(l->ops.hint_arg);
	}
	return 0;
}

static uint64_t on_retry(void *arg)
{
	struct registry_loop *l = arg;
	registry_retry_pending(l->ops.reg);
	return registry_has_pending() ? RETRY_USEC : RETRY_IDLE_USEC;
}

static uint64_t on_sweep(void *arg)
{
	struct registry_loop *l = arg;
	registry_sweep(l->ops.reg);
	return SWEEP_USEC;
}

int registry_loop_start(struct registry_loop *l, struct loop *loop,
			const struct registry_loop_ops *ops)
{
	l->ops = *ops;
	struct registry *r = ops->reg;
	l->retry = LOOP_JOB("registry retry", LOOP_OBSERVE, on_retry, l);
	l->sweep = LOOP_JOB("registry sweep", LOOP_OBSERVE, on_sweep, l);
	int rc = sd_event_add_io(loop->event, &l->inotify, r->inotify_fd, EPOLLIN, on_inotify, l);
	if (rc >= 0)
		rc = loop_add(loop, &l->retry);
	if (rc >= 0)
		rc = loop_add(loop, &l->sweep);
	if (rc < 0)
		registry_loop_stop(l);
	return rc;
}

void registry_loop_stop(struct registry_loop *l)
{
	l->inotify = sd_event_source_disable_unref(l->inotify);
	loop_remove(&l->retry);
	loop_remove(&l->sweep);
}
