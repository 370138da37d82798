/* SPDX-License-Identifier: Apache-2.0 */
/* Drives the registry from the event loop: inotify on /dev/shm, retries of
 * segments still being set up, and the sweep of dead processes (the last
 * two: jobs of the tick's observe stage, daemon/base/loop.h). */
#ifndef CARETD_REGISTRY_LOOP_H
#define CARETD_REGISTRY_LOOP_H

#include <systemd/sd-event.h>

#include "daemon/base/loop.h"
#include "daemon/agents/registry.h"

/* Its collaborators, handed to registry_loop_start. */
struct registry_loop_ops {
	struct registry *reg;
	/* called when agents hint that a session may have started or
	 * stopped (registry.lttng_hints moved) */
	void (*on_hint)(void *arg);
	void *hint_arg;
};

struct registry_loop {
	struct registry_loop_ops ops;
	sd_event_source *inotify;
	struct loop_job retry, sweep; /* observe stage */
	uint64_t hints_seen;
};

int registry_loop_start(struct registry_loop *l, struct loop *loop,
			const struct registry_loop_ops *ops);
void registry_loop_stop(struct registry_loop *l);

#endif
