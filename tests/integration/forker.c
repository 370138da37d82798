/* SPDX-License-Identifier: Apache-2.0 */
/* Calls tracetools, forks, and calls tracetools again in both processes:
 * the child must get a segment of its own. Prints "child pid=N", then
 * "ready" once both have made their calls; both exit after argv[1] s. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/standin/tracetools/tracetools.h"

static int ctx, node_p, node_c;

int main(int argc, char **argv)
{
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
