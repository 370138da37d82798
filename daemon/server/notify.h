/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caretd's only talk with its service manager (sd_notify): READY once the
 * session daemon first answers, a STATUS line when the summary changes,
 * STOPPING at the end. The watchdog is sd-event's (sd_event_set_watchdog).
 */
#ifndef CARETD_NOTIFY_H
#define CARETD_NOTIFY_H

#include <stdbool.h>

#include "daemon/base/loop.h"
#include "daemon/lttng/lttng_view.h"
#include "daemon/agents/registry.h"

/* Its collaborators, handed to notify_start. */
struct notify_ops {
	const struct registry *reg;
	const struct lttng_view *lttng;
};

struct notify {
	const struct registry *reg;
	const struct lttng_view *lttng;
	bool ready;
	char last[640];
	struct loop_job job; /* report stage */
};

int notify_start(struct notify *n, struct loop *loop, const struct notify_ops *ops);
void notify_stopping(struct notify *n);

#endif
