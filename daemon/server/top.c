/* SPDX-License-Identifier: Apache-2.0 */
/* `top`: watching, leases, counters into rows (top.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/base/log.h"
#include "daemon/server/top.h"
#include "daemon/server/top_join.h"
#include "util/caret_err.h"
#include "util/caret_util.h"

/* Reads closer together than this share their interval: the rows of a
 * second requester do not cut the first one's intervals short. */
#define TOP_ROLL_NS 900000000LL

struct top {
	struct registry *reg;
	struct loop_job job;
	bool job_added;
	uint32_t next_generation;
	uint8_t next_session;
};

/* Per watched agent (registry.h's struct agent_key): 32 KiB of counters
 * read at the interval's start and the names of each slot's entity, about
 * 200 KiB: kept while its lease runs only, since a caretd with 1,000
 * processes would otherwise keep 200 MB after one `top` for as long as
 * they live (a new watch joins the names again, once). */
struct top_agent {
	uint32_t watch; /* what its `watched` holds from us; 0: unwatched */
	int64_t lease_until, base_ns;
	uint64_t named_records; /* the records its names were joined from */
	struct caret_ctr_slot base[CARET_CTR_SLOTS];
	uint64_t named_key[CARET_CTR_SLOTS];
	struct top_names names[CARET_CTR_SLOTS];
};
static struct agent_key top_key = { .size = sizeof(struct top_agent) };

/* The rows being built, and the storage of one read. */
struct rows {
	struct caret_ctl_top *out;
	size_t cap_cb, cap_tp;
	bool host_only; /* this agent's CARET_AGENT_HOST_DISCOVERY */
	struct caret_ctr_slot cur[CARET_CTR_SLOTS];
};

_Static_assert(CARET_CTL_TOP_LAT_MAX_NS == CARET_CTR_LAT_ABSURD_NS,
	       "the reply bounds the latencies the agents count");

static uint32_t new_generation(struct top *t)
{
	t->next_generation = (t->next_generation + 1) & CARET_CTR_GEN_MASK;
	if (!t->next_generation)
		t->next_generation = 1;
	return t->next_generation;
}

/* A watch nobody holds: left by a caretd that died before its leases
 * ended (this one restarted), which would keep the process counting. */
static void drop_orphan(struct agent *a)
{
	uint32_t w = 0;
	if (a->dead || !a->seg.id.ctr_slots || caret_seg_watched(&a->seg, &w) < 0)
		return;
	if (w) {
		caret_drive_watch(&a->seg, 0);
		log_debug("top: pid %d unwatched (nobody's watch)", (int)a->pid);
	}
}

int top_expire(struct top *t, int64_t now_ns)
{
	int left = 0;
	for (struct agent *a = t->reg->head; a; a = a->next) {
		struct top_agent *ta = (struct top_agent *)agent_state_peek(a, &top_key);
		if (!ta || !ta->watch) {
			drop_orphan(a);
			continue;
		}
		if (a->dead || now_ns >= ta->lease_until) {
			if (!a->dead)
				caret_drive_watch(&a->seg, 0);
			agent_state_drop(a, &top_key);
			log_debug("top: pid %d unwatched", (int)a->pid);
		} else {
			left++;
		}
	}
	return left;
}

/* Each second while a process is watched; else every 10 s, for the
 * watches a previous caretd left (one pread per process). */
static uint64_t lease_job(void *arg)
{
	struct top *t = arg;
	return (top_expire(t, caret_now_ns()) ? 1000 : 10000) * USEC_PER_MS;
}

int top_start(struct top **out, struct loop *loop, struct registry *reg)
{
	struct top *t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->reg = reg;
	t->job = LOOP_JOB("top leases", LOOP_OBSERVE, lease_job, t);
	if (loop) {
		int r = loop_add(loop, &t->job);
		if (r < 0) {
			free(t);
			return r;
		}
		t->job_added = true;
	}
	*out = t;
	return 0;
}

