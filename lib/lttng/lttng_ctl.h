/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What lib/lttng/'s modules share of liblttng-ctl (lttng_ctl.c): error
 * codes and messages, handles, names, the session list. Nothing outside
 * lib/lttng/ includes this (the door is lib/lttng/session.h).
 */
#ifndef CARETD_LTTNG_CTL_H
#define CARETD_LTTNG_CTL_H

#include <stdbool.h>
#include <stddef.h>

#include <lttng/lttng.h>

/* lttng-ctl returns negative lttng_error_code values, sometimes positive:
 * the code, positive. */
int caret_lttng_code(int ret);
/* "lttng: STEP of session S failed: lttng_strerror()", with ret's errno. */
int caret_lttng_fail(char *err, size_t errlen, int ret, const char *step, const char *session);
/* A handle on session's user space domain, per-UID buffers (the only
 * domain caretd records user space events in): 0 or -ENOMEM with err. */
int caret_lttng_ust_handle(const char *session, struct lttng_handle **h, char *err,
			   size_t errlen);
/* creating: our stricter rule for names we give (proto/caret_ctl_limits.h);
 * else LTTng's, for sessions that exist. 0 or -EINVAL. */
int caret_lttng_check_name_for(const char *name, bool creating, char *err, size_t errlen);
int caret_lttng_check_name(const char *name, char *err, size_t errlen);
/* Every session (caretd's rights, also from a helper acting as a
 * requester); *out is for the caller to free on every path. */
int caret_lttng_list_sessions(struct lttng_session **out, char *err, size_t errlen);
const struct lttng_session *caret_lttng_find_session(const struct lttng_session *s, int n,
						     const char *name);

#endif
