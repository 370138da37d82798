/* SPDX-License-Identifier: Apache-2.0 */
/* Drives the registry from the event loop: inotify on /dev/shm, retries of
 * segments still being set up, and the sweep of dead processes (the last
 * two: jobs of the tick's observe stage, daemon/base/loop.h). */
#ifndef CARETD_REGISTRY_LOOP_H
#define CARETD_REGISTRY_LOOP_H

#include <systemd/sd-event.h>

#include "daemon/base/loop.h"
#include "daemon/agents/registry.h"

struct registry_loop {
	struct registry *reg;
	sd_event_source *inotify;
	struct loop_job retry, sweep; /* observe stage */
	/* called when agents hint that a session may have started or
	 * stopped (registry.lttng_hints moved) */
	void (*on_hint)(void *arg);
	void *hint_arg;
	uint64_t hints_seen;
};

int registry_loop_start(struct registry_loop *l, struct registry *r, struct loop *loop);
void registry_loop_stop(struct registry_loop *l);

#endif
