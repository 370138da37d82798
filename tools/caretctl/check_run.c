/* SPDX-License-Identifier: Apache-2.0 */
/*
 * babeltrace2 in a child process with a deadline (B18). A truncated
 * metadata file makes babeltrace2's ctf plugin spin forever in 2.0 (the
 * `babeltrace2` command too); a thread could not be stopped, a child can
 * be killed. The child sends its report (check_wire.h) and exits; the
 * parent only ever decodes bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_wire.h"
#include "util/caret_util.h"

static int64_t now_ms(void)
{
	return caret_now_ns() / 1000000;
}

static void write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

static __attribute__((noreturn)) void child(const char *dir, int fd, pid_t parent)
{
	/* an orphan reader spinning on its own helps nobody */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1); /* the parent died before the line above */
	/* babeltrace2 logs to stderr (its plugins' warnings, the whole
	 * metadata on a parse error): the child speaks only through the pipe,
	 * and keeps the log to say why the metadata parser failed, or why a
	 * stream file could not be indexed. */
	int log = memfd_create("caretctl-check-log", MFD_CLOEXEC);
	if (log >= 0)
		dup2(log, STDERR_FILENO);
	bt_logging_set_global_level(BT_LOGGING_LEVEL_ERROR);
	/* babeltrace 2.0's metadata parser logs at its own level */
	setenv("BABELTRACE_PLUGIN_CTF_METADATA_LOG_LEVEL", "E", 1);
	struct check_buf b = { 0 };
	char err[1024] = "";
	struct check_model *m = check_model_new();
	int rc = m ? check_bt_run(dir, m, err, sizeof(err)) : -ENOMEM;
	if (rc == 0 && (rc = check_model_finish(m)) < 0)
		snprintf(err, sizeof(err), "out of memory");
	if (rc == 0)
		check_wire_report(&b, check_model_report(m));
	if ((rc == -EBADMSG || rc == -EIO) && log >= 0) {
		char text[8192];
		ssize_t n = pread(log, text, sizeof(text) - 1, 0);
		text[n > 0 ? n : 0] = '\0';
		if (rc == -EBADMSG)
			check_bt_log_reason(text, err, sizeof(err));
		else
			check_bt_stream_reason(text, err, sizeof(err));
	}
	if (rc < 0 || b.err) {
		b.n = 0;
		b.err = 0;
		check_wire_error(&b, rc < 0 ? rc : -ENOMEM, rc < 0 ? err : "out of memory");
	}
	check_model_free(m);
	if (!b.err)
		write_all(fd, b.p, b.n);
	free(b.p);
	_exit(b.err ? 1 : 0);
}

/* The child's answer from fd into b until EOF, the deadline (*timed_out)
 * or CHECK_WIRE_MAX bytes (*too_big): 0, or -ENOMEM. */
static int read_answer(int fd, int64_t deadline, struct check_buf *b, bool *timed_out,
		       bool *too_big)
{
	for (;;) {
		int64_t left = deadline - now_ms();
		if (left <= 0) {
			*timed_out = true;
			return 0;
		}
		struct pollfd pfd = { fd, POLLIN, 0 };
		int pr = poll(&pfd, 1, left > 1000 ? 1000 : (int)left);
		if (pr <= 0)
			continue; /* EINTR, or the next second */
		uint8_t chunk[65536];
		ssize_t r = read(fd, chunk, sizeof(chunk));
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0)
			return 0; /* EOF: the child is done (or died) */
		if (b->n + (size_t)r > CHECK_WIRE_MAX) {
			*too_big = true;
			return 0;
		}
		check_wire_append(b, chunk, (size_t)r);
		if (b->err)
			return -ENOMEM;
	}
}

int check_run_isolated(const char *dir, int64_t timeout_ms, struct check_report *out,
		       char *err, size_t errlen)
{
	int fds[2];
	memset(out, 0, sizeof(*out));
	if (pipe2(fds, O_CLOEXEC) < 0) {
		int e = errno;
		snprintf(err, errlen, "pipe: %s", strerror(e));
		return -e;
	}
	fflush(NULL); /* no buffered output twice */
	pid_t parent = getpid(), pid = fork();
	if (pid < 0) {
		int e = errno;
		close(fds[0]);
		close(fds[1]);
		snprintf(err, errlen, "fork: %s", strerror(e));
		return -e;
	}
	if (pid == 0) {
		close(fds[0]);
		child(dir, fds[1], parent);
	}
	close(fds[1]);
	struct check_buf b = { 0 };
	bool timed_out = false, too_big = false;
	int rc = read_answer(fds[0], now_ms() + timeout_ms, &b, &timed_out, &too_big);
	close(fds[0]);
	if (timed_out || too_big || rc < 0)
		kill(pid, SIGKILL);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (timed_out) {
		snprintf(err, errlen,
			 "babeltrace2 did not finish reading %s within %g s and was stopped; "
			 "a trace whose metadata is truncated or corrupt makes it loop forever "
			 "(a very large trace may need a longer --timeout)",
			 dir, (double)timeout_ms / 1000.0);
		rc = -ETIMEDOUT;
	} else if (too_big) {
		snprintf(err, errlen, "the trace reader's answer exceeds %u MiB",
			 CHECK_WIRE_MAX >> 20);
		rc = -EMSGSIZE;
	} else if (rc == -ENOMEM) {
		snprintf(err, errlen, "out of memory");
	} else if (WIFSIGNALED(status)) {
		snprintf(err, errlen, "babeltrace2 crashed reading %s (signal %d: %s)", dir,
			 WTERMSIG(status), strsignal(WTERMSIG(status)));
		rc = -EIO;
	} else {
		rc = check_wire_decode(b.p, b.n, out, err, errlen);
	}
	free(b.p);
	return rc;
}
