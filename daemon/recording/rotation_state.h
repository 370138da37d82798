/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The rotating recordings (daemon/recording/rotation.h), which every part
 * of rotation reads and writes: the triggers and notifications
 * (rotation_lttng.h), the chunks' verdicts (rotation_verdict.h), the
 * restart (rotation_store.h), the disk guard (rotation_space.h), status
 * (rotation_report.h). Each one's state is its recording's (struct
 * recording's rot, daemon/recording/recording.h); this names the
 * recordings table, the view and the registry the rotations look at, and
 * calls nothing of rotation's.
 */
#ifndef CARETD_ROTATION_STATE_H
#define CARETD_ROTATION_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/agents/registry.h"
#include "daemon/recording/recordings.h"
#include "daemon/recording/rotation_types.h"

#define MAX_ROT RECORDINGS_MAX

/* What the rotations look at (what it held before is not freed:
 * rotation_state_free). */
void rotation_state_init(struct recordings *t, struct registry *r);
/* Frees what every rotation holds (its listing, its baseline). */
void rotation_state_free(void);

struct recordings *rotation_recs(void);
struct lttng_view *rotation_view(void);
struct registry *rotation_reg(void);

/* The rotation of recording slot i, 0 <= i < MAX_ROT (used or not). */
struct rotation *rotation_at(int i);
struct rotation *rotation_find(const char *session);
bool rotation_any(void);

#endif
