/* SPDX-License-Identifier: Apache-2.0 */
/* `top --all-hosts` over the bridge (bridge_top.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/bridge/bridge_ddsc.h"
#include "daemon/bridge/bridge_msg.h"
#include "daemon/bridge/bridge_top.h"
#include "proto/caret_ctl_top.h"

/* Through the loader's table, as bridge_send.c's (why there). */
static int top_write(dds_entity_t w, const void *m)
{
	dds_return_t (*write)(dds_entity_t, const void *) = D.dds_write;
	return write(w, m) == DDS_RETCODE_OK ? 0 : -EIO;
}

void bridge_top_serve(struct bridge *b, const struct bridge_top_source *src)
{
	b->top_src = *src;
}

void bridge_top_ask_in(struct bridge *b, const caretd_msgs_msg_dds__TopAsk_ *m, const char *from,
		       int64_t now)
{
	const char *bad = bridge_msg_top_ask(m);
	if (bad)
		return bridge_reject(b, "TopAsk", bad);
	if (!b->top_src.rows)
		return; /* this caretd serves no top (tests) */
	/* every host's requester asks each second: heeding one ask in each
	 * gap bounds what a flood of asks costs (one summary a second) */
	if (b->top_heard_ns && now - b->top_heard_ns < BRIDGE_TOP_ASK_GAP_NS)
		return;
	b->top_heard_ns = now;
	if (now >= b->top_lease_until)
		bridge_rlog_info(b, "bridge: top summaries asked by host %s", from);
	int64_t until = now + (int64_t)m->lease_ms * 1000000;
	if (until > b->top_lease_until)
		b->top_lease_until = until;
}

static struct bridge_top_host *slot_of(struct bridge *b, const char *from, int64_t now)
{
	int free_i = -1;
	for (int i = 0; i < BRIDGE_MAX_HOSTS; i++) {
		struct bridge_top_host *h = b->top[i];
		if (h && !strcmp(h->host, from))
			return h;
		if (free_i < 0 && (!h || now - h->seen_ns >= BRIDGE_TOP_FRESH_NS))
			free_i = i;
	}
	if (free_i < 0)
		return NULL;
	if (!b->top[free_i] && !(b->top[free_i] = malloc(sizeof(struct bridge_top_host))))
		return NULL;
	memset(b->top[free_i], 0, sizeof(struct bridge_top_host));
	snprintf(b->top[free_i]->host, sizeof(b->top[free_i]->host), "%s", from);
	return b->top[free_i];
}

static void copy_row(struct bridge_top_row *d, const caretd_msgs_msg_dds__TopRow_ *r)
{
	*d = (struct bridge_top_row){ .pid = r->pid, .kind = r->kind, .calls = r->calls,
				      .mean_ns = r->mean_ns, .p99_ns = r->p99_ns,
				      .max_ns = r->max_ns, .rate_hz = r->rate_hz, .cpu = r->cpu };
	snprintf(d->procname, sizeof(d->procname), "%s", r->procname);
	snprintf(d->node, sizeof(d->node), "%s", r->node);
	snprintf(d->symbol, sizeof(d->symbol), "%s", r->symbol);
	snprintf(d->topic, sizeof(d->topic), "%s", r->topic);
}

void bridge_top_summary_in(struct bridge *b, const caretd_msgs_msg_dds__TopSummary_ *m,
			   const char *from, int64_t now)
{
	const char *bad = bridge_msg_top_summary(m);
	if (bad)
		return bridge_reject(b, "TopSummary", bad);
	if (!strcmp(from, b->host) || !b->top_asked_ns ||
	    now - b->top_asked_ns >= BRIDGE_TOP_FRESH_NS)
		return; /* this host is not asking: another host's requester is */
	struct bridge_top_host *h = slot_of(b, from, now);
	if (!h)
		return bridge_reject(b, "TopSummary", "too many hosts");
	h->seen_ns = now;
	h->interval_ms = m->interval_ms;
	h->processes = m->processes;
	h->lost = m->lost;
	h->cut = m->cut;
	h->n = (int)m->rows._length;
	for (int i = 0; i < h->n; i++)
		copy_row(&h->rows[i], &m->rows._buffer[i]);
}

