/* SPDX-License-Identifier: Apache-2.0 */
#include "proto/caret_ctl_plan.h"

#include <errno.h>
#include <string.h>

#include "proto/caret_ctl.h"
#include "proto/caret_ctl_req.h"
#include "proto/caret_ctl_rotation.h"
#include "proto/caret_ctl_snapshot.h"

/* ---- encoder (caretd) ---- */

static bool add_str(cJSON *o, const char *k, const char *v)
{
	return v ? cJSON_AddStringToObject(o, k, v) != NULL : cJSON_AddNullToObject(o, k) != NULL;
}

static bool add_num(cJSON *o, const char *k, uint64_t v)
{
	return cJSON_AddNumberToObject(o, k, (double)v) != NULL;
}

static bool enc_event(cJSON *arr, const struct caret_ctl_plan_event *ev)
{
	cJSON *e = ctl_add_object(arr);
	if (!e)
		return false;
	return add_str(e, CARET_CTL_K_NAME, ev->name) &&
	       add_str(e, CARET_CTL_K_EV_TYPE,
		       ev->syscall ? CARET_CTL_PLAN_SYSCALL_S : CARET_CTL_PLAN_TRACEPOINT_S) &&
	       add_str(e, CARET_CTL_K_EV_FILTER, ev->filter);
}

static bool enc_channel(cJSON *arr, const struct caret_ctl_plan_channel *c)
{
	cJSON *o = ctl_add_object(arr);
	if (!o)
		return false;
	cJSON *evs = cJSON_AddArrayToObject(o, CARET_CTL_K_EVENTS);
	cJSON *ctx = cJSON_AddArrayToObject(o, CARET_CTL_K_CONTEXTS);
	bool ok = evs && ctx && add_str(o, CARET_CTL_K_NAME, c->name) &&
		  add_str(o, CARET_CTL_K_DOMAIN, c->domain == CARET_CTL_PLAN_KERNEL
							 ? CARET_CTL_PLAN_KERNEL_S
							 : CARET_CTL_PLAN_UST_S) &&
		  add_str(o, CARET_CTL_K_BUFFERS,
			  c->per_uid ? CARET_CTL_PLAN_PER_UID_S : CARET_CTL_PLAN_GLOBAL_S) &&
		  add_str(o, CARET_CTL_K_MODE,
			  c->overwrite ? CARET_CTL_PLAN_OVERWRITE_S : CARET_CTL_PLAN_DISCARD_S) &&
		  add_str(o, CARET_CTL_K_OUTPUT,
			  c->mmap ? CARET_CTL_PLAN_MMAP_S : CARET_CTL_PLAN_SPLICE_S) &&
		  cJSON_AddBoolToObject(o, CARET_CTL_K_ENABLED, c->enabled) &&
		  add_num(o, CARET_CTL_K_SUBBUF_SIZE, c->subbuf_size) &&
		  add_num(o, CARET_CTL_K_SUBBUF_COUNT, c->subbuf_count);
	for (int i = 0; ok && i < c->n_events; i++)
		ok = enc_event(evs, &c->events[i]);
	for (int i = 0; ok && i < c->n_contexts; i++) {
		cJSON *s = cJSON_CreateString(c->contexts[i]);
		ok = s && cJSON_AddItemToArray(ctx, s);
		if (!ok)
			cJSON_Delete(s);
	}
	return ok;
}

static bool enc_body(cJSON *o, const struct caret_ctl_plan *p)
{
	bool ok = add_str(o, CARET_CTL_K_SESSION, p->session) &&
		  add_str(o, CARET_CTL_K_PATH, p->path) && add_str(o, CARET_CTL_K_URL, p->url) &&
		  cJSON_AddBoolToObject(o, CARET_CTL_K_SNAPSHOT_MODE, p->snapshot_mode) &&
		  cJSON_AddBoolToObject(o, CARET_CTL_K_ARMED, p->armed) &&
		  cJSON_AddBoolToObject(o, CARET_CTL_K_OWN_UID, p->own_uid) &&
		  add_str(o, CARET_CTL_K_PACING, p->pacing) &&
		  add_num(o, CARET_CTL_K_RECORDING_FREQUENCY, p->frequency) &&
		  add_num(o, CARET_CTL_K_ROTATE_SIZE, p->rotate_size) &&
		  add_num(o, CARET_CTL_K_ROTATE_EVERY_MS, p->rotate_every_ms) &&
		  add_num(o, CARET_CTL_K_KEEP, p->keep) && add_num(o, CARET_CTL_K_MAX_SIZE, p->max_size) &&
		  add_num(o, CARET_CTL_K_SNAPSHOT_SIZE, p->snapshot_size) &&
		  add_str(o, CARET_CTL_K_SNAPSHOT_ON, p->snapshot_on) &&
		  add_str(o, CARET_CTL_K_SNAPSHOT_FILTER, p->snapshot_filter);
	for (int i = 0; ok && i < CARET_FILTER_LISTS; i++)
		ok = add_str(o, caret_ctl_filter_keys[i], p->filter[i]);
	cJSON *chs = ok ? cJSON_AddArrayToObject(o, CARET_CTL_K_CHANNELS) : NULL;
	ok = chs != NULL;
	for (int i = 0; ok && i < p->n_channels && i < CARET_CTL_PLAN_CHANNELS; i++)
		ok = enc_channel(chs, &p->ch[i]);
	return ok;
}

