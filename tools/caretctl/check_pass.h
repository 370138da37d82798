/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The replay passes of one process, as `caretctl check` reads them from
 * the trace: the agent brackets each pass with ros2_caret:caret_replay_begin
 * (the records it is to walk) and caret_replay_end (the records it
 * emitted), on its replay thread (agent/replay.c). The records that thread
 * emitted between them are the pass's; a pass without its end was cut
 * short by the recording, one with fewer records than its end states lost
 * some in the tracer. Fills the passes and cut_* fields of check_proc.
 */
#ifndef CARETCTL_CHECK_PASS_H
#define CARETCTL_CHECK_PASS_H

#include <stdint.h>

#include "check.h"

/* A begin mark on thread vtid; a pass still in flight is abandoned (the
 * agent restarts from its first record when a new pass opens). */
void check_pass_begin(struct check_proc *p, uint64_t vtid, uint64_t pass, uint64_t records);
/* A ros2_caret init record on thread vtid. */
void check_pass_record(struct check_proc *p, uint64_t vtid);
/* An end mark; one without the begin of its pass (a snapshot's edge) is
 * not judged: where the pass began is unknown. */
void check_pass_end(struct check_proc *p, uint64_t vtid, uint64_t pass, uint64_t records);
/* The trace ended: a pass in flight was cut short. */
void check_pass_finish(struct check_proc *p);

#endif
