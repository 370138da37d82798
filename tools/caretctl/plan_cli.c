/* SPDX-License-Identifier: Apache-2.0 */
#include "plan_cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "conn.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_dec.h"
#include "proto/caret_ctl_req.h"

/* A caretd older than "plan" reads the request as a record: the session
 * it made (armed, unless the options start at once) is stopped again. */
static void undo_older(const struct cli_opts *g, const struct cli_reply *r)
{
	struct ctl_record_result rec;
	struct ctl_why why;
	if (ctl_decode_record(r->root, &rec, &why) < 0)
		return;
	fprintf(stderr, "caretctl: this caretd does not know record -l (it is older than "
			"caretctl) and started recording %s: stopping it\n", rec.session);
	struct caret_ctl_req q = { .v = CARET_CTL_VERSION, .cmd = CARET_CTL_STOP,
				   .u.stop.session = rec.session };
	struct cli_reply sr;
	if (cli_call(g, &q, CLI_RECORD_MS, false, &sr) == CLI_EXIT_OK)
		cli_reply_free(&sr);
}

int cli_plan_ask(const struct cli_opts *g, const struct caret_ctl_req *q, struct cli_reply *r,
		 struct caret_ctl_plan *p, char *unreachable, size_t len)
{
	/* connected here, not by cli_call: a caretd that is not there is no
	 * failure of -l, which then says what it cannot know */
	struct cli_conn c;
	struct ctl_why why = { "" };
	int64_t deadline = cli_now_ms() + CLI_RECORD_MS;
	memset(r, 0, sizeof(*r));
	int e = cli_conn_open(&c, g->socket, deadline);
	if (e < 0) {
		snprintf(unreachable, len, "caretd is not reachable at %s (%s)", g->socket,
			 strerror(-e));
		return CLI_EXIT_UNREACHABLE;
	}
	e = cli_exchange(&c, q, deadline, false, NULL, NULL, r, &why);
	cli_conn_close(&c);
	if (e < 0)
		return cli_report_exchange(CARET_CTL_CMD_RECORD, e, &why, CLI_RECORD_MS);
	if (r->type == CTL_REPLY_ERROR) {
		int code = cli_report_error_reply(CARET_CTL_CMD_RECORD, r);
		cli_reply_free(r);
		return code;
	}
	e = caret_ctl_dec_plan(r->root, p, &why);
	if (e < 0) {
		undo_older(g, r);
		cli_reply_free(r);
		return cli_report_exchange(CARET_CTL_CMD_RECORD, e, &why, 0);
	}
	return CLI_EXIT_OK;
}

static void names(const char *title, const char *const *v, int n)
{
	if (n > 0)
		printf("  %s:\n", title);
	for (int i = 0; i < n; i++)
		printf("    %s\n", v[i]);
}

static void channel(const struct caret_ctl_plan_channel *c)
{
	printf("%s channel %s: %s buffers, %s mode, %" PRIu64 " sub-buffers of %" PRIu64
	       " bytes per CPU, %s output%s\n",
	       c->domain == CARET_CTL_PLAN_KERNEL ? "kernel" : "UST", c->name,
	       c->per_uid ? "per-UID" : "global", c->overwrite ? "overwrite" : "discard",
	       c->subbuf_count, c->subbuf_size, c->mmap ? "mmap" : "splice",
	       c->enabled ? "" : ", disabled until Enter (armed)");
	if (c->n_events > 0)
		printf("  events:\n");
	for (int i = 0; i < c->n_events; i++) {
		const struct caret_ctl_plan_event *e = &c->events[i];
		printf("    %s%s%s%s\n", e->name, e->syscall ? "  (system call)" : "",
		       e->filter ? "  filter: " : "", e->filter ? e->filter : "");
	}
	names("context fields", c->contexts, c->n_contexts);
}

static void settings(const struct caret_ctl_plan *p)
{
	if (p->own_uid)
		printf("user space: only the requester's processes (LTTng's uid tracker)\n");
	if (p->rotate_size || p->rotate_every_ms) {
		printf("rotation:");
		if (p->rotate_size)
			printf(" when a chunk reaches %" PRIu64 " bytes", p->rotate_size);
		if (p->rotate_every_ms)
			printf("%s every %" PRIu64 " ms", p->rotate_size ? "," : "",
			       p->rotate_every_ms);
		if (p->keep)
			printf("; keeps the last %" PRIu64 " chunks", p->keep);
		if (p->max_size)
			printf("; keeps at most %" PRIu64 " bytes of chunks", p->max_size);
		printf("\n");
	}
	if (p->snapshot_mode)
		printf("flight recorder: a ring of %" PRIu64 " bytes per CPU, written only by "
		       "snapshots%s%s%s%s\n",
		       p->snapshot_size, p->snapshot_on ? "; a snapshot on each " : "",
		       p->snapshot_on ? p->snapshot_on : "",
		       p->snapshot_filter ? " with filter " : "",
		       p->snapshot_filter ? p->snapshot_filter : "");
	for (int i = 0; i < CARET_FILTER_LISTS; i++)
		if (p->filter[i])
			printf("replay filter %s: %s\n", caret_ctl_filter_keys[i], p->filter[i]);
}

void cli_plan_text(const struct caret_ctl_plan *p)
{
	printf("caretd's plan (nothing is created):\n");
	printf("session %s%s%s\n", p->session ? p->session : "(named by caretd when it records)",
	       p->snapshot_mode ? ", snapshot mode" : "", p->armed ? ", armed until Enter" : "");
	for (int i = 0; i < p->n_channels; i++)
		channel(&p->ch[i]);
	settings(p);
	if (p->url)
		printf("output: %s\n", p->url);
	if (p->frequency && p->pacing && strcmp(p->pacing, CARET_CTL_PACING_FREQUENCY) == 0)
		printf("replay pacing: %s, %" PRIu64 " records/s per process\n", p->pacing,
		       p->frequency);
	else if (p->pacing)
		printf("replay pacing: %s (as fast as the channel's buffers drain)\n", p->pacing);
}
