/* SPDX-License-Identifier: Apache-2.0 */
#include "daemon/agents/pacer_hist.h"

void pacer_hist_reset(struct pacer_hist *h)
{
	h->head = h->n = 0;
}

/* The agents count what they replayed after they emitted it, so a sample
 * is at most what was in the buffers then. */
uint64_t pacer_hist_before(const struct pacer_hist *h, int64_t t)
{
	uint64_t e = 0;
	for (unsigned i = 0; i < h->n; i++) {
		unsigned k = (h->head + i) % PACER_HIST;
		if (h->s[k].t > t)
			break;
		e = h->s[k].e;
	}
	return e;
}

/* Between two ticks the agents emit what the first granted: mostly right
 * after it (their replay threads wake on the grant), so the straight line
 * between the samples stays at or below what was really emitted by t,
 * which counts no record as drained before it was. */
uint64_t pacer_hist_at(const struct pacer_hist *h, const struct pacer_cpus *cpu, int c, int64_t t)
{
	int64_t pt = 0;
	uint64_t pe = 0;
	for (unsigned i = 0; i < h->n; i++) {
		unsigned k = (h->head + i) % PACER_HIST;
		uint64_t e = c < 0 ? h->s[k].e : cpu->hist[c * PACER_HIST + k];
		if (h->s[k].t > t) {
			if (i == 0 || h->s[k].t <= pt)
				return pe;
			double frac = (double)(t - pt) / (double)(h->s[k].t - pt);
			return pe + (uint64_t)((double)(e - pe) * frac);
		}
		pt = h->s[k].t;
		pe = e;
	}
	return pe;
}

void pacer_hist_sample(struct pacer_hist *h, const struct pacer_cpus *cpu, uint64_t emitted,
		       int64_t now)
{
	/* a sample where emitted stays the same is kept only as the start of
	 * a rise (the line must start where the emission did) */
	if (h->n >= 2 && h->s[(h->head + h->n - 1) % PACER_HIST].e == emitted &&
	    h->s[(h->head + h->n - 2) % PACER_HIST].e == emitted) {
		h->s[(h->head + h->n - 1) % PACER_HIST].t = now;
		return;
	}
	if (h->n == PACER_HIST) {
		/* forget the oldest: it only matters for a packet that old,
		 * and such a packet then counts as draining nothing more */
		h->head = (h->head + 1) % PACER_HIST;
		h->n--;
	}
	unsigned k = (h->head + h->n) % PACER_HIST;
	h->s[k].t = now;
	h->s[k].e = emitted;
	for (int c = 0; c < cpu->n; c++)
		cpu->hist[c * PACER_HIST + k] = cpu->now[c];
	h->n++;
}
