/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "caretctl.h"
#include "sig.h"
#include "util/caret_util.h"

static volatile sig_atomic_t caught;
static sigset_t open_mask;	/* the mask to sleep with: stopping signals open */
static bool armed;

static const int stopping[] = { SIGINT, SIGTERM, SIGHUP };

static void on_signal(int sig)
{
	caught = sig;
}

int cli_sig_setup(void)
{
	sigset_t block;
	sigemptyset(&block);
	for (size_t i = 0; i < sizeof(stopping) / sizeof(stopping[0]); i++)
		sigaddset(&block, stopping[i]);
	if (sigprocmask(SIG_BLOCK, &block, &open_mask) < 0)
		return -errno;
	for (size_t i = 0; i < sizeof(stopping) / sizeof(stopping[0]); i++)
		sigdelset(&open_mask, stopping[i]);

	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESETHAND;	/* no SA_RESTART: ppoll must return */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(stopping) / sizeof(stopping[0]); i++)
		if (sigaction(stopping[i], &sa, NULL) < 0)
			return -errno;
	armed = true;
	return 0;
}

int cli_sig_caught(void)
{
	/*
	 * ppoll() that returns ready fds leaves a signal that came at the
	 * same time pending (and blocked again): let it in now.
	 */
	if (armed && !caught) {
		sigset_t pend;
		struct timespec zero = { 0, 0 };
		sigpending(&pend);
		for (size_t i = 0; i < sizeof(stopping) / sizeof(stopping[0]); i++)
			if (sigismember(&pend, stopping[i]))
				ppoll(NULL, 0, &zero, &open_mask);
	}
	return caught;
}

int cli_ppoll(struct pollfd *fds, nfds_t n, int64_t deadline_ms)
{
	struct timespec ts, *tsp = NULL;
	if (deadline_ms >= 0) {
		int64_t left = deadline_ms - cli_now_ms();
		if (left < 0)
			left = 0;
		ts.tv_sec = left / 1000;
		ts.tv_nsec = (left % 1000) * 1000000;
		tsp = &ts;
	}
	return ppoll(fds, n, tsp, armed ? &open_mask : NULL);
}

int cli_sleep_until(int64_t deadline_ms)
{
	for (;;) {
		if (cli_sig_caught())
			return -EINTR;
		if (cli_now_ms() >= deadline_ms)
			return 0;
		if (cli_ppoll(NULL, 0, deadline_ms) < 0 && errno != EINTR)
			return -errno;
	}
}

/* Bytes read from stdin past the last Enter, kept for the next wait. */
static char inbuf[512];
static size_t inlen;

static bool take_line(void)
{
	char *nl = memchr(inbuf, '\n', inlen);
	if (!nl)
		return false;
	size_t used = (size_t)(nl - inbuf) + 1;
	memmove(inbuf, nl + 1, inlen - used);
	inlen -= used;
	return true;
}

int cli_wait_enter(int64_t deadline_ms)
{
	for (;;) {
		if (take_line())
			return 0;
		if (cli_sig_caught())
			return -EINTR;
		if (deadline_ms >= 0 && cli_now_ms() >= deadline_ms)
			return -ETIMEDOUT;
		struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
		int r = cli_ppoll(&p, 1, deadline_ms);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			continue;
		if (p.revents & POLLNVAL)
			return cli_sig_caught() ? -EINTR : -EPIPE;
		if (inlen == sizeof(inbuf))
			inlen = 0;	/* a long line: only its end matters */
		ssize_t n = read(STDIN_FILENO, inbuf + inlen, sizeof(inbuf) - inlen);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -EPIPE;
		}
		if (n == 0)
			return cli_sig_caught() ? -EINTR : -EPIPE;
		inlen += (size_t)n;
	}
}

void cli_discard_typeahead(void)
{
	/* Only a terminal has a human typing ahead; a pipe holds a script. */
	if (isatty(STDIN_FILENO)) {
		tcflush(STDIN_FILENO, TCIFLUSH);
		inlen = 0;
	}
}

int64_t cli_now_ms(void)
{
	return caret_now_ns() / 1000000;
}
