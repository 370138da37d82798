/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CARET's trace filters, with caret_trace's semantics
 * (tier4/caret_trace CARET_trace/src/tracing_controller.cpp, main):
 *   - each variable is a ':'-separated list; each item is a regular
 *     ECMAScript regular expression (std::regex) matched anywhere in the
 *     name (std::regex_search; here PCRE2 in ECMAScript's options, every
 *     search bounded: util/regex/caret_regex.h); "*" matches
 *     everything; an item that does not compile is skipped with a warning
 *     (caretctl and caretd refuse one in a recording's lists before it
 *     gets here);
 *   - node names are namespace + "/" + name ("/ns/node");
 *   - when a SELECT list is set, SELECT decides and IGNORE is not used;
 *   - a publisher / subscription is kept when its topic matches a set
 *     topic list or its node matches a set node list (SELECT), dropped when
 *     either matches (IGNORE); timers, services and clients go by node
 *     (timers kept by a SELECT of topics alone: timer_verdict);
 *   - lifecycle state machines go by node; callback groups by node too,
 *     which their records do not carry: a member's node, or that of the
 *     other groups the executor got with the same node interface;
 *     intra-process buffers (ring buffer, ipb) by the subscription they
 *     feed; with only SELECT_TOPICS set, IGNORE_NODES still judges a
 *     node itself (is_allowed_node);
 *   - callbacks go by what they belong to; a callback without a topic
 *     (timers, services) is always kept, as is anything whose node or
 *     topic is unknown, except:
 *   - Iron and later: a publish event of a publisher whose node or topic
 *     is unknown is dropped ("omit /rosout") -- once: caret_trace caches
 *     `true` for that handle before returning false, so every later event
 *     of it is kept. rclcpp passes nullptr as rclcpp_publish's publisher
 *     handle (ros2/rclcpp publisher.hpp, humble and jazzy), so this is what
 *     keeps rclcpp_publish in CARET's Iron+ traces; the agent does the same
 *     (one claim per handle, lock-free).
 * Init records are always cached; whether one is emitted (live or in a
 * replay) is decided when it is emitted, as caret_trace's record lambdas
 * do. Runtime hooks read verdicts from a lock-free table that init-time
 * code fills (the only writer, under a mutex never taken by app threads on
 * runtime paths).
 *
 * A Start's filters (the pass filter: caretd hands them over in the
 * segment, see struct caret_shm_filter) are a second set of the same four
 * lists with the same semantics, decided over the same relations; an
 * init record or runtime event is emitted only if both sets allow it: the
 * environment's filters are the process's, a Start's narrow one recording.
 * Relations are therefore learnt always (init time only), with the names
 * they match against, so a pass filter given later can be decided.
 *
 * Here: the two sets' parsing, the pass filter's state and what the hooks
 * ask, under one lock for the writers (init-time code and the replay
 * thread, never an app thread on a runtime path). The lists are
 * filter_list.c's, the relations and their verdicts filter_rel.c's, the
 * lock-free table the runtime reads filter_verdicts.c's.
 */
#include <pthread.h>
#include <stdint.h>

#include "agent/filter.h"
#include "agent/filter_list.h"
#include "agent/filter_rel.h"
#include "agent/filter_verdicts.h"
#include "agent/state.h"

static bool iron;
/* The writers' lock (filter_rel.h): init-time code and the replay thread. */
static pthread_mutex_t rel_lock = PTHREAD_MUTEX_INITIALIZER;

/* The pass filter in force: set by the replay thread when a pass starts;
 * it holds while the segment's filter word still reads pass_epoch (End
 * clears it there). A pass that begins in WAIT/PREPARE is the recording's
 * Start: its filter holds for the replay, live init records and runtime
 * events (PASS_ALL). A pass that begins while the process already records
 * for another session (caretd's extra pass for a new session) filters only
 * what the replay thread emits (PASS_REPLAY): the runtime events and live
 * init records also reach the older sessions, which LTTng cannot tell
 * apart, and those already hold the cache, so only copies are left out. */