cJSON *caret_ctl_plan_obj(const struct caret_ctl_plan *p)
{
	cJSON *o = cJSON_CreateObject();
	if (o && !enc_body(o, p)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

cJSON *caret_ctl_enc_plan(const struct caret_ctl_plan *p)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *b = caret_ctl_plan_obj(p);
	if (!o || !b || !cJSON_AddNumberToObject(o, CARET_CTL_K_V, CARET_CTL_VERSION) ||
	    !cJSON_AddStringToObject(o, CARET_CTL_K_TYPE, CARET_CTL_T_RESULT) ||
	    !cJSON_AddItemToObject(o, CARET_CTL_K_PLAN, b)) {
		cJSON_Delete(o);
		cJSON_Delete(b);
		return NULL;
	}
	return o;
}

/* ---- decoder (caretctl): the reply is hostile ---- */

#define NAME_MAX_BYTES 1024 /* an LTTng name, a filter or a pattern list */

/* A string or null (NULL), at most NAME_MAX_BYTES. */
static int get_opt_str(const cJSON *o, const char *where, const char *k, const char **v,
		       struct ctl_why *why)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
	*v = NULL;
	if (!it || cJSON_IsNull(it))
		return 0;
	if (ctl_get_str(o, where, k, false, v, why) < 0)
		return -EPROTO;
	if (strnlen(*v, NAME_MAX_BYTES + 1) > NAME_MAX_BYTES) {
		ctl_why_set(why, "%s.%s is too long", where, k);
		return -EPROTO;
	}
	return 0;
}

/* One of two words: *v is whether it is the first. */
static int get_word(const cJSON *o, const char *where, const char *k, const char *yes,
		    const char *no, bool *v, struct ctl_why *why)
{
	const char *s;
	if (ctl_get_str(o, where, k, false, &s, why) < 0)
		return -EPROTO;
	*v = strcmp(s, yes) == 0;
	if (!*v && strcmp(s, no) != 0) {
		ctl_why_set(why, "%s.%s is neither \"%s\" nor \"%s\"", where, k, yes, no);
		return -EPROTO;
	}
	return 0;
}

static int dec_events(const cJSON *arr, struct caret_ctl_plan_channel *c, struct ctl_why *why)
{
	int n = cJSON_GetArraySize(arr);
	if (n > CARET_CTL_PLAN_EVENTS) {
		ctl_why_set(why, "plan: a channel has %d events, more than %d", n,
			    CARET_CTL_PLAN_EVENTS);
		return -EPROTO;
	}
	const cJSON *e;
	cJSON_ArrayForEach(e, arr) {
		struct caret_ctl_plan_event *ev = &c->events[c->n_events];
		if (!cJSON_IsObject(e)) {
			ctl_why_set(why, "plan: an event is not an object");
			return -EPROTO;
		}
		if (get_opt_str(e, "event", CARET_CTL_K_NAME, &ev->name, why) < 0 ||
		    get_word(e, "event", CARET_CTL_K_EV_TYPE, CARET_CTL_PLAN_SYSCALL_S,
			     CARET_CTL_PLAN_TRACEPOINT_S, &ev->syscall, why) < 0 ||
		    get_opt_str(e, "event", CARET_CTL_K_EV_FILTER, &ev->filter, why) < 0)
			return -EPROTO;
		if (!ev->name) {
			ctl_why_set(why, "plan: an event has no name");
			return -EPROTO;
		}
		c->n_events++;
	}
	return 0;
}

static int dec_contexts(const cJSON *arr, struct caret_ctl_plan_channel *c, struct ctl_why *why)
{
	if (cJSON_GetArraySize(arr) > CARET_CTL_PLAN_CONTEXTS) {
		ctl_why_set(why, "plan: a channel has more than %d contexts",
			    CARET_CTL_PLAN_CONTEXTS);
		return -EPROTO;
	}
	const cJSON *s;
	cJSON_ArrayForEach(s, arr) {
		if (!cJSON_IsString(s) || strnlen(s->valuestring, NAME_MAX_BYTES + 1) > NAME_MAX_BYTES) {
			ctl_why_set(why, "plan: a context is not a name");
			return -EPROTO;
		}
		c->contexts[c->n_contexts++] = s->valuestring;
	}
	return 0;
}

