/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/caret_ctl.h"
#include "proto/caret_ctl_hosts.h"
#include "proto/caret_ctl_reply.h"

/* The key order is the one caretds always sent: a reader comparing text
 * sees no change. */
static bool add_counts(cJSON *out, const struct caret_ctl_bridge_counts *c)
{
	cJSON *k = cJSON_AddObjectToObject(out, CARET_CTL_K_COUNTS);
	return k && cJSON_AddNumberToObject(k, "start", (double)c->start) &&
	       cJSON_AddNumberToObject(k, "end", (double)c->end) &&
	       cJSON_AddNumberToObject(k, "status", (double)c->status) &&
	       cJSON_AddNumberToObject(k, "relay", (double)c->relay) &&
	       cJSON_AddNumberToObject(k, "rejected", (double)c->rejected) &&
	       cJSON_AddNumberToObject(k, "sent", (double)c->sent) &&
	       cJSON_AddNumberToObject(k, "foreign", (double)c->foreign);
}

static bool add_proc(cJSON *arr, const struct caret_ctl_host_proc *p)
{
	cJSON *x = ctl_add_object(arr);
	if (!x)
		return false;
	return cJSON_AddStringToObject(x, CARET_CTL_K_NAME, p->name) &&
	       cJSON_AddStringToObject(x, CARET_CTL_K_STATE, p->state) &&
	       cJSON_AddNumberToObject(x, CARET_CTL_K_PID, (double)p->pid) &&
	       cJSON_AddStringToObject(x, CARET_CTL_K_NODES, p->nodes ? p->nodes : "");
}

static bool add_host(cJSON *arr, const struct caret_ctl_host *h)
{
	cJSON *x = cJSON_CreateObject(), *procs;
	if (!x || !cJSON_AddItemToArray(arr, x)) {
		cJSON_Delete(x);
		return false;
	}
	if (!cJSON_AddStringToObject(x, CARET_CTL_K_HOST, h->host) ||
	    !cJSON_AddBoolToObject(x, CARET_CTL_K_SELF, h->self) ||
	    !cJSON_AddNumberToObject(x, CARET_CTL_K_AGE_MS, (double)h->age_ms) ||
	    !cJSON_AddNumberToObject(x, CARET_CTL_K_BRIDGE_VERSION, (double)h->version) ||
	    !cJSON_AddBoolToObject(x, CARET_CTL_K_IGNORED, h->ignored) ||
	    !(procs = cJSON_AddArrayToObject(x, CARET_CTL_K_PROCESSES)))
		return false;
	for (size_t i = 0; i < h->n_procs; i++)
		if (!add_proc(procs, &h->procs[i]))
			return false;
	return true;
}

int caret_ctl_hosts_encode(const struct caret_ctl_hosts *h, cJSON *out)
{
	cJSON *arr;
	if (!cJSON_AddStringToObject(out, CARET_CTL_K_HOST, h->host) ||
	    !cJSON_AddStringToObject(out, CARET_CTL_K_BRIDGE, h->bridge) ||
	    !cJSON_AddBoolToObject(out, CARET_CTL_K_BRIDGE_WAKING, h->waking) ||
	    !add_counts(out, &h->counts) ||
	    !(arr = cJSON_AddArrayToObject(out, CARET_CTL_K_HOSTS)))
		return -ENOMEM;
	for (size_t i = 0; i < h->n_hosts; i++)
		if (!add_host(arr, &h->hosts[i]))
			return -ENOMEM;
	return 0;
}

static int get_count(const cJSON *k, const char *key, uint64_t *out, struct ctl_why *w)
{
	return ctl_get_u64(k, CARET_CTL_K_COUNTS, key, out, w);
}

static int decode_counts(const cJSON *in, struct caret_ctl_hosts *h, struct ctl_why *w)
{
	const cJSON *k;
	struct caret_ctl_bridge_counts *c = &h->counts;
	if (!cJSON_GetObjectItemCaseSensitive(in, CARET_CTL_K_COUNTS))
		return 0;
	h->have_counts = true;
	if (ctl_get_obj(in, NULL, CARET_CTL_K_COUNTS, &k, w) < 0 ||
	    get_count(k, "start", &c->start, w) < 0 || get_count(k, "end", &c->end, w) < 0 ||
	    get_count(k, "status", &c->status, w) < 0 || get_count(k, "relay", &c->relay, w) < 0 ||
	    get_count(k, "rejected", &c->rejected, w) < 0 ||
	    get_count(k, "sent", &c->sent, w) < 0 || get_count(k, "foreign", &c->foreign, w) < 0)
		return -EPROTO;
	return 0;
}