void top_stop(struct top *t)
{
	if (!t)
		return;
	if (t->job_added)
		loop_remove(&t->job);
	/* leave no process paying for a watcher that is gone */
	top_expire(t, INT64_MAX);
	free(t);
}

/* Names for the slots whose key is new, from one walk of the cache, and
 * again for unknown ones once the cache grew; the agent's flags. */
static uint32_t name_slots(struct agent *a, struct top_agent *ta,
			   const struct caret_ctr_slot *cur)
{
	struct caret_seg_status st;
	caret_seg_read_status(&a->seg, &st);
	bool grew = st.records != ta->named_records;
	uint64_t keys[CARET_CTR_SLOTS];
	size_t idx[CARET_CTR_SLOTS], n = 0;
	for (size_t i = 0; i < CARET_CTR_SLOTS; i++) {
		uint64_t k = cur[i].key;
		bool unnamed = !ta->names[i].node[0] || (CARET_CTR_KEY_KIND(k) == CARET_CTR_CALLBACK &&
							 !ta->names[i].symbol[0]);
		if (k && (k != ta->named_key[i] || (grew && unnamed))) {
			keys[n] = k;
			idx[n++] = i;
		}
	}
	if (!n)
		return st.agent_flags;
	static struct top_names got[CARET_CTR_SLOTS]; /* 150 KiB: not on the stack */
	top_join(&a->seg, keys, n, got);
	for (size_t j = 0; j < n; j++) {
		ta->names[idx[j]] = got[j];
		ta->named_key[idx[j]] = keys[j];
	}
	ta->named_records = st.records;
	return st.agent_flags;
}

static const char *opt(const char *s)
{
	return s[0] ? s : NULL;
}

/* A callback's row over the interval iv (ns) since b. */
static void cb_row(const struct caret_ctr_slot *c, const struct caret_ctr_slot *b,
		   uint32_t generation, int64_t iv, struct caret_ctl_top_cb *row)
{
	uint32_t hist[CARET_CTR_BUCKETS];
	for (unsigned k = 0; k < CARET_CTR_BUCKETS; k++)
		hist[k] = c->hist[k] - b->hist[k]; /* 32-bit counters wrap */
	row->calls = c->count - b->count;
	uint64_t total = c->total_ns - b->total_ns;
	row->max_ns = CARET_CTR_MAX_GEN(c->max) == (generation & CARET_CTR_GEN_MASK)
			      ? CARET_CTR_MAX_NS(c->max)
			      : 0;
	row->mean_ns = row->calls ? total / row->calls : 0;
	row->p99_ns = caret_ctr_quantile(hist, 0.99, row->max_ns);
	row->rate_hz = iv > 0 ? (double)row->calls * 1e9 / (double)iv : 0;
	row->cpu = iv > 0 ? (double)total / (double)iv : 0;
}

/*
 * A subscription's latency over the interval since b. Shown only when its
 * process's DDS discovers this host only: every writer it takes from then
 * stamps with this host's CLOCK_REALTIME. Anywhere else a writer may be
 * on another host, whose clock's offset would pass for latency, and
 * nothing at a take tells which writer sent the sample (rmw_take gives
 * none): unknown rather than wrong.
 */
