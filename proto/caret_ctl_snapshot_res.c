/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/caret_ctl.h"
#include "proto/caret_ctl_reply.h"
#include "proto/caret_ctl_snapshot.h"
#include "proto/caret_ctl_snapshot_res.h"

/* errno values are small: anything else is not one */
#define ERRNO_MAX 4095

static bool add_host(cJSON *arr, const struct caret_ctl_snapshot_host *h)
{
	cJSON *x = ctl_add_object(arr);
	if (!x)
		return false;
	bool ok = cJSON_AddStringToObject(x, CARET_CTL_K_HOST, h->host) &&
		  cJSON_AddBoolToObject(x, CARET_CTL_K_SELF, h->self) &&
		  (h->self || cJSON_AddNumberToObject(x, CARET_CTL_K_BRIDGE_VERSION, h->version));
	if (h->error)
		return ok && cJSON_AddStringToObject(x, CARET_CTL_K_ERROR, h->error) &&
		       cJSON_AddNumberToObject(x, CARET_CTL_K_ERRNO, (double)h->err);
	return ok && cJSON_AddStringToObject(x, CARET_CTL_K_PATH, h->path) &&
	       cJSON_AddBoolToObject(x, CARET_CTL_K_COMPLETE, h->complete) &&
	       (!h->why || cJSON_AddStringToObject(x, CARET_CTL_K_WHY, h->why));
}

int caret_ctl_snapshot_result_encode(const struct caret_ctl_snapshot_result *s, cJSON *out)
{
	bool ok = cJSON_AddStringToObject(out, CARET_CTL_K_SESSION, s->session) &&
		  (!s->path || cJSON_AddStringToObject(out, CARET_CTL_K_PATH, s->path)) &&
		  cJSON_AddBoolToObject(out, CARET_CTL_K_COMPLETE, s->complete) &&
		  (!s->why || cJSON_AddStringToObject(out, CARET_CTL_K_WHY, s->why)) &&
		  (!s->have_counts ||
		   (cJSON_AddNumberToObject(out, CARET_CTL_K_SNAPSHOTS, (double)s->snapshots) &&
		    cJSON_AddNumberToObject(out, CARET_CTL_K_PASS_MS, (double)s->pass_ms)));
	cJSON *arr = ok && s->all_hosts ? cJSON_AddArrayToObject(out, CARET_CTL_K_HOSTS) : NULL;
	if (!ok || (s->all_hosts && !arr))
		return -ENOMEM;
	for (size_t i = 0; i < s->n_hosts; i++)
		if (!add_host(arr, &s->hosts[i]))
			return -ENOMEM;
	return 0;
}

static int decode_host(const cJSON *e, size_t i, struct caret_ctl_snapshot_host *h,
		       struct ctl_why *w)
{
	char where[40];
	int64_t version = 0;
	snprintf(where, sizeof(where), "hosts[%zu]", i);
	if (ctl_get_str(e, where, CARET_CTL_K_HOST, false, &h->host, w) < 0 ||
	    ctl_get_bool(e, where, CARET_CTL_K_SELF, &h->self, w) < 0 ||
	    ctl_get_int_opt(e, where, CARET_CTL_K_BRIDGE_VERSION, 0, UINT32_MAX, &version, w) < 0 ||
	    ctl_get_str(e, where, CARET_CTL_K_ERROR, true, &h->error, w) < 0)
		return -EPROTO;
	h->version = (uint32_t)version;
	if (h->error)
		return ctl_get_int(e, where, CARET_CTL_K_ERRNO, 0, ERRNO_MAX, &h->err, w);
	if (ctl_get_str(e, where, CARET_CTL_K_PATH, false, &h->path, w) < 0 ||
	    ctl_get_bool(e, where, CARET_CTL_K_COMPLETE, &h->complete, w) < 0 ||
	    ctl_get_str(e, where, CARET_CTL_K_WHY, true, &h->why, w) < 0)
		return -EPROTO;
	return 0;
}

