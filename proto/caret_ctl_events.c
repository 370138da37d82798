/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/caret_ctl.h"
#include "proto/caret_ctl_events.h"

/* ---- request ---- */

cJSON *caret_ctl_enc_events_request(const struct caret_ctl_events_req *q)
{
	cJSON *o = cJSON_CreateObject(), *a;
	bool ok = o && cJSON_AddNumberToObject(o, CARET_CTL_K_V, CARET_CTL_VERSION) &&
		  cJSON_AddStringToObject(o, CARET_CTL_K_CMD, CARET_CTL_CMD_EVENTS);
	if (ok && q->has_since)
		ok = cJSON_AddNumberToObject(o, CARET_CTL_K_SINCE, (double)q->since);
	if (ok && q->has_until)
		ok = cJSON_AddNumberToObject(o, CARET_CTL_K_UNTIL, (double)q->until);
	if (ok && q->count)
		ok = cJSON_AddNumberToObject(o, CARET_CTL_K_COUNT, (double)q->count);
	if (ok && q->after)
		ok = cJSON_AddStringToObject(o, CARET_CTL_K_AFTER, q->after);
	if (ok && q->npids) {
		ok = (a = cJSON_AddArrayToObject(o, CARET_CTL_K_PIDS)) != NULL;
		for (size_t i = 0; ok && i < q->npids; i++) {
			cJSON *n = cJSON_CreateNumber((double)q->pids[i]);
			ok = n && cJSON_AddItemToArray(a, n);
		}
	}
	if (ok && q->nkinds) {
		ok = (a = cJSON_AddArrayToObject(o, CARET_CTL_K_KINDS)) != NULL;
		for (size_t i = 0; ok && i < q->nkinds; i++) {
			cJSON *s = cJSON_CreateString(q->kinds[i]);
			ok = s && cJSON_AddItemToArray(a, s);
		}
	}
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static int opt_int(const cJSON *req, const char *k, int64_t min, int64_t max, bool *has,
		   int64_t *v, struct ctl_why *why)
{
	*has = cJSON_GetObjectItemCaseSensitive(req, k) != NULL;
	return *has && ctl_get_int(req, NULL, k, min, max, v, why) < 0 ? -EINVAL : 0;
}

int caret_ctl_dec_events_request(const cJSON *req, struct caret_ctl_events_req *q,
				 struct ctl_why *why)
{
	memset(q, 0, sizeof(*q));
	bool has_count;
	const cJSON *a, *x;
	if (opt_int(req, CARET_CTL_K_SINCE, INT64_MIN, INT64_MAX, &q->has_since, &q->since,
		    why) < 0 ||
	    opt_int(req, CARET_CTL_K_UNTIL, INT64_MIN, INT64_MAX, &q->has_until, &q->until,
		    why) < 0 ||
	    opt_int(req, CARET_CTL_K_COUNT, 1, CARET_CTL_EVENTS_MAX_COUNT, &has_count, &q->count,
		    why) < 0 ||
	    ctl_get_str(req, NULL, CARET_CTL_K_AFTER, true, &q->after, why) < 0)
		return -EINVAL;
	if ((a = cJSON_GetObjectItemCaseSensitive(req, CARET_CTL_K_PIDS))) {
		if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) > CARET_CTL_EVENTS_MAX_FILTER) {
			ctl_why_set(why, "field \"%s\" is not an array of at most %d pids",
				    CARET_CTL_K_PIDS, CARET_CTL_EVENTS_MAX_FILTER);
			return -EINVAL;
		}
		cJSON_ArrayForEach(x, a) {
			if (!cJSON_IsNumber(x) || x->valuedouble < 1 || x->valuedouble > INT32_MAX ||
			    x->valuedouble != (double)(int64_t)x->valuedouble) {
				ctl_why_set(why, "field \"%s\" holds something else than a pid",
					    CARET_CTL_K_PIDS);
				return -EINVAL;
			}
			q->pids[q->npids++] = (int64_t)x->valuedouble;
		}
	}
	if ((a = cJSON_GetObjectItemCaseSensitive(req, CARET_CTL_K_KINDS))) {
		if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) > CARET_CTL_EVENTS_MAX_FILTER) {
			ctl_why_set(why, "field \"%s\" is not an array of at most %d kinds",
				    CARET_CTL_K_KINDS, CARET_CTL_EVENTS_MAX_FILTER);
			return -EINVAL;
		}
		cJSON_ArrayForEach(x, a) {
			if (!cJSON_IsString(x)) {
				ctl_why_set(why, "field \"%s\" holds a non-string", CARET_CTL_K_KINDS);
				return -EINVAL;
			}
			q->kinds[q->nkinds++] = x->valuestring;
		}
	}
	return 0;
}

