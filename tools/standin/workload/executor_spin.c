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

/* What an rmw new-data callback marks ready. */
struct sub_slot {
	struct spinner *s;
	unsigned char *flag;
};

struct spinner {
	pthread_t tid;
	int started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t ntimers, nsubs, nsrvs, nclis;
	struct wl_timer **timers;
	struct wl_subscription **subs;
	struct wl_service **srvs, **clis;
	struct sub_slot *slots;		/* subs, then services, then clients */
	unsigned char *timer_ready, *sub_ready, *srv_ready, *cli_ready;
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
	*slot->flag = 1;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

static int any_set(const unsigned char *flags, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (flags[i])
			return 1;
	return 0;
}

static int any_sub_ready(const struct spinner *s)
{
	return any_set(s->sub_ready, s->nsubs) || any_set(s->srv_ready, s->nsrvs) ||
		any_set(s->cli_ready, s->nclis);
}

/* Clears a ready flag under the lock; returns what it was. */
static int take_flag(struct spinner *s, unsigned char *flag)
{
	int ready;

	pthread_mutex_lock(&s->mu);
	ready = *flag;
	*flag = 0;
	pthread_mutex_unlock(&s->mu);
	return ready;
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

/* Timers, subscriptions, services, clients: the order of rclcpp's default
 * memory strategy. An entity stays ready until a take finds nothing. */
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
		if (!take_flag(s, &s->sub_ready[i]))
			continue;
		ros_trace_rclcpp_executor_execute(s->subs[i]);
		if (wl_execute_subscription(s->subs[i]))
			s->sub_ready[i] = 1;	/* maybe more queued */
		return 1;
	}
	for (size_t i = 0; i < s->nsrvs; i++) {
		if (!take_flag(s, &s->srv_ready[i]))
			continue;
		ros_trace_rclcpp_executor_execute(s->srvs[i]);
		if (wl_execute_service(s->srvs[i]))
			s->srv_ready[i] = 1;
		return 1;
	}
	for (size_t i = 0; i < s->nclis; i++) {
		if (!take_flag(s, &s->cli_ready[i]))
			continue;
		ros_trace_rclcpp_executor_execute(s->clis[i]);
		if (wl_execute_client(s->clis[i]))
			s->cli_ready[i] = 1;
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

/* Appends a group's entities of one kind to (*arr, *n). */
static void collect_kind(void *group, enum standin_entity_kind kind, void ***arr, size_t *n)
{
	size_t k = standin_group_entities(group, kind, NULL, 0);

	*arr = realloc(*arr, (*n + k + 1) * sizeof(void *));
	if (!*arr) {
		fputs("caret-standin: out of memory\n", stderr);
		exit(1);
	}
	standin_group_entities(group, kind, *arr + *n, k);
	*n += k;
}

static void collect(struct spinner *s, void *group)
{
	collect_kind(group, STANDIN_TIMER, (void ***)&s->timers, &s->ntimers);
	collect_kind(group, STANDIN_SUBSCRIPTION, (void ***)&s->subs, &s->nsubs);
	collect_kind(group, STANDIN_SERVICE, (void ***)&s->srvs, &s->nsrvs);
	collect_kind(group, STANDIN_CLIENT, (void ***)&s->clis, &s->nclis);
}

static void prepare(struct spinner *s)
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&s->mu, NULL);
	size_t n = s->nsubs + s->nsrvs + s->nclis;

	s->timer_ready = wl_xcalloc(s->ntimers + 1, 1);
	s->sub_ready = wl_xcalloc(s->nsubs + 1, 1);
	s->srv_ready = wl_xcalloc(s->nsrvs + 1, 1);
	s->cli_ready = wl_xcalloc(s->nclis + 1, 1);
	s->slots = wl_xcalloc(n + 1, sizeof(*s->slots));
	for (size_t i = 0; i < n; i++)
		s->slots[i].s = s;
	/* Data may have arrived before the callback was set: all ready. */
	for (size_t i = 0; i < s->nsubs; i++) {
		s->slots[i].flag = &s->sub_ready[i];
		s->sub_ready[i] = 1;
		rmw_subscription_set_on_new_message_callback(s->subs[i]->rmw,
			on_new_message, &s->slots[i]);
	}
	for (size_t i = 0; i < s->nsrvs; i++) {
		struct sub_slot *sl = &s->slots[s->nsubs + i];

		sl->flag = &s->srv_ready[i];
		s->srv_ready[i] = 1;
		rmw_service_set_on_new_request_callback(s->srvs[i]->srv,
			on_new_message, sl);
	}
	for (size_t i = 0; i < s->nclis; i++) {
		struct sub_slot *sl = &s->slots[s->nsubs + s->nsrvs + i];

		sl->flag = &s->cli_ready[i];
		s->cli_ready[i] = 1;
		rmw_client_set_on_new_response_callback(s->clis[i]->cli,
			on_new_message, sl);
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
		for (size_t j = 0; j < s->nsrvs; j++)
			rmw_service_set_on_new_request_callback(
				s->srvs[j]->srv, NULL, NULL);
		for (size_t j = 0; j < s->nclis; j++)
			rmw_client_set_on_new_response_callback(
				s->clis[j]->cli, NULL, NULL);
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
		free(s->srvs);
		free(s->clis);
		free(s->slots);
		free(s->timer_ready);
		free(s->sub_ready);
		free(s->srv_ready);
		free(s->cli_ready);
	}
	if (all) {
		free(spinners);
		spinners = NULL;
		nspinners = 0;
	}
	return all;
}