enum { PASS_OFF = 0, PASS_ALL = 1, PASS_REPLAY = 2 };
static uint32_t pass_mode;         /* atomic */
static uint32_t pass_epoch;        /* atomic */
static const uint32_t *pass_word;  /* atomic pointer */
static pthread_t pass_thread;      /* the replay thread (the one setting passes) */

bool caret_filter_process_ignored(const char *ignore_processes, const char *name)
{
	struct filter_list l = { 0 };
	filter_list_parse(&l, ignore_processes, "CARET_IGNORE_PROCESSES");
	bool r = l.set && filter_list_match(&l, name);
	filter_list_free(&l);
	return r;
}

static const char *const env_names[CARET_FILTER_LISTS] = {
	[CARET_FILTER_SELECT_NODES] = "CARET_SELECT_NODES",
	[CARET_FILTER_IGNORE_NODES] = "CARET_IGNORE_NODES",
	[CARET_FILTER_SELECT_TOPICS] = "CARET_SELECT_TOPICS",
	[CARET_FILTER_IGNORE_TOPICS] = "CARET_IGNORE_TOPICS",
};
static const char *const start_names[CARET_FILTER_LISTS] = {
	[CARET_FILTER_SELECT_NODES] = "Start select_nodes",
	[CARET_FILTER_IGNORE_NODES] = "Start ignore_nodes",
	[CARET_FILTER_SELECT_TOPICS] = "Start select_topics",
	[CARET_FILTER_IGNORE_TOPICS] = "Start ignore_topics",
};

bool caret_filter_configure(const struct caret_filter_env *env)
{
	pthread_mutex_lock(&rel_lock);
	__atomic_store_n(&pass_mode, PASS_OFF, __ATOMIC_RELEASE);
	const char *v[CARET_FILTER_LISTS] = {
		[CARET_FILTER_SELECT_NODES] = env->select_nodes,
		[CARET_FILTER_IGNORE_NODES] = env->ignore_nodes,
		[CARET_FILTER_SELECT_TOPICS] = env->select_topics,
		[CARET_FILTER_IGNORE_TOPICS] = env->ignore_topics,
	};
	filter_set_parse(&filter_sets[FILTER_ENV], v, env_names);
	const char *none[CARET_FILTER_LISTS] = { 0 };
	filter_set_parse(&filter_sets[FILTER_PASS], none, start_names);
	iron = env->iron_or_later;
	filter_rel_reset();
	pthread_mutex_unlock(&rel_lock);
	return filter_set_on(&filter_sets[FILTER_ENV]);
}

static bool env_on(void)
{
	return filter_set_on(&filter_sets[FILTER_ENV]);
}

static bool active(void)
{
	return env_on() || iron;
}

/* The pass filter's mode if its pass still holds (PASS_OFF else): one
 * acquire load when none is, two relaxed ones more when one is. */
static uint32_t pass_held(void)
{
	uint32_t m = __atomic_load_n(&pass_mode, __ATOMIC_ACQUIRE);
	if (m == PASS_OFF)
		return PASS_OFF;
	const uint32_t *w = __atomic_load_n(&pass_word, __ATOMIC_RELAXED);
	return w && __atomic_load_n(w, __ATOMIC_RELAXED) ==
			    __atomic_load_n(&pass_epoch, __ATOMIC_RELAXED)
		       ? m
		       : PASS_OFF;
}

/* Whether the pass filter decides what the calling thread emits now. */
static bool pass_live(void)
{
	return pass_held() == PASS_ALL;
}

static bool pass_live_for_record(void)
{
	uint32_t m = pass_held();
	return m == PASS_ALL ||
	       (m == PASS_REPLAY && pthread_equal(pthread_self(), pass_thread));
}