/* ---- result ---- */

struct caret_ctl_events_page {
	cJSON *o;
};

struct caret_ctl_events_page *caret_ctl_events_page_new(void)
{
	struct caret_ctl_events_page *p = malloc(sizeof(*p));
	cJSON *o = p ? cJSON_CreateObject() : NULL;
	if (!o || !cJSON_AddNumberToObject(o, CARET_CTL_K_V, CARET_CTL_VERSION) ||
	    !cJSON_AddStringToObject(o, CARET_CTL_K_TYPE, CARET_CTL_T_RESULT) ||
	    !cJSON_AddArrayToObject(o, CARET_CTL_K_EVENTS)) {
		cJSON_Delete(o);
		free(p);
		return NULL;
	}
	p->o = o;
	return p;
}

cJSON *caret_ctl_events_page_take(struct caret_ctl_events_page *p)
{
	cJSON *o = p ? p->o : NULL;
	free(p);
	return o;
}

void caret_ctl_events_page_free(struct caret_ctl_events_page *p)
{
	cJSON_Delete(caret_ctl_events_page_take(p));
}

/* Bytes a string may take once JSON-escaped ("\u00XX" for a control
 * byte), with its quotes. */
static int64_t escaped(size_t n)
{
	return 6 * (int64_t)n + 2;
}

int64_t caret_ctl_events_page_add(struct caret_ctl_events_page *p,
				  const struct caret_ctl_event *e)
{
	cJSON *arr = cJSON_GetObjectItemCaseSensitive(p->o, CARET_CTL_K_EVENTS);
	cJSON *o = cJSON_CreateObject(), *f;
	int64_t bytes = 128 + escaped(strlen(e->procname)) +
			escaped(strlen(e->kind));
	bool ok = arr && o && cJSON_AddNumberToObject(o, CARET_CTL_K_TS, (double)e->ts) &&
		  cJSON_AddNumberToObject(o, CARET_CTL_K_PID, e->pid) &&
		  cJSON_AddStringToObject(o, CARET_CTL_K_PROCNAME, e->procname) &&
		  cJSON_AddNumberToObject(o, CARET_CTL_K_INDEX, e->index) &&
		  cJSON_AddStringToObject(o, CARET_CTL_K_KIND, e->kind) &&
		  (f = cJSON_AddObjectToObject(o, CARET_CTL_K_FIELDS));
	for (size_t i = 0; ok && i < e->nfields; i++) {
		const struct caret_ctl_field *x = &e->fields[i];
		char buf[CARET_CTL_EVENTS_STR_MAX + 1];
		bytes += escaped(strlen(x->name)) + 4;
		switch (x->type) {
		case 'p':
			snprintf(buf, sizeof(buf), "0x%" PRIx64, x->u);
			ok = cJSON_AddStringToObject(f, x->name, buf) != NULL;
			bytes += 24;
			break;
		case 'i':
			ok = cJSON_AddNumberToObject(f, x->name, (double)(int64_t)x->u) != NULL;
			bytes += 24;
			break;
		case 's': {
			/* Cut long strings: one event must always fit a line. */
			size_t n = strnlen(x->s ? x->s : "", CARET_CTL_EVENTS_STR_MAX);
			memcpy(buf, x->s ? x->s : "", n);
			buf[n] = '\0';
			ok = cJSON_AddStringToObject(f, x->name, buf) != NULL;
			bytes += escaped(n);
			break;
		}
		default:
			ok = cJSON_AddNumberToObject(f, x->name, (double)x->u) != NULL;
			bytes += 24;
		}
	}
	if (!ok || !cJSON_AddItemToArray(arr, o)) {
		cJSON_Delete(o);
		return -ENOMEM;
	}
	return bytes;
}

int caret_ctl_events_page_end(struct caret_ctl_events_page *p,
			      const struct caret_ctl_events_trailer *t)
{
	cJSON *o = p->o;
	return cJSON_AddStringToObject(o, CARET_CTL_K_NEXT, t->next) &&
			       cJSON_AddBoolToObject(o, CARET_CTL_K_MORE, t->more) &&
			       cJSON_AddNumberToObject(o, CARET_CTL_K_SEGMENTS,
						       (double)t->segments) &&
			       cJSON_AddNumberToObject(o, CARET_CTL_K_CORRUPT_SEGMENTS,
						       (double)t->corrupt) &&
			       cJSON_AddNumberToObject(o, CARET_CTL_K_LATE, (double)t->late)
		       ? 0
		       : -ENOMEM;
}

