/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The `record` request that record's options make (proto/caret_ctl_req.h),
 * shared by the recording (cmd_record.c) and its plan (record_list.c).
 */
#ifndef CARETCTL_RECORD_REQ_H
#define CARETCTL_RECORD_REQ_H

#include <stdbool.h>

#include "proto/caret_ctl_req.h"
#include "record_opts.h"

/* The request of these options; arm: started with its channel disabled;
 * plan: caretd's plan of it asked (`record -l`), nothing made. */
struct caret_ctl_req cli_record_request(const struct rec_opts *o, bool arm, bool plan);
/* {"go": session}: the armed recording starts. */
struct caret_ctl_req cli_record_go_request(const char *session);
/* Whether record arms its recording while it waits for Enter: not one
 * whose relay sessions other hosts create (--set-url --all-hosts), nor
 * one with a kernel channel: it would record from the arming on. */
bool cli_record_arms(const struct rec_opts *o);

#endif
