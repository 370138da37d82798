/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/caret_ctl.h"
#include "proto/caret_ctl_enc.h"
#include "proto/caret_utf8.h"

bool ctl_add_u64(cJSON *o, const char *k, uint64_t v)
{
	char b[24];
	snprintf(b, sizeof(b), "%" PRIu64, v);
	return cJSON_AddRawToObject(o, k, b) != NULL;
}

bool ctl_add_i64(cJSON *o, const char *k, int64_t v)
{
	char b[24];
	snprintf(b, sizeof(b), "%" PRId64, v);
	return cJSON_AddRawToObject(o, k, b) != NULL;
}

/* cJSON's Add* return NULL on failure; one flag collects them so a reply
 * is either whole or not sent at all. */
/* Counts come from segments any user writes (B6): clamped, never a double
 * caretctl would refuse. */
static double count(uint64_t v)
{
	return (double)(v > CARET_CTL_COUNT_MAX ? CARET_CTL_COUNT_MAX : v);
}

static cJSON *fail_if(cJSON *o, bool ok)
{
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static cJSON *envelope(const char *type)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	return fail_if(o, cJSON_AddNumberToObject(o, CARET_CTL_K_V, CARET_CTL_VERSION) &&
				  cJSON_AddStringToObject(o, CARET_CTL_K_TYPE, type));
}

cJSON *caret_ctl_enc_result(void)
{
	return envelope(CARET_CTL_T_RESULT);
}

cJSON *caret_ctl_enc_error(int err, const char *msg)
{
	cJSON *o = envelope(CARET_CTL_T_ERROR);
	if (!o)
		return NULL;
	return fail_if(o, cJSON_AddStringToObject(o, CARET_CTL_K_ERROR, msg) &&
				  cJSON_AddNumberToObject(o, CARET_CTL_K_ERRNO, err < 0 ? -err : err));
}

cJSON *caret_ctl_enc_progress(const struct caret_ctl_progress *p)
{
	cJSON *o = envelope(CARET_CTL_T_PROGRESS);
	if (!o)
		return NULL;
	int percent = p->records_total ? (int)(100 * p->records_done / p->records_total) : 100;
	return fail_if(o, cJSON_AddNumberToObject(o, CARET_CTL_K_RECORDING, p->recording) &&
				  cJSON_AddNumberToObject(o, CARET_CTL_K_TOTAL, p->total) &&
				  cJSON_AddNumberToObject(o, CARET_CTL_K_RECORDS_DONE,
							  count(p->records_done)) &&
				  cJSON_AddNumberToObject(o, CARET_CTL_K_RECORDS_TOTAL,
							  count(p->records_total)) &&
				  cJSON_AddNumberToObject(o, CARET_CTL_K_PERCENT, percent));
}

cJSON *caret_ctl_enc_progress_lttng_start(int total, int64_t start_ms)
{
	cJSON *o = caret_ctl_enc_progress(&(struct caret_ctl_progress){ 0, total, 0, 1 });
	if (!o)
		return NULL;
	return fail_if(o, cJSON_AddNumberToObject(o, CARET_CTL_K_LTTNG_START_MS,
						  (double)(start_ms < 0 ? 0 : start_ms)));
}

static bool add_strings(cJSON *arr, const char *const *s, int n)
{
	for (int i = 0; i < n; i++) {
		cJSON *x = cJSON_CreateString(s[i]);
		if (!x || !cJSON_AddItemToArray(arr, x)) {
			cJSON_Delete(x);
			return false;
		}
	}
	return true;
}

static bool add_daemon(cJSON *o, const struct caret_ctl_daemon_info *info)
{
	cJSON *d;
	return cJSON_AddStringToObject(o, CARET_CTL_K_HOST, info->host) &&
	       (d = cJSON_AddObjectToObject(o, CARET_CTL_K_CARETD)) &&
	       cJSON_AddNumberToObject(d, CARET_CTL_K_PID, info->pid) &&
	       cJSON_AddStringToObject(d, CARET_CTL_K_VERSION, info->version) &&
	       cJSON_AddStringToObject(d, CARET_CTL_K_PACING, info->pacing) &&
	       cJSON_AddNumberToObject(d, CARET_CTL_K_RECORDING_FREQUENCY,
				       info->recording_frequency) &&
	       cJSON_AddNumberToObject(d, CARET_CTL_K_REPLAY_BANDWIDTH,
				       count(info->replay_bandwidth));
}

static bool add_lttng(cJSON *o, const struct caret_ctl_lttng_info *lt)
{
	cJSON *l, *act;
	if (!(l = cJSON_AddObjectToObject(o, CARET_CTL_K_LTTNG)) ||
	    !cJSON_AddBoolToObject(l, CARET_CTL_K_REACHABLE, lt->reachable))
		return false;
	if (!lt->reachable &&
	    !cJSON_AddStringToObject(l, CARET_CTL_K_ERROR, lt->error ? lt->error : ""))
		return false;
	if (!(act = cJSON_AddArrayToObject(l, CARET_CTL_K_ACTIVE_SESSIONS)) ||
	    !add_strings(act, lt->active, lt->n_active))
		return false;
	if (lt->caretd_session &&
	    (!cJSON_AddStringToObject(l, CARET_CTL_K_CARETD_SESSION, lt->caretd_session) ||
	     !cJSON_AddStringToObject(l, CARET_CTL_K_CARETD_SESSION_PATH,
				      lt->caretd_session_path ? lt->caretd_session_path : "")))
		return false;
	return true;
}

