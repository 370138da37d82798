/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Rotating recordings across a caretd restart (daemon/recording/rotation.h):
 * a rotation's part of its recording's line in the recordings' file
 * (daemon/recording/recordings_state.c), and the adoption of one restored:
 * its triggers again, and a verdict on every chunk archived while caretd
 * was away.
 */
#ifndef CARETD_ROTATION_STORE_H
#define CARETD_ROTATION_STORE_H

#include <stdio.h>

#include "daemon/recording/rotation_state.h"

/* The recordings are saved (a rotation changed). */
void rotation_store_save(void);
/* rotation_feature's save and restore (struct recording_feature_ops). */
void rotation_store_save_token(const struct recording *r, FILE *f);
int rotation_store_restore(struct recordings *t, struct recording *r, const char *token);
/* A restored rotation taken over, once the scheduler adopted every agent. */
void rotation_store_adopt(struct rotation *t);

#endif
