/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The disk guard of a rotating recording (daemon/recording/rotation.h): whether the
 * file system of its trace directory has room for the chunk being written
 * and the next one. Ending the recording is the caller's.
 */
#ifndef CARETD_ROTATION_SPACE_H
#define CARETD_ROTATION_SPACE_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/recording/rotation_state.h"

/* At most once a second: true when the free space is below what t needs
 * (*avail, *need). */
bool rotation_space_low(struct rotation *t, int64_t now, uint64_t *avail, uint64_t *need);

#endif
