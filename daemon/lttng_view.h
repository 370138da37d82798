/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What caretd knows of LTTng: whether the session daemon answers, which
 * sessions are tracing, and the session `record` created. Polled on its
 * own timer; commands refresh it right after they change sessions.
 */
#ifndef CARETD_LTTNG_VIEW_H
#define CARETD_LTTNG_VIEW_H

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "daemon/lttng.h"

#define LTTNG_VIEW_MAX_SESSIONS 32

struct lttng_view {
	bool ok;       /* the session daemon answered the last poll */
	char err[256]; /* why not, when !ok */
	int n_active;
	char active[LTTNG_VIEW_MAX_SESSIONS][CARET_LTTNG_NAME_MAX];
	char managed[CARET_LTTNG_NAME_MAX]; /* "" : none */
	char managed_path[4096];
	sd_event_source *poll;
};

int lttng_view_start(struct lttng_view *v, sd_event *e);
void lttng_view_stop(struct lttng_view *v);
void lttng_view_refresh(struct lttng_view *v);
bool lttng_view_is_active(const struct lttng_view *v, const char *session);

#endif
