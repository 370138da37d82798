/* SPDX-License-Identifier: Apache-2.0 */
/* What other hosts say (daemon/bridge/bridge_peers.h). */
#include <stdio.h>
#include <string.h>

#include "daemon/bridge/bridge_msg.h"
#include "daemon/bridge/bridge_peers.h"
#include "daemon/base/log.h"
#include "daemon/agents/pacer.h"
#include "daemon/agents/startend.h"
#include "util/caret_util.h"

#define PROC_TTL_NS (5LL * 1000000000)
#define HOST_TTL_NS (BRIDGE_HOST_TTL_S * 1000000000LL)
#define HOST_EVICT_NS (BRIDGE_HOST_EVICT_S * 1000000000LL)
/* A host speaking another bridge version is named once per this long. */
#define FOREIGN_LOG_NS (60LL * 1000000000)

void bridge_peers_start(struct bridge *b, const caret_msgs_msg_dds__Start_ *m,
			const char *from)
{
	b->counts.start++;
	struct caret_filter_lists f;
	const char *bad = bridge_msg_start(m, &f);
	if (bad)
		return bridge_reject(b, "Start", bad);
	struct startend_out o;
	struct sched_lttng l;
	int64_t now = caret_now_ns();
	pacer_sched_lttng(b->lttng, now, &l);
	startend_start(b->sched, b->reg, &l, m->recording_frequency, &f, &o);
	char ft[1024];
	bridge_msg_filter_text(&f, ft, sizeof(ft));
	if (o.reason)
		bridge_rlog_info(b, "bridge: Start from %s ignored: %s%s%s%s", from, o.reason,
				 *ft ? " (filters " : "", ft, *ft ? ")" : "");
	else
		bridge_rlog_info(b, "bridge: Start from %s (frequency %u%s%s): %d processes to PREPARE "
				 "(%d with the filter), %d left alone (not in WAIT)", from,
				 m->recording_frequency, *ft ? ", " : "", ft, o.applied, o.filtered,
				 o.ignored);
	b->status_due = true; /* as a CARET trace node answers every Start */
}

void bridge_peers_end(struct bridge *b, const char *from)
{
	b->counts.end++;
	struct startend_out o;
	struct sched_lttng l;
	pacer_sched_lttng(b->lttng, caret_now_ns(), &l);
	startend_end(b->sched, b->reg, &l, &o);
	if (o.reason)
		bridge_rlog_info(b, "bridge: End from %s ignored: %s", from, o.reason);
	else
		bridge_rlog_info(b, "bridge: End from %s: %d processes back to WAIT", from, o.applied);
	b->status_due = true;
}

static void drop_procs(struct bridge *b, const char *host)
{
	for (int j = 0; j < b->n_procs;)
		if (!strcmp(b->procs[j].host, host))
			b->procs[j] = b->procs[--b->n_procs];
		else
			j++;
}

static void drop_host(struct bridge *b, int i)
{
	drop_procs(b, b->hosts[i].host);
	b->hosts[i] = b->hosts[--b->n_hosts];
}

/*
 * The slot of `s`'s host, or NULL and why not. One participant speaks for
 * one host (B16d: a participant claiming many hosts took every slot); a
 * full table gives the slot of the host silent longest once it has been
 * silent for BRIDGE_HOST_EVICT_S.
 */
static struct bridge_host *host_slot(struct bridge *b, const struct bridge_sender *s, int64_t now,
				     const char **why)
{
	struct bridge_host *h = NULL;
	for (int i = 0; i < b->n_hosts; i++) {
		if (!strcmp(b->hosts[i].host, s->host))
			h = &b->hosts[i];
		else if (s->known && !memcmp(b->hosts[i].pp, s->pp, sizeof(s->pp)) &&
			 now - b->hosts[i].seen_ns < HOST_EVICT_NS) {
			*why = "its DDS participant already speaks for another host";
			return NULL;
		}
	}
	if (!h) {
		if (b->n_hosts == BRIDGE_MAX_HOSTS) {
			int old = 0;
			for (int i = 1; i < b->n_hosts; i++)
				if (b->hosts[i].seen_ns < b->hosts[old].seen_ns)
					old = i;
			if (now - b->hosts[old].seen_ns < HOST_EVICT_NS) {
				*why = "too many hosts";
				return NULL;
			}
			bridge_rlog_info(b, "bridge: host %s (silent for %lld s) forgotten for host %s",
					 b->hosts[old].host, (long long)((now - b->hosts[old].seen_ns) /
									 1000000000), s->host);
			drop_host(b, old);
		}
		h = &b->hosts[b->n_hosts++];
		memset(h, 0, sizeof(*h));
		snprintf(h->host, sizeof(h->host), "%s", s->host);
		bridge_rlog_info(b, "bridge: first sample from host %s", s->host);
	}
	if (s->known)
		memcpy(h->pp, s->pp, sizeof(h->pp));
	return h;
}

