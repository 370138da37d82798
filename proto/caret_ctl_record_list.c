/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/caret_ctl.h"
#include "proto/caret_ctl_record_list.h"

#define K_CHANNEL "channel"
#define LIST_MAX CARET_CTL_RECORD_LIST_MAX
#define K_KERNEL "kernel_channel"

/* ---- encoding ---- */

static bool add_count(cJSON *ch, const char *key, bool unknown, uint64_t v)
{
	return unknown ? cJSON_AddNullToObject(ch, key) != NULL
		       : cJSON_AddNumberToObject(ch, key, (double)v) != NULL;
}

static bool add_channel(cJSON *ch, const struct caret_ctl_list_channel *c)
{
	return cJSON_AddStringToObject(ch, "name", c->name) &&
	       (!c->from || cJSON_AddStringToObject(ch, "from", c->from)) &&
	       add_count(ch, "subbuf_count", c->geometry_unknown, c->subbuf_count) &&
	       add_count(ch, "subbuf_size", c->geometry_unknown, c->subbuf_size);
}

int caret_ctl_record_list_encode(const struct caret_ctl_record_list *l, cJSON *out)
{
	if (l->unknown && (!cJSON_AddBoolToObject(out, "caretd", false) ||
			   !cJSON_AddStringToObject(out, "unknown", l->unknown)))
		return -ENOMEM;
	cJSON *o = cJSON_AddObjectToObject(out, CARET_CTL_K_LIST);
	cJSON *ch = o ? cJSON_AddObjectToObject(o, K_CHANNEL) : NULL, *k;
	bool ok = ch && add_channel(ch, &l->channel) &&
		  cJSON_AddStringToObject(o, "ust_list", l->ust_list) &&
		  ctl_add_strings(o, "ust_events", &l->ust_events) &&
		  ctl_add_strings(o, "ust_events_added", &l->ust_events_added) &&
		  ctl_add_strings(o, "not_recorded", &l->not_recorded) &&
		  ctl_add_strings(o, "context", &l->context);
	if (ok && l->have_kernel)
		ok = (k = cJSON_AddObjectToObject(o, K_KERNEL)) && add_channel(k, &l->kernel) &&
		     ctl_add_strings(k, "events", &l->kernel_events) &&
		     ctl_add_strings(k, "syscalls", &l->syscalls);
	ok = ok && cJSON_AddStringToObject(o, "trace_directory", l->trace_directory) &&
	     cJSON_AddBoolToObject(o, "append", l->append) &&
	     cJSON_AddStringToObject(o, "pacing", l->pacing) &&
	     cJSON_AddNumberToObject(o, "frequency", (double)l->frequency) &&
	     (l->have_sim_time ? cJSON_AddNumberToObject(o, "sim_time_domain", l->sim_time_domain) != NULL
			       : cJSON_AddNullToObject(o, "sim_time_domain") != NULL);
	return ok ? 0 : -ENOMEM;
}

/* ---- decoding ---- */

static int get_channel(const cJSON *o, const char *key, struct caret_ctl_list_channel *c,
		       struct ctl_why *w)
{
	const cJSON *ch;
	int64_t count, size;
	char where[32];
	snprintf(where, sizeof(where), "list.%s", key);
	if (ctl_get_obj(o, "list", key, &ch, w) < 0 ||
	    ctl_get_str(ch, where, "name", false, &c->name, w) < 0 ||
	    ctl_get_str(ch, where, "from", true, &c->from, w) < 0)
		return -EPROTO;
	c->geometry_unknown = cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(ch, "subbuf_count")) &&
			      cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(ch, "subbuf_size"));
	if (c->geometry_unknown)
		return 0;
	if (ctl_get_int(ch, where, "subbuf_count", 1, UINT32_MAX, &count, w) < 0 ||
	    ctl_get_int(ch, where, "subbuf_size", 1, INT64_MAX, &size, w) < 0)
		return -EPROTO;
	c->subbuf_count = (uint64_t)count;
	c->subbuf_size = (uint64_t)size;
	return 0;
}

static int decode(const cJSON *in, struct caret_ctl_record_list *l, struct ctl_why *w)
{
	const cJSON *o, *k;
	int64_t freq, dom;
	int r;
	if (!cJSON_IsObject(in) || ctl_get_obj(in, NULL, CARET_CTL_K_LIST, &o, w) < 0) {
		if (!cJSON_IsObject(in))
			ctl_why_set(w, "the result is not an object");
		return -EPROTO;
	}
	if (ctl_get_str(in, NULL, "unknown", true, &l->unknown, w) < 0 ||
	    get_channel(o, K_CHANNEL, &l->channel, w) < 0 ||
	    ctl_get_str(o, "list", "ust_list", false, &l->ust_list, w) < 0 ||
	    ctl_get_str(o, "list", "trace_directory", false, &l->trace_directory, w) < 0 ||
	    ctl_get_bool(o, "list", "append", &l->append, w) < 0 ||
	    ctl_get_str(o, "list", "pacing", false, &l->pacing, w) < 0 ||
	    ctl_get_int(o, "list", "frequency", 0, INT64_MAX, &freq, w) < 0)
		return -EPROTO;
	l->frequency = (uint64_t)freq;
	l->have_sim_time = !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "sim_time_domain"));
	if (l->have_sim_time) {
		if (ctl_get_int(o, "list", "sim_time_domain", 0, UINT32_MAX, &dom, w) < 0)
			return -EPROTO;
		l->sim_time_domain = (uint32_t)dom;
	}
	if ((r = ctl_get_strings(o, "list", "ust_events", LIST_MAX, &l->ust_events, w)) < 0 ||
	    (r = ctl_get_strings(o, "list", "ust_events_added", LIST_MAX, &l->ust_events_added,
				 w)) < 0 ||
	    (r = ctl_get_strings(o, "list", "not_recorded", LIST_MAX, &l->not_recorded, w)) < 0 ||
	    (r = ctl_get_strings(o, "list", "context", LIST_MAX, &l->context, w)) < 0)
		return r;
	l->have_kernel = cJSON_GetObjectItemCaseSensitive(o, K_KERNEL) != NULL;
	if (!l->have_kernel)
		return 0;
	if (get_channel(o, K_KERNEL, &l->kernel, w) < 0)
		return -EPROTO;
	k = cJSON_GetObjectItemCaseSensitive(o, K_KERNEL);
	if ((r = ctl_get_strings(k, "list.kernel_channel", "events", LIST_MAX, &l->kernel_events,
				 w)) < 0)
		return r;
	return ctl_get_strings(k, "list.kernel_channel", "syscalls", LIST_MAX, &l->syscalls, w);
}

int caret_ctl_record_list_decode(const cJSON *in, struct caret_ctl_record_list *l, char *why,
				 size_t len)
{
	return CTL_DECODE_OWNED(decode, caret_ctl_record_list_free, in, l, why, len);
}

void caret_ctl_record_list_free(struct caret_ctl_record_list *l)
{
	free(l->ust_events.v);
	free(l->ust_events_added.v);
	free(l->not_recorded.v);
	free(l->context.v);
	free(l->kernel_events.v);
	free(l->syscalls.v);
	memset(l, 0, sizeof(*l));
}
