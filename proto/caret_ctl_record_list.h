/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `caretctl record -l --json`: what a record with these options would
 * enable, from the lists caretd uses (proto/caret_ctl_evlist.h,
 * proto/caret_ctl_sel.h), as a C struct with one encoder and one decoder.
 * caretd is not asked. The line:
 *
 *  {"v", "type": "result", "cmd": "record", "caretd": false, "unknown",
 *   "list": {"channel": {"name", "from"?, "subbuf_count", "subbuf_size"
 *   (null: a flight recorder's, caretd's to divide)}, "ust_list": "-u" | "light" | "full",
 *   "ust_events", "ust_events_added", "not_recorded", "context",
 *   "kernel_channel"? {"name", "subbuf_count", "subbuf_size", "events",
 *   "syscalls"}, "trace_directory", "append", "pacing", "frequency",
 *   "sim_time_domain": domain or null}}
 *
 * Strings of a decoded list point into the cJSON tree it came from.
 */
#ifndef CARET_PROTO_CTL_RECORD_LIST_H
#define CARET_PROTO_CTL_RECORD_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "proto/caret_ctl_reply.h"

#define CARET_CTL_K_LIST "list"
/* Bounds on what a decoder accepts per list of names. */
#define CARET_CTL_RECORD_LIST_MAX 65536

struct caret_ctl_list_channel {
	const char *name;
	const char *from; /* where the geometry comes from ("from"; NULL: not said) */
	/* a flight recorder's ring is caretd's to divide: the counts are
	 * null on the wire */
	bool geometry_unknown;
	uint64_t subbuf_count, subbuf_size;
};

struct caret_ctl_record_list {
	/* what -l cannot know without caretd (the envelope's "unknown", with
	 * "caretd": false); NULL: nothing said */
	const char *unknown;
	struct caret_ctl_list_channel channel;
	const char *ust_list;
	struct caret_ctl_strings ust_events, ust_events_added, not_recorded, context;
	bool have_kernel;
	struct caret_ctl_list_channel kernel;
	struct caret_ctl_strings kernel_events, syscalls;
	const char *trace_directory;
	bool append;
	const char *pacing;
	uint64_t frequency;
	bool have_sim_time;
	uint32_t sim_time_domain;
};

/* Adds "list" to out (an envelope). 0 or -ENOMEM. */
int caret_ctl_record_list_encode(const struct caret_ctl_record_list *l, cJSON *out);
/* Reads out's "list". 0, -EPROTO (why names the field) or -ENOMEM; on
 * failure l holds nothing to free. */
int caret_ctl_record_list_decode(const cJSON *in, struct caret_ctl_record_list *l, char *why,
				 size_t len);
void caret_ctl_record_list_free(struct caret_ctl_record_list *l);

#endif