static void lat_row(const struct caret_ctr_slot *c, const struct caret_ctr_slot *b,
		    uint32_t generation, bool host_only, struct caret_ctl_top_topic *row)
{
	if (!host_only)
		return;
	struct caret_ctl_top_lat *l = &row->lat;
	uint32_t hist[CARET_CTR_BUCKETS];
	for (unsigned k = 0; k < CARET_CTR_BUCKETS; k++)
		hist[k] = c->hist[k] - b->hist[k];
	/* a slot's words come from slightly different instants (and the
	 * owner's bytes are hostile): the reply keeps its promised bounds */
	l->known = true;
	l->apart = c->lat_apart - b->lat_apart;
	l->apart = l->apart < row->count ? l->apart : row->count;
	l->n = c->lat_n - b->lat_n;
	l->n = l->n < row->count - l->apart ? l->n : row->count - l->apart;
	if (!l->n)
		return;
	uint64_t max = CARET_CTR_MAX_GEN(c->max) == (generation & CARET_CTR_GEN_MASK)
			       ? CARET_CTR_MAX_NS(c->max)
			       : 0;
	l->mean_ns = (c->total_ns - b->total_ns) / l->n;
	/* a take counted just before the generation changed is in the total,
	 * not in this generation's max: the mean is a floor of the max */
	max = max > l->mean_ns ? max : l->mean_ns;
	l->max_ns = max < CARET_CTR_LAT_ABSURD_NS ? max : CARET_CTR_LAT_ABSURD_NS;
	l->mean_ns = l->mean_ns < l->max_ns ? l->mean_ns : l->max_ns;
	l->p99_ns = caret_ctr_quantile(hist, 0.99, l->max_ns);
}

/* The rows of one agent's slots (cur) against its interval's start. */
static int slot_rows(struct agent *a, struct top_agent *ta, int n, int64_t iv, struct rows *rw)
{
	struct caret_ctl_top *o = rw->out;
	static const struct caret_ctr_slot zero;
	for (int i = 0; i < n; i++) {
		const struct caret_ctr_slot *c = &rw->cur[i];
		const struct caret_ctr_slot *b = ta->base[i].key == c->key ? &ta->base[i] : &zero;
		const struct top_names *nm = &ta->names[i];
		uint32_t kind = CARET_CTR_KEY_KIND(c->key);
		if (kind == CARET_CTR_CALLBACK) {
			if (caret_grow((void **)&o->cb, &rw->cap_cb, o->n_cb + 1, sizeof(*o->cb)) < 0)
				return -ENOMEM;
			struct caret_ctl_top_cb *row = &o->cb[o->n_cb++];
			*row = (struct caret_ctl_top_cb){ .pid = a->pid, .procname = a->procname,
							  .node = opt(nm->node), .kind = nm->kind,
							  .symbol = opt(nm->symbol),
							  .topic = opt(nm->topic) };
			cb_row(c, b, ta->watch, iv, row);
		} else if (kind == CARET_CTR_PUBLISHER || kind == CARET_CTR_SUBSCRIPTION) {
			if (caret_grow((void **)&o->topics, &rw->cap_tp, o->n_topics + 1,
					sizeof(*o->topics)) < 0)
				return -ENOMEM;
			struct caret_ctl_top_topic *row = &o->topics[o->n_topics++];
			uint64_t count = c->count - b->count;
			*row = (struct caret_ctl_top_topic){
				.pid = a->pid, .procname = a->procname, .node = opt(nm->node),
				.topic = opt(nm->topic), .publisher = kind == CARET_CTR_PUBLISHER,
				.count = count,
				.rate_hz = iv > 0 ? (double)count * 1e9 / (double)iv : 0
			};
			if (kind == CARET_CTR_SUBSCRIPTION)
				lat_row(c, b, ta->watch, rw->host_only, row);
		}
	}
	return 0;
}

/* One agent: watched (its interval starts now if it was not), its rows,
 * and a new interval once this one is long enough. 1 when it has
 * counters, 0 when not, or a negative errno. */
