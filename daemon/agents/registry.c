/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/base/log.h"
#include "util/caret_util.h"
#include "daemon/agents/registry.h"
#include "daemon/base/rejects.h"
#include "daemon/base/sigbus.h"
#include "proto/caret_utf8.h"

/* Segments that are still being set up by a live agent are "pending" and
 * retried at every tick for a while (the agent writes its identity through
 * the mapping, which inotify does not report); refused names are in
 * daemon/base/rejects.c. */
#define PENDING_MAX 64
#define PENDING_GRACE_NS (5LL * 1000000000)
static struct {
	char name[CARET_SHM_NAME_MAX];
	int64_t since;
} pending[PENDING_MAX];

/* Returns true while `name` is within its grace period. */
static bool pending_keep(const char *name)
{
	int64_t now = caret_now_ns();
	int free_slot = -1;
	for (int i = 0; i < PENDING_MAX; i++) {
		if (pending[i].name[0] == '\0') {
			if (free_slot < 0)
				free_slot = i;
			continue;
		}
		if (strcmp(pending[i].name, name) == 0) {
			if (now - pending[i].since < PENDING_GRACE_NS)
				return true;
			pending[i].name[0] = '\0';
			return false;
		}
	}
	if (free_slot < 0)
		return false;
	snprintf(pending[free_slot].name, CARET_SHM_NAME_MAX, "%s", name);
	pending[free_slot].since = now;
	return true;
}

bool registry_has_pending(void)
{
	for (int i = 0; i < PENDING_MAX; i++)
		if (pending[i].name[0])
			return true;
	return false;
}

static void pending_drop(const char *name)
{
	for (int i = 0; i < PENDING_MAX; i++)
		if (strcmp(pending[i].name, name) == 0)
			pending[i].name[0] = '\0';
}

static void try_attach(struct registry *r, const char *name);

void registry_retry_pending(struct registry *r)
{
	char names[PENDING_MAX][CARET_SHM_NAME_MAX];
	int n = 0;
	for (int i = 0; i < PENDING_MAX; i++)
		if (pending[i].name[0])
			memcpy(names[n++], pending[i].name, CARET_SHM_NAME_MAX);
	for (int i = 0; i < n; i++)
		try_attach(r, names[i]);
}

int registry_open(struct registry *r)
{
	memset(r, 0, sizeof(*r));
	r->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (r->inotify_fd < 0)
		return -errno;
	if (inotify_add_watch(r->inotify_fd, CARET_SHM_DIR,
			      IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_CLOSE_WRITE | IN_ATTRIB) < 0) {
		int e = errno;
		close(r->inotify_fd);
		r->inotify_fd = -1;
		return -e;
	}
	registry_scan(r);
	return 0;
}

static void agent_detach(struct agent *a)
{
	sigbus_unguard(a->guard);
	a->guard = -1;
	caret_seg_close(&a->seg);
}

/* the keys in use, in the order of their first use */
static struct agent_key *keys[AGENT_KEYS];
static int n_keys;

static int key_slot(struct agent_key *k)
{
	if (!k->id) {
		if (n_keys == AGENT_KEYS)
			return -1;
		keys[n_keys++] = k;
		k->id = n_keys;
	}
	return k->id - 1;
}

void *agent_state(struct agent *a, struct agent_key *k)
{
	int i = key_slot(k);
	if (i < 0)
		return NULL;
	if (!a->state[i])
		a->state[i] = calloc(1, k->size);
	return a->state[i];
}

const void *agent_state_peek(const struct agent *a, const struct agent_key *k)
{
	return k->id ? a->state[k->id - 1] : NULL;
}

void agent_state_drop(struct agent *a, struct agent_key *k)
{
	if (k->id) {
		free(a->state[k->id - 1]);
		a->state[k->id - 1] = NULL;
	}
}

void agent_state_free(struct agent *a)
{
	for (int i = 0; i < AGENT_KEYS; i++) {
		free(a->state[i]);
		a->state[i] = NULL;
	}
}

static void agent_free(struct agent *a)
{
	agent_detach(a);
	agent_state_free(a);
	free(a->nodes);
	free(a);
}

/* The owner shrank its file under our mapping (B2): an access faulted, or
 * will. */
static bool segment_truncated(const struct agent *a)
{
	struct stat st;
	return sigbus_tripped(a->guard) ||
	       (fstat(a->seg.fd, &st) == 0 &&
		(uint64_t)st.st_size < a->seg.area_cap + CARET_SHM_HEADER_SIZE);
}

void registry_close(struct registry *r)
{
	struct agent *a = r->head;
	while (a) {
		struct agent *n = a->next;
		agent_free(a);
		a = n;
	}
	r->head = NULL;
	if (r->inotify_fd >= 0)
		close(r->inotify_fd);
}

struct agent *registry_find(struct registry *r, pid_t pid)
{
	for (struct agent *a = r->head; a; a = a->next)
		if (a->pid == pid)
			return a;
	return NULL;
}

