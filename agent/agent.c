/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libcaret-agent.so core: lazy per-process initialisation, configuration,
 * fork handling, and the init-record capture path.
 *
 * Nothing happens at load time beyond registering fork handlers: a process
 * that never calls tracetools gets no segment, no thread and no lttng-ust.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/count.h"
#include "agent/agent.h"
#include "agent/distro.h"
#include "agent/filter.h"
#include "agent/provider.h"
#include "agent/replay.h"
#include "agent/resolve.h"
#include "agent/state.h"

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
/* Set while this thread initialises under init_lock: loading the provider
 * can run lttng-ust's constructor, which forks (wait-shm creation) and
 * would deadlock in our own fork handler. */
static __thread bool in_init;
/* atomic: 0 not yet, 1 active, 2 disabled (forward everything), 3 ignored
 * by CARET_IGNORE_PROCESSES (emit nothing, as caret_trace's hooks do) */
static int init_done;
static struct caret_seg seg;
static bool seg_ok;
/* The replay thread runs: a cached record may be left to it. */
static bool replay_ok;
static pid_t seg_pid;
static char distribution[24];

int caret_agent_seg_fd(void)
{
	return __atomic_load_n(&seg_ok, __ATOMIC_ACQUIRE) && seg_pid == getpid() ? seg.fd : -1;
}

static uint64_t cache_size(void)
{
	const char *v = getenv("CARET_AGENT_CACHE_SIZE");
	if (!v || !*v)
		return CARET_SHM_DEFAULT_CAPACITY;
	uint64_t n;
	if (caret_parse_size(v, CARET_SHM_MAX_CAPACITY, &n) < 0 || n < CARET_SHM_MIN_CAPACITY) {
		caret_warn("caret-agent: ignoring invalid CARET_AGENT_CACHE_SIZE=%s", v);
		return CARET_SHM_DEFAULT_CAPACITY;
	}
	return n;
}

static bool loaded_elsewhere(const char *sym)
{
	return caret_find_in_loaded(sym) != NULL;
}

static void init_locked(void)
{
	const char *dis = getenv("CARET_AGENT_DISABLE");
	if (dis && *dis == '1') {
		__atomic_store_n(&init_done, 2, __ATOMIC_RELEASE);
		return;
	}
	/* caret_trace matches program_invocation_short_name. */
	if (caret_filter_process_ignored(getenv("CARET_IGNORE_PROCESSES"),
					 program_invocation_short_name)) {
		__atomic_store_n(&init_done, 3, __ATOMIC_RELEASE);
		return;
	}
	/* What is loaded decides; $ROS_DISTRO only breaks ties (distro.c). */
	struct caret_distro dd;
	caret_distro_detect(loaded_elsewhere, getenv("ROS_DISTRO"), &dd);
	snprintf(distribution, sizeof(distribution), "%s", dd.name);
	caret_rmw_publish_args = dd.rmw_publish_args;
	caret_jazzy_or_later = dd.family == CARET_FAMILY_JAZZY;
	struct caret_filter_env fe = {
		.select_nodes = getenv("CARET_SELECT_NODES"),
		.ignore_nodes = getenv("CARET_IGNORE_NODES"),
		.select_topics = getenv("CARET_SELECT_TOPICS"),
		.ignore_topics = getenv("CARET_IGNORE_TOPICS"),
		.iron_or_later = dd.family == CARET_FAMILY_IRON || dd.family == CARET_FAMILY_JAZZY,
	};
	caret_filter_configure(&fe);
	if (dd.source != CARET_DISTRO_SYMBOLS)
		caret_warn("caret-agent: distribution %s (%s)", dd.name,
			   dd.defaulted ? "not detected: the default; set ROS_DISTRO" :
			   dd.source == CARET_DISTRO_HINT ? "from $ROS_DISTRO" : "not detected");

	caret_provider_choose(dd.rmw_publish_args);
	/* A started session has this process: the provider now, so that the
	 * start state below comes from what that session records, as it
	 * always did. Otherwise when first needed (provider.h). */
	const struct caret_tp_api *tp =
		caret_provider_attached() || caret_provider_session_mapped() ? caret_provider_load()
									       : NULL;
	char comm[17] = "";
	FILE *f = fopen("/proc/self/comm", "re");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	/* Decide the start state before anything is cached: a session that
	 * already records our events means conventional use, record all;
	 * unless caretd says wait (a recording armed open for an Enter still
	 * to come, or one with a node/topic filter): its pass moves this
	 * process, after that Enter, with that filter. */
	uint32_t st = (tp && tp->enabled() && !caret_armed_now()) ? CARET_STATE_RECORD
								     : CARET_STATE_WAIT;
	int r = caret_seg_create(&seg, cache_size(), comm, distribution);
	if (r < 0) {
		caret_warn("caret-agent: no init cache (shm: %s); late recording "
			   "will miss this process", strerror(-r));
		caret_state_use_local(st);
	} else {
		seg_ok = true;
		seg_pid = getpid();
		if (caret_provider_failed())
			caret_own_set_flags(&seg, CARET_AGENT_NO_TRACEPOINTS, 0);
		caret_own_set_state(&seg, st);
		caret_state_use(caret_own_state_word(&seg));
		caret_count_use(&seg);
		caret_count_scope(&seg, caret_jazzy_or_later);
		/* whether or not the provider is loaded yet: a pass loads it */
		if (!caret_provider_failed() && (r = caret_replay_start(&seg, distribution)) < 0)
			caret_warn("caret-agent: no replay thread: %s", strerror(-r));
		replay_ok = !caret_provider_failed() && r >= 0;
	}
	/* in WAIT, each replay pass emits it first (replay.c): one now would
	 * land in a recording armed open before its Enter */
	if (tp && st == CARET_STATE_RECORD)
		tp->caret_init(caret_now_ns(), distribution);
	__atomic_store_n(&init_done, 1, __ATOMIC_RELEASE);
}

