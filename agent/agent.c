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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "agent/agent.h"

static uint32_t local_state = CARET_STATE_WAIT;
uint32_t *caret_state_word = &local_state;
const struct caret_tp_api *caret_tp;
bool caret_rmw_publish_1arg;

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static int init_done;  /* atomic: 0 not yet, 1 active, 2 disabled */
static struct caret_seg seg;
static bool seg_ok;
static pid_t seg_pid;
static char distribution[16];

void caret_warn(const char *fmt, ...)
{
	const char *q = getenv("CARET_AGENT_QUIET");
	if (q && *q == '1')
		return;
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	/* One write: app output interleaves by line at worst. */
	ssize_t w = write(STDERR_FILENO, buf, (size_t)n);
	(void)w;
}

static void *lookup(void **slot, void *handle, const char *sym)
{
	void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	if (!p) {
		p = dlsym(handle, sym);
		__atomic_store_n(slot, p, __ATOMIC_RELEASE);
	}
	return p;
}

void *caret_real(void **slot, const char *sym)
{
	return lookup(slot, RTLD_NEXT, sym);
}

void *caret_global(void **slot, const char *sym)
{
	return lookup(slot, RTLD_DEFAULT, sym);
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

static const struct caret_tp_api *load_provider(void)
{
	char path[PATH_MAX];
	const char *env = getenv("CARET_AGENT_TP_LIB");
	if (env && *env) {
		snprintf(path, sizeof(path), "%s", env);
	} else {
		Dl_info info;
		if (!dladdr((void *)load_provider, &info) || !info.dli_fname)
			return NULL;
		snprintf(path, sizeof(path), "%s", info.dli_fname);
		char *slash = strrchr(path, '/');
		size_t dir = slash ? (size_t)(slash - path + 1) : 0;
		snprintf(path + dir, sizeof(path) - dir, "libcaret-agent-tp.so");
	}
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		caret_warn("caret-agent: cannot load %s: %s", path, dlerror());
		return NULL;
	}
	const struct caret_tp_api *api = dlsym(h, CARET_TP_API_SYMBOL);
	if (!api || api->version != CARET_TP_API_VERSION) {
		caret_warn("caret-agent: %s is not a matching provider", path);
		return NULL;
	}
	return api;
}

static bool distro_before_jazzy(const char *d)
{
	static const char *const old[] = { "foxy", "galactic", "humble", "iron" };
	for (size_t i = 0; i < sizeof(old) / sizeof(old[0]); i++)
		if (strcmp(d, old[i]) == 0)
			return true;
	return false;
}

static void init_locked(void)
{
	const char *dis = getenv("CARET_AGENT_DISABLE");
	if (dis && *dis == '1') {
		__atomic_store_n(&init_done, 2, __ATOMIC_RELEASE);
		return;
	}
	const char *d = getenv("ROS_DISTRO");
	snprintf(distribution, sizeof(distribution), "%s", d && *d ? d : "jazzy");
	caret_rmw_publish_1arg = distro_before_jazzy(distribution);

	caret_tp = load_provider();
	char comm[17] = "";
	FILE *f = fopen("/proc/self/comm", "re");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	/* Decide the start state before anything is cached: a session that
	 * already records our events means conventional use, record all. */
	uint32_t st = (caret_tp && caret_tp->enabled()) ? CARET_STATE_RECORD
							: CARET_STATE_WAIT;
	int r = caret_seg_create(&seg, cache_size(), comm, distribution);
	if (r < 0) {
		caret_warn("caret-agent: no init cache (shm: %s); late recording "
			   "will miss this process", strerror(-r));
		local_state = st;
	} else {
		seg_ok = true;
		seg_pid = getpid();
		if (!caret_tp)
			__atomic_fetch_or(&seg.hdr->agent_flags,
					  CARET_AGENT_NO_TRACEPOINTS, __ATOMIC_RELAXED);
		__atomic_store_n(&seg.hdr->state, st, __ATOMIC_RELEASE);
		__atomic_store_n(&caret_state_word, &seg.hdr->state, __ATOMIC_RELEASE);
		if (caret_tp && (r = caret_replay_start(&seg, distribution)) < 0)
			caret_warn("caret-agent: no replay thread: %s", strerror(-r));
	}
	if (caret_tp)
		caret_tp->caret_init(caret_now_ns(), distribution);
	__atomic_store_n(&init_done, 1, __ATOMIC_RELEASE);
}

bool caret_agent_init(void)
{
	int d = __atomic_load_n(&init_done, __ATOMIC_ACQUIRE);
	if (d == 0) {
		pthread_mutex_lock(&init_lock);
		if (__atomic_load_n(&init_done, __ATOMIC_ACQUIRE) == 0)
			init_locked();
		pthread_mutex_unlock(&init_lock);
		d = __atomic_load_n(&init_done, __ATOMIC_ACQUIRE);
	}
	return d == 1;
}

bool caret_capture(uint32_t kind, const union caret_arg *args)
{
	if (!caret_agent_init())
		return false;
	int64_t ts = caret_now_ns();
	if (seg_ok)
		caret_seg_append(&seg, kind, ts, args);
	if (caret_tp)
		caret_tp->emit_record(kind, ts, args);
	return true;
}

bool caret_init_to_ros2(void)
{
	uint32_t f = seg_ok ? __atomic_load_n(&seg.hdr->ctl_flags, __ATOMIC_ACQUIRE) : 0;
	if (f & CARET_CTL_INIT_DECIDED)
		return f & CARET_CTL_INIT_ROS2;
	if (caret_tp && caret_tp->enabled())
		return false; /* never both kinds: ros2_caret wins */
	/* tracetools since Iron: true when a session enables ros2:rcl_node_init */
	static void *slot;
	bool (*en)(void) = (bool (*)(void))caret_real(&slot, "ros_trace_enabled_rcl_node_init");
	return en && en();
}

static void atfork_prepare(void)
{
	pthread_mutex_lock(&init_lock);
}

static void atfork_parent(void)
{
	pthread_mutex_unlock(&init_lock);
}

/* The child must not write into its parent's segment: drop the mapping and
 * start over at its next tracetools call (the replay thread did not
 * survive the fork anyway). The state is kept so the child behaves like
 * its parent until then. */
static void atfork_child(void)
{
	if (seg_ok) {
		local_state = __atomic_load_n(&seg.hdr->state, __ATOMIC_RELAXED);
		caret_state_word = &local_state;
		munmap(seg.base, seg.map_len);
		close(seg.fd);
		memset(&seg, 0, sizeof(seg));
		seg_ok = false;
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
