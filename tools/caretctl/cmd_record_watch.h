/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `caretctl record`, in two files: cmd_record.c reads the options, builds
 * the request (proto/caret_ctl_req.h) and starts the session;
 * cmd_record_watch.c sees a started session through (the wait, the
 * recording until Enter or a signal, the stop).
 */
#ifndef CARETCTL_CMD_RECORD_WATCH_H
#define CARETCTL_CMD_RECORD_WATCH_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "caretctl.h"
#include "rotation_cli.h"
#include "snapshot_cli.h"
#include "sel_cli.h"
#include "simclock_cli.h"
#include "proto/caret_segment.h"

struct rec_opts {
	const char *session;
	char path[PATH_MAX];
	const char *pacing;
	uint64_t frequency, subbuf_size, subbuf_count;
	bool light, immediate, verbose, list, append, all_hosts;
	const char *url;	/* --set-url: lttng-relayd output instead of path */
	/* CARET's filters for this recording (CARET_SELECT_NODES ...), by
	 * enum caret_filter_list; NULL: none */
	const char *filter[CARET_FILTER_LISTS];
	int64_t duration_ms;	/* 0: until Enter or a signal */
	int64_t timeout_ms;
	struct cli_rotation rot; /* --rotate-size ... (issue 23) */
	struct cli_snapshot_opts snap; /* --snapshot ... */
	struct caret_ctl_sel sel; /* -u, --context, -k, --syscall (sel_cli.h) */
	struct cli_simclock_opts clock; /* -c/--record-clock */
};

struct cli_hold;
/* The session is started, held by hold (record_hold.h): see it through to
 * the end; the exit status. */
int cli_record_through(const struct cli_opts *g, const struct rec_opts *o, FILE *info,
		       const char *session, const char *path, struct cli_hold *hold);
/* 128 + the signal that interrupted. */
int cli_record_interrupted_code(void);

#endif
