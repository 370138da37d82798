/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `top` (issue 35, proto/caret_ctl_top.h): watches the processes a
 * requester may see for a lease (their segments' `watched` word), reads
 * their counter areas (proto/caret_segment.h) and turns the differences
 * between two reads into rows, joined with their init records (callback
 * symbol, node, kind, topic). A process is unwatched again once no
 * request renewed its lease (the "top leases" job), so a killed caretctl
 * leaves its processes' hooks as cheap as before.
 */
#ifndef CARETD_TOP_H
#define CARETD_TOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/agents/registry.h"
#include "daemon/base/loop.h"
#include "proto/caret_ctl_top.h"

struct top;

/* The module and its lease job on loop (loop NULL: no job, tests call
 * top_expire). */
int top_start(struct top **out, struct loop *loop, struct registry *reg);
void top_stop(struct top *t);

/* The rows of the processes whose owner may(uid, arg) allows, each
 * watched until now_ns + lease_ms (rows point into the registry's agents
 * and out's own storage: top_result_free, before the registry changes).
 * 0 or a negative errno with err filled. */
int top_collect(struct top *t, bool (*may)(uid_t uid, const void *arg), const void *arg,
		int64_t lease_ms, int64_t now_ns, struct caret_ctl_top *out, char *err,
		size_t errlen);
void top_result_free(struct caret_ctl_top *out);

/* Unwatches the processes whose lease ended by now_ns, and those whose
 * watch no lease of this caretd holds (a previous caretd's); how many
 * are still watched. */
int top_expire(struct top *t, int64_t now_ns);

#endif