cJSON *caret_ctl_enc_agents_result(const struct caret_ctl_daemon_info *info,
				   const struct caret_ctl_lttng_info *lt)
{
	cJSON *o = envelope(CARET_CTL_T_RESULT);
	if (!o)
		return NULL;
	bool ok = true;
	if (info)
		ok = add_daemon(o, info) && add_lttng(o, lt);
	return fail_if(o, ok && cJSON_AddArrayToObject(o, CARET_CTL_K_AGENTS));
}

static bool add_nodes(cJSON *x, const char *nodes, int n)
{
	cJSON *arr = cJSON_AddArrayToObject(x, CARET_CTL_K_NODES);
	if (!arr)
		return false;
	const char *p = nodes;
	for (int i = 0; i < n; i++) {
		cJSON *s = cJSON_CreateString(p);
		if (!s || !cJSON_AddItemToArray(arr, s)) {
			cJSON_Delete(s);
			return false;
		}
		p += strlen(p) + 1;
	}
	return true;
}

/* Appends x to o's array `key`, or deletes it when it is incomplete. */
static int append(cJSON *o, const char *key, cJSON *x, bool ok)
{
	cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!x || !ok || !arr || !cJSON_AddItemToArray(arr, x)) {
		cJSON_Delete(x);
		return -ENOMEM;
	}
	return 0;
}

int caret_ctl_add_agent(cJSON *result, const struct caret_ctl_agent *a)
{
	cJSON *x = cJSON_CreateObject();
	bool ok = x && cJSON_AddNumberToObject(x, CARET_CTL_K_PID, a->pid) &&
		  cJSON_AddStringToObject(x, CARET_CTL_K_PROCNAME, a->procname) &&
		  cJSON_AddStringToObject(x, CARET_CTL_K_STATE, a->state) &&
		  cJSON_AddNumberToObject(x, CARET_CTL_K_RECORDS, count(a->records)) &&
		  cJSON_AddNumberToObject(x, CARET_CTL_K_REPLAYED, count(a->replayed)) &&
		  cJSON_AddNumberToObject(x, CARET_CTL_K_REPLAY_DONE, count(a->replay_done)) &&
		  cJSON_AddNumberToObject(x, CARET_CTL_K_REPLAY_TOTAL, count(a->replay_total)) &&
		  cJSON_AddNumberToObject(x, CARET_CTL_K_DROPPED, count(a->dropped)) &&
		  add_nodes(x, a->nodes, a->n_nodes) &&
		  (!a->reason || cJSON_AddStringToObject(x, CARET_CTL_K_REASON, a->reason)) &&
		  cJSON_AddStringToObject(x, CARET_CTL_K_SEGMENT, a->segment);
	return append(result, CARET_CTL_K_AGENTS, x, ok);
}

cJSON *caret_ctl_enc_record(const char *session, const char *path)
{
	cJSON *o = envelope(CARET_CTL_T_RESULT);
	if (!o)
		return NULL;
	return fail_if(o, cJSON_AddStringToObject(o, CARET_CTL_K_SESSION, session) &&
				  cJSON_AddStringToObject(o, CARET_CTL_K_PATH, path));
}

int caret_ctl_enc_record_held(cJSON *o)
{
	return cJSON_AddBoolToObject(o, CARET_CTL_K_HELD, true) ? 0 : -ENOMEM;
}

cJSON *caret_ctl_enc_pause(const char *session, const char *path, bool paused)
{
	cJSON *o = envelope(CARET_CTL_T_RESULT);
	if (!o)
		return NULL;
	return fail_if(o, cJSON_AddStringToObject(o, CARET_CTL_K_SESSION, session) &&
				  cJSON_AddStringToObject(o, CARET_CTL_K_PATH, path) &&
				  cJSON_AddBoolToObject(o, CARET_CTL_K_PAUSED, paused));
}

cJSON *caret_ctl_enc_hold(const char *session, bool held)
{
	cJSON *o = envelope(CARET_CTL_T_RESULT);
	if (!o)
		return NULL;
	return fail_if(o, cJSON_AddStringToObject(o, CARET_CTL_K_SESSION, session) &&
				  cJSON_AddBoolToObject(o, CARET_CTL_K_HELD, held));
}

cJSON *caret_ctl_enc_wait(bool ok, int recording, int total)
{
	cJSON *o = envelope(CARET_CTL_T_RESULT);
	if (!o)
		return NULL;
	return fail_if(o, cJSON_AddBoolToObject(o, CARET_CTL_K_OK, ok) &&
				  cJSON_AddNumberToObject(o, CARET_CTL_K_RECORDING, recording) &&
				  cJSON_AddNumberToObject(o, CARET_CTL_K_TOTAL, total) &&
				  cJSON_AddArrayToObject(o, CARET_CTL_K_NOT_RECORDING) &&
				  cJSON_AddArrayToObject(o, CARET_CTL_K_EXITED));
}

