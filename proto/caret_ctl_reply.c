/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/caret_ctl.h"
#include "proto/caret_ctl_reply.h"
#include "proto/caret_ctl_version.h"

/* 2^63: the first double that does not fit an int64_t. */
#define TWO63 9223372036854775808.0

void ctl_why_set(struct ctl_why *why, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why->msg, sizeof(why->msg), fmt, ap);
	va_end(ap);
}

static int bad(struct ctl_why *why, const char *where, const char *key, const char *what)
{
	ctl_why_set(why, "field \"%s%s%s\" %s", where ? where : "", where ? "." : "", key,
		    what);
	return -EPROTO;
}

/*
 * cJSON keeps numbers as doubles; only exact integers in [lo, hi) are
 * ints. The range is checked first: casting a double outside int64_t's
 * range is undefined.
 */
static bool integral(double d, double lo, double hi)
{
	return isfinite(d) && d >= lo && d < hi && d == (double)(int64_t)d;
}

int ctl_get_int(const cJSON *o, const char *where, const char *key, int64_t min,
		int64_t max, int64_t *out, struct ctl_why *why)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!f)
		return bad(why, where, key, "is missing");
	if (!cJSON_IsNumber(f) || !integral(f->valuedouble, -TWO63, TWO63))
		return bad(why, where, key, "is not an integer");
	int64_t v = (int64_t)f->valuedouble;
	if (v < min || v > max)
		return bad(why, where, key, "is out of range");
	*out = v;
	return 0;
}

int ctl_get_count(const cJSON *o, const char *where, const char *key,
		  uint64_t *out, bool *known, struct ctl_why *why)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!f)
		return bad(why, where, key, "is missing");
	if (cJSON_IsNull(f)) {
		*out = 0;
		*known = false;
		return 0;
	}
	if (!cJSON_IsNumber(f) || !integral(f->valuedouble, 0, TWO63))
		return bad(why, where, key, "is neither null nor an integer >= 0");
	*out = (uint64_t)f->valuedouble;
	*known = true;
	return 0;
}

int ctl_get_num(const cJSON *o, const char *where, const char *key, double *out,
		struct ctl_why *why)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!f)
		return bad(why, where, key, "is missing");
	if (!cJSON_IsNumber(f) || !isfinite(f->valuedouble))
		return bad(why, where, key, "is not a number");
	*out = f->valuedouble;
	return 0;
}

int ctl_get_bool(const cJSON *o, const char *where, const char *key, bool *out,
		 struct ctl_why *why)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!f)
		return bad(why, where, key, "is missing");
	if (!cJSON_IsBool(f))
		return bad(why, where, key, "is not true or false");
	*out = cJSON_IsTrue(f);
	return 0;
}

int ctl_get_str(const cJSON *o, const char *where, const char *key, bool optional,
		const char **out, struct ctl_why *why)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, key);
	*out = NULL;
	if (!f) {
		if (optional)
			return 0;
		return bad(why, where, key, "is missing");
	}
	if (!cJSON_IsString(f) || !f->valuestring)
		return bad(why, where, key, "is not a string");
	*out = f->valuestring;
	return 0;
}

int ctl_get_obj(const cJSON *o, const char *where, const char *key,
		const cJSON **out, struct ctl_why *why)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!f)
		return bad(why, where, key, "is missing");
	if (!cJSON_IsObject(f))
		return bad(why, where, key, "is not an object");
	*out = f;
	return 0;
}

int ctl_get_array(const cJSON *o, const char *where, const char *key,
		  const cJSON **out, struct ctl_why *why)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!f)
		return bad(why, where, key, "is missing");
	if (!cJSON_IsArray(f))
		return bad(why, where, key, "is not an array");
	*out = f;
	return 0;
}

int ctl_get_objects(const cJSON *o, const char *where, const char *key, size_t max,
		    const cJSON **out, size_t *n, struct ctl_why *why)
{
	if (ctl_get_array(o, where, key, out, why) < 0)
		return -EPROTO;
	size_t i = 0;
	const cJSON *e;
	cJSON_ArrayForEach(e, *out) {
		if (++i > max)
			return bad(why, where, key, "has too many entries");
		if (!cJSON_IsObject(e))
			return bad(why, where, key, "holds something other than objects");
	}
	*n = i;
	return 0;
}

int ctl_get_bool_opt(const cJSON *o, const char *where, const char *key, bool *out,
		     struct ctl_why *why)
{
	return cJSON_GetObjectItemCaseSensitive(o, key) ? ctl_get_bool(o, where, key, out, why)
							 : 0;
}

int ctl_get_u64(const cJSON *o, const char *where, const char *key, uint64_t *out,
		struct ctl_why *why)
{
	int64_t v;
	if (ctl_get_int(o, where, key, 0, INT64_MAX, &v, why) < 0)
		return -EPROTO;
	*out = (uint64_t)v;
	return 0;
}

