/* SPDX-License-Identifier: Apache-2.0 */
#include <string.h>

#include "daemon/agents/dups.h"
#include "daemon/agents/scheduler.h"

/* Per session, what it holds of the agent's cache (positions [lo, hi))
 * while no completed pass covered it. */
struct held {
	uint32_t serial, lo, hi;
};

/* The agent's state here (registry.h's struct agent_key): the pass and
 * position dups_charge saw last, and what each active session holds. */
#define HELD_MAX 8
struct dups_agent {
	uint32_t epoch, pos;
	struct held held[HELD_MAX];
};

static struct agent_key dups_key = { .size = sizeof(struct dups_agent) };

struct range {
	uint32_t lo, hi;
};

static uint32_t overlap(struct range r, const struct held *h)
{
	uint32_t lo = r.lo > h->lo ? r.lo : h->lo, hi = r.hi < h->hi ? r.hi : h->hi;
	return hi > lo ? hi - lo : 0;
}

/* What the session holds afterwards: one interval (passes run from the
 * first record up, so the pieces join as soon as a pass reaches what an
 * earlier one left); of two disjoint pieces, the larger. */
static void merge(struct held *h, struct range r)
{
	if (r.hi <= r.lo)
		return;
	if (h->hi <= h->lo || (r.lo <= h->hi && r.hi >= h->lo)) {
		h->lo = h->hi > h->lo && h->lo < r.lo ? h->lo : r.lo;
		h->hi = h->hi > r.hi ? h->hi : r.hi;
	} else if (r.hi - r.lo > h->hi - h->lo) {
		h->lo = r.lo;
		h->hi = r.hi;
	}
}

/* The agent's slot for session `serial`, claimed (holding nothing) when
 * absent; slots of sessions no longer active are reused. */
static struct held *held_of(struct dups_agent *da, const struct lttng_view *v, uint32_t serial)
{
	struct held *free_slot = NULL;
	for (int k = 0; k < HELD_MAX; k++) {
		struct held *h = &da->held[k];
		if (h->serial == serial)
			return h;
		bool live = false;
		for (int i = 0; i < v->n_active && h->serial && !live; i++)
			live = v->sess[i].serial == h->serial;
		if (!live && !free_slot)
			free_slot = h;
	}
	if (free_slot)
		*free_slot = (struct held){ .serial = serial };
	return free_slot;
}

void dups_pause(struct lttng_view *v, struct registry *reg, uint32_t serial)
{
	for (struct agent *a = reg->head; a; a = a->next) {
		if (sched_agent_peek(a)->covered_serial < serial)
			continue; /* its slot for serial, if any, says what it holds */
		struct dups_agent *da = agent_state(a, &dups_key);
		struct held *h = da ? held_of(da, v, serial) : NULL;
		struct caret_seg_status st;
		caret_seg_read_status(&a->seg, &st);
		if (h)
			*h = (struct held){ .serial = serial, .lo = 0,
					    .hi = st.records > UINT32_MAX ? UINT32_MAX
									  : (uint32_t)st.records };
	}
}

void dups_resume(struct registry *reg, uint32_t from, uint32_t to)
{
	for (struct agent *a = reg->head; a; a = a->next) {
		struct dups_agent *da = agent_state(a, &dups_key);
		for (int k = 0; da && k < HELD_MAX; k++)
			if (da->held[k].serial == from)
				da->held[k].serial = to;
	}
}

void dups_charge(struct lttng_view *v, struct agent *a, const struct caret_seg_status *st,
		 uint64_t emitted)
{
	struct dups_agent *da = agent_state(a, &dups_key);
	if (!da)
		return; /* out of memory: these copies go uncounted */
	uint32_t e = CARET_EPOCH_OF(st->cursor), d = CARET_COUNT_OF(st->cursor);
	/* The positions replayed since the last call: the rest of the pass
	 * seen then (the agent emits up to its grant before it sees a new
	 * pass), then the current pass from its first record. */
	struct range r[2] = { { 0, 0 }, { 0, 0 } };
	if (e == da->epoch && d >= da->pos) {
		r[1] = (struct range){ da->pos, d };
	} else {
		uint64_t tail = emitted > d ? emitted - d : 0;
		if (tail > UINT32_MAX - da->pos)
			tail = UINT32_MAX - da->pos;
		r[0] = (struct range){ da->pos, da->pos + (uint32_t)tail };
		r[1] = (struct range){ 0, d };
	}
	da->epoch = e;
	da->pos = d;
	bool bound = st->agent_flags & CARET_AGENT_PASS_FILTER;
	for (int i = 0; i < v->n_active; i++) {
		struct lttng_view_session *s = &v->sess[i];
		if (!(s->rules & CARET_LTTNG_RULE_CARET))
			continue;
		uint64_t copies = 0;
		if (s->serial <= sched_agent_peek(a)->covered_serial) {
			copies = emitted;
		} else {
			struct held *h = held_of(da, v, s->serial);
			for (int k = 0; k < 2 && h; k++) {
				copies += overlap(r[k], h);
				merge(h, r[k]);
			}
		}
		if (!copies)
			continue;
		s->dups = s->dups + copies < s->dups ? UINT64_MAX : s->dups + copies;
		s->dups_bound |= bound;
	}
}