/* ---- client side ---- */

int ctl_decode_events(const cJSON *r, struct ctl_events_page *p, struct ctl_why *why)
{
	memset(p, 0, sizeof(*p));
	if (ctl_get_array(r, NULL, CARET_CTL_K_EVENTS, &p->events, why) < 0 ||
	    ctl_get_str(r, NULL, CARET_CTL_K_NEXT, false, &p->next, why) < 0 ||
	    ctl_get_bool(r, NULL, CARET_CTL_K_MORE, &p->more, why) < 0 ||
	    ctl_get_int(r, NULL, CARET_CTL_K_SEGMENTS, 0, INT64_MAX, &p->segments, why) < 0 ||
	    ctl_get_int(r, NULL, CARET_CTL_K_CORRUPT_SEGMENTS, 0, INT64_MAX, &p->corrupt, why) <
		    0 ||
	    ctl_get_int(r, NULL, CARET_CTL_K_LATE, 0, INT64_MAX, &p->late, why) < 0)
		return -EPROTO;
	return 0;
}

int ctl_decode_event(const cJSON *e, size_t i, struct ctl_event *out, struct ctl_why *why)
{
	char where[32];
	snprintf(where, sizeof(where), "events[%zu]", i);
	if (!cJSON_IsObject(e)) {
		ctl_why_set(why, "%s is not an object", where);
		return -EPROTO;
	}
	if (ctl_get_int(e, where, CARET_CTL_K_TS, INT64_MIN, INT64_MAX, &out->ts, why) < 0 ||
	    ctl_get_int(e, where, CARET_CTL_K_PID, 1, INT32_MAX, &out->pid, why) < 0 ||
	    ctl_get_int(e, where, CARET_CTL_K_INDEX, 0, UINT32_MAX, &out->index, why) < 0 ||
	    ctl_get_str(e, where, CARET_CTL_K_PROCNAME, false, &out->procname, why) < 0 ||
	    ctl_get_str(e, where, CARET_CTL_K_KIND, false, &out->kind, why) < 0 ||
	    ctl_get_obj(e, where, CARET_CTL_K_FIELDS, &out->fields, why) < 0)
		return -EPROTO;
	const cJSON *f;
	cJSON_ArrayForEach(f, out->fields) {
		if (!cJSON_IsNumber(f) && !cJSON_IsString(f)) {
			ctl_why_set(why, "%s.fields.%s is neither a number nor a string", where,
				    f->string);
			return -EPROTO;
		}
	}
	return 0;
}

int ctl_event_u64(const struct ctl_event *e, const char *name, uint64_t *out)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(e->fields, name);
	if (cJSON_IsNumber(f)) {
		*out = (uint64_t)(int64_t)f->valuedouble;
		return 0;
	}
	if (cJSON_IsString(f) && strncmp(f->valuestring, "0x", 2) == 0) {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(f->valuestring + 2, &end, 16);
		if (!errno && *end == '\0' && end != f->valuestring + 2) {
			*out = v;
			return 0;
		}
	}
	return -EPROTO;
}

const char *ctl_event_str(const struct ctl_event *e, const char *name)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(e->fields, name);
	return cJSON_IsString(f) ? f->valuestring : NULL;
}

int ctl_events_each(const struct ctl_events_page *p,
		    int (*fn)(const struct ctl_event *e, void *arg), void *arg, size_t *n,
		    struct ctl_why *why)
{
	const cJSON *x;
	size_t i = 0;
	*n = (size_t)cJSON_GetArraySize(p->events);
	cJSON_ArrayForEach(x, p->events) {
		struct ctl_event ev;
		if (ctl_decode_event(x, i++, &ev, why) < 0)
			return -EPROTO;
		if (fn && fn(&ev, arg))
			return 1;
	}
	return 0;
}

bool ctl_event_field(const struct ctl_event *e, size_t i, const char **name, const char **s,
		     double *num)
{
	const cJSON *f = e->fields ? e->fields->child : NULL;
	for (; f && i; i--)
		f = f->next;
	if (!f)
		return false;
	*name = f->string;
	*s = cJSON_IsString(f) ? f->valuestring : NULL;
	*num = cJSON_IsNumber(f) ? f->valuedouble : 0;
	return true;
}
