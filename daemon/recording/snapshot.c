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

#include "daemon/lttng/lttng_start.h"
#include "lib/lttng/creds.h"
#include "daemon/base/log.h"
#include "daemon/agents/scheduler.h"
#include "daemon/recording/snapshot.h"
#include "daemon/recording/snapshot_mem.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_enc.h"
#include "proto/caret_ctl_snapshot_res.h"
#include "proto/caret_ctl_snapshot.h"
#include "util/caret_err.h"

#define NS_PER_MS 1000000LL
#define PROGRESS_EVERY_NS (100 * NS_PER_MS)
/* A pass longer than this is said in the log (and the requester sees
 * its progress lines). */
#define SLOW_PASS_NS (5000 * NS_PER_MS)

/* Segment counters are whatever their owner wrote: sums saturate. */
uint64_t snapshot_pass_add(uint64_t total, const struct caret_seg_status *st)
{
	if (st->state == CARET_STATE_UNINITIALIZED)
		return total;
	uint64_t b;
	if (__builtin_mul_overflow((uint64_t)st->records, sched_record_bytes(st), &b) ||
	    __builtin_add_overflow(total, b, &total))
		return UINT64_MAX;
	return total;
}

uint64_t snapshot_pass_bytes(const struct registry *r)
{
	uint64_t total = 0;
	for (const struct agent *a = r ? r->head : NULL; a; a = a->next) {
		if (a->dead)
			continue;
		struct caret_seg_status st;
		caret_seg_read_status(&a->seg, &st);
		total = snapshot_pass_add(total, &st);
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

int snapshot_plan(uint64_t need, uint64_t size, struct caret_lttng_cfg *cfg, char *err,
		  size_t errlen)
{
	caret_ctl_snapshot_geometry(size, &cfg->subbuf_size, &cfg->subbuf_count);
	cfg->snapshot = true;
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

/* Calls fn for each flight recorder of the table: its owner and ring
 * bytes per CPU. */
static void each_ring(struct recordings *t, void (*fn)(void *arg, uid_t owner,
						      uint64_t ring_bytes), void *arg)
{
	for (struct recording *r = recordings_next(t, NULL); r; r = recordings_next(t, r))
		if (r->ring.on)
			fn(arg, r->uid, r->subbuf_size * r->subbuf_count);
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

int snapshot_admit_memory(const struct registry *r, struct recordings *t, uid_t uid,
			  uint64_t ring_bytes, uint64_t least_size, char *err, size_t errlen)
{
	struct snapshot_mem_in in = { .ncpu = (uint32_t)get_nprocs_conf(),
				      .users = traced_users(r) };
	(void)snapshot_mem_read_host(&in.host);
	struct held h = { .uid = uid, .per_ring = snapshot_mem_mul(in.ncpu, in.users) };
	each_ring(t, count, &h);
	in.held_all = h.all;
	in.held_user = h.user;
	in.held_users = h.users;
	return snapshot_mem_check(&in, uid, ring_bytes, least_size, err, errlen);
}

int snapshot_admit(const struct registry *r, struct recordings *t, uid_t uid, uint64_t need,
		   uint64_t size, struct caret_lttng_cfg *cfg, char *err, size_t errlen)
{
	int e = snapshot_plan(need, size, cfg, err, errlen);
	if (e < 0)
		return e;
	uint64_t least = snapshot_min_size(need);
	return snapshot_admit_memory(r, t, uid, cfg->subbuf_size * cfg->subbuf_count, least, err,
				     errlen);
}

void snapshot_info(struct recordings *t, const char *session, struct snapshot_info *info)
{
	memset(info, 0, sizeof(*info));
	const struct recording *r = recordings_find(t, session);
	if (!r || !r->ring.on)
		return;
	info->known = true;
	info->subbuf_size = r->subbuf_size;
	info->subbuf_count = r->subbuf_count;
	info->written = r->ring.written;
	snprintf(info->last, sizeof(info->last), "%s", r->ring.last);
	snprintf(info->path, sizeof(info->path), "%s", r->path);
}

bool snapshot_busy(struct recordings *t, const char *session)
{
	const struct recording *r = recordings_find(t, session);
	return r && r->ring.on && r->ring.busy;
}

/* ---- the pass and the snapshot ---- */

struct job {
	struct recordings *t;
	struct registry *r;
	/* its recording, while it is the same one (a slot freed by a stop
	 * may hold another recording by the time the pass ends) */
	struct recording *rec;
	uint64_t seq;
	char session[CARET_LTTNG_NAME_MAX];
	char dir[4096];
	uint32_t serial;
	uint64_t exited_base;
	int64_t start_ns, deadline_ns, last_progress_ns;
	bool said_slow;
	bool scoped; /* a member's recording: only uid's processes count */
	uid_t uid;
};

static struct recording *rec_of(const struct job *j)
{
	return j->rec->used && j->rec->seq == j->seq && j->rec->ring.on ? j->rec : NULL;
}

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

static wait_line *progress(const struct job *j)
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
	return wait_line_progress(&p);
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
	const struct recording *rec = j->rec;
	if (n < len && rec->subbuf_size &&
	    !snapshot_fits(need, rec->subbuf_size, rec->subbuf_count))
		n += (size_t)snprintf(why + n, len - n, "%sthe pass (about %" PRIu64 " bytes) may "
				      "not fit in the ring of %" PRIu64 " bytes per CPU: its start "
				      "may be overwritten (record with --snapshot-size %" PRIu64 "K)",
				      n ? "; " : "", need,
				      rec->subbuf_size * rec->subbuf_count,
				      snapshot_min_size(need) >> 10);
	if (n < len && j->r->n_exited != j->exited_base)
		snprintf(why + n, len - n, "%s%" PRIu64 " process(es) exited during the pass",
			 n ? "; " : "", j->r->n_exited - j->exited_base);
}

static wait_line *finish(struct job *j, bool timed_out, int64_t now)
{
	char why[1024], name[64], path[4096], err[512] = "";
	struct recording *rec = j->rec;
	verdict(j, timed_out, why, sizeof(why));
	snprintf(name, sizeof(name), "snapshot-%" PRIu64, rec->ring.written + 1);
	/* the output directory is listed as the recording's owner, who named
	 * it (the consumer wrote the snapshot as them) */
	struct creds_id as = { .uid = rec->uid, .gid = rec->gid, .n_groups = -1 };
	int r = lttng_view_ops(j->t->view)->snapshot(j->session, j->dir, name, &as, path,
						     sizeof(path), err, sizeof(err));
	if (r < 0) {
		log_err("session %s: snapshot failed: %s", j->session, err);
		return wait_line_error(-r, err);
	}
	rec->ring.written++;
	snprintf(rec->ring.last, sizeof(rec->ring.last), "%s", path);
	/* the count outlives this caretd: a restarted one goes on from it
	 * (and names the next snapshot-N after it) */
	recordings_save(j->t);
	int64_t pass_ms = (now - j->start_ns) / NS_PER_MS;
	if (why[0])
		log_warn("session %s: snapshot %s may be INCOMPLETE: %s", j->session, path, why);
	else
		log_info("session %s: snapshot %s written (replay pass %" PRId64 " ms)", j->session,
			 path, pass_ms);
	struct caret_ctl_snapshot_result res = {
		.session = j->session,
		.path = path,
		.complete = !why[0],
		.why = why[0] ? why : NULL,
		.have_counts = true,
		.snapshots = rec->ring.written,
		.pass_ms = pass_ms,
	};
	return wait_line_snapshot(&res);
}

static wait_line *job_poll(void *arg, int64_t now, bool *done)
{
	struct job *j = arg;
	*done = true;
	if (!rec_of(j) || !lttng_view_find(j->t->view, j->session)) {
		char m[512];
		snprintf(m, sizeof(m), "recording %s ended before its snapshot was taken",
			 j->session);
		return wait_line_error(ENOENT, m);
	}
	bool all = true;
	for (const struct agent *a = j->r->head; a && all; a = a->next)
		all = !counts(j, a) || covered(a, j->serial);
	/* while LTTng starts another session, the snapshot (an LTTng call)
	 * would stall caretd's loop until that start ends: it waits for it */
	if ((all || now >= j->deadline_ns) && !lttng_start_running(NULL))
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
	struct recording *rec = rec_of(j);
	if (rec)
		rec->ring.busy = false;
	free(j);
}

static const struct wait_custom job_ops = { job_poll, job_release };

struct wait_req *snapshot_begin(struct recordings *t, struct registry *r,
				struct recording *rec, const char *dir, int64_t timeout_ms,
				int64_t now)
{
	struct lttng_view *v = t->view;
	struct lttng_view_session *e = lttng_view_find(v, rec->name);
	struct job *j = e && rec->ring.on ? calloc(1, sizeof(*j)) : NULL;
	if (!j)
		return NULL;
	*j = (struct job){ .t = t, .r = r, .rec = rec, .seq = rec->seq,
			   .exited_base = r->n_exited, .start_ns = now,
			   .deadline_ns = now + timeout_ms * NS_PER_MS };
	snprintf(j->session, sizeof(j->session), "%s", rec->name);
	snprintf(j->dir, sizeof(j->dir), "%s", dir);
	j->scoped = rec->uid != 0 && geteuid() == 0;
	j->uid = rec->uid;
	/* a new pass for every agent, ready at once (its tracepoints are
	 * enabled already): as a rotation's new chunk gets */
	e->serial = ++v->last_serial;
	e->since_ns = INT64_MIN / 2;
	j->serial = e->serial;
	rec->ring.busy = true;
	log_info("session %s: replaying every process's initialization records before a "
		 "snapshot into %s", rec->name, dir);
	if (v->on_change)
		v->on_change(v->change_arg);
	return wait_custom(&job_ops, j);
}

/* ---- status ---- */

/* A flight recorder's fields, on its status entry or as the stop's own
 * (last: "" when none yet). */
static void ring_status(struct caret_ctl_recording_status *x, uint64_t ring_bytes,
			uint64_t written, const char *last)
{
	x->mode = CARET_CTL_MODE_SNAPSHOT;
	x->have_ring_size = ring_bytes != 0; /* 0: not known */
	x->ring_size = ring_bytes;
	x->have_snapshots = true;
	x->snapshots = written;
	x->last_snapshot = last[0] ? last : NULL;
}

/* ---- the feature ---- */

static void feat_end(struct recordings *t, struct recording *r, struct recording_end *out)
{
	(void)t;
	if (!r->ring.on || !out)
		return; /* a job in flight sees its recording gone (rec_of) */
	out->ring = true;
	snprintf(out->last, sizeof(out->last), "%s", r->ring.last);
	out->rep.have_self = true;
	ring_status(&out->rep.self, r->subbuf_size * r->subbuf_count, r->ring.written, out->last);
}

static int feat_status(const struct recording *r, struct caret_ctl_recording_status *entry,
		       struct caret_ctl_recordings *result)
{
	(void)result;
	if (r->ring.on)
		ring_status(entry, r->subbuf_size * r->subbuf_count, r->ring.written,
			    r->ring.last);
	return 0;
}

/* " ring=1": a flight recorder (its count of snapshots is the line's own
 * SNAPSHOTS field, which older files have too) */
static void feat_save(const struct recording *r, FILE *f)
{
	if (r->ring.on)
		fputs(" ring=1", f);
}

static int feat_restore(struct recordings *t, struct recording *r, const char *token)
{
	(void)t;
	if (strcmp(token, "1") != 0)
		return -EINVAL;
	r->ring.on = true;
	return 0;
}

const struct recording_feature_ops snapshot_feature = {
	.name = "ring",
	.end = feat_end,
	.status = feat_status,
	.save = feat_save,
	.restore = feat_restore,
};
