/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The result of `caretctl check --json` (caretctl(1)): what a trace holds
 * of CARET's init records, as C structs with one encoder and one decoder.
 * caretctl reads the trace itself (tools/caretctl/check_*.c) and fills
 * this struct; the line:
 *
 *  {"v", "type": "result", "cmd": "check", "trace", "complete",
 *   "problems": [..], "warnings": [..], "notes": [..], "events",
 *   "first_ns", "last_ns", "discarded_events", "discarded_events_unknown",
 *   "lost_packets", "lost_packets_unknown", "events_without_context":
 *   {NAME: n}, "processes": [PROC], "nodes": [{"name", "pid"}], "topics":
 *   [{"name", "publishers", "subscriptions"}], "events_per_kind": {NAME: n}}
 *  PROC = {"pid", "procname", "caret_init", "init_records": {KIND: n},
 *          "duplicates": {KIND: n}, "missing": {LINK: n}, "init_total",
 *          "duplicates_total", "missing_total", "both_variants",
 *          "filtered_registers", "runtime_events", "replay_passes",
 *          "replay_passes_whole", "replay_cut", "events", "publishes",
 *          "unbound_publishes", "bindings", "unmatched_bindings"}
 *
 * The encoder writes 64-bit counts and nanoseconds as exact integers; the
 * decoder reads them through cJSON's doubles, exact up to 2^53. Strings
 * of a decoded result point into the cJSON tree it came from.
 */
#ifndef CARET_PROTO_CTL_CHECK_H
#define CARET_PROTO_CTL_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "proto/caret_ctl_reply.h"

#define CARET_CTL_CMD_CHECK "check"
/* Bounds on what a decoder accepts per list. */
#define CARET_CTL_CHECK_MAX 1000000

/* A named count: an init kind, a link, a context field, an event name. */
struct caret_ctl_count {
	const char *name;
	uint64_t n;
};

struct caret_ctl_counts {
	size_t n;
	struct caret_ctl_count *v;
};

struct caret_ctl_check_proc {
	int64_t pid;
	const char *procname;
	bool caret_init, replay_cut;
	struct caret_ctl_counts init, dup, missing; /* only the kinds it has */
	uint64_t init_total, dup_total, missing_total, both_variants, filtered_registers;
	uint64_t runtime_events, replay_passes, replay_passes_whole;
	uint64_t events, publishes, unbound_publishes, bindings, unmatched_bindings;
};

struct caret_ctl_check_node {
	const char *name;
	int64_t pid;
};

struct caret_ctl_check_topic {
	const char *name;
	uint64_t publishers, subscriptions;
};

struct caret_ctl_check_result {
	const char *trace;
	bool complete;
	struct caret_ctl_strings problems, warnings, notes;
	uint64_t events, discarded_events, lost_packets;
	bool discarded_unknown, lost_unknown;
	int64_t first_ns, last_ns;
	struct caret_ctl_counts no_context, per_kind;
	size_t n_procs, n_nodes, n_topics;
	struct caret_ctl_check_proc *procs;
	struct caret_ctl_check_node *nodes;
	struct caret_ctl_check_topic *topics;
};

/* Adds the result's fields to out (an envelope). 0 or -ENOMEM. */
int caret_ctl_check_encode(const struct caret_ctl_check_result *c, cJSON *out);
/* 0, -EPROTO (why names the field) or -ENOMEM; on failure c holds nothing
 * to free. */
int caret_ctl_check_decode(const cJSON *in, struct caret_ctl_check_result *c, char *why,
			   size_t len);
/* Frees what the decoder allocated. */
void caret_ctl_check_free(struct caret_ctl_check_result *c);

#endif
