/* SPDX-License-Identifier: Apache-2.0 */
/* Calls tracetools, forks, and calls tracetools again in both processes:
 * the child must get a segment of its own. Prints "child pid=N", then
 * "ready" once both have made their calls; both exit after argv[1] s.
 * "forker --exec S": calls tracetools ("before" node), then exec()s itself
 * (same pid, same start time), which calls tracetools again ("after" node),
 * prints "ready pid=N" and exits after S s. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/standin/tracetools/tracetools.h"

static int ctx, node_p, node_c;

static int exec_mode(char **argv)
{
	if (argv[1][2] == 'e') { /* --exec: the first image */
		ros_trace_rcl_init(&ctx);
		ros_trace_rcl_node_init(&node_p, &node_p, "before", "/");
		char *args[] = { argv[0], "--after", argv[2], NULL };
		execv("/proc/self/exe", args);
		return 1;
	}
	ros_trace_rcl_init(&ctx);
	ros_trace_rcl_node_init(&node_p, &node_p, "after", "/");
	printf("ready pid=%d\n", (int)getpid());
	fflush(stdout);
	sleep((unsigned)atoi(argv[2]));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 2 && argv[1][0] == '-')
		return exec_mode(argv);
	unsigned secs = argc > 1 ? (unsigned)atoi(argv[1]) : 2;
	ros_trace_rcl_init(&ctx);
	int fds[2];
	if (pipe(fds) < 0)
		return 1;
	pid_t child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		ros_trace_rcl_node_init(&node_c, &node_c, "child", "/");
		if (write(fds[1], "x", 1) != 1)
			_exit(1);
		sleep(secs);
		_exit(0);
	}
	printf("child pid=%d\n", (int)child);
	ros_trace_rcl_node_init(&node_p, &node_p, "parent", "/");
	char c;
	if (read(fds[0], &c, 1) != 1)
		return 1;
	printf("ready\n");
	fflush(stdout);
	sleep(secs);
	int st;
	waitpid(child, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
