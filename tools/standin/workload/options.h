/* SPDX-License-Identifier: Apache-2.0 */
#ifndef STANDIN_WL_OPTIONS_H
#define STANDIN_WL_OPTIONS_H

#include <stdbool.h>

enum wl_executor { WL_EXEC_SINGLE, WL_EXEC_MULTI, WL_EXEC_STATIC };
/* Which distribution's stand-in libraries to run. */
enum wl_distro { WL_DISTRO_JAZZY, WL_DISTRO_HUMBLE };

struct wl_options {
	const char *name;
	const char *topic_prefix;
	unsigned nodes, pubs, subs, timers, services, clients;
	unsigned extra_callbacks;
	unsigned period_ms;
	unsigned timer_work_ms; /* each timer callback's own run time */
	double rate_hz;
	double duration_s;	/* < 0: until SIGINT/SIGTERM */
	enum wl_executor executor;
	enum wl_distro distro;
	int domain;		/* < 0: ROS_DOMAIN_ID or 0 */
	bool print_counts;
	bool python_like;
	bool serialized;
};

/* 0: run; 1: exit successfully (--help); -1: usage error, already reported. */
int wl_parse_options(int argc, char **argv, struct wl_options *o);

#endif
