/* SPDX-License-Identifier: Apache-2.0 */
/* One connection to caretd's control socket: bounded lines, hard deadlines. */
#ifndef CARETCTL_CONN_H
#define CARETCTL_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cli_conn {
	int fd;
	char *buf;	/* grows up to CARET_CTL_MAX_REPLY + 2: a line, '\n', NUL */
	size_t cap;	/* bytes allocated */
	size_t len;	/* bytes held */
	size_t off;	/* start of the first unread line */
};

/*
 * Connects to the unix socket at path. Returns 0 or the connect errno
 * negated (-ENOENT, -ECONNREFUSED, -EACCES, ...), or -ENAMETOOLONG.
 * A full listen backlog (-EAGAIN) is retried until deadline_ms.
 */
int cli_conn_open(struct cli_conn *c, const char *path, int64_t deadline_ms);
void cli_conn_close(struct cli_conn *c);

/* Writes all of line (which must end in '\n'). -ETIMEDOUT, -EPIPE, ... */
int cli_conn_send(struct cli_conn *c, const char *line, size_t len,
		  int64_t deadline_ms);

/*
 * Returns the next line (without '\n', NUL-terminated) in *line, valid
 * until the next call. Errors: -ETIMEDOUT, -ECONNRESET (peer closed, also
 * mid-line), -EMSGSIZE (longer than CARET_CTL_MAX_REPLY), -EINTR (a
 * stopping signal arrived and interruptible is set), other -errno.
 */
int cli_conn_read_line(struct cli_conn *c, int64_t deadline_ms, bool interruptible,
		       char **line, size_t *len);

/* True for the errors that mean "the daemon went away", worth reconnecting. */
bool cli_conn_gone(int err);

#endif
