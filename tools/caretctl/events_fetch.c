/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "events_fetch.h"
#include "proto/caret_ctl.h"
#include "rpc.h"

int cli_events_fetch(const struct cli_opts *g, struct caret_ctl_events_req *q,
		     struct cli_fetch *f, cli_event_fn fn, void *arg)
{
	f->got = 0;
	f->next[0] = '\0';
	for (;;) {
		uint64_t left = f->limit ? f->limit - f->got : CARET_CTL_EVENTS_MAX_COUNT;
		q->count = left < CARET_CTL_EVENTS_MAX_COUNT ? (int64_t)left
							     : CARET_CTL_EVENTS_MAX_COUNT;
		struct caret_ctl_req req = { .v = CARET_CTL_VERSION, .cmd = CARET_CTL_EVENTS,
					     .u.events = *q };
		struct cli_reply r;
		int code = cli_call(g, &req, CLI_QUICK_MS, false, &r);
		if (code != CLI_EXIT_OK)
			return code;
		struct ctl_events_page p;
		struct ctl_why why;
		size_t n = 0;
		int stop = 0;
		int e = ctl_decode_events(r.root, &p, &why);
		if (e == 0) {
			stop = ctl_events_each(&p, fn, arg, &n, &why);
			e = stop < 0 ? stop : 0;
		}
		if (e < 0) {
			code = cli_report_exchange(CARET_CTL_CMD_EVENTS, e, &why, 0);
			cli_reply_free(&r);
			return code;
		}
		/* the page as caretd sent it, in the envelope (its "cmd") */
		if (f->raw)
			cli_print_json(r.root, CARET_CTL_CMD_EVENTS);
		stop |= cli_out_cut();
		f->got += n;
		f->late = p.late;
		f->corrupt = p.corrupt;
		snprintf(f->next, sizeof(f->next), "%s", p.next);
		bool more = p.more;
		/* the events fn kept point into the page */
		if (f->keep && cli_keep_add(f->keep, &r) < 0) {
			cli_reply_free(&r);
			return cli_fail(CLI_EXIT_FAILED, "out of memory");
		}
		cli_reply_free(&r);
		if (stop || !more || (f->limit && f->got >= f->limit))
			return CLI_EXIT_OK;
		q->after = f->next;
		q->has_since = false; /* the token says where we are */
	}
}
