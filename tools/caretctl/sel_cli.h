/* SPDX-License-Identifier: Apache-2.0 */
/* `record`'s options of `ros2 trace` (proto/caret_ctl_sel.h): -u/--ust,
 * --context, -k/--kernel, --syscall, --subbuffer-size-kernel. Each list
 * option takes the names that follow it, up to the next option (as
 * argparse's nargs='*'), or one with '=' (--ust=NAME). */
#ifndef CARETCTL_SEL_CLI_H
#define CARETCTL_SEL_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "proto/caret_ctl_record_list.h"
#include "proto/caret_ctl_sel.h"

enum {
	CLI_OPT_UST = 'u',
	CLI_OPT_KERNEL = 'k',
	CLI_OPT_CONTEXT = 0x5000,
	CLI_OPT_SYSCALL,
	CLI_OPT_SUBBUF_SIZE_KERNEL,
};

/* The short options, for getopt's string. */
#define CLI_SEL_SHORTOPTS "u::k::"
#define CLI_SEL_LONGOPTS                                                          \
	{ "ust", optional_argument, NULL, CLI_OPT_UST },                          \
	{ "kernel", optional_argument, NULL, CLI_OPT_KERNEL },                    \
	{ "context", optional_argument, NULL, CLI_OPT_CONTEXT },                  \
	{ "syscall", optional_argument, NULL, CLI_OPT_SYSCALL },                  \
	{ "subbuffer-size-kernel", required_argument, NULL, CLI_OPT_SUBBUF_SIZE_KERNEL }

/* 1 when opt is one of ours: parsed into s, taking the names after it
 * from argv (advancing optind), or a usage error printed (*code: 2); 0
 * when it is not ours. */
int cli_sel_opt(int opt, const char *arg, int argc, char **argv, struct caret_ctl_sel *s,
		int *code);
/* After every option: the combinations. 0 or the usage error's status;
 * drops (with a note) a --subbuffer-size-kernel with nothing to size. */
int cli_sel_check(struct caret_ctl_sel *s, bool light);
void cli_sel_usage(FILE *f);
/* `record --list`: the UST events, contexts and kernel channel. */
void cli_sel_list(const struct caret_ctl_sel *s, bool light);
/* The same into record -l --json's list (proto/caret_ctl_record_list.h):
 * ust_list, ust_events, ust_events_added, not_recorded, context, and the
 * kernel channel; the names are kept in b, and in s. */
struct cli_sel_names {
	const char *evs[2 * CARET_CTL_SEL_MAX + 64];
	const char *miss[32];
	const char *ctx[CARET_CTL_SEL_MAX + 8];
};
void cli_sel_fill(const struct caret_ctl_sel *s, bool light, struct cli_sel_names *b,
		  struct caret_ctl_record_list *l);
/* At a record: what a -u list leaves out of CARET's runtime events, on
 * stderr. */
void cli_sel_warn(const struct caret_ctl_sel *s);

#endif
