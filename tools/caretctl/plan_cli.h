/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `record -l`: caretd's plan of the recording (proto/caret_ctl_plan.h),
 * asked and printed; caretctl guesses no layout of its own.
 */
#ifndef CARETCTL_PLAN_CLI_H
#define CARETCTL_PLAN_CLI_H

#include <stdbool.h>

#include "caretctl.h"
#include "rpc.h"
#include "proto/caret_ctl_plan.h"

/*
 * Sends q (a record request with "plan") and decodes the plan into *p
 * (its strings point into r, which the caller frees): CLI_EXIT_OK;
 * CLI_EXIT_UNREACHABLE when caretd cannot be reached, nothing reported,
 * why in unreachable; any other failure reported.
 */
int cli_plan_ask(const struct cli_opts *g, const struct caret_ctl_req *q, struct cli_reply *r,
		 struct caret_ctl_plan *p, char *unreachable, size_t len);

/* The plan as text on stdout: the session, each channel with its mode,
 * sub-buffers, events and contexts, and the recording's settings. */
void cli_plan_text(const struct caret_ctl_plan *p);

#endif
