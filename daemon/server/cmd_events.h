/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The `events` request: pages of the host's caches, read with the merged
 * reader of shm/reader.h. One reader lives as long as caretd and is
 * refreshed at every request, so a page costs the new records only.
 */
#ifndef CARETD_CMD_EVENTS_H
#define CARETD_CMD_EVENTS_H

#include <stddef.h>

#include "proto/caret_ctl_events.h"

struct events;

/* NULL when out of memory; the reader opens at the first request. */
struct events *events_new(void);
void events_free(struct events *ev);

/* One page for a request: 0 and its result (a page is encoded as it is
 * read, to stop at the line's size; the reply layer takes it out), or a
 * negative errno with why in err. */
int events_request(struct events *ev, const struct caret_ctl_events_req *q,
		   struct caret_ctl_events_page **result, char *err, size_t errlen);

#endif
