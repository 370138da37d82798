/* SPDX-License-Identifier: Apache-2.0 */
/* Drives the registry from the event loop: inotify on /dev/shm, retries of
 * segments still being set up, and the sweep of dead processes. */
#ifndef CARETD_REGISTRY_LOOP_H
#define CARETD_REGISTRY_LOOP_H

#include <systemd/sd-event.h>

#include "daemon/registry.h"

struct registry_loop {
	struct registry *reg;
	sd_event_source *inotify, *retry, *sweep;
	/* called when agents hint that a session may have started or
	 * stopped (registry.lttng_hints moved) */
	void (*on_hint)(void *arg);
	void *hint_arg;
	uint64_t hints_seen;
};

int registry_loop_start(struct registry_loop *l, struct registry *r, sd_event *e);
void registry_loop_stop(struct registry_loop *l);

#endif
