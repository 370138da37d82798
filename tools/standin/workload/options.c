/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/standin/workload/options.h"

static const char usage[] =
"Usage: caret-standin [OPTION]...\n"
"A small ROS 2 system without ROS 2: tracetools records through\n"
"libtracetools.so, rclcpp entry points through librclcpp.so, and real\n"
"CycloneDDS traffic.\n"
"\n"
"  --name NAME           process and node name (default standin); with\n"
"                        several nodes they are NAME_0, NAME_1, ...\n"
"  --topic-prefix P      topics are /P/topic_<i> (default standin)\n"
"  --nodes N             nodes in this process (default 1)\n"
"  --pubs N              publishers per node, on /P/topic_0.. (default 1)\n"
"  --subs N              subscriptions per node, on /P/topic_0.. (default 0)\n"
"  --timers N            timers per node (default 1); timer 0 of a node with\n"
"                        publishers fires at --rate and publishes once on\n"
"                        each of them, the others fire every --period-ms\n"
"  --period-ms MS        period of the non-publishing timers (default 100)\n"
"  --timer-work-ms MS    every timer callback sleeps MS ms between its\n"
"                        callback_start and callback_end, as a user callback\n"
"                        that takes that long does in rclcpp's\n"
"                        GenericTimer::execute_callback (default 0)\n"
"  --rate HZ             messages per second per publisher (default 10)\n"
"  --services N          services per node, /P/NODE/service_<i>, each\n"
"                        answering with the request (default 0)\n"
"  --clients N           clients per node, of /P/NODE/service_<i>; timer 0\n"
"                        sends one request on each (default 0)\n"
"  --serialized          publish serialized messages, as rclcpp's\n"
"                        publish(const SerializedMessage &) after\n"
"                        rclcpp::Serialization: rmw_serialize, then\n"
"                        rcl/rmw_publish_serialized_message\n"
"  --extra-callbacks N   extra rclcpp_callback_register records per node\n"
"  --executor KIND       single, multi or static (default single)\n"
"  --distro D            jazzy (default) or humble: runs the stand-in built\n"
"                        from that distribution's rclcpp, tracetools and\n"
"                        rmw (caret-standin-humble for humble)\n"
"  --python-like         load tracetools, rclcpp and the rmw layer only\n"
"                        through dlopen(RTLD_LOCAL), as rclpy's extension\n"
"                        module does (runs caret-standin-py)\n"
"  --domain ID           DDS domain (default $ROS_DOMAIN_ID or 0)\n"
"  --duration SEC        run time; 0 exits right after init (default: until\n"
"                        SIGINT/SIGTERM)\n"
"  --print-counts        after init, print the number of calls of each kind\n"
"  --help                show this text\n"
"\n"
"Prints `ready pid=<pid>` once initialised and, at exit, `requests=..\n"
"served=.. responses=.. answered=.. failed=F` (failed: service writes) then\n"
"`published=N taken=M failed=F` (failed: publishes whose write failed).\n"
"RMW_IMPLEMENTATION picks the rmw library: rmw_cyclonedds_cpp (default) or\n"
"rmw_fastrtps_cpp. CYCLONEDDS_URI, when set, replaces the built-in\n"
"localhost config.\n";

enum { O_NAME = 256, O_PREFIX, O_NODES, O_PUBS, O_SUBS, O_TIMERS, O_PERIOD, O_TIMER_WORK,
	O_RATE, O_SERVICES, O_CLIENTS, O_EXTRA, O_EXECUTOR, O_DISTRO,
	O_DOMAIN, O_DURATION, O_COUNTS, O_PYTHON, O_SERIALIZED, O_HELP };

static const struct option longopts[] = {
	{ "name", required_argument, NULL, O_NAME },
	{ "topic-prefix", required_argument, NULL, O_PREFIX },
	{ "nodes", required_argument, NULL, O_NODES },
	{ "pubs", required_argument, NULL, O_PUBS },
	{ "subs", required_argument, NULL, O_SUBS },
	{ "timers", required_argument, NULL, O_TIMERS },
	{ "period-ms", required_argument, NULL, O_PERIOD },
	{ "timer-work-ms", required_argument, NULL, O_TIMER_WORK },
	{ "rate", required_argument, NULL, O_RATE },
	{ "services", required_argument, NULL, O_SERVICES },
	{ "clients", required_argument, NULL, O_CLIENTS },
	{ "extra-callbacks", required_argument, NULL, O_EXTRA },
	{ "executor", required_argument, NULL, O_EXECUTOR },
	{ "distro", required_argument, NULL, O_DISTRO },
	{ "domain", required_argument, NULL, O_DOMAIN },
	{ "duration", required_argument, NULL, O_DURATION },
	{ "print-counts", no_argument, NULL, O_COUNTS },
	{ "python-like", no_argument, NULL, O_PYTHON },
	{ "serialized", no_argument, NULL, O_SERIALIZED },
	{ "help", no_argument, NULL, O_HELP },
	{ NULL, 0, NULL, 0 },
};

