/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/caret_ctl.h"
#include "proto/caret_ctl_dec.h"

#define PID_MAX_ 0x7fffffff

int ctl_decode_progress(const cJSON *r, struct ctl_progress *p, struct ctl_why *why)
{
	if (ctl_get_int(r, NULL, CARET_CTL_K_RECORDING, 0, INT64_MAX, &p->recording, why) < 0 ||
	    ctl_get_int(r, NULL, CARET_CTL_K_TOTAL, 0, INT64_MAX, &p->total, why) < 0 ||
	    ctl_get_int(r, NULL, CARET_CTL_K_RECORDS_DONE, 0, INT64_MAX, &p->records_done, why) < 0 ||
	    ctl_get_int(r, NULL, CARET_CTL_K_RECORDS_TOTAL, 0, INT64_MAX, &p->records_total, why) < 0 ||
	    ctl_get_num(r, NULL, CARET_CTL_K_PERCENT, &p->percent, why) < 0)
		return -EPROTO;
	p->lttng_start_ms = -1;
	if (ctl_get_int_opt(r, NULL, CARET_CTL_K_LTTNG_START_MS, 0, INT64_MAX, &p->lttng_start_ms,
			    why) < 0)
		return -EPROTO;
	return 0;
}

/* Allocates n elements of size sz for an array field, none for an empty one. */
static int alloc_for(const cJSON *arr, size_t sz, void **out, size_t *n)
{
	*n = (size_t)cJSON_GetArraySize(arr);
	*out = NULL;
	if (*n == 0)
		return 0;
	*out = calloc(*n, sz);
	return *out ? 0 : -ENOMEM;
}

/* "dropped" and "drops", both optional (older daemons). */
static int decode_drops(const cJSON *r, struct ctl_drops *d, struct ctl_why *why)
{
	const cJSON *arr, *e;
	memset(d, 0, sizeof(*d));
	if (cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_DROPPED) &&
	    ctl_get_int(r, NULL, CARET_CTL_K_DROPPED, 0, INT64_MAX, &d->total, why) < 0)
		return -EPROTO;
	if (!cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_DROPS))
		return 0;
	if (ctl_get_array(r, NULL, CARET_CTL_K_DROPS, &arr, why) < 0)
		return -EPROTO;
	if (cJSON_GetArraySize(arr) > CARET_CTL_MAX_DROPS) {
		ctl_why_set(why, "drops has more than %d entries", CARET_CTL_MAX_DROPS);
		return -EPROTO;
	}
	void *mem;
	if (alloc_for(arr, sizeof(*d->d), &mem, &d->n) < 0)
		return -ENOMEM;
	d->d = mem;
	size_t i = 0;
	cJSON_ArrayForEach(e, arr) {
		char where[40];
		struct ctl_drop *x = &d->d[i];
		snprintf(where, sizeof(where), "drops[%zu]", i++);
		if (!cJSON_IsObject(e)) {
			ctl_why_set(why, "%s is not an object", where);
			goto fail;
		}
		if (ctl_get_int(e, where, CARET_CTL_K_PID, 0, PID_MAX_, &x->pid, why) < 0 ||
		    ctl_get_str(e, where, CARET_CTL_K_PROCNAME, false, &x->procname, why) < 0 ||
		    ctl_get_int(e, where, CARET_CTL_K_DROPPED, 0, INT64_MAX, &x->dropped, why) < 0)
			goto fail;
	}
	return 0;
fail:
	free(d->d);
	memset(d, 0, sizeof(*d));
	return -EPROTO;
}

