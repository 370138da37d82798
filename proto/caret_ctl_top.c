/* SPDX-License-Identifier: Apache-2.0 */
/* `top`'s request and reply (proto/caret_ctl_top.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/caret_ctl.h"
#include "proto/caret_ctl_top.h"

static const char *const kind_names[CARET_CTL_TOP_KINDS] = {
	[CARET_CTL_TOP_UNKNOWN] = "unknown", [CARET_CTL_TOP_TIMER] = "timer",
	[CARET_CTL_TOP_SUBSCRIPTION] = "subscription", [CARET_CTL_TOP_SERVICE] = "service",
};

const char *caret_ctl_top_kind_name(enum caret_ctl_top_kind k)
{
	return (unsigned)k < CARET_CTL_TOP_KINDS ? kind_names[k] : kind_names[0];
}

/* ---- request ---- */

cJSON *caret_ctl_enc_top_request(const struct caret_ctl_top_req *q)
{
	cJSON *o = cJSON_CreateObject();
	bool ok = o && cJSON_AddNumberToObject(o, CARET_CTL_K_V, CARET_CTL_VERSION) &&
		  cJSON_AddStringToObject(o, CARET_CTL_K_CMD, CARET_CTL_CMD_TOP);
	if (ok && q->lease_ms)
		ok = cJSON_AddNumberToObject(o, CARET_CTL_K_LEASE_MS, (double)q->lease_ms);
	if (ok && q->all_hosts)
		ok = cJSON_AddTrueToObject(o, CARET_CTL_K_ALL_HOSTS) != NULL;
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

int caret_ctl_dec_top_request(const cJSON *o, struct caret_ctl_top_req *q, struct ctl_why *why)
{
	q->lease_ms = CARET_CTL_TOP_LEASE_MS_DEFAULT;
	const cJSON *all = cJSON_GetObjectItemCaseSensitive(o, CARET_CTL_K_ALL_HOSTS);
	if (all && !cJSON_IsBool(all)) {
		ctl_why_set(why, "%s is not a boolean", CARET_CTL_K_ALL_HOSTS);
		return -EINVAL;
	}
	q->all_hosts = cJSON_IsTrue(all);
	if (!cJSON_GetObjectItemCaseSensitive(o, CARET_CTL_K_LEASE_MS))
		return 0;
	return ctl_get_int(o, NULL, CARET_CTL_K_LEASE_MS, CARET_CTL_TOP_LEASE_MS_MIN,
			   CARET_CTL_TOP_LEASE_MS_MAX, &q->lease_ms, why) < 0
		       ? -EINVAL
		       : 0;
}

/* ---- result (caretd) ---- */

static bool add_str(cJSON *o, const char *k, const char *v)
{
	return v ? cJSON_AddStringToObject(o, k, v) != NULL : cJSON_AddNullToObject(o, k) != NULL;
}

static bool add_count(cJSON *o, const char *k, uint64_t v)
{
	return cJSON_AddNumberToObject(
		       o, k, (double)(v > CARET_CTL_COUNT_MAX ? CARET_CTL_COUNT_MAX : v)) != NULL;
}

/* Rates and shares with 3 decimals: what a terminal shows, a short line. */
static bool add_real(cJSON *o, const char *k, double v)
{
	if (!isfinite(v) || v < 0)
		v = 0;
	if (v > 1e12)
		v = 1e12;
	return cJSON_AddNumberToObject(o, k, (double)(int64_t)(v * 1000.0 + 0.5) / 1000.0) != NULL;
}

static bool enc_cb(cJSON *arr, const struct caret_ctl_top_cb *c)
{
	cJSON *o = cJSON_CreateObject();
	if (!o || !cJSON_AddItemToArray(arr, o))
		return cJSON_Delete(o), false;
	if (c->host && !add_str(o, "host", c->host))
		return false;
	return cJSON_AddNumberToObject(o, "pid", c->pid) && add_str(o, "procname", c->procname) &&
	       add_str(o, "node", c->node) &&
	       add_str(o, "kind", caret_ctl_top_kind_name(c->kind)) &&
	       add_str(o, "symbol", c->symbol) && add_str(o, "topic", c->topic) &&
	       add_count(o, "calls", c->calls) && add_real(o, "rate_hz", c->rate_hz) &&
	       add_count(o, "mean_ns", c->mean_ns) && add_count(o, "p99_ns", c->p99_ns) &&
	       add_count(o, "max_ns", c->max_ns) && add_real(o, "cpu", c->cpu);
}

static bool enc_lat(cJSON *o, const struct caret_ctl_top_lat *l)
{
	if (!l->known)
		return cJSON_AddNullToObject(o, "latency") != NULL;
	cJSON *x = cJSON_AddObjectToObject(o, "latency");
	return x && add_count(x, "n", l->n) && add_count(x, "apart", l->apart) &&
	       add_count(x, "mean_ns", l->mean_ns) && add_count(x, "p99_ns", l->p99_ns) &&
	       add_count(x, "max_ns", l->max_ns);
}

static bool enc_topic(cJSON *arr, const struct caret_ctl_top_topic *t)
{
	cJSON *o = cJSON_CreateObject();
	if (!o || !cJSON_AddItemToArray(arr, o))
		return cJSON_Delete(o), false;
	return cJSON_AddNumberToObject(o, "pid", t->pid) && add_str(o, "procname", t->procname) &&
	       add_str(o, "node", t->node) && add_str(o, "topic", t->topic) &&
	       add_str(o, "dir", t->publisher ? "pub" : "sub") && add_count(o, "count", t->count) &&
	       add_real(o, "rate_hz", t->rate_hz) && (t->publisher || enc_lat(o, &t->lat));
}

static bool enc_host(cJSON *arr, const struct caret_ctl_top_host *h)
{
	cJSON *o = cJSON_CreateObject();
	if (!o || !cJSON_AddItemToArray(arr, o))
		return cJSON_Delete(o), false;
	return add_str(o, "host", h->host) &&
	       add_count(o, "interval_ms", (uint64_t)(h->interval_ms > 0 ? h->interval_ms : 0)) &&
	       add_count(o, "processes", h->processes) && add_count(o, "lost", h->lost) &&
	       add_count(o, "truncated", h->truncated);
}

cJSON *caret_ctl_enc_top(const struct caret_ctl_top *t)
{
	cJSON *o = cJSON_CreateObject(), *b = cJSON_CreateObject();
	bool ok = o && b && cJSON_AddNumberToObject(o, CARET_CTL_K_V, CARET_CTL_VERSION) &&
		  cJSON_AddStringToObject(o, CARET_CTL_K_TYPE, CARET_CTL_T_RESULT) &&
		  cJSON_AddItemToObject(o, CARET_CTL_K_TOP, b);
	if (!ok)
		cJSON_Delete(b);
	ok = ok && add_count(b, "interval_ms", (uint64_t)(t->interval_ms > 0 ? t->interval_ms : 0)) &&
	     add_count(b, "processes", t->processes) && add_count(b, "lost", t->lost) &&
	     add_count(b, "truncated", t->truncated);
	cJSON *cbs = ok ? cJSON_AddArrayToObject(b, "callbacks") : NULL;
	cJSON *tps = cbs ? cJSON_AddArrayToObject(b, "topics") : NULL;
	ok = tps != NULL;
	for (size_t i = 0; ok && i < t->n_cb; i++)
		ok = enc_cb(cbs, &t->cb[i]);
	for (size_t i = 0; ok && i < t->n_topics; i++)
		ok = enc_topic(tps, &t->topics[i]);
	cJSON *hs = ok && t->n_hosts ? cJSON_AddArrayToObject(b, "hosts") : NULL;
	ok = ok && (!t->n_hosts || hs);
	for (size_t i = 0; ok && i < t->n_hosts; i++)
		ok = enc_host(hs, &t->hosts[i]);
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* ---- result (caretctl): hostile ---- */

#define BIG ((int64_t)CARET_CTL_COUNT_MAX)

static int get_name(const cJSON *o, const char *w, const char *k, const char **v,
		    struct ctl_why *why)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
	*v = NULL;
	if (it && cJSON_IsNull(it))
		return 0;
	if (ctl_get_str(o, w, k, false, v, why) < 0)
		return -EPROTO;
	if (strnlen(*v, CARET_CTL_TOP_STR_MAX + 1) > CARET_CTL_TOP_STR_MAX) {
		ctl_why_set(why, "%s.%s is too long", w, k);
		return -EPROTO;
	}
	return 0;
}

static int get_u(const cJSON *o, const char *w, const char *k, uint64_t *v, struct ctl_why *why)
{
	int64_t n;
	if (ctl_get_int(o, w, k, 0, BIG, &n, why) < 0)
		return -EPROTO;
	*v = (uint64_t)n;
	return 0;
}

static int get_real(const cJSON *o, const char *w, const char *k, double *v, struct ctl_why *why)
{
	if (ctl_get_num(o, w, k, v, why) < 0)
		return -EPROTO;
	if (!isfinite(*v) || *v < 0 || *v > 1e12) {
		ctl_why_set(why, "%s.%s is out of range", w, k);
		return -EPROTO;
	}
	return 0;
}

static int get_pid(const cJSON *o, const char *w, int32_t *pid, struct ctl_why *why)
{
	int64_t n;
	if (ctl_get_int(o, w, "pid", 1, INT32_MAX, &n, why) < 0)
		return -EPROTO;
	*pid = (int32_t)n;
	return 0;
}

/* "host": absent, or a name */
static int get_host(const cJSON *o, const char *w, const char **v, struct ctl_why *why)
{
	*v = NULL;
	if (!cJSON_GetObjectItemCaseSensitive(o, "host"))
		return 0;
	if (get_name(o, w, "host", v, why) < 0)
		return -EPROTO;
	if (!*v || !**v) {
		ctl_why_set(why, "%s.host is empty", w);
		return -EPROTO;
	}
	return 0;
}

static int dec_cb(const cJSON *o, const char *w, struct caret_ctl_top_cb *c, struct ctl_why *why)
{
	const char *kind;
	if (get_host(o, w, &c->host, why) < 0)
		return -EPROTO;
	if (get_pid(o, w, &c->pid, why) < 0 || get_name(o, w, "procname", &c->procname, why) < 0 ||
	    get_name(o, w, "node", &c->node, why) < 0 ||
	    get_name(o, w, "symbol", &c->symbol, why) < 0 ||
	    get_name(o, w, "topic", &c->topic, why) < 0 ||
	    ctl_get_str(o, w, "kind", false, &kind, why) < 0 ||
	    get_u(o, w, "calls", &c->calls, why) < 0 ||
	    get_real(o, w, "rate_hz", &c->rate_hz, why) < 0 ||
	    get_u(o, w, "mean_ns", &c->mean_ns, why) < 0 ||
	    get_u(o, w, "p99_ns", &c->p99_ns, why) < 0 ||
	    get_u(o, w, "max_ns", &c->max_ns, why) < 0 || get_real(o, w, "cpu", &c->cpu, why) < 0)
		return -EPROTO;
	for (int k = 0; k < CARET_CTL_TOP_KINDS; k++)
		if (!strcmp(kind, kind_names[k])) {
			c->kind = (enum caret_ctl_top_kind)k;
			return 0;
		}
	ctl_why_set(why, "%s.kind is not a callback kind", w);
	return -EPROTO;
}

/* "latency": absent or null (not known), or bounded as the header says;
 * a "pub" row has none. */
static int dec_lat(const cJSON *o, const char *w, struct caret_ctl_top_topic *t,
		   struct ctl_why *why)
{
	struct caret_ctl_top_lat *l = &t->lat;
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, "latency");
	*l = (struct caret_ctl_top_lat){ 0 };
	if (!x || cJSON_IsNull(x))
		return 0;
	char lw[64];
	snprintf(lw, sizeof(lw), "%s.latency", w);
	if (t->publisher) {
		ctl_why_set(why, "%s is in a \"pub\" row", lw);
		return -EPROTO;
	}
	if (!cJSON_IsObject(x)) {
		ctl_why_set(why, "%s is not an object", lw);
		return -EPROTO;
	}
	if (get_u(x, lw, "n", &l->n, why) < 0 || get_u(x, lw, "apart", &l->apart, why) < 0 ||
	    get_u(x, lw, "mean_ns", &l->mean_ns, why) < 0 ||
	    get_u(x, lw, "p99_ns", &l->p99_ns, why) < 0 ||
	    get_u(x, lw, "max_ns", &l->max_ns, why) < 0)
		return -EPROTO;
	const char *bad = NULL;
	if (l->n > t->count || l->apart > t->count - l->n)
		bad = "n + apart is above count";
	else if (l->max_ns > CARET_CTL_TOP_LAT_MAX_NS)
		bad = "max_ns is out of range";
	else if (l->mean_ns > l->max_ns || l->p99_ns > l->max_ns)
		bad = "mean_ns or p99_ns is above max_ns";
	else if (!l->n && l->max_ns)
		bad = "max_ns is not 0 with n 0";
	if (bad) {
		ctl_why_set(why, "%s: %s", lw, bad);
		return -EPROTO;
	}
	l->known = true;
	return 0;
}