static void to_wire(caretd_msgs_msg_dds__TopRow_ *w, const struct caret_ctl_top_cb *c)
{
	*w = (caretd_msgs_msg_dds__TopRow_){
		.pid = c->pid, .kind = (uint8_t)c->kind, .calls = c->calls,
		.rate_hz = c->rate_hz, .cpu = c->cpu, .mean_ns = c->mean_ns,
		.p99_ns = c->p99_ns, .max_ns = c->max_ns,
		/* the wire has no null: "" is "not known" */
		.procname = (char *)(c->procname ? c->procname : ""),
		.node = (char *)(c->node ? c->node : ""),
		.symbol = (char *)(c->symbol ? c->symbol : ""),
		.topic = (char *)(c->topic ? c->topic : ""),
	};
}

/* A name longer than a peer accepts is cut (at a byte: a peer's check
 * wants printable, not whole UTF-8), into buf. */
static char *bounded(char *s, char buf[BRIDGE_TOP_STR])
{
	if (strlen(s) < BRIDGE_TOP_STR)
		return s;
	memcpy(buf, s, BRIDGE_TOP_STR - 1);
	buf[BRIDGE_TOP_STR - 1] = '\0';
	return buf;
}

void bridge_top_publish(struct bridge *b, int64_t now)
{
	if (!b->up || !b->top_src.rows || now >= b->top_lease_until ||
	    now - b->top_sent_ns < 1000LL * 1000000 - BRIDGE_TOP_ASK_GAP_NS / 5)
		return;
	b->top_sent_ns = now;
	struct caret_ctl_top t;
	int64_t lease_ms = (b->top_lease_until - now) / 1000000 + 1;
	if (b->top_src.rows(b->top_src.arg, now, lease_ms, &t) < 0)
		return;
	static caretd_msgs_msg_dds__TopRow_ rows[BRIDGE_TOP_ROWS];
	static char cut[BRIDGE_TOP_ROWS][4][BRIDGE_TOP_STR];
	size_t n = t.n_cb < BRIDGE_TOP_ROWS ? t.n_cb : BRIDGE_TOP_ROWS; /* the busiest first */
	for (size_t i = 0; i < n; i++) {
		to_wire(&rows[i], &t.cb[i]);
		rows[i].procname = bounded(rows[i].procname, cut[i][0]);
		rows[i].node = bounded(rows[i].node, cut[i][1]);
		rows[i].symbol = bounded(rows[i].symbol, cut[i][2]);
		rows[i].topic = bounded(rows[i].topic, cut[i][3]);
	}
	caretd_msgs_msg_dds__TopSummary_ m = {
		.interval_ms = (uint32_t)(t.interval_ms < CARET_CTL_TOP_LEASE_MS_MAX
						  ? t.interval_ms : CARET_CTL_TOP_LEASE_MS_MAX),
		.processes = t.processes, .lost = t.lost,
		.cut = t.truncated + (t.n_cb - n),
		.rows = { ._length = (uint32_t)n, ._maximum = (uint32_t)n, ._buffer = rows,
			  ._release = false },
	};
	if (top_write(b->dds->w_top_summary, &m) == 0)
		b->counts.sent++;
	b->top_src.free_rows(&t);
}

int bridge_top_ask(struct bridge *b, int64_t lease_ms, int64_t now)
{
	if (!b->cfg.enabled)
		return -ENOTCONN;
	b->top_asked_ns = now;
	if (b->lazy && !bridge_settled(b)) {
		bridge_wake_now(b, "top of every host");
		return -EAGAIN;
	}
	if (!b->up)
		return -ENOTCONN;
	if (b->top_sent_ask_ns && now - b->top_sent_ask_ns < BRIDGE_TOP_ASK_GAP_NS)
		return 0;
	b->top_sent_ask_ns = now;
	caretd_msgs_msg_dds__TopAsk_ m = { .lease_ms = (uint32_t)lease_ms };
	return top_write(b->dds->w_top_ask, &m);
}

const struct bridge_top_host *bridge_top_host(const struct bridge *b, int i, int64_t now)
{
	for (int k = 0; k < BRIDGE_MAX_HOSTS; k++) {
		const struct bridge_top_host *h = b->top[k];
		if (h && now - h->seen_ns < BRIDGE_TOP_FRESH_NS && i-- == 0)
			return h;
	}
	return NULL;
}

void bridge_top_expire(struct bridge *b, int64_t now)
{
	for (int i = 0; i < BRIDGE_MAX_HOSTS; i++)
		if (b->top[i] && now - b->top[i]->seen_ns >= BRIDGE_TOP_FRESH_NS) {
			free(b->top[i]);
			b->top[i] = NULL;
		}
}

void bridge_top_stop(struct bridge *b)
{
	for (int i = 0; i < BRIDGE_MAX_HOSTS; i++) {
		free(b->top[i]);
		b->top[i] = NULL;
	}
	b->top_lease_until = 0;
}
