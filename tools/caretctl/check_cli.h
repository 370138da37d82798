/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CARETCTL_CHECK_CLI_H
#define CARETCTL_CHECK_CLI_H

#include "caretctl.h"
#include "check_wire.h"

/* check_cli_read's answers that are no exit code (those are >= 0). */
enum { CHECK_CLI_READ = -1, CHECK_CLI_HELP = -2 };

/*
 * The command line every command that reads one trace directory shares
 * (`check`, the summaries): [--timeout D] TRACE_DIR, then the read isolated
 * in a child. CHECK_CLI_READ with *rep filled (check_wire_free) and *dir
 * set; CHECK_CLI_HELP when -h asks the caller for its own usage; else the
 * exit code, the user already told. extra names a second operand in the
 * usage error ("'%s'" follows it).
 */
int check_cli_read(struct cli_opts *g, const char *cmd, const char *extra, int argc,
		   char **argv, struct check_report *rep, const char **dir);

#endif
