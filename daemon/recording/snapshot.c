/* SPDX-License-Identifier: Apache-2.0 */
/* Flight-recorder recordings: the table, the ring's check, the pass
 * before a snapshot (daemon/recording/snapshot.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "lib/lttng/creds.h"
#include "daemon/base/log.h"
#include "daemon/agents/scheduler.h"
#include "daemon/recording/snapshot.h"
#include "daemon/recording/snapshot_mem.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_enc.h"
#include "proto/caret_ctl_snapshot.h"
#include "util/caret_err.h"

#define NS_PER_MS 1000000LL
#define PROGRESS_EVERY_NS (100 * NS_PER_MS)
/* A pass longer than this is said in the log (and the requester sees
 * its progress lines). */
#define SLOW_PASS_NS (5000 * NS_PER_MS)

static struct snap {
	bool used, busy;
	char name[CARET_LTTNG_NAME_MAX];
	char path[4096];
	uint64_t subbuf_size;
	uint32_t subbuf_count;
	uint64_t written;
	char last[4096];
} T[LTTNG_VIEW_MAX_RECORDINGS];

static struct snap *find(const char *session)
{
	for (size_t i = 0; i < sizeof(T) / sizeof(T[0]); i++)
		if (T[i].used && strcmp(T[i].name, session) == 0)
			return &T[i];
	return NULL;
}

/* A slot for session (one whose recording is gone is reused). */
static struct snap *slot(const char *session, const struct lttng_view *v)
{
	struct snap *s = find(session);
	if (s)
		return s;
	/* a busy slot is a job's until it ends, even forgotten */
	for (size_t i = 0; i < sizeof(T) / sizeof(T[0]); i++)
		if (!T[i].busy &&
		    (!T[i].used || (v && !lttng_view_find_rec((struct lttng_view *)v, T[i].name)))) {
			memset(&T[i], 0, sizeof(T[i]));
			T[i].used = true;
			snprintf(T[i].name, sizeof(T[i].name), "%s", session);
			return &T[i];
		}
	return NULL;
}

/* Segment counters are whatever their owner wrote: sums saturate. */
uint64_t snapshot_pass_bytes(const struct registry *r)
{
	uint64_t total = 0;
	for (const struct agent *a = r ? r->head : NULL; a; a = a->next) {
		if (a->dead)
			continue;
		struct caret_seg_status st;
		caret_seg_read_status(&a->seg, &st);
		if (st.state == CARET_STATE_UNINITIALIZED)
			continue;
		uint64_t b;
		if (__builtin_mul_overflow((uint64_t)st.records, sched_record_bytes(&st), &b) ||
		    __builtin_add_overflow(total, b, &total))
			return UINT64_MAX;
	}
	return total;
}

bool snapshot_fits(uint64_t need, uint64_t subbuf_size, uint32_t subbuf_count)
{
	uint64_t want = need > UINT64_MAX / 2 ? UINT64_MAX : need + need / 4;
	return want <= caret_ctl_snapshot_room(subbuf_size, subbuf_count);
}

uint64_t snapshot_min_size(uint64_t need)
{
	for (uint64_t s = CARET_CTL_SNAPSHOT_SIZE_MIN; s <= CARET_CTL_SNAPSHOT_SIZE_MAX; s *= 2) {
		uint64_t sz;
		uint32_t n;
		caret_ctl_snapshot_geometry(s, &sz, &n);
		if (snapshot_fits(need, sz, n))
			return s;
	}
	return UINT64_MAX;
}