int ctl_decode_wait(const cJSON *r, struct ctl_wait_result *w, struct ctl_why *why)
{
	const cJSON *arr, *e;
	memset(w, 0, sizeof(*w));
	if (ctl_get_bool(r, NULL, CARET_CTL_K_OK, &w->ok, why) < 0 ||
	    ctl_get_int(r, NULL, CARET_CTL_K_RECORDING, 0, INT64_MAX, &w->recording, why) < 0 ||
	    ctl_get_int(r, NULL, CARET_CTL_K_TOTAL, 0, INT64_MAX, &w->total, why) < 0 ||
	    ctl_get_array(r, NULL, CARET_CTL_K_NOT_RECORDING, &arr, why) < 0)
		return -EPROTO;
	void *mem;
	if (alloc_for(arr, sizeof(*w->lag), &mem, &w->n) < 0)
		return -ENOMEM;
	w->lag = mem;
	size_t i = 0;
	cJSON_ArrayForEach(e, arr) {
		char where[40];
		struct ctl_laggard *l = &w->lag[i];
		snprintf(where, sizeof(where), "not_recording[%zu]", i++);
		if (!cJSON_IsObject(e)) {
			ctl_why_set(why, "%s is not an object", where);
			goto fail;
		}
		if (ctl_get_int(e, where, CARET_CTL_K_PID, 0, PID_MAX_, &l->pid, why) < 0 ||
		    ctl_get_str(e, where, CARET_CTL_K_PROCNAME, false, &l->procname, why) < 0 ||
		    ctl_get_str(e, where, CARET_CTL_K_STATE, false, &l->state, why) < 0 ||
		    ctl_get_str(e, where, CARET_CTL_K_REASON, false, &l->reason, why) < 0)
			goto fail;
	}
	int rc = decode_drops(r, &w->drops, why);
	if (rc == -ENOMEM) {
		ctl_wait_result_free(w);
		return rc;
	}
	if (rc == 0)
		return 0;
fail:
	ctl_wait_result_free(w);
	return -EPROTO;
}

void ctl_wait_result_free(struct ctl_wait_result *w)
{
	free(w->drops.d);
	memset(&w->drops, 0, sizeof(w->drops));
	free(w->lag);
	w->lag = NULL;
	w->n = 0;
}

int ctl_decode_stop(const cJSON *r, struct ctl_stop_result *s, struct ctl_why *why)
{
	const cJSON *arr, *e;
	memset(s, 0, sizeof(*s));
	if (ctl_get_str(r, NULL, CARET_CTL_K_SESSION, false, &s->session, why) < 0 ||
	    ctl_get_str(r, NULL, CARET_CTL_K_PATH, false, &s->path, why) < 0 ||
	    ctl_get_count(r, NULL, CARET_CTL_K_DISCARDED_TOTAL, &s->discarded_total, &s->total_known,
			  why) < 0 ||
	    ctl_get_array(r, NULL, CARET_CTL_K_CHANNELS, &arr, why) < 0)
		return -EPROTO;
	/* optional: older daemons do not count duplicates */
	int64_t dups = 0;
	if (cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_DUPLICATES) &&
	    ctl_get_int(r, NULL, CARET_CTL_K_DUPLICATES, 0, INT64_MAX, &dups, why) < 0)
		return -EPROTO;
	s->duplicates = (uint64_t)dups;
	void *mem;
	if (alloc_for(arr, sizeof(*s->ch), &mem, &s->n) < 0)
		return -ENOMEM;
	s->ch = mem;
	size_t i = 0;
	cJSON_ArrayForEach(e, arr) {
		char where[40];
		struct ctl_channel *c = &s->ch[i];
		snprintf(where, sizeof(where), "channels[%zu]", i++);
		if (!cJSON_IsObject(e)) {
			ctl_why_set(why, "%s is not an object", where);
			goto fail;
		}
		if (ctl_get_str(e, where, CARET_CTL_K_NAME, false, &c->name, why) < 0 ||
		    ctl_get_count(e, where, CARET_CTL_K_DISCARDED, &c->discarded, &c->discarded_known,
				  why) < 0 ||
		    ctl_get_count(e, where, CARET_CTL_K_LOST_PACKETS, &c->lost, &c->lost_known, why) < 0)
			goto fail;
	}
	int rc = decode_drops(r, &s->drops, why);
	if (rc == -ENOMEM) {
		ctl_stop_result_free(s);
		return rc;
	}
	if (rc == 0)
		return 0;
fail:
	ctl_stop_result_free(s);
	return -EPROTO;
}

void ctl_stop_result_free(struct ctl_stop_result *s)
{
	free(s->drops.d);
	memset(&s->drops, 0, sizeof(s->drops));
	free(s->ch);
	s->ch = NULL;
	s->n = 0;
}