static int agent_mode(void)
{
	int d = __atomic_load_n(&init_done, __ATOMIC_ACQUIRE);
	if (d == 0) {
		pthread_mutex_lock(&init_lock);
		if (__atomic_load_n(&init_done, __ATOMIC_ACQUIRE) == 0) {
			in_init = true;
			init_locked();
			in_init = false;
		}
		pthread_mutex_unlock(&init_lock);
		d = __atomic_load_n(&init_done, __ATOMIC_ACQUIRE);
	}
	return d;
}

bool caret_agent_init(void)
{
	return agent_mode() == 1;
}

bool caret_capture(uint32_t kind, const union caret_arg *args)
{
	int m = agent_mode();
	if (m != 1)
		return m == 3; /* ignored: swallowed; disabled: forwarded */
	int64_t ts = caret_now_ns();
	/* Cached whatever the filters say; they decide at each emission. */
	caret_filter_note(kind, args);
	uint64_t at;
	bool cached = seg_ok && caret_seg_append_at(&seg, kind, ts, args, &at) == 0;
	const struct caret_tp_api *tp = caret_tp;
	if (!tp && caret_provider_attached())
		tp = caret_provider_load(); /* a session records here: decide as before */
	if (!tp || !caret_filter_record_allowed(kind, args))
		return true;
	/* Exactly once per session: a cached record is emitted live only
	 * when its claim says so, else a replay pass emits it (the handshake
	 * in proto/caret_segment.h). One the cache could not take, or that
	 * no replay thread will replay, is live or nowhere. */
	if (cached && replay_ok && !caret_own_claim_live(&seg, at))
		return true;
	tp->emit_record(kind, ts, args);
	return true;
}

bool caret_init_to_ros2(void)
{
	if (agent_mode() == 3)
		return false; /* an ignored process (CARET_IGNORE_PROCESSES) emits nothing */
	uint32_t f = seg_ok ? caret_own_ctrl_flags(&seg) : 0;
	if (f & CARET_CTRL_INIT_DECIDED)
		return f & CARET_CTRL_INIT_ROS2;
	/* once a session records ros2 events here, ros2_caret ones may be
	 * enabled too: only the provider can tell */
	const struct caret_tp_api *tp = caret_tp;
	if (!tp && caret_provider_attached())
		tp = caret_provider_load();
	if (tp && tp->enabled())
		return false; /* never both kinds: ros2_caret wins */
	/* tracetools since Iron: true when a session enables ros2:rcl_node_init */
	static struct caret_fn slot;
	bool (*en)(void) = (bool (*)(void))caret_real(&slot, "ros_trace_enabled_rcl_node_init");
	return en && en();
}

static void atfork_prepare(void)
{
	if (!in_init)
		pthread_mutex_lock(&init_lock);
}

static void atfork_parent(void)
{
	if (!in_init)
		pthread_mutex_unlock(&init_lock);
}

/* The child must not write into its parent's segment: drop the mapping and
 * start over at its next tracetools call (the replay thread did not
 * survive the fork anyway). The state is kept so the child behaves like
 * its parent until then. */
static void atfork_child(void)
{
	if (seg_ok) {
		caret_state_use_local(__atomic_load_n(caret_state_word, __ATOMIC_RELAXED));
		caret_count_use(NULL);
		caret_seg_close(&seg); /* unmaps; the parent's segment stays */
		memset(&seg, 0, sizeof(seg));
		seg_ok = false;
		replay_ok = false;
	}
	init_done = 0;
	pthread_mutex_init(&init_lock, NULL);
}

__attribute__((constructor)) static void agent_load(void)
{
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

/* A process that ends normally takes its segment with it; caretd reclaims
 * the segments of processes that were killed. */
__attribute__((destructor)) static void agent_unload(void)
{
	if (seg_ok && seg_pid == getpid())
		caret_seg_unlink(seg.name);
}
