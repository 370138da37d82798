/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Stopping signals (SIGINT, SIGTERM, SIGHUP) during `record`. They stay
 * blocked except inside cli_ppoll(), so a signal can never slip in between
 * checking the flag and going to sleep. The first one sets a flag and
 * restores the default action: a second Ctrl-C ends caretctl at once.
 */
#ifndef CARETCTL_SIG_H
#define CARETCTL_SIG_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

int cli_sig_setup(void);
/* The signal number caught so far, or 0. */
int cli_sig_caught(void);

/*
 * poll() until deadline_ms (-1: none) with stopping signals deliverable.
 * Returns what poll returns, -1/EINTR when a signal arrived.
 */
int cli_ppoll(struct pollfd *fds, nfds_t n, int64_t deadline_ms);

/* Sleeps until deadline_ms; -EINTR if a stopping signal arrived first. */
int cli_sleep_until(int64_t deadline_ms);

/*
 * Waits for a line on standard input. Returns 0 (Enter), -EINTR (signal),
 * -ETIMEDOUT, or -EPIPE (end of input: caller decides what that means).
 */
int cli_wait_enter(int64_t deadline_ms);
/* Forgets what was typed ahead, so an early Enter cannot stop a recording. */
void cli_discard_typeahead(void);

#endif
