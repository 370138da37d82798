/* SPDX-License-Identifier: Apache-2.0 */
/* `record`'s rotation options and how caretctl shows rotating recordings
 * (issue 23; proto/caret_ctl_rotation.h). */
#ifndef CARETCTL_ROTATION_CLI_H
#define CARETCTL_ROTATION_CLI_H

#include <stdint.h>
#include <stdio.h>

struct cli_rotation {
	uint64_t size, every_ms, keep, max_size; /* 0: not given */
};

enum {
	CLI_OPT_ROTATE_SIZE = 0x3000,
	CLI_OPT_ROTATE_EVERY,
	CLI_OPT_KEEP,
	CLI_OPT_MAX_SIZE,
};

#define CLI_ROTATION_LONGOPTS                                               \
	{ "rotate-size", required_argument, NULL, CLI_OPT_ROTATE_SIZE },    \
	{ "rotate-every", required_argument, NULL, CLI_OPT_ROTATE_EVERY },  \
	{ "keep", required_argument, NULL, CLI_OPT_KEEP },                  \
	{ "max-size", required_argument, NULL, CLI_OPT_MAX_SIZE }

/* 1 when opt is one of CLI_OPT_ROTATE_*: parsed into r (or a usage error
 * printed: the exit status, 2); 0 when it is not ours. */
int cli_rotation_opt(int opt, const char *arg, struct cli_rotation *r, int *code);
/* After every option: the combinations. 0 or the usage error's status. */
int cli_rotation_check(const struct cli_rotation *r);
void cli_rotation_usage(FILE *f);
/* The rotating recordings of a status result ("rotations"), or the one of
 * a stop result ("rotation"), for humans. */
struct caret_ctl_recordings;
void cli_rotation_print(const struct caret_ctl_recordings *rec);
struct cli_opts;
/* When caretd itself ended the rotating recording `session` (its disk
 * about to fill): says why on standard error and returns 1; else 0. */
int cli_rotation_why_ended(const struct cli_opts *g, const char *session);
/* Before a rotating recording's stop: waits (at most CLI_SETTLE_MS, saying
 * so on info after a second) until the chunk being written has every live
 * process's replay, so the last chunk is complete like the others; returns
 * at once for a recording that does not rotate or a caretd that does not
 * answer. */
#define CLI_SETTLE_MS 10000
void cli_rotation_settle(const struct cli_opts *g, const char *session, FILE *info);

#endif
