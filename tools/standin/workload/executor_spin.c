/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The spin loop, shaped like rclcpp's Executor::spin(): get_next_ready;
 * when nothing is ready, wait_for_work and look again; execute one item.
 * It runs only what reached the executor through the rclcpp symbols
 * (groups added to it, entities added to those groups), so an interposer
 * that fails to forward a call visibly breaks the workload.
 *
 * A multi-threaded executor gets one thread per share of callback groups,
 * each with its own waitset: mutually exclusive groups never run
 * concurrently, which is what rclcpp guarantees too.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tools/standin/tracetools/tracetools.h"
#include "tools/standin/workload/executor.h"
#include "tools/standin/workload/util.h"

struct spinner {
	pthread_t tid;
	int started;
	dds_entity_t waitset;
	enum wl_distro distro;
	size_t ntimers, nsubs;
	struct wl_timer **timers;
	struct wl_subscription **subs;
	unsigned char *timer_ready, *sub_ready;
	dds_attach_t *xs;
};

static struct spinner *spinners;
static unsigned nspinners;
static int stopping;

/* Timers fire late, never early, and skip missed periods like rcl. */
static void rearm(struct wl_timer *t, int64_t now)
{
	t->next_ns += t->period_ns;
	if (t->next_ns <= now)
		t->next_ns += ((now - t->next_ns) / t->period_ns + 1) *
			t->period_ns;
}

static void wait_for_work(struct spinner *s)
{
	int64_t now = wl_now_ns(), timeout = DDS_SECS(1);
	dds_return_t n;

	for (size_t i = 0; i < s->ntimers; i++)
		if (s->timers[i]->next_ns - now < timeout)
			timeout = s->timers[i]->next_ns - now;
	n = dds_waitset_wait(s->waitset, s->xs, s->nsubs + 1,
		timeout > 0 ? timeout : 0);
	now = wl_now_ns();
	for (size_t i = 0; i < s->ntimers; i++)
		s->timer_ready[i] = s->timers[i]->next_ns <= now;
	for (dds_return_t i = 0; i < n && i < (dds_return_t)s->nsubs + 1; i++)
		if (s->xs[i])
			s->sub_ready[s->xs[i] - 1] = 1;
}

/* Timers before subscriptions, as rclcpp's default memory strategy. */
static int run_next_ready(struct spinner *s)
{
	for (size_t i = 0; i < s->ntimers; i++) {
		struct wl_timer *t = s->timers[i];

		if (!s->timer_ready[i])
			continue;
		s->timer_ready[i] = 0;
		ros_trace_rclcpp_executor_execute(t);
		rearm(t, wl_now_ns());
		wl_execute_timer(t, s->distro);
		return 1;
	}
	for (size_t i = 0; i < s->nsubs; i++) {
		if (!s->sub_ready[i])
			continue;
		s->sub_ready[i] = 0;
		ros_trace_rclcpp_executor_execute(s->subs[i]);
		wl_execute_subscription(s->subs[i]);
		return 1;
	}
	return 0;
}

static void *spin(void *arg)
{
	struct spinner *s = arg;

	while (!__atomic_load_n(&stopping, __ATOMIC_ACQUIRE)) {
		ros_trace_rclcpp_executor_get_next_ready();
		if (run_next_ready(s))
			continue;
		/* spin() waits without a timeout: -1 is what rclcpp records. */
		ros_trace_rclcpp_executor_wait_for_work(-1);
		wait_for_work(s);
	}
	return NULL;
}

static void collect(struct spinner *s, void *group)
{
	size_t nt = standin_group_entities(group, STANDIN_TIMER, NULL, 0);
	size_t ns = standin_group_entities(group, STANDIN_SUBSCRIPTION, NULL, 0);
	void **e = wl_xcalloc(nt > ns ? nt : ns, sizeof(*e));

	s->timers = realloc(s->timers, (s->ntimers + nt + 1) * sizeof(void *));
	s->subs = realloc(s->subs, (s->nsubs + ns + 1) * sizeof(void *));
	if (!s->timers || !s->subs) {
		fputs("caret-standin: out of memory\n", stderr);
		exit(1);
	}
	standin_group_entities(group, STANDIN_TIMER, e, nt);
	for (size_t i = 0; i < nt; i++)
		s->timers[s->ntimers++] = standin_entity_user(e[i]);
	standin_group_entities(group, STANDIN_SUBSCRIPTION, e, ns);
	for (size_t i = 0; i < ns; i++)
		s->subs[s->nsubs++] = standin_entity_user(e[i]);
	free(e);
}

static int prepare(struct spinner *s, dds_entity_t participant)
{
	s->timer_ready = wl_xcalloc(s->ntimers, 1);
	s->sub_ready = wl_xcalloc(s->nsubs, 1);
	s->xs = wl_xcalloc(s->nsubs + 1, sizeof(*s->xs));
	s->waitset = dds_create_waitset(participant);
	if (s->waitset < 0)
		return -1;
	/* Attach arg 0 is the stop trigger, i + 1 is subscription i. */
	if (dds_waitset_attach(s->waitset, s->waitset, 0) < 0)
		return -1;
	for (size_t i = 0; i < s->nsubs; i++)
		if (dds_waitset_attach(s->waitset, s->subs[i]->rmw->readcond,
			(dds_attach_t)(i + 1)) < 0)
			return -1;
	return 0;
}

int wl_executor_start(struct wl_system *sys)
{
	size_t ngroups = standin_executor_groups(sys->executor, NULL, 0);
	void **groups = wl_xcalloc(ngroups, sizeof(*groups));
	unsigned threads = standin_executor_threads(sys->executor);
	int rc = 0;

	if (threads > ngroups)
		threads = ngroups ? (unsigned)ngroups : 1;
	spinners = wl_xcalloc(threads, sizeof(*spinners));
	nspinners = threads;
	standin_executor_groups(sys->executor, groups, ngroups);
	for (size_t g = 0; g < ngroups; g++)
		collect(&spinners[g % threads], groups[g]);
	free(groups);
	for (unsigned i = 0; i < threads && rc == 0; i++) {
		struct spinner *s = &spinners[i];

		s->distro = sys->opt->distro;
		if (prepare(s, sys->context->rmw.participant) < 0 ||
		    pthread_create(&s->tid, NULL, spin, s) != 0)
			rc = -1;
		else
			s->started = 1;
	}
	if (rc < 0)
		fputs("caret-standin: cannot start executor\n", stderr);
	return rc;
}

void wl_executor_stop(void)
{
	__atomic_store_n(&stopping, 1, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < nspinners; i++)
		if (spinners[i].started)
			dds_waitset_set_trigger(spinners[i].waitset, true);
}

bool wl_executor_join(double timeout_s)
{
	struct timespec deadline;
	bool all = true;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += (time_t)timeout_s;
	for (unsigned i = 0; i < nspinners; i++) {
		struct spinner *s = &spinners[i];

		if (!s->started)
			continue;
		if (pthread_timedjoin_np(s->tid, NULL, &deadline) != 0) {
			all = false;
			continue;
		}
		s->started = 0;
		free(s->timers);
		free(s->subs);
		free(s->timer_ready);
		free(s->sub_ready);
		free(s->xs);
	}
	if (all) {
		free(spinners);
		spinners = NULL;
		nspinners = 0;
	}
	return all;
}
