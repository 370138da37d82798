/* SPDX-License-Identifier: Apache-2.0 */
/* A layout's channel (lib/lttng/session.h caret_lttng_layout()) made in a
 * session. */
#ifndef CARET_LIB_LTTNG_CHANNEL_H
#define CARET_LIB_LTTNG_CHANNEL_H

#include <stddef.h>

#include "proto/caret_ctl_plan.h"

/* The channel, its contexts, its event rules, in session, exactly as c
 * says. 0 or -errno with err naming the step. */
int caret_lttng_make_channel(const char *session, const struct caret_ctl_plan_channel *c,
			     char *err, size_t errlen);

#endif
