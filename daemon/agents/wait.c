/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/base/log.h"
#include "daemon/agents/scheduler.h"
#include "daemon/agents/wait.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_dec.h"
#include "proto/caret_ctl_enc.h"
#include "proto/caret_ctl_snapshot_res.h"

#define NS_PER_MS 1000000LL
#define PROGRESS_EVERY_NS (100 * NS_PER_MS)

struct wait_req {
	const struct wait_custom *custom; /* NULL: a `wait` */
	void *arg;
	bool slow; /* polled once a second (wait_custom_slow) */
	const struct registry *reg;
	/* a member's wait (wait_begin): only uid's processes count */
	bool only;
	uid_t uid;
	uint64_t exited_base; /* registry exits before this wait began */
	int64_t deadline_ns, last_progress_ns;
};

struct wait_req *wait_begin(const struct registry *r, int64_t timeout_ms, int64_t now_ns,
			    bool only, uid_t uid)
{
	struct wait_req *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->reg = r;
	w->only = only;
	w->uid = uid;
	w->exited_base = r->n_exited;
	w->deadline_ns = now_ns + timeout_ms * NS_PER_MS;
	return w;
}

static bool theirs(const struct wait_req *w, uint32_t uid)
{
	return !w->only || uid == (uint32_t)w->uid;
}

/* The first exit since the wait began that the ring still holds. */
static uint64_t first_exit(const struct wait_req *w)
{
	uint64_t first = w->exited_base;
	if (w->reg->n_exited - first > REGISTRY_EXITS) /* more than the ring holds */
		first = w->reg->n_exited - REGISTRY_EXITS;
	return first;
}

/* The processes the wait counts that exited since it began (a member's:
 * the ring's, which has every uid's). */
static int lost(const struct wait_req *w)
{
	if (!w->only)
		return (int)(w->reg->n_exited - w->exited_base);
	int n = 0;
	for (uint64_t i = first_exit(w); i < w->reg->n_exited; i++)
		n += theirs(w, w->reg->exited[i % REGISTRY_EXITS].uid);
	return n;
}

static cJSON *result(const struct wait_req *w, const struct progress *p, bool done)
{
	cJSON *o = caret_ctl_enc_wait(done, p->recording, p->total);
	for (const struct agent *a = w->reg->head; o && a; a = a->next) {
		struct caret_seg_status st;
		caret_seg_read_status(&a->seg, &st);
		if (sched_complete(w->reg, a, &st) || st.state == CARET_STATE_UNINITIALIZED ||
		    sched_agent_peek(a)->unseen || !theirs(w, a->seg.id.uid))
			continue;
		char why[160];
		sched_reason(a, why, sizeof(why));
		if (caret_ctl_add_not_recording(o, a->pid, a->procname, caret_state_name(st.state),
						why) < 0)
			goto nomem;
	}
	for (uint64_t i = first_exit(w); o && i < w->reg->n_exited; i++) {
		const struct exited_agent *x = &w->reg->exited[i % REGISTRY_EXITS];
		char why[160];
		if (!theirs(w, x->uid))
			continue;
		snprintf(why, sizeof(why), "exited during its replay (in %s): its initialization "
			 "data in this trace is incomplete", caret_state_name(x->state));
		/* among the processes that did not make it, so that every
		 * client names it (exited is kept for older clients) */
		if (caret_ctl_add_not_recording(o, x->pid, x->procname, "EXITED", why) < 0 ||
		    caret_ctl_add_exited(o, x->pid, x->procname, caret_state_name(x->state)) < 0)
			goto nomem;
	}
	if (!o || wait_add_drops(w->reg, o, false) < 0)
		goto nomem;
	return o;
nomem:
	cJSON_Delete(o);
	return caret_ctl_enc_error(ENOMEM, "out of memory");
}

struct wait_req *wait_custom(const struct wait_custom *ops, void *arg)
{
	struct wait_req *w = calloc(1, sizeof(*w));
	if (!w) {
		ops->release(arg);
		return NULL;
	}
	w->custom = ops;
	w->arg = arg;
	return w;
}

struct wait_req *wait_custom_slow(const struct wait_custom *ops, void *arg)
{
	struct wait_req *w = wait_custom(ops, arg);
	if (w)
		w->slow = true;
	return w;
}

