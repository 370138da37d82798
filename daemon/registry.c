/* SPDX-License-Identifier: Apache-2.0 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/log.h"
#include "daemon/registry.h"

#define SHM_DIR "/dev/shm"

/* Names we refused: warned about once, not at every scan. Segments that
 * are still being set up by a live agent are "pending" and retried at every
 * tick for a while instead (the agent writes its identity through the
 * mapping, which inotify does not report). */
#define BAD_MAX 64
#define PENDING_MAX 64
#define PENDING_GRACE_NS (5LL * 1000000000)
static char bad_names[BAD_MAX][CARET_SHM_NAME_MAX];
static int n_bad;
static struct {
	char name[CARET_SHM_NAME_MAX];
	int64_t since;
} pending[PENDING_MAX];

static bool known_bad(const char *name)
{
	for (int i = 0; i < n_bad && i < BAD_MAX; i++)
		if (strcmp(bad_names[i], name) == 0)
			return true;
	return false;
}

static void remember_bad(const char *name)
{
	snprintf(bad_names[n_bad % BAD_MAX], CARET_SHM_NAME_MAX, "%s", name);
	n_bad++;
}

static void forget_bad(const char *name)
{
	for (int i = 0; i < n_bad && i < BAD_MAX; i++)
		if (strcmp(bad_names[i], name) == 0)
			bad_names[i][0] = '\0';
}

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
	if (inotify_add_watch(r->inotify_fd, SHM_DIR,
			      IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_CLOSE_WRITE) < 0) {
		int e = errno;
		close(r->inotify_fd);
		r->inotify_fd = -1;
		return -e;
	}
	registry_scan(r);
	return 0;
}

static void agent_free(struct agent *a)
{
	caret_seg_close(&a->seg);
	free(a);
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
	return caret_proc_start_time(pid, &now) == 0 && now == start_time;
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
	if (caret_seg_parse_name(name, &pid, &start) < 0)
		return;
	for (struct agent *a = r->head; a; a = a->next)
		if (strcmp(a->seg.name, name) == 0)
			return;
	struct agent *a = calloc(1, sizeof(*a));
	if (!a)
		return;
	int e = caret_seg_attach(&a->seg, name);
	if (e == 0 && !owner_matches(pid, a->seg.hdr->uid) && process_alive(pid, start))
		e = -EPERM;
	if (e < 0) {
		free(a);
		if (e == -ENOENT) /* gone already (an exit races our event) */
			return;
		if (e == -EBADMSG && process_alive(pid, start) && pending_keep(name))
			return;
		pending_drop(name);
		if (!known_bad(name)) {
			log_warn("ignoring segment %s: %s", name, strerror(-e));
			remember_bad(name);
		}
		return;
	}
	pending_drop(name);
	forget_bad(name);
	a->nodes_at_records = UINT64_MAX;
	a->pid = pid;
	a->start_time = start;
	memcpy(a->procname, a->seg.hdr->procname, sizeof(a->procname));
	a->procname[sizeof(a->procname) - 1] = '\0';
	a->next = r->head;
	r->head = a;
	r->count++;
	log_info("agent pid %d (%s) registered, state %u, %llu records cached", (int)pid,
		 a->procname, __atomic_load_n(&a->seg.hdr->state, __ATOMIC_ACQUIRE),
		 (unsigned long long)__atomic_load_n(&a->seg.hdr->records, __ATOMIC_ACQUIRE));
}

void registry_scan(struct registry *r)
{
	DIR *d = opendir(SHM_DIR);
	if (!d) {
		log_err("cannot scan %s: %s", SHM_DIR, strerror(errno));
		return;
	}
	struct dirent *e;
	while ((e = readdir(d)))
		try_attach(r, e->d_name);
	closedir(d);
}

/* A process that dies between Start and RECORD is reported by `wait`. */
static void note_exit(struct registry *r, const struct agent *a, uint32_t st)
{
	if ((st == CARET_STATE_RECORD && !a->extra_pass) || st == CARET_STATE_WAIT)
		return;
	/* a long-lived daemon keeps the latest: a wait never misses one */
	struct exited_agent *x = &r->exited[r->n_exited++ % REGISTRY_EXITS];
	x->pid = a->pid;
	x->state = st;
	memcpy(x->procname, a->procname, sizeof(x->procname));
}

static void drop_named(struct registry *r, const char *name)
{
	for (struct agent **pp = &r->head; *pp; pp = &(*pp)->next) {
		struct agent *a = *pp;
		if (strcmp(a->seg.name, name) != 0)
			continue;
		uint32_t st = __atomic_load_n(&a->seg.hdr->state, __ATOMIC_ACQUIRE);
		log_info("agent pid %d (%s) exited", (int)a->pid, a->procname);
		note_exit(r, a, st);
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
			if (ev->mask & IN_Q_OVERFLOW)
				registry_scan(r);
			else if (ev->len && (ev->mask & IN_DELETE)) {
				pending_drop(ev->name);
				drop_named(r, ev->name);
			}
			else if (ev->len)
				try_attach(r, ev->name);
			p += sizeof(*ev) + ev->len;
		}
	}
}

int registry_sweep(struct registry *r)
{
	int n = 0;
	struct agent **pp = &r->head;
	while (*pp) {
		struct agent *a = *pp;
		if (process_alive(a->pid, a->start_time)) {
			pp = &a->next;
			continue;
		}
		uint32_t st = __atomic_load_n(&a->seg.hdr->state, __ATOMIC_ACQUIRE);
		if (st == CARET_STATE_PREPARE)
			log_warn("pid %d (%s) died during its replay (%u of %llu records); its "
				 "initialization data in the trace is incomplete", (int)a->pid,
				 a->procname,
				 CARET_COUNT_OF(__atomic_load_n(&a->seg.hdr->cursor, __ATOMIC_ACQUIRE)),
				 (unsigned long long)__atomic_load_n(&a->seg.hdr->records,
								     __ATOMIC_ACQUIRE));
		else
			log_info("reclaiming the segment of dead pid %d (%s)", (int)a->pid,
				 a->procname);
		note_exit(r, a, st);
		caret_seg_unlink(a->seg.name);
		*pp = a->next;
		r->count--;
		agent_free(a);
		n++;
	}
	return n;
}

struct names_ctx {
	char *buf;
	size_t len, used;
	int count;
};

static int add_node_name(const struct caret_rec_view *v, void *p)
{
	struct names_ctx *c = p;
	if (v->kind != CARET_KIND_rcl_node_init)
		return 0;
	const char *ns = v->args[3].s, *name = v->args[2].s;
	int w = snprintf(c->buf + c->used, c->len - c->used, "%s%s%s", ns,
			 (ns[0] && ns[strlen(ns) - 1] != '/') ? "/" : "", name);
	if (w < 0 || (size_t)w + 1 > c->len - c->used)
		return 1;
	c->used += (size_t)w + 1;
	c->count++;
	return 0;
}

int agent_node_names(struct agent *a)
{
	uint64_t records = __atomic_load_n(&a->seg.hdr->records, __ATOMIC_ACQUIRE);
	if (records == a->nodes_at_records)
		return a->n_nodes;
	struct names_ctx c = { a->nodes, sizeof(a->nodes), 0, 0 };
	int64_t r = caret_seg_walk(&a->seg, add_node_name, &c);
	if (r < 0)
		return (int)r; /* not cached: a corrupt cache is reported each time */
	a->n_nodes = c.count;
	a->nodes_at_records = records;
	return c.count;
}
