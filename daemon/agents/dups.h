/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caretd's count of the replayed init records a session holds twice (what
 * `caretctl check` counts as copies in its trace): the records of each
 * replay pass, by position in the agent's cache, against what each active
 * session already holds of that cache.
 */
#ifndef CARETD_DUPS_H
#define CARETD_DUPS_H

#include <stdint.h>

#include "daemon/lttng/lttng_view.h"
#include "daemon/agents/registry.h"
#include "shm/caret_shm.h"

/*
 * Charges the `emitted` records agent `a` replayed since the last call
 * (its `replayed` counter's growth), whose pass and position `st` shows
 * now, to the copies (struct lttng_view_session dups) of every active
 * session enabling ros2_caret events that already held them:
 *   - a session an earlier pass of the agent covered (its serial at most
 *     the scheduler's covered_serial) holds its whole cache;
 *   - another one holds what the agent replayed while it was active: the
 *     positions of an earlier pass cut short (a pass started over for a
 *     newer session, issue 22 D12, gives the first records again).
 * A pass with a filter (CARET_AGENT_PASS_FILTER) emits only some of the
 * positions it passes: the count is then an upper bound (dups_bound).
 */
void dups_charge(struct lttng_view *v, struct agent *a, const struct caret_seg_status *st,
		 uint64_t emitted);

/*
 * A recording paused (`caretctl pause`) while it is the active session of
 * serial `serial`: what it holds of each agent's cache is kept under that
 * serial (a completed pass covered it: the whole cache so far; else what
 * the agent replayed into it), for dups_resume.
 */
void dups_pause(struct lttng_view *v, struct registry *reg, uint32_t serial);
/* The paused recording of serial `from` active again as serial `to`: the
 * replay every process makes into it counts what it held as copies. */
void dups_resume(struct registry *reg, uint32_t from, uint32_t to);

#endif
