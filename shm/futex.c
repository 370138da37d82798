/* SPDX-License-Identifier: Apache-2.0 */
/* Futex wait/wake on the segment's words, for both sides of the handshake. */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "shm/futex.h"

int caret_futex_wait(uint32_t *word, uint32_t expected, int timeout_ms)
{
	struct timespec ts, *tp = NULL;
	if (timeout_ms >= 0) {
		ts.tv_sec = timeout_ms / 1000;
		ts.tv_nsec = (long)(timeout_ms % 1000) * 1000000L;
		tp = &ts;
	}
	long r = syscall(SYS_futex, word, FUTEX_WAIT, expected, tp, NULL, 0);
	if (r < 0 && errno != EAGAIN && errno != EINTR)
		return -errno;
	return 0;
}

int caret_futex_wake(uint32_t *word)
{
	long r = syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	return r < 0 ? -errno : (int)r;
}