int ctl_get_int_opt(const cJSON *o, const char *where, const char *key, int64_t min,
		    int64_t max, int64_t *out, struct ctl_why *why)
{
	return cJSON_GetObjectItemCaseSensitive(o, key)
		       ? ctl_get_int(o, where, key, min, max, out, why)
		       : 0;
}

int ctl_why_out(const struct ctl_why *w, char *why, size_t len, int err)
{
	if (why && len)
		snprintf(why, len, "%s", w->msg);
	return err;
}

/*
 * Strings from caretd end up on a terminal: control characters (C0, DEL,
 * and C1 as UTF-8) could move the cursor or rewrite earlier output.
 */
static void defang(char *s)
{
	for (unsigned char *p = (unsigned char *)s; p && *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			*p = '?';
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			p[0] = p[1] = '?';
	}
}

static void defang_tree(cJSON *n)
{
	for (; n; n = n->next) {
		defang(n->string);
		if (cJSON_IsString(n))
			defang(n->valuestring);
		defang_tree(n->child);
	}
}

int ctl_reply_parse(const char *line, size_t len, cJSON **root,
		    enum ctl_reply_type *type, struct ctl_why *why)
{
	*root = NULL;
	if (memchr(line, '\0', len)) {
		ctl_why_set(why, "the line contains a NUL byte");
		return -EPROTO;
	}
	const char *end = NULL;
	cJSON *r = cJSON_ParseWithLengthOpts(line, len, &end, 0);
	if (!r) {
		ctl_why_set(why, "not valid JSON");
		return -EPROTO;
	}
	while (end && end < line + len && strchr(" \t\r", *end))
		end++;
	if (!end || end != line + len) {
		ctl_why_set(why, "text after the JSON object");
		goto fail;
	}
	if (!cJSON_IsObject(r)) {
		ctl_why_set(why, "not a JSON object");
		goto fail;
	}
	int64_t v;
	if (ctl_get_int(r, NULL, CARET_CTL_K_V, INT64_MIN, INT64_MAX, &v, why) < 0)
		goto fail;
	if (v != CARET_CTL_VERSION) {
		caret_ctl_version_reply(v, why->msg, sizeof(why->msg));
		goto fail;
	}
	const char *t, *msg;
	if (ctl_get_str(r, NULL, CARET_CTL_K_TYPE, false, &t, why) < 0)
		goto fail;
	if (strcmp(t, CARET_CTL_T_PROGRESS) == 0) {
		*type = CTL_REPLY_PROGRESS;
	} else if (strcmp(t, CARET_CTL_T_RESULT) == 0) {
		*type = CTL_REPLY_RESULT;
	} else if (strcmp(t, CARET_CTL_T_ERROR) == 0) {
		*type = CTL_REPLY_ERROR;
		if (ctl_get_str(r, NULL, CARET_CTL_K_ERROR, false, &msg, why) < 0)
			goto fail;
	} else {
		ctl_why_set(why, "unknown reply type");
		goto fail;
	}
	defang_tree(r);
	*root = r;
	return 0;
fail:
	cJSON_Delete(r);
	return -EPROTO;
}

int ctl_get_strings(const cJSON *o, const char *where, const char *key, size_t max,
		    struct caret_ctl_strings *s, struct ctl_why *why)
{
	const cJSON *arr, *e;
	if (ctl_get_array(o, where, key, &arr, why) < 0)
		return -EPROTO;
	size_t n = (size_t)cJSON_GetArraySize(arr);
	const char *dot = where ? "." : "";
	where = where ? where : "";
	if (n > max) {
		ctl_why_set(why, "field \"%s%s%s\" has too many entries", where, dot, key);
		return -EPROTO;
	}
	if (n && !(s->v = calloc(n, sizeof(*s->v)))) {
		ctl_why_set(why, "out of memory");
		return -ENOMEM;
	}
	cJSON_ArrayForEach(e, arr) {
		if (!cJSON_IsString(e) || !e->valuestring) {
			ctl_why_set(why, "field \"%s%s%s[%zu]\" is not a string", where, dot, key,
				    s->n);
			return -EPROTO;
		}
		s->v[s->n++] = e->valuestring;
	}
	return 0;
}

bool ctl_add_strings(cJSON *o, const char *key, const struct caret_ctl_strings *s)
{
	cJSON *a = cJSON_AddArrayToObject(o, key);
	for (size_t i = 0; a && i < s->n; i++) {
		cJSON *x = cJSON_CreateString(s->v[i]);
		if (!x || !cJSON_AddItemToArray(a, x)) {
			cJSON_Delete(x);
			return false;
		}
	}
	return a != NULL;
}

cJSON *ctl_add_object(cJSON *arr)
{
	cJSON *x = cJSON_CreateObject();
	if (!x || !cJSON_AddItemToArray(arr, x)) {
		cJSON_Delete(x);
		return NULL;
	}
	return x;
}
