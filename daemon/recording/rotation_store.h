/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Rotating recordings across a caretd restart (daemon/recording/rotation.h): the
 * state file (the view's, with ".rotation"), and the adoption of the
 * recordings it names that caretd still knows as the same ones: their
 * triggers again, and a verdict on every chunk archived while caretd was
 * away.
 */
#ifndef CARETD_ROTATION_STORE_H
#define CARETD_ROTATION_STORE_H

#include <stdbool.h>

#include "daemon/recording/rotation_state.h"

void rot_store_reset(void);
/* Whether the state file was read (rot_store_load). */
bool rot_store_loaded(void);
/* Names the state file before it is read (a recording begins first). */
void rot_store_name(void);
/* Writes every rotating recording (not the armed ones) to it. */
void rot_store_save(void);
/* Reads it and adopts what it names, once. */
void rot_store_load(void);

#endif