/* Caps keep a typo from allocating millions of entities. */
static int parse_uint(const char *opt, const char *s, unsigned max,
	unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v > max) {
		fprintf(stderr, "caret-standin: --%s: expected 0..%u, got '%s'\n",
			opt, max, s);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

static int parse_double(const char *opt, const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0) || v > 1e9) {
		fprintf(stderr, "caret-standin: --%s: expected a number >= 0, "
			"got '%s'\n", opt, s);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_choice(const char *opt, const char *s,
	const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	fprintf(stderr, "caret-standin: --%s: unknown value '%s'\n", opt, s);
	return -1;
}

static void defaults(struct wl_options *o)
{
	memset(o, 0, sizeof(*o));
	o->name = "standin";
	o->topic_prefix = "standin";
	o->nodes = 1;
	o->pubs = 1;
	o->timers = 1;
	o->period_ms = 100;
	o->rate_hz = 10;
	o->duration_s = -1;
	o->domain = -1;
}

static int apply(struct wl_options *o, int c, const char *arg)
{
	static const char *const executors[] = { "single", "multi", "static" };
	static const char *const distros[] = { "jazzy", "humble" };
	unsigned u;
	int i;

	switch (c) {
	case O_NAME: o->name = arg; return 0;
	case O_PREFIX: o->topic_prefix = arg; return 0;
	case O_NODES: return parse_uint("nodes", arg, 1000, &o->nodes);
	case O_PUBS: return parse_uint("pubs", arg, 1000, &o->pubs);
	case O_SUBS: return parse_uint("subs", arg, 1000, &o->subs);
	case O_TIMERS: return parse_uint("timers", arg, 1000, &o->timers);
	case O_PERIOD: return parse_uint("period-ms", arg, 3600000, &o->period_ms);
	case O_TIMER_WORK: return parse_uint("timer-work-ms", arg, 60000, &o->timer_work_ms);
	case O_SERVICES: return parse_uint("services", arg, 1000, &o->services);
	case O_CLIENTS: return parse_uint("clients", arg, 1000, &o->clients);
	case O_EXTRA:
		return parse_uint("extra-callbacks", arg, 1000000,
			&o->extra_callbacks);
	case O_RATE: return parse_double("rate", arg, &o->rate_hz);
	case O_DURATION: return parse_double("duration", arg, &o->duration_s);
	case O_COUNTS: o->print_counts = true; return 0;
	case O_PYTHON: o->python_like = true; return 0;
	case O_SERIALIZED: o->serialized = true; return 0;
	case O_DOMAIN:
		if (parse_uint("domain", arg, 232, &u) < 0)
			return -1;
		o->domain = (int)u;
		return 0;
	case O_EXECUTOR:
		if ((i = parse_choice("executor", arg, executors, 3)) < 0)
			return -1;
		o->executor = (enum wl_executor)i;
		return 0;
	case O_DISTRO:
		if ((i = parse_choice("distro", arg, distros, 2)) < 0)
			return -1;
		o->distro = (enum wl_distro)i;
		return 0;
	}
	return -1;
}

int wl_parse_options(int argc, char **argv, struct wl_options *o)
{
	int c;

	defaults(o);
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == O_HELP || c == 'h') {
			fputs(usage, stdout);
			return 1;
		}
		if (c == '?' || apply(o, c, optarg) < 0)
			goto bad;
	}
	if (optind < argc) {
		fprintf(stderr, "caret-standin: unexpected argument '%s'\n",
			argv[optind]);
		goto bad;
	}
	if (o->pubs && o->timers && o->rate_hz <= 0) {
		fprintf(stderr, "caret-standin: --rate must be > 0\n");
		goto bad;
	}
	if (o->timers && o->period_ms == 0) {
		fprintf(stderr, "caret-standin: --period-ms must be > 0\n");
		goto bad;
	}
	if (!*o->name || strchr(o->name, '/')) {
		fprintf(stderr, "caret-standin: --name must be a plain name\n");
		goto bad;
	}
	return 0;
bad:
	fprintf(stderr, "Try 'caret-standin --help'.\n");
	return -1;
}
