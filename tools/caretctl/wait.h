/* SPDX-License-Identifier: Apache-2.0 */
/* `wait` with progress, surviving a caretd restart (the recording goes on). */
#ifndef CARETCTL_WAIT_H
#define CARETCTL_WAIT_H

#include "rpc.h"

/*
 * Waits up to timeout_ms for every agent to reach RECORD, showing progress
 * on stderr with --json, else stdout. Returns CLI_EXIT_OK with the result
 * reply in *out, CLI_EXIT_INTERRUPTED on a stopping signal, or an exit
 * status already reported.
 */
int cli_wait_all(const struct cli_opts *g, int64_t timeout_ms, bool verbose,
		 struct cli_reply *out);

#endif
