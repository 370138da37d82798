/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a `record` would make, as caretd decides it: the LTTng session's
 * layout (channels, their mode and sub-buffers, event rules, contexts)
 * and the recording's own settings (rotation, flight recorder, filters,
 * pacing). lib/lttng/lttng_layout.c fills the session's part from the
 * configuration that caret_lttng_record() then creates the session from,
 * so what `caretctl record -l` prints is what `lttng list` shows after.
 *
 * One encoder (caretd) and one decoder (caretctl), which treats the reply
 * as hostile: every field checked for type and bound, the error naming it.
 * Strings point into what they came from (the request or the reply's
 * cJSON tree): keep that alive while the plan is used.
 */
#ifndef CARET_PROTO_CTL_PLAN_H
#define CARET_PROTO_CTL_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "proto/caret_ctl.h"
#include "proto/caret_ctl_reply.h"
#include "proto/caret_ctl_sel.h"
#include "proto/caret_segment.h"

/* the plan's fields beyond the request's own keys */
#define CARET_CTL_K_SNAPSHOT_MODE "snapshot_mode"
#define CARET_CTL_K_ARMED "armed"
#define CARET_CTL_K_OWN_UID "own_uid"
#define CARET_CTL_K_CHANNELS "channels"
#define CARET_CTL_K_DOMAIN "domain"
#define CARET_CTL_K_BUFFERS "buffers"
#define CARET_CTL_K_MODE "mode"
#define CARET_CTL_K_OUTPUT "output"
#define CARET_CTL_K_ENABLED "enabled"
#define CARET_CTL_K_CONTEXTS "contexts"
#define CARET_CTL_K_EV_TYPE "type"
#define CARET_CTL_K_EV_FILTER "filter"
#define CARET_CTL_PLAN_UST_S "ust"
#define CARET_CTL_PLAN_KERNEL_S "kernel"
#define CARET_CTL_PLAN_PER_UID_S "per-uid"
#define CARET_CTL_PLAN_GLOBAL_S "global"
#define CARET_CTL_PLAN_DISCARD_S "discard"
#define CARET_CTL_PLAN_OVERWRITE_S "overwrite"
#define CARET_CTL_PLAN_MMAP_S "mmap"
#define CARET_CTL_PLAN_SPLICE_S "splice"
#define CARET_CTL_PLAN_TRACEPOINT_S "tracepoint"
#define CARET_CTL_PLAN_SYSCALL_S "syscall"

/* a UST channel and a kernel one at most */
#define CARET_CTL_PLAN_CHANNELS 2
/* -u's list with CARET's init events added, or -k's and --syscall's */
#define CARET_CTL_PLAN_EVENTS (2 * CARET_CTL_SEL_MAX + 64)
/* CARET's three and --context's */
#define CARET_CTL_PLAN_CONTEXTS (CARET_CTL_SEL_MAX + 3)

enum caret_ctl_plan_domain { CARET_CTL_PLAN_UST, CARET_CTL_PLAN_KERNEL };

struct caret_ctl_plan_event {
	const char *name;   /* an LTTng name or glob */
	const char *filter; /* LTTng's filter expression; NULL: none */
	bool syscall;       /* a kernel system call rule, not a tracepoint */
};

struct caret_ctl_plan_channel {
	const char *name;
	enum caret_ctl_plan_domain domain;
	bool per_uid;   /* per-UID buffers; else global (the kernel's) */
	bool overwrite; /* overwrite mode (a flight recorder); else discard */
	bool mmap;      /* mmap output; else splice */
	bool enabled;   /* false: created disabled (armed), enabled at go */
	uint64_t subbuf_size, subbuf_count;
	int n_events, n_contexts;
	struct caret_ctl_plan_event events[CARET_CTL_PLAN_EVENTS];
	const char *contexts[CARET_CTL_PLAN_CONTEXTS];
};

struct caret_ctl_plan {
	/* the session: its name (NULL: caretd names it when it records),
	 * where it writes (path's subdirectory of that name, or url) */
	const char *session, *path, *url;
	bool snapshot_mode; /* a snapshot session: written only by snapshots */
	bool armed;         /* started with its channel disabled until go */
	bool own_uid;       /* only the requester's processes (a member's) */
	/* the recording: replay pacing, records/s per process */
	const char *pacing;
	uint64_t frequency;
	/* rotation (0: none) and the chunks it keeps */
	uint64_t rotate_size, rotate_every_ms, keep, max_size;
	/* a flight recorder's ring bytes per CPU (0: not one), its trigger */
	uint64_t snapshot_size;
	const char *snapshot_on, *snapshot_filter;
	/* CARET's filter lists of the recording's replay (NULL: none) */
	const char *filter[CARET_FILTER_LISTS];
	int n_channels;
	struct caret_ctl_plan_channel ch[CARET_CTL_PLAN_CHANNELS];
};

/* The plan as one object (what the reply's "plan" holds); NULL when out
 * of memory. */
cJSON *caret_ctl_plan_obj(const struct caret_ctl_plan *p);
/* The result reply {"v", "type": "result", "plan": {...}}; NULL when out
 * of memory. */
cJSON *caret_ctl_enc_plan(const struct caret_ctl_plan *p);
/* Reads a result reply's "plan": 0, or -EPROTO with why naming the
 * field. */
int caret_ctl_dec_plan(const cJSON *reply, struct caret_ctl_plan *p, struct ctl_why *why);

#endif
