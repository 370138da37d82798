/* SPDX-License-Identifier: Apache-2.0 */
#include <stdlib.h>

#include "daemon/agents/pacer_cpus.h"
#include "daemon/agents/scheduler.h"
#include "daemon/base/log.h"
#include "shm/caret_shm.h"

void pacer_cpus_margin(struct pacer_cpus *c, uint64_t subbuf)
{
	uint64_t m = subbuf / 4;
	c->home_max = m < SCHED_MIN_GRANT ? m : SCHED_MIN_GRANT;
}

/* The pacer's own state of an agent: its counts already taken, and the
 * CPU its replay thread last wrote on (-1: none seen). */
struct pacer_agent {
	bool seen;
	int home;
	uint64_t cpu[CARET_SHM_CPUS];
	uint64_t skipped;
};
static struct agent_key pacer_key = { .size = sizeof(struct pacer_agent) };

uint64_t pacer_cpus_split(uint64_t d, uint64_t *dc, int n)
{
	for (int c = 0; c < n; c++) {
		if (dc[c] > d)
			dc[c] = d;
		d -= dc[c];
	}
	return d;
}

/* The growth of the agent's filtered count, at most d, and its base. */
static uint64_t take_skipped(struct pacer_agent *pa, const struct agent *a, uint64_t d)
{
	uint64_t now = caret_seg_read_skipped(&a->seg), g = 0;
	if (pa->seen && now > pa->skipped)
		g = now - pa->skipped;
	pa->skipped = now;
	return g < d ? g : d;
}

uint64_t pacer_cpus_count(struct pacer_cpus *c, struct agent *a, uint64_t d, uint64_t rb,
			  uint64_t pend, uint64_t *skipped_bytes)
{
	*skipped_bytes = 0;
	if (c->n == 0)
		return d * rb;
	struct pacer_agent *pa = agent_state(a, &pacer_key);
	if (!pa) {
		/* out of memory: its records on every CPU, as an older agent's */
		for (int k = 0; k < c->n; k++)
			c->tick[k] += d * rb;
		return d * rb;
	}
	uint64_t slot[CARET_SHM_CPUS], dc[CARET_SHM_CPUS] = { 0 };
	caret_seg_read_cpus(&a->seg, slot, (unsigned)c->n);
	/* read after the slots: a record counted in neither is on no CPU */
	uint64_t skipped = take_skipped(pa, a, d);
	uint64_t grew = 0;
	for (int k = 0; k < c->n; k++) {
		if (pa->seen && slot[k] > pa->cpu[k]) {
			dc[k] = slot[k] - pa->cpu[k];
			/* the slot that grew most this tick: where its thread
			 * writes now, most likely */
			if (dc[k] > grew) {
				grew = dc[k];
				pa->home = k;
			}
		}
		pa->cpu[k] = slot[k];
	}
	if (!pa->seen) {
		pa->seen = true;
		pa->home = -1;
		d = 0; /* where its counts are now */
		skipped = 0;
	}
	uint64_t any = pacer_cpus_split(d - skipped, dc, c->n);
	for (int k = 0; k < c->n; k++)
		c->tick[k] += (dc[k] + any) * rb;
	if (pa->home >= 0 && pa->home < c->n)
		c->home[pa->home] += pend < c->home_max ? pend : c->home_max;
	*skipped_bytes = skipped * rb;
	return (d - skipped) * rb;
}

uint64_t pacer_cpus_room(const uint64_t *in, const uint64_t *home, int n, uint64_t loose,
			 uint64_t window)
{
	uint64_t room = window;
	for (int c = 0; c < n; c++) {
		uint64_t used = in[c] + home[c];
		uint64_t r = used < window ? window - used : 0;
		if (r < room)
			room = r;
	}
	return loose < room ? room - loose : 0;
}

void pacer_cpus_free(struct pacer_cpus *c)
{
	free(c->now);
	free(c->tick);
	free(c->home);
	free(c->h);
	free(c->hist);
	*c = (struct pacer_cpus){ .n = 0 };
}

void pacer_cpus_alloc(struct pacer_cpus *c, long n)
{
	*c = (struct pacer_cpus){ .n = 0 };
	/* beyond the segment's slots, the agents' counts say no CPU: the
	 * first CARET_SHM_CPUS are paced, with those records on each */
	if (n <= 0)
		return;
	int k = n > (long)CARET_SHM_CPUS ? (int)CARET_SHM_CPUS : (int)n;
	c->now = calloc((size_t)k, sizeof(*c->now));
	c->tick = calloc((size_t)k, sizeof(*c->tick));
	c->home = calloc((size_t)k, sizeof(*c->home));
	c->h = calloc((size_t)k, sizeof(*c->h));
	c->hist = calloc((size_t)k * PACER_HIST, sizeof(*c->hist));
	if (!c->now || !c->tick || !c->home || !c->h || !c->hist) {
		log_warn("pacing: out of memory for per-CPU windows: one window for all CPUs");
		pacer_cpus_free(c);
		return;
	}
	c->n = k;
	for (int i = 0; i < k; i++)
		c->h[i] = -1;
}
