/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caretd's one ordered tick, and small helpers over sd-event.
 *
 * The rule: everything caretd does on a clock is a job of one tick, and a
 * tick runs the jobs that are due in a fixed order of stages:
 *
 *   observe   read the world: the registry's retries and sweep, the LTTng
 *             view's poll, what other hosts said (the bridge's take)
 *   schedule  decide: the pacer runs the scheduler (states, grants)
 *   report    tell: waits of clients, the service manager's STATUS, this
 *             host's Status to the other hosts, idle clients
 *
 * so a decision always sees this tick's observations and a report this
 * tick's decisions (Redis' ae.c runs one time event and a beforesleep the
 * same way). caretd lists every job in one table (struct loop_plan, in
 * daemon/main.c) with its stage and period, and the tick runs them in the
 * table's order: a module cannot add a job the table does not list.
 * Without a table (tests), jobs run by stage in the order they were added.
 *
 * Each job says when it is due again (its own period: 1 ms for a busy
 * pacer, a second for an idle poll), so an idle daemon sleeps until the
 * earliest job and jobs with the same period wake it once, together. A
 * job brought forward (loop_job_soon: an agent's hint, a new session)
 * runs in the current tick if its stage is still to come, else in the
 * next one, right away.
 *
 * Event sources (inotify, sockets, signals) stay sd-event sources: they
 * act on what they read at once and bring jobs forward; they never wait
 * for the tick. The server's accept back-off is a plain timer too: it
 * orders nothing.
 */
#ifndef CARETD_LOOP_H
#define CARETD_LOOP_H

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#define USEC_PER_MS 1000ULL
/* sd-event's default accuracy (250 ms) would coalesce the 1 ms replay
 * ticks into a few per second. */
#define LOOP_ACCURACY_USEC 250
/* A job's run returns this: not due until someone brings it forward. */
#define LOOP_IDLE UINT64_MAX
#define LOOP_MAX_JOBS 16

enum loop_stage { LOOP_OBSERVE, LOOP_SCHEDULE, LOOP_REPORT, LOOP_STAGES };

struct loop;

/* A row of the job table: a job by its name, the stage it must have, and
 * how often it runs (its run's own return: written here for the reader). */
struct loop_plan {
	const char *name;
	enum loop_stage stage;
	const char *period;
};

struct loop_job {
	const char *name;
	enum loop_stage stage;
	/* does the job's work; returns in how many microseconds it is due
	 * again, or LOOP_IDLE */
	uint64_t (*run)(void *arg);
	void *arg;
	/* private to loop.c */
	uint64_t due; /* CLOCK_MONOTONIC usec; LOOP_IDLE: not due */
	int rank;     /* its row in the table, else its stage */
	struct loop *loop;
};

#define LOOP_JOB(n, st, fn, a) \
	((struct loop_job){ .name = (n), .stage = (st), .run = (fn), .arg = (a) })

struct loop {
	sd_event *event;
	sd_event_source *timer;
	struct loop_job *jobs[LOOP_MAX_JOBS]; /* by stage, then in order added */
	int n;
	const struct loop_plan *plan; /* NULL: any job, by stage */
	int n_plan;
	int running; /* index of the job running, -1 outside a tick */
	uint64_t ticks; /* how many ticks ran (tests) */
};

int loop_open(struct loop *l, sd_event *e);
void loop_close(struct loop *l);
/* The job table, before any job is added: -EINVAL unless its rows are in
 * stage order. */
int loop_set_plan(struct loop *l, const struct loop_plan *plan, int n);
/* Adds j (its first run is in the first tick: the daemon's first look at
 * the host is immediate); -ENOSPC beyond LOOP_MAX_JOBS, -EBUSY when added
 * by a running job ahead of where the tick is; with a table, -ENOENT for a
 * job it does not list and -EINVAL for one of another stage. */
int loop_add(struct loop *l, struct loop_job *j);
/* Removes j (a no-op if it was not added). */
void loop_remove(struct loop_job *j);
/* j is due within usec from now, or sooner if it already was; true when
 * this brought it forward. A job not added: false. */
bool loop_job_soon(struct loop_job *j, uint64_t usec);
/* When j is due next (CLOCK_MONOTONIC usec), LOOP_IDLE if not. */
uint64_t loop_job_due(const struct loop_job *j);
/* sd-event's time of this iteration (CLOCK_MONOTONIC usec). */
uint64_t loop_now(const struct loop *l);
/* A one-shot sd-event timer (not a job) set to fire in usec. */
static inline int loop_timer_again(sd_event_source *s, uint64_t usec)
{
	int r = sd_event_source_set_time_relative(s, usec);
	return r < 0 ? r : sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}
/* Runs the jobs due at now (usec) in their order and rearms the timer; the
 * timer's handler, exposed for tests. */
void loop_tick(struct loop *l, uint64_t now);

#endif