static int decode_proc(const cJSON *e, const char *where, struct caret_ctl_host_proc *p,
		       struct ctl_why *w)
{
	/* another host's pid is that host's business: any int64 it sent */
	if (ctl_get_str(e, where, CARET_CTL_K_NAME, false, &p->name, w) < 0 ||
	    ctl_get_str(e, where, CARET_CTL_K_STATE, false, &p->state, w) < 0 ||
	    ctl_get_int(e, where, CARET_CTL_K_PID, INT64_MIN, INT64_MAX, &p->pid, w) < 0 ||
	    ctl_get_str(e, where, CARET_CTL_K_NODES, false, &p->nodes, w) < 0)
		return -EPROTO;
	return 0;
}

static int decode_host(const cJSON *e, size_t i, struct caret_ctl_host *h, struct ctl_why *w)
{
	char where[48];
	int64_t version = 0;
	const cJSON *procs, *p;
	snprintf(where, sizeof(where), "hosts[%zu]", i);
	if (ctl_get_str(e, where, CARET_CTL_K_HOST, false, &h->host, w) < 0 ||
	    ctl_get_bool(e, where, CARET_CTL_K_SELF, &h->self, w) < 0 ||
	    ctl_get_int(e, where, CARET_CTL_K_AGE_MS, 0, INT64_MAX, &h->age_ms, w) < 0 ||
	    ctl_get_int_opt(e, where, CARET_CTL_K_BRIDGE_VERSION, 0, UINT32_MAX, &version, w) < 0 ||
	    ctl_get_bool_opt(e, where, CARET_CTL_K_IGNORED, &h->ignored, w) < 0 ||
	    ctl_get_objects(e, where, CARET_CTL_K_PROCESSES, CARET_CTL_HOST_PROCS_MAX, &procs,
			    &h->n_procs, w) < 0)
		return -EPROTO;
	h->version = (uint32_t)version;
	if (h->n_procs && !(h->procs = calloc(h->n_procs, sizeof(*h->procs))))
		return -ENOMEM;
	size_t j = 0;
	cJSON_ArrayForEach(p, procs) {
		char pw[80];
		snprintf(pw, sizeof(pw), "%s.processes[%zu]", where, j);
		if (decode_proc(p, pw, &h->procs[j++], w) < 0)
			return -EPROTO;
	}
	return 0;
}

int caret_ctl_hosts_decode(const cJSON *in, struct caret_ctl_hosts *h, char *why, size_t len)
{
	struct ctl_why w = { "" };
	const cJSON *arr, *e;
	int r = -EPROTO;
	memset(h, 0, sizeof(*h));
	if (!cJSON_IsObject(in)) {
		ctl_why_set(&w, "the hosts result is not an object");
		return ctl_why_out(&w, why, len, -EPROTO);
	}
	if (ctl_get_str(in, NULL, CARET_CTL_K_HOST, false, &h->host, &w) < 0 ||
	    ctl_get_str(in, NULL, CARET_CTL_K_BRIDGE, false, &h->bridge, &w) < 0 ||
	    ctl_get_bool_opt(in, NULL, CARET_CTL_K_BRIDGE_WAKING, &h->waking, &w) < 0 ||
	    decode_counts(in, h, &w) < 0 ||
	    ctl_get_objects(in, NULL, CARET_CTL_K_HOSTS, CARET_CTL_HOSTS_MAX, &arr, &h->n_hosts,
			    &w) < 0)
		goto fail;
	if (h->n_hosts && !(h->hosts = calloc(h->n_hosts, sizeof(*h->hosts)))) {
		r = -ENOMEM;
		goto fail;
	}
	size_t i = 0;
	cJSON_ArrayForEach(e, arr) {
		if ((r = decode_host(e, i, &h->hosts[i], &w)) < 0)
			goto fail;
		i++;
	}
	return 0;
fail:
	caret_ctl_hosts_free(h);
	if (r == -ENOMEM)
		ctl_why_set(&w, "out of memory");
	return ctl_why_out(&w, why, len, r);
}

void caret_ctl_hosts_free(struct caret_ctl_hosts *h)
{
	for (size_t i = 0; h->hosts && i < h->n_hosts; i++)
		free(h->hosts[i].procs);
	free(h->hosts);
	memset(h, 0, sizeof(*h));
}

size_t caret_ctl_host_recording(const struct caret_ctl_host *h)
{
	size_t n = 0;
	for (size_t i = 0; i < h->n_procs; i++)
		n += !strcmp(h->procs[i].state, "RECORD");
	return n;
}
