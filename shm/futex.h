/* SPDX-License-Identifier: Apache-2.0 */
/* shm/ internal: the futex calls behind both halves of the handshake.
 * Non-private futexes: the waiter and the waker are different processes. */
#ifndef CARET_SHM_FUTEX_H
#define CARET_SHM_FUTEX_H

#include <stdint.h>

/* Sleeps while *word == expected, at most timeout_ms (< 0: forever).
 * Returns 0 when woken or the word differed, -ETIMEDOUT, or -errno. */
int caret_futex_wait(uint32_t *word, uint32_t expected, int timeout_ms);
/* Wakes every waiter; returns how many or -errno. */
int caret_futex_wake(uint32_t *word);

#endif
