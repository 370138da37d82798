/* SPDX-License-Identifier: Apache-2.0 */
/* `record`'s flight-recorder options, `caretctl snapshot`, and how
 * caretctl shows recordings' modes and snapshots (issue 23;
 * proto/caret_ctl_snapshot.h). */
#ifndef CARETCTL_SNAPSHOT_CLI_H
#define CARETCTL_SNAPSHOT_CLI_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum {
	CTL_OPT_SNAPSHOT = 0x3100,
	CTL_OPT_SNAPSHOT_SIZE,
	CTL_OPT_SNAPSHOT_ON,
	CTL_OPT_SNAPSHOT_FILTER,
};

struct ctl_snapshot_opts {
	uint64_t size; /* the ring's bytes per CPU; 0: not a flight recorder */
	const char *on, *filter; /* its trigger, NULL: none */
};

#define CTL_SNAPSHOT_LONGOPTS                                                \
	{ "snapshot", no_argument, NULL, CTL_OPT_SNAPSHOT },                 \
	{ "snapshot-size", required_argument, NULL, CTL_OPT_SNAPSHOT_SIZE },   \
	{ "snapshot-on", required_argument, NULL, CTL_OPT_SNAPSHOT_ON },       \
	{ "snapshot-filter", required_argument, NULL, CTL_OPT_SNAPSHOT_FILTER }

/* 1 when opt is one of CTL_OPT_SNAPSHOT*: o set (the default size for
 * --snapshot alone, unless a size was given; --snapshot-on implies
 * --snapshot) or a usage error printed (*code, 2); 0 when it is not ours. */
int ctl_snapshot_opt(int opt, const char *arg, struct ctl_snapshot_opts *o, int *code);
/* After every option: the combinations. 0 or the usage error's status. */
int ctl_snapshot_check(const struct ctl_snapshot_opts *o);
void ctl_snapshot_usage(FILE *f);
/* A status result's "recordings", or a stop result's snapshot fields,
 * for humans. */
void ctl_snapshot_print(const cJSON *root);
/* Whether a stop result is a flight recorder's. */
bool ctl_snapshot_is(const cJSON *root);

#endif
