/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The spin loop, shaped like rclcpp's Executor::spin(): get_next_ready;
 * when nothing is ready, wait_for_work and look again; execute one item.
 * It runs only what reached the executor through the rclcpp symbols
 * (groups the executor holds, entities added to those groups), so an
 * interposer that fails to forward a call visibly breaks the workload.
 *
 * Waiting is middleware-neutral: the rmw layer calls back on new data
 * (rmw_subscription_set_on_new_message_callback) and the spinner sleeps on
 * a condition variable until then, the next timer, or 100 ms (a missed
 * wake-up costs at most that).
 *
 * A multi-threaded executor gets one thread per share of callback groups:
 * mutually exclusive groups never run concurrently, as rclcpp guarantees.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tools/standin/tracetools/tracetools.h"
#include "tools/standin/workload/executor.h"
#include "tools/standin/workload/util.h"

#define WL_MAX_WAIT_NS 100000000LL

struct spinner;

struct sub_slot {
	struct spinner *s;
	size_t index;
};

struct spinner {
	pthread_t tid;
	int started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t ntimers, nsubs;
	struct wl_timer **timers;
	struct wl_subscription **subs;
	struct sub_slot *slots;
	unsigned char *timer_ready, *sub_ready;
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

/* Called by the rmw layer, on a middleware thread. */
static void on_new_message(const void *user_data, size_t n)
{
	const struct sub_slot *slot = user_data;
	struct spinner *s = slot->s;

	(void)n;
	pthread_mutex_lock(&s->mu);
	s->sub_ready[slot->index] = 1;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

static int any_sub_ready(const struct spinner *s)
{
	for (size_t i = 0; i < s->nsubs; i++)
		if (s->sub_ready[i])
			return 1;
	return 0;
}

static void wait_for_work(struct spinner *s)
{
	int64_t now = wl_now_ns(), timeout = WL_MAX_WAIT_NS;
	struct timespec until;

	for (size_t i = 0; i < s->ntimers; i++)
		if (s->timers[i]->next_ns - now < timeout)
			timeout = s->timers[i]->next_ns - now;
	clock_gettime(CLOCK_MONOTONIC, &until);
	if (timeout > 0) {
		int64_t ns = until.tv_nsec + timeout;

		until.tv_sec += ns / 1000000000;
		until.tv_nsec = ns % 1000000000;
		pthread_mutex_lock(&s->mu);
		if (!any_sub_ready(s) &&
		    !__atomic_load_n(&stopping, __ATOMIC_ACQUIRE))
			pthread_cond_timedwait(&s->cv, &s->mu, &until);
		pthread_mutex_unlock(&s->mu);
	}
	now = wl_now_ns();
	for (size_t i = 0; i < s->ntimers; i++)
		s->timer_ready[i] = s->timers[i]->next_ns <= now;
}

/* Timers before subscriptions, as rclcpp's default memory strategy. A
 * subscription stays ready until a take finds nothing. */
static int run_next_ready(struct spinner *s)
{
	for (size_t i = 0; i < s->ntimers; i++) {
		struct wl_timer *t = s->timers[i];

		if (!s->timer_ready[i])
			continue;
		s->timer_ready[i] = 0;
		ros_trace_rclcpp_executor_execute(t);
		rearm(t, wl_now_ns());
		wl_execute_timer(t);
		return 1;
	}
	for (size_t i = 0; i < s->nsubs; i++) {
		int ready;

		pthread_mutex_lock(&s->mu);
		ready = s->sub_ready[i];
		s->sub_ready[i] = 0;
		pthread_mutex_unlock(&s->mu);
		if (!ready)
			continue;
		ros_trace_rclcpp_executor_execute(s->subs[i]);
		if (wl_execute_subscription(s->subs[i]))
			s->sub_ready[i] = 1;	/* maybe more queued */
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

	s->timers = realloc(s->timers, (s->ntimers + nt + 1) * sizeof(void *));
	s->subs = realloc(s->subs, (s->nsubs + ns + 1) * sizeof(void *));
	if (!s->timers || !s->subs) {
		fputs("caret-standin: out of memory\n", stderr);
		exit(1);
	}
	standin_group_entities(group, STANDIN_TIMER,
		(void **)(s->timers + s->ntimers), nt);
	s->ntimers += nt;
	standin_group_entities(group, STANDIN_SUBSCRIPTION,
		(void **)(s->subs + s->nsubs), ns);
	s->nsubs += ns;
}

static void prepare(struct spinner *s)
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&s->mu, NULL);
	s->timer_ready = wl_xcalloc(s->ntimers + 1, 1);
	s->sub_ready = wl_xcalloc(s->nsubs + 1, 1);
	s->slots = wl_xcalloc(s->nsubs + 1, sizeof(*s->slots));
	for (size_t i = 0; i < s->nsubs; i++) {
		s->slots[i].s = s;
		s->slots[i].index = i;
		/* Data may have arrived before the callback was set. */
		s->sub_ready[i] = 1;
		rmw_subscription_set_on_new_message_callback(s->subs[i]->rmw,
			on_new_message, &s->slots[i]);
	}
}

int wl_executor_start(struct wl_system *sys)
{
	enum standin_exec_kind kind = sys->opt->executor == WL_EXEC_MULTI ?
		STANDIN_EXEC_MULTI : STANDIN_EXEC_SINGLE;
	size_t ngroups = standin_executor_groups(sys->executor, NULL, 0);
	void **groups = wl_xcalloc(ngroups + 1, sizeof(*groups));
	size_t threads = standin_executor_threads(sys->executor, kind);
	int rc = 0;

	if (threads > ngroups)
		threads = ngroups ? ngroups : 1;
	spinners = wl_xcalloc(threads, sizeof(*spinners));
	nspinners = (unsigned)threads;
	standin_executor_groups(sys->executor, groups, ngroups);
	for (size_t g = 0; g < ngroups; g++)
		collect(&spinners[g % threads], groups[g]);
	free(groups);
	for (unsigned i = 0; i < nspinners; i++)
		prepare(&spinners[i]);
	for (unsigned i = 0; i < nspinners && rc == 0; i++) {
		struct spinner *s = &spinners[i];

		if (pthread_create(&s->tid, NULL, spin, s) != 0)
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
	for (unsigned i = 0; i < nspinners; i++) {
		struct spinner *s = &spinners[i];

		if (!s->started)
			continue;
		for (size_t j = 0; j < s->nsubs; j++)
			rmw_subscription_set_on_new_message_callback(
				s->subs[j]->rmw, NULL, NULL);
		pthread_mutex_lock(&s->mu);
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
	}
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
		free(s->slots);
		free(s->timer_ready);
		free(s->sub_ready);
	}
	if (all) {
		free(spinners);
		spinners = NULL;
		nspinners = 0;
	}
	return all;
}
