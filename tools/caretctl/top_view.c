/* SPDX-License-Identifier: Apache-2.0 */
/* `caretctl top`'s rows (top_view.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "top_view.h"
#include "util/regex/caret_regex.h"

const char *const top_sort_names[TOP_SORTS] = {
	[TOP_SORT_CPU] = "cpu",	  [TOP_SORT_RATE] = "rate", [TOP_SORT_MEAN] = "mean",
	[TOP_SORT_P99] = "p99",	  [TOP_SORT_MAX] = "max",   [TOP_SORT_NODE] = "node",
	[TOP_SORT_SYMBOL] = "symbol",
};

int top_sort_by_name(const char *name)
{
	for (int i = 0; i < TOP_SORTS; i++)
		if (!strcmp(name, top_sort_names[i]))
			return i;
	return -1;
}

/* A pattern found in s (NULL: ""); a search that hits a limit keeps the
 * row: hiding it would say it is not there. */
static bool keeps(const struct caret_re *re, const char *s)
{
	if (!re)
		return true;
	s = s ? s : "";
	return caret_re_search(re, s, strlen(s), NULL) != 0;
}

static enum top_sort sort_key;

static int cmp_num(double a, double b)
{
	return (a < b) - (a > b); /* largest first */
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_cb(const void *x, const void *y)
{
	const struct caret_ctl_top_cb *a = x, *b = y;
	switch (sort_key) {
	case TOP_SORT_RATE:
		return cmp_num(a->rate_hz, b->rate_hz);
	case TOP_SORT_MEAN:
		return cmp_num((double)a->mean_ns, (double)b->mean_ns);
	case TOP_SORT_P99:
		return cmp_num((double)a->p99_ns, (double)b->p99_ns);
	case TOP_SORT_MAX:
		return cmp_num((double)a->max_ns, (double)b->max_ns);
	case TOP_SORT_NODE:
		return cmp_str(a->node, b->node) ? cmp_str(a->node, b->node)
						 : cmp_str(a->symbol, b->symbol);
	case TOP_SORT_SYMBOL:
		return cmp_str(a->symbol, b->symbol);
	default:
		return a->cpu != b->cpu ? cmp_num(a->cpu, b->cpu) : cmp_num(a->rate_hz, b->rate_hz);
	}
}

static int cmp_topic(const void *x, const void *y)
{
	const struct caret_ctl_top_topic *a = x, *b = y;
	if (sort_key == TOP_SORT_NODE)
		return cmp_str(a->node, b->node) ? cmp_str(a->node, b->node)
						 : cmp_str(a->topic, b->topic);
	if (sort_key == TOP_SORT_SYMBOL)
		return cmp_str(a->topic, b->topic);
	return cmp_num(a->rate_hz, b->rate_hz);
}

void top_view_apply(const struct top_view *v, struct caret_ctl_top *t)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n_cb; i++)
		if (keeps(v->node, t->cb[i].node) && keeps(v->topic, t->cb[i].topic))
			t->cb[n++] = t->cb[i];
	t->n_cb = n;
	n = 0;
	for (size_t i = 0; i < t->n_topics; i++)
		if (keeps(v->node, t->topics[i].node) && keeps(v->topic, t->topics[i].topic))
			t->topics[n++] = t->topics[i];
	t->n_topics = n;
	sort_key = v->sort;
	if (t->n_cb > 1) /* qsort's base must not be NULL, even for no row */
		qsort(t->cb, t->n_cb, sizeof(*t->cb), cmp_cb);
	if (t->n_topics > 1)
		qsort(t->topics, t->n_topics, sizeof(*t->topics), cmp_topic);
}

/* A duration in 7 columns: "812us", "5.02ms", "1.20s". */
static const char *dur(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 "ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.0fus", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2fms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", (double)ns / 1e9);
	return buf;
}

static const char *or_dash(const char *s)
{
	return s && s[0] ? s : "-";
}

