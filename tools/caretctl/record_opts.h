/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `caretctl record`'s options: what they are (struct rec_opts), their help,
 * and their reading, with every rule a usage error (exit 2) checked before
 * caretd is asked (the limits caretd checks too: proto/caret_ctl_limits.h).
 */
#ifndef CARETCTL_RECORD_OPTS_H
#define CARETCTL_RECORD_OPTS_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

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

/* Reads record's arguments into *o (global options into *g). 0; -1 after
 * --help (exit status 0); or the exit status of a usage error, said. */
int cli_record_parse(struct cli_opts *g, struct rec_opts *o, int argc, char **argv);

#endif
