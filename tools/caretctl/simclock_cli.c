/* SPDX-License-Identifier: Apache-2.0 */
/* `record -c/--record-clock` (simclock_cli.h). */
#include <errno.h>
#include <stdlib.h>

#include "caretctl.h"
#include "proto/caret_ctl_simclock.h"
#include "simclock_cli.h"

/* The domain the user's ROS 2 processes are on: $ROS_DOMAIN_ID as rcl
 * reads it (unset or empty: 0, the default domain), so /clock is read
 * where `ros2 caret record -c`'s clock_recorder, started from the same
 * shell, would read it. */
static int domain_of_env(uint32_t *out)
{
	const char *s = getenv("ROS_DOMAIN_ID");
	if (!s || !*s) {
		*out = 0;
		return 0;
	}
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || *end || *s == '-' || *s == '+' || v > CARET_CTL_CLOCK_DOMAIN_MAX)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

int cli_simclock_opt(int opt, struct cli_simclock_opts *o, int *code)
{
	if (opt != 'c')
		return 0;
	o->on = true;
	if (domain_of_env(&o->domain) < 0)
		*code = cli_usage_error("record", "-c/--record-clock: ROS_DOMAIN_ID='%s' is not a "
				        "ROS 2 domain id (0 to %d)", getenv("ROS_DOMAIN_ID"),
				        CARET_CTL_CLOCK_DOMAIN_MAX);
	return 1;
}

void cli_simclock_usage(FILE *f)
{
	fprintf(f,
		"  -c, --record-clock          also record ROS time (as ros2 caret record -c):\n"
		"                              /clock of domain $ROS_DOMAIN_ID (default 0) as\n"
		"                              ros2_caret:sim_time events, which caret_analyze\n"
		"                              uses for xaxis_type='sim_time'; caretd reads\n"
		"                              /clock (no extra ROS node) from the recording's\n"
		"                              creation to its stop, one event a second at\n"
		"                              most; it fails if caretd cannot reach the domain\n");
}

void cli_simclock_list(const struct cli_simclock_opts *o)
{
	if (o->on)
		printf("sim time: /clock of ROS domain %u as ros2_caret:sim_time (caretd's "
		       "caret-simclock, once a second at most)\n", (unsigned)o->domain);
	else
		printf("sim time: not recorded (-c/--record-clock records /clock)\n");
}
