/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Control messages treated as untrusted: the envelope check of reply lines
 * (caretctl), and typed field access that names the offending field
 * instead of crashing (caretctl for replies, caretd for requests).
 */
#ifndef CARET_PROTO_CTL_REPLY_H
#define CARET_PROTO_CTL_REPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cjson/cJSON.h>

/* A list of strings in a typed result. */
struct caret_ctl_strings {
	size_t n;
	const char **v;
};

/* Why a reply was rejected, for the user. */
struct ctl_why {
	char msg[256];
};

enum ctl_reply_type { CTL_REPLY_PROGRESS, CTL_REPLY_RESULT, CTL_REPLY_ERROR };

/*
 * Parses one line into an object with "v" == CARET_CTL_VERSION and a known
 * "type"; an error reply must carry an "error" string. 0 or -EPROTO.
 */
int ctl_reply_parse(const char *line, size_t len, cJSON **root,
		    enum ctl_reply_type *type, struct ctl_why *why);

/*
 * Field getters. where names the object for the message ("agents[2]"),
 * NULL for the top level. All return 0 or -EPROTO with why filled.
 */
int ctl_get_int(const cJSON *o, const char *where, const char *key, int64_t min,
		int64_t max, int64_t *out, struct ctl_why *why);
/* An integer from 0 to INT64_MAX (the largest ctl_get_int takes). */
int ctl_get_u64(const cJSON *o, const char *where, const char *key, uint64_t *out,
		struct ctl_why *why);
/* A counter that LTTng may not know: integer >= 0, or null (*known = false). */
int ctl_get_count(const cJSON *o, const char *where, const char *key,
		  uint64_t *out, bool *known, struct ctl_why *why);
int ctl_get_num(const cJSON *o, const char *where, const char *key, double *out,
		struct ctl_why *why);
int ctl_get_bool(const cJSON *o, const char *where, const char *key, bool *out,
		 struct ctl_why *why);
/* *out points into o; optional: a missing key yields NULL. */
int ctl_get_str(const cJSON *o, const char *where, const char *key, bool optional,
		const char **out, struct ctl_why *why);
int ctl_get_obj(const cJSON *o, const char *where, const char *key,
		const cJSON **out, struct ctl_why *why);
int ctl_get_array(const cJSON *o, const char *where, const char *key,
		  const cJSON **out, struct ctl_why *why);

/* An array of objects of at most max entries: its size in *n. */
int ctl_get_objects(const cJSON *o, const char *where, const char *key, size_t max,
		    const cJSON **out, size_t *n, struct ctl_why *why);
/* An array of at most max strings into s (s->v allocated, its strings
 * pointing into o; the caller frees s->v on every path): 0, -EPROTO or
 * -ENOMEM with why. */
int ctl_get_strings(const cJSON *o, const char *where, const char *key, size_t max,
		    struct caret_ctl_strings *s, struct ctl_why *why);
/* A new object at the end of the array arr, or NULL when out of memory. */
cJSON *ctl_add_object(cJSON *arr);
/* o[key] = s as an array of strings: false when out of memory. */
bool ctl_add_strings(cJSON *o, const char *key, const struct caret_ctl_strings *s);
/* Optional fields: a missing key leaves *out as it is. */
int ctl_get_bool_opt(const cJSON *o, const char *where, const char *key, bool *out,
		     struct ctl_why *why);
int ctl_get_int_opt(const cJSON *o, const char *where, const char *key, int64_t min,
		    int64_t max, int64_t *out, struct ctl_why *why);

/* The typed codecs' (caret_ctl_X_decode) why: w's message into why, err
 * returned. */
int ctl_why_out(const struct ctl_why *w, char *why, size_t len, int err);

void ctl_why_set(struct ctl_why *why, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The typed codecs' contract, kept in one place: *out starts zeroed, and a
 * result that fails to decode is released (so the caller frees nothing) and
 * says why. Evaluates to 0 or decode's negative errno. A macro so that each
 * codec keeps its own typed decode and free (no casts of function pointers).
 */
#define CTL_DECODE_OWNED(decode, release, in, out, why, len)                   \
	({                                                                     \
		struct ctl_why w_ = { "" };                                    \
		memset((out), 0, sizeof(*(out)));                              \
		int r_ = decode((in), (out), &w_);                             \
		if (r_ < 0)                                                    \
			release(out);                                          \
		r_ < 0 ? ctl_why_out(&w_, (why), (len), r_) : 0;               \
	})

#endif
