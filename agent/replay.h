/* SPDX-License-Identifier: Apache-2.0 */
/* The replay thread (replay.c). */
#ifndef CARET_AGENT_REPLAY_H
#define CARET_AGENT_REPLAY_H

#include "shm/caret_shm.h"

/* Starts the thread that replays `seg`'s cache when a controller opens a
 * pass; `distribution` goes into its caret_init events. Returns 0 or a
 * negative errno. */
int caret_replay_start(struct caret_seg *seg, const char *distribution);

#endif
