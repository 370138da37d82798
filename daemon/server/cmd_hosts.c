/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/server/cmd_hosts.h"

struct cmd_host_names {
	char name[64], nodes[512];
};

static const char *state8(int8_t s)
{
	return s >= 0 ? caret_state_name((uint32_t)s) : "INVALID";
}

static void fill_self(const struct cmd_ctx *ctx, struct caret_ctl_host *h,
		      struct caret_ctl_host_proc *procs, struct cmd_host_names *buf)
{
	h->procs = procs;
	for (struct agent *a = ctx->reg->head; a; a = a->next, buf++) {
		struct caret_ctl_host_proc *p = &procs[h->n_procs++];
		/* the name alone: the pid has its own field (and column) */
		snprintf(buf->name, sizeof(buf->name), "%s", a->procname);
		buf->nodes[0] = '\0';
		int n = agent_node_names(a);
		const char *q = a->nodes;
		for (int i = 0; i < n; i++, q += strlen(q) + 1)
			snprintf(buf->nodes + strlen(buf->nodes),
				 sizeof(buf->nodes) - strlen(buf->nodes), "%s%.128s",
				 i ? "," : "", q);
		*p = (struct caret_ctl_host_proc){ buf->name,
						   caret_state_name(caret_seg_state(&a->seg)),
						   buf->nodes, a->pid };
	}
}

/* room: b->n_procs entries, each process listed under its host once
 * (hosts are unique by name; the check keeps it so if they were not) */
static void fill_others(const struct bridge *b, int64_t now, struct caret_ctl_hosts *res,
			struct caret_ctl_host_proc *procs)
{
	size_t room = (size_t)b->n_procs;
	for (int i = 0; i < b->n_hosts; i++) {
		const struct bridge_host *bh = &b->hosts[i];
		struct caret_ctl_host *h = &res->hosts[res->n_hosts++];
		*h = (struct caret_ctl_host){
			.host = bh->host,
			.age_ms = (now - bh->seen_ns) / 1000000,
			.version = bh->version,
			.ignored = bh->version && bh->version != bridge_version(),
			.procs = procs,
		};
		for (int j = 0; j < b->n_procs; j++) {
			const struct bridge_proc *p = &b->procs[j];
			if (!strcmp(p->host, bh->host) && h->n_procs < room)
				procs[h->n_procs++] = (struct caret_ctl_host_proc){
					p->name, state8(p->status), p->nodes, p->pid
				};
		}
		procs += h->n_procs;
		room -= h->n_procs;
	}
}

int cmd_hosts(const struct cmd_ctx *ctx, int64_t now, struct cmd_hosts_res *res,
	      struct cmd_err *e)
{
	struct bridge *b = ctx->bridge;
	memset(res, 0, sizeof(*res));
	/* the user asks about the other hosts: a bridge asleep joins them */
	bridge_wake_now(b, "caretctl status --all-hosts");
	gethostname(res->me, sizeof(res->me) - 1);
	size_t n_self = 0;
	for (struct agent *a = ctx->reg->head; a; a = a->next)
		n_self++;
	res->hosts = calloc((size_t)b->n_hosts + 1, sizeof(*res->hosts));
	res->procs = calloc(n_self + (size_t)b->n_procs + 1, sizeof(*res->procs));
	res->names = calloc(n_self + 1, sizeof(*res->names));
	if (!res->hosts || !res->procs || !res->names) {
		cmd_hosts_free(res);
		return cmd_fail(e, ENOMEM, "out of memory");
	}
	res->h = (struct caret_ctl_hosts){
		.host = res->me, .bridge = b->state, .waking = bridge_waking(b),
		.counts = { b->counts.start, b->counts.end, b->counts.status, b->counts.relay,
			    b->counts.rejected, b->counts.sent, b->counts.foreign },
		.hosts = res->hosts, .n_hosts = 1,
	};
	res->hosts[0] = (struct caret_ctl_host){ .host = res->me, .self = true,
						 .version = bridge_version() };
	fill_self(ctx, &res->hosts[0], res->procs, res->names);
	fill_others(b, now, &res->h, res->procs + n_self);
	return 0;
}

void cmd_hosts_free(struct cmd_hosts_res *res)
{
	free(res->hosts);
	free(res->procs);
	free(res->names);
	res->hosts = NULL;
	res->procs = NULL;
	res->names = NULL;
}