static int dec_topic(const cJSON *o, const char *w, struct caret_ctl_top_topic *t,
		     struct ctl_why *why)
{
	const char *dir;
	if (get_pid(o, w, &t->pid, why) < 0 || get_name(o, w, "procname", &t->procname, why) < 0 ||
	    get_name(o, w, "node", &t->node, why) < 0 || get_name(o, w, "topic", &t->topic, why) < 0 ||
	    ctl_get_str(o, w, "dir", false, &dir, why) < 0 ||
	    get_u(o, w, "count", &t->count, why) < 0 ||
	    get_real(o, w, "rate_hz", &t->rate_hz, why) < 0)
		return -EPROTO;
	t->publisher = !strcmp(dir, "pub");
	if (!t->publisher && strcmp(dir, "sub")) {
		ctl_why_set(why, "%s.dir is neither \"pub\" nor \"sub\"", w);
		return -EPROTO;
	}
	return dec_lat(o, w, t, why);
}

/* A bounded array of rows: *out allocated, *n rows. */
static int dec_rows(const cJSON *b, const char *k, size_t size, void **out, size_t *n,
		    int (*dec)(const cJSON *, const char *, void *, struct ctl_why *),
		    struct ctl_why *why)
{
	const cJSON *arr;
	if (ctl_get_array(b, "top", k, &arr, why) < 0)
		return -EPROTO;
	int len = cJSON_GetArraySize(arr);
	if (len > CARET_CTL_TOP_MAX_ROWS) {
		ctl_why_set(why, "top.%s has more than %d rows", k, CARET_CTL_TOP_MAX_ROWS);
		return -EPROTO;
	}
	*out = calloc(len ? (size_t)len : 1, size);
	if (!*out)
		return -ENOMEM;
	const cJSON *it;
	cJSON_ArrayForEach(it, arr) {
		char w[48];
		snprintf(w, sizeof(w), "top.%s[%zu]", k, *n);
		if (dec(it, w, (char *)*out + *n * size, why) < 0)
			return -EPROTO;
		++*n;
	}
	return 0;
}

