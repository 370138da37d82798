/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caret-standin: a small ROS 2 system without ROS 2, for testing a tracing
 * agent preloaded in front of libtracetools.so / librclcpp.so. wl_main is
 * the program; exe_main.c runs it in an executable linked like a C++ node,
 * py_host.c from a library loaded like rclpy's extension module.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "tools/standin/workload/counts.h"
#include "tools/standin/workload/main.h"
#include "tools/standin/workload/executor.h"
#include "tools/standin/workload/options.h"
#include "tools/standin/workload/system.h"

#define JOIN_TIMEOUT_S 5.0

/* Global so the never-freed object graph stays reachable (LeakSanitizer). */
static struct wl_options opt;
static struct wl_system sys;

/* Returns when a signal in `set` arrives or `duration_s` (>= 0) elapses. */
static void wait_for_end(const sigset_t *set, double duration_s)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		struct timespec chunk = { 1, 0 };
		double left;

		if (duration_s >= 0) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			left = duration_s - (double)(now.tv_sec - start.tv_sec) -
				(double)(now.tv_nsec - start.tv_nsec) / 1e9;
			if (left <= 0)
				return;
			if (left < 1) {
				chunk.tv_sec = 0;
				chunk.tv_nsec = (long)(left * 1e9);
			}
		}
		if (sigtimedwait(set, NULL, &chunk) > 0)
			return;
		if (errno != EAGAIN && errno != EINTR)
			return;
	}
}

/* `serialized 0x..`: each publisher's serialized message, what
 * rmw_publish_serialized_message receives. */
static void print_serialized(FILE *f)
{
	fputs("serialized", f);
	for (unsigned j = 0; j < opt.nodes; j++)
		for (unsigned i = 0; i < opt.pubs; i++)
			fprintf(f, " %p", (void *)&sys.nodes[j]->pubs[i]->serialized);
	fputc('\n', f);
}

int wl_main(int argc, char **argv)
{
	sigset_t set;
	bool spin, joined = true;
	int r = wl_parse_options(argc, argv, &opt);

	if (r)
		return r > 0 ? 0 : 2;
	/* Shows up as the procname context in traces. */
	prctl(PR_SET_NAME, opt.name, 0, 0, 0);
	/* Blocked before DDS starts its threads, so only sigtimedwait sees
	 * them and shutdown happens on this thread, in order. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	if (wl_system_init(&sys, &opt) < 0 || wl_executor_setup(&sys) < 0)
		return 1;
	if (opt.print_counts)
		wl_print_counts(stdout);
	wl_print_groups(&sys, stdout);
	if (opt.serialized)
		print_serialized(stdout);
	spin = opt.duration_s != 0;
	if (spin && wl_executor_start(&sys) < 0) {
		wl_executor_stop();
		wl_executor_join(JOIN_TIMEOUT_S);
		return 1;
	}
	printf("ready pid=%d\n", (int)getpid());
	fflush(stdout);

	if (spin) {
		wait_for_end(&set, opt.duration_s);
		wl_executor_stop();
		joined = wl_executor_join(JOIN_TIMEOUT_S);
	}
	wl_print_traffic(stdout);
	if (!joined) {
		fputs("caret-standin: executor did not stop\n", stderr);
		_exit(1);
	}
	rmw_shutdown(&sys.context->rmw);
	return 0;
}