static cJSON *process(int pid, const char *procname, const char *state)
{
	cJSON *x = cJSON_CreateObject();
	if (!x)
		return NULL;
	return fail_if(x, cJSON_AddNumberToObject(x, CARET_CTL_K_PID, pid) &&
				  cJSON_AddStringToObject(x, CARET_CTL_K_PROCNAME, procname) &&
				  cJSON_AddStringToObject(x, CARET_CTL_K_STATE, state));
}

int caret_ctl_add_not_recording(cJSON *wait, int pid, const char *procname,
				const char *state, const char *reason)
{
	cJSON *x = process(pid, procname, state);
	return append(wait, CARET_CTL_K_NOT_RECORDING, x,
		      x && cJSON_AddStringToObject(x, CARET_CTL_K_REASON, reason));
}

int caret_ctl_add_exited(cJSON *wait, int pid, const char *procname, const char *state)
{
	cJSON *x = process(pid, procname, state);
	return append(wait, CARET_CTL_K_EXITED, x, x != NULL);
}

static bool add_count(cJSON *o, const char *key, uint64_t v, bool known)
{
	return known ? cJSON_AddNumberToObject(o, key, count(v)) != NULL
		     : cJSON_AddNullToObject(o, key) != NULL;
}

cJSON *caret_ctl_enc_stop(const char *session, const char *path,
			  const struct caret_ctl_channel *ch, size_t n, uint64_t duplicates)
{
	cJSON *o = envelope(CARET_CTL_T_RESULT), *arr;
	if (!o)
		return NULL;
	if (!cJSON_AddStringToObject(o, CARET_CTL_K_SESSION, session) ||
	    !cJSON_AddStringToObject(o, CARET_CTL_K_PATH, path) ||
	    !(arr = cJSON_AddArrayToObject(o, CARET_CTL_K_CHANNELS)))
		return fail_if(o, false);
	bool known = true;
	uint64_t total = 0;
	for (size_t i = 0; i < n; i++) {
		cJSON *x = cJSON_CreateObject();
		bool ok = x && cJSON_AddStringToObject(x, CARET_CTL_K_NAME, ch[i].name) &&
			  add_count(x, CARET_CTL_K_DISCARDED, ch[i].discarded,
				    ch[i].discarded_known) &&
			  add_count(x, CARET_CTL_K_LOST_PACKETS, ch[i].lost_packets,
				    ch[i].lost_known);
		if (append(o, CARET_CTL_K_CHANNELS, x, ok) < 0)
			return fail_if(o, false);
		known = known && ch[i].discarded_known;
		total += ch[i].discarded;
	}
	return fail_if(o, add_count(o, CARET_CTL_K_DISCARDED_TOTAL, total, known) &&
				  cJSON_AddNumberToObject(o, CARET_CTL_K_DUPLICATES,
							  (double)duplicates));
}

cJSON *caret_ctl_enc_accept(bool accepted, const char *reason)
{
	cJSON *o = envelope(CARET_CTL_T_RESULT);
	if (!o)
		return NULL;
	return fail_if(o, cJSON_AddBoolToObject(o, CARET_CTL_K_ACCEPTED, accepted) &&
				  (!reason || cJSON_AddStringToObject(o, CARET_CTL_K_REASON, reason)));
}

int caret_ctl_add_broadcast(cJSON *o, bool ok, const char *why)
{
	return cJSON_AddBoolToObject(o, CARET_CTL_K_BROADCAST, ok) &&
			       (!why ||
				cJSON_AddStringToObject(o, CARET_CTL_K_BROADCAST_ERROR, why))
		       ? 0
		       : -ENOMEM;
}

char *caret_ctl_enc_line(cJSON *o)
{
	if (!o)
		return NULL;
	char *s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	/* cJSON copies string bytes as they are: a reply is valid UTF-8
	 * whatever a segment or a request held (B13). Invalid bytes can only
	 * be inside strings, so '?' keeps the JSON well-formed. */
	if (s)
		caret_utf8_scrub(s, strlen(s), false);
	return s;
}

int caret_ctl_add_dropped(cJSON *result, uint64_t dropped)
{
	return cJSON_AddNumberToObject(result, CARET_CTL_K_DROPPED, count(dropped)) ? 0 : -ENOMEM;
}

int caret_ctl_add_drop(cJSON *result, int pid, const char *procname, uint64_t dropped)
{
	if (!cJSON_GetObjectItemCaseSensitive(result, CARET_CTL_K_DROPS) &&
	    !cJSON_AddArrayToObject(result, CARET_CTL_K_DROPS))
		return -ENOMEM;
	cJSON *x = cJSON_CreateObject();
	return append(result, CARET_CTL_K_DROPS, x,
		      x && cJSON_AddNumberToObject(x, CARET_CTL_K_PID, pid) &&
			      cJSON_AddStringToObject(x, CARET_CTL_K_PROCNAME, procname) &&
			      cJSON_AddNumberToObject(x, CARET_CTL_K_DROPPED, count(dropped)));
}