static void print_cbs(FILE *f, const struct top_view *v, const struct caret_ctl_top *t)
{
	if (t->n_hosts)
		fprintf(f, "%-16s ", "HOST");
	fprintf(f, "%7s %-24s %-12s %8s %8s %8s %8s %6s  %s\n", "PID", "NODE", "KIND", "RATE/s",
		"MEAN", "P99", "MAX", "CPU%", "SYMBOL / TOPIC");
	for (size_t i = 0; i < t->n_cb && (!v->max_rows || (int)i < v->max_rows); i++) {
		const struct caret_ctl_top_cb *c = &t->cb[i];
		char m[16], p[16], x[16];
		if (t->n_hosts)
			fprintf(f, "%-16.16s ", or_dash(c->host));
		fprintf(f, "%7d %-24.24s %-12s %8.2f %8s %8s %8s %6.2f  %s%s%s\n", (int)c->pid,
			or_dash(c->node), caret_ctl_top_kind_name(c->kind), c->rate_hz,
			dur(m, sizeof(m), c->mean_ns), dur(p, sizeof(p), c->p99_ns),
			dur(x, sizeof(x), c->max_ns), c->cpu * 100.0, or_dash(c->symbol),
			c->topic ? " " : "", c->topic ? c->topic : "");
	}
}

/* A subscription's latency columns: mean, p99, max, and the takes
 * counted apart; "-" where not known (a publisher, writers whose clock
 * may be another host's, no take measured). */
static void print_lat(FILE *f, const struct caret_ctl_top_lat *l)
{
	char m[16], p[16], x[16];
	if (!l->known || !l->n) {
		fprintf(f, " %8s %8s %8s %6s", "-", "-", "-", l->known ? "0" : "-");
		return;
	}
	fprintf(f, " %8s %8s %8s %6" PRIu64, dur(m, sizeof(m), l->mean_ns),
		dur(p, sizeof(p), l->p99_ns), dur(x, sizeof(x), l->max_ns), l->apart);
}

static void print_topics(FILE *f, const struct top_view *v, const struct caret_ctl_top *t)
{
	fprintf(f, "\n%7s %-24s %-4s %8s %8s %8s %8s %6s  %s\n", "PID", "NODE", "DIR", "RATE/s",
		"LAT", "LAT P99", "LAT MAX", "APART", "TOPIC");
	size_t unknown = 0;
	for (size_t i = 0; i < t->n_topics && (!v->max_rows || (int)i < v->max_rows); i++) {
		const struct caret_ctl_top_topic *p = &t->topics[i];
		fprintf(f, "%7d %-24.24s %-4s %8.2f", (int)p->pid, or_dash(p->node),
			p->publisher ? "pub" : "sub", p->rate_hz);
		print_lat(f, p->publisher ? &(struct caret_ctl_top_lat){ 0 } : &p->lat);
		fprintf(f, "  %s\n", or_dash(p->topic));
		unknown += !p->publisher && !p->lat.known;
	}
	/* Without this, a default setup shows only dashes and no reason. */
	if (unknown)
		fprintf(f, "LAT \"-\": the subscriber may hear writers on other hosts, whose "
			   "clocks differ (ROS_LOCALHOST_ONLY=1 lets top measure it: caretctl(1))\n");
}

void top_view_print(FILE *f, const struct top_view *v, const struct caret_ctl_top *t)
{
	fprintf(f, "caretctl top: %" PRIu64 " processes watched, interval %" PRId64 " ms, "
		   "sorted by %s",
		t->processes, t->interval_ms, top_sort_names[v->sort]);
	if (t->lost)
		fprintf(f, ", %" PRIu64 " events not counted (full counter tables)", t->lost);
	if (t->truncated)
		fprintf(f, ", %" PRIu64 " rows left out by caretd", t->truncated);
	fputs("\n", f);
	/* --all-hosts: each host's own counts, and which of them cut rows */
	for (size_t i = 0; i < t->n_hosts; i++) {
		const struct caret_ctl_top_host *h = &t->hosts[i];
		fprintf(f, "  host %s: %" PRIu64 " processes, interval %" PRId64 " ms", h->host,
			h->processes, h->interval_ms);
		if (h->truncated)
			fprintf(f, ", %" PRIu64 " rows left out (the busiest sent)", h->truncated);
		if (h->lost)
			fprintf(f, ", %" PRIu64 " events not counted", h->lost);
		fputc('\n', f);
	}
	fputc('\n', f);
	print_cbs(f, v, t);
	print_topics(f, v, t);
}
