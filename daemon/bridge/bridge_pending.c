/* SPDX-License-Identifier: Apache-2.0 */
/* Broadcasts held while a lazy bridge wakes: see bridge_pending.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/bridge/bridge_pending.h"
#include "daemon/base/log.h"

static void release(struct bridge_pending *p)
{
	free(p->session);
	free(p->url);
	for (int i = 0; i < CARET_FILTER_LISTS; i++)
		free(p->filter[i]);
	memset(p, 0, sizeof(*p));
}

static int count(const struct bridge *b)
{
	int n = 0;
	while (n < BRIDGE_PENDING && b->pending[n].kind != BRIDGE_P_NONE)
		n++;
	return n;
}

static char *dup_or_null(const char *s, bool *oom)
{
	char *d = s ? strdup(s) : NULL;
	*oom |= s && !d;
	return d;
}

int bridge_pending_add(struct bridge *b, enum bridge_pending_kind kind, uint32_t frequency,
		       const struct caret_filter_lists *filter, const char *session,
		       const char *url, bool stop, int64_t now)
{
	int n = count(b);
	if (n == BRIDGE_PENDING)
		return -EBUSY;
	struct bridge_pending *p = &b->pending[n];
	bool oom = false;
	*p = (struct bridge_pending){ .kind = kind, .at_ns = now, .frequency = frequency,
				      .stop = stop };
	p->session = dup_or_null(session, &oom);
	p->url = dup_or_null(url, &oom);
	for (int i = 0; filter && i < CARET_FILTER_LISTS; i++)
		p->filter[i] = dup_or_null(filter->list[i], &oom);
	if (oom) {
		release(p);
		return -ENOMEM;
	}
	return 0;
}

void bridge_pending_pop(struct bridge *b)
{
	if (b->pending[0].kind == BRIDGE_P_NONE)
		return;
	release(&b->pending[0]);
	memmove(&b->pending[0], &b->pending[1], sizeof(b->pending[0]) * (BRIDGE_PENDING - 1));
	memset(&b->pending[BRIDGE_PENDING - 1], 0, sizeof(b->pending[0]));
}

const char *bridge_pending_name(enum bridge_pending_kind kind)
{
	static const char *const names[] = { "?", "Start", "End", "RelayRecord" };
	return (unsigned)kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "?";
}

struct bridge_pending *bridge_pending_first(struct bridge *b, int64_t now)
{
	while (b->pending[0].kind != BRIDGE_P_NONE &&
	       now - b->pending[0].at_ns > BRIDGE_PENDING_TTL_NS) {
		log_warn("bridge: %s not broadcast: DDS did not come up within %lld s (%s)",
			 bridge_pending_name(b->pending[0].kind), BRIDGE_PENDING_TTL_NS / 1000000000,
			 b->state);
		bridge_pending_pop(b);
	}
	return b->pending[0].kind != BRIDGE_P_NONE ? &b->pending[0] : NULL;
}

void bridge_pending_clear(struct bridge *b)
{
	while (b->pending[0].kind != BRIDGE_P_NONE)
		bridge_pending_pop(b);
}

void bridge_pending_filter(const struct bridge_pending *p, struct caret_filter_lists *out)
{
	for (int i = 0; i < CARET_FILTER_LISTS; i++)
		out->list[i] = p->filter[i];
}