static int dec_host(const cJSON *o, const char *w, void *v, struct ctl_why *why)
{
	struct caret_ctl_top_host *h = v;
	uint64_t iv;
	if (get_host(o, w, &h->host, why) < 0)
		return -EPROTO;
	if (!h->host) {
		ctl_why_set(why, "%s.host is missing", w);
		return -EPROTO;
	}
	if (get_u(o, w, "interval_ms", &iv, why) < 0 ||
	    get_u(o, w, "processes", &h->processes, why) < 0 ||
	    get_u(o, w, "lost", &h->lost, why) < 0 ||
	    get_u(o, w, "truncated", &h->truncated, why) < 0)
		return -EPROTO;
	h->interval_ms = (int64_t)iv;
	return 0;
}

static int dec_cb_v(const cJSON *o, const char *w, void *c, struct ctl_why *why)
{
	return dec_cb(o, w, c, why);
}

static int dec_topic_v(const cJSON *o, const char *w, void *t, struct ctl_why *why)
{
	return dec_topic(o, w, t, why);
}

static int dec_hosts(const cJSON *b, struct caret_ctl_top *t, struct ctl_why *why)
{
	const cJSON *arr;
	if (ctl_get_array(b, "top", "hosts", &arr, why) < 0)
		return -EPROTO;
	if (cJSON_GetArraySize(arr) > CARET_CTL_TOP_MAX_HOSTS) {
		ctl_why_set(why, "top.hosts has more than %d hosts", CARET_CTL_TOP_MAX_HOSTS);
		return -EPROTO;
	}
	void *hs = NULL;
	int r = dec_rows(b, "hosts", sizeof(*t->hosts), &hs, &t->n_hosts, dec_host, why);
	t->hosts = hs;
	return r;
}

