/* SPDX-License-Identifier: Apache-2.0 */
/* Uncounted discarded-events records, per stream (check_discards.h). */
#include <errno.h>
#include <stdlib.h>

#include "check_discards.h"
#include "util/caret_util.h"

static struct check_dstream *stream(struct check_discards *d, uint64_t key)
{
	bool added;
	uint64_t *slot = check_map_slot(&d->idx, key, &added);
	if (!slot)
		return NULL;
	if (added) {
		if (caret_grow((void **)&d->s, &d->cap, d->n + 1, sizeof(*d->s)) < 0)
			return NULL;
		*slot = d->n;
		d->s[d->n] = (struct check_dstream){ 0 };
		return &d->s[d->n++];
	}
	return &d->s[*slot];
}

int check_discards_uncounted(struct check_discards *d, uint64_t key)
{
	struct check_dstream *s = stream(d, key);
	if (!s)
		return -ENOMEM;
	if (s->ended)
		d->unknown++; /* between packets of this trace: its own */
	else
		s->pending++; /* judged when the first packet ends */
	return 0;
}

int check_discards_begin(struct check_discards *d, uint64_t key, bool have, uint64_t ts)
{
	struct check_dstream *s = stream(d, key);
	if (!s)
		return -ENOMEM;
	if (!s->begun) {
		s->begun = true;
		s->have_begin = have;
		s->begin = ts;
	}
	return 0;
}

int check_discards_end(struct check_discards *d, uint64_t key, bool have, uint64_t ts)
{
	struct check_dstream *s = stream(d, key);
	if (!s)
		return -ENOMEM;
	if (s->ended || !s->begun)
		return 0;
	s->ended = true;
	/* LTTng's opening packet of a rotated chunk: begins where it ends */
	if (s->have_begin && have && ts == s->begin)
		d->opening += s->pending;
	else
		d->unknown += s->pending;
	s->pending = 0;
	return 0;
}

uint64_t check_discards_unknown(const struct check_discards *d)
{
	uint64_t n = d->unknown;
	for (size_t i = 0; i < d->n; i++)
		n += d->s[i].pending;
	return n;
}

void check_discards_free(struct check_discards *d)
{
	check_map_free(&d->idx);
	free(d->s);
	d->s = NULL;
	d->n = d->cap = 0;
}