bool wait_slow(const struct wait_req *w)
{
	return w->slow;
}

void wait_set_slow(struct wait_req *w)
{
	w->slow = true;
}

cJSON *wait_poll(struct wait_req *w, int64_t now, bool *done)
{
	if (w->custom)
		return w->custom->poll(w->arg, now, done);
	struct progress p;
	sched_progress_of(w->reg, w->only, w->uid, &p);
	bool all = p.recording == p.total;
	bool late = now >= w->deadline_ns;
	*done = all || late;
	if (*done) {
		int n_lost = lost(w);
		if (!all)
			log_warn("wait timed out: %d of %d processes recording", p.recording,
				 p.total);
		if (n_lost)
			log_warn("%d process%s exited during the replay", n_lost,
				 n_lost == 1 ? "" : "es");
		return result(w, &p, all && !n_lost);
	}
	if (w->last_progress_ns && now - w->last_progress_ns < PROGRESS_EVERY_NS)
		return NULL;
	w->last_progress_ns = now;
	struct caret_ctl_progress cp = { p.recording, p.total, p.records_done, p.records_total };
	return caret_ctl_enc_progress(&cp);
}

void wait_free(struct wait_req *w)
{
	if (w && w->custom)
		w->custom->release(w->arg);
	free(w);
}

/* Segment counters are whatever their owner wrote: sums saturate (B6). */
int wait_add_drops(const struct registry *r, cJSON *o, bool log)
{
	uint64_t total = 0;
	int listed = 0;
	for (const struct agent *a = r->head; a; a = a->next) {
		struct caret_seg_status st;
		caret_seg_read_status(&a->seg, &st);
		if (st.state == CARET_STATE_UNINITIALIZED || st.dropped == 0)
			continue;
		if (__builtin_add_overflow(total, st.dropped, &total))
			total = UINT64_MAX;
		if (log)
			log_warn("pid %d (%s): %llu initialization records dropped (cache full: "
				 "raise CARET_AGENT_CACHE_SIZE)", (int)a->pid, a->procname,
				 (unsigned long long)st.dropped);
		if (listed < CARET_CTL_MAX_DROPS &&
		    caret_ctl_add_drop(o, a->pid, a->procname, st.dropped) < 0)
			return -ENOMEM;
		listed++;
	}
	return caret_ctl_add_dropped(o, total);
}

void wait_line_free(wait_line *l)
{
	cJSON_Delete(l);
}

wait_line *wait_line_snapshot(const struct caret_ctl_snapshot_result *s)
{
	cJSON *o = caret_ctl_enc_result();
	if (o && caret_ctl_snapshot_result_encode(s, o) == 0)
		return o;
	cJSON_Delete(o);
	return caret_ctl_enc_error(ENOMEM, "out of memory");
}

wait_line *wait_line_error(int err, const char *msg)
{
	return caret_ctl_enc_error(err, msg);
}

wait_line *wait_line_progress(const struct caret_ctl_progress *p)
{
	return caret_ctl_enc_progress(p);
}

wait_line *wait_line_lttng_start(int total, int64_t start_ms)
{
	return caret_ctl_enc_progress_lttng_start(total, start_ms);
}

wait_line *wait_line_hold(const char *session, bool held)
{
	return caret_ctl_enc_hold(session, held);
}

wait_line *wait_line_record(const char *session, const char *path, const struct wait_bc *bc)
{
	cJSON *o = caret_ctl_enc_record(session, path);
	if (o && bc && bc->asked && caret_ctl_add_broadcast(o, bc->ok, bc->why) < 0) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

const char *wait_line_record_session(const wait_line *l)
{
	struct ctl_why why;
	const char *type = NULL;
	struct ctl_record_result rec;
	if (!l || ctl_get_str(l, NULL, CARET_CTL_K_TYPE, false, &type, &why) < 0 ||
	    strcmp(type, CARET_CTL_T_RESULT) != 0 || ctl_decode_record(l, &rec, &why) < 0)
		return NULL;
	return rec.session;
}

int wait_line_record_held(wait_line *l)
{
	return caret_ctl_enc_record_held(l);
}
