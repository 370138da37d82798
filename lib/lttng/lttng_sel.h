/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A recording's selection beyond CARET's lists (proto/caret_ctl_sel.h)
 * turned into LTTng: its context fields, and its kernel channel, which
 * only a requester who may trace the kernel themselves gets.
 */
#ifndef CARETD_LTTNG_SEL_H
#define CARETD_LTTNG_SEL_H

#include <stddef.h>
#include <sys/types.h>

#include <lttng/lttng.h>

#include "lib/lttng/creds.h"
#include "proto/caret_ctl_sel.h"

/* The root session daemon's client socket: LTTng lets whoever can
 * connect to it (root and the members of its group, `tracing` by
 * default: lttng-sessiond --group) trace the kernel. */
#define CARET_LTTNG_CLIENT_SOCK "/var/run/lttng/client-lttng-sessiond"

/* The context name (as `lttng add-context` spells it, proto's
 * caret_ctl_sel_context_domains) added to channel of h's domain: 0 or
 * -errno with err naming the context. */
int caret_lttng_add_context(struct lttng_handle *h, const char *channel, const char *name,
			    const char *session, char *err, size_t errlen);

/* Before anything is created: whether each perf:thread:* context of s
 * has its counter on this machine (LTTng does not check it, see
 * lttng_sel.c): 0, or -ENOTSUP with err naming the context. */
int caret_lttng_sel_perf_check(const struct caret_ctl_sel *s, char *err, size_t errlen);

/*
 * Before anything is created for a recording with kernel events: whether
 * the requester (as: NULL for caretd itself) may trace the kernel by
 * LTTng's own rule, judged with their rights (can they reach
 * CARET_LTTNG_CLIENT_SOCK?), never caretd's: -EACCES with err saying so;
 * then whether the session daemon has a kernel tracer: -ENOTSUP naming
 * it (lttng-modules missing, or lttng-sessiond --no-kernel). 0: go on.
 */
int caret_lttng_kernel_check(const struct creds_id *as, char *err, size_t errlen);

/*
 * Only uid's processes in session's user space domain (LTTng's virtual
 * uid tracker, an include set of one): a member's recording must not hold
 * the ROS events of another user's processes, which would otherwise reach
 * every session of the root session daemon (issue 30 H7). Before the
 * start. 0 or -errno with err.
 */
int caret_lttng_sel_own_uid(const char *session, uid_t uid, char *err, size_t errlen);

#endif