int ctl_decode_record(const cJSON *r, struct ctl_record_result *rec, struct ctl_why *why)
{
	rec->held = false;
	if (ctl_get_str(r, NULL, CARET_CTL_K_SESSION, false, &rec->session, why) < 0 ||
	    ctl_get_str(r, NULL, CARET_CTL_K_PATH, false, &rec->path, why) < 0 ||
	    ctl_get_bool_opt(r, NULL, CARET_CTL_K_HELD, &rec->held, why) < 0)
		return -EPROTO;
	return 0;
}

int ctl_decode_pause(const cJSON *r, struct ctl_pause_result *p, struct ctl_why *why)
{
	if (ctl_get_str(r, NULL, CARET_CTL_K_SESSION, false, &p->session, why) < 0 ||
	    ctl_get_str(r, NULL, CARET_CTL_K_PATH, false, &p->path, why) < 0 ||
	    ctl_get_bool(r, NULL, CARET_CTL_K_PAUSED, &p->paused, why) < 0)
		return -EPROTO;
	return 0;
}

int ctl_decode_hold(const cJSON *r, struct ctl_hold_result *h, struct ctl_why *why)
{
	if (ctl_get_str(r, NULL, CARET_CTL_K_SESSION, false, &h->session, why) < 0 ||
	    ctl_get_bool(r, NULL, CARET_CTL_K_HELD, &h->held, why) < 0)
		return -EPROTO;
	return 0;
}

int ctl_decode_agents(const cJSON *r, struct ctl_agents *ag, struct ctl_why *why)
{
	const cJSON *arr, *e;
	memset(ag, 0, sizeof(*ag));
	if (ctl_get_array(r, NULL, CARET_CTL_K_AGENTS, &arr, why) < 0)
		return -EPROTO;
	void *mem;
	if (alloc_for(arr, sizeof(*ag->a), &mem, &ag->n) < 0)
		return -ENOMEM;
	ag->a = mem;
	size_t i = 0;
	cJSON_ArrayForEach(e, arr) {
		char where[32];
		struct ctl_agent *a = &ag->a[i];
		snprintf(where, sizeof(where), "agents[%zu]", i++);
		if (!cJSON_IsObject(e)) {
			ctl_why_set(why, "%s is not an object", where);
			goto fail;
		}
		if (ctl_get_int(e, where, CARET_CTL_K_PID, 0, PID_MAX_, &a->pid, why) < 0 ||
		    ctl_get_str(e, where, CARET_CTL_K_PROCNAME, false, &a->procname, why) < 0 ||
		    ctl_get_str(e, where, CARET_CTL_K_STATE, false, &a->state, why) < 0 ||
		    ctl_get_str(e, where, CARET_CTL_K_REASON, true, &a->reason, why) < 0 ||
		    ctl_get_int(e, where, CARET_CTL_K_RECORDS, 0, INT64_MAX, &a->records, why) < 0 ||
		    ctl_get_int(e, where, CARET_CTL_K_REPLAYED, 0, INT64_MAX, &a->replayed, why) < 0 ||
		    ctl_get_int(e, where, CARET_CTL_K_REPLAY_TOTAL, 0, INT64_MAX, &a->replay_total,
				why) < 0 ||
		    ctl_get_int(e, where, CARET_CTL_K_DROPPED, 0, INT64_MAX, &a->dropped, why) < 0)
			goto fail;
		struct caret_ctl_strings nodes = { 0 };
		int rc = ctl_get_strings(e, where, CARET_CTL_K_NODES, SIZE_MAX, &nodes, why);
		a->nodes = nodes.v; /* freed with the rest on every path */
		a->n_nodes = nodes.n;
		if (rc < 0)
			goto fail;
	}
	return 0;
fail:
	ctl_agents_free(ag);
	return -EPROTO;
}

void ctl_agents_free(struct ctl_agents *ag)
{
	for (size_t i = 0; ag->a && i < ag->n; i++)
		free(ag->a[i].nodes);
	free(ag->a);
	ag->a = NULL;
	ag->n = 0;
}

