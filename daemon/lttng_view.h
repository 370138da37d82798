/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What caretd knows of LTTng: whether the session daemon answers, which
 * sessions are tracing, and the session `record` created. Polled on its
 * own timer; commands refresh it right after they change sessions.
 */
#ifndef CARETD_LTTNG_VIEW_H
#define CARETD_LTTNG_VIEW_H

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "daemon/lttng.h"

#define LTTNG_VIEW_MAX_SESSIONS 32

/* One active session as caretd sees it. */
struct lttng_view_session {
	unsigned rules;   /* enum caret_lttng_rule */
	uint32_t serial;  /* 1, 2, ...: order in which caretd saw sessions
			   * become active (a restarted session gets a new one) */
	int64_t since_ns; /* CLOCK_MONOTONIC when caretd first saw it active */
	int64_t rules_ns; /* when its rules were last read */
	uint64_t dups;    /* replayed records it got again (extra passes) */
};

struct lttng_view {
	bool ok;       /* the session daemon answered the last poll */
	char err[256]; /* why not, when !ok */
	/* active sessions: none while the session daemon is unreachable */
	int n_active;
	char active[LTTNG_VIEW_MAX_SESSIONS][CARET_LTTNG_NAME_MAX];
	struct lttng_view_session sess[LTTNG_VIEW_MAX_SESSIONS];
	uint32_t last_serial;
	bool polled;   /* the session daemon answered once */
	char managed[CARET_LTTNG_NAME_MAX]; /* "" : none */
	char managed_path[4096];
	sd_event_source *poll;
};

int lttng_view_start(struct lttng_view *v, sd_event *e);
void lttng_view_stop(struct lttng_view *v);
void lttng_view_refresh(struct lttng_view *v);
bool lttng_view_is_active(const struct lttng_view *v, const char *session);
/* The entry of an active session, or NULL. */
struct lttng_view_session *lttng_view_find(struct lttng_view *v, const char *session);
/* Whether an active session enables ros2_caret events. */
bool lttng_view_caret_active(const struct lttng_view *v);

#endif
