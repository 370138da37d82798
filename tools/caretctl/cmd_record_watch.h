/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `caretctl record`: record_opts.c reads the options, record_req.c makes
 * them a request (proto/caret_ctl_req.h), record_list.c answers -l,
 * cmd_record.c starts the session (record_start.c waits for LTTng's
 * start); cmd_record_watch.c sees a started session through (the wait,
 * the recording until Enter or a signal, the stop).
 */
#ifndef CARETCTL_CMD_RECORD_WATCH_H
#define CARETCTL_CMD_RECORD_WATCH_H

#include <stdio.h>

#include "caretctl.h"
#include "record_opts.h"

struct cli_hold;
/* The session is started, held by hold (record_hold.h): see it through to
 * the end; the exit status. */
int cli_record_through(const struct cli_opts *g, const struct rec_opts *o, FILE *info,
		       const char *session, const char *path, struct cli_hold *hold);
/* 128 + the signal that interrupted. */
int cli_record_interrupted_code(void);

#endif
