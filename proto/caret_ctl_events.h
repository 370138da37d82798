/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The "events" request and its result (proto/caret_ctl.h): built and read
 * here only, for caretd and caretctl.
 */
#ifndef CARET_PROTO_CTL_EVENTS_H
#define CARET_PROTO_CTL_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "proto/caret_ctl.h"
#include "proto/caret_ctl_reply.h"

struct caret_ctl_events_req {
	bool has_since, has_until;
	int64_t since, until;
	int64_t count;		/* 0: the default */
	const char *after;	/* NULL: none */
	int64_t pids[CARET_CTL_EVENTS_MAX_FILTER];
	size_t npids;
	const char *kinds[CARET_CTL_EVENTS_MAX_FILTER];
	size_t nkinds;
};

/* Request built by caretctl; NULL when out of memory. */
cJSON *caret_ctl_enc_events_request(const struct caret_ctl_events_req *q);
/* Request read by caretd: 0 or -EINVAL (why filled). Strings point into req. */
int caret_ctl_dec_events_request(const cJSON *req, struct caret_ctl_events_req *q,
				 struct ctl_why *why);

/* One field of an event: type 'p' (pointer), 'i' (int64), 'u' (uint64) or
 * 's' (string). */
struct caret_ctl_field {
	const char *name;
	char type;
	uint64_t u;
	const char *s;
};

struct caret_ctl_event {
	int64_t ts;
	int pid;
	const char *procname;
	uint32_t index;
	const char *kind;
	const struct caret_ctl_field *fields;
	size_t nfields;
};

struct caret_ctl_events_page;

/* What follows a page's events. */
struct caret_ctl_events_trailer {
	const char *next; /* the position after the last event */
	bool more;	  /* events remain before the request's end */
	uint64_t segments, corrupt, late;
};

/* caretd: a page is encoded as the reader reads it, event by event, to
 * stop at the line's size; the page stays opaque to the events module
 * and the reply layer takes the result out. NULL when out of memory. */
struct caret_ctl_events_page *caret_ctl_events_page_new(void);
/* Adds one event; returns the bytes it may take on the line (an upper
 * bound, escapes included), or -ENOMEM. */
int64_t caret_ctl_events_page_add(struct caret_ctl_events_page *p,
				  const struct caret_ctl_event *e);
/* 0 or -ENOMEM. */
int caret_ctl_events_page_end(struct caret_ctl_events_page *p,
			      const struct caret_ctl_events_trailer *t);
/* The result object (p freed), for the reply layer. */
cJSON *caret_ctl_events_page_take(struct caret_ctl_events_page *p);
void caret_ctl_events_page_free(struct caret_ctl_events_page *p);

/* caretctl: a page, checked. */
struct ctl_events_page {
	const cJSON *events; /* array, each element checked by ctl_decode_event */
	const char *next;
	bool more;
	int64_t segments, corrupt, late;
};
int ctl_decode_events(const cJSON *r, struct ctl_events_page *p, struct ctl_why *why);

struct ctl_event {
	int64_t ts, pid, index;
	const char *procname, *kind;
	const cJSON *fields; /* object: numbers and strings */
};
int ctl_decode_event(const cJSON *e, size_t i, struct ctl_event *out, struct ctl_why *why);
/* Each event of a page, decoded, to fn (may be NULL) until it returns
 * non-zero: 1 then, 0 at the end, or -EPROTO (why filled). *n: the page's
 * events. */
int ctl_events_each(const struct ctl_events_page *p,
		    int (*fn)(const struct ctl_event *e, void *arg), void *arg, size_t *n,
		    struct ctl_why *why);
/* A field of a decoded event, in the order caretd sent them: its name and
 * either its string (*s) or, *s NULL, its number (*num); false past the
 * last. */
bool ctl_event_field(const struct ctl_event *e, size_t i, const char **name, const char **s,
		     double *num);
/* A pointer field ("0x...") or a number field as an integer; -EPROTO. */
int ctl_event_u64(const struct ctl_event *e, const char *name, uint64_t *out);
/* A string field, NULL when absent or not a string. */
const char *ctl_event_str(const struct ctl_event *e, const char *name);

#endif
