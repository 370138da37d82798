/* SPDX-License-Identifier: Apache-2.0 */
/* `top --all-hosts`: other hosts' rows, this host's summary (top_hosts.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/server/top.h"
#include "daemon/server/top_hosts.h"

static const char *or_null(const char *s)
{
	return *s ? s : NULL; /* the wire's "" is "not known" */
}

static void add_row(struct caret_ctl_top_cb *c, const char *host, const struct bridge_top_row *r)
{
	*c = (struct caret_ctl_top_cb){ .host = host, .pid = r->pid, .procname = r->procname,
					.node = or_null(r->node), .symbol = or_null(r->symbol),
					.topic = or_null(r->topic),
					.kind = r->kind < CARET_CTL_TOP_KINDS
							? (enum caret_ctl_top_kind)r->kind
							: CARET_CTL_TOP_UNKNOWN,
					.calls = r->calls, .rate_hz = r->rate_hz, .cpu = r->cpu,
					.mean_ns = r->mean_ns, .p99_ns = r->p99_ns,
					.max_ns = r->max_ns };
}

int top_hosts_add(struct bridge *b, int64_t lease_ms, int64_t now_ns, struct caret_ctl_top *res)
{
	static char me[BRIDGE_HOST_MAX];
	if (b && b->host[0])
		memcpy(me, b->host, sizeof(me));
	else if (gethostname(me, sizeof(me) - 1) < 0 || !me[0])
		strcpy(me, "localhost");
	if (b)
		(void)bridge_top_ask(b, lease_ms, now_ns); /* woken or down: this host only */
	size_t nh = 1, rows = 0;
	for (const struct bridge_top_host *h; b && (h = bridge_top_host(b, (int)nh - 1, now_ns));
	     nh++)
		rows += (size_t)h->n;
	res->hosts = calloc(nh, sizeof(*res->hosts));
	struct caret_ctl_top_cb *cb = realloc(res->cb, (res->n_cb + rows + 1) * sizeof(*cb));
	if (!res->hosts || !cb)
		return -ENOMEM;
	res->cb = cb;
	res->hosts[0] = (struct caret_ctl_top_host){ .host = me, .interval_ms = res->interval_ms,
						     .processes = res->processes,
						     .lost = res->lost,
						     .truncated = res->truncated };
	for (size_t i = 0; i < res->n_cb; i++)
		res->cb[i].host = me;
	for (size_t k = 1; k < nh; k++) {
		const struct bridge_top_host *h = bridge_top_host(b, (int)k - 1, now_ns);
		res->hosts[k] = (struct caret_ctl_top_host){ .host = h->host,
							     .interval_ms = h->interval_ms,
							     .processes = h->processes,
							     .lost = h->lost, .truncated = h->cut };
		for (int i = 0; i < h->n; i++)
			add_row(&res->cb[res->n_cb++], h->host, &h->rows[i]);
	}
	res->n_hosts = nh;
	return 0;
}

static bool any_owner(uid_t uid, const void *arg)
{
	(void)uid;
	(void)arg;
	return true;
}

static int peer_rows(void *arg, int64_t now_ns, int64_t lease_ms, struct caret_ctl_top *out)
{
	char err[256];
	if (lease_ms < CARET_CTL_TOP_LEASE_MS_MIN)
		lease_ms = CARET_CTL_TOP_LEASE_MS_MIN;
	if (lease_ms > CARET_CTL_TOP_LEASE_MS_MAX)
		lease_ms = CARET_CTL_TOP_LEASE_MS_MAX;
	return top_collect(arg, any_owner, NULL, lease_ms, now_ns, out, err, sizeof(err));
}

const struct bridge_top_source top_hosts_source = { .rows = peer_rows,
						     .free_rows = top_result_free };