/*
 * A sample from a caretd of another bridge version: not read (its fields
 * may mean something else there), its host listed as speaking that
 * version, and one line per host and FOREIGN_LOG_NS naming both versions.
 */
void bridge_peers_foreign(struct bridge *b, const char *what, const struct bridge_sender *s,
			  int64_t now)
{
	b->counts.foreign++;
	const char *bad = NULL;
	struct bridge_host *h = host_slot(b, s, now, &bad);
	if (!h)
		return bridge_reject(b, what, bad);
	h->seen_ns = now;
	if (h->version != s->version) {
		h->version = s->version;
		h->warned_ns = 0;
		drop_procs(b, h->host); /* what it said in this version is stale */
	}
	if (h->warned_ns && now - h->warned_ns < FOREIGN_LOG_NS)
		return;
	h->warned_ns = now;
	bridge_rlog_warn(b, "bridge: host %s speaks bridge version %u, this caretd version %u: its "
			 "samples are ignored (run the same caretd version on every host)", s->host,
			 s->version, BRIDGE_VERSION);
}

void bridge_peers_status(struct bridge *b, const caret_msgs_msg_dds__Status_ *m,
			 const struct bridge_sender *s, int64_t now)
{
	b->counts.status++;
	const char *bad = bridge_msg_status(m);
	if (bad)
		return bridge_reject(b, "Status", bad);
	const char *from = s->host;
	struct bridge_host *h = host_slot(b, s, now, &bad);
	if (!h)
		return bridge_reject(b, "Status", bad);
	h->seen_ns = now;
	h->version = s->version;
	struct bridge_proc *p = NULL;
	for (int i = 0; i < b->n_procs && !p; i++)
		if (!strcmp(b->procs[i].host, from) && !strcmp(b->procs[i].name, m->caret_node_name))
			p = &b->procs[i];
	if (!p) {
		if (b->n_procs == BRIDGE_MAX_PROCS)
			return bridge_reject(b, "Status", "too many processes");
		int mine = 0;
		for (int i = 0; i < b->n_procs; i++)
			mine += !strcmp(b->procs[i].host, from);
		if (mine >= BRIDGE_MAX_PROCS_PER_HOST)
			return bridge_reject(b, "Status", "too many processes for one host");
		p = &b->procs[b->n_procs++];
		snprintf(p->host, sizeof(p->host), "%s", from);
		snprintf(p->name, sizeof(p->name), "%s", m->caret_node_name);
	}
	p->status = m->status;
	p->pid = m->pid;
	p->seen_ns = now;
	p->nodes[0] = '\0';
	for (uint32_t i = 0; i < m->node_names._length; i++) {
		size_t l = strlen(p->nodes);
		snprintf(p->nodes + l, sizeof(p->nodes) - l, "%s%s", i ? "," : "",
			 m->node_names._buffer[i]);
	}
}

void bridge_peers_expire(struct bridge *b, int64_t now)
{
	/* processes that stopped answering are gone (their host may still be) */
	for (int i = 0; i < b->n_procs;)
		if (now - b->procs[i].seen_ns > PROC_TTL_NS)
			b->procs[i] = b->procs[--b->n_procs];
		else
			i++;
	/* hosts too, after a while: until then `status --all-hosts` names them
	 * as not answering */
	for (int i = 0; i < b->n_hosts;)
		if (now - b->hosts[i].seen_ns > HOST_TTL_NS)
			drop_host(b, i);
		else
			i++;
}