bool caret_filter_pass_set(const struct caret_filter_lists *f, const uint32_t *word,
			   uint32_t epoch)
{
	/* read before anything else: caretd sets PREPARE before the epoch a
	 * Start's pass has, and leaves RECORD for an extra pass */
	bool extra = caret_recording();
	pthread_mutex_lock(&rel_lock);
	__atomic_store_n(&pass_mode, PASS_OFF, __ATOMIC_RELEASE);
	const char *none[CARET_FILTER_LISTS] = { 0 };
	filter_set_parse(&filter_sets[FILTER_PASS], f ? f->list : none, start_names);
	bool on = filter_set_on(&filter_sets[FILTER_PASS]);
	if (on) {
		filter_rel_decide(FILTER_PASS);
		__atomic_store_n(&pass_word, word, __ATOMIC_RELAXED);
		__atomic_store_n(&pass_epoch, epoch, __ATOMIC_RELAXED);
		pass_thread = pthread_self();
		__atomic_store_n(&pass_mode, extra ? PASS_REPLAY : PASS_ALL, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&rel_lock);
	return on;
}

void caret_filter_note(uint32_t kind, const union caret_arg *a)
{
	pthread_mutex_lock(&rel_lock);
	filter_rel_note(kind, a);
	pthread_mutex_unlock(&rel_lock);
}

/* Which argument of an init record names what it belongs to. */
static int key_arg(uint32_t kind)
{
	switch (kind) {
	case CARET_KIND_rcl_node_init:
	case CARET_KIND_rcl_publisher_init:
	case CARET_KIND_rcl_subscription_init:
	case CARET_KIND_rclcpp_subscription_init:
	case CARET_KIND_rcl_service_init:
	case CARET_KIND_rclcpp_service_callback_added:
	case CARET_KIND_rcl_client_init:
	case CARET_KIND_rcl_timer_init:
	case CARET_KIND_rclcpp_timer_callback_added:
	case CARET_KIND_rclcpp_callback_register:
	case CARET_KIND_rclcpp_construct_ring_buffer:
	case CARET_KIND_rclcpp_buffer_to_ipb:
	case CARET_KIND_rclcpp_ipb_to_subscription:
		return 0;
	case CARET_KIND_rclcpp_subscription_callback_added:
	case CARET_KIND_rclcpp_timer_link_node:
	case CARET_KIND_callback_group_add_timer:
	case CARET_KIND_callback_group_add_subscription:
	case CARET_KIND_callback_group_add_service:
	case CARET_KIND_callback_group_add_client:
	case CARET_KIND_rcl_lifecycle_state_machine_init:
	case CARET_KIND_add_callback_group:
	case CARET_KIND_add_callback_group_static_executor:
		return 1;
	default:
		return -1;
	}
}

/* Both sets allow `key` (a set that is off allows everything); `pass`:
 * whether the pass filter is in force for this call. */
static bool allowed_in(const void *key, bool pass)
{
	if (env_on() && filter_vt_get(key, FILTER_ENV) == V_DENY)
		return false;
	return !pass || filter_vt_get(key, FILTER_PASS) != V_DENY;
}

static bool allowed(const void *key)
{
	return allowed_in(key, pass_live());
}

bool caret_filter_record_allowed(uint32_t kind, const union caret_arg *a)
{
	int k = key_arg(kind);
	return k < 0 || allowed_in(filter_arg_ptr(a, k), pass_live_for_record());
}

bool caret_filter_callback_allowed(const void *callback)
{
	return allowed(callback);
}

bool caret_filter_rmw_subscription_allowed(const void *h)
{
	return allowed(h);
}

void caret_filter_note_group_node(const void *group, const void *node_key)
{
	if (!group || !node_key)
		return;
	pthread_mutex_lock(&rel_lock);
	filter_rel_group_node(group, node_key);
	pthread_mutex_unlock(&rel_lock);
}

bool caret_filter_state_machine_allowed(const void *state_machine)
{
	return allowed(state_machine);
}

bool caret_filter_buffer_allowed(const void *buffer)
{
	return allowed(buffer);
}

bool caret_filter_publisher_allowed(const void *pub)
{
	if (pass_live() && filter_vt_get(pub, FILTER_PASS) == V_DENY)
		return false;
	if (!active())
		return true;
	uint32_t v = filter_vt_get(pub, FILTER_ENV);
	if (v != V_UNKNOWN || !iron)
		return v != V_DENY;
	bool fresh;
	struct filter_vslot *sl = filter_vt_claim(pub, &fresh);
	return !(sl && fresh);
}