int snapshot_plan(const struct registry *r, uint64_t size, struct caret_lttng_cfg *cfg,
		  char *err, size_t errlen)
{
	caret_ctl_snapshot_geometry(size, &cfg->subbuf_size, &cfg->subbuf_count);
	cfg->snapshot = true;
	uint64_t need = snapshot_pass_bytes(r);
	if (snapshot_fits(need, cfg->subbuf_size, cfg->subbuf_count))
		return 0;
	uint64_t min = snapshot_min_size(need);
	if (min == UINT64_MAX)
		return caret_errf(err, errlen, -ENOSPC, "the initialization records of the live "
				  "processes take about %" PRIu64 " bytes per replay pass, more "
				  "than the largest ring (%llu bytes per CPU) can hold",
				  need, (unsigned long long)CARET_CTL_SNAPSHOT_SIZE_MAX);
	return caret_errf(err, errlen, -ENOSPC, "a ring of %" PRIu64 " bytes per CPU cannot "
			  "hold a replay of the live processes' initialization records (about "
			  "%" PRIu64 " bytes, plus a quarter for the events recorded meanwhile): "
			  "snapshots would lose their start; give at least --snapshot-size %"
			  PRIu64 "K", cfg->subbuf_size * cfg->subbuf_count, need, min >> 10);
}

void snapshot_added(const char *session, const char *path, uint64_t subbuf_size,
		    uint32_t subbuf_count)
{
	struct snap *s = slot(session, NULL);
	if (!s) {
		log_warn("session %s: no room to remember it as a flight recorder", session);
		return;
	}
	s->subbuf_size = subbuf_size;
	s->subbuf_count = subbuf_count;
	snprintf(s->path, sizeof(s->path), "%s", path);
}

/* Calls fn for each flight recorder of the table that v still has: its
 * owner and ring bytes per CPU. */
static void each_ring(struct lttng_view *v, void (*fn)(void *arg, uid_t owner,
						      uint64_t ring_bytes), void *arg)
{
	for (size_t i = 0; i < sizeof(T) / sizeof(T[0]); i++) {
		const struct lttng_view_rec *rec = T[i].used ? lttng_view_find_rec(v, T[i].name)
							     : NULL;
		if (rec)
			fn(arg, rec->uid, T[i].subbuf_size * T[i].subbuf_count);
	}
}

/* The users with a traced process now (each gets its own rings). */
static uint32_t traced_users(const struct registry *r)
{
	uid_t seen[256];
	uint32_t n = 0, more = 0;
	for (const struct agent *a = r ? r->head : NULL; a; a = a->next) {
		if (a->dead)
			continue;
		uid_t u = (uid_t)a->seg.id.uid;
		bool known = false;
		for (uint32_t i = 0; i < n && !known; i++)
			known = seen[i] == u;
		if (known)
			continue;
		if (n < sizeof(seen) / sizeof(seen[0]))
			seen[n++] = u;
		else
			more++; /* past the table: counted, maybe twice (more, never fewer) */
	}
	return n + more ? n + more : 1;
}

struct held {
	uid_t uid;
	uint64_t per_ring; /* CPUs x users */
	uint64_t all, user, users;
};

static void count(void *arg, uid_t owner, uint64_t ring_bytes)
{
	struct held *h = arg;
	uint64_t b = snapshot_mem_mul(ring_bytes, h->per_ring);
	h->all = snapshot_mem_add(h->all, b);
	if (owner == h->uid)
		h->user = snapshot_mem_add(h->user, b);
	if (owner != 0)
		h->users = snapshot_mem_add(h->users, b);
}

int snapshot_admit_memory(const struct registry *r, struct lttng_view *v, uid_t uid,
			  uint64_t ring_bytes, uint64_t least_size, char *err, size_t errlen)
{
	struct snapshot_mem_in in = { .ncpu = (uint32_t)get_nprocs_conf(),
				      .users = traced_users(r) };
	(void)snapshot_mem_read_host(&in.host);
	struct held h = { .uid = uid, .per_ring = snapshot_mem_mul(in.ncpu, in.users) };
	each_ring(v, count, &h);
	in.held_all = h.all;
	in.held_user = h.user;
	in.held_users = h.users;
	return snapshot_mem_check(&in, uid, ring_bytes, least_size, err, errlen);
}

void snapshot_set_written(const char *session, uint64_t written)
{
	struct snap *s = find(session);
	if (s)
		s->written = written;
}

