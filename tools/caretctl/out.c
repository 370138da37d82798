/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Standard output cut by its reader (`caretctl events | head -1`). caretctl
 * ignores SIGPIPE so that a caretd vanishing mid-write gives EPIPE instead
 * of killing it; the same choice would turn a reader that has seen enough
 * into a failure. A filter's output ending early is a normal end (issue 33
 * L12): no message, exit status unchanged.
 */
#include <poll.h>
#include <stdio.h>
#include <unistd.h>

#include "caretctl.h"

bool cli_out_gone(void)
{
	/* errno after a failed stdio write may have been overwritten since;
	 * a pipe or socket without a reader says so itself, with POLLERR. */
	struct pollfd p = { .fd = STDOUT_FILENO, .events = POLLOUT };
	return poll(&p, 1, 0) == 1 && (p.revents & POLLERR);
}

bool cli_out_cut(void)
{
	return ferror(stdout) && cli_out_gone();
}
