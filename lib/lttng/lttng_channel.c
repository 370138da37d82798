/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One channel of a layout (caret_lttng_layout()) made in a session: the
 * channel, its contexts and its event rules, exactly as described.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/lttng/session.h"
#include "lib/lttng/lttng_channel.h"
#include "lib/lttng/lttng_ctl.h"
#include "lib/lttng/lttng_sel.h"
#include "proto/caret_ctl_plan.h"
#include "util/caret_err.h"

static int enable_event(struct lttng_handle *h, const char *session,
			const struct caret_ctl_plan_channel *c, const struct caret_ctl_plan_event *e,
			char *err, size_t errlen)
{
	struct lttng_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.type = e->syscall ? LTTNG_EVENT_SYSCALL : LTTNG_EVENT_TRACEPOINT;
	ev.loglevel_type = LTTNG_EVENT_LOGLEVEL_ALL;
	ev.loglevel = -1;
	if (strlen(e->name) >= sizeof(ev.name))
		return caret_errf(err, errlen, -EINVAL, "lttng: event name %s too long", e->name);
	snprintf(ev.name, sizeof(ev.name), "%s", e->name);
	int ret = e->filter ? lttng_enable_event_with_filter(h, &ev, c->name, e->filter)
			    : lttng_enable_event(h, &ev, c->name);
	/* the layout lists each name once; an older rule of the same name
	 * (a glob enabled twice) is no error */
	if (ret == -LTTNG_ERR_UST_EVENT_ENABLED)
		return 0;
	if (ret < 0) {
		char step[LTTNG_SYMBOL_NAME_LEN + 48];
		snprintf(step, sizeof(step), "enabling %s%s %s",
			 c->domain == CARET_CTL_PLAN_KERNEL ? "kernel " : "",
			 e->syscall ? "syscall" : "event", e->name);
		return caret_lttng_fail(err, errlen, ret, step, session);
	}
	return 0;
}

static int enable(struct lttng_handle *h, struct lttng_domain *dom, const char *session,
		  const struct caret_ctl_plan_channel *c, char *err, size_t errlen)
{
	/* lttng_channel_create() fills the extended attributes the daemon
	 * expects (monitor timer, blocking timeout); a bare struct lacks them. */
	struct lttng_channel *ch = lttng_channel_create(dom);
	if (!ch)
		return caret_errf(err, errlen, -ENOMEM,
				  "lttng: creating the channel descriptor failed");
	snprintf(ch->name, sizeof(ch->name), "%s", c->name);
	ch->attr.overwrite = c->overwrite ? 1 : 0;
	ch->attr.subbuf_size = c->subbuf_size;
	ch->attr.num_subbuf = c->subbuf_count;
	ch->attr.output = c->mmap ? LTTNG_EVENT_MMAP : LTTNG_EVENT_SPLICE;
	int ret = lttng_enable_channel(h, ch);
	lttng_channel_destroy(ch);
	if (ret < 0) {
		char step[LTTNG_SYMBOL_NAME_LEN + 32];
		snprintf(step, sizeof(step), "enabling channel %s", c->name);
		return caret_lttng_fail(err, errlen, ret, step, session);
	}
	int rc = 0;
	for (int i = 0; rc == 0 && i < c->n_contexts; i++)
		rc = caret_lttng_add_context(h, c->name, c->contexts[i], session, err, errlen);
	for (int i = 0; rc == 0 && i < c->n_events; i++)
		rc = enable_event(h, session, c, &c->events[i], err, errlen);
	return rc;
}

int caret_lttng_make_channel(const char *session, const struct caret_ctl_plan_channel *c,
			     char *err, size_t errlen)
{
	struct lttng_domain dom = {
		.type = c->domain == CARET_CTL_PLAN_KERNEL ? LTTNG_DOMAIN_KERNEL : LTTNG_DOMAIN_UST,
		.buf_type = c->per_uid ? LTTNG_BUFFER_PER_UID : LTTNG_BUFFER_GLOBAL,
	};
	struct lttng_handle *h = lttng_create_handle(session, &dom);
	if (!h)
		return caret_errf(err, errlen, -ENOMEM,
				  "lttng: creating a handle for session %s failed", session);
	int rc = enable(h, &dom, session, c, err, errlen);
	lttng_destroy_handle(h);
	return rc;
}