void snapshot_info(const char *session, struct snapshot_info *info)
{
	memset(info, 0, sizeof(*info));
	const struct snap *s = find(session);
	if (!s)
		return;
	info->known = true;
	info->subbuf_size = s->subbuf_size;
	info->subbuf_count = s->subbuf_count;
	info->written = s->written;
	snprintf(info->last, sizeof(info->last), "%s", s->last);
	snprintf(info->path, sizeof(info->path), "%s", s->path);
}

void snapshot_forget(const char *session)
{
	struct snap *s = find(session);
	if (s && !s->busy)
		memset(s, 0, sizeof(*s));
	else if (s)
		s->used = false; /* the job in flight still holds it: it ends */
}

bool snapshot_busy(const char *session)
{
	const struct snap *s = find(session);
	return s && s->busy;
}

/* ---- the pass and the snapshot ---- */

struct job {
	struct lttng_view *v;
	struct registry *r;
	struct snap *s;
	char session[CARET_LTTNG_NAME_MAX];
	char dir[4096];
	uint32_t serial;
	uint64_t exited_base;
	int64_t start_ns, deadline_ns, last_progress_ns;
	bool said_slow;
	bool scoped; /* a member's recording: only uid's processes count */
	uid_t uid;
};

/* Whether a live agent has the pass for serial: finished it (or a later
 * one), recording. */
static bool covered(const struct agent *a, uint32_t serial)
{
	uint32_t st = caret_seg_state(&a->seg);
	const struct sched_agent *sa = sched_agent_peek(a);
	return st == CARET_STATE_RECORD && !sa->extra_pass && sa->seen &&
	       sa->covered_serial >= serial;
}

/* A process the session sees: a member's recording sees only theirs
 * (lib/lttng/lttng_sel.h), and waits for no one else's pass. */
static bool counts(const struct job *j, const struct agent *a)
{
	return !a->dead && caret_seg_state(&a->seg) != CARET_STATE_UNINITIALIZED &&
	       (!j->scoped || a->seg.id.uid == (uint32_t)j->uid);
}

static cJSON *progress(const struct job *j)
{
	struct caret_ctl_progress p = { 0 };
	for (const struct agent *a = j->r->head; a; a = a->next) {
		if (!counts(j, a))
			continue;
		struct caret_seg_status st;
		caret_seg_read_status(&a->seg, &st);
		p.total++;
		p.records_total += st.records;
		if (covered(a, j->serial)) {
			p.recording++;
			p.records_done += st.records;
		} else {
			p.records_done += sched_done_in(&st, CARET_EPOCH_OF(st.grant));
		}
	}
	return caret_ctl_enc_progress(&p);
}

/* Why the snapshot may lack some process's init records ("" if none). */
static void verdict(const struct job *j, bool timed_out, char *why, size_t len)
{
	why[0] = '\0';
	size_t n = 0;
	if (timed_out) {
		n += (size_t)snprintf(why, len, "the replay pass had not finished in");
		for (const struct agent *a = j->r->head; a && n < len; a = a->next)
			if (counts(j, a) && !covered(a, j->serial))
				n += (size_t)snprintf(why + n, len - n, " pid %d (%s)", (int)a->pid,
						      a->procname);
		if (n < len)
			n += (size_t)snprintf(why + n, len - n, " within the timeout");
	}
	uint64_t need = snapshot_pass_bytes(j->r);
	if (n < len && j->s->subbuf_size &&
	    !snapshot_fits(need, j->s->subbuf_size, j->s->subbuf_count))
		n += (size_t)snprintf(why + n, len - n, "%sthe pass (about %" PRIu64 " bytes) may "
				      "not fit in the ring of %" PRIu64 " bytes per CPU: its start "
				      "may be overwritten (record with --snapshot-size %" PRIu64 "K)",
				      n ? "; " : "", need,
				      j->s->subbuf_size * j->s->subbuf_count,
				      snapshot_min_size(need) >> 10);
	if (n < len && j->r->n_exited != j->exited_base)
		snprintf(why + n, len - n, "%s%" PRIu64 " process(es) exited during the pass",
			 n ? "; " : "", j->r->n_exited - j->exited_base);
}

