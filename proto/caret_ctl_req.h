/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Every control request (proto/caret_ctl.h) as a C struct, with its one
 * encoder (caretctl) and its one decoder (caretd). The decoder treats the
 * request as hostile: every field is checked for its type and range, with
 * the limits of proto/caret_ctl_limits.h, and its error names the field.
 * What it cannot check without the daemon (filter text against the segment
 * block's size and encoding, who asks) is the command's to check.
 *
 * Strings of a decoded request point into the cJSON tree it came from:
 * keep that alive while the request is used.
 */
#ifndef CARET_PROTO_CTL_REQ_H
#define CARET_PROTO_CTL_REQ_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "proto/caret_ctl.h"
#include "proto/caret_ctl_events.h"
#include "proto/caret_ctl_reply.h"
#include "proto/caret_ctl_sel.h"
#include "proto/caret_ctl_top.h"
#include "proto/caret_segment.h"

enum caret_ctl_cmd {
	CARET_CTL_STATUS,
	CARET_CTL_LIST,
	CARET_CTL_RECORD,
	CARET_CTL_WAIT,
	CARET_CTL_STOP,
	CARET_CTL_START,
	CARET_CTL_END,
	CARET_CTL_HOSTS,
	CARET_CTL_EVENTS,
	CARET_CTL_SNAPSHOT,
	CARET_CTL_PAUSE,
	CARET_CTL_RESUME,
	CARET_CTL_TOP,
	CARET_CTL_HOLD,
	CARET_CTL_N_CMDS
};

/* The wire name of a command ("status" ...), NULL when out of range. */
const char *caret_ctl_cmd_name(enum caret_ctl_cmd c);
/* The command of a wire name, or -1. */
int caret_ctl_cmd_by_name(const char *name);

/* CARET's four filter lists, by enum caret_filter_list: the one table of
 * their request keys. */
extern const char *const caret_ctl_filter_keys[CARET_FILTER_LISTS];

/* "record". Numbers are 0 when absent (0 itself is outside every limit). */
struct caret_ctl_record_req {
	/* set: start the armed recording of that name; nothing else counts */
	const char *go;
	const char *session; /* NULL: caretd names it */
	const char *path;    /* absolute; NULL with url */
	const char *url;     /* lttng-relayd output instead of path */
	const char *pacing;  /* NULL, CARET_CTL_PACING_ADAPTIVE or _FREQUENCY */
	uint64_t frequency, subbuf_size, subbuf_count;
	bool light, append, arm, all_hosts;
	const char *filter[CARET_FILTER_LISTS]; /* NULL or "": none */
	/* a rotating recording (proto/caret_ctl_rotation.h): LTTng's size and
	 * periodic schedules; keep and max_size bound its archived chunks and
	 * need one of them; none goes with url */
	uint64_t rotate_size, rotate_every_ms, keep, max_size;
	/* a flight recorder (proto/caret_ctl_snapshot.h): the ring's bytes
	 * per CPU; 0: not one */
	uint64_t snapshot_size;
	/* its trigger (NULL: none): an event's full name, a filter */
	const char *snapshot_on, *snapshot_filter;
	/* ros2 trace's -u, --context, -k, --syscall, --subbuffer-size-kernel
	 * (proto/caret_ctl_sel.h) */
	struct caret_ctl_sel sel;
	/* -c/--record-clock (proto/caret_ctl_simclock.h): /clock of that
	 * ROS domain into ros2_caret:sim_time while it records */
	bool record_clock;
	uint32_t clock_domain;
	/* `record -l`: what caretd would make (proto/caret_ctl_plan.h),
	 * nothing made */
	bool plan;
	/* the request's connection becomes the recording's hold
	 * (proto/caret_ctl.h, "hold"); not with arm or plan */
	bool hold;
};

/* "snapshot" (proto/caret_ctl_snapshot.h); the decoder fills
 * CARET_CTL_DEFAULT_TIMEOUT_MS when timeout_ms is absent. */
struct caret_ctl_snapshot_req {
	const char *session; /* NULL: the requester's latest recording */
	const char *output;  /* NULL: the recording's trace directory */
	int64_t timeout_ms;
	bool all_hosts; /* every host's flight recorder of that name too */
};

/* "wait": the decoder fills CARET_CTL_DEFAULT_TIMEOUT_MS when absent. */
struct caret_ctl_wait_req {
	int64_t timeout_ms;
};

/* "stop". */
struct caret_ctl_stop_req {
	const char *session; /* NULL: the requester's latest recording */
	bool all_hosts;
};

/* "pause" and "resume". */
struct caret_ctl_pause_req {
	const char *session; /* NULL: the requester's latest recording */
};

/* "hold": the requester holds its recording while its connection is
 * open, or (release) lets it run on unheld. */
struct caret_ctl_hold_req {
	const char *session; /* required: the recording's name */
	bool release;
};

/* "start" and "end" ("end" carries no filter). */
struct caret_ctl_startend_req {
	bool all_hosts;
	const char *filter[CARET_FILTER_LISTS];
};

/* Any request: "status", "list" and "hosts" carry nothing but the envelope. */
struct caret_ctl_req {
	int64_t v; /* the sender's protocol version (encoder: CARET_CTL_VERSION) */
	enum caret_ctl_cmd cmd;
	union {
		struct caret_ctl_record_req record;
		struct caret_ctl_wait_req wait;
		struct caret_ctl_stop_req stop;
		struct caret_ctl_pause_req pause;
		struct caret_ctl_startend_req startend;
		struct caret_ctl_events_req events;
		struct caret_ctl_snapshot_req snapshot;
		struct caret_ctl_top_req top;
		struct caret_ctl_hold_req hold;
	} u;
};

/* The request line's object; NULL when out of memory. */
cJSON *caret_ctl_enc_req(const struct caret_ctl_req *q);
/* Shorthand for a request with no field but the envelope. */
cJSON *caret_ctl_enc_req_simple(enum caret_ctl_cmd cmd);

/*
 * Reads a request object: 0; -EPROTO when the envelope is wrong (not an
 * object, "v" is not CARET_CTL_VERSION: why names both versions, "cmd"
 * missing); -EINVAL for an unknown command or a bad field (why names it).
 * q->v and q->cmd are set as far as they were read.
 */
int caret_ctl_dec_req(const cJSON *o, struct caret_ctl_req *q, struct ctl_why *why);

#endif
