/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The `events` request: pages of the host's caches, read with the merged
 * reader of shm/reader.h. One reader lives as long as caretd and is
 * refreshed at every request, so a page costs the new records only.
 */
#ifndef CARETD_EVENTS_H
#define CARETD_EVENTS_H

#include <cjson/cJSON.h>

struct events;

/* NULL when out of memory; the reader opens at the first request. */
struct events *events_new(void);
void events_free(struct events *ev);

/* The reply (result or error) for one request; NULL when out of memory. */
cJSON *events_request(struct events *ev, const cJSON *req);

#endif
