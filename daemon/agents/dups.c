/* SPDX-License-Identifier: Apache-2.0 */
#include <string.h>

#include "daemon/agents/dups.h"

struct range {
	uint32_t lo, hi;
};

static uint32_t overlap(struct range r, const struct agent_held *h)
{
	uint32_t lo = r.lo > h->lo ? r.lo : h->lo, hi = r.hi < h->hi ? r.hi : h->hi;
	return hi > lo ? hi - lo : 0;
}

/* What the session holds afterwards: one interval (passes run from the
 * first record up, so the pieces join as soon as a pass reaches what an
 * earlier one left); of two disjoint pieces, the larger. */
static void merge(struct agent_held *h, struct range r)
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
static struct agent_held *held_of(struct agent *a, const struct lttng_view *v, uint32_t serial)
{
	struct agent_held *free_slot = NULL;
	for (int k = 0; k < AGENT_HELD_MAX; k++) {
		struct agent_held *h = &a->held[k];
		if (h->serial == serial)
			return h;
		bool live = false;
		for (int i = 0; i < v->n_active && h->serial && !live; i++)
			live = v->sess[i].serial == h->serial;
		if (!live && !free_slot)
			free_slot = h;
	}
	if (free_slot)
		*free_slot = (struct agent_held){ .serial = serial };
	return free_slot;
}

void dups_pause(struct lttng_view *v, struct registry *reg, uint32_t serial)
{
	for (struct agent *a = reg->head; a; a = a->next) {
		if (a->covered_serial < serial)
			continue; /* its slot for serial, if any, says what it holds */
		struct agent_held *h = held_of(a, v, serial);
		struct caret_seg_status st;
		caret_seg_read_status(&a->seg, &st);
		if (h)
			*h = (struct agent_held){ .serial = serial, .lo = 0,
						  .hi = st.records > UINT32_MAX ? UINT32_MAX
										: (uint32_t)st.records };
	}
}

void dups_resume(struct registry *reg, uint32_t from, uint32_t to)
{
	for (struct agent *a = reg->head; a; a = a->next)
		for (int k = 0; k < AGENT_HELD_MAX; k++)
			if (a->held[k].serial == from)
				a->held[k].serial = to;
}

void dups_charge(struct lttng_view *v, struct agent *a, const struct caret_seg_status *st,
		 uint64_t emitted)
{
	uint32_t e = CARET_EPOCH_OF(st->cursor), d = CARET_COUNT_OF(st->cursor);
	/* The positions replayed since the last call: the rest of the pass
	 * seen then (the agent emits up to its grant before it sees a new
	 * pass), then the current pass from its first record. */
	struct range r[2] = { { 0, 0 }, { 0, 0 } };
	if (e == a->dup_epoch && d >= a->dup_pos) {
		r[1] = (struct range){ a->dup_pos, d };
	} else {
		uint64_t tail = emitted > d ? emitted - d : 0;
		if (tail > UINT32_MAX - a->dup_pos)
			tail = UINT32_MAX - a->dup_pos;
		r[0] = (struct range){ a->dup_pos, a->dup_pos + (uint32_t)tail };
		r[1] = (struct range){ 0, d };
	}
	a->dup_epoch = e;
	a->dup_pos = d;
	bool bound = st->agent_flags & CARET_AGENT_PASS_FILTER;
	for (int i = 0; i < v->n_active; i++) {
		struct lttng_view_session *s = &v->sess[i];
		if (!(s->rules & CARET_LTTNG_RULE_CARET))
			continue;
		uint64_t copies = 0;
		if (s->serial <= a->covered_serial) {
			copies = emitted;
		} else {
			struct agent_held *h = held_of(a, v, s->serial);
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