static int agent_rows(struct top *t, struct agent *a, int64_t lease_ms, int64_t now,
		      struct rows *rw, int64_t *iv_min)
{
	uint64_t lost;
	int n = caret_seg_read_counters(&a->seg, rw->cur, CARET_CTR_SLOTS, &lost);
	if (n <= 0)
		return n == -EBADMSG ? 0 : n; /* truncated: its owner is leaving */
	struct top_agent *ta = agent_state(a, &top_key);
	if (!ta)
		return -ENOMEM;
	ta->lease_until = now + lease_ms * 1000000;
	if (!ta->watch) {
		ta->watch = CARET_CTR_WATCH(++t->next_session, new_generation(t));
		caret_drive_watch(&a->seg, ta->watch);
		memcpy(ta->base, rw->cur, sizeof(ta->base));
		ta->base_ns = now;
		if (t->job_added)
			loop_job_soon(&t->job, (uint64_t)lease_ms * USEC_PER_MS);
		log_debug("top: pid %d watched, %08x", (int)a->pid, ta->watch);
	}
	rw->host_only = name_slots(a, ta, rw->cur) & CARET_AGENT_HOST_DISCOVERY;
	int64_t iv = now - ta->base_ns;
	int r = slot_rows(a, ta, n, iv, rw);
	if (r < 0)
		return r;
	if (iv < *iv_min)
		*iv_min = iv;
	if (iv >= TOP_ROLL_NS) {
		memcpy(ta->base, rw->cur, sizeof(ta->base));
		ta->base_ns = now;
		ta->watch = CARET_CTR_WATCH(CARET_CTR_WATCH_SESSION(ta->watch), new_generation(t));
		caret_drive_watch(&a->seg, ta->watch);
	}
	rw->out->lost += lost;
	return 1;
}

static int by_cpu(const void *x, const void *y)
{
	const struct caret_ctl_top_cb *a = x, *b = y;
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? 1 : -1;
	return (a->rate_hz < b->rate_hz) - (a->rate_hz > b->rate_hz);
}

static int by_rate(const void *x, const void *y)
{
	const struct caret_ctl_top_topic *a = x, *b = y;
	return (a->rate_hz < b->rate_hz) - (a->rate_hz > b->rate_hz);
}

/* The busiest CARET_CTL_TOP_MAX_ROWS of each list. */
static void keep_busiest(struct caret_ctl_top *o)
{
	/* qsort's base must not be NULL, even for no row */
	if (o->n_cb > 1)
		qsort(o->cb, o->n_cb, sizeof(*o->cb), by_cpu);
	if (o->n_topics > 1)
		qsort(o->topics, o->n_topics, sizeof(*o->topics), by_rate);
	if (o->n_cb > CARET_CTL_TOP_MAX_ROWS) {
		o->truncated += o->n_cb - CARET_CTL_TOP_MAX_ROWS;
		o->n_cb = CARET_CTL_TOP_MAX_ROWS;
	}
	if (o->n_topics > CARET_CTL_TOP_MAX_ROWS) {
		o->truncated += o->n_topics - CARET_CTL_TOP_MAX_ROWS;
		o->n_topics = CARET_CTL_TOP_MAX_ROWS;
	}
}

int top_collect(struct top *t, bool (*may)(uid_t uid, const void *arg), const void *arg,
		int64_t lease_ms, int64_t now_ns, struct caret_ctl_top *out, char *err,
		size_t errlen)
{
	memset(out, 0, sizeof(*out));
	struct rows *rw = calloc(1, sizeof(*rw));
	if (!rw)
		return caret_errf(err, errlen, -ENOMEM, "out of memory");
	rw->out = out;
	int64_t iv_min = INT64_MAX;
	int r = 0;
	for (struct agent *a = t->reg->head; a && r >= 0; a = a->next) {
		if (a->dead || !may(a->seg.id.uid, arg))
			continue;
		r = agent_rows(t, a, lease_ms, now_ns, rw, &iv_min);
		if (r > 0)
			out->processes++;
	}
	free(rw);
	if (r < 0) {
		top_result_free(out);
		return caret_errf(err, errlen, r, "cannot read the counters: %s", strerror(-r));
	}
	out->interval_ms = iv_min == INT64_MAX ? 0 : iv_min / 1000000;
	keep_busiest(out);
	return 0;
}

void top_result_free(struct caret_ctl_top *out)
{
	caret_ctl_top_free(out);
}