/* The process named by a segment, if it is still the same process. */
static bool process_alive(pid_t pid, uint64_t start_time)
{
	uint64_t now;
	int r = caret_proc_start_time(pid, &now);
	/* Only a missing /proc entry says "dead": out of descriptors (EMFILE)
	 * or memory says nothing, and must not get a live agent's segment
	 * deleted (B3). */
	if (r == -ENOENT || r == -ESRCH)
		return false;
	return r < 0 || now == start_time;
}

/* A user could plant a segment named after someone else's process: the
 * file's owner must own the process too. */
static bool owner_matches(pid_t pid, uint32_t uid)
{
	char path[64];
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	return stat(path, &st) == 0 && st.st_uid == uid;
}

static void try_attach(struct registry *r, const char *name)
{
	pid_t pid;
	uint64_t start;
	/* d_name may be 255 bytes; no segment name is that long (leading
	 * zeros would otherwise parse) */
	if (strlen(name) >= CARET_SHM_NAME_MAX || caret_seg_parse_name(name, &pid, &start) < 0)
		return;
	for (struct agent *a = r->head; a; a = a->next)
		if (strcmp(a->seg.name, name) == 0)
			return;
	/* A refused file is looked at again only once it changed: anyone can
	 * raise events on it as often as they like (B1). lstat opens nothing,
	 * so it raises no event of its own. */
	char path[sizeof(CARET_SHM_DIR) + CARET_SHM_NAME_MAX];
	struct stat st;
	snprintf(path, sizeof(path), CARET_SHM_DIR "/%s", name);
	if (lstat(path, &st) < 0 || rejects_unchanged(name, &st))
		return;
	struct agent *a = calloc(1, sizeof(*a));
	if (!a)
		return;
	/* not opened at all: a FIFO would block an open, a symlink points
	 * anywhere */
	int e = S_ISREG(st.st_mode) ? caret_seg_attach(&a->seg, name) : -EBADF;
	a->guard = -1;
	/* guarded before the first access through the mapping */
	if (e == 0 && (a->guard = sigbus_guard(a->seg.base, a->seg.map_len)) < 0) {
		caret_seg_close(&a->seg);
		e = -ENOSPC; /* more agents than caretd guards */
	}
	if (e == 0 && !owner_matches(pid, a->seg.id.uid) && process_alive(pid, start)) {
		agent_detach(a); /* attached: its fd and mapping go too (B3) */
		e = -EPERM;
	}
	if (e < 0) {
		free(a);
		if (e == -ENOENT) /* gone already (an exit races our event) */
			return;
		if (e == -EBADMSG && process_alive(pid, start) && pending_keep(name))
			return;
		pending_drop(name);
		log_warn_rl_errno(e, "ignoring segment %s", name);
		rejects_add(name, &st);
		return;
	}
	pending_drop(name);
	rejects_forget(name);
	a->nodes_at_records = UINT64_MAX;
	a->pid = pid;
	a->start_time = start;
	memcpy(a->procname, a->seg.id.procname, sizeof(a->procname));
	caret_utf8_scrub(a->procname, strnlen(a->procname, sizeof(a->procname)), true); /* B13 */
	a->next = r->head;
	r->head = a;
	r->count++;
	struct caret_seg_status ss;
	caret_seg_read_status(&a->seg, &ss);
	log_info("agent pid %d (%s) registered, state %u, %llu records cached", (int)pid,
		 a->procname, ss.state, (unsigned long long)ss.records);
}

static int scan_one(const char *name, pid_t pid, uint64_t start, void *r)
{
	(void)pid;
	(void)start;
	try_attach(r, name);
	return 0;
}

void registry_scan(struct registry *r)
{
	int e = caret_seg_scan(scan_one, r);
	if (e < 0)
		log_err_errno(e, "cannot scan %s", CARET_SHM_DIR);
}

void registry_note_exit(struct registry *r, const struct agent *a, uint32_t st)
{
	/* a long-lived daemon keeps the latest: a wait never misses one */
	struct exited_agent *x = &r->exited[r->n_exited++ % REGISTRY_EXITS];
	x->pid = a->pid;
	x->uid = a->seg.id.uid;
	x->state = st;
	memcpy(x->procname, a->procname, sizeof(x->procname));
}

/* A process that dies between Start and RECORD is reported by `wait`:
 * in PREPARE, or (the scheduler knows) in a pass while in RECORD. */
static void exited(struct registry *r, const struct agent *a, uint32_t st)
{
	if (st != CARET_STATE_RECORD && st != CARET_STATE_WAIT)
		registry_note_exit(r, a, st);
	for (int i = 0; i < n_keys; i++)
		if (keys[i]->exited)
			keys[i]->exited(r, a, st, a->state[i]);
}

