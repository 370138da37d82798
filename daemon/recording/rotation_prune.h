/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The disk bound of a rotating recording applied after each rotation off
 * caretd's loop (H2: six planted chunk directories of 100,000 files kept
 * caretd from answering for 3 s): the helper that lists, measures and
 * prunes the archives as their owner (daemon/recording/chunks.h) runs on its own,
 * at a lower CPU priority, with a deadline; caretd reads its answer when
 * the helper's pipe is readable and kills it past the deadline. One
 * helper per recording at a time: rotations that end while it runs are
 * pruned by one more run after it.
 */
#ifndef CARETD_ROTATION_PRUNE_H
#define CARETD_ROTATION_PRUNE_H

#include <systemd/sd-event.h>

#include "daemon/recording/rotation_state.h"

/* The helper stops by itself after this long (what it removed stays
 * removed); caretd kills it ROT_PRUNE_KILL_MS later if it has not. */
#define ROT_PRUNE_MS 10000
#define ROT_PRUNE_KILL_MS 5000

/* The loop the helpers' answers are read on (NULL: none, every scan is
 * rotation_scan's, waited for). */
void rotation_prune_init(sd_event *e);
/* t just rotated: its scan and bound, in the background. */
void rotation_prune_begin(struct rotation *t);
/* Whether t's helper runs. */
bool rotation_prune_running(const struct rotation *t);
/* t goes (or is scanned now, waited for): its helper, if any, is killed
 * and its answer dropped. */
void rotation_prune_cancel(const struct rotation *t);
/* Every helper killed (caretd stops). */
void rotation_prune_cancel_all(void);

#endif
