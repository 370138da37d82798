/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Floods an LTTng session with init-sized events through libtracetools for
 * a given time, from several threads, so the bench can measure how fast the
 * consumer daemon drains bytes to disk on this machine (the physical limit
 * a replay is compared with).
 * Usage: caret-flood SECONDS THREADS [runtime]
 * With "runtime", the events are callback_start/callback_end pairs (what
 * most of a real trace is) instead of init-sized records.
 * The clock starts once the session daemon has enabled the tracepoints in
 * this process: with hundreds of registered applications that can take
 * longer than lttng-ust's registration wait (3 s), and events before it
 * are not recorded at all. With CARET_FLOOD_GO=stdin it then also waits for
 * a line on its standard input: a flood started before its session.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools/standin/tracetools/tracetools.h"

static double secs;
static volatile int stop;
static int runtime;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *run(void *arg)
{
	unsigned long n = 0;
	static const char sym[] = "void (anonymous namespace)::Talker::on_timer()";
	while (!stop) {
		if (runtime) {
			for (int i = 0; i < 512; i++) {
				ros_trace_callback_start((void *)(0x1000 + (unsigned long)(i & 7)), false);
				ros_trace_callback_end((void *)(0x1000 + (unsigned long)(i & 7)));
			}
		} else {
			for (int i = 0; i < 1024; i++)
				ros_trace_do_rclcpp_callback_register((void *)(n + (unsigned long)i),
								      sym);
		}
		n += 1024;
	}
	*(unsigned long *)arg = n;
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3 && !(argc == 4 && strcmp(argv[3], "runtime") == 0)) {
		fprintf(stderr, "usage: caret-flood SECONDS THREADS [runtime]\n");
		return 2;
	}
	runtime = argc == 4;
	secs = atof(argv[1]);
	int nt = atoi(argv[2]);
	if (nt < 1 || nt > 64 || secs <= 0)
		return 2;
	pthread_t t[64];
	unsigned long counts[64];
	double w0 = now();
	while (!(runtime ? ros_trace_enabled_callback_start() : ros_trace_enabled_rclcpp_callback_register())) {
		if (now() - w0 > 60) {
			fprintf(stderr, "caret-flood: tracepoints not enabled after 60 s\n");
			return 1;
		}
		struct timespec d = { 0, 1000000 };
		nanosleep(&d, NULL);
	}
	const char *go = getenv("CARET_FLOOD_GO");
	if (go && strcmp(go, "stdin") == 0) {
		char line[16];
		if (!fgets(line, sizeof(line), stdin))
			return 1;
	}
	double t0 = now();
	for (int i = 0; i < nt; i++)
		pthread_create(&t[i], NULL, run, &counts[i]);
	while (now() - t0 < secs) {
		struct timespec d = { 0, 10000000 };
		nanosleep(&d, NULL);
	}
	stop = 1;
	unsigned long total = 0;
	for (int i = 0; i < nt; i++) {
		pthread_join(t[i], NULL);
		total += counts[i];
	}
	printf("emitted=%lu seconds=%.3f enable_wait=%.3f\n", total, now() - t0, t0 - w0);
	return 0;
}