static void drop_named(struct registry *r, const char *name)
{
	for (struct agent **pp = &r->head; *pp; pp = &(*pp)->next) {
		struct agent *a = *pp;
		if (strcmp(a->seg.name, name) != 0)
			continue;
		uint32_t st = caret_seg_state(&a->seg);
		log_info("agent pid %d (%s) exited", (int)a->pid, a->procname);
		exited(r, a, st);
		*pp = a->next;
		r->count--;
		agent_free(a);
		return;
	}
}

void registry_on_inotify(struct registry *r)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	for (;;) {
		ssize_t n = read(r->inotify_fd, buf, sizeof(buf));
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			break;
		}
		for (char *p = buf; p < buf + n;) {
			struct inotify_event *ev = (struct inotify_event *)p;
			if (ev->mask & IN_Q_OVERFLOW) {
				registry_scan(r);
				r->lttng_hints++; /* a hint may be among those lost */
			} else if (ev->mask & IN_ATTRIB) {
				r->lttng_hints++;
				/* a segment being set up (its fchmod) is
				 * retried on the pending timer */
			}
			else if (ev->len && (ev->mask & IN_DELETE)) {
				pending_drop(ev->name);
				rejects_forget(ev->name);
				drop_named(r, ev->name);
			}
			else if (ev->len)
				try_attach(r, ev->name);
			p += sizeof(*ev) + ev->len;
		}
	}
}

/* One syscall, where reading /proc/PID/stat of a hundred agents every
 * second was most of an idle caretd's time (issue 24). Not sure of the
 * process (the pid may be reused): only "gone" is believed at once. */
static bool quick_alive(pid_t pid)
{
	return kill(pid, 0) == 0 || errno == EPERM;
}

int registry_sweep(struct registry *r)
{
	int n = 0;
	bool full = r->sweeps++ % REGISTRY_SWEEP_FULL == 0;
	struct agent **pp = &r->head;
	while (*pp) {
		struct agent *a = *pp;
		if (segment_truncated(a)) {
			log_warn_rl("pid %d (%s): segment %s truncated by its owner; ignoring it",
				 (int)a->pid, a->procname, a->seg.name);
			char path[sizeof(CARET_SHM_DIR) + CARET_SHM_NAME_MAX];
			struct stat st;
			snprintf(path, sizeof(path), CARET_SHM_DIR "/%s", a->seg.name);
			if (lstat(path, &st) == 0)
				rejects_add(a->seg.name, &st);
			*pp = a->next;
			r->count--;
			agent_free(a);
			n++;
			continue;
		}
		if ((!full && quick_alive(a->pid)) || process_alive(a->pid, a->start_time)) {
			pp = &a->next;
			continue;
		}
		struct caret_seg_status ss;
		caret_seg_read_status(&a->seg, &ss);
		uint32_t st = ss.state;
		if (st == CARET_STATE_PREPARE)
			log_warn("pid %d (%s) died during its replay (%u of %llu records); its "
				 "initialization data in the trace is incomplete", (int)a->pid,
				 a->procname, CARET_COUNT_OF(ss.cursor),
				 (unsigned long long)ss.records);
		else
			log_info("reclaiming the segment of dead pid %d (%s)", (int)a->pid,
				 a->procname);
		exited(r, a, st);
		caret_seg_unlink(a->seg.name);
		*pp = a->next;
		r->count--;
		agent_free(a);
		n++;
	}
	return n;
}

struct names_ctx {
	struct agent *a;
	size_t used;
	int count;
};

static int add_node_name(const struct caret_rec_view *v, void *p)
{
	struct names_ctx *c = p;
	if (v->kind != CARET_KIND_rcl_node_init)
		return 0;
	const char *ns = v->args[3].s, *name = v->args[2].s;
	const char *sep = (ns[0] && ns[strlen(ns) - 1] != '/') ? "/" : "";
	size_t w = strlen(ns) + strlen(sep) + strlen(name);
	/* the names that fit in AGENT_NODES_MAX, as with the inline buffer */
	if (w + 1 > AGENT_NODES_MAX - c->used)
		return 1;
	struct agent *a = c->a;
	if (caret_grow((void **)&a->nodes, &a->nodes_cap, c->used + w + 1, 1) < 0)
		return 1;
	snprintf(a->nodes + c->used, w + 1, "%s%s%s", ns, sep, name);
	caret_utf8_scrub(a->nodes + c->used, w, true); /* B13 */
	c->used += w + 1;
	c->count++;
	return 0;
}

int agent_node_names(struct agent *a)
{
	struct caret_seg_status st;
	caret_seg_read_status(&a->seg, &st);
	uint64_t records = st.records;
	if (records == a->nodes_at_records)
		return a->n_nodes;
	struct names_ctx c = { a, 0, 0 };
	int64_t r = caret_seg_walk(&a->seg, add_node_name, &c);
	if (r < 0)
		return (int)r; /* not cached: a corrupt cache is reported each time */
	a->n_nodes = c.count;
	a->nodes_at_records = records;
	return c.count;
}