static cJSON *finish(struct job *j, bool timed_out, int64_t now)
{
	char why[1024], name[64], path[4096], err[512] = "";
	verdict(j, timed_out, why, sizeof(why));
	snprintf(name, sizeof(name), "snapshot-%" PRIu64, j->s->written + 1);
	/* the output directory is listed as the recording's owner, who named
	 * it (the consumer wrote the snapshot as them) */
	const struct lttng_view_rec *owner = lttng_view_find_rec(j->v, j->session);
	struct creds_id as = { .uid = owner ? owner->uid : geteuid(),
			       .gid = owner ? owner->gid : getegid(), .n_groups = -1 };
	int r = lttng_view_ops(j->v)->snapshot(j->session, j->dir, name, &as, path, sizeof(path),
					       err, sizeof(err));
	if (r < 0) {
		log_err("session %s: snapshot failed: %s", j->session, err);
		return caret_ctl_enc_error(-r, err);
	}
	j->s->written++;
	snprintf(j->s->last, sizeof(j->s->last), "%s", path);
	/* the count outlives this caretd: a restarted one goes on from it
	 * (and names the next snapshot-N after it) */
	struct lttng_view_rec *rec = lttng_view_find_rec(j->v, j->session);
	if (rec) {
		rec->snapshots = j->s->written;
		lttng_view_save(j->v);
	}
	int64_t pass_ms = (now - j->start_ns) / NS_PER_MS;
	if (why[0])
		log_warn("session %s: snapshot %s may be INCOMPLETE: %s", j->session, path, why);
	else
		log_info("session %s: snapshot %s written (replay pass %" PRId64 " ms)", j->session,
			 path, pass_ms);
	cJSON *o = caret_ctl_enc_record(j->session, path);
	bool ok = o && cJSON_AddBoolToObject(o, CARET_CTL_K_COMPLETE, !why[0]) &&
		  (!why[0] || cJSON_AddStringToObject(o, CARET_CTL_K_WHY, why)) &&
		  cJSON_AddNumberToObject(o, CARET_CTL_K_SNAPSHOTS, (double)j->s->written) &&
		  cJSON_AddNumberToObject(o, CARET_CTL_K_PASS_MS, (double)pass_ms);
	if (!ok) {
		cJSON_Delete(o);
		return caret_ctl_enc_error(ENOMEM, "out of memory");
	}
	return o;
}

static cJSON *job_poll(void *arg, int64_t now, bool *done)
{
	struct job *j = arg;
	*done = true;
	if (!j->s->used || !lttng_view_find_rec(j->v, j->session) ||
	    !lttng_view_find(j->v, j->session)) {
		char m[512];
		snprintf(m, sizeof(m), "recording %s ended before its snapshot was taken",
			 j->session);
		return caret_ctl_enc_error(ENOENT, m);
	}
	bool all = true;
	for (const struct agent *a = j->r->head; a && all; a = a->next)
		all = !counts(j, a) || covered(a, j->serial);
	if (all || now >= j->deadline_ns)
		return finish(j, !all, now);
	*done = false;
	if (!j->said_slow && now - j->start_ns >= SLOW_PASS_NS) {
		log_warn("session %s: the replay pass before a snapshot takes longer than %lld s",
			 j->session, (long long)(SLOW_PASS_NS / 1000000000));
		j->said_slow = true;
	}
	if (j->last_progress_ns && now - j->last_progress_ns < PROGRESS_EVERY_NS)
		return NULL;
	j->last_progress_ns = now;
	return progress(j);
}

static void job_release(void *arg)
{
	struct job *j = arg;
	if (j->s) {
		j->s->busy = false;
		if (!j->s->used) /* forgotten while we ran */
			memset(j->s, 0, sizeof(*j->s));
	}
	free(j);
}

