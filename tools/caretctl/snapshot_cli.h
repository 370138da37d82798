/* SPDX-License-Identifier: Apache-2.0 */
/* `record`'s flight-recorder options, `caretctl snapshot`, and how
 * caretctl shows recordings' modes and snapshots (issue 23;
 * proto/caret_ctl_snapshot.h). */
#ifndef CARETCTL_SNAPSHOT_CLI_H
#define CARETCTL_SNAPSHOT_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum {
	CLI_OPT_SNAPSHOT = 0x3100,
	CLI_OPT_SNAPSHOT_SIZE,
	CLI_OPT_SNAPSHOT_ON,
	CLI_OPT_SNAPSHOT_FILTER,
};

struct cli_snapshot_opts {
	uint64_t size; /* the ring's bytes per CPU; 0: not a flight recorder */
	const char *on, *filter; /* its trigger, NULL: none */
};

#define CLI_SNAPSHOT_LONGOPTS                                                \
	{ "snapshot", no_argument, NULL, CLI_OPT_SNAPSHOT },                 \
	{ "snapshot-size", required_argument, NULL, CLI_OPT_SNAPSHOT_SIZE },   \
	{ "snapshot-on", required_argument, NULL, CLI_OPT_SNAPSHOT_ON },       \
	{ "snapshot-filter", required_argument, NULL, CLI_OPT_SNAPSHOT_FILTER }

/* 1 when opt is one of CLI_OPT_SNAPSHOT*: o set (the default size for
 * --snapshot alone, unless a size was given; --snapshot-on implies
 * --snapshot) or a usage error printed (*code, 2); 0 when it is not ours. */
int cli_snapshot_opt(int opt, const char *arg, struct cli_snapshot_opts *o, int *code);
/* After every option: the combinations. 0 or the usage error's status. */
int cli_snapshot_check(const struct cli_snapshot_opts *o);
void cli_snapshot_usage(FILE *f);
/* A status result's "recordings", or a stop result's snapshot fields,
 * for humans. */
struct caret_ctl_recordings;
void cli_snapshot_print(const struct caret_ctl_recordings *rec);
/* Whether a stop result is a flight recorder's. */
bool cli_snapshot_is(const struct caret_ctl_recordings *rec);
/* A flight recorder's stop result with no snapshot written: no trace. */
bool cli_snapshot_unwritten(const struct caret_ctl_recordings *rec);

#endif
