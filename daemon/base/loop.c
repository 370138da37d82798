/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "daemon/base/loop.h"
#include "util/caret_util.h"

uint64_t loop_now(const struct loop *l)
{
	uint64_t now = 0;
	if (!l->event || sd_event_now(l->event, CLOCK_MONOTONIC, &now) < 0)
		now = (uint64_t)caret_now_ns() / 1000;
	return now;
}

static uint64_t after(uint64_t now, uint64_t usec)
{
	return usec == LOOP_IDLE || now + usec < now ? LOOP_IDLE : now + usec;
}

/* The timer at the earliest due job; off when none is due. */
static void rearm(struct loop *l)
{
	if (!l->timer)
		return;
	uint64_t due = LOOP_IDLE;
	for (int i = 0; i < l->n; i++)
		if (l->jobs[i]->due < due)
			due = l->jobs[i]->due;
	/* these fail only on a loop that is gone (-ESTALE) or a forked
	 * child (-ECHILD): nothing left to wake */
	if (due == LOOP_IDLE)
		sd_event_source_set_enabled(l->timer, SD_EVENT_OFF);
	else if (sd_event_source_set_time(l->timer, due) >= 0)
		sd_event_source_set_enabled(l->timer, SD_EVENT_ONESHOT);
}

void loop_tick(struct loop *l, uint64_t now)
{
	l->ticks++;
	for (l->running = 0; l->running < l->n; l->running++) {
		struct loop_job *j = l->jobs[l->running];
		if (j->due > now)
			continue;
		j->due = LOOP_IDLE; /* a job may bring itself forward while it runs */
		uint64_t again = after(now, j->run(j->arg));
		if (again < j->due)
			j->due = again;
	}
	l->running = -1;
	rearm(l);
}

static int on_timer(sd_event_source *s, uint64_t usec, void *arg)
{
	(void)s, (void)usec;
	loop_tick(arg, loop_now(arg));
	return 0;
}

int loop_open(struct loop *l, sd_event *e)
{
	l->event = e;
	l->running = -1;
	l->plan = NULL;
	l->n_plan = 0;
	int r = sd_event_add_time(e, &l->timer, CLOCK_MONOTONIC, 0, LOOP_ACCURACY_USEC, on_timer,
				  l);
	if (r < 0)
		l->timer = NULL;
	return r;
}

void loop_close(struct loop *l)
{
	l->timer = sd_event_source_disable_unref(l->timer);
	while (l->n)
		loop_remove(l->jobs[l->n - 1]);
}

int loop_set_plan(struct loop *l, const struct loop_plan *plan, int n)
{
	if (l->n)
		return -EBUSY;
	for (int i = 1; i < n; i++)
		if (plan[i].stage < plan[i - 1].stage)
			return -EINVAL;
	l->plan = plan;
	l->n_plan = n;
	return 0;
}

/* Where j runs in the tick: its row of the table, or (no table) its stage. */
static int rank_of(const struct loop *l, const struct loop_job *j)
{
	if (!l->plan)
		return (int)j->stage;
	for (int i = 0; i < l->n_plan; i++)
		if (strcmp(l->plan[i].name, j->name) == 0)
			return l->plan[i].stage == j->stage ? i : -EINVAL;
	return -ENOENT;
}

int loop_add(struct loop *l, struct loop_job *j)
{
	if (j->stage >= LOOP_STAGES || !j->run)
		return -EINVAL;
	int rank = rank_of(l, j);
	if (rank < 0)
		return rank;
	if (l->n == LOOP_MAX_JOBS)
		return -ENOSPC;
	int at = l->n;
	while (at > 0 && l->jobs[at - 1]->rank > rank)
		at--;
	/* never ahead of the job running: the tick's index would skip one */
	if (l->running >= 0 && at <= l->running)
		return -EBUSY;
	for (int i = l->n; i > at; i--)
		l->jobs[i] = l->jobs[i - 1];
	l->jobs[at] = j;
	l->n++;
	j->rank = rank;
	j->loop = l;
	j->due = 0;
	rearm(l);
	return 0;
}

void loop_remove(struct loop_job *j)
{
	struct loop *l = j->loop;
	if (!l)
		return;
	for (int i = 0; i < l->n; i++)
		if (l->jobs[i] == j) {
			for (int k = i; k + 1 < l->n; k++)
				l->jobs[k] = l->jobs[k + 1];
			l->n--;
			if (l->running >= i)
				l->running--;
			break;
		}
	j->loop = NULL;
	j->due = LOOP_IDLE;
	rearm(l);
}

bool loop_job_soon(struct loop_job *j, uint64_t usec)
{
	struct loop *l = j->loop;
	if (!l)
		return false;
	uint64_t due = after(loop_now(l), usec);
	if (due >= j->due)
		return false;
	j->due = due;
	/* inside a tick the timer is set when it ends */
	if (l->running < 0)
		rearm(l);
	return true;
}

uint64_t loop_job_due(const struct loop_job *j)
{
	return j->loop ? j->due : LOOP_IDLE;
}
