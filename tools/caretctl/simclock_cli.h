/* SPDX-License-Identifier: Apache-2.0 */
/* `record -c/--record-clock`: simulation time (proto/caret_ctl_simclock.h). */
#ifndef CARETCTL_SIMCLOCK_CLI_H
#define CARETCTL_SIMCLOCK_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct cli_simclock_opts {
	bool on;
	uint32_t domain; /* $ROS_DOMAIN_ID's, read at -c */
};

#define CLI_SIMCLOCK_LONGOPTS { "record-clock", no_argument, NULL, 'c' }

/* 1 when opt is -c: o set, or a usage error printed (*code, 2: a
 * ROS_DOMAIN_ID ROS 2 would refuse); 0 when it is not ours. */
int cli_simclock_opt(int opt, struct cli_simclock_opts *o, int *code);
void cli_simclock_usage(FILE *f);
/* record --list's line for it */
void cli_simclock_list(const struct cli_simclock_opts *o);

#endif