int caret_ctl_dec_top(const cJSON *reply, struct caret_ctl_top *t, struct ctl_why *why)
{
	memset(t, 0, sizeof(*t));
	const cJSON *b;
	uint64_t iv;
	if (ctl_get_obj(reply, NULL, CARET_CTL_K_TOP, &b, why) < 0 ||
	    get_u(b, "top", "interval_ms", &iv, why) < 0 ||
	    get_u(b, "top", "processes", &t->processes, why) < 0 ||
	    get_u(b, "top", "lost", &t->lost, why) < 0 ||
	    get_u(b, "top", "truncated", &t->truncated, why) < 0)
		return -EPROTO;
	t->interval_ms = (int64_t)iv;
	void *cb = NULL, *tp = NULL;
	int r = dec_rows(b, "callbacks", sizeof(*t->cb), &cb, &t->n_cb, dec_cb_v, why);
	t->cb = cb;
	if (r == 0) {
		r = dec_rows(b, "topics", sizeof(*t->topics), &tp, &t->n_topics, dec_topic_v, why);
		t->topics = tp;
	}
	if (r == 0 && cJSON_GetObjectItemCaseSensitive(b, "hosts"))
		r = dec_hosts(b, t, why);
	if (r < 0)
		caret_ctl_top_free(t);
	return r;
}

void caret_ctl_top_free(struct caret_ctl_top *t)
{
	free(t->cb);
	free(t->topics);
	free(t->hosts);
	t->cb = NULL;
	t->topics = NULL;
	t->hosts = NULL;
	t->n_cb = t->n_topics = t->n_hosts = 0;
}