static int decode_status(const cJSON *r, struct ctl_status *st, struct ctl_why *why)
{
	const cJSON *d, *l, *f;
	memset(st, 0, sizeof(*st));
	if (ctl_get_str(r, NULL, CARET_CTL_K_HOST, false, &st->host, why) < 0 ||
	    ctl_get_obj(r, NULL, CARET_CTL_K_CARETD, &d, why) < 0 ||
	    ctl_get_int(d, CARET_CTL_K_CARETD, CARET_CTL_K_PID, 0, PID_MAX_, &st->pid, why) < 0 ||
	    ctl_get_str(d, CARET_CTL_K_CARETD, CARET_CTL_K_VERSION, false, &st->version, why) < 0 ||
	    ctl_get_str(d, CARET_CTL_K_CARETD, CARET_CTL_K_PACING, false, &st->pacing, why) < 0 ||
	    ctl_get_obj(r, NULL, CARET_CTL_K_LTTNG, &l, why) < 0 ||
	    ctl_get_bool(l, CARET_CTL_K_LTTNG, CARET_CTL_K_REACHABLE, &st->lttng_reachable, why) < 0)
		return -EPROTO;
	struct caret_ctl_strings sessions = { 0 };
	int e = ctl_get_strings(l, CARET_CTL_K_LTTNG, CARET_CTL_K_ACTIVE_SESSIONS, SIZE_MAX,
				&sessions, why);
	st->sessions = sessions.v; /* ctl_decode_status frees it on error */
	st->n_sessions = sessions.n;
	if (e < 0)
		return e;
	/* Only meaningful with frequency pacing: absent or null is fine. */
	f = cJSON_GetObjectItemCaseSensitive(d, CARET_CTL_K_RECORDING_FREQUENCY);
	if (f && !cJSON_IsNull(f)) {
		if (ctl_get_int(d, CARET_CTL_K_CARETD, CARET_CTL_K_RECORDING_FREQUENCY, 0, INT64_MAX, &st->freq,
				why) < 0)
			return -EPROTO;
		st->have_freq = true;
	}
	/* Optional, so an older caretd still decodes. */
	f = cJSON_GetObjectItemCaseSensitive(d, CARET_CTL_K_REPLAY_BANDWIDTH);
	if (f && !cJSON_IsNull(f)) {
		if (ctl_get_int(d, CARET_CTL_K_CARETD, CARET_CTL_K_REPLAY_BANDWIDTH, 0, INT64_MAX,
				&st->bandwidth, why) < 0)
			return -EPROTO;
		st->have_bandwidth = true;
	}
	if (ctl_get_str(l, CARET_CTL_K_LTTNG, CARET_CTL_K_ERROR, true, &st->lttng_error, why) < 0 ||
	    ctl_get_str(l, CARET_CTL_K_LTTNG, CARET_CTL_K_CARETD_SESSION, true,
			&st->caretd_session, why) < 0 ||
	    ctl_get_str(l, CARET_CTL_K_LTTNG, CARET_CTL_K_CARETD_SESSION_PATH, true,
			&st->caretd_session_path, why) < 0)
		return -EPROTO;
	return ctl_decode_agents(r, &st->agents, why);
}

int ctl_decode_status(const cJSON *r, struct ctl_status *st, struct ctl_why *why)
{
	memset(st, 0, sizeof(*st));
	int e = decode_status(r, st, why);
	if (e < 0)
		ctl_status_free(st);
	return e;
}

void ctl_status_free(struct ctl_status *st)
{
	ctl_agents_free(&st->agents);
	free(st->sessions);
	st->sessions = NULL;
	st->n_sessions = 0;
}

int ctl_decode_accept(const cJSON *r, struct ctl_accept *a, struct ctl_why *why)
{
	if (ctl_get_bool(r, NULL, CARET_CTL_K_ACCEPTED, &a->accepted, why) < 0 ||
	    ctl_get_str(r, NULL, CARET_CTL_K_REASON, true, &a->reason, why) < 0)
		return -EPROTO;
	return 0;
}

int caret_ctl_broadcast_decode(const cJSON *r, struct ctl_broadcast *b, char *why, size_t len)
{
	struct ctl_why w = { "" };
	memset(b, 0, sizeof(*b));
	if (!cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_BROADCAST))
		return 0;
	b->present = true;
	if (ctl_get_bool(r, NULL, CARET_CTL_K_BROADCAST, &b->ok, &w) < 0 ||
	    ctl_get_str(r, NULL, CARET_CTL_K_BROADCAST_ERROR, true, &b->error, &w) < 0)
		return ctl_why_out(&w, why, len, -EPROTO);
	return 0;
}