static int dec_channel(const cJSON *o, struct caret_ctl_plan_channel *c, struct ctl_why *why)
{
	const char *w = "channel";
	const cJSON *evs, *ctx;
	bool kernel;
	memset(c, 0, sizeof(*c));
	if (!cJSON_IsObject(o)) {
		ctl_why_set(why, "plan: a channel is not an object");
		return -EPROTO;
	}
	if (get_opt_str(o, w, CARET_CTL_K_NAME, &c->name, why) < 0 ||
	    get_word(o, w, CARET_CTL_K_DOMAIN, CARET_CTL_PLAN_KERNEL_S, CARET_CTL_PLAN_UST_S,
		     &kernel, why) < 0 ||
	    get_word(o, w, CARET_CTL_K_BUFFERS, CARET_CTL_PLAN_PER_UID_S, CARET_CTL_PLAN_GLOBAL_S,
		     &c->per_uid, why) < 0 ||
	    get_word(o, w, CARET_CTL_K_MODE, CARET_CTL_PLAN_OVERWRITE_S, CARET_CTL_PLAN_DISCARD_S,
		     &c->overwrite, why) < 0 ||
	    get_word(o, w, CARET_CTL_K_OUTPUT, CARET_CTL_PLAN_MMAP_S, CARET_CTL_PLAN_SPLICE_S,
		     &c->mmap, why) < 0 ||
	    ctl_get_bool(o, w, CARET_CTL_K_ENABLED, &c->enabled, why) < 0 ||
	    ctl_get_u64(o, w, CARET_CTL_K_SUBBUF_SIZE, &c->subbuf_size, why) < 0 ||
	    ctl_get_u64(o, w, CARET_CTL_K_SUBBUF_COUNT, &c->subbuf_count, why) < 0 ||
	    ctl_get_array(o, w, CARET_CTL_K_EVENTS, &evs, why) < 0 ||
	    ctl_get_array(o, w, CARET_CTL_K_CONTEXTS, &ctx, why) < 0)
		return -EPROTO;
	if (!c->name) {
		ctl_why_set(why, "plan: a channel has no name");
		return -EPROTO;
	}
	c->domain = kernel ? CARET_CTL_PLAN_KERNEL : CARET_CTL_PLAN_UST;
	return dec_events(evs, c, why) < 0 ? -EPROTO : dec_contexts(ctx, c, why);
}

static int dec_settings(const cJSON *o, struct caret_ctl_plan *p, struct ctl_why *why)
{
	const char *w = "plan";
	if (get_opt_str(o, w, CARET_CTL_K_SESSION, &p->session, why) < 0 ||
	    get_opt_str(o, w, CARET_CTL_K_PATH, &p->path, why) < 0 ||
	    get_opt_str(o, w, CARET_CTL_K_URL, &p->url, why) < 0 ||
	    ctl_get_bool(o, w, CARET_CTL_K_SNAPSHOT_MODE, &p->snapshot_mode, why) < 0 ||
	    ctl_get_bool(o, w, CARET_CTL_K_ARMED, &p->armed, why) < 0 ||
	    ctl_get_bool(o, w, CARET_CTL_K_OWN_UID, &p->own_uid, why) < 0 ||
	    get_opt_str(o, w, CARET_CTL_K_PACING, &p->pacing, why) < 0 ||
	    ctl_get_u64(o, w, CARET_CTL_K_RECORDING_FREQUENCY, &p->frequency, why) < 0 ||
	    ctl_get_u64(o, w, CARET_CTL_K_ROTATE_SIZE, &p->rotate_size, why) < 0 ||
	    ctl_get_u64(o, w, CARET_CTL_K_ROTATE_EVERY_MS, &p->rotate_every_ms, why) < 0 ||
	    ctl_get_u64(o, w, CARET_CTL_K_KEEP, &p->keep, why) < 0 ||
	    ctl_get_u64(o, w, CARET_CTL_K_MAX_SIZE, &p->max_size, why) < 0 ||
	    ctl_get_u64(o, w, CARET_CTL_K_SNAPSHOT_SIZE, &p->snapshot_size, why) < 0 ||
	    get_opt_str(o, w, CARET_CTL_K_SNAPSHOT_ON, &p->snapshot_on, why) < 0 ||
	    get_opt_str(o, w, CARET_CTL_K_SNAPSHOT_FILTER, &p->snapshot_filter, why) < 0)
		return -EPROTO;
	for (int i = 0; i < CARET_FILTER_LISTS; i++)
		if (get_opt_str(o, w, caret_ctl_filter_keys[i], &p->filter[i], why) < 0)
			return -EPROTO;
	return 0;
}

int caret_ctl_dec_plan(const cJSON *reply, struct caret_ctl_plan *p, struct ctl_why *why)
{
	memset(p, 0, sizeof(*p));
	const cJSON *o, *chs;
	if (ctl_get_obj(reply, NULL, CARET_CTL_K_PLAN, &o, why) < 0 ||
	    dec_settings(o, p, why) < 0 || ctl_get_array(o, "plan", CARET_CTL_K_CHANNELS, &chs, why) < 0)
		return -EPROTO;
	if (cJSON_GetArraySize(chs) > CARET_CTL_PLAN_CHANNELS) {
		ctl_why_set(why, "plan: more than %d channels", CARET_CTL_PLAN_CHANNELS);
		return -EPROTO;
	}
	const cJSON *c;
	cJSON_ArrayForEach(c, chs) {
		if (dec_channel(c, &p->ch[p->n_channels], why) < 0)
			return -EPROTO;
		p->n_channels++;
	}
	return 0;
}
