/* SPDX-License-Identifier: Apache-2.0 */
/* Paging through caretd's `events`: one request per page, each continuing
 * from the previous page's position token. */
#ifndef CARETCTL_EVENTS_FETCH_H
#define CARETCTL_EVENTS_FETCH_H

#include "caretctl.h"
#include "rpc.h"
#include "proto/caret_ctl_events.h"

/* Returns 0 to go on, non-zero to stop. */
typedef int (*cli_event_fn)(const struct ctl_event *e, void *arg);

struct cli_fetch {
	uint64_t limit;	  /* stop once this many events came (0: all) */
	bool raw;	  /* print each page's result line (--json) */
	struct cli_keep *keep; /* if set, the pages are moved into it, so the
				* events fn saw stay valid */
	char next[128];	  /* out: the position after the last page */
	uint64_t got;	  /* out: events received */
	int64_t late, corrupt; /* out: from the last page */
};

/* Sends q (q->after and q->count are updated as pages go); fn may be NULL.
 * Returns an exit status, failures reported. */
int cli_events_fetch(const struct cli_opts *g, struct caret_ctl_events_req *q,
		     struct cli_fetch *f, cli_event_fn fn, void *arg);

#endif
