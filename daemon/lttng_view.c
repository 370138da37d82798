/* SPDX-License-Identifier: Apache-2.0 */
#include <stdio.h>
#include <string.h>

#include "daemon/log.h"
#include "daemon/loop.h"
#include "daemon/lttng_view.h"

/* A session started with the lttng CLI is noticed within this time. */
#define POLL_USEC (50 * USEC_PER_MS)

void lttng_view_refresh(struct lttng_view *v)
{
	char err[256];
	int n = caret_lttng_active_sessions(v->active, LTTNG_VIEW_MAX_SESSIONS, err, sizeof(err));
	bool was_ok = v->ok;
	int before = v->n_active;
	if (n < 0) {
		/* once per outage, not at every poll */
		if (was_ok || !v->err[0])
			log_warn("lttng-sessiond not reachable: %s; retrying", err);
		snprintf(v->err, sizeof(v->err), "%s", err);
		v->ok = false;
		return;
	}
	if (!was_ok)
		log_info("lttng-sessiond reachable");
	v->ok = true;
	v->err[0] = '\0';
	v->n_active = n;
	if (n != before)
		log_info("%d active LTTng session%s%s%s", n, n == 1 ? "" : "s", n ? ", first: " : "",
			 n ? v->active[0] : "");
}

bool lttng_view_is_active(const struct lttng_view *v, const char *session)
{
	for (int i = 0; i < v->n_active; i++)
		if (strcmp(v->active[i], session) == 0)
			return true;
	return false;
}

static int on_poll(sd_event_source *s, uint64_t usec, void *arg)
{
	(void)usec;
	lttng_view_refresh(arg);
	return loop_timer_again(s, POLL_USEC);
}

int lttng_view_start(struct lttng_view *v, sd_event *e)
{
	/* Due at the same time as the others, it runs first: they read it. */
	int r = loop_timer_add(e, &v->poll, on_poll, v);
	return r < 0 ? r : sd_event_source_set_priority(v->poll, SD_EVENT_PRIORITY_IMPORTANT);
}

void lttng_view_stop(struct lttng_view *v)
{
	v->poll = sd_event_source_disable_unref(v->poll);
}