static int decode_hosts(const cJSON *in, struct caret_ctl_snapshot_result *s,
			struct ctl_why *w)
{
	const cJSON *arr, *e;
	if (!cJSON_GetObjectItemCaseSensitive(in, CARET_CTL_K_HOSTS))
		return 0;
	s->all_hosts = true;
	if (ctl_get_objects(in, NULL, CARET_CTL_K_HOSTS, CARET_CTL_SNAPSHOT_HOSTS_MAX, &arr,
			    &s->n_hosts, w) < 0)
		return -EPROTO;
	if (s->n_hosts == 0) { /* this host is always there */
		ctl_why_set(w, "field \"hosts\" is empty");
		return -EPROTO;
	}
	if (!(s->hosts = calloc(s->n_hosts, sizeof(*s->hosts)))) {
		ctl_why_set(w, "out of memory");
		return -ENOMEM;
	}
	size_t i = 0;
	cJSON_ArrayForEach(e, arr) {
		if (decode_host(e, i, &s->hosts[i], w) < 0)
			return -EPROTO;
		i++;
	}
	return 0;
}

int caret_ctl_snapshot_result_decode(const cJSON *in, struct caret_ctl_snapshot_result *s,
				     char *why, size_t len)
{
	struct ctl_why w = { "" };
	int64_t snaps = 0;
	int r = -EPROTO;
	memset(s, 0, sizeof(*s));
	if (!cJSON_IsObject(in)) {
		ctl_why_set(&w, "the snapshot result is not an object");
		return ctl_why_out(&w, why, len, -EPROTO);
	}
	s->have_counts = cJSON_GetObjectItemCaseSensitive(in, CARET_CTL_K_SNAPSHOTS) != NULL;
	if (ctl_get_str(in, NULL, CARET_CTL_K_SESSION, false, &s->session, &w) < 0 ||
	    ctl_get_str(in, NULL, CARET_CTL_K_PATH, true, &s->path, &w) < 0 ||
	    ctl_get_bool(in, NULL, CARET_CTL_K_COMPLETE, &s->complete, &w) < 0 ||
	    ctl_get_str(in, NULL, CARET_CTL_K_WHY, true, &s->why, &w) < 0 ||
	    (s->have_counts &&
	     (ctl_get_int(in, NULL, CARET_CTL_K_SNAPSHOTS, 0, (int64_t)CARET_CTL_COUNT_MAX, &snaps,
			  &w) < 0 ||
	      ctl_get_int(in, NULL, CARET_CTL_K_PASS_MS, 0, INT64_MAX, &s->pass_ms, &w) < 0)))
		goto fail;
	s->snapshots = (uint64_t)snaps;
	if ((r = decode_hosts(in, s, &w)) < 0)
		goto fail;
	/* one host's result names its snapshot; --all-hosts may have none here */
	if (!s->all_hosts && !s->path) {
		ctl_why_set(&w, "field \"path\" is missing");
		r = -EPROTO;
		goto fail;
	}
	return 0;
fail:
	caret_ctl_snapshot_result_free(s);
	return ctl_why_out(&w, why, len, r);
}

void caret_ctl_snapshot_result_free(struct caret_ctl_snapshot_result *s)
{
	free(s->hosts);
	memset(s, 0, sizeof(*s));
}

int caret_ctl_error_decode(const cJSON *in, struct caret_ctl_error *e, char *why, size_t len)
{
	struct ctl_why w = { "" };
	memset(e, 0, sizeof(*e));
	if (!cJSON_GetObjectItemCaseSensitive(in, CARET_CTL_K_ERROR))
		return -ENOENT;
	if (ctl_get_str(in, NULL, CARET_CTL_K_ERROR, false, &e->error, &w) < 0 ||
	    ctl_get_int_opt(in, NULL, CARET_CTL_K_ERRNO, 0, ERRNO_MAX, &e->err, &w) < 0)
		return ctl_why_out(&w, why, len, -EPROTO);
	return 0;
}