static const struct wait_custom job_ops = { job_poll, job_release };

struct wait_req *snapshot_begin(struct lttng_view *v, struct registry *r, const char *session,
				const char *dir, int64_t timeout_ms, int64_t now)
{
	struct lttng_view_session *e = lttng_view_find(v, session);
	struct snap *s = slot(session, v);
	struct job *j = s && e ? calloc(1, sizeof(*j)) : NULL;
	if (!j)
		return NULL;
	const struct lttng_view_rec *rec = lttng_view_find_rec(v, session);
	if (!s->path[0] && rec)
		snprintf(s->path, sizeof(s->path), "%s", rec->path);
	*j = (struct job){ .v = v, .r = r, .s = s, .exited_base = r->n_exited, .start_ns = now,
			   .deadline_ns = now + timeout_ms * NS_PER_MS };
	snprintf(j->session, sizeof(j->session), "%s", session);
	snprintf(j->dir, sizeof(j->dir), "%s", dir);
	j->scoped = rec && rec->uid != 0 && geteuid() == 0;
	j->uid = rec ? rec->uid : 0;
	/* a new pass for every agent, ready at once (its tracepoints are
	 * enabled already): as a rotation's new chunk gets */
	e->serial = ++v->last_serial;
	e->since_ns = INT64_MIN / 2;
	j->serial = e->serial;
	s->busy = true;
	log_info("session %s: replaying every process's initialization records before a "
		 "snapshot into %s", session, dir);
	if (v->on_change)
		v->on_change(v->change_arg);
	return wait_custom(&job_ops, j);
}

/* ---- status ---- */

static bool add_mode(cJSON *x, const struct snap *s, const char *mode)
{
	bool ok = cJSON_AddStringToObject(x, CARET_CTL_K_MODE, mode) != NULL;
	if (!s || !ok)
		return ok;
	if (s->subbuf_size)
		ok = cJSON_AddNumberToObject(x, CARET_CTL_K_RING_SIZE,
					     (double)(s->subbuf_size * s->subbuf_count)) != NULL;
	ok = ok && cJSON_AddNumberToObject(x, CARET_CTL_K_SNAPSHOTS, (double)s->written);
	return ok && (!s->last[0] || cJSON_AddStringToObject(x, CARET_CTL_K_LAST_SNAPSHOT, s->last));
}

int snapshot_add_status(cJSON *o, const struct lttng_view *v,
			bool (*rotating)(const char *session))
{
	cJSON *all = cJSON_AddArrayToObject(o, CARET_CTL_K_RECORDINGS);
	if (!all)
		return -ENOMEM;
	for (int i = 0; i < v->n_recs; i++) {
		const struct lttng_view_rec *rec = &v->recs[i];
		const struct snap *s = find(rec->name);
		const char *mode = s ? CARET_CTL_MODE_SNAPSHOT
				   : rotating && rotating(rec->name) ? CARET_CTL_MODE_ROTATING
								     : CARET_CTL_MODE_PLAIN;
		cJSON *x = cJSON_CreateObject();
		if (!x || !cJSON_AddItemToArray(all, x)) {
			cJSON_Delete(x);
			return -ENOMEM;
		}
		if (!cJSON_AddStringToObject(x, CARET_CTL_K_SESSION, rec->name) ||
		    !cJSON_AddStringToObject(x, CARET_CTL_K_PATH, rec->path) ||
		    !add_mode(x, s, mode) ||
		    (rec->paused && !cJSON_AddBoolToObject(x, CARET_CTL_K_PAUSED, true)))
			return -ENOMEM;
	}
	return 0;
}

int snapshot_add_stop(cJSON *o, const char *session)
{
	const struct snap *s = find(session);
	if (!s)
		return 0;
	return add_mode(o, s, CARET_CTL_MODE_SNAPSHOT) ? 0 : -ENOMEM;
}
