/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A size bound on a session, kept by the session daemon itself: a trigger
 * (LTTng 2.13) whose condition is the session's consumed size reaching a
 * threshold and whose action stops the session. caretd sees the session
 * stop and destroys it. The sessiond samples the consumed size on the
 * channels' monitor timer (1 s by default), so a session may pass the
 * bound by what it writes in about a second.
 *
 * Triggers outlive the client that registered them: each is named
 * CARET_LTTNG_LIMIT_PREFIX + session, removed with the session, and
 * caretd removes every trigger of that prefix it finds at start (a
 * caretd that was killed leaves its triggers behind).
 *
 * Same conventions as lib/lttng/session.h (negative errno, err line, one
 * caller at a time).
 */
#ifndef CARETD_LTTNG_LIMIT_H
#define CARETD_LTTNG_LIMIT_H

#include <stddef.h>
#include <stdint.h>

#define CARET_LTTNG_LIMIT_PREFIX "caretd-size-bound-"

int caret_lttng_limit_size(const char *session, uint64_t bytes, char *err, size_t errlen);
/* Removes the session's bound (none: 0). */
int caret_lttng_limit_remove(const char *session);
/* Removes every bound caretd registered; how many, or -errno. */
int caret_lttng_limit_remove_all(void);

#endif
