/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Makes init records at any moment, as rclpy does (every wait with a
 * timeout creates a timer): "initmaker N HZ" calls tracetools' rcl_init and
 * rcl_node_init, then rcl_timer_init for N timers (handles 0x10000000 + i),
 * prints "ready pid=P", then one more timer every 1/HZ s (handles
 * 0x20000000 + i) until SIGUSR1, prints "stopped K" (K streamed timers)
 * and sleeps until it is ended.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "tools/standin/tracetools/tracetools.h"

static volatile sig_atomic_t stop;

static void on_usr1(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	long n = atol(argv[1]);
	double hz = atof(argv[2]);
	if (n < 0 || hz <= 0)
		return 2;
	static int ctx, node;
	struct sigaction sa = { .sa_handler = on_usr1 };
	sigaction(SIGUSR1, &sa, NULL);
	ros_trace_rcl_init(&ctx);
	ros_trace_rcl_node_init(&node, &node, "initmaker", "/");
	for (long i = 0; i < n; i++)
		ros_trace_rcl_timer_init((const void *)(uintptr_t)(0x10000000 + i), 1000000);
	printf("ready pid=%d\n", (int)getpid());
	fflush(stdout);
	long period_ns = (long)(1e9 / hz);
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	long k = 0;
	while (!stop) {
		ros_trace_rcl_timer_init((const void *)(uintptr_t)(0x20000000 + k), 1000000);
		k++;
		next.tv_nsec += period_ns;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	printf("stopped %ld\n", k);
	fflush(stdout);
	for (;;)
		pause();
}
